//! Making the class data sharing archives of verification's JVMs ([`jvm::SharedArchives`]):
//! one for `javac` (per JDK) and one for the JUnit 5 launcher (per JDK, set of JUnit jars and
//! harness jar). A training run compiles a small JUnit test class of ctgls's own and runs it
//! with the harness's `JUnit5Runner` as verification does; each JVM writes the classes it loaded
//! when it exits. The training code is ours, not the project's, so it runs without the sandbox
//! (the JVMs must write the archives into the cache), under the same memory bounds.
//!
//! The JUnit 4 runner is not archived: its class path starts with the test class directory,
//! and the JVM makes no archive with a non-empty directory on the class path.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use jvm::{ExecutionLimits, Jdk, SandboxPolicy, Training};
use testcase::junit::JUnit;

use super::harness::harness_classpath;
use super::javac::{join_paths, Javac};
use super::junit::{archive_key, runner_args, JUnitSetup, RunOrder, LAUNCHER_JVM_FLAGS};
use super::process::{run_bounded, Confinement};
use super::{Scratch, VerifyError, VerifyOptions};

/// The name of `javac`'s archive (its JVM has no class path of its own).
pub(crate) const JAVAC: &str = "javac";

/// Deadline of one training JVM.
const TRAINING_TIMEOUT: Duration = Duration::from_secs(120);

const TRAINING_CLASS: &str = "ctgls.training.ArchiveTrainingTest";

/// What generated tests use: the assertions of `docs/emission.md`, an expected exception, a
/// failing assertion (the report of a failure), a per-test timeout.
const TRAINING_JUNIT5: &str = r#"package ctgls.training;

import static org.junit.jupiter.api.Assertions.*;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

public class ArchiveTrainingTest {
    @Test
    public void values() {
        StringBuilder b = new StringBuilder("a").append(1).append('c');
        assertEquals("a1c", b.toString());
        assertEquals(3, b.length());
        assertEquals(1.5, 3 / 2.0, 0.0);
        assertTrue(b.length() > 0);
        assertFalse(b.toString().isEmpty());
        assertNull(System.getProperty("ctgls.training.none"));
        assertNotNull(b);
        assertArrayEquals(new int[] {1, 2}, new int[] {1, 2});
        List<String> list = new ArrayList<>();
        list.add("x");
        assertEquals(1, list.size());
        assertSame(list, list);
    }

    @Test
    public void expectedException() {
        IndexOutOfBoundsException e =
            assertThrows(IndexOutOfBoundsException.class, () -> new ArrayList<String>().get(3));
        assertNotNull(e.getMessage());
    }

    @Test
    @Timeout(5)
    public void failure() {
        assertEquals("expected", "actual", "a failure to report");
    }
}
"#;

const TRAINING_JUNIT4: &str = r#"package ctgls.training;

import static org.junit.Assert.*;

import org.junit.Test;

public class ArchiveTrainingTest {
    @Test
    public void values() {
        StringBuilder b = new StringBuilder("a").append(1);
        assertEquals("a1", b.toString());
        assertTrue(b.length() > 0);
        assertNull(System.getProperty("ctgls.training.none"));
    }

    @Test(expected = IndexOutOfBoundsException.class)
    public void expectedException() {
        new java.util.ArrayList<String>().get(3);
    }
}
"#;

