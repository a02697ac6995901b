//! Finding the user's JDK: an explicit home, then `JAVA_HOME`, then `javac` on `PATH`.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::error::JdkError;

/// The oldest Java feature release the worker supports.
pub const MINIMUM_JAVA: u32 = 11;

/// A located JDK whose `java` and `javac` were checked to be Java 11 or newer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Jdk {
    /// The JDK home (parent of `bin/`).
    pub home: PathBuf,
    pub java: PathBuf,
    pub javac: PathBuf,
    pub version: JavaVersion,
}

/// A Java version as reported by the JDK, e.g. `17.0.15` with feature release 17.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JavaVersion {
    pub feature: u32,
    pub full: String,
}

impl Jdk {
    /// Finds a JDK: `explicit_home` when given, else `JAVA_HOME`, else `javac` on `PATH`.
    pub fn locate(explicit_home: Option<&Path>) -> Result<Jdk, JdkError> {
        Jdk::locate_in(
            explicit_home,
            std::env::var_os("JAVA_HOME").as_deref(),
            std::env::var_os("PATH").as_deref(),
        )
    }

    /// [`Jdk::locate`] with the environment's `JAVA_HOME` and `PATH` given. A `JAVA_HOME` that is
    /// set but holds no usable JDK is an error naming it, as Maven and Gradle make it, rather
    /// than a silent switch to another JDK on `PATH`.
    pub fn locate_in(
        explicit_home: Option<&Path>,
        java_home: Option<&OsStr>,
        path: Option<&OsStr>,
    ) -> Result<Jdk, JdkError> {
        if let Some(home) = explicit_home {
            return Jdk::at_home(home);
        }
        if let Some(home) = java_home.filter(|h| !h.is_empty()) {
            return Jdk::at_home(Path::new(home)).map_err(|error| match error {
                JdkError::NotFound { searched } => JdkError::NotFound {
                    searched: format!("JAVA_HOME is {}: {searched}", Path::new(home).display()),
                },
                other => other,
            });
        }
        let javac = path
            .and_then(|p| find_on_path(p, OsStr::new(&executable("javac"))))
            .ok_or_else(|| JdkError::NotFound {
                searched: "JAVA_HOME is not set and no `javac` on PATH".into(),
            })?;
        // PATH usually holds a symlink chain (/usr/bin/javac -> /etc/alternatives -> JDK).
        let real = std::fs::canonicalize(&javac).unwrap_or(javac);
        let home = real
            .parent()
            .and_then(Path::parent)
            .ok_or_else(|| JdkError::NotFound {
                searched: format!("no JDK home above {}", real.display()),
            })?;
        Jdk::at_home(home)
    }

    /// Checks the JDK at `home`: both tools present and the version at least [`MINIMUM_JAVA`].
    pub fn at_home(home: &Path) -> Result<Jdk, JdkError> {
        let java = tool(home, "java");
        let javac = tool(home, "javac");
        if !java.is_file() {
            return Err(JdkError::NotFound {
                searched: format!("{} does not exist", java.display()),
            });
        }
        if !javac.is_file() {
            return Err(JdkError::NoCompiler { home: home.into() });
        }
        let version = read_release_file(home).map_or_else(|| run_java_version(&java), Ok)?;
        if version.feature < MINIMUM_JAVA {
            return Err(JdkError::TooOld {
                found: version.full,
                required: MINIMUM_JAVA,
                home: home.into(),
            });
        }
        Ok(Jdk {
            home: home.into(),
            java,
            javac,
            version,
        })
    }
}

/// The JDK tool `name` of the JDK at `home` (`bin/java`, `bin\java.exe` on Windows).
pub(crate) fn tool(home: &Path, name: &str) -> PathBuf {
    home.join("bin").join(executable(name))
}

/// The file name of the program `name` on this platform.
fn executable(name: &str) -> String {
    format!("{name}{}", std::env::consts::EXE_SUFFIX)
}

fn find_on_path(path: &OsStr, tool: &OsStr) -> Option<PathBuf> {
    std::env::split_paths(path)
        .map(|dir| dir.join(tool))
        .find(|candidate| candidate.is_file())
}

/// `JAVA_VERSION="17.0.15"` from the JDK's `release` file: no process start needed.
fn read_release_file(home: &Path) -> Option<JavaVersion> {
    let text = std::fs::read_to_string(home.join("release")).ok()?;
    let line = text.lines().find(|l| l.starts_with("JAVA_VERSION="))?;
    let value = line["JAVA_VERSION=".len()..].trim().trim_matches('"');
    parse_version(value)
}

