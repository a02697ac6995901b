//! End-to-end runs of every algorithm on the toy classes with the fake executor: coverage,
//! determinism, DynaMOSA against the whole-suite GA, aDynaMOSA's switching, warm start, and
//! re-execution of changed individuals only.

mod common;

use common::{Call, FakeExecutor, ToyProgram, ToyTest, ToyVariation};
use std::time::Duration;

use rand::rngs::StdRng;
use rand::SeedableRng;
use search::{
    Algorithm, AllGoalsCovered, ArchivePreference, Criteria, Criterion, GoalId, GoalTable,
    ManualClock, MaxExecutions, Search, SearchConfig, SearchResult, SecondaryHeuristic, StopReason,
};

const ALGORITHMS: [Algorithm; 4] = [
    Algorithm::DynaMosa,
    Algorithm::ADynaMosa,
    Algorithm::Mosa,
    Algorithm::WholeSuite,
];

fn run<P: ToyProgram>(
    table: &GoalTable,
    program: P,
    algorithm: Algorithm,
    seed: u64,
    budget: u64,
    seeds: Vec<ToyTest>,
) -> (SearchResult<ToyTest>, FakeExecutor<'_, P>) {
    let config = SearchConfig {
        algorithm,
        ..SearchConfig::default()
    };
    let mut variation = ToyVariation::new(program.methods(), 1000);
    let clock = ManualClock::new();
    let mut executor =
        FakeExecutor::new(table, program).with_clock(clock.clone(), Duration::from_millis(1));
    let mut rng = StdRng::seed_from_u64(seed);
    let result = Search::new(table, &config, &mut variation, &mut executor)
        .clock(&clock)
        .seeds(seeds)
        .stop_when(MaxExecutions(budget))
        .stop_when(AllGoalsCovered)
        .run(&mut rng);
    (result, executor)
}

fn branch_coverage(result: &SearchResult<ToyTest>) -> f64 {
    let c = result.coverage_of(Criterion::Branch).unwrap();
    c.covered as f64 / c.total as f64
}

#[test]
fn every_algorithm_covers_the_easy_class() {
    let table = common::table(common::EASY, "toy.Easy", Criteria::all());
    for algorithm in ALGORITHMS {
        let (result, _) = run(&table, common::Easy, algorithm, 42, 20_000, Vec::new());
        for criterion in [Criterion::Branch, Criterion::Line, Criterion::Method] {
            let c = result.coverage_of(criterion).unwrap();
            assert_eq!(c.covered, c.total, "{algorithm:?} {criterion:?}");
        }
        assert!(
            matches!(
                result.stop_reason,
                StopReason::AllGoalsCovered | StopReason::SearchExhausted
            ),
            "{algorithm:?} stopped by {:?}",
            result.stop_reason
        );
        assert!(result.executions < 20_000, "{algorithm:?}");
        // Every covered goal has its test in the archive, and that test does cover it.
        for (goal, test) in result.archive.covered() {
            if let Some(static_goal) = table.goal(goal) {
                let fitness = search::goal_fitness(&table, &test.result);
                assert_eq!(fitness[goal.index()], 0.0, "{:?}", static_goal.kind);
            }
        }
    }
}

/// Everything a run's outcome consists of, comparable.
fn summary(result: &SearchResult<ToyTest>) -> Vec<(GoalId, ToyTest, u64)> {
    result
        .archive
        .covered()
        .map(|(goal, test)| (goal, test.individual.clone(), test.found_at_execution))
        .collect()
}

#[test]
fn a_fixed_seed_gives_the_same_archive() {
    let criteria = Criteria {
        line: false,
        method: true,
        exception: true,
        weak_mutation: false,
    };
    let table = common::table(common::HARD, "toy.Hard", criteria);
    for algorithm in ALGORITHMS {
        let (first, _) = run(&table, common::Hard, algorithm, 7, 1500, Vec::new());
        let (second, _) = run(&table, common::Hard, algorithm, 7, 1500, Vec::new());
        assert_eq!(summary(&first), summary(&second), "{algorithm:?}");
        assert_eq!(first.executions, second.executions);
        assert_eq!(first.generations, second.generations);
        assert_eq!(first.samples, second.samples);
        let (other, _) = run(&table, common::Hard, algorithm, 8, 1500, Vec::new());
        assert_ne!(
            summary(&first),
            summary(&other),
            "{algorithm:?}: the seed matters"
        );
    }
}

