//! Mutation analysis in the printer's terms: which planned assertions of a test fail when the
//! test runs against a mutant, and the selection of assertions by the mutants they kill
//! (Fraser and Zeller, "Mutation-Driven Generation of Unit Tests and Oracles": of the candidate
//! assertions, keep those that kill mutants, greedily; EvoSuite's assertion minimisation).
//!
//! An assertion *kills* a mutant when the value it checks differs in the mutated run: the plan
//! of the mutated run (built as for printing) has no assertion on the same subject with the
//! same check. A mutated run that throws where the original did not fails the test whatever it
//! asserts: the caller counts that as a kill by the test's outcome (as it does a timeout).

use std::collections::{BTreeMap, BTreeSet};

use super::names::named_statement;
use super::observation::Execution;
use super::plan::{plan, Assertion, Check, Expected, Item, Plan, Subject, Wrap};
use super::printer::{AssertionId, AssertionKind, Suppressions};
use super::{ExecutedTest, TestClassSpec, TypeFacts};

/// A mutant, by the caller's numbering.
pub type MutantId = u32;

/// What killed which mutant in one test.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TestKills {
    /// Mutants the test reached (ran the mutated line of).
    pub reached: BTreeSet<MutantId>,
    /// Mutants the test kills by its outcome alone: an exception the original run did not
    /// throw, a timeout, a crash.
    pub by_outcome: BTreeSet<MutantId>,
    /// Per planned assertion, the mutants it kills.
    pub by_assertion: BTreeMap<AssertionId, BTreeSet<MutantId>>,
}

impl TestKills {
    /// The mutants killed when only `kept` assertions are printed.
    pub fn killed_with(&self, kept: &BTreeSet<AssertionId>) -> BTreeSet<MutantId> {
        let mut out = self.by_outcome.clone();
        for (id, mutants) in &self.by_assertion {
            if kept.contains(id) {
                out.extend(mutants.iter().copied());
            }
        }
        out
    }
}

/// Every assertion the plan of test `index` holds, with its kind, in plan order.
pub fn planned_assertions(
    index: usize,
    executed: &ExecutedTest,
    facts: &TypeFacts,
) -> Vec<(AssertionId, AssertionKind)> {
    let plan = plan(index, executed, facts);
    keyed(&plan)
        .into_iter()
        .map(|(id, kind, _)| (id, kind))
        .collect()
}

/// The planned assertions of test `index` (whose original run is `original`) that fail on
/// `mutated`, a run of the same test against a mutant that did not end the test differently
/// (see the module doc).
pub fn assertion_kills(
    index: usize,
    original: &ExecutedTest,
    mutated: &Execution,
    facts: &TypeFacts,
) -> BTreeSet<AssertionId> {
    let before = plan(index, original, facts);
    let mutated_test = ExecutedTest {
        test: original.test.clone(),
        execution: mutated.clone(),
    };
    let after = plan(index, &mutated_test, facts);
    let still: BTreeSet<String> = keyed(&after).into_iter().map(|(_, _, k)| k).collect();
    keyed(&before)
        .into_iter()
        .filter(|(_, _, key)| !still.contains(key))
        .map(|(id, _, _)| id)
        .collect()
}

/// The assertions a test always keeps: that its last statement throws, and the one on the value
/// of the call it is named after.
fn always_kept(plan: &Plan, class_under_test: &str) -> BTreeSet<AssertionId> {
    let mut out = BTreeSet::new();
    if let Some(throw) = &plan.throw {
        out.insert(throw.id);
    }
    let executed = plan.executed;
    if let Some(focal) = named_statement(&executed.test, &executed.execution, class_under_test) {
        for item in plan.after.get(focal).into_iter().flatten() {
            if let Item::Assert(a) = item {
                if matches!(a.subject, Subject::Value(v) | Subject::Length(v) if v == focal) {
                    out.insert(a.id);
                }
            }
        }
    }
    out
}

