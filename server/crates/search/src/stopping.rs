//! Stopping conditions, observers of the search's progress asked after every batch of
//! executions: a wall-clock budget, a number of executions, all goals covered, and cancellation
//! (which is just another stopping condition, STYLE habit 3). The clock is injected so that
//! budgets are deterministic under test.
//!
//! Conditions are asked after every executor call, not after every single execution, so a
//! budget can be overshot by up to one batch (one offspring population for the MOSA family,
//! the changed tests of two suites for the whole-suite GA): batches are what make execution in
//! the worker cheap.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::progress::Progress;

/// A monotonic clock.
pub trait Clock {
    /// Time since an arbitrary fixed origin.
    fn now(&self) -> Duration;
}

/// The real clock.
#[derive(Debug, Clone, Copy)]
pub struct SystemClock {
    origin: Instant,
}

impl SystemClock {
    pub fn new() -> SystemClock {
        SystemClock {
            origin: Instant::now(),
        }
    }
}

impl Default for SystemClock {
    fn default() -> SystemClock {
        SystemClock::new()
    }
}

impl Clock for SystemClock {
    fn now(&self) -> Duration {
        self.origin.elapsed()
    }
}

/// A clock that moves only when told to; clones share the time. For tests and simulations.
#[derive(Debug, Clone, Default)]
pub struct ManualClock {
    nanos: Arc<AtomicU64>,
}

impl ManualClock {
    pub fn new() -> ManualClock {
        ManualClock::default()
    }

    pub fn advance(&self, by: Duration) {
        self.nanos.fetch_add(
            by.as_nanos().min(u128::from(u64::MAX)) as u64,
            Ordering::SeqCst,
        );
    }
}

impl Clock for ManualClock {
    fn now(&self) -> Duration {
        Duration::from_nanos(self.nanos.load(Ordering::SeqCst))
    }
}

/// Why a search ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum StopReason {
    TimeBudget,
    MaxExecutions,
    AllGoalsCovered,
    Cancelled,
    /// The algorithm had nothing left to optimise: no active uncovered target (DynaMOSA, whose
    /// remaining goals are not reachable from covered ones), or a whole suite of fitness 0.
    SearchExhausted,
}

/// Decides, from the progress so far, whether to stop.
pub trait StoppingCondition {
    fn should_stop(&mut self, progress: &Progress) -> bool;
    /// The reason reported when this condition stops the search.
    fn reason(&self) -> StopReason;
}

/// Stops once the elapsed time reaches the budget.
#[derive(Debug, Clone, Copy)]
pub struct TimeBudget(pub Duration);

impl StoppingCondition for TimeBudget {
    fn should_stop(&mut self, progress: &Progress) -> bool {
        progress.elapsed >= self.0
    }

    fn reason(&self) -> StopReason {
        StopReason::TimeBudget
    }
}

/// Stops once this many individuals have been executed.
#[derive(Debug, Clone, Copy)]
pub struct MaxExecutions(pub u64);

impl StoppingCondition for MaxExecutions {
    fn should_stop(&mut self, progress: &Progress) -> bool {
        progress.executions >= self.0
    }

    fn reason(&self) -> StopReason {
        StopReason::MaxExecutions
    }
}

/// Stops once every static goal of the table is covered.
#[derive(Debug, Clone, Copy, Default)]
pub struct AllGoalsCovered;

impl StoppingCondition for AllGoalsCovered {
    fn should_stop(&mut self, progress: &Progress) -> bool {
        progress.static_covered() >= progress.static_total()
    }

    fn reason(&self) -> StopReason {
        StopReason::AllGoalsCovered
    }
}

/// A cancellation flag shared with whoever may cancel the job.
#[derive(Debug, Clone, Default)]
pub struct CancelToken(Arc<AtomicBool>);

impl CancelToken {
    pub fn new() -> CancelToken {
        CancelToken::default()
    }

    pub fn cancel(&self) {
        self.0.store(true, Ordering::SeqCst);
    }

    pub fn is_cancelled(&self) -> bool {
        self.0.load(Ordering::SeqCst)
    }
}

impl StoppingCondition for CancelToken {
    fn should_stop(&mut self, _progress: &Progress) -> bool {
        self.is_cancelled()
    }

    fn reason(&self) -> StopReason {
        StopReason::Cancelled
    }
}
