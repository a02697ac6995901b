//! Making the class data sharing archives of verification's JVMs ([`jvm::SharedArchives`]):
//! one for `javac` (per JDK) and one for the JUnit 5 console launcher (per JDK and set of JUnit
//! jars). A training run compiles a small JUnit test class of ctgls's own, with the harness,
//! and runs it with the launcher as verification does; each JVM writes the classes it loaded
//! when it exits. The training code is ours, not the project's, so it runs without the sandbox
//! (the JVMs must write the archives into the cache), under the same memory bounds.
//!
//! The JUnit 4 runner is not archived: it is started from the harness class in the test class
//! directory, and the JVM makes no archive with a non-empty directory on the class path.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use jvm::{ExecutionLimits, Jdk, SandboxPolicy, Training};
use testcase::junit::JUnit;

use super::javac::{join_paths, Javac};
use super::junit::{
    self, archive_key, console_launcher_args, JUnitSetup, RunOrder, LAUNCHER_JVM_FLAGS,
};
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
    let junit_key = (setup.junit == JUnit::Five).then(|| archive_key(setup));
    let missing = |key: &str| archives.jvm_args(key).is_empty();
    if !missing(JAVAC) && !junit_key.as_deref().is_some_and(missing) {
        return Ok(Vec::new());
    }
    let jdk = match &options.jdk {
        Some(jdk) => jdk.clone(),
        None => Jdk::locate(None)?,
    };
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
        let launcher = archives.make(&key, &setup.jars, |dump| {
            run_launcher(&jdk, setup, &classes, &scratch.path, &limits, dump)
        });
        done.push((key, launcher));
    }
    Ok(done)
}

fn write_sources(setup: &JUnitSetup, dir: &Path) -> Result<Vec<PathBuf>, VerifyError> {
    let mut sources = junit::write_harness(setup, &dir.join("src"))?;
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

/// Runs the training class with the console launcher as verification does, except that the
/// class comes through the launcher's `--class-path` (the JVM's class path must be the jars
/// alone to be archived).
fn run_launcher(
    jdk: &Jdk,
    setup: &JUnitSetup,
    classes: &Path,
    dir: &Path,
    limits: &ExecutionLimits,
    dump: &str,
) -> Result<(), String> {
    let mut command = Command::new(&jdk.java);
    command
        .current_dir(dir)
        .args(limits.jvm_memory_args())
        .args(LAUNCHER_JVM_FLAGS)
        .arg(dump)
        .args(limits.environment.jvm_properties(dir))
        .arg("-cp")
        .arg(join_paths(&setup.jars))
        .args(console_launcher_args(
            RunOrder::Forward,
            &dir.join("reports"),
            TRAINING_CLASS,
            Duration::from_secs(10),
        ))
        .arg(format!("--class-path={}", classes.display()));
    let mut readable: Vec<&Path> = setup.jars.iter().map(PathBuf::as_path).collect();
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
        },
    )
    .map_err(|e| e.to_string())?;
    // One training test fails on purpose: the launcher exits with 1.
    if finished.timed_out() || !dir.join("reports/TEST-junit-jupiter.xml").is_file() {
        return Err(format!(
            "the training run of the JUnit launcher failed: {}",
            finished.tail()
        ));
    }
    Ok(())
}
