//! The MOSA family: MOSA, DynaMOSA and aDynaMOSA (Grano et al., "Testing with Fewer Resources", Algorithm 1; DynaMOSA is Algorithm 1
//! without the aDynaMOSA lines, MOSA is DynaMOSA with every goal active from the start).
//!
//! Each generation: tournament selection, single-point crossover and mutation make `M`
//! offspring; the changed ones are executed; the archive and the targets `U*` are updated;
//! parents and offspring are ranked by preference sorting over `U*`, and the next population
//! is filled front by front, the front that does not fit being cut by the secondary heuristic.

use rand::Rng;

use crate::adaptive::{HeuristicSwitch, SecondaryHeuristic};
use crate::config::{probability, Algorithm};
use crate::crowding::subvector_dominance;
use crate::engine::{Chromosome, Engine};
use crate::execution::Executor;
use crate::goal_table::GoalId;
use crate::goals_manager::GoalsManager;
use crate::performance::performance_heuristic;
use crate::ranking::preference_sorting;
use crate::selection::tournament;
use crate::stopping::StopReason;
use crate::variation::{repair, Variation};

/// A population with each member's front index and secondary score, for tournament selection.
struct Ranked<I> {
    members: Vec<Chromosome<I>>,
    rank: Vec<usize>,
    secondary: Vec<f64>,
}

pub(crate) fn run<V, E>(engine: &mut Engine<'_, '_, V, E>, seeds: Vec<V::Individual>)
where
    V: Variation,
    E: Executor<V::Individual>,
{
    let algorithm = engine.config.algorithm;
    let size = engine.config.population_size.max(2);
    let mut goals = match algorithm {
        _ if !engine.table.coupled().is_empty() => GoalsManager::coupled(engine.table),
        Algorithm::Mosa => GoalsManager::all_active(engine.table),
        _ => GoalsManager::dynamic(engine.table),
    };

    // Warm start (Campos et al., "Continuous Test Generation" section 4.2): earlier tests that are still valid join the initial
    // population; random tests fill it up.
    let mut population: Vec<Chromosome<V::Individual>> = Vec::with_capacity(size);
    for seed in seeds {
        if population.len() == size {
            break;
        }
        if engine.variation.accept_seed(&seed) {
            population.push(Chromosome::new(seed));
        }
    }
    while population.len() < size {
        let mut individual = engine.variation.random(engine.rng);
        // Cling (section 3.2.3): every initial test calls a covering method. The variation
        // already prefers them when sampling; a test without one is repaired.
        repair(engine.variation, &mut individual, engine.rng);
        population.push(Chromosome::new(individual));
    }
    for goal in engine.evaluate(population.iter_mut()) {
        goals.on_covered(engine.table, goal);
    }
    let mut switch = HeuristicSwitch::new();
    let initial_heuristic = match algorithm {
        Algorithm::ADynaMosa => SecondaryHeuristic::Performance,
        _ => SecondaryHeuristic::CrowdingDistance,
    };
    engine.sample(goals.targets().len());
    if engine.should_stop(goals.targets().len()) {
        return;
    }
    // Algorithm 1 breeds the first offspring from the random population without ranking it;
    // tournament selection needs ranks, so the initial population is ranked as every later one
    // is (Pynguin does the same), with aDynaMOSA's initial heuristic.
    let mut ranked = select(population, &goals.targets(), size, initial_heuristic);

    loop {
        let targets = goals.targets();
        // Every static goal covered ends Algorithm 1. Undeclared exceptions have no known
        // total, so with that criterion on the search goes on until a stopping condition:
        // with no targets every test is in front 0, and breeding becomes a random walk of
        // mutations whose new exceptions the archive still records. (A deviation from seed
        // 002, which has no open-ended goals.)
        if targets.is_empty() && !engine.table.criteria().exception {
            engine.stop(StopReason::SearchExhausted);
            return;
        }
        let mut offspring = breed(engine, &ranked, size);
        for goal in engine.evaluate(offspring.iter_mut()) {
            goals.on_covered(engine.table, goal);
        }
        if engine.should_stop(goals.targets().len()) {
            return;
        }
        let heuristic = match algorithm {
            Algorithm::ADynaMosa => {
                let best = best_per_uncovered_goal(&offspring, &goals.uncovered());
                switch.next(engine.generations, &best)
            }
            _ => SecondaryHeuristic::CrowdingDistance,
        };
        engine.heuristic = Some(heuristic);
        let mut union = ranked.members;
        union.append(&mut offspring);
        ranked = select(union, &goals.targets(), size, heuristic);
        engine.generations += 1;
        engine.sample(goals.targets().len());
        if engine.should_stop(goals.targets().len()) {
            return;
        }
    }
}

