//! The owner of editor state. One task receives every state-changing notification as an
//! `Event`, in the order the client sent them, and applies them one at a time: edits, settings,
//! what runs report. It keeps what each open class shows (`Shown`), asks the `Scheduler` what
//! runs next, and publishes what changed (diagnostics, `ctgls/status`,
//! `ctgls/coverageChanged`, code lens refresh, progress). Read-only requests are answered by
//! `requests.rs` on a `Snapshot` of it. The `workspace/executeCommand` commands are
//! `commands.rs`; the regression guard's reports, kept in `Shown::guard`, are `guard.rs`.
//!
//! Architecture invariant: nothing else holds the document store or the configuration, so
//! no lock is needed and a `didChange` can never be applied before the one sent before it.
//!
//! While a run searches, its interim coverage is published on top of the results shown when
//! it started (`ClassResults::with_interim`): newly covered branches appear as the search
//! finds them, unchanged members never show less than before, and the earlier tests stay
//! insertable. A run that ends without results (cancelled, failed) puts those results back.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::ops::ControlFlow;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use ctg::store::Store;
use futures::FutureExt;
use serde_json::Value;
use syntax::{PositionEncoding, TextChange};
use tokio::sync::mpsc;
use tower_lsp_server::ls_types::{MessageType, Uri};
use tower_lsp_server::Client;

use crate::logging::LogLevelControl;
use crate::lsp::event::{ClientFeatures, Event, SettingsOrigin, WeakEventSender};
use crate::lsp::file_view::Shown;
use crate::lsp::guard::{JobFor, CHECK_DELAY};
use crate::lsp::integration::Integration;
use crate::lsp::progress::RunProgress;
use crate::lsp::protocol::settings::{self as config, Config, Trigger, SECTION};
use crate::lsp::protocol::{CoverageChanged, CoverageChangedParams, StatusNotification};
use crate::lsp::requests::Snapshot;
use crate::lsp::results::words::simple_name;
use crate::lsp::results::ClassResults;
use crate::lsp::runner::{ClasspathStatus, FailureKind, RunFailure, RunUpdate, UpdateSink};
use crate::lsp::scheduler::{Inputs, RunEnd, Running, Scheduler};
use crate::lsp::workspace::{is_source_file, primary_type, uri_path, Workspace};
use crate::lsp::{diagnostics, status};
use crate::open_file::OpenFile;

mod commands;
mod guard;
mod integration;

pub struct Owner {
    client: Client,
    log_level: LogLevelControl,
    encoding: PositionEncoding,
    /// Every open file with its Java model, kept up to date edit by edit.
    files: HashMap<Uri, OpenFile>,
    config: Config,
    config_generation: u64,
    /// A sender to itself, for timers and the generation thread.
    events: WeakEventSender,
    client_features: ClientFeatures,
    workspace: Workspace,
    /// `initialized` arrived.
    initialized: bool,
    scheduler: Scheduler,
    /// What every open class (generation target) shows.
    shown: HashMap<Uri, Shown>,
    /// The `$/progress` of the run in progress.
    progress: Option<RunProgress>,
    /// A failure that stops every run (no JDK), until the settings change.
    global_problem: Option<RunFailure>,
    /// `window/showMessage` texts already shown.
    shown_messages: HashSet<String>,
    /// Per project root, where its classpath came from (the build tool, its cache, a guess).
    classpaths: BTreeMap<PathBuf, ClasspathStatus>,
    /// The couplings with other classes and what this session's integration runs covered.
    integration: Integration,
}

