//! Rebuilding a class's results: from a finished run (`ctg::pipeline`'s outcome), from a
//! searching run's covered goals, and from the `.ctgls/` store's record of an earlier session.
//! Lines the run reports (1-based, of the run's text) become (member, offset) pairs here.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::PathBuf;

use ctg::job::{GenerationResult, UndeclaredException};
use ctg::pipeline::{ClassOutcome, Verification};
use ctg::project::JUnitVersion;
use javamodel::{DecisionKey, JavaModel, Outcome};
use testcase::{describe_arguments, describe_calls, CallableKind, Statement, TestCase};

use super::words::{closest_in_words, condition_text};
use super::{
    fingerprint, innermost_member_at_row, ClassResults, DecisionResult, EnvironmentResult,
    ExceptionResult, LineResult, MemberSnapshot, NondeterministicResult, Origin, OutcomeResult,
    Suite, TestInfo,
};
use crate::printed_tests::test_methods;

impl ClassResults {
    /// Results of a finished run. `model` is the model of the text the run saw.
    pub fn from_outcome(run: u64, outcome: &ClassOutcome, model: &JavaModel) -> ClassResults {
        let generation = &outcome.generation;
        let emission = &outcome.emission;
        let names = test_methods(&emission.suite.source);
        let mut tests: Vec<TestInfo> = generation
            .tests
            .iter()
            .map(|test| TestInfo {
                name: None,
                source: None,
                calls: describe_calls(&test.test, model),
                goals: test.covered_goals.iter().cloned().collect(),
                members: called_members(&test.test, model),
            })
            .collect();
        for (name, &index) in emission.suite.kept.iter().zip(&emission.suite.kept_tests) {
            if let Some(test) = tests.get_mut(index) {
                test.name = Some(name.clone());
                test.source = names.get(name).cloned();
            }
        }
        let kept: BTreeSet<usize> = emission.suite.kept_tests.iter().copied().collect();
        let mut results = ClassResults::skeleton(run, Origin::Final, &generation.class, model);
        results.fill_decisions(model, |key, outcome| {
            let covering = generation
                .decisions
                .iter()
                .find(|d| &d.key == key)
                .and_then(|d| d.outcomes.iter().find(|o| o.outcome == outcome));
            match covering {
                Some(o) => OutcomeFacts {
                    covered: o.covered_by.is_some(),
                    covered_by: o.covered_by,
                    distance: o.closest_distance,
                },
                None => OutcomeFacts::default(),
            }
        });
        let line_tests = first_test_per_line(generation, &kept);
        let covered: BTreeSet<u32> = generation.lines.covered.iter().copied().collect();
        for &line in &generation.lines.lines {
            let is_covered = covered.contains(&line);
            results.add_line(
                model,
                line,
                is_covered,
                line_tests.get(&line).copied().filter(|_| is_covered),
            );
        }
        results.exceptions = generation
            .exceptions
            .iter()
            .map(|e| exception_result(e, generation, model, &results.members))
            .collect();
        results.environment = generation
            .environment
            .iter()
            .map(|dependency| {
                let line = dependency.need.line.or_else(|| {
                    dependency
                        .goals
                        .iter()
                        .find_map(|g| g.strip_prefix("line ")?.parse().ok())
                });
                EnvironmentResult {
                    at: line.and_then(|line| member_offset(model, &results.members, line)),
                    message: dependency.message(),
                    target: dependency.need.target.clone(),
                    goals: dependency.goals.clone(),
                }
            })
            .collect();
        results.nondeterministic = nondeterministic_inputs(outcome, &results.members);
        results.tests = std::mem::take(&mut tests);
        results.suite = (!emission.suite.kept.is_empty()).then(|| Suite {
            source: emission.suite.source.clone(),
            junit: emission.junit,
            path: emission.path.clone(),
            unverified: match &emission.verification {
                Verification::JUnit => None,
                Verification::WorkerOnly { reason } | Verification::Failed { reason } => {
                    Some(reason.clone())
                }
            },
        });
        results.mutation = emission.mutation.as_ref().map(|score| score.summary());
        results.unverified = emission.verification.failure().map(|reason| {
            format!("tests could not be verified, so none is offered (the coverage is the search's): {reason}")
        });
        if let Verification::WorkerOnly { reason } = &emission.verification {
            results
                .notes
                .push(format!("tests not verified with JUnit: {reason}"));
        }
        results.notes.extend(generation.warnings.iter().cloned());
        results.level_note = emission.levels.note.clone();
        results
    }

