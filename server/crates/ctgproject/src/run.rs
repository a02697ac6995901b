//! Running a project's classes on `jobs` workers at once: Campos et al., "Continuous Test
//! Generation", section 3.2's schedule (a class starts after the classes it uses, and waits
//! for one still running only while another class can be generated meanwhile) and section 3's
//! dynamic adaptation (time a class did not use is handed on to the classes after it).
//!
//! The runner knows nothing of JVMs: `run_class` does the work on the worker it is given, so
//! the schedule is tested with plain functions.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::{Condvar, Mutex};
use std::time::Duration;

/// One class to run, in the dependency order.
#[derive(Debug, Clone, PartialEq)]
pub struct Planned {
    pub class: String,
    /// Its share of the total ([`crate::allocation`]).
    pub budget: Duration,
    /// Classes that should finish first (its prerequisites in [`crate::order`]).
    pub after: BTreeSet<String>,
}

/// What the runner gives `run_class`.
#[derive(Debug, Clone, PartialEq)]
pub struct Assignment {
    pub class: String,
    /// Its share plus what earlier classes handed on, at most `maximum`.
    pub budget: Duration,
    /// The worker (0-based) it runs on: one JVM per worker.
    pub worker: usize,
    /// Its prerequisites that had finished when it started (their tests can seed it).
    pub finished_before: BTreeSet<String>,
}

/// Runs `plan` (in its order) on `jobs` workers; `run_class` returns the class's result and
/// the time it took. `unallocated` (time the allocation gave no class) joins the time handed
/// on. `maximum` bounds any class's budget (the paper's `b`). Results come back in the plan's
/// order.
pub fn run_plan<R: Send>(
    plan: &[Planned],
    jobs: usize,
    unallocated: Duration,
    maximum: Duration,
    run_class: &(dyn Fn(&Assignment) -> (R, Duration) + Sync),
) -> Vec<(Assignment, R)> {
    let jobs = jobs.max(1).min(plan.len().max(1));
    let state = Mutex::new(Schedule {
        started: vec![false; plan.len()],
        finished: BTreeSet::new(),
        carry: unallocated,
        results: (0..plan.len()).map(|_| None).collect(),
    });
    let changed = Condvar::new();
    std::thread::scope(|scope| {
        for worker in 0..jobs {
            let state = &state;
            let changed = &changed;
            scope.spawn(move || loop {
                let (index, assignment) = {
                    let mut s = state.lock().expect("no worker panics holding the lock");
                    let Some(index) = s.next(plan) else {
                        changed.notify_all();
                        return;
                    };
                    s.started[index] = true;
                    let budget = s.budget_of(plan, index, maximum);
                    let finished_before = plan[index]
                        .after
                        .iter()
                        .filter(|c| s.finished.contains(*c))
                        .cloned()
                        .collect();
                    (
                        index,
                        Assignment {
                            class: plan[index].class.clone(),
                            budget,
                            worker,
                            finished_before,
                        },
                    )
                };
                let (result, took) = run_class(&assignment);
                let mut s = state.lock().expect("no worker panics holding the lock");
                s.carry += assignment.budget.saturating_sub(took);
                s.finished.insert(plan[index].class.clone());
                s.results[index] = Some((assignment, result));
                changed.notify_all();
            });
        }
    });
    state
        .into_inner()
        .expect("workers finished")
        .results
        .into_iter()
        .map(|r| r.expect("every planned class ran"))
        .collect()
}

struct Schedule<R> {
    started: Vec<bool>,
    finished: BTreeSet<String>,
    /// Time not used so far, to hand on.
    carry: Duration,
    results: Vec<Option<(Assignment, R)>>,
}

impl<R> Schedule<R> {
    /// The first class in the order whose prerequisites all finished; when none has and
    /// this worker would otherwise idle, the first not started (the paper postpones a class
    /// only "if meanwhile another class c'' can be generated").
    fn next(&self, plan: &[Planned]) -> Option<usize> {
        let waiting: Vec<usize> = (0..plan.len()).filter(|&i| !self.started[i]).collect();
        waiting
            .iter()
            .copied()
            .find(|&i| plan[i].after.iter().all(|c| self.finished.contains(c)))
            .or_else(|| waiting.first().copied())
    }

