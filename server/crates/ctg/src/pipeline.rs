//! "Generate tests for a class", start to finish: the generation job, then emission (the
//! minimised tests run twice more in the worker against the original, uninstrumented classes
//! so their observations become assertions), verification with the real javac and JUnit in
//! fresh JVMs, writing `<Class>GeneratedTest.java`, and recording the run in the `.ctgls/`
//! store (which also gives the next run its warm-start tests). Used by `ctgls generate` and by
//! the language server.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::time::{Duration, Instant};

use jvm::{
    CompileCacheSave, CompileRequest, ExecuteOptions, JvmError, Supervisor, Training, UnitId,
};
use testcase::junit::{print_class, select_assertions, JUnit, Suppressions, TestClassSpec};
use testcase::EnvironmentInputs;

mod integration;

pub use integration::integration_record;

use crate::budget::{CostLedger, EmissionCosts, EmissionReserve};
use crate::cluster::DEFAULT_DESCRIBE_DEPTH;
use crate::emit::{self, EmitError, NotPrintable, Written};
use crate::job::{
    self, GenerationError, GenerationObserver, GenerationRequest, GenerationResult, JobSources,
    Phase,
};
use crate::levels::CompileLevels;
use crate::mutation::{MutationOptions, MutationScore};
use crate::nondeterminism::link::Linked;
use crate::project::{JUnitVersion, ProjectLayout};
use crate::store::{self, FinishedRun, RunInfo, Store, StoredTest};
use crate::verify::{self, JUnitSetup, ProjectClasses, VerifiedSuite, VerifyError, VerifyOptions};

/// What to do besides generating.
#[derive(Debug, Clone, Default)]
pub struct PipelineOptions {
    /// JUnit of the emitted tests; the project's own when `None`.
    pub junit: Option<JUnitVersion>,
    /// Verification's settings; its `limits` (sandbox, memory bounds, whether to run code at
    /// all) should be the worker's, `supervisor.config().execution_limits()`.
    pub verify: VerifyOptions,
    /// Where history and warm-start tests live; nothing is read or recorded when `None`.
    pub store: Option<Store>,
    /// Write the verified test class into the project's test root.
    pub write: bool,
    /// The caller's clock, for the run history (milliseconds since the Unix epoch).
    pub timestamp_ms: u64,
    /// A cancelled job ends the pipeline with [`GenerationError::Cancelled`] instead of
    /// emitting what it found (the editor cancels a run because the text changed, so its
    /// results are not wanted; the CLI keeps them). The cancellation is then also heeded in
    /// every later phase: the job skips its final run, emission stops between its steps in
    /// the worker, and verification kills its javac or JUnit process, so that a cancelled run
    /// frees the worker within a fraction of a second (the regression guard's check waits for
    /// it, issue #17). Nothing is written or stored for a cancelled run.
    pub abandon_when_cancelled: bool,
    /// What emission and verification cost on earlier runs of the session: the job reserves
    /// time from it, and every run adds what it measured. Keep one per project and session.
    pub costs: CostLedger,
    /// Mutation analysis of the written suite and assertion selection by it (docs/emission.md,
    /// "Mutation analysis"); off by default.
    pub mutation: MutationOptions,
}

/// Everything one class's run produced.
#[derive(Debug)]
pub struct ClassOutcome {
    pub generation: GenerationResult,
    pub emission: Emission,
    /// The nondeterministic inputs of the class under test, each with the assertions of the
    /// written tests it explains (docs/emission.md, "Nondeterministic inputs").
    pub nondeterminism: Vec<Linked>,
    /// The file of the class under test, on disk.
    pub source_file: PathBuf,
    /// Problems with the `.ctgls/` store; they never fail a run.
    pub store_warnings: Vec<String>,
    /// Wall time of the whole pipeline for this class.
    pub wall: Duration,
}

#[derive(Debug)]
pub struct Emission {
    pub junit: JUnitVersion,
    /// Where the test class goes (whether or not it was written).
    pub path: PathBuf,
    /// `None` when nothing was written (not asked to, no test survived verification, the
    /// verification failed, or writing failed: `write_error`).
    pub written: Option<Written>,
    /// Why the verified tests could not be written to `path`; the run's results are kept.
    pub write_error: Option<String>,
    pub suite: VerifiedSuite,
    pub verification: Verification,
    /// Tests the worker could not run consistently for printing, with the reason.
    pub not_printable: Vec<String>,
    pub time: Duration,
    /// The Java levels the project was compiled at and the tests written for; its `note`
    /// says where they differ from the build's.
    pub levels: CompileLevels,
    /// The mutation score of the written tests, when the analysis ran
    /// ([`PipelineOptions::mutation`]).
    pub mutation: Option<MutationScore>,
}

