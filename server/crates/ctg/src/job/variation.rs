//! The search's operators on test cases: `testcase::Variation` with the class's cluster, plus
//! the run-time pools: values the worker observed join the cluster's observed pool, and values
//! the code under test compared its data with (dynamic seeding) its compared pool, before the
//! next operator runs.

use std::cell::RefCell;
use std::rc::Rc;

use rand::rngs::StdRng;
use search::TestCodeProxies;
use testcase::{check_well_typed, Cluster, PrimitiveValue, Statement, TestCase};

/// Values seen at run time, waiting to be added to the cluster's pools. The executor fills
/// it, the operators drain it: both are borrowed by the search at once, so they share it.
pub type ObservedValues = Rc<RefCell<RuntimeValues>>;

/// What the executor collected since the operators last ran.
#[derive(Debug, Default)]
pub struct RuntimeValues {
    /// Values statements and getters returned (the observed pool).
    pub observed: Vec<PrimitiveValue>,
    /// Values the code under test compared its data with (the compared pool: dynamic seeding).
    pub compared: Vec<PrimitiveValue>,
}

pub struct ClusterVariation {
    operators: testcase::Variation,
    cluster: Cluster,
    observed: ObservedValues,
}

impl ClusterVariation {
    pub fn new(
        operators: testcase::Variation,
        cluster: Cluster,
        observed: ObservedValues,
    ) -> ClusterVariation {
        ClusterVariation {
            operators,
            cluster,
            observed,
        }
    }

    pub fn cluster(&self) -> &Cluster {
        &self.cluster
    }

    /// Moves the values observed since the last operator into the pool, in the order they were
    /// observed (so a run stays deterministic for its seed).
    fn absorb_observed(&mut self) {
        let mut values = self.observed.borrow_mut();
        for value in values.observed.drain(..) {
            self.cluster.add_observed(value);
        }
        for value in values.compared.drain(..) {
            self.cluster.add_compared(value);
        }
    }
}

impl search::Variation for ClusterVariation {
    type Individual = TestCase;

    fn random(&mut self, rng: &mut StdRng) -> TestCase {
        self.absorb_observed();
        self.operators.random_test(&self.cluster, rng)
    }

    fn mutate(&mut self, individual: &mut TestCase, rng: &mut StdRng) -> bool {
        self.absorb_observed();
        self.operators.mutate(individual, &self.cluster, rng)
    }

    fn crossover(&mut self, a: &TestCase, b: &TestCase, rng: &mut StdRng) -> (TestCase, TestCase) {
        self.operators.crossover(a, b, rng)
    }

    fn len(&self, individual: &TestCase) -> usize {
        individual.len()
    }

    /// Campos et al., "Continuous Test Generation" section 4.2: an earlier test is kept only if it still compiles against the class
    /// as it is now, which `check_well_typed` against the new cluster decides (a removed method
    /// or a changed signature is no longer in the cluster).
    fn accept_seed(&mut self, individual: &TestCase) -> bool {
        !individual.is_empty() && check_well_typed(individual, &self.cluster).is_ok()
    }

    fn test_code_proxies(&self, individual: &TestCase) -> TestCodeProxies {
        test_code_proxies(individual)
    }
}

/// Grano et al.'s "Testing with Fewer Resources" I3, I6 and I7 of a test case: method calls, other statements, and lines (one
/// statement prints as one line).
pub fn test_code_proxies(test: &TestCase) -> TestCodeProxies {
    let calls = test
        .statements()
        .iter()
        .filter(|s| matches!(s, Statement::Method { .. }))
        .count() as u64;
    TestCodeProxies {
        test_case_method_calls: calls,
        test_case_statements: test.len() as u64 - calls,
        test_length: test.len() as u64,
    }
}
