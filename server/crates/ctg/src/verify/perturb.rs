//! Perturbed re-execution (`docs/emission.md`, "Perturbed re-execution"): once a round's test
//! class passed in both orders, it runs again in fresh JVMs under what another developer's
//! machine, another day or another build would give it, so that no test is offered that
//! passes only here and now:
//!
//! | run | order | clock | time zone | locale | charset | working directory |
//! |---|---|---|---|---|---|---|
//! | ahead | shuffled (seed 1) | +40 days 5 h | `Pacific/Kiritimati` (UTC+14) | `tr-TR` | ISO-8859-1 | another |
//! | back | shuffled (seed 2) | −23 days 7 h | `America/St_Johns` (UTC−3:30, DST) | `de-DE` | US-ASCII | another |
//! | order | shuffled (seed 3) | | | | | |
//!
//! The time zone, locale and charset are JVM flags (`-Duser.timezone`, `-Duser.language`/
//! `-Duser.country`, `-Dfile.encoding`), the working directory is the process's, the clock is
//! shifted by ctgls's preload library (`preload.rs`, Linux only). They do not interact with one
//! another, so each run carries several and the three run at once: three JVM starts per
//! confirming round instead of one per perturbation. With the reversed run of every round,
//! that is three seeded random orders plus the reversed one.
//!
//! Only when a combined run fails are its failing tests run again, alone, under each of its
//! perturbations in turn (two JVMs at a time), to name the cause: the first single perturbation
//! under which the test fails again, else the order (the test fails only beside other tests).
//! The failing assertion is then left out with a comment naming the perturbation, and a test
//! whose outcome changed is dropped, as for any unstable value; the next round checks the
//! class again, perturbations included.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use super::junit::{RunOrder, RunReport, TestFailure};
use super::{DropReason, Dropped, VerifyError};

/// One thing a perturbed run changes, as counted in the report.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum PerturbationKind {
    /// The wall clock days and hours ahead.
    ClockAhead,
    /// The wall clock days and hours back.
    ClockBack,
    TimeZone,
    Locale,
    Charset,
    WorkingDirectory,
    /// The tests ran in a shuffled order beside the rest of the suite (a failure that no
    /// single perturbation reproduces for the test alone).
    Order,
    /// Not attributed: the budget left no time to run the failing tests under each
    /// perturbation alone.
    Combined,
}

impl PerturbationKind {
    /// The name in the report (`perturbation.removed`).
    pub fn name(self) -> &'static str {
        match self {
            PerturbationKind::ClockAhead => "clock_ahead",
            PerturbationKind::ClockBack => "clock_back",
            PerturbationKind::TimeZone => "time_zone",
            PerturbationKind::Locale => "locale",
            PerturbationKind::Charset => "charset",
            PerturbationKind::WorkingDirectory => "working_directory",
            PerturbationKind::Order => "order",
            PerturbationKind::Combined => "combined",
        }
    }

    /// The comment that takes an assertion's place: `// Not asserted: <subject> <note>.`
    pub fn note(self) -> &'static str {
        match self {
            PerturbationKind::ClockAhead | PerturbationKind::ClockBack => {
                "differs on another day (it depends on the clock)"
            }
            PerturbationKind::TimeZone => "differs in another time zone",
            PerturbationKind::Locale => "differs in another locale",
            PerturbationKind::Charset => "differs with another default charset",
            PerturbationKind::WorkingDirectory => "differs in another working directory",
            PerturbationKind::Order => "differs when the tests run in another order",
            PerturbationKind::Combined => {
                "differs on another machine (clock, time zone, locale, charset or order)"
            }
        }
    }
}

/// What one perturbed JVM runs under.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Perturbation {
    /// Names the run (its files, its report).
    pub label: String,
    pub order: RunOrder,
    /// The clock-shift library and the offset in seconds.
    pub clock: Option<(PathBuf, i64)>,
    pub time_zone: Option<&'static str>,
    /// Language and country.
    pub locale: Option<(&'static str, &'static str)>,
    pub charset: Option<&'static str>,
    /// Work in another directory than the run directory.
    pub elsewhere: bool,
}

