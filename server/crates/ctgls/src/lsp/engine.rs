//! Continuous generation inside the owner task (Campos et al.'s "Continuous Test Generation" ideas, in the editor): which class
//! runs next and with what budget, cancel-on-edit, what happens when a run reports back, and
//! publishing what changed (diagnostics, `ctgls/status`, `ctgls/coverageChanged`, code lens
//! refresh, progress).
//!
//! Scheduling, in order of preference, one run at a time:
//! 1. classes the user asked for (`ctgls.generate`), with the full budget;
//! 2. classes whose text changed since their last run (or that never ran this session) and
//!    that have been quiet for the idle delay (or were just opened or saved), most recently
//!    active first, with the full budget;
//! 3. when nobody is typing, the other open classes, unchanged since their last run, with half
//!    the budget (Campos et al.'s "Continuous Test Generation" h = 2 factor between changed and unchanged classes), as long as
//!    the store's history says a re-run may still improve coverage (section 4.1: not after
//!    three runs without improvement, nor at full coverage).
//!
//! A class whose file has syntax errors is not run; its earlier results stay. Deviation from
//! Campos et al., "Continuous Test Generation": the first run of a class in a session always happens, even when the history says
//! it stagnated: the store's tests were verified against the class and its dependencies as
//! they were then, and a run checks them against the project as it is now.
//!
//! While a run searches, its interim coverage is published on top of the results shown when
//! it started (`ClassResults::with_interim`): newly covered branches appear as the search
//! finds them, unchanged members never show less than before, and the earlier tests stay
//! insertable. A run that ends without results (cancelled, failed) puts those results back.

use std::sync::Arc;
use std::time::{Duration, Instant};

use ctg::project::SourceOverlays;
use ctg::store::{RerunDecision, Store};
use search::CancelToken;
use serde_json::json;
use tokio::sync::mpsc as tokio_mpsc;
use tower_lsp_server::ls_types::notification::Notification;
use tower_lsp_server::ls_types::{
    MessageType, NumberOrString, ProgressToken, Uri, WorkDoneProgress, WorkDoneProgressBegin,
    WorkDoneProgressEnd, WorkDoneProgressReport,
};
use tower_lsp_server::Client;

use crate::lsp::config::Algorithm;
use crate::lsp::diagnostics;
use crate::lsp::results::{simple_name, ClassResults, Origin};
use crate::lsp::runner::{FailureKind, RunFailure, RunJob, RunUpdate, Runner};
use crate::lsp::state::{Event, State};
use crate::lsp::status;
use crate::lsp::workspace::{is_source_file, primary_type, uri_path};

/// Generation state of one open file.
#[derive(Debug)]
pub struct Tracked {
    /// Bumped by every edit; an idle timer only fires for the latest one.
    pub edit_seq: u64,
    /// Quiet for the idle delay since the last edit (or just opened or saved).
    pub ready: bool,
    /// The user asked for a run (`ctgls.generate`).
    pub forced: bool,
    pub last_activity: Instant,
    pub results: Option<Arc<ClassResults>>,
    /// Why the last run produced nothing (cancellations are not kept).
    pub problem: Option<RunFailure>,
    /// Finished runs this session.
    pub runs: u32,
    /// Hash of the text of the last finished (or failed) run.
    pub last_run_hash: Option<String>,
    /// The store said re-running the unchanged class cannot help; cleared by edits.
    pub settled: bool,
    /// Not to be run again until the text changes (the user cancelled).
    pub paused_hash: Option<String>,
    /// Background re-runs of the current text. Bounded by Campos et al.'s "Continuous Test Generation" three runs even when
    /// the store cannot say (unwritable `.ctgls/`), so re-running never goes on for ever.
    pub background_runs: u32,
    /// Regression guard hook: the stored tests' baseline and what the last check found.
    pub guard: crate::lsp::regression::Guard,
}

impl Default for Tracked {
    fn default() -> Tracked {
        Tracked::new()
    }
}

impl Tracked {
    /// Puts back the results shown before a run that ended without results (`before`), in
    /// place of its interim ones; whether anything changed.
    pub fn end_interim(&mut self, before: Option<Arc<ClassResults>>) -> bool {
        let interim = self
            .results
            .as_ref()
            .is_some_and(|r| r.origin == Origin::Interim);
        if interim {
            self.results = before;
        }
        interim
    }

