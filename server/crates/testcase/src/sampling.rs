//! Random test cases (Fraser and Arcuri, "Whole Test Suites" III-E3): a length `r` drawn uniformly from `1..=L`, then
//! insertions into an empty test case until it is at least `r` long.

use rand::Rng;

use crate::factory::Factory;
use crate::statement::TestCase;

/// Failed insertions tolerated per sampled test case, relative to `L`, before it is returned
/// shorter than drawn (a cluster whose targets cannot always be built).
const FAILED_INSERTIONS_PER_STATEMENT: usize = 4;

impl Factory<'_> {
    pub fn random_test(&mut self) -> TestCase {
        let mut tc = TestCase::new();
        let max = self.config.max_length.max(1);
        let wanted = self.rng.gen_range(1..=max);
        let mut failures = 0;
        while tc.len() < wanted && failures < FAILED_INSERTIONS_PER_STATEMENT * max {
            if !self.insert_random(&mut tc) {
                failures += 1;
            }
        }
        tc
    }
}
