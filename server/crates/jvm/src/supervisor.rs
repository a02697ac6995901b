//! The supervisor: owns a worker process (and, parked, one of the other identity), starts it
//! lazily, restarts it after a timeout, crash or a restart request, and replays compiles so
//! unit ids survive restarts.
//! Blocking API: every call returns within its deadline.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::cds::{Fnv, SharedArchives, Training};
use crate::config::WorkerConfig;
use crate::environment::Identity;
use crate::error::JvmError;
use crate::jdk::Jdk;
use crate::model::*;
use crate::process::{Incoming, RecvError, WorkerProcess};
use crate::proto::{self, Message, Request, PROTOCOL_VERSION};
use crate::sandbox::{SandboxLevel, SandboxPolicy, SandboxReport};
use crate::worker_build;

/// Why a request ended without a final reply.
enum Failure {
    Timeout(Duration),
    Crashed(CrashReason),
    Protocol(String),
    Rejected { kind: String, message: String },
}

impl From<Failure> for JvmError {
    fn from(f: Failure) -> JvmError {
        match f {
            Failure::Timeout(d) => JvmError::Timeout(d),
            Failure::Crashed(r) => JvmError::Crashed(r),
            Failure::Protocol(m) => JvmError::Protocol(m),
            Failure::Rejected { kind, message } => JvmError::Rejected { kind, message },
        }
    }
}

struct Running {
    process: WorkerProcess,
    info: WorkerInfo,
    /// Units compiled in this process.
    loaded: HashSet<UnitId>,
}

pub struct Supervisor {
    config: WorkerConfig,
    jdk: Jdk,
    worker_classes: PathBuf,
    running: Option<Running>,
    /// The worker of the other identity, kept while this one runs (see `set_identity`).
    parked: Option<(Identity, Running)>,
    units: HashMap<UnitId, CompileRequest>,
    next_unit: u64,
    next_request: u64,
    last_sandbox: Option<SandboxReport>,
    starts: u32,
    archives: SharedArchives,
    /// Options that map the worker's class data sharing archive; emptied for good when a
    /// worker started with them failed to start.
    archive_args: Vec<String>,
    /// The root of ctgls's caches (the compiled worker, start-up archives, compile caches).
    cache_dir: PathBuf,
    /// The compile cache file of the project this supervisor's worker compiles.
    compile_cache: Option<PathBuf>,
}

/// How many projects' compile caches are kept; the least recently saved go first.
const COMPILE_CACHES_KEPT: usize = 32;

impl Supervisor {
    /// Finds the JDK and compiles the worker into the cache if needed; the worker process itself
    /// starts with the first request (or [`Supervisor::start`]).
    pub fn new(config: WorkerConfig) -> Result<Supervisor, JvmError> {
        if !config.execution_enabled {
            return Err(JvmError::ExecutionDisabled);
        }
        let jdk = Jdk::locate(config.java_home.as_deref())?;
        let cache = config
            .cache_dir
            .clone()
            .unwrap_or_else(worker_build::default_cache_dir);
        let worker_classes = worker_build::ensure_worker(&jdk, &cache)?;
        let archives = if config.class_data_sharing && worker_classes.is_file() {
            SharedArchives::new(&cache, &jdk)
        } else {
            SharedArchives::default()
        };
        let mut s = Supervisor::with_worker(config, jdk, &worker_classes);
        s.cache_dir = cache;
        s.archive_args = worker_archive_args(&archives, &worker_classes);
        s.archives = archives;
        Ok(s)
    }

    /// A supervisor of the worker at `worker_classes`, without class data sharing (`config`
    /// enables execution: [`Supervisor::new`] checked).
    pub(crate) fn with_worker(config: WorkerConfig, jdk: Jdk, worker_classes: &Path) -> Supervisor {
        Supervisor {
            config,
            jdk,
            worker_classes: worker_classes.to_path_buf(),
            running: None,
            parked: None,
            units: HashMap::new(),
            next_unit: 1,
            next_request: 1,
            last_sandbox: None,
            starts: 0,
            archives: SharedArchives::default(),
            archive_args: Vec::new(),
            cache_dir: worker_build::default_cache_dir(),
            compile_cache: None,
        }
    }

