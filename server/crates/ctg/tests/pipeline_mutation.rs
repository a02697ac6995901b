//! Mutation analysis of the written suite and assertion selection by it, through the whole
//! pipeline on a small class with many getters: the kill matrix, the score (not lower than with
//! every planned assertion kept) and the selected assertions, a snapshot for a fixed seed and a
//! search bounded by executions. Gated by `CTGLS_E2E=1` (the real worker, javac and JUnit;
//! about 20 s). Refresh with `UPDATE_EXPECT=1`.

mod pipeline_support;
use pipeline_support::{e2e_enabled, fixture_request, supervisor};

use std::fmt::Write;
use std::time::Duration;

use ctg::mutation::MutationOptions;
use ctg::pipeline::{generate_tests, PipelineOptions, Verification};
use ctg::project::JUnitVersion;
use expect_test::expect_file;

#[test]
fn selected_assertions_kill_what_all_assertions_kill() {
    if !e2e_enabled() {
        eprintln!("skipped: the mutation pipeline test runs with CTGLS_E2E=1");
        return;
    }
    let mut supervisor = supervisor();
    let mut request = fixture_request("mutants", "bank.Account");
    request.budget = Duration::from_secs(25);
    request.max_executions = Some(400);
    let options = PipelineOptions {
        junit: Some(JUnitVersion::Five),
        write: false,
        mutation: MutationOptions {
            // Bounded by count only, so that the snapshot does not depend on the machine's speed.
            time_limit: Some(Duration::from_secs(120)),
            ..MutationOptions::enabled()
        },
        ..PipelineOptions::default()
    };
    let outcome = generate_tests(&request, &options, &mut supervisor, &mut ()).unwrap();
    assert_eq!(outcome.emission.verification, Verification::JUnit);
    let score = outcome.emission.mutation.clone().expect("the analysis ran");
    assert!(score.reached > 20, "{score:#?}");
    assert!(score.killed > score.reached / 2, "{score:#?}");
    assert!(
        score.score() >= score.score_all_assertions(),
        "selection lost kills: {score:#?}"
    );
    assert!(
        score.assertions_per_test < score.assertions_per_test_all,
        "selection kept every assertion: {score:#?}"
    );
    assert!(score.assertions_per_test <= 3.0, "{score:#?}");

    let mut snapshot = String::new();
    writeln!(snapshot, "{}", score.summary()).unwrap();
    writeln!(
        snapshot,
        "all assertions kept: {}/{} killed; assertions per test {:.2} (all: {:.2})",
        score.killed_all_assertions,
        score.reached,
        score.assertions_per_test,
        score.assertions_per_test_all
    )
    .unwrap();
    writeln!(snapshot, "survived:").unwrap();
    for (line, operator, description) in &score.survived {
        writeln!(snapshot, "  L{line} {operator} {description}").unwrap();
    }
    writeln!(snapshot, "selected assertions:").unwrap();
    for line in outcome.emission.suite.source.lines() {
        let line = line.trim();
        if line.starts_with("void ") || line.starts_with("assert") {
            writeln!(snapshot, "  {line}").unwrap();
        }
    }
    expect_file!["snapshots/pipeline_mutation.txt"].assert_eq(&snapshot);
}
