//! Which class runs next, when, and with what budget (Campos et al.'s "Continuous Test
//! Generation" ideas, in the editor); the run in progress and cancel-on-edit. It keeps a
//! record per open class (`FileSchedule`) and hands runs to the generation thread; it
//! publishes nothing and holds no results: the owner shows what runs report.
//!
//! Scheduling, in order of preference, one run at a time:
//! 0. class-integration runs the user asked for (`ctgls.generateIntegration`), first asked
//!    first, with the full budget (the owner starts them: `start_integration`);
//! 1. classes the user asked for (`ctgls.generate`), with the full budget;
//! 2. classes whose text changed since their last run (or that never ran this session) and
//!    that have been quiet for the idle delay (or were just opened or saved), most recently
//!    active first, with the full budget;
//! 3. when nobody is typing, the other open classes, unchanged since their last run, with half
//!    the budget (Campos et al.'s "Continuous Test Generation" h = 2 factor between changed and
//!    unchanged classes), as long as the store's history says a re-run may still improve
//!    coverage (section 4.1: not after three runs without improvement, nor at full coverage).
//!
//! With the `trigger` setting at `save`, a class becomes ready by a save only, not by opening
//! or the idle delay; at `manual`, only (1) runs. A class whose file has syntax errors is
//! not run. Deviation from Campos et al.: the first run of a class in a session always
//! happens, even when the history says it stagnated: the store's tests were verified against
//! the class and its dependencies as they were then, and a run checks them against the
//! project as it is now.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use ctg::project::SourceOverlays;
use ctg::store::{RerunDecision, Store};
use search::CancelToken;
use tower_lsp_server::ls_types::Uri;

use crate::lsp::guard::{GuardJob, JobFor};
use crate::lsp::protocol::settings::{Algorithm, Config, Trigger};
use crate::lsp::results::ClassResults;
use crate::lsp::runner::{RunJob, Runner, UpdateSink};
use crate::lsp::workspace::{is_source_file, primary_type, uri_path, Workspace};
use crate::open_file::OpenFile;

/// The scheduler's record of one open class.
#[derive(Debug)]
pub struct FileSchedule {
    /// Bumped by every edit; an idle timer only fires for the latest one.
    pub edit_seq: u64,
    /// Quiet for the idle delay since the last edit (or just opened or saved).
    pub ready: bool,
    /// The user asked for a run (`ctgls.generate`).
    pub forced: bool,
    pub last_activity: Instant,
    /// Finished runs this session.
    pub runs: u32,
    /// The last run failed: the same text fails the same way, so it waits for a change.
    pub failed: bool,
    /// Hash of the text of the last finished (or failed) run.
    pub last_run_hash: Option<String>,
    /// The store said re-running the unchanged class cannot help; cleared by edits.
    pub settled: bool,
    /// Not to be run again until the text changes (the user cancelled).
    pub paused_hash: Option<String>,
    /// Background re-runs of the current text. Bounded by Campos et al.'s three runs even
    /// when the store cannot say (unwritable `.ctgls/`), so re-running never goes on for ever.
    pub background_runs: u32,
}

impl Default for FileSchedule {
    fn default() -> FileSchedule {
        FileSchedule {
            edit_seq: 0,
            ready: true,
            forced: false,
            last_activity: Instant::now(),
            runs: 0,
            failed: false,
            last_run_hash: None,
            settled: false,
            paused_hash: None,
            background_runs: 0,
        }
    }
}