    /// Coverage so far of a run that is still searching: `covered` holds goal descriptions
    /// (`…/B1.T`, `line 12`) as the search reports them.
    pub fn interim(
        run: u64,
        class: &str,
        model: &JavaModel,
        covered: &BTreeSet<String>,
    ) -> ClassResults {
        let mut results = ClassResults::skeleton(run, Origin::Interim, class, model);
        results.fill_decisions(model, |key, outcome| OutcomeFacts {
            covered: covered.contains(&format!("{key}.{outcome}")),
            ..OutcomeFacts::default()
        });
        for goal in covered {
            if let Some(line) = goal.strip_prefix("line ").and_then(|l| l.parse().ok()) {
                results.add_line(model, line, true, None);
            }
        }
        results
    }

    /// What `store` holds of `class` when its last run was on the text of `model`, with the
    /// tests of its JUnit class when the class is for `junit` (the JUnit a run would write
    /// now); `None` when the store has nothing for this text (or cannot be read, which is
    /// logged).
    pub fn from_store(
        store: &ctg::store::Store,
        layout: &ctg::project::ProjectLayout,
        class: &str,
        model: &JavaModel,
        junit: JUnitVersion,
    ) -> Option<ClassResults> {
        let hash = ctg::pipeline::source_hash(model.text());
        match store.load(class) {
            Ok(Some(record)) if record.last_run().is_some_and(|r| r.run.source_hash == hash) => {
                let suite = (ctg::emit::test_file(layout, class), junit);
                Some(ClassResults::stored(class, &record, model, suite))
            }
            Ok(_) => None,
            Err(error) => {
                tracing::warn!("ignoring the stored results of {class}: {error}");
                None
            }
        }
    }

    /// The store's record of an earlier run on the same text. `suite` says where the test
    /// class goes and which JUnit this session writes; the record's JUnit class is used only
    /// for that JUnit.
    pub fn stored(
        class: &str,
        record: &ctg::store::ClassRecord,
        model: &JavaModel,
        suite: (PathBuf, JUnitVersion),
    ) -> Self {
        let mut results = ClassResults::skeleton(0, Origin::Stored, class, model);
        let (path, junit) = suite;
        let stored_suite = record.suite.as_ref().filter(|s| s.junit == junit);
        let sources = stored_suite
            .map(|s| test_methods(&s.source))
            .unwrap_or_default();
        results.tests = record
            .tests
            .iter()
            .map(|stored| TestInfo {
                name: None,
                source: None,
                calls: describe_calls(&stored.test, model),
                goals: stored.covers.clone(),
                members: called_members(&stored.test, model),
            })
            .collect();
        // The methods in file order: the first one covering a goal is its test, as in
        // `ctg::pipeline`'s coverage of the written tests.
        let mut methods = Vec::new();
        for method in stored_suite.iter().flat_map(|s| &s.methods) {
            let Some(test) = results.tests.get_mut(method.test) else {
                continue;
            };
            test.name = Some(method.name.clone());
            test.source = sources.get(&method.name).cloned();
            test.goals = method.goals.clone();
            methods.push(method);
        }
        results.fill_decisions(model, |key, outcome| {
            let goal = format!("{key}.{outcome}");
            let covered = record.coverage.goals.get(&goal).copied().unwrap_or(false);
            OutcomeFacts {
                covered,
                covered_by: methods
                    .iter()
                    .find(|m| covered && m.goals.contains(&goal))
                    .map(|m| m.test),
                distance: None,
            }
        });
        results.suite = stored_suite.map(|s| Suite {
            source: s.source.clone(),
            junit: s.junit,
            path,
            unverified: s.unverified.clone(),
        });
        for &line in &record.coverage.covered_lines {
            results.add_line(model, line, true, None);
        }
        for &line in &record.coverage.uncovered_lines {
            results.add_line(model, line, false, None);
        }
        results.exceptions = record
            .coverage
            .undeclared_exceptions
            .iter()
            .map(|e| ExceptionResult {
                called: e.member.clone(),
                at: e
                    .line
                    .and_then(|line| member_offset(model, &results.members, line)),
                type_name: e.exception.clone(),
                message: e.message.clone(),
                checked: e.checked,
                // The store does not say; the line does (the text is the run's own).
                explicit: e.line.is_some_and(|line| {
                    let text = model.text();
                    syntax::text_line(text, line.saturating_sub(1) as usize)
                        .is_some_and(|l| text[l].trim_start().starts_with("throw "))
                }),
                inputs: e
                    .test
                    .and_then(|t| record.tests.get(t))
                    .and_then(|t| {
                        failing_call(&t.test, &e.member, model)
                            .map(|s| describe_arguments(&t.test, s, model))
                    })
                    .unwrap_or_default(),
                test: e.test,
            })
            .collect();
        results.notes.push(if results.suite.is_some() {
            "coverage and tests from the last session (.ctgls/)".into()
        } else {
            "coverage from the last session (.ctgls/); tests come with the next run".into()
        });
        results
    }