    pub fn new() -> Tracked {
        Tracked {
            edit_seq: 0,
            ready: true,
            forced: false,
            last_activity: Instant::now(),
            results: None,
            problem: None,
            runs: 0,
            last_run_hash: None,
            settled: false,
            paused_hash: None,
            background_runs: 0,
            guard: Default::default(),
        }
    }
}

/// The run in progress.
pub struct Running {
    pub run: u64,
    pub uri: Uri,
    pub class: String,
    pub cancel: CancelToken,
    pub phase: &'static str,
    pub branches: Option<(usize, usize)>,
    /// The text hash the run works on.
    pub hash: String,
    pub started: Instant,
    pub progress: Option<tokio_mpsc::UnboundedSender<ProgressMessage>>,
    pub token: Option<ProgressToken>,
    /// A re-run of an unchanged class, which gives way to the user's classes.
    pub background: bool,
    /// The results shown when the run started (a finished run's or the store's): interim
    /// coverage is shown on top of them, and they come back if the run ends without results.
    pub before: Option<Arc<ClassResults>>,
}

pub enum ProgressMessage {
    Report(String),
    End(String),
}

impl State {
    /// An edit of `uri`: cancel its run, and run again once the user has been quiet.
    pub(super) fn note_edit(&mut self, uri: &Uri) {
        let delay = Duration::from_millis(self.config.idle_delay_ms);
        let Some(tracked) = self.tracked.get_mut(uri) else {
            return;
        };
        tracked.edit_seq += 1;
        tracked.ready = false;
        tracked.settled = false;
        tracked.background_runs = 0;
        tracked.last_activity = Instant::now();
        let seq = tracked.edit_seq;
        if let Some(running) = &self.running {
            if &running.uri == uri && !running.cancel.is_cancelled() {
                tracing::debug!("edit of {}: cancelling run {}", uri.as_str(), running.run);
                running.cancel.cancel();
            }
        }
        let events = self.events.clone();
        let uri = uri.clone();
        tokio::spawn(async move {
            tokio::time::sleep(delay).await;
            events.send(Event::Idle { uri, seq });
        });
    }

    pub(super) fn idle(&mut self, uri: &Uri, seq: u64) {
        if let Some(tracked) = self.tracked.get_mut(uri) {
            tracing::debug!(
                "idle: {} (edit {seq}, latest {})",
                uri.as_str(),
                tracked.edit_seq
            );
            if tracked.edit_seq == seq {
                tracked.ready = true;
                self.dispatch();
            }
        }
    }

    /// Starts the next run if none is running and one is due.
    pub(super) fn dispatch(&mut self) {
        if !self.initialized {
            return;
        }
        if let Some(running) = &self.running {
            // A background re-run gives way to a class the user just opened, edited or asked
            // for; it is tried again later.
            if running.background && !running.cancel.is_cancelled() {
                let urgent = self.urgent_candidate();
                if let Some(running) = self.running.as_ref().filter(|_| urgent) {
                    tracing::debug!("run {} gives way to a class the user works on", running.run);
                    running.cancel.cancel();
                }
            }
            return;
        }
        if !self.config.execution_enabled {
            return;
        }
        if self
            .global_problem
            .as_ref()
            .is_some_and(|p| p.kind.is_global())
        {
            return;
        }
        let Some((uri, budget_factor)) = self.next_candidate(false) else {
            return;
        };
        self.start_run(uri, budget_factor);
    }

    /// Whether a class the user works on waits (ranks 0 and 1 below).
    fn urgent_candidate(&mut self) -> bool {
        self.next_candidate(true).is_some()
    }

