//! The regression guard: after an edit, the stored generated tests of a class (the `.ctgls/`
//! store's archive and the assertions of the JUnit class they were verified as) run again on
//! the warm worker against the edited text, and every assertion that no longer holds is a
//! [`BehaviourChange`]: what the test did, what it expected, what happens now. Milliseconds,
//! not seconds: the worker compiles the edited file incrementally, describes the class for the
//! printer, and executes the stored statements with observation as emission does
//! (`crate::emit`); no javac, no JUnit, no fresh JVM.
//!
//! Continuous testing (Saff and Ernst, "An Experimental Evaluation of Continuous Testing
//! During Development") runs the developer's tests on every change; here the tests are the
//! generated regression tests, so the check costs one small batch on a JVM that is already up.
//!
//! Module map: this file runs the check; `compare` (pure) matches what the tests assert now
//! with what the stored class asserted and words the differences; `accept` (pure) rewrites a
//! test class to the new values; `project_tests` runs the project's own tests of the class.

mod accept;
mod compare;
mod project_tests;

use std::time::{Duration, Instant};

use jvm::{CompileRequest, ExecuteOptions, ExecutionOutcome, JvmError, Supervisor};
use testcase::junit::{
    print_class, with_state_probes, ExecutedTest, JUnit, Suppressions, TestClassSpec,
};

use crate::cluster::{to_worker_test, DEFAULT_DESCRIBE_DEPTH};
use crate::emit;
use crate::job::{locate, read_sources, GenerationError};
use crate::levels::CompileLevels;
use crate::project::{JUnitVersion, ProjectLayout, SourceOverlays};
use crate::store::ClassRecord;

pub use accept::{accept, AcceptError, Accepted};
pub use compare::{compare, BehaviourChange, CalledMember, Now};
pub use project_tests::{
    find_project_tests, run_project_tests, ProjectTestFailure, ProjectTestRun, ProjectTests,
};

/// One check of a class's stored tests against the text the editor holds.
#[derive(Debug, Clone)]
pub struct CheckRequest<'a> {
    pub layout: &'a ProjectLayout,
    /// The editor's unsaved buffers.
    pub overlays: &'a SourceOverlays,
    /// Binary name of the class under test.
    pub class: &'a str,
    /// The record whose tests are the reference: the behaviour the user last accepted.
    pub record: &'a ClassRecord,
    /// Deadline of one test in the worker.
    pub test_timeout: Duration,
}

/// What a check found, and what it cost.
#[derive(Debug, Clone, Default)]
pub struct CheckOutcome {
    pub changes: Vec<BehaviourChange>,
    /// Stored test methods that ran.
    pub tests_run: usize,
    pub timings: CheckTimings,
}

#[derive(Debug, Clone, Copy, Default)]
pub struct CheckTimings {
    pub compile: Duration,
    pub describe: Duration,
    pub execute: Duration,
    pub total: Duration,
}

