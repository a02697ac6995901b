//! How a project's time budget is shared between its classes: Campos, Arcuri, Fraser and
//! Abreu, "Continuous Test Generation: Enhancing Continuous Integration with Automated Test
//! Generation", section 3.1 (*Budget*: a minimum per class, the rest in proportion to the
//! class's branches, no class above what one core has) and section 4.1 (*History*: changed
//! classes get `h` times their share; unchanged classes whose last three runs did not improve
//! are skipped; when the total is exceeded, classes are ranked by change and complexity and
//! the most that fit are kept). The *Simple* strategy (an equal share) is kept for comparison.
//! Pure: numbers in, numbers out.

use std::time::Duration;

/// The paper's `h`: a changed class's budget factor ("h = 2 ... the value we use").
pub const CHANGED_FACTOR: f64 = 2.0;

/// How the budget is shared.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Strategy {
    /// The paper's *Budget* allocation (with *History*'s factor and skips).
    #[default]
    Branches,
    /// The paper's *Simple* strategy: every class the same share.
    Equal,
}

/// One class as the allocation sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Candidate {
    pub class: String,
    /// Branch outcomes of the class: the paper's proxy for how hard it is to cover.
    pub branches: usize,
    /// Changed since the last run (or since the `--changed-since` revision).
    pub changed: bool,
    /// Why the class's history says not to run it (section 4.1's three runs without
    /// improvement, or every goal covered), when it does.
    pub skip: Option<String>,
}

/// The settings of one allocation.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BudgetSettings {
    /// The paper's `k × b`: the time of all classes together (core-seconds).
    pub total: Duration,
    /// The paper's minimum per class (`z ≥ 1` minute in its experiments, a third of the three
    /// minutes per class it allowed on average).
    pub minimum: Duration,
    /// The paper's `b`: no class gets more than the whole run lasts on one core.
    pub maximum: Duration,
    pub strategy: Strategy,
    /// The paper's `h` for changed classes.
    pub changed_factor: f64,
}

/// What a class gets.
#[derive(Debug, Clone, PartialEq)]
pub enum Share {
    Run(Duration),
    /// Not run this time, and why.
    Skip(String),
}

/// The budget of every candidate, in the candidates' order, and the time no class was given
/// (handed on at run time, see [`crate::run`]).
#[derive(Debug, Clone, PartialEq)]
pub struct Allocation {
    pub shares: Vec<(String, Share)>,
    pub unallocated: Duration,
}

impl Allocation {
    /// The classes that run with their budgets, in the candidates' order.
    pub fn runs(&self) -> impl Iterator<Item = (&str, Duration)> {
        self.shares.iter().filter_map(|(class, share)| match share {
            Share::Run(budget) => Some((class.as_str(), *budget)),
            Share::Skip(_) => None,
        })
    }
}

