//! Verifying generated tests with the real tools before anyone sees them (DESIGN decision 4):
//! the printed test class is compiled with `javac` against the project's original,
//! uninstrumented classes and run with a real JUnit launcher in fresh JVMs, twice per round
//! and at the same time, by method name and in reverse, until a round passes.
//!
//! Stabilising: an assertion that fails (the value differs from what the worker observed, or
//! evaluating it throws) is dropped and a comment says why; a test that fails otherwise (a
//! statement throws, the expected exception does not come, it hangs) is dropped whole; a line
//! javac rejects drops its assertion or its test. The class is then printed and verified again,
//! so the suite returned is exactly one that passed twice, in both orders, in fresh JVMs.
//!
//! Every process has a deadline and is killed with its process group when it passes it (and the
//! group is killed when the process exits, so nothing it started stays behind). Verification
//! JVMs run the project's code, so they run under the worker's sandbox policy and memory bounds
//! ([`VerifyOptions::limits`], from the worker's configuration): writes only beneath their own
//! run directory (also their working, temp and home directory), no network; javac writes only
//! its class directory.
//!
//! See `docs/emission.md` for the procedure and the conventions of emitted tests.

mod archives;
mod drops;
mod harness;
mod javac;
mod junit;
mod perturb;
mod preload;
mod process;

pub mod jacoco;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use jvm::{ExecutionLimits, Jdk, JdkError, JvmError, SharedArchives};
use search::CancelToken;
pub use testcase::junit::Instability;
use testcase::junit::{
    print_class, AssertionKind, JUnit, PrintedClass, Suppressions, TestClassSpec,
};

pub use archives::train_archives;
use drops::{apply_run, drop_uncompilable, FailureDrops};
use harness::harness_cache;
use javac::supported_levels;
pub use javac::{supported_releases, JavacError, SupportedReleases};
pub use junit::{
    JUnitOrigin, JUnitSetup, RunOrder, RunReport, TestFailure, JUNIT_CLASSPATH_ENV, SYSTEM_JAVA_DIR,
};
pub use perturb::{
    clock_offsets, removals, Perturbation, PerturbationKind, PerturbedRound, Removed,
    CLOCK_AHEAD_SECONDS, CLOCK_BACK_SECONDS, GLOBAL_STATE,
};
pub use preload::{clock_shift_environment, clock_shift_library, OFFSET_ENV};

use crate::project::{ProjectLayout, SourceOverlays};

/// From this round on, any failure drops the whole test rather than one assertion, so that
/// rounds end.
const WHOLE_TESTS_FROM_ROUND: u32 = 3;

/// What the generated tests compile and run against.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ProjectClasses {
    /// Source files compiled as they are (uninstrumented) into the scratch directory, ahead of
    /// `classpath`.
    pub sources: Vec<PathBuf>,
    /// Class directories and jars: build outputs and libraries.
    pub classpath: Vec<PathBuf>,
    /// Texts compiled instead of the files on disk (an editor's unsaved buffers).
    pub overlays: SourceOverlays,
}

impl ProjectClasses {
    /// The project's sources and classpath.
    pub fn from_layout(layout: &ProjectLayout) -> ProjectClasses {
        ProjectClasses {
            sources: layout.source_files(),
            classpath: layout.classpath.clone(),
            overlays: SourceOverlays::default(),
        }
    }

    /// Compiles these texts instead of the files on disk; overlays of files that are not among
    /// the sources (new, unsaved files) are compiled too.
    pub fn with_overlays(mut self, overlays: &SourceOverlays) -> ProjectClasses {
        for path in overlays.paths() {
            if !self.sources.iter().any(|source| source == path) {
                self.sources.push(path.to_path_buf());
            }
        }
        self.overlays = overlays.clone();
        self
    }
}

