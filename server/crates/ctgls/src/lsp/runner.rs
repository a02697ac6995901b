//! The generation thread: runs one class's pipeline at a time (job, emission, verification,
//! store) off the async runtime, since it blocks on the JVM worker for seconds. It owns the
//! JVM workers (one per project, started on the first run and kept warm) and reports back to
//! the owner task through an `UpdateSink`: phases, interim coverage while the search runs,
//! and the final results or the reason there are none.
//!
//! Before a run, the project's build tool is asked for its classpath (`ctg::buildtool`): from
//! the on-disk cache when the build files are unchanged, else by running Maven or Gradle here,
//! on the generation thread, with the run's progress saying so; never on the owner task, so
//! edits are never kept waiting. A failure is remembered for `FAILURE_RETRY` (the build files
//! unchanged) rather than retried on every run.

use std::collections::{BTreeSet, HashMap};
use std::path::PathBuf;
use std::sync::mpsc;
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use ctg::budget::{costs_path, CostLedger};
use ctg::buildtool::{self, BuildToolSettings, Resolution};
use ctg::job::{GenerationError, GenerationObserver, GenerationRequest, Phase, SourceDiagnostic};
use ctg::levels::CompileLevels;
use ctg::pipeline::{self, PipelineError, PipelineOptions};
use ctg::project::{JUnitVersion, ProjectLayout, SourceOverlays};
use ctg::store::Store;
use ctg::verify::VerifyOptions;
use javamodel::JavaModel;
use jvm::{JvmError, Supervisor, Training, WorkerConfig};
use search::{Algorithm, CancelToken, Progress};
use tower_lsp_server::ls_types::Uri;

use crate::lsp::guard::{check_before_run, CheckInput, GuardJob, GuardUpdate};
use crate::lsp::results::integration::IntegrationRecord;
use crate::lsp::results::ClassResults;

/// How long a build tool's failure stands before the tool is asked again (with the same build
/// files; an edited build file is asked at once). The user may have fixed the local
/// repository in the meantime, but starting Maven before every run would cost seconds each.
const FAILURE_RETRY: Duration = Duration::from_secs(300);

/// How often interim coverage is sent while the search runs.
const INTERIM_EVERY: Duration = Duration::from_millis(700);

/// One run, as the owner asks for it.
pub struct RunJob {
    pub run: u64,
    pub uri: Uri,
    pub class: String,
    pub layout: ProjectLayout,
    /// Unsaved buffers of the project's open files.
    pub overlays: SourceOverlays,
    /// The model of the class's file as the run sees it (the owner's, shared: no re-parse).
    pub model: Arc<JavaModel>,
    pub budget: Duration,
    pub algorithm: Algorithm,
    pub junit: Option<JUnitVersion>,
    pub java_home: Option<PathBuf>,
    /// `passEnvironment`: the developer's variables code under test may see.
    pub pass_environment: Vec<String>,
    pub cancel: CancelToken,
    /// The project's `.ctgls/` store: warm start and history.
    pub store: Option<Store>,
    /// How the build tool is asked for the classpath.
    pub build_tool: BuildToolSettings,
    /// How many of the layout's classpath entries the user gave (they stay first).
    pub explicit_classpath: usize,
    /// The regression guard's check before the search (`guard.rs`); `None`: no check.
    pub guard: Option<GuardJob>,
    /// `mutationAnalysis`: mutation analysis and assertion selection by it.
    pub mutation_analysis: bool,
    /// The guard's check alone (`guard::CHECK_DELAY` after an edit): no search, no
    /// `Finished` report. Dropped unstarted when cancelled (the file was edited again).
    pub check_only: bool,
    /// A class-integration run of the class through its calls of a callee (`ctgls generate
    /// --class R --callee E`): reported as `IntegrationFinished`, its test file written.
    pub integration: Option<IntegrationJob>,
}

/// The callee of an integration run.
#[derive(Debug, Clone)]
pub struct IntegrationJob {
    /// Binary name.
    pub callee: String,
    /// `ctg::pipeline::source_hash` of the callee's text the run sees.
    pub callee_hash: String,
}

