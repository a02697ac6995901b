//! The whole pipeline on a class whose results hold Java text that is not valid Unicode (lone
//! surrogates): the search runs to its end, and the verified JUnit class asserts those values
//! exactly, as `\uXXXX` escapes javac reads back as the same code units, and passes under the
//! real JUnit. Gated by `CTGLS_E2E=1` (the real worker, javac and JUnit; about 20 s).

mod pipeline_support;
use pipeline_support::{e2e_enabled, supervisor};

use std::path::{Path, PathBuf};
use std::time::Duration;

use ctg::job::GenerationRequest;
use ctg::pipeline::{generate_tests, PipelineOptions, Verification};
use ctg::project::{JUnitVersion, LayoutOverrides, ProjectLayout};

fn project() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/job/surrogates")
}

#[test]
fn lone_surrogates_are_asserted_exactly_and_the_tests_pass() {
    if !e2e_enabled() {
        eprintln!("skipped: the surrogates pipeline test runs with CTGLS_E2E=1");
        return;
    }
    let mut supervisor = supervisor();
    let layout = ProjectLayout::discover(
        &project(),
        &LayoutOverrides {
            test_root: Some(std::env::temp_dir().join("ctgls-pipeline-surrogates-tests")),
            ..LayoutOverrides::default()
        },
    );
    let mut request = GenerationRequest::new(layout, "halves.Halves");
    request.budget = Duration::from_secs(15);
    request.seed = 1;
    let options = PipelineOptions {
        junit: Some(JUnitVersion::Five),
        write: false,
        ..PipelineOptions::default()
    };
    let outcome = generate_tests(&request, &options, &mut supervisor, &mut ())
        .expect("lone surrogates are values, not a broken worker");
    assert_eq!(outcome.emission.verification, Verification::JUnit);
    let generation = &outcome.generation;
    assert_eq!(
        generation.branches.covered, generation.branches.total,
        "the search ran to its end"
    );
    // What verification kept passed under JUnit: each value is asserted, lone surrogates as
    // their own escapes.
    let source = &outcome.emission.suite.source;
    for assertion in [
        r"assertEquals('\ud83d', Halves.high());",
        r#"assertEquals("\ude00", halves0.getLow());"#,
        r#"\ud83d", halves0.repeated());"#,
        r#"assertEquals("bad \ude00 above "#,
    ] {
        assert!(source.contains(assertion), "{assertion} in\n{source}");
    }
    // People read the message with U+FFFD in place of the lone surrogate.
    let messages: Vec<&str> = generation
        .exceptions
        .iter()
        .filter_map(|e| e.message.as_deref())
        .collect();
    assert!(
        messages
            .iter()
            .any(|m| m.starts_with("bad \u{fffd} above ")),
        "{messages:?}"
    );
}