/// +40 days and 5 hours: another month, another day of the week, and across midnight.
pub const CLOCK_AHEAD_SECONDS: i64 = 40 * 86_400 + 5 * 3_600;
/// −23 days and 7 hours: the other direction, another day of the month and of the week.
pub const CLOCK_BACK_SECONDS: i64 = -(23 * 86_400 + 7 * 3_600);

impl Perturbation {
    fn plain(label: &str, order: RunOrder) -> Perturbation {
        Perturbation {
            label: label.to_string(),
            order,
            clock: None,
            time_zone: None,
            locale: None,
            charset: None,
            elsewhere: false,
        }
    }

    /// The three combined runs of a confirming round (module documentation); without a
    /// clock-shift library the clock stays.
    pub fn combined(clock_library: Option<&PathBuf>) -> Vec<Perturbation> {
        let clock = |offset| clock_library.map(|library| (library.clone(), offset));
        vec![
            Perturbation {
                clock: clock(CLOCK_AHEAD_SECONDS),
                time_zone: Some("Pacific/Kiritimati"),
                locale: Some(("tr", "TR")),
                charset: Some("ISO-8859-1"),
                elsewhere: true,
                ..Perturbation::plain("ahead", RunOrder::Shuffled(1))
            },
            Perturbation {
                clock: clock(CLOCK_BACK_SECONDS),
                time_zone: Some("America/St_Johns"),
                locale: Some(("de", "DE")),
                charset: Some("US-ASCII"),
                elsewhere: true,
                ..Perturbation::plain("back", RunOrder::Shuffled(2))
            },
            Perturbation::plain("order", RunOrder::Shuffled(3)),
        ]
    }

    /// The kinds this run changes, in the order attribution tries them.
    pub fn kinds(&self) -> Vec<PerturbationKind> {
        let mut kinds = Vec::new();
        if let Some((_, offset)) = &self.clock {
            kinds.push(if *offset >= 0 {
                PerturbationKind::ClockAhead
            } else {
                PerturbationKind::ClockBack
            });
        }
        if self.time_zone.is_some() {
            kinds.push(PerturbationKind::TimeZone);
        }
        if self.locale.is_some() {
            kinds.push(PerturbationKind::Locale);
        }
        if self.charset.is_some() {
            kinds.push(PerturbationKind::Charset);
        }
        if self.elsewhere {
            kinds.push(PerturbationKind::WorkingDirectory);
        }
        kinds
    }

    /// This run's `kind` alone, in name order: an attribution run.
    pub fn only(&self, kind: PerturbationKind) -> Perturbation {
        let mut single = Perturbation::plain(
            &format!("{}-{}", self.label, kind.name()),
            RunOrder::Forward,
        );
        match kind {
            PerturbationKind::ClockAhead | PerturbationKind::ClockBack => {
                single.clock = self.clock.clone()
            }
            PerturbationKind::TimeZone => single.time_zone = self.time_zone,
            PerturbationKind::Locale => single.locale = self.locale,
            PerturbationKind::Charset => single.charset = self.charset,
            PerturbationKind::WorkingDirectory => single.elsewhere = self.elsewhere,
            PerturbationKind::Order | PerturbationKind::Combined => {}
        }
        single
    }

    /// The JVM flags of the time zone, locale and charset.
    pub fn jvm_properties(&self) -> Vec<String> {
        let mut flags = Vec::new();
        if let Some(zone) = self.time_zone {
            flags.push(format!("-Duser.timezone={zone}"));
        }
        if let Some((language, country)) = self.locale {
            flags.push(format!("-Duser.language={language}"));
            flags.push(format!("-Duser.country={country}"));
        }
        if let Some(charset) = self.charset {
            flags.push(format!("-Dfile.encoding={charset}"));
        }
        flags
    }
}

/// The perturbed runs of one round: the combined runs, the attribution runs that followed a
/// failure, and what each failure is put down to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PerturbedRound {
    pub round: u32,
    /// Tests in the class.
    pub tests: usize,
    /// The combined runs, which ran at once.
    pub combined: Vec<RunReport>,
    /// The runs of failing tests under one perturbation each.
    pub attribution: Vec<RunReport>,
    /// Wall time of the whole stage.
    pub duration: Duration,
    /// Per failing test, the perturbation its failure is put down to.
    pub causes: BTreeMap<String, PerturbationKind>,
}