/// Where a project's classpath came from, for `ctgls/status`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClasspathStatus {
    pub tool: &'static str,
    /// `resolved` (the tool ran), `cached`, `fallback` (the tool failed; the classpath comes
    /// from the POMs' declared dependencies) or `failed` (the classpath is guessed).
    pub state: &'static str,
    pub entries: usize,
    pub sibling_sources: usize,
    /// The tool's error with what to do, or its notes.
    pub message: Option<String>,
}

/// Where the runner tells the owner what happens (`false`: the owner is gone, stop). A
/// function rather than the owner's event channel, so the runner knows nothing of the owner.
pub type UpdateSink = std::sync::Arc<dyn Fn(RunUpdate) -> bool + Send + Sync>;

/// What the runner tells the owner.
#[derive(Debug)]
pub enum RunUpdate {
    Phase {
        run: u64,
        phase: Phase,
        /// Branch goals covered / total so far, once the search reports.
        branches: Option<(usize, usize)>,
    },
    Interim {
        run: u64,
        results: Arc<ClassResults>,
    },
    Finished {
        run: u64,
        outcome: Result<Arc<ClassResults>, RunFailure>,
        wall: Duration,
    },
    /// An integration run ended (`RunJob::integration`).
    IntegrationFinished {
        run: u64,
        outcome: Result<Arc<IntegrationRecord>, RunFailure>,
        wall: Duration,
    },
    /// What the regression guard's check before the search found (`guard.rs`).
    Guard(GuardUpdate),
    /// The build tool answered (or failed) for the project at `root`.
    Classpath {
        root: PathBuf,
        status: ClasspathStatus,
    },
}

/// Why a run produced nothing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunFailure {
    pub kind: FailureKind,
    pub message: String,
    /// javac's errors when the project does not compile.
    pub diagnostics: Vec<SourceDiagnostic>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FailureKind {
    /// No usable JDK (not found, too old, the worker does not build).
    NoJdk,
    ExecutionDisabled,
    DoesNotCompile,
    NotInstantiable,
    NotFound,
    Cancelled,
    /// Anything else (the worker broke, verification failed, IO).
    Other,
}

impl FailureKind {
    /// Failures of the environment rather than of one class: no class can be run until the
    /// settings change.
    pub fn is_global(self) -> bool {
        matches!(self, FailureKind::NoJdk | FailureKind::ExecutionDisabled)
    }
}

/// How long dropping the runner waits for the generation thread to shut its workers down.
const STOP_TIMEOUT: Duration = Duration::from_secs(10);

/// The owner's handle on the generation thread. Dropping it ends the thread after its
/// current run (cancel that first) and waits a bounded time for the JVM workers to be shut
/// down, so none outlives the server.
pub struct Runner {
    jobs: Option<mpsc::Sender<RunJob>>,
    /// Answered when the thread ends. (In a mutex only so that `Runner` is `Sync`.)
    stopped: std::sync::Mutex<mpsc::Receiver<()>>,
}

impl Runner {
    pub fn spawn(updates: UpdateSink) -> Runner {
        let (jobs, receiver) = mpsc::channel::<RunJob>();
        let (stopped_sender, stopped) = mpsc::channel();
        std::thread::Builder::new()
            .name("ctgls-generation".into())
            .spawn(move || {
                run_loop(receiver, updates);
                let _ = stopped_sender.send(());
            })
            .expect("spawning the generation thread");
        Runner {
            jobs: Some(jobs),
            stopped: std::sync::Mutex::new(stopped),
        }
    }

    pub fn submit(&self, job: RunJob) {
        let sent = self
            .jobs
            .as_ref()
            .is_some_and(|jobs| jobs.send(job).is_ok());
        if !sent {
            tracing::error!("the generation thread has stopped");
        }
    }
}

impl Drop for Runner {
    fn drop(&mut self) {
        self.jobs.take();
        let stopped = match self.stopped.lock() {
            Ok(receiver) => receiver.recv_timeout(STOP_TIMEOUT).is_ok(),
            Err(_) => false,
        };
        if !stopped {
            tracing::warn!("the generation thread did not stop in time");
        }
    }
}

/// Workers by project root and JDK.
/// Per project (root, JDK): its warm worker and what emission costs there.
type Workers = HashMap<(PathBuf, Option<PathBuf>), (Supervisor, CostLedger)>;

