//! The regression guard in the editor (`ctg::regression`): before each run of an edited class,
//! its stored generated tests run again on the warm worker against the editor's text, and the
//! assertions that no longer hold become `behaviour-changed` warnings on the edited member;
//! the project's own tests of the class run too, in sandboxed JVMs, and their failures become
//! `project-test-failed` diagnostics at the failing line of the test file and on the member.
//! Code actions: "Accept the new behaviour" (the generated test file's assertions and the
//! store rewritten to the new values) and "Open the test".
//!
//! The reference behaviour (the *baseline*) is the store's record when the class was first
//! checked in the session; it is read again after a run whose check found no change (that
//! run's record describes the same behaviour with more tests), and replaced when the user
//! accepts. So a run after an edit that changed behaviour, which stores tests of the new
//! behaviour, does not silently make the change the reference: the warning stays until the
//! edit is undone or accepted.
//!
//! Hooks in the files of the LSP wing (each marked "regression guard hook"): `engine.rs`
//! (`Tracked::guard`, the job's `guard` in `start_run`, `RunUpdate::Guard` in `run_update`,
//! the guard's diagnostics in `publish_diagnostics`), `runner.rs` (`RunJob::guard`,
//! `RunUpdate::Guard`, [`check_before_run`] before the pipeline), `state.rs` (the guard's
//! code actions and commands), `capabilities.rs` (the commands).

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use ctg::project::ProjectLayout;
use ctg::regression::{
    self, BehaviourChange, CalledMember, CheckRequest, ProjectTestFailure, ProjectTests,
};
use ctg::store::{ClassRecord, Store};
use ctg::verify::VerifyOptions;
use javamodel::Member;
use serde_json::{json, Value};
use syntax::PositionEncoding;
use tower_lsp_server::ls_types::{
    CodeAction, CodeActionKind, Command, Diagnostic, DiagnosticRelatedInformation,
    DiagnosticSeverity, Location, NumberOrString, Position, Range, ShowDocumentParams, TextEdit,
    Uri,
};

use crate::lsp::diagnostics::diagnostic;
use crate::lsp::engine::Tracked;
use crate::lsp::results::Origin;
use crate::lsp::runner::{RunJob, RunUpdate};
use crate::lsp::state::{Event, State, WeakEventSender};
use crate::lsp::view::View;
use crate::open_file::OpenFile;

pub const BEHAVIOUR_CHANGED: &str = "behaviour-changed";
pub const PROJECT_TEST_FAILED: &str = "project-test-failed";
pub const ACCEPT_COMMAND: &str = "ctgls.acceptBehaviour";
pub const OPEN_TEST_COMMAND: &str = "ctgls.openTest";

/// The guard's state of one open class file (in its `Tracked`).
#[derive(Debug, Default)]
pub struct Guard {
    /// The behaviour the stored tests assert; `None` until the first check of the session.
    baseline: Option<Arc<ClassRecord>>,
    /// A run whose check found no change: once it has finished, its record is the baseline.
    clean_run: Option<u64>,
    /// What the last check found.
    findings: Option<Findings>,
    /// The text (`ctg::pipeline::source_hash`) of the last check that found nothing: its
    /// findings are not shown on that text (an undo back to it needs no check).
    clean_hash: Option<String>,
}

#[derive(Debug, Clone)]
struct Findings {
    class: String,
    project_root: PathBuf,
    /// The generated test file of the class (it may not exist).
    test_file: PathBuf,
    changes: Vec<BehaviourChange>,
    failures: Vec<ProjectTestFailure>,
}

/// What a run carries for the guard.
#[derive(Debug, Clone)]
pub struct GuardJob {
    /// `None` when the store has no tests with assertions: the project's tests still run.
    baseline: Option<Arc<ClassRecord>>,
}

/// What the generation thread tells the owner.
#[derive(Debug)]
pub struct GuardUpdate {
    run: u64,
    uri: Uri,
    /// The checked text of the class's file (`ctg::pipeline::source_hash`).
    hash: String,
    class: String,
    layout: ProjectLayout,
    changes: Vec<BehaviourChange>,
    /// `None` until the project's tests have run (they report in a second update).
    failures: Option<Vec<ProjectTestFailure>>,
}

