//! The worker process on Windows: no sandbox and no process group, the protocol on the child's
//! stdin and stdout (the worker falls back to them without `--in-fd/--out-fd`), its stderr as
//! the console, and `Child::kill` on the JVM alone, so processes the code under test started
//! may outlive it.
//!
//! User code that writes to `FileDescriptor.out` itself (not `System.out`, which the worker
//! captures) reaches the protocol channel here and breaks it: the supervisor then sees a
//! protocol error and restarts the worker.

use std::fs::File;
use std::io::Read;
use std::os::windows::io::OwnedHandle;
use std::path::Path;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::mpsc::{sync_channel, Receiver, RecvTimeoutError};
use std::time::Duration;

use super::Started;
use crate::config::WorkerConfig;
use crate::error::JvmError;
use crate::sandbox::SandboxReport;

/// The JVM's own messages (warnings, unified logging) go to stdout by default, where they would
/// break the protocol: to stderr with them.
pub(super) const PROTOCOL_JVM_ARGS: &[&str] = &[
    "-XX:+DisplayVMOutputToStderr",
    "-Xlog:disable",
    "-Xlog:all=warning:stderr",
];
pub(super) const PROTOCOL_WORKER_ARGS: &[&str] = &[];

/// How many chunks the reader thread may read ahead of the supervisor: it bounds the memory a
/// flooding worker costs before the line limit stops it.
const CHUNKS_AHEAD: usize = 4;
const CHUNK_BYTES: usize = 1 << 16;

/// Starts `cmd` (the worker's `java` command line) with piped stdin, stdout and stderr. The
/// caller refused [`crate::SandboxPolicy::Required`] already; nothing else of `config` applies.
pub(super) fn start(
    mut cmd: Command,
    _config: &WorkerConfig,
    _scratch: &Path,
    _readable: &[&Path],
) -> Result<Started, JvmError> {
    let spawn_err = |what: &str, e: std::io::Error| JvmError::Spawn(format!("{what}: {e}"));
    cmd.stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let program = cmd.get_program().to_owned();
    let mut child = cmd
        .spawn()
        .map_err(|e| spawn_err(&format!("running {}", Path::new(&program).display()), e))?;
    let (Some(stdin), Some(stdout), Some(stderr)) =
        (child.stdin.take(), child.stdout.take(), child.stderr.take())
    else {
        kill(&mut child);
        let _ = child.wait();
        return Err(JvmError::Spawn("the worker's pipes are missing".into()));
    };
    let from_worker = match TimedReader::new(File::from(OwnedHandle::from(stdout))) {
        Ok(reader) => reader,
        Err(e) => {
            kill(&mut child);
            let _ = child.wait();
            return Err(spawn_err("starting the reader thread", e));
        }
    };
    Ok(Started {
        child,
        to_worker: File::from(OwnedHandle::from(stdin)),
        from_worker,
        console: File::from(OwnedHandle::from(stderr)),
        sandbox: SandboxReport::OFF,
    })
}

/// Ends the JVM (`TerminateProcess`). There is no group: what it started lives on.
pub(super) fn kill(child: &mut Child) {
    let _ = child.kill();
}

pub(super) fn signal(_status: ExitStatus) -> Option<i32> {
    None
}

/// The worker's stdout, read with a deadline. An anonymous pipe cannot be polled on Windows, so
/// a thread reads it into a small bounded channel.
pub(super) struct TimedReader {
    chunks: Receiver<std::io::Result<Vec<u8>>>,
    /// The part of the last chunk not returned yet.
    pending: Vec<u8>,
}

impl TimedReader {
    fn new(mut file: File) -> std::io::Result<TimedReader> {
        let (sender, chunks) = sync_channel(CHUNKS_AHEAD);
        std::thread::Builder::new()
            .name("ctgls-worker-reader".into())
            .spawn(move || {
                let mut buf = vec![0u8; CHUNK_BYTES];
                loop {
                    // An empty chunk is the end of the stream; the thread ends after it, after an
                    // error, or when the reader is gone.
                    let chunk = file.read(&mut buf).map(|n| buf[..n].to_vec());
                    let last = !matches!(&chunk, Ok(bytes) if !bytes.is_empty());
                    if sender.send(chunk).is_err() || last {
                        return;
                    }
                }
            })?;
        Ok(TimedReader {
            chunks,
            pending: Vec::new(),
        })
    }

    /// Reads what is there within `timeout`: `None` when nothing came, `Some(Ok(0))` at end of
    /// file.
    pub(super) fn read_within(
        &mut self,
        buf: &mut [u8],
        timeout: Duration,
    ) -> Option<std::io::Result<usize>> {
        if self.pending.is_empty() {
            match self.chunks.recv_timeout(timeout) {
                Ok(Ok(bytes)) => self.pending = bytes,
                Ok(Err(e)) => return Some(Err(e)),
                Err(RecvTimeoutError::Timeout) => return None,
                Err(RecvTimeoutError::Disconnected) => return Some(Ok(0)),
            }
        }
        let n = self.pending.len().min(buf.len());
        buf[..n].copy_from_slice(&self.pending[..n]);
        self.pending.drain(..n);
        Some(Ok(n))
    }
}