/// Shares `settings.total` between `candidates`.
///
/// Steps, as in the paper: classes the history rules out are skipped (section 4.1); if the
/// minimum for every class exceeds the total, only as many classes as fit get the minimum,
/// the changed and most complex first (section 3.1's "subset of the classes"); each class gets
/// the minimum plus the rest in proportion to its branches, at most `maximum` (the excess of a
/// capped class goes to the others in the same proportion); a changed class's share is then
/// multiplied by `h`, and when that exceeds the total, unchanged classes are skipped, the
/// least complex first, until the rest fits (section 4.1's ranking by change and complexity).
///
/// Deviation: the paper leaves the total not given to any class unused; here it is returned
/// as `unallocated` so the run can hand it on with the time classes did not use (section 3
/// names that dynamic adaptation as future work).
pub fn allocate(candidates: &[Candidate], settings: &BudgetSettings) -> Allocation {
    let total = settings.total.as_secs_f64();
    let minimum = settings.minimum.as_secs_f64().min(total);
    let maximum = settings.maximum.as_secs_f64().max(minimum);
    let mut shares: Vec<Option<Share>> = candidates
        .iter()
        .map(|c| c.skip.clone().map(Share::Skip))
        .collect();
    let mut eligible: Vec<usize> = (0..candidates.len())
        .filter(|&i| shares[i].is_none())
        .collect();

    // Section 3.1: not even the minimum for every class: the most important that fit.
    let fitting = if minimum > 0.0 {
        (total / minimum + 1e-9).floor() as usize
    } else {
        usize::MAX
    };
    if eligible.len() > fitting {
        let mut ranked = eligible.clone();
        ranked.sort_by(|&a, &b| rank(&candidates[a], &candidates[b]));
        for &i in &ranked[fitting..] {
            shares[i] = Some(Share::Skip(
                "the total budget does not give it the minimum".into(),
            ));
        }
        eligible.retain(|i| ranked[..fitting].contains(i));
    }

    let mut budgets = vec![0.0; candidates.len()];
    match settings.strategy {
        Strategy::Equal => {
            let each = if eligible.is_empty() {
                0.0
            } else {
                (total / eligible.len() as f64).min(maximum)
            };
            for &i in &eligible {
                budgets[i] = each;
            }
        }
        Strategy::Branches => {
            for &i in &eligible {
                budgets[i] = minimum;
            }
            let rest = total - minimum * eligible.len() as f64;
            let weights: Vec<f64> = candidates.iter().map(|c| c.branches as f64).collect();
            share_in_proportion(&eligible, &weights, rest, maximum, &mut budgets);
            // Section 4.1: the changed class's budget times h; over the total, keep the
            // highest ranked classes that fit.
            // With every class changed (a first run, where every class is new) h would say
            // nothing about how they compare: the *Budget* shares stand.
            let changed_any = eligible.iter().any(|&i| candidates[i].changed)
                && !eligible.iter().all(|&i| candidates[i].changed);
            for &i in &eligible {
                if changed_any && candidates[i].changed {
                    budgets[i] = (budgets[i] * settings.changed_factor).min(maximum);
                }
            }
            let mut sum: f64 = eligible.iter().map(|&i| budgets[i]).sum();
            if changed_any && sum > total + 1e-9 {
                // Unchanged classes leave, least important first, until the rest fits.
                let mut ranked = eligible.clone();
                ranked.sort_by(|&a, &b| rank(&candidates[a], &candidates[b]));
                for &i in ranked.iter().rev() {
                    if sum <= total + 1e-9 || candidates[i].changed {
                        continue;
                    }
                    sum -= budgets[i];
                    budgets[i] = 0.0;
                    shares[i] = Some(Share::Skip(
                        "unchanged, and the changed classes took its budget".into(),
                    ));
                }
                eligible.retain(|&i| shares[i].is_none());
                // Deviation: with only changed classes left the paper's rule has nothing more
                // to skip; their budgets shrink to the total together.
                if sum > total + 1e-9 {
                    for &i in &eligible {
                        budgets[i] *= total / sum;
                    }
                }
            }
        }
    }
    for &i in &eligible {
        shares[i] = Some(Share::Run(Duration::from_secs_f64(budgets[i])));
    }
    let given: f64 = eligible.iter().map(|&i| budgets[i]).sum();
    Allocation {
        shares: candidates
            .iter()
            .zip(shares)
            .map(|(c, share)| (c.class.clone(), share.expect("every candidate decided")))
            .collect(),
        unallocated: Duration::from_secs_f64((total - given).max(0.0)),
    }
}

/// Section 4.1's ranking: changed classes first, then by complexity (branches), then by name
/// so the result does not depend on the input order.
fn rank(a: &Candidate, b: &Candidate) -> std::cmp::Ordering {
    b.changed
        .cmp(&a.changed)
        .then(b.branches.cmp(&a.branches))
        .then(a.class.cmp(&b.class))
}