    /// From now on, compiles start from the compile cache of the project at `project_root`
    /// (a file under the cache directory, `compile/<hash of the root>.bin`) when the worker has
    /// compiled nothing yet, and [`Supervisor::save_compile_cache`] writes to it. A worker then
    /// compiles only the files that changed since the cache was saved (and the files that
    /// mention their types), not every file its roots reach. Nothing happens when
    /// [`WorkerConfig::compile_cache`] is off.
    pub fn use_compile_cache_of(&mut self, project_root: &Path) {
        if !self.config.compile_cache {
            return;
        }
        let root = project_root
            .canonicalize()
            .unwrap_or_else(|_| project_root.to_path_buf());
        let mut h = Fnv::new();
        h.feed(root.as_os_str().as_encoded_bytes());
        self.compile_cache = Some(
            self.cache_dir
                .join("compile")
                .join(format!("{}.bin", h.hex())),
        );
    }

    /// From now on, code under test may read `paths` (the project's sources, resources and
    /// class path) besides the JDK, the system's libraries, ctgls's cache and its scratch
    /// directory, and nothing else (where Landlock confines reads). A running worker that was
    /// started with other paths is replaced before the next request.
    pub fn confine_reads_to(&mut self, paths: Vec<PathBuf>) {
        let mut paths = paths;
        paths.sort();
        paths.dedup();
        if paths != self.config.readable {
            self.config.readable = paths;
            self.running = None;
            self.parked = None;
        }
    }

    /// The developer's variables code under test sees from now on
    /// ([`WorkerConfig::pass_environment`]). A running worker started with others is replaced
    /// before the next request.
    pub fn set_pass_environment(&mut self, patterns: Vec<String>) {
        if patterns != self.config.pass_environment {
            self.config.pass_environment = patterns;
            self.running = None;
            self.parked = None;
        }
    }

    /// The identity the worker shows code under test from now on ([`Identity::Alternate`] for
    /// emission's second observation). The running worker, of the other identity, is parked:
    /// the parked worker of this identity, if any, runs the next request with the units it has
    /// (others are compiled in it on demand), else a new one starts. Emission switches to the
    /// alternate identity and back once per class, so parking saves two JVM starts per class,
    /// and the primary worker keeps its units, warm classes and in-memory compile cache for the
    /// mutation analysis and verification that follow. The cost is a second, idle JVM.
    ///
    /// The alternate worker's reads are not confined (unless the sandbox is
    /// [`SandboxPolicy::Required`]): what a test computes from a file outside the project then
    /// differs from the primary, confined observation, and emission never asserts it. Its
    /// observations are only compared with the primary ones, never written.
    pub fn set_identity(&mut self, identity: Identity) {
        if identity == self.config.identity {
            return;
        }
        let previous = std::mem::replace(&mut self.config.identity, identity);
        let resumed = match self.parked.take() {
            Some((parked, worker)) if parked == identity => Some(worker),
            _ => None,
        };
        if let Some(worker) = self.running.take() {
            self.parked = Some((previous, worker));
        }
        self.running = resumed;
    }

    /// The compile cache file in use, if any.
    pub fn compile_cache_file(&self) -> Option<&Path> {
        self.compile_cache.as_deref()
    }

    /// Saves what the running worker compiled to the project's compile cache file (see
    /// [`Supervisor::use_compile_cache_of`]) when it compiled something since the cache was last
    /// saved or loaded. The worker writes the file into its scratch directory (the only place
    /// the sandbox lets it write); the supervisor moves it into the cache directory, replacing
    /// the old file at once, so a reader never sees half a file. Callers run it when no one
    /// waits for results (it takes a few milliseconds per megabyte).
    pub fn save_compile_cache(&mut self) -> Result<CompileCacheSave, JvmError> {
        let (Some(dest), Some(scratch)) = (self.compile_cache.clone(), self.scratch_dir()) else {
            return Ok(CompileCacheSave::NotInUse);
        };
        let written = scratch.join("compile-cache.bin");
        let id = self.request_id();
        let timeout = self.config.request_timeout;
        let reply = self.roundtrip(
            proto::save_compile_cache(id, &written),
            timeout,
            &mut proto::message,
        )?;
        let Some((files, bytes)) =
            proto::save_compile_cache_result(&reply).map_err(JvmError::Protocol)?
        else {
            return Ok(CompileCacheSave::Unchanged);
        };
        install_compile_cache(&written, &dest, bytes).map_err(|e| {
            JvmError::CompileCache(format!("{} -> {}: {e}", written.display(), dest.display()))
        })?;
        Ok(CompileCacheSave::Saved { files, bytes })
    }

