//! Throughput of the operators on a fixture cluster (`cargo bench -p testcase --bench
//! operators`): random test cases, mutations and crossovers per second, and the mean length.

use std::time::Instant;

use rand::rngs::StdRng;
use rand::SeedableRng;

#[path = "../tests/common/mod.rs"]
mod common;

use testcase::{Cluster, TestCase, Variation};

fn measure(name: &str, cluster: &Cluster) {
    let variation = Variation::default();
    let mut rng = StdRng::seed_from_u64(1);
    let n = 2000;

    let start = Instant::now();
    let tests: Vec<TestCase> = (0..n)
        .map(|_| variation.random_test(cluster, &mut rng))
        .collect();
    let sampling = start.elapsed();
    let mean_len = tests.iter().map(TestCase::len).sum::<usize>() as f64 / n as f64;

    let mut mutated = tests.clone();
    let start = Instant::now();
    for t in &mut mutated {
        variation.mutate(t, cluster, &mut rng);
    }
    let mutation = start.elapsed();

    let start = Instant::now();
    for pair in tests.chunks(2) {
        if let [a, b] = pair {
            std::hint::black_box(variation.crossover(a, b, &mut rng));
        }
    }
    let crossover = start.elapsed();

    let per_sec = |d: std::time::Duration, k: usize| k as f64 / d.as_secs_f64();
    println!(
        "{name:<24} random_test {:>8.0}/s (mean length {mean_len:.1})  mutate {:>8.0}/s  crossover {:>8.0}/s",
        per_sec(sampling, n),
        per_sec(mutation, n),
        per_sec(crossover, n / 2),
    );
}

fn main() {
    measure(
        "bank.Account",
        &common::cluster(&common::bank(), "bank.Account"),
    );
    measure(
        "shapes.Registry",
        &common::cluster(&common::shapes(), "shapes.Registry"),
    );
    measure(
        "misc.Tools",
        &common::cluster(&common::misc(), "misc.Tools"),
    );
}
