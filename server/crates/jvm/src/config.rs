//! Settings of the worker and its supervisor, passed in by the caller (never global).

use std::path::PathBuf;
use std::time::Duration;

use crate::environment::Identity;
use crate::sandbox::SandboxPolicy;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WorkerConfig {
    /// When false the supervisor refuses to start ([`JvmError::ExecutionDisabled`](crate::JvmError)).
    pub execution_enabled: bool,
    /// JDK home; when `None`, `JAVA_HOME`, then `javac` on `PATH`.
    pub java_home: Option<PathBuf>,
    /// Where the compiled worker is cached; default [`default_cache_dir`](crate::default_cache_dir).
    pub cache_dir: Option<PathBuf>,
    /// Parent of the per-job scratch directories; default the system temp dir.
    pub scratch_root: Option<PathBuf>,
    pub heap_mb: u32,
    pub stack_kb: u32,
    pub metaspace_mb: u32,
    /// The largest file code under test may write, in MiB (`RLIMIT_FSIZE`, part of the sandbox):
    /// a write beyond it fails (an `IOException` in Java; the JVM ignores `SIGXFSZ`, a program
    /// it execs is killed by it). It bounds each file, not the disk space all of them take.
    pub max_file_mb: u32,
    pub sandbox: SandboxPolicy,
    /// Block `System.exit` in tests where the JVM allows a SecurityManager (Java 11-17).
    pub block_system_exit: bool,
    /// `-XX:TieredStopAtLevel=1`: faster start and first compile, slower long runs.
    pub quick_start: bool,
    /// Map a class data sharing archive of the worker's, javac's and the JDK's classes at start
    /// (made once per JDK and worker build by a training run; JDK 13+). See `cds.rs`.
    pub class_data_sharing: bool,
    /// Keep what the worker compiled in a file per project under the cache directory, so the
    /// next worker of the project starts from it (see `Supervisor::use_compile_cache_of`).
    pub compile_cache: bool,
    /// Start-up and `hello` deadline.
    pub start_timeout: Duration,
    /// Deadline of compile and describe requests.
    pub request_timeout: Duration,
    /// Extra time per test beyond its own deadline before the worker counts as hung.
    pub test_slack: Duration,
    /// Largest accepted message from the worker.
    pub max_message_bytes: usize,
    pub extra_jvm_args: Vec<String>,
    /// Names or glob patterns of the developer's environment variables that code under test
    /// sees with their values (`passEnvironment`); every other variable is scrubbed
    /// (`environment.rs`). Their values can end up asserted in written tests.
    pub pass_environment: Vec<String>,
    /// The neutral user, home and host name the worker shows code under test; emission's
    /// second observation switches to [`Identity::Alternate`].
    pub identity: Identity,
    /// What code under test may read besides the JDK, the system's libraries and its scratch
    /// directory (Landlock, Linux): the project's sources, resources and class path. The
    /// pipeline sets it per project (`Supervisor::confine_reads_to`).
    pub readable: Vec<PathBuf>,
}

impl Default for WorkerConfig {
    fn default() -> Self {
        WorkerConfig {
            execution_enabled: true,
            java_home: None,
            cache_dir: None,
            scratch_root: None,
            heap_mb: 512,
            stack_kb: 2048,
            metaspace_mb: 256,
            max_file_mb: 1024,
            sandbox: SandboxPolicy::BestEffort,
            block_system_exit: true,
            quick_start: true,
            class_data_sharing: true,
            compile_cache: true,
            start_timeout: Duration::from_secs(30),
            request_timeout: Duration::from_secs(120),
            test_slack: Duration::from_secs(3),
            max_message_bytes: 64 << 20,
            extra_jvm_args: Vec::new(),
            pass_environment: Vec::new(),
            identity: Identity::Primary,
            readable: Vec::new(),
        }
    }
}
