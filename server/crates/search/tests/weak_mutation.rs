//! The weak-mutation criterion (Fraser and Arcuri, "Achieving Scalable Mutation-based Generation
//! of Whole Test Suites", section 3.2) in the search: a goal per mutant the real instrumenter
//! compiles in, its control-dependence parents (DynaMOSA activates it like a nested branch), and
//! its fitness: the distance to reaching the mutated code, then the infection distance the probes
//! report.

mod common;

use javamodel::instrument::{instrument, InstrumentOptions, MutationOperator};
use javamodel::Outcome;
use search::{
    goal_fitness, normalise, suite_fitness, Criteria, Criterion, DecisionId, Dependency,
    ExecutionResult, ExecutionStatus, GoalId, GoalTable, GoalsManager, StaticGoalKind,
};

const SOURCE: &str = "package p;
public class W {
    public int f(int x, int y) {
        if (x < y) {
            return x + y;
        }
        return 0;
    }
}
";

fn table(criteria: Criteria) -> GoalTable {
    let tree = syntax::parse_java(SOURCE, None);
    let model = common::model(SOURCE);
    let options = InstrumentOptions {
        mutants: true,
        ..InstrumentOptions::default()
    };
    let out = instrument(SOURCE, &tree, &model, &options);
    GoalTable::for_class_with_probes(
        &model,
        "p.W",
        criteria,
        &out.probes.lines,
        &out.probes.mutants,
    )
    .unwrap()
}

fn with_mutants() -> Criteria {
    Criteria {
        weak_mutation: true,
        ..Criteria::branch_only()
    }
}

/// The decision `x < y`.
fn condition(table: &GoalTable) -> DecisionId {
    let index = table.decisions().iter().position(|d| d.line == 4).unwrap();
    DecisionId(index as u32)
}

/// The goal of outcome `outcome` of `x < y`.
fn branch(table: &GoalTable, outcome: Outcome) -> GoalId {
    let info = table.decision(condition(table));
    info.goal(info.outcome_index(outcome).unwrap())
}

/// The mutant goals of `operator`, with their indexes in `table.mutants()`.
fn mutants_of(table: &GoalTable, operator: MutationOperator) -> Vec<(u32, GoalId)> {
    table
        .mutants()
        .iter()
        .enumerate()
        .filter(|(_, m)| m.operator == operator)
        .map(|(i, m)| (i as u32, m.goal))
        .collect()
}

#[test]
fn every_mutant_of_the_class_is_a_goal_that_depends_on_where_its_code_runs() {
    let table = table(with_mutants());
    let kinds: Vec<(MutationOperator, u32)> = table
        .mutants()
        .iter()
        .map(|m| (m.operator, m.line))
        .collect();
    use MutationOperator::*;
    assert_eq!(
        kinds,
        [
            (NegatedCondition, 4),
            (RelationalOperator, 4),
            (RelationalOperator, 4),
            (RelationalOperator, 4),
            (RelationalOperator, 4),
            (ReturnValue, 5),
            (ArithmeticOperator, 5),
            (ArithmeticOperator, 5),
            (ArithmeticOperator, 5),
            (ArithmeticOperator, 5),
            (ReturnValue, 7),
        ]
    );
    assert_eq!(table.goals_of(Criterion::WeakMutation).count(), 11);
    let taken = branch(&table, Outcome::True);
    let not_taken = branch(&table, Outcome::False);
    for (index, info) in table.mutants().iter().enumerate() {
        let goal = table.goal(info.goal).unwrap();
        assert_eq!(
            goal.kind,
            StaticGoalKind::WeakMutation {
                mutant: index as u32
            }
        );
        assert_eq!(table.mutant_by_local_id(info.local_id), Some(index as u32));
        let expected = match info.line {
            // The condition runs whenever `f` does: a root, as the decision's own goals.
            4 => vec![Dependency::Entry(info.member)],
            5 => vec![Dependency::Goal(taken)],
            _ => vec![Dependency::Goal(not_taken)],
        };
        assert_eq!(goal.dependencies, expected, "{}", info.description);
        assert_eq!(goal.root, info.line == 4);
    }
    assert!(table
        .describe(table.mutants()[6].goal)
        .unwrap()
        .contains("(aor) line 5: `+` replaced by `-`"));
    // Without the criterion the same probes give no mutant goals.
    let plain = table_without();
    assert!(plain.mutants().is_empty());
    assert_eq!(plain.goals_of(Criterion::WeakMutation).count(), 0);
}

fn table_without() -> GoalTable {
    table(Criteria::branch_only())
}

#[test]
fn dynamosa_activates_a_mutant_goal_when_its_branch_is_covered() {
    let table = table(with_mutants());
    let mut goals = GoalsManager::dynamic(&table);
    let (_, in_then) = mutants_of(&table, MutationOperator::ArithmeticOperator)[0];
    let (_, in_condition) = mutants_of(&table, MutationOperator::RelationalOperator)[0];
    assert!(goals.is_active(in_condition));
    assert!(!goals.is_active(in_then));
    goals.on_covered(&table, branch(&table, Outcome::True));
    assert!(goals.is_active(in_then));
}

#[test]
fn reached_mutants_score_their_normalised_infection_distance_unreached_ones_the_way_there() {
    let table = table(with_mutants());
    let decision_id = condition(&table);
    // f(5, 2): `x < y` false, 4 away from true (5 - 2 + 1).
    let mut result = ExecutionResult::new(&table, ExecutionStatus::Ok);
    result.record_branch(&table, decision_id, 1, 4.0, 0.0);
    let ror = mutants_of(&table, MutationOperator::RelationalOperator);
    let aor = mutants_of(&table, MutationOperator::ArithmeticOperator);
    result.record_infection(ror[0].0, 0.0);
    result.record_infection(ror[1].0, 3.0);
    result.record_infection(ror[1].0, 5.0);
    let fitness = goal_fitness(&table, &result);
    assert_eq!(fitness[ror[0].1.index()], 0.0, "weakly killed");
    assert_eq!(
        fitness[ror[1].1.index()],
        normalise(3.0),
        "the minimum infection distance"
    );
    // Never reached: one level below the uncovered true branch, as a line there would be.
    assert_eq!(fitness[aor[0].1.index()], 1.0 + normalise(4.0));
    // No row for a mutant of a member that ran: one level away, as a line of it would be.
    assert_eq!(fitness[ror[2].1.index()], 1.0);

    // The whole-suite fitness adds 0, the normalised distance, or 1 per mutant.
    let before = suite_fitness(&table, &[&result]);
    result.record_infection(aor[0].0, 1.0);
    assert_eq!(
        suite_fitness(&table, &[&result]),
        before - 1.0 + normalise(1.0)
    );
    // A distance that is no distance changes nothing.
    result.record_infection(aor[1].0, f64::NAN);
    result.record_infection(aor[1].0, -1.0);
    assert_eq!(result.infection(aor[1].0), f64::INFINITY);
}