/// The guard's part of a run of `class` (owner side): the baseline, read from the store when
/// there is none yet or after a clean run finished. `None` for background re-runs of an
/// unchanged class: nothing was edited.
pub fn job_for(
    tracked: &mut Tracked,
    layout: &ProjectLayout,
    class: &str,
    background: bool,
) -> Option<GuardJob> {
    let guard = &mut tracked.guard;
    let clean_finished = tracked
        .results
        .as_ref()
        .is_some_and(|r| r.origin == Origin::Final && Some(r.run) == guard.clean_run);
    if guard.baseline.is_none() || clean_finished {
        guard.clean_run = None;
        guard.baseline = match Store::open(&layout.root).load(class) {
            Ok(record) => record.map(Arc::new),
            Err(error) => {
                tracing::warn!("the regression guard has no stored tests of {class}: {error}");
                None
            }
        };
    }
    if background {
        return None;
    }
    let baseline = guard.baseline.clone().filter(|baseline| {
        baseline
            .suite
            .as_ref()
            .is_some_and(|s| s.methods.iter().any(|m| !m.assertions.is_empty()))
    });
    Some(GuardJob { baseline })
}

/// Runs the guard's checks of `job` before its search (generation thread): the stored tests
/// on the worker (reported at once), then the project's own tests of the class.
pub fn check_before_run(job: &RunJob, supervisor: &mut jvm::Supervisor, events: &WeakEventSender) {
    let Some(guard) = &job.guard else {
        return;
    };
    let project_tests = regression::find_project_tests(&job.layout, &job.overlays, &job.class);
    let Some(baseline) = &guard.baseline else {
        if !project_tests.files.is_empty() {
            run_project_tests(job, supervisor, events, Vec::new(), &project_tests);
        }
        return;
    };
    let request = CheckRequest {
        layout: &job.layout,
        overlays: &job.overlays,
        class: &job.class,
        record: baseline,
        test_timeout: Duration::from_secs(1),
    };
    let changes = match regression::check(&request, supervisor) {
        Ok(outcome) => {
            tracing::info!(
                "run {}: the stored tests of {} ran in {:?} (compile {:?}, describe {:?}, \
                 execute {:?}): {} changes",
                job.run,
                job.class,
                outcome.timings.total,
                outcome.timings.compile,
                outcome.timings.describe,
                outcome.timings.execute,
                outcome.changes.len()
            );
            outcome.changes
        }
        Err(error) => {
            // The run that follows reports a class that does not compile.
            tracing::info!("run {}: no regression check: {error}", job.run);
            return;
        }
    };
    events.send(Event::Run(RunUpdate::Guard(update(
        job,
        changes.clone(),
        None,
    ))));
    if !project_tests.files.is_empty() && !job.cancel.is_cancelled() {
        run_project_tests(job, supervisor, events, changes, &project_tests);
    }
}

fn run_project_tests(
    job: &RunJob,
    supervisor: &jvm::Supervisor,
    events: &WeakEventSender,
    changes: Vec<BehaviourChange>,
    tests: &ProjectTests,
) {
    let options = VerifyOptions {
        limits: supervisor.config().execution_limits(),
        archives: supervisor.shared_archives().clone(),
        harness_cache: supervisor.config().cache_dir.clone(),
        ..VerifyOptions::default()
    };
    let run = regression::run_project_tests(&job.layout, &job.overlays, tests, &options);
    for (class, why) in &run.not_run {
        tracing::info!("the project's test {class} did not run: {why}");
    }
    events.send(Event::Run(RunUpdate::Guard(update(
        job,
        changes,
        Some(run.failures),
    ))));
}

fn update(
    job: &RunJob,
    changes: Vec<BehaviourChange>,
    failures: Option<Vec<ProjectTestFailure>>,
) -> GuardUpdate {
    GuardUpdate {
        run: job.run,
        uri: job.uri.clone(),
        hash: ctg::pipeline::source_hash(job.model.text()),
        class: job.class.clone(),
        layout: job.layout.clone(),
        changes,
        failures,
    }
}

