//! Running javac and JVMs with a time limit under the worker's sandbox policy
//! ([`jvm::ExecutionLimits::spawn`]): output goes to files in the scratch directory (so a chatty
//! process can never block on a full pipe), and a process still running at its deadline is
//! killed with its whole process group, as is anything it left running when it exits.

use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use jvm::{ExecutionLimits, SandboxReport};
use search::CancelToken;

use super::VerifyError;

/// How a bounded process ended.
#[derive(Debug)]
pub(crate) struct Finished {
    /// `None` when it was killed at the deadline.
    pub status: Option<ExitStatus>,
    pub stdout: String,
    pub stderr: String,
    pub duration: Duration,
    /// The sandbox it ran in.
    pub sandbox: SandboxReport,
}

impl Finished {
    pub(crate) fn timed_out(&self) -> bool {
        self.status.is_none()
    }

    pub(crate) fn success(&self) -> bool {
        self.status.is_some_and(|s| s.success())
    }

    /// The last lines of stderr (or stdout), for error messages.
    pub(crate) fn tail(&self) -> String {
        let text = if self.stderr.trim().is_empty() {
            &self.stdout
        } else {
            &self.stderr
        };
        let lines: Vec<&str> = text.lines().collect();
        lines[lines.len().saturating_sub(12)..].join("\n")
    }
}

/// Where a bounded process may write and under which policy it runs.
pub(crate) struct Confinement<'a> {
    pub limits: &'a ExecutionLimits,
    /// Directories (existing) beneath which it may create, change and delete files.
    pub writable: &'a [&'a Path],
    /// What it may read besides them, the JDK and the system's libraries (where Landlock
    /// confines reads): its class path, sources, archives.
    pub readable: &'a [&'a Path],
    /// Kills the process (and its group) as soon as this is cancelled:
    /// [`VerifyError::Cancelled`]. `None` for work no run waits on (training archives).
    pub cancel: Option<&'a CancelToken>,
}

/// Runs `command` to completion or until `timeout`, sandboxed by `confinement`, with stdin
/// closed and stdout/stderr captured in `<dir>/<label>.out` and `.err`. A cancellation
/// (`confinement.cancel`) kills it within one poll (at most 50 ms) and is an error.
pub(crate) fn run_bounded(
    mut command: Command,
    timeout: Duration,
    dir: &Path,
    label: &str,
    confinement: &Confinement,
) -> Result<Finished, VerifyError> {
    let io = |source| VerifyError::Io {
        what: format!("running {label}"),
        source,
    };
    let out_path: PathBuf = dir.join(format!("{label}.out"));
    let err_path: PathBuf = dir.join(format!("{label}.err"));
    command
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(&out_path).map_err(io)?)
        .stderr(std::fs::File::create(&err_path).map_err(io)?);
    let start = Instant::now();
    // Dropped on every early return: that kills the process group.
    let mut child = confinement
        .limits
        .spawn_reading(command, confinement.writable, confinement.readable)
        .map_err(VerifyError::Execution)?;
    let mut pause = Duration::from_millis(5);
    let status = loop {
        if let Some(status) = child.try_wait().map_err(io)? {
            break Some(status);
        }
        if confinement.cancel.is_some_and(CancelToken::is_cancelled) {
            child.kill_group();
            return Err(VerifyError::Cancelled {
                what: label.to_string(),
            });
        }
        if start.elapsed() >= timeout {
            child.kill_group();
            break None;
        }
        std::thread::sleep(pause);
        pause = (pause * 2).min(Duration::from_millis(50));
    };
    let read = |p: &Path| {
        std::fs::read(p)
            .map(|b| String::from_utf8_lossy(&b).into_owned())
            .unwrap_or_default()
    };
    Ok(Finished {
        status,
        stdout: read(&out_path),
        stderr: read(&err_path),
        duration: start.elapsed(),
        sandbox: child.sandbox(),
    })
}

// The processes these tests run are shell commands.
#[cfg(all(test, unix))]
mod tests {
    use super::*;

    #[test]
    fn a_process_past_its_deadline_is_killed() {
        let dir = std::env::temp_dir().join(format!("ctgls-process-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let limits = ExecutionLimits::default();
        let confinement = Confinement {
            limits: &limits,
            writable: &[&dir],
            readable: &[],
            cancel: None,
        };
        let mut sleep = Command::new("sh");
        // Killed with its background sleep: the whole group goes.
        sleep.args(["-c", "sleep 30 & sleep 30"]);
        let finished = run_bounded(
            sleep,
            Duration::from_millis(200),
            &dir,
            "sleep",
            &confinement,
        )
        .unwrap();
        assert!(finished.timed_out());
        assert!(finished.duration < Duration::from_secs(5));
        let mut echo = Command::new("sh");
        echo.args(["-c", "echo out; echo err >&2; exit 3"]);
        let finished =
            run_bounded(echo, Duration::from_secs(10), &dir, "echo", &confinement).unwrap();
        assert_eq!(finished.status.and_then(|s| s.code()), Some(3));
        assert_eq!(finished.stdout, "out\n");
        assert_eq!(finished.tail(), "err");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_cancelled_process_is_killed_at_once() {
        let dir = std::env::temp_dir().join(format!("ctgls-process-cancel-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let limits = ExecutionLimits::default();
        let cancel = CancelToken::new();
        let confinement = Confinement {
            limits: &limits,
            writable: &[&dir],
            readable: &[],
            cancel: Some(&cancel),
        };
        let canceller = cancel.clone();
        let cancelled_at = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(200));
            canceller.cancel();
            Instant::now()
        });
        let mut sleep = Command::new("sh");
        sleep.args(["-c", "sleep 30 & sleep 30"]);
        let result = run_bounded(sleep, Duration::from_secs(60), &dir, "sleep", &confinement);
        let returned = Instant::now();
        assert!(
            matches!(result, Err(VerifyError::Cancelled { .. })),
            "{result:?}"
        );
        let after = returned - cancelled_at.join().unwrap();
        // One poll (50 ms) and a kill; generous for a loaded machine, far below the 30 s.
        assert!(after < Duration::from_secs(2), "{after:?}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
