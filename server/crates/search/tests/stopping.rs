//! Stopping conditions and progress observers on real runs: a wall-clock budget measured with
//! a fake clock, a number of executions, all goals covered, cancellation, and the progress
//! samples and goal-covered events observers receive.

mod common;

use std::time::Duration;

use common::{FakeExecutor, ToyProgram, ToyTest, ToyVariation};
use rand::rngs::StdRng;
use rand::SeedableRng;
use search::{
    Algorithm, AllGoalsCovered, CancelToken, Criteria, GoalId, ManualClock, MaxExecutions,
    Progress, Search, SearchConfig, SearchObserver, SearchResult, StopReason, StoppingCondition,
    TimeBudget,
};

const ALGORITHMS: [Algorithm; 4] = [
    Algorithm::DynaMosa,
    Algorithm::ADynaMosa,
    Algorithm::Mosa,
    Algorithm::WholeSuite,
];

/// Runs `algorithm` on the hard class (which no budget here covers fully) with a fake clock
/// advancing 1 ms per executed test.
fn run_hard(
    algorithm: Algorithm,
    conditions: Vec<Box<dyn StoppingCondition>>,
    observer: Option<&mut dyn SearchObserver>,
) -> SearchResult<ToyTest> {
    let table = common::table(common::HARD, "toy.Hard", Criteria::branch_only());
    let config = SearchConfig {
        algorithm,
        ..SearchConfig::default()
    };
    let clock = ManualClock::new();
    let mut variation = ToyVariation::new(common::Hard.methods(), 1000);
    let mut executor =
        FakeExecutor::new(&table, common::Hard).with_clock(clock.clone(), Duration::from_millis(1));
    let mut search = Search::new(&table, &config, &mut variation, &mut executor).clock(&clock);
    for condition in conditions {
        search = search.stop_when(BoxedCondition(condition));
    }
    if let Some(observer) = observer {
        search = search.observe(observer);
    }
    search.run(&mut StdRng::seed_from_u64(17))
}

struct BoxedCondition(Box<dyn StoppingCondition>);

impl StoppingCondition for BoxedCondition {
    fn should_stop(&mut self, progress: &Progress) -> bool {
        self.0.should_stop(progress)
    }

    fn reason(&self) -> StopReason {
        self.0.reason()
    }
}

#[test]
fn time_budget_on_a_fake_clock() {
    for algorithm in ALGORITHMS {
        let result = run_hard(
            algorithm,
            vec![
                Box::new(TimeBudget(Duration::from_millis(700))),
                Box::new(MaxExecutions(100_000)),
            ],
            None,
        );
        assert_eq!(result.stop_reason, StopReason::TimeBudget, "{algorithm:?}");
        // 1 ms per test: the budget is checked after every batch, so it overshoots by less than
        // one batch (an offspring population, or a pair of suites).
        assert!(
            result.elapsed >= Duration::from_millis(700),
            "{algorithm:?}"
        );
        assert!(
            result.elapsed < Duration::from_millis(700 + 80),
            "{algorithm:?}: {:?}",
            result.elapsed
        );
        assert_eq!(
            result.elapsed,
            Duration::from_millis(result.executions),
            "{algorithm:?}: the clock moved only when tests ran"
        );
    }
}

#[test]
fn execution_budget() {
    for algorithm in ALGORITHMS {
        let result = run_hard(algorithm, vec![Box::new(MaxExecutions(600))], None);
        assert_eq!(
            result.stop_reason,
            StopReason::MaxExecutions,
            "{algorithm:?}"
        );
        assert!(
            (600..650).contains(&result.executions),
            "{algorithm:?}: {}",
            result.executions
        );
    }
}

#[test]
fn all_goals_covered_stops_the_search() {
    let table = common::table(common::EASY, "toy.Easy", Criteria::branch_only());
    for algorithm in ALGORITHMS {
        let config = SearchConfig {
            algorithm,
            ..SearchConfig::default()
        };
        let mut variation = ToyVariation::new(common::Easy.methods(), 100);
        let mut executor = FakeExecutor::new(&table, common::Easy);
        let result = Search::new(&table, &config, &mut variation, &mut executor)
            .stop_when(AllGoalsCovered)
            .stop_when(MaxExecutions(50_000))
            .run(&mut StdRng::seed_from_u64(5));
        assert_eq!(
            result.stop_reason,
            StopReason::AllGoalsCovered,
            "{algorithm:?}"
        );
        assert_eq!(result.covered_goals(), table.goal_count(), "{algorithm:?}");
        // It stopped as soon as the batch that covered the last goal was checked.
        let last = result
            .archive
            .covered()
            .map(|(_, t)| t.found_at_execution)
            .max()
            .unwrap();
        let batch = if algorithm == Algorithm::WholeSuite {
            120
        } else {
            50
        };
        assert!(
            result.executions < last + batch,
            "{algorithm:?}: last goal at {last}, stopped at {}",
            result.executions
        );
    }
}

/// Cancels the search once a given generation is reported, and records what it saw.
struct CancelAfter {
    token: CancelToken,
    generation: u64,
    progress: Vec<Progress>,
    covered: Vec<(GoalId, String)>,
}

impl SearchObserver for CancelAfter {
    fn on_progress(&mut self, progress: &Progress) {
        if progress.generations == self.generation {
            self.token.cancel();
        }
        self.progress.push(progress.clone());
    }

    fn on_goal_covered(&mut self, goal: GoalId, description: &str) {
        self.covered.push((goal, description.to_string()));
    }
}

#[test]
fn cancellation_stops_at_the_next_check_and_observers_see_every_generation() {
    for algorithm in ALGORITHMS {
        let token = CancelToken::new();
        let mut observer = CancelAfter {
            token: token.clone(),
            generation: 4,
            progress: Vec::new(),
            covered: Vec::new(),
        };
        let result = run_hard(
            algorithm,
            vec![Box::new(token.clone()), Box::new(MaxExecutions(100_000))],
            Some(&mut observer),
        );
        assert_eq!(result.stop_reason, StopReason::Cancelled, "{algorithm:?}");
        assert_eq!(result.generations, 4, "{algorithm:?}");
        let generations: Vec<u64> = observer.progress.iter().map(|p| p.generations).collect();
        assert_eq!(generations, [0, 1, 2, 3, 4], "{algorithm:?}");
        // Samples grow monotonically.
        for pair in observer.progress.windows(2) {
            assert!(pair[0].executions < pair[1].executions);
            assert!(pair[0].static_covered() <= pair[1].static_covered());
        }
        assert_eq!(result.samples, observer.progress, "{algorithm:?}");
        // One event per covered goal, named.
        assert_eq!(observer.covered.len(), result.archive.covered_count());
        assert!(observer
            .covered
            .iter()
            .all(|(_, name)| name.starts_with("toy.Hard#")));
    }
}

#[test]
fn a_cancelled_token_stops_before_the_first_generation() {
    let token = CancelToken::new();
    token.cancel();
    let result = run_hard(Algorithm::DynaMosa, vec![Box::new(token)], None);
    assert_eq!(result.stop_reason, StopReason::Cancelled);
    assert_eq!(result.generations, 0);
    assert_eq!(result.executions, 50, "only the initial population ran");
}