impl State {
    /// A check's results (owner side): kept with the file, and published.
    pub(super) async fn guard_update(&mut self, update: GuardUpdate) {
        let Some(tracked) = self.tracked.get_mut(&update.uri) else {
            return;
        };
        let before: Vec<PathBuf> = failure_files(&tracked.guard);
        let guard = &mut tracked.guard;
        if update.changes.is_empty() && update.failures.as_ref().is_none_or(Vec::is_empty) {
            guard.clean_run = Some(update.run);
            guard.clean_hash = Some(update.hash);
        } else {
            guard.clean_run = None;
        }
        let failures = match update.failures {
            Some(failures) => failures,
            // The project's tests report later: keep the last ones meanwhile.
            None => guard
                .findings
                .as_ref()
                .map(|f| f.failures.clone())
                .unwrap_or_default(),
        };
        guard.findings = Some(Findings {
            test_file: ctg::emit::test_file(&update.layout, &update.class),
            class: update.class,
            project_root: update.layout.root.clone(),
            changes: update.changes,
            failures,
        });
        let after = failure_files(&tracked.guard);
        self.publish_diagnostics(&update.uri).await;
        self.publish_test_files(before.into_iter().chain(after))
            .await;
    }

    /// Publishes the diagnostics of project test files (open or not).
    async fn publish_test_files(&mut self, files: impl Iterator<Item = PathBuf>) {
        let mut uris: Vec<Uri> = files.filter_map(|f| Uri::from_file_path(f)).collect();
        uris.sort_by(|a, b| a.as_str().cmp(b.as_str()));
        uris.dedup();
        for uri in uris {
            if self.files.contains_key(&uri) {
                self.publish_diagnostics(&uri).await;
            } else {
                let diagnostics = test_file_diagnostics(&uri, None, &self.tracked, self.encoding);
                self.client
                    .publish_diagnostics(uri, diagnostics, None)
                    .await;
            }
        }
    }
}

fn failure_files(guard: &Guard) -> Vec<PathBuf> {
    guard
        .findings
        .iter()
        .flat_map(|f| f.failures.iter().map(|failure| failure.file.clone()))
        .collect()
}

/// The guard's diagnostics of `uri` (an open file): the changes and failures of its class, and
/// the failures of the project's tests it holds.
pub fn diagnostics(
    uri: &Uri,
    file: &OpenFile,
    tracked: &std::collections::HashMap<Uri, Tracked>,
    encoding: PositionEncoding,
) -> Vec<Diagnostic> {
    let mut out = test_file_diagnostics(uri, Some(file), tracked, encoding);
    let Some(own) = tracked.get(uri) else {
        return out;
    };
    let Some(findings) = &own.guard.findings else {
        return out;
    };
    // Back on a text whose behaviour is known: the one the stored tests were verified on (no
    // behaviour changed), or one a check found clean (nothing at all). An undo needs no check.
    let hash = ctg::pipeline::source_hash(file.model().text());
    if own.guard.clean_hash.as_deref() == Some(hash.as_str()) {
        return out;
    }
    let at_baseline = own
        .guard
        .baseline
        .as_ref()
        .and_then(|b| b.last_run())
        .is_some_and(|r| r.run.source_hash == hash);
    let changes: &[BehaviourChange] = if at_baseline { &[] } else { &findings.changes };
    let view = own.results.as_deref().map(|r| View::new(file, r, encoding));
    let test_uri = findings
        .test_file
        .exists()
        .then(|| Uri::from_file_path(&findings.test_file))
        .flatten();
    for change in changes {
        let Some(range) = member_range(
            file,
            &findings.class,
            &change.called,
            view.as_ref(),
            encoding,
        ) else {
            continue;
        };
        let mut diagnostic = diagnostic(
            range,
            DiagnosticSeverity::WARNING,
            BEHAVIOUR_CHANGED,
            change.message.clone(),
            json!({ "test": change.method, "acceptable": change.replacement.is_some() }),
        );
        diagnostic.related_information = test_uri.as_ref().map(|uri| {
            vec![DiagnosticRelatedInformation {
                location: Location::new(uri.clone(), Range::default()),
                message: format!("{} asserts the old behaviour", change.method),
            }]
        });
        out.push(diagnostic);
    }
    for failure in &findings.failures {
        let called = [CalledMember {
            name: String::new(),
            erased_params: Vec::new(),
        }];
        let range = member_range(file, &findings.class, &called, view.as_ref(), encoding)
            .unwrap_or_default();
        let mut diagnostic = diagnostic(
            range,
            DiagnosticSeverity::WARNING,
            PROJECT_TEST_FAILED,
            format!(
                "{}.{} fails: {}",
                simple(&failure.test_class),
                failure.test,
                failure.message
            ),
            json!({ "testClass": failure.test_class, "test": failure.test }),
        );
        diagnostic.related_information = Uri::from_file_path(&failure.file).map(|uri| {
            vec![DiagnosticRelatedInformation {
                location: Location::new(uri, line_range(failure.line)),
                message: "the failing assertion".into(),
            }]
        });
        out.push(diagnostic);
    }
    out
}

