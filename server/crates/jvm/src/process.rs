//! One worker JVM: spawning it (in its own process group inside the sandbox where the platform
//! has them), the protocol channel, bounded reading of its messages, and killing it (with its
//! group) on drop. What differs by platform is in `process/unix.rs` (descriptors 3 and 4 of the
//! child, so user code printing to fd 1/2 cannot reach them) and `process/windows.rs` (stdin
//! and stdout).

use std::collections::VecDeque;
use std::fs::File;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::config::WorkerConfig;
use crate::error::JvmError;
use crate::jdk::Jdk;
use crate::model::{CrashReason, ExitKind};
use crate::sandbox::{refuse_where_impossible, SandboxReport};
use crate::scratch::create_private_dir;

#[cfg(unix)]
mod unix;
#[cfg(windows)]
mod windows;

#[cfg(unix)]
use unix as platform;
#[cfg(unix)]
pub(crate) use unix::pipe;
#[cfg(windows)]
use windows as platform;

use platform::TimedReader;

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

/// A worker process just started, with its ends of the protocol channel.
struct Started {
    child: Child,
    to_worker: File,
    from_worker: TimedReader,
    /// The JVM's own stdout and stderr, or what of them does not carry the protocol.
    console: File,
    sandbox: SandboxReport,
}

pub(crate) struct WorkerProcess {
    child: Child,
    to_worker: Option<File>,
    incoming: LineReader,
    console: Arc<Mutex<VecDeque<u8>>>,
    scratch: ScratchDir,
    pub(crate) sandbox: SandboxReport,
    exited: Option<ExitKind>,
}

