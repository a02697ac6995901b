//! Requests and results of the worker, as plain Rust values (no serde: the wire format lives in
//! `proto`, the only module that reads or writes JSON).

use std::fmt;
use std::path::PathBuf;
use std::time::Duration;

use javatext::JavaText;

/// A compilation unit set: the classes of one successful compile, which describe and execute
/// requests refer to. Stays valid across worker restarts (the supervisor recompiles on demand).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct UnitId(pub u64);

impl UnitId {
    pub(crate) fn wire(self) -> String {
        format!("u{}", self.0)
    }
}

/// One source file of the project. `instrumented`, when present, is compiled instead of `text`.
///
/// Invariant: instrumented text keeps every original line on the same line number (probes are
/// inserted inline), so diagnostic lines and stack-frame lines are original lines.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceFile {
    /// Path relative to a source root, e.g. `com/acme/Account.java`; used as the file's identity.
    pub path: String,
    pub text: String,
    pub instrumented: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CompileRequest {
    pub sources: Vec<SourceFile>,
    /// Jars and class directories the project compiles and runs against.
    pub classpath: Vec<PathBuf>,
    /// Extra javac options, e.g. `["--release", "17"]`.
    pub options: Vec<String>,
    /// The files compiled for sure ([`SourceFile::path`]s); the other sources are compiled only
    /// when the roots need their types, transitively, and the unit holds what the roots reach.
    /// `None`: every source is a root.
    pub roots: Option<Vec<String>>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct CompileResult {
    /// Present when compilation succeeded.
    pub unit: Option<UnitId>,
    pub diagnostics: Vec<Diagnostic>,
    /// Binary names of the unit's classes.
    pub classes: Vec<String>,
    /// The sources whose classes the unit holds (the roots' closure), sorted.
    pub files: Vec<String>,
    pub compiled_files: u32,
    pub reused_files: u32,
    /// Files whose compiled classes this request loaded from the compile cache on disk (see
    /// [`Supervisor::use_compile_cache_of`](crate::Supervisor::use_compile_cache_of)); they count
    /// as reused when the closure holds them.
    pub cache_loaded_files: u32,
    /// Why the compile cache on disk could not be read (a damaged file): the request compiled
    /// without it.
    pub cache_error: Option<String>,
}

/// What [`Supervisor::save_compile_cache`](crate::Supervisor::save_compile_cache) did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CompileCacheSave {
    /// The cache file now holds what the worker compiled.
    Saved { files: u64, bytes: u64 },
    /// The worker compiled nothing new since the cache was last saved or loaded.
    Unchanged,
    /// No compile cache is in use (none was asked for, it is turned off, or no worker runs).
    NotInUse,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DiagnosticKind {
    Error,
    Warning,
    MandatoryWarning,
    Note,
    Other,
}

/// A javac diagnostic. Positions are those of the compiled text; for instrumented files the
/// line is also the original line (see [`SourceFile`]), the column may differ.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    pub kind: DiagnosticKind,
    pub message: String,
    pub file: Option<String>,
    /// 1-based.
    pub line: Option<u32>,
    /// 1-based.
    pub column: Option<u32>,
    /// Character offsets into the compiled text.
    pub start: Option<u64>,
    pub end: Option<u64>,
    pub code: Option<String>,
    /// The file was compiled from its instrumented text.
    pub instrumented: bool,
}