/// The failures of every tracked class's project tests that are in `uri`.
fn test_file_diagnostics(
    uri: &Uri,
    file: Option<&OpenFile>,
    tracked: &std::collections::HashMap<Uri, Tracked>,
    encoding: PositionEncoding,
) -> Vec<Diagnostic> {
    let Some(path) = crate::lsp::workspace::uri_path(uri) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for findings in tracked.values().filter_map(|t| t.guard.findings.as_ref()) {
        for failure in findings.failures.iter().filter(|f| f.file == path) {
            let range = match (file, failure.line) {
                (Some(file), Some(line)) => {
                    crate::lsp::view::line_range(file, line.saturating_sub(1), encoding)
                        .unwrap_or_default()
                }
                _ => line_range(failure.line),
            };
            out.push(diagnostic(
                range,
                DiagnosticSeverity::ERROR,
                PROJECT_TEST_FAILED,
                format!(
                    "{} fails after the edit of {}: {}",
                    failure.test,
                    simple(&findings.class),
                    failure.message
                ),
                json!({ "testClass": failure.test_class, "test": failure.test }),
            ));
        }
    }
    out
}

/// The range of the member a finding is about: among the members the test calls, the first
/// whose text changed since the results shown (the edited one), else the first.
fn member_range(
    file: &OpenFile,
    class: &str,
    called: &[CalledMember],
    view: Option<&View>,
    encoding: PositionEncoding,
) -> Option<Range> {
    let ty = file.model().type_by_binary_name(class)?;
    let members: Vec<&Member> = called
        .iter()
        .filter_map(|c| ty.members.iter().find(|m| is_member(m, c)))
        .collect();
    let edited = members
        .iter()
        .find(|m| view.is_some_and(|v| !v.live(&m.key)))
        .or(members.first());
    let span = match edited {
        Some(member) => member.name_span.unwrap_or(member.span),
        None => ty.name_span.unwrap_or(ty.span),
    };
    file.document()
        .line_index()
        .text_range(span.start_byte..span.end_byte, encoding)
        .ok()
        .map(crate::lsp::to_proto::range)
}

/// Whether `member` is the called one: same name and parameters (erased, by simple name).
fn is_member(member: &Member, called: &CalledMember) -> bool {
    member.name == called.name
        && member.params.len() == called.erased_params.len()
        && member
            .params
            .iter()
            .zip(&called.erased_params)
            .all(|(p, erased)| simple(&p.signature_type) == simple(erased))
}

fn simple(name: &str) -> &str {
    name.rsplit(['.', '$']).next().unwrap_or(name)
}

fn line_range(line: Option<u32>) -> Range {
    let line = line.unwrap_or(1).saturating_sub(1);
    Range::new(Position::new(line, 0), Position::new(line, u32::MAX / 2))
}

