//! What the store keeps per class under test, as plain Rust values: the tests of the last run
//! with the goals they cover, the verified JUnit class they were printed as, the last run's
//! coverage, and the run history. Built from plain data (test cases, goal keys as strings,
//! numbers, source text) so that any caller can fill them in.

use std::collections::{BTreeMap, BTreeSet};

use testcase::junit::AssertionKind;
use testcase::TestCase;

use crate::project::JUnitVersion;

/// Everything the store holds for one class under test.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClassRecord {
    /// Binary name of the class under test (`com.x.Outer$Inner`).
    pub class: String,
    /// The archive of the latest run: its distinct tests, each with the goals it covered.
    pub tests: Vec<StoredTest>,
    /// The JUnit class the latest run's tests were printed and verified as; `None` when no
    /// test was kept, or the record was written by a ctgls that did not store it.
    pub suite: Option<StoredSuite>,
    /// Coverage of the latest run.
    pub coverage: Coverage,
    /// The runs, oldest first; at most [`crate::store::HISTORY_LIMIT`] of them.
    pub history: Vec<HistoryEntry>,
}

impl ClassRecord {
    pub fn last_run(&self) -> Option<&HistoryEntry> {
        self.history.last()
    }
}

/// A test found by a run, with the goals it covered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredTest {
    pub test: TestCase,
    /// Stable goal keys (`javamodel::GoalKey`'s display, e.g.
    /// `com.x.Account#withdraw(long)/B1.T`, or whatever key the caller uses for line, method
    /// and exception goals). The store treats them as opaque strings.
    pub covers: BTreeSet<String>,
}

/// The test class a run wrote (or would have written): what a later session needs to insert
/// the run's tests without running anything.
///
/// Invariant (checked when reading): every method's `test` is an index into the record's
/// `tests`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredSuite {
    pub junit: JUnitVersion,
    /// The whole class as verified: header, package, imports and every kept test method.
    pub source: String,
    /// The class's test methods in file order.
    pub methods: Vec<StoredMethod>,
    /// Why the class was not verified with JUnit (only run in the worker), when it was not.
    pub unverified: Option<String>,
}

/// One test method of a [`StoredSuite`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredMethod {
    /// The method's name in the class.
    pub name: String,
    /// The test it prints: an index into [`ClassRecord::tests`].
    pub test: usize,
    /// Branch goals (`…/B1.T`) the test covered on its own in the run (a superset of the
    /// goals the archive kept it for).
    pub goals: BTreeSet<String>,
    /// What the method asserts, in file order (empty in records written before they were
    /// kept): the regression guard compares them with what the edited class does
    /// (`crate::regression`).
    pub assertions: Vec<StoredAssertion>,
}

/// One assertion of a [`StoredMethod`], as printed in the suite's source.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredAssertion {
    /// 1-based lines of the suite's source the assertion occupies.
    pub first_line: u32,
    pub last_line: u32,
    pub kind: AssertionKind,
    /// The asserted expression as printed (`account0.getBalanceCents()`); empty for `Throws`.
    pub subject: String,
    /// What it expects, as printed (`100L`, `true`, `null`, `not null`, or the thrown class's
    /// simple name for `Throws`).
    pub expected: String,
}

/// Coverage of one run of one class.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Coverage {
    /// Every goal of the run by its stable key: covered or not.
    pub goals: BTreeMap<String, bool>,
    /// Source lines (1-based) of the class's file that some test executed.
    pub covered_lines: BTreeSet<u32>,
    /// Probed source lines that no test executed.
    pub uncovered_lines: BTreeSet<u32>,
    /// Exceptions thrown out of members of the class that their `throws` clauses do not
    /// declare.
    pub undeclared_exceptions: Vec<UndeclaredException>,
}

impl Coverage {
    pub fn covered_goals(&self) -> u64 {
        self.goals.values().filter(|&&c| c).count() as u64
    }

    pub fn total_goals(&self) -> u64 {
        self.goals.len() as u64
    }
}

/// An exception that escaped a member without being declared.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct UndeclaredException {
    /// The member key (`com.x.Account#withdraw(long)`).
    pub member: String,
    /// Binary name of the exception's class (`java.lang.ArithmeticException`).
    pub exception: String,
    /// The throwing line of the class's source file, when the stack trace names one.
    pub line: Option<u32>,
    /// The exception's message, when it had one.
    pub message: Option<String>,
    /// A checked exception (one a `throws` clause could declare).
    pub checked: bool,
    /// The test that threw it: an index into [`ClassRecord::tests`] / [`FinishedRun::tests`].
    pub test: Option<usize>,
}

/// The facts of one run that the caller knows (the store has no clock and hashes nothing).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunInfo {
    /// When the run started, in milliseconds since the Unix epoch (the caller's clock).
    pub timestamp_ms: u64,
    /// A hash of the class's source file as the run saw it; any string that changes when the
    /// source changes. "Has the class changed?" compares these for equality only.
    pub source_hash: String,
    /// The search budget the run was given, in milliseconds.
    pub budget_ms: u64,
    /// The search algorithm (`dynamosa`, `mosa`, `adynamosa`, `whole-suite`, ...).
    pub algorithm: String,
    /// The seed of the run's random generator.
    pub seed: u64,
    /// Test executions the run spent.
    pub executions: u64,
}

/// One run in the history.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HistoryEntry {
    pub run: RunInfo,
    /// Covered goals of the run ([`Coverage::covered_goals`]).
    pub covered_goals: u64,
    /// All goals of the run ([`Coverage::total_goals`]).
    pub total_goals: u64,
    /// Whether the run improved coverage: the first run on its source hash, or a higher
    /// coverage fraction than every earlier run on the same source in a row before it.
    pub improved: bool,
}

impl HistoryEntry {
    /// Covered goals over all goals; 1 when there are no goals.
    pub fn coverage(&self) -> f64 {
        if self.total_goals == 0 {
            1.0
        } else {
            self.covered_goals as f64 / self.total_goals as f64
        }
    }
}

/// What a finished run hands to [`crate::store::Store::save_run`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FinishedRun {
    /// Binary name of the class under test.
    pub class: String,
    pub run: RunInfo,
    /// The run's archive: its distinct tests with the goals each covered.
    pub tests: Vec<StoredTest>,
    /// The JUnit class of the run's verified tests, when any was kept.
    pub suite: Option<StoredSuite>,
    pub coverage: Coverage,
}