/// How the emitted tests were checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verification {
    /// Compiled with javac and passed under the real JUnit launcher in fresh JVMs, forward and
    /// reversed (DESIGN decision 4).
    JUnit,
    /// No JUnit could be found to compile them against, so they were only run twice in the
    /// worker (values that differed were left out). Written anyway, marked as unverified, so
    /// a machine with just a JDK still gets its tests; the reason says how to fix it.
    WorkerOnly { reason: String },
    /// Emission or verification failed for a reason outside the class under test (the test
    /// class does not compile, JUnit cannot start, the verification deadline passed, the
    /// worker or the disk failed). The search's results are kept, unverified: the coverage is
    /// what the search's tests reached, and no test is offered or written. `reason` says what
    /// failed and what to do.
    Failed { reason: String },
}

impl Verification {
    /// Why the tests of a [`Verification::Failed`] run could not be verified.
    pub fn failure(&self) -> Option<&str> {
        match self {
            Verification::Failed { reason } => Some(reason),
            _ => None,
        }
    }
}

/// The line written under the header of a test class that JUnit did not verify.
pub const UNVERIFIED_NOTE: &str =
    "// Not verified with JUnit: no JUnit was found when ctgls wrote this file.";

#[derive(Debug, thiserror::Error)]
pub enum PipelineError {
    #[error(transparent)]
    Generation(#[from] GenerationError),
    #[error("cannot verify the tests for {class}: {error}")]
    Verify {
        class: String,
        #[source]
        error: VerifyError,
    },
    #[error("cannot write the tests for {class}: {error}")]
    Emit {
        class: String,
        #[source]
        error: EmitError,
    },
    #[error("cannot emit the tests for {class}: {error}")]
    Jvm {
        class: String,
        #[source]
        error: JvmError,
    },
}

/// Generates, verifies and (optionally) writes the tests of `request.class`.
pub fn generate_tests(
    request: &GenerationRequest,
    options: &PipelineOptions,
    supervisor: &mut Supervisor,
    observer: &mut dyn GenerationObserver,
) -> Result<ClassOutcome, PipelineError> {
    let started = Instant::now();
    let class = request.class.clone();
    let mut store_warnings = Vec::new();

    let mut request = request.clone();
    request.abandon_when_cancelled |= options.abandon_when_cancelled;
    let junit = options
        .junit
        .unwrap_or_else(|| request.layout.junit_version());
    // The project's code compiles at its build's level, or the closest the JDK supports (a
    // Java 1.5 library on JDK 17: 7), in the worker and in verification alike.
    let jdk = options
        .verify
        .jdk
        .clone()
        .unwrap_or_else(|| supervisor.jdk().clone());
    let levels = CompileLevels::of(&request.layout, &jdk, junit);
    request.javac_options = levels.javac_options(&request.javac_options);
    // The cluster offers the JDK API of the release the tests compile at, not the worker's.
    request.test_release = options.verify.release.or(levels.test);
    if let Some(store) = &options.store {
        let store = store.clone();
        let seed_class = class.clone();
        request.warm_start_from = Some(job::WarmStartSource::new(move |cluster| {
            let seeds = store.load_seeds(&seed_class, cluster);
            seeds.tests
        }));
    }
    if let EmissionReserve::Estimated(_) = request.emission_reserve {
        request.emission_reserve = EmissionReserve::Estimated(EmissionCosts {
            mutation_cap: options.mutation.phase_cap(request.budget),
            ..options.costs.costs()
        });
    }
    // Code under test reads the project's sources, resources and class path, and nothing else
    // of the machine but the JDK and the system's libraries (where Landlock confines reads).
    supervisor.confine_reads_to(request.layout.readable_paths());
    let (
        mut generation,
        JobSources {
            sources,
            cut,
            roots,
            through_subclass,
        },
    ) = job::generate_keeping_sources(&request, supervisor, observer)?;
    // A superclass caller's integration tests were generated for the subclass: they are its
    // tests, in its package.
    if let Some(through) = through_subclass {
        request = through;
    }
    if options.abandon_when_cancelled && request.cancel.is_cancelled() {
        return Err(PipelineError::Generation(GenerationError::Cancelled {
            class,
        }));
    }

    let emission_started = Instant::now();
    let mut verify = options.verify.clone();
    // The tests must compile where the project's tests do: at the release its build targets
    // (a getter the worker's newer JDK has, such as `StringBuilder.isEmpty()` since 15, must
    // not end up in the tests of a Java 11 project), or the closest the JDK supports.
    verify.release = verify.release.or(levels.test);
    verify.main_release = verify.main_release.or(levels.main);
    verify.jdk.get_or_insert(jdk);
    if verify.deadline.is_none() {
        verify.deadline = Some(started + request.budget);
    }
    if options.abandon_when_cancelled {
        // Emission checks this token between its steps in the worker, and verification kills
        // its processes on it.
        verify.cancel = request.cancel.clone();
    }
    observer.on_phase(Phase::Emitting, started.elapsed());
    let emitted = compile_and_emit(
        &request,
        &verify,
        &options.mutation,
        TestShape {
            junit,
            level: levels.written,
            reads_console: EnvironmentInputs::from_source(&sources[cut.index].file.text, &cut.tree)
                .console,
        },
        supervisor,
        &sources,
        roots,
        &cut.model,
        &generation,
        &mut |phase| observer.on_phase(phase, started.elapsed()),
    );
    // Cancelled during emission or verification: no partial suite is written or stored.
    if options.abandon_when_cancelled && request.cancel.is_cancelled() {
        return Err(PipelineError::Generation(GenerationError::Cancelled {
            class,
        }));
    }
    // A failure here is not the class's: the search's results stand, marked unverified with
    // the reason, and no test is offered or written from them (issue #15: a run that reached
    // 90 of 93 branches must not end in "could not generate tests").
    let Emitted {
        suite,
        verification,
        not_printable,
        mutation,
        slimmed,
        mutation_phase,
    } = match emitted {
        Ok(emitted) => emitted,
        Err(error) => {
            tracing::warn!("{class}: {error}");
            Emitted {
                suite: unverified_suite(),
                verification: Verification::Failed {
                    reason: failure_reason(&error),
                },
                not_printable: Vec::new(),
                mutation: None,
                slimmed: BTreeMap::new(),
                mutation_phase: None,
            }
        }
    };
    // The written tests are the slimmed ones: the store (warm starts, the regression guard,
    // which prints its tests again) keeps what was written. Their coverage stays the final
    // run's: the suite covers what it covered (`crate::slim`), a test perhaps a little less.
    for (index, test) in slimmed {
        if let Some(generated) = generation.tests.get_mut(index) {
            generated.test = test;
        }
    }
    let took = emission_started.elapsed();
    tracing::debug!(
        "{class}: emission of {} tests took {took:?} (reserved {:?}; javac {:?}, JUnit {:?}, \
         {} rounds)",
        generation.tests.len(),
        generation.emission_reserve,
        suite
            .compiles
            .iter()
            .map(|c| c.duration)
            .collect::<Vec<_>>(),
        suite.runs.iter().map(|r| r.duration).collect::<Vec<_>>(),
        suite.rounds,
    );
    if verification.failure().is_none() {
        // A failed emission's time says nothing about the next one's.
        options.costs.learn(
            generation.tests.len(),
            took,
            mutation_phase,
            (verification == Verification::JUnit).then_some(&suite),
        );
        restrict_coverage(&mut generation, &suite.kept_tests);
    }

    let path = match &request.callee {
        Some(callee) => emit::integration_test_file(
            &request.layout,
            &request.class,
            request
                .integration_caller
                .as_deref()
                .unwrap_or(&request.class),
            callee,
        ),
        None => emit::test_file(&request.layout, &class),
    };
    let mut write_error = None;
    let written = if options.write && !suite.kept.is_empty() {
        match emit::write_test_class(&path, &suite.source) {
            Ok(written) => Some(written),
            // The tests were verified and the coverage is theirs: the report and the editor
            // still get them, with the reason nothing was written.
            Err(error) => {
                write_error = Some(
                    PipelineError::Emit {
                        class: class.clone(),
                        error,
                    }
                    .to_string(),
                );
                None
            }
        }
    } else {
        None
    };
    let nondeterminism = nondeterministic_inputs(
        &class,
        &sources[cut.index].file.text,
        &cut.model,
        &generation,
        &suite,
    );
    let emission = Emission {
        junit,
        path,
        written,
        write_error,
        suite,
        verification,
        not_printable,
        time: emission_started.elapsed(),
        levels,
        mutation,
    };

    // The store keeps a class's unit tests (the editor's, the regression guard's, the next
    // run's warm start); integration tests are not kept there (a later run would take them for
    // the class's suite), only which coupled branches they cover (`store::integration`).
    if let Some(store) = options.store.as_ref() {
        let class_hash = source_hash(&sources[cut.index].file.text);
        match &request.callee {
            None => {
                let mut run = finished_run(&generation, &request, options.timestamp_ms, class_hash);
                run.suite = stored_suite(&generation, &emission);
                if let Err(error) = store.save_run(&run) {
                    store_warnings.push(format!("history not saved: {error}"));
                }
            }
            Some(callee) => {
                let saved = integration::save(
                    store,
                    callee,
                    &request.layout,
                    &sources,
                    &generation,
                    &emission,
                    options.timestamp_ms,
                    class_hash,
                );
                if let Err(error) = saved {
                    store_warnings.push(format!("integration record not saved: {error}"));
                }
            }
        }
    }

    Ok(ClassOutcome {
        generation,
        emission,
        nondeterminism,
        source_file: sources[cut.index].disk.clone(),
        store_warnings,
        wall: started.elapsed(),
    })
}

/// The nondeterministic inputs of `class` in its file's `text`, linked to the assertions the
/// written tests (`suite`) leave out, by the lines each test's final run executed.
fn nondeterministic_inputs(
    class: &str,
    text: &str,
    model: &javamodel::JavaModel,
    generation: &GenerationResult,
    suite: &VerifiedSuite,
) -> Vec<Linked> {
    use crate::nondeterminism::{self, link};
    let tree = syntax::parse_java(text, None);
    let inputs: Vec<_> = nondeterminism::find(text, &tree, model)
        .into_iter()
        .filter(|input| {
            input
                .member
                .as_deref()
                .is_some_and(|member| job::member_of_class(class, member))
        })
        .collect();
    let tests: Vec<link::TestLines> = suite
        .kept
        .iter()
        .zip(&suite.kept_tests)
        .filter_map(|(name, &index)| {
            Some(link::TestLines {
                name,
                lines: &generation.tests.get(index)?.covered_lines,
            })
        })
        .collect();
    let left_out = link::left_out_assertions(&suite.source, &suite.kept);
    link::link(&inputs, &tests, &left_out, &generation.lines.lines)
}

/// Makes the result's branch and line coverage that of the tests written (`kept`, indexes into
/// `generation.tests`), for the class under test and for every class it instrumented besides:
/// verification may have dropped tests, and what the report and the editor show must be what
/// the file covers. Undeclared exceptions stay: they were observed, whether or not a written
/// test reproduces them.
fn restrict_coverage(generation: &mut GenerationResult, kept: &[usize]) {
    let kept: BTreeSet<usize> = kept.iter().copied().collect();
    if (0..generation.tests.len()).all(|index| kept.contains(&index)) {
        return;
    }
    let tests = &generation.tests;
    restrict_class(
        &mut generation.decisions,
        &mut generation.branches,
        &mut generation.lines,
        &kept,
        |index| (&tests[index].covered_goals, &tests[index].covered_lines),
    );
    if let Some(coupled) = &mut generation.coupled {
        for (index, pair) in coupled.pairs.iter_mut().enumerate() {
            pair.covered_by = kept
                .iter()
                .copied()
                .find(|&test| tests[test].coupled_covered.contains(&index));
        }
    }
    for (class, other) in generation.also_instrumented.iter_mut().enumerate() {
        if let Some(coupled) = &mut other.coupled {
            for (index, pair) in coupled.pairs.iter_mut().enumerate() {
                pair.covered_by = kept.iter().copied().find(|&test| {
                    tests[test]
                        .also_covered
                        .get(class)
                        .is_some_and(|own| own.coupled.contains(&index))
                });
            }
        }
        restrict_class(
            &mut other.decisions,
            &mut other.branches,
            &mut other.lines,
            &kept,
            |index| {
                tests[index]
                    .also_covered
                    .get(class)
                    .map_or((&[][..], &[][..]), |own| (&own.goals, &own.lines))
            },
        );
    }
}

/// One class's part of [`restrict_coverage`]: `own(test)` is what that test covers of the class
/// on its own (branch goal keys, lines).
fn restrict_class<'t>(
    decisions: &mut [job::DecisionCoverage],
    branches: &mut job::Coverage,
    lines: &mut job::LineCoverage,
    kept: &BTreeSet<usize>,
    own: impl Fn(usize) -> (&'t [String], &'t [u32]),
) {
    let mut covered = 0;
    for decision in decisions.iter_mut() {
        for outcome in &mut decision.outcomes {
            if outcome.covered_by.is_none() {
                continue;
            }
            let key = format!("{}.{}", decision.key, outcome.outcome);
            outcome.covered_by = kept
                .iter()
                .copied()
                .find(|&index| own(index).0.contains(&key));
            covered += usize::from(outcome.covered_by.is_some());
        }
    }
    branches.covered = covered;
    let covered_lines: BTreeSet<u32> = kept
        .iter()
        .flat_map(|&index| own(index).1.iter().copied())
        .collect();
    lines.covered = covered_lines.into_iter().collect();
}

