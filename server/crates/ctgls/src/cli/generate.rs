//! `ctgls generate`: tests for classes of a project, from the command line. For each class the
//! whole pipeline runs (search, minimisation, verification with the real JUnit, writing
//! `<Class>GeneratedTest.java`); stderr shows progress, stdout a summary table, and `--report`
//! writes the figures as JSON (schema in `docs/report.md`).

use std::io::{IsTerminal, Write as _};
use std::process::ExitCode;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use ctg::job::{ClassCoverage, GenerationObserver, GenerationRequest, Phase};
use ctg::levels::CompileLevels;
use ctg::pipeline::{self, ClassOutcome, PipelineError, PipelineOptions, Verification};
use ctg::project::{LayoutOverrides, ProjectLayout};
use ctg::store::Store;
use ctg::verify::VerifyOptions;
use jvm::{Supervisor, Training, WorkerConfig};
use search::{Criterion, Progress};
use serde_json::{json, Value};

use crate::cli::generate_args::GenerateArgs;

/// The JSON report's schema version (`docs/report.md`).
const REPORT_SCHEMA: u32 = 1;

pub fn run(args: GenerateArgs) -> ExitCode {
    if !args.project.is_dir() {
        eprintln!(
            "ctgls: the project directory {} does not exist",
            args.project.display()
        );
        return ExitCode::FAILURE;
    }
    let overrides = LayoutOverrides {
        source_roots: args.source_roots.clone(),
        test_root: args.out.clone(),
        classpath: args.classpath.clone(),
    };
    let mut layout = ProjectLayout::discover(&args.project, &overrides);
    let classpath = resolve_classpath(&mut layout, &args);
    if let Some(warning) = jvm::pass_warning(&args.pass_environment) {
        eprintln!("ctgls: warning: {warning}");
    }
    let mut supervisor = match Supervisor::new(WorkerConfig {
        java_home: args.java_home.clone(),
        pass_environment: args.pass_environment.clone(),
        ..WorkerConfig::default()
    }) {
        Ok(supervisor) => supervisor,
        Err(error) => {
            eprintln!("ctgls: cannot run Java code: {error}");
            return ExitCode::FAILURE;
        }
    };
    let options = PipelineOptions {
        junit: args.junit,
        store: Some(Store::open(&layout.root)),
        write: true,
        timestamp_ms: SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |since| {
                u64::try_from(since.as_millis()).unwrap_or(u64::MAX)
            }),
        // Verification runs the project's code too: under the worker's sandbox and bounds.
        verify: VerifyOptions {
            limits: supervisor.config().execution_limits(),
            archives: supervisor.shared_archives().clone(),
            harness_cache: supervisor.config().cache_dir.clone(),
            ..VerifyOptions::default()
        },
        ..PipelineOptions::default()
    };
    // Once for the project, not per class: the levels its build declares that this JDK
    // compiles at another level.
    let junit = args.junit.unwrap_or_else(|| layout.junit_version());
    let levels = CompileLevels::of(&layout, supervisor.jdk(), junit);
    let warnings: Vec<String> = levels.note.iter().cloned().collect();
    for warning in &warnings {
        eprintln!("ctgls: note: {warning}");
    }

    let mut rows: Vec<(String, Result<ClassOutcome, PipelineError>)> = Vec::new();
    for class in &args.classes {
        let mut request = GenerationRequest::new(layout.clone(), class.clone());
        request.budget = args.budget;
        request.seed = args.seed;
        request.algorithm = args.algorithm;
        request.criteria = args.criteria;
        request.also_instrument = args.instrument_also.clone();
        let mut progress = ProgressLine::new(class);
        let outcome = pipeline::generate_tests(&request, &options, &mut supervisor, &mut progress);
        progress.finish(&outcome);
        rows.push((class.clone(), outcome));
    }
    print!("{}", summary_table(&rows));
    // After the results: the first run on a machine makes the archives that let every later
    // run start its JVMs faster (a few seconds, once).
    for (archive, training) in pipeline::prepare_faster_starts(&layout, &options, &mut supervisor) {
        match training {
            Training::Made => eprintln!("ctgls: made the {archive} start-up archive (once)"),
            Training::Failed(why) => {
                eprintln!("ctgls: could not make the {archive} start-up archive: {why}")
            }
            Training::Skipped => {}
        }
    }
    supervisor.shutdown();
    let report = report_json(&args, &layout, &rows, classpath, &warnings);
    if let Some(path) = &args.report {
        let text = serde_json::to_string_pretty(&report).expect("a JSON value serialises");
        if let Err(error) = std::fs::write(path, text + "\n") {
            eprintln!("ctgls: cannot write the report {}: {error}", path.display());
            return ExitCode::FAILURE;
        }
    }
    let outputs = crate::report::Outputs {
        sarif: args.sarif.clone(),
        html: args.html.clone(),
    };
    if let Err(error) = crate::report::write_from_json(report, &layout.root, &outputs) {
        eprintln!("ctgls: {error}");
        return ExitCode::FAILURE;
    }
    // A class whose tests could not be verified or written fails the command like one with no
    // results: its coverage is in the summary and the report, but it has no test to keep.
    if rows.iter().all(|(_, outcome)| {
        outcome.as_ref().is_ok_and(|o| {
            o.emission.verification.failure().is_none() && o.emission.write_error.is_none()
        })
    }) {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

/// Asks the build tool for the classpath (a line on stderr while it runs) and says on stderr
/// when it could not, so that a "cannot find symbol" later has its explanation. Returns the
/// report's `classpath` object.
fn resolve_classpath(layout: &mut ProjectLayout, args: &GenerateArgs) -> Value {
    let settings = &args.build_tool;
    let mode = if settings.offline {
        "offline"
    } else {
        "online"
    };
    let resolution =
        ctg::buildtool::resolve_into(layout, args.classpath.len(), settings, &mut |tool| {
            eprintln!("ctgls: resolving the {} classpath ({mode})...", tool.name());
        });
    let Some(resolution) = resolution else {
        return json!({
            "tool": null,
            "state": "guessed",
            "entries": layout.classpath.len(),
            "sibling_sources": 0,
            "message": null,
        });
    };
    let tool = resolution.tool.name();
    match &resolution.outcome {
        Ok(module) => {
            let origin = if resolution.cached { ", cached" } else { "" };
            eprintln!(
                "ctgls: classpath from {}{origin}: {} entries, {} source roots of other modules",
                resolution.tool.name(),
                module.classpath.len(),
                module.sibling_sources.len()
            );
            for note in &module.notes {
                eprintln!("ctgls: {note}");
            }
            json!({
                "tool": tool,
                "state": if resolution.cached { "cached" } else { "resolved" },
                "entries": module.classpath.len(),
                "sibling_sources": module.sibling_sources.len(),
                "message": (!module.notes.is_empty()).then(|| module.notes.join("; ")),
            })
        }
        Err(error) => {
            eprintln!("ctgls: {error}");
            // The POMs' declared dependencies, when Maven failed, rather than the guess.
            let (state, sibling_sources) = match &resolution.fallback {
                Some(module) => ("fallback", module.sibling_sources.len()),
                None => ("failed", 0),
            };
            json!({
                "tool": tool,
                "state": state,
                "entries": layout.classpath.len(),
                "sibling_sources": sibling_sources,
                "message": error.to_string(),
            })
        }
    }
}

/// Progress on stderr: a redrawn bar on a terminal, otherwise a line per phase and at most
/// one progress line every two seconds (so CI logs stay short).
struct ProgressLine {
    class: String,
    tty: bool,
    started: Instant,
    phase: Phase,
    last_line: Option<Instant>,
}

impl ProgressLine {
    fn new(class: &str) -> ProgressLine {
        let simple = class.rsplit('.').next().unwrap_or(class).to_string();
        ProgressLine {
            class: simple,
            tty: std::io::stderr().is_terminal(),
            started: Instant::now(),
            phase: Phase::Reading,
            last_line: None,
        }
    }

    fn emit(&mut self, text: String) {
        let mut stderr = std::io::stderr().lock();
        if self.tty {
            let _ = write!(stderr, "\r\x1b[2K{text}");
        } else {
            let _ = writeln!(stderr, "{text}");
        }
        let _ = stderr.flush();
    }

    fn finish(&mut self, outcome: &Result<ClassOutcome, PipelineError>) {
        let elapsed = self.started.elapsed().as_secs_f64();
        let text = match outcome {
            Ok(outcome) if outcome.emission.verification.failure().is_some() => format!(
                "{}: searched in {elapsed:.1}s, tests not verified",
                self.class
            ),
            Ok(outcome) => format!(
                "{}: done in {elapsed:.1}s, {} tests",
                self.class,
                outcome.emission.suite.kept.len()
            ),
            Err(_) => format!("{}: failed after {elapsed:.1}s", self.class),
        };
        self.emit(text);
        if self.tty {
            eprintln!();
        }
        if let Err(error) = outcome {
            eprintln!("ctgls: {error}");
            if let PipelineError::Generation(ctg::job::GenerationError::DoesNotCompile {
                diagnostics,
                ..
            }) = error
            {
                for diagnostic in diagnostics.iter().take(20) {
                    eprintln!("  {diagnostic}");
                }
            }
        }
        if let Ok(outcome) = outcome {
            match &outcome.emission.verification {
                Verification::WorkerOnly { reason } => {
                    eprintln!("ctgls: warning: the tests were not run with JUnit: {reason}")
                }
                Verification::Failed { reason } => eprintln!(
                    "ctgls: error: the tests could not be verified and none was written (the \
                     coverage shown is the search's): {reason}"
                ),
                Verification::JUnit => {}
            }
            if let Some(error) = &outcome.emission.write_error {
                eprintln!("ctgls: error: {error}");
            }
            for warning in outcome
                .generation
                .warnings
                .iter()
                .chain(&outcome.store_warnings)
            {
                eprintln!("ctgls: warning: {warning}");
            }
        }
    }
}

impl GenerationObserver for ProgressLine {
    fn on_phase(&mut self, phase: Phase, elapsed: Duration) {
        self.phase = phase;
        let text = format!(
            "{}: {} ({:.1}s)",
            self.class,
            phase.as_str(),
            elapsed.as_secs_f64()
        );
        self.emit(text);
    }

    fn on_progress(&mut self, progress: &Progress) {
        let now = Instant::now();
        if !self.tty
            && self
                .last_line
                .is_some_and(|last| now - last < Duration::from_secs(2))
        {
            return;
        }
        self.last_line = Some(now);
        let Some(branches) = progress
            .coverage
            .iter()
            .find(|coverage| coverage.criterion == Criterion::Branch)
        else {
            return;
        };
        let ratio = if branches.total == 0 {
            1.0
        } else {
            branches.covered as f64 / branches.total as f64
        };
        let bar = if self.tty {
            let filled = (ratio * 20.0).round() as usize;
            format!(
                " [{}{}]",
                "#".repeat(filled),
                ".".repeat(20 - filled.min(20))
            )
        } else {
            String::new()
        };
        let text = format!(
            "{}: searching{bar} {}/{} branches, {} executions, {:.1}s",
            self.class,
            branches.covered,
            branches.total,
            progress.executions,
            self.started.elapsed().as_secs_f64()
        );
        self.emit(text);
    }
}

fn percent(covered: usize, total: usize) -> String {
    if total == 0 {
        "-".to_string()
    } else {
        format!("{:.0}%", 100.0 * covered as f64 / total as f64)
    }
}

/// The table printed at the end: one row per class.
fn summary_table(rows: &[(String, Result<ClassOutcome, PipelineError>)]) -> String {
    let mut lines = vec![[
        "class".to_string(),
        "branches".to_string(),
        "lines".to_string(),
        "undeclared".to_string(),
        "environment".to_string(),
        "tests".to_string(),
        "executions".to_string(),
        "wall".to_string(),
    ]];
    for (class, outcome) in rows {
        lines.push(match outcome {
            Ok(outcome) => {
                let g = &outcome.generation;
                [
                    class.clone(),
                    format!(
                        "{}/{} {}",
                        g.branches.covered,
                        g.branches.total,
                        percent(g.branches.covered, g.branches.total)
                    ),
                    format!("{}/{}", g.lines.covered.len(), g.lines.total()),
                    g.exceptions
                        .iter()
                        .filter(|exception| !exception.thrown_explicitly)
                        .count()
                        .to_string(),
                    g.environment.len().to_string(),
                    if outcome.emission.verification.failure().is_some() {
                        "unverified".to_string()
                    } else if outcome.emission.write_error.is_some() {
                        "not written".to_string()
                    } else {
                        outcome.emission.suite.kept.len().to_string()
                    },
                    g.executions.to_string(),
                    format!("{:.1}s", outcome.wall.as_secs_f64()),
                ]
            }
            Err(_) => [
                class.clone(),
                "failed".to_string(),
                String::new(),
                String::new(),
                String::new(),
                String::new(),
                String::new(),
                String::new(),
            ],
        });
    }
    let widths: Vec<usize> = (0..8)
        .map(|column| {
            lines
                .iter()
                .map(|line| line[column].chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    let mut out = String::new();
    for line in &lines {
        let cells: Vec<String> = line
            .iter()
            .zip(&widths)
            .enumerate()
            .map(|(column, (cell, width))| {
                if column == 0 {
                    format!("{cell:<width$}")
                } else {
                    format!("{cell:>width$}")
                }
            })
            .collect();
        out.push_str(cells.join("  ").trim_end());
        out.push('\n');
    }
    out
}

/// The `--report` document (`docs/report.md`).
fn report_json(
    args: &GenerateArgs,
    layout: &ProjectLayout,
    rows: &[(String, Result<ClassOutcome, PipelineError>)],
    classpath: Value,
    warnings: &[String],
) -> Value {
    let classes: Vec<Value> = rows
        .iter()
        .map(|(class, outcome)| match outcome {
            Ok(outcome) => class_json(outcome, layout),
            Err(error) => json!({
                "class": class,
                "status": "error",
                "error": error.to_string(),
            }),
        })
        .collect();
    json!({
        "schema": REPORT_SCHEMA,
        "ctgls": env!("CARGO_PKG_VERSION"),
        "budget_seconds": args.budget.as_secs_f64(),
        "seed": args.seed,
        "algorithm": pipeline::algorithm_name(args.algorithm),
        "classpath": classpath,
        "warnings": warnings,
        "classes": classes,
    })
}

fn class_json(outcome: &ClassOutcome, layout: &ProjectLayout) -> Value {
    let g = &outcome.generation;
    let e = &outcome.emission;
    let tests = VerifiedTests::of(outcome);
    let covered: Vec<Value> = g
        .decisions
        .iter()
        .flat_map(|decision| {
            decision.outcomes.iter().filter_map(|outcome| {
                let test = outcome.covered_by?;
                Some(json!({
                    "goal": format!("{}.{}", decision.key, outcome.outcome),
                    "line": decision.line,
                    "condition": decision.condition,
                    "test": tests.name(test),
                }))
            })
        })
        .collect();
    let uncovered: Vec<Value> = g
        .decisions
        .iter()
        .flat_map(|decision| {
            decision
                .outcomes
                .iter()
                .filter(|outcome| outcome.covered_by.is_none())
                .map(move |outcome| {
                    json!({
                        "goal": format!("{}.{}", decision.key, outcome.outcome),
                        "line": decision.line,
                        "condition": decision.condition,
                        "closest_distance": outcome.closest_distance,
                    })
                })
        })
        .collect();
    let exceptions: Vec<Value> = g
        .exceptions
        .iter()
        .map(|exception| {
            json!({
                "method": exception.member,
                "exception": exception.type_name,
                "line": exception.line,
                "message": exception.message,
                "thrown_explicitly": exception.thrown_explicitly,
                "checked": g
                    .tests
                    .get(exception.test)
                    .and_then(|test| test.result.exception.as_ref())
                    .is_some_and(|thrown| thrown.checked),
                "test": tests.name(exception.test),
                "test_line": tests.line(exception.test),
                "test_code": tests.code(exception.test),
            })
        })
        .collect();
    let escapes: Vec<Value> = g
        .escapes
        .iter()
        .map(|escape| {
            json!({
                "method": escape.member,
                "exception": escape.type_name,
                "line": escape.line,
                "declared": escape.declared,
                "checked": escape.checked,
                "thrown_explicitly": escape.thrown_explicitly,
            })
        })
        .collect();
    let environment: Vec<Value> = g
        .environment
        .iter()
        .map(|dependency| {
            json!({
                "kind": dependency.need.kind.as_str(),
                "action": dependency.need.action,
                "target": dependency.need.target,
                "refused": dependency.need.refused,
                "detail": dependency.need.detail,
                "method": dependency.member,
                "line": dependency.need.line,
                "goals": dependency.goals,
            })
        })
        .collect();
    let dropped: Vec<Value> = e
        .suite
        .dropped
        .iter()
        .map(|dropped| {
            json!({
                "test": dropped.test,
                "assertion": dropped.assertion,
                "reason": format!("{:?}", dropped.reason),
            })
        })
        .collect();
    let also_instrumented: Vec<Value> = g.also_instrumented.iter().map(also_json).collect();
    let t = &g.timings;
    let mut entry = json!({
        "class": g.class,
        "status": if e.verification.failure().is_some() {
            "unverified"
        } else if e.write_error.is_some() {
            "not_written"
        } else {
            "ok"
        },
        "verification_error": e.verification.failure(),
        "write_error": e.write_error,
        "algorithm": pipeline::algorithm_name(g.algorithm),
        "seed": g.seed,
        "branches": { "covered": g.branches.covered, "total": g.branches.total },
        "lines": { "covered": g.lines.covered.len(), "total": g.lines.total() },
        "methods": { "covered": g.methods.covered, "total": g.methods.total },
        "source_file": layout
            .source_file_of(&g.class)
            .map(|file| crate::report::source::project_relative(&layout.root, &file)),
        "covered_lines": g.lines.covered,
        "uncovered_lines": g.lines.uncovered().collect::<Vec<_>>(),
        "covered_branches": covered,
        "uncovered_branches": uncovered,
        "undeclared_exceptions": exceptions,
        "escaping_exceptions": escapes,
        "needs_environment": environment,
        "nondeterministic_inputs": nondeterminism_json(outcome),
        "tests_written": if e.written.is_some() { e.suite.kept.len() } else { 0 },
        "test_file": e.written.as_ref().map(|_| e.path.display().to_string()),
        "test_source_file": e.written.as_ref().map(|_| crate::report::source::project_relative(&layout.root, &e.path)),
        "junit": match e.junit { ctg::project::JUnitVersion::Four => 4, ctg::project::JUnitVersion::Five => 5 },
        "verified_with_junit": e.verification == Verification::JUnit,
        "verification_rounds": e.suite.rounds,
        "verification_deadline_round": e.suite.deadline_round,
        "dropped": dropped,
        "perturbation": perturbation_json(&e.suite),
    });
    // Two literals: one is more than `json!`'s recursion limit allows.
    let run = json!({
        "executions": g.executions,
        "statements_executed": g.statements_executed,
        "fresh_loader_executions": g.fresh_loader_executions,
        "loader_dropped": g.loader_dropped,
        "wall_seconds": outcome.wall.as_secs_f64(),
        "phases_seconds": {
            "read": t.read.as_secs_f64(),
            "start": t.start.as_secs_f64(),
            "compile": t.compile.as_secs_f64(),
            "describe": t.describe.as_secs_f64(),
            "search": t.search.as_secs_f64(),
            "minimise": t.minimise.as_secs_f64(),
            "final_run": t.final_run.as_secs_f64(),
            "emission": e.time.as_secs_f64(),
            "emission_reserve": g.emission_reserve.as_secs_f64(),
        },
        "also_instrumented": also_instrumented,
        "warm_start": { "offered": g.warm_start.offered, "kept": g.warm_start.kept },
        "warnings": g.warnings.iter().chain(&outcome.store_warnings).collect::<Vec<_>>(),
    });
    if let (Some(entry), Value::Object(run)) = (entry.as_object_mut(), run) {
        entry.extend(run);
    }
    entry
}

/// The verified test methods of a class's written test class, by the index of the generated
/// test they were printed from: what the report names as the test that covers a branch or
/// reproduces an exception. A test verification dropped has none.
struct VerifiedTests<'a> {
    names: std::collections::HashMap<usize, &'a str>,
    methods: std::collections::HashMap<String, String>,
    source: &'a str,
}

impl<'a> VerifiedTests<'a> {
    fn of(outcome: &'a ClassOutcome) -> VerifiedTests<'a> {
        let suite = &outcome.emission.suite;
        let verified = outcome.emission.verification.failure().is_none();
        VerifiedTests {
            names: suite
                .kept_tests
                .iter()
                .zip(&suite.kept)
                .filter(|_| verified)
                .map(|(&index, name)| (index, name.as_str()))
                .collect(),
            methods: if verified {
                crate::lsp::results::test_methods(&suite.source)
            } else {
                Default::default()
            },
            source: &suite.source,
        }
    }

    fn name(&self, test: usize) -> Option<&str> {
        self.names.get(&test).copied()
    }

    /// The test method's source, annotations included.
    fn code(&self, test: usize) -> Option<&str> {
        self.methods.get(self.name(test)?).map(String::as_str)
    }

    /// The 1-based line of the test class where the method's text starts.
    fn line(&self, test: usize) -> Option<usize> {
        let at = self.source.find(self.code(test)?)?;
        Some(self.source[..at].matches('\n').count() + 1)
    }
}

/// A class's `perturbation` (`docs/report.md`): the perturbed runs verification made, what
/// they cost, and what they and the check of the JVM's defaults removed, per cause.
fn perturbation_json(suite: &ctg::verify::VerifiedSuite) -> Value {
    let removed: serde_json::Map<String, Value> = ctg::verify::removals(&suite.dropped)
        .into_iter()
        .map(|(name, removed)| {
            (
                name.to_string(),
                json!({ "tests": removed.tests, "assertions": removed.assertions }),
            )
        })
        .collect();
    json!({
        "rounds": suite.perturbed.len(),
        "runs": suite
            .perturbed
            .iter()
            .map(|stage| stage.combined.len() + stage.attribution.len())
            .sum::<usize>(),
        "seconds": suite
            .perturbed
            .iter()
            .map(|stage| stage.duration.as_secs_f64())
            .sum::<f64>(),
        "clock_shifted": suite.clock_shifted,
        "removed": removed,
    })
}

/// A class's `nondeterministic_inputs` (`docs/report.md`): the lines that read what a test does
/// not control, each with the written tests' assertions it explains.
fn nondeterminism_json(outcome: &ClassOutcome) -> Vec<Value> {
    let file = outcome.source_file.display().to_string();
    outcome
        .nondeterminism
        .iter()
        .map(|linked| {
            let input = &linked.input;
            let left_out: Vec<Value> = linked
                .left_out
                .iter()
                .map(|l| json!({ "test": l.test, "assertion": l.subject, "why": l.why }))
                .collect();
            json!({
                "file": file,
                "line": input.line,
                "method": input.member,
                "kind": input.kind.as_str(),
                "what": input.what,
                "through": input.through.as_ref().map(|(helper, line)| {
                    json!({ "method": helper, "line": line })
                }),
                "left_out": left_out,
            })
        })
        .collect()
}

/// One entry of a class's `also_instrumented` (`docs/report.md`): what the class's written tests
/// cover of another class (`--instrument-also`).
fn also_json(coverage: &ClassCoverage) -> Value {
    let goals = |covered: bool| {
        coverage.decisions.iter().flat_map(move |decision| {
            decision
                .outcomes
                .iter()
                .filter(move |outcome| outcome.covered_by.is_some() == covered)
                .map(move |outcome| (decision, format!("{}.{}", decision.key, outcome.outcome)))
        })
    };
    let covered: Vec<String> = goals(true).map(|(_, goal)| goal).collect();
    let uncovered: Vec<Value> = goals(false)
        .map(|(decision, goal)| {
            json!({
                "goal": goal,
                "line": decision.line,
                "condition": decision.condition,
            })
        })
        .collect();
    json!({
        "class": coverage.class,
        "branches": { "covered": coverage.branches.covered, "total": coverage.branches.total },
        "lines": { "covered": coverage.lines.covered.len(), "total": coverage.lines.total() },
        "covered_branches": covered,
        "uncovered_branches": uncovered,
    })
}
