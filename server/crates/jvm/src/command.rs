//! Running code under test outside the worker (verification JVMs, JaCoCo, javac) under the
//! worker's policy: on Unix the same `PreparedSandbox` applied between fork and exec, with
//! writes allowed beneath the directories the caller names, the worker's memory bounds, its own
//! process group, and the whole group killed when the process ends or its handle is dropped; on
//! Windows no sandbox, and the process alone is killed.

#[cfg(unix)]
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus};

use crate::config::WorkerConfig;
use crate::environment::ProcessEnvironment;
use crate::error::JvmError;
#[cfg(unix)]
use crate::process::pipe;
use crate::sandbox::{refuse_where_impossible, SandboxPolicy, SandboxReport};
#[cfg(unix)]
use crate::sandbox::{report, PreparedSandbox, SandboxLevel, SandboxPaths, STATUS_LEN};

/// How code under test may run in a process other than the worker: the part of
/// [`WorkerConfig`] that applies to any JVM that loads the project's classes. Taken from the
/// worker's configuration ([`WorkerConfig::execution_limits`]) so both obey the same settings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExecutionLimits {
    /// When false, [`ExecutionLimits::spawn`] refuses with [`JvmError::ExecutionDisabled`].
    pub execution_enabled: bool,
    pub sandbox: SandboxPolicy,
    pub heap_mb: u32,
    pub stack_kb: u32,
    pub metaspace_mb: u32,
    /// See [`WorkerConfig::max_file_mb`].
    pub max_file_mb: u32,
    /// The scrubbed environment and the identity the process shows code under test (see
    /// [`WorkerConfig::pass_environment`] and [`WorkerConfig::identity`]).
    pub environment: ProcessEnvironment,
    /// See [`WorkerConfig::readable`].
    pub readable: Vec<PathBuf>,
}

impl Default for ExecutionLimits {
    fn default() -> Self {
        WorkerConfig::default().execution_limits()
    }
}

impl WorkerConfig {
    /// The limits this configuration sets for every process that runs code under test.
    pub fn execution_limits(&self) -> ExecutionLimits {
        ExecutionLimits {
            execution_enabled: self.execution_enabled,
            sandbox: self.sandbox,
            heap_mb: self.heap_mb,
            stack_kb: self.stack_kb,
            metaspace_mb: self.metaspace_mb,
            max_file_mb: self.max_file_mb,
            environment: ProcessEnvironment {
                pass: self.pass_environment.clone(),
                identity: self.identity,
                extra: Vec::new(),
            },
            readable: self.readable.clone(),
        }
    }
}

impl ExecutionLimits {
    /// `-Xmx`, `-Xss` and `-XX:MaxMetaspaceSize` for a `java` command line.
    pub fn jvm_memory_args(&self) -> [String; 3] {
        [
            format!("-Xmx{}m", self.heap_mb),
            format!("-Xss{}k", self.stack_kb),
            format!("-XX:MaxMetaspaceSize={}m", self.metaspace_mb),
        ]
    }

    /// [`spawn_sandboxed`] with this policy, file size bound, environment and readable paths,
    /// after checking that execution is enabled.
    pub fn spawn(&self, command: Command, writable: &[&Path]) -> Result<SandboxedChild, JvmError> {
        self.spawn_reading(command, writable, &[])
    }

    /// [`ExecutionLimits::spawn`] that may also read `readable` (its class path, say).
    pub fn spawn_reading(
        &self,
        command: Command,
        writable: &[&Path],
        readable: &[&Path],
    ) -> Result<SandboxedChild, JvmError> {
        if !self.execution_enabled {
            return Err(JvmError::ExecutionDisabled);
        }
        let mut all: Vec<&Path> = readable.to_vec();
        all.extend(self.readable.iter().map(PathBuf::as_path));
        spawn_with(
            command,
            self.sandbox,
            self.max_file_bytes(),
            writable,
            &all,
            &self.environment,
        )
    }

    /// [`ExecutionLimits::max_file_mb`] in bytes.
    pub(crate) fn max_file_bytes(&self) -> u64 {
        u64::from(self.max_file_mb) << 20
    }
}

