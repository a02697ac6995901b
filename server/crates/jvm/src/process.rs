//! One worker JVM: spawning it in its own process group inside the sandbox, the protocol pipes
//! (descriptors 3 and 4 of the child, so user code printing to fd 1/2 cannot reach them),
//! bounded reading of its messages, and killing the whole group on drop.

use std::collections::VecDeque;
use std::fs::File;
use std::io::{BufRead, BufReader, Read, Write};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{sync_channel, Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::config::WorkerConfig;
use crate::error::JvmError;
use crate::jdk::Jdk;
use crate::model::{CrashReason, ExitKind};
use crate::sandbox::{PreparedSandbox, SandboxPolicy, SandboxReport};

/// Descriptor numbers of the protocol pipes in the child.
const CHILD_IN_FD: i32 = 3;
const CHILD_OUT_FD: i32 = 4;
/// Bytes of console output (the JVM's fd 1 and 2) kept for crash reports.
const CONSOLE_TAIL: usize = 8 * 1024;

pub(crate) enum Incoming {
    Line(Vec<u8>),
    /// A message exceeded the size cap; the reader stopped.
    Oversize,
    Eof,
}

pub(crate) enum RecvError {
    Timeout,
    Closed,
}

pub(crate) struct WorkerProcess {
    child: Child,
    to_worker: Option<File>,
    incoming: Receiver<Incoming>,
    console: Arc<Mutex<VecDeque<u8>>>,
    scratch: ScratchDir,
    pub(crate) sandbox: SandboxReport,
    exited: Option<ExitKind>,
}

static JOB_COUNTER: AtomicU64 = AtomicU64::new(0);

impl WorkerProcess {
    pub(crate) fn spawn(
        config: &WorkerConfig,
        jdk: &Jdk,
        worker_classes: &Path,
    ) -> Result<WorkerProcess, JvmError> {
        let spawn_err = |what: &str, e: std::io::Error| JvmError::Spawn(format!("{what}: {e}"));
        let scratch_root = config
            .scratch_root
            .clone()
            .unwrap_or_else(std::env::temp_dir);
        let scratch = scratch_root.join(format!(
            "ctgls-job-{}-{}",
            std::process::id(),
            JOB_COUNTER.fetch_add(1, Ordering::Relaxed)
        ));
        std::fs::create_dir_all(&scratch).map_err(|e| spawn_err("creating the scratch dir", e))?;
        // Removed on every early return below, and with the process otherwise.
        let scratch = ScratchDir(scratch);
        let scratch_path = scratch.0.clone();
        let scratch_ref = &scratch_path;
        let mut sandbox = PreparedSandbox::new(config.sandbox, scratch_ref)
            .map_err(|e| JvmError::Spawn(format!("preparing the sandbox: {e}")))?;

        let (req_r, req_w) = pipe().map_err(|e| spawn_err("pipe", e))?;
        let (resp_r, resp_w) = pipe().map_err(|e| spawn_err("pipe", e))?;
        let (console_r, console_w) = pipe().map_err(|e| spawn_err("pipe", e))?;
        let (mut status_r, status_w) = pipe().map_err(|e| spawn_err("pipe", e))?;
        let console_w2 = console_w.try_clone().map_err(|e| spawn_err("pipe", e))?;

        let mut cmd = Command::new(&jdk.java);
        cmd.args(jvm_args(config, scratch_ref, worker_classes))
            .current_dir(scratch_ref)
            .stdin(Stdio::null())
            .stdout(console_w)
            .stderr(console_w2)
            .process_group(0);
        let abi = sandbox.abi();
        let (in_fd, out_fd, status_fd) =
            (req_r.as_raw_fd(), resp_w.as_raw_fd(), status_w.as_raw_fd());
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
        let child = cmd
            .spawn()
            .map_err(|e| spawn_err(&format!("running {}", jdk.java.display()), e))?;
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

        let (tx, incoming) = sync_channel(64);
        let max = config.max_message_bytes;
        std::thread::Builder::new()
            .name("ctgls-worker-reader".into())
            .spawn(move || {
                let mut r = BufReader::with_capacity(1 << 16, resp_r);
                loop {
                    let mut line = Vec::new();
                    let msg = match read_line_bounded(&mut r, &mut line, max) {
                        Ok(Some(true)) => Incoming::Line(line),
                        Ok(Some(false)) => Incoming::Oversize,
                        Ok(None) | Err(_) => Incoming::Eof,
                    };
                    let stop = !matches!(msg, Incoming::Line(_));
                    if tx.send(msg).is_err() || stop {
                        return;
                    }
                }
            })
            .map_err(|e| spawn_err("starting the reader thread", e))?;
        let console = Arc::new(Mutex::new(VecDeque::with_capacity(CONSOLE_TAIL)));
        let sink = console.clone();
        std::thread::Builder::new()
            .name("ctgls-worker-console".into())
            .spawn(move || drain_console(console_r, sink))
            .map_err(|e| spawn_err("starting the console thread", e))?;

        Ok(WorkerProcess {
            child,
            to_worker: Some(req_w),
            incoming,
            console,
            scratch,
            sandbox: report,
            exited: None,
        })
    }

    pub(crate) fn pid(&self) -> u32 {
        self.child.id()
    }

    pub(crate) fn scratch(&self) -> &Path {
        &self.scratch.0
    }

    pub(crate) fn send(&mut self, line: &[u8]) -> std::io::Result<()> {
        let w = self
            .to_worker
            .as_mut()
            .ok_or_else(|| std::io::Error::other("worker input closed"))?;
        w.write_all(line)?;
        w.write_all(b"\n")?;
        w.flush()
    }

    pub(crate) fn recv(&mut self, timeout: Duration) -> Result<Incoming, RecvError> {
        match self.incoming.recv_timeout(timeout) {
            Ok(m) => Ok(m),
            Err(RecvTimeoutError::Timeout) => Err(RecvError::Timeout),
            Err(RecvTimeoutError::Disconnected) => Err(RecvError::Closed),
        }
    }

    /// Waits a little for the process to end by itself (it closed its output), then kills it.
    pub(crate) fn crash_reason(&mut self) -> CrashReason {
        let deadline = Instant::now() + Duration::from_secs(2);
        let exit = loop {
            match self.child.try_wait() {
                Ok(Some(st)) => break exit_kind(st),
                Ok(None) if Instant::now() < deadline => {
                    std::thread::sleep(Duration::from_millis(10))
                }
                _ => {
                    self.kill();
                    break self.exited.unwrap_or(ExitKind::Unknown);
                }
            }
        };
        self.exited = Some(exit);
        self.kill();
        // Let the console thread catch the last bytes.
        std::thread::sleep(Duration::from_millis(20));
        CrashReason {
            exit,
            console_tail: self.console_tail(),
        }
    }

    pub(crate) fn console_tail(&self) -> String {
        let bytes: Vec<u8> = self
            .console
            .lock()
            .map(|b| b.iter().copied().collect())
            .unwrap_or_default();
        String::from_utf8_lossy(&bytes).into_owned()
    }

    /// Closes the worker's input, so a healthy worker exits by itself.
    pub(crate) fn close_input(&mut self) {
        self.to_worker = None;
    }

    /// Waits up to `timeout` for the process to exit.
    pub(crate) fn wait_exit(&mut self, timeout: Duration) -> bool {
        let deadline = Instant::now() + timeout;
        while Instant::now() < deadline {
            if let Ok(Some(st)) = self.child.try_wait() {
                self.exited = Some(exit_kind(st));
                return true;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        false
    }

    /// SIGKILL to the whole process group (threads and any processes user code started), then
    /// reaps the JVM.
    pub(crate) fn kill(&mut self) {
        let pgid = self.child.id() as i32;
        if pgid > 0 {
            // SAFETY: signalling our own child's process group.
            unsafe { libc::kill(-pgid, libc::SIGKILL) };
        }
        if let Ok(st) = self.child.wait() {
            self.exited.get_or_insert(exit_kind(st));
        }
    }
}

impl Drop for WorkerProcess {
    fn drop(&mut self) {
        self.to_worker = None;
        // The scratch directory goes after this, when the fields drop.
        self.kill();
    }
}

/// The per-job scratch directory: the only place the sandboxed worker may write.
struct ScratchDir(PathBuf);

impl Drop for ScratchDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn exit_kind(st: std::process::ExitStatus) -> ExitKind {
    match (st.code(), st.signal()) {
        (Some(c), _) => ExitKind::Code(c),
        (None, Some(s)) => ExitKind::Signal(s),
        _ => ExitKind::Unknown,
    }
}

fn jvm_args(config: &WorkerConfig, scratch: &Path, classes: &Path) -> Vec<String> {
    let mut a = vec![
        format!("-Xmx{}m", config.heap_mb),
        format!("-Xss{}k", config.stack_kb),
        format!("-XX:MaxMetaspaceSize={}m", config.metaspace_mb),
        "-XX:+UseSerialGC".into(),
        "-Xshare:auto".into(),
        // No hsperfdata file in /tmp (the sandbox would deny it anyway).
        "-XX:-UsePerfData".into(),
        format!("-Djava.io.tmpdir={}", scratch.display()),
        format!("-Duser.home={}", scratch.display()),
        "-Dfile.encoding=UTF-8".into(),
        // The worker wraps descriptors 3 and 4 in FileDescriptor objects by reflection.
        "--add-opens=java.base/java.io=ALL-UNNAMED".into(),
    ];
    if config.quick_start {
        a.push("-XX:TieredStopAtLevel=1".into());
    }
    a.extend(config.extra_jvm_args.iter().cloned());
    a.push("-cp".into());
    a.push(classes.display().to_string());
    a.push("ctgls.worker.Main".into());
    a.push("--in-fd".into());
    a.push(CHILD_IN_FD.to_string());
    a.push("--out-fd".into());
    a.push(CHILD_OUT_FD.to_string());
    if !config.block_system_exit {
        a.push("--no-exit-guard".into());
    }
    a
}

/// A close-on-exec pipe (read end, write end). Close-on-exec matters: other workers spawned
/// concurrently must not inherit our ends, or EOF would never come.
fn pipe() -> std::io::Result<(File, File)> {
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

/// Reads one `\n`-terminated line of at most `max` bytes. `Ok(None)` at EOF, `Ok(Some(false))`
/// when the line is longer than `max`.
fn read_line_bounded(
    r: &mut impl BufRead,
    out: &mut Vec<u8>,
    max: usize,
) -> std::io::Result<Option<bool>> {
    loop {
        let buf = r.fill_buf()?;
        if buf.is_empty() {
            return Ok(if out.is_empty() { None } else { Some(true) });
        }
        if let Some(pos) = buf.iter().position(|&b| b == b'\n') {
            if out.len() + pos > max {
                return Ok(Some(false));
            }
            out.extend_from_slice(&buf[..pos]);
            r.consume(pos + 1);
            return Ok(Some(true));
        }
        let n = buf.len();
        out.extend_from_slice(buf);
        r.consume(n);
        if out.len() > max {
            return Ok(Some(false));
        }
    }
}

fn drain_console(mut r: File, sink: Arc<Mutex<VecDeque<u8>>>) {
    let mut buf = [0u8; 4096];
    loop {
        match r.read(&mut buf) {
            Ok(0) | Err(_) => return,
            Ok(n) => {
                if let Ok(mut tail) = sink.lock() {
                    tail.extend(&buf[..n]);
                    let excess = tail.len().saturating_sub(CONSOLE_TAIL);
                    tail.drain(..excess);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounded_lines() {
        let mut r = std::io::Cursor::new(b"abc\ndefghij\nxy".to_vec());
        let mut out = Vec::new();
        assert_eq!(read_line_bounded(&mut r, &mut out, 5).unwrap(), Some(true));
        assert_eq!(out, b"abc");
        out.clear();
        assert_eq!(read_line_bounded(&mut r, &mut out, 5).unwrap(), Some(false));
        let mut r = std::io::Cursor::new(b"xy".to_vec());
        out.clear();
        assert_eq!(read_line_bounded(&mut r, &mut out, 5).unwrap(), Some(true));
        assert_eq!(out, b"xy");
        out.clear();
        assert_eq!(read_line_bounded(&mut r, &mut out, 5).unwrap(), None);
    }
}
