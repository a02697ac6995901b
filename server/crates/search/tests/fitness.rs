//! Fitness functions on real goal tables with traces recorded by the toy programs: approach
//! level plus normalised branch distance per goal, and Fraser and Arcuri's "Whole Test Suites" whole-suite fitness.

mod common;

use common::{Call, FakeExecutor, ToyTest};
use javamodel::{DecisionKey, Outcome};
use search::{
    goal_fitness, normalise, suite_fitness, Criteria, ExecutionResult, ExecutionStatus, GoalId,
    GoalTable,
};

fn goal(table: &GoalTable, member: &str, ordinal: u32, outcome: Outcome) -> GoalId {
    let decision = table
        .decision_by_key(&DecisionKey {
            member: format!("{}#{member}", table.binary_name()),
            ordinal,
        })
        .unwrap();
    let info = table.decision(decision);
    info.goal(info.outcome_index(outcome).unwrap())
}

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

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-12
}

#[test]
fn normalisation_is_d_over_d_plus_one() {
    assert_eq!(normalise(0.0), 0.0);
    assert_eq!(normalise(1.0), 0.5);
    assert!(close(normalise(201.0), 201.0 / 202.0));
    assert_eq!(normalise(f64::INFINITY), 1.0);
}

#[test]
fn approach_level_plus_branch_distance_along_control_dependence() {
    let table = common::table(common::HARD, "toy.Hard", Criteria::branch_only());
    let executor = FakeExecutor::new(&table, common::Hard);
    let a = |ordinal, outcome| goal(&table, "a(int,int)", ordinal, outcome);
    use Outcome::{False, True};

    // a(100, 0): x > 300 is false by 201.
    let fitness = goal_fitness(&table, &executor.run_one(&test(&[(0, 100, 0)])));
    assert_eq!(fitness[a(0, False).index()], 0.0);
    assert!(close(fitness[a(0, True).index()], normalise(201.0)));
    // One decision (B0) between the closest reached decision and B1: approach level 1.
    assert!(close(fitness[a(1, True).index()], 1.0 + normalise(201.0)));
    assert!(close(fitness[a(1, False).index()], 1.0 + normalise(201.0)));
    assert!(close(fitness[a(2, True).index()], 2.0 + normalise(201.0)));

    // a(301, 0): B0 taken, B1 reached, y == x + 17 missed by 318.
    let fitness = goal_fitness(&table, &executor.run_one(&test(&[(0, 301, 0)])));
    assert_eq!(fitness[a(0, True).index()], 0.0);
    assert_eq!(fitness[a(1, False).index()], 0.0);
    assert!(close(fitness[a(1, True).index()], normalise(318.0)));
    assert!(close(fitness[a(2, True).index()], 1.0 + normalise(318.0)));

    // The best of several calls counts: a(301, 300) misses B1 by 18.
    let fitness = goal_fitness(
        &table,
        &executor.run_one(&test(&[(0, 301, 0), (0, 301, 300)])),
    );
    assert!(close(fitness[a(1, True).index()], normalise(18.0)));

    // A member that never ran is one level further away than its entry: B0 of b scores 1 + 1,
    // its nested B1 one more.
    let b = |ordinal, outcome| goal(&table, "b(int,int)", ordinal, outcome);
    assert_eq!(fitness[b(0, True).index()], 2.0);
    assert_eq!(fitness[b(1, True).index()], 3.0);
}

#[test]
fn loops_and_switch_cases() {
    let table = common::table(common::EASY, "toy.Easy", Criteria::all());
    let executor = FakeExecutor::new(&table, common::Easy);
    let sum = |outcome| goal(&table, "sum(int,int)", 0, outcome);
    // sum(0): the loop condition 0 < 0 is false, missing true by 1.
    let fitness = goal_fitness(&table, &executor.run_one(&test(&[(3, 0, 0)])));
    assert_eq!(fitness[sum(Outcome::False).index()], 0.0);
    assert!(close(fitness[sum(Outcome::True).index()], normalise(1.0)));
    // The loop body's line depends on the loop's true outcome (its own back edge too).
    let body = table
        .line_goal(common::line_of(common::EASY, "sum_body"))
        .unwrap();
    assert!(close(fitness[body.index()], 1.0 + normalise(1.0)));

    // kind(5): case 1 missed by 4, case 2 by 3, default taken.
    let fitness = goal_fitness(&table, &executor.run_one(&test(&[(4, 5, 0)])));
    let kind = |case| goal(&table, "kind(int,int)", 0, Outcome::Case(case));
    assert!(close(fitness[kind(0).index()], normalise(4.0)));
    assert!(close(fitness[kind(1).index()], normalise(3.0)));
    assert_eq!(fitness[kind(2).index()], 0.0);
}

