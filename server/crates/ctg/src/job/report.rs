//! The job's result from the final run of the minimised tests: coverage per decision outcome,
//! per line and per method, the undeclared exceptions, the exceptions that left members, the
//! tests, and the coverage of the other classes the job instrumented. The final run is the
//! truth: a goal counts as covered only when a final test covers it.

use javamodel::instrument::ProbeTable;
use javamodel::{CfgNodeKind, GoalKey, JavaModel};
use jvm::TestStatus;
use search::{goal_fitness, Criteria, GoalTable};
use testcase::TestCase;

use crate::job::executor::Run;
use crate::job::result::{
    ClassCoverage, Coverage, DecisionCoverage, EscapedException, GeneratedTest, LineCoverage,
    OutcomeCoverage, TestCoverage, UndeclaredException,
};
use crate::job::trace_mapping::{member_escapes, TraceMapper};

pub(crate) struct Report<'a> {
    pub table: &'a GoalTable,
    pub model: &'a JavaModel,
    pub text: &'a str,
    pub probes: &'a ProbeTable,
    /// Per branch goal, the smallest distance seen over the whole job (for a class the job
    /// instrumented besides the class under test, over the final tests).
    pub closest: &'a [f64],
    /// An integration run's coupling (`job::integration`): the table then also holds the
    /// callee's decisions, which are left out here (the callee is reported as a class the job
    /// instrumented besides), and the coupled branches are reported.
    pub coupling: Option<&'a javamodel::coupling::Coupling>,
}

/// Decision and line coverage of one class by the final tests.
struct Covered {
    decisions: Vec<DecisionCoverage>,
    branches: Coverage,
    lines: LineCoverage,
    /// Per test, in the order of the results measured.
    per_test: Vec<TestCoverage>,
}

pub(crate) struct Built {
    pub decisions: Vec<DecisionCoverage>,
    pub branches: Coverage,
    pub lines: LineCoverage,
    pub methods: Coverage,
    pub exceptions: Vec<UndeclaredException>,
    pub escapes: Vec<EscapedException>,
    pub tests: Vec<GeneratedTest>,
    /// Per static goal, whether a kept final test covers it.
    pub covered_goals: Vec<bool>,
    pub coupled: Option<crate::job::result::CoupledCoverage>,
}