    fn skeleton(run: u64, origin: Origin, class: &str, model: &JavaModel) -> ClassResults {
        let mut members = HashMap::new();
        for ty in model.all_types() {
            for member in &ty.members {
                members.insert(
                    member.key.clone(),
                    MemberSnapshot {
                        fingerprint: fingerprint(model.text(), member),
                        start_line: member.span.start.row as u32,
                    },
                );
            }
        }
        ClassResults {
            class: class.to_string(),
            run,
            origin,
            members,
            decisions: Vec::new(),
            lines: Vec::new(),
            exceptions: Vec::new(),
            environment: Vec::new(),
            nondeterministic: Vec::new(),
            tests: Vec::new(),
            suite: None,
            notes: Vec::new(),
            level_note: None,
            unverified: None,
            mutation: None,
        }
    }

    /// One entry per decision of the class (nested types included), with what `lookup` says
    /// of each outcome.
    fn fill_decisions(
        &mut self,
        model: &JavaModel,
        lookup: impl Fn(&DecisionKey, Outcome) -> OutcomeFacts,
    ) {
        let class = self.class.clone();
        let nested = format!("{class}$");
        for (ty, member, decision) in model.decisions() {
            if ty.binary_name != class && !ty.binary_name.starts_with(&nested) {
                continue;
            }
            let key = member.decision_key(decision);
            let outcomes = decision
                .outcomes
                .iter()
                .map(|&outcome| {
                    let facts = lookup(&key, outcome);
                    OutcomeResult {
                        outcome,
                        label: decision.outcome_label(outcome),
                        covered: facts.covered,
                        covered_by: facts.covered_by,
                        closest: facts
                            .distance
                            .filter(|_| !facts.covered)
                            .and_then(|d| closest_in_words(model.text(), decision, outcome, d)),
                        reached: facts.covered || facts.distance.is_some(),
                    }
                })
                .collect();
            self.decisions.push(DecisionResult {
                condition: condition_text(model.text(), decision),
                key,
                outcomes,
            });
        }
    }

    /// Adds a 1-based line of the run's text.
    fn add_line(&mut self, model: &JavaModel, line: u32, covered: bool, test: Option<usize>) {
        if let Some((member, offset)) = member_offset(model, &self.members, line) {
            self.lines.push(LineResult {
                member,
                offset,
                covered_by: test,
                covered,
            });
        }
    }
}

/// What is known of one decision outcome when results are built.
#[derive(Default)]
struct OutcomeFacts {
    covered: bool,
    covered_by: Option<usize>,
    /// The closest branch distance the search reached, when it reached the decision.
    distance: Option<f64>,
}

