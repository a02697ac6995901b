//! What code under test sees of the developer's machine through its process: a scrubbed
//! environment (a short allow-list of variables, neutral `HOME`, `USER`, `LOGNAME`, `TMPDIR`,
//! `PATH`), the JVM's `user.name`, `user.home` and `java.io.tmpdir` pointed at neutral values
//! inside the process's scratch directory, and the variables a project asks to pass through.
//!
//! Two identities exist so that values that come from the machine can be told apart from the
//! code's own: emission observes its tests once as [`Identity::Primary`] and once as
//! [`Identity::Alternate`] (another user name, home, host name and other values for every
//! variable), and a value that differs becomes a comment instead of an assertion
//! (docs/emission.md). Applied on every platform, sandbox or not.

use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};
use std::process::Command;

/// Which neutral machine a process that runs code under test is shown.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum Identity {
    /// What the search and verification see.
    #[default]
    Primary,
    /// Another user, home, host name and variable values: what emission's second observation
    /// sees, so that whatever the code read from them differs between the two observations.
    Alternate,
}

impl Identity {
    /// `user.name`, `USER` and `LOGNAME`.
    pub fn user_name(self) -> &'static str {
        match self {
            Identity::Primary => "user",
            Identity::Alternate => "tester",
        }
    }

    /// The host name of the process's own UTS namespace (Linux, where the kernel allows one).
    /// `localhost` makes `InetAddress.getLocalHost()` answer the loopback address without a
    /// name lookup; the alternate name resolves nowhere, so code that depends on it differs.
    pub fn host_name(self) -> &'static str {
        match self {
            Identity::Primary => "localhost",
            Identity::Alternate => "ctgls-alternate-host",
        }
    }

    /// The home directory's name inside the scratch directory.
    fn home_dir(self) -> &'static str {
        match self {
            Identity::Primary => "home",
            Identity::Alternate => "home-alternate",
        }
    }

    /// `PATH`: the system's directories only (a developer's `PATH` names their home, and with
    /// it their user name), in another order for the alternate identity.
    fn path(self) -> &'static str {
        match (self, cfg!(windows)) {
            (_, true) => "",
            (Identity::Primary, false) => "/usr/local/bin:/usr/bin:/bin",
            (Identity::Alternate, false) => "/usr/bin:/bin:/usr/local/bin",
        }
    }

    /// What a variable passed through with `passEnvironment` holds for the alternate
    /// identity (the primary one gets its real value).
    fn alternate_value(name: &str) -> String {
        format!("ctgls-alternate-{}", name.to_ascii_lowercase())
    }
}

/// Variables passed through unchanged because the JVM and the C library read them for the
/// locale and the time zone, which decide how the JVM prints numbers and dates: `LANG`,
/// `LC_*`, `TZ`. Nothing else of the developer's environment is: not `JAVA_HOME` (the JVM finds
/// itself), `CLASSPATH` or the `*JAVA_OPTIONS` variables (ctgls gives the JVM its options),
/// `LD_LIBRARY_PATH` (the JDK finds its libraries by itself), nor any credential.
const LOCALE_VARIABLES: &[&str] = &["LANG", "LC_*", "TZ"];

/// What Windows programs need to run at all: the system directory (the JVM loads its DLLs and
/// Winsock from it), the command interpreter and executable extensions.
#[cfg(windows)]
const WINDOWS_SYSTEM_VARIABLES: &[&str] = &[
    "SystemRoot",
    "windir",
    "SystemDrive",
    "ComSpec",
    "PATHEXT",
    "NUMBER_OF_PROCESSORS",
    "PROCESSOR_ARCHITECTURE",
    "OS",
];

/// Variables never given another value for the alternate identity: they change how the
/// dynamic loader, the C library or the JVM itself start, so a decoy value would break the
/// process rather than show what the code read.
const NEVER_DECOYED: &[&str] = &[
    "LD_*",
    "DYLD_*",
    "MALLOC_*",
    "GLIBC_*",
    "JAVA_TOOL_OPTIONS",
    "_JAVA_OPTIONS",
    "JDK_JAVA_OPTIONS",
    "CLASSPATH",
    "JAVA_HOME",
];