/// Observes the generated tests in the worker, prints them and verifies them with JUnit.
/// What the test class is written for: its JUnit and its Java level.
struct TestShape {
    junit: JUnitVersion,
    level: Option<u32>,
    /// The class reads `System.in` (`TestClassSpec::reads_console`).
    reads_console: bool,
}

/// Compiles the sources the job read again, uninstrumented, then [`emit_verified`].
#[allow(clippy::too_many_arguments)]
fn compile_and_emit(
    request: &GenerationRequest,
    verify: &VerifyOptions,
    mutation: &MutationOptions,
    shape: TestShape,
    supervisor: &mut Supervisor,
    sources: &[job::ProjectSource],
    roots: Vec<String>,
    model: &javamodel::JavaModel,
    generation: &GenerationResult,
    on_phase: &mut dyn FnMut(Phase),
) -> Result<Emitted, PipelineError> {
    let class = &request.class;
    // The sources the job read and compiled: emission compiles them again, uninstrumented, from
    // the same roots, so the unit has the classes the tests use (the worker recompiles only the
    // instrumented file and the files mentioning its class; the others are cached by content).
    let compile_request = CompileRequest {
        sources: sources.iter().map(|source| source.file.clone()).collect(),
        classpath: request.layout.classpath.clone(),
        options: request.javac_options.clone(),
        roots: Some(roots),
    };
    emission_cancelled(verify, class)?;
    let compiled = supervisor
        .compile(&compile_request)
        .map_err(|error| PipelineError::Jvm {
            class: class.clone(),
            error,
        })?;
    let Some(unit) = compiled.unit else {
        // The job compiled these same texts with one class instrumented a moment ago, so only
        // a worker problem can get here.
        return Err(PipelineError::Generation(GenerationError::DoesNotCompile {
            class: class.clone(),
            diagnostics: Vec::new(),
        }));
    };
    if let Err(cancelled) = emission_cancelled(verify, class) {
        supervisor.release(unit);
        return Err(cancelled);
    }
    let mutants = MutantsFrom {
        request: &compile_request,
        options: mutation,
        budget: request.budget,
    };
    let emitted = emit_verified(
        request, verify, shape, supervisor, unit, model, generation, mutants, on_phase,
    );
    supervisor.release(unit);
    emitted
}