/// The members of the types of `model` that `test` runs directly: the constructors and
/// methods it calls (every overload with the same name and number of parameters: the model
/// has source types, the test erased binary ones) and the initializers of the types it uses.
pub fn called_members(test: &TestCase, model: &JavaModel) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for callable in test.statements().iter().filter_map(Statement::callable) {
        let Some(ty) = model.type_by_binary_name(&callable.declaring_class) else {
            continue;
        };
        let (name, arity) = match &callable.kind {
            CallableKind::Constructor => ("<init>", Some(callable.erased_params.len())),
            CallableKind::Method { name, .. } => {
                (name.as_str(), Some(callable.erased_params.len()))
            }
            CallableKind::FieldRead { .. } | CallableKind::FieldWrite { .. } => ("", None),
        };
        for member in &ty.members {
            let called = arity.is_some_and(|n| member.name == name && member.params.len() == n);
            let initializer =
                member.name == "<clinit>" || (member.name == "<instinit>" && name == "<init>");
            if called || initializer {
                out.insert(member.key.clone());
            }
        }
    }
    out
}

/// The statement of `test` that calls `member` (a member key) last: the call an exception
/// escaped from.
fn failing_call<'t>(test: &'t TestCase, member: &str, model: &JavaModel) -> Option<&'t Statement> {
    let (ty, member) = model.member_by_key(member)?;
    test.statements().iter().rev().find(|s| {
        s.callable().is_some_and(|c| {
            c.declaring_class == ty.binary_name
                && c.erased_params.len() == member.params.len()
                && match &c.kind {
                    CallableKind::Constructor => member.name == "<init>",
                    CallableKind::Method { name, .. } => *name == member.name,
                    _ => false,
                }
        })
    })
}

/// The innermost member whose declaration holds the 1-based `line`, and the line's offset
/// from the member's first line.
fn member_offset(
    model: &JavaModel,
    members: &HashMap<String, MemberSnapshot>,
    line: u32,
) -> Option<(String, u32)> {
    let row = line.checked_sub(1)? as usize;
    let member = innermost_member_at_row(model, row)?;
    let start = members.get(&member.key)?.start_line;
    Some((member.key.clone(), line - 1 - start))
}

/// For each line, the first kept test that runs it.
fn first_test_per_line(
    generation: &GenerationResult,
    kept: &BTreeSet<usize>,
) -> BTreeMap<u32, usize> {
    let mut out = BTreeMap::new();
    for &index in kept {
        for &line in &generation.tests[index].covered_lines {
            out.entry(line).or_insert(index);
        }
    }
    out
}

fn exception_result(
    exception: &UndeclaredException,
    generation: &GenerationResult,
    model: &JavaModel,
    members: &HashMap<String, MemberSnapshot>,
) -> ExceptionResult {
    let test = generation.tests.get(exception.test);
    let thrown = test.and_then(|t| t.result.exception.as_ref());
    let inputs = test
        .and_then(|t| {
            let at = t.result.failed_at?;
            t.test
                .statements()
                .get(at)
                .map(|s| describe_arguments(&t.test, s, model))
        })
        .unwrap_or_default();
    ExceptionResult {
        called: exception.member.clone(),
        at: exception
            .line
            .and_then(|line| member_offset(model, members, line)),
        type_name: exception.type_name.clone(),
        message: exception.message.clone(),
        checked: thrown.is_some_and(|t| t.checked),
        explicit: exception.thrown_explicitly,
        inputs,
        test: Some(exception.test),
    }
}

/// The inputs of a finished run that explain left-out assertions.
fn nondeterministic_inputs(
    outcome: &ClassOutcome,
    members: &std::collections::HashMap<String, MemberSnapshot>,
) -> Vec<NondeterministicResult> {
    outcome
        .nondeterminism
        .iter()
        .filter(|linked| !linked.left_out.is_empty())
        .filter_map(|linked| {
            let input = &linked.input;
            let member = input.member.as_ref()?;
            let start = members.get(member)?.start_line;
            Some(NondeterministicResult {
                at: (member.clone(), (input.line - 1).checked_sub(start)?),
                kind: input.kind,
                what: input.what.clone(),
                left_out: linked
                    .left_out
                    .iter()
                    .map(|l| format!("{} ({})", l.display(), l.why))
                    .collect(),
            })
        })
        .collect()
}

/// A store record of `p.A` with the JUnit class of two tests, for tests of stored results.
#[cfg(test)]
pub(crate) mod fixture {
    use std::collections::BTreeSet;
    use std::sync::Arc;

