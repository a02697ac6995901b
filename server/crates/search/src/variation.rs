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
