//! Which caller/callee pairs project mode generates class-integration tests for, with how much
//! of the budget: Derakhshanfar, Devroey, Zaidman, van Deursen and Panichella, "Generating
//! Class-Level Integration Tests Using Call Site Information", section 4.2's sampling. The
//! paper extracts the pairs of classes with calls between them, removes pairs with a trivial
//! class (no decision point), and samples the rest so that each pair holds the most complex
//! or the most coupled classes. Here the pairs come from the call sites between project classes
//! (`javamodel::coupling`), the trivial ones and those without coupled branches are left out,
//! and the rest run most coupled branches first, as many as the integration share of the
//! budget gives the minimum each.
//!
//! Deviation: the paper's sample is for an experiment (140 pairs, five minutes each); a
//! project run has a budget, so instead of sampling across the complexity range it takes the
//! pairs with the most coupled branches (the criterion's objectives) first, the caller's and
//! callee's branches breaking ties, and shares the integration budget equally between them
//! (each pair is one search over its own objectives, as the paper runs them).

use std::time::Duration;

use javamodel::coupling::couple;
use javamodel::JavaModel;

/// A caller/callee pair of project classes with calls between them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PairCandidate {
    /// Binary names.
    pub caller: String,
    pub callee: String,
    /// `|CB_{R,E}|` (Definition 3.4).
    pub coupled_branches: usize,
    /// Branch outcomes of each class: zero means no decision point (the paper's trivial class).
    pub caller_branches: usize,
    pub callee_branches: usize,
}

/// One pair to run.
#[derive(Debug, Clone, PartialEq)]
pub struct PairRun {
    pub caller: String,
    pub callee: String,
    pub coupled_branches: usize,
    pub budget: Duration,
}

/// The pairs chosen, and those left out with why.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct PairChoice {
    /// Most coupled first.
    pub runs: Vec<PairRun>,
    pub left_out: Vec<(String, String, String)>,
}

impl PairChoice {
    /// The time the chosen pairs take together.
    pub fn total(&self) -> Duration {
        self.runs.iter().map(|r| r.budget).sum()
    }
}

/// The label of a pair in plans and progress lines: `caller -> callee`.
pub fn label(caller: &str, callee: &str) -> String {
    format!("{caller} -> {callee}")
}

/// Shares `total` between the non-trivial candidates, most coupled branches first, at least
/// `minimum` each, at most `max_pairs` of them.
pub fn choose(
    candidates: &[PairCandidate],
    total: Duration,
    minimum: Duration,
    max_pairs: Option<usize>,
) -> PairChoice {
    let mut choice = PairChoice::default();
    let mut kept: Vec<&PairCandidate> = Vec::new();
    for candidate in candidates {
        let why = if candidate.coupled_branches == 0 {
            Some("no coupled branches")
        } else if candidate.caller_branches == 0 || candidate.callee_branches == 0 {
            // Section 4.2: "methods with no decision points can be covered with single method
            // calls at the unit testing level".
            Some("a trivial class (no decision point)")
        } else {
            None
        };
        match why {
            Some(why) => choice.left_out.push((
                candidate.caller.clone(),
                candidate.callee.clone(),
                why.to_string(),
            )),
            None => kept.push(candidate),
        }
    }
    kept.sort_by(|a, b| {
        b.coupled_branches
            .cmp(&a.coupled_branches)
            .then(
                (b.caller_branches + b.callee_branches)
                    .cmp(&(a.caller_branches + a.callee_branches)),
            )
            .then(a.caller.cmp(&b.caller))
            .then(a.callee.cmp(&b.callee))
    });
    let fitting = if minimum.is_zero() {
        kept.len()
    } else {
        (total.as_secs_f64() / minimum.as_secs_f64() + 1e-9).floor() as usize
    };
    let count = kept.len().min(fitting).min(max_pairs.unwrap_or(usize::MAX));
    for candidate in &kept[count..] {
        choice.left_out.push((
            candidate.caller.clone(),
            candidate.callee.clone(),
            "the integration budget does not give it the minimum".to_string(),
        ));
    }
    if count > 0 {
        let each = total / u32::try_from(count).unwrap_or(u32::MAX);
        choice.runs = kept[..count]
            .iter()
            .map(|c| PairRun {
                caller: c.caller.clone(),
                callee: c.callee.clone(),
                coupled_branches: c.coupled_branches,
                budget: each,
            })
            .collect();
    }
    choice
}

/// One project class as [`candidates`] needs it.
pub struct ModelledClass<'a> {
    pub name: &'a str,
    pub model: &'a JavaModel,
    /// Its branch outcomes (`discover::ProjectClass::branches`).
    pub branches: usize,
}

