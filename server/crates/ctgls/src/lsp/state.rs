//! The owner of editor state. One task receives every state-changing notification as an
//! `Event`, in the order the client sent them, and applies them one at a time; readers get
//! snapshots (cheap `OpenFile` clones) through a reply channel.
//!
//! Architecture invariant: nothing else holds the document store or the configuration, so
//! no lock is needed and a `didChange` can never be applied before the one sent before it.

use std::collections::{HashMap, HashSet};
use std::ops::ControlFlow;
use std::path::PathBuf;

use futures::FutureExt;
use serde_json::{json, Value};
use syntax::{PositionEncoding, TextChange, TextPosition};

use crate::open_file::OpenFile;
use tokio::sync::{mpsc, oneshot};
use tower_lsp_server::ls_types::{
    CodeAction, CodeActionKind, CodeLens, Diagnostic, MessageType, ProgressToken, Range, Uri,
};
use tower_lsp_server::Client;

use crate::logging::LogLevelControl;
use crate::lsp::actions::{self, ActionData, EditSupport, TestFileNow};
use crate::lsp::config::{self, Config, SECTION};
use crate::lsp::engine::{Running, Tracked};
use crate::lsp::runner::{ClasspathStatus, RunFailure, RunUpdate, Runner};
use crate::lsp::view::View;
use crate::lsp::workspace::{uri_path, Workspace};
use crate::lsp::{coverage, hover, lens};

/// What the client can do, from `initialize`.
#[derive(Debug, Clone, Copy, Default)]
pub struct ClientFeatures {
    pub work_done_progress: bool,
    pub code_lens_refresh: bool,
    pub edits: EditSupport,
    /// The client resolves a code action's `edit` lazily (`codeAction/resolve`).
    pub resolve_edit: bool,
}

/// Everything that reaches the owner task.
#[derive(Debug)]
pub enum Event {
    /// Sent by the `initialize` handler, before any other event.
    Initialize {
        encoding: PositionEncoding,
        features: ClientFeatures,
        folders: Vec<PathBuf>,
    },
    /// `initialized`: runs may start.
    Initialized,
    /// `workspace/didChangeWorkspaceFolders`.
    WorkspaceFolders {
        added: Vec<PathBuf>,
        removed: Vec<PathBuf>,
    },
    /// The idle delay after edit `seq` of `uri` passed.
    Idle {
        uri: Uri,
        seq: u64,
    },
    /// From the generation thread.
    Run(RunUpdate),
    Hover {
        uri: Uri,
        position: TextPosition,
        reply: oneshot::Sender<Option<String>>,
    },
    CodeLens {
        uri: Uri,
        reply: oneshot::Sender<Vec<CodeLens>>,
    },
    CodeActions {
        uri: Uri,
        range: Range,
        diagnostics: Vec<Diagnostic>,
        only: Option<Vec<CodeActionKind>>,
        reply: oneshot::Sender<Vec<CodeAction>>,
    },
    ResolveAction {
        action: Box<CodeAction>,
        reply: oneshot::Sender<Result<CodeAction, String>>,
    },
    Coverage {
        uri: Option<Uri>,
        reply: oneshot::Sender<Value>,
    },
    /// `workspace/executeCommand` for the `ctgls.*` commands.
    Command {
        command: String,
        arguments: Vec<Value>,
        reply: oneshot::Sender<Result<Value, String>>,
    },
    /// `window/workDoneProgress/cancel`.
    CancelProgress {
        token: ProgressToken,
    },
    DidOpen {
        uri: Uri,
        version: i32,
        text: String,
    },
    DidChange {
        uri: Uri,
        version: i32,
        changes: Vec<TextChange>,
    },
    DidSave {
        uri: Uri,
    },
    DidClose {
        uri: Uri,
    },
    /// A settings object for the `ctgls` section (`null` when the client has none). Settings
    /// older than the newest applied `generation` are dropped: pulls can answer out of order.
    Settings {
        generation: u64,
        settings: Value,
        origin: SettingsOrigin,
    },
    DocumentSnapshot {
        uri: Uri,
        reply: oneshot::Sender<Option<OpenFile>>,
    },
    ConfigSnapshot {
        reply: oneshot::Sender<Config>,
    },
    /// Stop after everything sent before has been applied; `done` is answered just before.
    Shutdown {
        done: oneshot::Sender<()>,
    },
}

