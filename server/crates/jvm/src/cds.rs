//! Class data sharing (CDS) archives for the JVMs ctgls starts again and again: the worker, the
//! `javac` that compiles emitted tests, and the JUnit 5 launcher that runs them.
//!
//! A JVM start loads, parses and verifies the same few thousand classes every time (javac's,
//! the JUnit platform's, the worker's). A dynamic CDS archive (JDK 13+,
//! `-XX:ArchiveClassesAtExit`) holds them ready to map: measured on this machine, a JUnit 5 run
//! of a 40-test class 0.6 → 0.34 s, `javac` of one test class 0.75 → 0.55 s, the worker's first
//! compile of a 51-file closure 1.8 → 1.6 s (docs/benchmarks.md, "Class data sharing").
//!
//! Each archive is made once per JDK and class path by a *training run* on ctgls's own code (never
//! the user's), written under a temporary name, checked with `-Xshare:on`, then renamed into
//! place with its length recorded beside it. A JVM gets the archive only when its length still
//! matches: the JVM does not survive mapping a truncated archive (SIGBUS), while one that merely
//! no longer fits (another JDK build, a changed jar) is refused by the JVM itself and the run
//! goes on without it; `-Xlog:cds=off,cds+dynamic=off` keeps that refusal off stdout, which
//! verification parses.
//!
//! The JVM accepts an archive only if the class path it was made with is a *prefix* of the class
//! path it runs with, and refuses to make one when the class path holds a non-empty directory, so
//! the worker runs from a jar and verification puts the JUnit jars first.

use std::fs::OpenOptions;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use crate::jdk::Jdk;

/// `-XX:ArchiveClassesAtExit` exists from JDK 13 on.
const MINIMUM_FEATURE: u32 = 13;

/// A failed training is tried again after this long.
const RETRY_FAILED: Duration = Duration::from_secs(24 * 3600);

/// A training run that has held the lock this long is taken to have died.
const STALE_LOCK: Duration = Duration::from_secs(600);

/// FNV-1a: stable across Rust versions and processes (file names in a cache shared by both).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Fnv(u64);

impl Fnv {
    pub(crate) fn new() -> Fnv {
        Fnv(0xcbf2_9ce4_8422_2325)
    }

    /// Feeds `bytes` and a terminating zero, so that ("ab", "c") and ("a", "bc") differ.
    pub(crate) fn feed(&mut self, bytes: &[u8]) {
        for b in bytes.iter().chain(std::iter::once(&0u8)) {
            self.0 ^= u64::from(*b);
            self.0 = self.0.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }

    /// Feeds the path and its length and modification time (nothing more when it is missing).
    fn feed_file(&mut self, path: &Path) {
        self.feed(path.as_os_str().as_encoded_bytes());
        if let Ok(m) = std::fs::metadata(path) {
            self.feed(&m.len().to_le_bytes());
            let mtime = m
                .modified()
                .ok()
                .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
                .map_or(0, |d| d.as_nanos());
            self.feed(&mtime.to_le_bytes());
        }
    }

    pub(crate) fn hex(self) -> String {
        format!("{:016x}", self.0)
    }
}

/// The archives of one JDK under a cache root. Cheap to clone; `Default` is the disabled set
/// (no archive is ever used or made).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SharedArchives {
    /// `None` when disabled or the JDK is too old.
    dir: Option<PathBuf>,
    java: PathBuf,
}

/// What [`SharedArchives::make`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Training {
    /// The archive is now in place.
    Made,
    /// Nothing to do: the archive exists, archives are disabled, or another run is making it.
    Skipped,
    /// The training run or the check failed; runs go on without the archive.
    Failed(String),
}

/// Where a JDK keeps the JVM's shared library, below its home.
const JVM_LIBRARY: &[&str] = if cfg!(windows) {
    &["bin", "server", "jvm.dll"]
} else if cfg!(target_os = "macos") {
    &["lib", "server", "libjvm.dylib"]
} else {
    &["lib", "server", "libjvm.so"]
};

