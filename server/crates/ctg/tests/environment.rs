//! Tests that need the environment are never the job's tests, and the goals only they reach
//! are reported with what they needed (docs/emission.md, "Tests that need the environment"),
//! against the real worker, instrumentation and sandbox.
//!
//! Fixture `tests/fixtures/job/environment`: `env.Exporter`, whose `export` writes a file at an
//! absolute path outside any project and swallows the refusal, `save` writes a relative path,
//! `ping` connects to a TCP port and swallows the refusal, and `twice` needs nothing.

use std::path::{Path, PathBuf};
use std::time::Duration;

use ctg::job::{generate, GenerationRequest, GenerationResult};
use ctg::project::{LayoutOverrides, ProjectLayout};
use jvm::{EnvironmentKind, Supervisor, WorkerConfig};

const VICTIM: &str = "/tmp/ctgls-refusal-victim.txt";

fn supervisor(security_manager: bool) -> Supervisor {
    Supervisor::new(WorkerConfig {
        cache_dir: Some(std::env::temp_dir().join("ctgls-jvm-tests-cache")),
        heap_mb: 256,
        block_system_exit: security_manager,
        ..WorkerConfig::default()
    })
    .expect("JDK 11+ and a buildable worker")
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/job/environment")
}

fn run(sup: &mut Supervisor) -> GenerationResult {
    let layout = ProjectLayout::discover(&root(), &LayoutOverrides::default());
    let mut request = GenerationRequest::new(layout, "env.Exporter");
    request.budget = Duration::from_secs(20);
    request.seed = 3;
    generate(&request, sup, &mut ()).unwrap()
}

fn line_of(text: &str) -> u32 {
    let source = std::fs::read_to_string(root().join("src/env/Exporter.java")).unwrap();
    source
        .lines()
        .position(|l| l.contains(text))
        .map(|i| i as u32 + 1)
        .unwrap()
}

/// What every run must show: no final test needs the environment, `twice` and the early
/// return of `export` are covered, and the write at an absolute path is reported at its line
/// with the goals only it reached.
fn check_common(result: &GenerationResult, sandboxed: bool) {
    for test in &result.tests {
        assert!(
            test.result.environment.is_empty(),
            "a final test needs the environment: {}\n{:#?}",
            test.test,
            test.result.environment
        );
        let message = test
            .result
            .exception
            .as_ref()
            .and_then(|e| e.message.as_ref())
            .map(|m| m.to_string_lossy().into_owned())
            .unwrap_or_default();
        assert!(!message.contains("Permission denied"), "{message}");
    }
    let early = line_of("return false;");
    assert!(
        result.lines.covered.contains(&early),
        "export(n < 0) needs nothing: {:?}\n{} tests, stopped by {:?}, {:?}, {:?}\nwarnings {:#?}",
        result.lines,
        result.tests.len(),
        result.stop_reason,
        result.minimisation,
        result.timings,
        result.warnings
    );
    assert!(result.lines.covered.contains(&line_of("return n * 2;")));
    if !sandboxed {
        return;
    }
    let export = result
        .environment
        .iter()
        .find(|d| d.need.target == VICTIM)
        .unwrap_or_else(|| panic!("{:#?}", result.environment));
    assert_eq!(export.need.kind, EnvironmentKind::File);
    assert_eq!(export.need.action, "writes");
    assert!(export.need.refused, "{export:?}");
    assert_eq!(export.need.line, Some(line_of("new FileOutputStream")));
    assert_eq!(export.member.as_deref(), Some("env.Exporter#export(int)"));
    // The catch clause was entered only by runs whose write was refused.
    assert!(!export.goals.is_empty(), "{export:?}");
    assert!(export.message().contains(VICTIM), "{}", export.message());
    assert!(
        !Path::new(VICTIM).exists(),
        "the sandbox kept the write out"
    );
}

#[test]
fn refusals_swallowed_by_instrumented_code_are_seen_without_the_security_manager() {
    let mut sup = supervisor(false);
    let result = run(&mut sup);
    let sandbox = sup.sandbox().unwrap();
    check_common(&result, sandbox.filesystem);
    if sandbox.network_isolated() {
        let ping = result
            .environment
            .iter()
            .find(|d| d.need.kind == EnvironmentKind::Network)
            .unwrap_or_else(|| panic!("{:#?}", result.environment));
        assert!(ping.need.refused);
        assert_eq!(ping.member.as_deref(), Some("env.Exporter#ping()"));
    }
}

#[test]
fn with_the_security_manager_relative_writes_and_connections_are_named() {
    let mut sup = supervisor(true);
    let info = sup.start().unwrap();
    let result = run(&mut sup);
    let sandbox = sup.sandbox().unwrap();
    check_common(&result, sandbox.filesystem);
    if !info.exit_blocking {
        eprintln!("this JDK installs no security manager");
        return;
    }
    let described: Vec<String> = result
        .environment
        .iter()
        .map(|d| d.need.describe())
        .collect();
    for expected in [
        "writes exporter-cache.txt (relative to the working directory)",
        "connects to 127.0.0.1:9",
    ] {
        assert!(
            described.iter().any(|d| d == expected),
            "{expected:?} in {described:#?}"
        );
    }
    let save = result
        .environment
        .iter()
        .find(|d| d.need.target.starts_with("exporter-cache.txt"))
        .unwrap();
    assert_eq!(save.member.as_deref(), Some("env.Exporter#save(int)"));
    assert_eq!(save.need.line, Some(line_of("new FileWriter")));
}
