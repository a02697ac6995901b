//! The generation job for one class: read and model the sources, compile them with the class
//! (and any other classes the request names, for their coverage) instrumented, describe it and
//! build its test cluster, search (DynaMOSA by default) with the JVM worker executing, minimise
//! the archive's tests, and run them once more with getter observation so the caller can print
//! regression assertions.
//!
//! Budget: `GenerationRequest::budget` is what the user waits for, from the job's start to the
//! end of the caller's verification. The job spends what set-up takes; the search then stops
//! when the time left reaches the estimate of emitting and verifying the tests it has archived
//! (`crate::budget::SearchBudget`, which also keeps `minimisation_share` of the time before
//! that); minimisation runs until the end of the budget minus that estimate for the suite it
//! minimises and an estimate of the final run. With `max_executions` the search is
//! deterministic for a seed (when the code under test is); time only decides when to stop.
//!
//! Module map: `request`, `result` (public values), `observer` (phases and progress), `setup`
//! (sources, model, compile), `widen` (describe, with the unit widened by project subtypes the
//! cluster needs), `trace_mapping` (worker results in goal terms), `executor` (the
//! JVM-backed `search::Executor`), `test_seeds` (the existing tests whose literals seed the
//! search), `variation` (the search's operators on test cases),
//! `minimise` (Fraser and Arcuri, "Whole Test Suites" IV-A), `report` (coverage, exceptions and tests of the result).

mod executor;
mod integration;
mod minimise;
mod observer;
mod report;
pub(crate) use report::member_of_class;
mod request;
mod result;
mod setup;
mod test_seeds;
mod trace_mapping;
mod variation;
mod widen;

pub use executor::{ExecutorStats, JvmExecutor, Run};
pub use minimise::{minimise, without, KeptGoal, MinimisationStats};
pub use observer::{GenerationObserver, Phase};
pub use request::{ClusterSource, GenerationRequest, ObjectSeedSource, WarmStartSource};
pub use result::{
    ClassCoverage, CoupledCoverage, CoupledPairCoverage, Coverage, DecisionCoverage,
    EnvironmentDependency, EscapedException, GeneratedTest, GenerationError, GenerationResult,
    LineCoverage, MinimisationSummary, OutcomeCoverage, PhaseTimings, SourceDiagnostic,
    TestCoverage, UndeclaredException, WarmStart,
};
pub use setup::{locate, read_sources, ClassSource, ProjectSource};
pub use trace_mapping::TraceMapper;
pub use variation::{test_code_proxies, ClusterVariation, ObservedValues, RuntimeValues};

use std::time::{Duration, Instant};

use javamodel::instrument::ProbeTable;
use jvm::{ExecuteOptions, SandboxLevel, Supervisor};
use rand::rngs::StdRng;
use rand::SeedableRng;
use search::{AllGoalsCovered, GoalTable, MaxExecutions, Search, SearchConfig, Variation as _};
use testcase::{ConstantPool, EnvironmentInputs, TestCase};

use crate::budget::{SearchBudget, MIN_MINIMISATION_SHARE, MIN_SEARCH_SHARE};
use crate::compile::FileLevel;
use crate::job::observer::SearchBridge;
use crate::job::request::share;

/// Runs the generation job of `request.class`. The supervisor's worker is started if needed
/// and left running; the compiled unit is released at the end.
pub fn generate(
    request: &GenerationRequest,
    supervisor: &mut Supervisor,
    observer: &mut dyn GenerationObserver,
) -> Result<GenerationResult, GenerationError> {
    generate_keeping_sources(request, supervisor, observer).map(|(result, _)| result)
}

/// What the job read and parsed, handed back so that emission does not do it again.
pub struct JobSources {
    /// The project's sources as the job compiled them (overlays applied, uninstrumented text).
    pub sources: Vec<ProjectSource>,
    /// The file and model of the class under test.
    pub cut: ClassSource,
    /// The files the job compiled as roots (`jvm::CompileRequest::roots`): the file of the class
    /// under test, those of the other classes it instrumented, and those of project subtypes
    /// its cluster uses. Compiling them again gives
    /// the classes the job's tests use.
    pub roots: Vec<String>,
    /// The request the job ran when it was not the one asked: integration tests of a
    /// superclass caller go through the subclass (`integration::through_subclass`), so the
    /// class under test is the callee and emission must use this request.
    pub through_subclass: Option<GenerationRequest>,
}

