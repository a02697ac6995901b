//! The search on the real worker: the four algorithms on fixture classes of varied difficulty,
//! several seeds each, one run per (class, algorithm, seed) with a 30 s search budget. Prints
//! branch coverage at 1, 5, 10 and 30 s (sampled through the job's progress observer), the time
//! to the run's final coverage, executions per second, the mean archived test length and the
//! mean aDynaMOSA performance score of the archived tests (Grano et al., "Testing with Fewer Resources", Equation 1).
//!
//! `cargo bench -p ctg --bench search`. Settings (environment):
//! - `CTG_BENCH_SEEDS` (default 5): seeds per class and algorithm;
//! - `CTG_BENCH_SECONDS` (default 30): search budget per run;
//! - `CTG_BENCH_CLASSES`, `CTG_BENCH_ALGORITHMS`: comma-separated filters
//!   (`job.Parser`; `dynamosa,adynamosa,mosa,wholesuite`);
//! - `CTG_BENCH_MAX_MINUTES` (default 25): no run starts after this; the rows say so.
//!
//! A run stops early once every static goal is covered (the exception criterion is off), so
//! the full bench (6 classes, 4 algorithms, 5 seeds) could take 120 × 30 s but takes about ten
//! minutes: only the runs that do not reach full coverage use their whole budget. Minimisation
//! is off: it would make the algorithms' tests alike, and the lengths here are what each search
//! kept.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use ctg::budget::EmissionReserve;
use ctg::job::{generate, GenerationObserver, GenerationRequest, GenerationResult};
use ctg::project::{LayoutOverrides, ProjectLayout};
use jvm::{Supervisor, WorkerConfig};
use search::{Algorithm, Criterion, PerformanceProxies, ProductionProxies, Progress};

const CLASSES: [(&str, &str); 6] = [
    ("job.Triangle", "nested numeric conditions"),
    ("job.Parser", "string matching (characters)"),
    ("job.Inventory", "collections (map, list)"),
    ("job.BoundedStack", "object state"),
    ("job.CombinationLock", "object state, calls in sequence"),
    ("job.Calendar", "arithmetic, loop, exceptions"),
];

const ALGORITHMS: [(Algorithm, &str); 4] = [
    (Algorithm::DynaMosa, "dynamosa"),
    (Algorithm::ADynaMosa, "adynamosa"),
    (Algorithm::Mosa, "mosa"),
    (Algorithm::WholeSuite, "wholesuite"),
];

/// Coverage is also reported at the end of the budget.
const CHECKPOINTS: [u64; 3] = [1, 5, 10];

#[derive(Default)]
struct Samples(Vec<Progress>);

impl GenerationObserver for Samples {
    fn on_progress(&mut self, progress: &Progress) {
        self.0.push(progress.clone());
    }
}

/// One run's figures.
struct Figures {
    /// Branch coverage in percent at each checkpoint (the last sample at or before it).
    at: [f64; 3],
    final_coverage: f64,
    /// Search time until the final coverage was first reached.
    time_to_final: Duration,
    executions_per_second: f64,
    mean_length: f64,
    mean_score: f64,
}

fn figures(samples: &[Progress], result: &GenerationResult) -> Figures {
    let percent = |p: &Progress| {
        let c = p.of(Criterion::Branch).expect("branch is always on");
        if c.total == 0 {
            100.0
        } else {
            100.0 * c.covered as f64 / c.total as f64
        }
    };
    let mut at = [0.0; 3];
    for (slot, seconds) in at.iter_mut().zip(CHECKPOINTS) {
        *slot = samples
            .iter()
            .take_while(|p| p.elapsed <= Duration::from_secs(seconds))
            .last()
            .map_or(0.0, percent);
    }
    let final_coverage = samples.last().map_or(0.0, percent);
    let time_to_final = samples
        .iter()
        .find(|p| percent(p) >= final_coverage)
        .map_or(Duration::ZERO, |p| p.elapsed);
    let last = samples.last();
    let executions_per_second = last.map_or(0.0, |p| {
        p.executions as f64 / p.elapsed.as_secs_f64().max(1e-3)
    });
    let tests = &result.tests;
    let n = tests.len().max(1) as f64;
    let mean_length = tests.iter().map(|t| t.test.len()).sum::<usize>() as f64 / n;
    let mean_score = tests
        .iter()
        .map(|t| {
            let trace = &t.result.trace;
            let loops = trace
                .files
                .iter()
                .flat_map(|f| f.loops.iter())
                .filter(|(_, n)| *n > 1)
                .map(|(_, n)| n)
                .sum();
            let production = ProductionProxies {
                executed_loops: loops,
                covered_method_calls: trace.proxies.method_calls,
                object_instantiations: trace.proxies.instantiations,
                covered_statements: trace.proxies.statements,
            };
            PerformanceProxies::new(production, ctg::job::test_code_proxies(&t.test)).score()
        })
        .sum::<f64>()
        / n;
    Figures {
        at,
        final_coverage,
        time_to_final,
        executions_per_second,
        mean_length,
        mean_score,
    }
}