    /// The class data sharing archives of this JDK under the worker's cache (disabled when
    /// [`WorkerConfig::class_data_sharing`] is off or the JDK is older than 13); verification
    /// uses them for its `javac` and JUnit runs.
    /// The cache directory this supervisor uses (the configured one, else the default).
    pub fn cache_dir(&self) -> &Path {
        &self.cache_dir
    }

    pub fn shared_archives(&self) -> &SharedArchives {
        &self.archives
    }

    /// Makes the worker's class data sharing archive unless it exists, with a training worker
    /// of its own (about 1.5 s, once per JDK and worker build); workers started after this map
    /// it. `None` when archives are off. Callers run it when no one is waiting for results.
    pub fn prepare_worker_archive(&mut self) -> Option<Training> {
        if !self.archives.enabled() {
            return None;
        }
        let training = crate::training::train_worker(
            &self.config,
            &self.jdk,
            &self.worker_classes,
            &self.archives,
        );
        self.archive_args = worker_archive_args(&self.archives, &self.worker_classes);
        Some(training)
    }

    /// Whether the worker maps a class data sharing archive at start.
    pub fn uses_worker_archive(&self) -> bool {
        !self.archive_args.is_empty()
    }

    /// The settings it was made with; [`WorkerConfig::execution_limits`] gives the ones other
    /// processes that run code under test must obey.
    pub fn config(&self) -> &WorkerConfig {
        &self.config
    }

    pub fn jdk(&self) -> &Jdk {
        &self.jdk
    }

    /// The sandbox of the current (or last) worker process; `None` before the first start.
    pub fn sandbox(&self) -> Option<SandboxReport> {
        self.last_sandbox
    }

    /// Process id of the running worker (which is also its process group id).
    pub fn worker_pid(&self) -> Option<u32> {
        self.running.as_ref().map(|r| r.process.pid())
    }

    /// The running worker's `java.io.tmpdir`, inside its scratch directory: where tests'
    /// temporary files go, apart from the working directory (docs/protocol.md, "Environment").
    pub fn temp_dir(&self) -> Option<PathBuf> {
        self.scratch_dir()
            .map(|scratch| scratch.join(crate::process::TMP_DIR))
    }

    /// The running worker's scratch directory, the only place it may write.
    pub fn scratch_dir(&self) -> Option<PathBuf> {
        self.running
            .as_ref()
            .map(|r| r.process.scratch().to_path_buf())
    }

    /// How many worker processes were started so far.
    pub fn starts(&self) -> u32 {
        self.starts
    }

    /// Starts the worker if it is not running and returns what it reported about itself.
    pub fn start(&mut self) -> Result<WorkerInfo, JvmError> {
        self.ensure_running()?;
        self.running
            .as_ref()
            .map(|r| r.info.clone())
            .ok_or_else(|| JvmError::Protocol("worker vanished right after start".into()))
    }

    fn ensure_running(&mut self) -> Result<(), JvmError> {
        if self.running.is_some() {
            return Ok(());
        }
        match self.start_worker() {
            Err(JvmError::Crashed(_) | JvmError::Timeout(_) | JvmError::Protocol(_))
                if !self.archive_args.is_empty() =>
            {
                // An archive damaged after it was made can crash the JVM as it maps it. Start
                // without it; when that works, the archive was the cause and goes.
                self.running = None;
                self.archive_args.clear();
                self.start_worker()?;
                self.archives
                    .discard(&crate::training::worker_key(&self.worker_classes));
                Ok(())
            }
            result => result,
        }
    }

    fn start_worker(&mut self) -> Result<(), JvmError> {
        // The worker reads its classes and start-up archive from the cache, and the compile
        // cache of the project.
        let process = WorkerProcess::spawn(
            &self.config,
            &self.jdk,
            &self.worker_classes,
            &self.archive_args,
            &[&self.cache_dir],
        )?;
        self.starts += 1;
        // What users are told about is the sandbox of the search and verification: the
        // alternate observation's worker reads unconfined on purpose (see `set_identity`).
        if self.config.identity == Identity::Primary || self.last_sandbox.is_none() {
            self.last_sandbox = Some(process.sandbox);
        }
        if self.config.sandbox == SandboxPolicy::Required
            && process.sandbox.level() != SandboxLevel::Full
        {
            return Err(JvmError::SandboxUnavailable(process.sandbox.to_string()));
        }
        self.running = Some(Running {
            process,
            info: WorkerInfo {
                protocol: 0,
                java_version: String::new(),
                java_feature: 0,
                exit_blocking: false,
                pid: 0,
            },
            loaded: HashSet::new(),
        });
        let id = self.request_id();
        let timeout = self.config.start_timeout;
        let reply = self
            .roundtrip(proto::hello(id), timeout, &mut proto::message)
            .map_err(JvmError::from)?;
        let info = proto::worker_info(&reply).map_err(JvmError::Protocol)?;
        if info.protocol != PROTOCOL_VERSION {
            self.running = None;
            return Err(JvmError::ProtocolVersion {
                found: info.protocol,
                expected: PROTOCOL_VERSION,
            });
        }
        if let Some(r) = self.running.as_mut() {
            r.info = info;
        }
        Ok(())
    }

