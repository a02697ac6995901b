//! Minimisation of the archived tests (Fraser and Arcuri, "Whole Test Suites" IV-A, EvoSuite's test minimiser): for each test,
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
//!
//! Then the values: each primitive and string literal left is replaced by a simpler one while
//! the test keeps its goals (`0` for `-1873`, `30` for `30472`, `""` or `"ab"` for `"x#\u0007ab"`),
//! so that a developer reads the input that matters rather than the search's noise. Fraser and Arcuri, "Whole Test Suites"
//! minimises only the statements; this second pass follows the shrinking of property-based
//! testing tools (greedy, one candidate at a time, smaller by the length of the printed literal),
//! and runs side by side and under the same deadline as the first.
//!
//! Both passes keep a candidate only when it also ends the way the test did (returns, or
//! throws the same exception type): otherwise `interest(0)` would replace `interest(3)` in a
//! test kept for the line `return balance / ratePerUnit;`, which the throwing call reaches too.

use std::collections::BTreeSet;
use std::time::Instant;

use jvm::TestStatus;
use search::{goal_fitness, CancelToken, ExecutionResult, GoalId, MemberId};
use testcase::{PrimitiveValue, Statement, TestCase, VarRef};

use crate::job::executor::{JvmExecutor, Run};

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
    /// Literal values replaced by simpler ones.
    pub values_simplified: usize,
}