#[derive(Debug, Clone)]
pub struct VerifyOptions {
    /// The JDK; located like the worker's (`JAVA_HOME`, then `PATH`) when `None`.
    pub jdk: Option<Jdk>,
    /// `--release` of the tests' javac runs (the JDK's own level when `None`); one the JDK's
    /// javac does not support becomes the closest it does ([`SupportedReleases::closest`]).
    pub release: Option<u32>,
    /// `--release` of the project's sources when verification compiles them (`release` when
    /// `None`): a project's main and test levels may differ.
    pub main_release: Option<u32>,
    /// Where ctgls's compiled harness is kept ([`jvm::default_cache_dir`] when `None`).
    pub harness_cache: Option<PathBuf>,
    /// Deadline of one javac or JUnit process.
    pub process_timeout: Duration,
    /// Deadline of one test method inside a JUnit run.
    pub test_timeout: Duration,
    /// Rounds of verifying and dropping before giving up.
    pub max_rounds: u32,
    /// Where scratch directories are made (the system temp directory when `None`).
    pub scratch_parent: Option<PathBuf>,
    /// Keep the scratch directory (for debugging).
    pub keep_scratch: bool,
    /// Extra JVM options for JUnit runs (after the memory bounds, so they can override them).
    pub jvm_args: Vec<String>,
    /// Whether the project's code may run at all, the sandbox policy and the memory bounds of
    /// every process verification starts; callers pass the worker's
    /// ([`jvm::WorkerConfig::execution_limits`]) so one setting governs both.
    pub limits: ExecutionLimits,
    /// When the user's budget ends. Verification never stops short of a suite that passed a
    /// whole round, but once the time left would not cover two more rounds (one that drops
    /// unstable assertions, one that confirms it), a failing test is dropped whole instead, so
    /// the next round is normally the last ([`DropReason::DeadlinePassed`]).
    pub deadline: Option<Instant>,
    /// Class data sharing archives for the test `javac` and the JUnit 5 launcher (disabled by
    /// default; callers pass [`jvm::Supervisor::shared_archives`]). [`train_archives`] makes
    /// them.
    pub archives: SharedArchives,
    /// Run each round that passed in both orders again under the perturbations of
    /// `perturb.rs` (shifted clock, time zone, locale, charset, working directory, shuffled
    /// orders) before the suite is accepted.
    pub perturb: bool,
    /// Stops verification between rounds and kills its javac or JUnit process at once
    /// ([`VerifyError::Cancelled`]): the editor cancels a run whose text changed, and nothing
    /// of a cancelled verification is kept. Never cancelled by default.
    pub cancel: CancelToken,
}

