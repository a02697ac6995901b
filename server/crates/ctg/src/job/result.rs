//! What a generation job returns: coverage per decision outcome and per line (of the class under
//! test, and of the other classes it instrumented), the undeclared exceptions found and the
//! exceptions that left members, the final tests with the worker's observations, effort and
//! timings; or a typed error with a message the CLI and the editor can show as is. Plain
//! values, no serde: the CLI and LSP crates convert at their edges.

use std::fmt;
use std::path::PathBuf;
use std::time::Duration;

use javamodel::instrument::Fallback;
use javamodel::{DecisionKey, DecisionKind, Outcome};
use search::{Algorithm, Progress, StopReason};
use testcase::TestCase;

#[derive(Debug, Clone)]
pub struct GenerationResult {
    /// Binary name of the class under test.
    pub class: String,
    pub algorithm: Algorithm,
    pub seed: u64,
    /// Every decision of the class (and its nested classes) with the coverage of each outcome,
    /// in goal-table order.
    pub decisions: Vec<DecisionCoverage>,
    pub branches: Coverage,
    pub lines: LineCoverage,
    /// Methods and constructors entered by the final tests.
    pub methods: Coverage,
    /// One entry per (member, exception type), by the first final test that throws it.
    pub exceptions: Vec<UndeclaredException>,
    /// The exceptions that left members of the class (and its nested classes) in the final
    /// tests, whether a caller in the class caught them or they left the class: one entry per
    /// (member, exception type, raising line), by the first final test, in the order found.
    pub escapes: Vec<EscapedException>,
    /// The minimised tests, with the worker's result of their final run (getter observations
    /// on, for regression assertions).
    pub tests: Vec<GeneratedTest>,
    /// What the final tests cover of the classes of `GenerationRequest::also_instrument`, in the
    /// order asked (the class under test and repeats left out).
    pub also_instrumented: Vec<ClassCoverage>,
    /// The coupled branches of an integration run (`GenerationRequest::callee`); `None` for a
    /// unit run. `decisions`, `branches` and `methods` are then the caller's alone; the
    /// callee's coverage is in `also_instrumented`.
    pub coupled: Option<CoupledCoverage>,
    /// Test executions: search, minimisation and the final run.
    pub executions: u64,
    /// Test statements executed over all those executions.
    pub statements_executed: u64,
    /// Of `executions`, those that needed a fresh class loader (see `loader_dropped`).
    pub fresh_loader_executions: u64,
    /// Why the worker could not reuse a test's class loader, the first reason it gave (e.g.
    /// a class with mutable static state): such tests cost several times more.
    pub loader_dropped: Option<String>,
    pub timings: PhaseTimings,
    pub stop_reason: StopReason,
    /// The job was cancelled; what it found until then is here.
    pub cancelled: bool,
    /// Coverage over the search, sampled after every generation.
    pub progress: Vec<Progress>,
    pub warm_start: WarmStart,
    pub minimisation: MinimisationSummary,
    /// The time the job left of the budget for emission and verification: the estimate for
    /// the archive's suite when the search stopped (`crate::budget`).
    pub emission_reserve: Duration,
    /// Probes that measure less than their construct allows, with the reason.
    pub fallbacks: Vec<Fallback>,
    /// Things the user should know (a weaker sandbox, types the tests cannot build, ...).
    pub warnings: Vec<String>,
    /// What runs needed of the environment (a file written outside the temporary directory,
    /// a connection, a process; or what the sandbox refused) where only such runs reached a
    /// goal: those goals have no test, since a test that depends on the environment is never
    /// written (docs/emission.md, "Tests that need the environment").
    pub environment: Vec<EnvironmentDependency>,
}

/// Goals of the class that only runs needing the environment reached, and what they needed.
#[derive(Debug, Clone, PartialEq)]
pub struct EnvironmentDependency {
    /// What was needed, as the worker saw it (its `line` is in the class's file, or `None`).
    pub need: jvm::EnvironmentNeed,
    /// The member of the class whose code made the access, when the line is known.
    pub member: Option<String>,
    /// The goals (`com.x.A#m(int)/B1.T`, `line 12`, `method com.x.A#m(int)`) the final tests
    /// do not cover and that runs with this need reached.
    pub goals: Vec<String>,
}

impl EnvironmentDependency {
    /// `needs the environment: writes /home/x/out.txt (refused by the sandbox)`.
    pub fn message(&self) -> String {
        let refused = if self.need.refused {
            " (refused by the sandbox)"
        } else {
            ""
        };
        format!("needs the environment: {}{refused}", self.need.describe())
    }
}

impl GenerationResult {
    /// Branch coverage as a fraction in `[0, 1]` (1 for a class without branches).
    pub fn branch_ratio(&self) -> f64 {
        self.branches.ratio()
    }
}

/// Covered out of total.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Coverage {
    pub covered: usize,
    pub total: usize,
}

impl Coverage {
    pub fn ratio(&self) -> f64 {
        if self.total == 0 {
            1.0
        } else {
            self.covered as f64 / self.total as f64
        }
    }
}

