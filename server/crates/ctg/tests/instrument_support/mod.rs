//! Shared set-up of the instrumentation tests in the real worker (`instrument_*.rs`): the
//! worker, compile requests of fixture sources, and test cases written as compact calls whose
//! results are compared between original and instrumented classes.
#![allow(dead_code)]

use std::path::Path;
use std::time::Duration;

use jvm::*;

/// One worker cache for every test of the workspace (racing builds are safe).
pub fn supervisor() -> Supervisor {
    supervisor_with(Vec::new())
}

/// A worker started with `extra_jvm_args` (`-ea` for assertions).
pub fn supervisor_with(extra_jvm_args: Vec<String>) -> Supervisor {
    Supervisor::new(WorkerConfig {
        cache_dir: Some(std::env::temp_dir().join("ctgls-jvm-tests-cache")),
        heap_mb: 128,
        extra_jvm_args,
        ..WorkerConfig::default()
    })
    .expect("JDK 11+ and a buildable worker")
}

pub fn source(path: &str, file: &Path) -> SourceFile {
    SourceFile {
        path: path.to_string(),
        text: std::fs::read_to_string(file).unwrap(),
        instrumented: None,
    }
}

/// javamodel's instrumentation fixtures `names` (package `instr`), which compile with Java 17.
pub fn instrument_fixtures(names: &[&str]) -> Vec<SourceFile> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../javamodel/tests/instrument/fixtures");
    names
        .iter()
        .map(|n| source(&format!("instr/{n}.java"), &dir.join(format!("{n}.java"))))
        .collect()
}

pub fn request(sources: Vec<SourceFile>) -> CompileRequest {
    CompileRequest {
        sources,
        classpath: Vec::new(),
        options: vec!["--release".into(), "17".into()],
        roots: None,
    }
}

pub fn options(classes: &[&str]) -> ExecuteOptions {
    ExecuteOptions {
        timeout_per_test: Duration::from_millis(1500),
        classes_under_test: classes.iter().map(|c| c.to_string()).collect(),
        ..ExecuteOptions::default()
    }
}

pub fn finished(outcome: ExecutionOutcome) -> Vec<TestResult> {
    match outcome {
        ExecutionOutcome::Finished(r) => r,
        other => panic!("expected Finished, got {other:#?}"),
    }
}

// ---------------------------------------------------------------------------- test cases

