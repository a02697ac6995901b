//! The LSP extension protocol of ctgls, typed: every custom message, command, diagnostic code
//! and `data` shape, as it travels on the wire (specified in `docs/lsp-extensions.md`; the
//! VS Code client's `editor-client/vscode/src/protocol.ts` mirrors it, and `tests.rs` checks
//! the two agree). The settings are `settings.rs`.
//!
//! API boundary: nothing else in the server builds extension JSON by hand; features fill
//! these structs and serde writes them.

pub mod settings;
#[cfg(test)]
mod tests;

use std::path::PathBuf;

use serde::{Deserialize, Serialize};
use tower_lsp_server::ls_types::notification::Notification;
use tower_lsp_server::ls_types::{
    Diagnostic, DiagnosticSeverity, NumberOrString, Range, TextDocumentIdentifier, Uri,
};

/// `ctgls/status`, server → client notification; also the result of the `ctgls.status`
/// command.
pub enum StatusNotification {}

impl Notification for StatusNotification {
    type Params = Status;
    const METHOD: &'static str = "ctgls/status";
}

/// `ctgls/coverageChanged`, server → client notification.
pub enum CoverageChanged {}

impl Notification for CoverageChanged {
    type Params = CoverageChangedParams;
    const METHOD: &'static str = "ctgls/coverageChanged";
}

/// `ctgls/coverage`, client → server request.
pub const COVERAGE: &str = "ctgls/coverage";
/// `ctgls/debugDocument`, a debugging request (tests, not editors; may change).
pub const DEBUG_DOCUMENT: &str = "ctgls/debugDocument";
/// `ctgls/debugConfig`, a debugging request: the settings in effect (`settings::Config`).
pub const DEBUG_CONFIG: &str = "ctgls/debugConfig";

/// The `workspace/executeCommand` commands.
pub mod command {
    /// Run generation now for the class of the argument's file (every open class without
    /// one). Result: [`super::Scheduled`].
    pub const GENERATE: &str = "ctgls.generate";
    /// Cancel the running and queued runs of the argument's file (all without one). Result:
    /// [`super::Cancelled`].
    pub const CANCEL: &str = "ctgls.cancel";
    /// Result: [`super::Status`].
    pub const STATUS: &str = "ctgls.status";
    /// Shows its argument's message ([`super::ExplainArgument`]) with `window/showMessage`:
    /// the command of a code action that cannot act yet, for clients that do not show
    /// disabled code actions. Result: `null`.
    pub const EXPLAIN: &str = "ctgls.explain";
    /// The stored tests of the argument's class ([`super::FileArgument`]) assert what its
    /// edited text does, which becomes the regression guard's reference; its
    /// `behaviour-changed` diagnostics are withdrawn. Result: [`super::Accepted`].
    pub const ACCEPT_BEHAVIOUR: &str = "ctgls.acceptBehaviour";
    /// Asks the client to show a test file at a line ([`super::OpenTestArgument`]). Result:
    /// [`super::Opened`].
    pub const OPEN_TEST: &str = "ctgls.openTest";
    /// Generates class-integration tests of a caller through its calls of a callee
    /// ([`super::IntegrationArgument`]), as `ctgls generate --class R --callee E` does, in the
    /// background. Result: [`super::Scheduled`].
    pub const GENERATE_INTEGRATION: &str = "ctgls.generateIntegration";
    /// Every command, as announced in `initialize`.
    pub const ALL: &[&str] = &[
        GENERATE,
        CANCEL,
        STATUS,
        EXPLAIN,
        ACCEPT_BEHAVIOUR,
        OPEN_TEST,
        GENERATE_INTEGRATION,
    ];
}

/// The argument of `ctgls.generate` and `ctgls.cancel` (no argument: every file).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FileArgument {
    pub uri: Uri,
}

/// The argument of `ctgls.explain`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ExplainArgument {
    pub message: String,
}

/// The argument of `ctgls.openTest`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OpenTestArgument {
    /// The test file.
    pub test: Uri,
    /// 0-based.
    pub line: u32,
}

/// The argument of `ctgls.generateIntegration`: the caller R and the callee E (binary names)
/// and their files.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct IntegrationArgument {
    pub caller: String,
    pub callee: String,
    pub caller_uri: Uri,
    pub callee_uri: Uri,
}

/// Result of `ctgls.acceptBehaviour`: how many assertions now state the new behaviour.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Accepted {
    pub accepted: usize,
}

