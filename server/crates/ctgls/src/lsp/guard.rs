//! The regression guard's data and its check on the generation thread (`ctg::regression`):
//! what an open class keeps of it (`Guard`, beside its results in `file_view::Shown`), what a
//! run carries for it (`GuardJob`) and what the check reports (`GuardUpdate`, as
//! `RunUpdate::Guard` through the runner's `UpdateSink`). Its diagnostics are `regression.rs`,
//! its code actions `actions/guard.rs`, its commands the owner's.
//!
//! The reference behaviour (the *baseline*) is the store's record when the class was first
//! checked in the session; it is read again after a run whose check found no change (that
//! run's record describes the same behaviour with more tests), and replaced when the user
//! accepts. So a run after an edit that changed behaviour, which stores tests of the new
//! behaviour, does not silently make the change the reference: the warning stays until the
//! edit is undone or accepted.
//!
//! This module imports no other module of `lsp/`: the runner (below the features) calls it.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

/// How long after the last keystroke the guard checks an edited class on its own, ahead of
/// the run that the (longer) idle delay starts: the stored tests take tens of milliseconds
/// on the warm worker, so the wait for the pause is most of the time to the warning (issue
/// #17 targets p50 < 1 s, p99 < 2 s from the end of typing). The run after the idle delay
/// skips the check when its text was checked this way.
pub const CHECK_DELAY: Duration = Duration::from_millis(250);

use ctg::project::{ProjectLayout, SourceOverlays};
use ctg::regression::{self, BehaviourChange, CheckRequest, ProjectTestFailure, ProjectTests};
use ctg::store::{ClassRecord, Store};
use ctg::verify::VerifyOptions;
use search::CancelToken;
use tower_lsp_server::ls_types::Uri;

/// The guard's state of one open class.
#[derive(Debug, Default, Clone)]
pub struct Guard {
    /// The behaviour the stored tests assert; `None` until the first check of the session.
    pub baseline: Option<Arc<ClassRecord>>,
    /// A run whose check found no change: once it has finished, its record is the baseline.
    pub clean_run: Option<u64>,
    /// What the last check found.
    pub findings: Option<Findings>,
    /// The text (`ctg::pipeline::source_hash`) of the last check that found nothing: its
    /// findings are not shown on that text (an undo back to it needs no check).
    pub clean_hash: Option<String>,
    /// The text of the last check started on its own (`CHECK_DELAY` after an edit), reported
    /// or still on its way: a run of that text needs no check of its own.
    pub checked_hash: Option<String>,
    /// A run started without a check of its own (its text was checked on its own), with its
    /// text: when that check is clean, this run is the clean run whose record becomes the
    /// baseline.
    pub deferred: Option<(u64, String)>,
    /// The members edited when the last check on its own started, with its text: reported
    /// with its findings (`Findings::edited`), since by the time it reports a run of the same
    /// text may show results that no longer tell edited members apart.
    pub edited_at_check: Option<(String, Vec<String>)>,
}

/// Which run `Guard::job` is asked about.
pub struct JobFor<'a> {
    pub run: u64,
    /// The run's text (`ctg::pipeline::source_hash`).
    pub hash: &'a str,
    pub layout: &'a ProjectLayout,
    pub class: &'a str,
    /// A re-run of an unchanged class.
    pub background: bool,
    /// A check on its own (`CHECK_DELAY` after an edit), not a run.
    pub check_only: bool,
}

/// What a check found.
#[derive(Debug, Clone)]
pub struct Findings {
    /// The run whose check it was (code actions name it, to refuse stale ones).
    pub run: u64,
    /// The text checked (`ctg::pipeline::source_hash`): the findings are shown on it only.
    pub hash: String,
    pub class: String,
    pub project_root: PathBuf,
    /// The generated test file of the class (it may not exist).
    pub test_file: PathBuf,
    pub changes: Vec<BehaviourChange>,
    pub failures: Vec<ProjectTestFailure>,
    /// The class's members (`javamodel::Member::key`) edited since the results shown when the
    /// check reported: its warnings stay on them when a later run's results, of the edited
    /// text, no longer tell edited members apart.
    pub edited: Vec<String>,
}

/// What a run carries for the guard.
#[derive(Debug, Clone)]
pub struct GuardJob {
    /// `None` when the store has no tests with assertions: the project's tests still run.
    pub baseline: Option<Arc<ClassRecord>>,
}