impl Event {
    /// The event's name, for logs.
    fn name(&self) -> &'static str {
        match self {
            Event::Initialize { .. } => "initialize",
            Event::Initialized => "initialized",
            Event::WorkspaceFolders { .. } => "workspace/didChangeWorkspaceFolders",
            Event::Idle { .. } => "an idle timer",
            Event::Run(_) => "a generation update",
            Event::Hover { .. } => "textDocument/hover",
            Event::CodeLens { .. } => "textDocument/codeLens",
            Event::CodeActions { .. } => "textDocument/codeAction",
            Event::ResolveAction { .. } => "codeAction/resolve",
            Event::Coverage { .. } => "ctgls/coverage",
            Event::Command { .. } => "workspace/executeCommand",
            Event::CancelProgress { .. } => "window/workDoneProgress/cancel",
            Event::DidOpen { .. } => "textDocument/didOpen",
            Event::DidChange { .. } => "textDocument/didChange",
            Event::DidSave { .. } => "textDocument/didSave",
            Event::DidClose { .. } => "textDocument/didClose",
            Event::Settings { .. } => "settings",
            Event::DocumentSnapshot { .. } => "a document snapshot",
            Event::ConfigSnapshot { .. } => "a configuration snapshot",
            Event::Shutdown { .. } => "shutdown",
        }
    }
}

/// Where settings came from, for messages.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SettingsOrigin {
    InitializationOptions,
    WorkspaceConfiguration,
    DidChangeConfiguration,
}

impl SettingsOrigin {
    fn describe(self) -> &'static str {
        match self {
            SettingsOrigin::InitializationOptions => "initializationOptions",
            SettingsOrigin::WorkspaceConfiguration => "workspace/configuration",
            SettingsOrigin::DidChangeConfiguration => "workspace/didChangeConfiguration",
        }
    }
}

pub type EventSender = mpsc::UnboundedSender<Event>;

/// A sender of events to the owner that does not keep the owner alive: what the owner gives
/// its own timers and the generation thread. When the client connection is gone (the backend
/// and its sender dropped), the owner ends even though they still hold one of these.
#[derive(Clone)]
pub struct WeakEventSender(mpsc::WeakUnboundedSender<Event>);

impl WeakEventSender {
    pub fn new(sender: &EventSender) -> WeakEventSender {
        WeakEventSender(sender.downgrade())
    }

    /// `false` when the owner is gone.
    pub fn send(&self, event: Event) -> bool {
        self.0
            .upgrade()
            .is_some_and(|sender| sender.send(event).is_ok())
    }
}

pub struct State {
    pub(super) client: Client,
    log_level: LogLevelControl,
    pub(super) encoding: PositionEncoding,
    /// Every open file with its Java model, kept up to date edit by edit.
    pub(super) files: HashMap<Uri, OpenFile>,
    pub(super) config: Config,
    config_generation: u64,
    /// A sender to itself, for timers and the generation thread.
    pub(super) events: WeakEventSender,
    pub(super) client_features: ClientFeatures,
    pub(super) workspace: Workspace,
    /// `initialized` arrived.
    pub(super) initialized: bool,
    /// Generation state of every open Java file.
    pub(super) tracked: HashMap<Uri, Tracked>,
    /// The generation thread, started with the first run.
    pub(super) runner: Option<Runner>,
    pub(super) running: Option<Running>,
    pub(super) next_run: u64,
    /// A failure that stops every run (no JDK), until the settings change.
    pub(super) global_problem: Option<RunFailure>,
    /// `window/showMessage` texts already shown.
    pub(super) shown_messages: HashSet<String>,
    /// Per project root, where its classpath came from (the build tool, its cache, a guess).
    pub(super) classpaths: std::collections::BTreeMap<std::path::PathBuf, ClasspathStatus>,
}

impl State {
    pub fn new(client: Client, log_level: LogLevelControl, events: WeakEventSender) -> Self {
        Self {
            client,
            log_level,
            encoding: PositionEncoding::default(),
            files: HashMap::new(),
            config: Config::default(),
            config_generation: 0,
            events,
            client_features: ClientFeatures::default(),
            workspace: Workspace::default(),
            initialized: false,
            tracked: HashMap::new(),
            runner: None,
            running: None,
            next_run: 0,
            global_problem: None,
            shown_messages: HashSet::new(),
            classpaths: std::collections::BTreeMap::new(),
        }
    }