    /// The class's share plus its part of the carried time: in proportion to its share among
    /// the classes not yet started (itself included), so the last class takes what is left.
    fn budget_of(&mut self, plan: &[Planned], index: usize, maximum: Duration) -> Duration {
        let own = plan[index].budget;
        let remaining: Duration = (0..plan.len())
            .filter(|&i| !self.started[i] || i == index)
            .map(|i| plan[i].budget)
            .sum();
        let part = if remaining.is_zero() {
            Duration::ZERO
        } else {
            self.carry
                .mul_f64(own.as_secs_f64() / remaining.as_secs_f64())
        };
        let budget = (own + part).min(maximum.max(own));
        self.carry = self.carry.saturating_sub(budget - own);
        budget
    }
}

/// The prerequisites of each planned class as a map (for callers building [`Planned`]).
pub fn plan(
    order: &[String],
    budgets: &BTreeMap<String, Duration>,
    after: &BTreeMap<String, BTreeSet<String>>,
) -> Vec<Planned> {
    order
        .iter()
        .filter_map(|class| {
            budgets.get(class).map(|budget| Planned {
                class: class.clone(),
                budget: *budget,
                after: after
                    .get(class)
                    .into_iter()
                    .flatten()
                    .filter(|c| budgets.contains_key(*c))
                    .cloned()
                    .collect(),
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn planned(class: &str, seconds: u64, after: &[&str]) -> Planned {
        Planned {
            class: class.into(),
            budget: Duration::from_secs(seconds),
            after: after.iter().map(|s| s.to_string()).collect(),
        }
    }

    #[test]
    fn unused_time_is_handed_on_in_proportion() {
        // A uses 4 of its 10 s; the 6 s left go to B and C in proportion 10 : 20 (2 s, then
        // the 4 s left all to C); unallocated 3 s join from the start.
        let plan = [
            planned("A", 10, &[]),
            planned("B", 10, &[]),
            planned("C", 20, &[]),
        ];
        let results = run_plan(
            &plan,
            1,
            Duration::from_secs(3),
            Duration::from_secs(100),
            &|a| {
                let took = if a.class == "A" {
                    Duration::from_secs(4)
                } else {
                    a.budget
                };
                ((), took)
            },
        );
        let budgets: Vec<f64> = results
            .iter()
            .map(|(a, _)| (a.budget.as_secs_f64() * 1000.0).round() / 1000.0)
            .collect();
        // A: 10 + 3 × 10/40 = 10.75 (used 4: 6.75 + 2.25 carried = 9); B: 10 + 9 × 10/30 = 13;
        // C: 20 + 6 = 26.
        assert_eq!(budgets, [10.75, 13.0, 26.0]);
    }

    #[test]
    fn the_cap_bounds_what_is_handed_on() {
        let plan = [planned("A", 10, &[]), planned("B", 10, &[])];
        let results = run_plan(
            &plan,
            1,
            Duration::from_secs(50),
            Duration::from_secs(15),
            &|a| ((), a.budget),
        );
        assert_eq!(results[0].0.budget, Duration::from_secs(15));
        assert_eq!(results[1].0.budget, Duration::from_secs(15));
    }

    #[test]
    fn dependents_start_after_their_prerequisites_and_see_them() {
        // Two workers; B uses A. While A runs, the other worker takes D (ready) rather than
        // B; B starts when A has finished and sees it.
        let plan = [
            planned("A", 1, &[]),
            planned("B", 1, &["A"]),
            planned("D", 1, &[]),
        ];
        let sleeps = |class: &str| match class {
            "A" => 200,
            "D" => 600,
            _ => 0,
        };
        let results = run_plan(&plan, 2, Duration::ZERO, Duration::from_secs(9), &|a| {
            std::thread::sleep(Duration::from_millis(sleeps(&a.class)));
            (a.worker, Duration::ZERO)
        });
        assert_eq!(results[1].0.class, "B");
        assert_eq!(results[1].0.finished_before, ["A".to_string()].into());
        assert_eq!(
            results[1].1, results[0].1,
            "B ran on A's worker once A was done"
        );
        assert_ne!(results[2].1, results[0].1);
    }

    #[test]
    fn a_class_waits_only_while_another_can_run() {
        // Nothing else to do: the second worker starts B while A still runs, without A's
        // tests (section 3.2 postpones a class only if another can be generated meanwhile).
        let plan = [planned("A", 1, &[]), planned("B", 1, &["A"])];
        let results = run_plan(&plan, 2, Duration::ZERO, Duration::from_secs(9), &|a| {
            if a.class == "A" {
                std::thread::sleep(Duration::from_millis(300));
            }
            (a.worker, Duration::ZERO)
        });
        assert!(results[1].0.finished_before.is_empty());
        assert_ne!(results[0].1, results[1].1);
    }
}
