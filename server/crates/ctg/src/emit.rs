//! Emitting generated tests: running test cases in the worker so that what they do can become
//! assertions (the edge from `jvm`'s results to `testcase::junit`), and writing the printed
//! test class into the project without ever touching a file ctgls did not write.
//!
//! Invariants of [`write_test_class`]: a file whose first line is not the ctgls header
//! ([`testcase::junit::HEADER_PREFIX`]) is never replaced; a file is replaced whole, by renaming
//! a complete temporary file over it, so readers see the old or the new file, never a part.

use std::io::Write;
use std::path::{Path, PathBuf};

use jvm::{ExecuteOptions, ExecutionOutcome, JvmError, Supervisor, TestResult, TestStatus, UnitId};
use search::CancelToken;
use testcase::junit::{
    is_generated_by_ctgls, mark_unstable, with_state_probes, ExecutedTest, Execution, Getter,
    GetterOutcome, JUnit, Observed, StateProbes, Thrown, TypeFacts, Value,
};
use testcase::TestCase;

use crate::cluster::{to_worker_test, type_description};
use crate::project::{JUnitVersion, ProjectLayout};

/// The suffix of generated test classes: `Account` is tested by `AccountGeneratedTest`.
///
/// Why this name: it ends in `Test`, so Maven Surefire's default includes (`**/*Test.java`) and
/// Gradle's test task run it with no build change; it differs from the `AccountTest` a developer
/// writes by hand, so generating never competes with (or overwrites) their file; and it says
/// what the file is to anyone who opens the test directory. EvoSuite's `_ESTest` carries the
/// same idea in a name Java style checkers flag.
pub const GENERATED_TEST_SUFFIX: &str = "GeneratedTest";

impl From<JUnitVersion> for JUnit {
    fn from(v: JUnitVersion) -> JUnit {
        match v {
            JUnitVersion::Four => JUnit::Four,
            JUnitVersion::Five => JUnit::Five,
        }
    }
}

/// The simple name of the generated test class of `class_under_test` (a binary name): nested
/// classes get their outer classes' names in front, `a.Outer$Inner` → `OuterInnerGeneratedTest`.
pub fn test_class_name(class_under_test: &str) -> String {
    let simple = class_under_test
        .rsplit('.')
        .next()
        .unwrap_or(class_under_test);
    format!("{}{GENERATED_TEST_SUFFIX}", simple.replace('$', ""))
}

/// Where the generated test class of `class_under_test` lives: under the test root, in the
/// directory of its package.
pub fn test_file(layout: &ProjectLayout, class_under_test: &str) -> PathBuf {
    let package = class_under_test
        .rsplit_once('.')
        .map_or("", |(package, _)| package);
    let mut path = layout.test_root.clone();
    for part in package.split('.').filter(|p| !p.is_empty()) {
        path.push(part);
    }
    path.push(format!("{}.java", test_class_name(class_under_test)));
    path
}

/// The simple name of the class-integration test class of `caller` through its calls of
/// `callee` (binary names): `a.Bank`, `a.Account` → `Bank_AccountIntegrationGeneratedTest`. It
/// ends in [`GENERATED_TEST_SUFFIX`] like every generated test class, and differs from the
/// caller's unit test class, so the two never replace each other.
pub fn integration_test_class_name(caller: &str, callee: &str) -> String {
    let simple =
        |class: &str| -> String { class.rsplit('.').next().unwrap_or(class).replace('$', "") };
    format!(
        "{}_{}Integration{GENERATED_TEST_SUFFIX}",
        simple(caller),
        simple(callee)
    )
}

/// [`test_file`] for [`integration_test_class_name`]: in the package of the class the tests
/// call (the caller, or the subclass callee when the caller is its superclass).
pub fn integration_test_file(
    layout: &ProjectLayout,
    class_under_test: &str,
    caller: &str,
    callee: &str,
) -> PathBuf {
    let mut path = test_file(layout, class_under_test);
    path.set_file_name(format!(
        "{}.java",
        integration_test_class_name(caller, callee)
    ));
    path
}

#[derive(Debug, thiserror::Error)]
pub enum EmitError {
    /// A file is there that ctgls did not write (no header line): it stays untouched.
    #[error("{} exists and was not written by ctgls; it is left untouched", .path.display())]
    NotGenerated { path: PathBuf },
    /// Refusing to write a source without the header: ctgls could not recognise it later.
    #[error("the source for {} does not start with the ctgls header", .path.display())]
    MissingHeader { path: PathBuf },
    #[error("cannot write {}: {source}", .path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Written {
    Created,
    /// An earlier generated file was replaced.
    Replaced,
    /// The file already had exactly this content.
    Unchanged,
}

