//! Whole test suite generation (Fraser and Arcuri, "Whole Test Suites", Algorithm 1): a GA over test suites with elitism, rank
//! selection, suite-level crossover and mutation, the fitness of Equation 1, and bloat control.
//!
//! Every executed test also goes to the archive, which is the search's result as for the other
//! algorithms. The archive holds the best test per covered goal over all suites ever executed,
//! so it covers at least what the best final suite covers; Fraser and Arcuri, "Whole Test Suites" returns the best suite
//! instead, which minimisation would shrink to about the same tests.

use rand::Rng;

use crate::config::{probability, WholeSuiteConfig};
use crate::engine::{Chromosome, Engine};
use crate::execution::{ExecutionResult, Executor};
use crate::fitness::suite_fitness;
use crate::selection::rank_selection;
use crate::stopping::StopReason;
use crate::variation::Variation;

/// A test suite: a set of test cases, each with its cached evaluation.
#[derive(Debug, Clone)]
struct Suite<I> {
    tests: Vec<Chromosome<I>>,
    /// Equation 1; valid once every test is evaluated.
    fitness: f64,
    /// Sum of the tests' lengths.
    length: usize,
}

impl<I> Suite<I> {
    fn new(tests: Vec<Chromosome<I>>) -> Suite<I> {
        Suite {
            tests,
            fitness: f64::INFINITY,
            length: 0,
        }
    }
}

pub(crate) fn run<V, E>(engine: &mut Engine<'_, '_, V, E>, seeds: Vec<V::Individual>)
where
    V: Variation,
    E: Executor<V::Individual>,
{
    let config = engine.config.whole_suite.clone();
    let size = config.population_size.max(2);
    let max_tests = config.max_tests.max(1);

    let mut population: Vec<Suite<V::Individual>> = Vec::with_capacity(size);
    // Warm start (Campos et al., "Continuous Test Generation" section 4.2): the earlier tests that are still valid form one suite
    // of the initial population, "a form of elitism between different invocations".
    let mut seeded = Vec::new();
    for seed in seeds {
        if seeded.len() == max_tests {
            break;
        }
        if engine.variation.accept_seed(&seed) {
            seeded.push(Chromosome::new(seed));
        }
    }
    if !seeded.is_empty() {
        population.push(Suite::new(seeded));
    }
    while population.len() < size {
        let tests = (0..config.initial_tests.clamp(1, max_tests))
            .map(|_| Chromosome::new(engine.variation.random(engine.rng)))
            .collect();
        population.push(Suite::new(tests));
    }
    engine.evaluate(population.iter_mut().flat_map(|s| s.tests.iter_mut()));
    for suite in &mut population {
        score(engine, suite);
    }
    sort_best_first(&mut population);
    let targets = uncovered_static_goals(engine);
    engine.sample(targets);
    if engine.should_stop(targets) {
        return;
    }

    loop {
        // "until solution found": the best suite covers every goal Equation 1 counts. With
        // the exception criterion on, the search goes on looking for undeclared exceptions
        // until a stopping condition, as in `mosa`.
        if population[0].fitness == 0.0 && !engine.table.criteria().exception {
            engine.stop(StopReason::SearchExhausted);
            return;
        }
        let mut next: Vec<Suite<V::Individual>> = population
            .iter()
            .take(config.elite_size.min(size))
            .cloned()
            .collect();
        while next.len() < size {
            let p1 = rank_selection(population.len(), config.rank_bias, engine.rng);
            let p2 = rank_selection(population.len(), config.rank_bias, engine.rng);
            let (mut o1, mut o2) = if engine
                .rng
                .gen_bool(probability(engine.config.crossover_probability))
            {
                crossover(&population[p1], &population[p2], engine.rng.gen())
            } else {
                (population[p1].clone(), population[p2].clone())
            };
            mutate(engine, &mut o1, &config);
            mutate(engine, &mut o2, &config);
            engine.evaluate(o1.tests.iter_mut().chain(o2.tests.iter_mut()));
            score(engine, &mut o1);
            score(engine, &mut o2);
            if engine.should_stop(uncovered_static_goals(engine)) {
                return;
            }
            let (parent1, parent2) = (&population[p1], &population[p2]);
            let best = &population[0];
            let picks = bloat_control(
                Pair {
                    fitness: [parent1.fitness, parent2.fitness],
                    length: [parent1.length, parent2.length],
                },
                Pair {
                    fitness: [o1.fitness, o2.fitness],
                    length: [o1.length, o2.length],
                },
                best.fitness,
                best.length,
                config.bloat_factor,
            );
            let parents = [parent1.clone(), parent2.clone()];
            for ((pick, child), parent) in picks.into_iter().zip([o1, o2]).zip(parents) {
                next.push(match pick {
                    Pick::Offspring => child,
                    Pick::Parent => parent,
                });
            }
        }
        next.truncate(size);
        sort_best_first(&mut next);
        population = next;
        engine.generations += 1;
        let targets = uncovered_static_goals(engine);
        engine.sample(targets);
        if engine.should_stop(targets) {
            return;
        }
    }
}

