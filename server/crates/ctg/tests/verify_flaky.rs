//! A subject with unstable results (`fixtures/emit/flaky`): assertions on time, randomness and
//! identity hash codes are replaced by comments saying why (found by running each test twice in
//! the worker, or by verification in fresh JVMs), stable assertions stay, and tests that fail
//! or hang outside the worker are dropped whole.

mod verify_support;

use ctg::emit::{observe, test_class_name};
use ctg::verify::{
    verify_and_stabilise, DropReason, Instability, JUnitSetup, ProjectClasses, RunOrder,
    VerifyOptions,
};
use testcase::junit::{JUnit, TestClassSpec};
use testcase::{JavaType, Statement, TestCase, VarRef};
use verify_support::*;

const FLAKY: &str = "flaky.Flaky";

/// The test class of the flaky subject: one test calling every method with a stable or an
/// unstable result, and one per method that is unstable in another way.
fn flaky_suite() -> (TestClassSpec, ProjectClasses, JUnitSetup) {
    let root = fixture_dir().join("flaky");
    let mut subject = Subject::new(&root);
    let cluster = subject.cluster(FLAKY);
    let method = |name: &str| {
        cluster
            .targets()
            .find(|c| c.to_string() == format!("{FLAKY}.{name}()"))
            .unwrap_or_else(|| panic!("no {name}"))
            .clone()
    };
    let test = |calls: &[&str]| {
        let constructor = cluster
            .targets()
            .find(|c| c.is_constructor())
            .unwrap()
            .clone();
        let mut statements = vec![Statement::Constructor {
            callable: constructor,
            type_args: vec![],
            args: vec![],
            ty: JavaType::class(FLAKY),
        }];
        for name in calls {
            let callable = method(name);
            statements.push(Statement::Method {
                ty: callable.returns.clone(),
                callable,
                receiver: Some(VarRef(0)),
                type_args: vec![],
                args: vec![],
            });
        }
        TestCase::from_statements(statements)
    };
    let tests = vec![
        test(&[
            "answer",
            "elapsedNanos",
            "objectText",
            "freshHashCode",
            "randomRatio",
        ]),
        test(&["launcherName"]),
        test(&["homeCheck"]),
        test(&["spinOutsideTheWorker"]),
    ];
    let executed: Vec<_> = observe(&mut subject.sup, subject.unit, &tests, &execute_options())
        .unwrap()
        .into_iter()
        .map(|r| r.unwrap())
        .collect();
    let mut spec = TestClassSpec::new(FLAKY, &test_class_name(FLAKY), JUnit::Five);
    spec.tests = executed;
    spec.facts = subject.facts.clone();
    let project = ProjectClasses {
        sources: java_files(&root),
        classpath: Vec::new(),
        overlays: Default::default(),
    };
    let setup = JUnitSetup::locate(JUnit::Five, &[]).expect("JUnit installed (tests/run.sh)");
    (spec, project, setup)
}

