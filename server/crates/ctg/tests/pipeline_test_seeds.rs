//! Seeding from the developer's tests through the job: `seeds.Licence` recognises a key by its
//! checksum, so only an input spelled exactly like the key in the fixture's hand-written
//! `LicenceTest` reaches "trial"; with the tests' pool switched off it stays uncovered, and the
//! "pro" key, spelled only in a test ctgls wrote, is never reached. Gated by `CTGLS_E2E=1` (the
//! real worker and javac; a few seconds).

mod pipeline_support;
use pipeline_support::{e2e_enabled, fixture_root, supervisor};

use std::time::Duration;

use ctg::job::{generate, GenerationRequest, GenerationResult};
use ctg::project::{LayoutOverrides, ProjectLayout};
use javamodel::branches::Outcome;
use jvm::Supervisor;

/// Whether the `true` outcome of the condition containing `text` was covered.
fn reached(result: &GenerationResult, text: &str) -> bool {
    let decision = result
        .decisions
        .iter()
        .find(|d| d.condition.contains(text))
        .unwrap_or_else(|| panic!("no condition with {text}"));
    decision
        .outcomes
        .iter()
        .any(|o| o.outcome == Outcome::True && o.covered_by.is_some())
}

fn run(supervisor: &mut Supervisor, test_constant_share: f64) -> GenerationResult {
    let root = fixture_root("testseeds");
    let layout = ProjectLayout::discover(&root, &LayoutOverrides::default());
    let mut request = GenerationRequest::new(layout, "seeds.Licence");
    request.seed = 1;
    request.criteria.exception = false;
    // Executions, not time, end the search, so that the machine's load does not decide.
    request.budget = Duration::from_secs(60);
    request.max_executions = Some(300);
    request.variation.test_constant_share = test_constant_share;
    generate(&request, supervisor, &mut ()).expect("generates")
}

#[test]
fn a_key_spelled_only_in_the_developers_test_reaches_its_branch() {
    if !e2e_enabled() {
        eprintln!("skipped: the test-seeding job test runs with CTGLS_E2E=1");
        return;
    }
    let mut supervisor = supervisor();
    let seeded = run(
        &mut supervisor,
        testcase::Config::default().test_constant_share,
    );
    assert!(
        reached(&seeded, "0x3ff57652L"),
        "the trial key was not drawn in {} executions",
        seeded.executions
    );
    assert!(
        !reached(&seeded, "0xdb4f7d63L"),
        "a generated test seeded the search"
    );
    let unseeded = run(&mut supervisor, 0.0);
    assert!(!reached(&unseeded, "0x3ff57652L"));
    assert!(unseeded.executions > 0);
}
