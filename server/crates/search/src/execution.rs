//! What executing one individual tells the search (the execution trace, mapped onto the goal
//! table's ids), and the executor interface that produces it.
//!
//! The executor lives elsewhere (the JVM supervisor). It maps each probe row of a worker trace
//! through the instrumenter's probe table to a [`DecisionId`] (via
//! [`GoalTable::decision_by_class_index`] or [`GoalTable::decision_by_key`]), a line or a
//! [`MemberId`], and records it here.

use crate::goal_table::{DecisionId, GoalId, GoalTable, MemberId};
use javamodel::Outcome;

/// Runs individuals. Blocking; called with every individual that changed since it was last run.
pub trait Executor<I> {
    /// One result per individual of `batch`, in order. Results missing at the end of the returned
    /// list count as [`ExecutionStatus::Crashed`].
    fn execute(&mut self, batch: &[I]) -> Vec<ExecutionResult>;
}

/// How a run ended. An exception thrown by the code under test is [`ExecutionStatus::Ok`]: the
/// test ran, and the exception is in [`ExecutionResult::exceptions`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ExecutionStatus {
    Ok,
    /// The test hit its deadline. Its trace is partial; the search treats it as worst on every
    /// goal and never archives it (Fraser and Arcuri, "Whole Test Suites" IV-A gives timed-out suites the maximum fitness).
    Timeout,
    /// The worker died or the test could not be run; treated like a timeout.
    Crashed,
}

/// An exception the code under test threw out of a call the test made.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ObservedException {
    /// The member of the class under test whose call threw: the method the test statement
    /// called (EvoSuite's exception coverage is per called method). `None` when the throwing
    /// call was not to the class under test; such exceptions make no goal.
    pub member: Option<MemberId>,
    /// Binary name of the exception type, e.g. `java.lang.ArithmeticException`.
    pub type_name: String,
    /// Whether the called member's `throws` clause lists a supertype of it.
    pub declared: bool,
    /// The throwing line in the class under test's file, when known.
    pub line: Option<u32>,
}

/// The performance proxies of Grano et al., "Testing with Fewer Resources" (Table I) measured while running the production code.
/// I3, I6 and I7 describe the test's own code and come from [`crate::TestCodeProxies`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct ProductionProxies {
    /// I1 Number of Executed Loops: loop cycles executed. The paper counts only loops executed
    /// more than once, so that covering a loop is never penalised.
    pub executed_loops: u64,
    /// I2 Covered Method Calls: calls of production methods (a frequency, not a set).
    pub covered_method_calls: u64,
    /// I4 Number of Object Instantiations: constructor calls and array creations. The paper
    /// excludes sites executed only once.
    pub object_instantiations: u64,
    /// I5 Covered Statements: production statements executed (a frequency).
    pub covered_statements: u64,
}

/// The trace of one run, mapped onto a [`GoalTable`]. Build it with [`ExecutionResult::new`] and
/// the `record_*` methods.
///
/// Invariants: distances are `>= 0`, `0` meaning the outcome was taken; an outcome never seen
/// has distance `+inf`. Vectors are sized by the table the result was created for.
#[derive(Debug, Clone, PartialEq)]
pub struct ExecutionResult {
    pub status: ExecutionStatus,
    decision_hits: Vec<u32>,
    /// Per branch goal: the minimum distance to that outcome seen.
    branch_distance: Vec<f64>,
    /// Per member: times entered.
    member_entries: Vec<u32>,
    /// Covered 1-based lines, sorted, without duplicates.
    lines: Vec<u32>,
    /// Per weak-mutation mutant ([`GoalTable::mutants`]): the minimum infection distance seen
    /// where the mutated code ran, 0 when the mutated value differed; `+inf` when not reached.
    infection: Vec<f64>,
    pub exceptions: Vec<ObservedException>,
    pub proxies: ProductionProxies,
    /// Statements of the test executed (Fraser and Arcuri's "Whole Test Suites" unit of search budget).
    pub executed_statements: u64,
    /// The run needed something of its environment that a test must not depend on (a file
    /// written outside the temporary directory, the network, a process, or something the
    /// sandbox refused). Its distances still guide the search, but it covers no goal: the
    /// archive never keeps it, so the goals only such runs reach stay uncovered (and are
    /// reported as needing the environment by the caller).
    pub needs_environment: bool,
}

impl ExecutionResult {
    /// An empty trace (nothing reached) for the goals of `table`.
    pub fn new(table: &GoalTable, status: ExecutionStatus) -> ExecutionResult {
        ExecutionResult {
            status,
            decision_hits: vec![0; table.decisions().len()],
            branch_distance: vec![f64::INFINITY; table.branch_goal_count()],
            member_entries: vec![0; table.members().len()],
            lines: Vec::new(),
            infection: vec![f64::INFINITY; table.mutants().len()],
            exceptions: Vec::new(),
            proxies: ProductionProxies::default(),
            executed_statements: 0,
            needs_environment: false,
        }
    }

