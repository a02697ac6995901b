//! The embedded worker sources and their compilation into a cache directory keyed by their hash.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::cds::Fnv;
use crate::error::JvmError;
use crate::jdk::Jdk;

/// The worker's Java sources (`server/java/`), embedded in the binary.
pub(crate) const SOURCES: &[(&str, &str)] = &[
    (
        "ctgls/rt/Probe.java",
        include_str!("../../../java/ctgls/rt/Probe.java"),
    ),
    (
        "ctgls/rt/DeadlineExceeded.java",
        include_str!("../../../java/ctgls/rt/DeadlineExceeded.java"),
    ),
    (
        "ctgls/rt/Environment.java",
        include_str!("../../../java/ctgls/rt/Environment.java"),
    ),
    (
        "ctgls/rt/Mutants.java",
        include_str!("../../../java/ctgls/rt/Mutants.java"),
    ),
    (
        "ctgls/worker/Main.java",
        include_str!("../../../java/ctgls/worker/Main.java"),
    ),
    (
        "ctgls/worker/Json.java",
        include_str!("../../../java/ctgls/worker/Json.java"),
    ),
    (
        "ctgls/worker/Capture.java",
        include_str!("../../../java/ctgls/worker/Capture.java"),
    ),
    (
        "ctgls/worker/ExitGuard.java",
        include_str!("../../../java/ctgls/worker/ExitGuard.java"),
    ),
    (
        "ctgls/worker/Processes.java",
        include_str!("../../../java/ctgls/worker/Processes.java"),
    ),
    (
        "ctgls/worker/Compiler.java",
        include_str!("../../../java/ctgls/worker/Compiler.java"),
    ),
    (
        "ctgls/worker/Abi.java",
        include_str!("../../../java/ctgls/worker/Abi.java"),
    ),
    (
        "ctgls/worker/CompileCache.java",
        include_str!("../../../java/ctgls/worker/CompileCache.java"),
    ),
    (
        "ctgls/worker/MemoryFileManager.java",
        include_str!("../../../java/ctgls/worker/MemoryFileManager.java"),
    ),
    (
        "ctgls/worker/Unit.java",
        include_str!("../../../java/ctgls/worker/Unit.java"),
    ),
    (
        "ctgls/worker/Describer.java",
        include_str!("../../../java/ctgls/worker/Describer.java"),
    ),
    (
        "ctgls/worker/JdkApi.java",
        include_str!("../../../java/ctgls/worker/JdkApi.java"),
    ),
    (
        "ctgls/worker/Types.java",
        include_str!("../../../java/ctgls/worker/Types.java"),
    ),
    (
        "ctgls/worker/Observer.java",
        include_str!("../../../java/ctgls/worker/Observer.java"),
    ),
    (
        "ctgls/worker/TestCase.java",
        include_str!("../../../java/ctgls/worker/TestCase.java"),
    ),
    (
        "ctgls/worker/TestRunner.java",
        include_str!("../../../java/ctgls/worker/TestRunner.java"),
    ),
    (
        "ctgls/worker/InputEnvironment.java",
        include_str!("../../../java/ctgls/worker/InputEnvironment.java"),
    ),
    (
        "ctgls/worker/ClassFile.java",
        include_str!("../../../java/ctgls/worker/ClassFile.java"),
    ),
    (
        "ctgls/worker/StaticState.java",
        include_str!("../../../java/ctgls/worker/StaticState.java"),
    ),
    (
        "ctgls/worker/InitScan.java",
        include_str!("../../../java/ctgls/worker/InitScan.java"),
    ),
    (
        "ctgls/worker/InitValue.java",
        include_str!("../../../java/ctgls/worker/InitValue.java"),
    ),
    (
        "ctgls/worker/InitFrame.java",
        include_str!("../../../java/ctgls/worker/InitFrame.java"),
    ),
    (
        "ctgls/worker/InitJdk.java",
        include_str!("../../../java/ctgls/worker/InitJdk.java"),
    ),
    (
        "ctgls/worker/StaticValues.java",
        include_str!("../../../java/ctgls/worker/StaticValues.java"),
    ),
    (
        "ctgls/worker/Loaders.java",
        include_str!("../../../java/ctgls/worker/Loaders.java"),
    ),
    (
        "ctgls/worker/TestThread.java",
        include_str!("../../../java/ctgls/worker/TestThread.java"),
    ),
    (
        "ctgls/worker/JdkState.java",
        include_str!("../../../java/ctgls/worker/JdkState.java"),
    ),
];

/// Class-file target: the worker runs on any Java 11+ whatever javac compiled it.
const JAVAC_ARGS: &[&str] = &["--release", "11", "-encoding", "UTF-8", "-nowarn"];
const COMPLETE_MARKER: &str = "complete";
const WORKER_JAR: &str = "worker.jar";

/// A hash of the sources, the javac arguments and the layout of the build (a jar since the
/// worker runs from one, for class data sharing).
pub(crate) fn sources_hash() -> String {
    let mut h = Fnv::new();
    h.feed(WORKER_JAR.as_bytes());
    for a in JAVAC_ARGS {
        h.feed(a.as_bytes());
    }
    for (path, text) in SOURCES {
        h.feed(path.as_bytes());
        h.feed(text.as_bytes());
    }
    h.hex()
}

