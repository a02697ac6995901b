//! Parent selection: tournament selection for the MOSA family (rank, then secondary score) and
//! linear rank selection for the whole-suite GA (Fraser and Arcuri, "Whole Test Suites" III-D, after Whitley).

use rand::rngs::StdRng;
use rand::Rng;

/// Draws `size` individuals with replacement and returns the best: lowest `rank` (front index),
/// then highest `secondary` score (crowding distance or performance heuristic); ties go to the
/// first drawn.
pub fn tournament(rank: &[usize], secondary: &[f64], size: usize, rng: &mut StdRng) -> usize {
    let n = rank.len();
    let mut best = rng.gen_range(0..n);
    for _ in 1..size.max(1) {
        let other = rng.gen_range(0..n);
        let better = rank[other] < rank[best]
            || (rank[other] == rank[best] && secondary[other] > secondary[best]);
        if better {
            best = other;
        }
    }
    best
}

/// An index into a population of `len` sorted best first, drawn with linear ranking of
/// selective pressure `bias` in `(1, 2]`: the best individual is `bias` times as likely as the
/// median one to be picked.
pub fn rank_selection(len: usize, bias: f64, rng: &mut StdRng) -> usize {
    let r: f64 = rng.gen();
    let index = if bias <= 1.0 {
        r * len as f64
    } else {
        len as f64 * (bias - (bias * bias - 4.0 * (bias - 1.0) * r).sqrt()) / 2.0 / (bias - 1.0)
    };
    (index as usize).min(len.saturating_sub(1))
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    #[test]
    fn tournament_prefers_rank_then_secondary() {
        let mut rng = StdRng::seed_from_u64(7);
        let rank = [1, 0, 0, 2];
        let secondary = [9.0, 1.0, 3.0, 9.0];
        let mut wins = [0; 4];
        for _ in 0..2000 {
            wins[tournament(&rank, &secondary, 10, &mut rng)] += 1;
        }
        // With 10 draws out of 4 the best (rank 0, score 3) nearly always appears.
        assert!(wins[2] > 1900, "{wins:?}");
        assert_eq!(wins[3], 0);
    }

    #[test]
    fn rank_selection_favours_the_front_of_the_population() {
        let mut rng = StdRng::seed_from_u64(11);
        let mut counts = [0usize; 10];
        for _ in 0..20000 {
            counts[rank_selection(10, 1.7, &mut rng)] += 1;
        }
        assert!(counts[0] > counts[4] && counts[4] > counts[9], "{counts:?}");
        // Linear ranking with bias 1.7: the cumulative probability of the first fraction u of
        // the population is 1.7u - 0.7u^2, so P(best of 10) = 0.163 and P(worst) = 0.037.
        assert!(
            (counts[0] as f64 / 20000.0 - 0.163).abs() < 0.01,
            "{counts:?}"
        );
        assert!(
            (counts[9] as f64 / 20000.0 - 0.037).abs() < 0.01,
            "{counts:?}"
        );
    }
}
