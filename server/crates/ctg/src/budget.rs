//! How the user's budget is shared between the generation job and what follows it: the time
//! emission and JUnit verification will take, estimated from the size of the suite and from
//! what earlier emissions cost on this machine, and the search's stopping condition that keeps
//! that time free (`docs/emission.md`, "The budget").
//!
//! The estimate for a suite of `n` tests is
//!
//! ```text
//! worker(n) + min(mutation(n), mutation_cap) + javac_rounds × javac(n)
//!     + junit_rounds × junit(n) + perturbed_rounds × perturbed(n)
//!     each part = scale × (fixed + per_test × n)
//! ```
//!
//! where `worker` is the emission work in the worker (compiling the original classes, writing
//! them out for javac, describing, observing every test twice), `mutation` the mutation
//! analysis of the suite and the slimming after it (`crate::mutation`, `crate::slim`; only when
//! the analysis is on, and never more than its bounds allow), `javac` compiles the test class
//! and `junit` is a round's two JUnit JVMs (forward and reversed), which run at the same time.
//! Rounds are counted apart because a round whose test class
//! javac rejects runs no JUnit. `perturbed` is the perturbed re-execution of a round that
//! passed in both orders (three JVMs at once, `verify::perturb`), plus the attribution runs
//! when one of them fails. The fixed and per-test figures are reference costs measured on
//! our 2-core machine (`docs/benchmarks.md`); every emission measures the parts again and moves
//! their `scale` and the expected rounds halfway towards what it saw, so a loaded machine, a
//! slow project or a class whose suites need stabilising reserve more on the next run.

mod saved;

use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use search::{Progress, StopReason, StoppingCondition};

use crate::verify::VerifiedSuite;

/// A fixed cost plus a cost per test, both scaled by what was measured.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PartCost {
    pub fixed: Duration,
    pub per_test: Duration,
    /// Measured cost over reference cost, 1 until something was measured.
    pub scale: f64,
}

impl PartCost {
    const fn reference(fixed_ms: u64, per_test_ms: u64) -> PartCost {
        PartCost {
            fixed: Duration::from_millis(fixed_ms),
            per_test: Duration::from_millis(per_test_ms),
            scale: 1.0,
        }
    }

    fn unscaled(&self, tests: usize) -> Duration {
        self.fixed + self.per_test * u32::try_from(tests).unwrap_or(u32::MAX)
    }

    pub fn estimate(&self, tests: usize) -> Duration {
        self.unscaled(tests).mul_f64(self.scale)
    }

    /// Moves the scale halfway towards measured over reference time of `runs` (tests, time
    /// taken) together. Observations of zero length (nothing ran) teach nothing.
    fn learn(&mut self, runs: impl IntoIterator<Item = (usize, Duration)>) {
        let (mut took, mut reference) = (0.0, 0.0);
        for (tests, time) in runs {
            took += time.as_secs_f64();
            reference += self.unscaled(tests).as_secs_f64();
        }
        if took == 0.0 || reference == 0.0 {
            return;
        }
        let observed = (took / reference).clamp(MIN_SCALE, MAX_SCALE);
        self.scale = (self.scale + observed) / 2.0;
    }
}

/// Bounds on a part's scale, so one freak measurement (a machine paused, a cached no-op)
/// cannot make the next reserve absurd.
const MIN_SCALE: f64 = 0.25;
const MAX_SCALE: f64 = 8.0;

/// What emitting and verifying a suite costs, and how many verification rounds to expect.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct EmissionCosts {
    /// Emission in the worker and the pipeline's own work (compile, write the class files,
    /// describe, observe each test twice, print).
    pub worker: PartCost,
    /// The mutation analysis and the slimming (compiles, the unmutated and the mutated runs,
    /// the candidates' runs and the confirming mutated runs).
    pub mutation: PartCost,
    /// The most the mutation analysis and the slimming can take under their bounds
    /// ([`crate::mutation::MutationOptions::phase_cap`]); `None`: the analysis is off and
    /// nothing is reserved for it. Set per run, never saved.
    pub mutation_cap: Option<Duration>,
    /// One javac run of the test class: a JVM start, javac's warm-up, then per test.
    pub javac: PartCost,
    /// A round's two JUnit JVMs, forward and reversed, run at the same time: start and the
    /// launcher's discovery, then per test.
    pub junit: PartCost,
    /// javac runs of the test class to expect (one per verification round).
    pub javac_rounds: f64,
    /// Rounds that reach JUnit to expect (two JUnit runs each, at once: forward and reversed).
    pub junit_rounds: f64,
    /// The perturbed runs of a round that passed both orders (three JVMs at once, and the
    /// attribution runs after a failure).
    pub perturbed: PartCost,
    /// Rounds with perturbed runs to expect: one, and one more after each round in which a
    /// perturbation removed something.
    pub perturbed_rounds: f64,
}

