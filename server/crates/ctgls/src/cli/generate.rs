//! `ctgls generate`: tests for classes of a project, from the command line. For each class the
//! whole pipeline runs (search, minimisation, verification with the real JUnit, writing
//! `<Class>GeneratedTest.java`); stderr shows progress, stdout a summary table, and `--report`
//! writes the figures as JSON (schema in `docs/report.md`). Named classes (`--class`) run one
//! after the other with `--budget` each; without `--class` the whole project runs as
//! `cli::project` plans it, on `--jobs` workers (one JVM each).

use std::process::ExitCode;
use std::sync::Mutex;
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use ctg::budget::{costs_path, CostLedger};
use ctg::job::GenerationRequest;
use ctg::levels::CompileLevels;
use ctg::pipeline::{self, PipelineOptions};
use ctg::project::{LayoutOverrides, ProjectLayout};
use ctg::store::Store;
use ctg::verify::VerifyOptions;
use ctgproject::run::{self, Assignment, Limits, Planned};
use jvm::{Supervisor, Training, WorkerConfig};
use serde_json::{json, Value};

use crate::cli::generate_args::{FailOn, GenerateArgs};
use crate::cli::progress::ProgressHub;
use crate::cli::project;
use crate::cli::report_json::{self, Row};

/// `--fail-on` met (and nothing else failed): documented in `generate --help` and the README.
const EXIT_FAIL_ON: u8 = 3;

