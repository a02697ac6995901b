//! The crowding distance MOSA and DynaMOSA use to keep a front diverse: the subvector-dominance
//! assignment of Köppen and Yoshida (Grano et al., "Testing with Fewer Resources" section 3.2.2 cites it for DynaMOSA), which scales
//! to many objectives where NSGA-II's crowding distance does not.
//!
//! Following the MOSA authors' implementation in EvoSuite, a test's score is, over every other
//! test of the front, the smallest number of targets on which it is strictly better than that
//! test; higher scores are preferred. A test alone in its front scores `+inf`.

/// Scores of the individuals `front` (indices into `objectives`), in the order of `front`.
pub fn subvector_dominance(front: &[usize], objectives: &[Vec<f64>]) -> Vec<f64> {
    if front.len() == 1 {
        return vec![f64::INFINITY];
    }
    let mut scores = vec![f64::INFINITY; front.len()];
    for i in 0..front.len() {
        for j in (i + 1)..front.len() {
            let (a, b) = (&objectives[front[i]], &objectives[front[j]]);
            let mut a_better = 0usize;
            let mut b_better = 0usize;
            for (x, y) in a.iter().zip(b) {
                if x < y {
                    a_better += 1;
                } else if y < x {
                    b_better += 1;
                }
            }
            scores[i] = scores[i].min(a_better as f64);
            scores[j] = scores[j].min(b_better as f64);
        }
    }
    scores
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn subvector_dominance_on_a_handcrafted_front() {
        let objectives = vec![
            vec![0.1, 0.9, 0.5, 0.5], // 0
            vec![0.9, 0.1, 0.5, 0.5], // 1
            vec![0.5, 0.5, 0.1, 0.1], // 2
            vec![0.5, 0.5, 0.1, 0.2], // 3: nearly a copy of 2
        ];
        let scores = subvector_dominance(&[0, 1, 2, 3], &objectives);
        // 0 beats 1 on one target, 2 on one, 3 on one -> 1.
        // 1 likewise -> 1.
        // 2 beats 0 on 2 targets, 1 on 2, 3 on 1 -> 1.
        // 3 beats 0 on 2, 1 on 2, 2 on none -> 0: the crowded one.
        assert_eq!(scores, vec![1.0, 1.0, 1.0, 0.0]);
    }

    #[test]
    fn subvector_dominance_prefers_tests_unique_on_many_targets() {
        let objectives = vec![
            vec![0.0, 0.0, 0.0, 1.0],
            vec![1.0, 1.0, 1.0, 0.0],
            vec![0.5, 0.5, 0.5, 0.5],
        ];
        let scores = subvector_dominance(&[0, 1, 2], &objectives);
        assert_eq!(scores, vec![3.0, 1.0, 1.0]);
    }

    #[test]
    fn a_lone_test_is_infinitely_far() {
        assert_eq!(
            subvector_dominance(&[3], &vec![vec![]; 4]),
            vec![f64::INFINITY]
        );
    }
}
