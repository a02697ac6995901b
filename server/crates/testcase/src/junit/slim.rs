//! Dropping the statements of a test that no kept assertion needs (issue #19: "a `now()` call
//! left in a test about hours"), once the assertions a test keeps are known (all the planned
//! ones, or the mutation analysis's selection).
//!
//! A statement is *needed* when it is the statement the test is named after or the one that
//! threw, sets up the environment (console input, a system property), produces a value a kept
//! assertion reads (its value, its length, a getter on its object, the thrown exception), is an
//! argument or receiver of a needed statement, or may change a needed object: it passes a needed
//! object that is not immutable (not a primitive, String or box) as a receiver or an argument.
//! The slice is static: whether the shorter test still covers the test's goals, still ends
//! the same way and still observes the same values for the kept assertions is for the caller
//! to establish by running it (`ctg::slim`), which is why two candidates are offered: one that
//! takes a call of a getter-like method (`getX()`, `isX()`, `hasX()`, `size()`, `length()`,
//! `isEmpty()`, `toString()`, `hashCode()`) and a field read for free of side effects, and
//! one that keeps every call on a needed object.

use std::collections::{BTreeMap, BTreeSet};

use crate::statement::{Statement, TestCase, VarRef};
use crate::types::{JavaType, PrimitiveKind, STRING};

use super::minimise::Removal;
use super::mutation::keyed_renumbered;
use super::names::{focal_statement, named_statement};
use super::observation::{Execution, Observed};
use super::plan::{plan, Item, Subject};
use super::printer::{AssertionId, Suppressions};
use super::{ExecutedTest, TestClassSpec, TypeFacts};

/// The shorter forms of test `index` of `spec` whose statements the assertions `suppressions`
/// leaves are all needed (see the module doc): first the one that takes getter-like calls for
/// pure, then the one that does not, each only when it removes something and differs from the
/// one before. Empty for a test that is suppressed or whose every statement is needed.
pub fn slim_candidates(
    spec: &TestClassSpec,
    index: usize,
    suppressions: &Suppressions,
) -> Vec<Removal> {
    if suppressions.tests.contains_key(&index) {
        return Vec::new();
    }
    let Some(executed) = spec.tests.get(index) else {
        return Vec::new();
    };
    let seeds = needed_seeds(spec, index, executed, suppressions);
    let mut out: Vec<Removal> = Vec::new();
    for getters_are_pure in [true, false] {
        let needed = closure(&executed.test, seeds.clone(), getters_are_pure);
        let removed: BTreeSet<usize> = (0..executed.test.len())
            .filter(|i| !needed.contains(i))
            .collect();
        if removed.is_empty() || out.iter().any(|r| r.removed.iter().eq(removed.iter())) {
            continue;
        }
        let mut test = executed.test.clone();
        test.remove_all(&removed);
        out.push(Removal {
            test,
            kept: (0..executed.test.len())
                .filter(|i| !removed.contains(i))
                .collect(),
            removed: removed.into_iter().collect(),
        });
    }
    out
}

/// How the kept assertions of a test carry over to its slimmed form.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Carried {
    /// The slimmed plan's assertions to suppress: those without a kept counterpart.
    pub suppressed: BTreeSet<AssertionId>,
    /// Each kept assertion of the slimmed plan, with the original plan's id of its counterpart.
    pub from: BTreeMap<AssertionId, AssertionId>,
}

/// How the assertions `original` (test `index`) keeps under `suppressions` carry over to its
/// slimmed form `slim` (the run of `removal.test`): `None` when the slimmed run ends differently
/// (throws where the original did not, or something else, or at another statement) or lost a
/// kept assertion (its value changed without the removed statements).
pub fn carried_suppressions(
    index: usize,
    original: &ExecutedTest,
    slim: &ExecutedTest,
    removal: &Removal,
    facts: &TypeFacts,
    suppressions: &Suppressions,
) -> Option<Carried> {
    let thrown = |t: &ExecutedTest| t.execution.thrown.as_ref().map(|e| e.type_name.clone());
    if thrown(original) != thrown(slim) {
        return None;
    }
    let renumber = |old: usize| removal.kept.iter().position(|&k| k == old);
    let before = plan(index, original, facts);
    let mut kept: BTreeMap<String, AssertionId> = BTreeMap::new();
    for (id, key) in keyed_renumbered(&before, &renumber) {
        if !suppressions.assertions.contains_key(&id) {
            kept.insert(key?, id);
        }
    }
    let after = plan(index, slim, facts);
    let mut carried = Carried {
        suppressed: BTreeSet::new(),
        from: BTreeMap::new(),
    };
    for (id, key) in keyed_renumbered(&after, &Some) {
        match key.and_then(|k| kept.remove(&k)) {
            Some(old) => {
                carried.from.insert(id, old);
            }
            None => {
                carried.suppressed.insert(id);
            }
        }
    }
    kept.is_empty().then_some(carried)
}