impl SharedArchives {
    /// The archives for `jdk` under `cache_root/cds/`, in a directory named after the JDK's home,
    /// version, and the length and time of its JVM library (`JVM_LIBRARY`: `libjvm.so` on
    /// Linux) and `lib/modules` (an update in place changes those, and archives of the old build
    /// would be refused anyway).
    pub fn new(cache_root: &Path, jdk: &Jdk) -> SharedArchives {
        if jdk.version.feature < MINIMUM_FEATURE {
            return SharedArchives::default();
        }
        let mut h = Fnv::new();
        h.feed(jdk.home.as_os_str().as_encoded_bytes());
        h.feed(jdk.version.full.as_bytes());
        h.feed_file(&JVM_LIBRARY.iter().fold(jdk.home.clone(), |p, c| p.join(c)));
        h.feed_file(&jdk.home.join("lib").join("modules"));
        SharedArchives {
            dir: Some(cache_root.join("cds").join(format!("jdk-{}", h.hex()))),
            java: jdk.java.clone(),
        }
    }

    /// Whether archives may be used and made at all.
    /// The directory of the archives (`None` when disabled), which every JVM that maps one must
    /// be able to read.
    pub fn dir(&self) -> Option<&Path> {
        self.dir.as_deref()
    }

    pub fn enabled(&self) -> bool {
        self.dir.is_some()
    }

    /// The name of an archive for a JVM whose class path starts with `classpath` (the jars
    /// whose classes it should hold): `prefix` plus a hash of their paths, lengths and times.
    pub fn key(prefix: &str, classpath: &[PathBuf]) -> String {
        let mut h = Fnv::new();
        for p in classpath {
            h.feed_file(p);
        }
        format!("{prefix}-{}", h.hex())
    }

    fn archive(&self, key: &str) -> Option<PathBuf> {
        Some(self.dir.as_ref()?.join(format!("{key}.jsa")))
    }

    /// `java` options that map the archive `key`, or nothing when it is missing or its length is
    /// not the one recorded when it was made.
    pub fn jvm_args(&self, key: &str) -> Vec<String> {
        match self.archive(key) {
            Some(path) if whole(&path) => use_args(&path),
            _ => Vec::new(),
        }
    }

    /// Makes the archive `key` unless it exists: `train` runs the JVM to archive with the
    /// option it is given (`-XX:ArchiveClassesAtExit=<file>`) and returns once it has exited;
    /// `classpath` is that JVM's class path (empty for `javac`), used to check the archive
    /// with `-Xshare:on` before it goes into place. Concurrent callers (threads or processes)
    /// train once: the others skip while a lock file is fresh.
    pub fn make(
        &self,
        key: &str,
        classpath: &[PathBuf],
        train: impl FnOnce(&str) -> Result<(), String>,
    ) -> Training {
        let (Some(dir), Some(target)) = (self.dir.as_ref(), self.archive(key)) else {
            return Training::Skipped;
        };
        if whole(&target) || failed_lately(&target) {
            return Training::Skipped;
        }
        if let Err(e) = std::fs::create_dir_all(dir) {
            return Training::Failed(format!("creating {}: {e}", dir.display()));
        }
        let Some(_lock) = Lock::take(&dir.join(format!("{key}.lock"))) else {
            return Training::Skipped;
        };
        remove_stale_attempts(dir, key);
        let nanos = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos());
        let tmp = dir.join(format!(".{key}-{}-{nanos}.jsa", std::process::id()));
        let result = train(&format!("-XX:ArchiveClassesAtExit={}", tmp.display()))
            .and_then(|()| self.check(&tmp, classpath))
            .and_then(|len| {
                // The length first: an archive without it is never used.
                std::fs::write(length_file(&target), len.to_string())
                    .and_then(|()| std::fs::rename(&tmp, &target))
                    .map_err(|e| format!("moving the archive into place: {e}"))
            });
        let _ = std::fs::remove_file(&tmp);
        match result {
            Ok(()) => Training::Made,
            Err(e) => {
                // Not again for a while: every run would pay for a training that fails.
                let _ = std::fs::write(failure_file(&target), &e);
                Training::Failed(e)
            }
        }
    }

    /// Removes the archive `key` (one a JVM could not start with); the next [`make`] makes it
    /// again.
    ///
    /// [`make`]: SharedArchives::make
    pub fn discard(&self, key: &str) {
        if let Some(path) = self.archive(key) {
            let _ = std::fs::remove_file(length_file(&path));
            let _ = std::fs::remove_file(path);
        }
    }

    /// Maps the new archive in a JVM that must use it (`-Xshare:on` fails otherwise) and
    /// returns its length.
    fn check(&self, archive: &Path, classpath: &[PathBuf]) -> Result<u64, String> {
        let len = std::fs::metadata(archive)
            .map_err(|e| format!("the training run left no archive: {e}"))?
            .len();
        let mut command = Command::new(&self.java);
        command
            .arg("-Xshare:on")
            .arg(format!("-XX:SharedArchiveFile={}", archive.display()))
            .args(["-XX:+UseSerialGC", "-XX:-UsePerfData"]);
        if !classpath.is_empty() {
            command
                .arg("-cp")
                .arg(std::env::join_paths(classpath).map_err(|e| e.to_string())?);
        }
        let out = command
            .arg("-version")
            .stdin(Stdio::null())
            .output()
            .map_err(|e| format!("checking the archive: {e}"))?;
        if !out.status.success() {
            return Err(format!(
                "the JVM refused the new archive ({}): {}{}",
                out.status,
                String::from_utf8_lossy(&out.stdout).trim(),
                String::from_utf8_lossy(&out.stderr).trim()
            ));
        }
        Ok(len)
    }
}

