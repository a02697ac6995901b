//! The job's result from the final run of the minimised tests: coverage per decision outcome,
//! per line and per method, the undeclared exceptions and the tests. The final run is the
//! truth: a goal counts as covered only when a final test covers it.

use javamodel::instrument::ProbeTable;
use javamodel::{GoalKey, JavaModel};
use jvm::TestStatus;
use search::{goal_fitness, GoalTable};
use testcase::TestCase;

use crate::job::executor::Run;
use crate::job::result::{
    Coverage, DecisionCoverage, GeneratedTest, LineCoverage, OutcomeCoverage, UndeclaredException,
};

pub(crate) struct Report<'a> {
    pub table: &'a GoalTable,
    pub model: &'a JavaModel,
    pub text: &'a str,
    pub probes: &'a ProbeTable,
    /// Per branch goal, the smallest distance seen over the whole job.
    pub closest: &'a [f64],
}

pub(crate) struct Built {
    pub decisions: Vec<DecisionCoverage>,
    pub branches: Coverage,
    pub lines: LineCoverage,
    pub methods: Coverage,
    pub exceptions: Vec<UndeclaredException>,
    pub tests: Vec<GeneratedTest>,
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
        for ((test, covers), run) in tests.into_iter().zip(runs) {
            match run.worker {
                Some(worker) if run.result.is_ok() => kept.push((
                    GeneratedTest {
                        test,
                        result: worker,
                        covers,
                        covered_goals: Vec::new(),
                        covered_lines: Vec::new(),
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
        let fitness: Vec<Vec<f64>> = kept
            .iter()
            .map(|(_, result)| goal_fitness(self.table, result))
            .collect();
        let first_covering = |goal: search::GoalId| {
            fitness
                .iter()
                .position(|f| f.get(goal.index()) == Some(&0.0))
        };

        let mut decisions = Vec::with_capacity(self.table.decisions().len());
        let mut branches = Coverage {
            covered: 0,
            total: self.table.branch_goal_count(),
        };
        for info in self.table.decisions() {
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

        let members = self.table.members();
        let methods = Coverage {
            covered: members
                .iter()
                .enumerate()
                .filter(|(_, m)| m.is_method)
                .filter(|(i, _)| {
                    kept.iter()
                        .any(|(_, r)| r.member_entries(search::MemberId(*i as u32)) > 0)
                })
                .count(),
            total: members.iter().filter(|m| m.is_method).count(),
        };

        let lines = self.lines(kept.iter().map(|(_, r)| r));
        // What each test covers on its own, so that a caller who keeps only some of the tests
        // (verification can drop one) can tell what the rest still cover.
        let goal_keys: Vec<(search::GoalId, String)> = self
            .table
            .decisions()
            .iter()
            .flat_map(|info| {
                info.outcomes
                    .iter()
                    .enumerate()
                    .map(move |(i, outcome)| (info.goal(i), format!("{}.{outcome}", info.key)))
            })
            .collect();
        for (index, (test, result)) in kept.iter_mut().enumerate() {
            test.covered_goals = goal_keys
                .iter()
                .filter(|(goal, _)| fitness[index].get(goal.index()) == Some(&0.0))
                .map(|(_, key)| key.clone())
                .collect();
            test.covered_lines = self.lines(std::iter::once(&*result)).covered;
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
                        .and_then(|x| x.message.clone()),
                });
            }
        }

        Built {
            decisions,
            branches,
            lines,
            methods,
            exceptions,
            tests: kept.into_iter().map(|(t, _)| t).collect(),
        }
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
        self.text
            .lines()
            .nth(line.saturating_sub(1) as usize)
            .is_some_and(|l| {
                let l = l.trim_start();
                l.starts_with("throw ") || l.starts_with("throw(")
            })
    }
}