impl Report<'_> {
    /// `tests` with the goals each was kept for, and their final runs in the same order.
    pub fn build(
        self,
        tests: Vec<(TestCase, Vec<String>)>,
        runs: Vec<Run>,
        warnings: &mut Vec<String>,
    ) -> Built {
        let mut kept: Vec<(GeneratedTest, search::ExecutionResult)> = Vec::new();
        let mut dropped = 0;
        let mut needing: Vec<String> = Vec::new();
        for ((test, covers), run) in tests.into_iter().zip(runs) {
            match run.worker {
                // The search never archives such a run, but the final run observes getters
                // too, which may write or connect: the last check before a test is written.
                Some(worker) if run.result.needs_environment => {
                    for need in &worker.environment {
                        let text = need.describe();
                        if !needing.contains(&text) {
                            needing.push(text);
                        }
                    }
                }
                Some(worker) if run.result.is_ok() => kept.push((
                    GeneratedTest {
                        test,
                        result: worker,
                        covers,
                        covered_goals: Vec::new(),
                        covered_lines: Vec::new(),
                        also_covered: Vec::new(),
                        coupled_covered: Vec::new(),
                    },
                    run.result,
                )),
                _ => dropped += 1,
            }
        }
        if dropped > 0 {
            warnings.push(format!(
                "{dropped} tests were dropped: they timed out or crashed in the final run"
            ));
        }
        if !needing.is_empty() {
            warnings.push(format!(
                "tests were left out in the final run: they need the environment ({})",
                needing.join("; ")
            ));
        }
        let results: Vec<&search::ExecutionResult> = kept.iter().map(|(_, r)| r).collect();
        let covered = self.coverage(&results);
        let mut covered_goals = vec![false; self.table.goal_count()];
        for result in &results {
            for (goal, f) in goal_fitness(self.table, result).iter().enumerate() {
                if *f == 0.0 {
                    covered_goals[goal] = true;
                }
            }
        }

        let coupled = self.coupling.map(|coupling| {
            let per_test: Vec<Vec<f64>> = results
                .iter()
                .map(|result| goal_fitness(self.table, result))
                .collect();
            (per_test, coupling)
        });
        let coupled = coupled.map(|(per_test, coupling)| {
            for ((test, _), fitness) in kept.iter_mut().zip(&per_test) {
                test.coupled_covered =
                    crate::job::integration::covered_by_test(self.table, fitness);
            }
            crate::job::integration::coverage(self.table, coupling, &per_test)
        });

        let members = self.table.members();
        let methods = Coverage {
            covered: members
                .iter()
                .enumerate()
                .filter(|(_, m)| m.is_method && self.is_own(&m.key))
                .filter(|(i, _)| {
                    kept.iter()
                        .any(|(_, r)| r.member_entries(search::MemberId(*i as u32)) > 0)
                })
                .count(),
            total: members
                .iter()
                .filter(|m| m.is_method && self.is_own(&m.key))
                .count(),
        };

        // What each test covers on its own, so that a caller who keeps only some of the tests
        // (verification can drop one) can tell what the rest still cover.
        for ((test, _), own) in kept.iter_mut().zip(covered.per_test) {
            test.covered_goals = own.goals;
            test.covered_lines = own.lines;
        }

        let mut exceptions: Vec<UndeclaredException> = Vec::new();
        for (index, (test, result)) in kept.iter().enumerate() {
            for e in &result.exceptions {
                let Some(member) = e.member.filter(|_| !e.declared) else {
                    continue;
                };
                let member = self.table.member(member).key.clone();
                if exceptions
                    .iter()
                    .any(|x| x.member == member && x.type_name == e.type_name)
                {
                    continue;
                }
                exceptions.push(UndeclaredException {
                    member,
                    type_name: e.type_name.clone(),
                    line: e.line,
                    thrown_explicitly: e.line.is_some_and(|l| self.is_throw_line(l)),
                    test: index,
                    message: test
                        .result
                        .exception
                        .as_ref()
                        .filter(|_| test.result.status == TestStatus::Exception)
                        .and_then(|x| x.message.as_ref())
                        .map(|m| m.to_string_lossy().into_owned()),
                });
            }
        }

        let escapes = self.escapes(kept.iter().map(|(test, _)| test));

        Built {
            decisions: covered.decisions,
            branches: covered.branches,
            lines: covered.lines,
            methods,
            exceptions,
            escapes,
            tests: kept.into_iter().map(|(t, _)| t).collect(),
            covered_goals,
            coupled,
        }
    }

    /// Whether a member (by key) is the class's own rather than the integration callee's.
    fn is_own(&self, member: &str) -> bool {
        self.coupling.is_none() || member_of_class(self.table.binary_name(), member)
    }

    /// Decision and line coverage of the class by `results` (final runs, in test order), with
    /// what each covers on its own.
    fn coverage(&self, results: &[&search::ExecutionResult]) -> Covered {
        let fitness: Vec<Vec<f64>> = results
            .iter()
            .map(|result| goal_fitness(self.table, result))
            .collect();
        let first_covering = |goal: search::GoalId| {
            fitness
                .iter()
                .position(|f| f.get(goal.index()) == Some(&0.0))
        };

        let mut decisions = Vec::with_capacity(self.table.decisions().len());
        let mut branches = Coverage {
            covered: 0,
            total: 0,
        };
        for info in self.table.decisions() {
            if !self.is_own(&info.key.member) {
                continue;
            }
            branches.total += info.outcomes.len();
            let outcomes = info
                .outcomes
                .iter()
                .enumerate()
                .map(|(index, &outcome)| {
                    let goal = info.goal(index);
                    let covered_by = first_covering(goal);
                    if covered_by.is_some() {
                        branches.covered += 1;
                    }
                    let closest = self
                        .closest
                        .get(goal.index())
                        .copied()
                        .filter(|d| d.is_finite());
                    let key = GoalKey {
                        decision: info.key.clone(),
                        outcome,
                    };
                    OutcomeCoverage {
                        outcome,
                        covered_by,
                        closest_distance: closest,
                        probed: !self.probes.goal_probes(&key).is_empty(),
                    }
                })
                .collect();
            decisions.push(DecisionCoverage {
                key: info.key.clone(),
                kind: info.kind,
                line: info.line,
                condition: self.condition_text(&info.key),
                outcomes,
            });
        }

        let goal_keys: Vec<(search::GoalId, String)> = self
            .table
            .decisions()
            .iter()
            .filter(|info| self.is_own(&info.key.member))
            .flat_map(|info| {
                info.outcomes
                    .iter()
                    .enumerate()
                    .map(move |(i, outcome)| (info.goal(i), format!("{}.{outcome}", info.key)))
            })
            .collect();
        let per_test = results
            .iter()
            .zip(&fitness)
            .map(|(result, fitness)| TestCoverage {
                goals: goal_keys
                    .iter()
                    .filter(|(goal, _)| fitness.get(goal.index()) == Some(&0.0))
                    .map(|(_, key)| key.clone())
                    .collect(),
                lines: self.lines(std::iter::once(*result)).covered,
                coupled: Vec::new(),
            })
            .collect();
        Covered {
            decisions,
            branches,
            lines: self.lines(results.iter().copied()),
            per_test,
        }
    }

    /// The exceptions that left members of the class (with its nested classes) in the final
    /// runs of `tests`: one per (member, type, line), by the first test.
    fn escapes<'t>(&self, tests: impl Iterator<Item = &'t GeneratedTest>) -> Vec<EscapedException> {
        let class = self.table.binary_name();
        let in_class = |member: &str| member_of_class(class, member);
        let mut out: Vec<EscapedException> = Vec::new();
        for (index, test) in tests.enumerate() {
            for e in member_escapes(self.probes, self.model, &test.result.trace) {
                if !in_class(&e.member)
                    || out.iter().any(|x| {
                        x.member == e.member && x.type_name == e.type_name && x.line == e.line
                    })
                {
                    continue;
                }
                out.push(EscapedException {
                    thrown_explicitly: e.line.is_some_and(|l| self.is_throw_line(l)),
                    member: e.member,
                    type_name: e.type_name,
                    line: e.line,
                    declared: e.declared,
                    checked: e.checked,
                    test: index,
                });
            }
        }
        out
    }

    /// The probed lines of the class (with its nested classes) and those the results ran.
    fn lines<'r>(
        &self,
        results: impl Iterator<Item = &'r search::ExecutionResult>,
    ) -> LineCoverage {
        let Some(decl) = self.model.type_by_binary_name(self.table.binary_name()) else {
            return LineCoverage::default();
        };
        let span = decl.span.start.row as u32 + 1..=decl.span.end.row as u32 + 1;
        let lines: Vec<u32> = self
            .probes
            .lines
            .iter()
            .copied()
            .filter(|l| span.contains(l))
            .collect();
        let mut covered: Vec<u32> = results
            .flat_map(|r| r.covered_lines().iter().copied())
            .filter(|l| lines.binary_search(l).is_ok())
            .collect();
        covered.sort_unstable();
        covered.dedup();
        LineCoverage { lines, covered }
    }

    /// The decision's condition as written, on one line.
    fn condition_text(&self, key: &javamodel::DecisionKey) -> String {
        let Some((_, member)) = self.model.member_by_key(&key.member) else {
            return String::new();
        };
        let decision = member
            .body
            .as_ref()
            .and_then(|b| b.decisions.iter().find(|d| d.ordinal == key.ordinal));
        let Some(decision) = decision else {
            return String::new();
        };
        self.text
            .get(decision.span.start_byte..decision.span.end_byte)
            .unwrap_or("")
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
    }

    fn is_throw_line(&self, line: u32) -> bool {
        throw_statement_on(self.model, self.text, line)
    }
}