/// Whether `result` covers `goal`.
pub fn covers(result: &ExecutionResult, fitness: &[f64], goal: &KeptGoal) -> bool {
    // A simpler literal can turn a temporary file into a relative path, or a host into one the
    // sandbox refuses: such a candidate is no test to write.
    if !result.is_ok() || result.needs_environment {
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

/// How a run ended: the worker's status and the type of the exception that ended it.
type Outcome = Option<(TestStatus, Option<String>)>;

fn outcome(run: &Run) -> Outcome {
    run.worker.as_ref().map(|worker| {
        (
            worker.status,
            worker.exception.as_ref().map(|e| e.type_name.clone()),
        )
    })
}

/// What a shorter or simpler test must keep: every goal, and the way the test ends. A test that
/// returned normally must not become one that throws (JaCoCo counts the lines of a block that
/// ends in an exception as not covered, and the archive prefers tests that end normally), nor
/// one that throws another exception.
struct Keep {
    goals: Vec<KeptGoal>,
    outcome: Outcome,
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
    stats.statements_after = stats.statements_before;
    // How each test ends now, which its minimised form must keep.
    if Instant::now() >= deadline || cancel.is_cancelled() || executor.has_failed() {
        stats.cut_short = true;
        return (tests.into_iter().map(|(t, _)| t).collect(), stats);
    }
    let originals: Vec<TestCase> = tests.iter().map(|(t, _)| t.clone()).collect();
    let runs = executor.run(&originals, false);
    stats.executions += runs.len() as u64;
    struct State {
        test: TestCase,
        keep: Keep,
        /// The next statement to try removing; `None` when done.
        cursor: Option<usize>,
    }
    let mut states: Vec<State> = tests
        .into_iter()
        .zip(&runs)
        .map(|((test, goals), run)| State {
            cursor: test.len().checked_sub(1),
            test,
            keep: Keep {
                goals,
                outcome: outcome(run),
            },
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
        let Some(kept) = run_round(
            executor,
            batch.iter().map(|(index, _, t)| (t, &states[*index].keep)),
            deadline,
            cancel,
            &mut stats,
        ) else {
            break;
        };
        for ((index, at, candidate), keeps) in batch.into_iter().zip(kept) {
            let state = &mut states[index];
            if keeps {
                state.test = candidate;
            }
            // Statements before `at` keep their indexes either way.
            state.cursor = at.checked_sub(1);
        }
    }
    let tests: Vec<(TestCase, Keep)> = states.into_iter().map(|s| (s.test, s.keep)).collect();
    stats.statements_after = tests.iter().map(|(t, _)| t.len()).sum();
    let tests = if stats.cut_short {
        tests.into_iter().map(|(t, _)| t).collect()
    } else {
        simplify_values(executor, tests, deadline, cancel, &mut stats)
    };
    (tests, stats)
}

/// The second pass: simpler literals, one candidate per unfinished test and round.
fn simplify_values(
    executor: &mut JvmExecutor<'_, '_>,
    tests: Vec<(TestCase, Keep)>,
    deadline: Instant,
    cancel: &CancelToken,
    stats: &mut MinimisationStats,
) -> Vec<TestCase> {
    struct State {
        test: TestCase,
        keep: Keep,
        /// The literal statements left to simplify, last first (popped from the end).
        todo: Vec<usize>,
        /// Candidates for the statement at the end of `todo`, most preferred last.
        candidates: Vec<PrimitiveValue>,
    }
    let mut states: Vec<State> = tests
        .into_iter()
        .map(|(test, keep)| {
            let todo = test
                .statements()
                .iter()
                .enumerate()
                .filter(|(_, s)| matches!(s, Statement::Primitive(_)))
                .map(|(i, _)| i)
                .collect();
            State {
                test,
                keep,
                todo,
                candidates: Vec::new(),
            }
        })
        .collect();
    loop {
        let mut batch: Vec<(usize, PrimitiveValue, TestCase)> = Vec::new();
        for (index, state) in states.iter_mut().enumerate() {
            while let Some(&at) = state.todo.last() {
                let Statement::Primitive(current) = &state.test.statements()[at] else {
                    state.todo.pop();
                    continue;
                };
                if state.candidates.is_empty() {
                    state.candidates = simpler_values(current);
                    state.candidates.reverse();
                    if state.candidates.is_empty() {
                        state.todo.pop();
                        continue;
                    }
                }
                let value = state.candidates.pop().expect("not empty");
                let mut statements = state.test.statements().to_vec();
                statements[at] = Statement::Primitive(value.clone());
                batch.push((index, value, TestCase::from_statements(statements)));
                break;
            }
        }
        if batch.is_empty() {
            break;
        }
        let Some(kept) = run_round(
            executor,
            batch.iter().map(|(index, _, t)| (t, &states[*index].keep)),
            deadline,
            cancel,
            stats,
        ) else {
            break;
        };
        for ((index, value, candidate), keeps) in batch.into_iter().zip(kept) {
            let state = &mut states[index];
            if keeps {
                state.test = candidate;
                stats.values_simplified += 1;
                // Simplify further from the new value.
                state.candidates = simpler_values(&value);
                state.candidates.reverse();
                if state.candidates.is_empty() {
                    state.todo.pop();
                }
            } else if state.candidates.is_empty() {
                state.todo.pop();
            }
        }
    }
    states.into_iter().map(|s| s.test).collect()
}

/// Runs one round of candidates in one worker batch and says, for each, whether it still
/// covers every goal it must keep and ends as the test did; `None` (and `cut_short`) when the
/// deadline has passed, the job was cancelled or the worker failed, before anything ran.
fn run_round<'t>(
    executor: &mut JvmExecutor<'_, '_>,
    candidates: impl Iterator<Item = (&'t TestCase, &'t Keep)>,
    deadline: Instant,
    cancel: &CancelToken,
    stats: &mut MinimisationStats,
) -> Option<Vec<bool>> {
    if Instant::now() >= deadline || cancel.is_cancelled() || executor.has_failed() {
        stats.cut_short = true;
        return None;
    }
    let (tests, keeps): (Vec<TestCase>, Vec<&Keep>) =
        candidates.map(|(test, keep)| (test.clone(), keep)).unzip();
    let runs = executor.run(&tests, false);
    stats.executions += runs.len() as u64;
    Some(
        runs.iter()
            .zip(keeps)
            .map(|(run, keep)| {
                let fitness = goal_fitness(executor.table(), &run.result);
                outcome(run) == keep.outcome
                    && keep
                        .goals
                        .iter()
                        .all(|goal| covers(&run.result, &fitness, goal))
            })
            .collect(),
    )
}

/// How complex a literal reads: the length of its Java text, then its magnitude.
fn complexity(value: &PrimitiveValue) -> (usize, u64) {
    let magnitude = match value {
        PrimitiveValue::Byte(_)
        | PrimitiveValue::Short(_)
        | PrimitiveValue::Int(_)
        | PrimitiveValue::Long(_) => value.as_integer().unwrap_or(0).unsigned_abs(),
        PrimitiveValue::Float(v) => f64::from(*v).abs().min(u64::MAX as f64) as u64,
        PrimitiveValue::Double(v) => v.abs().min(u64::MAX as f64) as u64,
        PrimitiveValue::Char(c) => u64::from(!c.is_ascii_alphanumeric()),
        PrimitiveValue::String(s) => {
            s.chars().filter(|c| !c.is_ascii_alphanumeric()).count() as u64
        }
        PrimitiveValue::Boolean(_) => 0,
    };
    (value.to_string().len(), magnitude)
}

/// Values to try instead of `value`, most preferred first, each strictly simpler than it.
/// Booleans are left alone: neither reads simpler.
pub fn simpler_values(value: &PrimitiveValue) -> Vec<PrimitiveValue> {
    fn integers(v: i64) -> Vec<i64> {
        // `i64::MIN` has no positive counterpart.
        [
            Some(0),
            Some(v.signum()),
            v.checked_abs(),
            Some(v / 10),
            Some(v / 2),
        ]
        .into_iter()
        .flatten()
        .collect()
    }
    fn reals(v: f64) -> Vec<f64> {
        if !v.is_finite() {
            return vec![0.0];
        }
        vec![0.0, v.trunc(), (v * 10.0).trunc() / 10.0, (v / 2.0).trunc()]
    }
    let candidates: Vec<PrimitiveValue> = match value {
        PrimitiveValue::Boolean(_) => Vec::new(),
        PrimitiveValue::Byte(v) => integers(i64::from(*v))
            .into_iter()
            .filter_map(|c| i8::try_from(c).ok().map(PrimitiveValue::Byte))
            .collect(),
        PrimitiveValue::Short(v) => integers(i64::from(*v))
            .into_iter()
            .filter_map(|c| i16::try_from(c).ok().map(PrimitiveValue::Short))
            .collect(),
        PrimitiveValue::Int(v) => integers(i64::from(*v))
            .into_iter()
            .filter_map(|c| i32::try_from(c).ok().map(PrimitiveValue::Int))
            .collect(),
        PrimitiveValue::Long(v) => integers(*v).into_iter().map(PrimitiveValue::Long).collect(),
        PrimitiveValue::Float(v) => reals(f64::from(*v))
            .into_iter()
            .map(|c| PrimitiveValue::Float(c as f32))
            .collect(),
        PrimitiveValue::Double(v) => reals(*v).into_iter().map(PrimitiveValue::Double).collect(),
        PrimitiveValue::Char(_) => ['a', '0', ' ']
            .into_iter()
            .map(PrimitiveValue::Char)
            .collect(),
        PrimitiveValue::String(s) => {
            let chars: Vec<char> = s.chars().collect();
            let n = chars.len();
            let text = |part: &[char]| PrimitiveValue::String(part.iter().collect());
            let readable: String = chars
                .iter()
                .map(|&c| {
                    if c.is_ascii_graphic() || c == ' ' {
                        c
                    } else {
                        'x'
                    }
                })
                .collect();
            vec![
                PrimitiveValue::String(String::new()),
                text(&chars[..n / 2]),
                text(&chars[n / 2..]),
                text(&chars[..n.saturating_sub(1)]),
                text(&chars[n.min(1)..]),
                PrimitiveValue::String(readable),
            ]
        }
    };
    let own = complexity(value);
    let mut out: Vec<PrimitiveValue> = Vec::new();
    for candidate in candidates {
        if complexity(&candidate) < own && !out.contains(&candidate) {
            out.push(candidate);
        }
    }
    out
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
    fn simpler_values_are_strictly_simpler_and_zero_comes_first() {
        use PrimitiveValue as V;
        assert_eq!(
            simpler_values(&V::Int(-30472)),
            vec![
                V::Int(0),
                V::Int(-1),
                V::Int(30472),
                V::Int(-3047),
                V::Int(-15236)
            ]
        );
        assert_eq!(
            simpler_values(&V::Int(7)),
            vec![V::Int(0), V::Int(1), V::Int(3)]
        );
        assert!(simpler_values(&V::Int(0)).is_empty());
        assert!(simpler_values(&V::Boolean(true)).is_empty());
        assert_eq!(
            simpler_values(&V::Double(12.75)),
            vec![
                V::Double(0.0),
                V::Double(12.0),
                V::Double(12.7),
                V::Double(6.0)
            ]
        );
        assert_eq!(simpler_values(&V::Char('a')), Vec::<V>::new());
        assert_eq!(
            simpler_values(&V::Char('#')),
            vec![V::Char('a'), V::Char('0')]
        );
        let s = |t: &str| V::String(t.into());
        assert_eq!(
            simpler_values(&s("ab\u{7}d")),
            vec![
                s(""),
                s("ab"),
                s("\u{7}d"),
                s("ab\u{7}"),
                s("b\u{7}d"),
                s("abxd")
            ]
        );
        // Every candidate of every value is simpler than it, so shrinking ends.
        for value in [
            V::Long(i64::MIN),
            V::Short(i16::MIN),
            V::Byte(-128),
            V::Float(f32::NAN),
        ] {
            for candidate in simpler_values(&value) {
                assert!(
                    complexity(&candidate) < complexity(&value),
                    "{candidate} vs {value}"
                );
            }
        }
    }

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
