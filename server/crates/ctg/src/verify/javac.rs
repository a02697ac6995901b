//! Compiling with the JDK's `javac` (a separate process: verification uses the same compiler a
//! build would, not the worker's in-memory one) and reading its error lines.
//!
//! javac runs with `-proc:none`, so no annotation processor (nor any other class) from the
//! project's classpath is loaded into it; it still runs under the sandbox, writing only to its
//! class directory, in case a future option lets project code in.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use jvm::{ExecutionLimits, Jdk};
use search::CancelToken;

use super::process::{run_bounded, Confinement};
use super::VerifyError;

/// Up to this many source files, javac runs without the optimising JIT.
const SMALL_COMPILE: usize = 100;

/// One javac error.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JavacError {
    pub file: Option<PathBuf>,
    /// 1-based.
    pub line: Option<u32>,
    pub message: String,
}

impl std::fmt::Display for JavacError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match (&self.file, self.line) {
            (Some(file), Some(line)) => write!(f, "{}:{line}: {}", file.display(), self.message),
            _ => f.write_str(&self.message),
        }
    }
}

/// A javac invocation.
pub(crate) struct Javac<'a> {
    pub jdk: &'a Jdk,
    pub classpath: &'a [PathBuf],
    pub out_dir: &'a Path,
    pub release: Option<u32>,
    pub timeout: Duration,
    /// Where the argument file and the output logs go.
    pub scratch: &'a Path,
    pub label: &'a str,
    pub limits: &'a ExecutionLimits,
    /// Options for javac's own JVM (each passed as `-J<option>`): a class data sharing
    /// archive to map, or to make.
    pub jvm_options: &'a [String],
    /// Kills javac when cancelled (`process::Confinement::cancel`).
    pub cancel: Option<&'a CancelToken>,
}

impl Javac<'_> {
    /// Compiles `sources`; `Ok(errors)` (empty on success) when javac ran.
    pub(crate) fn compile(&self, sources: &[PathBuf]) -> Result<Vec<JavacError>, VerifyError> {
        let io = |what: &str, source| VerifyError::Io {
            what: format!("{what} ({})", self.label),
            source,
        };
        std::fs::create_dir_all(self.out_dir).map_err(|e| io("creating the class directory", e))?;
        // An argument file keeps long source lists and class paths off the command line.
        let mut args = vec![
            "-d".to_string(),
            quote(&self.out_dir.to_string_lossy()),
            "-encoding".into(),
            "UTF-8".into(),
            "-proc:none".into(),
            "-g".into(),
            "-nowarn".into(),
            "-Xmaxerrs".into(),
            "10000".into(),
        ];
        if !self.classpath.is_empty() {
            args.push("-cp".into());
            args.push(quote(&join_paths(self.classpath)));
        }
        if let Some(release) = self.release {
            args.push("--release".into());
            args.push(release.to_string());
        }
        args.extend(sources.iter().map(|s| quote(&s.to_string_lossy())));
        let argfile = self.scratch.join(format!("{}.args", self.label));
        std::fs::write(&argfile, args.join("\n"))
            .map_err(|e| io("writing the javac arguments", e))?;
        let mut command = Command::new(&self.jdk.javac);
        // English messages, whatever the user's locale: the error lines are parsed.
        command
            .arg("-J-Duser.language=en")
            .arg("-J-Duser.country=US")
            // No hsperfdata file in /tmp, which the sandbox does not let it write.
            .arg("-J-XX:-UsePerfData");
        if sources.len() <= SMALL_COMPILE {
            // Measured: a test class and a few sources compile in 1.3 s instead of 2.4 s when
            // the compiler's JVM skips the optimising JIT, which only pays off on big builds.
            command.args([
                "-J-XX:TieredStopAtLevel=1",
                "-J-XX:+UseSerialGC",
                "-J-Xshare:auto",
            ]);
        }
        command.args(self.jvm_options.iter().map(|o| format!("-J{o}")));
        command.arg(format!("@{}", argfile.display()));
        // javac reads its class path, the sources and its argument file, and nothing else.
        let mut readable: Vec<&Path> = self.classpath.iter().map(PathBuf::as_path).collect();
        readable.extend(sources.iter().map(PathBuf::as_path));
        readable.push(self.scratch);
        let confinement = Confinement {
            limits: self.limits,
            writable: &[self.out_dir],
            readable: &readable,
            cancel: self.cancel,
        };
        let finished = run_bounded(
            command,
            self.timeout,
            self.scratch,
            self.label,
            &confinement,
        )?;
        if finished.timed_out() {
            return Err(VerifyError::TimedOut {
                what: format!("javac ({})", self.label),
                after: self.timeout,
            });
        }
        let errors = parse_errors(&finished.stderr);
        if finished.success() {
            return Ok(Vec::new());
        }
        if errors.is_empty() {
            return Ok(vec![JavacError {
                file: None,
                line: None,
                message: finished.tail(),
            }]);
        }
        Ok(errors)
    }
}

/// The `--release` values a JDK's javac accepts: JDK 9 to 11 go back to 6, 12 to 19 to 7,
/// 20 and later to 8, and each stops at its own release.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SupportedReleases {
    pub oldest: u32,
    pub newest: u32,
}

impl SupportedReleases {
    /// The release closest to `wanted` that javac compiles for.
    pub fn closest(self, wanted: u32) -> u32 {
        wanted.clamp(self.oldest, self.newest)
    }

