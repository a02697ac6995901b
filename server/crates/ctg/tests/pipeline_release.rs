//! The tests ctgls writes compile at the release the project's build targets: a project built
//! for Java 11 (its `pom.xml` says so) gets no assertion on a getter the worker's newer JDK
//! has and Java 11 lacks (`StringBuilder.isEmpty()`, since 15). The control run, verified for
//! the JDK's own release, keeps that assertion, which shows the getter is observed at all.
//! Gated by `CTGLS_E2E=1` (the real worker, javac and JUnit; about 20 s).

mod pipeline_support;
use pipeline_support::{e2e_enabled, supervisor};

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use ctg::job::GenerationRequest;
use ctg::pipeline::{generate_tests, PipelineOptions, Verification};
use ctg::project::{JUnitVersion, LayoutOverrides, ProjectLayout};
use ctg::verify::JUnitSetup;
use jvm::{Jdk, Supervisor};
use testcase::junit::JUnit;

fn project() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/release")
}

/// The verified test class for `text.Notes`, verified for `release` (`None`: the build's).
fn verified_source(supervisor: &mut Supervisor, release: Option<u32>) -> String {
    let layout = ProjectLayout::discover(&project(), &LayoutOverrides::default());
    assert_eq!(layout.java_levels().test, Some(11));
    let mut request = GenerationRequest::new(layout, "text.Notes");
    request.budget = Duration::from_secs(12);
    request.seed = 3;
    let mut options = PipelineOptions {
        junit: Some(JUnitVersion::Five),
        write: false,
        ..PipelineOptions::default()
    };
    options.verify.release = release;
    let outcome = generate_tests(&request, &options, supervisor, &mut ()).expect("generation");
    assert_eq!(outcome.emission.verification, Verification::JUnit);
    assert!(!outcome.emission.suite.kept.is_empty());
    outcome.emission.suite.source
}

#[test]
fn tests_compile_at_the_release_of_the_build() {
    if !e2e_enabled() {
        eprintln!("skipped: the release test runs with CTGLS_E2E=1");
        return;
    }
    let jdk = Jdk::locate(None).expect("a JDK");
    if jdk.version.feature < 15 {
        eprintln!("skipped: the JDK has no getter newer than Java 11 to tell the releases apart");
        return;
    }
    let mut supervisor = supervisor();

    let control = verified_source(&mut supervisor, Some(jdk.version.feature));
    assert!(
        control.contains(".isEmpty()"),
        "verified for Java {}, the getter stays:\n{control}",
        jdk.version.feature
    );

    let source = verified_source(&mut supervisor, None);
    assert!(
        !source.contains(".isEmpty()"),
        "verified for the build's Java 11:\n{source}"
    );
    // And javac for Java 11 accepts it against the project's classes.
    let dir = std::env::temp_dir().join(format!("ctgls-release-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("text")).unwrap();
    let test_file = dir.join("text/NotesGeneratedTest.java");
    std::fs::write(&test_file, &source).unwrap();
    let junit = JUnitSetup::locate(JUnit::Five, &[]).expect("JUnit 5 (tests/run.sh)");
    let classpath = std::env::join_paths(junit.jars.iter()).unwrap();
    let status = Command::new(&jdk.javac)
        .args(["--release", "11", "-proc:none", "-d"])
        .arg(dir.join("classes"))
        .arg("-cp")
        .arg(classpath)
        .arg("-sourcepath")
        .arg(project().join("src/main/java"))
        .arg(&test_file)
        .status()
        .unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    assert!(status.success(), "javac --release 11 rejects:\n{source}");
}
