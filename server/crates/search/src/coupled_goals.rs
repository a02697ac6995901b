//! The Coupled Branches Criterion as search goals (Derakhshanfar, Devroey, Zaidman, van Deursen
//! and Panichella, "Generating Class-Level Integration Tests Using Call Site Information",
//! sections 3.1.4 and 3.2.1): an integration goal table holds the decisions of both the caller
//! and the callee class, and one goal per coupled branch `(b_r, b_e)` after their static goals.
//!
//! The fitness of a coupled goal is the paper's Equation 2: `D(r) + 1` while the caller branch is
//! not covered, else `D(e)`, with `D = approach level + normalised branch distance`, the
//! branch goals' own fitness (`fitness::goal_fitness`). A caller "branch" that is a member's
//! entry (the model's stand-in for a call site that depends on no branch, see
//! `javamodel::coupling`) scores 0 once the member ran and 1 before, as a dependency on a member
//! entry does everywhere else, except an initializer's (a field initializer's call): it has no
//! entry probe and runs with every constructor, so it counts as taken (0).
//!
//! The search's targets in an integration table are the coupled goals only
//! ([`crate::GoalsManager::coupled`]): section 3.2.2 uses MOSA because DynaMOSA's
//! control-dependence hierarchy does not exist between pairs. The branch goals of both classes
//! stay in the table (their fitness is what the pairs' fitness is made of, and their coverage is
//! reported) but are not optimised for.

use std::collections::BTreeSet;

use javamodel::coupling::{CallerBranch, CoupledPair};
use javamodel::{JavaModel, TypeDecl};

use crate::goal_table::{
    Builder, Criteria, Criterion, Dependency, GoalId, GoalTable, StaticGoal, StaticGoalKind,
};

/// One coupled branch in table terms.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CoupledGoal {
    /// `b_r`: a branch goal of the caller, or the entry of a caller member.
    pub caller: Dependency,
    /// `b_e`: a branch goal of the callee.
    pub callee: GoalId,
    /// The pair as the model states it, for reports and descriptions.
    pub pair: CoupledPair,
}

impl GoalTable {
    /// The integration table of a caller and a callee: the branch (and, with `criteria`, method)
    /// goals of `caller` in `caller_model` and `callee` in `callee_model` with their nested
    /// classes, then one goal per pair of `pairs` (`javamodel::coupling::Coupling::pairs`).
    /// `test_class` is the class whose tests the search writes (its binary name is the table's).
    /// Line goals are left out: lines of two files would share numbers. Pairs naming a goal
    /// neither class has (a constant condition) are skipped. `None` when a class is missing.
    pub fn for_integration(
        caller_model: &JavaModel,
        caller: &str,
        callee_model: &JavaModel,
        callee: &str,
        test_class: &str,
        pairs: &[CoupledPair],
        criteria: Criteria,
    ) -> Option<GoalTable> {
        let with_nested = |model: &'_ JavaModel, name: &str| -> Option<Vec<TypeDecl>> {
            model.type_by_binary_name(name)?;
            let prefix = format!("{name}$");
            Some(
                model
                    .all_types()
                    .into_iter()
                    .filter(|t| t.binary_name == name || t.binary_name.starts_with(&prefix))
                    .cloned()
                    .collect(),
            )
        };
        let mut types = with_nested(caller_model, caller)?;
        if callee != caller {
            types.extend(with_nested(callee_model, callee)?);
        }
        let refs: Vec<&TypeDecl> = types.iter().collect();
        let criteria = Criteria {
            line: false,
            ..criteria
        };
        let mut table = Builder::default().build(test_class, criteria, &refs, None);
        table.add_coupled(pairs);
        Some(table)
    }

    fn add_coupled(&mut self, pairs: &[CoupledPair]) {
        let mut seen = BTreeSet::new();
        for pair in pairs {
            let Some(callee) = self.branch_goal(&pair.callee) else {
                continue;
            };
            let caller = match &pair.caller {
                CallerBranch::Goal(goal) => match self.branch_goal(goal) {
                    Some(goal) => Dependency::Goal(goal),
                    None => continue,
                },
                CallerBranch::Entry(member) => match self.member_by_key(member) {
                    Some(member) => Dependency::Entry(member),
                    None => continue,
                },
            };
            if !seen.insert((caller, callee)) {
                continue;
            }
            let index = self.coupled.len() as u32;
            self.coupled.push(CoupledGoal {
                caller,
                callee,
                pair: pair.clone(),
            });
            self.push_goal(StaticGoal {
                kind: StaticGoalKind::Coupled { pair: index },
                dependencies: Vec::new(),
                root: true,
            });
        }
    }

    fn branch_goal(&self, key: &javamodel::GoalKey) -> Option<GoalId> {
        let decision = self.decision(self.decision_by_key(&key.decision)?);
        Some(decision.goal(decision.outcome_index(key.outcome)?))
    }

    /// The coupled branches of an integration table, in goal order.
    pub fn coupled(&self) -> &[CoupledGoal] {
        &self.coupled
    }

    /// The goal of coupled branch `index` of [`GoalTable::coupled`].
    pub fn coupled_goal(&self, index: usize) -> Option<GoalId> {
        self.goals_of(Criterion::Coupled).nth(index)
    }

    pub(crate) fn describe_coupled(&self, index: usize) -> String {
        self.coupled
            .get(index)
            .map_or_else(String::new, |goal| format!("coupled {}", goal.pair))
    }

    /// The criteria the table has goals of: the configured ones, and coupled branches in an
    /// integration table.
    pub fn enabled_criteria(&self) -> impl Iterator<Item = Criterion> + '_ {
        Criterion::ALL.into_iter().filter(move |&c| {
            self.criteria().includes(c) || (c == Criterion::Coupled && !self.coupled.is_empty())
        })
    }
}

/// Equation 2 for one coupled goal, given the fitness of every static goal before it and the
/// cost of a caller member's entry.
pub(crate) fn coupled_fitness(
    goal: &CoupledGoal,
    branch: impl Fn(GoalId) -> f64,
    entry_cost: impl Fn(crate::MemberId) -> f64,
) -> f64 {
    let caller = match goal.caller {
        Dependency::Goal(g) => branch(g),
        Dependency::Entry(member) => entry_cost(member),
    };
    if caller > 0.0 {
        caller + 1.0
    } else {
        branch(goal.callee)
    }
}