/// Whether the member key `member` (`a.B$C#m(int)`) belongs to `class` (`a.B`) or one of its
/// nested, local or anonymous classes.
pub(crate) fn member_of_class(class: &str, member: &str) -> bool {
    let owner = member.split('#').next().unwrap_or(member);
    owner == class
        || owner
            .strip_prefix(class)
            .is_some_and(|rest| rest.starts_with('$'))
}

/// A class instrumented besides the class under test: its model and source text, and the probe
/// table of its file.
pub(crate) struct AlsoInstrumented<'a> {
    pub class: &'a str,
    pub model: &'a JavaModel,
    pub text: &'a str,
    pub probes: &'a ProbeTable,
}

/// What `tests` (the final tests with their final runs) cover of `also`; what each covers on its
/// own is appended to its `also_covered`. The traces are read through the class's own goal
/// table and probe table, so a probe id of one file never counts for another file's goal, and
/// the class under test's results are untouched.
pub(crate) fn also_covered(
    also: &AlsoInstrumented<'_>,
    criteria: Criteria,
    tests: &mut [GeneratedTest],
) -> ClassCoverage {
    let table =
        GoalTable::for_class_with_lines(also.model, also.class, criteria, &also.probes.lines);
    let Some(table) = table else {
        // The job located the class in this model before compiling, so this is not reached;
        // an empty entry keeps every test's `also_covered` aligned with the classes.
        for test in tests.iter_mut() {
            test.also_covered.push(TestCoverage::default());
        }
        return ClassCoverage {
            class: also.class.to_string(),
            decisions: Vec::new(),
            branches: Coverage::default(),
            lines: LineCoverage::default(),
            coupled: None,
        };
    };
    let mapper = TraceMapper::new(&table, also.probes);
    let results: Vec<search::ExecutionResult> = tests
        .iter()
        .map(|test| mapper.map(&test.test, &test.result))
        .collect();
    // The search never looked at this class, so the closest distances are the final tests'.
    let mut closest = vec![f64::INFINITY; table.branch_goal_count()];
    for result in &results {
        for (goal, closest) in closest.iter_mut().enumerate() {
            *closest = closest.min(result.branch_distance(search::GoalId(goal as u32)));
        }
    }
    let report = Report {
        table: &table,
        model: also.model,
        text: also.text,
        probes: also.probes,
        closest: &closest,
        coupling: None,
    };
    let covered = report.coverage(&results.iter().collect::<Vec<_>>());
    for (test, own) in tests.iter_mut().zip(covered.per_test) {
        test.also_covered.push(own);
    }
    ClassCoverage {
        class: also.class.to_string(),
        decisions: covered.decisions,
        branches: covered.branches,
        lines: covered.lines,
        coupled: None,
    }
}

