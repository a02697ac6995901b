//! Limits and probabilities of test-case sampling and variation, passed in (never global).
//! Defaults follow Fraser and Arcuri, "Whole Test Suites" where it gives a value and EvoSuite's defaults where it does not.

/// Settings of [`crate::Variation`]. Every probability is in `[0, 1]`.
#[derive(Debug, Clone, PartialEq)]
pub struct Config {
    /// Maximum statements per test case, `L`. Fraser and Arcuri, "Whole Test Suites" section IV-D uses `L = 80` (EvoSuite's
    /// current `chromosome_length` default is 40).
    pub max_length: usize,
    /// `σ'`: probability of the first statement insertion during mutation; the `i`-th further
    /// one happens with `σ'^i` (Fraser and Arcuri, "Whole Test Suites" III-E2, value from IV-D).
    pub statement_insertion: f64,
    /// Probability that changing a call statement changes one of its parameters rather than
    /// replacing the call (EvoSuite `p_change_parameter`).
    pub change_parameter: f64,
    /// Probability of `null` for a reference parameter (EvoSuite `null_probability`).
    pub null_probability: f64,
    /// Probability of reusing an existing object of a fitting type rather than creating one
    /// (EvoSuite `object_reuse_probability`).
    pub object_reuse: f64,
    /// Same for primitive and `String` values (EvoSuite `primitive_reuse_probability`).
    pub primitive_reuse: f64,
    /// Probability of taking a new primitive or string from a pool rather than at random
    /// (EvoSuite `primitive_pool`).
    pub pool_probability: f64,
    /// When a pool is used, probability of the pool of values observed at run time rather than
    /// the source's constants (EvoSuite's `dynamic_pool` setting in its dynamic-seeding
    /// experiments; the default there is now 0.5).
    pub observed_probability: f64,
    /// Of the draws from the run-time pools, the share taken from the values the code under
    /// test compared its data with (dynamic seeding), when there are any of the kind; the rest
    /// comes from the observed values. Ours: EvoSuite has one dynamic pool. 0 switches dynamic
    /// seeding off (the compared pool is then not even a fallback).
    pub compared_share: f64,
    /// Of the draws from the static pools, the share taken from the literals of the project's
    /// existing tests of the class ([`crate::ValuePools::tests`]), when there are any of the
    /// kind; the rest comes from the class's own literals. Ours (EvoSuite seeds no pool from
    /// tests): a third, so that the class's own literals, which its branches compare with,
    /// keep two thirds, while a test's JSON document or CSV record is still drawn often enough
    /// (one static draw in 9 of every new value). Nothing is drawn when the pool has no value
    /// of the kind, so runs without tests stay as they were. 0 switches it off.
    pub test_constant_share: f64,
    /// Probability of taking an object from the seeded pool (objects other classes' tests
    /// built) when one of the wanted class is there: Campos et al., "Continuous Test
    /// Generation", section 3.2's "with a certain probability (e.g., 50%)". Nothing is drawn
    /// when the pool has no object of the class, so runs without seeds stay as they were.
    pub seeded_object_probability: f64,
    /// Probability of each further call of a chaining method (one of the receiver's type that
    /// returns that type: a builder's `retries(3)`) on an object built to be the receiver of a
    /// call that produces a wanted value (the builder whose `build()` gives it), before that
    /// call; at most [`crate::factory::MAX_CONFIGURING_CALLS`]. Ours: EvoSuite calls such a
    /// generator on a receiver as built, and only later insertions can configure it. 0 switches
    /// it off.
    pub configuring_call: f64,
    /// Random integers mostly lie in `[-max_int, max_int]` (EvoSuite `max_int`).
    pub max_int: i64,
    /// Largest delta of a numeric mutation (EvoSuite `max_delta`; Fraser and Arcuri's "Whole Test Suites" `Δ`).
    pub max_delta: i64,
    /// Probability that a primitive mutation draws a fresh random value instead of applying a
    /// delta (EvoSuite `random_perturbation`).
    pub random_perturbation: f64,
    /// Maximum length of random strings (EvoSuite `string_length`).
    pub string_length: usize,
    /// Maximum length of generated arrays (EvoSuite `max_array`).
    pub max_array_length: u32,
    /// Maximum `add`/`put` calls that fill a new container (ours: few, a test case is short).
    pub max_container_elements: usize,
    /// Maximum nesting when building the parameters of parameters (EvoSuite `max_recursion`).
    pub max_recursion: usize,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            max_length: 80,
            statement_insertion: 0.5,
            change_parameter: 0.1,
            null_probability: 0.1,
            object_reuse: 0.9,
            primitive_reuse: 0.5,
            pool_probability: 0.5,
            observed_probability: 1.0 / 3.0,
            compared_share: 0.5,
            test_constant_share: 1.0 / 3.0,
            seeded_object_probability: 0.5,
            configuring_call: 0.5,
            max_int: 2048,
            max_delta: 20,
            random_perturbation: 0.2,
            string_length: 20,
            max_array_length: 10,
            max_container_elements: 3,
            max_recursion: 10,
        }
    }
}

impl Config {
    /// The same settings with every probability clamped to `[0, 1]` (NaN becomes 0), so that
    /// a bad setting degrades instead of panicking.
    pub fn sanitized(mut self) -> Config {
        for p in [
            &mut self.statement_insertion,
            &mut self.change_parameter,
            &mut self.null_probability,
            &mut self.object_reuse,
            &mut self.primitive_reuse,
            &mut self.pool_probability,
            &mut self.observed_probability,
            &mut self.compared_share,
            &mut self.test_constant_share,
            &mut self.seeded_object_probability,
            &mut self.configuring_call,
            &mut self.random_perturbation,
        ] {
            *p = if p.is_nan() { 0.0 } else { p.clamp(0.0, 1.0) };
        }
        self.max_int = self.max_int.max(1);
        self.max_delta = self.max_delta.max(1);
        self
    }
}