    use ctg::project::JUnitVersion;
    use ctg::store::{
        ClassRecord, Coverage, StoredMethod, StoredSuite, StoredTest, UndeclaredException,
    };
    use javamodel::JavaModel;
    use testcase::{
        Callable, CallableKind, JavaType, PrimitiveKind, PrimitiveValue, Statement, TestCase,
        VarRef,
    };

    use super::{ClassResults, OutcomeResult};

    pub const STORED_CLASS: &str = "package p;\nclass A {\n  A() {}\n  int f(int x) {\n    if (x > 0) return 1;\n    return 2;\n  }\n  int g(int x) {\n    if (x > 5) return 10 / (x - 9);\n    return 2;\n  }\n}\n";

    pub const STORED_SUITE: &str = "// Generated by ctgls 0.1.0. Regenerating replaces this file; do not edit.\npackage p;\n\nimport org.junit.jupiter.api.Test;\n\nclass AGeneratedTest {\n\n    @Test\n    void fOne() {\n        new A().f(1);\n    }\n\n    @Test\n    void gNine() {\n        new A().g(9);\n    }\n}\n";

    fn callable(name: Option<&str>) -> Arc<Callable> {
        let int = JavaType::Primitive(PrimitiveKind::Int);
        Arc::new(Callable {
            owner: "p.A".into(),
            declaring_class: "p.A".into(),
            kind: match name {
                None => CallableKind::Constructor,
                Some(name) => CallableKind::Method {
                    name: name.into(),
                    is_static: false,
                },
            },
            erased_params: name.map(|_| vec!["int".to_string()]).unwrap_or_default(),
            params: name.map(|_| vec![int.clone()]).unwrap_or_default(),
            returns: name.map(|_| int.clone()),
            erased_return: name.map(|_| int),
            type_params: Vec::new(),
            exceptions: Vec::new(),
            varargs: false,
        })
    }

    /// `new A().<method>(<arg>)`.
    fn call(method: &str, arg: i32) -> TestCase {
        TestCase::from_statements(vec![
            Statement::Constructor {
                callable: callable(None),
                type_args: Vec::new(),
                args: Vec::new(),
                ty: JavaType::Class {
                    name: "p.A".into(),
                    args: Vec::new(),
                },
            },
            Statement::Primitive(PrimitiveValue::Int(arg)),
            Statement::Method {
                callable: callable(Some(method)),
                receiver: Some(VarRef(0)),
                type_args: Vec::new(),
                args: vec![VarRef(1)],
                ty: Some(JavaType::Primitive(PrimitiveKind::Int)),
            },
        ])
    }

    /// The goal keys of the true and false branches of `member`'s `if`.
    fn branches(model: &JavaModel, member: &str) -> (String, String) {
        let results = ClassResults::interim(0, "p.A", model, &BTreeSet::new());
        let decision = results
            .decisions
            .iter()
            .find(|d| d.key.member == member && d.outcomes.iter().any(|o| o.label == "true"))
            .unwrap();
        let key = |label: &str| {
            let o = decision.outcomes.iter().find(|o| o.label == label).unwrap();
            format!("{}.{}", decision.key, o.outcome)
        };
        (key("true"), key("false"))
    }

    /// Test 0 (`fOne`) covers f's true branch, test 1 (`gNine`) g's true branch and throws.
    pub fn stored_record(model: &JavaModel) -> ClassRecord {
        let (f_true, f_false) = branches(model, "p.A#f(int)");
        let (g_true, g_false) = branches(model, "p.A#g(int)");
        let method = |name: &str, test: usize, goal: &str| StoredMethod {
            name: name.into(),
            test,
            goals: BTreeSet::from([goal.to_string()]),
            assertions: Vec::new(),
        };
        ClassRecord {
            class: "p.A".into(),
            tests: vec![
                StoredTest {
                    test: call("f", 1),
                    covers: BTreeSet::from([f_true.clone()]),
                },
                StoredTest {
                    test: call("g", 9),
                    covers: BTreeSet::from([g_true.clone()]),
                },
            ],
            suite: Some(StoredSuite {
                junit: JUnitVersion::Five,
                source: STORED_SUITE.into(),
                methods: vec![method("fOne", 0, &f_true), method("gNine", 1, &g_true)],
                unverified: None,
            }),
            coverage: Coverage {
                goals: [
                    (f_true, true),
                    (f_false, false),
                    (g_true, true),
                    (g_false, false),
                ]
                .into_iter()
                .collect(),
                covered_lines: BTreeSet::from([3, 5, 9]),
                uncovered_lines: BTreeSet::from([6, 10]),
                undeclared_exceptions: vec![UndeclaredException {
                    member: "p.A#g(int)".into(),
                    exception: "java.lang.ArithmeticException".into(),
                    line: Some(9),
                    message: Some("/ by zero".into()),
                    checked: false,
                    test: Some(1),
                }],
            },
            history: Vec::new(),
        }
    }