/// [`generate`], also returning the sources and the model of the class under test.
pub fn generate_keeping_sources(
    request: &GenerationRequest,
    supervisor: &mut Supervisor,
    observer: &mut dyn GenerationObserver,
) -> Result<(GenerationResult, JobSources), GenerationError> {
    let started = Instant::now();
    let mut clock = PhaseClock {
        started,
        timings: PhaseTimings::default(),
    };
    observer.on_phase(Phase::Reading, started.elapsed());
    let sources = setup::read_sources(&request.layout, &request.overlays)?;
    // Section 3.2.5: a superclass caller's integration tests go through the subclass.
    let through_subclass = integration::through_subclass(request, &sources);
    let request = through_subclass.as_ref().unwrap_or(request);
    let class = request.class.as_str();
    let cancelled = || -> Result<(), GenerationError> {
        if request.cancel.is_cancelled() {
            Err(GenerationError::Cancelled {
                class: class.to_string(),
            })
        } else {
            Ok(())
        }
    };

    let located = setup::locate(&request.layout, &sources, class);
    clock.timings.read = clock.lap();
    let cut = located.ok_or_else(|| GenerationError::ClassNotFound {
        class: class.to_string(),
        source_roots: request.layout.source_roots.clone(),
    })?;
    let also = setup::locate_also(request, &sources)?;
    cancelled()?;

    let mut warnings = Vec::new();
    // A new worker starts from what earlier workers of the project compiled (saved by
    // `pipeline::prepare_faster_starts`).
    supervisor.use_compile_cache_of(&request.layout.root);
    if supervisor.worker_pid().is_none() {
        observer.on_phase(Phase::Starting, started.elapsed());
        supervisor.start()?;
        clock.timings.start = clock.lap();
    }
    if let Some(report) = supervisor.sandbox() {
        if report.level() != SandboxLevel::Full {
            warnings.extend(report.warning());
        }
    }
    cancelled()?;

    observer.on_phase(Phase::Compiling, started.elapsed());
    // The other classes' files are roots too, so that their classes are compiled (and
    // instrumented) even where the class under test does not reach them.
    let mut roots = vec![sources[cut.index].file.path.clone()];
    for (_, source) in &also {
        let path = &sources[source.index].file.path;
        if !roots.contains(path) {
            roots.push(path.clone());
        }
    }
    let instrumented: Vec<String> = std::iter::once(request.class.clone())
        .chain(also.iter().map(|(class, _)| class.clone()))
        .collect();
    let compiled = setup::compile(supervisor, request, &sources, &roots, &instrumented)?;
    clock.timings.compile = clock.lap();
    let mut unit = compiled.unit;
    let outcome = (|| {
        cancelled()?;
        let path = &sources[cut.index].file.path;
        let file = compiled.files.iter().find(|f| f.path == *path);
        let empty = ProbeTable::default();
        let probes = file.map_or(&empty, |f| &f.probes);
        match file.map(|f| f.level) {
            Some(FileLevel::Full) => {}
            Some(FileLevel::OutcomeOnly) => warnings.push(format!(
                "{path} has outcome-only probes (its full probes did not compile): the search \
                 sees which branches run but not how close the others are"
            )),
            Some(FileLevel::Uninstrumented) | None => warnings.push(format!(
                "{path} could not be instrumented: coverage of {class} is not measured"
            )),
        }
        let empty_also = ProbeTable::default();
        let also: Vec<report::AlsoInstrumented<'_>> = also
            .iter()
            .map(|(also_class, source)| {
                let path = &sources[source.index].file.path;
                let file = compiled.files.iter().find(|f| f.path == *path);
                if file.is_none_or(|f| f.level == FileLevel::Uninstrumented) {
                    warnings.push(format!(
                        "{path} could not be instrumented: coverage of {also_class} is not \
                         measured"
                    ));
                }
                report::AlsoInstrumented {
                    class: also_class,
                    model: &source.model,
                    text: &sources[source.index].file.text,
                    probes: file.map_or(&empty_also, |f| &f.probes),
                }
            })
            .collect();
        observer.on_phase(Phase::Describing, started.elapsed());
        let constants = ConstantPool::from_source(&sources[cut.index].file.text, &cut.tree);
        let mut described = widen::describe_widening(
            supervisor,
            request,
            &sources,
            &compiled,
            &mut unit,
            &constants,
            &mut warnings,
        )?;
        // What the class reads of its environment, which tests may then set up (console
        // input, input files, system properties).
        described
            .cluster
            .set_environment(EnvironmentInputs::from_source(
                &sources[cut.index].file.text,
                &cut.tree,
            ));
        // The literals of the developer's tests of the class (its JSON documents, CSV records,
        // map keys), as a pool of their own: the class's literals keep priority.
        let tests = test_seeds::existing_tests_of(&request.layout, &request.overlays, class);
        described
            .cluster
            .set_test_constants(ConstantPool::from_tests(
                tests.iter().map(|test| test.text.as_str()),
            ));
        clock.timings.compile += described.compile_time;
        roots.extend(described.added_roots.iter().cloned());
        let context = Context {
            request,
            text: &sources[cut.index].file.text,
            cut: &cut,
            probes,
            also,
            fallbacks: compiled.fallbacks().cloned().collect(),
            unit,
            started,
        };
        run_compiled(
            &context, described, supervisor, observer, &mut clock, warnings,
        )
    })();
    supervisor.release(unit);
    outcome.map(|result| {
        (
            result,
            JobSources {
                sources,
                cut,
                roots,
                through_subclass: through_subclass.clone(),
            },
        )
    })
}

