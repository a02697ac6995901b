//! Running javac and JVMs with a time limit: output goes to files in the scratch directory (so
//! a chatty process can never block on a full pipe), and a process still running at its
//! deadline is killed and reaped.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

/// How a bounded process ended.
#[derive(Debug)]
pub(crate) struct Finished {
    /// `None` when it was killed at the deadline.
    pub status: Option<ExitStatus>,
    pub stdout: String,
    pub stderr: String,
    pub duration: Duration,
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

/// Kills the child if the caller unwinds before it was reaped.
struct Reaper(Option<Child>);

impl Drop for Reaper {
    fn drop(&mut self) {
        if let Some(child) = &mut self.0 {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// Runs `command` to completion or until `timeout`, with stdin closed and stdout/stderr
/// captured in `<dir>/<label>.out` and `.err`.
pub(crate) fn run_bounded(
    mut command: Command,
    timeout: Duration,
    dir: &Path,
    label: &str,
) -> std::io::Result<Finished> {
    let out_path: PathBuf = dir.join(format!("{label}.out"));
    let err_path: PathBuf = dir.join(format!("{label}.err"));
    command
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(&out_path)?)
        .stderr(std::fs::File::create(&err_path)?);
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt;
        // Its own process group, like the worker: signals to ours do not reach it.
        command.process_group(0);
    }
    let start = Instant::now();
    let mut reaper = Reaper(Some(command.spawn()?));
    let child = reaper.0.as_mut().expect("just spawned");
    let mut pause = Duration::from_millis(5);
    let status = loop {
        if let Some(status) = child.try_wait()? {
            break Some(status);
        }
        if start.elapsed() >= timeout {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(pause);
        pause = (pause * 2).min(Duration::from_millis(50));
    };
    reaper.0 = None;
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
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_process_past_its_deadline_is_killed() {
        let dir = std::env::temp_dir().join(format!("ctgls-process-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let mut sleep = Command::new("sleep");
        sleep.arg("30");
        let finished = run_bounded(sleep, Duration::from_millis(200), &dir, "sleep").unwrap();
        assert!(finished.timed_out());
        assert!(finished.duration < Duration::from_secs(5));
        let mut echo = Command::new("sh");
        echo.args(["-c", "echo out; echo err >&2; exit 3"]);
        let finished = run_bounded(echo, Duration::from_secs(10), &dir, "echo").unwrap();
        assert_eq!(finished.status.and_then(|s| s.code()), Some(3));
        assert_eq!(finished.stdout, "out\n");
        assert_eq!(finished.tail(), "err");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
