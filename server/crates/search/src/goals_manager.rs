//! Which goals the many-objective search currently optimises (DynaMOSA's `U*`).
//!
//! DynaMOSA (Grano et al., "Testing with Fewer Resources" section 2 and Algorithm 1, `ENTRY-POINTS` / `UPDATE-TARGETS`) starts with the
//! goals free of control dependencies and, when a goal is covered, adds the goals control
//! dependent on it; a dependent that is already covered passes the activation on to its own
//! dependents. MOSA is the same with every goal active from the start.

use crate::goal_table::{GoalId, GoalTable};

#[derive(Debug, Clone)]
pub struct GoalsManager {
    active: Vec<bool>,
    covered: Vec<bool>,
}

impl GoalsManager {
    /// DynaMOSA's initial targets: the roots of the control-dependence graph.
    pub fn dynamic(table: &GoalTable) -> GoalsManager {
        GoalsManager {
            active: table.goals().iter().map(|g| g.root).collect(),
            covered: vec![false; table.goal_count()],
        }
    }

    /// MOSA: every static goal is a target from the start.
    pub fn all_active(table: &GoalTable) -> GoalsManager {
        GoalsManager {
            active: vec![true; table.goal_count()],
            covered: vec![false; table.goal_count()],
        }
    }

    /// Cling's MOSA over coupled branches (Derakhshanfar et al., "Generating Class-Level
    /// Integration Tests Using Call Site Information", section 3.2.2): only the coupled goals
    /// of an integration table are targets; the branch goals they are made of are not.
    pub fn coupled(table: &GoalTable) -> GoalsManager {
        GoalsManager {
            active: table
                .goals()
                .iter()
                .map(|g| matches!(g.kind, crate::goal_table::StaticGoalKind::Coupled { .. }))
                .collect(),
            covered: vec![false; table.goal_count()],
        }
    }

    /// Records that `goal` is covered and activates what depends on it. Ids beyond the static
    /// goals (exception goals) are ignored: they are never targets.
    pub fn on_covered(&mut self, table: &GoalTable, goal: GoalId) {
        let Some(covered) = self.covered.get_mut(goal.index()) else {
            return;
        };
        *covered = true;
        if !self.active[goal.index()] {
            // Its parents are not covered yet; it passes activation on once one of them is.
            return;
        }
        let mut work = vec![goal];
        while let Some(parent) = work.pop() {
            for &child in table.children(parent) {
                if self.active[child.index()] {
                    continue;
                }
                self.active[child.index()] = true;
                if self.covered[child.index()] {
                    work.push(child);
                }
            }
        }
    }

    pub fn is_active(&self, goal: GoalId) -> bool {
        self.active.get(goal.index()).copied().unwrap_or(false)
    }

    pub fn is_covered(&self, goal: GoalId) -> bool {
        self.covered.get(goal.index()).copied().unwrap_or(false)
    }

    /// The current targets `U*`: active and not yet covered, by id.
    pub fn targets(&self) -> Vec<GoalId> {
        (0..self.active.len())
            .filter(|&i| self.active[i] && !self.covered[i])
            .map(|i| GoalId(i as u32))
            .collect()
    }

    /// Static goals not yet covered, active or not.
    pub fn uncovered(&self) -> Vec<GoalId> {
        (0..self.covered.len())
            .filter(|&i| !self.covered[i])
            .map(|i| GoalId(i as u32))
            .collect()
    }
}