#[test]
fn dynamosa_covers_at_least_as_much_as_whole_suite_on_the_hard_class() {
    // Same execution budget, averaged over seeds. On this class (eight methods, goals nested
    // three deep behind equalities) DynaMOSA averaged 0.75 and whole-suite 0.58 when this test
    // was written; the assertion only asks for "at least as much".
    let table = common::table(common::HARD, "toy.Hard", Criteria::branch_only());
    let seeds = 1..=5u64;
    let mean = |algorithm| {
        seeds
            .clone()
            .map(|seed| {
                branch_coverage(&run(&table, common::Hard, algorithm, seed, 5000, Vec::new()).0)
            })
            .sum::<f64>()
            / seeds.clone().count() as f64
    };
    let dynamosa = mean(Algorithm::DynaMosa);
    let whole_suite = mean(Algorithm::WholeSuite);
    assert!(
        dynamosa >= whole_suite,
        "DynaMOSA {dynamosa:.3} < whole-suite {whole_suite:.3}"
    );
}

#[test]
fn adynamosa_switches_between_heuristics_on_stagnation() {
    let table = common::table(common::HARD, "toy.Hard", Criteria::branch_only());
    let (result, _) = run(
        &table,
        common::Hard,
        Algorithm::ADynaMosa,
        3,
        5000,
        Vec::new(),
    );
    assert_eq!(
        result.archive.preference(),
        ArchivePreference::LowerPerformanceScore
    );
    let used: Vec<SecondaryHeuristic> = result
        .samples
        .iter()
        .filter_map(|s| s.secondary_heuristic)
        .collect();
    assert_eq!(used.first(), Some(&SecondaryHeuristic::Performance));
    assert!(
        used.contains(&SecondaryHeuristic::CrowdingDistance),
        "{used:?}"
    );
    let switches = used.windows(2).filter(|w| w[0] != w[1]).count();
    assert!(switches >= 2, "{switches} switches: {used:?}");

    // DynaMOSA never uses the performance heuristic.
    let (result, _) = run(
        &table,
        common::Hard,
        Algorithm::DynaMosa,
        3,
        1000,
        Vec::new(),
    );
    assert!(result
        .samples
        .iter()
        .filter_map(|s| s.secondary_heuristic)
        .all(|h| h == SecondaryHeuristic::CrowdingDistance));
    assert_eq!(result.archive.preference(), ArchivePreference::Shorter);
}

#[test]
fn warm_start_runs_accepted_seeds_in_the_initial_population() {
    let table = common::table(common::HARD, "toy.Hard", Criteria::branch_only());
    let d = |x, y| Call {
        method: 3,
        args: [x, y],
    };
    let good = ToyTest {
        calls: vec![d(777, -777)],
    };
    // A test of a method the class no longer has: refused by `accept_seed`, never run.
    let stale = ToyTest {
        calls: vec![
            d(777, -777),
            Call {
                method: 42,
                args: [0, 0],
            },
        ],
    };
    let d_true = {
        let decision = table
            .decision_by_key(&javamodel::DecisionKey {
                member: "toy.Hard#d(int,int)".into(),
                ordinal: 1,
            })
            .unwrap();
        table.decision(decision).first_goal
    };
    for algorithm in ALGORITHMS {
        let (result, executor) = run(
            &table,
            common::Hard,
            algorithm,
            1,
            10,
            vec![stale.clone(), good.clone()],
        );
        let archived = result
            .archive
            .get(d_true)
            .expect("the seed covers d's B1.T");
        assert_eq!(archived.individual, good, "{algorithm:?}");
        assert!(archived.found_at_execution <= 2, "{algorithm:?}: run first");
        assert!(
            executor
                .log
                .iter()
                .all(|t| t.calls.iter().all(|c| c.method < 8)),
            "{algorithm:?} ran a refused seed"
        );
    }
}

#[test]
fn undeclared_exceptions_become_goals_when_first_thrown() {
    let table = common::table(common::EASY, "toy.Easy", Criteria::all());
    let divide_by_zero = ToyTest {
        calls: vec![
            Call {
                method: 1,
                args: [1, 1],
            },
            Call {
                method: 5,
                args: [7, 0],
            },
        ],
    };
    for algorithm in ALGORITHMS {
        let (result, _) = run(
            &table,
            common::Easy,
            algorithm,
            9,
            200,
            vec![divide_by_zero.clone()],
        );
        let exceptions: Vec<(GoalId, String)> = result
            .exception_goals
            .iter()
            .map(|(id, _)| (id, result.describe(&table, id)))
            .collect();
        assert_eq!(exceptions.len(), 1, "{algorithm:?}: {exceptions:?}");
        let (id, name) = &exceptions[0];
        assert_eq!(
            name,
            "exception java.lang.ArithmeticException in toy.Easy#divide(int,int)"
        );
        assert_eq!(
            id.index(),
            table.goal_count(),
            "ids follow the static goals"
        );
        // Covered on creation, and the archive may hold a shorter thrower than the seed.
        let archived = result.archive.get(*id).unwrap();
        assert!(archived.length <= 2, "{algorithm:?}");
        let c = result.coverage_of(Criterion::Exception).unwrap();
        assert_eq!((c.covered, c.total), (1, 1));
    }
    // Without the exception criterion there are no exception goals.
    let branch_only = common::table(common::EASY, "toy.Easy", Criteria::branch_only());
    let (result, _) = run(
        &branch_only,
        common::Easy,
        Algorithm::DynaMosa,
        9,
        200,
        vec![divide_by_zero],
    );
    assert!(result.exception_goals.is_empty());
    assert!(result.coverage_of(Criterion::Exception).is_none());
}