fn uncovered_static_goals<V: Variation, E>(engine: &Engine<'_, '_, V, E>) -> usize
where
    E: Executor<V::Individual>,
{
    let progress = engine.progress(0);
    progress.static_total() - progress.static_covered()
}

fn score<V, E>(engine: &Engine<'_, '_, V, E>, suite: &mut Suite<V::Individual>)
where
    V: Variation,
    E: Executor<V::Individual>,
{
    let results: Vec<&ExecutionResult> =
        suite.tests.iter().map(|t| &*t.evaluated().result).collect();
    suite.fitness = suite_fitness(engine.table, &results);
    suite.length = suite.tests.iter().map(|t| t.evaluated().length).sum();
}

/// Best first: lower fitness, then (Fraser and Arcuri, "Whole Test Suites" III-D: "in case of ties, we assign better ranks to
/// smaller test suites") shorter. Stable, so equal suites keep their order.
fn sort_best_first<I>(population: &mut [Suite<I>]) {
    population.sort_by(|a, b| {
        a.fitness
            .total_cmp(&b.fitness)
            .then(a.length.cmp(&b.length))
    });
}

/// Fraser and Arcuri, "Whole Test Suites" III-E1: with `alpha` in `[0, 1]`, the first offspring takes the first `alpha |P1|`
/// tests of the first parent and the last `(1 - alpha) |P2|` of the second; the second
/// offspring the other way round. Tests keep their evaluations: they did not change.
fn crossover<I: Clone>(p1: &Suite<I>, p2: &Suite<I>, alpha: f64) -> (Suite<I>, Suite<I>) {
    let cut1 = ((alpha * p1.tests.len() as f64) as usize).min(p1.tests.len());
    let cut2 = ((alpha * p2.tests.len() as f64) as usize).min(p2.tests.len());
    let o1 = p1.tests[..cut1]
        .iter()
        .chain(&p2.tests[cut2..])
        .cloned()
        .collect();
    let o2 = p2.tests[..cut2]
        .iter()
        .chain(&p1.tests[cut1..])
        .cloned()
        .collect();
    (Suite::new(o1), Suite::new(o2))
}

/// Fraser and Arcuri, "Whole Test Suites" III-E2: each test is mutated with probability `1/|T|`; then a random test is added
/// with probability sigma, a second with sigma^2, and so on, while the suite has fewer than `N`
/// tests. Tests left without statements are removed.
fn mutate<V, E>(
    engine: &mut Engine<'_, '_, V, E>,
    suite: &mut Suite<V::Individual>,
    config: &WholeSuiteConfig,
) where
    V: Variation,
    E: Executor<V::Individual>,
{
    let n = suite.tests.len();
    if n > 0 {
        let probability = 1.0 / n as f64;
        for test in &mut suite.tests {
            if engine.rng.gen_bool(probability)
                && engine.variation.mutate(&mut test.individual, engine.rng)
            {
                test.evaluation = None;
            }
        }
    }
    let sigma = probability(config.test_insertion_probability);
    let mut probability = sigma;
    while suite.tests.len() < config.max_tests && engine.rng.gen_bool(probability) {
        let individual = engine.variation.random(engine.rng);
        suite.tests.push(Chromosome::new(individual));
        probability *= sigma;
    }
    let variation = &*engine.variation;
    suite.tests.retain(|t| variation.len(&t.individual) > 0);
}