    /// Applies events until `Shutdown` arrives or every sender is gone.
    pub async fn run(mut self, mut events: mpsc::UnboundedReceiver<Event>) {
        while let Some(event) = events.recv().await {
            let what = event.name();
            // A bug in one handler must not take the server down with it: the event is
            // dropped (a request waiting for its answer gets an error), the state stays.
            match std::panic::AssertUnwindSafe(self.handle(event))
                .catch_unwind()
                .await
            {
                Ok(flow) if flow.is_break() => {
                    tracing::debug!("owner task: shut down");
                    return;
                }
                Ok(_) => {}
                Err(panic) => {
                    let message = super::panic_message(panic.as_ref());
                    let message = format!("ctgls: internal error while handling {what}: {message}");
                    tracing::error!("{message}");
                    self.client.log_message(MessageType::ERROR, message).await;
                }
            }
        }
        tracing::debug!("owner task: all senders gone");
        self.stop_generation();
    }

    /// Cancels the run in progress and waits (bounded) for the generation thread to shut the
    /// JVM workers down. The server runs on a multi-threaded runtime, where blocking one worker
    /// thread for that is allowed.
    fn stop_generation(&mut self) {
        if let Some(running) = &self.running {
            running.cancel.cancel();
        }
        if let Some(runner) = self.runner.take() {
            tokio::task::block_in_place(|| drop(runner));
        }
    }

    async fn handle(&mut self, event: Event) -> ControlFlow<()> {
        match event {
            Event::Initialize {
                encoding,
                features,
                folders,
            } => {
                self.encoding = encoding;
                self.client_features = features;
                self.workspace = Workspace { folders };
            }
            Event::Initialized => {
                self.initialized = true;
                if let Some(reason) = self.unavailable_reason() {
                    self.show_once(MessageType::WARNING, &reason).await;
                }
                self.send_status();
                self.dispatch();
            }
            Event::DidOpen { uri, version, text } => {
                let previous = self
                    .files
                    .insert(uri.clone(), OpenFile::open(&text, version));
                if previous.is_some() {
                    self.warn(format!(
                        "didOpen for {}, which is already open: replaced its text",
                        uri.as_str()
                    ))
                    .await;
                }
                if let Some(layout) = self.generation_target(&uri) {
                    self.tracked.insert(uri.clone(), Tracked::new());
                    self.load_stored(&uri, &layout);
                    self.publish_diagnostics(&uri).await;
                    self.dispatch();
                    self.send_status();
                }
            }
            Event::WorkspaceFolders { added, removed } => {
                // Where projects are changes; the files already open keep their tracking.
                self.workspace.folders.retain(|f| !removed.contains(f));
                for folder in added {
                    if !self.workspace.folders.contains(&folder) {
                        self.workspace.folders.push(folder);
                    }
                }
                tracing::info!("workspace folders: {:?}", self.workspace.folders);
            }
            Event::Idle { uri, seq } => self.idle(&uri, seq),
            Event::Run(update) => self.run_update(update).await,
            Event::Hover {
                uri,
                position,
                reply,
            } => {
                let _ = reply.send(self.hover(&uri, position));
            }
            Event::CodeLens { uri, reply } => {
                let lenses = match (self.files.get(&uri), self.tracked.get(&uri)) {
                    (Some(file), Some(tracked)) => lens::lenses(&uri, file, tracked, self.encoding),
                    _ => Vec::new(),
                };
                let _ = reply.send(lenses);
            }
            Event::CodeActions {
                uri,
                range,
                diagnostics,
                only,
                reply,
            } => {
                let mut actions = self.code_actions(&uri, range, &diagnostics, only.as_deref());
                // Regression guard hook: accept a changed behaviour, open the test.
                actions.extend(crate::lsp::regression::code_actions(self, &uri, range));
                let _ = reply.send(actions);
            }
            Event::ResolveAction { action, reply } => {
                let _ = reply.send(self.resolve_action(*action));
            }
            Event::Coverage { uri, reply } => {
                let _ = reply.send(self.coverage(uri.as_ref()));
            }
            Event::Command {
                command,
                arguments,
                reply,
            } => {
                let _ = reply.send(self.command(&command, &arguments));
            }
            Event::CancelProgress { token } => self.cancel_progress(&token),
            Event::DidChange {
                uri,
                version,
                changes,
            } => self.did_change(uri, version, changes).await,
            Event::DidSave { uri } => {
                tracing::debug!("saved {}", uri.as_str());
                // Saving says "I am done for now": no need to wait for the idle delay.
                if let Some(tracked) = self.tracked.get_mut(&uri) {
                    tracked.ready = true;
                    tracked.edit_seq += 1;
                }
                self.dispatch();
            }
            Event::DidClose { uri } => {
                if self.files.remove(&uri).is_none() {
                    self.warn(format!(
                        "didClose for {}, which is not open: ignored",
                        uri.as_str()
                    ))
                    .await;
                }
                if self.tracked.remove(&uri).is_some() {
                    if self.running.as_ref().is_some_and(|r| r.uri == uri) {
                        self.cancel(Some(&uri));
                    }
                    self.client.publish_diagnostics(uri, Vec::new(), None).await;
                    self.send_status();
                }
            }
            Event::Settings {
                generation,
                settings,
                origin,
            } => self.apply_settings(generation, settings, origin).await,
            Event::DocumentSnapshot { uri, reply } => {
                let _ = reply.send(self.files.get(&uri).cloned());
            }
            Event::ConfigSnapshot { reply } => {
                let _ = reply.send(self.config.clone());
            }
            Event::Shutdown { done } => {
                // Stop generating and shut the JVM workers down before answering.
                self.stop_generation();
                let _ = done.send(());
                return ControlFlow::Break(());
            }
        }
        ControlFlow::Continue(())
    }