    /// The next class to run and its budget factor (factor 1 for the user's classes, 0.5 for
    /// background re-runs); with `urgent_only`, background re-runs are not considered.
    fn next_candidate(&mut self, urgent_only: bool) -> Option<(Uri, f64)> {
        let mut candidates: Vec<(u8, Instant, Uri, f64)> = Vec::new();
        let typing = self.tracked.values().any(|t| !t.ready);
        for (uri, tracked) in &self.tracked {
            let Some(file) = self.files.get(uri) else {
                continue;
            };
            if !file.model().problems.is_empty() {
                continue;
            }
            let path = uri_path(uri);
            if primary_type(file.model(), path.as_deref()).is_none() {
                continue;
            }
            let hash = ctg::pipeline::source_hash(file.model().text());
            if tracked.forced {
                candidates.push((0, tracked.last_activity, uri.clone(), 1.0));
                continue;
            }
            if tracked.paused_hash.as_deref() == Some(hash.as_str()) {
                continue;
            }
            let changed = tracked.last_run_hash.as_deref() != Some(hash.as_str());
            if changed && tracked.ready {
                candidates.push((1, tracked.last_activity, uri.clone(), 1.0));
            } else if !changed
                && !typing
                && !tracked.settled
                && tracked.runs > 0
                && tracked.problem.is_none()
                && tracked.background_runs < ctg::store::RUNS_WITHOUT_IMPROVEMENT as u32
            {
                // (A class whose last run failed waits for a change: the same text fails
                // the same way.)
                candidates.push((2, tracked.last_activity, uri.clone(), 0.5));
            }
        }
        // Most urgent first, then most recently active.
        candidates.sort_by(|a, b| a.0.cmp(&b.0).then(b.1.cmp(&a.1)));
        for (rank, _, uri, factor) in candidates {
            if rank < 2 {
                return Some((uri, factor));
            }
            if urgent_only {
                return None;
            }
            // Unchanged classes: only while the history says a re-run can still help.
            let (class, hash, store) = {
                let file = self.files.get(&uri)?;
                let path = uri_path(&uri)?;
                let class = primary_type(file.model(), Some(&path))?.binary_name.clone();
                let layout = self.workspace.layout_for(&path, &self.config.classpath);
                (
                    class,
                    ctg::pipeline::source_hash(file.model().text()),
                    Store::open(&layout.root),
                )
            };
            match store.should_rerun(&class, &hash) {
                RerunDecision::Yes(_) => return Some((uri, factor)),
                RerunDecision::No(reason) => {
                    tracing::debug!("{class} not re-run: {reason:?}");
                    if let Some(tracked) = self.tracked.get_mut(&uri) {
                        tracked.settled = true;
                    }
                }
            }
        }
        None
    }

    fn start_run(&mut self, uri: Uri, budget_factor: f64) {
        let Some(file) = self.files.get(&uri) else {
            return;
        };
        let Some(path) = uri_path(&uri) else {
            return;
        };
        let Some(class) = primary_type(file.model(), Some(&path)).map(|t| t.binary_name.clone())
        else {
            return;
        };
        let model = file.model().clone();
        let hash = ctg::pipeline::source_hash(model.text());
        let layout = self.workspace.layout_for(&path, &self.config.classpath);
        // Every open source file of the project runs as the editor holds it (open test
        // classes are not part of the classes under test).
        let overlays = SourceOverlays::new(self.files.iter().filter_map(|(uri, file)| {
            let path = uri_path(uri)?;
            is_source_file(&layout, &path).then(|| (path, file.model().text().to_string()))
        }));
        self.next_run += 1;
        let run = self.next_run;
        let cancel = CancelToken::new();
        let tracked = self.tracked.get_mut(&uri).expect("tracked with its file");
        tracked.forced = false;
        // Regression guard hook: the stored tests to check before the search.
        let guard = crate::lsp::regression::job_for(tracked, &layout, &class, budget_factor < 1.0);
        let before = tracked
            .results
            .clone()
            .filter(|r| r.origin != Origin::Interim);
        let budget = Duration::from_secs_f64(self.config.budget_seconds * budget_factor);
        let title = format!("ctgls: {}", simple_name(&class));
        let (progress, token) = self.start_progress(run, title);
        tracing::info!(
            "run {run}: {class}, budget {:.1} s{}",
            budget.as_secs_f64(),
            match before.as_ref().map(|r| r.origin) {
                Some(Origin::Final) => ", interim coverage on the last run's",
                Some(Origin::Stored) => ", interim coverage on the stored results",
                _ => "",
            }
        );
        self.running = Some(Running {
            run,
            uri: uri.clone(),
            class: class.clone(),
            cancel: cancel.clone(),
            phase: "starting",
            branches: None,
            hash,
            started: Instant::now(),
            progress,
            token,
            background: budget_factor < 1.0,
            before,
        });
        let job = RunJob {
            run,
            uri,
            class,
            store: Some(Store::open(&layout.root)),
            layout,
            overlays,
            model,
            budget,
            algorithm: match self.config.algorithm {
                Algorithm::Dynamosa => search::Algorithm::DynaMosa,
                Algorithm::Adynamosa => search::Algorithm::ADynaMosa,
                Algorithm::Mosa => search::Algorithm::Mosa,
                Algorithm::Wholesuite => search::Algorithm::WholeSuite,
            },
            junit: self.config.junit.map(|v| {
                if v == 4 {
                    ctg::project::JUnitVersion::Four
                } else {
                    ctg::project::JUnitVersion::Five
                }
            }),
            java_home: self.config.java_home.clone(),
            pass_environment: self.config.pass_environment.clone(),
            cancel,
            build_tool: self.config.build_tool(),
            explicit_classpath: self.config.classpath.len(),
            guard,
        };
        self.runner
            .get_or_insert_with(|| Runner::spawn(self.events.clone()))
            .submit(job);
        self.send_status();
    }