/// Whether 1-based `line` lies within a `throw` statement of the class: the exception was
/// thrown on purpose. Read from the statements of the members' control-flow graphs, so a guard
/// on one line (`if (x == null) throw new NullPointerException();`) and a `throw` whose
/// constructor call spans several lines count; a line that only mentions `throw` in a string or
/// a comment does not.
fn throw_statement_on(model: &JavaModel, text: &str, line: u32) -> bool {
    let Some(row) = (line as usize).checked_sub(1) else {
        return false;
    };
    model
        .all_types()
        .into_iter()
        .flat_map(|ty| &ty.members)
        .filter_map(|member| member.body.as_ref())
        .flat_map(|body| &body.cfgs)
        .flat_map(|cfg| &cfg.nodes)
        .filter(|node| node.kind == CfgNodeKind::Statement)
        .filter_map(|node| node.span)
        .any(|span| {
            span.start.row <= row
                && row <= span.end.row
                && text.get(span.start_byte..).is_some_and(|rest| {
                    rest.strip_prefix("throw").is_some_and(|after| {
                        !after.starts_with(|c: char| c.is_alphanumeric() || c == '_' || c == '$')
                    })
                })
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    const SOURCE: &str = r#"class Guard {
    int check(String s, int n) {
        if (s == null) throw new NullPointerException("s");
        if (n < 0) {
            throw new IllegalArgumentException(
                "negative: " + n);
        }
        String throwaway = "throw new X()";
        return s.length() / n; // throw here is implicit
    }
}
"#;

    fn lines_within_throws() -> Vec<u32> {
        let tree = syntax::parse_java(SOURCE, None);
        let model = JavaModel::build(SOURCE, &tree);
        (1..=SOURCE.lines().count() as u32)
            .filter(|&line| throw_statement_on(&model, SOURCE, line))
            .collect()
    }

    #[test]
    fn throws_are_found_by_statement_not_by_line_prefix() {
        // The guard on line 3, the two lines of the statement on 5-6; not the string on 8 or the
        // division (an implicit ArithmeticException) on 9.
        assert_eq!(lines_within_throws(), vec![3, 5, 6]);
    }
}
