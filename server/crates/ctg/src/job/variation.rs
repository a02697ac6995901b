//! The search's operators on test cases: `testcase::Variation` with the class's cluster, plus
//! the run-time pools: values the worker observed join the cluster's observed pool, and values
//! the code under test compared its data with (dynamic seeding) its compared pool, before the
//! next operator runs.

use std::cell::RefCell;
use std::rc::Rc;

use std::sync::Arc;

use rand::rngs::StdRng;
use rand::Rng;
use search::TestCodeProxies;
use testcase::{check_well_typed, Callable, Cluster, PrimitiveValue, Statement, TestCase};

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
    /// The covering methods of an integration run (`job::integration`); empty otherwise.
    covering: Vec<Arc<Callable>>,
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
            covering: Vec::new(),
        }
    }

    /// Class-integration tests: every test is to call one of `covering` (Derakhshanfar et al.,
    /// "Generating Class-Level Integration Tests Using Call Site Information", section 3.2.4).
    /// Empty: no test is broken.
    pub fn with_covering(mut self, covering: Vec<Arc<Callable>>) -> ClusterVariation {
        self.covering = covering;
        self
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
        let mut test = self.operators.random_test(&self.cluster, rng);
        // Cling's sampling prefers covering methods (section 3.2.3): one is added to every
        // random test that lacks one (see `job::integration`).
        if !self.has_covering_call(&test) {
            self.insert_covering_call(&mut test, rng);
        }
        test
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

    fn has_covering_call(&self, individual: &TestCase) -> bool {
        self.covering.is_empty()
            || individual.statements().iter().any(|statement| {
                statement
                    .callable()
                    .is_some_and(|c| self.covering.iter().any(|k| **k == **c))
            })
    }

    fn insert_covering_call(&mut self, individual: &mut TestCase, rng: &mut StdRng) -> bool {
        if self.covering.is_empty() {
            return false;
        }
        let callable = self.covering[rng.gen_range(0..self.covering.len())].clone();
        self.operators
            .insert_call_of(individual, &self.cluster, &callable, rng)
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
