//! Properties of the search operators on fixture clusters: every operator keeps test cases
//! well typed and within the length limit, and the same seed gives the same results.

mod common;

use common::*;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use testcase::*;

fn assert_well_typed(tc: &TestCase, cluster: &Cluster, what: &str) {
    if let Err(e) = check_well_typed(tc, cluster) {
        panic!(
            "{what} on {} gave an ill-typed test case: {e}\n{tc:#?}",
            cluster.under_test()
        );
    }
}

/// Applies random sequences of mutations and crossovers to a small population and checks
/// every result.
fn exercise(cluster: &Cluster, variation: &Variation, seed: u64, steps: usize) {
    let mut rng = StdRng::seed_from_u64(seed);
    let max = variation.config().max_length;
    let mut population: Vec<TestCase> = (0..4)
        .map(|_| variation.random_test(cluster, &mut rng))
        .collect();
    for tc in &population {
        assert_well_typed(tc, cluster, "random_test");
        assert!(!tc.is_empty() && tc.len() <= max, "length {}", tc.len());
    }
    for _ in 0..steps {
        if rng.gen_bool(0.7) {
            let i = rng.gen_range(0..population.len());
            variation.mutate(&mut population[i], cluster, &mut rng);
            assert_well_typed(&population[i], cluster, "mutate");
            assert!(population[i].len() <= max);
            assert!(!population[i].is_empty());
        } else {
            let i = rng.gen_range(0..population.len());
            let j = rng.gen_range(0..population.len());
            let (a, b) = variation.crossover(&population[i], &population[j], &mut rng);
            assert_well_typed(&a, cluster, "crossover");
            assert_well_typed(&b, cluster, "crossover");
            assert!(a.len() <= max && b.len() <= max);
            if !a.is_empty() {
                population[i] = a;
            }
            if !b.is_empty() {
                population[j] = b;
            }
        }
    }
}

#[test]
fn operator_sequences_keep_test_cases_well_typed() {
    let variation = Variation::default();
    for cluster in all_clusters() {
        for seed in 0..12 {
            exercise(&cluster, &variation, seed, 60);
        }
    }
}

#[test]
fn operator_sequences_respect_a_short_length_limit() {
    let variation = Variation::new(Config {
        max_length: 12,
        ..Config::default()
    });
    for cluster in all_clusters() {
        for seed in 100..120 {
            exercise(&cluster, &variation, seed, 40);
        }
    }
}

#[test]
fn extreme_probabilities_keep_test_cases_well_typed() {
    // Always null, never reuse, always change parameters: the paths a default run rarely takes.
    let variation = Variation::new(Config {
        null_probability: 1.0,
        object_reuse: 0.0,
        primitive_reuse: 0.0,
        change_parameter: 1.0,
        statement_insertion: 0.9,
        ..Config::default()
    });
    let eager_reuse = Variation::new(Config {
        null_probability: 0.0,
        object_reuse: 1.0,
        primitive_reuse: 1.0,
        change_parameter: 0.0,
        pool_probability: 1.0,
        ..Config::default()
    });
    for cluster in all_clusters() {
        for seed in 200..206 {
            exercise(&cluster, &variation, seed, 30);
            exercise(&cluster, &eager_reuse, seed, 30);
        }
    }
}

#[test]
fn the_same_seed_gives_the_same_results() {
    let variation = Variation::default();
    for cluster in all_clusters() {
        let run = |seed: u64| {
            let mut rng = StdRng::seed_from_u64(seed);
            let mut a = variation.random_test(&cluster, &mut rng);
            let b = variation.random_test(&cluster, &mut rng);
            for _ in 0..10 {
                variation.mutate(&mut a, &cluster, &mut rng);
            }
            let (c, d) = variation.crossover(&a, &b, &mut rng);
            vec![a, b, c, d]
        };
        assert_eq!(run(5), run(5), "{}", cluster.under_test());
        assert_ne!(run(5), run(6), "{}", cluster.under_test());
    }
}

#[test]
fn random_tests_reach_every_target() {
    let variation = Variation::default();
    for cluster in all_clusters() {
        let mut rng = StdRng::seed_from_u64(1);
        let mut called = std::collections::BTreeSet::new();
        for _ in 0..100 {
            for s in variation.random_test(&cluster, &mut rng).statements() {
                if let Some(c) = s.callable() {
                    called.insert(c.to_string());
                }
            }
        }
        for t in cluster.targets() {
            assert!(
                called.contains(&t.to_string()),
                "{t} never called; called: {called:#?}"
            );
        }
    }
}

#[test]
fn random_test_lengths_are_spread_over_one_to_l() {
    let variation = Variation::default();
    let cluster = cluster(&bank(), "bank.Account");
    let mut rng = StdRng::seed_from_u64(3);
    let lengths: Vec<usize> = (0..300)
        .map(|_| variation.random_test(&cluster, &mut rng).len())
        .collect();
    let short = lengths.iter().filter(|&&l| l <= 20).count();
    let long = lengths.iter().filter(|&&l| l >= 60).count();
    // r is uniform in 1..=80 and a test grows until it reaches r.
    assert!(short > 40 && long > 40, "short {short}, long {long}");
}