/// The guard's code actions at `range` of `uri`: complete (edit and command), never resolved.
pub fn code_actions(state: &State, uri: &Uri, range: Range) -> Vec<CodeAction> {
    let Some(file) = state.files.get(uri) else {
        return Vec::new();
    };
    let here: Vec<Diagnostic> = diagnostics(uri, file, &state.tracked, state.encoding)
        .into_iter()
        .filter(|d| d.range.start <= range.end && range.start <= d.range.end)
        .collect();
    let mut out = Vec::new();
    let findings = state
        .tracked
        .get(uri)
        .and_then(|t| t.guard.findings.as_ref());
    let changed: Vec<&Diagnostic> = here
        .iter()
        .filter(|d| d.code == Some(NumberOrString::String(BEHAVIOUR_CHANGED.into())))
        .collect();
    if let (Some(findings), false) = (findings, changed.is_empty()) {
        if findings.changes.iter().any(|c| c.replacement.is_some()) {
            let edit = accept_edit(state, findings);
            out.push(CodeAction {
                title: "Accept the new behaviour".into(),
                kind: Some(CodeActionKind::QUICKFIX),
                diagnostics: Some(changed.iter().map(|d| (*d).clone()).collect()),
                edit,
                command: Some(Command::new(
                    "Accept the new behaviour".into(),
                    ACCEPT_COMMAND.into(),
                    Some(vec![json!({ "uri": uri.as_str() })]),
                )),
                ..CodeAction::default()
            });
        }
        if findings.test_file.exists() {
            out.push(open_test_action(&findings.test_file, None));
        }
    }
    for d in here
        .iter()
        .filter(|d| d.code == Some(NumberOrString::String(PROJECT_TEST_FAILED.into())))
    {
        if let Some(location) = d.related_information.as_ref().and_then(|r| r.first()) {
            if let Some(path) = crate::lsp::workspace::uri_path(&location.location.uri) {
                out.push(open_test_action(
                    &path,
                    Some(location.location.range.start.line),
                ));
            }
        }
    }
    out
}

fn open_test_action(path: &std::path::Path, line: Option<u32>) -> CodeAction {
    let uri = Uri::from_file_path(path)
        .map(|u| u.as_str().to_string())
        .unwrap_or_default();
    CodeAction {
        title: format!(
            "Open the test {}",
            path.file_name()
                .and_then(|n| n.to_str())
                .unwrap_or_default()
        ),
        kind: Some(CodeActionKind::EMPTY),
        command: Some(Command::new(
            "Open the test".into(),
            OPEN_TEST_COMMAND.into(),
            Some(vec![json!({ "test": uri, "line": line.unwrap_or(0) })]),
        )),
        ..CodeAction::default()
    }
}

/// The edit of the generated test file (the editor's buffer when open, else the disk) that
/// accepting the findings makes; `None` when the file is not there or holds none of them.
fn accept_edit(
    state: &State,
    findings: &Findings,
) -> Option<tower_lsp_server::ls_types::WorkspaceEdit> {
    let uri = Uri::from_file_path(&findings.test_file)?;
    let (text, version) = match state.files.get(&uri) {
        Some(open) => (open.document().text(), Some(open.document().version())),
        None => (std::fs::read_to_string(&findings.test_file).ok()?, None),
    };
    let baseline = state_baseline(state, findings)?;
    let accepted =
        regression::accept(baseline.suite.as_ref()?, &findings.changes, Some(&text)).ok()?;
    if accepted.file_edits.is_empty() {
        return None;
    }
    let lines: Vec<&str> = text.split('\n').collect();
    let edits = accepted
        .file_edits
        .into_iter()
        .map(|e| {
            // Whole lines, in UTF-16 or UTF-8 alike: from the first line's start to the end of
            // the last one (its length in either unit is at least its byte length's bound).
            let last = e.end_line.saturating_sub(1) as usize;
            let end_column = lines
                .get(last)
                .map_or(0, |l| l.encode_utf16().count() as u32);
            let end_column = match state.encoding {
                PositionEncoding::Utf8 => lines.get(last).map_or(0, |l| l.len() as u32),
                _ => end_column,
            };
            TextEdit::new(
                Range::new(
                    Position::new(e.first_line, 0),
                    Position::new(last as u32, end_column),
                ),
                e.text,
            )
        })
        .collect();
    Some(crate::lsp::actions::edit_document(
        &uri,
        version,
        edits,
        state.client_features.edits,
    ))
}

fn state_baseline(state: &State, findings: &Findings) -> Option<Arc<ClassRecord>> {
    state
        .tracked
        .values()
        .filter_map(|t| t.guard.baseline.clone())
        .find(|b| b.class == findings.class)
}