/// Starts `command` in a process group of its own under `policy`, as the worker is started:
///
/// - The scrubbed environment of [`ProcessEnvironment`] (on every platform, whatever the
///   policy): the locale's variables, and `HOME`, `TMPDIR`, `USER`, `LOGNAME`, `PATH` with
///   neutral values, the home and temporary directories inside the first `writable` directory.
/// - Landlock: every write right is allowed only beneath the `writable` directories (which must
///   exist: a path that cannot be opened gets no rule) and on `/dev/null`; reading only beneath
///   them, the JDK or directory the program lives in, and the system's libraries (a refused
///   read is `EACCES`); TCP bind and connect are denied (ABI 4+); signals and abstract unix
///   sockets are scoped (ABI 6+). Descriptors the command inherits (its stdout and stderr
///   files) stay usable: Landlock checks opens.
/// - A UTS namespace with the host name `localhost` where the kernel allows one.
/// - `RLIMIT_FSIZE` (soft and hard): no file larger than the default
///   [`WorkerConfig::max_file_mb`] ([`ExecutionLimits::spawn`] takes the configured one).
/// - A private network namespace where the kernel allows one.
/// - A seccomp filter, installed last: no unix sockets (`EACCES`), no `setsid`/`setpgid`
///   (`EPERM`), no io_uring; it binds every program the command execs.
/// - [`SandboxPolicy::Required`]: the child stops before exec unless the sandbox came out
///   [`crate::SandboxLevel::Full`], and the call returns [`JvmError::SandboxUnavailable`]; the
///   program never runs. [`SandboxPolicy::Off`]: no sandbox, the report says so.
///
/// That is Linux. Other Unix systems get the process group and the file size bound only, and
/// Windows nothing: the process alone is killed, and what it started may outlive it. There the
/// report has nothing in force and `Required` refuses before anything starts.
///
/// The command is taken by value: its `pre_exec` hook applies a prepared ruleset once, so it
/// must not be spawned twice. The returned handle kills the process group when dropped.
pub fn spawn_sandboxed(
    command: Command,
    policy: SandboxPolicy,
    writable: &[&Path],
) -> Result<SandboxedChild, JvmError> {
    let max_file_bytes = ExecutionLimits::default().max_file_bytes();
    spawn_with(
        command,
        policy,
        max_file_bytes,
        writable,
        &[],
        &ProcessEnvironment::default(),
    )
}

/// Gives `command` the scrubbed environment, its home and temporary directories inside the
/// first writable directory.
fn scrub(
    command: &mut Command,
    writable: &[&Path],
    environment: &ProcessEnvironment,
) -> Result<(), JvmError> {
    if let Some(scratch) = writable.first() {
        environment
            .create_dirs(scratch)
            .map_err(|e| JvmError::Spawn(format!("creating the home directory: {e}")))?;
        environment.apply(command, scratch);
    } else {
        environment.apply(command, Path::new("/nonexistent"));
    }
    Ok(())
}

/// The directory the program of `command` belongs to (the JDK for `<jdk>/bin/java`), which a
/// confined process must read to start.
#[cfg(unix)]
fn program_home(command: &Command) -> Option<PathBuf> {
    let program = Path::new(command.get_program()).canonicalize().ok()?;
    let bin = program.parent()?;
    Some(bin.parent().unwrap_or(bin).to_path_buf())
}

#[cfg(windows)]
fn spawn_with(
    mut command: Command,
    policy: SandboxPolicy,
    _max_file_bytes: u64,
    writable: &[&Path],
    _readable: &[&Path],
    environment: &ProcessEnvironment,
) -> Result<SandboxedChild, JvmError> {
    refuse_where_impossible(policy)?;
    scrub(&mut command, writable, environment)?;
    let child = command
        .spawn()
        .map_err(|e| JvmError::Spawn(format!("starting: {e}")))?;
    Ok(SandboxedChild::new(child, SandboxReport::OFF))
}

#[cfg(unix)]
fn spawn_with(
    mut command: Command,
    policy: SandboxPolicy,
    max_file_bytes: u64,
    writable: &[&Path],
    readable: &[&Path],
    environment: &ProcessEnvironment,
) -> Result<SandboxedChild, JvmError> {
    refuse_where_impossible(policy)?;
    let spawn_err = |what: &str, e: std::io::Error| JvmError::Spawn(format!("{what}: {e}"));
    command.process_group(0);
    scrub(&mut command, writable, environment)?;
    if policy == SandboxPolicy::Off {
        let child = command.spawn().map_err(|e| spawn_err("starting", e))?;
        return Ok(SandboxedChild::new(child, SandboxReport::OFF));
    }
    let home = program_home(&command);
    let mut readable = readable.to_vec();
    readable.extend(home.as_deref());
    let paths = SandboxPaths {
        writable,
        readable: &readable,
        host_name: environment.identity.host_name(),
        confine_reads: true,
    };
    let mut sandbox = PreparedSandbox::new(policy, &paths, max_file_bytes)
        .map_err(|e| JvmError::Spawn(format!("preparing the sandbox: {e}")))?;
    if policy == SandboxPolicy::Required {
        sandbox.require_full();
    }
    let abi = sandbox.abi();
    let (mut status_r, status_w) = pipe().map_err(|e| spawn_err("pipe", e))?;
    let status_fd = std::os::fd::AsRawFd::as_raw_fd(&status_w);
    // SAFETY: the closure runs in the forked child and only makes syscalls on the descriptor
    // and buffers prepared before the fork (see PreparedSandbox::apply_in_child).
    unsafe {
        command.pre_exec(move || sandbox.apply_in_child(status_fd));
    }
    let spawned = command.spawn();
    // The hook (with the ruleset's descriptor) and our write end must go before reading, so
    // the read ends when the child has exec'd or failed.
    drop(command);
    drop(status_w);
    let mut status = Vec::new();
    let _ = std::io::Read::read_to_end(&mut status_r, &mut status);
    let sandbox_report = report(abi, &status);
    // A whole status means the hook ran: a weak sandbox, not a failed fork, stopped it.
    let refused = policy == SandboxPolicy::Required
        && status.len() == STATUS_LEN
        && sandbox_report.level() != SandboxLevel::Full;
    match spawned {
        Err(_) if refused => Err(JvmError::SandboxUnavailable(sandbox_report.to_string())),
        Err(e) => Err(spawn_err("starting", e)),
        Ok(child) => {
            // Dropping the handle kills it should the hook ever let a weak sandbox through.
            let child = SandboxedChild::new(child, sandbox_report);
            if refused {
                return Err(JvmError::SandboxUnavailable(sandbox_report.to_string()));
            }
            Ok(child)
        }
    }
}