/// What emission hands back.
struct Emitted {
    suite: VerifiedSuite,
    verification: Verification,
    /// The tests that could not be printed.
    not_printable: Vec<String>,
    /// The mutation score, when the analysis ran.
    mutation: Option<MutationScore>,
    /// The tests that lost statements (`crate::slim`), by index in the generation's tests.
    slimmed: BTreeMap<usize, testcase::TestCase>,
    /// How long the mutation analysis and the slimming took, when the analysis ran.
    mutation_phase: Option<Duration>,
}

/// How emission compiles the class's mutants, and how much it analyses.
struct MutantsFrom<'a> {
    request: &'a CompileRequest,
    options: &'a MutationOptions,
    /// The class's budget, which bounds the analysis.
    budget: Duration,
}

/// Emission's cancellation point between its steps in the worker (each a request it cannot
/// interrupt: compile, describe, one observed batch): `verify.cancel` is the run's token when
/// the caller abandons cancelled runs ([`PipelineOptions::abandon_when_cancelled`]).
fn emission_cancelled(verify: &VerifyOptions, class: &str) -> Result<(), PipelineError> {
    if verify.cancel.is_cancelled() {
        return Err(PipelineError::Generation(GenerationError::Cancelled {
            class: class.to_string(),
        }));
    }
    Ok(())
}

