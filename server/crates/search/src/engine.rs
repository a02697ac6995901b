//! What every algorithm shares: individuals with their cached evaluation, batch execution,
//! archive and exception-goal updates, progress samples and stopping checks.

use std::sync::Arc;
use std::time::Duration;

use rand::rngs::StdRng;

use crate::adaptive::SecondaryHeuristic;
use crate::archive::{ArchivePreference, Candidate, CoverageArchive};
use crate::config::SearchConfig;
use crate::exception_goals::ExceptionGoals;
use crate::execution::{ExecutionResult, ExecutionStatus, Executor};
use crate::fitness::goal_fitness;
use crate::goal_table::{Criterion, GoalId, GoalTable};
use crate::performance::PerformanceProxies;
use crate::progress::{CriterionCoverage, Progress, SearchObserver};
use crate::result::SearchResult;
use crate::stopping::{Clock, StopReason, StoppingCondition};
use crate::variation::Variation;

/// What one execution of an individual established. Shared between clones of an unchanged
/// individual, so it is computed once.
#[derive(Debug)]
pub(crate) struct Evaluation {
    pub result: Arc<ExecutionResult>,
    /// Per static goal, see [`goal_fitness`].
    pub fitness: Vec<f64>,
    pub proxies: PerformanceProxies,
    pub length: usize,
}

/// An individual and, unless it changed since, its last evaluation (Pynguin keeps the last
/// execution result with the chromosome and runs only changed ones).
#[derive(Debug, Clone)]
pub(crate) struct Chromosome<I> {
    pub individual: I,
    pub evaluation: Option<Arc<Evaluation>>,
}

impl<I> Chromosome<I> {
    pub fn new(individual: I) -> Chromosome<I> {
        Chromosome {
            individual,
            evaluation: None,
        }
    }

    /// The evaluation of an evaluated chromosome.
    ///
    /// Invariant: the algorithms evaluate every chromosome before ranking or selecting it; a
    /// missing evaluation is a bug in this crate, not in the caller's code.
    pub fn evaluated(&self) -> &Evaluation {
        self.evaluation
            .as_deref()
            .expect("chromosomes are evaluated before use")
    }
}

pub(crate) struct Engine<'a, 'r, V: Variation, E> {
    pub table: &'a GoalTable,
    pub config: &'a SearchConfig,
    pub variation: &'a mut V,
    executor: &'a mut E,
    pub rng: &'r mut StdRng,
    clock: &'r dyn Clock,
    start: Duration,
    stopping: Vec<Box<dyn StoppingCondition + 'a>>,
    observers: Vec<&'a mut dyn SearchObserver>,
    pub archive: CoverageArchive<V::Individual>,
    pub exceptions: ExceptionGoals,
    covered_per_criterion: [usize; 6],
    total_per_criterion: [usize; 6],
    executions: u64,
    executed_statements: u64,
    pub generations: u64,
    samples: Vec<Progress>,
    stop_reason: Option<StopReason>,
    pub heuristic: Option<SecondaryHeuristic>,
}

fn criterion_slot(criterion: Criterion) -> usize {
    match criterion {
        Criterion::Branch => 0,
        Criterion::Line => 1,
        Criterion::Method => 2,
        Criterion::Exception => 3,
        Criterion::Coupled => 4,
        Criterion::WeakMutation => 5,
    }
}

