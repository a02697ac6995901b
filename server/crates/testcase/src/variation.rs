//! The interface the search uses: sampling, mutation and crossover of test cases with one
//! configuration. All randomness comes from the `StdRng` passed in, so the same seed gives the
//! same results.

use rand::rngs::StdRng;

use crate::cluster::Cluster;
use crate::config::Config;
use crate::crossover;
use crate::factory::Factory;
use crate::statement::TestCase;
use crate::validate::check_well_typed;

/// Search operators on test cases (Fraser and Arcuri, "Whole Test Suites" III-E) with their [`Config`]. Every operator keeps
/// a test case well typed ([`check_well_typed`]) and at most `config.max_length` long.
#[derive(Debug, Clone, Default)]
pub struct Variation {
    config: Config,
}

impl Variation {
    /// Probabilities outside `[0, 1]` are clamped ([`Config::sanitized`]).
    pub fn new(config: Config) -> Variation {
        Variation {
            config: config.sanitized(),
        }
    }

    pub fn config(&self) -> &Config {
        &self.config
    }

    /// A random test case of the cluster's targets (III-E3). It may be shorter than one
    /// statement only when no target can be called at all, which [`Cluster::build`] rules out.
    pub fn random_test(&self, cluster: &Cluster, rng: &mut StdRng) -> TestCase {
        let tc = self.factory(cluster, rng).random_test();
        debug_check(&tc, cluster);
        tc
    }

    /// Mutates `test` (remove, change, insert, each with probability 1/3; III-E2). Returns
    /// whether it changed.
    pub fn mutate(&self, test: &mut TestCase, cluster: &Cluster, rng: &mut StdRng) -> bool {
        let changed = self.factory(cluster, rng).mutate(test);
        debug_check(test, cluster);
        changed
    }

    /// Inserts a call of `callable` (one of the cluster's targets) at a random position.
    /// Returns whether it could (the test may be full, or a parameter impossible to build).
    /// Derakhshanfar et al.'s "Generating Class-Level Integration Tests Using Call Site
    /// Information" (section 3.2.4) repairs tests without a covering method this way.
    pub fn insert_call_of(
        &self,
        test: &mut TestCase,
        cluster: &Cluster,
        callable: &std::sync::Arc<crate::Callable>,
        rng: &mut StdRng,
    ) -> bool {
        let done = self.factory(cluster, rng).insert_call_of(test, callable);
        debug_check(test, cluster);
        done
    }

    /// Single-point relative crossover with repair (IV-B). Needs no cluster: the offspring
    /// only use statements of their parents, with their declared types.
    pub fn crossover(&self, a: &TestCase, b: &TestCase, rng: &mut StdRng) -> (TestCase, TestCase) {
        crossover::crossover(a, b, self.config.max_length, rng)
    }

    fn factory<'a>(&'a self, cluster: &'a Cluster, rng: &'a mut StdRng) -> Factory<'a> {
        Factory {
            cluster,
            config: &self.config,
            rng,
        }
    }
}

fn debug_check(tc: &TestCase, cluster: &Cluster) {
    if cfg!(debug_assertions) {
        if let Err(e) = check_well_typed(tc, cluster) {
            panic!("an operator produced an ill-typed test case: {e}\n{tc:#?}");
        }
    }
}