    /// Adds `hits` evaluations of `decision`. For a catch clause or a branch-free method's entry
    /// (whose one outcome is "entered"), being reached is taking that outcome.
    pub fn record_decision(&mut self, table: &GoalTable, decision: DecisionId, hits: u32) {
        let Some(slot) = self.decision_hits.get_mut(decision.index()) else {
            return;
        };
        *slot = slot.saturating_add(hits);
        let info = table.decision(decision);
        if hits > 0 && info.is_entry_like() {
            self.lower_distance(info.first_goal, 0.0);
        }
    }

    /// Notes that `outcome` of `decision` was missed by `distance` (0: taken). Keeps the minimum.
    /// Returns false when the decision has no such outcome.
    ///
    /// Recording a distance does not count as reaching the decision: call
    /// [`ExecutionResult::record_decision`] (or [`ExecutionResult::record_branch`]) for the
    /// hits, which the fitness functions use to tell "reached" from "not reached".
    pub fn record_distance(
        &mut self,
        table: &GoalTable,
        decision: DecisionId,
        outcome: Outcome,
        distance: f64,
    ) -> bool {
        let Some(info) = table.decisions().get(decision.index()) else {
            return false;
        };
        let Some(index) = info.outcome_index(outcome) else {
            return false;
        };
        self.lower_distance(info.goal(index), distance);
        true
    }

    /// A two-way decision's probe row: hits and the minimum distances to true and false, as the
    /// worker's `[id, hits, trueDistance, falseDistance]`.
    pub fn record_branch(
        &mut self,
        table: &GoalTable,
        decision: DecisionId,
        hits: u32,
        true_distance: f64,
        false_distance: f64,
    ) {
        self.record_decision(table, decision, hits);
        self.record_distance(table, decision, Outcome::True, true_distance);
        self.record_distance(table, decision, Outcome::False, false_distance);
    }

    /// The member was entered `hits` times. Covers the member's method-entry decision, if it has
    /// one, so instrumentation need not probe it separately.
    pub fn record_member_entry(&mut self, table: &GoalTable, member: MemberId, hits: u32) {
        let Some(slot) = self.member_entries.get_mut(member.index()) else {
            return;
        };
        *slot = slot.saturating_add(hits);
        if hits > 0 {
            if let Some(decision) = table.member(member).entry_decision {
                self.record_decision(table, decision, hits);
            }
        }
    }

    /// A statement on this 1-based line ran.
    pub fn record_line(&mut self, line: u32) {
        if let Err(at) = self.lines.binary_search(&line) {
            self.lines.insert(at, line);
        }
    }

    /// The mutated code of mutant `mutant` (an index in [`GoalTable::mutants`]) ran, its value
    /// `distance` away from differing from the original's (0: it differed, the mutant is
    /// weakly killed). Keeps the minimum; a distance that is not a number `>= 0` is dropped.
    pub fn record_infection(&mut self, mutant: u32, distance: f64) {
        if distance.is_nan() || distance < 0.0 {
            return;
        }
        if let Some(slot) = self.infection.get_mut(mutant as usize) {
            if distance < *slot {
                *slot = distance;
            }
        }
    }

    /// The minimum infection distance of mutant `mutant`; `+inf` when its code never ran.
    pub fn infection(&self, mutant: u32) -> f64 {
        self.infection
            .get(mutant as usize)
            .copied()
            .unwrap_or(f64::INFINITY)
    }

    pub fn record_exception(&mut self, exception: ObservedException) {
        self.exceptions.push(exception);
    }

    /// Distances that are not numbers `>= 0` are dropped: the worker never sends them, and
    /// reading one as 0 would claim coverage no test produced.
    fn lower_distance(&mut self, goal: GoalId, distance: f64) {
        if distance.is_nan() || distance < 0.0 {
            return;
        }
        if let Some(slot) = self.branch_distance.get_mut(goal.index()) {
            if distance < *slot {
                *slot = distance;
            }
        }
    }

    pub fn is_ok(&self) -> bool {
        self.status == ExecutionStatus::Ok
    }

    pub fn decision_hits(&self, decision: DecisionId) -> u32 {
        self.decision_hits
            .get(decision.index())
            .copied()
            .unwrap_or(0)
    }

    /// Minimum distance to a branch goal's outcome; `+inf` when never seen.
    pub fn branch_distance(&self, goal: GoalId) -> f64 {
        self.branch_distance
            .get(goal.index())
            .copied()
            .unwrap_or(f64::INFINITY)
    }

    pub fn member_entries(&self, member: MemberId) -> u32 {
        self.member_entries
            .get(member.index())
            .copied()
            .unwrap_or(0)
    }

    pub fn line_covered(&self, line: u32) -> bool {
        self.lines.binary_search(&line).is_ok()
    }

    pub fn covered_lines(&self) -> &[u32] {
        &self.lines
    }
}