/// Measures phases one after the other.
struct PhaseClock {
    started: Instant,
    timings: PhaseTimings,
}

impl PhaseClock {
    /// Time since the previous lap (or the start).
    fn lap(&mut self) -> Duration {
        let t = &self.timings;
        let before =
            t.read + t.start + t.compile + t.describe + t.search + t.minimise + t.final_run;
        self.started.elapsed().saturating_sub(before)
    }
}

/// What the steps after compilation share.
pub(crate) struct Context<'a> {
    request: &'a GenerationRequest,
    /// Source text of the file declaring the class under test.
    text: &'a str,
    cut: &'a setup::ClassSource,
    probes: &'a ProbeTable,
    /// The classes of `request.also_instrument`, reported on but never searched for.
    also: Vec<report::AlsoInstrumented<'a>>,
    fallbacks: Vec<javamodel::instrument::Fallback>,
    unit: jvm::UnitId,
    started: Instant,
}

fn run_compiled(
    context: &Context<'_>,
    described: widen::ClusterUnit,
    supervisor: &mut Supervisor,
    observer: &mut dyn GenerationObserver,
    clock: &mut PhaseClock,
    mut warnings: Vec<String>,
) -> Result<GenerationResult, GenerationError> {
    let request = context.request;
    let class = request.class.as_str();
    let budget_end = context.started + request.budget;

    let mut cluster = described.cluster;
    let seeded_objects = match &request.seeded_objects_from {
        Some(source) => source
            .read(&cluster)
            .into_iter()
            .filter(|seeded| cluster.add_seeded_object(seeded.clone()))
            .count(),
        None => 0,
    };
    for skipped in cluster.skipped_targets() {
        warnings.push(format!(
            "{} is not tested: {}",
            skipped.member, skipped.reason
        ));
    }
    for unreachable in cluster.unreachable() {
        warnings.push(format!(
            "no way to build a {} (only null is passed): {}",
            unreachable.type_name, unreachable.reason
        ));
    }
    // Class-integration tests (`integration`): the coupled branches of the caller (the class
    // under test, or its superclass) with the callee, which the job instrumented like the
    // classes of `also_instrument`.
    let pair = integration::Pair::of(request, context);
    let coupling = match &pair {
        Some(pair) => Some(
            javamodel::coupling::couple(
                pair.caller.model,
                pair.caller.class,
                pair.callee.model,
                pair.callee.class,
            )
            .map_err(|_| GenerationError::ClassNotFound {
                class: pair.callee.class.to_string(),
                source_roots: request.layout.source_roots.clone(),
            })?,
        ),
        None => None,
    };
    let table = match (&coupling, &pair) {
        (Some(coupling), Some(pair)) => GoalTable::for_integration(
            pair.caller.model,
            pair.caller.class,
            pair.callee.model,
            pair.callee.class,
            class,
            &coupling.pairs(),
            request.criteria,
        ),
        _ => GoalTable::for_class_with_probes(
            &context.cut.model,
            class,
            request.criteria,
            &context.probes.lines,
            &context.probes.mutants,
        ),
    }
    .ok_or_else(|| GenerationError::ClassNotFound {
        class: class.to_string(),
        source_roots: request.layout.source_roots.clone(),
    })?;
    let covering = coupling
        .as_ref()
        .map(|coupling| integration::covering_callables(&cluster, coupling))
        .unwrap_or_default();
    if let Some(coupling) = &coupling {
        warnings.extend(integration::warnings(coupling, covering.len()));
    }
    clock.timings.describe = clock.lap();
    if request.cancel.is_cancelled() {
        return Err(GenerationError::Cancelled {
            class: class.to_string(),
        });
    }

    // Other classes of the file may be instrumented too (`also_instrument`): the lines and
    // proxies the search sees stay those of the class under test's top-level type, as when it
    // was alone.
    let top_level = class.split('$').next().unwrap_or(class);
    let mut mapper = TraceMapper::new(&table, context.probes);
    if let Some(pair) = pair.as_ref().filter(|_| coupling.is_some()) {
        // The file of the class under test is read once whatever its role.
        mapper = mapper
            .with_goal_file(pair.caller.probes)
            .with_goal_file(pair.callee.probes);
    }
    if let Some(decl) = context.cut.model.type_by_binary_name(top_level) {
        mapper =
            mapper.with_own_lines(decl.span.start.row as u32 + 1..=decl.span.end.row as u32 + 1);
    }
    let options = ExecuteOptions {
        timeout_per_test: request.test_timeout,
        classes_under_test: vec![class.to_string()],
        test_package: Some(testcase::package_of(class).to_string()),
        release: request.test_release,
        ..ExecuteOptions::default()
    };
    let mut executor = JvmExecutor::new(supervisor, context.unit, options, &mapper);
    let observed = ObservedValues::default();
    executor.feed_observed(Some(observed.clone()));
    // Stored tests can only be read back against the cluster (their callables are resolved
    // by signature), so the source sees it before the variation takes it.
    let mut offered = request.warm_start.clone();
    if let Some(source) = &request.warm_start_from {
        offered.extend(source.read(&cluster));
    }
    let mut variation = ClusterVariation::new(
        testcase::Variation::new(request.variation.clone()),
        cluster,
        observed,
    )
    .with_covering(covering);
    let offered_count = offered.len();
    let seeds: Vec<TestCase> = offered
        .into_iter()
        .filter(|t| variation.accept_seed(t))
        .collect();
    let warm_start = WarmStart {
        offered: offered_count,
        kept: seeds.len(),
        seeded_objects,
    };

    // Cling tailors MOSA (section 3.2.2); the whole-suite GA has no per-pair objectives.
    let algorithm = match request.algorithm {
        search::Algorithm::WholeSuite if coupling.is_some() => search::Algorithm::Mosa,
        algorithm => algorithm,
    };
    let config = SearchConfig {
        algorithm,
        ..request.search.clone()
    };
    let search_budget = SearchBudget {
        available: budget_end.saturating_duration_since(Instant::now()),
        reserve: request.emission_reserve,
        minimisation_share: share(request.minimisation_share),
        minimum: request.budget.mul_f64(MIN_SEARCH_SHARE),
    };
    let abort = executor.abort_token();
    observer.on_phase(Phase::Searching, context.started.elapsed());
    let mut rng = StdRng::seed_from_u64(request.seed);
    let found = {
        let mut bridge = SearchBridge {
            observer: &mut *observer,
            forwarded: 0,
        };
        let mut search = Search::new(&table, &config, &mut variation, &mut executor)
            .seeds(seeds)
            .stop_when(search_budget)
            .stop_when(request.cancel.clone())
            .stop_when(abort)
            .observe(&mut bridge);
        if let Some(n) = request.max_executions {
            search = search.stop_when(MaxExecutions(n));
        }
        // Undeclared exceptions are goals with no known total: once every static goal is
        // covered, the rest of the budget still looks for them (EvoSuite does the same).
        if request.stop_when_covered && !request.criteria.exception {
            search = search.stop_when(AllGoalsCovered);
        }
        let found = search.run(&mut rng);
        // A search that stops inside a generation records its final state without telling
        // the observers; the progress report should end where the search did.
        if found.samples.len() > bridge.forwarded {
            if let Some(last) = found.samples.last() {
                bridge.observer.on_progress(last);
            }
        }
        found
    };
    executor.feed_observed(None);
    clock.timings.search = clock.lap();
    if let Some(error) = executor.take_fatal() {
        return Err(error.into());
    }
    let search_executions = executor.stats().executions;

    // The archive's distinct tests with the goals credited to each.
    let archived = found.archive.tests();
    let mut kept: Vec<(TestCase, Vec<KeptGoal>, Vec<String>)> = archived
        .iter()
        .map(|t| (t.individual.clone(), Vec::new(), Vec::new()))
        .collect();
    for (goal, test) in found.archive.covered() {
        let Some(slot) = archived.iter().position(|t| std::ptr::eq(*t, test)) else {
            continue;
        };
        let kept_goal = match table.goal(goal) {
            Some(_) => KeptGoal::Static(goal),
            None => match found.exception_goals.get(goal) {
                Some(e) => KeptGoal::Exception {
                    member: e.member,
                    type_name: e.type_name.clone(),
                },
                None => continue,
            },
        };
        kept[slot].1.push(kept_goal);
        kept[slot].2.push(found.describe(&table, goal));
    }
    drop(archived);
    // What emission will need, for the suite as it is before minimisation (which only ever
    // makes it smaller): the job's own deadline.
    let emission_reserve = request.emission_reserve.for_tests(kept.len());
    let job_deadline = budget_end
        .checked_sub(emission_reserve)
        .unwrap_or(budget_end);

    let cancelled = request.cancel.is_cancelled();
    if cancelled && request.abandon_when_cancelled {
        return Err(GenerationError::Cancelled {
            class: class.to_string(),
        });
    }
    let mut minimisation = MinimisationSummary {
        statements_before: kept.iter().map(|(t, _, _)| t.len()).sum(),
        ..MinimisationSummary::default()
    };
    minimisation.statements_after = minimisation.statements_before;
    let mut tests: Vec<(TestCase, Vec<String>)> = if request.minimise && !cancelled {
        observer.on_phase(Phase::Minimising, context.started.elapsed());
        let per_test = found
            .elapsed
            .checked_div(u32::try_from(search_executions.max(1)).unwrap_or(u32::MAX))
            .unwrap_or_default();
        let final_estimate = per_test * (kept.len() as u32 * 2) + Duration::from_millis(50);
        let deadline = job_deadline
            .checked_sub(final_estimate)
            .unwrap_or(job_deadline)
            .max(Instant::now() + request.budget.mul_f64(MIN_MINIMISATION_SHARE));
        let descriptions: Vec<Vec<String>> = kept.iter().map(|(_, _, d)| d.clone()).collect();
        let (tests, stats) = minimise(
            &mut executor,
            kept.into_iter().map(|(t, g, _)| (t, g)).collect(),
            deadline,
            &request.cancel,
        );
        minimisation = MinimisationSummary {
            statements_before: stats.statements_before,
            statements_after: stats.statements_after,
            executions: stats.executions,
            cut_short: stats.cut_short,
            values_simplified: stats.values_simplified,
        };
        tests.into_iter().zip(descriptions).collect()
    } else {
        kept.into_iter().map(|(t, _, d)| (t, d)).collect()
    };
    clock.timings.minimise = clock.lap();
    if let Some(error) = executor.take_fatal() {
        return Err(error.into());
    }
    if request.abandon_when_cancelled && request.cancel.is_cancelled() {
        return Err(GenerationError::Cancelled {
            class: class.to_string(),
        });
    }
    // Minimised tests can coincide; one test per behaviour.
    let mut unique: Vec<(TestCase, Vec<String>)> = Vec::with_capacity(tests.len());
    for (test, covers) in tests.drain(..) {
        match unique.iter_mut().find(|(t, _)| *t == test) {
            Some((_, c)) => c.extend(covers),
            None => unique.push((test, covers)),
        }
    }

    observer.on_phase(Phase::Observing, context.started.elapsed());
    let final_tests: Vec<TestCase> = unique.iter().map(|(t, _)| t.clone()).collect();
    let runs = executor.run(&final_tests, true);
    clock.timings.final_run = clock.lap();
    if let Some(error) = executor.take_fatal() {
        return Err(error.into());
    }
    let stats = executor.stats().clone();
    let closest = executor.closest_distances().to_vec();
    let needs = executor.environment().to_vec();
    drop(executor);

    if stats.invalid > 0 {
        warnings.push(format!(
            "{} generated tests had statements the worker could not run ({})",
            stats.invalid,
            stats.first_invalid.as_deref().unwrap_or("")
        ));
    }
    if stats.executions >= 50 && stats.fresh_loaders * 2 > stats.executions {
        // Each such test defines and initialises the project's classes again: a slower search.
        warnings.push(format!(
            "{} of {} test executions needed a fresh class loader ({})",
            stats.fresh_loaders,
            stats.executions,
            stats
                .loader_dropped
                .as_deref()
                .unwrap_or("the worker gave no reason")
        ));
    }
    if stats.worker_timeouts + stats.worker_crashes > 0 {
        warnings.push(format!(
            "the worker was restarted {} times (tests that hung or crashed it)",
            stats.worker_timeouts + stats.worker_crashes
        ));
    }

    let report = report::Report {
        table: &table,
        model: &context.cut.model,
        text: context.text,
        probes: context.probes,
        closest: &closest,
        coupling: coupling.as_ref(),
    }
    .build(unique, runs, &mut warnings);
    let environment =
        environment_dependencies(needs, &report.covered_goals, &table, &context.cut.model);
    let mut tests = report.tests;
    let also_instrumented = context
        .also
        .iter()
        .map(|also| {
            let mut covered = report::also_covered(also, request.criteria, &mut tests);
            // A unit run's tests, measured by the criterion of integration tests (for
            // comparing the two, as the paper's RQ1.2 does); an integration run reports its
            // own pairs in `coupled`.
            if coupling.is_none() {
                covered.coupled = integration::unit_coverage(
                    &context.cut.model,
                    class,
                    context.probes,
                    also,
                    request.criteria,
                    &mut tests,
                );
            }
            covered
        })
        .collect();
    clock.timings.total = context.started.elapsed();

    Ok(GenerationResult {
        class: class.to_string(),
        algorithm: request.algorithm,
        seed: request.seed,
        decisions: report.decisions,
        branches: report.branches,
        lines: report.lines,
        methods: report.methods,
        exceptions: report.exceptions,
        escapes: report.escapes,
        tests,
        also_instrumented,
        coupled: report.coupled,
        executions: stats.executions,
        statements_executed: stats.statements,
        fresh_loader_executions: stats.fresh_loaders,
        loader_dropped: stats.loader_dropped.clone(),
        timings: clock.timings,
        stop_reason: found.stop_reason,
        cancelled,
        progress: found.samples,
        warm_start,
        minimisation,
        emission_reserve,
        fallbacks: context.fallbacks.clone(),
        warnings,
        environment,
    })
}

