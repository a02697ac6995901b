//! The entry point: a search over one goal table, with the caller's operators, executor,
//! stopping conditions and observers, and the seeded random number generator.

use rand::rngs::StdRng;

use crate::archive::ArchivePreference;
use crate::config::{Algorithm, SearchConfig};
use crate::engine::Engine;
use crate::execution::Executor;
use crate::goal_table::GoalTable;
use crate::progress::SearchObserver;
use crate::result::SearchResult;
use crate::stopping::{Clock, StoppingCondition, SystemClock};
use crate::variation::Variation;
use crate::{mosa, whole_suite};

/// One search, set up step by step and then [`Search::run`].
///
/// Without a stopping condition the search runs until the algorithm runs out of targets, which
/// may be never (a goal no test can reach); always add a budget and a cancellation token.
pub struct Search<'a, V: Variation, E> {
    table: &'a GoalTable,
    config: &'a SearchConfig,
    variation: &'a mut V,
    executor: &'a mut E,
    clock: Option<&'a dyn Clock>,
    seeds: Vec<V::Individual>,
    stopping: Vec<Box<dyn StoppingCondition + 'a>>,
    observers: Vec<&'a mut dyn SearchObserver>,
}

impl<'a, V, E> Search<'a, V, E>
where
    V: Variation,
    E: Executor<V::Individual>,
{
    pub fn new(
        table: &'a GoalTable,
        config: &'a SearchConfig,
        variation: &'a mut V,
        executor: &'a mut E,
    ) -> Search<'a, V, E> {
        Search {
            table,
            config,
            variation,
            executor,
            clock: None,
            seeds: Vec::new(),
            stopping: Vec::new(),
            observers: Vec::new(),
        }
    }

    /// The clock budgets and progress are measured with; the system clock by default.
    pub fn clock(mut self, clock: &'a dyn Clock) -> Self {
        self.clock = Some(clock);
        self
    }

    /// Individuals from earlier runs to start from (Campos et al., "Continuous Test Generation" section 4.2). Those
    /// [`Variation::accept_seed`] refuses are dropped. The MOSA family puts the first
    /// population-size accepted ones in its initial population; the whole-suite GA makes one
    /// initial suite of the first `max_tests`.
    pub fn seeds(mut self, seeds: Vec<V::Individual>) -> Self {
        self.seeds = seeds;
        self
    }

    pub fn stop_when(mut self, condition: impl StoppingCondition + 'a) -> Self {
        self.stopping.push(Box::new(condition));
        self
    }

    pub fn observe(mut self, observer: &'a mut dyn SearchObserver) -> Self {
        self.observers.push(observer);
        self
    }

    /// Runs the configured algorithm. Deterministic for a given `rng` state when the executor
    /// and the operators are.
    pub fn run(self, rng: &mut StdRng) -> SearchResult<V::Individual> {
        let system_clock = SystemClock::new();
        let clock: &dyn Clock = match self.clock {
            Some(clock) => clock,
            None => &system_clock,
        };
        let preference = match self.config.algorithm {
            Algorithm::ADynaMosa => ArchivePreference::LowerPerformanceScore,
            _ => ArchivePreference::Shorter,
        };
        let mut engine = Engine::new(
            self.table,
            self.config,
            self.variation,
            self.executor,
            rng,
            clock,
            self.stopping,
            self.observers,
            preference,
        );
        match self.config.algorithm {
            Algorithm::DynaMosa | Algorithm::ADynaMosa | Algorithm::Mosa => {
                mosa::run(&mut engine, self.seeds)
            }
            Algorithm::WholeSuite => whole_suite::run(&mut engine, self.seeds),
        }
        engine.finish()
    }
}
