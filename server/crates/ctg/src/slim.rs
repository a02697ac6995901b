//! Dropping the statements of the final tests that no kept assertion and no covered goal needs
//! (issue #19: "a `now()` call left in a test about hours"), after assertion selection (or,
//! without the mutation analysis, with every planned assertion kept) and before verification.
//!
//! `testcase::junit::slim_candidates` proposes per test the shorter forms whose statements the
//! kept assertions need (a static slice). Whether one may replace the test is established by
//! running it, as minimisation establishes a removal: every final test and every candidate run
//! once in the class compiled instrumented (with its mutants when the analysis ran, none
//! switched on), with the observations emission makes. A candidate is taken when
//!
//! - it ends as the test did and observes the same values for every kept assertion
//!   (`testcase::junit::carried_suppressions`), needing nothing of the environment;
//! - the suite still covers everything the final tests covered of the class's file: every
//!   branch outcome, line, method and escaping exception some test reached is still reached by
//!   the candidate or another test (the goals of the search, suite-wide; a goal only this test
//!   covered keeps the statements that reach it);
//! - with the mutation analysis, it still kills, with its kept assertions or its outcome, every
//!   mutant the test killed with them (each such mutant run again against the candidate).
//!
//! The candidate that takes getter-like calls for pure comes first, then the one that keeps
//! every call on a needed object; else the test stays as it was. Verification then compiles,
//! runs and perturbs the shorter tests like any others.

use std::collections::{BTreeMap, BTreeSet};
use std::time::{Duration, Instant};

use jvm::{CompileRequest, ExecuteOptions, ExecutionOutcome, Supervisor, TestResult};
use testcase::junit::{
    carried_suppressions, carry_instability, planned_assertions, slim_candidates,
    with_state_probes, AssertionId, ExecutedTest, MutantId, Removal, StateProbes, Suppressions,
    TestClassSpec, TestKills,
};

use crate::cluster::to_worker_test;
use crate::compile::compile_instrumented_with;
use crate::emit::execution_from;
use crate::mutation::{class_file, MutantBatch, MutationAnalysis};

/// A test of the spec that lost statements.
#[derive(Debug, Clone)]
pub struct SlimmedTest {
    pub removal: Removal,
    /// Each kept assertion of the slimmed test's plan, with its counterpart's id in the
    /// original plan (what the mutation analysis's kills are keyed by).
    pub from: BTreeMap<AssertionId, AssertionId>,
}

/// The spec with its slimmed tests, and the suppressions that keep the same assertions.
#[derive(Debug, Clone)]
pub struct Slimmed {
    pub spec: TestClassSpec,
    pub suppressions: Suppressions,
    /// By index in the spec's tests.
    pub tests: BTreeMap<usize, SlimmedTest>,
}

/// What a run reached of the class's file: the goals of the search, as the trace has them.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
enum Reached {
    Outcome { branch: u32, taken: bool },
    Line(u32),
    Method(u32),
    Escape { method: u32, type_name: String },
}

/// Slims the tests of `spec` (see the module doc); `None` when no test could lose a statement or
/// the runs failed (logged: the suite stays as it was). `request` compiles the project as
/// emission did; `execute` are emission's execute options; `confirm_within` bounds the mutated
/// runs that confirm kills.
pub fn slim_suite(
    supervisor: &mut Supervisor,
    request: &CompileRequest,
    spec: &TestClassSpec,
    suppressions: &Suppressions,
    analysis: Option<&MutationAnalysis>,
    execute: &ExecuteOptions,
    confirm_within: Duration,
) -> Option<Slimmed> {
    let candidates: Vec<(usize, Removal)> = (0..spec.tests.len())
        .flat_map(|i| {
            slim_candidates(spec, i, suppressions)
                .into_iter()
                .map(move |c| (i, c))
        })
        .collect();
    if candidates.is_empty() {
        return None;
    }
    let class = &spec.class_under_test;
    let started = Instant::now();
    let compiled = match compile_instrumented_with(
        supervisor,
        request,
        std::slice::from_ref(class),
        analysis.is_some(),
    ) {
        Ok(compiled) => compiled,
        Err(error) => {
            tracing::warn!("{class}: the tests keep every statement: {error}");
            return None;
        }
    };
    let unit = compiled.unit;
    tracing::debug!(
        "{class}: slimming: compile {:?}, {} candidates",
        started.elapsed(),
        candidates.len()
    );
    let key = class_file(&compiled, class).map(|f| f.probes.key.clone());
    let slimmed = key.and_then(|key| {
        let runs = Runs {
            unit,
            key: &key,
            spec,
            suppressions,
            analysis,
            execute,
            confirm_within,
        };
        match runs.slim(supervisor, candidates) {
            Ok(slimmed) => {
                tracing::debug!("{class}: slimming took {:?}", started.elapsed());
                if let Some(slimmed) = &slimmed {
                    let removed: usize = slimmed
                        .tests
                        .values()
                        .map(|t| t.removal.removed.len())
                        .sum();
                    tracing::debug!(
                        "{class}: {} of {} tests lose {removed} statements",
                        slimmed.tests.len(),
                        spec.tests.len()
                    );
                }
                slimmed
            }
            Err(error) => {
                tracing::warn!("{class}: the tests keep every statement: {error}");
                None
            }
        }
    });
    supervisor.release(unit);
    slimmed
}