/// Result of `ctgls.openTest`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Opened {
    pub opened: bool,
}

/// Result of `ctgls.generate`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Scheduled {
    pub scheduled: usize,
}

/// Result of `ctgls.cancel`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Cancelled {
    pub cancelled: usize,
}

/// Covered out of total (branches, lines).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Count {
    pub covered: usize,
    pub total: usize,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ServerState {
    Idle,
    Running,
    Unavailable,
}

/// Params of `ctgls/status`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Status {
    pub state: ServerState,
    pub message: String,
    pub running: Option<RunningClass>,
    /// Classes waiting for their idle delay, or asked for.
    pub queued: Vec<String>,
    pub classes: Vec<ClassStatus>,
    /// What concerns a project rather than a class, once.
    pub notes: Vec<String>,
    pub workspace_folders: Vec<PathBuf>,
    pub classpaths: Vec<ClasspathStatus>,
    pub version: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RunningClass {
    pub uri: Uri,
    pub class: String,
    pub phase: String,
    pub branches: Option<Count>,
    pub elapsed_ms: u64,
}

/// Where a class's figures come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ResultsOrigin {
    /// A finished run.
    Run,
    /// The run in progress (interim coverage).
    Running,
    /// The `.ctgls/` store (last session).
    Stored,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ClassStatus {
    pub uri: Uri,
    pub class: String,
    pub branches: Option<Count>,
    pub lines: Option<Count>,
    pub tests: Option<usize>,
    pub runs: u32,
    pub origin: Option<ResultsOrigin>,
    /// Why the class cannot be generated for, or its tests not verified.
    pub problem: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ClasspathState {
    Resolved,
    Cached,
    Fallback,
    Failed,
}

/// Where a project's classpath came from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ClasspathStatus {
    pub root: PathBuf,
    /// `Maven`, `Gradle`.
    pub tool: String,
    pub state: ClasspathState,
    pub entries: usize,
    pub sibling_sources: usize,
    pub message: Option<String>,
}

/// Params of `ctgls/coverage`: one file, or every file with results.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CoverageParams {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text_document: Option<TextDocumentIdentifier>,
}

/// Result of `ctgls/coverage`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CoverageResult {
    pub files: Vec<FileCoverage>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FileCoverage {
    pub uri: Uri,
    pub class: String,
    /// The document version the positions are for (`null` for files that are not open).
    pub version: Option<i32>,
    pub lines: Vec<LineCoverage>,
    pub branches: Vec<BranchCoverage>,
    pub methods: Vec<MethodCoverage>,
    pub summary: CoverageSummary,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct LineCoverage {
    /// 0-based, like LSP positions.
    pub line: u32,
    pub covered: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BranchCoverage {
    pub line: u32,
    pub range: Range,
    /// `true`, `false`, `case <label>`, `default`, `catch` or `entry`.
    pub label: String,
    pub covered: bool,
    /// The generated test method that covers the branch.
    pub test: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MethodCoverage {
    pub name: String,
    pub range: Range,
    pub branches: Count,
    pub tests: usize,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct CoverageSummary {
    pub lines: Count,
    pub branches: Count,
}

/// Params of `ctgls/coverageChanged`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CoverageChangedParams {
    pub uri: Uri,
}

/// Params of `ctgls/debugDocument`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DebugDocumentParams {
    pub uri: Uri,
}

/// Result of `ctgls/debugDocument` (`null` when the document is not open). `model` is
/// `javamodel::dump` of the model the server keeps up to date edit by edit.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DebugDocument {
    pub uri: Uri,
    pub version: i32,
    pub text: String,
    pub model: String,
}

/// The `source` of every ctgls diagnostic.
pub const DIAGNOSTIC_SOURCE: &str = "ctgls";

/// The `code` of a ctgls diagnostic: what the `diagnostics` setting names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum DiagnosticCode {
    UncoveredBranch,
    UndeclaredException,
    GenerationUnavailable,
    VerificationFailed,
    NeedsEnvironment,
    NondeterministicInput,
    /// A stored generated test's assertion no longer holds after an edit.
    BehaviourChanged,
    /// A test of the project's own failed after an edit.
    ProjectTestFailed,
}