    fn request_id(&mut self) -> u64 {
        self.next_request += 1;
        self.next_request
    }

    /// Sends one request and waits for its final reply, whose line it returns. `read` sorts
    /// every line from the worker (`proto::message`, or a reader that also decodes the request's
    /// events). The deadline restarts with every event (a long batch that keeps reporting is not
    /// hung). Any failure but a rejection kills the worker.
    fn roundtrip(
        &mut self,
        request: Request,
        idle_timeout: Duration,
        read: &mut dyn FnMut(&str, u64) -> Result<Message, String>,
    ) -> Result<String, Failure> {
        let result = self.roundtrip_inner(request, idle_timeout, read);
        if let Err(f) = &result {
            if !matches!(f, Failure::Rejected { .. }) {
                self.running = None;
            }
        }
        result
    }

    fn roundtrip_inner(
        &mut self,
        request: Request,
        idle_timeout: Duration,
        read: &mut dyn FnMut(&str, u64) -> Result<Message, String>,
    ) -> Result<String, Failure> {
        let running = self
            .running
            .as_mut()
            .ok_or_else(|| Failure::Protocol("no worker".into()))?;
        let id = request.id;
        if running.process.send(&request.line).is_err() {
            return Err(Failure::Crashed(running.process.crash_reason()));
        }
        let mut deadline = Instant::now() + idle_timeout;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let msg = match running.process.recv(left) {
                Ok(Incoming::Line(l)) => l,
                Ok(Incoming::Oversize) => {
                    return Err(Failure::Protocol(format!(
                        "worker message larger than {} bytes",
                        self.config.max_message_bytes
                    )))
                }
                Ok(Incoming::Eof) | Err(RecvError::Closed) => {
                    return Err(Failure::Crashed(running.process.crash_reason()))
                }
                Err(RecvError::Timeout) => {
                    running.process.kill();
                    return Err(Failure::Timeout(idle_timeout));
                }
            };
            let msg = proto::text(msg).map_err(Failure::Protocol)?;
            match read(&msg, id).map_err(Failure::Protocol)? {
                Message::Event => deadline = Instant::now() + idle_timeout,
                Message::Reply => return Ok(msg),
                Message::Rejected { kind, message } => {
                    return Err(Failure::Rejected { kind, message })
                }
            }
        }
    }

    /// Compiles the sources in memory. Compile errors are a successful call whose result has
    /// no unit and error diagnostics.
    pub fn compile(&mut self, request: &CompileRequest) -> Result<CompileResult, JvmError> {
        let unit = UnitId(self.next_unit);
        self.next_unit += 1;
        let result = self.compile_as(unit, request)?;
        if result.unit.is_some() {
            self.units.insert(unit, request.clone());
        }
        Ok(result)
    }

    fn compile_as(
        &mut self,
        unit: UnitId,
        request: &CompileRequest,
    ) -> Result<CompileResult, JvmError> {
        // The worker reads the class path it compiles against (and fingerprints it for the
        // compile cache), whoever set what else it may read.
        let missing: Vec<PathBuf> = request
            .classpath
            .iter()
            .filter(|entry| !self.config.readable.contains(entry))
            .cloned()
            .collect();
        if !missing.is_empty() {
            let mut readable = self.config.readable.clone();
            readable.extend(missing);
            self.confine_reads_to(readable);
        }
        self.ensure_running()?;
        let id = self.request_id();
        let timeout = self.config.request_timeout;
        let reply = self.roundtrip(
            proto::compile(id, unit, request, self.compile_cache.as_deref()),
            timeout,
            &mut proto::message,
        )?;
        let result = proto::compile_result(&reply, unit).map_err(JvmError::Protocol)?;
        if let Some(r) = self.running.as_mut() {
            if result.unit.is_some() {
                r.loaded.insert(unit);
            } else {
                r.loaded.remove(&unit);
            }
        }
        Ok(result)
    }

    /// Forgets a unit (the worker drops least recently used units by itself).
    pub fn release(&mut self, unit: UnitId) {
        self.units.remove(&unit);
    }

    /// Makes sure the running worker has `unit` compiled (after a restart it is compiled again).
    fn ensure_unit(&mut self, unit: UnitId) -> Result<(), JvmError> {
        self.ensure_running()?;
        if self
            .running
            .as_ref()
            .is_some_and(|r| r.loaded.contains(&unit))
        {
            return Ok(());
        }
        let request = self
            .units
            .get(&unit)
            .cloned()
            .ok_or(JvmError::UnknownUnit(unit))?;
        let result = self.compile_as(unit, &request)?;
        if result.unit.is_none() {
            return Err(JvmError::Protocol(
                "a unit that compiled before failed to compile again".into(),
            ));
        }
        Ok(())
    }

    /// Runs `f` with the unit loaded; when the worker evicted the unit, recompiles once and retries.
    fn with_unit<T>(
        &mut self,
        unit: UnitId,
        mut f: impl FnMut(&mut Self) -> Result<T, JvmError>,
    ) -> Result<T, JvmError> {
        self.ensure_unit(unit)?;
        match f(self) {
            Err(JvmError::Rejected { kind, .. }) if kind == "unknownUnit" => {
                if let Some(r) = self.running.as_mut() {
                    r.loaded.remove(&unit);
                }
                self.ensure_unit(unit)?;
                f(self)
            }
            other => other,
        }
    }

    /// Public surface of `classes` and, to `depth`, of the types their members mention, with
    /// the JDK's API of the worker's own Java release.
    pub fn describe(
        &mut self,
        unit: UnitId,
        classes: &[String],
        depth: u32,
    ) -> Result<DescribeResult, JvmError> {
        self.describe_at(unit, classes, depth, None)
    }

    /// [`Supervisor::describe`] for tests compiled at Java `release`: JDK classes and members
    /// that release does not have (`List.of` below 9) are left out, as javac's `--release`
    /// sees them (docs/protocol.md, "describe").
    pub fn describe_at(
        &mut self,
        unit: UnitId,
        classes: &[String],
        depth: u32,
        release: Option<u32>,
    ) -> Result<DescribeResult, JvmError> {
        self.with_unit(unit, |s| {
            let id = s.request_id();
            let timeout = s.config.request_timeout;
            let reply = s.roundtrip(
                proto::describe(id, unit, classes, depth, release),
                timeout,
                &mut proto::message,
            )?;
            proto::describe_result(&reply).map_err(JvmError::Protocol)
        })
    }

    /// Writes the class files of `unit` under `dir`, which must be inside the worker's scratch
    /// directory ([`Supervisor::scratch_dir`]) when it is sandboxed. Returns how many it wrote.
    pub fn write_classes(&mut self, unit: UnitId, dir: &Path) -> Result<u64, JvmError> {
        self.with_unit(unit, |s| {
            let id = s.request_id();
            let timeout = s.config.request_timeout;
            let reply = s.roundtrip(
                proto::write_classes(id, unit, dir),
                timeout,
                &mut proto::message,
            )?;
            proto::write_classes_result(&reply).map_err(JvmError::Protocol)
        })
    }

    /// Executes a batch of test cases. Misbehaving code under test yields an outcome, not an
    /// error: `Timeout` or `Crashed` with the results completed before. When the worker asks for
    /// a restart (a thread it cannot stop), the rest of the batch runs in a fresh worker.
    pub fn execute(
        &mut self,
        unit: UnitId,
        tests: &[TestCase],
        options: &ExecuteOptions,
    ) -> Result<ExecutionOutcome, JvmError> {
        if !self.units.contains_key(&unit) {
            return Err(JvmError::UnknownUnit(unit));
        }
        let mut completed: Vec<TestResult> = Vec::with_capacity(tests.len());
        while completed.len() < tests.len() {
            let rest = &tests[completed.len()..];
            let idle = options.timeout_per_test + self.config.test_slack;
            let mut batch = Vec::new();
            let reply = self.with_unit(unit, |s| {
                batch.clear();
                let id = s.request_id();
                let mut read = |line: &str, id| proto::execute_message(line, id, &mut batch);
                s.roundtrip(proto::execute(id, unit, rest, options), idle, &mut read)
                    .map_err(|f| match f {
                        Failure::Timeout(_) => JvmError::Timeout(idle),
                        Failure::Crashed(r) => JvmError::Crashed(r),
                        other => other.into(),
                    })
            });
            completed.append(&mut batch);
            let reply = match reply {
                Ok(r) => r,
                Err(JvmError::Timeout(_)) => return Ok(ExecutionOutcome::Timeout { completed }),
                Err(JvmError::Crashed(reason)) => {
                    return Ok(ExecutionOutcome::Crashed { reason, completed })
                }
                Err(e) => return Err(e),
            };
            if proto::execute_restart(&reply)
                .map_err(JvmError::Protocol)?
                .is_some()
            {
                // The worker has a thread it cannot stop: replace it before anything else runs.
                self.running = None;
            } else if completed.len() < tests.len() {
                return Err(JvmError::Protocol(format!(
                    "worker executed {} of {} tests without asking for a restart",
                    completed.len(),
                    tests.len()
                )));
            }
        }
        Ok(ExecutionOutcome::Finished(completed))
    }

    /// Asks the worker to exit and waits briefly; the process group is killed in any case.
    pub fn shutdown(&mut self) {
        self.shutdown_within(Duration::from_secs(1));
    }

    /// [`Supervisor::shutdown`], waiting up to `exit` for the process to end; whether it did
    /// (true when no worker was running).
    pub(crate) fn shutdown_within(&mut self, exit: Duration) -> bool {
        if let Some((_, mut parked)) = self.parked.take() {
            // Idle, so nothing to wait for: its input closed, it exits; the drop kills the
            // process group in any case.
            parked.process.close_input();
        }
        if self.running.is_some() {
            let id = self.request_id();
            let _ = self.roundtrip(
                proto::shutdown(id),
                Duration::from_secs(2),
                &mut proto::message,
            );
        }
        match self.running.take() {
            Some(mut r) => {
                r.process.close_input();
                r.process.wait_exit(exit)
            }
            None => true,
        }
    }
}