/// Adds `amount` to `budgets[i]` for `i` in `among`, in proportion to `weights[i]` (equally
/// when every weight is zero), never above `cap`: what a capped class cannot take goes to the
/// others in the same proportion.
fn share_in_proportion(
    among: &[usize],
    weights: &[f64],
    mut amount: f64,
    cap: f64,
    budgets: &mut [f64],
) {
    let mut open: Vec<usize> = among
        .iter()
        .copied()
        .filter(|&i| budgets[i] < cap)
        .collect();
    while amount > 1e-9 && !open.is_empty() {
        let weight_sum: f64 = open.iter().map(|&i| weights[i]).sum();
        let part = |i: usize| {
            if weight_sum > 0.0 {
                weights[i] / weight_sum
            } else {
                1.0 / open.len() as f64
            }
        };
        let mut handed = 0.0;
        for &i in &open {
            let add = (amount * part(i)).min(cap - budgets[i]);
            budgets[i] += add;
            handed += add;
        }
        amount -= handed;
        let before = open.len();
        open.retain(|&i| budgets[i] < cap - 1e-9);
        if open.len() == before {
            break;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn candidate(class: &str, branches: usize, changed: bool) -> Candidate {
        Candidate {
            class: class.into(),
            branches,
            changed,
            skip: None,
        }
    }

    fn settings(total: u64, minimum: u64, maximum: u64) -> BudgetSettings {
        BudgetSettings {
            total: Duration::from_secs(total),
            minimum: Duration::from_secs(minimum),
            maximum: Duration::from_secs(maximum),
            strategy: Strategy::Branches,
            changed_factor: CHANGED_FACTOR,
        }
    }

    fn seconds(allocation: &Allocation) -> Vec<(String, Option<f64>)> {
        allocation
            .shares
            .iter()
            .map(|(class, share)| {
                (
                    class.clone(),
                    match share {
                        Share::Run(d) => Some((d.as_secs_f64() * 1000.0).round() / 1000.0),
                        Share::Skip(_) => None,
                    },
                )
            })
            .collect()
    }

    fn expect(allocation: &Allocation, expected: &[(&str, Option<f64>)]) {
        let expected: Vec<(String, Option<f64>)> =
            expected.iter().map(|(c, s)| (c.to_string(), *s)).collect();
        assert_eq!(seconds(allocation), expected);
    }

    /// The paper's experiment setting: three minutes per class on average, a minimum of one.
    /// Three classes of 0, 10 and 30 branches share 540 s: 60 s each, the remaining 360 s in
    /// proportion 0 : 10 : 30, so 60, 60 + 90 and 60 + 270.
    #[test]
    fn minimum_plus_share_of_branches() {
        let classes = [
            candidate("p.Trivial", 0, false),
            candidate("p.Small", 10, false),
            candidate("p.Large", 30, false),
        ];
        let a = allocate(&classes, &settings(540, 60, 540));
        expect(
            &a,
            &[
                ("p.Trivial", Some(60.0)),
                ("p.Small", Some(150.0)),
                ("p.Large", Some(330.0)),
            ],
        );
        assert_eq!(a.unallocated, Duration::ZERO);
    }

    /// `z ≤ b`: with two cores and 540 s in all, the run lasts 270 s, so no class gets more.
    /// Large's 330 s is capped at 270 s; the 60 s over go to the uncapped in proportion
    /// (Small: all of it, Trivial has no branches).
    #[test]
    fn no_class_above_the_cap() {
        let classes = [
            candidate("p.Trivial", 0, false),
            candidate("p.Small", 10, false),
            candidate("p.Large", 30, false),
        ];
        let a = allocate(&classes, &settings(540, 60, 270));
        expect(
            &a,
            &[
                ("p.Trivial", Some(60.0)),
                ("p.Small", Some(210.0)),
                ("p.Large", Some(270.0)),
            ],
        );
    }

    /// The paper's example in section 4.1: D gets twice S's budget; S changed, h = 2, so S
    /// then gets as much as D. Total 300 s, minimum 0: S = 100, D = 200; S × 2 = 200, the sum
    /// 400 exceeds 300, so the ranking (changed first) keeps S and drops the unchanged D.
    #[test]
    fn changed_class_times_h_and_skips_when_over() {
        let classes = [candidate("p.S", 10, true), candidate("p.D", 20, false)];
        let a = allocate(&classes, &settings(300, 0, 300));
        expect(&a, &[("p.S", Some(200.0)), ("p.D", None)]);
        assert_eq!(a.unallocated, Duration::from_secs(100));

        // With 1000 s and a cap of 500: S = 333.3 + 166.7 (D's excess over the cap) = 500,
        // times 2 capped again at 500; D = 500.
        let a = allocate(&classes, &settings(1000, 0, 500));
        expect(&a, &[("p.S", Some(500.0)), ("p.D", Some(500.0))]);
    }

    #[test]
    fn history_skips_and_too_small_totals() {
        let mut stagnant = candidate("p.Old", 50, false);
        stagnant.skip = Some("no improvement in the last 3 runs".into());
        let classes = [
            stagnant,
            candidate("p.A", 5, false),
            candidate("p.B", 8, true),
            candidate("p.C", 9, false),
        ];
        // 100 s with a minimum of 40 s: only two classes fit; B (changed) then C (more
        // branches). The 20 s left go in proportion 8 : 9, then B doubles to 2 × 49.4 = 98.8,
        // over the total with C's 50.6: C is dropped too.
        let a = allocate(&classes, &settings(100, 40, 100));
        expect(
            &a,
            &[
                ("p.Old", None),
                ("p.A", None),
                ("p.B", Some(98.824)),
                ("p.C", None),
            ],
        );
        assert!(matches!(&a.shares[0].1, Share::Skip(why) if why.contains("3 runs")));
        assert!(matches!(&a.shares[1].1, Share::Skip(why) if why.contains("minimum")));
    }

    /// Every class new (a first run): h changes nothing, the *Budget* shares stand.
    #[test]
    fn all_changed_keeps_the_budget_shares() {
        let classes = [candidate("p.A", 10, true), candidate("p.B", 30, true)];
        let a = allocate(&classes, &settings(100, 10, 100));
        // 10 + 80 × 1/4 = 30 and 10 + 80 × 3/4 = 70.
        expect(&a, &[("p.A", Some(30.0)), ("p.B", Some(70.0))]);
        assert_eq!(a.unallocated, Duration::ZERO);
    }

    /// Changed classes over the total once every unchanged one is out: they shrink together.
    #[test]
    fn changed_classes_alone_over_the_total_shrink_together() {
        let classes = [
            candidate("p.A", 10, true),
            candidate("p.B", 30, true),
            candidate("p.C", 0, false),
        ];
        // 120 s, minimum 10: A = 10 + 90/4 = 32.5, B = 10 + 67.5 = 77.5, C = 10. A and B
        // double to 65 and 155 (cap 200): 230 > 120; C leaves; 220 → scaled by 120/220.
        let a = allocate(&classes, &settings(120, 10, 200));
        expect(
            &a,
            &[("p.A", Some(35.455)), ("p.B", Some(84.545)), ("p.C", None)],
        );
    }

    #[test]
    fn equal_split_is_the_simple_strategy() {
        let classes = [
            candidate("p.A", 0, false),
            candidate("p.B", 100, true),
            candidate("p.C", 3, false),
        ];
        let mut s = settings(90, 10, 90);
        s.strategy = Strategy::Equal;
        let a = allocate(&classes, &s);
        expect(
            &a,
            &[
                ("p.A", Some(30.0)),
                ("p.B", Some(30.0)),
                ("p.C", Some(30.0)),
            ],
        );
        assert_eq!(a.runs().count(), 3);
    }

    #[test]
    fn no_branches_anywhere_splits_the_rest_equally() {
        let classes = [candidate("p.A", 0, false), candidate("p.B", 0, false)];
        let a = allocate(&classes, &settings(10, 2, 10));
        expect(&a, &[("p.A", Some(5.0)), ("p.B", Some(5.0))]);
    }
}
