//! Search-based test generation for one class: the static goal table built from the Java model,
//! execution results, fitness functions, the archive, DynaMOSA's goals manager, ranking and
//! selection, and the algorithms DynaMOSA (default), aDynaMOSA, MOSA and whole-suite GA.
//!
//! Pure: no IO, no serialisation, no async. Individuals, their operators ([`Variation`]) and
//! their execution ([`Executor`]) come from the caller; configuration and the seeded random
//! number generator are passed in.
//!
//! How a caller maps a worker trace into an [`ExecutionResult`]: build the [`GoalTable`] with
//! [`GoalTable::for_class`] from the same model the instrumenter used; for each test, start from
//! [`ExecutionResult::new`]; for each branch probe row `[id, hits, trueDistance, falseDistance]`
//! look the decision up with [`GoalTable::decision_by_class_index`] (or
//! [`GoalTable::decision_by_key`]) and call [`ExecutionResult::record_branch`]; for a switch's
//! per-case rows call [`ExecutionResult::record_decision`] once and
//! [`ExecutionResult::record_distance`] with `Outcome::Case(i)` per case; a catch clause's probe
//! is [`ExecutionResult::record_decision`]; method probes go to
//! [`ExecutionResult::record_member_entry`] (via [`GoalTable::member_by_key`]), line probes to
//! [`ExecutionResult::record_line`], an exception out of a call of the class under test to
//! [`ExecutionResult::record_exception`], the proxy counters to [`ExecutionResult::proxies`].
//!
//! Module map: `goal_table` (static goals), `execution` (results, executor), `variation`
//! (operators), `fitness`, `exception_goals`, `archive`, `goals_manager` (DynaMOSA targets),
//! `ranking` (dominance, preference sorting), `crowding` (subvector dominance), `performance`
//! (seed 002's proxies), `adaptive` (aDynaMOSA's heuristic switch), `selection`, `stopping`,
//! `progress`, `config`, `engine` (shared loop machinery), `mosa`, `whole_suite`, `search`
//! (entry point), `result`.

mod adaptive;
mod archive;
mod config;
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
pub use crowding::subvector_dominance;
pub use exception_goals::{ExceptionGoal, ExceptionGoals};
pub use execution::{
    ExecutionResult, ExecutionStatus, Executor, ObservedException, ProductionProxies,
};
pub use fitness::{goal_fitness, normalise, suite_fitness};
pub use goal_table::{
    Criteria, Criterion, DecisionId, DecisionInfo, Dependency, GoalId, GoalTable, MemberId,
    MemberInfo, StaticGoal, StaticGoalKind,
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