/// Makes the archives `options.archives` lacks for `setup`: `javac`'s, and for JUnit 5 the
/// launcher's. Returns what happened to each, by archive name (nothing when archives or
/// execution are off). Takes a few seconds the first time, nothing after.
pub fn train_archives(
    setup: &JUnitSetup,
    options: &VerifyOptions,
) -> Result<Vec<(String, Training)>, VerifyError> {
    let archives = &options.archives;
    if !archives.enabled() || !options.limits.execution_enabled {
        return Ok(Vec::new());
    }
    let jdk = match &options.jdk {
        Some(jdk) => jdk.clone(),
        None => Jdk::locate(None)?,
    };
    let harness = match setup.junit {
        JUnit::Five => Some(harness_classpath(
            &jdk,
            setup,
            &super::harness::harness_cache(options),
            &options.limits,
            TRAINING_TIMEOUT,
        )?),
        JUnit::Four => None,
    };
    // The launcher's archive needs the harness in a jar (no directory on an archived class
    // path).
    let junit_key = harness
        .as_deref()
        .filter(|h| h.is_file())
        .map(|h| archive_key(setup, h));
    let missing = |key: &str| archives.jvm_args(key).is_empty();
    if !missing(JAVAC) && !junit_key.as_deref().is_some_and(missing) {
        return Ok(Vec::new());
    }
    let scratch = Scratch::new(
        options.scratch_parent.as_deref(),
        options.keep_scratch,
        "archives",
    )?;
    let limits = ExecutionLimits {
        sandbox: SandboxPolicy::Off,
        ..options.limits.clone()
    };
    let sources = write_sources(setup, &scratch.path)?;
    let harness = harness.unwrap_or_default();
    let classes = scratch.path.join("classes");
    let compile = |jvm_options: &[String]| -> Result<(), String> {
        let errors = Javac {
            jdk: &jdk,
            classpath: &setup.jars,
            out_dir: &classes,
            release: None,
            timeout: TRAINING_TIMEOUT,
            scratch: &scratch.path,
            label: "javac-training",
            limits: &limits,
            jvm_options,
            cancel: None,
        }
        .compile(&sources)
        .map_err(|e| e.to_string())?;
        match errors.first() {
            None => Ok(()),
            Some(e) => Err(format!("the training test did not compile: {e}")),
        }
    };
    let mut done = Vec::new();
    let javac = archives.make(JAVAC, &[], |dump| compile(&[dump.to_string()]));
    done.push((JAVAC.to_string(), javac.clone()));
    if let Some(key) = junit_key {
        if javac != Training::Made {
            // Skipped or failed: the launcher still needs the classes.
            if let Err(message) = compile(&[]) {
                done.push((key, Training::Failed(message)));
                return Ok(done);
            }
        }
        let mut classpath = setup.jars.clone();
        classpath.push(harness.clone());
        let launcher = archives.make(&key, &classpath, |dump| {
            run_launcher(&jdk, &classpath, &classes, &scratch.path, &limits, dump)
        });
        done.push((key, launcher));
    }
    Ok(done)
}

fn write_sources(setup: &JUnitSetup, dir: &Path) -> Result<Vec<PathBuf>, VerifyError> {
    let mut sources = Vec::new();
    let test = dir.join("src/ctgls/training/ArchiveTrainingTest.java");
    let text = match setup.junit {
        JUnit::Five => TRAINING_JUNIT5,
        JUnit::Four => TRAINING_JUNIT4,
    };
    std::fs::create_dir_all(dir.join("src/ctgls/training"))
        .and_then(|()| std::fs::write(&test, text))
        .map_err(|e| VerifyError::Io {
            what: "writing the training test".into(),
            source: e,
        })?;
    sources.push(test);
    Ok(sources)
}

/// Runs the training class with the harness's JUnit 5 runner as verification does, except
/// that the class comes through the runner's own class loader (the JVM's class path must be
/// `classpath`, the jars and the harness jar, alone to be archived).
fn run_launcher(
    jdk: &Jdk,
    classpath: &[PathBuf],
    classes: &Path,
    dir: &Path,
    limits: &ExecutionLimits,
    dump: &str,
) -> Result<(), String> {
    let events = dir.join("training-events.tsv");
    let mut command = Command::new(&jdk.java);
    command
        .current_dir(dir)
        .args(limits.jvm_memory_args())
        .args(LAUNCHER_JVM_FLAGS)
        .arg(dump)
        .args(limits.environment.jvm_properties(dir))
        .arg("-cp")
        .arg(join_paths(classpath))
        .args(runner_args(
            JUnit::Five,
            TRAINING_CLASS,
            RunOrder::Forward,
            Duration::from_secs(10),
            &events,
        ))
        .arg(join_paths(&[classes.to_path_buf()]));
    let mut readable: Vec<&Path> = classpath.iter().map(PathBuf::as_path).collect();
    readable.push(classes);
    let finished = run_bounded(
        command,
        TRAINING_TIMEOUT,
        dir,
        "junit-training",
        &Confinement {
            limits,
            writable: &[dir],
            readable: &readable,
            cancel: None,
        },
    )
    .map_err(|e| e.to_string())?;
    let text = std::fs::read_to_string(&events).unwrap_or_default();
    // One training test fails on purpose; the run must have run all three.
    if finished.timed_out() || !text.lines().any(|line| line == "DONE\t3\t1") {
        return Err(format!(
            "the training run of the JUnit launcher failed: {}",
            finished.tail()
        ));
    }
    Ok(())
}