    async fn did_change(&mut self, uri: Uri, version: i32, changes: Vec<TextChange>) {
        let Some(file) = self.files.get_mut(&uri) else {
            self.warn(format!(
                "didChange for {}, which is not open: ignored",
                uri.as_str()
            ))
            .await;
            return;
        };
        let previous_version = file.document().version();
        // The changes apply to the text we hold whatever the version says, because events are
        // applied in the order the client sent them; a non-increasing version is only reported.
        let result = file.apply_changes(&changes, version, self.encoding);
        if version <= previous_version {
            self.warn(format!(
                "didChange for {} has version {version}, not newer than {previous_version}",
                uri.as_str()
            ))
            .await;
        }
        match result {
            Ok(()) => {
                self.note_edit(&uri);
                // Results of unchanged members move with the text; those of edited members
                // are withdrawn. Whatever the file shows (results, its problem, or why no run
                // can happen at all) is placed on the new text and published for its version.
                let unavailable = self.unavailable_reason().is_some();
                if self
                    .tracked
                    .get(&uri)
                    .is_some_and(|t| t.results.is_some() || t.problem.is_some() || unavailable)
                {
                    self.publish_diagnostics(&uri).await;
                }
            }
            Err(error) => {
                self.warn(format!(
                    "dropped didChange for {} (version {version}): {error}; \
                     the document stays at version {previous_version}",
                    uri.as_str()
                ))
                .await;
            }
        }
    }

    async fn apply_settings(&mut self, generation: u64, settings: Value, origin: SettingsOrigin) {
        let origin = origin.describe();
        if generation < self.config_generation {
            tracing::debug!("dropping settings from {origin}: newer ones were applied");
            return;
        }
        self.config_generation = generation;
        if settings.is_null() {
            tracing::debug!("no `{SECTION}` settings in {origin}: configuration unchanged");
            return;
        }
        match config::parse(&settings) {
            Ok(parsed) => {
                for key in parsed.unknown_keys {
                    self.warn(format!(
                        "unknown setting `{SECTION}.{key}` in {origin}: ignored"
                    ))
                    .await;
                }
                let was_enabled = self.config.execution_enabled;
                if let Some(warning) = jvm::pass_warning(&parsed.config.pass_environment) {
                    if parsed.config.pass_environment != self.config.pass_environment {
                        self.show_once(MessageType::WARNING, &format!("ctgls: {warning}"))
                            .await;
                    }
                }
                self.config = parsed.config;
                self.log_level.set(self.config.log_level);
                tracing::info!("configuration from {origin}: {:?}", self.config);
                // New settings may fix what stopped every run (a JDK path, execution).
                self.global_problem = None;
                if !self.config.execution_enabled {
                    if was_enabled {
                        if let Some(running) = &self.running {
                            running.cancel.cancel();
                        }
                    }
                    if self.initialized {
                        let reason = self.unavailable_reason().unwrap_or_default();
                        self.show_once(MessageType::WARNING, &reason).await;
                    }
                }
                let uris: Vec<Uri> = self.tracked.keys().cloned().collect();
                for uri in uris {
                    self.publish_diagnostics(&uri).await;
                }
                self.send_status();
                self.dispatch();
            }
            Err(invalid) => {
                let message = format!(
                    "ctgls: invalid settings in {origin}, keeping the previous configuration: \
                     {invalid}"
                );
                tracing::warn!("{message}");
                self.client
                    .show_message(MessageType::WARNING, message)
                    .await;
            }
        }
    }