/// Assertion selection by mutation analysis: per test, the assertions it always keeps
/// ([`always_kept`]), then greedily the assertion that kills the most mutants neither the kept
/// ones nor the test's outcome kill, while one kills any, up to `max_selected` more; then, over
/// the suite, assertions that kill mutants the kept ones miss, beyond the bound. Every other
/// planned assertion is suppressed without a comment. A test none of whose assertions would be
/// kept keeps its first one, so that no printed test asserts nothing; a test for which no mutant
/// was run keeps them all.
///
/// EvoSuite minimises over the whole suite's mutants; this selects per test (a mutant
/// another test kills may be killed here too), so that every test states what it checks of the
/// behaviour it is named after, and the suite's score cannot fall below the all-assertions one
/// through a test that verification later drops.
pub fn select_assertions(
    spec: &TestClassSpec,
    kills: &[TestKills],
    max_selected: usize,
) -> Suppressions {
    // Per test: its planned assertions, and those it keeps.
    let mut tests: Vec<(usize, Vec<AssertionId>, BTreeSet<AssertionId>)> = Vec::new();
    for (index, executed) in spec.tests.iter().enumerate() {
        let plan = plan(index, executed, &spec.facts);
        let all: Vec<AssertionId> = keyed(&plan).into_iter().map(|(id, _, _)| id).collect();
        let Some(test_kills) = kills.get(index).filter(|k| !k.reached.is_empty()) else {
            // No mutant of this test was run (none on its lines, or the bound left them out):
            // no evidence to drop an assertion on.
            continue;
        };
        let mut kept = always_kept(&plan, &spec.class_under_test);
        let mut covered = test_kills.killed_with(&kept);
        for _ in 0..max_selected {
            let Some(id) = best_addition(&all, &kept, test_kills, &covered) else {
                break;
            };
            kept.insert(id);
            covered = test_kills.killed_with(&kept);
        }
        if kept.is_empty() {
            if let Some(first) = all.first() {
                kept.insert(*first);
            }
        }
        tests.push((index, all, kept));
    }
    // Over the suite: a mutant every planned assertion together kills but the kept ones do not
    // (the per-test bound cut the assertion that kills it) gets the assertion that kills the
    // most such mutants back, until none is left, so that selection never lowers the score.
    let suite_killed =
        |use_all: bool, tests: &[(usize, Vec<AssertionId>, BTreeSet<AssertionId>)]| {
            let mut out = BTreeSet::new();
            for (index, all, kept) in tests {
                let all: BTreeSet<AssertionId> = all.iter().copied().collect();
                out.extend(kills[*index].killed_with(if use_all { &all } else { kept }));
            }
            out
        };
    let target = suite_killed(true, &tests);
    loop {
        let killed = suite_killed(false, &tests);
        let missing: BTreeSet<MutantId> = target.difference(&killed).copied().collect();
        if missing.is_empty() {
            break;
        }
        let best = tests
            .iter()
            .enumerate()
            .flat_map(|(k, (index, all, kept))| {
                let missing = &missing;
                all.iter().filter(|id| !kept.contains(id)).map(move |id| {
                    let gain = kills[*index]
                        .by_assertion
                        .get(id)
                        .map_or(0, |m| m.intersection(missing).count());
                    (gain, std::cmp::Reverse(*id), k)
                })
            })
            .filter(|(gain, _, _)| *gain > 0)
            .max();
        let Some((_, std::cmp::Reverse(id), k)) = best else {
            break;
        };
        tests[k].2.insert(id);
    }
    let mut suppressions = Suppressions::default();
    for (_, all, kept) in tests {
        for id in all {
            if !kept.contains(&id) {
                suppressions.assertions.insert(id, None);
            }
        }
    }
    suppressions
}