/// The needs of the environment that kept goals from a test: per need, the goals its runs
/// reached and no final test covers. A need whose goals other tests cover is left out (the
/// tests found another way there), and so is a goal of a member no line of which is known.
fn environment_dependencies(
    needs: Vec<(
        jvm::EnvironmentNeed,
        std::collections::BTreeSet<search::GoalId>,
    )>,
    covered: &[bool],
    table: &GoalTable,
    model: &javamodel::JavaModel,
) -> Vec<EnvironmentDependency> {
    needs
        .into_iter()
        .filter_map(|(need, goals)| {
            let goals: Vec<String> = goals
                .into_iter()
                .filter(|g| !covered.get(g.index()).copied().unwrap_or(false))
                .filter_map(|g| table.describe(g))
                .collect();
            if goals.is_empty() {
                return None;
            }
            let member = need.line.and_then(|line| member_at(model, line));
            Some(EnvironmentDependency {
                need,
                member,
                goals,
            })
        })
        .collect()
}

/// The key of the innermost member of `model` whose range holds 1-based `line`.
fn member_at(model: &javamodel::JavaModel, line: u32) -> Option<String> {
    let row = line.checked_sub(1)? as usize;
    model
        .all_types()
        .into_iter()
        .flat_map(|t| t.members.iter())
        .filter(|m| m.span.start.row <= row && row <= m.span.end.row)
        .min_by_key(|m| m.span.end_byte - m.span.start_byte)
        .map(|m| m.key.clone())
}
