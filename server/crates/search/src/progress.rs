//! Progress of a running search, sampled after every generation and handed to observers (the
//! editor's progress report, the CLI's log) and to stopping conditions.

use std::time::Duration;

use crate::adaptive::SecondaryHeuristic;
use crate::goal_table::{Criterion, GoalId};

/// Covered and total goals of one criterion. Exception goals exist only once covered, so their
/// `covered == total`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct CriterionCoverage {
    pub criterion: Criterion,
    pub covered: usize,
    pub total: usize,
}

/// A snapshot of the search.
#[derive(Debug, Clone, PartialEq)]
pub struct Progress {
    pub elapsed: Duration,
    /// Individuals executed so far (each test case run counts once).
    pub executions: u64,
    /// Test statements executed so far (Fraser and Arcuri's "Whole Test Suites" budget unit).
    pub executed_statements: u64,
    /// Completed generations; 0 after the initial population.
    pub generations: u64,
    /// Per enabled criterion, in [`Criterion::ALL`] order.
    pub coverage: Vec<CriterionCoverage>,
    /// DynaMOSA's current targets (active, uncovered); for the whole-suite GA every uncovered
    /// static goal.
    pub targets: usize,
    /// The secondary heuristic of the last generation (aDynaMOSA switches it).
    pub secondary_heuristic: Option<SecondaryHeuristic>,
    /// Distinct tests in the archive: the size of the suite the search would return now
    /// (before minimisation), which is what emitting it will cost.
    pub archived_tests: usize,
}

impl Progress {
    /// Covered goals with a fixed total: branch, line and method.
    pub fn static_covered(&self) -> usize {
        self.coverage
            .iter()
            .filter(|c| c.criterion != Criterion::Exception)
            .map(|c| c.covered)
            .sum()
    }

    pub fn static_total(&self) -> usize {
        self.coverage
            .iter()
            .filter(|c| c.criterion != Criterion::Exception)
            .map(|c| c.total)
            .sum()
    }

    pub fn of(&self, criterion: Criterion) -> Option<CriterionCoverage> {
        self.coverage
            .iter()
            .copied()
            .find(|c| c.criterion == criterion)
    }
}

/// Watches a running search. Both methods default to doing nothing.
pub trait SearchObserver {
    /// After the initial population and after every generation.
    fn on_progress(&mut self, _progress: &Progress) {}

    /// A goal was covered for the first time; `description` names it.
    fn on_goal_covered(&mut self, _goal: GoalId, _description: &str) {}
}