/// Writes `source` to `path`, creating directories, unless a file ctgls did not write is
/// there. Atomic: a temporary file in the same directory is renamed over the target.
pub fn write_test_class(path: &Path, source: &str) -> Result<Written, EmitError> {
    if !is_generated_by_ctgls(source) {
        return Err(EmitError::MissingHeader { path: path.into() });
    }
    let io = |source| EmitError::Io {
        path: path.into(),
        source,
    };
    let existed = match std::fs::read(path) {
        Ok(bytes) => {
            let text = String::from_utf8_lossy(&bytes);
            if !is_generated_by_ctgls(&text) {
                return Err(EmitError::NotGenerated { path: path.into() });
            }
            if bytes == source.as_bytes() {
                return Ok(Written::Unchanged);
            }
            true
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => false,
        Err(e) => return Err(io(e)),
    };
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir).map_err(io)?;
    let file_name = path.file_name().and_then(|n| n.to_str()).unwrap_or("test");
    let temp = dir.join(format!(".{file_name}.ctgls-{}.tmp", std::process::id()));
    let result = (|| {
        let mut file = std::fs::File::create(&temp)?;
        file.write_all(source.as_bytes())?;
        file.sync_all()?;
        std::fs::rename(&temp, path)
    })();
    if let Err(e) = result {
        let _ = std::fs::remove_file(&temp);
        return Err(io(e));
    }
    Ok(if existed {
        Written::Replaced
    } else {
        Written::Created
    })
}

/// Writes the generated test class of `class_under_test` into the project's test root.
pub fn write_for_class(
    layout: &ProjectLayout,
    class_under_test: &str,
    source: &str,
) -> Result<(PathBuf, Written), EmitError> {
    let path = test_file(layout, class_under_test);
    let written = write_test_class(&path, source)?;
    Ok((path, written))
}

// ------------------------------------------------------------------------ observations

/// Why a test case cannot become a JUnit test.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NotPrintable {
    /// A statement could not be executed as written (not an outcome of the code under test).
    #[error("statement {at:?} is invalid: {message}")]
    Invalid { at: Option<usize>, message: String },
    #[error("the test ended with {0:?}")]
    Ended(TestStatus),
    /// The worker timed out or crashed before reaching the test.
    #[error("the worker did not run the test: {0}")]
    NotRun(String),
    /// Two runs ended differently (one threw, the other did not, or elsewhere).
    #[error("two runs of the test ended differently")]
    Diverged,
}

/// Runs `tests` in the worker twice, with getters observed and state probes appended, and
/// returns what the printer needs for each: an [`ExecutedTest`] whose values that differed
/// between the two runs are marked unstable (they become comments, not assertions), or why
/// the test cannot be printed. Running twice costs one more batch and catches most values
/// that depend on time, randomness or identity hash codes before javac ever sees them (each
/// worker test runs in a fresh thread and class loader).
///
/// The second run is a worker with the other neutral identity ([`jvm::Identity::Alternate`]:
/// another user name, home, temporary directory, host name, and other values for every
/// environment variable), so a value computed from what the code read of the machine differs
/// too and is never asserted; the supervisor is back to the primary identity afterwards (its
/// next request starts a worker again).
pub fn observe(
    supervisor: &mut Supervisor,
    unit: UnitId,
    tests: &[TestCase],
    options: &ExecuteOptions,
) -> Result<Vec<Result<ExecutedTest, NotPrintable>>, JvmError> {
    let never = CancelToken::new();
    observe_unless_cancelled(supervisor, unit, tests, options, &never)
        .map(|observed| observed.unwrap_or_default())
}

/// [`observe`], or `None` when `cancel` was cancelled during the first run: the second is not
/// started, so the primary worker stays warm for whatever the canceller runs next.
pub fn observe_unless_cancelled(
    supervisor: &mut Supervisor,
    unit: UnitId,
    tests: &[TestCase],
    options: &ExecuteOptions,
    cancel: &CancelToken,
) -> Result<Option<Vec<Result<ExecutedTest, NotPrintable>>>, JvmError> {
    let options = ExecuteOptions {
        observe_getters: true,
        ..options.clone()
    };
    let probed: Vec<StateProbes> = tests.iter().map(with_state_probes).collect();
    let worker_tests: Vec<jvm::TestCase> =
        probed.iter().map(|p| to_worker_test(p.test())).collect();
    let first = run_batch(supervisor, unit, &worker_tests, &options)?;
    if cancel.is_cancelled() {
        return Ok(None);
    }
    let alternate_started = std::time::Instant::now();
    supervisor.set_identity(jvm::Identity::Alternate);
    let second = run_batch(supervisor, unit, &worker_tests, &options);
    supervisor.set_identity(jvm::Identity::Primary);
    tracing::debug!(
        "the second observation, as the alternate identity, took {:?} (a worker start and a \
         compile included)",
        alternate_started.elapsed()
    );
    let second = second?;
    let mut out = Vec::with_capacity(tests.len());
    for (i, (test, probes)) in tests.iter().zip(&probed).enumerate() {
        let execution = |run: &(Vec<TestResult>, String)| match run.0.get(i) {
            Some(result) => execution_from(result, probes),
            None => Err(NotPrintable::NotRun(run.1.clone())),
        };
        let executed = execution(&first).and_then(|mut a| {
            let b = execution(&second)?;
            mark_unstable(&mut a, &b).map_err(|_| NotPrintable::Diverged)?;
            Ok(ExecutedTest {
                test: test.clone(),
                execution: a,
            })
        });
        out.push(executed);
    }
    Ok(Some(out))
}

