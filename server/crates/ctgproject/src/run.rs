//! Running a project's classes on `jobs` workers at once: Campos et al., "Continuous Test
//! Generation", section 3.2's schedule (a class starts after the classes it uses, and waits
//! for one still running only while another class can be generated meanwhile) and section 3's
//! dynamic adaptation (time a class did not use is handed on to the classes after it), and
//! its mirror image, ours: time a class took beyond its budget is taken back from the classes
//! after it, down to the allocation's minimum, so that a total budget bounds the run's time as
//! far as the minimums allow.
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
    /// Its share plus what earlier classes handed on (at most `maximum`), or minus what they
    /// overran (at least the minimum).
    pub budget: Duration,
    /// The worker (0-based) it runs on: one JVM per worker.
    pub worker: usize,
    /// Its prerequisites that had finished when it started (their tests can seed it).
    pub finished_before: BTreeSet<String>,
}

/// The time limits of a run.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Limits {
    /// Time the allocation gave no class: it joins the time handed on.
    pub unallocated: Duration,
    /// No class gets more (the paper's `b`).
    pub maximum: Duration,
    /// Taking overruns back leaves no class less than this, nor less than its own share
    /// when that is smaller (the allocation's minimum `z`). `Duration::MAX` takes nothing
    /// back: classes with budgets of their own rather than shares of a total.
    pub minimum: Duration,
}

/// Runs `plan` (in its order) on `jobs` workers; `run_class` returns the class's result and
/// the time it took. Results come back in the plan's order.
pub fn run_plan<R: Send>(
    plan: &[Planned],
    jobs: usize,
    limits: Limits,
    run_class: &(dyn Fn(&Assignment) -> (R, Duration) + Sync),
) -> Vec<(Assignment, R)> {
    let jobs = jobs.max(1).min(plan.len().max(1));
    let Limits {
        unallocated,
        maximum,
        minimum,
    } = limits;
    let state = Mutex::new(Schedule {
        started: vec![false; plan.len()],
        finished: BTreeSet::new(),
        carry: unallocated,
        debt: Duration::ZERO,
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
                    let budget = s.budget_of(plan, index, maximum, minimum);
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
                s.settle(assignment.budget, took);
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
    /// Time used beyond budgets so far, to take back (never both non-zero after `settle`).
    debt: Duration,
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

    /// A finished class's budget against the time it took: what it left joins the carried
    /// time, what it overran the debt, and the two cancel out.
    fn settle(&mut self, budget: Duration, took: Duration) {
        self.carry += budget.saturating_sub(took);
        self.debt += took.saturating_sub(budget);
        let even = self.carry.min(self.debt);
        self.carry -= even;
        self.debt -= even;
    }

    /// The class's share plus its part of the carried time, or minus its part of the debt: in
    /// proportion to its share among the classes not yet started (itself included), so the
    /// last class takes what is left. A class gets at most `maximum` and, when time is taken
    /// back, at least `minimum` (or its share, when smaller).
    fn budget_of(
        &mut self,
        plan: &[Planned],
        index: usize,
        maximum: Duration,
        minimum: Duration,
    ) -> Duration {
        let own = plan[index].budget;
        let remaining: Duration = (0..plan.len())
            .filter(|&i| !self.started[i] || i == index)
            .map(|i| plan[i].budget)
            .sum();
        let fraction = if remaining.is_zero() {
            0.0
        } else {
            own.as_secs_f64() / remaining.as_secs_f64()
        };
        if !self.debt.is_zero() {
            let floor = own.min(minimum);
            let taken = self.debt.mul_f64(fraction).min(own - floor);
            self.debt -= taken;
            return own - taken;
        }
        let budget = (own + self.carry.mul_f64(fraction)).min(maximum.max(own));
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

    /// Limits that hand unused time on and take nothing back.
    fn handing_on(unallocated: Duration, maximum: Duration) -> Limits {
        Limits {
            unallocated,
            maximum,
            minimum: Duration::MAX,
        }
    }

    fn rounded_budgets<R>(results: &[(Assignment, R)]) -> Vec<f64> {
        results
            .iter()
            .map(|(a, _)| (a.budget.as_secs_f64() * 1000.0).round() / 1000.0)
            .collect()
    }

    #[test]
    fn overruns_are_taken_back_in_proportion() {
        // A overruns its 10 s by 6 s; B and C (shares 10 : 20) give it back, 2 s and 4 s.
        let plan = [
            planned("A", 10, &[]),
            planned("B", 10, &[]),
            planned("C", 20, &[]),
        ];
        let limits = Limits {
            unallocated: Duration::ZERO,
            maximum: Duration::from_secs(100),
            minimum: Duration::from_secs(1),
        };
        let results = run_plan(&plan, 1, limits, &|a| {
            let took = if a.class == "A" {
                Duration::from_secs(16)
            } else {
                a.budget
            };
            ((), took)
        });
        assert_eq!(rounded_budgets(&results), [10.0, 8.0, 16.0]);
    }

    #[test]
    fn taking_back_stops_at_the_minimum_and_unused_time_repays_first() {
        // A overruns by 30 s. B and C give back all but the minimum of 4 s; C then uses
        // nothing, and its 4 s unused repay part of the debt, so D gives back only the 4 s
        // still owed.
        let plan = [
            planned("A", 10, &[]),
            planned("B", 10, &[]),
            planned("C", 20, &[]),
            planned("D", 10, &[]),
        ];
        let limits = Limits {
            unallocated: Duration::ZERO,
            maximum: Duration::from_secs(100),
            minimum: Duration::from_secs(4),
        };
        let results = run_plan(&plan, 1, limits, &|a| {
            let took = match a.class.as_str() {
                "A" => Duration::from_secs(40),
                "C" => Duration::ZERO,
                _ => a.budget,
            };
            ((), took)
        });
        // B: 30 × 10/40 = 7.5 > 10 − 4: gets 4 (debt 24). C: 24 × 20/30 = 16 taken, gets 4
        // (debt 8), uses none: 4 repaid (debt 4). D: all of it, 4: gets 6.
        assert_eq!(rounded_budgets(&results), [10.0, 4.0, 4.0, 6.0]);
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
            handing_on(Duration::from_secs(3), Duration::from_secs(100)),
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
            handing_on(Duration::from_secs(50), Duration::from_secs(15)),
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
        let results = run_plan(
            &plan,
            2,
            handing_on(Duration::ZERO, Duration::from_secs(9)),
            &|a| {
                std::thread::sleep(Duration::from_millis(sleeps(&a.class)));
                (a.worker, Duration::ZERO)
            },
        );
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
        let results = run_plan(
            &plan,
            2,
            handing_on(Duration::ZERO, Duration::from_secs(9)),
            &|a| {
                if a.class == "A" {
                    std::thread::sleep(Duration::from_millis(300));
                }
                (a.worker, Duration::ZERO)
            },
        );
        assert!(results[1].0.finished_before.is_empty());
        assert_ne!(results[0].1, results[1].1);
    }
}