/// The environment policy of processes that run code under test.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ProcessEnvironment {
    /// Names or glob patterns (`*` any run of characters, `?` one) of the developer's
    /// variables passed through with their values (`passEnvironment`): for projects whose code
    /// needs them. Their values can end up asserted in written tests.
    pub pass: Vec<String>,
    pub identity: Identity,
    /// Variables set for this process whatever the developer's environment holds, after
    /// everything else (they replace a variable of the same name): verification's perturbed
    /// runs give `LD_PRELOAD` and the clock offset of ctgls's clock-shift library this way.
    pub extra: Vec<(String, String)>,
}

impl ProcessEnvironment {
    /// The home directory of a process whose scratch directory is `scratch`.
    pub fn home(&self, scratch: &Path) -> PathBuf {
        scratch.join(self.identity.home_dir())
    }

    /// Its temporary directory.
    pub fn temp_dir(&self, scratch: &Path) -> PathBuf {
        scratch.join("tmp")
    }

    /// Creates the home and temporary directories inside `scratch`.
    pub fn create_dirs(&self, scratch: &Path) -> std::io::Result<()> {
        std::fs::create_dir_all(self.home(scratch))?;
        std::fs::create_dir_all(self.temp_dir(scratch))
    }

    /// The system properties that hold the identity in a JVM (which reads the user name and
    /// home from the password database, not from the environment): `user.name`, `user.home`,
    /// `java.io.tmpdir`. They go before the main class on a `java` command line.
    pub fn jvm_properties(&self, scratch: &Path) -> Vec<String> {
        vec![
            format!("-Duser.name={}", self.identity.user_name()),
            format!("-Duser.home={}", self.home(scratch).display()),
            format!("-Djava.io.tmpdir={}", self.temp_dir(scratch).display()),
        ]
    }

    /// Replaces the environment of `command` with the scrubbed one for a process whose scratch
    /// directory is `scratch` (call [`ProcessEnvironment::create_dirs`] first), taking the
    /// values passed through from ctgls's own environment.
    pub fn apply(&self, command: &mut Command, scratch: &Path) {
        command.env_clear();
        for (name, value) in self.variables(std::env::vars_os(), scratch) {
            command.env(name, value);
        }
    }

    /// The variables of the process, given the developer's `outer` environment.
    pub fn variables(
        &self,
        outer: impl Iterator<Item = (OsString, OsString)>,
        scratch: &Path,
    ) -> Vec<(OsString, OsString)> {
        let home = self.home(scratch).into_os_string();
        let tmp = self.temp_dir(scratch).into_os_string();
        let user = OsString::from(self.identity.user_name());
        let mut out: Vec<(OsString, OsString)> = Vec::new();
        let mut path = OsString::from(self.identity.path());
        for (name, value) in outer {
            let Some(text) = name.to_str().map(str::to_owned) else {
                continue;
            };
            let text = text.as_str();
            if is_neutral(text) {
                // Ours whatever `passEnvironment` says: they name the developer.
                continue;
            }
            if matches_any(LOCALE_VARIABLES, text) {
                out.push((name, value));
            } else if matches_any(&self.pass, text) {
                match self.identity {
                    Identity::Primary => out.push((name, value)),
                    Identity::Alternate => {
                        out.push((name, Identity::alternate_value(text).into()));
                    }
                }
            } else if cfg!(windows) && is_windows_system(text) {
                if text.eq_ignore_ascii_case("SystemRoot") {
                    path = windows_path(&value);
                }
                out.push((name, value));
            } else if self.identity == Identity::Alternate && !matches_any(NEVER_DECOYED, text) {
                // Every variable the developer has, with another value: code that reads one
                // sees null in the primary observation and this in the alternate one, so
                // what it computed from it differs and is not asserted (a test asserting the
                // null would fail where the developer runs it, with the variable set).
                out.push((name, Identity::alternate_value(text).into()));
            }
        }
        for (name, value) in [
            ("HOME", home.clone()),
            ("USER", user.clone()),
            ("LOGNAME", user.clone()),
            ("TMPDIR", tmp.clone()),
            ("PATH", path),
        ] {
            if !(cfg!(windows) && name == "PATH" && value.is_empty()) {
                out.push((name.into(), value));
            }
        }
        if cfg!(windows) {
            out.push(("USERPROFILE".into(), home));
            out.push(("USERNAME".into(), user));
            out.push(("TEMP".into(), tmp.clone()));
            out.push(("TMP".into(), tmp));
        }
        out.retain(|(name, _)| !self.extra.iter().any(|(extra, _)| name == extra.as_str()));
        out.extend(
            self.extra
                .iter()
                .map(|(name, value)| (name.into(), value.into())),
        );
        out.sort();
        out.dedup_by(|a, b| a.0 == b.0);
        out
    }
}

