//! Search parameters, with the defaults of the papers they come from. Passed in, never global.

/// The search algorithm.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Algorithm {
    /// Many-objective search with goals activated along control dependence (Grano et al., "Testing with Fewer Resources"
    /// Algorithm 1 without the aDynaMOSA lines).
    #[default]
    DynaMosa,
    /// DynaMOSA with performance proxies as an adaptive secondary heuristic (Grano et al., "Testing with Fewer Resources").
    ADynaMosa,
    /// DynaMOSA with every goal active from the start.
    Mosa,
    /// Whole test suite generation (Fraser and Arcuri, "Whole Test Suites" Algorithm 1).
    WholeSuite,
}

/// Parameters of the search. `Default` gives the papers' values. The criteria are chosen when
/// building the [`crate::GoalTable`]; the mutation rate of single tests (each statement with
/// probability 1/n, Fraser and Arcuri, "Whole Test Suites" III-E2) is the [`crate::Variation`]'s.
#[derive(Debug, Clone, PartialEq)]
pub struct SearchConfig {
    pub algorithm: Algorithm,
    /// Test cases per generation of the MOSA family: 50, EvoSuite's default, which Grano et al., "Testing with Fewer Resources"
    /// uses ("default GA parameters used by EvoSuite", section 4.2).
    pub population_size: usize,
    /// Probability of crossing two parents over: 0.75 (Fraser and Arcuri, "Whole Test Suites" IV-D, "3/4"; also EvoSuite's
    /// default, hence Grano et al.'s "Testing with Fewer Resources").
    pub crossover_probability: f64,
    /// Tournament size of the MOSA family: 10, EvoSuite's default (Grano et al., "Testing with Fewer Resources" section 3.2.2 names
    /// tournament selection and EvoSuite's defaults).
    pub tournament_size: usize,
    pub whole_suite: WholeSuiteConfig,
}

impl Default for SearchConfig {
    fn default() -> SearchConfig {
        SearchConfig {
            algorithm: Algorithm::DynaMosa,
            population_size: 50,
            crossover_probability: 0.75,
            tournament_size: 10,
            whole_suite: WholeSuiteConfig::default(),
        }
    }
}

/// Parameters only the whole-suite GA uses. Mutation of single test cases (each statement with
/// probability 1/n, statement insertion sigma' = 0.5, test length limit L = 80) belongs to the
/// [`crate::Variation`]; what is here acts on suites.
#[derive(Debug, Clone, PartialEq)]
pub struct WholeSuiteConfig {
    /// Suites per generation: 80 (Fraser and Arcuri, "Whole Test Suites" IV-D).
    pub population_size: usize,
    /// Selective pressure of rank selection: 1.7, EvoSuite's default (Fraser and Arcuri, "Whole Test Suites" III-D names
    /// rank selection but not its bias).
    pub rank_bias: f64,
    /// Best suites copied unchanged into the next generation: 1, EvoSuite's default (Fraser and Arcuri, "Whole Test Suites"
    /// Algorithm 1 line 3 says "elite" without a size).
    pub elite_size: usize,
    /// Maximum number of tests in a suite, N = 100 (Fraser and Arcuri, "Whole Test Suites" IV-D).
    pub max_tests: usize,
    /// Tests in each random initial suite: 2 (Fraser and Arcuri, "Whole Test Suites" IV-D).
    pub initial_tests: usize,
    /// sigma: probability of adding a random test when mutating a suite, then sigma^2 for a
    /// second, and so on: 0.1 (Fraser and Arcuri, "Whole Test Suites" III-E2, IV-D).
    pub test_insertion_probability: f64,
    /// Dynamic bloat limit: an offspring that is not better than the best suite is rejected when
    /// longer than this many times the best suite: 2 (Fraser and Arcuri, "Whole Test Suites" III-D, Algorithm 1 line 17).
    pub bloat_factor: f64,
}

impl Default for WholeSuiteConfig {
    fn default() -> WholeSuiteConfig {
        WholeSuiteConfig {
            population_size: 80,
            rank_bias: 1.7,
            elite_size: 1,
            max_tests: 100,
            initial_tests: 2,
            test_insertion_probability: 0.1,
            bloat_factor: 2.0,
        }
    }
}

/// A probability from a configuration value: NaN counts as 0, the rest is clamped to `[0, 1]`.
pub(crate) fn probability(value: f64) -> f64 {
    if value.is_nan() {
        0.0
    } else {
        value.clamp(0.0, 1.0)
    }
}