/// Build tool failures by build key, with when they happened.
type Failures = HashMap<String, (Instant, Resolution)>;

fn run_loop(jobs: mpsc::Receiver<RunJob>, updates: UpdateSink) {
    let mut workers: Workers = HashMap::new();
    let mut failures: Failures = HashMap::new();
    while let Ok(mut job) = jobs.recv() {
        if job.check_only {
            if !job.cancel.is_cancelled() {
                let checked = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    check_only(&mut job, &mut workers, &mut failures, &updates)
                }));
                if let Err(panic) = checked {
                    let message = super::panic_message(panic.as_ref());
                    tracing::error!("the check of {} panicked: {message}", job.class);
                    workers.clear();
                }
            }
            continue;
        }
        let started = Instant::now();
        let run = job.run;
        let resolution = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            resolve_classpath(&mut job, &mut failures, &updates)
        }))
        .unwrap_or_else(|panic| {
            tracing::error!(
                "resolving the classpath panicked: {}",
                super::panic_message(panic.as_ref())
            );
            None
        });
        // A run that failed on a guessed classpath says why the classpath is a guess.
        let explain = |failure: RunFailure| classpath_note(failure, resolution.as_ref());
        let update = match &job.integration {
            None => RunUpdate::Finished {
                run,
                outcome: guarded(&job, &mut workers, |workers| {
                    run_one(&job, workers, &updates)
                })
                .map_err(explain),
                wall: started.elapsed(),
            },
            Some(integration) => RunUpdate::IntegrationFinished {
                run,
                outcome: guarded(&job, &mut workers, |workers| {
                    run_integration(&job, integration, workers, &updates)
                })
                .map_err(explain),
                wall: started.elapsed(),
            },
        };
        if !updates(update) {
            break;
        }
        prepare_faster_starts(&job, &mut workers);
    }
    for (_, (mut worker, _)) in workers {
        worker.shutdown();
    }
}

/// `run` on the job's workers, a panic turned into a failure (and the workers started
/// afresh next time, since they may be in any state).
fn guarded<T>(
    job: &RunJob,
    workers: &mut Workers,
    run: impl FnOnce(&mut Workers) -> Result<T, RunFailure>,
) -> Result<T, RunFailure> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| run(workers))).unwrap_or_else(
        |panic| {
            let message = super::panic_message(panic.as_ref());
            tracing::error!("generation for {} panicked: {message}", job.class);
            workers.clear();
            Err(RunFailure {
                kind: FailureKind::Other,
                message: format!(
                    "internal error while generating for {}: {message}",
                    job.class
                ),
                diagnostics: Vec::new(),
            })
        },
    )
}

/// A failure on a guessed classpath says why the classpath is a guess.
fn classpath_note(mut failure: RunFailure, resolution: Option<&Resolution>) -> RunFailure {
    if let Some(Err(error)) = resolution.map(|r| &r.outcome) {
        if !matches!(failure.kind, FailureKind::Cancelled) && !failure.kind.is_global() {
            failure.message = format!("{} ({error})", failure.message);
        }
    }
    failure
}

/// Asks the build tool for the job's classpath and puts it into the job's layout (the guess
/// stays when the tool fails), telling the owner where the classpath came from.
fn resolve_classpath(
    job: &mut RunJob,
    failures: &mut Failures,
    updates: &UpdateSink,
) -> Option<Resolution> {
    let key = buildtool::build_key(&job.layout, &job.build_tool)?;
    failures.retain(|_, (when, _)| when.elapsed() < FAILURE_RETRY);
    let resolution = match failures.get(&key) {
        Some((_, remembered)) => remembered.clone(),
        None => {
            let run = job.run;
            let resolution = buildtool::resolve(&job.layout, &job.build_tool, &mut |tool| {
                updates(RunUpdate::Phase {
                    run,
                    phase: tool.phase(),
                    branches: None,
                });
            })?;
            if resolution.outcome.is_err() {
                failures.insert(key, (Instant::now(), resolution.clone()));
            }
            resolution
        }
    };
    let status = match &resolution.outcome {
        Ok(module) => {
            buildtool::apply(&mut job.layout, job.explicit_classpath, module);
            ClasspathStatus {
                tool: resolution.tool.name(),
                state: if resolution.cached {
                    "cached"
                } else {
                    "resolved"
                },
                entries: module.classpath.len(),
                sibling_sources: module.sibling_sources.len(),
                message: (!module.notes.is_empty()).then(|| module.notes.join("; ")),
            }
        }
        Err(error) => {
            tracing::warn!("{error}");
            // The POMs' declared dependencies, when Maven failed, rather than the guess.
            let (state, sibling_sources) = match &resolution.fallback {
                Some(module) => {
                    buildtool::apply(&mut job.layout, job.explicit_classpath, module);
                    ("fallback", module.sibling_sources.len())
                }
                None => ("failed", 0),
            };
            ClasspathStatus {
                tool: resolution.tool.name(),
                state,
                entries: job.layout.classpath.len(),
                sibling_sources,
                message: Some(error.to_string()),
            }
        }
    };
    updates(RunUpdate::Classpath {
        root: job.layout.root.clone(),
        status,
    });
    Some(resolution)
}

