//! ctgls's own verification harness (the JUnit runners and method orderers of `harness/`),
//! compiled apart from the tests: at the JDK's own level, whatever level the project declares
//! (the harness uses lambdas; a project at Java 7 compiles its tests with `--release 7`), once
//! per JDK, JUnit jars and harness sources, into a jar under the cache directory
//! (`harness/<key>/harness.jar`) that every later run puts on its class path. A jar rather
//! than a directory, because the JVM archives no class path holding a non-empty directory
//! (the JUnit 5 launcher's start-up archive includes the harness).

use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use jvm::{ExecutionLimits, Jdk, SharedArchives};
use testcase::junit::JUnit;

use super::javac::Javac;
use super::junit::JUnitSetup;
use super::VerifyError;

/// Harness sources (package `ctgls.verify`) for JUnit 5.
const JUNIT5: [(&str, &str); 6] = [
    (
        "MethodNameOrder.java",
        include_str!("harness/MethodNameOrder.java"),
    ),
    (
        "ReverseMethodNameOrder.java",
        include_str!("harness/ReverseMethodNameOrder.java"),
    ),
    (
        "ShuffledMethodOrder.java",
        include_str!("harness/ShuffledMethodOrder.java"),
    ),
    ("TestOrder.java", include_str!("harness/TestOrder.java")),
    ("GlobalState.java", include_str!("harness/GlobalState.java")),
    (
        "JUnit5Runner.java",
        include_str!("harness/JUnit5Runner.java"),
    ),
];

/// Harness sources for JUnit 4.
const JUNIT4: [(&str, &str); 3] = [
    ("TestOrder.java", include_str!("harness/TestOrder.java")),
    ("GlobalState.java", include_str!("harness/GlobalState.java")),
    (
        "JUnit4Runner.java",
        include_str!("harness/JUnit4Runner.java"),
    ),
];

/// The name of the harness's jar in its cache directory.
const JAR: &str = "harness.jar";

/// Where the compiled harness is kept.
pub(crate) fn harness_cache(options: &super::VerifyOptions) -> PathBuf {
    options
        .harness_cache
        .clone()
        .unwrap_or_else(jvm::default_cache_dir)
}

/// The main class of the runner for `junit`.
pub(crate) fn runner_class(junit: JUnit) -> &'static str {
    match junit {
        JUnit::Five => "ctgls.verify.JUnit5Runner",
        JUnit::Four => "ctgls.verify.JUnit4Runner",
    }
}

fn sources(junit: JUnit) -> &'static [(&'static str, &'static str)] {
    match junit {
        JUnit::Five => &JUNIT5,
        JUnit::Four => &JUNIT4,
    }
}

/// The harness for `setup` compiled by `jdk`: its jar under `cache` (compiled now when it is
/// not there yet), or the class directory when the JDK's `jar` tool failed. Concurrent callers
/// may both compile; each moves a whole directory into place, and the loser uses the winner's.
pub(crate) fn harness_classpath(
    jdk: &Jdk,
    setup: &JUnitSetup,
    cache: &Path,
    limits: &ExecutionLimits,
    timeout: Duration,
) -> Result<PathBuf, VerifyError> {
    let dir = cache.join("harness").join(key(jdk, setup));
    if let Some(found) = built(&dir) {
        return Ok(found);
    }
    let io = |what: &str, source| VerifyError::Io {
        what: format!("{what} (the verification harness)"),
        source,
    };
    let parent = cache.join("harness");
    std::fs::create_dir_all(&parent).map_err(|e| io("creating the cache directory", e))?;
    let build = jvm::create_private_dir(&parent, "build")
        .map_err(|e| io("creating a build directory", e))?;
    let result = compile(jdk, setup, &build, limits, timeout);
    let outcome = result.and_then(|()| match std::fs::rename(&build, &dir) {
        Ok(()) => Ok(()),
        // Another run put it in place first.
        Err(_) if built(&dir).is_some() => Ok(()),
        Err(e) => Err(io("moving the harness into the cache", e)),
    });
    // Gone when it was moved into place; left over when another run won or the build failed.
    let _ = std::fs::remove_dir_all(&build);
    outcome?;
    built(&dir).ok_or_else(|| VerifyError::Launcher {
        message: format!("the verification harness is missing from {}", dir.display()),
    })
}

/// The jar, else the class directory, of a finished harness directory.
fn built(dir: &Path) -> Option<PathBuf> {
    let jar = dir.join(JAR);
    let classes = dir.join("classes");
    if jar.is_file() {
        Some(jar)
    } else if dir.join("done").is_file() && classes.is_dir() {
        Some(classes)
    } else {
        None
    }
}

fn compile(
    jdk: &Jdk,
    setup: &JUnitSetup,
    build: &Path,
    limits: &ExecutionLimits,
    timeout: Duration,
) -> Result<(), VerifyError> {
    let io = |what: &str, source| VerifyError::Io {
        what: format!("{what} (the verification harness)"),
        source,
    };
    let written = write_sources(setup.junit, &build.join("src"))?;
    let classes = build.join("classes");
    let errors = Javac {
        jdk,
        classpath: &setup.jars,
        out_dir: &classes,
        // The JDK's own level: the harness is ours, not the project's.
        release: None,
        timeout,
        scratch: build,
        label: "javac-harness",
        limits,
        jvm_options: &[],
        cancel: None,
    }
    .compile(&written)?;
    if let Some(error) = errors.first() {
        return Err(VerifyError::Launcher {
            message: format!(
                "ctgls's JUnit harness does not compile against {}: {error}",
                super::javac::join_paths(&setup.jars)
            ),
        });
    }
    let jar = Command::new(
        jdk.home
            .join("bin")
            .join(format!("jar{}", std::env::consts::EXE_SUFFIX)),
    )
    .arg("--create")
    .arg(format!("--file={}", build.join(JAR).display()))
    .arg("-C")
    .arg(&classes)
    .arg(".")
    .output();
    if !jar.is_ok_and(|out| out.status.success()) {
        // The class directory works too, without a start-up archive for the launcher.
        let _ = std::fs::remove_file(build.join(JAR));
        std::fs::write(build.join("done"), b"").map_err(|e| io("marking the build", e))?;
    }
    Ok(())
}

/// Writes the harness sources for `junit` under `dir` (in their package directory) and
/// returns their paths.
pub(crate) fn write_sources(junit: JUnit, dir: &Path) -> Result<Vec<PathBuf>, VerifyError> {
    let package_dir = dir.join("ctgls").join("verify");
    let io = |e| VerifyError::Io {
        what: "writing the verification harness".into(),
        source: e,
    };
    std::fs::create_dir_all(&package_dir).map_err(io)?;
    let mut out = Vec::new();
    for (name, text) in sources(junit) {
        let path = package_dir.join(name);
        std::fs::write(&path, text).map_err(io)?;
        out.push(path);
    }
    Ok(out)
}

/// The cache key of a harness build: the sources, the JDK (home and version) and the jars
/// (paths, lengths and times, as the start-up archives' keys).
fn key(jdk: &Jdk, setup: &JUnitSetup) -> String {
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    sources(setup.junit).hash(&mut hasher);
    jdk.home.hash(&mut hasher);
    jdk.version.full.hash(&mut hasher);
    let prefix = match setup.junit {
        JUnit::Five => "junit5",
        JUnit::Four => "junit4",
    };
    SharedArchives::key(&format!("{prefix}-{:016x}", hasher.finish()), &setup.jars)
}