    /// Starts `$/progress` for a run when the client supports it: the token is created in a
    /// task of its own (a request to the client must not hold up the owner), which then
    /// forwards the run's messages in order.
    fn start_progress(
        &mut self,
        run: u64,
        title: String,
    ) -> (
        Option<tokio_mpsc::UnboundedSender<ProgressMessage>>,
        Option<ProgressToken>,
    ) {
        if !self.client_features.work_done_progress {
            return (None, None);
        }
        let token = NumberOrString::String(format!("ctgls/run/{run}"));
        let (sender, mut receiver) = tokio_mpsc::unbounded_channel();
        let client = self.client.clone();
        let task_token = token.clone();
        tokio::spawn(async move {
            if let Err(error) = client.create_work_done_progress(task_token.clone()).await {
                tracing::debug!("window/workDoneProgress/create failed: {error}");
                return;
            }
            send_progress(
                &client,
                &task_token,
                WorkDoneProgress::Begin(WorkDoneProgressBegin {
                    title,
                    cancellable: Some(true),
                    message: Some("starting".into()),
                    percentage: None,
                }),
            )
            .await;
            while let Some(message) = receiver.recv().await {
                match message {
                    ProgressMessage::Report(message) => {
                        send_progress(
                            &client,
                            &task_token,
                            WorkDoneProgress::Report(WorkDoneProgressReport {
                                cancellable: Some(true),
                                message: Some(message),
                                percentage: None,
                            }),
                        )
                        .await;
                    }
                    ProgressMessage::End(message) => {
                        send_progress(
                            &client,
                            &task_token,
                            WorkDoneProgress::End(WorkDoneProgressEnd {
                                message: Some(message),
                            }),
                        )
                        .await;
                        return;
                    }
                }
            }
        });
        (Some(sender), Some(token))
    }