/// The regression guard's check on its own: the classpath as a run would have it (cached
/// after the first run), the project's warm worker, the check; no search.
fn check_only(
    job: &mut RunJob,
    workers: &mut Workers,
    failures: &mut Failures,
    updates: &UpdateSink,
) {
    resolve_classpath(job, failures, updates);
    let job = &*job;
    let (supervisor, _) = match worker(job, workers) {
        Ok(worker) => worker,
        Err(failure) => {
            // The run that follows reports it.
            tracing::info!("run {}: no regression check: {}", job.run, failure.message);
            return;
        }
    };
    check(job, supervisor, updates);
}

/// The regression guard's check of `job`'s class, when the job has one (`guard.rs`).
fn check(job: &RunJob, supervisor: &mut Supervisor, updates: &UpdateSink) {
    let Some(guard) = &job.guard else {
        return;
    };
    let input = CheckInput {
        run: job.run,
        uri: &job.uri,
        class: &job.class,
        layout: &job.layout,
        overlays: &job.overlays,
        text: job.model.text(),
        cancel: &job.cancel,
    };
    check_before_run(&input, guard, supervisor, &|update| {
        updates(RunUpdate::Guard(update));
    });
}

/// The project's warm worker (started on its first job), set up for `job`.
fn worker<'w>(
    job: &RunJob,
    workers: &'w mut Workers,
) -> Result<&'w mut (Supervisor, CostLedger), RunFailure> {
    let key = (job.layout.root.clone(), job.java_home.clone());
    // One worker per project: a JDK change replaces the project's worker.
    let stale: Vec<_> = workers
        .keys()
        .filter(|(root, home)| *root == key.0 && *home != key.1)
        .cloned()
        .collect();
    for stale in stale {
        if let Some((mut worker, _)) = workers.remove(&stale) {
            worker.shutdown();
        }
    }
    if !workers.contains_key(&key) {
        let config = WorkerConfig {
            java_home: job.java_home.clone(),
            ..WorkerConfig::default()
        };
        let supervisor = Supervisor::new(config).map_err(|e| jvm_failure(&job.class, e))?;
        let costs = CostLedger::persistent(costs_path(supervisor.cache_dir(), &key.0));
        workers.insert(key.clone(), (supervisor, costs));
    }
    let worker = workers.get_mut(&key).expect("inserted above");
    worker.0.set_pass_environment(job.pass_environment.clone());
    Ok(worker)
}

fn run_one(
    job: &RunJob,
    workers: &mut Workers,
    updates: &UpdateSink,
) -> Result<Arc<ClassResults>, RunFailure> {
    let (supervisor, costs) = worker(job, workers)?;
    // The regression guard: the stored tests and the project's tests, before the search.
    check(job, supervisor, updates);

    let request = generation_request(job);
    let options = pipeline_options(job, supervisor, costs);
    let model = &*job.model;
    let mut observer = Observer {
        job,
        model,
        updates,
        covered: BTreeSet::new(),
        last_interim: None,
        changed: false,
    };
    let outcome =
        pipeline::generate_tests(&request, &options, supervisor, &mut observer).map_err(|e| {
            let mut failure = pipeline_failure(&job.class, e);
            // Code that does not compile may do so at the level its build declares, which
            // this JDK cannot compile for: say so with the error.
            if failure.kind == FailureKind::DoesNotCompile {
                let junit = job.junit.unwrap_or_else(|| job.layout.junit_version());
                if let Some(note) = CompileLevels::of(&job.layout, supervisor.jdk(), junit).note {
                    failure.message = format!("{}. {note}", failure.message);
                }
            }
            failure
        })?;
    let warm = outcome.generation.warm_start;
    if warm.offered > 0 {
        tracing::info!(
            "{}: warm start from the store kept {} of {} earlier tests",
            job.class,
            warm.kept,
            warm.offered
        );
    }
    for warning in &outcome.store_warnings {
        tracing::warn!("{}: {warning}", job.class);
    }
    Ok(Arc::new(ClassResults::from_outcome(
        job.run, &outcome, model,
    )))
}

