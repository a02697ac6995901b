//! The environment as search input (Arcuri et al., "Environment Dependencies") through the
//! whole pipeline: a class that reads the console, a file whose name it is given, a system
//! property and the clock gets tests that cover every branch the clock does not decide, and
//! the JUnit class they are printed as passes under the real JUnit. Gated by `CTGLS_E2E=1`
//! (the real worker, javac and JUnit).

mod pipeline_support;
use pipeline_support::{e2e_enabled, fixture_request, supervisor};

use std::time::Duration;

use ctg::pipeline::{generate_tests, PipelineOptions, Verification};
use ctg::project::JUnitVersion;

#[test]
fn console_files_and_properties_reach_every_branch_the_clock_does_not_decide() {
    if !e2e_enabled() {
        eprintln!("skipped: the environment pipeline test runs with CTGLS_E2E=1");
        return;
    }
    let mut supervisor = supervisor();
    let mut request = fixture_request("inputs", "intake.Intake");
    request.budget = Duration::from_secs(20);
    // The clock's branch is never covered, so with the exception criterion the search would
    // run to the end of the budget; every other branch is covered within 400 executions (seed
    // 1), so a bound well above that ends it sooner, deterministically.
    request.max_executions = Some(800);
    let options = PipelineOptions {
        junit: Some(JUnitVersion::Five),
        write: false,
        ..PipelineOptions::default()
    };
    let outcome =
        generate_tests(&request, &options, &mut supervisor, &mut ()).expect("the pipeline runs");
    assert_eq!(outcome.emission.verification, Verification::JUnit);
    let generation = &outcome.generation;
    let uncovered: Vec<String> = generation
        .decisions
        .iter()
        .flat_map(|d| {
            d.outcomes
                .iter()
                .filter(|o| o.covered_by.is_none())
                .map(move |o| format!("line {} {} {:?}", d.line, d.condition, o.outcome))
        })
        .collect();
    // Only `morning`'s comparison with the clock may stay uncovered: the outcome the hour of
    // the run does not take, or both when verification's shifted clock drops the test that
    // asserted the other (a test must pass on any day, at any hour).
    assert!(
        uncovered.iter().all(|u| u.contains("getHour")),
        "uncovered: {uncovered:#?}"
    );
    // What verification kept passed under JUnit, and sets the environment up as plain JUnit;
    // a test that chose no console input gives none, so that none reads the runner's console.
    let source = &outcome.emission.suite.source;
    for expected in [
        "System.setIn(new ByteArrayInputStream(",
        "@TempDir Path temporaryDirectory",
        "System.setProperty(\"intake.mode\", \"verbose\");",
        "System.setProperties(systemProperties);",
        "System.setIn(systemIn);",
        "System.setIn(new ByteArrayInputStream(new byte[0]));",
    ] {
        assert!(source.contains(expected), "{expected} in\n{source}");
    }
}
