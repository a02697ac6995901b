//! The search operators on individuals, supplied by the caller (the `testcase` crate for test
//! cases): random sampling, mutation, crossover, length, and which warm-start seeds to keep.

use rand::rngs::StdRng;

/// Operators on one kind of individual (a test case). The search never looks inside an
/// individual; it only calls these.
pub trait Variation {
    type Individual: Clone;

    /// A random individual (Fraser and Arcuri, "Whole Test Suites" III-E3).
    fn random(&mut self, rng: &mut StdRng) -> Self::Individual;

    /// Mutates in place; returns whether anything changed. Unchanged individuals keep their last
    /// execution result and are not run again.
    fn mutate(&mut self, individual: &mut Self::Individual, rng: &mut StdRng) -> bool;

    /// Single-point crossover of two parents into two offspring.
    fn crossover(
        &mut self,
        a: &Self::Individual,
        b: &Self::Individual,
        rng: &mut StdRng,
    ) -> (Self::Individual, Self::Individual);

    /// Length in statements: the secondary criterion of MOSA's preference sorting and the
    /// archive, and the unit of Fraser and Arcuri's "Whole Test Suites" bloat control.
    fn len(&self, individual: &Self::Individual) -> usize;

    /// Whether a warm-start individual from an earlier run is still valid for the class as it is
    /// now (Campos et al., "Continuous Test Generation" section 4.2 keeps only earlier tests that still compile).
    fn accept_seed(&mut self, individual: &Self::Individual) -> bool;

    /// The performance proxies of Grano et al., "Testing with Fewer Resources" that are properties of the test's own code.
    fn test_code_proxies(&self, individual: &Self::Individual) -> TestCodeProxies;

    /// For class-integration tests (Derakhshanfar et al., "Generating Class-Level Integration
    /// Tests Using Call Site Information", section 3.2.4): whether the individual calls a
    /// covering method, one that may run the callee. An individual that does not is *broken*.
    /// Always true outside integration searches.
    fn has_covering_call(&self, _individual: &Self::Individual) -> bool {
        true
    }

    /// Inserts a call to a covering method (one attempt of the paper's repair loop); false
    /// when the attempt failed.
    fn insert_covering_call(
        &mut self,
        _individual: &mut Self::Individual,
        _rng: &mut StdRng,
    ) -> bool {
        false
    }
}

/// The paper's limit of repair attempts after a mutation (section 3.2.4: 50 by default).
pub(crate) const REPAIR_ATTEMPTS: usize = 50;

/// Repairs a broken individual by inserting covering calls, at most [`REPAIR_ATTEMPTS`] times.
/// Returns whether it is whole (calls a covering method) afterwards.
pub(crate) fn repair<V: Variation + ?Sized>(
    variation: &mut V,
    individual: &mut V::Individual,
    rng: &mut StdRng,
) -> bool {
    for _ in 0..REPAIR_ATTEMPTS {
        if variation.has_covering_call(individual) {
            return true;
        }
        variation.insert_covering_call(individual, rng);
    }
    variation.has_covering_call(individual)
}

/// Grano et al., "Testing with Fewer Resources", Table I: the proxies computed statically from a test case.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct TestCodeProxies {
    /// I3 Test Case Method Calls: method calls in the test.
    pub test_case_method_calls: u64,
    /// I6 Test Case Statements: the test's statements that are not method calls.
    pub test_case_statements: u64,
    /// I7 Test Length: the test's lines of code.
    pub test_length: u64,
}