    /// What javac's `--help` says after `Supported releases:` (`7, 8, 9, ..., 17`).
    pub fn from_help(help: &str) -> Option<SupportedReleases> {
        let list = help.split_once("Supported releases:")?.1;
        let mut releases = Vec::new();
        for item in list.split(',') {
            let item = item.trim();
            let digits: String = item.chars().take_while(char::is_ascii_digit).collect();
            let Ok(release) = digits.parse::<u32>() else {
                break;
            };
            releases.push(release);
            if digits.len() != item.len() {
                // The list ended inside this item (`17\n  -s <directory> ...`).
                break;
            }
        }
        Some(SupportedReleases {
            oldest: *releases.iter().min()?,
            newest: *releases.iter().max()?,
        })
    }

    /// The known range of a JDK by its feature release, for a javac whose help says nothing.
    pub fn of_feature(feature: u32) -> SupportedReleases {
        let oldest = match feature {
            0..=11 => 6,
            12..=19 => 7,
            _ => 8,
        };
        SupportedReleases {
            oldest: oldest.min(feature),
            newest: feature,
        }
    }
}

/// The releases `jdk`'s javac supports, asked once per javac and process (`javac --help`, a
/// fraction of a second; the JDK's version table when that fails).
pub fn supported_releases(jdk: &Jdk) -> SupportedReleases {
    static KNOWN: std::sync::Mutex<Vec<(PathBuf, SupportedReleases)>> =
        std::sync::Mutex::new(Vec::new());
    let mut known = KNOWN
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    if let Some((_, found)) = known.iter().find(|(javac, _)| *javac == jdk.javac) {
        return *found;
    }
    let asked = Command::new(&jdk.javac)
        .args(["-J-Duser.language=en", "-J-Duser.country=US", "--help"])
        .stdin(std::process::Stdio::null())
        .output()
        .ok()
        .and_then(|out| {
            let text = String::from_utf8_lossy(&out.stdout).into_owned()
                + &String::from_utf8_lossy(&out.stderr);
            SupportedReleases::from_help(&text)
        });
    let found = asked.unwrap_or_else(|| SupportedReleases::of_feature(jdk.version.feature));
    known.push((jdk.javac.clone(), found));
    found
}

/// `options` with the releases the JDK's javac cannot compile for replaced by the closest it
/// can (a release newer than the JDK: its own; an older one than it supports: its oldest).
pub(crate) fn supported_levels(jdk: &Jdk, options: &super::VerifyOptions) -> super::VerifyOptions {
    let supported = supported_releases(jdk);
    let mut options = options.clone();
    options.release = options.release.map(|r| supported.closest(r));
    options.main_release = options.main_release.map(|r| supported.closest(r));
    options
}

/// javac's `path:line: error: message` lines.
pub(crate) fn parse_errors(stderr: &str) -> Vec<JavacError> {
    let mut out = Vec::new();
    for line in stderr.lines() {
        if let Some((location, message)) = line.split_once(": error: ") {
            let (file, line_no) = match location.rsplit_once(':') {
                Some((file, n)) if n.chars().all(|c| c.is_ascii_digit()) => {
                    (Some(PathBuf::from(file)), n.parse().ok())
                }
                _ => (None, None),
            };
            out.push(JavacError {
                file,
                line: line_no,
                message: message.to_string(),
            });
        } else if let Some(message) = line.strip_prefix("error: ") {
            out.push(JavacError {
                file: None,
                line: None,
                message: message.to_string(),
            });
        }
    }
    out
}

/// A class path: `paths` joined with the platform's separator (`;` on Windows, where `:` follows
/// every drive letter).
pub(crate) fn join_paths(paths: &[PathBuf]) -> String {
    const SEPARATOR: &str = if cfg!(windows) { ";" } else { ":" };
    paths
        .iter()
        .map(|p| p.to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join(SEPARATOR)
}

/// An argument-file token: quoted, with backslashes and quotes escaped.
fn quote(s: &str) -> String {
    format!("\"{}\"", s.replace('\\', "\\\\").replace('"', "\\\""))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn supported_releases_from_javac_help() {
        let help = "  --release <release>\n        Compile for the specified Java SE release. Supported releases: 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17\n  -s <directory>   Specify where\n";
        let supported = SupportedReleases::from_help(help).unwrap();
        assert_eq!(
            supported,
            SupportedReleases {
                oldest: 7,
                newest: 17
            }
        );
        assert_eq!(supported.closest(5), 7);
        assert_eq!(supported.closest(11), 11);
        assert_eq!(supported.closest(21), 17);
        let help = "Supported releases: \n    8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21\n  --source";
        assert_eq!(
            SupportedReleases::from_help(help),
            Some(SupportedReleases {
                oldest: 8,
                newest: 21
            })
        );
        assert_eq!(SupportedReleases::from_help("Usage: javac"), None);
        assert_eq!(SupportedReleases::of_feature(17).oldest, 7);
        assert_eq!(SupportedReleases::of_feature(25).oldest, 8);
    }

    #[test]
    fn the_running_javac_is_asked() {
        let Ok(jdk) = Jdk::locate(None) else {
            return;
        };
        let supported = supported_releases(&jdk);
        assert_eq!(supported.newest, jdk.version.feature);
        assert_eq!(
            supported.oldest,
            SupportedReleases::of_feature(jdk.version.feature).oldest,
            "javac's help agrees with the table"
        );
    }

    #[test]
    fn error_lines_give_file_line_and_message() {
        let stderr = "/tmp/a/B.java:12: error: cannot find symbol\n    foo();\n    ^\n  symbol: method foo()\nerror: invalid flag: -x\n1 error\n";
        let errors = parse_errors(stderr);
        assert_eq!(errors.len(), 2);
        assert_eq!(errors[0].file, Some(PathBuf::from("/tmp/a/B.java")));
        assert_eq!(errors[0].line, Some(12));
        assert_eq!(errors[0].message, "cannot find symbol");
        assert_eq!(errors[1].file, None);
        assert_eq!(errors[1].message, "invalid flag: -x");
    }
}
