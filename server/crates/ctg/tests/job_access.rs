//! The generation job against the real worker on a parser whose API is package-private
//! (`tests/fixtures/job/access`): only `parseSum` is public, so a cluster of public members
//! reaches a fraction of the branches; with the members a test in the parser's package can
//! call (package-private and protected ones, the package-private `Token`, the nested `Span`
//! and `DigitRule`, the only subclass of the abstract package-private `Rule`, in a file the
//! parser never names) the search covers them all but the method no test can call (asserted
//! up to one goal the public method reaches too, which a loaded machine's budget may miss).

use std::path::{Path, PathBuf};
use std::time::Duration;

use ctg::job::{generate, GenerationRequest};
use ctg::project::{LayoutOverrides, ProjectLayout};
use jvm::{Supervisor, WorkerConfig};

fn supervisor() -> Supervisor {
    // The worker cache every test of the workspace shares: whoever comes first builds it.
    Supervisor::new(WorkerConfig {
        cache_dir: Some(std::env::temp_dir().join("ctgls-jvm-tests-cache")),
        heap_mb: 256,
        ..WorkerConfig::default()
    })
    .expect("JDK 11+ and a buildable worker")
}

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/job/access")
}

#[test]
fn a_package_private_api_is_covered_through_a_test_in_its_package() {
    let mut sup = supervisor();
    let layout = ProjectLayout::discover(&fixture(), &LayoutOverrides::default());
    let mut request = GenerationRequest::new(layout, "text.Parser");
    request.budget = Duration::from_secs(20);
    request.seed = 1;
    request.criteria.exception = false;
    let result = generate(&request, &mut sup, &mut ()).expect("the parser has a cluster");
    let uncovered: Vec<String> = result
        .decisions
        .iter()
        .flat_map(|d| {
            d.outcomes
                .iter()
                .filter(|o| o.covered_by.is_none())
                .map(move |o| format!("{}.{} `{}`", d.key, o.outcome, d.condition))
        })
        .collect();
    eprintln!(
        "text.Parser: {}/{} branches",
        result.branches.covered, result.branches.total
    );
    // The entry of `remember(Cache)` stays uncovered: no test outside the parser can call it.
    // Every goal of the members only a test in the package can use is covered; of the rest
    // (reached through the public `parseSum` too) a loaded machine's time budget may miss one.
    assert!(
        uncovered.contains(&"text.Parser#remember(Cache)/B0.E `remember`".to_string()),
        "{uncovered:#?}"
    );
    for package_only in [
        "#matches(",
        "#count(",
        "#covers(",
        "$Span#",
        "#of(",
        "#getPosition(",
    ] {
        assert!(
            !uncovered.iter().any(|goal| goal.contains(package_only)),
            "{package_only}: uncovered {uncovered:#?}"
        );
    }
    assert!(
        result.branches.covered + 2 >= result.branches.total,
        "{}/{} covered; uncovered {uncovered:#?}",
        result.branches.covered,
        result.branches.total
    );
    // The branches of `count` need a `DigitRule`, which only widening by package-private
    // subtypes of the test's package compiles; `matches` needs a `Token`.
    let code: Vec<String> = result.tests.iter().map(|t| t.test.to_string()).collect();
    for needed in ["text.DigitRule", "text.Token"] {
        assert!(
            code.iter().any(|c| c.contains(needed)),
            "{needed} in {code:#?}"
        );
    }
}