impl FileSchedule {
    /// Asked for, or (with the `idle` trigger) waiting for its idle delay. With `save` or
    /// `manual` an edited class waits for the user, not in the queue.
    pub fn queued(&self, trigger: Trigger) -> bool {
        self.forced || (!self.ready && trigger == Trigger::Idle)
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
    /// A re-run of an unchanged class, which gives way to the user's classes.
    pub background: bool,
    /// The results shown when the run started (a finished run's or the store's): interim
    /// coverage is shown on top of them, and they come back if the run ends without results.
    pub before: Option<Arc<ClassResults>>,
    /// The callee of a class-integration run (binary name); `None` for a unit run.
    pub callee: Option<String>,
}

impl Running {
    /// `searching · 5/18 branches`.
    pub fn message(&self) -> String {
        match self.branches {
            Some((covered, total)) => format!("{} · {covered}/{total} branches", self.phase),
            None => self.phase.to_string(),
        }
    }
}

/// How a run ended, for the record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RunEnd {
    Results,
    Failed,
    Cancelled,
}

/// What the scheduler reads of the owner's state to choose and start a run.
pub struct Inputs<'a> {
    pub files: &'a HashMap<Uri, OpenFile>,
    pub config: &'a Config,
    pub workspace: &'a Workspace,
}

#[derive(Default)]
pub struct Scheduler {
    files: HashMap<Uri, FileSchedule>,
    running: Option<Running>,
    /// The generation thread, started with the first run.
    runner: Option<Runner>,
    next_run: u64,
    /// The regression guard's check on its own in flight (`check`): its file and its cancel
    /// token, cancelled by the file's next edit.
    checking: Option<(Uri, CancelToken)>,
    /// Class-integration runs the user asked for, first come first served.
    integration: std::collections::VecDeque<IntegrationAsk>,
}

/// A class-integration run asked for (`ctgls.generateIntegration`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IntegrationAsk {
    /// The caller's file (open or not) and binary name.
    pub caller_uri: Uri,
    pub caller: String,
    pub callee: String,
    /// `ctg::pipeline::source_hash` of the callee's text when asked.
    pub callee_hash: String,
}

impl Scheduler {
    /// Starts scheduling an open class. With the `idle` trigger it is ready at once (opening
    /// is not typing); with `save` it waits for a save, with `manual` for the user.
    pub fn track(&mut self, uri: &Uri, trigger: Trigger) {
        let schedule = FileSchedule {
            ready: trigger == Trigger::Idle,
            ..FileSchedule::default()
        };
        self.files.insert(uri.clone(), schedule);
    }

    /// The `trigger` setting changed: with `idle`, every class is ready at once (as if just
    /// opened); with `save` or `manual`, none is until saved or asked for.
    pub fn set_trigger(&mut self, trigger: Trigger) {
        for schedule in self.files.values_mut() {
            schedule.ready = trigger == Trigger::Idle;
        }
    }

    /// Stops scheduling a closed file (cancelling its run, not an integration run through
    /// it, which needs no open file); whether it was tracked.
    pub fn untrack(&mut self, uri: &Uri) -> bool {
        let its_run = |r: &&Running| &r.uri == uri && r.callee.is_none();
        if let Some(running) = self.running.as_ref().filter(its_run) {
            running.cancel.cancel();
        }
        self.files.remove(uri).is_some()
    }

    pub fn is_tracked(&self, uri: &Uri) -> bool {
        self.files.contains_key(uri)
    }

    pub fn file(&self, uri: &Uri) -> Option<&FileSchedule> {
        self.files.get(uri)
    }

    /// Every tracked file.
    pub fn tracked(&self) -> impl Iterator<Item = &Uri> {
        self.files.keys()
    }

    pub fn running(&self) -> Option<&Running> {
        self.running.as_ref()
    }

