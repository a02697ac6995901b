//! The worker process on Unix: its own process group, the sandbox applied between fork and exec
//! (all of it on Linux, the file size bound elsewhere), the protocol on descriptors 3 and 4 of
//! the child, and SIGKILL to the whole group.
//!
//! Messages are read on the caller's thread (poll(2) for the deadline, then read(2)): a reader
//! thread handing lines over a channel cost two thread wake-ups per message, more CPU than
//! parsing the message.

use std::fs::File;
use std::io::Read;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::Path;
use std::process::{Child, Command, ExitStatus};
use std::time::Duration;

use super::Started;
use crate::config::WorkerConfig;
use crate::error::JvmError;
use crate::sandbox::{PreparedSandbox, SandboxPaths, SandboxPolicy, SandboxReport};

/// Descriptor numbers of the protocol pipes in the child.
const CHILD_IN_FD: i32 = 3;
const CHILD_OUT_FD: i32 = 4;

/// The worker wraps descriptors 3 and 4 in FileDescriptor objects by reflection.
pub(super) const PROTOCOL_JVM_ARGS: &[&str] = &["--add-opens=java.base/java.io=ALL-UNNAMED"];
pub(super) const PROTOCOL_WORKER_ARGS: &[&str] = &["--in-fd", "3", "--out-fd", "4"];