/// What the generation thread reports.
#[derive(Debug)]
pub struct GuardUpdate {
    pub run: u64,
    pub uri: Uri,
    /// The checked text of the class's file (`ctg::pipeline::source_hash`).
    pub hash: String,
    pub class: String,
    pub layout: ProjectLayout,
    pub changes: Vec<BehaviourChange>,
    /// `None` until the project's tests have run (they report in a second update).
    pub failures: Option<Vec<ProjectTestFailure>>,
}

impl Guard {
    /// The guard's part of a run or check of `class` (owner side): the baseline, read from
    /// the store when there is none yet or after a clean run finished (`final_run`: the run of
    /// the final results shown). `None` for background re-runs of an unchanged class (nothing
    /// was edited) and for runs of a text already checked on its own.
    pub fn job(&mut self, final_run: Option<u64>, what: &JobFor) -> Option<GuardJob> {
        let clean_finished = final_run.is_some() && final_run == self.clean_run;
        if self.baseline.is_none() || clean_finished {
            self.clean_run = None;
            let class = what.class;
            self.baseline = match Store::open(&what.layout.root).load(class) {
                Ok(record) => record.map(Arc::new),
                Err(error) => {
                    tracing::warn!("the regression guard has no stored tests of {class}: {error}");
                    None
                }
            };
        }
        if what.background {
            return None;
        }
        if what.check_only {
            self.checked_hash = Some(what.hash.to_string());
            self.deferred = None;
        } else if self.checked_hash.as_deref() == Some(what.hash) {
            // Checked on its own already (or being checked): its findings stand for this run.
            if self.clean_hash.as_deref() == Some(what.hash) {
                self.clean_run = Some(what.run);
            }
            self.deferred = Some((what.run, what.hash.to_string()));
            return None;
        }
        let baseline = self.baseline.clone().filter(|baseline| {
            baseline
                .suite
                .as_ref()
                .is_some_and(|s| s.methods.iter().any(|m| !m.assertions.is_empty()))
        });
        Some(GuardJob { baseline })
    }

    /// A check's results (owner side): kept as the findings, with the members edited since
    /// the results shown (`edited`).
    pub fn apply(&mut self, update: GuardUpdate, edited: Vec<String>) {
        if update.changes.is_empty() && update.failures.as_ref().is_none_or(Vec::is_empty) {
            // A check on its own stands for the run of its text started meanwhile.
            self.clean_run = match &self.deferred {
                Some((run, hash)) if *hash == update.hash => Some(*run),
                _ => Some(update.run),
            };
            self.clean_hash = Some(update.hash.clone());
        } else {
            self.clean_run = None;
            // The check's first report (the stored tests, no change) may have found this text
            // clean before the project's tests reported failures on it: it is not clean.
            if self.clean_hash.as_deref() == Some(update.hash.as_str()) {
                self.clean_hash = None;
            }
        }
        let failures = match update.failures {
            Some(failures) => failures,
            // The project's tests report later: keep the last ones meanwhile.
            None => self
                .findings
                .as_ref()
                .map(|f| f.failures.clone())
                .unwrap_or_default(),
        };
        self.findings = Some(Findings {
            run: update.run,
            hash: update.hash,
            test_file: ctg::emit::test_file(&update.layout, &update.class),
            class: update.class,
            project_root: update.layout.root.clone(),
            changes: update.changes,
            failures,
            edited,
        });
    }

    /// The project test files the findings have failures in.
    pub fn failure_files(&self) -> Vec<PathBuf> {
        self.findings
            .iter()
            .flat_map(|f| f.failures.iter().map(|failure| failure.file.clone()))
            .collect()
    }
}

/// The run the check belongs to, as the generation thread has it.
pub struct CheckInput<'a> {
    pub run: u64,
    pub uri: &'a Uri,
    pub class: &'a str,
    pub layout: &'a ProjectLayout,
    pub overlays: &'a SourceOverlays,
    /// The class file's text as the run sees it.
    pub text: &'a str,
    pub cancel: &'a CancelToken,
}