/// `-XX:SharedArchiveFile` for an archive known to be whole, with the JVM's own messages about
/// it (an archive it refuses) kept off stdout.
fn use_args(path: &Path) -> Vec<String> {
    vec![
        format!("-XX:SharedArchiveFile={}", path.display()),
        "-Xlog:cds=off,cds+dynamic=off".into(),
    ]
}

fn length_file(archive: &Path) -> PathBuf {
    archive.with_extension("len")
}

/// Removes what training runs of `key` that died left (a process that exited while its
/// training JVM went on writing): temporary archives older than [`STALE_LOCK`].
fn remove_stale_attempts(dir: &Path, key: &str) {
    let prefix = format!(".{key}-");
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.filter_map(Result::ok) {
        let name = entry.file_name();
        let name = name.to_string_lossy();
        let old = entry
            .metadata()
            .and_then(|m| m.modified())
            .ok()
            .and_then(|t| t.elapsed().ok())
            .is_some_and(|age| age > STALE_LOCK);
        if name.starts_with(&prefix) && name.ends_with(".jsa") && old {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

fn failure_file(archive: &Path) -> PathBuf {
    archive.with_extension("failed")
}

/// A training of this archive failed less than [`RETRY_FAILED`] ago.
fn failed_lately(archive: &Path) -> bool {
    std::fs::metadata(failure_file(archive))
        .and_then(|m| m.modified())
        .ok()
        .and_then(|t| t.elapsed().ok())
        .is_some_and(|age| age < RETRY_FAILED)
}

/// The archive exists and has the length recorded when it was made.
fn whole(archive: &Path) -> bool {
    let Ok(m) = std::fs::metadata(archive) else {
        return false;
    };
    std::fs::read_to_string(length_file(archive))
        .ok()
        .and_then(|s| s.trim().parse::<u64>().ok())
        == Some(m.len())
}

/// A lock file made with `O_EXCL`, removed on drop. One older than [`STALE_LOCK`] is left by a
/// run that died, and is taken over.
struct Lock(PathBuf);

impl Lock {
    fn take(path: &Path) -> Option<Lock> {
        for _ in 0..2 {
            match OpenOptions::new().write(true).create_new(true).open(path) {
                Ok(_) => return Some(Lock(path.to_path_buf())),
                Err(_) => {
                    let age = std::fs::metadata(path)
                        .and_then(|m| m.modified())
                        .ok()
                        .and_then(|t| t.elapsed().ok());
                    match age {
                        Some(age) if age > STALE_LOCK => {
                            let _ = std::fs::remove_file(path);
                        }
                        // Fresh, or gone in the meantime (the other run finished).
                        _ => return None,
                    }
                }
            }
        }
        None
    }
}

impl Drop for Lock {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("ctgls-cds-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    fn archives(dir: &Path) -> SharedArchives {
        SharedArchives {
            dir: Some(dir.to_path_buf()),
            java: PathBuf::from("java"),
        }
    }

    #[test]
    fn an_archive_is_used_only_with_the_length_it_was_made_with() {
        let dir = scratch("length");
        let a = archives(&dir);
        assert!(a.jvm_args("k").is_empty(), "missing");
        std::fs::write(dir.join("k.jsa"), b"0123456789").unwrap();
        assert!(a.jvm_args("k").is_empty(), "no recorded length");
        std::fs::write(dir.join("k.len"), "10").unwrap();
        let args = a.jvm_args("k");
        assert_eq!(
            args[0],
            format!("-XX:SharedArchiveFile={}", dir.join("k.jsa").display())
        );
        assert!(args.iter().any(|x| x.starts_with("-Xlog:cds=off")));
        std::fs::write(dir.join("k.jsa"), b"01234").unwrap();
        assert!(a.jvm_args("k").is_empty(), "truncated");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn disabled_archives_are_never_used_or_trained() {
        let a = SharedArchives::default();
        assert!(!a.enabled());
        assert!(a.jvm_args("k").is_empty());
        let mut ran = false;
        let t = a.make("k", &[], |_| {
            ran = true;
            Ok(())
        });
        assert_eq!(t, Training::Skipped);
        assert!(!ran);
    }

    #[test]
    fn a_fresh_lock_skips_training_and_a_stale_one_is_taken_over() {
        let dir = scratch("lock");
        let lock = dir.join("k.lock");
        let first = Lock::take(&lock).expect("free");
        assert!(Lock::take(&lock).is_none(), "held by another run");
        drop(first);
        assert!(!lock.exists(), "released on drop");
        std::fs::write(&lock, "").unwrap();
        let old = SystemTime::now() - STALE_LOCK - Duration::from_secs(5);
        std::fs::File::options()
            .write(true)
            .open(&lock)
            .unwrap()
            .set_modified(old)
            .unwrap();
        assert!(Lock::take(&lock).is_some(), "a dead run's lock");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_failed_training_leaves_nothing_behind() {
        let dir = scratch("failed");
        let a = archives(&dir);
        let mut option = String::new();
        let t = a.make("k", &[], |o| {
            option = o.to_string();
            let file = o.trim_start_matches("-XX:ArchiveClassesAtExit=");
            std::fs::write(file, b"partial").unwrap();
            Err("the JVM crashed".into())
        });
        assert_eq!(t, Training::Failed("the JVM crashed".into()));
        assert!(option.starts_with("-XX:ArchiveClassesAtExit="), "{option}");
        let left: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(left, ["k.failed"], "only the failure is remembered");
        assert!(a.jvm_args("k").is_empty());
        let again = a.make("k", &[], |_| panic!("not tried again so soon"));
        assert_eq!(again, Training::Skipped);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn what_a_dead_training_left_goes_with_the_next_one() {
        let dir = scratch("stale");
        let old = SystemTime::now() - STALE_LOCK - Duration::from_secs(5);
        for name in [".k-1-2.jsa", ".k-3-4.jsa", ".other-1-2.jsa"] {
            std::fs::write(dir.join(name), b"partial").unwrap();
        }
        for name in [".k-1-2.jsa", ".other-1-2.jsa"] {
            std::fs::File::options()
                .write(true)
                .open(dir.join(name))
                .unwrap()
                .set_modified(old)
                .unwrap();
        }
        let t = archives(&dir).make("k", &[], |_| Err("no JVM here".into()));
        assert!(matches!(t, Training::Failed(_)));
        assert!(!dir.join(".k-1-2.jsa").exists(), "an old attempt of k");
        assert!(dir.join(".k-3-4.jsa").exists(), "maybe still running");
        assert!(dir.join(".other-1-2.jsa").exists(), "another archive's");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn keys_change_with_the_jars() {
        let dir = scratch("keys");
        let jar = dir.join("a.jar");
        std::fs::write(&jar, b"one").unwrap();
        let k1 = SharedArchives::key("junit5", std::slice::from_ref(&jar));
        assert_eq!(
            k1,
            SharedArchives::key("junit5", std::slice::from_ref(&jar))
        );
        std::fs::write(&jar, b"three").unwrap();
        assert_ne!(
            k1,
            SharedArchives::key("junit5", std::slice::from_ref(&jar))
        );
        assert!(k1.starts_with("junit5-"));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
