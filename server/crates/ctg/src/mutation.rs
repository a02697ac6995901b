//! Mutation analysis of the written suite (docs/emission.md, "Mutation analysis"): the class
//! under test is compiled once more with its mutants as schemata (`compile_instrumented_with`),
//! every final test runs once unmutated there (which lines it reaches) and once per mutant on a
//! line it reached, with the observations emission makes (getters and state probes), and each
//! mutated run is compared with the emission's run: an assertion kills a mutant when the value
//! it checks differs, a test kills it by its outcome when the mutated run throws where the
//! original did not, times out (PIT's "timed out" kill) or crashes. The mutation score is killed
//! over reached mutants.
//!
//! The analysis is bounded ([`MutationOptions::bounds`]): at most so many mutants, spread evenly
//! over the file's, and no more wall time for the mutated runs than a share of the budget (the
//! compile and the unmutated run come on top; a mutant whose tests would overrun the time left
//! is skipped for cheaper ones); what was left out is
//! counted (`not_analysed`) and said in the report. Mutated runs keep the worker's sandbox and
//! per-test deadlines, with a deadline of their own: ten times the test's unmutated run, at
//! least [`MIN_TEST_TIMEOUT`] and at most the request's.

use std::collections::{BTreeMap, BTreeSet};
use std::time::{Duration, Instant};

use jvm::{ActiveMutant, CompileRequest, ExecuteOptions, ExecutionOutcome, Supervisor, TestStatus};
use testcase::junit::{
    assertion_kills, planned_assertions, with_state_probes, AssertionId, MutantId, StateProbes,
    TestClassSpec, TestKills,
};

use crate::cluster::to_worker_test;
use crate::compile::{compile_instrumented_with, CompileError};
use crate::emit::{execution_from, NotPrintable};

/// The shortest per-test deadline of a mutated run.
pub const MIN_TEST_TIMEOUT: Duration = Duration::from_millis(200);

/// The analysis's and the slimming's time besides their mutated runs: compiles, the unmutated
/// run, the candidates' run (JsonObject: 0.1-0.4 s each, 2026-11-27).
const PHASE_OVERHEAD: Duration = Duration::from_millis(1000);

/// Whether and how much to analyse.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MutationOptions {
    /// Run the mutation analysis of the written suite (and report its score).
    pub analyse: bool,
    /// Keep per test only the assertions that kill mutants (Fraser and Zeller's assertion
    /// minimisation), up to `max_selected` besides the ones every test keeps.
    pub select_assertions: bool,
    pub max_selected: usize,
    /// At most this many mutants are run; `None`: ten per second of the class's budget, 40 to
    /// 400.
    pub max_mutants: Option<usize>,
    /// At most this much wall time goes to the analysis's mutated runs; `None`: a tenth of the
    /// class's budget, at least 0.5 s. The slimming's confirming runs get half as much.
    pub time_limit: Option<Duration>,
}

impl Default for MutationOptions {
    /// Off.
    fn default() -> Self {
        MutationOptions {
            analyse: false,
            select_assertions: false,
            max_selected: 2,
            max_mutants: None,
            time_limit: None,
        }
    }
}

impl MutationOptions {
    /// Analysis and assertion selection on, bounded by the budget.
    pub fn enabled() -> MutationOptions {
        MutationOptions {
            analyse: true,
            select_assertions: true,
            ..MutationOptions::default()
        }
    }

    /// The bounds for a class run with `budget`: mutants, and wall time of the mutated runs.
    ///
    /// The time is a tenth of the budget: every second here is one the search does not get,
    /// and at 10 s the search's share is what decides coverage (issue #19's benchmark: with a
    /// fifth for the analysis and another for the slimming, the search got 1-3 s of 10).
    pub fn bounds(&self, budget: Duration) -> (usize, Duration) {
        let seconds = budget.as_secs_f64();
        let mutants = self
            .max_mutants
            .unwrap_or(((seconds * 10.0) as usize).clamp(40, 400));
        let time = self
            .time_limit
            .unwrap_or_else(|| Duration::from_secs_f64((seconds / 10.0).max(0.5)));
        (mutants, time)
    }

    /// The bound of the slimming's confirming mutated runs (`crate::slim`): half the analysis's.
    pub fn confirm_within(&self, budget: Duration) -> Duration {
        self.bounds(budget).1 / 2
    }