/// The guard's commands; `None` for any other command.
pub fn command(
    state: &mut State,
    command: &str,
    arguments: &[Value],
) -> Option<Result<Value, String>> {
    match command {
        ACCEPT_COMMAND => Some(accept_command(state, arguments)),
        OPEN_TEST_COMMAND => Some(open_test(state, arguments)),
        _ => None,
    }
}

/// Accepting: the store's class asserts the new values, the baseline is that record, and the
/// findings are gone (the test file's edit came with the code action).
fn accept_command(state: &mut State, arguments: &[Value]) -> Result<Value, String> {
    let uri: Uri = arguments
        .first()
        .and_then(|a| a.get("uri"))
        .and_then(Value::as_str)
        .ok_or("ctgls.acceptBehaviour needs {\"uri\": ...}")?
        .parse()
        .map_err(|e| format!("invalid uri: {e}"))?;
    let state_file_hash = state
        .files
        .get(&uri)
        .map(|file| ctg::pipeline::source_hash(file.model().text()));
    let tracked = state
        .tracked
        .get_mut(&uri)
        .ok_or_else(|| format!("{} is not an open Java file", uri.as_str()))?;
    let findings = tracked
        .guard
        .findings
        .take()
        .ok_or("no behaviour change to accept")?;
    let baseline = tracked.guard.baseline.clone().ok_or("no stored tests")?;
    let suite = baseline.suite.as_ref().ok_or("no stored test class")?;
    let accepted = match regression::accept(suite, &findings.changes, None) {
        Ok(accepted) => accepted,
        Err(error) => {
            tracked.guard.findings = Some(findings);
            return Err(error.to_string());
        }
    };
    let store = Store::open(&findings.project_root);
    store
        .replace_suite(&findings.class, accepted.suite.clone())
        .map_err(|e| format!("cannot update the store: {e}"))?;
    let mut record = (*baseline).clone();
    record.suite = Some(accepted.suite);
    // The stored class now describes the text as it is: that text is the baseline's.
    if let (Some(file), Some(last)) = (state_file_hash, record.history.last_mut()) {
        last.run.source_hash = file;
    }
    tracked.guard.baseline = Some(Arc::new(record));
    // The failures of the project's own tests are not accepted by this: they stay.
    let failures = findings.failures.clone();
    tracked.guard.findings = Some(Findings {
        changes: Vec::new(),
        failures,
        ..findings
    });
    republish(state, &uri);
    Ok(json!({ "accepted": accepted.accepted }))
}

/// Publishes `uri`'s diagnostics from a command (which cannot await): computed now, for the
/// version the editor has now, and sent from a task of its own.
fn republish(state: &State, uri: &Uri) {
    let (Some(file), Some(tracked)) = (state.files.get(uri), state.tracked.get(uri)) else {
        return;
    };
    let unavailable = state.unavailable_reason();
    let mut all = crate::lsp::diagnostics::compute(
        uri,
        file,
        tracked,
        unavailable.as_deref(),
        state.encoding,
    );
    all.extend(diagnostics(uri, file, &state.tracked, state.encoding));
    let version = file.document().version();
    let client = state.client.clone();
    let uri = uri.clone();
    tokio::spawn(async move {
        client.publish_diagnostics(uri, all, Some(version)).await;
    });
}

/// `window/showDocument` of a test file at a line, sent from a task of its own (the owner never
/// awaits the client).
fn open_test(state: &State, arguments: &[Value]) -> Result<Value, String> {
    let argument = arguments
        .first()
        .ok_or("ctgls.openTest needs {\"test\": uri}")?;
    let uri: Uri = argument
        .get("test")
        .and_then(Value::as_str)
        .ok_or("ctgls.openTest needs {\"test\": uri}")?
        .parse()
        .map_err(|e| format!("invalid uri: {e}"))?;
    let line = argument.get("line").and_then(Value::as_u64).unwrap_or(0) as u32;
    let client = state.client.clone();
    tokio::spawn(async move {
        let params = ShowDocumentParams {
            uri,
            external: Some(false),
            take_focus: Some(true),
            selection: Some(Range::new(Position::new(line, 0), Position::new(line, 0))),
        };
        if let Err(error) = client.show_document(params).await {
            tracing::debug!("window/showDocument failed: {error}");
        }
    });
    Ok(json!({ "opened": true }))
}