/// The pipeline's request for `job` (an integration run adds its callee).
fn generation_request(job: &RunJob) -> GenerationRequest {
    let mut request = GenerationRequest::new(job.layout.clone(), job.class.clone());
    request.overlays = job.overlays.clone();
    request.budget = job.budget;
    request.algorithm = job.algorithm;
    request.cancel = job.cancel.clone();
    request.seed = job.run;
    request
}

/// A class-integration run (the CLI's `ctgls generate --class R --callee E`): no regression
/// check, the tests written to `<R>_<E>IntegrationGeneratedTest.java`, the pairs they cover
/// recorded in the store (`ctg::store::IntegrationRunRecord`; not the class's suite).
fn run_integration(
    job: &RunJob,
    integration: &IntegrationJob,
    workers: &mut Workers,
    updates: &UpdateSink,
) -> Result<Arc<IntegrationRecord>, RunFailure> {
    let (supervisor, costs) = worker(job, workers)?;
    let mut request = generation_request(job);
    request.callee = Some(integration.callee.clone());
    let mut options = pipeline_options(job, supervisor, costs);
    options.write = true;
    let mut observer = Observer {
        job,
        model: &job.model,
        updates,
        covered: BTreeSet::new(),
        last_interim: None,
        changed: false,
    };
    let outcome = pipeline::generate_tests(&request, &options, supervisor, &mut observer)
        .map_err(|e| pipeline_failure(&job.class, e))?;
    if let Some(error) = &outcome.emission.write_error {
        tracing::warn!("{}: {error}", job.class);
    }
    let record = IntegrationRecord::from_outcome(
        &outcome,
        ctg::pipeline::source_hash(job.model.text()),
        integration.callee_hash.clone(),
    )
    .ok_or_else(|| RunFailure {
        kind: FailureKind::Other,
        message: format!(
            "ctgls found no coupled branches between {} and {}",
            job.class, integration.callee
        ),
        diagnostics: Vec::new(),
    })?;
    Ok(Arc::new(record))
}

fn pipeline_options(job: &RunJob, supervisor: &Supervisor, costs: &CostLedger) -> PipelineOptions {
    PipelineOptions {
        junit: job.junit,
        store: job.store.clone(),
        write: false,
        timestamp_ms: SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_millis() as u64),
        abandon_when_cancelled: true,
        // Verification runs the project's code too: under the worker's sandbox and bounds.
        verify: VerifyOptions {
            limits: supervisor.config().execution_limits(),
            archives: supervisor.shared_archives().clone(),
            harness_cache: supervisor.config().cache_dir.clone(),
            ..VerifyOptions::default()
        },
        costs: costs.clone(),
        mutation: if job.mutation_analysis {
            ctg::mutation::MutationOptions::enabled()
        } else {
            ctg::mutation::MutationOptions::default()
        },
    }
}

/// After a run's results are out: the start-up archives later runs of the project use (made
/// the first time, a few seconds; file checks after that).
fn prepare_faster_starts(job: &RunJob, workers: &mut Workers) {
    let key = (job.layout.root.clone(), job.java_home.clone());
    let Some((supervisor, costs)) = workers.get_mut(&key) else {
        return;
    };
    let options = pipeline_options(job, supervisor, costs);
    for (archive, training) in pipeline::prepare_faster_starts(&job.layout, &options, supervisor) {
        match training {
            Training::Made => tracing::info!("made the {archive} start-up archive"),
            Training::Failed(why) => {
                tracing::warn!("could not make the {archive} start-up archive: {why}")
            }
            Training::Skipped => {}
        }
    }
}