    /// The project of a Java file under a source root of its project, not under its test root;
    /// `None` for other files: generated and hand-written tests are open for reading and
    /// editing, not for generating tests of.
    fn generation_target(&self, uri: &Uri) -> Option<ctg::project::ProjectLayout> {
        if !is_java(uri) {
            return None;
        }
        // Not a file (an unsaved buffer, a jar entry): no project, no run.
        let path = uri_path(uri)?;
        let layout = self.workspace.layout_for(&path, &self.config.classpath);
        crate::lsp::workspace::is_source_file(&layout, &path).then_some(layout)
    }

    fn hover(&self, uri: &Uri, position: TextPosition) -> Option<String> {
        let file = self.files.get(uri)?;
        let tracked = self.tracked.get(uri)?;
        let unavailable = self.unavailable_reason();
        let running = self
            .running
            .as_ref()
            .filter(|r| &r.uri == uri)
            .map(|r| r.phase);
        hover::hover(&hover::HoverInput {
            file,
            tracked,
            position,
            encoding: self.encoding,
            unavailable: unavailable.as_deref(),
            running,
        })
    }

    fn code_actions(
        &self,
        uri: &Uri,
        range: Range,
        diagnostics: &[Diagnostic],
        only: Option<&[CodeActionKind]>,
    ) -> Vec<CodeAction> {
        let (Some(file), Some(results)) = (
            self.files.get(uri),
            self.tracked.get(uri).and_then(|t| t.results.as_deref()),
        ) else {
            return Vec::new();
        };
        let listed = actions::list(&actions::ListInput {
            uri,
            file,
            results,
            encoding: self.encoding,
            range,
            diagnostics,
            only,
        });
        if self.client_features.resolve_edit {
            return listed;
        }
        // Clients that cannot resolve edits get them at once.
        listed
            .into_iter()
            .filter_map(|action| self.resolve_action(action).ok())
            .collect()
    }

    fn resolve_action(&self, mut action: CodeAction) -> Result<CodeAction, String> {
        let data: ActionData = action
            .data
            .clone()
            .and_then(|d| serde_json::from_value(d).ok())
            .ok_or("not a ctgls code action")?;
        let (uri, run) = match &data {
            ActionData::Test { uri, run, .. }
            | ActionData::Suite { uri, run }
            | ActionData::Throws { uri, run, .. } => (uri, *run),
        };
        let file = self.files.get(uri).ok_or("the file is no longer open")?;
        let results = self
            .tracked
            .get(uri)
            .and_then(|t| t.results.as_deref())
            .filter(|r| r.run == run)
            .ok_or("the results changed since; ask for code actions again")?;
        let support = self.client_features.edits;
        let edit = match &data {
            ActionData::Test { .. } | ActionData::Suite { .. } => {
                let test = match &data {
                    ActionData::Test { test, .. } => Some(*test),
                    _ => None,
                };
                let suite = results
                    .suite
                    .as_ref()
                    .ok_or("no test passed verification")?;
                // Checked again on the text as it is now: it may have changed since the list.
                let view = View::new(file, results, self.encoding);
                actions::test_edit(
                    results,
                    suite,
                    test,
                    &|i| results.insertable(i, |m| view.live(m)),
                    &self.test_file_now(&suite.path)?,
                    support,
                    self.encoding,
                )?
            }
            ActionData::Throws { exception, .. } => {
                let exception = results
                    .exceptions
                    .get(*exception)
                    .ok_or("the exception is gone; ask for code actions again")?;
                let edits = actions::throws_edits(file, &exception.called, &exception.type_name)?;
                let index = file.document().line_index();
                let text_edits = edits
                    .into_iter()
                    .map(|(range, text)| {
                        index
                            .text_range(range, self.encoding)
                            .map(|r| {
                                tower_lsp_server::ls_types::TextEdit::new(
                                    crate::lsp::to_proto::range(r),
                                    text,
                                )
                            })
                            .map_err(|e| e.to_string())
                    })
                    .collect::<Result<Vec<_>, _>>()?;
                actions::edit_document(uri, Some(file.document().version()), text_edits, support)
            }
        };
        action.edit = Some(edit);
        Ok(action)
    }