pub fn run(args: GenerateArgs) -> ExitCode {
    let started = Instant::now();
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
    let config = WorkerConfig {
        java_home: args.java_home.clone(),
        pass_environment: args.pass_environment.clone(),
        ..WorkerConfig::default()
    };
    let store = Store::open(&layout.root);

    // Named classes run one at a time unless asked otherwise (as before project mode).
    let project_mode = args.classes.is_empty();
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    let requested = args.project_mode.jobs.or((!project_mode).then_some(1));
    let (jobs, jobs_note) = ctgproject::jobs::workers(
        requested,
        cores,
        ctgproject::jobs::available_memory_mb(),
        ctgproject::jobs::per_worker_mb(config.heap_mb, config.metaspace_mb),
        usize::MAX,
    );
    let mut project_plan = None;
    let mut pairs = Vec::new();
    let (plan, limits, uses) = if project_mode {
        match project::plan(&args, &layout, &store, jobs) {
            Ok(p) => {
                let parts = (p.plan.clone(), p.limits, p.uses.clone());
                pairs = p.pairs.clone();
                project_plan = Some(p);
                parts
            }
            Err(error) => {
                eprintln!("ctgls: {error}");
                return ExitCode::FAILURE;
            }
        }
    } else {
        let plan: Vec<Planned> = args
            .classes
            .iter()
            .map(|class| Planned {
                class: class.clone(),
                budget: args.budget,
                after: Default::default(),
            })
            .collect();
        // Each class has a budget of its own, not a share of a total: nothing is handed on
        // or taken back.
        let limits = Limits {
            unallocated: std::time::Duration::ZERO,
            maximum: args.budget,
            minimum: std::time::Duration::MAX,
        };
        (plan, limits, Default::default())
    };
    let jobs = jobs.min(plan.len().max(1));
    if let Some(note) = jobs_note.filter(|_| !args.quiet) {
        eprintln!("ctgls: note: {note}");
    }

    // One worker JVM per job.
    let mut supervisors = Vec::with_capacity(jobs);
    for _ in 0..jobs {
        match Supervisor::new(config.clone()) {
            Ok(supervisor) => supervisors.push(Mutex::new(supervisor)),
            Err(error) => {
                eprintln!("ctgls: cannot run Java code: {error}");
                return ExitCode::FAILURE;
            }
        }
    }
    let first = supervisors[0].get_mut().expect("not shared yet");
    let options = PipelineOptions {
        junit: args.junit,
        // What emission cost for this project on this machine in earlier runs, so that the
        // first class's search already keeps enough of the budget for it.
        costs: CostLedger::persistent(costs_path(first.cache_dir(), &layout.root)),
        store: Some(store.clone()),
        write: true,
        timestamp_ms: SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |since| {
                u64::try_from(since.as_millis()).unwrap_or(u64::MAX)
            }),
        // Verification runs the project's code too: under the worker's sandbox and bounds.
        verify: VerifyOptions {
            limits: first.config().execution_limits(),
            archives: first.shared_archives().clone(),
            harness_cache: first.config().cache_dir.clone(),
            ..VerifyOptions::default()
        },
        mutation: if args.mutation {
            ctg::mutation::MutationOptions::enabled()
        } else {
            ctg::mutation::MutationOptions::default()
        },
        ..PipelineOptions::default()
    };
    // Once for the project, not per class: the levels its build declares that this JDK
    // compiles at another level.
    let junit = args.junit.unwrap_or_else(|| layout.junit_version());
    let levels = CompileLevels::of(&layout, first.jdk(), junit);
    let warnings: Vec<String> = levels.note.iter().cloned().collect();
    for warning in &warnings {
        eprintln!("ctgls: note: {warning}");
    }

    let progress = ProgressHub::new(plan.len() + pairs.len(), args.quiet);
    // One class's run: its unit tests, or its integration tests with `callee`.
    let run_one = |class: &str, callee: Option<&str>, assignment: &Assignment| {
        let class_started = Instant::now();
        let mut request = GenerationRequest::new(layout.clone(), class.to_string());
        request.budget = assignment.budget;
        request.seed = args.seed;
        request.max_executions = args.max_executions;
        request.algorithm = args.algorithm;
        request.criteria = args.criteria;
        request.also_instrument = args.instrument_also.clone();
        request.callee = callee.map(str::to_string);
        // Section 3.2: what the tests of the classes it uses built (in this run when they
        // finished before it, else in an earlier one) seeds its search.
        let used: Vec<String> = uses.get(class).into_iter().flatten().cloned().collect();
        request.seeded_objects_from = ctgproject::seeding::objects_of(&store, used.clone());
        let mut line = progress.class(&assignment.class);
        let outcome = {
            let mut supervisor = supervisors[assignment.worker]
                .lock()
                .expect("a worker's supervisor is used by that worker only");
            pipeline::generate_tests(&request, &options, &mut supervisor, &mut line)
        };
        line.finish(&outcome);
        let row = Row {
            class: class.to_string(),
            callee: request.callee.clone(),
            outcome,
            budget: assignment.budget,
            uses: used,
        };
        (row, class_started.elapsed())
    };
    let run_class =
        |assignment: &Assignment| run_one(&assignment.class, args.callee.as_deref(), assignment);
    let maximum = limits.maximum;
    let mut rows: Vec<Row> = run::run_plan(&plan, jobs, limits, &run_class)
        .into_iter()
        .map(|(_, row)| row)
        .collect();
    // `--integration`: the chosen pairs after the unit runs (no pair waits for another; their
    // time is their own share, not what the classes left).
    if !pairs.is_empty() {
        let by_label: std::collections::BTreeMap<String, (&str, &str)> = pairs
            .iter()
            .map(|p| {
                let label = ctgproject::pairs::label(&p.caller, &p.callee);
                (label, (p.caller.as_str(), p.callee.as_str()))
            })
            .collect();
        let pair_plan: Vec<Planned> = pairs
            .iter()
            .map(|p| Planned {
                class: ctgproject::pairs::label(&p.caller, &p.callee),
                budget: p.budget,
                after: Default::default(),
            })
            .collect();
        let run_pair = |assignment: &Assignment| {
            let (caller, callee) = by_label[&assignment.class];
            run_one(caller, Some(callee), assignment)
        };
        let jobs = jobs.min(pair_plan.len());
        rows.extend(
            run::run_plan(
                &pair_plan,
                jobs,
                // Each pair keeps its own share: nothing handed on or taken back.
                Limits {
                    unallocated: std::time::Duration::ZERO,
                    maximum,
                    minimum: std::time::Duration::MAX,
                },
                &run_pair,
            )
            .into_iter()
            .map(|(_, row)| row),
        );
    }
    progress.finish();
    print!("{}", report_json::summary_table(&rows));
    // After the results: the first run on a machine makes the archives that let every later
    // run start its JVMs faster (a few seconds, once).
    let mut supervisors: Vec<Supervisor> = supervisors
        .into_iter()
        .map(|s| s.into_inner().expect("workers finished"))
        .collect();
    for (archive, training) in
        pipeline::prepare_faster_starts(&layout, &options, &mut supervisors[0])
    {
        match training {
            Training::Made => eprintln!("ctgls: made the {archive} start-up archive (once)"),
            Training::Failed(why) => {
                eprintln!("ctgls: could not make the {archive} start-up archive: {why}")
            }
            Training::Skipped => {}
        }
    }
    for supervisor in &mut supervisors {
        supervisor.shutdown();
    }
    let facts = project_plan.map(|p| report_json::ProjectFacts {
        wall: started.elapsed(),
        ..p.facts
    });
    let report =
        report_json::report_json(&args, &layout, &rows, classpath, &warnings, facts.as_ref());
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
    exit_code(&rows, &args.fail_on)
}

/// 0, 1 (a class failed: its coverage is in the summary and the report, but it has no test to
/// keep) or 3 (`--fail-on` met).
fn exit_code(rows: &[Row], fail_on: &[FailOn]) -> ExitCode {
    let all_written = rows.iter().all(|row| {
        row.outcome.as_ref().is_ok_and(|o| {
            o.emission.verification.failure().is_none() && o.emission.write_error.is_none()
        })
    });
    if !all_written {
        return ExitCode::FAILURE;
    }
    let undeclared = rows
        .iter()
        .filter_map(|row| row.outcome.as_ref().ok())
        .flat_map(|o| &o.generation.exceptions)
        .filter(|exception| !exception.thrown_explicitly)
        .count();
    if fail_on.contains(&FailOn::UndeclaredException) && undeclared > 0 {
        eprintln!("ctgls: {undeclared} undeclared exceptions (--fail-on undeclared-exception)");
        return ExitCode::from(EXIT_FAIL_ON);
    }
    ExitCode::SUCCESS
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
