//! Fitness functions: pure functions of (execution result, goal table).
//!
//! - Per goal, for the many-objective algorithms: approach level plus normalised branch distance
//!   (Fraser and Arcuri, "Whole Test Suites" IV-B, the fitness of single-target and MOSA-family search). 0 means covered.
//! - Per test suite, for the whole-suite GA: Fraser and Arcuri, "Whole Test Suites" Equation 1.

use crate::execution::ExecutionResult;
use crate::goal_table::{DecisionId, Dependency, GoalId, GoalTable, MemberId, StaticGoalKind};

/// Arcuri's normalisation `d / (d + 1)` (Fraser and Arcuri, "Whole Test Suites" III-C); an unseen distance (`+inf`) is 1.
pub fn normalise(distance: f64) -> f64 {
    if distance.is_infinite() {
        1.0
    } else {
        distance / (distance + 1.0)
    }
}

/// The fitness of every static goal of `table` for one execution, indexed by [`GoalId`].
///
/// A branch goal whose decision was evaluated scores its normalised branch distance. Otherwise it
/// scores `1 + ` the best score among its control-dependence parents: the approach level (the
/// number of control-dependent decisions between the closest one reached and the goal) plus the
/// normalised branch distance at the decision where execution went the other way, computed as a
/// shortest path over the dependence graph (loops make it cyclic). A member entry counts 0 when
/// the member ran and 1 when it did not: the model has no call graph, so an unreached member is
/// one level further away, whatever calls it. A line goal scores like a branch goal that was not
/// reached (0 once covered); a method goal scores 0 once entered, 1 before. A weak-mutation goal
/// whose mutated code ran scores its normalised infection distance (0: weakly killed), else
/// like a line goal not reached (Fraser and Arcuri, "Achieving Scalable Mutation-based
/// Generation of Whole Test Suites", section 3.2: the distance to reaching the mutation, then
/// the infection distance), so every reached mutant is closer than every unreached one.
///
/// A run that timed out or crashed scores `+inf` on every goal.
pub fn goal_fitness(table: &GoalTable, result: &ExecutionResult) -> Vec<f64> {
    let goal_count = table.goal_count();
    if !result.is_ok() {
        return vec![f64::INFINITY; goal_count];
    }
    let entered = entered_members(table, result);
    let reach = reach_costs(table, result, &entered);
    let dependency_cost = |dep: &Dependency| match *dep {
        Dependency::Entry(member) => {
            if entered[member.index()] {
                0.0
            } else {
                1.0
            }
        }
        Dependency::Goal(goal) => branch_fitness(table, result, &reach, goal),
    };
    // A goal not reached yet: one level below its cheapest control-dependence parent.
    let unreached = |goal: &crate::goal_table::StaticGoal| {
        1.0 + goal
            .dependencies
            .iter()
            .map(dependency_cost)
            .fold(f64::INFINITY, f64::min)
    };
    table
        .goals()
        .iter()
        .enumerate()
        .map(|(index, goal)| match goal.kind {
            StaticGoalKind::Branch { .. } => {
                branch_fitness(table, result, &reach, GoalId(index as u32))
            }
            StaticGoalKind::Line { line } => {
                if result.line_covered(line) {
                    0.0
                } else {
                    unreached(goal)
                }
            }
            StaticGoalKind::Method { member } => {
                if entered[member.index()] {
                    0.0
                } else {
                    1.0
                }
            }
            StaticGoalKind::WeakMutation { mutant } => {
                let infection = result.infection(mutant);
                if infection.is_finite() {
                    normalise(infection)
                } else {
                    unreached(goal)
                }
            }
            StaticGoalKind::Coupled { pair } => match table.coupled().get(pair as usize) {
                Some(coupled) => crate::coupled_goals::coupled_fitness(
                    coupled,
                    |goal| branch_fitness(table, result, &reach, goal),
                    |member| {
                        // Initializers have no entry probe; they run with every constructor
                        // (or class load), so their "entry" is taken whenever the callee's
                        // branch is reached through them.
                        let initializer = matches!(
                            table.member(member).kind,
                            javamodel::MemberKind::InstanceInitializer
                                | javamodel::MemberKind::StaticInitializer
                        );
                        if initializer || entered[member.index()] {
                            0.0
                        } else {
                            1.0
                        }
                    },
                ),
                None => f64::INFINITY,
            },
        })
        .collect()
}

/// Whether the member ran: entered by its probe, or any of its decisions evaluated.
fn entered_members(table: &GoalTable, result: &ExecutionResult) -> Vec<bool> {
    let mut entered: Vec<bool> = (0..table.members().len())
        .map(|m| result.member_entries(MemberId(m as u32)) > 0)
        .collect();
    for (index, decision) in table.decisions().iter().enumerate() {
        if result.decision_hits(DecisionId(index as u32)) > 0 {
            entered[decision.member.index()] = true;
        }
    }
    entered
}