/// A process started by [`spawn_sandboxed`], leader of its own process group (on Unix).
///
/// Invariant (Unix): once the leader has exited, the rest of its group is killed before the
/// leader is reaped (its pid, which is the group id, cannot be reused until then), so nothing the
/// code under test started outlives it. On Windows there is no group: only the process itself is
/// killed.
#[derive(Debug)]
pub struct SandboxedChild {
    child: Child,
    sandbox: SandboxReport,
    status: Option<ExitStatus>,
}

impl SandboxedChild {
    fn new(child: Child, sandbox: SandboxReport) -> SandboxedChild {
        SandboxedChild {
            child,
            sandbox,
            status: None,
        }
    }

    /// What was in force when the process started.
    pub fn sandbox(&self) -> SandboxReport {
        self.sandbox
    }

    /// The process id, which is also its process group id on Unix.
    pub fn id(&self) -> u32 {
        self.child.id()
    }

    /// The exit status once the process has ended (the rest of its group is then killed).
    pub fn try_wait(&mut self) -> std::io::Result<Option<ExitStatus>> {
        if self.status.is_some() {
            return Ok(self.status);
        }
        if !self.leader_exited()? {
            return Ok(None);
        }
        self.kill_group();
        Ok(self.status)
    }

    /// SIGKILL to the whole process group, then reaps the leader (on Windows: ends the process).
    pub fn kill_group(&mut self) {
        if self.status.is_some() {
            return;
        }
        #[cfg(unix)]
        {
            let pgid = self.child.id() as i32;
            if pgid > 0 {
                // SAFETY: signalling the group of our own child, which it leads and which has
                // not been reaped, so the id still names it.
                unsafe { libc::kill(-pgid, libc::SIGKILL) };
            }
            self.status = Some(
                self.child
                    .wait()
                    .unwrap_or_else(|_| ExitStatus::from_raw(libc::SIGKILL)),
            );
        }
        #[cfg(windows)]
        {
            let _ = self.child.kill();
            // Windows has no signals: 1 is what `Child::kill` makes the process exit with.
            self.status = Some(
                self.child
                    .wait()
                    .unwrap_or_else(|_| std::os::windows::process::ExitStatusExt::from_raw(1)),
            );
        }
    }

    /// Whether the process has exited. A Windows process is not reaped by looking, so this is
    /// `try_wait` there.
    #[cfg(windows)]
    fn leader_exited(&mut self) -> std::io::Result<bool> {
        Ok(self.child.try_wait()?.is_some())
    }

    /// Whether the leader has exited, without reaping it (`waitid` with `WNOWAIT`).
    #[cfg(unix)]
    fn leader_exited(&mut self) -> std::io::Result<bool> {
        // SAFETY: a zeroed siginfo_t is a valid out-parameter; waitid fills it.
        let mut info: libc::siginfo_t = unsafe { std::mem::zeroed() };
        // SAFETY: waits on our own child without reaping it.
        let r = unsafe {
            libc::waitid(
                libc::P_PID,
                self.child.id(),
                &mut info,
                libc::WEXITED | libc::WNOHANG | libc::WNOWAIT,
            )
        };
        if r != 0 {
            return Err(std::io::Error::last_os_error());
        }
        // SAFETY: si_pid is set by waitid (0 when no child has changed state).
        Ok(unsafe { info.si_pid() } != 0)
    }
}

impl Drop for SandboxedChild {
    fn drop(&mut self) {
        self.kill_group();
    }
}