    /// A message from the generation thread.
    pub(super) async fn run_update(&mut self, update: RunUpdate) {
        match update {
            RunUpdate::Phase {
                run,
                phase,
                branches,
            } => {
                let Some(running) = self.running.as_mut().filter(|r| r.run == run) else {
                    return;
                };
                let changed = running.phase != phase.as_str() || branches != running.branches;
                running.phase = phase.as_str();
                if branches.is_some() {
                    running.branches = branches;
                }
                if changed {
                    let message = running_message(running);
                    if let Some(progress) = &running.progress {
                        let _ = progress.send(ProgressMessage::Report(message));
                    }
                    self.send_status();
                }
            }
            RunUpdate::Interim { run, results } => {
                let Some(running) = self
                    .running
                    .as_ref()
                    .filter(|r| r.run == run && !r.cancel.is_cancelled())
                else {
                    return;
                };
                let uri = running.uri.clone();
                let shown = match &running.before {
                    Some(before) => Arc::new(ClassResults::with_interim(before, &results)),
                    None => results,
                };
                if let Some(tracked) = self.tracked.get_mut(&uri) {
                    tracked.results = Some(shown);
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
            // Regression guard hook: what the check before the search found.
            RunUpdate::Guard(update) => self.guard_update(update).await,
            RunUpdate::Finished { run, outcome, wall } => {
                let Some(running) = self.running.take().filter(|r| r.run == run) else {
                    return;
                };
                self.finish_run(running, outcome, wall).await;
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
        if let Some(progress) = &running.progress {
            let _ = progress.send(ProgressMessage::End(end_message.clone()));
        }
        tracing::info!("run {} ({}): {end_message}", running.run, running.class);
        let uri = running.uri.clone();
        match outcome {
            Ok(results) => {
                self.global_problem = None;
                if let Some(reason) = &results.unverified {
                    self.show_once(MessageType::WARNING, reason).await;
                }
                if let Some(tracked) = self.tracked.get_mut(&uri) {
                    tracked.results = Some(results);
                    tracked.problem = None;
                    tracked.runs += 1;
                    tracked.background_runs += u32::from(running.background);
                    tracked.last_run_hash = Some(running.hash);
                }
                self.results_changed(&uri).await;
            }
            Err(failure) if failure.kind == FailureKind::Cancelled => {
                // The text changed, or the user cancelled: nothing to show.
                if self
                    .tracked
                    .get_mut(&uri)
                    .is_some_and(|t| t.end_interim(running.before.clone()))
                {
                    self.results_changed(&uri).await;
                }
            }
            Err(failure) if failure.kind.is_global() => {
                self.show_once(MessageType::ERROR, &failure.message).await;
                self.global_problem = Some(failure);
                let uris: Vec<Uri> = self.tracked.keys().cloned().collect();
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
                if let Some(tracked) = self.tracked.get_mut(&uri) {
                    tracked.end_interim(running.before.clone());
                    tracked.problem = Some(failure);
                    tracked.last_run_hash = Some(running.hash);
                }
                self.results_changed(&uri).await;
            }
        }
        self.send_status();
    }

    /// A file's results changed: diagnostics, coverage listeners and code lenses.
    pub(super) async fn results_changed(&mut self, uri: &Uri) {
        self.publish_diagnostics(uri).await;
        let client = self.client.clone();
        let uri = uri.clone();
        let refresh = self.client_features.code_lens_refresh;
        tokio::spawn(async move {
            client
                .send_notification::<CoverageChanged>(json!({ "uri": uri.as_str() }))
                .await;
            if refresh {
                if let Err(error) = client.code_lens_refresh().await {
                    tracing::debug!("workspace/codeLens/refresh failed: {error}");
                }
            }
        });
    }

    /// Publishes `uri`'s diagnostics for the version the editor has now.
    pub(super) async fn publish_diagnostics(&mut self, uri: &Uri) {
        let Some(file) = self.files.get(uri) else {
            return;
        };
        let mut diagnostics = match self.tracked.get(uri) {
            Some(tracked) => diagnostics::compute(
                uri,
                file,
                tracked,
                self.unavailable_reason().as_deref(),
                self.encoding,
            ),
            None => Vec::new(),
        };
        // Regression guard hook: behaviour changes and failing project tests.
        diagnostics.extend(crate::lsp::regression::diagnostics(
            uri,
            file,
            &self.tracked,
            self.encoding,
        ));
        let version = file.document().version();
        self.client
            .publish_diagnostics(uri.clone(), diagnostics, Some(version))
            .await;
    }

    /// Why no run can happen at all, if that is so.
    pub(super) fn unavailable_reason(&self) -> Option<String> {
        if !self.config.execution_enabled {
            return Some("test generation is off: `ctgls.executionEnabled` is false".into());
        }
        self.global_problem
            .as_ref()
            .filter(|p| p.kind.is_global())
            .map(|p| p.message.clone())
    }

    /// Shows a message once per session (the same reason is not repeated on every run).
    pub(super) async fn show_once(&mut self, kind: MessageType, message: &str) {
        if self.shown_messages.insert(message.to_string()) {
            self.client.show_message(kind, message).await;
        } else {
            self.client.log_message(kind, message).await;
        }
    }

    /// Sends `ctgls/status`.
    pub(super) fn send_status(&self) {
        let status = status::compute(self);
        let client = self.client.clone();
        tokio::spawn(async move {
            client.send_notification::<StatusNotification>(status).await;
        });
    }

    /// Cancels the running and queued runs of `uri` (every file when `None`); they are not
    /// started again until their text changes or the user asks.
    pub(super) fn cancel(&mut self, uri: Option<&Uri>) -> usize {
        let mut cancelled = 0;
        if let Some(running) = &self.running {
            if uri.is_none_or(|u| *u == running.uri) && !running.cancel.is_cancelled() {
                running.cancel.cancel();
                cancelled += 1;
            }
        }
        let hashes: Vec<(Uri, String)> = self
            .files
            .iter()
            .filter(|(u, _)| uri.is_none_or(|wanted| wanted == *u))
            .map(|(u, f)| (u.clone(), ctg::pipeline::source_hash(f.model().text())))
            .collect();
        for (u, hash) in hashes {
            if let Some(tracked) = self.tracked.get_mut(&u) {
                tracked.forced = false;
                tracked.paused_hash = Some(hash);
            }
        }
        self.send_status();
        cancelled
    }

    /// `ctgls.generate`: run `uri`'s class (every open class when `None`) now.
    pub(super) fn force(&mut self, uri: Option<&Uri>) -> usize {
        let mut forced = 0;
        for (u, tracked) in self.tracked.iter_mut() {
            if uri.is_none_or(|wanted| wanted == u) {
                tracked.forced = true;
                tracked.paused_hash = None;
                tracked.settled = false;
                forced += 1;
            }
        }
        if forced > 0 {
            self.global_problem = None;
        }
        self.dispatch();
        self.send_status();
        forced
    }

    /// `window/workDoneProgress/cancel`.
    pub(super) fn cancel_progress(&mut self, token: &ProgressToken) {
        let uri = self
            .running
            .as_ref()
            .filter(|r| r.token.as_ref() == Some(token))
            .map(|r| r.uri.clone());
        if let Some(uri) = uri {
            self.cancel(Some(&uri));
        }
    }

    /// Shows the results the `.ctgls/` store holds for a just-opened file, when they are of
    /// the same text: a restarted server shows coverage at once.
    pub(super) fn load_stored(&mut self, uri: &Uri, layout: &ctg::project::ProjectLayout) {
        let Some(file) = self.files.get(uri) else {
            return;
        };
        let Some(path) = uri_path(uri) else {
            return;
        };
        let Some(class) = primary_type(file.model(), Some(&path)).map(|t| t.binary_name.clone())
        else {
            return;
        };
        let store = Store::open(&layout.root);
        let hash = ctg::pipeline::source_hash(file.model().text());
        // The JUnit a run would write now: the stored class is used only when it is that one.
        let junit = match self.config.junit {
            Some(4) => ctg::project::JUnitVersion::Four,
            Some(_) => ctg::project::JUnitVersion::Five,
            None => layout.junit_version(),
        };
        let suite = (ctg::emit::test_file(layout, &class), junit);
        match store.load(&class) {
            Ok(Some(record)) if record.last_run().is_some_and(|r| r.run.source_hash == hash) => {
                let results = ClassResults::stored(&class, &record, file.model(), suite);
                if let Some(tracked) = self.tracked.get_mut(uri) {
                    tracked.results = Some(Arc::new(results));
                }
            }
            Ok(_) => {}
            Err(error) => tracing::warn!("ignoring the stored results of {class}: {error}"),
        }
    }
}

fn running_message(running: &Running) -> String {
    match running.branches {
        Some((covered, total)) => format!("{} · {covered}/{total} branches", running.phase),
        None => running.phase.to_string(),
    }
}

async fn send_progress(client: &Client, token: &ProgressToken, value: WorkDoneProgress) {
    client
        .send_notification::<tower_lsp_server::ls_types::notification::Progress>(
            tower_lsp_server::ls_types::ProgressParams {
                token: token.clone(),
                value: tower_lsp_server::ls_types::ProgressParamsValue::WorkDone(value),
            },
        )
        .await;
}

/// `ctgls/status`, see `docs/lsp-extensions.md`.
pub enum StatusNotification {}

impl Notification for StatusNotification {
    type Params = serde_json::Value;
    const METHOD: &'static str = "ctgls/status";
}

/// `ctgls/coverageChanged`, see `docs/lsp-extensions.md`.
pub enum CoverageChanged {}

impl Notification for CoverageChanged {
    type Params = serde_json::Value;
    const METHOD: &'static str = "ctgls/coverageChanged";
}
