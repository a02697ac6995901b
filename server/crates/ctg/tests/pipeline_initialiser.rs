//! The whole pipeline on a class that uses a class whose static initialiser fails. The worker
//! runs every test in a fresh class (each sees `ExceptionInInitializerError`); JUnit runs them in
//! one JVM, where only the first to touch the class sees that and every later one
//! `NoClassDefFoundError`. The emitted tests assert what both are, `LinkageError`, so they pass
//! in either order. Gated by `CTGLS_E2E=1` (the real worker, javac and JUnit; about 20 s).

mod pipeline_support;
use pipeline_support::{e2e_enabled, supervisor};

use std::path::{Path, PathBuf};
use std::time::Duration;

use ctg::job::GenerationRequest;
use ctg::pipeline::{generate_tests, PipelineOptions, Verification};
use ctg::project::{JUnitVersion, LayoutOverrides, ProjectLayout};

fn project() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/job/initialiser")
}

#[test]
fn tests_that_meet_a_failed_initialiser_pass_in_any_order() {
    if !e2e_enabled() {
        eprintln!("skipped: the initialiser pipeline test runs with CTGLS_E2E=1");
        return;
    }
    for junit in [JUnitVersion::Five, JUnitVersion::Four] {
        let mut supervisor = supervisor();
        let layout = ProjectLayout::discover(
            &project(),
            &LayoutOverrides {
                test_root: Some(std::env::temp_dir().join("ctgls-pipeline-initialiser-tests")),
                ..LayoutOverrides::default()
            },
        );
        let mut request = GenerationRequest::new(layout, "init.Gauge");
        request.budget = Duration::from_secs(15);
        // Both throwing branches are covered by the first generation (seed 1); the exception
        // criterion would keep the search going to the end of the budget, a bound ends it
        // sooner, deterministically.
        request.max_executions = Some(600);
        request.seed = 1;
        let options = PipelineOptions {
            junit: Some(junit),
            write: false,
            ..PipelineOptions::default()
        };
        let outcome = generate_tests(&request, &options, &mut supervisor, &mut ())
            .expect("a failing initialiser is a value, not an error");
        assert_eq!(outcome.emission.verification, Verification::JUnit);
        let generation = &outcome.generation;
        assert_eq!(
            generation.branches.covered, generation.branches.total,
            "{junit:?}: both throwing branches are covered"
        );
        // Both throwing tests survived verification's forward and reversed runs.
        let source = &outcome.emission.suite.source;
        let expects = match junit {
            JUnitVersion::Five => "assertThrows(LinkageError.class",
            JUnitVersion::Four => "catch (LinkageError exception)",
        };
        assert!(
            source.matches(expects).count() >= 2,
            "{junit:?}: two tests expect a LinkageError in\n{source}"
        );
        assert!(
            !source.contains("ExceptionInInitializerError.class"),
            "{source}"
        );
        assert!(!source.contains("NoClassDefFoundError.class"), "{source}");
        assert!(
            outcome.emission.suite.kept.len() >= 4,
            "{junit:?}: {} tests kept in\n{source}",
            outcome.emission.suite.kept.len()
        );
    }
}