// ---------------------------------------------------------------------------- describe

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DescribeResult {
    pub classes: Vec<ClassInfo>,
    /// Requested or mentioned types that could not be loaded: (name, reason).
    pub missing: Vec<(String, String)>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TypeKind {
    Class,
    Interface,
    Enum,
    Record,
    Annotation,
}

/// The non-private members of one type, with the facts that decide which of them a test in a
/// given package can use (`modifiers`, `declaring_class`, `package`, `access`). Type names use `Class.getTypeName()` form: `int`, `int[]`,
/// `java.util.List`, `com.acme.Outer$Inner`; generic forms like `java.util.List<java.lang.String>`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClassInfo {
    pub name: String,
    pub kind: TypeKind,
    pub modifiers: Vec<String>,
    /// Compiled from the project's sources (as opposed to the classpath or the JDK).
    pub project: bool,
    pub is_public: bool,
    /// The package (`""` for the unnamed one).
    pub package: String,
    /// Effective access: the most restrictive of the class's own and its enclosing classes'
    /// (`public`, `protected`, `package`, `private`; local and anonymous classes are `private`).
    pub access: String,
    pub is_abstract: bool,
    /// A non-static member class: its constructors take the outer instance first.
    pub inner_class: bool,
    pub declaring_class: Option<String>,
    pub superclass: Option<String>,
    pub generic_superclass: Option<String>,
    pub interfaces: Vec<String>,
    /// `interfaces` with their type arguments (`p.Named<java.lang.Integer>`), in the same order;
    /// raw names where reflection could not resolve them, empty from a worker that predates them.
    pub generic_interfaces: Vec<String>,
    pub type_parameters: Vec<String>,
    /// Non-private constructors (none for abstract classes, interfaces and enums).
    pub constructors: Vec<ConstructorInfo>,
    /// Non-private methods that are members of the class (JLS 8.4.8: inherited ones included,
    /// a package-private one only along a chain of classes of its package), except those
    /// declared by `java.lang.Object`.
    pub methods: Vec<MethodInfo>,
    /// Non-private fields that are members of the class, by the same rules.
    pub fields: Vec<FieldInfo>,
    pub enum_constants: Vec<String>,
    pub record_components: Vec<RecordComponent>,
    pub permitted_subclasses: Vec<String>,
    /// Project classes assignable to this type whose effective access is not `private`.
    pub subclasses: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Param {
    pub type_name: String,
    pub generic: String,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConstructorInfo {
    pub params: Vec<Param>,
    pub exceptions: Vec<String>,
    pub varargs: bool,
    pub modifiers: Vec<String>,
    pub type_parameters: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MethodInfo {
    pub name: String,
    pub declaring_class: String,
    pub is_static: bool,
    pub return_type: String,
    pub generic_return_type: Option<String>,
    /// A static method whose return type is assignable to the described type.
    pub factory: bool,
    pub params: Vec<Param>,
    pub exceptions: Vec<String>,
    pub varargs: bool,
    pub modifiers: Vec<String>,
    pub type_parameters: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldInfo {
    pub name: String,
    pub declaring_class: String,
    pub type_name: String,
    pub generic_type: Option<String>,
    pub is_static: bool,
    pub is_final: bool,
    pub modifiers: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordComponent {
    pub name: String,
    pub type_name: String,
    pub generic_type: String,
}

// ---------------------------------------------------------------------------- execute

/// A literal for a primitive or String statement.
#[derive(Debug, Clone, PartialEq)]
pub enum Literal {
    Boolean(bool),
    Byte(i8),
    Short(i16),
    Char(char),
    Int(i32),
    Long(i64),
    Float(f32),
    Double(f64),
    String(String),
}

/// Index of an earlier statement of the same test case, whose value is used.
pub type ValueRef = usize;

/// One statement of a test case (Fraser and Arcuri, "Whole Test Suites", section III-B). Statement `i` defines value `i`;
/// void statements define `null`. Type and parameter names use `Class.getTypeName()` form.
#[derive(Debug, Clone, PartialEq)]
pub enum Statement {
    Value(Literal),
    Null {
        type_name: String,
    },
    EnumConstant {
        type_name: String,
        name: String,
    },
    New {
        class: String,
        params: Vec<String>,
        args: Vec<ValueRef>,
    },
    /// `receiver: None` calls a static method.
    Call {
        class: String,
        method: String,
        params: Vec<String>,
        receiver: Option<ValueRef>,
        args: Vec<ValueRef>,
    },
    GetField {
        class: String,
        field: String,
        receiver: Option<ValueRef>,
    },
    SetField {
        class: String,
        field: String,
        receiver: Option<ValueRef>,
        value: ValueRef,
    },
    NewArray {
        component: String,
        length: u32,
    },
    SetElement {
        array: ValueRef,
        index: u32,
        value: ValueRef,
    },
    GetElement {
        array: ValueRef,
        index: u32,
    },
    /// `System.setIn` with the UTF-8 bytes of `text` (defines `null`).
    ConsoleInput {
        text: String,
    },
    /// `System.setProperty(key, value)` (defines `null`).
    SystemProperty {
        key: String,
        value: String,
    },
    /// The path, as `type_name` (`java.lang.String`, `java.io.File` or `java.nio.file.Path`), of
    /// the file `name` in the test's own directory under `java.io.tmpdir`, holding `content`
    /// (UTF-8), or of no file when `content` is `None`.
    InputFile {
        name: String,
        content: Option<String>,
        type_name: String,
    },
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct TestCase {
    pub statements: Vec<Statement>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExecuteOptions {
    /// Deadline of one test; the probes throw after it, the worker escalates after that.
    pub timeout_per_test: Duration,
    /// Also observe no-arg getters of produced objects (for assertion generation): the public
    /// ones, and the package-private and protected ones declared in `test_package`.
    pub observe_getters: bool,
    /// The package the emitted tests are in (that of the class under test), whose
    /// package-private and protected getters a test can call; `None` observes public ones only.
    pub test_package: Option<String>,
    /// The Java release the emitted tests are compiled at: getters of JDK classes that release
    /// does not have (`Optional.isEmpty` below 11) are not observed. `None`: the worker's own.
    pub release: Option<u32>,
    pub max_getters: u32,
    /// Bytes of stdout and of stderr kept per test.
    pub output_limit: u32,
    /// Exception frames are reported in these classes (and their nested classes); empty means
    /// every project class.
    pub classes_under_test: Vec<String>,
    /// Give every test a fresh class loader even when the worker could prove that reusing the
    /// previous test's loader is unobservable (docs/protocol.md, "Isolation"). Slower; for
    /// debugging and measurement.
    pub fresh_loader_per_test: bool,
    /// The mutant switched on for every test of the request (mutant schemata: the unit was
    /// compiled from source instrumented with mutants); `None` runs the original code. A
    /// mutated request gives every test a fresh class loader, so that no static state crosses
    /// between the original and a mutant.
    pub mutant: Option<ActiveMutant>,
}

/// A mutant of an instrumented file, by the file's probe key
/// (`javamodel::instrument::ProbeTable::key`) and its local id in the file's mutant table.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ActiveMutant {
    pub key: String,
    pub id: u32,
}

impl Default for ExecuteOptions {
    fn default() -> Self {
        ExecuteOptions {
            timeout_per_test: Duration::from_secs(1),
            observe_getters: false,
            test_package: None,
            release: None,
            max_getters: 16,
            output_limit: 16 * 1024,
            classes_under_test: Vec::new(),
            fresh_loader_per_test: false,
            mutant: None,
        }
    }
}

/// The result of one `execute` call. The supervisor restarts the worker on the next request
/// after `Timeout` or `Crashed`.
#[derive(Debug, Clone, PartialEq)]
pub enum ExecutionOutcome {
    /// One result per test case, in order.
    Finished(Vec<TestResult>),
    /// The worker stopped answering within the batch deadline and was killed.
    Timeout { completed: Vec<TestResult> },
    /// The worker process ended during the batch (exit, halt, signal, fatal error).
    Crashed {
        reason: CrashReason,
        completed: Vec<TestResult>,
    },
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CrashReason {
    pub exit: ExitKind,
    /// The last bytes the JVM wrote to its stdout/stderr (JVM errors, user prints to fd 1/2).
    pub console_tail: String,
}

impl fmt::Display for CrashReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.exit {
            ExitKind::Code(c) => write!(f, "exit code {c}")?,
            ExitKind::Signal(s) => write!(f, "killed by signal {s}")?,
            ExitKind::Unknown => write!(f, "ended")?,
        }
        let tail = self.console_tail.trim();
        if !tail.is_empty() {
            write!(f, "; output: {}", tail.lines().last().unwrap_or(""))?;
        }
        Ok(())
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExitKind {
    Code(i32),
    Signal(i32),
    Unknown,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TestStatus {
    /// Every statement ran.
    Ok,
    /// A statement threw; see [`TestResult::exception`].
    Exception,
    /// A statement could not be executed as written (unknown member, wrong arity or types, bad
    /// reference): Java would not compile it. A null receiver is an `Exception` (an NPE).
    Invalid,
    Timeout,
    /// `System.exit` was blocked (Java 11-17); see [`TestResult::exit_status`].
    SystemExit,
    StackOverflow,
    OutOfMemory,
}

#[derive(Debug, Clone, PartialEq)]
pub struct TestResult {
    pub status: TestStatus,
    /// The statement at which the test ended when the status is not `Ok`.
    pub failed_at: Option<usize>,
    /// Results of the statements that completed, in order.
    pub statements: Vec<StatementResult>,
    pub exception: Option<ThrownException>,
    /// Why the test is `Invalid`.
    pub message: Option<String>,
    pub exit_status: Option<i32>,
    /// A `System.exit` attempt that user code caught and swallowed.
    pub exit_attempted: Option<i32>,
    pub trace: ExecutionTrace,
    pub stdout: String,
    pub stderr: String,
    pub output_truncated: bool,
    pub duration: Duration,
    /// Threads started by the test that survived interruption.
    pub leaked_threads: u32,
    /// Processes the worker killed after the test: what this test (or, rarely, the one before
    /// it) started and left running.
    pub processes_killed: u32,
    /// The test ran in a class loader no earlier test used. When false, the worker proved that
    /// the classes the earlier tests left loaded hold no state they could have changed.
    pub fresh_loader: bool,
    /// Why the next test cannot reuse this test's class loader (the first class found with
    /// static state, an abnormal end, ...); `None` when it can, or when reuse was not allowed.
    pub loader_dropped: Option<String>,
    /// What the test needed of its environment (files written outside the temporary directory,
    /// connections, processes) or was refused by the sandbox; empty when nothing. Such a test
    /// must not become a written test (docs/protocol.md, "Environment").
    pub environment: Vec<EnvironmentNeed>,
}

/// One thing a test needed of its environment, as the worker saw it: through the security
/// manager's checks before the JDK tried it, or through the errno text of the exception a
/// refusal of the sandbox raised.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EnvironmentNeed {
    pub kind: EnvironmentKind,
    /// What the code did, as a verb for messages: `writes`, `deletes`, `reads`, `opens`,
    /// `accesses`, `connects to`, `resolves`, `listens on`, `starts`.
    pub action: String,
    /// The path, `host:port`, URL or program, as the test named it (a relative path says so).
    pub target: String,
    /// The sandbox refused it (an errno text was seen); false when only the security manager's
    /// check saw the attempt, which the sandbox may have allowed (a relative path in the
    /// scratch directory) or refused without an exception (`File.mkdir()` returning false).
    pub refused: bool,
    /// The refusal's exception, `type: message`, when one was seen.
    pub detail: Option<String>,
    /// The instrumented file (its probe key) and 1-based line of the innermost frame in one,
    /// when the stack had one.
    pub file: Option<String>,
    pub line: Option<u32>,
}

impl EnvironmentNeed {
    /// `writes /home/x/out.txt`, `connects to example.com:443`, `starts ls`.
    pub fn describe(&self) -> String {
        format!("{} {}", self.action, self.target)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EnvironmentKind {
    File,
    Network,
    Process,
}

impl EnvironmentKind {
    pub fn as_str(self) -> &'static str {
        match self {
            EnvironmentKind::File => "file",
            EnvironmentKind::Network => "network",
            EnvironmentKind::Process => "process",
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub enum StatementResult {
    Void,
    Value(Observation),
}

/// What was observed about one statement's value.
#[derive(Debug, Clone, PartialEq)]
pub struct Observation {
    /// Primitive name for primitive values, else the runtime class (the declared type for null).
    pub type_name: Option<String>,
    pub is_null: bool,
    pub value: Option<ObservedValue>,
    pub enum_constant: Option<String>,
    /// Array length.
    pub length: Option<u64>,
    /// The String value was cut at 1000 chars.
    pub truncated: bool,
    /// Public no-arg getters returning simple values, when asked for.
    pub getters: Vec<GetterObservation>,
}

#[derive(Debug, Clone, PartialEq)]
pub enum ObservedValue {
    Bool(bool),
    Integer(i64),
    /// Also `NaN` and infinities.
    Float(f64),
    /// Strings and chars (a char as a one-unit text), exactly: a Java string need not be valid
    /// Unicode.
    Text(JavaText),
}

#[derive(Debug, Clone, PartialEq)]
pub struct GetterObservation {
    pub name: String,
    pub outcome: GetterOutcome,
}

#[derive(Debug, Clone, PartialEq)]
pub enum GetterOutcome {
    Value(ObservedValue),
    Enum(String),
    Null,
    Threw(String),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ThrownException {
    pub type_name: String,
    /// Exactly, like an observed String: user code builds messages from any text.
    pub message: Option<JavaText>,
    /// Listed in the `throws` clause of the called constructor or method.
    pub declared: bool,
    pub checked: bool,
    /// Top stack frame inside the classes under test.
    pub frame: Option<StackFrame>,
    pub cause: Option<String>,
    /// Thrown by the statement itself, as the same Java statement would, before any code under
    /// test ran: a call or field access on a null receiver (NullPointerException), unboxing a
    /// null, an array index out of bounds. `declared` is false and `frame` is `None` then.
    pub by_statement: bool,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StackFrame {
    pub class: String,
    pub method: String,
    pub file: Option<String>,
    pub line: Option<u32>,
}

/// The probe trace of one test: per instrumented file, per kind, only the ids that were reached.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ExecutionTrace {
    pub files: Vec<FileTrace>,
    pub proxies: PerformanceProxies,
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct FileTrace {
    /// The key the instrumented file registered with (`Probe.register`).
    pub key: String,
    pub branches: Vec<BranchTrace>,
    /// (line id, hits).
    pub lines: Vec<(u32, u64)>,
    /// (method id, entries).
    pub methods: Vec<(u32, u64)>,
    /// (loop id, iterations).
    pub loops: Vec<(u32, u64)>,
    /// The exceptions that left method and constructor bodies of the file, one per (method id,
    /// type, raising line), sorted so.
    pub escapes: Vec<EscapeTrace>,
    /// Strings the file's code compared its data with (given to `equals`, `startsWith`, ...),
    /// distinct, in first-seen order: the dynamic seeds the server adds to a value pool
    /// (`Probe.seed`, docs/protocol.md).
    pub seeds: Vec<ObservedValue>,
    /// (local mutant id, infection distance) of every mutant of the file the test reached, by
    /// id: the minimum distance to the mutated expression's value differing from the
    /// original's, 0 when it did (weak mutation; `ctgls.rt.Mutants`, docs/protocol.md). Only
    /// files compiled with their mutants have them.
    pub mutants: Vec<(u32, f64)>,
}

/// Exceptions of one type that left one method or constructor body from one raising line
/// (`Probe.escaped`), whether or not a caller caught them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EscapeTrace {
    /// The method id (the one `enter` reports) of the body the exception left.
    pub method: u32,
    /// Binary name of the exception's class.
    pub type_name: String,
    /// Its superclasses, nearest first, up to `java.lang.Throwable`.
    pub supertypes: Vec<String>,
    /// The line that raised it: the top stack frame in the file, a line of the class that
    /// called a JDK method that threw. `None` when no frame of the file was on the exception's
    /// stack trace (one made elsewhere, or without a stack trace).
    pub line: Option<u32>,
    /// How many times it left that body.
    pub hits: u64,
}

/// Minimal distances seen for one branch id; 0 means that outcome was taken.
#[derive(Debug, Clone, PartialEq)]
pub struct BranchTrace {
    pub id: u32,
    pub hits: u64,
    pub true_distance: f64,
    pub false_distance: f64,
}

/// Dynamic performance proxies of aDynaMOSA (Grano et al., "Testing with Fewer Resources", Table I: I1, I2, I4, I5).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PerformanceProxies {
    pub loop_iterations: u64,
    pub method_calls: u64,
    pub instantiations: u64,
    pub statements: u64,
}

/// What the running worker reported about itself.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WorkerInfo {
    pub protocol: u64,
    pub java_version: String,
    pub java_feature: u32,
    /// System.exit inside tests is blocked (a SecurityManager could be installed).
    pub exit_blocking: bool,
    pub pid: u32,
}