impl Default for EmissionCosts {
    /// Reference costs on our 2-core machine under a load of about 2 (`docs/benchmarks.md`,
    /// "The budget", 2026-11-22: javac 0.8–1.0 s and a JUnit JVM 0.6–0.8 s for 38–123 tests,
    /// the worker's part 0.4–0.6 s), with about 20 % margin; two JUnit JVMs at once take about
    /// 1.3 times one ("Start-up archives", session 5). They serve a project's first run on a
    /// machine; later runs, in the same session or (through the saved ledger, `saved.rs`) a
    /// later one, scale them by what they measured.
    fn default() -> Self {
        EmissionCosts {
            worker: PartCost::reference(500, 3),
            // JsonObject's 33 tests after this session's compile memo and parked worker: the
            // analysis's and the slimming's compiles 0.1-0.4 s each, 145 mutated runs in
            // 2.2 s at load 10 (a debug build, 2026-11-27).
            mutation: PartCost::reference(500, 30),
            mutation_cap: None,
            javac: PartCost::reference(900, 4),
            junit: PartCost::reference(900, 4),
            javac_rounds: 1.25,
            junit_rounds: 1.25,
            // Three JVMs at once on two cores (docs/benchmarks.md, "Perturbed re-execution").
            perturbed: PartCost::reference(1500, 6),
            perturbed_rounds: 1.1,
        }
    }
}

impl EmissionCosts {
    /// Expected wall time of emission and verification for a suite of `tests` tests.
    pub fn estimate(&self, tests: usize) -> Duration {
        let mutation = self
            .mutation_cap
            .map_or(Duration::ZERO, |cap| self.mutation.estimate(tests).min(cap));
        self.worker.estimate(tests)
            + mutation
            + self
                .javac
                .estimate(tests)
                .mul_f64(self.javac_rounds.max(1.0))
            + self
                .junit
                .estimate(tests)
                .mul_f64(self.junit_rounds.max(1.0))
            + self
                .perturbed
                .estimate(tests)
                .mul_f64(self.perturbed_rounds)
    }

    /// Learns from one emission: `total` is the pipeline's time from the end of the job to the
    /// end of verification, `mutation` the part of it the mutation analysis and the slimming
    /// took (`None` when the analysis did not run), `suite` what verification reported (`None`
    /// when JUnit did not run, in which case only the worker's part and the mutation's are
    /// learnt).
    pub fn learn(
        &mut self,
        tests: usize,
        total: Duration,
        mutation: Option<Duration>,
        suite: Option<&VerifiedSuite>,
    ) {
        let total = match mutation {
            Some(took) => {
                self.mutation.learn([(tests, took)]);
                total.saturating_sub(took)
            }
            None => total,
        };
        let Some(suite) = suite.filter(|s| s.rounds > 0 && !s.runs.is_empty()) else {
            self.worker.learn([(tests, total)]);
            return;
        };
        let compiled: Duration = suite.compiles.iter().map(|c| c.duration).sum();
        // A round's pair of runs (forward, reversed) ran at once: the round took the longer.
        let rounds: Vec<(usize, Duration)> = suite
            .runs
            .chunks(2)
            .map(|pair| {
                let tests = pair.iter().map(|r| r.executed.len()).max().unwrap_or(0);
                let took = pair.iter().map(|r| r.duration).max().unwrap_or_default();
                (tests, took)
            })
            .collect();
        let perturbed: Vec<(usize, Duration)> = suite
            .perturbed
            .iter()
            .map(|stage| (stage.tests, stage.duration))
            .collect();
        let ran: Duration = rounds.iter().map(|(_, took)| *took).sum::<Duration>()
            + perturbed.iter().map(|(_, took)| *took).sum::<Duration>();
        if !perturbed.is_empty() {
            self.perturbed_rounds = (self.perturbed_rounds + perturbed.len() as f64) / 2.0;
        }
        self.perturbed.learn(perturbed);
        self.javac
            .learn(suite.compiles.iter().map(|c| (c.tests, c.duration)));
        self.junit.learn(rounds);
        self.worker
            .learn([(tests, total.saturating_sub(compiled + ran))]);
        self.javac_rounds = (self.javac_rounds + suite.compiles.len() as f64) / 2.0;
        self.junit_rounds = (self.junit_rounds + suite.runs.len() as f64 / 2.0) / 2.0;
    }
}

pub use saved::costs_path;