/// Forwards a run's phases and coverage to the owner.
struct Observer<'a> {
    job: &'a RunJob,
    model: &'a JavaModel,
    updates: &'a UpdateSink,
    covered: BTreeSet<String>,
    last_interim: Option<Instant>,
    /// Goals were covered since the last interim results.
    changed: bool,
}

impl GenerationObserver for Observer<'_> {
    fn on_phase(&mut self, phase: Phase, _elapsed: Duration) {
        (self.updates)(RunUpdate::Phase {
            run: self.job.run,
            phase,
            branches: None,
        });
    }

    fn on_progress(&mut self, progress: &Progress) {
        let branches = progress
            .coverage
            .iter()
            .find(|c| c.criterion == search::Criterion::Branch)
            .map(|c| (c.covered, c.total));
        (self.updates)(RunUpdate::Phase {
            run: self.job.run,
            phase: Phase::Searching,
            branches,
        });
        let due = self
            .last_interim
            .is_none_or(|last| last.elapsed() >= INTERIM_EVERY);
        // An integration run's goals are pairs, not the class's branches: no interim results.
        if due && self.job.integration.is_none() && (self.changed || self.last_interim.is_none()) {
            self.last_interim = Some(Instant::now());
            self.changed = false;
            let results =
                ClassResults::interim(self.job.run, &self.job.class, self.model, &self.covered);
            (self.updates)(RunUpdate::Interim {
                run: self.job.run,
                results: Arc::new(results),
            });
        }
    }

    fn on_goal_covered(&mut self, description: &str) {
        self.changed |= self.covered.insert(description.to_string());
    }
}

fn jvm_failure(class: &str, error: JvmError) -> RunFailure {
    let kind = match &error {
        JvmError::ExecutionDisabled => FailureKind::ExecutionDisabled,
        JvmError::Jdk(_) | JvmError::WorkerBuild(_) => FailureKind::NoJdk,
        _ => FailureKind::Other,
    };
    let message = match kind {
        FailureKind::NoJdk => format!(
            "ctgls cannot run tests: {error}. Install a JDK 11 or newer, or set `ctgls.javaHome`"
        ),
        FailureKind::ExecutionDisabled => {
            "test generation is off: `ctgls.executionEnabled` is false".to_string()
        }
        _ => format!("ctgls could not run {class}: {error}"),
    };
    RunFailure {
        kind,
        message,
        diagnostics: Vec::new(),
    }
}

fn pipeline_failure(class: &str, error: PipelineError) -> RunFailure {
    let simple = crate::lsp::results::words::simple_name(class).to_string();
    match error {
        PipelineError::Generation(GenerationError::Jvm(e)) => jvm_failure(class, e),
        PipelineError::Generation(GenerationError::DoesNotCompile { diagnostics, .. }) => {
            let first = diagnostics
                .first()
                .map(|d| format!(": {d}"))
                .unwrap_or_default();
            RunFailure {
                kind: FailureKind::DoesNotCompile,
                message: format!(
                    "ctgls cannot generate tests for {simple}: the project does not compile{first}"
                ),
                diagnostics,
            }
        }
        PipelineError::Generation(GenerationError::NothingInstantiable { reason, .. }) => {
            RunFailure {
                kind: FailureKind::NotInstantiable,
                message: format!(
                    "ctgls cannot generate tests for {simple}: tests can neither create an \
                     instance nor call a static member ({reason})"
                ),
                diagnostics: Vec::new(),
            }
        }
        PipelineError::Generation(GenerationError::ClassNotFound { .. }) => RunFailure {
            kind: FailureKind::NotFound,
            message: format!(
                "ctgls cannot generate tests for {simple}: its file is not under a source root \
                 of the project"
            ),
            diagnostics: Vec::new(),
        },
        PipelineError::Generation(GenerationError::Cancelled { .. }) => RunFailure {
            kind: FailureKind::Cancelled,
            message: format!("generation for {simple} was cancelled"),
            diagnostics: Vec::new(),
        },
        other => RunFailure {
            kind: FailureKind::Other,
            message: format!("ctgls could not generate tests for {simple}: {other}"),
            diagnostics: Vec::new(),
        },
    }
}