impl DiagnosticCode {
    pub const ALL: &[DiagnosticCode] = &[
        DiagnosticCode::UncoveredBranch,
        DiagnosticCode::UndeclaredException,
        DiagnosticCode::GenerationUnavailable,
        DiagnosticCode::VerificationFailed,
        DiagnosticCode::NeedsEnvironment,
        DiagnosticCode::NondeterministicInput,
        DiagnosticCode::BehaviourChanged,
        DiagnosticCode::ProjectTestFailed,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            DiagnosticCode::UncoveredBranch => "uncovered-branch",
            DiagnosticCode::UndeclaredException => "undeclared-exception",
            DiagnosticCode::GenerationUnavailable => "generation-unavailable",
            DiagnosticCode::VerificationFailed => "verification-failed",
            DiagnosticCode::NeedsEnvironment => "needs-environment",
            DiagnosticCode::NondeterministicInput => "nondeterministic-input",
            DiagnosticCode::BehaviourChanged => "behaviour-changed",
            DiagnosticCode::ProjectTestFailed => "project-test-failed",
        }
    }

    pub fn parse(code: &str) -> Option<DiagnosticCode> {
        DiagnosticCode::ALL
            .iter()
            .copied()
            .find(|c| c.as_str() == code)
    }
}

/// `data` of an `uncovered-branch` diagnostic.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct UncoveredBranchData {
    pub uri: Uri,
    pub class: String,
    /// `…#withdraw(long)/B1.T`.
    pub goal: String,
    pub run: u64,
}

/// `data` of an `undeclared-exception` diagnostic.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct UndeclaredExceptionData {
    pub uri: Uri,
    pub class: String,
    /// Binary name: `java.lang.ArithmeticException`.
    pub exception: String,
    /// The member the test called: `…#interest(int)`.
    pub member: String,
    pub index: usize,
    pub run: u64,
}

/// `data` of a `needs-environment` diagnostic.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NeedsEnvironmentData {
    pub uri: Uri,
    pub class: String,
    /// The path, address or program.
    pub target: String,
    pub goals: Vec<String>,
    pub run: u64,
}

/// `data` of a `nondeterministic-input` diagnostic.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct NondeterministicInputData {
    /// What is read: `clock`, `random`, `uuid`, `environment`, `system-property`, `machine`, `time-zone`,
    /// `locale`, `charset`, `console`, `file`, `network` (`ctg::nondeterminism::InputKind`).
    pub kind: String,
    /// `the environment variable "API_TOKEN"`.
    pub reads: String,
    /// The class's own helper method the input is read through, when it is not read here.
    #[serde(default)]
    pub through: Option<String>,
    /// `test: subject (why)` of each assertion of the last run left out because of it.
    #[serde(default)]
    pub left_out: Vec<String>,
}

/// `data` of a `behaviour-changed` diagnostic.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BehaviourChangedData {
    /// The stored test method whose assertion no longer holds.
    pub test: String,
    /// An assertion can state the new behaviour (not when the test now throws before it, or
    /// no longer throws): "Accept the new behaviour" is offered.
    pub acceptable: bool,
}

/// `data` of a `project-test-failed` diagnostic.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ProjectTestFailedData {
    /// Binary name of the project's test class.
    pub test_class: String,
    /// The failing test method.
    pub test: String,
    /// The test file, and its failing line (0-based) when known: "Open the test" goes there.
    pub file: Option<Uri>,
    pub line: Option<u32>,
}

/// A ctgls diagnostic: `source` and `code` as `docs/lsp-extensions.md` lists them, and the
/// code's typed `data`.
pub fn diagnostic(
    range: Range,
    severity: DiagnosticSeverity,
    code: DiagnosticCode,
    message: String,
    data: impl Serialize,
) -> Diagnostic {
    Diagnostic {
        range,
        severity: Some(severity),
        code: Some(NumberOrString::String(code.as_str().to_string())),
        source: Some(DIAGNOSTIC_SOURCE.to_string()),
        message,
        data: serde_json::to_value(data).ok(),
        ..Diagnostic::default()
    }
}

/// `data` of the diagnostics that carry nothing for code actions
/// (`generation-unavailable`, `verification-failed`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct NoData {}

/// The source action kind of "Generate tests for class X".
pub const GENERATE_TESTS_KIND: &str = "source.generateTests.ctgls";

/// The source action kind of "Generate integration tests through R" (a kind below
/// [`GENERATE_TESTS_KIND`], so asking for that kind brings it too).
pub const GENERATE_INTEGRATION_TESTS_KIND: &str = "source.generateTests.ctgls.integration";