    /// The most the analysis and the slimming take together, for the emission reserve
    /// ([`crate::budget::EmissionCosts::mutation_cap`]); `None` when the analysis is off.
    /// Besides the mutated runs' bounds: the two compiles of the class with its mutants (the
    /// second one reused), the unmutated run, the candidates' run, and one batch of mutated
    /// runs past each bound (a bound is checked between mutants).
    /// Never more than half the budget, whatever bound was set (a test's, of minutes, to bound
    /// the analysis by its mutant count only).
    pub fn phase_cap(&self, budget: Duration) -> Option<Duration> {
        self.analyse.then(|| {
            let runs = self.bounds(budget).1;
            (PHASE_OVERHEAD + runs + self.confirm_within(budget) + runs / 4).min(budget / 2)
        })
    }
}

/// One mutant of the class under test and what became of it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MutantRecord {
    /// Local id in the file's mutant table.
    pub id: u32,
    pub member: Option<String>,
    pub line: u32,
    /// `ror`, `neg`, `aor`, `constant`, `removed-call`, `return-value`.
    pub operator: &'static str,
    pub description: String,
    /// Whether it was run (it may be left out by the bound).
    pub analysed: bool,
    /// The final tests that reached it (indexes in the spec's tests).
    pub reached_by: Vec<usize>,
    /// Some test's mutated run timed out.
    pub timed_out: bool,
}

/// The kill matrix of a suite.
#[derive(Debug, Clone, Default)]
pub struct MutationAnalysis {
    pub mutants: Vec<MutantRecord>,
    /// Per test of the spec (same index), what it killed; mutant ids are indexes in `mutants`.
    pub kills: Vec<TestKills>,
    /// Mutants left out by the bound.
    pub not_analysed: usize,
    /// Wall time of the analysis, the compile included.
    pub time: Duration,
}

/// The mutation score of the written suite.
#[derive(Debug, Clone, PartialEq)]
pub struct MutationScore {
    /// Mutants of the class's file.
    pub mutants: usize,
    /// Analysed mutants that a written test reached.
    pub reached: usize,
    /// Of those, killed by a written test's printed assertions or its outcome.
    pub killed: usize,
    /// Of the killed ones, those whose mutated run timed out.
    pub timed_out: usize,
    /// Killed had every planned assertion of the written tests been kept.
    pub killed_all_assertions: usize,
    /// Mutants left out by the bound.
    pub not_analysed: usize,
    /// Reached mutants no written test kills: (line, operator, description), by line.
    pub survived: Vec<(u32, &'static str, String)>,
    /// Printed assertions per written test, on average.
    pub assertions_per_test: f64,
    /// The same had every planned assertion been kept.
    pub assertions_per_test_all: f64,
    pub time: Duration,
}

impl MutationScore {
    /// killed / reached, 1.0 with nothing reached.
    pub fn score(&self) -> f64 {
        ratio(self.killed, self.reached)
    }

    pub fn score_all_assertions(&self) -> f64 {
        ratio(self.killed_all_assertions, self.reached)
    }