    /// The phase of `uri`'s run, when it has one.
    pub fn running_phase(&self, uri: &Uri) -> Option<&'static str> {
        self.running
            .as_ref()
            .filter(|r| &r.uri == uri)
            .map(|r| r.phase)
    }

    /// The run `run`, when it is the one in progress.
    pub fn run_mut(&mut self, run: u64) -> Option<&mut Running> {
        self.running.as_mut().filter(|r| r.run == run)
    }

    /// The run `run`, when it is the one in progress and not cancelled.
    pub fn live_run(&mut self, run: u64) -> Option<&mut Running> {
        self.running
            .as_mut()
            .filter(|r| r.run == run && !r.cancel.is_cancelled())
    }

    /// An edit of `uri`: cancels its run; the sequence number an idle timer must carry.
    pub fn edited(&mut self, uri: &Uri) -> Option<u64> {
        let schedule = self.files.get_mut(uri)?;
        schedule.edit_seq += 1;
        schedule.ready = false;
        schedule.settled = false;
        schedule.background_runs = 0;
        schedule.last_activity = Instant::now();
        if let Some((_, cancel)) = self.checking.as_ref().filter(|(u, _)| u == uri) {
            cancel.cancel();
        }
        if let Some(running) = &self.running {
            if &running.uri == uri && !running.cancel.is_cancelled() {
                tracing::debug!("edit of {}: cancelling run {}", uri.as_str(), running.run);
                running.cancel.cancel();
            }
        }
        Some(schedule.edit_seq)
    }

    /// The idle delay after edit `seq` passed; whether `uri` became ready by it (only the
    /// latest edit's timer counts, and only with the `idle` trigger).
    pub fn idle(&mut self, uri: &Uri, seq: u64, trigger: Trigger) -> bool {
        let Some(schedule) = self.files.get_mut(uri) else {
            return false;
        };
        tracing::debug!(
            "idle: {} (edit {seq}, latest {})",
            uri.as_str(),
            schedule.edit_seq
        );
        if schedule.edit_seq != seq || trigger != Trigger::Idle {
            return false;
        }
        schedule.ready = true;
        true
    }

    /// Whether edit `seq` is still `uri`'s latest.
    pub fn is_latest_edit(&self, uri: &Uri, seq: u64) -> bool {
        self.files.get(uri).is_some_and(|s| s.edit_seq == seq)
    }

    /// A save: "I am done for now", no need to wait for the idle delay.
    pub fn saved(&mut self, uri: &Uri) {
        if let Some(schedule) = self.files.get_mut(uri) {
            schedule.ready = true;
            schedule.edit_seq += 1;
        }
    }

    /// `ctgls.generate`: `uri`'s class (every open class when `None`) is due now; how many.
    pub fn force(&mut self, uri: Option<&Uri>) -> usize {
        let mut forced = 0;
        for (u, schedule) in self.files.iter_mut() {
            if uri.is_none_or(|wanted| wanted == u) {
                schedule.forced = true;
                schedule.paused_hash = None;
                schedule.settled = false;
                forced += 1;
            }
        }
        forced
    }

    /// Cancels the running and queued runs of `uri` (every file when `None`); they are not
    /// started again until their text changes or the user asks. How many runs were cancelled.
    pub fn cancel(&mut self, uri: Option<&Uri>, files: &HashMap<Uri, OpenFile>) -> usize {
        let mut cancelled = 0;
        // Integration runs through the file's class (all of them without a file).
        self.integration
            .retain(|ask| uri.is_some_and(|u| *u != ask.caller_uri));
        if let Some(running) = &self.running {
            if uri.is_none_or(|u| *u == running.uri) && !running.cancel.is_cancelled() {
                running.cancel.cancel();
                cancelled += 1;
            }
        }
        for (u, file) in files {
            if uri.is_some_and(|wanted| wanted != u) {
                continue;
            }
            if let Some(schedule) = self.files.get_mut(u) {
                schedule.forced = false;
                schedule.paused_hash = Some(ctg::pipeline::source_hash(file.model().text()));
            }
        }
        cancelled
    }

    /// Cancels the run in progress, whatever it is (settings turned execution off, shutdown).
    pub fn cancel_running(&self) {
        if let Some(running) = &self.running {
            running.cancel.cancel();
        }
    }

    /// Ends run `run` when it is the one in progress, recording how it ended.
    pub fn finish(&mut self, run: u64, end: RunEnd) -> Option<Running> {
        let running = self.running.take_if(|r| r.run == run)?;
        // An integration run says nothing of the caller's unit runs.
        let schedule = match running.callee {
            None => self.files.get_mut(&running.uri),
            Some(_) => None,
        };
        if let Some(schedule) = schedule {
            match end {
                RunEnd::Results => {
                    schedule.runs += 1;
                    schedule.failed = false;
                    schedule.background_runs += u32::from(running.background);
                    schedule.last_run_hash = Some(running.hash.clone());
                }
                RunEnd::Failed => {
                    schedule.failed = true;
                    schedule.last_run_hash = Some(running.hash.clone());
                }
                RunEnd::Cancelled => {}
            }
        }
        Some(running)
    }

    /// While a background re-run is in progress and one of the user's classes is due, cancels
    /// the re-run (it is tried again later). Returns whether a run is in progress.
    pub fn yield_to_user(&mut self, inputs: &Inputs) -> bool {
        let Some(running) = &self.running else {
            return false;
        };
        let yields = running.background && !running.cancel.is_cancelled();
        if yields && (!self.integration.is_empty() || self.next(inputs, true).is_some()) {
            if let Some(running) = &self.running {
                tracing::debug!("run {} gives way to a class the user works on", running.run);
                running.cancel.cancel();
            }
        }
        true
    }

    /// The next class to run and its budget factor (1 for the user's classes, 0.5 for
    /// background re-runs); with `urgent_only`, background re-runs are not considered.
    pub fn next(&mut self, inputs: &Inputs, urgent_only: bool) -> Option<(Uri, f64)> {
        let trigger = inputs.config.trigger;
        let mut candidates: Vec<(u8, Instant, Uri, f64)> = Vec::new();
        let typing = self.files.values().any(|s| !s.ready);
        for (uri, schedule) in &self.files {
            let Some(file) = inputs.files.get(uri) else {
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
            if schedule.forced {
                candidates.push((0, schedule.last_activity, uri.clone(), 1.0));
                continue;
            }
            if trigger == Trigger::Manual || schedule.paused_hash.as_deref() == Some(hash.as_str())
            {
                continue;
            }
            let changed = schedule.last_run_hash.as_deref() != Some(hash.as_str());
            if changed && schedule.ready {
                candidates.push((1, schedule.last_activity, uri.clone(), 1.0));
            } else if !changed
                && !typing
                && trigger == Trigger::Idle
                && !schedule.settled
                && schedule.runs > 0
                && !schedule.failed
                && schedule.background_runs < ctg::store::RUNS_WITHOUT_IMPROVEMENT as u32
            {
                // (A class whose last run failed waits for a change: the same text fails
                // the same way.)
                candidates.push((2, schedule.last_activity, uri.clone(), 0.5));
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
                let file = inputs.files.get(&uri)?;
                let path = uri_path(&uri)?;
                let class = primary_type(file.model(), Some(&path))?.binary_name.clone();
                let layout = inputs
                    .workspace
                    .layout_for(&path, &inputs.config.layout_overrides());
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
                    if let Some(schedule) = self.files.get_mut(&uri) {
                        schedule.settled = true;
                    }
                }
            }
        }
        None
    }

    /// Starts a run of `uri`'s class with `budget_factor` of the budget, `before` being the
    /// results it shows now, and `guard` giving the regression guard's part of the run; the
    /// run in progress, or `None` when the file has no class.
    pub fn start(
        &mut self,
        uri: Uri,
        budget_factor: f64,
        before: Option<Arc<ClassResults>>,
        inputs: &Inputs,
        updates: impl FnOnce() -> UpdateSink,
        guard: impl FnOnce(&JobFor) -> Option<GuardJob>,
    ) -> Option<&Running> {
        let job = self.job(&uri, budget_factor, inputs, false, guard)?;
        tracing::info!(
            "run {}: {}, budget {:.1} s{}",
            job.run,
            job.class,
            job.budget.as_secs_f64(),
            match before.as_ref().map(|r| r.origin) {
                Some(crate::lsp::results::Origin::Final) => ", interim coverage on the last run's",
                Some(crate::lsp::results::Origin::Stored) =>
                    ", interim coverage on the stored results",
                _ => "",
            }
        );
        self.launch(job, uri, budget_factor < 1.0, before, updates)
    }

    /// Hands `job` to the generation thread (started with the first run) as the run in
    /// progress.
    fn launch(
        &mut self,
        job: RunJob,
        uri: Uri,
        background: bool,
        before: Option<Arc<ClassResults>>,
        updates: impl FnOnce() -> UpdateSink,
    ) -> Option<&Running> {
        let running = Running {
            run: job.run,
            uri,
            class: job.class.clone(),
            cancel: job.cancel.clone(),
            phase: "starting",
            branches: None,
            hash: ctg::pipeline::source_hash(job.model.text()),
            started: Instant::now(),
            background,
            before,
            callee: job.integration.as_ref().map(|i| i.callee.clone()),
        };
        self.runner
            .get_or_insert_with(|| Runner::spawn(updates()))
            .submit(job);
        self.running = Some(running);
        self.running.as_ref()
    }

    /// Queues a class-integration run (a pair asked for again is queued once, last); how
    /// many are queued.
    pub fn ask_integration(&mut self, ask: IntegrationAsk) -> usize {
        self.integration
            .retain(|a| (&a.caller, &a.callee) != (&ask.caller, &ask.callee));
        self.integration.push_back(ask);
        self.integration.len()
    }

    /// Whether an integration run is waiting (the user asked: it goes before other runs).
    pub fn integration_due(&self) -> bool {
        !self.integration.is_empty()
    }

    /// Starts the first integration run asked for, with the full budget; `model` is the
    /// caller's (its open document's, else its file's).
    pub fn start_integration(
        &mut self,
        model: Option<Arc<javamodel::JavaModel>>,
        inputs: &Inputs,
        updates: impl FnOnce() -> UpdateSink,
    ) -> Option<&Running> {
        let ask = self.integration.pop_front()?;
        let (model, path) = (model?, uri_path(&ask.caller_uri)?);
        // `job_of` takes the caller's unit run as started; this is not that run.
        let forced = self.files.get(&ask.caller_uri).map(|s| s.forced);
        let mut job = self.job_of(
            &ask.caller_uri,
            &path,
            ask.caller.clone(),
            model,
            1.0,
            inputs,
            false,
            |_| None,
        );
        if let (Some(forced), Some(schedule)) = (forced, self.files.get_mut(&ask.caller_uri)) {
            schedule.forced = forced;
        }
        // The pipeline records what the run covered in the store (not as the class's suite).
        job.integration = Some(crate::lsp::runner::IntegrationJob {
            callee: ask.callee.clone(),
            callee_hash: ask.callee_hash,
        });
        tracing::info!(
            "run {}: {} through its calls of {}, budget {:.1} s",
            job.run,
            job.class,
            ask.callee,
            job.budget.as_secs_f64()
        );
        self.launch(job, ask.caller_uri, false, None, updates)
    }

    /// The integration run to start next, without starting it.
    pub fn next_integration(&self) -> Option<&IntegrationAsk> {
        self.integration.front()
    }

    /// Starts the regression guard's check of `uri`'s class on its own (`guard::CHECK_DELAY`
    /// after an edit, before the idle delay's run): a job for the generation thread that runs
    /// the stored tests and the project's tests and reports them, without a search. It waits
    /// there behind a run in progress; the file's next edit cancels it. Whether it started
    /// (`guard` gave it something to check).
    pub fn check(
        &mut self,
        uri: &Uri,
        inputs: &Inputs,
        updates: impl FnOnce() -> UpdateSink,
        guard: impl FnOnce(&JobFor) -> Option<GuardJob>,
    ) -> bool {
        let Some(job) = self.job(uri, 0.0, inputs, true, guard) else {
            return false;
        };
        if job.guard.is_none() {
            return false;
        }
        tracing::info!(
            "run {}: the regression guard's check of {}",
            job.run,
            job.class
        );
        self.checking = Some((uri.clone(), job.cancel.clone()));
        self.runner
            .get_or_insert_with(|| Runner::spawn(updates()))
            .submit(job);
        true
    }

    /// The generation thread's job for `uri`'s class (a run, or with `check_only` the guard's
    /// check alone), numbered; `None` when the file has no class.
    fn job(
        &mut self,
        uri: &Uri,
        budget_factor: f64,
        inputs: &Inputs,
        check_only: bool,
        guard: impl FnOnce(&JobFor) -> Option<GuardJob>,
    ) -> Option<RunJob> {
        let file = inputs.files.get(uri)?;
        let path = uri_path(uri)?;
        let class = primary_type(file.model(), Some(&path))?.binary_name.clone();
        let model = file.model().clone();
        Some(self.job_of(
            uri,
            &path,
            class,
            model,
            budget_factor,
            inputs,
            check_only,
            guard,
        ))
    }

    /// The generation thread's job for `class` of the file at `uri` (`path`) with `model`.
    #[allow(clippy::too_many_arguments)]
    fn job_of(
        &mut self,
        uri: &Uri,
        path: &std::path::Path,
        class: String,
        model: Arc<javamodel::JavaModel>,
        budget_factor: f64,
        inputs: &Inputs,
        check_only: bool,
        guard: impl FnOnce(&JobFor) -> Option<GuardJob>,
    ) -> RunJob {
        let config = inputs.config;
        let hash = ctg::pipeline::source_hash(model.text());
        let layout = inputs
            .workspace
            .layout_for(path, &config.layout_overrides());
        // Every open source file of the project runs as the editor holds it (open test
        // classes are not part of the classes under test).
        let overlays = SourceOverlays::new(inputs.files.iter().filter_map(|(uri, file)| {
            let path = uri_path(uri)?;
            is_source_file(&layout, &path).then(|| (path, file.model().text().to_string()))
        }));
        self.next_run += 1;
        let run = self.next_run;
        let cancel = CancelToken::new();
        let guard = guard(&JobFor {
            run,
            hash: &hash,
            layout: &layout,
            class: &class,
            background: budget_factor < 1.0 && !check_only,
            check_only,
        });
        let budget = Duration::from_secs_f64(config.budget_seconds * budget_factor);
        if !check_only {
            if let Some(schedule) = self.files.get_mut(uri) {
                schedule.forced = false;
            }
        }
        RunJob {
            run,
            uri: uri.clone(),
            class: class.clone(),
            store: Some(Store::open(&layout.root)),
            layout,
            overlays,
            model,
            budget,
            algorithm: match config.algorithm {
                Algorithm::Dynamosa => search::Algorithm::DynaMosa,
                Algorithm::Adynamosa => search::Algorithm::ADynaMosa,
                Algorithm::Mosa => search::Algorithm::Mosa,
                Algorithm::Wholesuite => search::Algorithm::WholeSuite,
            },
            junit: config.junit.map(|v| {
                if v == 4 {
                    ctg::project::JUnitVersion::Four
                } else {
                    ctg::project::JUnitVersion::Five
                }
            }),
            java_home: config.java_home.clone(),
            pass_environment: config.pass_environment.clone(),
            cancel: cancel.clone(),
            build_tool: config.build_tool(),
            explicit_classpath: config.classpath.len(),
            guard,
            mutation_analysis: config.mutation_analysis,
            check_only,
            integration: None,
        }
    }

    /// Cancels the run in progress and waits (bounded) for the generation thread to shut the
    /// JVM workers down. The server runs on a multi-threaded runtime, where blocking one worker
    /// thread for that is allowed.
    pub fn stop(&mut self) {
        self.cancel_running();
        if let Some(runner) = self.runner.take() {
            tokio::task::block_in_place(|| drop(runner));
        }
    }
}
