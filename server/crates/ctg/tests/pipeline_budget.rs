//! The whole pipeline keeps to its budget: the job stops so that the time it leaves equals the
//! estimate of emitting and verifying its suite, verification ends near the budget's end, and
//! a second run reserves from what the first one measured. Gated by `CTGLS_E2E=1` (the real
//! worker, javac and JUnit; about 40 s).
//!
//! Wall times are asserted with a generous tolerance only: on a loaded machine every JVM start
//! is slower than the estimate, and the point is that the run ends near its budget, not 20 s
//! after it as a fixed reserve allowed.

mod pipeline_support;
use pipeline_support::{e2e_enabled, supervisor};

use std::path::{Path, PathBuf};
use std::time::Duration;

use ctg::budget::{CostLedger, EmissionCosts, MIN_SEARCH_SHARE};
use ctg::job::GenerationRequest;
use ctg::pipeline::{generate_tests, PipelineOptions, Verification};
use ctg::project::{JUnitVersion, LayoutOverrides, ProjectLayout};
use search::StopReason;

fn bank() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../tests/projects/bank")
}

#[test]
fn a_run_ends_near_its_budget_and_leaves_the_estimate_to_emission() {
    if !e2e_enabled() {
        eprintln!("skipped: the pipeline budget test runs with CTGLS_E2E=1");
        return;
    }
    let mut supervisor = supervisor();
    let layout = ProjectLayout::discover(
        &bank(),
        &LayoutOverrides {
            test_root: Some(std::env::temp_dir().join("ctgls-pipeline-budget-tests")),
            ..LayoutOverrides::default()
        },
    );
    // Enough for set-up (3 s under load), the reserve (about 6 s before anything was
    // measured) and a search that is not just the floor.
    let budget = Duration::from_secs(15);
    let mut request = GenerationRequest::new(layout, "com.example.bank.Bank");
    request.budget = budget;
    request.seed = 1;
    // Search until the budget says stop, so the stop is the budget's doing.
    request.stop_when_covered = false;
    let costs = CostLedger::default();
    let options = PipelineOptions {
        junit: Some(JUnitVersion::Five),
        costs: costs.clone(),
        ..PipelineOptions::default()
    };

    for run in 1..=2 {
        let reserved_from = costs.costs();
        let outcome = generate_tests(&request, &options, &mut supervisor, &mut ())
            .unwrap_or_else(|e| panic!("run {run}: {e}"));
        let generation = &outcome.generation;
        let timings = &generation.timings;
        let report = format!(
            "run {run}: wall {:?}, job {timings:?}, reserve {:?}, emission {:?}, rounds {}, \
             tests {}, costs before {reserved_from:?}",
            outcome.wall,
            generation.emission_reserve,
            outcome.emission.time,
            outcome.emission.suite.rounds,
            generation.tests.len(),
        );
        eprintln!("{report}");

        assert_eq!(
            outcome.emission.verification,
            Verification::JUnit,
            "{report}"
        );
        assert!(!outcome.emission.suite.kept.is_empty(), "{report}");
        // The search stopped where the budget rule says: the time left after set-up less the
        // reserve for its archive, less the minimisation share, but never below the floor
        // (one batch of slack for the stop, which is checked between batches).
        assert!(generation.emission_reserve > Duration::ZERO, "{report}");
        let set_up = timings.read + timings.start + timings.compile + timings.describe;
        let stop_at = budget
            .saturating_sub(set_up + generation.emission_reserve)
            .mul_f64(1.0 - request.minimisation_share)
            .max(budget.mul_f64(MIN_SEARCH_SHARE));
        let batch = Duration::from_secs(1);
        assert!(
            timings.search <= stop_at + batch,
            "stop at {stop_at:?}: {report}"
        );
        if generation.stop_reason == StopReason::TimeBudget {
            assert!(
                timings.search + Duration::from_millis(300) >= stop_at,
                "stop at {stop_at:?}: {report}"
            );
        }
        assert!(
            generation.emission_reserve >= reserved_from.estimate(generation.tests.len()),
            "minimisation only shrinks the suite the reserve was estimated for: {report}"
        );
        // The whole run ends near the budget; generous, because JVMs start slowly under load.
        assert!(outcome.wall <= budget * 2, "{report}");
    }
    assert_ne!(
        costs.costs(),
        EmissionCosts::default(),
        "the runs taught the ledger what emission costs here"
    );
    supervisor.shutdown();
}