fn run_java_version(java: &Path) -> Result<JavaVersion, JdkError> {
    let out =
        Command::new(java)
            .arg("-version")
            .output()
            .map_err(|e| JdkError::VersionUnreadable {
                path: java.into(),
                output: e.to_string(),
            })?;
    // `java -version` prints to stderr: `openjdk version "17.0.15" 2025-04-15`.
    let text = String::from_utf8_lossy(&out.stderr).into_owned();
    text.split('"')
        .nth(1)
        .and_then(parse_version)
        .ok_or(JdkError::VersionUnreadable {
            path: java.into(),
            output: text,
        })
}

/// Parses `17.0.15`, `21`, `11.0.2+9` and the legacy `1.8.0_292` (feature 8).
pub fn parse_version(text: &str) -> Option<JavaVersion> {
    let mut parts = text.split(|c: char| !c.is_ascii_digit());
    let first: u32 = parts.next()?.parse().ok()?;
    let feature = if first == 1 {
        parts.next()?.parse().ok()?
    } else {
        first
    };
    Some(JavaVersion {
        feature,
        full: text.to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_modern_and_legacy_versions() {
        assert_eq!(parse_version("17.0.15").map(|v| v.feature), Some(17));
        assert_eq!(parse_version("21").map(|v| v.feature), Some(21));
        assert_eq!(parse_version("11.0.2+9").map(|v| v.feature), Some(11));
        assert_eq!(parse_version("1.8.0_292").map(|v| v.feature), Some(8));
        assert_eq!(parse_version("abc"), None);
    }

    #[test]
    fn too_old_jdk_is_a_typed_error() {
        let dir = std::env::temp_dir().join(format!("ctgls-jdk8-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("bin")).unwrap();
        std::fs::write(tool(&dir, "java"), "").unwrap();
        std::fs::write(tool(&dir, "javac"), "").unwrap();
        std::fs::write(dir.join("release"), "JAVA_VERSION=\"1.8.0_292\"\n").unwrap();
        let err = Jdk::at_home(&dir).unwrap_err();
        std::fs::remove_dir_all(&dir).unwrap();
        assert!(
            matches!(err, JdkError::TooOld { required: 11, .. }),
            "{err}"
        );
        assert!(err.to_string().contains("1.8.0_292"), "{err}");
    }

    /// The JDK these tests run with, found as users' are.
    fn this_jdk() -> Jdk {
        Jdk::locate(None).expect("the tests need a JDK")
    }

    fn temp_dir(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("ctgls-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[cfg(unix)]
    #[test]
    fn without_java_home_the_jdk_of_javac_on_path_is_found_through_links() {
        let jdk = this_jdk();
        // PATH as distributions make it: a directory without javac first, then one whose
        // javac is a link into the JDK (as /usr/bin/javac -> /etc/alternatives/... is).
        let empty = temp_dir("path-empty");
        let links = temp_dir("path-links");
        std::os::unix::fs::symlink(&jdk.javac, links.join("javac")).unwrap();
        let path = std::env::join_paths([&empty, &links]).unwrap();
        let found = Jdk::locate_in(None, None, Some(&path)).unwrap();
        assert_eq!(
            std::fs::canonicalize(&found.home).unwrap(),
            std::fs::canonicalize(&jdk.home).unwrap()
        );
        assert_eq!(found.version, jdk.version);
        // An empty JAVA_HOME counts as unset.
        assert!(Jdk::locate_in(None, Some(OsStr::new("")), Some(&path)).is_ok());
        let none = Jdk::locate_in(None, None, Some(empty.as_os_str())).unwrap_err();
        assert!(none.to_string().contains("no `javac` on PATH"), "{none}");
        std::fs::remove_dir_all(empty).unwrap();
        std::fs::remove_dir_all(links).unwrap();
    }

    #[test]
    fn java_home_comes_before_path_and_a_wrong_one_is_named() {
        let jdk = this_jdk();
        let empty = temp_dir("path-none");
        let path = std::env::join_paths([jdk.home.join("bin")]).unwrap();
        let wrong = Jdk::locate_in(None, Some(empty.as_os_str()), Some(&path)).unwrap_err();
        assert!(matches!(wrong, JdkError::NotFound { .. }), "{wrong}");
        assert!(
            wrong
                .to_string()
                .contains(&format!("JAVA_HOME is {}", empty.display())),
            "{wrong}"
        );
        let home = Jdk::locate_in(None, Some(jdk.home.as_os_str()), None).unwrap();
        assert_eq!(home.home, jdk.home);
        // The explicit setting comes before both.
        let explicit = Jdk::locate_in(Some(&jdk.home), Some(empty.as_os_str()), None).unwrap();
        assert_eq!(explicit.home, jdk.home);
        std::fs::remove_dir_all(empty).unwrap();
    }

    #[test]
    fn missing_jdk_is_a_typed_error() {
        let err = Jdk::at_home(Path::new("/nonexistent/jdk")).unwrap_err();
        assert!(matches!(err, JdkError::NotFound { .. }), "{err}");
    }
}