/// Fitness and length of two suites.
#[derive(Debug, Clone, Copy)]
struct Pair {
    fitness: [f64; 2],
    length: [usize; 2],
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Pick {
    Offspring,
    Parent,
}

/// Fraser and Arcuri, "Whole Test Suites" Algorithm 1 lines 10-22 with the bloat control of section III-D. The offspring
/// replace their parents only if their best fitness is better, or equal with no greater total
/// length. Even then, an offspring is refused in favour of its parent when it is longer than
/// `factor` times the best suite `T_B` without being fitter than `T_B`: that is the text's
/// "dynamic limit" ("if an offspring's coverage is not better than that of the best solution
/// T_B ... it is not accepted ... if it is longer than twice T_B"); Algorithm 1 as printed drops
/// the "not better" condition, which would also refuse a new best suite for its length.
fn bloat_control(
    parents: Pair,
    offspring: Pair,
    best_fitness: f64,
    best_length: usize,
    factor: f64,
) -> [Pick; 2] {
    let f_p = parents.fitness[0].min(parents.fitness[1]);
    let f_o = offspring.fitness[0].min(offspring.fitness[1]);
    let l_p = parents.length[0] + parents.length[1];
    let l_o = offspring.length[0] + offspring.length[1];
    if !(f_o < f_p || (f_o == f_p && l_o <= l_p)) {
        return [Pick::Parent, Pick::Parent];
    }
    let limit = factor * best_length as f64;
    [0, 1].map(|i| {
        let too_long = offspring.length[i] as f64 > limit;
        if too_long && offspring.fitness[i] >= best_fitness {
            Pick::Parent
        } else {
            Pick::Offspring
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pair(fitness: [f64; 2], length: [usize; 2]) -> Pair {
        Pair { fitness, length }
    }

    #[test]
    fn offspring_with_better_fitness_replace_parents() {
        let picks = bloat_control(
            pair([3.0, 4.0], [10, 10]),
            pair([2.5, 5.0], [12, 30]),
            1.0,
            20,
            2.0,
        );
        assert_eq!(picks, [Pick::Offspring, Pick::Offspring]);
    }

    #[test]
    fn equal_fitness_needs_no_longer_offspring() {
        // Same best fitness, total length 25 > 20: rejected.
        let picks = bloat_control(
            pair([3.0, 4.0], [10, 10]),
            pair([3.0, 4.0], [12, 13]),
            1.0,
            20,
            2.0,
        );
        assert_eq!(picks, [Pick::Parent, Pick::Parent]);
        // Same best fitness, total length 18 <= 20: accepted.
        let picks = bloat_control(
            pair([3.0, 4.0], [10, 10]),
            pair([3.0, 4.0], [9, 9]),
            1.0,
            20,
            2.0,
        );
        assert_eq!(picks, [Pick::Offspring, Pick::Offspring]);
    }

    #[test]
    fn worse_offspring_never_enter() {
        let picks = bloat_control(
            pair([3.0, 4.0], [10, 10]),
            pair([3.5, 3.5], [1, 1]),
            1.0,
            20,
            2.0,
        );
        assert_eq!(picks, [Pick::Parent, Pick::Parent]);
    }

    #[test]
    fn offspring_longer_than_twice_the_best_is_refused_unless_fitter_than_the_best() {
        // The best suite has fitness 2.0 and length 10: the limit is 20.
        // Offspring 1 (length 25, fitness 2.5) is not better than T_B: its parent is kept.
        // Offspring 2 (length 40, fitness 1.5) beats T_B: accepted despite its length.
        let picks = bloat_control(
            pair([3.0, 4.0], [30, 30]),
            pair([2.5, 1.5], [25, 40]),
            2.0,
            10,
            2.0,
        );
        assert_eq!(picks, [Pick::Parent, Pick::Offspring]);
        // Within the limit, a not-better offspring is fine.
        let picks = bloat_control(
            pair([3.0, 4.0], [30, 30]),
            pair([2.5, 1.5], [20, 5]),
            2.0,
            10,
            2.0,
        );
        assert_eq!(picks, [Pick::Offspring, Pick::Offspring]);
    }

    #[test]
    fn suite_crossover_splits_at_alpha() {
        let suite = |ids: &[u32]| Suite::new(ids.iter().map(|&i| Chromosome::new(i)).collect());
        let ids = |s: &Suite<u32>| s.tests.iter().map(|t| t.individual).collect::<Vec<_>>();
        let (o1, o2) = crossover(&suite(&[1, 2, 3, 4]), &suite(&[10, 20]), 0.5);
        assert_eq!(ids(&o1), [1, 2, 20]);
        assert_eq!(ids(&o2), [10, 3, 4]);
        let (o1, o2) = crossover(&suite(&[1, 2, 3, 4]), &suite(&[10, 20]), 0.0);
        assert_eq!(ids(&o1), [10, 20]);
        assert_eq!(ids(&o2), [1, 2, 3, 4]);
        // No offspring has more tests than the larger parent.
        let (o1, o2) = crossover(&suite(&[1, 2, 3]), &suite(&[10]), 0.7);
        assert!(o1.tests.len() <= 3 && o2.tests.len() <= 3);
    }
}
