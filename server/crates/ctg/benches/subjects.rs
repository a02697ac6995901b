//! The whole pipeline (`ctgls generate` without writing) on real code: classes of Debian's
//! Apache Commons source packages, fetched and compiled by `tests/bench/fetch-subjects.sh`
//! into `target/subjects/<subject>/` (`src/`, `classes/`, `version`). For every class and
//! budget, the emitted (verified) test class is measured independently with JaCoCo, and the
//! table gives JaCoCo's branch coverage next to what ctgls reported, the number of tests, their
//! mean length in statements, the wall time, the job's compile and search phases, the time the
//! job reserved for emission and verification, the time they took and the verification rounds; then the mean JaCoCo branch
//! coverage per budget. The classes of one subject share a `CostLedger`, as the classes of one
//! `ctgls generate` run do.
//!
//! `bash tests/bench/fetch-subjects.sh && cargo bench -p ctg --bench subjects`. Settings
//! (environment):
//! - `CTGLS_BENCH_BUDGETS` (default `10,30`): budgets in seconds, the whole pipeline's;
//! - `CTGLS_BENCH_CLASSES`: comma-separated filter on the class names (a substring matches,
//!   e.g. `Hex,FilenameUtils`);
//! - `CTGLS_BENCH_SEED` (default 1).
//!
//! JaCoCo's figure is the class's own counters plus those of its nested and anonymous classes
//! (`Class$...`), the scope ctgls reports. A class whose run fails, or that keeps no test,
//! counts 0% in the mean; the error is in the table.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use ctg::budget::CostLedger;
use ctg::job::GenerationRequest;
use ctg::pipeline::{self, ClassOutcome, PipelineOptions};
use ctg::project::{JUnitVersion, LayoutOverrides, ProjectLayout};
use ctg::verify::jacoco;
use ctg::verify::{JUnitSetup, ProjectClasses, VerifyOptions};
use jvm::{Supervisor, WorkerConfig};
use testcase::junit::JUnit;

/// (subject, its dependencies among the subjects, classes under test).
const SUBJECTS: [(&str, &[&str], [&str; 3]); 4] = [
    (
        "lang3",
        &[],
        [
            "org.apache.commons.lang3.CharUtils",
            "org.apache.commons.lang3.BooleanUtils",
            "org.apache.commons.lang3.math.Fraction",
        ],
    ),
    (
        "codec",
        &[],
        [
            "org.apache.commons.codec.binary.Hex",
            "org.apache.commons.codec.language.Soundex",
            "org.apache.commons.codec.language.Metaphone",
        ],
    ),
    (
        "io",
        &[],
        [
            "org.apache.commons.io.FilenameUtils",
            "org.apache.commons.io.HexDump",
            "org.apache.commons.io.input.CharSequenceReader",
        ],
    ),
    (
        "collections",
        &[],
        [
            "org.apache.commons.collections4.comparators.FixedOrderComparator",
            "org.apache.commons.collections4.map.LRUMap",
            "org.apache.commons.collections4.iterators.ArrayIterator",
        ],
    ),
];

fn subjects_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../target/subjects")
}

struct Row {
    subject: &'static str,
    class: &'static str,
    budget: u64,
    /// JaCoCo branch coverage in percent (0 when the run failed).
    jacoco_percent: f64,
    cells: Result<Cells, String>,
    wall: Duration,
}

struct Cells {
    jacoco: String,
    ctgls: String,
    tests: usize,
    mean_length: f64,
    compile: Duration,
    search: Duration,
    reserve: Duration,
    emission: Duration,
    rounds: String,
}

fn percent(covered: f64, total: f64) -> f64 {
    if total == 0.0 {
        100.0
    } else {
        100.0 * covered / total
    }
}

