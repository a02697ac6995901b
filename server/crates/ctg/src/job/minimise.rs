//! Minimisation of the archived tests (seed 001 IV-A, EvoSuite's test minimiser): for each test,
//! from its last statement backwards, remove the statement together with every statement that
//! uses its value, run the shorter test, and keep the removal when every goal the archive
//! credits to the test is still covered. The result is a test from which no single statement
//! (with its dependents) can be removed without losing one of its goals.
//!
//! The tests are minimised side by side: each round sends one candidate per unfinished test in
//! one worker batch, so the number of requests is the length of the longest test, not the sum
//! of all lengths. Each test's candidates are still tried strictly from the end backwards, so
//! the outcome is the same as minimising the tests one after the other. Bounded by a deadline
//! and the cancellation token: a test whose minimisation was cut short keeps what was
//! removed so far.

use std::collections::BTreeSet;
use std::time::Instant;

use search::{goal_fitness, CancelToken, ExecutionResult, GoalId, MemberId};
use testcase::{TestCase, VarRef};

use crate::job::executor::JvmExecutor;

/// A goal a test must keep covering.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KeptGoal {
    /// A static goal of the goal table.
    Static(GoalId),
    /// An undeclared exception of this type thrown out of a call to `member`.
    Exception { member: MemberId, type_name: String },
}

/// What minimisation did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct MinimisationStats {
    pub statements_before: usize,
    pub statements_after: usize,
    /// Candidate tests executed.
    pub executions: u64,
    /// Minimisation stopped at the deadline or on cancellation before every test was done.
    pub cut_short: bool,
}

/// Whether `result` covers `goal`.
pub fn covers(result: &ExecutionResult, fitness: &[f64], goal: &KeptGoal) -> bool {
    if !result.is_ok() {
        return false;
    }
    match goal {
        KeptGoal::Static(goal) => fitness.get(goal.index()) == Some(&0.0),
        KeptGoal::Exception { member, type_name } => result
            .exceptions
            .iter()
            .any(|e| e.member == Some(*member) && !e.declared && e.type_name == *type_name),
    }
}

/// Minimises every test with the goals it must keep; returns the tests in the same order.
pub fn minimise(
    executor: &mut JvmExecutor<'_, '_>,
    tests: Vec<(TestCase, Vec<KeptGoal>)>,
    deadline: Instant,
    cancel: &CancelToken,
) -> (Vec<TestCase>, MinimisationStats) {
    let mut stats = MinimisationStats {
        statements_before: tests.iter().map(|(t, _)| t.len()).sum(),
        ..MinimisationStats::default()
    };
    struct State {
        test: TestCase,
        goals: Vec<KeptGoal>,
        /// The next statement to try removing; `None` when done.
        cursor: Option<usize>,
    }
    let mut states: Vec<State> = tests
        .into_iter()
        .map(|(test, goals)| State {
            cursor: test.len().checked_sub(1),
            test,
            goals,
        })
        .collect();
    loop {
        // One candidate per unfinished test: the next removal that leaves something to run.
        let mut batch: Vec<(usize, usize, TestCase)> = Vec::new();
        for (index, state) in states.iter_mut().enumerate() {
            while let Some(at) = state.cursor {
                let candidate = without(&state.test, at);
                if candidate.is_empty() {
                    state.cursor = at.checked_sub(1);
                    continue;
                }
                batch.push((index, at, candidate));
                break;
            }
        }
        if batch.is_empty() {
            break;
        }
        if Instant::now() >= deadline || cancel.is_cancelled() || executor.has_failed() {
            stats.cut_short = true;
            break;
        }
        let candidates: Vec<TestCase> = batch.iter().map(|(_, _, t)| t.clone()).collect();
        let runs = executor.run(&candidates, false);
        stats.executions += runs.len() as u64;
        for ((index, at, candidate), run) in batch.into_iter().zip(runs) {
            let state = &mut states[index];
            let fitness = goal_fitness(executor.table(), &run.result);
            let keeps = state
                .goals
                .iter()
                .all(|goal| covers(&run.result, &fitness, goal));
            if keeps {
                state.test = candidate;
            }
            // Statements before `at` keep their indexes either way.
            state.cursor = at.checked_sub(1);
        }
    }
    let tests: Vec<TestCase> = states.into_iter().map(|s| s.test).collect();
    stats.statements_after = tests.iter().map(TestCase::len).sum();
    (tests, stats)
}

/// `test` without statement `at` and every statement that (transitively) uses its value, with
/// the references of the remaining statements renumbered.
pub fn without(test: &TestCase, at: usize) -> TestCase {
    let mut removed = BTreeSet::from([at]);
    for (j, statement) in test.statements().iter().enumerate().skip(at + 1) {
        if statement
            .refs()
            .iter()
            .any(|(_, r)| removed.contains(&r.index()))
        {
            removed.insert(j);
        }
    }
    let mut new_index = Vec::with_capacity(test.len());
    let mut kept = Vec::with_capacity(test.len() - removed.len());
    for (j, statement) in test.statements().iter().enumerate() {
        new_index.push(kept.len());
        if !removed.contains(&j) {
            let mut statement = statement.clone();
            statement.for_each_ref_mut(|_, r| *r = VarRef(new_index[r.index()]));
            kept.push(statement);
        }
    }
    TestCase::from_statements(kept)
}

#[cfg(test)]
mod tests {
    use super::*;
    use testcase::{PrimitiveValue, Statement};

    #[test]
    fn removing_a_statement_removes_its_users_and_renumbers() {
        let int = |v| Statement::Primitive(PrimitiveValue::Int(v));
        let array = Statement::ArrayNew {
            component: testcase::JavaType::Primitive(testcase::PrimitiveKind::Int),
            length: 2,
        };
        let store = |array, value| Statement::ArrayStore {
            array: VarRef(array),
            index: 0,
            value: VarRef(value),
        };
        // 0: int, 1: int, 2: int[], 3: a[0] = s0, 4: a[0] = s1
        let test = TestCase::from_statements(vec![int(1), int(2), array, store(2, 0), store(2, 1)]);
        let dropped_first = without(&test, 0);
        assert_eq!(dropped_first.len(), 3);
        assert_eq!(dropped_first.statements()[2], store(1, 0));
        let dropped_array = without(&test, 2);
        assert_eq!(dropped_array.statements(), &[int(1), int(2)]);
        assert!(without(&TestCase::from_statements(vec![int(3)]), 0).is_empty());
    }
}