fn env_number(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn env_filter(name: &str) -> Option<Vec<String>> {
    std::env::var(name)
        .ok()
        .map(|v| v.split(',').map(|s| s.trim().to_string()).collect())
}

fn main() {
    let seeds = env_number("CTG_BENCH_SEEDS", 5);
    let seconds = env_number("CTG_BENCH_SECONDS", 30);
    let classes = env_filter("CTG_BENCH_CLASSES");
    let algorithms = env_filter("CTG_BENCH_ALGORITHMS");
    let max_total = Duration::from_secs(60 * env_number("CTG_BENCH_MAX_MINUTES", 25));
    let root: PathBuf = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/job/subjects");
    let layout = ProjectLayout::discover(&root, &LayoutOverrides::default());
    let mut supervisor =
        Supervisor::new(WorkerConfig::default()).expect("JDK 11+ and a buildable worker");
    let started = Instant::now();

    println!(
        "search budget {seconds} s, {seeds} seeds; branch coverage % at 1/5/10/{seconds} s, \
         mean over seeds"
    );
    println!();
    println!(
        "| class | algorithm | @1s | @5s | @10s | @{seconds}s | full | to final (s) | exec/s | \
         test length | perf. score |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|---|");
    for (class, what) in CLASSES {
        if classes
            .as_ref()
            .is_some_and(|c| !c.iter().any(|n| n == class))
        {
            continue;
        }
        for (algorithm, name) in ALGORITHMS {
            if algorithms
                .as_ref()
                .is_some_and(|a| !a.iter().any(|n| n == name))
            {
                continue;
            }
            let mut runs = Vec::new();
            for seed in 0..seeds {
                if started.elapsed() >= max_total {
                    eprintln!("{class} {name} seed {seed}: skipped, the bench is out of time");
                    continue;
                }
                let mut request = GenerationRequest::new(layout.clone(), class);
                request.algorithm = algorithm;
                request.seed = 1000 + seed;
                // The whole budget goes to set-up and search; set-up takes about a second.
                request.budget = Duration::from_secs(seconds + 1);
                request.emission_reserve = EmissionReserve::None;
                request.minimisation_share = 0.0;
                request.minimise = false;
                // Without the exception criterion: undeclared exceptions have no known total, so
                // with it every run would use its whole budget (`ctg::job`), and the table is
                // about how soon the static goals are covered.
                request.criteria.exception = false;
                let mut samples = Samples::default();
                match generate(&request, &mut supervisor, &mut samples) {
                    Ok(result) => runs.push(figures(&samples.0, &result)),
                    Err(e) => eprintln!("{class} {name} seed {seed}: {e}"),
                }
            }
            if runs.is_empty() {
                continue;
            }
            let n = runs.len() as f64;
            let mean = |f: &dyn Fn(&Figures) -> f64| runs.iter().map(f).sum::<f64>() / n;
            println!(
                "| {class} ({what}) | {name} | {:.1} | {:.1} | {:.1} | {:.1} | {}/{} | {:.1} | \
                 {:.0} | {:.1} | {:.2} |",
                mean(&|f| f.at[0]),
                mean(&|f| f.at[1]),
                mean(&|f| f.at[2]),
                mean(&|f| f.final_coverage),
                runs.iter().filter(|f| f.final_coverage >= 100.0).count(),
                runs.len(),
                mean(&|f| f.time_to_final.as_secs_f64()),
                mean(&|f| f.executions_per_second),
                mean(&|f| f.mean_length),
                mean(&|f| f.mean_score),
            );
        }
    }
    println!();
    println!("bench took {:.0} s", started.elapsed().as_secs_f64());
}