impl PerturbedRound {
    /// The combined runs' failures, each test once (the first run that saw it fail).
    pub fn failures(&self) -> Vec<&TestFailure> {
        let mut seen = std::collections::BTreeSet::new();
        self.combined
            .iter()
            .flat_map(|run| &run.failures)
            .filter(|failure| seen.insert(failure.test.clone()))
            .collect()
    }
}

/// Runs the combined perturbations of a round at once, then, for the tests that failed in a
/// run with several perturbations, each of its perturbations alone (two JVMs at a time) unless
/// `attribute` is false (the budget's end is near).
pub(crate) fn run_perturbed(
    round: u32,
    tests: usize,
    perturbations: &[Perturbation],
    attribute: bool,
    run: impl Fn(&Perturbation, &[String]) -> Result<RunReport, VerifyError> + Sync,
) -> Result<PerturbedRound, VerifyError> {
    let started = Instant::now();
    let combined = run_at_once(perturbations, |p| run(p, &[]))?;
    let mut causes = BTreeMap::new();
    let mut singles = Vec::new();
    for (perturbation, report) in perturbations.iter().zip(&combined) {
        let failing = failing_tests(report);
        if failing.is_empty() {
            continue;
        }
        let kinds = perturbation.kinds();
        if kinds.is_empty() {
            for test in failing {
                causes.entry(test).or_insert(PerturbationKind::Order);
            }
            continue;
        }
        if !attribute {
            for test in failing {
                causes.entry(test).or_insert(PerturbationKind::Combined);
            }
            continue;
        }
        let single: Vec<Perturbation> = kinds.iter().map(|k| perturbation.only(*k)).collect();
        let mut reports = Vec::new();
        for pair in single.chunks(2) {
            reports.extend(run_at_once(pair, |p| run(p, &failing))?);
        }
        for test in failing {
            let cause = kinds
                .iter()
                .zip(&reports)
                .find(|(_, r)| failing_tests(r).contains(&test))
                .map_or(PerturbationKind::Order, |(kind, _)| *kind);
            causes.entry(test).or_insert(cause);
        }
        singles.extend(reports);
    }
    Ok(PerturbedRound {
        round,
        tests,
        combined,
        attribution: singles,
        duration: started.elapsed(),
        causes,
    })
}

/// Tests that failed, hung or changed the JVM's defaults in `report`.
fn failing_tests(report: &RunReport) -> Vec<String> {
    let mut tests: Vec<String> = report
        .failures
        .iter()
        .map(|f| f.test.clone())
        .chain(report.timed_out.clone().flatten())
        .chain(report.state_changes.iter().map(|(test, _)| test.clone()))
        .collect();
    tests.sort();
    tests.dedup();
    tests
}