/// The assertion of `all` not yet `kept` that kills the most mutants outside `covered`, if one
/// kills any; among equals the earliest in the test.
fn best_addition(
    all: &[AssertionId],
    kept: &BTreeSet<AssertionId>,
    kills: &TestKills,
    covered: &BTreeSet<MutantId>,
) -> Option<AssertionId> {
    all.iter()
        .filter(|id| !kept.contains(id))
        .map(|id| {
            let gain = kills
                .by_assertion
                .get(id)
                .map_or(0, |m| m.difference(covered).count());
            (gain, std::cmp::Reverse(*id))
        })
        .filter(|(gain, _)| *gain > 0)
        .max()
        .map(|(_, std::cmp::Reverse(id))| id)
}

/// Each assertion of a plan with its kind and a key naming its subject, its place and its check:
/// equal keys in two plans of one test check the same thing the same way.
fn keyed(plan: &Plan) -> Vec<(AssertionId, AssertionKind, String)> {
    keyed_with(plan, &Some)
        .into_iter()
        .filter_map(|(id, kind, key)| Some((id, kind, key?)))
        .collect()
}

/// [`keyed`] with the statement indexes of the keys renumbered (`None` for an assertion on a
/// statement `renumber` has no number for): the keys of one test's assertions before and after
/// statements were removed from it, which are equal where they check the same thing.
pub(crate) fn keyed_renumbered(
    plan: &Plan,
    renumber: &dyn Fn(usize) -> Option<usize>,
) -> Vec<(AssertionId, Option<String>)> {
    keyed_with(plan, renumber)
        .into_iter()
        .map(|(id, _, key)| (id, key))
        .collect()
}

fn keyed_with(
    plan: &Plan,
    renumber: &dyn Fn(usize) -> Option<usize>,
) -> Vec<(AssertionId, AssertionKind, Option<String>)> {
    let mut out = Vec::new();
    let mut push = |place: Option<String>, a: &Assertion| {
        let key = place
            .zip(subject_key(&a.subject, renumber))
            .map(|(place, subject)| format!("{place} {subject} {}", check_key(&a.check)));
        out.push((a.id, a.kind, key));
    };
    for (i, items) in plan.after.iter().enumerate() {
        for item in items {
            if let Item::Assert(a) = item {
                push(renumber(i).map(|i| format!("after {i}")), a);
            }
        }
    }
    for item in &plan.at_end {
        if let Item::Assert(a) = item {
            push(Some("end".to_string()), a);
        }
    }
    if let Some(throw) = &plan.throw {
        if let Some(Item::Assert(a)) = &throw.message {
            push(Some("message".to_string()), a);
        }
        out.push((
            throw.id,
            AssertionKind::Throws,
            renumber(throw.statement).map(|s| format!("throws {s} {}", throw.class)),
        ));
    }
    out.sort_by_key(|(id, _, _)| *id);
    out
}

fn subject_key(subject: &Subject, renumber: &dyn Fn(usize) -> Option<usize>) -> Option<String> {
    Some(match subject {
        Subject::Value(i) => format!("value {}", renumber(*i)?),
        Subject::Length(i) => format!("length {}", renumber(*i)?),
        Subject::Getter { var, name, wrap } => {
            let wrap = match wrap {
                Wrap::None => "",
                Wrap::StringValueOf => " valueOf",
                Wrap::EnumName => " name",
            };
            format!("getter {}.{name}{wrap}", renumber(*var)?)
        }
        Subject::Message => "message".to_string(),
    })
}

fn check_key(check: &Check) -> String {
    match check {
        Check::Equals {
            expected,
            cast,
            delta,
        } => {
            let expected = match expected {
                Expected::Literal(l) => l.clone(),
                Expected::Constant { class, name } => format!("{class}.{name}"),
            };
            format!("equals {expected} {cast:?} {delta:?}")
        }
        Check::True => "true".to_string(),
        Check::False => "false".to_string(),
        Check::Null => "null".to_string(),
        Check::NotNull => "not null".to_string(),
    }
}
