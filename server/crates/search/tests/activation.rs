//! DynaMOSA's goal activation along control dependence, on the goal table of a real Java model:
//! a nested goal becomes a target only once the outcome it depends on is covered, and already
//! covered goals pass activation on to their dependents. MOSA starts with everything active.

mod common;

use search::{Criteria, GoalId, GoalTable, GoalsManager};

const NESTED: &str = r#"package p;
class N {
    int m(int a, int b, int c) {
        if (a > 0) {
            if (b > 0) {
                if (c > 0) {
                    return 1; // L:ret1
                }
            }
        }
        return 0;
    }
}
"#;

fn goal(table: &GoalTable, ordinal: u32, outcome: javamodel::Outcome) -> GoalId {
    let decision = table
        .decision_by_key(&javamodel::DecisionKey {
            member: "p.N#m(int,int,int)".into(),
            ordinal,
        })
        .unwrap();
    let info = table.decision(decision);
    info.goal(info.outcome_index(outcome).unwrap())
}

fn setup() -> (GoalTable, [GoalId; 6], GoalId) {
    use javamodel::Outcome::{False, True};
    let table = common::table(NESTED, "p.N", Criteria::all());
    let goals = [
        goal(&table, 0, True),
        goal(&table, 0, False),
        goal(&table, 1, True),
        goal(&table, 1, False),
        goal(&table, 2, True),
        goal(&table, 2, False),
    ];
    let ret1 = table.line_goal(common::line_of(NESTED, "ret1")).unwrap();
    (table, goals, ret1)
}

#[test]
fn nested_goals_wait_for_the_outcome_they_depend_on() {
    let (table, [a_t, a_f, b_t, b_f, c_t, c_f], ret1) = setup();
    let mut manager = GoalsManager::dynamic(&table);
    let targets = manager.targets();
    assert!(targets.contains(&a_t) && targets.contains(&a_f));
    for nested in [b_t, b_f, c_t, c_f, ret1] {
        assert!(
            !targets.contains(&nested),
            "{}",
            table.describe(nested).unwrap()
        );
    }

    // Covering the false outcome activates nothing nested under the true one.
    manager.on_covered(&table, a_f);
    assert!(!manager.is_active(b_t));

    manager.on_covered(&table, a_t);
    let targets = manager.targets();
    assert!(targets.contains(&b_t) && targets.contains(&b_f));
    assert!(!targets.contains(&c_t) && !targets.contains(&a_t));

    manager.on_covered(&table, b_t);
    assert!(manager.targets().contains(&c_t));
    assert!(!manager.is_active(ret1));
    manager.on_covered(&table, c_t);
    assert!(manager.targets().contains(&ret1));
}

#[test]
fn activation_passes_through_goals_covered_before_they_were_active() {
    let (table, [a_t, a_f, b_t, b_f, c_t, c_f], ret1) = setup();
    let mut manager = GoalsManager::dynamic(&table);
    // A test covered the deepest goals while their parents were not targets yet (in one batch
    // the archive reports them in goal order, deepest last or first; both must work).
    manager.on_covered(&table, ret1);
    manager.on_covered(&table, c_t);
    manager.on_covered(&table, b_t);
    assert!(!manager.is_active(b_t) && !manager.is_active(c_t));
    manager.on_covered(&table, a_t);
    // b_t and c_t are covered, so their siblings become targets at once.
    let targets = manager.targets();
    assert!(targets.contains(&b_f), "B1.F");
    assert!(targets.contains(&c_f), "B2.F");
    assert!(targets.contains(&a_f));
    assert!(manager.is_active(ret1) && !targets.contains(&ret1));
}

#[test]
fn mosa_targets_every_goal_from_the_start() {
    let (table, goals, ret1) = setup();
    let mut manager = GoalsManager::all_active(&table);
    assert_eq!(manager.targets().len(), table.goal_count());
    manager.on_covered(&table, goals[4]);
    assert!(!manager.targets().contains(&goals[4]));
    assert!(manager.targets().contains(&ret1));
}
