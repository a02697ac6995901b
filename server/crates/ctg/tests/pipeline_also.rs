//! The whole pipeline with another class instrumented (`GenerationRequest::also_instrument`):
//! the other class's coverage in the outcome is that of the tests verification kept, as the
//! class under test's is. `Desk.sweep` is the only way into `Archive.sweep`, and its tests fail
//! under verification, which drops them. Gated by `CTGLS_E2E=1` (the real worker, javac and
//! JUnit; about 20 s).

mod pipeline_support;
use pipeline_support::{e2e_enabled, supervisor};

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::time::Duration;

use ctg::job::GenerationRequest;
use ctg::pipeline::{generate_tests, PipelineOptions, Verification};
use ctg::project::{JUnitVersion, LayoutOverrides, ProjectLayout};

fn project() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/job/also_verified")
}

#[test]
fn other_class_coverage_is_that_of_the_tests_verification_kept() {
    if !e2e_enabled() {
        eprintln!("skipped: the also-instrument pipeline test runs with CTGLS_E2E=1");
        return;
    }
    let mut supervisor = supervisor();
    let layout = ProjectLayout::discover(
        &project(),
        &LayoutOverrides {
            test_root: Some(std::env::temp_dir().join("ctgls-pipeline-also-tests")),
            ..LayoutOverrides::default()
        },
    );
    let mut request = GenerationRequest::new(layout, "audit.Desk");
    request.also_instrument = vec!["audit.Archive".into()];
    request.budget = Duration::from_secs(20);
    // Every static goal of Desk is covered by the first generation (seed 1); the exception
    // criterion would keep the search going to the end of the budget, a bound ends it sooner,
    // deterministically.
    request.max_executions = Some(600);
    request.seed = 1;
    let options = PipelineOptions {
        junit: Some(JUnitVersion::Five),
        write: false,
        ..PipelineOptions::default()
    };
    let outcome = generate_tests(&request, &options, &mut supervisor, &mut ()).unwrap();
    assert_eq!(outcome.emission.verification, Verification::JUnit);
    let generation = &outcome.generation;
    let kept = &outcome.emission.suite.kept_tests;
    assert!(!outcome.emission.suite.dropped.is_empty());

    let archive = &generation.also_instrumented[0];
    assert_eq!(archive.class, "audit.Archive");
    let sweep = archive
        .decisions
        .iter()
        .find(|d| d.key.member == "audit.Archive#sweep()")
        .expect("sweep's entry");
    let sweep_goal = format!("{}.{}", sweep.key, sweep.outcomes[0].outcome);
    let covers_sweep = |test: usize| {
        generation.tests[test].also_covered[0]
            .goals
            .contains(&sweep_goal)
    };
    // The job's tests ran Archive.sweep, but none of those verification kept did.
    assert!(
        (0..generation.tests.len()).any(covers_sweep),
        "{:#?}",
        generation.tests
    );
    assert!(!kept.iter().any(|&test| covers_sweep(test)));
    assert_eq!(sweep.outcomes[0].covered_by, None);

    // What the outcome claims of Archive is exactly what the kept tests cover.
    let kept_goals: BTreeSet<&String> = kept
        .iter()
        .flat_map(|&test| &generation.tests[test].also_covered[0].goals)
        .collect();
    let mut claimed: BTreeSet<&String> = BTreeSet::new();
    let keys: Vec<(String, Option<usize>)> = archive
        .decisions
        .iter()
        .flat_map(|d| {
            d.outcomes
                .iter()
                .map(move |o| (format!("{}.{}", d.key, o.outcome), o.covered_by))
        })
        .collect();
    for (key, covered_by) in &keys {
        if let Some(test) = covered_by {
            assert!(kept.contains(test), "{key} by dropped test {test}");
            claimed.insert(key);
        }
    }
    assert_eq!(claimed, kept_goals);
    assert!(!claimed.is_empty());
    assert_eq!(archive.branches.covered, claimed.len());
    let kept_lines: BTreeSet<u32> = kept
        .iter()
        .flat_map(|&test| generation.tests[test].also_covered[0].lines.iter().copied())
        .collect();
    assert_eq!(
        archive.lines.covered,
        kept_lines.into_iter().collect::<Vec<_>>()
    );
    assert!(!archive.lines.covered.contains(&17), "sweep's first line");
}