    /// `mutation score 0.82 (41/50 reached mutants killed)` and the bound when it applied.
    pub fn summary(&self) -> String {
        let mut s = format!(
            "mutation score {:.2} ({}/{} reached mutants killed",
            self.score(),
            self.killed,
            self.reached
        );
        if self.not_analysed > 0 {
            s.push_str(&format!(
                "; {} of {} mutants not run within the budget",
                self.not_analysed, self.mutants
            ));
        }
        s.push(')');
        s
    }
}

fn ratio(a: usize, b: usize) -> f64 {
    if b == 0 {
        1.0
    } else {
        a as f64 / b as f64
    }
}

#[derive(Debug, thiserror::Error)]
pub enum MutationError {
    #[error("the mutants of {class} did not compile: {error}")]
    Compile {
        class: String,
        #[source]
        error: CompileError,
    },
    #[error("the mutation analysis of {class} failed in the worker: {error}")]
    Jvm {
        class: String,
        #[source]
        error: jvm::JvmError,
    },
}

/// Runs the mutation analysis of `spec`'s tests (see the module doc). `request` compiles the
/// project as emission did; `execute` are emission's execute options.
/// `bounds` are [`MutationOptions::bounds`]: at most so many mutants, so much wall time.
pub fn analyse(
    supervisor: &mut Supervisor,
    request: &CompileRequest,
    spec: &TestClassSpec,
    execute: &ExecuteOptions,
    bounds: (usize, Duration),
) -> Result<MutationAnalysis, MutationError> {
    let started = Instant::now();
    let class = &spec.class_under_test;
    let compiled =
        compile_instrumented_with(supervisor, request, std::slice::from_ref(class), true).map_err(
            |error| MutationError::Compile {
                class: class.clone(),
                error,
            },
        )?;
    let unit = compiled.unit;
    let compile_took = started.elapsed();
    let result = run_mutants(supervisor, unit, &compiled, spec, execute, bounds);
    tracing::debug!(
        "{class}: mutation analysis: compile {compile_took:?}, runs {:?}",
        started.elapsed() - compile_took
    );
    supervisor.release(unit);
    let jvm = |error| MutationError::Jvm {
        class: class.clone(),
        error,
    };
    let mut analysis = result.map_err(jvm)?;
    analysis.time = started.elapsed();
    Ok(analysis)
}

fn run_mutants(
    supervisor: &mut Supervisor,
    unit: jvm::UnitId,
    compiled: &crate::compile::CompiledUnit,
    spec: &TestClassSpec,
    execute: &ExecuteOptions,
    (max_mutants, time_limit): (usize, Duration),
) -> Result<MutationAnalysis, jvm::JvmError> {
    let Some(file) = class_file(compiled, &spec.class_under_test) else {
        return Ok(MutationAnalysis::default());
    };
    let key = file.probes.key.clone();
    let probed: Vec<StateProbes> = spec
        .tests
        .iter()
        .map(|t| with_state_probes(&t.test))
        .collect();
    let worker_tests: Vec<jvm::TestCase> =
        probed.iter().map(|p| to_worker_test(p.test())).collect();
    let observe = ExecuteOptions {
        observe_getters: true,
        mutant: None,
        ..execute.clone()
    };
    // The unmutated run: which lines each test reaches, and how long it takes.
    let baseline_started = Instant::now();
    let baseline = match supervisor.execute(unit, &worker_tests, &observe)? {
        ExecutionOutcome::Finished(r) => r,
        ExecutionOutcome::Timeout { completed } | ExecutionOutcome::Crashed { completed, .. } => {
            completed
        }
    };
    let durations: Vec<Duration> = baseline.iter().map(|r| r.duration).collect();
    // What a test costs in a batch besides its own run (the request, a fresh thread and class
    // loader, the observations): the batch's wall time over its tests' runs, shared evenly.
    let overhead = baseline_started
        .elapsed()
        .saturating_sub(durations.iter().sum())
        / u32::try_from(durations.len().max(1)).unwrap_or(u32::MAX);
    let lines: Vec<BTreeSet<u32>> = baseline
        .iter()
        .map(|r| {
            r.trace
                .files
                .iter()
                .filter(|f| f.key == key)
                .flat_map(|f| f.lines.iter().map(|(line, _)| *line))
                .collect()
        })
        .collect();
    // The worker observes getters with the probes paused, so their lines are not in the trace;
    // a test whose getters are asserted runs them, though: a mutant in a method without
    // parameters counts as reached by every test that observed getters.
    let observes_getters: Vec<bool> = spec
        .tests
        .iter()
        .map(|t| {
            !t.execution.final_state.is_empty()
                || t.execution
                    .results
                    .iter()
                    .flatten()
                    .any(|o| !o.getters.is_empty())
        })
        .collect();
    let in_getter = |m: &javamodel::instrument::MutantProbe| {
        m.member.as_deref().is_some_and(|k| k.ends_with("()"))
    };
    let mut mutants: Vec<MutantRecord> = file
        .probes
        .mutants
        .iter()
        .enumerate()
        .map(|(id, m)| MutantRecord {
            id: id as u32,
            member: m.member.clone(),
            line: m.line,
            operator: m.operator.as_str(),
            description: m.description.clone(),
            analysed: false,
            reached_by: (0..lines.len())
                .filter(|&t| lines[t].contains(&m.line) || (observes_getters[t] && in_getter(m)))
                .collect(),
            timed_out: false,
        })
        .collect();
    let mut kills: Vec<TestKills> = vec![TestKills::default(); spec.tests.len()];
    let reached: Vec<usize> = (0..mutants.len())
        .filter(|&m| !mutants[m].reached_by.is_empty())
        .collect();
    // Spread evenly over the file when bounded, so that every method keeps some mutants.
    let chosen: Vec<usize> = if reached.len() <= max_mutants {
        reached.clone()
    } else {
        (0..max_mutants)
            .map(|k| reached[k * reached.len() / max_mutants])
            .collect()
    };
    let mut not_analysed = reached.len() - chosen.len();
    // The bound is on the mutated runs: the compile and the unmutated run are paid once.
    let runs_started = Instant::now();
    tracing::debug!(
        "mutation analysis: baseline of {} tests {:?} ({overhead:?} a test besides); {} mutants \
         reached, {} chosen, {} test runs",
        worker_tests.len(),
        durations.iter().sum::<Duration>(),
        reached.len(),
        chosen.len(),
        chosen
            .iter()
            .map(|&m| mutants[m].reached_by.len())
            .sum::<usize>()
    );
    let batch = MutantBatch {
        unit,
        key: &key,
        spec,
        worker_tests: &worker_tests,
        probed: &probed,
        durations: &durations,
        observe: &observe,
        timeout: execute.timeout_per_test,
    };
    for (done, &m) in chosen.iter().enumerate() {
        let left = time_limit.saturating_sub(runs_started.elapsed());
        if left.is_zero() {
            not_analysed += chosen.len() - done;
            break;
        }
        let tests = mutants[m].reached_by.clone();
        // A batch cannot be stopped once sent: one whose unmutated runs alone take longer than
        // the time left is skipped, and cheaper mutants after it still run. Where every test
        // needs a fresh class loader (commons-csv's `CSVFormat`, 34 ms a test), a mutant in
        // the constructor reached by all 55 tests took the whole bound and more, and the
        // analysis ran one mutant.
        let cost: Duration = tests
            .iter()
            .filter_map(|&t| durations.get(t))
            .map(|&d| d + overhead)
            .sum();
        if cost > left {
            not_analysed += 1;
            continue;
        }
        mutants[m].timed_out |= batch.run(supervisor, m as MutantId, &tests, &mut kills)?;
        mutants[m].analysed = true;
    }
    Ok(MutationAnalysis {
        mutants,
        kills,
        not_analysed,
        time: Duration::ZERO,
    })
}

/// The instrumented file of `class` (a binary name) in `compiled`.
pub(crate) fn class_file<'a>(
    compiled: &'a crate::compile::CompiledUnit,
    class: &str,
) -> Option<&'a crate::compile::InstrumentedFile> {
    let top = class.split('$').next().unwrap_or(class);
    compiled
        .files
        .iter()
        .find(|f| f.classes.iter().any(|c| c == top))
}