/// An empty suite: what a run whose emission or verification failed offers.
fn unverified_suite() -> VerifiedSuite {
    VerifiedSuite {
        source: String::new(),
        kept: Vec::new(),
        kept_tests: Vec::new(),
        printed: Vec::new(),
        dropped: Vec::new(),
        runs: Vec::new(),
        perturbed: Vec::new(),
        clock_shifted: false,
        rounds: 0,
        compiles: Vec::new(),
        deadline_round: None,
    }
}

/// What failed in emission or verification, and what the user can do about it.
fn failure_reason(error: &PipelineError) -> String {
    let hint = match error {
        PipelineError::Verify { error, .. } => match error {
            VerifyError::JUnitNotFound { .. }
            | VerifyError::JUnitMismatch { .. }
            | VerifyError::Launcher { .. } => {
                "check the JUnit jars on the project's classpath or in CTGLS_JUNIT_CLASSPATH \
                 (JUnit 5 needs junit-jupiter-api and -engine, junit-platform-commons, -engine \
                 and -launcher, and opentest4j; JUnit 4 needs junit and hamcrest-core)"
            }
            VerifyError::TimedOut { .. } => {
                "the budget ended during verification: give the class a larger budget"
            }
            VerifyError::TestClassDoesNotCompile { .. } => {
                "javac rejected ctgls's test class: please report this with the error above"
            }
            VerifyError::ProjectDoesNotCompile { .. } => {
                "javac could not compile the project for verification: check the classpath"
            }
            VerifyError::Unstable { .. } => {
                "the tests kept failing under JUnit: the class may depend on the time, the \
                 order of tests or the machine"
            }
            VerifyError::Jdk(_) | VerifyError::Execution(_) | VerifyError::Io { .. } => {
                "check the JDK and the temporary directory, then run again"
            }
            VerifyError::Cancelled { .. } => "run again",
        },
        PipelineError::Emit { .. } => "check that the test directory is writable",
        PipelineError::Jvm { .. } | PipelineError::Generation(_) => {
            "the worker failed while printing the tests: run again"
        }
    };
    format!("{error}; {hint}")
}

