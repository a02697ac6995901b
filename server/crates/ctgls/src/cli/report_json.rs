//! What `ctgls generate` prints and writes at the end: the summary table on stdout and the
//! `--report` JSON (`docs/report.md`): per class, and for project mode the project's totals.

use std::time::Duration;

use ctg::job::ClassCoverage;
use ctg::pipeline::{self, ClassOutcome, PipelineError, Verification};
use ctg::project::ProjectLayout;
use serde_json::{json, Value};

use crate::cli::generate_args::GenerateArgs;

/// The JSON report's schema version (`docs/report.md`).
pub const REPORT_SCHEMA: u32 = 1;

/// One class's run.
pub struct Row {
    pub class: String,
    /// The callee of a class-integration run (`--callee`, or a pair of `--integration`).
    pub callee: Option<String>,
    pub outcome: Result<ClassOutcome, PipelineError>,
    /// The budget it ran with (its share plus time handed on).
    pub budget: Duration,
    /// The project classes it takes as input, whose stored tests seed its search (project
    /// mode; `warm_start.seeded_objects` says how many objects they gave).
    pub uses: Vec<String>,
}

/// What project mode decided, for the report's `project` object.
pub struct ProjectFacts {
    pub allocation: &'static str,
    pub total_budget: Duration,
    pub jobs: usize,
    pub shard: Option<String>,
    pub order: Vec<String>,
    pub cycles: Vec<Vec<String>>,
    /// Classes not run, with why.
    pub skipped: Vec<(String, String)>,
    pub wall: Duration,
    /// `--integration`: the pairs chosen and left out.
    pub integration: Option<IntegrationFacts>,
}

/// What project mode chose for class-integration tests (`ctgproject::pairs`).
pub struct IntegrationFacts {
    /// The time the chosen pairs share.
    pub total: Duration,
    /// Caller, callee and coupled branches of each chosen pair, most coupled first.
    pub pairs: Vec<(String, String, usize)>,
    /// Caller, callee and why of each pair left out.
    pub left_out: Vec<(String, String, String)>,
}

fn percent(covered: usize, total: usize) -> String {
    if total == 0 {
        "-".to_string()
    } else {
        format!("{:.0}%", 100.0 * covered as f64 / total as f64)
    }
}

/// The table printed at the end: one row per class.
pub fn summary_table(rows: &[Row]) -> String {
    let table = summary_columns(rows);
    // The mutation column only when some class was analysed (not `--no-mutation`).
    let analysed = rows
        .iter()
        .any(|row| matches!(&row.outcome, Ok(o) if o.emission.mutation.is_some()));
    if !analysed {
        return table;
    }
    let cells: Vec<String> = std::iter::once("mutation".to_string())
        .chain(rows.iter().map(|row| match &row.outcome {
            Ok(outcome) => mutation_cell(outcome),
            Err(_) => String::new(),
        }))
        .collect();
    let width = cells.iter().map(|c| c.chars().count()).max().unwrap_or(0);
    let longest = table.lines().map(|l| l.chars().count()).max().unwrap_or(0);
    let mut out = String::new();
    for (line, cell) in table.lines().zip(&cells) {
        let pad = longest - line.chars().count();
        out.push_str(&format!("{line}{}  {cell:>width$}\n", " ".repeat(pad)));
    }
    out
}