/// One decision (an `if` condition, a loop condition, a switch, a catch, a branch-free
/// method's entry) and its outcomes.
#[derive(Debug, Clone, PartialEq)]
pub struct DecisionCoverage {
    pub key: DecisionKey,
    pub kind: DecisionKind,
    /// 1-based line of the condition.
    pub line: u32,
    /// The condition as written (for a switch `switch (x)`, for a catch `catch (...)`).
    pub condition: String,
    pub outcomes: Vec<OutcomeCoverage>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct OutcomeCoverage {
    pub outcome: Outcome,
    /// Index into [`GenerationResult::tests`] of the first test covering it.
    pub covered_by: Option<usize>,
    /// For an uncovered outcome, the smallest branch distance any execution reached (Fraser and Arcuri, "Whole Test Suites"
    /// III-C: `k = 1` for outcome-only probes); `None` when its decision was never reached.
    pub closest_distance: Option<f64>,
    /// Whether a probe measures this outcome at all (see the fallbacks when not).
    pub probed: bool,
}

/// What the final tests cover of a class the job instrumented besides the class under test
/// (`GenerationRequest::also_instrument`). Its probes ran in every test but were never goals of
/// the search, so this is what testing the class under test happens to exercise.
#[derive(Debug, Clone, PartialEq)]
pub struct ClassCoverage {
    /// Binary name of the class.
    pub class: String,
    /// Every decision of the class (and its nested classes), in goal-table order, as for the
    /// class under test, except that `closest_distance` is over the final tests only.
    pub decisions: Vec<DecisionCoverage>,
    pub branches: Coverage,
    pub lines: LineCoverage,
    /// When the class under test calls this class: the coupled branches between them that the
    /// final (unit) tests cover, to compare with class-integration tests (`job::integration`).
    pub coupled: Option<CoupledCoverage>,
}

/// What one final test covers of one class on its own.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TestCoverage {
    /// Branch goals (`GoalKey` display, e.g. `com.x.B#m(int)/B1.T`).
    pub goals: Vec<String>,
    /// Probed lines of the class, ascending.
    pub lines: Vec<u32>,
    /// Indexes into [`ClassCoverage::coupled`]'s pairs this test covers on its own.
    pub coupled: Vec<usize>,
}

/// Statement lines of the class (the lines instrumentation probes).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LineCoverage {
    /// Every probed line of the class, ascending.
    pub lines: Vec<u32>,
    /// The lines the final tests ran, ascending.
    pub covered: Vec<u32>,
}

impl LineCoverage {
    pub fn total(&self) -> usize {
        self.lines.len()
    }

    pub fn uncovered(&self) -> impl Iterator<Item = u32> + '_ {
        self.lines
            .iter()
            .copied()
            .filter(|l| self.covered.binary_search(l).is_err())
    }
}

/// An exception the class under test throws out of a call without declaring it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UndeclaredException {
    /// The member the test called, e.g. `com.example.bank.Account#interest(int)`.
    pub member: String,
    /// Binary name, e.g. `java.lang.ArithmeticException`.
    pub type_name: String,
    /// The throwing line: the top stack frame inside the class under test.
    pub line: Option<u32>,
    /// That line is a `throw` statement: the exception is thrown on purpose (argument checks)
    /// rather than by an operation that failed.
    pub thrown_explicitly: bool,
    /// Index into [`GenerationResult::tests`].
    pub test: usize,
    /// The exception's message for people to read: a lone surrogate, which Java text may hold
    /// and a `String` cannot, shows as U+FFFD (the test asserts the exact message).
    pub message: Option<String>,
}

/// An exception that left the body of a member of the class under test (the instrumented
/// wrapper saw it go), caught later by the class or not. The counterpart of
/// [`UndeclaredException`] for every member, not only the one a test called.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EscapedException {
    /// The member it left, e.g. `com.example.bank.Account#check(int)`.
    pub member: String,
    /// Binary name, e.g. `java.lang.IllegalArgumentException`.
    pub type_name: String,
    /// The line that raised it: the top stack frame in the class's file (for an exception a
    /// JDK method raised, the class's line that called it). `None` when the exception was made
    /// outside the file.
    pub line: Option<u32>,
    /// The member's `throws` clause lists the type or a superclass of it.
    pub declared: bool,
    /// Neither a `RuntimeException` nor an `Error`.
    pub checked: bool,
    /// That line is a `throw` statement (see [`UndeclaredException::thrown_explicitly`]).
    pub thrown_explicitly: bool,
    /// Index into [`GenerationResult::tests`].
    pub test: usize,
}

/// A final test.
#[derive(Debug, Clone)]
pub struct GeneratedTest {
    pub test: TestCase,
    /// The final run's result, with getter observations.
    pub result: jvm::TestResult,
    /// Descriptions of the goals the archive kept this test for, e.g.
    /// `com.x.A#m(int)/B0.T`, `line 12`, `exception java.lang.ArithmeticException in ...`.
    pub covers: Vec<String>,
    /// Branch goals (`GoalKey` display, e.g. `com.x.A#m(int)/B1.T`) this test covers on its
    /// own in the final run.
    pub covered_goals: Vec<String>,
    /// Probed lines of the class this test ran in the final run, ascending.
    pub covered_lines: Vec<u32>,
    /// What this test covers on its own of each class of
    /// [`GenerationResult::also_instrumented`], in the same order.
    pub also_covered: Vec<TestCoverage>,
    /// In an integration run, the indexes into [`CoupledCoverage::pairs`] this test covers on
    /// its own in the final run; empty otherwise.
    pub coupled_covered: Vec<usize>,
}