impl<'a, 'r, V, E> Engine<'a, 'r, V, E>
where
    V: Variation,
    E: Executor<V::Individual>,
{
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        table: &'a GoalTable,
        config: &'a SearchConfig,
        variation: &'a mut V,
        executor: &'a mut E,
        rng: &'r mut StdRng,
        clock: &'r dyn Clock,
        stopping: Vec<Box<dyn StoppingCondition + 'a>>,
        observers: Vec<&'a mut dyn SearchObserver>,
        preference: ArchivePreference,
    ) -> Engine<'a, 'r, V, E> {
        let mut total_per_criterion = [0; 6];
        for goal in table.goals() {
            total_per_criterion[criterion_slot(goal.kind.criterion())] += 1;
        }
        Engine {
            table,
            config,
            variation,
            executor,
            rng,
            clock,
            start: clock.now(),
            stopping,
            observers,
            archive: CoverageArchive::new(preference),
            exceptions: ExceptionGoals::new(table.goal_count()),
            covered_per_criterion: [0; 6],
            total_per_criterion,
            executions: 0,
            executed_statements: 0,
            generations: 0,
            samples: Vec::new(),
            stop_reason: None,
            heuristic: None,
        }
    }

    /// Executes every chromosome without an evaluation, in one batch, and updates the archive.
    /// Returns the goals covered for the first time, static and exception ones, in order.
    pub fn evaluate<'c>(
        &mut self,
        chromosomes: impl IntoIterator<Item = &'c mut Chromosome<V::Individual>>,
    ) -> Vec<GoalId>
    where
        V::Individual: 'c,
    {
        let mut pending: Vec<&mut Chromosome<V::Individual>> = chromosomes
            .into_iter()
            .filter(|c| c.evaluation.is_none())
            .collect();
        if pending.is_empty() {
            return Vec::new();
        }
        let batch: Vec<V::Individual> = pending.iter().map(|c| c.individual.clone()).collect();
        let mut results = self.executor.execute(&batch).into_iter();
        let mut newly_covered = Vec::new();
        for chromosome in pending.iter_mut() {
            let result = results
                .next()
                .unwrap_or_else(|| ExecutionResult::new(self.table, ExecutionStatus::Crashed));
            self.executions += 1;
            self.executed_statements += result.executed_statements;
            let result = Arc::new(result);
            let fitness = goal_fitness(self.table, &result);
            let proxies = PerformanceProxies::new(
                result.proxies,
                self.variation.test_code_proxies(&chromosome.individual),
            );
            let length = self.variation.len(&chromosome.individual);

            let mut covered: Vec<GoalId> = fitness
                .iter()
                .enumerate()
                .filter(|(_, f)| **f == 0.0)
                .map(|(i, _)| GoalId(i as u32))
                .collect();
            if result.needs_environment {
                // Such a run is not a test to offer; nor is what it threw (a refusal) a goal.
                covered.clear();
            } else if self.table.criteria().exception {
                covered.extend(self.exceptions.observe(&result));
            }
            let candidate = Candidate {
                individual: &chromosome.individual,
                result: &result,
                length,
                performance_score: proxies.score(),
                execution: self.executions,
            };
            for goal in self.archive.update(&covered, &candidate) {
                let criterion = self.criterion_of(goal);
                self.covered_per_criterion[criterion_slot(criterion)] += 1;
                if criterion == Criterion::Exception {
                    self.total_per_criterion[criterion_slot(criterion)] += 1;
                }
                let description = self.describe(goal);
                for observer in self.observers.iter_mut() {
                    observer.on_goal_covered(goal, &description);
                }
                newly_covered.push(goal);
            }
            chromosome.evaluation = Some(Arc::new(Evaluation {
                result,
                fitness,
                proxies,
                length,
            }));
        }
        newly_covered
    }

    fn criterion_of(&self, goal: GoalId) -> Criterion {
        self.table
            .goal(goal)
            .map_or(Criterion::Exception, |g| g.kind.criterion())
    }

    pub fn describe(&self, goal: GoalId) -> String {
        describe(self.table, &self.exceptions, goal)
    }

    pub fn progress(&self, targets: usize) -> Progress {
        Progress {
            elapsed: self.clock.now().saturating_sub(self.start),
            executions: self.executions,
            executed_statements: self.executed_statements,
            generations: self.generations,
            coverage: self
                .table
                .enabled_criteria()
                .map(|criterion| CriterionCoverage {
                    criterion,
                    covered: self.covered_per_criterion[criterion_slot(criterion)],
                    total: self.total_per_criterion[criterion_slot(criterion)],
                })
                .collect(),
            targets,
            secondary_heuristic: self.heuristic,
            archived_tests: self.archive.distinct_tests(),
        }
    }

    /// Records a progress sample and tells the observers (after the initial population and after
    /// each generation).
    pub fn sample(&mut self, targets: usize) {
        let progress = self.progress(targets);
        for observer in self.observers.iter_mut() {
            observer.on_progress(&progress);
        }
        self.samples.push(progress);
    }

    /// Asks the stopping conditions; remembers the first that says stop.
    pub fn should_stop(&mut self, targets: usize) -> bool {
        if self.stop_reason.is_some() {
            return true;
        }
        let progress = self.progress(targets);
        for condition in self.stopping.iter_mut() {
            if condition.should_stop(&progress) {
                self.stop_reason = Some(condition.reason());
                return true;
            }
        }
        false
    }

    /// Ends the search for a reason of the algorithm's own.
    pub fn stop(&mut self, reason: StopReason) {
        self.stop_reason.get_or_insert(reason);
    }

    pub fn finish(mut self) -> SearchResult<V::Individual> {
        let targets = self.samples.last().map_or(0, |s| s.targets);
        let progress = self.progress(targets);
        if self.samples.last().map(|s| s.executions) != Some(progress.executions) {
            // The search stopped inside a generation; the final state is a sample too.
            self.samples.push(progress.clone());
        }
        SearchResult {
            archive: self.archive,
            exception_goals: self.exceptions,
            coverage: progress.coverage,
            executions: self.executions,
            executed_statements: self.executed_statements,
            generations: self.generations,
            elapsed: progress.elapsed,
            samples: self.samples,
            stop_reason: self.stop_reason.unwrap_or(StopReason::SearchExhausted),
        }
    }
}

/// A readable name of any goal, static or exception.
pub(crate) fn describe(table: &GoalTable, exceptions: &ExceptionGoals, goal: GoalId) -> String {
    if let Some(text) = table.describe(goal) {
        return text;
    }
    match exceptions.get(goal) {
        Some(e) => format!(
            "exception {} in {}",
            e.type_name,
            table.member(e.member).key
        ),
        None => format!("goal {}", goal.0),
    }
}
