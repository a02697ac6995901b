//! aDynaMOSA's choice of secondary heuristic per generation (Grano et al., "Testing with Fewer Resources", Algorithm 2
//! "GET-SECONDARY-HEURISTIC"): start with the performance heuristic; on stagnation (no uncovered
//! goal improved its best fitness among the offspring since the previous generation), count a
//! stagnation against the heuristic just used and switch to the one with the lower count.

use crate::goal_table::GoalId;

/// The secondary heuristic that orders tests within a front.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SecondaryHeuristic {
    /// Subvector-dominance crowding distance (MOSA, DynaMOSA; aDynaMOSA on stagnation).
    CrowdingDistance,
    /// Equation 2 over the performance proxies (aDynaMOSA).
    Performance,
}

/// The state Algorithm 2 keeps between generations.
#[derive(Debug, Clone, Default)]
pub struct HeuristicSwitch {
    performance_counter: u32,
    crowding_counter: u32,
    previous: Option<SecondaryHeuristic>,
    /// Best fitness among the previous generation's offspring, per goal id.
    previous_best: Vec<f64>,
}

impl HeuristicSwitch {
    pub fn new() -> HeuristicSwitch {
        HeuristicSwitch::default()
    }

    /// The heuristic for generation `generation` (0-based), given, for each goal not covered
    /// yet, the best fitness any offspring of this generation reached on it.
    pub fn next(
        &mut self,
        generation: u64,
        best_of_offspring: &[(GoalId, f64)],
    ) -> SecondaryHeuristic {
        let improved = best_of_offspring.iter().any(|&(goal, best)| {
            self.previous_best
                .get(goal.index())
                .is_some_and(|&before| best < before)
        });
        for &(goal, best) in best_of_offspring {
            if self.previous_best.len() <= goal.index() {
                self.previous_best.resize(goal.index() + 1, f64::INFINITY);
            }
            self.previous_best[goal.index()] = best;
        }
        let chosen = match self.previous {
            Some(previous) if generation > 0 => {
                if improved {
                    match previous {
                        SecondaryHeuristic::Performance => self.performance_counter = 0,
                        SecondaryHeuristic::CrowdingDistance => self.crowding_counter = 0,
                    }
                    previous
                } else {
                    match previous {
                        SecondaryHeuristic::Performance => self.performance_counter += 1,
                        SecondaryHeuristic::CrowdingDistance => self.crowding_counter += 1,
                    }
                    if self.performance_counter <= self.crowding_counter {
                        SecondaryHeuristic::Performance
                    } else {
                        SecondaryHeuristic::CrowdingDistance
                    }
                }
            }
            _ => {
                self.performance_counter = 0;
                self.crowding_counter = 0;
                SecondaryHeuristic::Performance
            }
        };
        self.previous = Some(chosen);
        chosen
    }

    /// `(performance-counter, crowding-counter)`.
    pub fn counters(&self) -> (u32, u32) {
        (self.performance_counter, self.crowding_counter)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use SecondaryHeuristic::{CrowdingDistance, Performance};

    fn best(values: &[f64]) -> Vec<(GoalId, f64)> {
        values
            .iter()
            .enumerate()
            .map(|(i, v)| (GoalId(i as u32), *v))
            .collect()
    }

    #[test]
    fn follows_algorithm_two_on_stagnation_and_progress() {
        let mut switch = HeuristicSwitch::new();
        // i = 0: the initial heuristic is the performance one.
        assert_eq!(switch.next(0, &best(&[0.9, 0.8])), Performance);
        // Improvement keeps the heuristic and resets its counter.
        assert_eq!(switch.next(1, &best(&[0.5, 0.8])), Performance);
        assert_eq!(switch.counters(), (0, 0));
        // Stagnation under performance: counters (1, 0) -> crowding has the lower count.
        assert_eq!(switch.next(2, &best(&[0.5, 0.8])), CrowdingDistance);
        assert_eq!(switch.counters(), (1, 0));
        // Stagnation under crowding: (1, 1) -> performance (ties go to performance).
        assert_eq!(switch.next(3, &best(&[0.5, 0.8])), Performance);
        assert_eq!(switch.counters(), (1, 1));
        // Stagnation under performance again: (2, 1) -> crowding.
        assert_eq!(switch.next(4, &best(&[0.6, 0.9])), CrowdingDistance);
        assert_eq!(switch.counters(), (2, 1));
        // Improvement under crowding keeps crowding and resets its counter: (2, 0).
        assert_eq!(switch.next(5, &best(&[0.6, 0.1])), CrowdingDistance);
        assert_eq!(switch.counters(), (2, 0));
        // Stagnation under crowding: (2, 1) -> crowding still has the lower count.
        assert_eq!(switch.next(6, &best(&[0.6, 0.1])), CrowdingDistance);
        assert_eq!(switch.counters(), (2, 1));
    }

    #[test]
    fn covered_goals_drop_out_of_the_stagnation_check() {
        let mut switch = HeuristicSwitch::new();
        switch.next(0, &best(&[0.9, 0.8]));
        // Goal 1 got covered and is no longer reported; goal 0 did not improve.
        assert_eq!(switch.next(1, &[(GoalId(0), 0.9)]), CrowdingDistance);
        // A goal seen for the first time has nothing to improve on.
        assert_eq!(
            switch.next(2, &[(GoalId(0), 0.9), (GoalId(7), 0.1)]),
            Performance
        );
    }
}