/// Starts `cmd` (the worker's `java` command line) in its own process group under the sandbox
/// of `config` (reading only `readable` besides the scratch directory and the system's), with the protocol pipes on descriptors 3 and 4 and stdout and stderr into one
/// console pipe.
pub(super) fn start(
    mut cmd: Command,
    config: &WorkerConfig,
    scratch: &Path,
    readable: &[&Path],
) -> Result<Started, JvmError> {
    let spawn_err = |what: &str, e: std::io::Error| JvmError::Spawn(format!("{what}: {e}"));
    let max_file_bytes = config.execution_limits().max_file_bytes();
    let paths = SandboxPaths {
        writable: &[scratch],
        readable,
        host_name: config.identity.host_name(),
        // The alternate observation reads what it likes: a result that depends on a file
        // outside the project then differs from the confined primary one and is not written.
        // Where the whole sandbox is required, it stays confined like the rest.
        confine_reads: config.identity == crate::Identity::Primary
            || config.sandbox == SandboxPolicy::Required,
    };
    let mut sandbox = PreparedSandbox::new(config.sandbox, &paths, max_file_bytes)
        .map_err(|e| JvmError::Spawn(format!("preparing the sandbox: {e}")))?;

    let (req_r, req_w) = pipe().map_err(|e| spawn_err("pipe", e))?;
    let (resp_r, resp_w) = pipe().map_err(|e| spawn_err("pipe", e))?;
    let (console_r, console_w) = pipe().map_err(|e| spawn_err("pipe", e))?;
    let (mut status_r, status_w) = pipe().map_err(|e| spawn_err("pipe", e))?;
    let console_w2 = console_w.try_clone().map_err(|e| spawn_err("pipe", e))?;

    cmd.stdout(console_w).stderr(console_w2).process_group(0);
    let abi = sandbox.abi();
    let (in_fd, out_fd, status_fd) = (req_r.as_raw_fd(), resp_w.as_raw_fd(), status_w.as_raw_fd());
    // SAFETY: the closure runs in the forked child and only makes syscalls on descriptors
    // and buffers prepared before the fork (see PreparedSandbox::apply_in_child).
    unsafe {
        cmd.pre_exec(move || {
            // Move the protocol ends above the target numbers first: the ruleset and status
            // descriptors, or each other, may sit at 3 or 4 until the sandbox is applied.
            let a = libc::fcntl(in_fd, libc::F_DUPFD_CLOEXEC, 10);
            let b = libc::fcntl(out_fd, libc::F_DUPFD_CLOEXEC, 10);
            if a < 0 || b < 0 {
                return Err(std::io::Error::last_os_error());
            }
            sandbox.apply_in_child(status_fd)?;
            // dup2 clears close-on-exec on the copies the worker inherits.
            if libc::dup2(a, CHILD_IN_FD) < 0 || libc::dup2(b, CHILD_OUT_FD) < 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let program = cmd.get_program().to_owned();
    let child = cmd
        .spawn()
        .map_err(|e| spawn_err(&format!("running {}", Path::new(&program).display()), e))?;
    // The child's copies are closed at exec; ours must go so EOF means "worker gone".
    drop(cmd);
    drop(req_r);
    drop(resp_w);
    drop(status_w);
    let mut status = Vec::new();
    let _ = status_r.read_to_end(&mut status);
    let report = match config.sandbox {
        SandboxPolicy::Off => SandboxReport::OFF,
        _ => crate::sandbox::report(abi, &status),
    };
    Ok(Started {
        child,
        to_worker: req_w,
        from_worker: TimedReader::new(resp_r),
        console: console_r,
        sandbox: report,
    })
}

/// SIGKILL to the child's whole process group, which it leads and which has not been reaped.
pub(super) fn kill(child: &mut Child) {
    let pgid = child.id() as i32;
    if pgid > 0 {
        // SAFETY: signalling our own child's process group.
        unsafe { libc::kill(-pgid, libc::SIGKILL) };
    }
}

pub(super) fn signal(status: ExitStatus) -> Option<i32> {
    status.signal()
}

/// A close-on-exec pipe (read end, write end). Close-on-exec matters: other workers spawned
/// concurrently must not inherit our ends, or EOF would never come.
#[cfg(target_os = "linux")]
pub(crate) fn pipe() -> std::io::Result<(File, File)> {
    let mut fds = [0i32; 2];
    // SAFETY: pipe2 fills two descriptors that we then own.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: both descriptors were just created and are owned by nobody else.
    unsafe {
        Ok((
            File::from(OwnedFd::from_raw_fd(fds[0])),
            File::from(OwnedFd::from_raw_fd(fds[1])),
        ))
    }
}

/// A close-on-exec pipe (read end, write end), where there is no `pipe2` (macOS): `pipe`, then
/// `FD_CLOEXEC` on each end. A process another thread forks between the two calls inherits the
/// ends until it execs or exits, which std's own pipes on these systems share; EOF then comes
/// late, and the deadlines still hold.
#[cfg(not(target_os = "linux"))]
pub(crate) fn pipe() -> std::io::Result<(File, File)> {
    let mut fds = [0i32; 2];
    // SAFETY: pipe fills two descriptors that we then own.
    if unsafe { libc::pipe(fds.as_mut_ptr()) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: both descriptors were just created and are owned by nobody else.
    let (r, w) = unsafe {
        (
            File::from(OwnedFd::from_raw_fd(fds[0])),
            File::from(OwnedFd::from_raw_fd(fds[1])),
        )
    };
    for end in [&r, &w] {
        // SAFETY: setting a flag on a descriptor we own.
        if unsafe { libc::fcntl(end.as_raw_fd(), libc::F_SETFD, libc::FD_CLOEXEC) } != 0 {
            return Err(std::io::Error::last_os_error());
        }
    }
    Ok((r, w))
}

/// The worker's end of the message pipe, read with a deadline.
pub(super) struct TimedReader(File);

impl TimedReader {
    pub(super) fn new(file: File) -> TimedReader {
        TimedReader(file)
    }

    /// Reads what is there within `timeout`: `None` when nothing came (the time ran out or a
    /// signal interrupted the wait), `Some(Ok(0))` at end of file.
    pub(super) fn read_within(
        &mut self,
        buf: &mut [u8],
        timeout: Duration,
    ) -> Option<std::io::Result<usize>> {
        readable(&self.0, timeout).then(|| self.0.read(buf))
    }
}

/// Waits up to `timeout` until `file` can be read without blocking (data, end of file or an
/// error); false when the time ran out or a signal interrupted the wait.
fn readable(file: &File, timeout: Duration) -> bool {
    let mut fds = libc::pollfd {
        fd: file.as_raw_fd(),
        events: libc::POLLIN,
        revents: 0,
    };
    // Round up: a wait of 0 ms would spin until the deadline.
    let ms = timeout.as_micros().div_ceil(1000).min(i32::MAX as u128) as i32;
    // SAFETY: one valid pollfd for a descriptor we own, for the duration of the call.
    let n = unsafe { libc::poll(&mut fds, 1, ms) };
    n > 0
}