/// The default cache root: `$XDG_CACHE_HOME/ctgls`, else `~/.cache/ctgls` (on Windows
/// `%LOCALAPPDATA%\ctgls`), else the temp dir.
pub fn default_cache_dir() -> PathBuf {
    if let Some(x) = std::env::var_os("XDG_CACHE_HOME").filter(|x| !x.is_empty()) {
        return PathBuf::from(x).join("ctgls");
    }
    #[cfg(windows)]
    if let Some(local) = std::env::var_os("LOCALAPPDATA").filter(|x| !x.is_empty()) {
        return PathBuf::from(local).join("ctgls");
    }
    if let Some(home) = std::env::var_os("HOME").filter(|x| !x.is_empty()) {
        return PathBuf::from(home).join(".cache").join("ctgls");
    }
    std::env::temp_dir().join("ctgls-cache")
}

/// Returns the class path of the compiled worker, compiling it on first use: its jar, or its
/// class directory when the JDK's `jar` tool failed (then there is no class data sharing).
///
/// Safe against concurrent processes: each compiles into its own temp dir and renames it into
/// place; the loser of the race discards its copy and uses the winner's.
pub(crate) fn ensure_worker(jdk: &Jdk, cache_root: &Path) -> Result<PathBuf, JvmError> {
    let target = cache_root.join(format!("worker-{}", sources_hash()));
    if target.join(COMPLETE_MARKER).is_file() {
        return Ok(classpath_in(&target));
    }
    let fail = |what: &str, e: std::io::Error| JvmError::WorkerBuild(format!("{what}: {e}"));
    std::fs::create_dir_all(cache_root).map_err(|e| fail("creating the cache directory", e))?;
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.subsec_nanos())
        .unwrap_or(0);
    let tmp = cache_root.join(format!(
        ".tmp-worker-{}-{}-{nanos}",
        std::process::id(),
        sources_hash()
    ));
    let result = build_into(jdk, &tmp);
    if let Err(e) = result {
        let _ = std::fs::remove_dir_all(&tmp);
        return Err(e);
    }
    match std::fs::rename(&tmp, &target) {
        Ok(()) => {}
        Err(_) if target.join(COMPLETE_MARKER).is_file() => {
            // Another process won the race.
            let _ = std::fs::remove_dir_all(&tmp);
        }
        Err(e) => {
            let _ = std::fs::remove_dir_all(&tmp);
            return Err(fail("moving the compiled worker into the cache", e));
        }
    }
    Ok(classpath_in(&target))
}

fn classpath_in(build: &Path) -> PathBuf {
    let jar = build.join(WORKER_JAR);
    if jar.is_file() {
        jar
    } else {
        build.join("classes")
    }
}

fn build_into(jdk: &Jdk, dir: &Path) -> Result<(), JvmError> {
    let fail = |what: &str, e: std::io::Error| JvmError::WorkerBuild(format!("{what}: {e}"));
    let src = dir.join("src");
    let mut files = Vec::new();
    for (path, text) in SOURCES {
        let p = src.join(path);
        if let Some(parent) = p.parent() {
            std::fs::create_dir_all(parent).map_err(|e| fail("writing the worker sources", e))?;
        }
        std::fs::write(&p, text).map_err(|e| fail("writing the worker sources", e))?;
        files.push(p);
    }
    let out = Command::new(&jdk.javac)
        .args(JAVAC_ARGS)
        .arg("-d")
        .arg(dir.join("classes"))
        .args(&files)
        .output()
        .map_err(|e| fail(&format!("running {}", jdk.javac.display()), e))?;
    if !out.status.success() {
        return Err(JvmError::WorkerBuild(format!(
            "javac failed ({}): {}{}",
            out.status,
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )));
    }
    // The class data sharing archive needs the classes in a jar: the JVM archives nothing
    // from a class path with a non-empty directory. Without one the worker still runs.
    let _ = Command::new(crate::jdk::tool(&jdk.home, "jar"))
        .arg("--create")
        .arg("--file")
        .arg(dir.join(WORKER_JAR))
        .arg("-C")
        .arg(dir.join("classes"))
        .arg(".")
        .output()
        .map(|o| {
            if !o.status.success() {
                let _ = std::fs::remove_file(dir.join(WORKER_JAR));
            }
        });
    let mut marker = std::fs::File::create(dir.join(COMPLETE_MARKER))
        .map_err(|e| fail("writing the cache marker", e))?;
    writeln!(marker, "{}", jdk.version.full).map_err(|e| fail("writing the cache marker", e))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every Java file under server/java is embedded (a forgotten entry would fail at runtime).
    #[test]
    fn every_java_source_is_embedded() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../java");
        let mut on_disk = Vec::new();
        let mut stack = vec![root.clone()];
        while let Some(d) = stack.pop() {
            for e in std::fs::read_dir(&d).unwrap() {
                let p = e.unwrap().path();
                if p.is_dir() {
                    stack.push(p);
                } else if p.extension().is_some_and(|x| x == "java") {
                    let rel = p
                        .strip_prefix(&root)
                        .unwrap()
                        .to_string_lossy()
                        .into_owned();
                    on_disk.push(rel);
                }
            }
        }
        on_disk.sort();
        let mut embedded: Vec<String> = SOURCES.iter().map(|(p, _)| p.to_string()).collect();
        embedded.sort();
        assert_eq!(on_disk, embedded);
    }

    #[test]
    fn hash_is_stable_hex() {
        assert_eq!(sources_hash(), sources_hash());
        assert_eq!(sources_hash().len(), 16);
    }
}