/// What the final tests of an integration run (`GenerationRequest::callee`) cover of the
/// coupled branches between the class under test and the callee (Derakhshanfar et al.,
/// "Generating Class-Level Integration Tests Using Call Site Information", Definition 3.4).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CoupledCoverage {
    /// Binary name of the caller: the class under test, or its superclass when the tests go
    /// through the subclass (`GenerationRequest::integration_caller`).
    pub caller: String,
    /// Binary name of the callee.
    pub callee: String,
    /// Member keys of the caller's covering methods (those that may run a call site).
    pub covering_methods: Vec<String>,
    pub pairs: Vec<CoupledPairCoverage>,
}

impl CoupledCoverage {
    pub fn covered(&self) -> usize {
        self.pairs.iter().filter(|p| p.covered_by.is_some()).count()
    }

    pub fn total(&self) -> usize {
        self.pairs.len()
    }
}

/// One coupled branch and the first final test that covers it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CoupledPairCoverage {
    /// The caller's branch (`GoalKey` display, or `<member key>/entry` for a call site that
    /// depends on no branch of its method).
    pub caller_branch: String,
    /// The callee's branch (`GoalKey` display).
    pub callee_branch: String,
    /// 1-based lines (in the caller's file) of the call sites through which the pair couples.
    pub call_sites: Vec<u32>,
    /// Index into [`GenerationResult::tests`].
    pub covered_by: Option<usize>,
}

/// Wall time per phase.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PhaseTimings {
    /// Reading and parsing the project's sources.
    pub read: Duration,
    /// Starting the worker (zero when it was running).
    pub start: Duration,
    pub compile: Duration,
    pub describe: Duration,
    pub search: Duration,
    pub minimise: Duration,
    pub final_run: Duration,
    pub total: Duration,
}

/// What happened to the earlier tests the job was given.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct WarmStart {
    pub offered: usize,
    /// Those that still type-check against the class as it is now.
    pub kept: usize,
    /// Objects built by other classes' tests in the seeded pool (section 3.2).
    pub seeded_objects: usize,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct MinimisationSummary {
    pub statements_before: usize,
    pub statements_after: usize,
    pub executions: u64,
    /// The deadline or a cancellation stopped it before every test was minimal.
    pub cut_short: bool,
    /// Literal values replaced by simpler ones (`minimise`, second pass).
    pub values_simplified: usize,
}

/// A javac diagnostic in the original source.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceDiagnostic {
    /// The source file as found on disk (relative path when the file is not a project file).
    pub file: PathBuf,
    /// 1-based.
    pub line: Option<u32>,
    /// 1-based.
    pub column: Option<u32>,
    pub message: String,
}

impl fmt::Display for SourceDiagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.file.display())?;
        if let Some(line) = self.line {
            write!(f, ":{line}")?;
            if let Some(column) = self.column {
                write!(f, ":{column}")?;
            }
        }
        write!(f, ": {}", self.message.lines().next().unwrap_or(""))
    }
}

#[derive(Debug, thiserror::Error)]
pub enum GenerationError {
    #[error("class {class} not found: no source file under {} declares it", roots(.source_roots))]
    ClassNotFound {
        class: String,
        source_roots: Vec<PathBuf>,
    },
    /// The project does not compile even without instrumentation.
    #[error("{class} cannot be tested: the project does not compile ({})", first(.diagnostics))]
    DoesNotCompile {
        class: String,
        /// javac's errors, in the original sources.
        diagnostics: Vec<SourceDiagnostic>,
    },
    /// The tests cannot obtain an instance, nor call a static member.
    #[error("cannot test {class}: nothing instantiable ({reason})")]
    NothingInstantiable { class: String, reason: String },
    /// The compiled class could not be loaded or described.
    #[error("cannot test {class}: it could not be loaded ({reason})")]
    NotLoadable { class: String, reason: String },
    #[error("cannot read {}: {error}", .path.display())]
    Io {
        path: PathBuf,
        #[source]
        error: std::io::Error,
    },
    /// The JVM worker is unavailable or broke (no JDK, execution disabled, protocol error).
    #[error(transparent)]
    Jvm(#[from] jvm::JvmError),
    /// Cancelled before the search started, so there is nothing to return.
    #[error("generation for {class} was cancelled")]
    Cancelled { class: String },
}

fn roots(roots: &[PathBuf]) -> String {
    roots
        .iter()
        .map(|r| r.display().to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

fn first(diagnostics: &[SourceDiagnostic]) -> String {
    match diagnostics.first() {
        None => "no diagnostics".to_string(),
        Some(d) if diagnostics.len() == 1 => format!("1 error: {d}"),
        Some(d) => format!("{} errors; first: {d}", diagnostics.len()),
    }
}
