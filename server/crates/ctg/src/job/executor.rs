//! The JVM-backed `search::Executor`: a batch of test cases becomes one `execute` request to
//! the worker, each result is mapped into goal terms, observed and compared values go to the
//! run-time value pools, and a batch the worker did not finish is resubmitted from the test after the one that
//! hung or crashed it.
//!
//! Invariants: every test of a batch gets exactly one result; a test that crashes the worker
//! twice is marked crashed and skipped, and one that hangs it once is marked timed out, so a
//! batch ends after at most two requests per test. An environment error (`JvmError`: the worker
//! cannot start, protocol breakage) is kept, marks the rest crashed and trips the executor's
//! abort token, which the job passes to the search as a stopping condition.

use std::collections::BTreeSet;

use jvm::{
    EnvironmentNeed, ExecuteOptions, ExecutionOutcome, JvmError, Supervisor, TestResult,
    TestStatus, UnitId,
};
use search::{goal_fitness, CancelToken, ExecutionResult, ExecutionStatus, GoalId, GoalTable};
use testcase::TestCase;

use crate::cluster::{compared_values, observed_values, to_worker_test};
use crate::job::trace_mapping::TraceMapper;
use crate::job::variation::ObservedValues;

/// One test's run: the mapped result, and the worker's own result when it reported one.
#[derive(Debug, Clone)]
pub struct Run {
    pub result: ExecutionResult,
    pub worker: Option<TestResult>,
}

/// What the executor counted.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ExecutorStats {
    pub executions: u64,
    pub statements: u64,
    /// Tests the worker reported `Invalid` (a statement javac would reject).
    pub invalid: u64,
    /// The first such message, for the warning.
    pub first_invalid: Option<String>,
    /// Tests that hung the worker beyond its slack (it was killed).
    pub worker_timeouts: u64,
    /// Times the worker process died during a batch.
    pub worker_crashes: u64,
    /// Tests that ran in a class loader no earlier test used (the worker could not prove that
    /// reusing one is unobservable; each costs defining and initialising the classes again).
    pub fresh_loaders: u64,
    /// The first reason the worker gave for not keeping a test's loader.
    pub loader_dropped: Option<String>,
}

pub struct JvmExecutor<'a, 's> {
    supervisor: &'s mut Supervisor,
    unit: UnitId,
    options: ExecuteOptions,
    mapper: &'a TraceMapper<'a>,
    observed: Option<ObservedValues>,
    stats: ExecutorStats,
    /// Per branch goal, the smallest distance any execution got to it.
    closest: Vec<f64>,
    fatal: Option<JvmError>,
    abort: CancelToken,
    /// What runs needed of the environment, each with the static goals those runs covered (see
    /// [`JvmExecutor::environment`]).
    environment: Vec<(EnvironmentNeed, BTreeSet<GoalId>)>,
}

/// Distinct needs of the environment an executor keeps: a class that writes a file per call
/// with a random name would otherwise grow the list without end.
const MAX_ENVIRONMENT_NEEDS: usize = 32;

impl<'a, 's> JvmExecutor<'a, 's> {
    pub fn new(
        supervisor: &'s mut Supervisor,
        unit: UnitId,
        options: ExecuteOptions,
        mapper: &'a TraceMapper<'a>,
    ) -> JvmExecutor<'a, 's> {
        let goals = mapper.table().branch_goal_count();
        JvmExecutor {
            supervisor,
            unit,
            options,
            mapper,
            observed: None,
            stats: ExecutorStats::default(),
            closest: vec![f64::INFINITY; goals],
            fatal: None,
            abort: CancelToken::new(),
            environment: Vec::new(),
        }
    }

    /// Values the worker observes are pushed here (dynamic seeding); off by default.
    pub fn feed_observed(&mut self, observed: Option<ObservedValues>) {
        self.observed = observed;
    }

    pub fn mapper(&self) -> &'a TraceMapper<'a> {
        self.mapper
    }

