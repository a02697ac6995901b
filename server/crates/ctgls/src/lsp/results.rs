//! What a run found for one class, in terms that survive editing.
//!
//! A run happens on a snapshot of the text; by the time its results are shown the user may
//! have typed more. So nothing here is stored as a file position: decisions are kept by their
//! stable keys (`member#signature/B<n>`, unchanged by edits elsewhere), and lines and
//! exceptions by their member and their line offset inside it. With each member goes a
//! fingerprint of its text at run time. [`ClassResults::is_live_as`] says whether a member still
//! has that text: results of live members are shown at their moved positions, those of edited
//! (or removed) members are withdrawn until the next run. A test can be inserted only while
//! every member of the file it calls is live ([`ClassResults::insertable`]): an edited member
//! may no longer compile with it, or no longer behave as it asserts.
//!
//! While a run searches, its interim coverage is shown on top of the best results known
//! before it ([`ClassResults::with_interim`]).

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::PathBuf;

use ctg::job::{GenerationResult, UndeclaredException};
use ctg::pipeline::{ClassOutcome, Verification};
use ctg::project::JUnitVersion;
use javamodel::{ComparisonOp, ConditionShape, Decision, DecisionKey, JavaModel, Member, Outcome};
use syntax::tree_sitter::Node;
use testcase::junit::primitive_literal;
use testcase::{CallableKind, Statement, TestCase};

/// Where results came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin {
    /// Coverage so far of a run that is still searching, with the coverage and tests of the
    /// results shown before it for the members unchanged since.
    Interim,
    /// A finished run: coverage of the tests that passed verification, and those tests.
    Final,
    /// The `.ctgls/` store's record of an earlier session, for the same source text: its
    /// coverage, and its tests when the record kept their JUnit class.
    Stored,
}

#[derive(Debug, Clone)]
pub struct ClassResults {
    /// Binary name of the class under test.
    pub class: String,
    /// The run that produced these results (0 for stored ones).
    pub run: u64,
    pub origin: Origin,
    /// Every member of the class's file at run time, by key.
    pub members: HashMap<String, MemberSnapshot>,
    pub decisions: Vec<DecisionResult>,
    pub lines: Vec<LineResult>,
    pub exceptions: Vec<ExceptionResult>,
    /// What runs needed of the environment where only they reached goals (no test is written
    /// for those goals: `ctg::job::EnvironmentDependency`).
    pub environment: Vec<EnvironmentResult>,
    pub tests: Vec<TestInfo>,
    /// The verified test class, for code actions.
    pub suite: Option<Suite>,
    /// Things the user should know about the run (weaker sandbox, unverified tests, ...).
    pub notes: Vec<String>,
    /// The project's Java levels, where this JDK compiles at others than its build declares
    /// (`ctg::levels`): one note for the project, shown once in `ctgls/status`.
    pub level_note: Option<String>,
    /// Why the run's tests could not be verified (`ctg::pipeline::Verification::Failed`): the
    /// coverage is the search's, unverified, and no test is offered for insertion.
    pub unverified: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MemberSnapshot {
    pub fingerprint: u64,
    /// 0-based line of the member's first line at run time.
    pub start_line: u32,
}

#[derive(Debug, Clone)]
pub struct DecisionResult {
    pub key: DecisionKey,
    /// The condition as written, e.g. `amount > balance + overdraftLimit`.
    pub condition: String,
    pub outcomes: Vec<OutcomeResult>,
}

#[derive(Debug, Clone)]
pub struct OutcomeResult {
    pub outcome: Outcome,
    /// `true`, `false`, `case 3`, `default`, `catch`, `entry`.
    pub label: String,
    /// Covered: by a test of [`ClassResults::tests`], or as the search or the store reported
    /// it (interim and stored results may know no test for it).
    pub covered: bool,
    /// Index into [`ClassResults::tests`].
    pub covered_by: Option<usize>,
    /// Only for uncovered outcomes: how close the search got, in words
    /// (`amount == 99 (needs > 100)`), or `None` when the decision was never reached.
    pub closest: Option<String>,
    /// The decision ran during the search (only meaningful for uncovered outcomes).
    pub reached: bool,
}

#[derive(Debug, Clone)]
pub struct LineResult {
    pub member: String,
    /// Line offset from the member's first line.
    pub offset: u32,
    /// The first test that ran the line.
    pub covered_by: Option<usize>,
    pub covered: bool,
}

/// A need of the environment placed on the line that made it (or, when the stack did not show
/// it, the first line only such runs reached), by member and line offset like the rest.
#[derive(Debug, Clone)]
pub struct EnvironmentResult {
    pub at: Option<(String, u32)>,
    /// `needs the environment: writes /home/x/out.txt (refused by the sandbox)`.
    pub message: String,
    /// The path, address or program.
    pub target: String,
    /// The goals no test covers because only runs with this need reached them.
    pub goals: Vec<String>,
}

#[derive(Debug, Clone)]
pub struct ExceptionResult {
    /// The member of the class under test the test called (`…#interest(int)`).
    pub called: String,
    /// The member holding the throwing line, and the line's offset in it.
    pub at: Option<(String, u32)>,
    /// Binary name (`java.lang.ArithmeticException`).
    pub type_name: String,
    pub message: Option<String>,
    pub checked: bool,
    /// Thrown by a `throw` statement of the class (an argument check, on purpose) rather
    /// than by an operation that failed.
    pub explicit: bool,
    /// The inputs of the call that threw, in words (`ratePerUnit = 0`).
    pub inputs: String,
    pub test: Option<usize>,
}

#[derive(Debug, Clone)]
pub struct TestInfo {
    /// The test method's name in the verified class; `None` when verification dropped it.
    pub name: Option<String>,
    /// The test method's source (annotations included), as verified.
    pub source: Option<String>,
    /// The calls the test makes, in words.
    pub calls: String,
    /// Branch goals (`…/B1.T`) it covers.
    pub goals: BTreeSet<String>,
    /// Keys of the members of the class's file the test runs directly: what it calls, and
    /// the initializers that run with it. All of them must be live for it to be inserted.
    pub members: BTreeSet<String>,
}

#[derive(Debug, Clone)]
pub struct Suite {
    pub source: String,
    pub junit: JUnitVersion,
    /// Where the test class goes.
    pub path: PathBuf,
    /// Why the tests were not checked with JUnit, when they were not.
    pub unverified: Option<String>,
}

impl ClassResults {
    /// Whether `member` (a key), found as `current` in `text` (or not found), has the text it
    /// had in the run.
    pub fn is_live_as(&self, member: &str, current: Option<&Member>, text: &str) -> bool {
        match (self.members.get(member), current) {
            (Some(snapshot), Some(current)) => fingerprint(text, current) == snapshot.fingerprint,
            _ => false,
        }
    }