/// [`EmissionCosts`] shared by the runs of a session (one CLI invocation, one project in the
/// editor); clones share it. A persistent ledger starts from what earlier sessions learnt for
/// the project on this machine and saves what it learns (`budget/saved.rs`).
#[derive(Debug, Clone, Default)]
pub struct CostLedger(Arc<Mutex<Ledger>>);

#[derive(Debug, Default)]
struct Ledger {
    costs: EmissionCosts,
    /// Where the costs are kept between sessions, for a persistent ledger.
    saved_at: Option<PathBuf>,
}

impl CostLedger {
    /// A ledger kept at `path` (see [`costs_path`]): it starts from the costs saved there, if
    /// any are usable, and saves the costs again after each emission it learns from.
    pub fn persistent(path: PathBuf) -> CostLedger {
        let costs = saved::load(&path).unwrap_or_default();
        CostLedger(Arc::new(Mutex::new(Ledger {
            costs,
            saved_at: Some(path),
        })))
    }

    fn ledger(&self) -> std::sync::MutexGuard<'_, Ledger> {
        self.0
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    pub fn costs(&self) -> EmissionCosts {
        self.ledger().costs
    }

    pub fn learn(
        &self,
        tests: usize,
        total: Duration,
        mutation: Option<Duration>,
        suite: Option<&VerifiedSuite>,
    ) {
        let mut ledger = self.ledger();
        ledger.costs.learn(tests, total, mutation, suite);
        if let Some(path) = &ledger.saved_at {
            saved::save(path, &ledger.costs);
        }
    }
}

/// What the job keeps for emission and verification.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum EmissionReserve {
    /// Nothing: the caller does not emit (the job alone, in tests and the search benchmark).
    None,
    /// The estimate of these costs for the suite found so far.
    Estimated(EmissionCosts),
}

impl EmissionReserve {
    pub fn for_tests(&self, tests: usize) -> Duration {
        match self {
            EmissionReserve::None => Duration::ZERO,
            EmissionReserve::Estimated(costs) => costs.estimate(tests),
        }
    }
}

/// The least share of the budget the search gets, whatever the estimate: when set-up and
/// emission alone exceed the budget the run is late anyway, and a search that stops at once
/// would be late with nothing to show.
pub const MIN_SEARCH_SHARE: f64 = 0.1;

/// The least share of the budget minimisation gets, whatever the estimate: when the search's
/// own floor or a slow set-up left no time before the emission reserve, an unminimised suite
/// (tests of dozens of statements, most of them irrelevant) is worse than a run a little over
/// its budget. EvoSuite gives minimisation a timeout of its own beside the search budget; here
/// it is a floor inside the job's.
pub const MIN_MINIMISATION_SHARE: f64 = 0.1;

/// The search's share of the job's time: it stops when the time left until the end of the
/// budget reaches the estimate of emitting the archive's tests, less the minimisation share of
/// the time after the search. `available` is the time from the search's start to the end of
/// the budget; the search's clock starts with it.
#[derive(Debug, Clone, Copy)]
pub struct SearchBudget {
    pub available: Duration,
    pub reserve: EmissionReserve,
    /// Share of the time between the search's start and the reserve that goes to minimisation
    /// and the final run.
    pub minimisation_share: f64,
    /// The floor ([`MIN_SEARCH_SHARE`] of the user's budget).
    pub minimum: Duration,
}

impl SearchBudget {
    /// When the search must stop, with `tests` tests archived.
    pub fn stop_at(&self, tests: usize) -> Duration {
        self.available
            .saturating_sub(self.reserve.for_tests(tests))
            .mul_f64(1.0 - self.minimisation_share)
            .max(self.minimum)
    }
}

impl StoppingCondition for SearchBudget {
    fn should_stop(&mut self, progress: &Progress) -> bool {
        progress.elapsed >= self.stop_at(progress.archived_tests)
    }