fn branch_fitness(table: &GoalTable, result: &ExecutionResult, reach: &[f64], goal: GoalId) -> f64 {
    let distance = result.branch_distance(goal);
    if distance == 0.0 {
        return 0.0;
    }
    let StaticGoalKind::Branch { decision, .. } = table.goals()[goal.index()].kind else {
        return f64::INFINITY;
    };
    if result.decision_hits(decision) > 0 {
        normalise(distance)
    } else {
        reach[decision.index()]
    }
}

/// Per decision, the cost of getting it evaluated: 0 when it was, else `1 +` the cheapest
/// dependency. Bellman-Ford style relaxation to the fixpoint; every step adds 1, so it settles
/// within one pass per decision.
fn reach_costs(table: &GoalTable, result: &ExecutionResult, entered: &[bool]) -> Vec<f64> {
    let decisions = table.decisions();
    let mut reach: Vec<f64> = (0..decisions.len())
        .map(|d| {
            if result.decision_hits(DecisionId(d as u32)) > 0 {
                0.0
            } else {
                f64::INFINITY
            }
        })
        .collect();
    for _ in 0..=decisions.len() {
        let mut changed = false;
        for (index, decision) in decisions.iter().enumerate() {
            if reach[index] == 0.0 {
                continue;
            }
            let best = decision
                .dependencies
                .iter()
                .map(|dep| match *dep {
                    Dependency::Entry(member) => {
                        if entered[member.index()] {
                            0.0
                        } else {
                            1.0
                        }
                    }
                    Dependency::Goal(goal) => branch_fitness(table, result, &reach, goal),
                })
                .fold(f64::INFINITY, f64::min);
            let candidate = 1.0 + best;
            if candidate < reach[index] {
                reach[index] = candidate;
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    reach
}

/// Fraser and Arcuri, "Whole Test Suites", Equation 1, for the test suite whose tests produced `results`:
/// `|M| - |M_T| + sum_b d(b, T)`, where `d(b, T)` is 0 for a covered branch, the normalised
/// minimum distance when the branch's decision was evaluated at least twice (so that both
/// outcomes can be taken), and 1 otherwise. `M` are the methods and constructors; the
/// method-entry goals of branch-free methods are left out of `B` because `|M| - |M_T|` already
/// asks for them. With the line criterion on, each uncovered line adds 1 (EvoSuite sums the
/// suite fitness of every criterion); exceptions add nothing, having no guidance. Each mutant
/// of the weak-mutation criterion adds 0 when weakly killed, its normalised minimum infection
/// distance when reached, and 1 otherwise (EvoSuite's `WeakMutationSuiteFitness`).
///
/// A suite with a test that timed out or crashed gets the maximum, `|M| + |B|` (+ lines), as in
/// Fraser and Arcuri, "Whole Test Suites" IV-A.
pub fn suite_fitness(table: &GoalTable, results: &[&ExecutionResult]) -> f64 {
    let methods: Vec<MemberId> = table
        .members()
        .iter()
        .enumerate()
        .filter(|(_, m)| m.is_method)
        .map(|(i, _)| MemberId(i as u32))
        .collect();
    let branch_goals: Vec<GoalId> = (0..table.branch_goal_count())
        .map(|g| GoalId(g as u32))
        .filter(|&g| match table.goals()[g.index()].kind {
            StaticGoalKind::Branch { decision, .. } => {
                table.decision(decision).kind != javamodel::DecisionKind::MethodEntry
            }
            _ => false,
        })
        .collect();
    let lines: Vec<u32> = table
        .goals()
        .iter()
        .filter_map(|g| match g.kind {
            StaticGoalKind::Line { line } => Some(line),
            _ => None,
        })
        .collect();
    let mutants = table.mutants().len();
    if results.iter().any(|r| !r.is_ok()) {
        return (methods.len() + branch_goals.len() + lines.len() + mutants) as f64;
    }

    let mut entered = vec![false; table.members().len()];
    for result in results {
        for (slot, ran) in entered.iter_mut().zip(entered_members(table, result)) {
            *slot |= ran;
        }
    }
    let mut fitness = methods.iter().filter(|m| !entered[m.index()]).count() as f64;
    for &goal in &branch_goals {
        let StaticGoalKind::Branch { decision, .. } = table.goals()[goal.index()].kind else {
            continue;
        };
        let min_distance = results
            .iter()
            .map(|r| r.branch_distance(goal))
            .fold(f64::INFINITY, f64::min);
        if min_distance == 0.0 {
            continue;
        }
        let hits: u64 = results
            .iter()
            .map(|r| u64::from(r.decision_hits(decision)))
            .sum();
        fitness += if hits >= 2 {
            normalise(min_distance)
        } else {
            1.0
        };
    }
    for line in lines {
        if !results.iter().any(|r| r.line_covered(line)) {
            fitness += 1.0;
        }
    }
    for mutant in 0..mutants as u32 {
        let infection = results
            .iter()
            .map(|r| r.infection(mutant))
            .fold(f64::INFINITY, f64::min);
        fitness += normalise(infection);
    }
    fitness
}