/// Runs the guard's checks before a run's search (generation thread): the stored tests on the
/// worker (reported at once), then the project's own tests of the class (reported again).
pub fn check_before_run(
    input: &CheckInput,
    job: &GuardJob,
    supervisor: &mut jvm::Supervisor,
    report: &dyn Fn(GuardUpdate),
) {
    let project_tests = regression::find_project_tests(input.layout, input.overlays, input.class);
    let Some(baseline) = &job.baseline else {
        if !project_tests.files.is_empty() {
            run_project_tests(input, supervisor, report, Vec::new(), &project_tests);
        }
        return;
    };
    let request = CheckRequest {
        layout: input.layout,
        overlays: input.overlays,
        class: input.class,
        record: baseline,
        test_timeout: Duration::from_secs(1),
    };
    let changes = match regression::check(&request, supervisor) {
        Ok(outcome) => {
            tracing::info!(
                "run {}: the stored tests of {} ran in {:?} (compile {:?}, describe {:?}, \
                 execute {:?}): {} changes",
                input.run,
                input.class,
                outcome.timings.total,
                outcome.timings.compile,
                outcome.timings.describe,
                outcome.timings.execute,
                outcome.changes.len()
            );
            outcome.changes
        }
        Err(error) => {
            // The run that follows reports a class that does not compile.
            tracing::info!("run {}: no regression check: {error}", input.run);
            return;
        }
    };
    report(update(input, changes.clone(), None));
    if !project_tests.files.is_empty() && !input.cancel.is_cancelled() {
        run_project_tests(input, supervisor, report, changes, &project_tests);
    }
}

fn run_project_tests(
    input: &CheckInput,
    supervisor: &jvm::Supervisor,
    report: &dyn Fn(GuardUpdate),
    changes: Vec<BehaviourChange>,
    tests: &ProjectTests,
) {
    let options = VerifyOptions {
        limits: supervisor.config().execution_limits(),
        archives: supervisor.shared_archives().clone(),
        harness_cache: supervisor.config().cache_dir.clone(),
        // The next edit kills the project's tests' javac or JUnit JVM: the check of the new
        // text waits for this one on the generation thread.
        cancel: input.cancel.clone(),
        ..VerifyOptions::default()
    };
    let run = regression::run_project_tests(input.layout, input.overlays, tests, &options);
    if run.cancelled {
        tracing::debug!("run {}: the project's tests were cancelled", input.run);
        return;
    }
    for (class, why) in &run.not_run {
        tracing::info!("the project's test {class} did not run: {why}");
    }
    report(update(input, changes, Some(run.failures)));
}

fn update(
    input: &CheckInput,
    changes: Vec<BehaviourChange>,
    failures: Option<Vec<ProjectTestFailure>>,
) -> GuardUpdate {
    GuardUpdate {
        run: input.run,
        uri: input.uri.clone(),
        hash: ctg::pipeline::source_hash(input.text),
        class: input.class.to_string(),
        layout: input.layout.clone(),
        changes,
        failures,
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use ctg::project::LayoutOverrides;

    use super::*;

    fn layout() -> ProjectLayout {
        ProjectLayout::discover(
            Path::new("/nonexistent-ctgls-guard"),
            &LayoutOverrides::default(),
        )
    }

    fn job(guard: &mut Guard, run: u64, hash: &str, check_only: bool) -> Option<GuardJob> {
        let layout = layout();
        guard.job(
            None,
            &JobFor {
                run,
                hash,
                layout: &layout,
                class: "p.Account",
                background: false,
                check_only,
            },
        )
    }

    fn clean(run: u64, hash: &str) -> GuardUpdate {
        GuardUpdate {
            run,
            uri: "file:///nonexistent-ctgls-guard/src/main/java/p/Account.java"
                .parse()
                .unwrap(),
            hash: hash.into(),
            class: "p.Account".into(),
            layout: layout(),
            changes: Vec::new(),
            failures: None,
        }
    }

    #[test]
    fn a_run_of_a_text_checked_on_its_own_skips_its_check_and_is_the_clean_run() {
        let mut guard = Guard::default();
        // The check 250 ms after the edit, then the idle delay's run of the same text, before
        // the check has reported: no second check; the clean report makes the run the clean one.
        assert!(job(&mut guard, 4, "h1", true).is_some());
        assert!(job(&mut guard, 5, "h1", false).is_none());
        guard.apply(clean(4, "h1"), Vec::new());
        assert_eq!(guard.clean_run, Some(5));
        // Reported before the run starts: the same.
        assert!(job(&mut guard, 6, "h2", true).is_some());
        guard.apply(clean(6, "h2"), Vec::new());
        assert!(job(&mut guard, 7, "h2", false).is_none());
        assert_eq!(guard.clean_run, Some(7));
        // A run of another text (the check was of an older one) checks for itself.
        assert!(job(&mut guard, 8, "h3", false).is_some());
    }
}
