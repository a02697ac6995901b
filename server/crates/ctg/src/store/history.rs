//! The run history and CTG's re-run rule (Campos et al., "Continuous Test Generation" section 4.1): a class whose coverage did not
//! improve over its last three runs is not tested again until it changes; a class with every
//! goal covered is not tested again until it changes either. Pure functions of the history.

use std::fmt;

use super::record::{ClassRecord, FinishedRun, HistoryEntry};

/// Runs kept per class; older ones are dropped. The re-run rule needs three.
pub const HISTORY_LIMIT: usize = 50;

/// Consecutive runs without improvement after which an unchanged class is skipped.
pub const RUNS_WITHOUT_IMPROVEMENT: usize = 3;

/// Whether to generate tests for a class again.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RerunDecision {
    Yes(RerunReason),
    No(SkipReason),
}

impl RerunDecision {
    pub fn should_run(self) -> bool {
        matches!(self, RerunDecision::Yes(_))
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RerunReason {
    /// The store has no run of the class.
    NeverRun,
    /// The source hash differs from the latest run's: Campos et al.'s "Continuous Test Generation" "changed" classes, which
    /// get the h = 2 budget factor.
    SourceChanged,
    /// Unchanged, and one of the last three runs improved coverage (or there were fewer).
    MayImprove,
    /// The store could not be read (reported separately); generation is never blocked by it.
    HistoryUnreadable,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SkipReason {
    /// The last three runs on the current source did not improve coverage.
    NoImprovement,
    /// The latest run on the current source covered every goal.
    FullyCovered,
}

impl fmt::Display for RerunReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            RerunReason::NeverRun => "never run",
            RerunReason::SourceChanged => "the class changed since its last run",
            RerunReason::MayImprove => "coverage may still improve",
            RerunReason::HistoryUnreadable => "the run history could not be read",
        })
    }
}

impl fmt::Display for SkipReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            SkipReason::NoImprovement => "no improvement in the last 3 runs",
            SkipReason::FullyCovered => "every goal is covered and the class has not changed",
        })
    }
}

/// Campos et al., "Continuous Test Generation" section 4.1 on `history` (oldest first) for a class whose source now hashes to
/// `current_source_hash`.
pub fn rerun_decision(history: &[HistoryEntry], current_source_hash: &str) -> RerunDecision {
    let Some(last) = history.last() else {
        return RerunDecision::Yes(RerunReason::NeverRun);
    };
    if last.run.source_hash != current_source_hash {
        return RerunDecision::Yes(RerunReason::SourceChanged);
    }
    if last.total_goals > 0 && last.covered_goals == last.total_goals {
        return RerunDecision::No(SkipReason::FullyCovered);
    }
    let recent = &history[history.len().saturating_sub(RUNS_WITHOUT_IMPROVEMENT)..];
    let stagnant = recent.len() == RUNS_WITHOUT_IMPROVEMENT
        && recent
            .iter()
            .all(|e| e.run.source_hash == current_source_hash && !e.improved);
    if stagnant {
        RerunDecision::No(SkipReason::NoImprovement)
    } else {
        RerunDecision::Yes(RerunReason::MayImprove)
    }
}

/// The history entry of `run` after `history`: improved when it is the first run on its source
/// hash, or its coverage fraction beats every run of the trailing same-source stretch.
pub fn entry_for(history: &[HistoryEntry], run: &FinishedRun) -> HistoryEntry {
    let covered = run.coverage.covered_goals();
    let total = run.coverage.total_goals();
    let same_source = history
        .iter()
        .rev()
        .take_while(|e| e.run.source_hash == run.run.source_hash);
    let mut first_on_source = true;
    let mut improved = true;
    for e in same_source {
        first_on_source = false;
        if !fraction_greater(covered, total, e.covered_goals, e.total_goals) {
            improved = false;
        }
    }
    HistoryEntry {
        run: run.run.clone(),
        covered_goals: covered,
        total_goals: total,
        improved: first_on_source || improved,
    }
}

/// The record after `run`: its tests and coverage replace the previous ones, and its history
/// entry is appended (the oldest entries fall off past [`HISTORY_LIMIT`]).
pub fn record_after(previous_history: &[HistoryEntry], run: &FinishedRun) -> ClassRecord {
    let entry = entry_for(previous_history, run);
    let keep_from = (previous_history.len() + 1).saturating_sub(HISTORY_LIMIT);
    let mut history = previous_history[keep_from.min(previous_history.len())..].to_vec();
    history.push(entry);
    ClassRecord {
        class: run.class.clone(),
        tests: run.tests.clone(),
        suite: run.suite.clone(),
        coverage: run.coverage.clone(),
        history,
    }
}

/// `a / b > c / d`, exactly; no goals counts as everything covered.
fn fraction_greater(a: u64, b: u64, c: u64, d: u64) -> bool {
    let (a, b) = if b == 0 { (1, 1) } else { (a, b) };
    let (c, d) = if d == 0 { (1, 1) } else { (c, d) };
    u128::from(a) * u128::from(d) > u128::from(c) * u128::from(b)
}