#[allow(clippy::too_many_arguments)]
fn emit_verified(
    request: &GenerationRequest,
    verify: &VerifyOptions,
    TestShape {
        junit,
        level,
        reads_console,
    }: TestShape,
    supervisor: &mut Supervisor,
    unit: UnitId,
    model: &javamodel::JavaModel,
    generation: &GenerationResult,
    mutants: MutantsFrom,
    on_phase: &mut dyn FnMut(Phase),
) -> Result<Emitted, PipelineError> {
    let class = &request.class;
    let jvm_error = |error| PipelineError::Jvm {
        class: class.clone(),
        error,
    };
    let described = supervisor
        .describe_at(
            unit,
            std::slice::from_ref(class),
            DEFAULT_DESCRIBE_DEPTH,
            verify.release,
        )
        .map_err(jvm_error)?;
    emission_cancelled(verify, class)?;
    let mut facts = emit::type_facts(&described, class);
    facts.add_parameter_names(model);

    let tests: Vec<_> = generation.tests.iter().map(|t| t.test.clone()).collect();
    let observe_started = Instant::now();
    let execute = ExecuteOptions {
        timeout_per_test: request.test_timeout,
        test_package: Some(testcase::package_of(class).to_string()),
        release: verify.release,
        ..ExecuteOptions::default()
    };
    let Some(observed) =
        emit::observe_unless_cancelled(supervisor, unit, &tests, &execute, &verify.cancel)
            .map_err(jvm_error)?
    else {
        return Err(PipelineError::Generation(GenerationError::Cancelled {
            class: class.clone(),
        }));
    };
    emission_cancelled(verify, class)?;
    tracing::debug!("{class}: observing took {:?}", observe_started.elapsed());
    let mut executed = Vec::new();
    // `executed[i]` is `generation.tests[executed_from[i]]`.
    let mut executed_from = Vec::new();
    let mut not_printable = Vec::new();
    for (index, result) in observed.into_iter().enumerate() {
        match result {
            Ok(test) => {
                executed.push(test);
                executed_from.push(index);
            }
            Err(reason) => not_printable.push(describe_not_printable(index, &reason)),
        }
    }

    let test_class = match &request.callee {
        Some(callee) => emit::integration_test_class_name(
            request.integration_caller.as_deref().unwrap_or(class),
            callee,
        ),
        None => emit::test_class_name(class),
    };
    let mut spec = TestClassSpec::new(class, &test_class, JUnit::from(junit));
    spec.tests = executed;
    spec.facts = facts;
    spec.generator_version = env!("CARGO_PKG_VERSION").to_string();
    spec.level = level;
    spec.reads_console = reads_console;
    let phase_started = Instant::now();
    let analysis = mutation_analysis(supervisor, &spec, &execute, &mutants);
    emission_cancelled(verify, class)?;
    let initial = match &analysis {
        Some(analysis) if mutants.options.select_assertions => {
            select_assertions(&spec, &analysis.kills, mutants.options.max_selected)
        }
        _ => Suppressions::default(),
    };
    // Then the statements that neither a kept assertion nor a covered goal needs go; not in
    // an integration run's tests, each of which must call a covering method of the caller
    // (Derakhshanfar et al.'s repair, section 3.2.4), which no goal of the slimming stands for:
    // it once cut `bank.open(...)` down to the `new Account(...)` whose exception it led to.
    let analysed_spec = spec.clone();
    let slimming = if request.callee.is_some() {
        None
    } else {
        crate::slim::slim_suite(
            supervisor,
            mutants.request,
            &spec,
            &initial,
            analysis.as_ref(),
            &execute,
            mutants.options.confirm_within(mutants.budget),
        )
    };
    let (spec, initial, slimmed) = match slimming {
        Some(slimmed) => (slimmed.spec, slimmed.suppressions, slimmed.tests),
        None => (spec, initial, BTreeMap::new()),
    };
    let mutation_phase = analysis.is_some().then(|| phase_started.elapsed());
    // The score counts the analysis's kills, keyed by the assertions of the tests it ran: a
    // slimmed test's printed assertions are carried back to their counterparts (its kills
    // with them were confirmed against the slimmed test, `crate::slim`).
    let scored = |printed: &[testcase::junit::PrintedTest]| {
        analysis.as_ref().map(|analysis| {
            let mut kept = kept_assertions(printed);
            for (test, ids) in kept.iter_mut() {
                if let Some(slim) = slimmed.get(test) {
                    *ids = ids
                        .iter()
                        .filter_map(|id| slim.from.get(id).copied())
                        .collect();
                }
            }
            crate::mutation::score(analysis, &analysed_spec, &kept)
        })
    };
    let slimmed_tests: BTreeMap<usize, testcase::TestCase> = slimmed
        .iter()
        .map(|(&test, slim)| (executed_from[test], slim.removal.test.clone()))
        .collect();
    let verify_error = |error| PipelineError::Verify {
        class: class.clone(),
        error,
    };
    let setup = match JUnitSetup::locate(JUnit::from(junit), &request.layout.classpath) {
        Ok(setup) => setup,
        Err(error @ VerifyError::JUnitNotFound { .. }) => {
            let printed = print_class(&spec, &initial);
            let mutation = scored(&printed.tests);
            let source = match printed.source.split_once('\n') {
                Some((header, rest)) => format!("{header}\n{UNVERIFIED_NOTE}\n{rest}"),
                None => printed.source,
            };
            let suite = VerifiedSuite {
                source,
                kept_tests: printed
                    .tests
                    .iter()
                    .map(|test| executed_from[test.index])
                    .collect(),
                kept: printed.tests.iter().map(|test| test.name.clone()).collect(),
                // The note moves every line of the class down.
                printed: shifted(printed.tests, UNVERIFIED_NOTE.lines().count() as u32),
                dropped: Vec::new(),
                runs: Vec::new(),
                perturbed: Vec::new(),
                clock_shifted: false,
                rounds: 0,
                compiles: Vec::new(),
                deadline_round: None,
            };
            let reason = format!(
                "{error}; put JUnit on the project's classpath (--classpath) or set \
                 CTGLS_JUNIT_CLASSPATH to verify the tests"
            );
            return Ok(Emitted {
                suite,
                verification: Verification::WorkerOnly { reason },
                not_printable,
                mutation,
                slimmed: slimmed_tests,
                mutation_phase,
            });
        }
        Err(error) => return Err(verify_error(error)),
    };
    // The worker has just compiled the project's classes (`unit`): verification runs against
    // those class files instead of compiling every source again with javac, which on a real
    // project costs seconds of the user's budget (5.5 s of 9.4 s for commons-lang3's 215
    // files). Where they cannot be written, javac compiles the sources as before.
    if supervisor.scratch_dir().is_none() {
        // The worker was replaced since it ran the tests (one left a thread it could not stop,
        // say): a fresh one compiles the unit again, which costs less than javac compiling
        // every source, and does not fail on a file outside what the class needs.
        if let Err(error) = supervisor.start() {
            tracing::warn!("verification compiles the project with javac: {error}");
        }
    }
    let worker_classes = supervisor.scratch_dir().and_then(|scratch| {
        let dir = scratch.join(format!("verify-classes-{}", unit.0));
        match supervisor.write_classes(unit, &dir) {
            Ok(_) => Some(dir),
            Err(error) => {
                tracing::warn!("verification compiles the project with javac: {error}");
                None
            }
        }
    });
    let project = match &worker_classes {
        Some(dir) => ProjectClasses {
            sources: Vec::new(),
            classpath: std::iter::once(dir.clone())
                .chain(request.layout.classpath.iter().cloned())
                .collect(),
            overlays: Default::default(),
        },
        None => ProjectClasses::from_layout(&request.layout).with_overlays(&request.overlays),
    };
    on_phase(Phase::Verifying);
    let verify_started = Instant::now();
    let suite = verify::verify_and_stabilise_from(&spec, initial, &project, &setup, verify);
    if let Some(dir) = &worker_classes {
        let _ = std::fs::remove_dir_all(dir);
    }
    let suite = suite.map_err(verify_error)?;
    tracing::debug!("{class}: verification took {:?}", verify_started.elapsed());
    let mutation = scored(&suite.printed);
    if let Some(score) = &mutation {
        tracing::debug!(
            "{class}: {} (all assertions: {:.2}; {:.1} assertions per test, {:.1} with all; {:?})",
            score.summary(),
            score.score_all_assertions(),
            score.assertions_per_test,
            score.assertions_per_test_all,
            score.time
        );
    }
    let suite = VerifiedSuite {
        kept_tests: suite.kept_tests.iter().map(|&i| executed_from[i]).collect(),
        ..suite
    };
    Ok(Emitted {
        suite,
        verification: Verification::JUnit,
        not_printable,
        mutation,
        slimmed: slimmed_tests,
        mutation_phase,
    })
}

