//! The regression guard with the real worker, javac and JUnit (`CTGLS_E2E=1`): a run of the
//! pipeline stores `shop.Account`'s tests with their assertions; an edit of `deposit` makes
//! the check report what changed, undoing it reports nothing, accepting the change makes the
//! stored tests hold again; the project's own `AccountTest` fails at its assertion line.

mod pipeline_support;
use pipeline_support::{e2e_enabled, supervisor};

use std::path::{Path, PathBuf};
use std::time::Duration;

use ctg::job::GenerationRequest;
use ctg::pipeline::{generate_tests, PipelineOptions};
use ctg::project::{JUnitVersion, LayoutOverrides, ProjectLayout, SourceOverlays};
use ctg::regression::{self, CheckRequest, Now};
use ctg::store::Store;
use ctg::verify::VerifyOptions;

/// A copy of the fixture project, removed on drop (the store is written into it).
struct Project(PathBuf);

impl Project {
    fn copy() -> Project {
        let to = std::env::temp_dir().join(format!("ctg-regression-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&to);
        let from = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/regression/account");
        copy_dir(&from, &to);
        Project(to)
    }
}

impl Drop for Project {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let path = entry.unwrap().path();
        let target = to.join(path.file_name().unwrap());
        if path.is_dir() {
            copy_dir(&path, &target);
        } else {
            std::fs::copy(&path, &target).unwrap();
        }
    }
}

#[test]
fn an_edit_that_changes_what_deposit_does_is_reported_until_undone_or_accepted() {
    if !e2e_enabled() {
        eprintln!("skipped: the regression guard test runs with CTGLS_E2E=1");
        return;
    }
    let project = Project::copy();
    let layout = ProjectLayout::discover(&project.0, &LayoutOverrides::default());
    let store = Store::open(&project.0);
    let mut supervisor = supervisor();
    let mut request = GenerationRequest::new(layout.clone(), "shop.Account");
    // Bounded by executions, not only by time: what the stored tests observe (a test that
    // deposits and then reads the balance, which the edit below must change) then does not
    // depend on how many executions the machine's load allowed (at load 10 the suite once
    // read the balance only before its deposits, and the edit changed nothing).
    request.budget = Duration::from_secs(20);
    request.max_executions = Some(2000);
    request.seed = 1;
    let options = PipelineOptions {
        junit: Some(JUnitVersion::Five),
        store: Some(store.clone()),
        ..PipelineOptions::default()
    };
    generate_tests(&request, &options, &mut supervisor, &mut ()).unwrap();
    let record = store.load("shop.Account").unwrap().expect("a stored run");
    let suite = record.suite.as_ref().expect("a verified class");
    assert!(
        suite.methods.iter().any(|m| !m.assertions.is_empty()),
        "{suite:#?}"
    );

    let path = layout.source_file_of("shop.Account").unwrap();
    let original = std::fs::read_to_string(&path).unwrap();
    let edited = original.replace("balanceCents += amount;", "balanceCents += amount + 1;");
    let check = |text: &str, record: &ctg::store::ClassRecord, supervisor: &mut jvm::Supervisor| {
        let overlays = SourceOverlays::new([(path.clone(), text.to_string())]);
        regression::check(
            &CheckRequest {
                layout: &layout,
                overlays: &overlays,
                class: "shop.Account",
                record,
                test_timeout: Duration::from_secs(1),
            },
            supervisor,
        )
        .unwrap()
    };

    let changed = check(&edited, &record, &mut supervisor);
    // Every stored test that deposits and then reads the balance sees one cent more.
    let deposits: Vec<_> = changed
        .changes
        .iter()
        .filter(|c| c.action.starts_with("deposit("))
        .collect();
    assert!(!deposits.is_empty(), "{:#?}", changed.changes);
    for change in &deposits {
        let Now::Value(now) = &change.now else {
            panic!("{change:#?}");
        };
        let expected: i64 = change
            .assertion
            .expected
            .trim_end_matches('L')
            .parse()
            .unwrap();
        let now: i64 = now.trim_end_matches('L').parse().unwrap();
        assert_eq!(now, expected + 1, "{change:#?}");
        assert_eq!(
            change.message,
            format!(
                "{} now leaves getBalanceCents() at {now}; {} expected {expected}",
                change.action, change.method
            )
        );
        assert_eq!(change.called[0].name, "deposit");
    }
    eprintln!("check after the edit: {:?}", changed.timings);

    if std::env::var("CTGLS_BENCH").is_ok_and(|v| v == "1") {
        bench_checks(&original, &edited, &record, &mut supervisor, &check);
    }

    // Undoing the edit: nothing changed.
    let undone = check(&original, &record, &mut supervisor);
    assert_eq!(undone.changes, Vec::new());
    assert!(undone.tests_run > 0);

    // Accepting: the stored class asserts the new values, and the check finds nothing.
    let accepted = regression::accept(suite, &changed.changes, None).unwrap();
    assert!(accepted.suite.source.contains(&format!(
        "{}, ",
        match &deposits[0].now {
            Now::Value(v) => v.clone(),
            _ => unreachable!(),
        }
    )));
    store.replace_suite("shop.Account", accepted.suite).unwrap();
    let record = store.load("shop.Account").unwrap().unwrap();
    assert_eq!(check(&edited, &record, &mut supervisor).changes, Vec::new());

    // The project's own test of the class fails at its assertion, and not the generated one.
    let overlays = SourceOverlays::new([(path.clone(), edited.clone())]);
    let tests = regression::find_project_tests(&layout, &overlays, "shop.Account");
    assert_eq!(tests.files.len(), 1, "{tests:?}");
    let verify = VerifyOptions {
        limits: supervisor.config().execution_limits(),
        ..VerifyOptions::default()
    };
    let run = regression::run_project_tests(&layout, &overlays, &tests, &verify);
    assert_eq!(run.failures.len(), 1, "{run:#?}");
    let failure = &run.failures[0];
    assert_eq!(failure.test, "depositAddsToBalance");
    assert_eq!(failure.line, Some(12));
    assert!(
        failure.message.contains("expected: <100> but was: <101>"),
        "{failure:?}"
    );
    let run = regression::run_project_tests(&layout, &SourceOverlays::default(), &tests, &verify);
    assert!(run.failures.is_empty() && run.ran.len() == 1, "{run:#?}");
    supervisor.shutdown();
}

/// The cost of one check (`CTGLS_E2E=1 CTGLS_BENCH=1`): edited and original text in turn, so
/// that every check compiles the class's file again, as after an edit. Prints; asserts nothing
/// about speed (docs/benchmarks.md).
fn bench_checks(
    original: &str,
    edited: &str,
    record: &ctg::store::ClassRecord,
    supervisor: &mut jvm::Supervisor,
    check: &dyn Fn(
        &str,
        &ctg::store::ClassRecord,
        &mut jvm::Supervisor,
    ) -> regression::CheckOutcome,
) {
    let mut totals = Vec::new();
    let mut parts = Vec::new();
    for round in 0..20 {
        let text = if round % 2 == 0 { edited } else { original };
        let outcome = check(text, record, supervisor);
        totals.push(outcome.timings.total);
        parts.push(outcome.timings);
    }
    let tests = check(original, record, supervisor).tests_run;
    totals.sort();
    let median = |mut v: Vec<Duration>| {
        v.sort();
        v[v.len() / 2]
    };
    eprintln!(
        "regression check of {tests} stored tests, 20 checks: total p50 {:?} max {:?}; \
         compile p50 {:?}, describe p50 {:?}, execute p50 {:?}",
        totals[totals.len() / 2],
        totals[totals.len() - 1],
        median(parts.iter().map(|t| t.compile).collect()),
        median(parts.iter().map(|t| t.describe).collect()),
        median(parts.iter().map(|t| t.execute).collect()),
    );
}