    /// The generated test file at `path`: the editor's buffer when it is open, else the disk.
    fn test_file_now(&self, path: &std::path::Path) -> Result<TestFileNow, String> {
        let uri = Uri::from_file_path(path)
            .ok_or_else(|| format!("{} is not a valid file path", path.display()))?;
        if let Some(open) = self.files.get(&uri) {
            return Ok(TestFileNow {
                existing: Some((open.document().text(), Some(open.document().version()))),
                uri,
            });
        }
        let existing = match std::fs::read_to_string(path) {
            Ok(text) => Some((text, None)),
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
                // Clients create the file (`CreateFile`, or a buffer for the new URI), but not
                // all create its directories, and a fresh project has no test root yet: make
                // them, so the user's save cannot fail. Directories only, never the file.
                if let Some(parent) = path.parent() {
                    std::fs::create_dir_all(parent)
                        .map_err(|error| format!("cannot create {}: {error}", parent.display()))?;
                }
                None
            }
            Err(error) => return Err(format!("cannot read {}: {error}", path.display())),
        };
        Ok(TestFileNow { uri, existing })
    }

    fn coverage(&self, uri: Option<&Uri>) -> Value {
        let mut uris: Vec<&Uri> = self
            .tracked
            .keys()
            .filter(|u| uri.is_none_or(|wanted| wanted == *u))
            .collect();
        uris.sort_by(|a, b| a.as_str().cmp(b.as_str()));
        let files: Vec<Value> = uris
            .into_iter()
            .filter_map(|u| {
                coverage::file_coverage(u, self.files.get(u)?, self.tracked.get(u)?, self.encoding)
            })
            .collect();
        json!({ "files": files })
    }

    fn command(&mut self, command: &str, arguments: &[Value]) -> Result<Value, String> {
        // Regression guard hook: `ctgls.acceptBehaviour`, `ctgls.openTest`.
        if let Some(result) = crate::lsp::regression::command(self, command, arguments) {
            return result;
        }
        let uri = match arguments
            .first()
            .and_then(|a| a.get("uri"))
            .and_then(Value::as_str)
        {
            Some(text) => Some(
                text.parse::<Uri>()
                    .map_err(|e| format!("invalid uri {text:?}: {e}"))?,
            ),
            None => None,
        };
        match command {
            "ctgls.generate" => {
                if let Some(uri) = &uri {
                    if !self.tracked.contains_key(uri) {
                        return Err(format!("{} is not an open Java file", uri.as_str()));
                    }
                }
                if let Some(reason) = self.unavailable_reason() {
                    if !self.config.execution_enabled {
                        return Err(reason);
                    }
                }
                let count = self.force(uri.as_ref());
                Ok(json!({ "scheduled": count }))
            }
            "ctgls.cancel" => {
                let count = self.cancel(uri.as_ref());
                Ok(json!({ "cancelled": count }))
            }
            "ctgls.status" => Ok(crate::lsp::status::compute(self)),
            other => Err(format!("unknown command {other}")),
        }
    }

    /// Logs a warning on stderr and in the client's log.
    async fn warn(&self, message: String) {
        tracing::warn!("{message}");
        self.client.log_message(MessageType::WARNING, message).await;
    }
}

fn is_java(uri: &Uri) -> bool {
    uri_path(uri).is_some_and(|p| p.extension().is_some_and(|e| e == "java"))
        || uri.as_str().ends_with(".java")
}