/// The variables ctgls itself sets (their neutral value stands for both identities).
fn is_neutral(name: &str) -> bool {
    [
        "HOME",
        "USER",
        "LOGNAME",
        "TMPDIR",
        "PATH",
        "USERPROFILE",
        "USERNAME",
        "TEMP",
        "TMP",
    ]
    .iter()
    .any(|n| n.eq_ignore_ascii_case(name))
}

#[cfg(windows)]
fn is_windows_system(name: &str) -> bool {
    WINDOWS_SYSTEM_VARIABLES
        .iter()
        .any(|n| n.eq_ignore_ascii_case(name))
}

#[cfg(not(windows))]
fn is_windows_system(_name: &str) -> bool {
    false
}

/// `PATH` on Windows: the system directories under `SystemRoot` only.
fn windows_path(system_root: &OsStr) -> OsString {
    let root = system_root.to_string_lossy();
    format!("{root}\\system32;{root};{root}\\System32\\Wbem").into()
}

/// Whether `name` matches one of `patterns` (names, or globs with `*` and `?`). Windows
/// variable names are case-insensitive, so there the match is too.
pub fn matches_any(patterns: &[impl AsRef<str>], name: &str) -> bool {
    patterns.iter().any(|p| {
        if cfg!(windows) {
            glob(
                p.as_ref().to_ascii_uppercase().as_bytes(),
                name.to_ascii_uppercase().as_bytes(),
            )
        } else {
            glob(p.as_ref().as_bytes(), name.as_bytes())
        }
    })
}

/// Glob matching with `*` (any run, empty included) and `?` (one byte).
fn glob(pattern: &[u8], name: &[u8]) -> bool {
    match (pattern.first(), name.first()) {
        (None, None) => true,
        (Some(b'*'), _) => {
            glob(&pattern[1..], name) || (!name.is_empty() && glob(pattern, &name[1..]))
        }
        (Some(b'?'), Some(_)) => glob(&pattern[1..], &name[1..]),
        (Some(p), Some(n)) if p == n => glob(&pattern[1..], &name[1..]),
        _ => false,
    }
}

/// Checks a `passEnvironment` list: every entry a name or glob of letters, digits, `_`, `*`
/// and `?`. The message says which entry is wrong.
pub fn check_patterns(patterns: &[String]) -> Result<(), String> {
    for p in patterns {
        let valid = !p.is_empty()
            && p.bytes()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'*' | b'?' | b'.'));
        if !valid {
            return Err(format!(
                "`{p}` is not an environment variable name or pattern (letters, digits, `_`, \
                 `*` and `?`)"
            ));
        }
        if p.bytes().all(|b| b == b'*' || b == b'?') {
            return Err(format!(
                "`{p}` would pass the whole environment, secrets included: name the variables"
            ));
        }
    }
    Ok(())
}