    /// Whether test `index` can be inserted into the current text: it passed verification and
    /// every member of the file it calls has the text it had in the run (`live`).
    pub fn insertable(&self, index: usize, live: impl Fn(&str) -> bool) -> bool {
        self.tests
            .get(index)
            .is_some_and(|t| t.source.is_some() && t.members.iter().all(|m| live(m)))
            && self.unverified.is_none()
    }

    /// The decision outcomes covered.
    pub fn covered_goals(&self) -> usize {
        self.decisions
            .iter()
            .flat_map(|d| &d.outcomes)
            .filter(|o| self.is_covered(o))
            .count()
    }

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

    /// Results of a run still searching (`interim`, on the run's text) on top of the results
    /// shown before it (`base`: the last run's, or the store's). Members with the same text in
    /// both keep `base`'s coverage, covering tests and exceptions, and gain what the search
    /// has covered since, so they never show less than `base`; members edited in between
    /// show the search's coverage alone. `base`'s tests stay insertable only while they call
    /// no member edited in between. The result is `interim`'s (origin and run).
    pub fn with_interim(base: &ClassResults, interim: &ClassResults) -> ClassResults {
        let unchanged = |member: &str| match (base.members.get(member), interim.members.get(member))
        {
            (Some(before), Some(now)) => before.fingerprint == now.fingerprint,
            _ => false,
        };
        let mut merged = interim.clone();
        merged.environment = base
            .environment
            .iter()
            .filter(|e| e.at.as_ref().is_some_and(|(member, _)| unchanged(member)))
            .cloned()
            .collect();
        for decision in &mut merged.decisions {
            if !unchanged(&decision.key.member) {
                continue;
            }
            let Some(before) = base.decisions.iter().find(|d| d.key == decision.key) else {
                continue;
            };
            for outcome in &mut decision.outcomes {
                if let Some(old) = before
                    .outcomes
                    .iter()
                    .find(|o| o.outcome == outcome.outcome)
                {
                    outcome.covered_by = old.covered_by;
                    outcome.covered |= old.covered;
                    outcome.reached |= old.covered;
                }
            }
        }
        let mut lines: Vec<LineResult> = base
            .lines
            .iter()
            .filter(|l| unchanged(&l.member))
            .cloned()
            .collect();
        let known: HashMap<(String, u32), usize> = lines
            .iter()
            .enumerate()
            .map(|(i, l)| ((l.member.clone(), l.offset), i))
            .collect();
        for line in &interim.lines {
            match known.get(&(line.member.clone(), line.offset)) {
                Some(&i) => lines[i].covered |= line.covered,
                None => lines.push(line.clone()),
            }
        }
        merged.lines = lines;
        merged.exceptions = base
            .exceptions
            .iter()
            .filter(|e| {
                unchanged(&e.called) && e.at.as_ref().is_none_or(|(member, _)| unchanged(member))
            })
            .cloned()
            .collect();
        merged.tests = base.tests.clone();
        for test in &mut merged.tests {
            if !test.members.iter().all(|m| unchanged(m)) {
                test.source = None;
            }
        }
        merged.suite = base.suite.clone();
        merged.notes = base.notes.clone();
        merged.level_note = base.level_note.clone();
        merged.unverified = base.unverified.clone();
        merged
    }