impl Owner {
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
            scheduler: Scheduler::default(),
            shown: HashMap::new(),
            progress: None,
            global_problem: None,
            shown_messages: HashSet::new(),
            classpaths: BTreeMap::new(),
            integration: Integration::default(),
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
        self.scheduler.stop();
    }

    /// The read-only view requests are answered on.
    fn snapshot(&self) -> Snapshot<'_> {
        Snapshot {
            files: &self.files,
            shown: &self.shown,
            scheduler: &self.scheduler,
            config: &self.config,
            encoding: self.encoding,
            features: self.client_features,
            unavailable: self.unavailable_reason(),
            workspace: &self.workspace,
            classpaths: &self.classpaths,
            integration: &self.integration,
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
            Event::DidOpen { uri, version, text } => self.did_open(uri, version, text).await,
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
            Event::Idle { uri, seq } => {
                if self.scheduler.idle(&uri, seq, self.config.trigger) {
                    self.dispatch();
                }
            }
            Event::CheckDelay { uri, seq } => self.check(&uri, seq),
            Event::Run(update) => self.run_update(update).await,
            Event::Hover {
                uri,
                position,
                reply,
            } => {
                let _ = reply.send(self.snapshot().hover(&uri, position));
            }
            Event::CodeLens { uri, reply } => {
                let _ = reply.send(self.snapshot().code_lens(&uri));
            }
            Event::CodeActions {
                uri,
                range,
                diagnostics,
                only,
                reply,
            } => {
                let actions =
                    self.snapshot()
                        .code_actions(&uri, range, &diagnostics, only.as_deref());
                let _ = reply.send(actions);
            }
            Event::ResolveAction { action, reply } => {
                let _ = reply.send(self.snapshot().resolve_action(*action));
            }
            Event::Coverage { uri, reply } => {
                let _ = reply.send(self.snapshot().coverage(uri.as_ref()));
            }
            Event::Command {
                command,
                arguments,
                reply,
            } => {
                let answer = self.command(&command, &arguments).await;
                let _ = reply.send(answer);
            }
            Event::CancelProgress { token } => {
                let running = self.scheduler.running().filter(|r| {
                    self.progress
                        .as_ref()
                        .is_some_and(|p| p.run == r.run && p.token == token)
                });
                match running {
                    // An integration run: its caller's own runs are not paused.
                    Some(running) if running.callee.is_some() => running.cancel.cancel(),
                    Some(running) => {
                        let uri = running.uri.clone();
                        self.cancel(Some(&uri));
                    }
                    None => {}
                }
            }
            Event::DidChange {
                uri,
                version,
                changes,
            } => self.did_change(uri, version, changes).await,
            Event::DidSave { uri } => {
                tracing::debug!("saved {}", uri.as_str());
                // Saving says "I am done for now": no need to wait for the idle delay.
                if self.config.trigger != Trigger::Manual {
                    self.scheduler.saved(&uri);
                    self.dispatch();
                }
            }
            Event::DidClose { uri } => {
                if self.files.remove(&uri).is_none() {
                    self.warn(format!(
                        "didClose for {}, which is not open: ignored",
                        uri.as_str()
                    ))
                    .await;
                }
                // The failures its guard found in test files go with it.
                let failures = self.shown.remove(&uri).map(|s| s.guard.failure_files());
                self.publish_test_files(failures.into_iter().flatten())
                    .await;
                if self.scheduler.untrack(&uri) {
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
                self.scheduler.stop();
                let _ = done.send(());
                return ControlFlow::Break(());
            }
        }
        ControlFlow::Continue(())
    }

    async fn did_open(&mut self, uri: Uri, version: i32, text: String) {
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
            self.scheduler.track(&uri, self.config.trigger);
            self.shown.insert(uri.clone(), Shown::default());
            self.load_stored(&uri, &layout);
            self.publish_diagnostics(&uri).await;
            self.dispatch();
            self.send_status();
        } else {
            self.test_file_shown(&uri).await;
        }
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
                let shows = |s: &Shown| {
                    s.results.is_some()
                        || s.problem.is_some()
                        || s.guard.findings.is_some()
                        || unavailable
                };
                if self.shown.get(&uri).is_some_and(shows) {
                    self.publish_diagnostics(&uri).await;
                } else if !self.shown.contains_key(&uri) {
                    self.test_file_shown(&uri).await;
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

    /// An edit of `uri`: its run is cancelled, and it runs again once the user has been quiet;
    /// the regression guard checks it after a shorter pause (with the `idle` trigger).
    fn note_edit(&mut self, uri: &Uri) {
        let Some(seq) = self.scheduler.edited(uri) else {
            return;
        };
        let delay = Duration::from_millis(self.config.idle_delay_ms);
        let check =
            (self.config.trigger == Trigger::Idle && CHECK_DELAY < delay).then_some(CHECK_DELAY);
        let events = self.events.clone();
        let uri = uri.clone();
        tokio::spawn(async move {
            if let Some(check) = check {
                tokio::time::sleep(check).await;
                events.send(Event::CheckDelay {
                    uri: uri.clone(),
                    seq,
                });
                tokio::time::sleep(delay - check).await;
            } else {
                tokio::time::sleep(delay).await;
            }
            events.send(Event::Idle { uri, seq });
        });
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
                if parsed.config.trigger != self.config.trigger {
                    self.scheduler.set_trigger(parsed.config.trigger);
                }
                self.config = parsed.config;
                self.log_level.set(self.config.log_level);
                tracing::info!("configuration from {origin}: {:?}", self.config);
                // New settings may fix what stopped every run (a JDK path, execution).
                self.global_problem = None;
                if !self.config.execution_enabled {
                    if was_enabled {
                        self.scheduler.cancel_running();
                    }
                    if self.initialized {
                        let reason = self.unavailable_reason().unwrap_or_default();
                        self.show_once(MessageType::WARNING, &reason).await;
                    }
                }
                let uris: Vec<Uri> = self.shown.keys().cloned().collect();
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

    /// The project of a Java file under a source root of its project, not under a test root;
    /// `None` for other files: generated and hand-written tests are open for reading and
    /// editing, not for generating tests of.
    fn generation_target(&self, uri: &Uri) -> Option<ctg::project::ProjectLayout> {
        if !is_java(uri) {
            return None;
        }
        // Not a file (an unsaved buffer, a jar entry): no project, no run.
        let path = uri_path(uri)?;
        let layout = self
            .workspace
            .layout_for(&path, &self.config.layout_overrides());
        let in_test_root = self
            .config
            .test_roots
            .iter()
            .any(|root| path.starts_with(layout.root.join(root)));
        (is_source_file(&layout, &path) && !in_test_root).then_some(layout)
    }

    /// Starts the next run if none is running and one is due; a background re-run gives way
    /// to a class the user just opened, edited or asked for.
    fn dispatch(&mut self) {
        if !self.initialized {
            return;
        }
        let inputs = Inputs {
            files: &self.files,
            config: &self.config,
            workspace: &self.workspace,
        };
        if self.scheduler.yield_to_user(&inputs) {
            return;
        }
        if !self.config.execution_enabled
            || self
                .global_problem
                .as_ref()
                .is_some_and(|p| p.kind.is_global())
        {
            return;
        }
        // Integration runs were asked for by the user: before the others.
        if self.scheduler.integration_due() && self.start_integration() {
            return;
        }
        let inputs = Inputs {
            files: &self.files,
            config: &self.config,
            workspace: &self.workspace,
        };
        let Some((uri, budget_factor)) = self.scheduler.next(&inputs, false) else {
            return;
        };
        let before = self
            .shown
            .get(&uri)
            .and_then(|s| s.results.clone())
            .filter(|r| r.origin != crate::lsp::results::Origin::Interim);
        let updates = self.update_sink();
        let final_run = before
            .as_ref()
            .filter(|r| r.origin == crate::lsp::results::Origin::Final)
            .map(|r| r.run);
        let shown = self.shown.get_mut(&uri);
        let guard = move |what: &JobFor| shown?.guard.job(final_run, what);
        let Some(running) =
            self.scheduler
                .start(uri.clone(), budget_factor, before, &inputs, updates, guard)
        else {
            return;
        };
        self.progress = self.client_features.work_done_progress.then(|| {
            RunProgress::start(
                &self.client,
                running.run,
                format!("ctgls: {}", simple_name(&running.class)),
            )
        });
        self.send_status();
    }

    /// How the generation thread reports to the owner (its events).
    fn update_sink(&self) -> impl FnOnce() -> UpdateSink + 'static {
        let events = self.events.clone();
        move || -> UpdateSink { Arc::new(move |update| events.send(Event::Run(update))) }
    }

    /// A message from the generation thread.
    async fn run_update(&mut self, update: RunUpdate) {
        match update {
            RunUpdate::Phase {
                run,
                phase,
                branches,
            } => {
                let Some(running) = self.scheduler.run_mut(run) else {
                    return;
                };
                let changed = running.phase != phase.as_str() || branches != running.branches;
                running.phase = phase.as_str();
                if branches.is_some() {
                    running.branches = branches;
                }
                if changed {
                    let message = running.message();
                    if let Some(progress) = self.progress.as_ref().filter(|p| p.run == run) {
                        progress.report(message);
                    }
                    self.send_status();
                }
            }
            RunUpdate::Interim { run, results } => {
                let Some(running) = self.scheduler.live_run(run) else {
                    return;
                };
                let uri = running.uri.clone();
                let shown = match &running.before {
                    Some(before) => Arc::new(ClassResults::with_interim(before, &results)),
                    None => results,
                };
                if let Some(entry) = self.shown.get_mut(&uri) {
                    entry.results = Some(shown);
                    self.results_changed(&uri).await;
                }
            }
            RunUpdate::Classpath { root, status } => {
                if matches!(status.state, "failed" | "fallback") {
                    if let Some(message) = &status.message {
                        self.show_once(MessageType::WARNING, &format!("ctgls: {message}"))
                            .await;
                    }
                }
                if self.classpaths.get(&root) != Some(&status) {
                    self.classpaths.insert(root, status);
                    self.send_status();
                }
            }
            RunUpdate::Guard(update) => self.guard_update(update).await,
            RunUpdate::Finished { run, outcome, wall } => {
                let end = match &outcome {
                    Ok(_) => RunEnd::Results,
                    Err(failure) if failure.kind == FailureKind::Cancelled => RunEnd::Cancelled,
                    Err(failure) if failure.kind.is_global() => RunEnd::Cancelled,
                    Err(_) => RunEnd::Failed,
                };
                let Some(running) = self.scheduler.finish(run, end) else {
                    return;
                };
                self.finish_run(running, outcome, wall).await;
                self.dispatch();
            }
            RunUpdate::IntegrationFinished { run, outcome, wall } => {
                self.finish_integration(run, outcome, wall).await;
                self.dispatch();
            }
        }
    }

    async fn finish_run(
        &mut self,
        running: Running,
        outcome: Result<Arc<ClassResults>, RunFailure>,
        wall: Duration,
    ) {
        let end_message = match &outcome {
            Ok(results) => {
                let total: usize = results.decisions.iter().map(|d| d.outcomes.len()).sum();
                format!(
                    "{}/{} branches · {} ({:.1} s)",
                    results.covered_goals(),
                    total,
                    match results.unverified {
                        Some(_) => "tests not verified".to_string(),
                        None => format!(
                            "{} tests",
                            results.tests.iter().filter(|t| t.name.is_some()).count()
                        ),
                    },
                    wall.as_secs_f64()
                )
            }
            Err(failure) => failure.message.clone(),
        };
        if let Some(progress) = self.progress.take_if(|p| p.run == running.run) {
            progress.end(end_message.clone());
        }
        tracing::info!("run {} ({}): {end_message}", running.run, running.class);
        let uri = running.uri.clone();
        match outcome {
            Ok(results) => {
                self.global_problem = None;
                if let Some(reason) = &results.unverified {
                    self.show_once(MessageType::WARNING, reason).await;
                }
                if let Some(shown) = self.shown.get_mut(&uri) {
                    shown.results = Some(results);
                    shown.problem = None;
                }
                self.results_changed(&uri).await;
            }
            Err(failure) if failure.kind == FailureKind::Cancelled => {
                // The text changed, or the user cancelled: nothing to show.
                if self
                    .shown
                    .get_mut(&uri)
                    .is_some_and(|s| s.end_interim(running.before.clone()))
                {
                    self.results_changed(&uri).await;
                }
            }
            Err(failure) if failure.kind.is_global() => {
                self.show_once(MessageType::ERROR, &failure.message).await;
                self.global_problem = Some(failure);
                if let Some(shown) = self.shown.get_mut(&uri) {
                    shown.end_interim(running.before.clone());
                }
                let uris: Vec<Uri> = self.shown.keys().cloned().collect();
                for uri in uris {
                    self.publish_diagnostics(&uri).await;
                }
            }
            Err(failure) => {
                let kind = if failure.kind == FailureKind::DoesNotCompile {
                    MessageType::WARNING
                } else {
                    MessageType::INFO
                };
                self.show_once(kind, &failure.message).await;
                if let Some(shown) = self.shown.get_mut(&uri) {
                    shown.end_interim(running.before.clone());
                    shown.problem = Some(failure);
                }
                self.results_changed(&uri).await;
            }
        }
        self.send_status();
    }

    /// A file's results changed: diagnostics, coverage listeners and code lenses.
    async fn results_changed(&mut self, uri: &Uri) {
        self.publish_diagnostics(uri).await;
        let client = self.client.clone();
        let uri = uri.clone();
        let refresh = self.client_features.code_lens_refresh;
        tokio::spawn(async move {
            client
                .send_notification::<CoverageChanged>(CoverageChangedParams { uri })
                .await;
            if refresh {
                if let Err(error) = client.code_lens_refresh().await {
                    tracing::debug!("workspace/codeLens/refresh failed: {error}");
                }
            }
        });
    }

    /// Publishes `uri`'s diagnostics for the version the editor has now.
    async fn publish_diagnostics(&self, uri: &Uri) {
        let snapshot = self.snapshot();
        let Some(view) = snapshot.view(uri) else {
            return;
        };
        let diagnostics = diagnostics::compute(&view);
        let version = view.file.document().version();
        self.client
            .publish_diagnostics(uri.clone(), diagnostics, Some(version))
            .await;
    }

    /// Why no run can happen at all, if that is so.
    fn unavailable_reason(&self) -> Option<String> {
        if !self.config.execution_enabled {
            return Some("test generation is off: `ctgls.executionEnabled` is false".into());
        }
        self.global_problem
            .as_ref()
            .filter(|p| p.kind.is_global())
            .map(|p| p.message.clone())
    }

    /// Shows a message once per session (the same reason is not repeated on every run).
    async fn show_once(&mut self, kind: MessageType, message: &str) {
        if self.shown_messages.insert(message.to_string()) {
            self.client.show_message(kind, message).await;
        } else {
            self.client.log_message(kind, message).await;
        }
    }

    /// Sends `ctgls/status`.
    fn send_status(&self) {
        let status = status::compute(&self.snapshot());
        let client = self.client.clone();
        tokio::spawn(async move {
            client.send_notification::<StatusNotification>(status).await;
        });
    }

    /// Cancels the running and queued runs of `uri` (every file when `None`).
    fn cancel(&mut self, uri: Option<&Uri>) -> usize {
        let cancelled = self.scheduler.cancel(uri, &self.files);
        self.send_status();
        cancelled
    }

    /// Shows the results the `.ctgls/` store holds for a just-opened file, when they are of
    /// the same text: a restarted server shows coverage at once.
    fn load_stored(&mut self, uri: &Uri, layout: &ctg::project::ProjectLayout) {
        let (Some(file), Some(path)) = (self.files.get(uri), uri_path(uri)) else {
            return;
        };
        let Some(class) = primary_type(file.model(), Some(&path)).map(|t| t.binary_name.clone())
        else {
            return;
        };
        // The JUnit a run would write now: the stored class is used only when it is that one.
        let junit = match self.config.junit {
            Some(4) => ctg::project::JUnitVersion::Four,
            Some(_) => ctg::project::JUnitVersion::Five,
            None => layout.junit_version(),
        };
        let results = ClassResults::from_store(
            &Store::open(&layout.root),
            layout,
            &class,
            file.model(),
            junit,
        );
        if let (Some(results), Some(shown)) = (results, self.shown.get_mut(uri)) {
            shown.results = Some(Arc::new(results));
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