    pub fn table(&self) -> &'a GoalTable {
        self.mapper.table()
    }

    pub fn stats(&self) -> &ExecutorStats {
        &self.stats
    }

    /// Cancelled when the worker failed for good: the search should stop.
    pub fn abort_token(&self) -> CancelToken {
        self.abort.clone()
    }

    pub fn take_fatal(&mut self) -> Option<JvmError> {
        self.fatal.take()
    }

    pub fn has_failed(&self) -> bool {
        self.fatal.is_some()
    }

    /// Every distinct need of the environment (by action and target) the runs so far showed,
    /// in the order first seen, with the static goals the runs that showed it covered. The line
    /// is kept only when it is in the class under test's file.
    pub fn environment(&self) -> &[(EnvironmentNeed, BTreeSet<GoalId>)] {
        &self.environment
    }

    fn note_environment(&mut self, worker: &TestResult, result: &ExecutionResult) {
        if worker.environment.is_empty() {
            return;
        }
        // `goal_fitness` reads the result as the search does; the flag is only the archive's.
        let reached: Vec<GoalId> = if result.is_ok() {
            goal_fitness(self.mapper.table(), result)
                .iter()
                .enumerate()
                .filter(|(_, f)| **f == 0.0)
                .map(|(i, _)| GoalId(i as u32))
                .collect()
        } else {
            Vec::new()
        };
        for need in &worker.environment {
            let known = self
                .environment
                .iter()
                .position(|(n, _)| n.action == need.action && n.target == need.target);
            let index = match known {
                Some(index) => index,
                None if self.environment.len() < MAX_ENVIRONMENT_NEEDS => {
                    let mut need = need.clone();
                    if need.file.as_deref() != Some(self.mapper.file_key()) {
                        need.line = None;
                    }
                    self.environment.push((need, BTreeSet::new()));
                    self.environment.len() - 1
                }
                None => continue,
            };
            let (known, goals) = &mut self.environment[index];
            if need.refused && !known.refused {
                known.refused = true;
                known.detail = need.detail.clone();
            }
            goals.extend(reached.iter().copied());
        }
    }

    /// The smallest distance seen for each branch goal (`+inf`: its decision was never reached).
    pub fn closest_distances(&self) -> &[f64] {
        &self.closest
    }

    /// Runs `tests`, optionally observing getters of the values they produce.
    pub fn run(&mut self, tests: &[TestCase], observe_getters: bool) -> Vec<Run> {
        let options = ExecuteOptions {
            observe_getters,
            ..self.options.clone()
        };
        let worker_tests: Vec<jvm::TestCase> = tests.iter().map(to_worker_test).collect();
        let mut runs: Vec<Option<Run>> = vec![None; tests.len()];
        let mut crashes = vec![0u8; tests.len()];
        let mut next = 0;
        while next < tests.len() {
            if self.fatal.is_some() {
                break;
            }
            let outcome = self
                .supervisor
                .execute(self.unit, &worker_tests[next..], &options);
            let (completed, stuck) = match outcome {
                Ok(ExecutionOutcome::Finished(results)) => (results, None),
                Ok(ExecutionOutcome::Timeout { completed }) => {
                    (completed, Some(ExecutionStatus::Timeout))
                }
                Ok(ExecutionOutcome::Crashed { completed, reason }) => {
                    tracing::debug!(%reason, "worker crashed during a batch");
                    (completed, Some(ExecutionStatus::Crashed))
                }
                Err(error) => {
                    tracing::warn!(%error, "worker failed; the search stops");
                    self.fatal = Some(error);
                    self.abort.cancel();
                    break;
                }
            };
            let done = completed.len();
            for (offset, result) in completed.into_iter().enumerate() {
                let index = next + offset;
                runs[index] = Some(self.finish(&tests[index], result));
            }
            next += done;
            match stuck {
                None => {
                    if done == 0 {
                        // A finished batch always reports every test; never spin on one that
                        // did not.
                        break;
                    }
                }
                Some(ExecutionStatus::Timeout) if next < tests.len() => {
                    self.stats.worker_timeouts += 1;
                    runs[next] = Some(self.lost(ExecutionStatus::Timeout));
                    next += 1;
                }
                Some(_) if next < tests.len() => {
                    // A crash may be the previous test's doing (a leaked thread); one retry.
                    self.stats.worker_crashes += 1;
                    crashes[next] += 1;
                    if crashes[next] >= 2 {
                        runs[next] = Some(self.lost(ExecutionStatus::Crashed));
                        next += 1;
                    }
                }
                Some(_) => {}
            }
        }
        runs.into_iter()
            .map(|run| run.unwrap_or_else(|| self.lost(ExecutionStatus::Crashed)))
            .collect()
    }

    fn finish(&mut self, test: &TestCase, worker: TestResult) -> Run {
        let result = self.mapper.map(test, &worker);
        if worker.fresh_loader {
            self.stats.fresh_loaders += 1;
        }
        if self.stats.loader_dropped.is_none() {
            self.stats.loader_dropped = worker.loader_dropped.clone();
        }
        if worker.status == TestStatus::Invalid {
            self.stats.invalid += 1;
            if self.stats.first_invalid.is_none() {
                self.stats.first_invalid = Some(format!(
                    "statement {}: {}",
                    worker.failed_at.map_or(0, |i| i + 1),
                    worker.message.as_deref().unwrap_or("invalid")
                ));
            }
        }
        if let Some(observed) = &self.observed {
            let mut values = observed.borrow_mut();
            values.observed.extend(observed_values(&worker));
            values
                .compared
                .extend(compared_values(test, &worker, self.mapper.file_key()));
        }
        self.note_environment(&worker, &result);
        self.count(&result);
        Run {
            result,
            worker: Some(worker),
        }
    }

    fn lost(&mut self, status: ExecutionStatus) -> Run {
        let result = self.mapper.lost(status);
        self.count(&result);
        Run {
            result,
            worker: None,
        }
    }

    fn count(&mut self, result: &ExecutionResult) {
        self.stats.executions += 1;
        self.stats.statements += result.executed_statements;
        if result.is_ok() {
            for (goal, closest) in self.closest.iter_mut().enumerate() {
                let d = result.branch_distance(search::GoalId(goal as u32));
                if d < *closest {
                    *closest = d;
                }
            }
        }
    }
}

impl search::Executor<TestCase> for JvmExecutor<'_, '_> {
    fn execute(&mut self, batch: &[TestCase]) -> Vec<ExecutionResult> {
        self.run(batch, false)
            .into_iter()
            .map(|run| run.result)
            .collect()
    }
}
