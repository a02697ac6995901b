//! Hostile code under test during verification (`fixtures/verify`): the JUnit JVMs that run the
//! emitted tests are sandboxed like the worker, so a class under test that overwrites or deletes
//! a file outside the scratch directory, opens a socket or leaves a process running is stopped,
//! its tests are reported as failed rather than crashing verification, and no process stays
//! behind; an annotation processor on the project's classpath never runs inside javac. Against
//! the real JDK and JUnit 5.

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::Command;

use ctg::verify::{
    run_test_class, JUnitSetup, ProjectClasses, RunReport, VerifyError, VerifyOptions,
};
use jvm::{kernel_landlock_abi, ExecutionLimits, JvmError, SandboxLevel, SandboxPolicy};
use testcase::junit::JUnit;

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/verify")
}

/// A fresh directory outside every scratch directory, removed on drop.
struct Outside(PathBuf);

impl Outside {
    fn new(what: &str) -> Outside {
        let dir = std::env::temp_dir().join(format!("ctgls-outside-{what}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Outside(dir)
    }
}

impl Drop for Outside {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A file in `outside` holding "original", and a test class whose one test overwrites it.
fn overwrites_a_file_in(outside: &Outside) -> (PathBuf, String) {
    let victim = outside.0.join("precious.txt");
    std::fs::write(&victim, "original").unwrap();
    let source = test_class(&[(
        "overwritesOutside",
        format!("Vandal.overwrite({});", java_string(&victim)),
    )]);
    (victim, source)
}

fn vandal_project(classpath: Vec<PathBuf>) -> ProjectClasses {
    ProjectClasses {
        sources: vec![fixtures().join("hostile/hostile/Vandal.java")],
        classpath,
        overlays: Default::default(),
    }
}

/// A JUnit 5 class `hostile.VandalTest` with one `@Test` per `(name, body)`.
fn test_class(tests: &[(&str, String)]) -> String {
    let mut source = String::from(
        "package hostile;\n\nimport static org.junit.jupiter.api.Assertions.assertEquals;\n\nimport org.junit.jupiter.api.Test;\n\npublic class VandalTest {\n",
    );
    for (name, body) in tests {
        source.push_str(&format!(
            "    @Test\n    public void {name}() throws Exception {{\n        {body}\n    }}\n\n"
        ));
    }
    source.push_str("}\n");
    source
}

fn java_string(path: &Path) -> String {
    format!("{:?}", path.display().to_string())
}

/// The annotation processor compiled into `<dir>/classes` with its service entry, as a library
/// on the project's classpath would carry it; it would write `target` if javac ran it.
fn processor_on_classpath(dir: &Path, target: &Path) -> PathBuf {
    let source = std::fs::read_to_string(fixtures().join("processor/hostile/Scribbler.java"))
        .unwrap()
        .replace("@TARGET@", &target.display().to_string());
    let src = dir.join("src");
    std::fs::create_dir_all(&src).unwrap();
    std::fs::write(src.join("Scribbler.java"), source).unwrap();
    let classes = dir.join("classes");
    let status = Command::new("javac")
        .arg("-d")
        .arg(&classes)
        .arg(src.join("Scribbler.java"))
        .status()
        .expect("javac on PATH");
    assert!(status.success());
    let services = classes.join("META-INF/services");
    std::fs::create_dir_all(&services).unwrap();
    std::fs::write(
        services.join("javax.annotation.processing.Processor"),
        "hostile.Scribbler\n",
    )
    .unwrap();
    classes
}

fn failure<'a>(run: &'a RunReport, test: &str) -> Option<&'a ctg::verify::TestFailure> {
    run.failures.iter().find(|f| f.test == test)
}

/// Processes whose command line is `sleep <seconds>` (zombies have none).
fn sleepers(seconds: &str) -> usize {
    let wanted = format!("sleep\0{seconds}\0");
    std::fs::read_dir("/proc")
        .unwrap()
        .filter_map(Result::ok)
        .filter(|e| {
            std::fs::read(e.path().join("cmdline"))
                .is_ok_and(|c| String::from_utf8_lossy(&c) == wanted)
        })
        .count()
}

#[test]
fn hostile_tests_fail_inside_the_sandbox_and_leave_nothing_behind() {
    let outside = Outside::new("verify");
    let victim = outside.0.join("precious.txt");
    std::fs::write(&victim, "original").unwrap();
    let fresh = outside.0.join("new.txt");
    let scribbled = outside.0.join("scribbled.txt");
    let processor = processor_on_classpath(&outside.0.join("processor"), &scribbled);
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let port = listener.local_addr().unwrap().port();
    // A duration no other process uses, so the sleeper can be found in /proc.
    let seconds = format!("900.{}", std::process::id());

    let source = test_class(&[
        (
            "overwritesOutside",
            format!("Vandal.overwrite({});", java_string(&victim)),
        ),
        (
            "deletesOutside",
            format!("Vandal.delete({});", java_string(&victim)),
        ),
        (
            "createsOutside",
            format!("Vandal.overwrite({});", java_string(&fresh)),
        ),
        ("connects", format!("Vandal.connect({port});")),
        (
            "startsSleeper",
            format!("Vandal.startSleeper({seconds:?});"),
        ),
        (
            "writesItsTempDir",
            "assertEquals(\"ok\", Vandal.writeTemp());".into(),
        ),
    ]);
    let setup = JUnitSetup::locate(JUnit::Five, &[]).expect("JUnit installed (tests/run.sh)");
    let runs = run_test_class(
        &source,
        "hostile.VandalTest",
        &vandal_project(vec![processor]),
        &setup,
        &VerifyOptions::default(),
    )
    .unwrap_or_else(|e| {
        panic!("verification must report the hostile tests, not fail (did javac run the annotation processor? it needs -proc:none): {e}")
    });

    assert!(
        !scribbled.exists(),
        "the annotation processor ran inside javac"
    );
    // SIGKILL reaches the group at once but takes effect when the sleeper is next scheduled,
    // which on a loaded machine can be a moment after the JVM was reaped; a leaked sleeper
    // would live for 900 s.
    let until = std::time::Instant::now() + std::time::Duration::from_secs(5);
    while sleepers(&seconds) > 0 && std::time::Instant::now() < until {
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    assert_eq!(sleepers(&seconds), 0, "the sleeper outlived its JVM");
    assert_eq!(runs.len(), 2);
    let content = std::fs::read_to_string(&victim);
    if kernel_landlock_abi().is_none() {
        eprintln!("no Landlock on this kernel: write confinement not checked");
        return;
    }
    assert_eq!(content.unwrap(), "original");
    assert!(!fresh.exists());
    for run in &runs {
        eprintln!("{:?}: {}", run.order, run.sandbox);
        assert_eq!(run.sandbox.level(), SandboxLevel::Full, "{}", run.sandbox);
        assert_eq!(run.executed.len(), 6, "{:?}", run.executed);
        for test in ["overwritesOutside", "deletesOutside", "createsOutside"] {
            let f = failure(run, test).unwrap_or_else(|| panic!("{test} passed: {run:#?}"));
            assert!(
                f.exception.contains("AccessDenied") || f.exception.contains("FileSystem"),
                "{f:?}"
            );
        }
        assert!(failure(run, "connects").is_some(), "{run:#?}");
        assert!(failure(run, "startsSleeper").is_none(), "{run:#?}");
        assert!(failure(run, "writesItsTempDir").is_none(), "{run:#?}");
        assert_eq!(run.failures.len(), 4, "{run:#?}");
    }
    assert!(listener.accept().is_err(), "the listener saw no connection");
}

#[test]
fn without_the_sandbox_the_same_test_does_write_outside() {
    let outside = Outside::new("unsandboxed");
    let (victim, source) = overwrites_a_file_in(&outside);
    let setup = JUnitSetup::locate(JUnit::Five, &[]).expect("JUnit installed (tests/run.sh)");
    let options = VerifyOptions {
        limits: ExecutionLimits {
            sandbox: SandboxPolicy::Off,
            ..ExecutionLimits::default()
        },
        ..VerifyOptions::default()
    };
    let runs = run_test_class(
        &source,
        "hostile.VandalTest",
        &vandal_project(Vec::new()),
        &setup,
        &options,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert!(runs.iter().all(RunReport::passed), "{runs:#?}");
    assert_eq!(runs[0].sandbox.level(), SandboxLevel::None);
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "vandalised");
}

#[test]
fn with_execution_disabled_verification_runs_nothing() {
    let outside = Outside::new("disabled");
    let (victim, source) = overwrites_a_file_in(&outside);
    let setup = JUnitSetup::locate(JUnit::Five, &[]).expect("JUnit installed (tests/run.sh)");
    let options = VerifyOptions {
        limits: ExecutionLimits {
            execution_enabled: false,
            ..ExecutionLimits::default()
        },
        ..VerifyOptions::default()
    };
    let result = run_test_class(
        &source,
        "hostile.VandalTest",
        &vandal_project(Vec::new()),
        &setup,
        &options,
    );
    assert!(
        matches!(
            result,
            Err(VerifyError::Execution(JvmError::ExecutionDisabled))
        ),
        "{result:?}"
    );
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "original");
}
