//! Search-based test generation for one class: the static goal table built from the Java model,
//! execution results, fitness functions, the archive, DynaMOSA's goals manager, ranking and
//! selection, and the algorithms DynaMOSA (default), aDynaMOSA, MOSA and whole-suite GA.
//!
//! Pure: no IO, no serialisation, no async. Individuals, their operators ([`Variation`]) and
//! their execution ([`Executor`]) come from the caller; configuration and the seeded random
//! number generator are passed in.
//!
//! How a caller maps a worker trace into an [`ExecutionResult`]: build the [`GoalTable`] from
//! the model the instrumenter used, with [`GoalTable::for_class_with_lines`] and the probe
//! table's probed lines (or [`GoalTable::for_class`]). Per test, start from
//! [`ExecutionResult::new`] and walk the trace through the probe table:
//! - a branch row `[id, hits, trueDistance, falseDistance]`: find the decision with
//!   [`GoalTable::decision_by_key`] (or [`GoalTable::decision_by_class_index`]), then
//!   [`ExecutionResult::record_distance`] the true-distance for the probe's true-side outcome
//!   and the false-distance for its false-side outcome. Record the decision's hits once with
//!   [`ExecutionResult::record_decision`], using the largest hit count among its rows: a
//!   switch has one row per case, and summing them would count one evaluation several times.
//!   [`ExecutionResult::record_branch`] does all of it for a two-way decision with one row. A
//!   catch clause's row is just [`ExecutionResult::record_decision`].
//! - a method row: [`ExecutionResult::record_member_entry`] (member via
//!   [`GoalTable::member_by_key`]); it also covers a branch-free method's entry goal.
//! - a mutant row `[id, infectionDistance]` (a file compiled with its mutants):
//!   [`ExecutionResult::record_infection`] with [`GoalTable::mutant_by_local_id`].
//! - a line row: [`ExecutionResult::record_line`]; the proxy counters (I1, I2, I4, I5) into
//!   [`ExecutionResult::proxies`]; the executed statement count; the status.
//! - an exception thrown out of a call to the class under test:
//!   [`ExecutionResult::record_exception`].
//!
//! Module map: `goal_table` (static goals), `execution` (results, executor), `variation`
//! (operators), `fitness`, `exception_goals`, `archive`, `goals_manager` (DynaMOSA targets),
//! `ranking` (dominance, preference sorting), `crowding` (subvector dominance), `performance`
//! (Grano et al.'s "Testing with Fewer Resources" proxies), `adaptive` (aDynaMOSA's heuristic switch), `selection`, `stopping`,
//! `progress`, `config`, `engine` (shared loop machinery), `coupled_goals` (the coupled
//! branches criterion of class-integration tests: integration tables, Equation 2's fitness), `mosa`, `whole_suite`, `search`
//! (entry point), `result`.

mod adaptive;
mod archive;
mod config;
mod coupled_goals;
mod crowding;
mod engine;
mod exception_goals;
mod execution;
mod fitness;
mod goal_table;
mod goals_manager;
mod mosa;
mod performance;
mod progress;
mod ranking;
mod result;
mod search;
mod selection;
mod stopping;
mod variation;
mod whole_suite;

pub use adaptive::{HeuristicSwitch, SecondaryHeuristic};
pub use archive::{ArchivePreference, ArchivedTest, Candidate, CoverageArchive};
pub use config::{Algorithm, SearchConfig, WholeSuiteConfig};
pub use coupled_goals::CoupledGoal;
pub use crowding::subvector_dominance;
pub use exception_goals::{ExceptionGoal, ExceptionGoals};
pub use execution::{
    ExecutionResult, ExecutionStatus, Executor, ObservedException, ProductionProxies,
};
pub use fitness::{goal_fitness, normalise, suite_fitness};
pub use goal_table::{
    Criteria, Criterion, DecisionId, DecisionInfo, Dependency, GoalId, GoalTable, MemberId,
    MemberInfo, MutantInfo, StaticGoal, StaticGoalKind,
};
pub use goals_manager::GoalsManager;
pub use performance::{performance_heuristic, PerformanceProxies};
pub use progress::{CriterionCoverage, Progress, SearchObserver};
pub use ranking::{dominates, fast_non_dominated_sort, preference_sorting};
pub use result::SearchResult;
pub use search::Search;
pub use selection::{rank_selection, tournament};
pub use stopping::{
    AllGoalsCovered, CancelToken, Clock, ManualClock, MaxExecutions, StopReason, StoppingCondition,
    SystemClock, TimeBudget,
};
pub use variation::{TestCodeProxies, Variation};
