//! The archive keeps, per covered goal, the shortest covering test (aDynaMOSA: the one with the
//! lowest performance-score), keeps the earlier one on ties, and reports first coverage.

mod common;

use std::sync::Arc;

use common::{Call, FakeExecutor, ToyTest};
use search::{
    goal_fitness, ArchivePreference, Candidate, CoverageArchive, Criteria, ExecutionResult, GoalId,
    GoalTable,
};

fn test(calls: &[(usize, i64, i64)]) -> ToyTest {
    ToyTest {
        calls: calls
            .iter()
            .map(|&(method, x, y)| Call {
                method,
                args: [x, y],
            })
            .collect(),
    }
}

struct Run {
    test: ToyTest,
    result: Arc<ExecutionResult>,
    covered: Vec<GoalId>,
}

fn run(table: &GoalTable, calls: &[(usize, i64, i64)]) -> Run {
    let test = test(calls);
    let result = FakeExecutor::new(table, common::Easy).run_one(&test);
    let covered = goal_fitness(table, &result)
        .iter()
        .enumerate()
        .filter(|(_, f)| **f == 0.0)
        .map(|(i, _)| GoalId(i as u32))
        .collect();
    Run {
        test,
        result: Arc::new(result),
        covered,
    }
}

fn offer(
    archive: &mut CoverageArchive<ToyTest>,
    run: &Run,
    score: f64,
    execution: u64,
) -> Vec<GoalId> {
    archive.update(
        &run.covered,
        &Candidate {
            individual: &run.test,
            result: &run.result,
            length: run.test.calls.len(),
            performance_score: score,
            execution,
        },
    )
}

#[test]
fn keeps_the_shortest_covering_test_and_reports_first_coverage() {
    let table = common::table(common::EASY, "toy.Easy", Criteria::branch_only());
    let mut archive = CoverageArchive::new(ArchivePreference::Shorter);
    let long = run(&table, &[(1, 1, 1), (1, 1, 1), (0, 20, 5)]);
    let newly = offer(&mut archive, &long, 0.0, 1);
    assert_eq!(newly, long.covered, "everything is new the first time");
    assert!(newly.len() >= 3);

    // A shorter test covering classify's goals replaces the long one for those goals only.
    let short = run(&table, &[(0, 20, 5)]);
    assert!(
        offer(&mut archive, &short, 0.0, 2).is_empty(),
        "nothing new"
    );
    for goal in &short.covered {
        assert_eq!(archive.get(*goal).unwrap().individual, short.test);
    }
    let add_entry = long
        .covered
        .iter()
        .find(|g| !short.covered.contains(g))
        .unwrap();
    assert_eq!(archive.get(*add_entry).unwrap().individual, long.test);

    // An equally short test does not replace it: the earlier one stays.
    let same_length = run(&table, &[(0, 30, 1)]);
    offer(&mut archive, &same_length, 0.0, 3);
    for goal in &short.covered {
        assert_eq!(archive.get(*goal).unwrap().found_at_execution, 2);
    }

    // A longer test covering a new goal is archived for that goal alone.
    let new_goal = run(&table, &[(1, 1, 1), (1, 1, 1), (1, 1, 1), (0, 5, 0)]);
    let newly = offer(&mut archive, &new_goal, 0.0, 4);
    assert_eq!(newly.len(), 1, "classify's B0.F");
    assert_eq!(
        archive.tests().len(),
        3,
        "long (add), short (classify), new_goal"
    );
    assert_eq!(
        archive.distinct_tests(),
        3,
        "what the budget's estimate counts"
    );
    assert_eq!(archive.covered_count(), long.covered.len() + 1);
}

#[test]
fn adynamosa_archive_prefers_the_lower_performance_score() {
    let table = common::table(common::EASY, "toy.Easy", Criteria::branch_only());
    let mut archive = CoverageArchive::new(ArchivePreference::LowerPerformanceScore);
    let first = run(&table, &[(0, 20, 5)]);
    offer(&mut archive, &first, 3.0, 1);
    // Longer but cheaper by the proxies: replaces.
    let cheaper = run(&table, &[(1, 1, 1), (0, 20, 5)]);
    offer(&mut archive, &cheaper, 2.5, 2);
    for goal in &first.covered {
        assert_eq!(archive.get(*goal).unwrap().individual, cheaper.test);
    }
    // Shorter but not cheaper: stays.
    offer(&mut archive, &first, 2.5, 3);
    for goal in &first.covered {
        assert_eq!(archive.get(*goal).unwrap().found_at_execution, 2);
    }
}

#[test]
fn timed_out_tests_cover_nothing() {
    let table = common::table(common::EASY, "toy.Easy", Criteria::branch_only());
    let timeout = run(&table, &[(0, 20, 5), (3, 100_000, 0)]);
    assert!(timeout.covered.is_empty());
}

/// A test that covers a goal and then throws is measured by bytecode coverage tools as not
/// covering it, so for any goal a test whose run ends normally wins, whatever the lengths.
#[test]
fn a_test_that_ends_normally_beats_one_that_throws() {
    let table = common::table(common::EASY, "toy.Easy", Criteria::branch_only());
    let throws = |run: Run| {
        let mut result = (*run.result).clone();
        result.exceptions.push(search::ObservedException {
            member: None,
            type_name: "java.lang.ArithmeticException".into(),
            declared: false,
            line: None,
        });
        Run {
            result: Arc::new(result),
            ..run
        }
    };
    let mut archive = CoverageArchive::new(ArchivePreference::Shorter);
    let short_throwing = throws(run(&table, &[(0, 20, 5)]));
    offer(&mut archive, &short_throwing, 0.0, 1);
    let longer_normal = run(&table, &[(1, 1, 1), (0, 20, 5)]);
    offer(&mut archive, &longer_normal, 0.0, 2);
    for goal in &short_throwing.covered {
        assert_eq!(
            archive.get(*goal).unwrap().found_at_execution,
            2,
            "{goal:?}"
        );
    }
    let shortest_throwing = throws(run(&table, &[(0, 30, 1)]));
    offer(&mut archive, &shortest_throwing, 0.0, 3);
    for goal in &short_throwing.covered {
        assert_eq!(
            archive.get(*goal).unwrap().found_at_execution,
            2,
            "{goal:?}"
        );
    }
}
