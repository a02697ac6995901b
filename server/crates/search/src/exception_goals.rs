//! Exception goals, discovered while executing: one per distinct undeclared exception type thrown
//! out of a call to a member of the class under test (EvoSuite's exception coverage, restricted
//! to exceptions the member does not declare). A goal exists only once covered, so it never
//! steers the search; the archive keeps the shortest test that throws it.
//!
//! Exceptions that leave other members on the way (a helper whose caller catches them) make no
//! goals: the catch clause that ends them is a branch goal already, and one that leaves the
//! called member is this goal (the reasoning is in `ctg`'s `trace_mapping`).

use std::collections::BTreeMap;

use crate::execution::ExecutionResult;
use crate::goal_table::{GoalId, MemberId};

#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ExceptionGoal {
    pub member: MemberId,
    /// Binary name of the exception type.
    pub type_name: String,
}

/// The exception goals found so far, with ids following the static goals.
#[derive(Debug, Clone)]
pub struct ExceptionGoals {
    first_id: u32,
    goals: Vec<ExceptionGoal>,
    ids: BTreeMap<ExceptionGoal, GoalId>,
}

impl ExceptionGoals {
    /// An empty set whose first goal will get id `first_id` (the static goal count).
    pub fn new(first_id: usize) -> ExceptionGoals {
        ExceptionGoals {
            first_id: first_id as u32,
            goals: Vec::new(),
            ids: BTreeMap::new(),
        }
    }

    /// The exception goals `result` covers, creating those seen for the first time. Results of
    /// runs that did not finish cover nothing.
    pub fn observe(&mut self, result: &ExecutionResult) -> Vec<GoalId> {
        if !result.is_ok() {
            return Vec::new();
        }
        let mut covered = Vec::new();
        for exception in &result.exceptions {
            let Some(member) = exception.member else {
                continue;
            };
            if exception.declared {
                continue;
            }
            let goal = ExceptionGoal {
                member,
                type_name: exception.type_name.clone(),
            };
            let id = match self.ids.get(&goal) {
                Some(id) => *id,
                None => {
                    let id = GoalId(self.first_id + self.goals.len() as u32);
                    self.goals.push(goal.clone());
                    self.ids.insert(goal, id);
                    id
                }
            };
            if !covered.contains(&id) {
                covered.push(id);
            }
        }
        covered
    }

    pub fn get(&self, id: GoalId) -> Option<&ExceptionGoal> {
        let index = id.0.checked_sub(self.first_id)?;
        self.goals.get(index as usize)
    }

    pub fn len(&self) -> usize {
        self.goals.len()
    }

    pub fn is_empty(&self) -> bool {
        self.goals.is_empty()
    }

    /// Every exception goal with its id, in discovery order.
    pub fn iter(&self) -> impl Iterator<Item = (GoalId, &ExceptionGoal)> {
        self.goals
            .iter()
            .enumerate()
            .map(|(i, g)| (GoalId(self.first_id + i as u32), g))
    }
}