/// The tests of a spec, ready to run against the mutants of one compiled unit.
pub(crate) struct MutantBatch<'a> {
    pub unit: jvm::UnitId,
    /// The key of the class's file in the traces and the mutant requests.
    pub key: &'a str,
    pub spec: &'a TestClassSpec,
    /// The spec's tests with state probes, as the worker runs them.
    pub worker_tests: &'a [jvm::TestCase],
    pub probed: &'a [StateProbes],
    /// Each test's unmutated run time.
    pub durations: &'a [Duration],
    /// Execute options with getters observed and no mutant.
    pub observe: &'a ExecuteOptions,
    /// The request's per-test deadline.
    pub timeout: Duration,
}

impl MutantBatch<'_> {
    /// Runs `tests` (spec indexes) with mutant `id` switched on and adds what each kills to
    /// `kills` (indexed like the spec's tests); returns whether a mutated run timed out. The
    /// deadline of each run is ten times the longest unmutated one, within [`MIN_TEST_TIMEOUT`]
    /// and the request's.
    pub fn run(
        &self,
        supervisor: &mut Supervisor,
        id: MutantId,
        tests: &[usize],
        kills: &mut [TestKills],
    ) -> Result<bool, jvm::JvmError> {
        let longest = tests
            .iter()
            .filter_map(|&t| self.durations.get(t).copied())
            .max()
            .unwrap_or_default();
        let mutated_options = ExecuteOptions {
            timeout_per_test: (longest * 10)
                .clamp(MIN_TEST_TIMEOUT, self.timeout.max(MIN_TEST_TIMEOUT)),
            mutant: Some(ActiveMutant {
                key: self.key.to_string(),
                id,
            }),
            ..self.observe.clone()
        };
        let batch: Vec<jvm::TestCase> = tests
            .iter()
            .map(|&t| self.worker_tests[t].clone())
            .collect();
        let (results, hung) = match supervisor.execute(self.unit, &batch, &mutated_options)? {
            ExecutionOutcome::Finished(r) => (r, false),
            ExecutionOutcome::Timeout { completed } => (completed, true),
            ExecutionOutcome::Crashed { completed, .. } => (completed, false),
        };
        let mut timed_out = false;
        for (k, &t) in tests.iter().enumerate() {
            kills[t].reached.insert(id);
            let Some(result) = results.get(k) else {
                // The batch stopped at this test: it hung or crashed the worker under the
                // mutant, which fails it; the tests after it are not known.
                if k == results.len() {
                    kills[t].by_outcome.insert(id);
                    timed_out |= hung;
                }
                continue;
            };
            let original = &self.spec.tests[t];
            match execution_from(result, &self.probed[t]) {
                Ok(execution) => {
                    if original.execution.thrown.is_none() && execution.thrown.is_some() {
                        kills[t].by_outcome.insert(id);
                        continue;
                    }
                    for assertion in assertion_kills(t, original, &execution, &self.spec.facts) {
                        kills[t]
                            .by_assertion
                            .entry(assertion)
                            .or_default()
                            .insert(id);
                    }
                }
                Err(NotPrintable::Ended(status)) => {
                    kills[t].by_outcome.insert(id);
                    timed_out |= status == TestStatus::Timeout;
                }
                // An invalid statement is the test's, not the mutant's: no kill.
                Err(_) => {}
            }
        }
        Ok(timed_out)
    }
}