/// The warning a user who passes variables through gets.
pub fn pass_warning(patterns: &[String]) -> Option<String> {
    (!patterns.is_empty()).then(|| {
        format!(
            "passEnvironment: code under test sees the values of {}; a value it returns can be \
             asserted in written tests (ctgls gives these variables other values in a second \
             observation and asserts only what did not change, but a value the code does not \
             return directly can still leak): do not pass secrets",
            patterns.join(", ")
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn outer() -> Vec<(OsString, OsString)> {
        [
            ("HOME", "/home/alice"),
            ("USER", "alice"),
            ("PATH", "/home/alice/bin:/usr/bin"),
            ("LANG", "de_DE.UTF-8"),
            ("LC_TIME", "fr_FR.UTF-8"),
            ("TZ", "Europe/Berlin"),
            ("API_TOKEN", "sk-live-123"),
            ("MYAPP_URL", "https://example.org"),
            ("JAVA_TOOL_OPTIONS", "-Xmx1g"),
            ("LD_PRELOAD", "/x.so"),
        ]
        .iter()
        .map(|(n, v)| (OsString::from(n), OsString::from(v)))
        .collect()
    }

    fn render(vars: &[(OsString, OsString)]) -> String {
        vars.iter()
            .map(|(n, v)| format!("{}={}", n.to_string_lossy(), v.to_string_lossy()))
            .collect::<Vec<_>>()
            .join("\n")
    }

    #[cfg(unix)]
    #[test]
    fn the_primary_identity_keeps_the_locale_and_nothing_of_the_developer() {
        let env = ProcessEnvironment::default();
        let vars = render(&env.variables(outer().into_iter(), Path::new("/s")));
        assert_eq!(
            vars,
            "HOME=/s/home\nLANG=de_DE.UTF-8\nLC_TIME=fr_FR.UTF-8\nLOGNAME=user\n\
             PATH=/usr/local/bin:/usr/bin:/bin\nTMPDIR=/s/tmp\nTZ=Europe/Berlin\nUSER=user"
        );
    }

    #[cfg(unix)]
    #[test]
    fn passed_variables_keep_their_value_only_for_the_primary_identity() {
        let env = ProcessEnvironment {
            pass: vec!["MYAPP_*".into()],
            identity: Identity::Primary,
            extra: Vec::new(),
        };
        let vars = render(&env.variables(outer().into_iter(), Path::new("/s")));
        assert!(vars.contains("MYAPP_URL=https://example.org"), "{vars}");
        assert!(!vars.contains("sk-live"), "{vars}");
        // Extra variables are set whatever the developer has, replacing a variable of that name.
        let perturbed = ProcessEnvironment {
            extra: vec![
                ("TZ".into(), "Asia/Tokyo".into()),
                ("LD_PRELOAD".into(), "/c/l.so".into()),
            ],
            ..env.clone()
        };
        let vars = render(&perturbed.variables(outer().into_iter(), Path::new("/s")));
        assert!(vars.contains("TZ=Asia/Tokyo\n"), "{vars}");
        assert!(!vars.contains("Europe/Berlin"), "{vars}");
        assert!(vars.contains("LD_PRELOAD=/c/l.so"), "{vars}");
        let alternate = ProcessEnvironment {
            identity: Identity::Alternate,
            ..env
        };
        let vars = render(&alternate.variables(outer().into_iter(), Path::new("/s")));
        assert!(
            vars.contains("MYAPP_URL=ctgls-alternate-myapp_url"),
            "{vars}"
        );
        // Every other variable of the developer's gets a decoy value, so code reading it
        // sees something else than in the primary observation; the loader's and the JVM's
        // own variables do not.
        assert!(
            vars.contains("API_TOKEN=ctgls-alternate-api_token"),
            "{vars}"
        );
        assert!(vars.contains("HOME=/s/home-alternate"), "{vars}");
        assert!(vars.contains("USER=tester"), "{vars}");
        for kept_out in ["sk-live", "alice", "JAVA_TOOL_OPTIONS", "LD_PRELOAD"] {
            assert!(!vars.contains(kept_out), "{kept_out}: {vars}");
        }
    }

    #[test]
    fn globs() {
        assert!(matches_any(&["LC_*"], "LC_ALL"));
        assert!(matches_any(&["LC_*"], "LC_"));
        assert!(!matches_any(&["LC_*"], "XLC_ALL"));
        assert!(matches_any(&["A?C"], "ABC"));
        assert!(!matches_any(&["A?C"], "AC"));
        assert!(matches_any(&["*_URL"], "MYAPP_URL"));
        assert!(!matches_any(&[] as &[&str], "X"));
    }

    #[test]
    fn patterns_are_checked() {
        assert!(check_patterns(&["MYAPP_*".into(), "DB_URL".into()]).is_ok());
        assert!(check_patterns(&["*".into()])
            .unwrap_err()
            .contains("whole environment"));
        assert!(check_patterns(&["A B".into()])
            .unwrap_err()
            .contains("`A B`"));
        assert!(check_patterns(&["".into()]).is_err());
    }

    #[test]
    fn jvm_properties_point_inside_the_scratch_directory() {
        let env = ProcessEnvironment {
            identity: Identity::Alternate,
            ..ProcessEnvironment::default()
        };
        let scratch = Path::new("scratch");
        assert_eq!(
            env.jvm_properties(scratch),
            vec![
                "-Duser.name=tester".to_string(),
                format!("-Duser.home={}", scratch.join("home-alternate").display()),
                format!("-Djava.io.tmpdir={}", scratch.join("tmp").display()),
            ]
        );
    }
}