impl Default for VerifyOptions {
    fn default() -> Self {
        VerifyOptions {
            jdk: None,
            release: None,
            main_release: None,
            harness_cache: None,
            process_timeout: Duration::from_secs(120),
            test_timeout: Duration::from_secs(10),
            max_rounds: 5,
            scratch_parent: None,
            keep_scratch: false,
            jvm_args: Vec::new(),
            limits: ExecutionLimits::default(),
            deadline: None,
            archives: SharedArchives::default(),
            perturb: true,
            cancel: CancelToken::new(),
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum VerifyError {
    #[error(transparent)]
    Jdk(#[from] JdkError),
    #[error("no JUnit {}: {searched}", junit_name(*.junit))]
    JUnitNotFound { junit: JUnit, searched: String },
    #[error("the test class is for JUnit {} but JUnit {} was given", junit_name(*.spec), junit_name(*.setup))]
    JUnitMismatch { spec: JUnit, setup: JUnit },
    /// The project's original sources do not compile with javac.
    #[error("the project does not compile: {}", first(.errors))]
    ProjectDoesNotCompile { errors: Vec<JavacError> },
    /// javac rejected a part of the test class outside every test (imports, header): a
    /// printer bug, reported rather than hidden.
    #[error("the generated test class does not compile: {}", first(.errors))]
    TestClassDoesNotCompile {
        errors: Vec<JavacError>,
        test_source: String,
    },
    #[error("JUnit could not run the tests: {message}")]
    Launcher { message: String },
    #[error("{what} did not finish within {after:?}")]
    TimedOut { what: String, after: Duration },
    #[error("the tests still failed after {rounds} rounds")]
    Unstable { rounds: u32, last: Vec<TestFailure> },
    /// Execution is disabled, or the sandbox policy cannot be met, or the process did not start.
    #[error("cannot run the project's code for verification: {0}")]
    Execution(#[source] JvmError),
    #[error("{what}: {source}")]
    Io {
        what: String,
        #[source]
        source: std::io::Error,
    },
    /// [`VerifyOptions::cancel`] was cancelled; its process, if one ran, was killed.
    #[error("{what} was cancelled")]
    Cancelled { what: String },
}

fn junit_name(j: JUnit) -> &'static str {
    match j {
        JUnit::Four => "4",
        JUnit::Five => "5",
    }
}

fn first(errors: &[JavacError]) -> String {
    errors
        .first()
        .map_or_else(|| "no message".into(), |e| e.to_string())
}

/// The verified suite.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VerifiedSuite {
    /// The test class as it passed: the source to emit.
    pub source: String,
    /// Names of the tests kept, in file order.
    pub kept: Vec<String>,
    /// The kept tests as indexes into the spec's `tests`, in file order.
    pub kept_tests: Vec<usize>,
    /// The kept tests as printed in `source`: their lines and assertions (what each expects),
    /// in file order.
    pub printed: Vec<testcase::junit::PrintedTest>,
    pub dropped: Vec<Dropped>,
    /// Every plain JUnit run, in order; the last two passed (forward, then reverse).
    pub runs: Vec<RunReport>,
    /// The perturbed runs of each round that passed in both orders (`perturb.rs`); the last
    /// passed, unless perturbation was off.
    pub perturbed: Vec<PerturbedRound>,
    /// Whether the perturbed runs shifted the clock (ctgls's preload library exists for this
    /// platform and could be written).
    pub clock_shifted: bool,
    pub rounds: u32,
    /// The javac runs that compiled the test class, one per round.
    pub compiles: Vec<CompileRun>,
    /// The first round after which the deadline made failing tests go whole.
    pub deadline_round: Option<u32>,
}

/// One javac run of the test class: how many tests it held and how long it took.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CompileRun {
    pub tests: usize,
    pub duration: Duration,
}

/// A test or an assertion left out, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Dropped {
    pub test: String,
    /// The asserted expression, when only an assertion was dropped.
    pub assertion: Option<String>,
    pub reason: DropReason,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DropReason {
    DoesNotCompile {
        message: String,
    },
    /// The assertion's value differed from the one the worker observed.
    Unstable {
        round: u32,
        order: RunOrder,
        message: String,
        cause: Instability,
    },
    /// The test failed: a statement threw, or the expected exception did not come.
    Failed {
        round: u32,
        order: RunOrder,
        message: String,
    },
    TimedOut {
        round: u32,
        order: RunOrder,
    },
    /// JUnit did not run the test.
    NotRun {
        round: u32,
        order: RunOrder,
    },
    /// The assertion's value, or the test's outcome, changed under a perturbation (another
    /// day, time zone, locale, charset, working directory or order).
    Perturbed {
        round: u32,
        kind: PerturbationKind,
        message: String,
    },
    /// The test left the JVM's defaults changed (time zone, locale, system properties), which
    /// would change the user's own tests that run after it.
    ChangesGlobalState {
        round: u32,
        order: RunOrder,
        what: String,
    },
    /// An assertion of the test failed; with time for more rounds only the assertion would
    /// have been dropped, but less than two rounds' time was left before the deadline
    /// (`VerifyOptions::deadline`), so the whole test went and no round was spent saving the
    /// rest of it.
    DeadlinePassed {
        round: u32,
        order: RunOrder,
        assertion: String,
        message: String,
    },
}

/// A scratch directory removed on drop (unless kept).
pub(crate) struct Scratch {
    pub path: PathBuf,
    keep: bool,
}

impl Scratch {
    pub(crate) fn new(
        parent: Option<&Path>,
        keep: bool,
        what: &str,
    ) -> Result<Scratch, VerifyError> {
        let parent = parent.map_or_else(std::env::temp_dir, Path::to_path_buf);
        let path = jvm::create_private_dir(&parent, &format!("ctgls-{what}")).map_err(|e| {
            VerifyError::Io {
                what: format!("creating a directory in {}", parent.display()),
                source: e,
            }
        })?;
        Ok(Scratch { path, keep })
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        if !self.keep {
            let _ = std::fs::remove_dir_all(&self.path);
        }
    }
}

/// Compiles the project's sources (if any) into `<scratch>/classes` and returns the class
/// path the tests use: those classes first, then the project's classpath.
pub(crate) fn project_classpath(
    jdk: &Jdk,
    project: &ProjectClasses,
    scratch: &Path,
    release: Option<u32>,
    timeout: Duration,
    limits: &ExecutionLimits,
    cancel: Option<&CancelToken>,
) -> Result<Vec<PathBuf>, VerifyError> {
    let mut classpath = Vec::new();
    if !project.sources.is_empty() {
        // javac reads files: overlaid sources are written to the scratch directory, each in a
        // directory of its own so equal file names in different packages cannot collide.
        let mut sources = Vec::with_capacity(project.sources.len());
        for (index, source) in project.sources.iter().enumerate() {
            match project.overlays.get(source) {
                Some(text) => {
                    let dir = scratch.join("overlays").join(index.to_string());
                    let file = dir.join(source.file_name().unwrap_or_default());
                    std::fs::create_dir_all(&dir)
                        .and_then(|()| std::fs::write(&file, text))
                        .map_err(|source| VerifyError::Io {
                            what: format!("cannot write {}", file.display()),
                            source,
                        })?;
                    sources.push(file);
                }
                None => sources.push(source.clone()),
            }
        }
        let out = scratch.join("classes");
        let errors = javac::Javac {
            jdk,
            classpath: &project.classpath,
            out_dir: &out,
            release,
            timeout,
            scratch,
            label: "javac-project",
            limits,
            jvm_options: &[],
            cancel,
        }
        .compile(&sources)?;
        if !errors.is_empty() {
            return Err(VerifyError::ProjectDoesNotCompile { errors });
        }
        classpath.push(out);
    }
    classpath.extend(project.classpath.iter().cloned());
    Ok(classpath)
}

/// Writes the source of test class `binary_name` under `<dir>/src` in its package directory.
pub(crate) fn write_test_source(
    dir: &Path,
    binary_name: &str,
    source: &str,
) -> Result<PathBuf, VerifyError> {
    let io = |e| VerifyError::Io {
        what: "writing the test class".into(),
        source: e,
    };
    let mut path = dir.join("src");
    let (package, simple) = binary_name.rsplit_once('.').unwrap_or(("", binary_name));
    for part in package.split('.').filter(|p| !p.is_empty()) {
        path.push(part);
    }
    std::fs::create_dir_all(&path).map_err(io)?;
    path.push(format!("{simple}.java"));
    std::fs::write(&path, source).map_err(io)?;
    Ok(path)
}

/// Compiles the test class into a fresh `<dir>/test-classes` (the harness is compiled apart,
/// at the JDK's own level: `harness.rs`).
pub(crate) fn compile_tests(
    jdk: &Jdk,
    setup: &JUnitSetup,
    test_source: &Path,
    classpath: &[PathBuf],
    dir: &Path,
    options: &VerifyOptions,
    release: Option<u32>,
) -> Result<(PathBuf, Vec<JavacError>), VerifyError> {
    let out = dir.join("test-classes");
    let _ = std::fs::remove_dir_all(&out);
    let sources = vec![test_source.to_path_buf()];
    let mut cp = classpath.to_vec();
    cp.extend(setup.jars.iter().cloned());
    let errors = javac::Javac {
        jdk,
        classpath: &cp,
        out_dir: &out,
        release,
        timeout: options.process_timeout,
        scratch: dir,
        label: "javac-tests",
        limits: &options.limits,
        jvm_options: &options.archives.jvm_args(archives::JAVAC),
        cancel: Some(&options.cancel),
    }
    .compile(&sources)?;
    Ok((out, errors))
}

/// Verifies the test class of `spec` and drops what is not stable, as described in the
/// module documentation.
pub fn verify_and_stabilise(
    spec: &TestClassSpec,
    project: &ProjectClasses,
    junit: &JUnitSetup,
    options: &VerifyOptions,
) -> Result<VerifiedSuite, VerifyError> {
    verify_and_stabilise_from(spec, Suppressions::default(), project, junit, options)
}

/// [`verify_and_stabilise`] starting from `initial` suppressions (the assertions a selection
/// left out, `pipeline`'s assertion selection by mutation analysis): verification only adds to
/// them.
pub fn verify_and_stabilise_from(
    spec: &TestClassSpec,
    initial: Suppressions,
    project: &ProjectClasses,
    junit: &JUnitSetup,
    options: &VerifyOptions,
) -> Result<VerifiedSuite, VerifyError> {
    if spec.junit != junit.junit {
        return Err(VerifyError::JUnitMismatch {
            spec: spec.junit,
            setup: junit.junit,
        });
    }
    let jdk = match &options.jdk {
        Some(jdk) => jdk.clone(),
        None => Jdk::locate(None)?,
    };
    let options = &supported_levels(&jdk, options);
    let harness = harness::harness_classpath(
        &jdk,
        junit,
        &harness_cache(options),
        &options.limits,
        options.process_timeout,
    )?;
    let scratch = Scratch::new(
        options.scratch_parent.as_deref(),
        options.keep_scratch,
        "verify",
    )?;
    let classpath = project_classpath(
        &jdk,
        project,
        &scratch.path,
        options.main_release.or(options.release),
        options.process_timeout,
        &options.limits,
        Some(&options.cancel),
    )?;
    let test_class = spec.test_class_binary_name();
    let mut suppressions = initial;
    let mut dropped = Vec::new();
    let mut runs = Vec::new();
    let mut last_failures = Vec::new();
    let mut compiles = Vec::new();
    let mut deadline_round = None;
    let mut perturbed = Vec::new();
    let clock_library = if options.perturb {
        preload::clock_shift_library(&harness_cache(options))
    } else {
        None
    };
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |since| i64::try_from(since.as_secs()).unwrap_or(0));
    let perturbations = Perturbation::combined(clock_library.as_ref(), now);
    for round in 1..=options.max_rounds.max(1) {
        if options.cancel.is_cancelled() {
            return Err(VerifyError::Cancelled {
                what: format!("verification of {test_class}"),
            });
        }
        let round_started = Instant::now();
        let printed = print_class(spec, &suppressions);
        if printed.tests.is_empty() {
            return Ok(VerifiedSuite {
                source: printed.source,
                kept: Vec::new(),
                kept_tests: Vec::new(),
                printed: Vec::new(),
                dropped,
                runs,
                perturbed,
                clock_shifted: clock_library.is_some(),
                rounds: round,
                compiles,
                deadline_round,
            });
        }
        let round_dir = scratch.path.join(format!("round-{round}"));
        let source_path = write_test_source(&round_dir, &test_class, &printed.source)?;
        let (test_classes, errors) = compile_tests(
            &jdk,
            junit,
            &source_path,
            &classpath,
            &round_dir,
            options,
            options.release,
        )?;
        compiles.push(CompileRun {
            tests: printed.tests.len(),
            duration: round_started.elapsed(),
        });
        if !errors.is_empty() {
            drop_uncompilable(
                &printed,
                &errors,
                &source_path,
                &mut suppressions,
                &mut dropped,
            )?;
            continue;
        }
        let mut run_classpath = vec![test_classes];
        run_classpath.extend(classpath.iter().cloned());
        let mut failed: BTreeSet<usize> = BTreeSet::new();
        let mut round_failures = Vec::new();
        let reports = run_both_orders(|order| {
            junit::run_junit(&junit::Launch {
                jdk: &jdk,
                setup: junit,
                classpath: &run_classpath,
                harness: &harness,
                test_class: &test_class,
                order,
                per_test_timeout: options.test_timeout,
                process_timeout: options.process_timeout,
                jvm_args: &options.jvm_args,
                archives: &options.archives,
                limits: &options.limits,
                dir: &round_dir.join(format!("{order:?}").to_lowercase()),
                round,
                perturbation: None,
                only: &[],
                cancel: Some(&options.cancel),
            })
        })?;
        let drops = if round >= WHOLE_TESTS_FROM_ROUND {
            FailureDrops::WholeTests
        } else if out_of_time(options.deadline, Instant::now(), round_started.elapsed()) {
            FailureDrops::WholeTestsAtDeadline
        } else {
            FailureDrops::Assertions
        };
        if drops == FailureDrops::WholeTestsAtDeadline
            && deadline_round.is_none()
            && reports.iter().any(|r| !r.passed())
        {
            deadline_round = Some(round);
        }
        for report in reports {
            apply_run(
                &printed,
                &report,
                round,
                drops,
                &|_| None,
                &mut suppressions,
                &mut dropped,
                &mut failed,
            )?;
            round_failures.extend(report.failures.iter().cloned());
            runs.push(report);
        }
        if failed.is_empty() && options.perturb {
            let launch = |perturbation: &Perturbation, only: &[String]| {
                junit::run_junit(&junit::Launch {
                    jdk: &jdk,
                    setup: junit,
                    classpath: &run_classpath,
                    harness: &harness,
                    test_class: &test_class,
                    order: perturbation.order,
                    per_test_timeout: options.test_timeout,
                    process_timeout: options.process_timeout,
                    jvm_args: &options.jvm_args,
                    archives: &options.archives,
                    limits: &options.limits,
                    dir: &round_dir.join(&perturbation.label),
                    round,
                    perturbation: Some(perturbation),
                    only,
                    cancel: Some(&options.cancel),
                })
            };
            // Near the budget's end the failing tests go whole and unattributed: attribution
            // costs JVM starts the budget no longer has.
            let attribute = drops != FailureDrops::WholeTestsAtDeadline;
            let stage = perturb::run_perturbed(
                round,
                printed.tests.len(),
                &perturbations,
                attribute,
                launch,
            )?;
            let cause = |test: &str| stage.causes.get(test).copied();
            // A perturbation costs an assertion even near the deadline: one value of the day or
            // the locale (an `isWeekend()` getter) is often asserted in every test, and dropping
            // them whole would leave nothing; the confirming round is needed either way.
            let perturbed_drops = match drops {
                FailureDrops::WholeTestsAtDeadline => FailureDrops::Assertions,
                other => other,
            };
            for report in &stage.combined {
                apply_run(
                    &printed,
                    report,
                    round,
                    perturbed_drops,
                    &cause,
                    &mut suppressions,
                    &mut dropped,
                    &mut failed,
                )?;
                round_failures.extend(report.failures.iter().cloned());
            }
            perturbed.push(stage);
        }
        if failed.is_empty() {
            let kept = printed.tests.iter().map(|t| t.name.clone()).collect();
            let kept_tests = printed.tests.iter().map(|t| t.index).collect();
            return Ok(VerifiedSuite {
                source: printed.source,
                kept,
                kept_tests,
                printed: printed.tests,
                dropped,
                runs,
                perturbed,
                clock_shifted: clock_library.is_some(),
                rounds: round,
                compiles,
                deadline_round,
            });
        }
        last_failures = round_failures;
    }
    Err(VerifyError::Unstable {
        rounds: options.max_rounds,
        last: last_failures,
    })
}

/// Whether the time left before `deadline` is too short for two more rounds like the one that
/// just took `round`: the one after a failure, and one more should that fail again.
fn out_of_time(deadline: Option<Instant>, now: Instant, round: Duration) -> bool {
    deadline.is_some_and(|deadline| now + round * 2 > deadline)
}

/// Compiles test class `test_class` (binary name) from `test_source` and runs it in fresh
/// JVMs, by method name and in reverse (at once), without changing it: a check of a test class
/// that is already written (an emitted file, a snapshot).
pub fn run_test_class(
    test_source: &str,
    test_class: &str,
    project: &ProjectClasses,
    junit: &JUnitSetup,
    options: &VerifyOptions,
) -> Result<Vec<RunReport>, VerifyError> {
    let jdk = match &options.jdk {
        Some(jdk) => jdk.clone(),
        None => Jdk::locate(None)?,
    };
    let options = &supported_levels(&jdk, options);
    let harness = harness::harness_classpath(
        &jdk,
        junit,
        &harness_cache(options),
        &options.limits,
        options.process_timeout,
    )?;
    let scratch = Scratch::new(
        options.scratch_parent.as_deref(),
        options.keep_scratch,
        "verify",
    )?;
    let dir = &scratch.path;
    let classpath = project_classpath(
        &jdk,
        project,
        dir,
        options.main_release.or(options.release),
        options.process_timeout,
        &options.limits,
        Some(&options.cancel),
    )?;
    let source_path = write_test_source(dir, test_class, test_source)?;
    let (test_classes, errors) = compile_tests(
        &jdk,
        junit,
        &source_path,
        &classpath,
        dir,
        options,
        options.release,
    )?;
    if !errors.is_empty() {
        return Err(VerifyError::TestClassDoesNotCompile {
            errors,
            test_source: test_source.to_string(),
        });
    }
    let mut run_classpath = vec![test_classes];
    run_classpath.extend(classpath.iter().cloned());
    run_both_orders(|order| {
        junit::run_junit(&junit::Launch {
            jdk: &jdk,
            setup: junit,
            classpath: &run_classpath,
            harness: &harness,
            test_class,
            order,
            per_test_timeout: options.test_timeout,
            process_timeout: options.process_timeout,
            jvm_args: &options.jvm_args,
            archives: &options.archives,
            limits: &options.limits,
            dir: &dir.join(format!("{order:?}").to_lowercase()),
            round: 1,
            perturbation: None,
            only: &[],
            cancel: Some(&options.cancel),
        })
    })
}

/// Runs the test class by method name and in reverse, each in a fresh JVM, both at once: the
/// two JVMs share nothing (each has its own run directory, which is also its working, temp and
/// home directory), and on two cores the pair takes about 1.3 times one run instead of twice
/// (docs/benchmarks.md). Returns the forward run's report, then the reverse run's.
fn run_both_orders(
    run: impl Fn(RunOrder) -> Result<RunReport, VerifyError> + Sync,
) -> Result<Vec<RunReport>, VerifyError> {
    std::thread::scope(|scope| {
        let reverse = scope.spawn(|| run(RunOrder::Reverse));
        let forward = run(RunOrder::Forward);
        let reverse = reverse
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        Ok(vec![forward?, reverse?])
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn out_of_time_when_two_more_rounds_would_pass_the_deadline() {
        let now = Instant::now();
        let round = Duration::from_secs(2);
        assert!(!out_of_time(None, now, round), "no deadline, never");
        assert!(!out_of_time(Some(now + Duration::from_secs(5)), now, round));
        assert!(out_of_time(Some(now + Duration::from_secs(3)), now, round));
        assert!(out_of_time(Some(now), now, round), "already passed");
    }
}