/// The score of the written suite: the tests `printed` (spec indexes) with the assertions each
/// kept (`kept[test]`), against the score had every planned assertion of those tests been kept.
pub fn score(
    analysis: &MutationAnalysis,
    spec: &TestClassSpec,
    kept: &BTreeMap<usize, BTreeSet<AssertionId>>,
) -> MutationScore {
    let mut reached = BTreeSet::new();
    let mut killed = BTreeSet::new();
    let mut killed_all = BTreeSet::new();
    let mut all_assertions = 0;
    let mut kept_assertions = 0;
    for (&test, assertions) in kept {
        let Some(kills) = analysis.kills.get(test) else {
            continue;
        };
        let all: BTreeSet<AssertionId> = planned_assertions(test, &spec.tests[test], &spec.facts)
            .into_iter()
            .map(|(id, _)| id)
            .collect();
        all_assertions += all.len();
        kept_assertions += assertions.len();
        reached.extend(kills.reached.iter().copied());
        killed.extend(kills.killed_with(assertions));
        killed_all.extend(kills.killed_with(&all));
    }
    let timed_out = killed
        .iter()
        .filter(|&&m| analysis.mutants[m as usize].timed_out)
        .count();
    let tests = kept.len().max(1) as f64;
    let mut survived: Vec<(u32, &'static str, String)> = reached
        .difference(&killed)
        .map(|&m| {
            let r = &analysis.mutants[m as usize];
            (r.line, r.operator, r.description.clone())
        })
        .collect();
    survived.sort();
    MutationScore {
        mutants: analysis.mutants.len(),
        reached: reached.len(),
        killed: killed.len(),
        timed_out,
        killed_all_assertions: killed_all.len(),
        not_analysed: analysis.not_analysed,
        survived,
        assertions_per_test: kept_assertions as f64 / tests,
        assertions_per_test_all: all_assertions as f64 / tests,
        time: analysis.time,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn secs(s: f64) -> Duration {
        Duration::from_secs_f64(s)
    }

    #[test]
    fn the_bounds_are_a_tenth_of_the_budget_and_half_that_for_the_slimming() {
        let on = MutationOptions::enabled();
        assert_eq!(on.bounds(secs(10.0)), (100, secs(1.0)));
        assert_eq!(on.bounds(secs(60.0)), (400, secs(6.0)));
        assert_eq!(on.bounds(secs(2.0)), (40, secs(0.5)), "the floors");
        assert_eq!(on.confirm_within(secs(10.0)), secs(0.5));
        // 10 s: 1 s of overhead, 1 s and 0.5 s of mutated runs, a quarter of 1 s past them.
        assert_eq!(on.phase_cap(secs(10.0)), Some(secs(2.75)));
        assert_eq!(MutationOptions::default().phase_cap(secs(10.0)), None);
        let long = MutationOptions {
            time_limit: Some(secs(120.0)),
            ..MutationOptions::enabled()
        };
        assert_eq!(
            long.phase_cap(secs(25.0)),
            Some(secs(12.5)),
            "half the budget"
        );
    }
}