#[derive(Debug, thiserror::Error)]
pub enum CheckError {
    /// The edited project does not compile (the next run says why).
    #[error("{class} does not compile")]
    DoesNotCompile { class: String },
    #[error("cannot read the project's sources: {0}")]
    Sources(#[from] GenerationError),
    #[error(transparent)]
    Jvm(#[from] JvmError),
}

/// Runs the stored tests of `request.class` (those its stored JUnit class prints, with the
/// assertions it kept) on `supervisor`'s worker against the current sources, and returns the
/// assertions that no longer hold. A record without a stored class or without stored
/// assertions (written before they were kept) gives no changes.
pub fn check(
    request: &CheckRequest,
    supervisor: &mut Supervisor,
) -> Result<CheckOutcome, CheckError> {
    let started = Instant::now();
    let class = request.class;
    let Some(suite) = request.record.suite.as_ref() else {
        return Ok(CheckOutcome::default());
    };
    if suite.methods.iter().all(|m| m.assertions.is_empty()) {
        return Ok(CheckOutcome::default());
    }
    let sources = read_sources(request.layout, request.overlays)?;
    let Some(cut) = locate(request.layout, &sources, class) else {
        return Err(CheckError::DoesNotCompile {
            class: class.to_string(),
        });
    };
    let levels = CompileLevels::of(request.layout, supervisor.jdk(), suite.junit);
    supervisor.use_compile_cache_of(&request.layout.root);
    supervisor.confine_reads_to(request.layout.readable_paths());
    let compiled = supervisor.compile(&CompileRequest {
        sources: sources.iter().map(|s| s.file.clone()).collect(),
        classpath: request.layout.classpath.clone(),
        options: levels.javac_options(&[]),
        roots: Some(vec![sources[cut.index].file.path.clone()]),
    })?;
    let Some(unit) = compiled.unit else {
        return Err(CheckError::DoesNotCompile {
            class: class.to_string(),
        });
    };
    let compile = started.elapsed();
    let result = observe_and_compare(request, supervisor, unit, &levels, suite.junit, &cut.model);
    supervisor.release(unit);
    let (changes, tests_run, describe, execute) = result?;
    Ok(CheckOutcome {
        changes,
        tests_run,
        timings: CheckTimings {
            compile,
            describe,
            execute,
            total: started.elapsed(),
        },
    })
}

type Compared = (Vec<BehaviourChange>, usize, Duration, Duration);

fn observe_and_compare(
    request: &CheckRequest,
    supervisor: &mut Supervisor,
    unit: jvm::UnitId,
    levels: &CompileLevels,
    junit: JUnitVersion,
    model: &javamodel::JavaModel,
) -> Result<Compared, CheckError> {
    let class = request.class;
    let suite = request
        .record
        .suite
        .as_ref()
        .expect("checked by the caller");
    let started = Instant::now();
    let described = supervisor.describe_at(
        unit,
        &[class.to_string()],
        DEFAULT_DESCRIBE_DEPTH,
        levels.test,
    )?;
    let mut facts = emit::type_facts(&described, class);
    facts.add_parameter_names(model);
    let describe = started.elapsed();

    let started = Instant::now();
    // The methods whose test the record still has, in file order.
    let methods: Vec<_> = suite
        .methods
        .iter()
        .filter(|m| request.record.tests.get(m.test).is_some())
        .collect();
    let probed: Vec<_> = methods
        .iter()
        .map(|m| with_state_probes(&request.record.tests[m.test].test))
        .collect();
    let worker_tests: Vec<jvm::TestCase> =
        probed.iter().map(|p| to_worker_test(p.test())).collect();
    let options = ExecuteOptions {
        timeout_per_test: request.test_timeout,
        test_package: Some(testcase::package_of(class).to_string()),
        release: levels.test,
        observe_getters: true,
        ..ExecuteOptions::default()
    };
    let results = match supervisor.execute(unit, &worker_tests, &options)? {
        ExecutionOutcome::Finished(r) => r,
        ExecutionOutcome::Timeout { completed } | ExecutionOutcome::Crashed { completed, .. } => {
            completed
        }
    };
    let execute = started.elapsed();

    // The methods print as they would now: same tests, so same names and variables, with
    // what the edited class does as their assertions. A test the worker could not run as
    // written (its method is gone) is left out: the search's next run replaces it.
    let mut spec = TestClassSpec::new(class, &emit::test_class_name(class), JUnit::from(junit));
    spec.facts = facts;
    spec.level = levels.written;
    let mut ran = Vec::new();
    for (i, method) in methods.iter().enumerate() {
        let Some(result) = results.get(i) else {
            continue;
        };
        let Ok(execution) = emit::execution_from(result, &probed[i]) else {
            continue;
        };
        spec.tests.push(ExecutedTest {
            test: request.record.tests[method.test].test.clone(),
            execution,
        });
        ran.push(*method);
    }
    let printed = print_class(&spec, &Suppressions::default());
    let changes = compare(class, suite, &ran, &spec.tests, &printed);
    Ok((changes, ran.len(), describe, execute))
}
