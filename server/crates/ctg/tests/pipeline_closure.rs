//! The whole pipeline on a project where the class under test reaches only part of the sources:
//! the job compiles that closure plus the project implementations its cluster uses, emission
//! compiles the same roots, and verification compiles and runs the written tests with the real
//! javac and JUnit against those classes, although another file of the project does not
//! compile. Gated by `CTGLS_E2E=1` (the real worker, javac and JUnit; about 20 s).

mod pipeline_support;
use pipeline_support::{e2e_enabled, supervisor};

use std::path::{Path, PathBuf};
use std::time::Duration;

use ctg::job::GenerationRequest;
use ctg::pipeline::{generate_tests, PipelineOptions, Verification};
use ctg::project::{JUnitVersion, LayoutOverrides, ProjectLayout};

fn project() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/job/closure")
}

#[test]
fn tests_using_implementations_outside_the_closure_compile_and_pass() {
    if !e2e_enabled() {
        eprintln!("skipped: the closure pipeline test runs with CTGLS_E2E=1");
        return;
    }
    let mut supervisor = supervisor();
    let layout = ProjectLayout::discover(
        &project(),
        &LayoutOverrides {
            test_root: Some(std::env::temp_dir().join("ctgls-pipeline-closure-tests")),
            ..LayoutOverrides::default()
        },
    );
    let mut request = GenerationRequest::new(layout, "shop.Pricer");
    request.budget = Duration::from_secs(15);
    request.seed = 1;
    request.criteria.exception = false;
    let options = PipelineOptions {
        junit: Some(JUnitVersion::Five),
        write: false,
        ..PipelineOptions::default()
    };
    let outcome = generate_tests(&request, &options, &mut supervisor, &mut ())
        .expect("Unfinished.java is outside what Pricer needs");
    assert_eq!(outcome.emission.verification, Verification::JUnit);
    let source = &outcome.emission.suite.source;
    for implementation in ["Percent", "Doubling"] {
        assert!(
            source.contains(&format!("new {implementation}(")),
            "{implementation} in\n{source}"
        );
    }
    assert_eq!(
        outcome.generation.branches.covered, outcome.generation.branches.total,
        "what the verified tests cover:\n{source}"
    );
}