#[test]
fn branch_free_methods_and_method_goals_are_covered_by_entering() {
    let table = common::table(common::EASY, "toy.Easy", Criteria::all());
    let executor = FakeExecutor::new(&table, common::Easy);
    let result = executor.run_one(&test(&[(1, 5, 0)]));
    let fitness = goal_fitness(&table, &result);
    let add = table.member_by_key("toy.Easy#add(int,int)").unwrap();
    let entry = table.member(add).entry_decision.unwrap();
    assert_eq!(fitness[table.decision(entry).first_goal.index()], 0.0);
    assert_eq!(fitness[table.member(add).method_goal.unwrap().index()], 0.0);
    let divide = table.member_by_key("toy.Easy#divide(int,int)").unwrap();
    assert_eq!(
        fitness[table.member(divide).method_goal.unwrap().index()],
        1.0
    );
}

#[test]
fn runs_that_did_not_finish_are_worst_everywhere() {
    let table = common::table(common::EASY, "toy.Easy", Criteria::all());
    let executor = FakeExecutor::new(&table, common::Easy);
    // sum(100000) runs out of loop budget: a timeout with a partial trace.
    let result = executor.run_one(&test(&[(1, 5, 0), (3, 100_000, 0)]));
    assert_eq!(result.status, ExecutionStatus::Timeout);
    assert!(goal_fitness(&table, &result)
        .iter()
        .all(|f| *f == f64::INFINITY));
}

#[test]
fn whole_suite_fitness_counts_predicates_executed_twice() {
    let table = common::table(common::HARD, "toy.Hard", Criteria::branch_only());
    let executor = FakeExecutor::new(&table, common::Hard);
    // |M| = 8 methods, |B| = (3 + 3 + 3 + 2 + 3 + 2 + 3 + 3) decisions x 2 outcomes = 44.
    let empty: Vec<&ExecutionResult> = Vec::new();
    assert_eq!(suite_fitness(&table, &empty), 8.0 + 44.0);

    // One call a(100, 0): `a` entered (7 methods left), B0.F covered; B0 ran only once, so
    // B0.T counts 1, not its distance; the 42 other branches count 1 each.
    let once = executor.run_one(&test(&[(0, 100, 0)]));
    assert_eq!(suite_fitness(&table, &[&once]), 7.0 + 1.0 + 42.0);

    // Two executions of B0, in one test or spread over two: the minimum distance counts.
    let twice = executor.run_one(&test(&[(0, 100, 0), (0, 200, 0)]));
    let expected = 7.0 + normalise(101.0) + 42.0;
    assert!(close(suite_fitness(&table, &[&twice]), expected));
    let other = executor.run_one(&test(&[(0, 200, 0)]));
    assert!(close(suite_fitness(&table, &[&once, &other]), expected));

    // A suite with a timed-out test gets the maximum |M| + |B|.
    let mut timeout = ExecutionResult::new(&table, ExecutionStatus::Timeout);
    timeout.executed_statements = 3;
    assert_eq!(suite_fitness(&table, &[&twice, &timeout]), 52.0);
}

#[test]
fn whole_suite_fitness_asks_for_branch_free_methods_once_and_for_lines() {
    let table = common::table(common::EASY, "toy.Easy", Criteria::branch_only());
    let empty: Vec<&ExecutionResult> = Vec::new();
    // |M| = 6; B leaves out the entry goals of add and divide: 2 + 2 + 2 + 2 + 3 = 11.
    assert_eq!(suite_fitness(&table, &empty), 6.0 + 11.0);
    let executor = FakeExecutor::new(&table, common::Easy);
    let add = executor.run_one(&test(&[(1, 1, 1)]));
    assert_eq!(suite_fitness(&table, &[&add]), 5.0 + 11.0);

    let with_lines = common::table(common::EASY, "toy.Easy", Criteria::all());
    assert_eq!(suite_fitness(&with_lines, &empty), 6.0 + 11.0 + 16.0);
    let executor = FakeExecutor::new(&with_lines, common::Easy);
    let add = executor.run_one(&test(&[(1, 1, 1)]));
    // `add` entered and its one line covered.
    assert_eq!(suite_fitness(&with_lines, &[&add]), 5.0 + 11.0 + 15.0);
}