impl Drop for Supervisor {
    fn drop(&mut self) {
        self.shutdown();
    }
}

/// The options that map the worker's archive, with `-Xshare:on`: a JVM that cannot use the
/// archive then fails to start rather than running without it. JDK 17 dies mapping a damaged
/// archive anyway; JDK 25 checks it, says so on a log we keep quiet, and would go on without
/// it, every start, for good. Failing to start brings both to the same end: one more start
/// without the archive, and the archive is made again (`ensure_running`).
fn worker_archive_args(archives: &SharedArchives, worker_classes: &Path) -> Vec<String> {
    let mut args = archives.jvm_args(&crate::training::worker_key(worker_classes));
    if !args.is_empty() {
        args.push("-Xshare:on".into());
    }
    args
}

/// Copies the cache file the worker wrote (`bytes` long, as it said) next to `dest` and renames
/// it into place, then removes the oldest caches beyond [`COMPILE_CACHES_KEPT`].
fn install_compile_cache(written: &Path, dest: &Path, bytes: u64) -> std::io::Result<()> {
    let dir = dest
        .parent()
        .ok_or_else(|| std::io::Error::other("the cache file has no directory"))?;
    std::fs::create_dir_all(dir)?;
    let name = dest.file_name().unwrap_or_default().to_string_lossy();
    let tmp = dir.join(format!(".{name}.{}.tmp", std::process::id()));
    let copied = std::fs::copy(written, &tmp);
    let _ = std::fs::remove_file(written);
    let result = copied.and_then(|n| {
        if n == bytes {
            std::fs::rename(&tmp, dest)
        } else {
            Err(std::io::Error::other(format!(
                "the worker wrote {bytes} bytes, the file holds {n}"
            )))
        }
    });
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result?;
    let mut caches: Vec<(std::time::SystemTime, PathBuf)> = std::fs::read_dir(dir)?
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "bin"))
        .filter_map(|p| Some((std::fs::metadata(&p).ok()?.modified().ok()?, p)))
        .collect();
    caches.sort_by_key(|c| std::cmp::Reverse(c.0));
    for (_, old) in caches.into_iter().skip(COMPILE_CACHES_KEPT) {
        let _ = std::fs::remove_file(old);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    /// Callers move the supervisor into a background thread of their choice.
    #[test]
    fn supervisor_is_send() {
        fn assert_send<T: Send>() {}
        assert_send::<super::Supervisor>();
    }
}