#[test]
fn only_changed_individuals_are_executed_again() {
    let table = common::table(common::HARD, "toy.Hard", Criteria::branch_only());
    let (result, executor) = run(
        &table,
        common::Hard,
        Algorithm::DynaMosa,
        5,
        3000,
        Vec::new(),
    );
    assert_eq!(
        executor.batches.iter().sum::<usize>() as u64,
        result.executions
    );
    assert_eq!(executor.batches[0], 50, "the initial population");
    // Each generation breeds 50 offspring; those mutation left unchanged keep their result.
    let offspring_batches = &executor.batches[1..];
    assert!(offspring_batches.iter().all(|&b| b <= 50));
    assert!(
        offspring_batches.iter().any(|&b| b < 50),
        "{offspring_batches:?}"
    );
}

/// Undeclared exceptions have no known total: with that criterion on, covering every static
/// goal does not end the search; without it, it does (the algorithms' own exhaustion).
#[test]
fn the_exception_criterion_keeps_searching_after_every_static_goal_is_covered() {
    for (criteria, keeps_going) in [(Criteria::all(), true), (Criteria::branch_only(), false)] {
        let table = common::table(common::EASY, "toy.Easy", criteria);
        for algorithm in ALGORITHMS {
            let config = SearchConfig {
                algorithm,
                ..SearchConfig::default()
            };
            let mut variation = ToyVariation::new(common::Easy.methods(), 1000);
            let clock = ManualClock::new();
            let mut executor = FakeExecutor::new(&table, common::Easy)
                .with_clock(clock.clone(), Duration::from_millis(1));
            let mut rng = StdRng::seed_from_u64(7);
            let budget = 5_000;
            let result = Search::new(&table, &config, &mut variation, &mut executor)
                .clock(&clock)
                .stop_when(MaxExecutions(budget))
                .run(&mut rng);
            let branches = result.coverage_of(Criterion::Branch).unwrap();
            assert_eq!(branches.covered, branches.total, "{algorithm:?}");
            if keeps_going {
                assert_eq!(
                    result.stop_reason,
                    StopReason::MaxExecutions,
                    "{algorithm:?}"
                );
                assert!(result.executions >= budget, "{algorithm:?}");
            } else if algorithm != Algorithm::WholeSuite {
                // The whole-suite GA ends only when one suite covers everything, which it may
                // not reach within the budget even when the archive already does.
                assert_eq!(
                    result.stop_reason,
                    StopReason::SearchExhausted,
                    "{algorithm:?}"
                );
                assert!(result.executions < budget, "{algorithm:?}");
            }
        }
    }
}

/// Marks the runs of tests that call `method` as needing the environment, as the JVM executor
/// does for a test that wrote a file outside the temporary directory.
struct NeedsEnvironment<'t, P> {
    inner: FakeExecutor<'t, P>,
    method: usize,
}

impl<P: ToyProgram> search::Executor<ToyTest> for NeedsEnvironment<'_, P> {
    fn execute(&mut self, batch: &[ToyTest]) -> Vec<search::ExecutionResult> {
        let mut results = self.inner.execute(batch);
        for (test, result) in batch.iter().zip(&mut results) {
            result.needs_environment = test.calls.iter().any(|c| c.method == self.method);
        }
        results
    }
}

#[test]
fn runs_that_need_the_environment_cover_nothing() {
    let table = common::table(common::EASY, "toy.Easy", Criteria::all());
    let program = common::Easy;
    let methods = program.methods();
    for algorithm in ALGORITHMS {
        let config = SearchConfig {
            algorithm,
            ..SearchConfig::default()
        };
        let mut variation = ToyVariation::new(methods, 1000);
        let clock = ManualClock::new();
        let mut executor = NeedsEnvironment {
            inner: FakeExecutor::new(&table, common::Easy)
                .with_clock(clock.clone(), Duration::from_millis(1)),
            method: 0,
        };
        let mut rng = StdRng::seed_from_u64(7);
        let result = Search::new(&table, &config, &mut variation, &mut executor)
            .clock(&clock)
            .stop_when(MaxExecutions(5_000))
            .run(&mut rng);
        assert!(result.archive.covered_count() > 0, "{algorithm:?}");
        for test in result.archive.tests() {
            assert!(
                test.individual.calls.iter().all(|c| c.method != 0),
                "{algorithm:?} archived a run that needed the environment: {:?}",
                test.individual
            );
        }
        assert!(
            branch_coverage(&result) < 1.0,
            "{algorithm:?}: method 0's goals stay uncovered"
        );
    }
}