/// The pairs of `classes` with calls from the first to the second, in name order. A pair is
/// only coupled when the caller's source mentions the callee's simple name or the callee's
/// mentions the caller's (a subclass names its superclass), which rules most pairs out without
/// parsing them again.
pub fn candidates(classes: &[ModelledClass<'_>]) -> Vec<PairCandidate> {
    let simple = |name: &str| -> String {
        let simple = name.rsplit('.').next().unwrap_or(name);
        simple.rsplit('$').next().unwrap_or(simple).to_string()
    };
    let mentions = |text: &str, word: &str| {
        text.match_indices(word).any(|(at, _)| {
            let before = text[..at].chars().next_back();
            let after = text[at + word.len()..].chars().next();
            let part =
                |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '$');
            !part(before) && !part(after)
        })
    };
    let mut out = Vec::new();
    for caller in classes {
        for callee in classes {
            if caller.name == callee.name {
                continue;
            }
            let related = mentions(caller.model.text(), &simple(callee.name))
                || mentions(callee.model.text(), &simple(caller.name));
            if !related {
                continue;
            }
            let Ok(coupling) = couple(caller.model, caller.name, callee.model, callee.name) else {
                continue;
            };
            if coupling.sites.is_empty() {
                continue;
            }
            out.push(PairCandidate {
                caller: caller.name.to_string(),
                callee: callee.name.to_string(),
                coupled_branches: coupling.pairs().len(),
                caller_branches: caller.branches,
                callee_branches: callee.branches,
            });
        }
    }
    out.sort_by(|a, b| (&a.caller, &a.callee).cmp(&(&b.caller, &b.callee)));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn candidate(
        caller: &str,
        callee: &str,
        coupled: usize,
        branches: (usize, usize),
    ) -> PairCandidate {
        PairCandidate {
            caller: caller.into(),
            callee: callee.into(),
            coupled_branches: coupled,
            caller_branches: branches.0,
            callee_branches: branches.1,
        }
    }

    /// Section 4.2: trivial pairs out, the most coupled first, as many as get the minimum,
    /// each an equal share.
    #[test]
    fn most_coupled_non_trivial_pairs_fill_the_budget() {
        let candidates = [
            candidate("p.A", "p.B", 4, (6, 2)),
            candidate("p.C", "p.B", 12, (8, 2)),
            candidate("p.D", "p.B", 30, (0, 2)),
            candidate("p.E", "p.F", 0, (4, 4)),
            candidate("p.G", "p.B", 4, (10, 2)),
            candidate("p.H", "p.B", 1, (2, 2)),
        ];
        let choice = choose(
            &candidates,
            Duration::from_secs(30),
            Duration::from_secs(10),
            None,
        );
        let chosen: Vec<(&str, Duration)> = choice
            .runs
            .iter()
            .map(|r| (r.caller.as_str(), r.budget))
            .collect();
        // C is the most coupled; A and G tie on coupled branches, G has more branches.
        assert_eq!(
            chosen,
            [
                ("p.C", Duration::from_secs(10)),
                ("p.G", Duration::from_secs(10)),
                ("p.A", Duration::from_secs(10)),
            ]
        );
        let reasons: Vec<(&str, &str)> = choice
            .left_out
            .iter()
            .map(|(caller, _, why)| (caller.as_str(), why.as_str()))
            .collect();
        assert_eq!(
            reasons,
            [
                ("p.D", "a trivial class (no decision point)"),
                ("p.E", "no coupled branches"),
                ("p.H", "the integration budget does not give it the minimum"),
            ]
        );
        assert_eq!(choice.total(), Duration::from_secs(30));
    }

    #[test]
    fn a_cap_on_pairs_and_a_budget_below_the_minimum() {
        let candidates = [
            candidate("p.A", "p.B", 4, (6, 2)),
            candidate("p.C", "p.B", 12, (8, 2)),
        ];
        let capped = choose(
            &candidates,
            Duration::from_secs(40),
            Duration::from_secs(10),
            Some(1),
        );
        assert_eq!(capped.runs.len(), 1);
        assert_eq!(capped.runs[0].budget, Duration::from_secs(40));
        let none = choose(
            &candidates,
            Duration::from_secs(5),
            Duration::from_secs(10),
            None,
        );
        assert!(none.runs.is_empty());
        assert_eq!(none.left_out.len(), 2);
    }

    fn model(source: &str) -> JavaModel {
        JavaModel::build(source, &syntax::parse_java(source, None))
    }

    /// Pairs come from call sites: a field call and the superclass's call of a method the
    /// subclass redefines; a subclass that calls nothing of its superclass and a class that
    /// only names another are no pairs.
    #[test]
    fn pairs_are_the_classes_with_calls_between_them() {
        let bank = model("package p;\npublic class Bank {\n  private Account a = new Account();\n  public void pay(int n) { if (n > 0) { a.deposit(n); } }\n}\n");
        let account = model("package p;\npublic class Account {\n  int total;\n  public void deposit(int n) { if (n > 9) { total += n; } else { log(); } }\n  protected void log() {}\n}\n");
        let savings = model("package p;\npublic class Savings extends Account {\n  protected void log() { if (total > 0) { total--; } }\n}\n");
        let note = model("package p;\n/** Mentions Bank in a comment only. */\npublic class Note {\n  public int size() { return 1; }\n}\n");
        let classes = [
            ModelledClass {
                name: "p.Bank",
                model: &bank,
                branches: 2,
            },
            ModelledClass {
                name: "p.Account",
                model: &account,
                branches: 2,
            },
            ModelledClass {
                name: "p.Savings",
                model: &savings,
                branches: 2,
            },
            ModelledClass {
                name: "p.Note",
                model: &note,
                branches: 0,
            },
        ];
        let found: Vec<(String, String)> = candidates(&classes)
            .into_iter()
            .map(|c| (c.caller, c.callee))
            .collect();
        let pair = |a: &str, b: &str| (a.to_string(), b.to_string());
        assert_eq!(
            found,
            [pair("p.Account", "p.Savings"), pair("p.Bank", "p.Account"),]
        );
    }
}