/// `M` offspring: parents by tournament, crossed over with the configured probability, then
/// mutated. An offspring that mutation left unchanged gets a second mutation attempt (as
/// EvoSuite and Pynguin do), and one left empty is replaced by a random test, since an empty
/// test covers nothing.
fn breed<V, E>(
    engine: &mut Engine<'_, '_, V, E>,
    ranked: &Ranked<V::Individual>,
    size: usize,
) -> Vec<Chromosome<V::Individual>>
where
    V: Variation,
    E: Executor<V::Individual>,
{
    let tournament_size = engine.config.tournament_size;
    let crossover_probability = probability(engine.config.crossover_probability);
    let mut offspring = Vec::with_capacity(size);
    // Children dropped by Cling's repair; past this many, broken children are kept, so that a
    // class whose covering methods cannot be called still gets a population.
    let mut dropped = 0usize;
    while offspring.len() < size {
        let a = tournament(&ranked.rank, &ranked.secondary, tournament_size, engine.rng);
        let b = tournament(&ranked.rank, &ranked.secondary, tournament_size, engine.rng);
        let (first, second) = if engine.rng.gen_bool(crossover_probability) {
            let (x, y) = engine.variation.crossover(
                &ranked.members[a].individual,
                &ranked.members[b].individual,
                engine.rng,
            );
            // Cling (section 3.2.4): a child of crossover without a covering call is replaced
            // by its parent.
            let whole = |v: &V, child: V::Individual, parent: &Chromosome<V::Individual>| {
                if v.has_covering_call(&child) {
                    Chromosome::new(child)
                } else {
                    parent.clone()
                }
            };
            (
                whole(engine.variation, x, &ranked.members[a]),
                whole(engine.variation, y, &ranked.members[b]),
            )
        } else {
            (ranked.members[a].clone(), ranked.members[b].clone())
        };
        for mut child in [first, second] {
            if offspring.len() == size {
                break;
            }
            let changed = engine.variation.mutate(&mut child.individual, engine.rng)
                || engine.variation.mutate(&mut child.individual, engine.rng);
            if changed {
                child.evaluation = None;
            }
            if engine.variation.len(&child.individual) == 0 {
                child = Chromosome::new(engine.variation.random(engine.rng));
            }
            // Cling (section 3.2.4): a child mutation left without a covering call is repaired
            // by inserting one, up to 50 attempts, and left out of the population otherwise.
            if !engine.variation.has_covering_call(&child.individual) {
                child.evaluation = None;
                if !repair(engine.variation, &mut child.individual, engine.rng)
                    && dropped < 10 * size
                {
                    dropped += 1;
                    continue;
                }
            }
            offspring.push(child);
        }
    }
    offspring
}

/// Algorithm 1 lines 13-25: preference sorting over the targets, then whole fronts while they
/// fit, then the best of the next front by the secondary heuristic.
///
/// Under aDynaMOSA too, front 0 breaks ties by length: Grano et al., "Testing with Fewer Resources" changes only the secondary
/// heuristic and the archive (section 3.2.2); putting the performance-score into the preference
/// criterion was its non-adaptive first attempt (section 3.2.1), which lost coverage.
fn select<I>(
    union: Vec<Chromosome<I>>,
    targets: &[GoalId],
    size: usize,
    heuristic: SecondaryHeuristic,
) -> Ranked<I> {
    let objectives: Vec<Vec<f64>> = union
        .iter()
        .map(|c| {
            let fitness = &c.evaluated().fitness;
            targets.iter().map(|g| fitness[g.index()]).collect()
        })
        .collect();
    let lengths: Vec<usize> = union.iter().map(|c| c.evaluated().length).collect();
    let fronts = preference_sorting(&objectives, &lengths, size);

    let mut chosen: Vec<(usize, usize, f64)> = Vec::with_capacity(size);
    for (rank, front) in fronts.iter().enumerate() {
        if chosen.len() == size {
            break;
        }
        let scores = match heuristic {
            SecondaryHeuristic::CrowdingDistance => subvector_dominance(front, &objectives),
            SecondaryHeuristic::Performance => {
                let values: Vec<[f64; 7]> = front
                    .iter()
                    .map(|&i| union[i].evaluated().proxies.values())
                    .collect();
                performance_heuristic(&values)
            }
        };
        let mut members: Vec<(usize, f64)> = front.iter().copied().zip(scores).collect();
        if chosen.len() + members.len() > size {
            // Higher scores first; the sort is stable, so ties keep index order.
            members.sort_by(|a, b| b.1.total_cmp(&a.1));
            members.truncate(size - chosen.len());
        }
        chosen.extend(members.into_iter().map(|(i, score)| (i, rank, score)));
    }

    let mut slots: Vec<Option<Chromosome<I>>> = union.into_iter().map(Some).collect();
    let mut ranked = Ranked {
        members: Vec::with_capacity(chosen.len()),
        rank: Vec::with_capacity(chosen.len()),
        secondary: Vec::with_capacity(chosen.len()),
    };
    for (index, rank, score) in chosen {
        if let Some(member) = slots[index].take() {
            ranked.members.push(member);
            ranked.rank.push(rank);
            ranked.secondary.push(score);
        }
    }
    ranked
}

/// For Algorithm 2's stagnation check: the best fitness the offspring reached on each goal not
/// covered yet.
fn best_per_uncovered_goal<I>(
    offspring: &[Chromosome<I>],
    uncovered: &[GoalId],
) -> Vec<(GoalId, f64)> {
    uncovered
        .iter()
        .map(|&goal| {
            let best = offspring
                .iter()
                .map(|c| c.evaluated().fitness[goal.index()])
                .fold(f64::INFINITY, f64::min);
            (goal, best)
        })
        .collect()
}