/// The results of one batch and, when it stopped early, why.
fn run_batch(
    supervisor: &mut Supervisor,
    unit: UnitId,
    tests: &[jvm::TestCase],
    options: &ExecuteOptions,
) -> Result<(Vec<TestResult>, String), JvmError> {
    Ok(match supervisor.execute(unit, tests, options)? {
        ExecutionOutcome::Finished(r) => (r, String::new()),
        ExecutionOutcome::Timeout { completed } => (completed, "the batch timed out".to_string()),
        ExecutionOutcome::Crashed { reason, completed } => {
            (completed, format!("crashed: {reason}"))
        }
    })
}

/// The execution of the original test case from the worker's result of its probed form.
pub fn execution_from(
    result: &TestResult,
    probes: &StateProbes,
) -> Result<Execution, NotPrintable> {
    let results: Vec<Option<Observed>> = result
        .statements
        .iter()
        .map(|s| match s {
            jvm::StatementResult::Void => None,
            jvm::StatementResult::Value(o) => Some(observed(o)),
        })
        .collect();
    let in_original = |at: Option<usize>| at.is_some_and(|i| i < probes.original_len());
    match result.status {
        TestStatus::Ok => Ok(probes.execution(results, None)),
        TestStatus::Exception => {
            let thrown = result.exception.as_ref().map(|e| Thrown {
                type_name: e.type_name.clone(),
                message: e.message.clone(),
                declared: e.declared,
                checked: e.checked,
                unstable_message: false,
            });
            Ok(probes.execution(results, thrown))
        }
        // A probe the worker could not run leaves the original test complete.
        TestStatus::Invalid if !in_original(result.failed_at) => {
            Ok(probes.execution(results, None))
        }
        TestStatus::Invalid => Err(NotPrintable::Invalid {
            at: result.failed_at,
            message: result.message.clone().unwrap_or_default(),
        }),
        other => Err(NotPrintable::Ended(other)),
    }
}

/// One worker observation in the printer's terms.
pub fn observed(o: &jvm::Observation) -> Observed {
    Observed {
        runtime_type: o.type_name.clone(),
        is_null: o.is_null,
        value: o.value.as_ref().map(value),
        enum_constant: o.enum_constant.clone(),
        length: o.length,
        truncated: o.truncated,
        unstable: false,
        getters: o
            .getters
            .iter()
            .map(|g| Getter {
                name: g.name.clone(),
                unstable: false,
                outcome: match &g.outcome {
                    jvm::GetterOutcome::Value(v) => GetterOutcome::Value(value(v)),
                    jvm::GetterOutcome::Enum(e) => GetterOutcome::Enum(e.clone()),
                    jvm::GetterOutcome::Null => GetterOutcome::Null,
                    jvm::GetterOutcome::Threw(t) => GetterOutcome::Threw(t.clone()),
                },
            })
            .collect(),
    }
}

fn value(v: &jvm::ObservedValue) -> Value {
    match v {
        jvm::ObservedValue::Bool(b) => Value::Bool(*b),
        jvm::ObservedValue::Integer(i) => Value::Integer(*i),
        jvm::ObservedValue::Float(f) => Value::Float(*f),
        jvm::ObservedValue::Text(t) => Value::Text(t.clone()),
    }
}

/// What the printer may know about the described types (getters, overloads, enums), as a test
/// of `class` sees them: only the members a test in its package can use
/// (`testcase::visible_from`), so that no observed getter it could not call is asserted.
pub fn type_facts(described: &jvm::DescribeResult, class: &str) -> TypeFacts {
    let types: Vec<_> = described.classes.iter().map(type_description).collect();
    TypeFacts::visible_from(&types, class)
}