    fn reason(&self) -> StopReason {
        StopReason::TimeBudget
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::verify::{CompileRun, RunOrder, RunReport};

    fn secs(s: f64) -> Duration {
        Duration::from_secs_f64(s)
    }

    fn costs() -> EmissionCosts {
        EmissionCosts {
            worker: PartCost::reference(500, 10),
            mutation: PartCost::reference(1000, 20),
            mutation_cap: None,
            javac: PartCost::reference(1000, 10),
            junit: PartCost::reference(500, 5),
            javac_rounds: 1.0,
            junit_rounds: 1.0,
            perturbed: PartCost::reference(1000, 10),
            perturbed_rounds: 0.0,
        }
    }

    #[test]
    fn estimate_is_worker_plus_rounds_of_javac_and_junit_pairs() {
        let mut c = costs();
        // 100 tests: worker 0.5 + 1.0; javac 1.0 + 1.0; a pair of junit runs 0.5 + 0.5.
        assert_eq!(c.estimate(100), secs(1.5 + 2.0 + 1.0));
        c.javac_rounds = 2.0;
        assert_eq!(c.estimate(100), secs(1.5 + 2.0 * 2.0 + 1.0));
        c.junit_rounds = 2.0;
        assert_eq!(c.estimate(100), secs(1.5 + 2.0 * 2.0 + 2.0 * 1.0));
        assert!(
            c.estimate(10) < c.estimate(100),
            "a bigger suite costs more"
        );
    }

    /// A verification of `rounds` rounds whose javac runs took `compile` seconds each, with
    /// these JUnit runs (tests, seconds).
    fn suite(rounds: u32, compile: f64, runs: &[(usize, f64)]) -> VerifiedSuite {
        VerifiedSuite {
            source: String::new(),
            kept: Vec::new(),
            kept_tests: Vec::new(),
            printed: Vec::new(),
            dropped: Vec::new(),
            runs: runs
                .iter()
                .map(|&(tests, took)| RunReport {
                    round: 1,
                    order: RunOrder::Forward,
                    executed: (0..tests).map(|i| format!("t{i}")).collect(),
                    failures: Vec::new(),
                    timed_out: None,
                    duration: secs(took),
                    sandbox: jvm::SandboxReport::OFF,
                    perturbation: None,
                    state_changes: Vec::new(),
                })
                .collect(),
            perturbed: Vec::new(),
            clock_shifted: false,
            rounds,
            compiles: (0..rounds)
                .map(|_| CompileRun {
                    tests: runs[0].0,
                    duration: secs(compile),
                })
                .collect(),
            deadline_round: None,
        }
    }

    #[test]
    fn learning_moves_each_part_halfway_to_what_was_measured() {
        let mut c = costs();
        // javac took 3 × its reference (2 s for 100 tests) in each of 3 rounds, of which only
        // the last reached JUnit; its pair of JUnit runs took 2 × (the longer run counts, as
        // they ran at once), the worker exactly its reference.
        let verified = suite(3, 6.0, &[(100, 2.0), (100, 1.5)]);
        c.learn(100, secs(1.5 + 3.0 * 6.0 + 2.0), None, Some(&verified));
        assert!((c.javac.scale - 2.0).abs() < 1e-9, "{c:?}");
        assert!((c.junit.scale - 1.5).abs() < 1e-9, "{c:?}");
        assert!((c.worker.scale - 1.0).abs() < 1e-9, "{c:?}");
        assert!((c.javac_rounds - 2.0).abs() < 1e-9, "{c:?}");
        assert!((c.junit_rounds - 1.0).abs() < 1e-9, "{c:?}");
        assert!(c.estimate(100) > costs().estimate(100));
    }

    #[test]
    fn perturbed_runs_are_estimated_and_learnt_apart() {
        let mut c = costs();
        c.perturbed_rounds = 1.0;
        // 100 tests: the perturbed stage's reference is 1.0 + 1.0 s.
        assert_eq!(c.estimate(100), secs(1.5 + 2.0 + 1.0 + 2.0));
        let mut verified = suite(1, 2.0, &[(100, 1.0), (100, 1.0)]);
        // Two perturbed stages (a perturbation removed something, the next round confirmed),
        // each twice its reference.
        verified.perturbed = (1..=2)
            .map(|round| crate::verify::PerturbedRound {
                round,
                tests: 100,
                combined: Vec::new(),
                attribution: Vec::new(),
                duration: secs(4.0),
                causes: Default::default(),
            })
            .collect();
        c.learn(100, secs(1.5 + 2.0 + 1.0 + 8.0), None, Some(&verified));
        assert!((c.perturbed.scale - 1.5).abs() < 1e-9, "{c:?}");
        assert!((c.perturbed_rounds - 1.5).abs() < 1e-9, "{c:?}");
        assert!(
            (c.worker.scale - 1.0).abs() < 1e-9,
            "the perturbed time is not the worker's: {c:?}"
        );
    }

    #[test]
    fn the_mutation_phase_is_reserved_within_its_cap_and_learnt_apart() {
        let mut c = costs();
        // Off: nothing reserved for it.
        assert_eq!(c.estimate(100), secs(1.5 + 2.0 + 1.0));
        // On: 100 tests, 1.0 + 2.0 s, under a cap of 5 s; then capped at 2 s.
        c.mutation_cap = Some(secs(5.0));
        assert_eq!(c.estimate(100), secs(1.5 + 3.0 + 2.0 + 1.0));
        c.mutation_cap = Some(secs(2.0));
        assert_eq!(c.estimate(100), secs(1.5 + 2.0 + 2.0 + 1.0));
        // The analysis took twice its reference (6 s), the worker exactly its own: only the
        // mutation part moves (halfway: 1.5), the worker's is not charged for the analysis.
        let verified = suite(1, 2.0, &[(100, 1.0), (100, 1.0)]);
        c.learn(
            100,
            secs(1.5 + 6.0 + 2.0 + 1.0),
            Some(secs(6.0)),
            Some(&verified),
        );
        assert!((c.mutation.scale - 1.5).abs() < 1e-9, "{c:?}");
        assert!((c.worker.scale - 1.0).abs() < 1e-9, "{c:?}");
        // Without JUnit too.
        let mut c = costs();
        c.learn(100, secs(1.5 + 6.0), Some(secs(6.0)), None);
        assert!((c.mutation.scale - 1.5).abs() < 1e-9, "{c:?}");
        assert!((c.worker.scale - 1.0).abs() < 1e-9, "{c:?}");
    }

    #[test]
    fn learning_is_bounded_and_ignores_empty_measurements() {
        let mut c = costs();
        c.learn(10, Duration::ZERO, None, None);
        assert_eq!(c, costs(), "nothing measured, nothing learnt");
        for _ in 0..20 {
            c.learn(10, secs(1000.0), None, None);
        }
        assert!(c.worker.scale <= MAX_SCALE);
        assert_eq!(
            c.javac,
            costs().javac,
            "without JUnit only the worker part moves"
        );
    }

    #[test]
    fn the_ledger_is_shared_by_its_clones() {
        let ledger = CostLedger::default();
        let clone = ledger.clone();
        clone.learn(10, secs(100.0), None, None);
        assert!(ledger.costs().worker.scale > 1.0);
    }

    #[test]
    fn a_persistent_ledger_starts_where_the_last_session_ended() {
        let dir = std::env::temp_dir().join(format!("ctgls-ledger-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let path = costs_path(&dir, std::path::Path::new("/a/project"));
        let first = CostLedger::persistent(path.clone());
        assert_eq!(first.costs(), EmissionCosts::default(), "a first session");
        // A slow machine: the worker's part took far longer than its reference.
        first.learn(10, secs(20.0), None, None);
        let learnt = first.costs();
        assert!(learnt.worker.scale > 1.0, "{learnt:?}");
        let next = CostLedger::persistent(path);
        assert_eq!(
            next.costs(),
            learnt,
            "the next session reserves what was learnt"
        );
        assert!(next.costs().estimate(10) > EmissionCosts::default().estimate(10));
        let _ = std::fs::remove_dir_all(&dir);
    }

    fn progress(elapsed: f64, archived_tests: usize) -> Progress {
        Progress {
            elapsed: secs(elapsed),
            executions: 0,
            executed_statements: 0,
            generations: 0,
            coverage: Vec::new(),
            targets: 0,
            secondary_heuristic: None,
            archived_tests,
        }
    }

    #[test]
    fn the_search_stops_when_the_time_left_reaches_the_estimate_for_its_archive() {
        let c = costs();
        let mut budget = SearchBudget {
            available: secs(10.0),
            reserve: EmissionReserve::Estimated(c),
            minimisation_share: 0.0,
            minimum: secs(1.0),
        };
        // 10 tests: 0.6 + 1.1 + 0.55 = 2.25 s reserved, the search stops at 7.75 s.
        assert_eq!(budget.stop_at(10), secs(10.0) - c.estimate(10));
        assert!(!budget.should_stop(&progress(7.7, 10)));
        assert!(budget.should_stop(&progress(7.76, 10)));
        // The same moment with a bigger archive is past its (earlier) stop.
        assert!(budget.should_stop(&progress(5.5, 200)));
        assert_eq!(budget.reason(), StopReason::TimeBudget);
    }

    #[test]
    fn the_search_keeps_its_minimisation_share_and_its_floor() {
        let budget = SearchBudget {
            available: secs(10.0),
            reserve: EmissionReserve::None,
            minimisation_share: 0.25,
            minimum: secs(1.0),
        };
        assert_eq!(budget.stop_at(1000), secs(7.5));
        let tight = SearchBudget {
            available: secs(2.0),
            reserve: EmissionReserve::Estimated(costs()),
            ..budget
        };
        assert_eq!(
            tight.stop_at(50),
            secs(1.0),
            "the estimate exceeds what is left"
        );
    }
}