fn summary_columns(rows: &[Row]) -> String {
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
    for Row {
        class,
        callee,
        outcome,
        ..
    } in rows
    {
        let class = match callee {
            Some(callee) => &ctgproject::pairs::label(class, callee),
            None => class,
        };
        lines.push(match outcome {
            Ok(outcome) => {
                let g = &outcome.generation;
                [
                    class.to_string(),
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
                class.to_string(),
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
pub fn report_json(
    args: &GenerateArgs,
    layout: &ProjectLayout,
    rows: &[Row],
    classpath: Value,
    warnings: &[String],
    project: Option<&ProjectFacts>,
) -> Value {
    let classes: Vec<Value> = rows
        .iter()
        .map(|row| {
            let mut value = match &row.outcome {
                Ok(outcome) => class_json(outcome, layout),
                Err(error) => json!({
                    "class": row.class,
                    "status": "error",
                    "error": error.to_string(),
                }),
            };
            if let (Some(callee), None) = (&row.callee, value.get("callee")) {
                value["callee"] = json!(callee);
            }
            value["budget_seconds"] = json!(row.budget.as_secs_f64());
            value["uses"] = json!(row.uses);
            value
        })
        .collect();
    let mut report = json!({
        "schema": REPORT_SCHEMA,
        "ctgls": env!("CARGO_PKG_VERSION"),
        "budget_seconds": args.budget.as_secs_f64(),
        "seed": args.seed,
        "max_executions": args.max_executions,
        "algorithm": pipeline::algorithm_name(args.algorithm),
        "classpath": classpath,
        "warnings": warnings,
        "classes": classes,
    });
    if let Some(facts) = project {
        let skipped: Vec<Value> = facts
            .skipped
            .iter()
            .map(|(class, reason)| json!({ "class": class, "reason": reason }))
            .collect();
        let mut project = json!({
            "allocation": facts.allocation,
            "total_budget_seconds": facts.total_budget.as_secs_f64(),
            "jobs": facts.jobs,
            "shard": facts.shard,
            "order": facts.order,
            "cycles": facts.cycles,
            "skipped": skipped,
            "wall_seconds": facts.wall.as_secs_f64(),
        });
        if let Some(integration) = &facts.integration {
            project["integration"] = json!({
                "budget_seconds": integration.total.as_secs_f64(),
                "pairs": integration.pairs.iter().map(|(caller, callee, coupled)| json!({
                    "caller": caller, "callee": callee, "coupled_branches": coupled,
                })).collect::<Vec<_>>(),
                "left_out": integration.left_out.iter().map(|(caller, callee, why)| json!({
                    "caller": caller, "callee": callee, "reason": why,
                })).collect::<Vec<_>>(),
            });
        }
        add_totals(&mut project, &report["classes"]);
        report["project"] = project;
    }
    report
}

/// The project's totals (`docs/report.md`, "project"), summed over the classes' entries of a
/// report: also how `ctgls merge` recomputes them for joined shards.
pub fn add_totals(project: &mut Value, classes: &Value) {
    let all = classes.as_array().map(Vec::as_slice).unwrap_or(&[]);
    // Integration entries test classes the unit entries already count: their pairs are
    // totalled apart.
    let (integration, classes): (Vec<Value>, Vec<Value>) =
        all.iter().cloned().partition(|c| c.get("callee").is_some());
    let classes = classes.as_slice();
    if !integration.is_empty() {
        let sum = |key: &str| -> u64 {
            integration
                .iter()
                .filter_map(|c| c["coupled_branches"][key].as_u64())
                .sum()
        };
        project["integration_runs"] = json!(integration.len());
        project["coupled_branches"] = json!({ "covered": sum("covered"), "total": sum("total") });
    }
    let sum = |f: &dyn Fn(&Value) -> Option<u64>| -> u64 { classes.iter().filter_map(f).sum() };
    let count = |status: &str| classes.iter().filter(|c| c["status"] == status).count();
    project["classes_run"] = json!(classes.len());
    project["classes_ok"] = json!(count("ok"));
    project["classes_failed"] = json!(classes.len() - count("ok"));
    project["branches"] = json!({
        "covered": sum(&|c| c["branches"]["covered"].as_u64()),
        "total": sum(&|c| c["branches"]["total"].as_u64()),
    });
    project["lines"] = json!({
        "covered": sum(&|c| c["lines"]["covered"].as_u64()),
        "total": sum(&|c| c["lines"]["total"].as_u64()),
    });
    project["tests_written"] = json!(sum(&|c| c["tests_written"].as_u64()));
    // Every entry's, as `--fail-on undeclared-exception` gates on them all.
    project["undeclared_exceptions"] = json!(all
        .iter()
        .filter_map(|c| c["undeclared_exceptions"].as_array())
        .map(|a| a.iter().filter(|e| e["thrown_explicitly"] == false).count() as u64)
        .sum::<u64>());
    project["executions"] = json!(sum(&|c| c["executions"].as_u64()));
    project["class_seconds"] = json!(all
        .iter()
        .filter_map(|c| c["wall_seconds"].as_f64())
        .sum::<f64>());
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
        "warm_start": {
            "offered": g.warm_start.offered,
            "kept": g.warm_start.kept,
            "seeded_objects": g.warm_start.seeded_objects,
        },
        "warnings": g.warnings.iter().chain(&outcome.store_warnings).collect::<Vec<_>>(),
    });
    if let (Some(entry), Value::Object(run)) = (entry.as_object_mut(), run) {
        entry.extend(run);
    }
    if let Some(entry) = entry.as_object_mut() {
        entry.insert("mutation".into(), mutation_json(e.mutation.as_ref()));
    }
    if let (Some(entry), Some(coupled)) = (entry.as_object_mut(), &g.coupled) {
        entry.extend(coupled_json(coupled));
    }
    entry
}

/// A class's `mutation` (`docs/report.md`): the mutation score of the written tests, or null
/// when the analysis did not run.
fn mutation_json(score: Option<&ctg::mutation::MutationScore>) -> Value {
    let Some(s) = score else {
        return Value::Null;
    };
    json!({
        "score": s.score(),
        "killed": s.killed,
        "reached": s.reached,
        "timed_out": s.timed_out,
        "mutants": s.mutants,
        "not_analysed": s.not_analysed,
        "score_all_assertions": s.score_all_assertions(),
        "killed_all_assertions": s.killed_all_assertions,
        "assertions_per_test": s.assertions_per_test,
        "assertions_per_test_all": s.assertions_per_test_all,
        "seconds": s.time.as_secs_f64(),
        "survived": s.survived.iter().map(|(line, operator, description)| json!({
            "line": line,
            "operator": operator,
            "description": description,
        })).collect::<Vec<_>>(),
    })
}

/// The `mutation` cell of the summary table: `0.90 (52/58)`, `-` when not analysed.
fn mutation_cell(outcome: &ClassOutcome) -> String {
    match &outcome.emission.mutation {
        Some(s) => format!("{:.2} ({}/{})", s.score(), s.killed, s.reached),
        None => "-".to_string(),
    }
}

/// An integration run's coupled branches (`docs/report.md`, "Class-integration tests").
fn coupled_json(coupled: &ctg::job::CoupledCoverage) -> serde_json::Map<String, Value> {
    let pair = |p: &ctg::job::CoupledPairCoverage| {
        json!({
            "caller_branch": p.caller_branch,
            "callee_branch": p.callee_branch,
            "call_site_lines": p.call_sites,
        })
    };
    let mut out = serde_json::Map::new();
    out.insert("caller".into(), json!(coupled.caller));
    out.insert("callee".into(), json!(coupled.callee));
    out.insert(
        "coupled_branches".into(),
        json!({ "covered": coupled.covered(), "total": coupled.total() }),
    );
    out.insert(
        "uncovered_coupled_branches".into(),
        Value::Array(
            coupled
                .pairs
                .iter()
                .filter(|p| p.covered_by.is_none())
                .map(pair)
                .collect(),
        ),
    );
    out.insert("covering_methods".into(), json!(coupled.covering_methods));
    out
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
                crate::printed_tests::test_methods(&suite.source)
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
    let mut entry = json!({
        "class": coverage.class,
        "branches": { "covered": coverage.branches.covered, "total": coverage.branches.total },
        "lines": { "covered": coverage.lines.covered.len(), "total": coverage.lines.total() },
        "covered_branches": covered,
        "uncovered_branches": uncovered,
    });
    if let (Some(entry), Some(coupled)) = (entry.as_object_mut(), &coverage.coupled) {
        entry.insert(
            "coupled_branches".into(),
            json!({ "covered": coupled.covered(), "total": coupled.total() }),
        );
    }
    entry
}