    /// Whether an outcome counts as covered.
    pub fn is_covered(&self, outcome: &OutcomeResult) -> bool {
        outcome.covered
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
            tests: Vec::new(),
            suite: None,
            notes: Vec::new(),
            level_note: None,
            unverified: None,
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
                        label: outcome_label(decision, outcome),
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

/// A stable hash of a member's text (all its pieces, for initializer pseudo-members).
pub fn fingerprint(text: &str, member: &Member) -> u64 {
    let mut bytes = Vec::new();
    for piece in &member.pieces {
        if let Some(slice) = text.get(piece.start_byte..piece.end_byte) {
            bytes.extend_from_slice(slice.as_bytes());
            bytes.push(0);
        }
    }
    ctg::store::fnv1a64(&bytes)
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

/// The innermost member (methods of local and anonymous classes are inside their enclosing
/// member) whose span covers the 0-based `row`.
pub fn innermost_member_at_row(model: &JavaModel, row: usize) -> Option<&Member> {
    model
        .all_types()
        .into_iter()
        .flat_map(|ty| ty.members.iter())
        .filter(|m| m.span.start.row <= row && row <= m.span.end.row)
        .min_by_key(|m| m.span.end_byte - m.span.start_byte)
}

/// The innermost member whose span holds the byte offset.
pub fn innermost_member_at(model: &JavaModel, byte: usize) -> Option<&Member> {
    model
        .all_types()
        .into_iter()
        .flat_map(|ty| ty.members.iter())
        .filter(|m| m.pieces.iter().any(|p| p.contains_byte(byte)))
        .min_by_key(|m| m.span.end_byte - m.span.start_byte)
}

pub fn outcome_label(decision: &Decision, outcome: Outcome) -> String {
    match outcome {
        Outcome::True => "true".into(),
        Outcome::False => "false".into(),
        Outcome::Case(index) => match decision.cases.get(index as usize) {
            Some(case) if case.is_default => "default".into(),
            Some(case) => format!("case {}", case.label.trim_start_matches("case ")),
            None => format!("case #{index}"),
        },
        Outcome::Entered => match decision.kind {
            javamodel::DecisionKind::Catch => "catch".into(),
            _ => "entry".into(),
        },
    }
}

/// The condition as written, whitespace collapsed, at most 80 characters.
fn condition_text(text: &str, decision: &Decision) -> String {
    let raw = text
        .get(decision.span.start_byte..decision.span.end_byte)
        .unwrap_or("");
    let collapsed = raw.split_whitespace().collect::<Vec<_>>().join(" ");
    if collapsed.chars().count() > 80 {
        let cut: String = collapsed.chars().take(77).collect();
        format!("{cut}...")
    } else {
        collapsed
    }
}

/// "How close did the search get" for an uncovered outcome of an integral comparison with
/// one literal side, worked back from the probe's branch distance (Fraser and Arcuri, "Whole Test Suites" III-C with
/// `K = 1`, as `ctgls.rt.Probe` computes it: `d = left - right`). For other shapes the
/// distance itself.
fn closest_in_words(
    text: &str,
    decision: &Decision,
    outcome: Outcome,
    distance: f64,
) -> Option<String> {
    let wants_true = match outcome {
        Outcome::True => true,
        Outcome::False => false,
        _ => return None,
    };
    if let ConditionShape::Comparison { op, left, right } = &decision.shape {
        let source =
            |span: &javamodel::Span| text.get(span.start_byte..span.end_byte).unwrap_or("");
        let literal = |o: &javamodel::Operand| {
            if o.node_kind == "decimal_integer_literal" {
                source(&o.span)
                    .trim_end_matches(['l', 'L'])
                    .replace('_', "")
                    .parse::<i64>()
                    .ok()
            } else {
                None
            }
        };
        let exact = distance.fract() == 0.0 && distance.abs() < 1e15;
        if exact {
            let dist = distance as i64;
            // The value of d = left - right at the closest execution.
            let d = match (op, wants_true) {
                (ComparisonOp::Gt, true) | (ComparisonOp::Le, false) => Some(1 - dist),
                (ComparisonOp::Gt, false) | (ComparisonOp::Le, true) => Some(dist),
                (ComparisonOp::Lt, true) | (ComparisonOp::Ge, false) => Some(dist - 1),
                (ComparisonOp::Lt, false) | (ComparisonOp::Ge, true) => Some(-dist),
                (ComparisonOp::Ne, true) | (ComparisonOp::Eq, false) => Some(0),
                // |d| only: the sign is unknown.
                (ComparisonOp::Eq, true) | (ComparisonOp::Ne, false) => None,
            };
            let needed = if wants_true { *op } else { negate(*op) };
            match (literal(left), literal(right), d) {
                (None, Some(r), Some(d)) => {
                    return Some(format!(
                        "{} == {} (needs {} {r})",
                        source(&left.span),
                        r + d,
                        needed.as_str()
                    ))
                }
                (Some(l), None, Some(d)) => {
                    return Some(format!(
                        "{} == {} (needs {} {l})",
                        source(&right.span),
                        l - d,
                        flip(needed).as_str()
                    ))
                }
                (None, Some(r), None) => {
                    return Some(format!(
                        "{} was {dist} away from {r} (needs {} {r})",
                        source(&left.span),
                        needed.as_str()
                    ))
                }
                _ => {}
            }
        }
        return Some(format!("branch distance {}", trim_float(distance)));
    }
    Some(format!("branch distance {}", trim_float(distance)))
}

fn trim_float(value: f64) -> String {
    if value.fract() == 0.0 && value.abs() < 1e15 {
        format!("{}", value as i64)
    } else {
        format!("{value:.3}")
    }
}

fn negate(op: ComparisonOp) -> ComparisonOp {
    match op {
        ComparisonOp::Lt => ComparisonOp::Ge,
        ComparisonOp::Le => ComparisonOp::Gt,
        ComparisonOp::Gt => ComparisonOp::Le,
        ComparisonOp::Ge => ComparisonOp::Lt,
        ComparisonOp::Eq => ComparisonOp::Ne,
        ComparisonOp::Ne => ComparisonOp::Eq,
    }
}

/// `l op x` as `x op' l`.
fn flip(op: ComparisonOp) -> ComparisonOp {
    match op {
        ComparisonOp::Lt => ComparisonOp::Gt,
        ComparisonOp::Le => ComparisonOp::Ge,
        ComparisonOp::Gt => ComparisonOp::Lt,
        ComparisonOp::Ge => ComparisonOp::Le,
        other => other,
    }
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

/// The calls of a test in words: `new Account("x", 0L) · withdraw(amount = 150L)`.
pub fn describe_calls(test: &TestCase, model: &JavaModel) -> String {
    test.statements()
        .iter()
        .filter_map(|statement| {
            let callable = statement.callable()?;
            let name = match &callable.kind {
                CallableKind::Constructor => {
                    format!("new {}", simple_name(&callable.owner))
                }
                CallableKind::Method { name, .. } => name.clone(),
                _ => return None,
            };
            Some(format!(
                "{name}({})",
                describe_arguments(test, statement, model)
            ))
        })
        .collect::<Vec<_>>()
        .join(" · ")
}

/// A call's arguments as `name = value` (parameter names from the model when it has the
/// member), values as Java literals where they are literals.
fn describe_arguments(test: &TestCase, statement: &Statement, model: &JavaModel) -> String {
    let (callable, args) = match statement {
        Statement::Constructor { callable, args, .. }
        | Statement::Method { callable, args, .. } => (callable, args),
        _ => return String::new(),
    };
    let member_name = match &callable.kind {
        CallableKind::Constructor => "<init>".to_string(),
        CallableKind::Method { name, .. } => name.clone(),
        _ => String::new(),
    };
    let params: Vec<String> = model
        .type_by_binary_name(&callable.declaring_class)
        .and_then(|ty| {
            ty.members
                .iter()
                .find(|m| m.name == member_name && m.params.len() == args.len())
        })
        .map(|m| m.params.iter().map(|p| p.name.clone()).collect())
        .unwrap_or_default();
    args.iter()
        .enumerate()
        .map(|(i, arg)| {
            let value = match test.statements().get(arg.index()) {
                Some(Statement::Primitive(v)) => primitive_literal(v),
                Some(Statement::Null(_)) => "null".into(),
                Some(Statement::EnumConstant { ty, name }) => {
                    format!("{}.{name}", simple_name(&ty.to_string()))
                }
                Some(Statement::Constructor { ty, .. }) => {
                    format!("a new {}", simple_name(&ty.to_string()))
                }
                Some(other) => other
                    .value_type()
                    .map(|t| format!("a {}", simple_name(&t.to_string())))
                    .unwrap_or_else(|| "?".into()),
                None => "?".into(),
            };
            match params.get(i) {
                Some(name) => format!("{name} = {value}"),
                None => value,
            }
        })
        .collect::<Vec<_>>()
        .join(", ")
}

pub fn simple_name(binary: &str) -> &str {
    let base = binary.split('<').next().unwrap_or(binary);
    base.rsplit(['.', '$']).next().unwrap_or(base)
}

/// A member key's display form: `interest(int)`, `Account(String,long)` for constructors.
pub fn member_display(key: &str) -> String {
    let Some((class, signature)) = key.split_once('#') else {
        return key.to_string();
    };
    match signature.strip_prefix("<init>") {
        Some(params) => format!("{}{params}", simple_name(class)),
        None => signature.to_string(),
    }
}

/// The test methods of a printed test class by name, each with its annotations.
pub fn test_methods(source: &str) -> HashMap<String, String> {
    let tree = syntax::parse_java(source, None);
    let mut out = HashMap::new();
    let mut stack = vec![tree.root_node()];
    while let Some(node) = stack.pop() {
        if node.kind() == "method_declaration" {
            if let Some(name) = node.child_by_field_name("name") {
                let name = &source[name.byte_range()];
                out.insert(name.to_string(), node_text_from_line_start(source, node));
            }
            continue;
        }
        let mut cursor = node.walk();
        stack.extend(node.children(&mut cursor));
    }
    out
}

/// A node's text, starting at the beginning of its first line (so indentation is kept).
fn node_text_from_line_start(source: &str, node: Node) -> String {
    let start = source[..node.start_byte()].rfind('\n').map_or(0, |i| i + 1);
    let start = if source[start..node.start_byte()].trim().is_empty() {
        start
    } else {
        node.start_byte()
    };
    source[start..node.end_byte()].to_string()
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

    use super::ClassResults;

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

    fn decision(model: &JavaModel, ordinal: u32) -> &Decision {
        model
            .decisions()
            .into_iter()
            .map(|(_, _, d)| d)
            .find(|d| d.ordinal == ordinal)
            .unwrap()
    }

    #[test]
    fn closest_distance_is_told_as_the_value_the_search_reached() {
        let text = "class A { boolean f(int amount) { if (amount > 100) return true; if (5 <= amount) return true; return false; } }";
        let m = model(text);
        // `amount > 100` true needs d > 0; distance 2 means d = -1: amount == 99.
        assert_eq!(
            closest_in_words(text, decision(&m, 0), Outcome::True, 2.0).unwrap(),
            "amount == 99 (needs > 100)"
        );
        // false needs d <= 0; distance 3 means d = 3: amount == 103.
        assert_eq!(
            closest_in_words(text, decision(&m, 0), Outcome::False, 3.0).unwrap(),
            "amount == 103 (needs <= 100)"
        );
        // `5 <= amount` true needs left - right <= 0; distance 2 means d = 2: amount == 3.
        assert_eq!(
            closest_in_words(text, decision(&m, 1), Outcome::True, 2.0).unwrap(),
            "amount == 3 (needs >= 5)"
        );
    }

    #[test]
    fn other_shapes_report_the_distance() {
        let text =
            "class A { boolean f(String s) { if (s.isEmpty()) return true; return false; } }";
        let m = model(text);
        assert_eq!(
            closest_in_words(text, decision(&m, 0), Outcome::True, 1.0).unwrap(),
            "branch distance 1"
        );
    }

    #[test]
    fn members_are_live_until_their_text_changes() {
        let before =
            "class A {\n  int f(int x) { return x > 0 ? 1 : 2; }\n  int g() { return 1; }\n}\n";
        let results = ClassResults::interim(1, "A", &model(before), &BTreeSet::new());
        let after = "class A {\n  // moved\n\n  int f(int x) { return x > 0 ? 1 : 2; }\n  int g() { return 2; }\n}\n";
        let m = model(after);
        let live = |key: &str| {
            let current = m.member_by_key(key).map(|(_, member)| member);
            results.is_live_as(key, current, m.text())
        };
        assert!(live("A#f(int)"), "moved but unchanged");
        assert!(!live("A#g()"), "edited");
        assert!(!live("A#h()"), "unknown");
        assert_eq!(results.decisions.len(), 2, "f's ternary and g's entry");
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

    fn goal(results: &ClassResults, member: &str, label: &str) -> String {
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

    fn outcome<'r>(results: &'r ClassResults, goal: &str) -> &'r OutcomeResult {
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

    #[test]
    fn interim_coverage_adds_to_the_earlier_results_of_unchanged_members() {
        let before = STORED_CLASS;
        let after = STORED_CLASS.replace("x > 5", "x > 6");
        let base = stored_fixture(&model(before));
        let f_true = goal(&base, "p.A#f(int)", "true");
        let f_false = goal(&base, "p.A#f(int)", "false");
        let g_true = goal(&base, "p.A#g(int)", "true");
        let g_false = goal(&base, "p.A#g(int)", "false");
        assert!(
            outcome(&base, &g_true).covered,
            "the fixture covers g's true branch"
        );

        // The search (on the edited text) has covered f's false branch and g's false one.
        let now = model(&after);
        let covered = BTreeSet::from([f_false.clone(), g_false.clone()]);
        let interim = ClassResults::interim(9, "p.A", &now, &covered);
        let merged = ClassResults::with_interim(&base, &interim);
        assert_eq!((merged.origin, merged.run), (Origin::Interim, 9));
        // f is unchanged: the stored test still covers its true branch, and the new false one
        // shows at once.
        assert!(outcome(&merged, &f_true).covered);
        assert_eq!(outcome(&merged, &f_true).covered_by, Some(0));
        assert!(outcome(&merged, &f_false).covered);
        // g was edited: only what the search found on the new text.
        assert!(
            !outcome(&merged, &g_true).covered,
            "g's old coverage is gone"
        );
        assert!(outcome(&merged, &g_false).covered);
        assert_eq!(
            merged.covered_goals(),
            3,
            "f: both branches; g: the false one"
        );
        // The tests come along; the one calling g no longer fits the text.
        let live = |m: &str| {
            let current = now.member_by_key(m).map(|(_, member)| member);
            merged.is_live_as(m, current, now.text())
        };
        assert!(merged.insertable(0, live));
        assert!(!merged.insertable(1, live));
        assert!(merged.suite.is_some());

        // Nothing covered yet by the search: an unchanged member shows what it had.
        let empty = ClassResults::interim(10, "p.A", &model(before), &BTreeSet::new());
        let merged = ClassResults::with_interim(&base, &empty);
        assert_eq!(merged.covered_goals(), base.covered_goals());
        assert_eq!(merged.lines.len(), base.lines.len());
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

    #[test]
    fn test_methods_are_extracted_with_their_annotations() {
        let source = "package p;\nclass ATest {\n\n    @Test\n    void one() {\n        a();\n    }\n\n    @Test\n    void two() {}\n}\n";
        let methods = test_methods(source);
        assert_eq!(
            methods["one"],
            "    @Test\n    void one() {\n        a();\n    }"
        );
        assert_eq!(methods["two"], "    @Test\n    void two() {}");
    }

    #[test]
    fn member_keys_display_like_java() {
        assert_eq!(
            member_display("com.x.Account#<init>(String,long)"),
            "Account(String,long)"
        );
        assert_eq!(
            member_display("com.x.Account#interest(int)"),
            "interest(int)"
        );
    }
}