/// The mutation analysis of the spec's tests, when asked for; a failure is logged and leaves
/// the suite as it is (every planned assertion, no score).
fn mutation_analysis(
    supervisor: &mut Supervisor,
    spec: &TestClassSpec,
    execute: &ExecuteOptions,
    mutants: &MutantsFrom,
) -> Option<crate::mutation::MutationAnalysis> {
    if !mutants.options.analyse || spec.tests.is_empty() {
        return None;
    }
    let bounds = mutants.options.bounds(mutants.budget);
    match crate::mutation::analyse(supervisor, mutants.request, spec, execute, bounds) {
        Ok(analysis) => Some(analysis),
        Err(error) => {
            tracing::warn!("{error}");
            None
        }
    }
}

/// The assertions each printed test kept, by the test's index in the spec.
fn kept_assertions(
    printed: &[testcase::junit::PrintedTest],
) -> BTreeMap<usize, BTreeSet<testcase::junit::AssertionId>> {
    printed
        .iter()
        .map(|t| (t.index, t.assertions.iter().map(|a| a.id).collect()))
        .collect()
}

/// `tests` with their lines (and their assertions') moved down by `by`.
fn shifted(
    mut tests: Vec<testcase::junit::PrintedTest>,
    by: u32,
) -> Vec<testcase::junit::PrintedTest> {
    for test in &mut tests {
        test.first_line += by;
        test.last_line += by;
        for assertion in &mut test.assertions {
            assertion.first_line += by;
            assertion.last_line += by;
        }
    }
    tests
}

fn describe_not_printable(index: usize, reason: &NotPrintable) -> String {
    format!("test {index}: {reason}")
}