/// A class to run: (subject, its dependencies among the subjects, class).
type Selected = (&'static str, &'static [&'static str], &'static str);

fn run_class(
    (subject, deps, class): Selected,
    budget: u64,
    seed: u64,
    supervisor: &mut Supervisor,
    costs: &CostLedger,
    junit: &Result<JUnitSetup, String>,
) -> Row {
    let started = Instant::now();
    let root = subjects_dir().join(subject);
    let classpath: Vec<PathBuf> = deps
        .iter()
        .map(|dep| subjects_dir().join(dep).join("classes"))
        .collect();
    let overrides = LayoutOverrides {
        source_roots: vec![root.join("src")],
        test_root: Some(std::env::temp_dir().join("ctgls-bench-subjects-tests")),
        classpath: classpath.clone(),
    };
    let layout = ProjectLayout::discover(&root, &overrides);
    let mut request = GenerationRequest::new(layout, class);
    request.budget = Duration::from_secs(budget);
    request.seed = seed;
    let mut options = PipelineOptions {
        junit: Some(JUnitVersion::Five),
        store: None,
        write: false,
        costs: costs.clone(),
        ..PipelineOptions::default()
    };
    // tests/bench/fetch-subjects.sh builds the subjects with `--release 11` (no build file
    // comes with them to say so), and the JaCoCo step below compiles the tests the same way.
    options.verify.release = Some(11);
    let outcome = pipeline::generate_tests(&request, &options, supervisor, &mut ());
    let wall = started.elapsed();
    let mut jacoco_percent = 0.0;
    let cells = match outcome {
        Err(error) => Err(format!("pipeline: {error}")),
        Ok(outcome) => {
            let measured = measure(&root, classpath, class, &outcome, junit);
            if let Ok((covered, total)) = measured {
                jacoco_percent = percent(f64::from(covered), f64::from(total));
            }
            Ok(cells(&outcome, measured))
        }
    };
    Row {
        subject,
        class,
        budget,
        jacoco_percent,
        cells,
        wall,
    }
}

fn cells(outcome: &ClassOutcome, measured: Result<(u32, u32), String>) -> Cells {
    let generation = &outcome.generation;
    let statements: usize = generation.tests.iter().map(|t| t.test.len()).sum();
    let mean_length = if generation.tests.is_empty() {
        0.0
    } else {
        statements as f64 / generation.tests.len() as f64
    };
    let branches = &generation.branches;
    Cells {
        jacoco: match measured {
            Ok((covered, total)) => format!(
                "{covered}/{total} ({:.1}%)",
                percent(f64::from(covered), f64::from(total))
            ),
            Err(error) => error,
        },
        ctgls: format!(
            "{}/{} ({:.1}%)",
            branches.covered,
            branches.total,
            percent(branches.covered as f64, branches.total as f64)
        ),
        tests: outcome.emission.suite.kept.len(),
        mean_length,
        compile: generation.timings.compile,
        search: generation.timings.search,
        reserve: generation.emission_reserve,
        emission: outcome.emission.time,
        rounds: match outcome.emission.suite.deadline_round {
            Some(round) => format!("{} (deadline at {round})", outcome.emission.suite.rounds),
            None => outcome.emission.suite.rounds.to_string(),
        },
    }
}

/// JaCoCo's (covered, total) branches of the class and its nested classes under the emitted
/// test class.
fn measure(
    root: &Path,
    classpath: Vec<PathBuf>,
    class: &str,
    outcome: &ClassOutcome,
    junit: &Result<JUnitSetup, String>,
) -> Result<(u32, u32), String> {
    let junit = junit.as_ref().map_err(|e| format!("no JUnit: {e}"))?;
    if outcome.emission.suite.kept.is_empty() {
        return Err("no test kept".to_string());
    }
    let top = class.split('$').next().unwrap_or(class);
    // The class's own file, compiled against the subject's classes: JaCoCo analyses what was
    // compiled, and compiling the whole subject for every measurement would be slow.
    let mut classpath = classpath;
    classpath.push(root.join("classes"));
    let project = ProjectClasses {
        sources: vec![root
            .join("src")
            .join(format!("{}.java", top.replace('.', "/")))],
        classpath,
        overlays: Default::default(),
    };
    let package = top.rsplit_once('.').map_or("", |(package, _)| package);
    let include = format!("{package}.*");
    let test_class = format!("{top}GeneratedTest");
    let measured = jacoco::measure(
        &outcome.emission.suite.source,
        &test_class,
        &project,
        junit,
        &[include.as_str()],
        &VerifyOptions::default(),
    )
    .map_err(|e| format!("JaCoCo: {}", first_line(&e.to_string())))?;
    let nested = format!("{top}$");
    let (mut covered, mut total) = (0, 0);
    for (name, coverage) in &measured.coverage.classes {
        if name == top || name.starts_with(&nested) {
            covered += coverage.branches.covered;
            total += coverage.branches.total();
        }
    }
    if !measured.coverage.classes.contains_key(top) {
        return Err(format!("JaCoCo: {top} not in the report"));
    }
    Ok((covered, total))
}

fn first_line(text: &str) -> String {
    let line = text.lines().next().unwrap_or("");
    line.chars().take(100).collect()
}

fn simple(class: &str) -> &str {
    class
        .strip_prefix("org.apache.commons.")
        .map_or(class, |rest| rest.split_once('.').map_or(rest, |(_, r)| r))
}

fn main() {
    let budgets: Vec<u64> = std::env::var("CTGLS_BENCH_BUDGETS")
        .unwrap_or_else(|_| "10,30".to_string())
        .split(',')
        .filter_map(|b| b.trim().parse().ok())
        .collect();
    let filter: Vec<String> = std::env::var("CTGLS_BENCH_CLASSES")
        .map(|v| {
            v.split(',')
                .map(|s| s.trim().to_string())
                .filter(|s| !s.is_empty())
                .collect()
        })
        .unwrap_or_default();
    let seed: u64 = std::env::var("CTGLS_BENCH_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1);

    let mut selected = Vec::new();
    for (subject, deps, classes) in SUBJECTS {
        let dir = subjects_dir().join(subject);
        if !dir.join("src").is_dir() {
            eprintln!(
                "skipped {subject}: {} missing (run tests/bench/fetch-subjects.sh)",
                dir.display()
            );
            continue;
        }
        for class in classes {
            if filter.is_empty() || filter.iter().any(|f| class.contains(f.as_str())) {
                selected.push((subject, deps, class));
            }
        }
    }
    if selected.is_empty() {
        eprintln!("no class selected");
        return;
    }

    let junit = JUnitSetup::locate(JUnit::Five, &[]).map_err(|e| e.to_string());
    let mut supervisor = match Supervisor::new(WorkerConfig::default()) {
        Ok(supervisor) => supervisor,
        Err(error) => {
            eprintln!("cannot start the worker: {error}");
            return;
        }
    };
    let mut rows = Vec::new();
    let mut ledgers: Vec<(&str, CostLedger)> = Vec::new();
    for &budget in &budgets {
        for &(subject, deps, class) in &selected {
            eprintln!("{subject} {class} {budget}s ...");
            if !ledgers.iter().any(|(s, _)| *s == subject) {
                ledgers.push((subject, CostLedger::default()));
            }
            let costs = &ledgers
                .iter()
                .find(|(s, _)| *s == subject)
                .expect("added")
                .1;
            let row = run_class(
                (subject, deps, class),
                budget,
                seed,
                &mut supervisor,
                costs,
                &junit,
            );
            eprintln!(
                "  {:.1}% JaCoCo, {:.0} s",
                row.jacoco_percent,
                row.wall.as_secs_f64()
            );
            rows.push(row);
        }
    }
    supervisor.shutdown();

    println!(
        "| subject | class | budget | JaCoCo branches | ctgls branches | tests | mean length | wall s | compile s | search s | reserve s | emission s | rounds |"
    );
    println!("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    for row in &rows {
        match &row.cells {
            Ok(c) => println!(
                "| {} | {} | {} s | {} | {} | {} | {:.1} | {:.1} | {:.1} | {:.1} | {:.1} | {:.1} | {} |",
                row.subject,
                simple(row.class),
                row.budget,
                c.jacoco,
                c.ctgls,
                c.tests,
                c.mean_length,
                row.wall.as_secs_f64(),
                c.compile.as_secs_f64(),
                c.search.as_secs_f64(),
                c.reserve.as_secs_f64(),
                c.emission.as_secs_f64(),
                c.rounds,
            ),
            Err(error) => println!(
                "| {} | {} | {} s | error: {} | | | | {:.1} | | | | | |",
                row.subject,
                simple(row.class),
                row.budget,
                first_line(error),
                row.wall.as_secs_f64()
            ),
        }
    }
    println!();
    for &budget in &budgets {
        let of_budget: Vec<&Row> = rows.iter().filter(|r| r.budget == budget).collect();
        let mean = of_budget.iter().map(|r| r.jacoco_percent).sum::<f64>() / of_budget.len() as f64;
        println!(
            "mean JaCoCo branch coverage at {budget} s: {mean:.1}% over {} classes",
            of_budget.len()
        );
    }
}