#[test]
fn unstable_assertions_become_comments_and_stable_ones_stay() {
    let (spec, project, setup) = flaky_suite();
    let options = VerifyOptions {
        test_timeout: std::time::Duration::from_secs(2),
        ..VerifyOptions::default()
    };
    let suite =
        verify_and_stabilise(&spec, &project, &setup, &options).unwrap_or_else(|e| panic!("{e}"));
    let source = &suite.source;

    // Stable assertions stay.
    assert!(
        source.contains("assertEquals(42, flaky0.answer());"),
        "{source}"
    );
    assert!(
        source.contains("assertEquals(\"flaky\", flaky0.getName());"),
        "{source}"
    );
    // Unstable ones leave a comment that says why.
    for comment in [
        "// Not asserted: flaky0.elapsedNanos() differs between runs (it depends on time).",
        "// Not asserted: flaky0.objectText() contains an identity hash code, which differs between runs.",
        "// Not asserted: flaky0.freshHashCode() differs between runs (it depends on identity hash codes).",
        "// Not asserted: flaky0.randomRatio() differs between runs (it depends on randomness).",
        "// Not asserted: flaky0.getCreatedNanos() differs between runs (it depends on time).",
        "// Not asserted: flaky0.launcherName() differs between runs.",
    ] {
        assert!(source.contains(comment), "missing `{comment}` in\n{source}");
    }
    assert!(!source.contains("homeCheck"), "{source}");
    assert!(!source.contains("spinOutsideTheWorker"), "{source}");

    // Verification dropped the launcher-name assertion, the test that fails outside the
    // worker and the one that hangs there, and nothing else.
    assert_eq!(suite.dropped.len(), 3, "{:#?}", suite.dropped);
    let home_name = suite
        .dropped
        .iter()
        .find(|d| d.assertion.as_deref() == Some("flaky0.launcherName()"))
        .expect("the launcherName assertion is dropped");
    assert!(
        matches!(
            home_name.reason,
            DropReason::Unstable {
                cause: Instability::Unknown,
                round: 1,
                ..
            }
        ),
        "{home_name:?}"
    );
    let home_check = suite
        .dropped
        .iter()
        .find(|d| d.test.starts_with("homeCheck"))
        .expect("the homeCheck test is dropped");
    assert_eq!(home_check.assertion, None);
    match &home_check.reason {
        DropReason::Failed { message, order, .. } => {
            assert_eq!(*order, RunOrder::Forward);
            assert!(message.contains("IllegalStateException"), "{message}");
        }
        other => panic!("{other:?}"),
    }

    let spin = suite
        .dropped
        .iter()
        .find(|d| d.test.starts_with("spinOutsideTheWorker"))
        .expect("the hanging test is dropped");
    match &spin.reason {
        DropReason::Failed { message, .. } => {
            assert!(message.contains("timed out"), "{message}")
        }
        other => panic!("{other:?}"),
    }

    assert_eq!(suite.kept, vec!["randomRatio", "launcherName"]);
    assert_eq!(suite.rounds, 2);
    assert_eq!(suite.deadline_round, None);
    let last = &suite.runs[suite.runs.len() - 2..];
    assert!(last.iter().all(|r| r.passed()), "{last:#?}");
    assert_eq!(last[0].executed, vec!["launcherName", "randomRatio"]);
    assert_eq!(last[1].executed, vec!["randomRatio", "launcherName"]);
}

#[test]
fn past_the_deadline_a_failing_assertion_costs_its_test_and_the_suite_still_passes() {
    let (spec, project, setup) = flaky_suite();
    let options = VerifyOptions {
        test_timeout: std::time::Duration::from_secs(2),
        // Already passed: no time for a round that saves the rest of a test.
        deadline: Some(std::time::Instant::now()),
        ..VerifyOptions::default()
    };
    let suite =
        verify_and_stabilise(&spec, &project, &setup, &options).unwrap_or_else(|e| panic!("{e}"));

    // The launcherName test loses more than its assertion; the other drops are as without a
    // deadline, and the suite is still one that passed a whole round.
    let home_name = suite
        .dropped
        .iter()
        .find(|d| d.test.starts_with("launcherName"))
        .unwrap_or_else(|| panic!("the launcherName test is dropped: {:#?}", suite.dropped));
    assert_eq!(home_name.assertion, None, "{home_name:?}");
    match &home_name.reason {
        DropReason::DeadlinePassed {
            round, assertion, ..
        } => {
            assert_eq!(*round, 1);
            assert_eq!(assertion, "flaky0.launcherName()");
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(suite.dropped.len(), 3, "{:#?}", suite.dropped);
    assert_eq!(suite.kept, vec!["randomRatio"]);
    assert_eq!(suite.deadline_round, Some(1));
    assert_eq!(suite.rounds, 2);
    let last = &suite.runs[suite.runs.len() - 2..];
    assert!(last.iter().all(|r| r.passed()), "{last:#?}");
    assert!(!suite.source.contains("launcherName"), "{}", suite.source);
}
