//! Running a build tool: its output captured, bounded in time, its exit explained.

use std::io::Read;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// What a finished tool run printed.
pub struct ToolOutput {
    pub success: bool,
    /// stdout then stderr.
    pub text: String,
}

/// Runs `command` to its end or `timeout`, reading both output streams. `Err` when it could not
/// be started (not found) or ran out of time, in words for the user.
pub fn run(mut command: Command, timeout: Duration) -> Result<ToolOutput, String> {
    command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let program = Path::new(command.get_program()).display().to_string();
    let mut child = command.spawn().map_err(|error| {
        if error.kind() == std::io::ErrorKind::NotFound {
            format!("`{program}` was not found")
        } else {
            format!("`{program}` could not be started: {error}")
        }
    })?;
    // Both streams are drained on their own threads so that a full pipe never stalls the tool.
    let drain = |stream: Option<Box<dyn Read + Send>>| {
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            if let Some(mut stream) = stream {
                let _ = stream.read_to_end(&mut bytes);
            }
            String::from_utf8_lossy(&bytes).into_owned()
        })
    };
    let stdout = drain(
        child
            .stdout
            .take()
            .map(|s| Box::new(s) as Box<dyn Read + Send>),
    );
    let stderr = drain(
        child
            .stderr
            .take()
            .map(|s| Box::new(s) as Box<dyn Read + Send>),
    );
    let started = Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if started.elapsed() >= timeout => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!(
                    "`{program}` did not finish within {} s and was stopped",
                    timeout.as_secs()
                ));
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(20)),
            Err(error) => return Err(format!("waiting for `{program}`: {error}")),
        }
    };
    let mut text = stdout.join().unwrap_or_default();
    text.push_str(&stderr.join().unwrap_or_default());
    Ok(ToolOutput {
        success: status.success(),
        text,
    })
}

/// The lines of a tool's output that say what went wrong: `[ERROR]`/`[FATAL]` lines and
/// Gradle's `* What went wrong` block, without the boilerplate that follows them, ANSI colours
/// removed; at most `limit` lines.
pub fn error_lines(text: &str, limit: usize) -> Vec<String> {
    let mut lines = Vec::new();
    let mut in_gradle_block = false;
    for raw in text.lines() {
        let line = strip_ansi(raw);
        let line = line.trim_end();
        if line.starts_with("* What went wrong") {
            in_gradle_block = true;
            continue;
        }
        if in_gradle_block {
            if line.starts_with("* ") {
                in_gradle_block = false;
            } else if !line.trim().is_empty() {
                lines.push(line.trim().trim_start_matches("> ").to_string());
            }
            continue;
        }
        let message = line
            .strip_prefix("[ERROR]")
            .or_else(|| line.strip_prefix("[FATAL]"))
            .map(str::trim);
        let Some(message) = message else { continue };
        let boilerplate = message.is_empty()
            || message.starts_with("To see the full stack trace")
            || message.starts_with("Re-run Maven")
            || message.starts_with("For more information")
            || message.starts_with("[Help")
            || message.starts_with("-> [Help")
            || message.starts_with("After correcting the problems")
            || message.starts_with("mvn <args> -rf")
            || message.starts_with("The build could not read");
        if !boilerplate && !lines.iter().any(|l| l == message) {
            lines.push(message.to_string());
        }
    }
    lines.truncate(limit);
    lines
}

fn strip_ansi(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            // CSI: ESC [ parameters final-byte.
            for c in chars.by_ref() {
                if c.is_ascii_alphabetic() {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn maven_errors_without_boilerplate() {
        let output = "\u{1b}[1;31m[ERROR]\u{1b}[m Failed to execute goal on project b: Could not \
                      resolve dependencies for project com.acme:b:jar:1.0: Cannot access central \
                      in offline mode and the artifact org.x:y:jar:1.0 has not been downloaded \
                      from it before. -> [Help 1]\n[ERROR] \n[ERROR] To see the full stack trace \
                      of the errors, re-run Maven with the -e switch.\n[ERROR] Re-run Maven using \
                      the -X switch to enable full debug logging.\n[INFO] BUILD FAILURE\n";
        let lines = error_lines(output, 5);
        assert_eq!(lines.len(), 1, "{lines:?}");
        assert!(lines[0].starts_with("Failed to execute goal on project b"));
    }

    #[test]
    fn gradle_what_went_wrong() {
        let output = "FAILURE: Build failed with an exception.\n\n* What went wrong:\n\
                      Could not resolve all files for configuration ':compileClasspath'.\n\
                      > Could not find org.x:y:1.0.\n\n* Try:\n> Run with --stacktrace\n";
        assert_eq!(
            error_lines(output, 5),
            [
                "Could not resolve all files for configuration ':compileClasspath'.",
                "Could not find org.x:y:1.0."
            ]
        );
    }

    #[test]
    fn a_missing_program_is_named() {
        let error = run(
            Command::new("/nonexistent/ctgls-no-such-mvn"),
            Duration::from_secs(5),
        )
        .err()
        .unwrap();
        assert_eq!(error, "`/nonexistent/ctgls-no-such-mvn` was not found");
    }
}