/// Runs each perturbation in its own JVM, all at once; reports in the order given.
fn run_at_once(
    perturbations: &[Perturbation],
    run: impl Fn(&Perturbation) -> Result<RunReport, VerifyError> + Sync,
) -> Result<Vec<RunReport>, VerifyError> {
    std::thread::scope(|scope| {
        let handles: Vec<_> = perturbations
            .iter()
            .map(|p| {
                let run = &run;
                scope.spawn(move || run(p))
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
            .collect()
    })
}

/// What perturbed re-execution and the check of the JVM's defaults removed, per cause (the
/// report's `perturbation.removed`): whole tests and single assertions.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Removed {
    pub tests: usize,
    pub assertions: usize,
}

/// The name under which tests that changed the JVM's defaults are counted.
pub const GLOBAL_STATE: &str = "global_state";

/// Counts `dropped` per perturbation kind ([`PerturbationKind::name`]) and [`GLOBAL_STATE`].
pub fn removals(dropped: &[Dropped]) -> BTreeMap<&'static str, Removed> {
    let mut out: BTreeMap<&'static str, Removed> = BTreeMap::new();
    for d in dropped {
        let name = match &d.reason {
            DropReason::Perturbed { kind, .. } => kind.name(),
            DropReason::ChangesGlobalState { .. } => GLOBAL_STATE,
            _ => continue,
        };
        let entry = out.entry(name).or_default();
        if d.assertion.is_some() {
            entry.assertions += 1;
        } else {
            entry.tests += 1;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn report(label: &str, order: RunOrder, failing: &[&str]) -> RunReport {
        RunReport {
            round: 1,
            order,
            executed: failing.iter().map(|s| s.to_string()).collect(),
            failures: failing
                .iter()
                .map(|t| TestFailure {
                    test: t.to_string(),
                    assertion_error: true,
                    exception: "org.opentest4j.AssertionFailedError".into(),
                    message: "expected: <1> but was: <2>".into(),
                    line: Some(10),
                })
                .collect(),
            timed_out: None,
            duration: Duration::from_millis(5),
            sandbox: jvm::SandboxReport::OFF,
            perturbation: Some(label.into()),
            state_changes: Vec::new(),
        }
    }

    #[test]
    fn a_failure_is_put_down_to_the_first_single_perturbation_that_repeats_it() {
        let library = PathBuf::from("/cache/libctgls-clockshift.so");
        let plans = Perturbation::combined(Some(&library));
        assert_eq!(
            plans[0].kinds(),
            vec![
                PerturbationKind::ClockAhead,
                PerturbationKind::TimeZone,
                PerturbationKind::Locale,
                PerturbationKind::Charset,
                PerturbationKind::WorkingDirectory
            ]
        );
        assert_eq!(plans[1].kinds()[0], PerturbationKind::ClockBack);
        assert!(
            plans[2].kinds().is_empty(),
            "the third run changes the order only"
        );
        // `today` fails under the shifted clock, `money` in another locale, `shared` only beside
        // the other tests, `ordered` in the order-only run.
        let result = run_perturbed(1, 4, &plans, true, |p, only| {
            let failing: Vec<&str> = match p.label.as_str() {
                "ahead" => vec!["today", "money", "shared"],
                "back" => vec!["today"],
                "order" => vec!["ordered"],
                "ahead-clock_ahead" | "back-clock_back" => vec!["today"],
                "ahead-locale" => vec!["money"],
                _ => vec![],
            };
            let failing: Vec<&str> = failing
                .into_iter()
                .filter(|t| only.is_empty() || only.iter().any(|o| o == t))
                .collect();
            Ok(report(&p.label, p.order, &failing))
        })
        .unwrap();
        assert_eq!(result.causes["today"], PerturbationKind::ClockAhead);
        assert_eq!(result.causes["money"], PerturbationKind::Locale);
        assert_eq!(result.causes["shared"], PerturbationKind::Order);
        assert_eq!(result.causes["ordered"], PerturbationKind::Order);
        // 3 combined runs, then 5 + 5 single ones for the two runs that failed.
        assert_eq!(result.combined.len(), 3);
        assert_eq!(result.attribution.len(), 10);
        assert_eq!(result.failures().len(), 4, "each failing test once");
    }

    #[test]
    fn without_time_to_attribute_a_failure_counts_as_combined() {
        let plans = Perturbation::combined(None);
        assert!(
            plans.iter().all(|p| p.clock.is_none()),
            "no library, no clock shift"
        );
        let result = run_perturbed(2, 1, &plans, false, |p, _| {
            Ok(report(
                &p.label,
                p.order,
                if p.label == "back" { &["x"] } else { &[] },
            ))
        })
        .unwrap();
        assert_eq!(result.causes["x"], PerturbationKind::Combined);
        assert!(result.attribution.is_empty());
    }

    #[test]
    fn flags_name_the_zone_the_locale_and_the_charset() {
        let ahead = &Perturbation::combined(None)[0];
        assert_eq!(
            ahead.jvm_properties(),
            vec![
                "-Duser.timezone=Pacific/Kiritimati",
                "-Duser.language=tr",
                "-Duser.country=TR",
                "-Dfile.encoding=ISO-8859-1"
            ]
        );
        let zone = ahead.only(PerturbationKind::TimeZone);
        assert_eq!(
            zone.jvm_properties(),
            vec!["-Duser.timezone=Pacific/Kiritimati"]
        );
        assert!(!zone.elsewhere && zone.order == RunOrder::Forward);
    }
}
