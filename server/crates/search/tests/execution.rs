//! Recording a worker trace into an `ExecutionResult`: distances keep their minimum, entries
//! cover branch-free methods, catch probes cover "entered", and invalid values are dropped.

mod common;

use javamodel::{DecisionKey, Outcome};
use search::{goal_fitness, Criteria, DecisionId, ExecutionResult, ExecutionStatus, GoalTable};

const SOURCE: &str = r#"package p;
class R {
    int pick(int x) {
        switch (x) {
            case 1: return 10;
            case 2: return 20;
            default: return 0;
        }
    }
    int parse(String s) {
        try {
            return Integer.parseInt(s);
        } catch (NumberFormatException e) {
            return -1;
        }
    }
    void touch() {
        System.out.println();
    }
}
"#;

fn decision(table: &GoalTable, member: &str, ordinal: u32) -> DecisionId {
    table
        .decision_by_key(&DecisionKey {
            member: format!("p.R#{member}"),
            ordinal,
        })
        .unwrap()
}

#[test]
fn switch_rows_keep_the_minimum_distance_per_case() {
    let table = common::table(SOURCE, "p.R", Criteria::branch_only());
    let switch = decision(&table, "pick(int)", 0);
    let mut result = ExecutionResult::new(&table, ExecutionStatus::Ok);
    // Two executions, x = 5 then x = 3: record hits once per decision, distances per case.
    result.record_decision(&table, switch, 2);
    for (case, distance) in [(0, 4.0), (1, 3.0), (2, 0.0), (0, 2.0), (1, 1.0)] {
        assert!(result.record_distance(&table, switch, Outcome::Case(case), distance));
    }
    assert!(
        !result.record_distance(&table, switch, Outcome::True, 0.0),
        "no such outcome"
    );
    let info = table.decision(switch);
    assert_eq!(result.branch_distance(info.goal(0)), 2.0);
    assert_eq!(result.branch_distance(info.goal(1)), 1.0);
    assert_eq!(result.branch_distance(info.goal(2)), 0.0);
    assert_eq!(result.decision_hits(switch), 2);

    // Values that are not distances are dropped rather than read as "taken".
    result.record_distance(&table, switch, Outcome::Case(0), -1.0);
    result.record_distance(&table, switch, Outcome::Case(0), f64::NAN);
    assert_eq!(result.branch_distance(info.goal(0)), 2.0);
}

#[test]
fn entries_and_catches_cover_their_entered_goals() {
    let table = common::table(SOURCE, "p.R", Criteria::all());
    let mut result = ExecutionResult::new(&table, ExecutionStatus::Ok);
    let touch = table.member_by_key("p.R#touch()").unwrap();
    result.record_member_entry(&table, touch, 1);
    let catch = decision(&table, "parse(String)", 0);
    assert_eq!(table.decision(catch).outcomes, [Outcome::Entered]);
    result.record_decision(&table, catch, 1);
    result.record_line(14);
    result.record_line(14);
    assert_eq!(result.covered_lines(), [14]);

    let fitness = goal_fitness(&table, &result);
    let touch_entry = table.member(touch).entry_decision.unwrap();
    assert_eq!(fitness[table.decision(touch_entry).first_goal.index()], 0.0);
    assert_eq!(
        fitness[table.member(touch).method_goal.unwrap().index()],
        0.0
    );
    assert_eq!(fitness[table.decision(catch).first_goal.index()], 0.0);
    assert_eq!(fitness[table.line_goal(14).unwrap().index()], 0.0);
    // The catch ran, so `parse` ran.
    let parse = table.member_by_key("p.R#parse(String)").unwrap();
    assert_eq!(
        fitness[table.member(parse).method_goal.unwrap().index()],
        0.0
    );
    let pick = table.member_by_key("p.R#pick(int)").unwrap();
    assert_eq!(
        fitness[table.member(pick).method_goal.unwrap().index()],
        1.0
    );
}

#[test]
fn ids_from_another_table_are_ignored() {
    let small = common::table("package p; class S { void s() {} }", "p.S", Criteria::all());
    let table = common::table(SOURCE, "p.R", Criteria::all());
    let mut result = ExecutionResult::new(&small, ExecutionStatus::Ok);
    // Out-of-range ids do not panic and record nothing.
    result.record_decision(&small, DecisionId(40), 1);
    assert!(!result.record_distance(&small, DecisionId(40), Outcome::True, 0.0));
    assert_eq!(result.decision_hits(DecisionId(40)), 0);
    let touch = table.member_by_key("p.R#touch()").unwrap();
    assert_eq!(result.member_entries(touch), 0);
}