impl WorkerProcess {
    pub(crate) fn spawn(
        config: &WorkerConfig,
        jdk: &Jdk,
        worker_classes: &Path,
        archive_args: &[String],
        readable: &[&Path],
    ) -> Result<WorkerProcess, JvmError> {
        let spawn_err = |what: &str, e: std::io::Error| JvmError::Spawn(format!("{what}: {e}"));
        refuse_where_impossible(config.sandbox)?;
        let scratch_root = config
            .scratch_root
            .clone()
            .unwrap_or_else(std::env::temp_dir);
        let scratch = create_private_dir(&scratch_root, "ctgls-job")
            .map_err(|e| spawn_err("creating the scratch dir", e))?;
        // Removed on every early return below, and with the process otherwise.
        let scratch = ScratchDir(scratch);
        let scratch_path = scratch.0.clone();
        let scratch_ref = &scratch_path;
        let environment = config.execution_limits().environment;
        environment
            .create_dirs(scratch_ref)
            .map_err(|e| spawn_err("creating the home directory", e))?;
        let mut cmd = Command::new(&jdk.java);
        cmd.args(jvm_args(
            config,
            jdk.version.feature,
            scratch_ref,
            worker_classes,
            archive_args,
        ))
        .current_dir(scratch_ref)
        .stdin(Stdio::null());
        environment.apply(&mut cmd, scratch_ref);
        let mut readable: Vec<&Path> = readable.to_vec();
        readable.extend(config.readable.iter().map(PathBuf::as_path));
        readable.push(&jdk.home);
        readable.push(worker_classes);
        let Started {
            child,
            to_worker,
            from_worker,
            console: console_r,
            sandbox: report,
        } = platform::start(cmd, config, scratch_ref, &readable)?;

        let incoming = LineReader::new(from_worker, config.max_message_bytes);
        let console = Arc::new(Mutex::new(VecDeque::with_capacity(CONSOLE_TAIL)));
        let sink = console.clone();
        std::thread::Builder::new()
            .name("ctgls-worker-console".into())
            .spawn(move || drain_console(console_r, sink))
            .map_err(|e| spawn_err("starting the console thread", e))?;

        Ok(WorkerProcess {
            child,
            to_worker: Some(to_worker),
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
        self.incoming.next(timeout)
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

    /// Kills the JVM (on Unix with its whole process group: threads and any processes user code
    /// started), then reaps it.
    pub(crate) fn kill(&mut self) {
        platform::kill(&mut self.child);
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
    match (st.code(), platform::signal(st)) {
        (Some(c), _) => ExitKind::Code(c),
        (None, Some(s)) => ExitKind::Signal(s),
        _ => ExitKind::Unknown,
    }
}

/// The subdirectory of the scratch directory that is the worker's `java.io.tmpdir`. It is apart
/// from the working directory (and `user.home`), the scratch directory itself, so that the
/// worker tells a test that writes temporary files, which is fine anywhere, from one that writes
/// relative to the working directory or home, which run by the user would write into their
/// project or home (docs/protocol.md, "Environment").
pub(crate) const TMP_DIR: &str = "tmp";

/// Java releases that install a security manager only when started with
/// `-Djava.security.manager=allow`: 18 to 23 (12 introduced the value; 24 removed the manager).
fn needs_security_manager_allowed(feature: u32) -> bool {
    (12..24).contains(&feature)
}

fn jvm_args(
    config: &WorkerConfig,
    java_feature: u32,
    scratch: &Path,
    classes: &Path,
    archive_args: &[String],
) -> Vec<String> {
    let mut a = Vec::from(config.execution_limits().jvm_memory_args());
    a.extend([
        "-XX:+UseSerialGC".into(),
        "-Xshare:auto".into(),
        // No hsperfdata file in /tmp (the sandbox would deny it anyway).
        "-XX:-UsePerfData".into(),
        "-Dfile.encoding=UTF-8".into(),
    ]);
    if config.block_system_exit && needs_security_manager_allowed(java_feature) {
        // The exit guard is also what tells the worker which files, addresses and programs a
        // test needs (ExitGuard.java); without it only refusals are seen.
        a.push("-Djava.security.manager=allow".into());
    }
    a.extend(
        config
            .execution_limits()
            .environment
            .jvm_properties(scratch),
    );
    a.extend(
        platform::PROTOCOL_JVM_ARGS
            .iter()
            .map(|arg| arg.to_string()),
    );
    if config.quick_start {
        a.push("-XX:TieredStopAtLevel=1".into());
    }
    a.extend(archive_args.iter().cloned());
    a.extend(config.extra_jvm_args.iter().cloned());
    a.push("-cp".into());
    a.push(classes.display().to_string());
    a.push("ctgls.worker.Main".into());
    a.extend(
        platform::PROTOCOL_WORKER_ARGS
            .iter()
            .map(|arg| arg.to_string()),
    );
    if !config.block_system_exit {
        a.push("--no-exit-guard".into());
    }
    a
}

/// The worker's messages: `\n`-terminated lines of at most `max` bytes, read from the pipe on
/// the caller's thread. After `Oversize` or `Eof` it reads no more.
struct LineReader {
    source: TimedReader,
    buf: Vec<u8>,
    /// Start of the bytes in `buf` not returned yet.
    start: usize,
    chunk: Box<[u8]>,
    max: usize,
    done: bool,
}

impl LineReader {
    fn new(source: TimedReader, max: usize) -> LineReader {
        LineReader {
            source,
            buf: Vec::new(),
            start: 0,
            chunk: vec![0u8; 1 << 16].into_boxed_slice(),
            max,
            done: false,
        }
    }

    /// The next message, waiting up to `timeout` for it.
    fn next(&mut self, timeout: Duration) -> Result<Incoming, RecvError> {
        let deadline = Instant::now() + timeout;
        let mut eof = false;
        loop {
            if self.done {
                return Err(RecvError::Closed);
            }
            let pending = &self.buf[self.start..];
            if let Some(pos) = pending.iter().position(|&b| b == b'\n') {
                if pos > self.max {
                    self.done = true;
                    return Ok(Incoming::Oversize);
                }
                let line = pending[..pos].to_vec();
                self.start += pos + 1;
                return Ok(Incoming::Line(line));
            }
            if pending.len() > self.max {
                self.done = true;
                return Ok(Incoming::Oversize);
            }
            if eof {
                self.done = true;
                // A last line without its newline still counts.
                return Ok(if pending.is_empty() {
                    Incoming::Eof
                } else {
                    Incoming::Line(pending.to_vec())
                });
            }
            // Keep only the unread bytes before reading more.
            self.buf.drain(..self.start);
            self.start = 0;
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Err(RecvError::Timeout);
            }
            match self.source.read_within(&mut self.chunk, left) {
                None => continue,
                Some(Ok(0) | Err(_)) => eof = true,
                Some(Ok(n)) => self.buf.extend_from_slice(&self.chunk[..n]),
            }
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

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    fn reader(bytes: &[u8], max: usize) -> LineReader {
        let (r, mut w) = pipe().unwrap();
        w.write_all(bytes).unwrap();
        drop(w);
        LineReader::new(TimedReader::new(r), max)
    }

    fn line(r: &mut LineReader) -> Option<Vec<u8>> {
        match r.next(Duration::from_secs(5)) {
            Ok(Incoming::Line(l)) => Some(l),
            _ => None,
        }
    }

    #[test]
    fn bounded_lines() {
        let mut r = reader(b"abc\ndefghij\nxy", 5);
        assert_eq!(line(&mut r).as_deref(), Some(&b"abc"[..]));
        assert!(matches!(
            r.next(Duration::from_secs(5)),
            Ok(Incoming::Oversize)
        ));
        assert!(matches!(
            r.next(Duration::from_secs(5)),
            Err(RecvError::Closed)
        ));

        let mut r = reader(b"xy", 5);
        assert_eq!(line(&mut r).as_deref(), Some(&b"xy"[..]));
        assert!(matches!(
            r.next(Duration::from_secs(5)),
            Err(RecvError::Closed)
        ));
        let mut r = reader(b"", 5);
        assert!(matches!(r.next(Duration::from_secs(5)), Ok(Incoming::Eof)));
    }

    #[test]
    fn a_silent_writer_times_out_and_lines_split_across_reads_are_joined() {
        let (r, mut w) = pipe().unwrap();
        let mut r = LineReader::new(TimedReader::new(r), 1 << 20);
        let started = Instant::now();
        assert!(matches!(
            r.next(Duration::from_millis(50)),
            Err(RecvError::Timeout)
        ));
        assert!(started.elapsed() >= Duration::from_millis(50));
        w.write_all(b"{\"id\":").unwrap();
        assert!(matches!(
            r.next(Duration::from_millis(20)),
            Err(RecvError::Timeout)
        ));
        w.write_all(b"1}\n{\"id\":2}\n").unwrap();
        assert_eq!(line(&mut r).as_deref(), Some(&b"{\"id\":1}"[..]));
        assert_eq!(line(&mut r).as_deref(), Some(&b"{\"id\":2}"[..]));
        drop(w);
        assert!(matches!(r.next(Duration::from_secs(5)), Ok(Incoming::Eof)));
    }
}

#[cfg(test)]
mod arg_tests {
    use super::*;

    fn args(java_feature: u32, block_system_exit: bool) -> Vec<String> {
        let config = WorkerConfig {
            block_system_exit,
            ..WorkerConfig::default()
        };
        jvm_args(
            &config,
            java_feature,
            Path::new("/s"),
            Path::new("/w.jar"),
            &[],
        )
    }

    #[test]
    fn the_security_manager_is_allowed_where_java_needs_the_flag_and_accepts_it() {
        let allow = "-Djava.security.manager=allow".to_string();
        // 11 reads the value as a class name; 24 has no security manager.
        for (feature, wanted) in [(11, false), (17, true), (21, true), (23, true), (24, false)] {
            assert_eq!(
                args(feature, true).contains(&allow),
                wanted,
                "Java {feature}"
            );
        }
        assert!(!args(21, false).contains(&allow), "no exit guard asked for");
    }

    #[test]
    fn temporary_files_go_apart_from_the_working_directory() {
        let a = args(17, true);
        assert!(a.contains(&format!(
            "-Djava.io.tmpdir={}",
            Path::new("/s").join(TMP_DIR).display()
        )));
        assert!(a.contains(&"-Duser.home=/s/home".to_string()));
    }
}
