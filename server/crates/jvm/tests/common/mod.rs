//! Shared helpers of the integration tests: a supervisor on a shared worker cache, fixtures and
//! statement builders.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::time::Duration;

use jvm::*;

pub fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

/// One worker cache for every test (the first test to need it compiles it; racing is safe).
pub fn config() -> WorkerConfig {
    WorkerConfig {
        cache_dir: Some(std::env::temp_dir().join("ctgls-jvm-tests-cache")),
        heap_mb: 128,
        ..WorkerConfig::default()
    }
}

pub fn supervisor() -> Supervisor {
    Supervisor::new(config()).expect("JDK 11+ and a buildable worker")
}

/// Every `.java` file of a fixture project (except `*.instrumented.java`), paths relative to it.
pub fn project(name: &str) -> Vec<SourceFile> {
    let root = fixtures().join(name);
    let mut out = Vec::new();
    let mut stack = vec![root.clone()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            if p.is_dir() {
                stack.push(p);
            } else if name.ends_with(".java") && !name.ends_with(".instrumented.java") {
                out.push(SourceFile {
                    path: p
                        .strip_prefix(&root)
                        .unwrap()
                        .to_string_lossy()
                        .into_owned(),
                    text: std::fs::read_to_string(&p).unwrap(),
                    instrumented: None,
                });
            }
        }
    }
    out.sort_by(|a, b| a.path.cmp(&b.path));
    out
}

pub fn compile_project(sup: &mut Supervisor, name: &str) -> UnitId {
    let result = sup
        .compile(&CompileRequest {
            sources: project(name),
            ..CompileRequest::default()
        })
        .expect("compile request");
    assert!(
        result.unit.is_some(),
        "fixture {name} must compile: {:#?}",
        result.diagnostics
    );
    result.unit.unwrap()
}

/// A source file as written (not instrumented).
pub fn source(path: &str, text: &str) -> SourceFile {
    SourceFile {
        path: path.into(),
        text: text.into(),
        instrumented: None,
    }
}

pub fn int(v: i32) -> Statement {
    Statement::Value(Literal::Int(v))
}

pub fn string(v: &str) -> Statement {
    Statement::Value(Literal::String(v.into()))
}

pub fn new(class: &str, params: &[&str], args: &[usize]) -> Statement {
    Statement::New {
        class: class.into(),
        params: params.iter().map(|s| s.to_string()).collect(),
        args: args.to_vec(),
    }
}

pub fn call(
    class: &str,
    method: &str,
    params: &[&str],
    receiver: usize,
    args: &[usize],
) -> Statement {
    Statement::Call {
        class: class.into(),
        method: method.into(),
        params: params.iter().map(|s| s.to_string()).collect(),
        receiver: Some(receiver),
        args: args.to_vec(),
    }
}

pub fn call_static(class: &str, method: &str, params: &[&str], args: &[usize]) -> Statement {
    Statement::Call {
        class: class.into(),
        method: method.into(),
        params: params.iter().map(|s| s.to_string()).collect(),
        receiver: None,
        args: args.to_vec(),
    }
}

pub fn test(statements: Vec<Statement>) -> TestCase {
    TestCase { statements }
}

pub fn options(timeout_ms: u64) -> ExecuteOptions {
    ExecuteOptions {
        timeout_per_test: Duration::from_millis(timeout_ms),
        ..ExecuteOptions::default()
    }
}

pub fn finished(outcome: ExecutionOutcome) -> Vec<TestResult> {
    match outcome {
        ExecutionOutcome::Finished(r) => r,
        other => panic!("expected Finished, got {other:#?}"),
    }
}

pub fn value(r: &TestResult, statement: usize) -> &Observation {
    match &r.statements[statement] {
        StatementResult::Value(o) => o,
        StatementResult::Void => panic!("statement {statement} is void"),
    }
}

pub fn int_value(r: &TestResult, statement: usize) -> i64 {
    match value(r, statement).value {
        Some(ObservedValue::Integer(i)) => i,
        ref other => panic!("statement {statement}: expected an integer, got {other:?}"),
    }
}

/// The text statement `statement` produced, which must be valid Unicode.
pub fn text_value(r: &TestResult, statement: usize) -> String {
    match java_text(r, statement).as_str() {
        Some(s) => s.to_string(),
        None => panic!("statement {statement}: text that is not Unicode"),
    }
}

/// The text (a String or char) statement `statement` produced, exactly.
pub fn java_text(r: &TestResult, statement: usize) -> JavaText {
    match &value(r, statement).value {
        Some(ObservedValue::Text(s)) => s.clone(),
        other => panic!("statement {statement}: expected text, got {other:?}"),
    }
}

/// True while any process of process group `pgid` exists (scans /proc).
pub fn group_alive(pgid: u32) -> bool {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return false;
    };
    dir.filter_map(Result::ok).any(|e| {
        let Ok(stat) = std::fs::read_to_string(e.path().join("stat")) else {
            return false;
        };
        // Fields after the parenthesised command: state ppid pgrp ...
        let Some(rest) = stat.rsplit(')').next() else {
            return false;
        };
        let fields: Vec<&str> = rest.split_whitespace().collect();
        fields.get(2).and_then(|g| g.parse::<u32>().ok()) == Some(pgid) && fields[0] != "Z"
    })
}

/// Waits briefly for a process group to disappear.
pub fn group_gone(pgid: u32) -> bool {
    for _ in 0..100 {
        if !group_alive(pgid) {
            return true;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    false
}

/// The processes whose command line is `sleep <seconds>` (zombies have none).
pub fn sleepers(seconds: &str) -> Vec<String> {
    let wanted = format!("sleep\0{seconds}\0");
    std::fs::read_dir("/proc")
        .unwrap()
        .filter_map(Result::ok)
        .filter(|e| {
            std::fs::read(e.path().join("cmdline"))
                .is_ok_and(|c| String::from_utf8_lossy(&c) == wanted)
        })
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect()
}

/// Waits up to 5 s for the `sleep <seconds>` processes to go (SIGKILL takes effect when a
/// process is next scheduled), then kills those left, so that no test leaves one behind.
pub fn sleepers_gone(seconds: &str) -> bool {
    let until = std::time::Instant::now() + Duration::from_secs(5);
    while !sleepers(seconds).is_empty() && std::time::Instant::now() < until {
        std::thread::sleep(Duration::from_millis(20));
    }
    let left = sleepers(seconds);
    for pid in &left {
        let _ = std::process::Command::new("kill")
            .args(["-KILL", pid])
            .status();
    }
    left.is_empty()
}