/// Marks in `slim` (the run of `removal.test`) what was unstable in the original run of the
/// test: the slimmed test is run once, and a value that differed between the original's two
/// observations must stay a comment, not become an assertion.
pub fn carry_instability(original: &Execution, slim: &mut Execution, removal: &Removal) {
    let mark = |from: &Observed, to: &mut Observed| {
        to.unstable |= from.unstable;
        for g in from.getters.iter().filter(|g| g.unstable) {
            if let Some(h) = to.getters.iter_mut().find(|h| h.name == g.name) {
                h.unstable = true;
            }
        }
    };
    for (new, &old) in removal.kept.iter().enumerate() {
        if let (Some(Some(from)), Some(Some(to))) =
            (original.results.get(old), slim.results.get_mut(new))
        {
            mark(from, to);
        }
        if let (Some(from), Some(to)) = (
            original.final_state.get(&VarRef(old)),
            slim.final_state.get_mut(&VarRef(new)),
        ) {
            mark(from, to);
        }
    }
    if let (Some(from), Some(to)) = (&original.thrown, &mut slim.thrown) {
        to.unstable_message |= from.unstable_message;
    }
}

/// The statements needed before any closure: the named and the focal statement, the thrown
/// one, the environment's, and what the kept assertions read.
fn needed_seeds(
    spec: &TestClassSpec,
    index: usize,
    executed: &ExecutedTest,
    suppressions: &Suppressions,
) -> BTreeSet<usize> {
    let test = &executed.test;
    let execution = &executed.execution;
    let cut = &spec.class_under_test;
    let mut seeds: BTreeSet<usize> = [
        focal_statement(test, execution, cut),
        named_statement(test, execution, cut),
    ]
    .into_iter()
    .flatten()
    .collect();
    let plan = plan(index, executed, &spec.facts);
    for (i, s) in test.statements().iter().enumerate().take(plan.end) {
        if matches!(
            s,
            Statement::ConsoleInput { .. } | Statement::SystemProperty { .. }
        ) {
            seeds.insert(i);
        }
    }
    if let Some(throw) = &plan.throw {
        seeds.insert(throw.statement);
    }
    let kept = |id: &AssertionId| !suppressions.assertions.contains_key(id);
    let items = plan.after.iter().flatten().chain(&plan.at_end);
    for item in items {
        if let Item::Assert(a) = item {
            if kept(&a.id) {
                match &a.subject {
                    Subject::Value(i) | Subject::Length(i) => {
                        seeds.insert(*i);
                    }
                    Subject::Getter { var, .. } => {
                        seeds.insert(*var);
                    }
                    Subject::Message => {}
                }
            }
        }
    }
    seeds
}

/// `seeds` with everything they need (see the module doc), to a fixed point.
fn closure(
    test: &TestCase,
    mut needed: BTreeSet<usize>,
    getters_are_pure: bool,
) -> BTreeSet<usize> {
    let statements = test.statements();
    loop {
        let mut grew = false;
        for i in needed.clone().into_iter().rev() {
            for (_, r) in statements[i].refs() {
                grew |= needed.insert(r.0);
            }
        }
        for (j, s) in statements.iter().enumerate() {
            if needed.contains(&j) || (getters_are_pure && side_effect_free(s)) {
                continue;
            }
            let changes_needed = s
                .refs()
                .iter()
                .any(|(_, r)| needed.contains(&r.0) && mutable(&statements[r.0]));
            if changes_needed {
                grew |= needed.insert(j);
            }
        }
        if !grew {
            return needed;
        }
    }
}

/// Whether the object a statement produces could be changed by a call it is passed to.
fn mutable(s: &Statement) -> bool {
    match s.value_type() {
        Some(JavaType::Primitive(_)) | None => false,
        Some(JavaType::Class { name, .. }) => {
            name != STRING && PrimitiveKind::unboxed(&name).is_none()
        }
        Some(_) => !matches!(
            s,
            Statement::Primitive(_) | Statement::Null(_) | Statement::EnumConstant { .. }
        ),
    }
}

/// A field read, or a call of a getter-like method without arguments (see the module doc).
fn side_effect_free(s: &Statement) -> bool {
    match s {
        Statement::FieldRead { .. } => true,
        Statement::Method {
            callable,
            receiver: Some(_),
            args,
            ..
        } if args.is_empty() => {
            let name = callable.name();
            let prefixed = |p: &str| {
                name.strip_prefix(p)
                    .is_some_and(|rest| rest.starts_with(|c: char| c.is_ascii_uppercase()))
            };
            prefixed("get")
                || prefixed("is")
                || prefixed("has")
                || matches!(
                    name,
                    "size" | "length" | "isEmpty" | "toString" | "hashCode"
                )
        }
        _ => false,
    }
}
