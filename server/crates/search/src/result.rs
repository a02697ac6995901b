//! What a search returns: the archive (the test suite), coverage per criterion, the exception
//! goals found, effort spent and the progress samples.

use std::time::Duration;

use crate::archive::{ArchivedTest, CoverageArchive};
use crate::engine::describe;
use crate::exception_goals::ExceptionGoals;
use crate::goal_table::{Criterion, GoalId, GoalTable};
use crate::progress::{CriterionCoverage, Progress};
use crate::stopping::StopReason;

#[derive(Debug)]
pub struct SearchResult<I> {
    /// Per covered goal, the best test found; its distinct tests are the generated suite.
    pub archive: CoverageArchive<I>,
    /// The exception goals discovered; their ids follow the table's static goals.
    pub exception_goals: ExceptionGoals,
    /// Per enabled criterion, in [`Criterion::ALL`] order.
    pub coverage: Vec<CriterionCoverage>,
    pub executions: u64,
    pub executed_statements: u64,
    pub generations: u64,
    pub elapsed: Duration,
    /// After the initial population, after every generation, and at the end.
    pub samples: Vec<Progress>,
    pub stop_reason: StopReason,
}

impl<I: Clone> SearchResult<I> {
    pub fn coverage_of(&self, criterion: Criterion) -> Option<CriterionCoverage> {
        self.coverage
            .iter()
            .copied()
            .find(|c| c.criterion == criterion)
    }

    /// Covered goals over all criteria, exception goals included.
    pub fn covered_goals(&self) -> usize {
        self.coverage.iter().map(|c| c.covered).sum()
    }

    /// All goals over all criteria, exception goals (all covered) included.
    pub fn total_goals(&self) -> usize {
        self.coverage.iter().map(|c| c.total).sum()
    }

    /// The generated test suite: the archive's distinct tests.
    pub fn tests(&self) -> Vec<&ArchivedTest<I>> {
        self.archive.tests()
    }

    /// A readable name of a goal of this search.
    pub fn describe(&self, table: &GoalTable, goal: GoalId) -> String {
        describe(table, &self.exception_goals, goal)
    }
}