struct Runs<'a> {
    unit: jvm::UnitId,
    key: &'a str,
    spec: &'a TestClassSpec,
    suppressions: &'a Suppressions,
    analysis: Option<&'a MutationAnalysis>,
    execute: &'a ExecuteOptions,
    confirm_within: Duration,
}

/// A candidate that ran and observes what its test keeps.
struct Viable {
    removal: Removal,
    executed: ExecutedTest,
    probed: StateProbes,
    suppressed: BTreeSet<AssertionId>,
    from: BTreeMap<AssertionId, AssertionId>,
    duration: Duration,
}

impl Runs<'_> {
    fn slim(
        &self,
        supervisor: &mut Supervisor,
        candidates: Vec<(usize, Removal)>,
    ) -> Result<Option<Slimmed>, jvm::JvmError> {
        let spec = self.spec;
        let observe = ExecuteOptions {
            observe_getters: true,
            mutant: None,
            ..self.execute.clone()
        };
        let probed: Vec<StateProbes> = spec
            .tests
            .iter()
            .map(|t| with_state_probes(&t.test))
            .chain(candidates.iter().map(|(_, c)| with_state_probes(&c.test)))
            .collect();
        let worker_tests: Vec<jvm::TestCase> =
            probed.iter().map(|p| to_worker_test(p.test())).collect();
        let results = match supervisor.execute(self.unit, &worker_tests, &observe)? {
            ExecutionOutcome::Finished(results) => results,
            // Whatever did not run cannot be judged; nothing changes.
            ExecutionOutcome::Timeout { .. } | ExecutionOutcome::Crashed { .. } => return Ok(None),
        };
        let n = spec.tests.len();
        if results.len() != worker_tests.len() {
            return Ok(None);
        }
        // How many tests reach each item now: a candidate may drop an item others reach.
        let mut count: BTreeMap<Reached, usize> = BTreeMap::new();
        let mut current: Vec<BTreeSet<Reached>> =
            results[..n].iter().map(|r| self.reached(r)).collect();
        for items in &current {
            for item in items {
                *count.entry(item.clone()).or_default() += 1;
            }
        }
        let mut chosen: BTreeMap<usize, Viable> = BTreeMap::new();
        for (k, (test, removal)) in candidates.into_iter().enumerate() {
            if chosen.contains_key(&test) {
                continue;
            }
            let result = &results[n + k];
            let original = &results[test];
            if result.status != original.status || !result.environment.is_empty() {
                continue;
            }
            let probes = probed[n + k].clone();
            let Ok(mut execution) = execution_from(result, &probes) else {
                continue;
            };
            let before = &spec.tests[test];
            carry_instability(&before.execution, &mut execution, &removal);
            let executed = ExecutedTest {
                test: removal.test.clone(),
                execution,
            };
            let Some(carried) = carried_suppressions(
                test,
                before,
                &executed,
                &removal,
                &spec.facts,
                self.suppressions,
            ) else {
                continue;
            };
            let reached = self.reached(result);
            let lost: Vec<&Reached> = current[test].difference(&reached).collect();
            if lost.iter().any(|item| count.get(*item).copied() == Some(1)) {
                continue;
            }
            // What the candidate reaches beyond its test is not counted on: should a later
            // check send the test back whole, no other test may have relied on it.
            for item in lost {
                *count.get_mut(item).expect("counted") -= 1;
            }
            current[test].retain(|item| reached.contains(item));
            chosen.insert(
                test,
                Viable {
                    removal,
                    executed,
                    probed: probes,
                    suppressed: carried.suppressed,
                    from: carried.from,
                    duration: result.duration,
                },
            );
        }
        if let Some(analysis) = self.analysis {
            self.confirm_kills(supervisor, analysis, &results[..n], &observe, &mut chosen)?;
        }
        if chosen.is_empty() {
            return Ok(None);
        }
        let mut slimmed = Slimmed {
            spec: spec.clone(),
            suppressions: self.suppressions.clone(),
            tests: BTreeMap::new(),
        };
        for (test, viable) in chosen {
            slimmed
                .suppressions
                .assertions
                .retain(|id, _| id.test != test);
            for id in viable.suppressed {
                slimmed.suppressions.assertions.insert(id, None);
            }
            slimmed.spec.tests[test] = viable.executed;
            slimmed.tests.insert(
                test,
                SlimmedTest {
                    removal: viable.removal,
                    from: viable.from,
                },
            );
        }
        Ok(Some(slimmed))
    }

    /// What `result` reached of the class's file.
    fn reached(&self, result: &TestResult) -> BTreeSet<Reached> {
        let mut out = BTreeSet::new();
        for file in result.trace.files.iter().filter(|f| f.key == self.key) {
            for b in &file.branches {
                for (taken, distance) in [(true, b.true_distance), (false, b.false_distance)] {
                    if b.hits > 0 && distance == 0.0 {
                        out.insert(Reached::Outcome {
                            branch: b.id,
                            taken,
                        });
                    }
                }
            }
            out.extend(file.lines.iter().map(|(line, _)| Reached::Line(*line)));
            out.extend(file.methods.iter().map(|(m, _)| Reached::Method(*m)));
            out.extend(file.escapes.iter().map(|e| Reached::Escape {
                method: e.method,
                type_name: e.type_name.clone(),
            }));
        }
        out
    }

    /// Keeps of `chosen` the candidates that still kill every mutant their test killed with its
    /// kept assertions or its outcome; the others are dropped (their tests stay whole), as are
    /// all those the time bound leaves unconfirmed.
    fn confirm_kills(
        &self,
        supervisor: &mut Supervisor,
        analysis: &MutationAnalysis,
        originals: &[TestResult],
        observe: &ExecuteOptions,
        chosen: &mut BTreeMap<usize, Viable>,
    ) -> Result<(), jvm::JvmError> {
        let spec = self.spec;
        let required: BTreeMap<usize, BTreeSet<MutantId>> = chosen
            .keys()
            .map(|&test| {
                let kept: BTreeSet<AssertionId> =
                    planned_assertions(test, &spec.tests[test], &spec.facts)
                        .into_iter()
                        .map(|(id, _)| id)
                        .filter(|id| !self.suppressions.assertions.contains_key(id))
                        .collect();
                let killed = analysis
                    .kills
                    .get(test)
                    .map(|k| k.killed_with(&kept))
                    .unwrap_or_default();
                (test, killed)
            })
            .collect();
        // The spec as it would be, for the mutated runs to compare with.
        let mut slim_spec = spec.clone();
        let mut probed: Vec<StateProbes> = spec
            .tests
            .iter()
            .map(|t| with_state_probes(&t.test))
            .collect();
        let mut durations: Vec<Duration> = originals.iter().map(|r| r.duration).collect();
        for (&test, viable) in chosen.iter() {
            slim_spec.tests[test] = viable.executed.clone();
            probed[test] = viable.probed.clone();
            durations[test] = viable.duration;
        }
        let worker_tests: Vec<jvm::TestCase> =
            probed.iter().map(|p| to_worker_test(p.test())).collect();
        let batch = MutantBatch {
            unit: self.unit,
            key: self.key,
            spec: &slim_spec,
            worker_tests: &worker_tests,
            probed: &probed,
            durations: &durations,
            observe,
            timeout: self.execute.timeout_per_test,
        };
        let mut by_mutant: BTreeMap<MutantId, Vec<usize>> = BTreeMap::new();
        for (&test, mutants) in &required {
            for &m in mutants {
                by_mutant.entry(m).or_default().push(test);
            }
        }
        let mut kills = vec![TestKills::default(); spec.tests.len()];
        let started = Instant::now();
        let mut unconfirmed: BTreeSet<usize> = BTreeSet::new();
        for (mutant, tests) in by_mutant {
            if started.elapsed() >= self.confirm_within {
                unconfirmed.extend(tests);
                continue;
            }
            batch.run(supervisor, mutant, &tests, &mut kills)?;
        }
        chosen.retain(|test, viable| {
            let kept: BTreeSet<AssertionId> = viable.from.keys().copied().collect();
            !unconfirmed.contains(test)
                && kills[*test].killed_with(&kept).is_superset(&required[test])
        });
        Ok(())
    }
}