/// The store's record of a run: the archive's tests with the goals each covers, and every
/// goal of the class by its stable key.
fn finished_run(
    generation: &GenerationResult,
    request: &GenerationRequest,
    timestamp_ms: u64,
    source_hash: String,
) -> FinishedRun {
    let mut coverage = store::Coverage::default();
    for decision in &generation.decisions {
        for outcome in &decision.outcomes {
            let key = format!("{}.{}", decision.key, outcome.outcome);
            coverage.goals.insert(key, outcome.covered_by.is_some());
        }
    }
    let covered: BTreeSet<u32> = generation.lines.covered.iter().copied().collect();
    coverage.uncovered_lines = generation
        .lines
        .lines
        .iter()
        .copied()
        .filter(|line| !covered.contains(line))
        .collect();
    coverage.covered_lines = covered;
    coverage.undeclared_exceptions = generation
        .exceptions
        .iter()
        .map(|exception| store::UndeclaredException {
            member: exception.member.clone(),
            exception: exception.type_name.clone(),
            line: exception.line,
            message: exception.message.clone(),
            checked: generation
                .tests
                .get(exception.test)
                .and_then(|t| t.result.exception.as_ref())
                .is_some_and(|thrown| thrown.checked),
            test: (exception.test < generation.tests.len()).then_some(exception.test),
        })
        .collect();
    FinishedRun {
        class: generation.class.clone(),
        run: RunInfo {
            timestamp_ms,
            source_hash,
            budget_ms: u64::try_from(request.budget.as_millis()).unwrap_or(u64::MAX),
            algorithm: algorithm_name(generation.algorithm).to_string(),
            seed: generation.seed,
            executions: generation.executions,
        },
        tests: generation
            .tests
            .iter()
            .map(|test| StoredTest {
                test: test.test.clone(),
                covers: test.covers.iter().cloned().collect(),
            })
            .collect(),
        suite: None,
        coverage,
    }
}

/// The verified class of a run for the store, so that a later session can insert its tests
/// before running anything; `None` when no test was kept.
fn stored_suite(generation: &GenerationResult, emission: &Emission) -> Option<store::StoredSuite> {
    let suite = &emission.suite;
    if suite.kept.is_empty() {
        return None;
    }
    let methods = suite
        .kept
        .iter()
        .zip(&suite.kept_tests)
        .filter_map(|(name, &test)| {
            Some(store::StoredMethod {
                name: name.clone(),
                test,
                goals: generation
                    .tests
                    .get(test)?
                    .covered_goals
                    .iter()
                    .cloned()
                    .collect(),
                assertions: suite
                    .printed
                    .iter()
                    .find(|printed| printed.name == *name)
                    .map(|printed| {
                        printed
                            .assertions
                            .iter()
                            .map(|a| store::StoredAssertion {
                                first_line: a.first_line,
                                last_line: a.last_line,
                                kind: a.kind,
                                subject: a.subject.clone(),
                                expected: a.expected.clone(),
                            })
                            .collect()
                    })
                    .unwrap_or_default(),
            })
        })
        .collect();
    Some(store::StoredSuite {
        junit: emission.junit,
        source: suite.source.clone(),
        methods,
        unverified: match &emission.verification {
            Verification::JUnit => None,
            Verification::WorkerOnly { reason } | Verification::Failed { reason } => {
                Some(reason.clone())
            }
        },
    })
}

/// Saves the worker's compile cache of the project (what it compiled, for the next worker: see
/// `Supervisor::use_compile_cache_of`) and makes the class data sharing archives that let later
/// runs start their JVMs faster (the worker's, and verification's `javac` and JUnit 5 launcher
/// for the project's JUnit), unless they exist: a few seconds once per JDK, worker build and
/// JUnit jars, a few file checks and a file write after that. No budget pays for it: callers
/// run it when a run's results are out (`ctgls generate` before it exits, the server after a
/// run). Returns what happened to each, by name.
pub fn prepare_faster_starts(
    layout: &ProjectLayout,
    options: &PipelineOptions,
    supervisor: &mut Supervisor,
) -> Vec<(String, Training)> {
    let mut done = Vec::new();
    match supervisor.save_compile_cache() {
        Ok(CompileCacheSave::Saved { files, bytes }) => tracing::debug!(
            "saved the compile cache of {} ({files} files, {bytes} bytes)",
            layout.root.display()
        ),
        Ok(CompileCacheSave::Unchanged | CompileCacheSave::NotInUse) => {}
        // Only the next worker's first compile is slower without it: a log line, not a failure.
        Err(error) => tracing::warn!("{error}"),
    }
    if let Some(worker) = supervisor.prepare_worker_archive() {
        done.push(("worker".to_string(), worker));
    }
    let junit = JUnit::from(options.junit.unwrap_or_else(|| layout.junit_version()));
    let mut verify = options.verify.clone();
    verify.jdk.get_or_insert_with(|| supervisor.jdk().clone());
    let trained = JUnitSetup::locate(junit, &layout.classpath)
        .and_then(|setup| verify::train_archives(&setup, &verify));
    match trained {
        Ok(archives) => done.extend(archives),
        // No JUnit: verification does not run, nothing to prepare for it.
        Err(VerifyError::JUnitNotFound { .. }) => {}
        Err(error) => done.push(("verification".into(), Training::Failed(error.to_string()))),
    }
    done
}

/// The name users type for an algorithm (`--algorithm`, settings, reports).
pub fn algorithm_name(algorithm: search::Algorithm) -> &'static str {
    match algorithm {
        search::Algorithm::DynaMosa => "dynamosa",
        search::Algorithm::ADynaMosa => "adynamosa",
        search::Algorithm::Mosa => "mosa",
        search::Algorithm::WholeSuite => "wholesuite",
    }
}

/// A stable hash of a source text: equal texts, equal hashes, on every machine and run, which
/// is all "has the class changed?" needs.
pub fn source_hash(text: &str) -> String {
    format!("{:016x}", store::fnv1a64(text.as_bytes()))
}