#[test]
fn mutation_reports_whether_it_changed_the_test_case() {
    let variation = Variation::default();
    let cluster = cluster(&bank(), "bank.Bank");
    let mut rng = StdRng::seed_from_u64(11);
    let mut tc = variation.random_test(&cluster, &mut rng);
    let (mut changed, mut unchanged) = (0, 0);
    for _ in 0..300 {
        let before = tc.clone();
        if variation.mutate(&mut tc, &cluster, &mut rng) {
            assert_ne!(tc, before);
            changed += 1;
        } else {
            assert_eq!(tc, before);
            unchanged += 1;
        }
    }
    // Each of remove, change and insert happens with probability 1/3.
    assert!(
        changed > 100 && unchanged > 20,
        "{changed} changed, {unchanged} unchanged"
    );
}

#[test]
fn crossover_offspring_only_hold_statements_of_their_parents() {
    let variation = Variation::default();
    let cluster = cluster(&shapes(), "shapes.Registry");
    let mut rng = StdRng::seed_from_u64(21);
    for _ in 0..50 {
        let a = variation.random_test(&cluster, &mut rng);
        let b = variation.random_test(&cluster, &mut rng);
        let (c, d) = variation.crossover(&a, &b, &mut rng);
        let without_refs = |s: &Statement| {
            let mut s = s.clone();
            s.for_each_ref_mut(|_, r| *r = VarRef(0));
            s
        };
        let parents: Vec<Statement> = a
            .statements()
            .iter()
            .chain(b.statements())
            .map(without_refs)
            .collect();
        for s in c.statements().iter().chain(d.statements()) {
            assert!(
                parents.contains(&without_refs(s)),
                "{s:?} is in neither parent"
            );
        }
    }
}

#[test]
fn random_test_snapshots() {
    let variation = Variation::default();
    let first = |c: &Cluster| {
        let mut rng = StdRng::seed_from_u64(2);
        variation.random_test(c, &mut rng).to_string()
    };
    expect_test::expect![[r#"
        java.lang.String v0 = "悼盇묵\u{f6f0}䔩\u{f22a}鞵싗ﾩ";
        long v1 = -673L;
        bank.Account v2 = new bank.Account(v0, v1);
        long v3 = v2.getBalance();
    "#]]
    .assert_eq(&first(&cluster(&bank(), "bank.Account")));
    expect_test::expect![[r#"
        shapes.Registry<java.lang.Integer, java.lang.Integer> v0 = new shapes.Registry<>();
        int v1 = 522;
        java.util.List<java.lang.Integer> v2 = v0.lookup(v1);
        java.lang.Integer v3 = shapes.Registry.first(v2);
    "#]]
    .assert_eq(&first(&cluster(&shapes(), "shapes.Registry")));
}

/// The environment statements appear, and their operators change them: over many seeds the
/// environment cluster's tests set console input, both properties and input files (of both path
/// types, with and without content), and every test stays well typed (checked in `exercise`).
#[test]
fn environment_statements_are_inserted_and_changed() {
    let cluster = env_cluster();
    let variation = Variation::default();
    let mut seen = std::collections::BTreeSet::new();
    let mut texts = std::collections::BTreeSet::new();
    for seed in 0..40 {
        let mut rng = StdRng::seed_from_u64(seed);
        let mut tc = variation.random_test(&cluster, &mut rng);
        for _ in 0..30 {
            variation.mutate(&mut tc, &cluster, &mut rng);
            assert_well_typed(&tc, &cluster, "mutate");
            for s in tc.statements() {
                match s {
                    Statement::ConsoleInput { text } => {
                        seen.insert("console".to_string());
                        texts.insert(text.clone());
                    }
                    Statement::SystemProperty { key, .. } => {
                        seen.insert(key.clone());
                    }
                    Statement::InputFile { content, ty, .. } => {
                        seen.insert(format!("{ty} {}", content.is_some()));
                    }
                    _ => {}
                }
            }
        }
    }
    for kind in [
        "console",
        "report.mode",
        "report.limit",
        "java.lang.String true",
        "java.lang.String false",
        "java.io.File true",
        "java.io.File false",
    ] {
        assert!(seen.contains(kind), "{kind} never appeared: {seen:?}");
    }
    // Console texts are changed, not only drawn once: many distinct ones, multi-line among them.
    assert!(texts.len() > 20, "{}", texts.len());
    assert!(texts.iter().any(|t| t.lines().count() >= 2), "{texts:?}");
}

/// A class that reads no environment never gets environment statements.
#[test]
fn classes_that_read_no_environment_get_no_environment_statements() {
    let variation = Variation::default();
    let cluster = cluster(&env(), "env.Report");
    for seed in 0..20 {
        let mut rng = StdRng::seed_from_u64(seed);
        let mut tc = variation.random_test(&cluster, &mut rng);
        for _ in 0..20 {
            variation.mutate(&mut tc, &cluster, &mut rng);
        }
        assert!(
            !tc.statements().iter().any(Statement::is_environment),
            "{tc}"
        );
    }
}