    /// The goal key of `member`'s outcome labelled `label`.
    pub fn goal(results: &ClassResults, member: &str, label: &str) -> String {
        results
            .decisions
            .iter()
            .filter(|d| d.key.member == member)
            .find_map(|d| {
                d.outcomes
                    .iter()
                    .find(|o| o.label == label)
                    .map(|o| format!("{}.{}", d.key, o.outcome))
            })
            .unwrap_or_else(|| panic!("no {label} outcome in {member}"))
    }

    /// The outcome of `goal`.
    pub fn outcome<'r>(results: &'r ClassResults, goal: &str) -> &'r OutcomeResult {
        results
            .decisions
            .iter()
            .find_map(|d| {
                d.outcomes
                    .iter()
                    .find(|o| format!("{}.{}", d.key, o.outcome) == goal)
            })
            .unwrap_or_else(|| panic!("no {goal}"))
    }

    pub fn stored_fixture(model: &JavaModel) -> ClassResults {
        ClassResults::stored(
            "p.A",
            &stored_record(model),
            model,
            (
                "/p/src/test/java/p/AGeneratedTest.java".into(),
                JUnitVersion::Five,
            ),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::fixture::*;
    use super::*;

    fn model(text: &str) -> JavaModel {
        JavaModel::build(text, &syntax::parse_java(text, None))
    }

    #[test]
    fn lines_are_kept_relative_to_their_member() {
        let text = "class A {\n  int f(int x) {\n    return x;\n  }\n}\n";
        let covered = BTreeSet::from(["line 3".to_string()]);
        let results = ClassResults::interim(1, "A", &model(text), &covered);
        assert_eq!(results.lines.len(), 1);
        assert_eq!(
            (results.lines[0].member.as_str(), results.lines[0].offset),
            ("A#f(int)", 1)
        );
    }

    #[test]
    fn stored_results_bring_their_tests_for_the_same_junit() {
        let m = model(STORED_CLASS);
        let results = stored_fixture(&m);
        assert_eq!(results.origin, Origin::Stored);
        let suite = results.suite.as_ref().expect("the stored class");
        assert_eq!(
            suite.path,
            PathBuf::from("/p/src/test/java/p/AGeneratedTest.java")
        );
        assert_eq!(results.tests[0].name.as_deref(), Some("fOne"));
        assert!(results.tests[0]
            .source
            .as_deref()
            .is_some_and(|s| s.contains("void fOne()")));
        assert_eq!(
            results.tests[0].members,
            BTreeSet::from(["p.A#<init>()".to_string(), "p.A#f(int)".to_string()])
        );
        let g_true = goal(&results, "p.A#g(int)", "true");
        assert_eq!(outcome(&results, &g_true).covered_by, Some(1));
        let g_false = goal(&results, "p.A#g(int)", "false");
        assert!(!outcome(&results, &g_false).covered);
        assert_eq!(results.exceptions[0].test, Some(1));
        assert_eq!(results.exceptions[0].inputs, "x = 9");

        // A project that now writes JUnit 4 gets coverage only.
        let record = stored_record(&m);
        let other = ClassResults::stored(
            "p.A",
            &record,
            &m,
            ("/p/ATest.java".into(), JUnitVersion::Four),
        );
        assert!(other.suite.is_none());
        assert!(other.tests.iter().all(|t| t.source.is_none()));
        assert!(outcome(&other, &g_true).covered);
    }
}