/// An argument of a call, built by statements.
#[derive(Debug, Clone)]
pub enum A {
    I(i32),
    J(i64),
    C(char),
    H(i16),
    B(i8),
    F(f32),
    D(f64),
    Z(bool),
    S(&'static str),
    Null(&'static str),
    Ints(Vec<i32>),
    Bools(Vec<bool>),
    List(Vec<A>),
    Enum(&'static str, &'static str),
    /// `new C()` of a class with a no-argument constructor.
    New(&'static str),
    /// `new C(int)`.
    NewInt(&'static str, i32),
    /// `new C(int[])` (or `new C(int...)`).
    NewInts(&'static str, Vec<i32>),
    /// `new C(params...)` with these arguments.
    NewWith(&'static str, &'static [&'static str], Vec<A>),
    /// What a call returns.
    Returned(Box<Call>),
}

/// A call on a receiver made by `receiver` (a constructor), or a static call.
#[derive(Debug, Clone)]
pub struct Call {
    pub class: &'static str,
    pub receiver: Option<A>,
    pub method: &'static str,
    pub params: &'static [&'static str],
    pub args: Vec<A>,
}

pub fn arg(statements: &mut Vec<Statement>, a: &A) -> usize {
    let value = |l| Statement::Value(l);
    let s = match a {
        A::I(v) => value(Literal::Int(*v)),
        A::J(v) => value(Literal::Long(*v)),
        A::C(v) => value(Literal::Char(*v)),
        A::H(v) => value(Literal::Short(*v)),
        A::B(v) => value(Literal::Byte(*v)),
        A::F(v) => value(Literal::Float(*v)),
        A::D(v) => value(Literal::Double(*v)),
        A::Z(v) => value(Literal::Boolean(*v)),
        A::S(v) => value(Literal::String(v.to_string())),
        A::Null(t) => Statement::Null {
            type_name: t.to_string(),
        },
        A::Enum(t, n) => Statement::EnumConstant {
            type_name: t.to_string(),
            name: n.to_string(),
        },
        A::New(c) => Statement::New {
            class: c.to_string(),
            params: Vec::new(),
            args: Vec::new(),
        },
        A::NewInt(c, v) => {
            let v = arg(statements, &A::I(*v));
            Statement::New {
                class: c.to_string(),
                params: vec!["int".into()],
                args: vec![v],
            }
        }
        A::NewInts(c, vs) => {
            let array = arg(statements, &A::Ints(vs.clone()));
            Statement::New {
                class: c.to_string(),
                params: vec!["int[]".into()],
                args: vec![array],
            }
        }
        A::NewWith(c, params, values) => {
            let args = values.iter().map(|v| arg(statements, v)).collect();
            Statement::New {
                class: c.to_string(),
                params: params.iter().map(|p| p.to_string()).collect(),
                args,
            }
        }
        A::Returned(call) => {
            push_call(statements, call);
            return statements.len() - 1;
        }
        A::Ints(_) | A::Bools(_) => {
            let (component, elements): (&str, Vec<A>) = match a {
                A::Ints(vs) => ("int", vs.iter().map(|v| A::I(*v)).collect()),
                A::Bools(vs) => ("boolean", vs.iter().map(|v| A::Z(*v)).collect()),
                _ => unreachable!(),
            };
            statements.push(Statement::NewArray {
                component: component.into(),
                length: elements.len() as u32,
            });
            let array = statements.len() - 1;
            for (i, e) in elements.iter().enumerate() {
                let value = arg(statements, e);
                statements.push(Statement::SetElement {
                    array,
                    index: i as u32,
                    value,
                });
            }
            return array;
        }
        A::List(items) => {
            statements.push(Statement::New {
                class: "java.util.ArrayList".into(),
                params: Vec::new(),
                args: Vec::new(),
            });
            let list = statements.len() - 1;
            for item in items {
                let value = arg(statements, item);
                statements.push(Statement::Call {
                    class: "java.util.ArrayList".into(),
                    method: "add".into(),
                    params: vec!["java.lang.Object".into()],
                    receiver: Some(list),
                    args: vec![value],
                });
            }
            return list;
        }
    };
    statements.push(s);
    statements.len() - 1
}

pub fn test_case(call: &Call) -> TestCase {
    let mut statements = Vec::new();
    push_call(&mut statements, call);
    TestCase { statements }
}

/// The statements of `call`'s receiver and arguments, then the call.
fn push_call(statements: &mut Vec<Statement>, call: &Call) {
    let receiver = call.receiver.as_ref().map(|r| arg(statements, r));
    let args: Vec<usize> = call.args.iter().map(|a| arg(statements, a)).collect();
    statements.push(Statement::Call {
        class: call.class.into(),
        method: call.method.into(),
        params: call.params.iter().map(|p| p.to_string()).collect(),
        receiver,
        args,
    });
}

pub fn call(
    class: &'static str,
    receiver: Option<A>,
    method: &'static str,
    params: &'static [&'static str],
    args: Vec<A>,
) -> Call {
    Call {
        class,
        receiver,
        method,
        params,
        args,
    }
}

/// The parts of a result that must not depend on instrumentation. Helpful NullPointerException
/// messages name the null expression, which a probe call can change (`strEquals`'s receiver is
/// its parameter), so only their type and frame are compared. The JVM numbers the hidden classes
/// of lambdas in the order it spins them, which no source decides, so those numbers are left out.
pub fn observable(r: &TestResult) -> String {
    without_lambda_numbers(&observable_text(r))
}

/// `C$$Lambda$370/0x00007f7dd31c7820` (JDK 17) or `C$$Lambda/0x…` (JDK 21) becomes `C$$Lambda`.
fn without_lambda_numbers(text: &str) -> String {
    const MARK: &str = "$$Lambda";
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(MARK) {
        out.push_str(&rest[..at + MARK.len()]);
        rest = &rest[at + MARK.len()..];
        let end = rest
            .find(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '$' | '/')))
            .unwrap_or(rest.len());
        rest = &rest[end..];
    }
    out.push_str(rest);
    out
}

fn observable_text(r: &TestResult) -> String {
    let exception = r.exception.as_ref().map(|e| {
        let message = if e.type_name == "java.lang.NullPointerException" {
            None
        } else {
            e.message.clone()
        };
        let frame = e
            .frame
            .as_ref()
            .map(|f| (f.class.clone(), f.method.clone(), f.line));
        format!(
            "{} {message:?} declared={} frame={frame:?} cause={:?}",
            e.type_name, e.declared, e.cause
        )
    });
    format!(
        "{:?} failed_at={:?} statements={:?} exception={exception:?} stdout={:?} stderr={:?}",
        r.status, r.failed_at, r.statements, r.stdout, r.stderr
    )
}

/// Instruments every source with outcome-only probes (the last rung before a file is left
/// uninstrumented), checks that no probe measures a distance, and returns the probe tables.
pub fn instrument_outcome_only(
    sources: &mut [SourceFile],
) -> Vec<javamodel::instrument::ProbeTable> {
    use javamodel::instrument::{instrument, InstrumentMode, InstrumentOptions};
    let mut tables = Vec::new();
    for s in sources {
        let tree = syntax::parse_java(&s.text, None);
        let model = javamodel::JavaModel::build(&s.text, &tree);
        let options = InstrumentOptions {
            path: Some(s.path.clone()),
            mode: InstrumentMode::OutcomeOnly,
            ..InstrumentOptions::default()
        };
        let out = instrument(&s.text, &tree, &model, &options);
        assert!(out
            .probes
            .branches
            .iter()
            .all(|b| !b.kind.measures_distance()));
        s.instrumented = Some(out.source);
        tables.push(out.probes);
    }
    tables
}
