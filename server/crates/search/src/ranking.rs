//! Ranking of test cases by their fitness vectors over the current targets: Pareto dominance,
//! fast non-dominated sorting (Deb et al., NSGA-II) and MOSA's preference sorting (Grano et al., "Testing with Fewer Resources"
//! section 2), which puts the best test for each uncovered target in a front of its own ahead
//! of the non-dominated fronts.
//!
//! `objectives[i][k]` is the fitness of individual `i` on target `k`; lower is better.

use std::cmp::Ordering;

/// `a` dominates `b`: no worse on every objective and strictly better on one.
pub fn dominates(a: &[f64], b: &[f64]) -> bool {
    let mut better = false;
    for (x, y) in a.iter().zip(b) {
        match x.total_cmp(y) {
            Ordering::Greater => return false,
            Ordering::Less => better = true,
            Ordering::Equal => {}
        }
    }
    better
}

/// Fast non-dominated sorting of the individuals `candidates` (indices into `objectives`).
/// Returns the fronts, best first, each in ascending index order.
pub fn fast_non_dominated_sort(objectives: &[Vec<f64>], candidates: &[usize]) -> Vec<Vec<usize>> {
    let n = candidates.len();
    let mut dominated_by_me: Vec<Vec<usize>> = vec![Vec::new(); n];
    let mut domination_count = vec![0usize; n];
    for p in 0..n {
        for q in (p + 1)..n {
            let (a, b) = (&objectives[candidates[p]], &objectives[candidates[q]]);
            if dominates(a, b) {
                dominated_by_me[p].push(q);
                domination_count[q] += 1;
            } else if dominates(b, a) {
                dominated_by_me[q].push(p);
                domination_count[p] += 1;
            }
        }
    }
    let mut fronts = Vec::new();
    let mut current: Vec<usize> = (0..n).filter(|&p| domination_count[p] == 0).collect();
    while !current.is_empty() {
        let mut next = Vec::new();
        for &p in &current {
            for &q in &dominated_by_me[p] {
                domination_count[q] -= 1;
                if domination_count[q] == 0 {
                    next.push(q);
                }
            }
        }
        let mut front: Vec<usize> = current.iter().map(|&p| candidates[p]).collect();
        front.sort_unstable();
        fronts.push(front);
        next.sort_unstable();
        current = next;
    }
    fronts
}

/// MOSA's preference sorting of all individuals of `objectives`.
///
/// Front 0 holds, for every target, the individual with the lowest fitness on it, ties going to
/// the shorter one (then to the lower index). If front 0 already exceeds `population_size`, all
/// other individuals form a single front 1; otherwise they are ranked by fast non-dominated
/// sorting into fronts 1, 2, ... (MOSA, Algorithm 2 "PREFERENCE-SORTING").
pub fn preference_sorting(
    objectives: &[Vec<f64>],
    lengths: &[usize],
    population_size: usize,
) -> Vec<Vec<usize>> {
    let n = objectives.len();
    let targets = objectives.first().map_or(0, Vec::len);
    let mut best: Vec<Option<usize>> = vec![None; targets];
    for (i, row) in objectives.iter().enumerate() {
        for (k, value) in row.iter().enumerate() {
            let better = match best[k] {
                None => true,
                Some(b) => {
                    value
                        .total_cmp(&objectives[b][k])
                        .then(lengths[i].cmp(&lengths[b]))
                        == Ordering::Less
                }
            };
            if better {
                best[k] = Some(i);
            }
        }
    }
    let mut preferred = vec![false; n];
    for i in best.into_iter().flatten() {
        preferred[i] = true;
    }
    let zero: Vec<usize> = (0..n).filter(|&i| preferred[i]).collect();
    let rest: Vec<usize> = (0..n).filter(|&i| !preferred[i]).collect();
    let mut fronts = Vec::new();
    let zero_len = zero.len();
    if !zero.is_empty() {
        fronts.push(zero);
    }
    if rest.is_empty() {
        return fronts;
    }
    if zero_len > population_size {
        fronts.push(rest);
    } else {
        fronts.extend(fast_non_dominated_sort(objectives, &rest));
    }
    fronts
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(rows: &[&[f64]]) -> Vec<Vec<f64>> {
        rows.iter().map(|r| r.to_vec()).collect()
    }

    #[test]
    fn dominance_needs_one_strictly_better_objective() {
        assert!(dominates(&[0.1, 0.5], &[0.2, 0.5]));
        assert!(!dominates(&[0.2, 0.5], &[0.2, 0.5]));
        assert!(!dominates(&[0.1, 0.6], &[0.2, 0.5]));
        assert!(dominates(&[1.0, 2.0], &[1.0, f64::INFINITY]));
    }

    #[test]
    fn fast_non_dominated_sort_on_handcrafted_vectors() {
        let objectives = v(&[
            &[1.0, 5.0], // 0: front 0
            &[2.0, 2.0], // 1: front 0
            &[5.0, 1.0], // 2: front 0
            &[3.0, 3.0], // 3: dominated by 1 -> front 1
            &[4.0, 6.0], // 4: dominated by 0,1,3 -> front 2
            &[6.0, 2.0], // 5: dominated by 1 and 2 -> front 1
            &[3.0, 3.0], // 6: equal to 3 -> front 1 with it
        ]);
        let all: Vec<usize> = (0..objectives.len()).collect();
        assert_eq!(
            fast_non_dominated_sort(&objectives, &all),
            vec![vec![0, 1, 2], vec![3, 5, 6], vec![4]]
        );
        // Sorting a subset keeps the original indices.
        assert_eq!(
            fast_non_dominated_sort(&objectives, &[4, 3, 5]),
            vec![vec![3, 5], vec![4]]
        );
    }

    #[test]
    fn preference_sorting_puts_best_per_target_first_with_shorter_ties() {
        // Three targets. 1 and 2 tie on target 0; 2 is shorter, so 2 is preferred for it.
        let objectives = v(&[
            &[0.9, 0.9, 0.9], // 0
            &[0.1, 0.8, 0.8], // 1
            &[0.1, 0.7, 0.9], // 2: best on target 0 (shorter) and target 1
            &[0.5, 0.9, 0.2], // 3: best on target 2
            &[0.2, 0.8, 0.8], // 4: dominated by 1
        ]);
        let lengths = [3, 5, 2, 4, 1];
        let fronts = preference_sorting(&objectives, &lengths, 10);
        assert_eq!(fronts, vec![vec![2, 3], vec![1], vec![4], vec![0]]);
    }

    #[test]
    fn preference_sorting_with_a_full_zero_front_keeps_the_rest_together() {
        // Each of 3 targets has a different best; population size 2 < |F0| = 3.
        let objectives = v(&[
            &[0.0, 1.0, 1.0],
            &[1.0, 0.0, 1.0],
            &[1.0, 1.0, 0.0],
            &[0.5, 0.5, 0.5],
            &[0.9, 0.9, 0.9],
        ]);
        let fronts = preference_sorting(&objectives, &[1; 5], 2);
        assert_eq!(fronts, vec![vec![0, 1, 2], vec![3, 4]]);
        // With room for F0, the rest is sorted by dominance.
        let fronts = preference_sorting(&objectives, &[1; 5], 4);
        assert_eq!(fronts, vec![vec![0, 1, 2], vec![3], vec![4]]);
    }

    #[test]
    fn preference_sorting_without_targets_is_one_front() {
        let objectives = vec![Vec::new(), Vec::new()];
        assert_eq!(
            preference_sorting(&objectives, &[1, 2], 2),
            vec![vec![0, 1]]
        );
    }
}
