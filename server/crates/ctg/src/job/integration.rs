//! Class-integration tests in the job (Derakhshanfar, Devroey, Zaidman, van Deursen and
//! Panichella, "Generating Class-Level Integration Tests Using Call Site Information"): with
//! `GenerationRequest::callee`, the job computes the coupled branches of the class under test
//! (the caller) with the callee from both models (`javamodel::coupling`), searches over an
//! integration goal table (`search::GoalTable::for_integration`: Cling's MOSA over the pairs),
//! keeps a covering method in every test (the variation's repair, `search::Variation`), and
//! reports which pairs the final tests cover.
//!
//! When the caller is the callee's superclass (the callee redefines methods the caller calls),
//! the job generates the tests for the subclass, as the paper does (section 3.2.5): the request
//! is rewritten so that the class under test is the callee and the caller is
//! `GenerationRequest::integration_caller` ([`through_subclass`]); the covering methods are the
//! caller's methods the subclass inherits without redefining them (`javamodel::coupling`), which
//! the subclass's cluster offers as its own targets.
//!
//! Deviations from the paper, and why:
//! - Covering methods are "preferred when sampling" by inserting a call of one into every
//!   random test (the paper raises their insertion probability in EvoSuite's sampler, whose
//!   weights ctgls's sampler does not have); MOSA's repair then keeps one in every test.

use std::sync::Arc;

use javamodel::coupling::{Coupling, Relation};
use javamodel::instrument::ProbeTable;
use javamodel::JavaModel;
use search::{GoalTable, StaticGoalKind};
use testcase::{Callable, CallableKind, Cluster};

use super::result::{CoupledCoverage, CoupledPairCoverage};
use super::setup::{self, ProjectSource};
use super::GenerationRequest;

/// The request to run for an integration request whose caller (`class`) is the superclass of
/// its callee (section 3.2.5: "Cling generates tests for the callee class"): the callee becomes
/// the class under test and the caller `integration_caller`. `None` for every other request.
/// Seeds of the caller's stored unit tests are dropped: they call another class.
pub(crate) fn through_subclass(
    request: &GenerationRequest,
    sources: &[ProjectSource],
) -> Option<GenerationRequest> {
    let callee = request.callee.as_ref()?;
    if request.integration_caller.is_some() || *callee == request.class {
        return None;
    }
    let caller_source = setup::locate(&request.layout, sources, &request.class)?;
    let callee_source = setup::locate(&request.layout, sources, callee)?;
    let coupling = javamodel::coupling::couple(
        &caller_source.model,
        &request.class,
        &callee_source.model,
        callee,
    )
    .ok()?;
    (coupling.relation == Relation::CalleeExtendsCaller).then(|| {
        let mut through = request.clone();
        through.integration_caller = Some(request.class.clone());
        through.class = callee.clone();
        through.warm_start.clear();
        through.warm_start_from = None;
        through
    })
}

/// One class of an integration pair as the job compiled it.
pub(crate) struct PairClass<'a> {
    pub class: &'a str,
    pub model: &'a JavaModel,
    pub probes: &'a ProbeTable,
}

/// The caller and the callee of an integration request, each either the class under test or
/// one of the classes the job instrumented besides.
pub(crate) struct Pair<'a> {
    pub caller: PairClass<'a>,
    pub callee: PairClass<'a>,
}

impl<'a> Pair<'a> {
    pub(crate) fn of(
        request: &'a GenerationRequest,
        context: &'a super::Context<'a>,
    ) -> Option<Self> {
        let find = |name: &'a str| -> Option<PairClass<'a>> {
            if name == request.class {
                return Some(PairClass {
                    class: name,
                    model: &context.cut.model,
                    probes: context.probes,
                });
            }
            let also = context.also.iter().find(|also| also.class == name)?;
            Some(PairClass {
                class: also.class,
                model: also.model,
                probes: also.probes,
            })
        };
        let caller = request
            .integration_caller
            .as_deref()
            .unwrap_or(&request.class);
        Some(Pair {
            caller: find(caller)?,
            callee: find(request.callee.as_deref()?)?,
        })
    }
}

/// The cluster's targets that are covering methods of `coupling` (matched by declaring class,
/// name and the simple names of the parameter types, as the trace mapper matches members).
pub(crate) fn covering_callables(cluster: &Cluster, coupling: &Coupling) -> Vec<Arc<Callable>> {
    let wanted: Vec<(String, String, Vec<String>)> = coupling
        .covering_methods
        .iter()
        .filter_map(|key| {
            let (class, rest) = key.split_once('#')?;
            let (name, params) = rest.strip_suffix(')')?.split_once('(')?;
            let params = if params.is_empty() {
                Vec::new()
            } else {
                super::trace_mapping::split_params(params)
                    .map(super::trace_mapping::simple_type)
                    .collect()
            };
            Some((class.to_string(), name.to_string(), params))
        })
        .collect();
    cluster
        .targets()
        .filter(|callable| {
            let name = match &callable.kind {
                CallableKind::Constructor => "<init>",
                CallableKind::Method { name, .. } => name.as_str(),
                _ => return false,
            };
            let params: Vec<String> = callable
                .erased_params
                .iter()
                .map(|p| super::trace_mapping::simple_type(p))
                .collect();
            wanted.iter().any(|(class, wanted_name, wanted_params)| {
                *class == callable.declaring_class
                    && wanted_name == name
                    && *wanted_params == params
            })
        })
        .cloned()
        .collect()
}

/// A warning when the pair cannot be tested as the paper does, or has nothing to cover.
pub(crate) fn warnings(coupling: &Coupling, covering: usize) -> Vec<String> {
    let mut out = Vec::new();
    if coupling.sites.is_empty() {
        out.push(format!(
            "{} never calls {}: there are no coupled branches to cover",
            coupling.caller, coupling.callee
        ));
    } else if coupling.pairs().is_empty() {
        out.push(format!(
            "{} calls {}, but no call site reaches a branch of {}: there are no coupled \
             branches to cover",
            coupling.caller, coupling.callee, coupling.callee
        ));
    } else if covering == 0 {
        out.push(format!(
            "no method a test can call runs a call of {} in {}: tests are not repaired to \
             call one",
            coupling.callee, coupling.caller
        ));
    }
    out
}

/// The coupled branches of `table` with the first of `per_test` (each final test's fitness, in
/// order) that covers each.
pub(crate) fn coverage(
    table: &GoalTable,
    coupling: &Coupling,
    per_test: &[Vec<f64>],
) -> CoupledCoverage {
    let pairs = table
        .goals()
        .iter()
        .enumerate()
        .filter_map(|(index, goal)| {
            let StaticGoalKind::Coupled { pair } = goal.kind else {
                return None;
            };
            let coupled = table.coupled().get(pair as usize)?;
            let covered_by = per_test
                .iter()
                .position(|fitness| fitness.get(index) == Some(&0.0));
            Some(CoupledPairCoverage {
                caller_branch: coupled.pair.caller.to_string(),
                callee_branch: coupled.pair.callee.to_string(),
                call_sites: coupling
                    .sites_of(&coupled.pair)
                    .map(|site| site.span.start.row as u32 + 1)
                    .collect(),
                covered_by,
            })
        })
        .collect();
    CoupledCoverage {
        caller: coupling.caller.clone(),
        callee: coupling.callee.clone(),
        covering_methods: coupling.covering_methods.clone(),
        pairs,
    }
}

/// What the final tests of a unit run cover of the coupled branches between the class under test
/// (`class` in `model`, whose file's probes are `probes`) and a class the job instrumented
/// besides: measured through an integration table over the tests' final traces, as an
/// integration run's are. The per-test pairs go to each test's last `also_covered` entry (the
/// caller appends that entry first). `None` when the class does not call it.
pub(crate) fn unit_coverage(
    model: &javamodel::JavaModel,
    class: &str,
    probes: &javamodel::instrument::ProbeTable,
    also: &super::report::AlsoInstrumented<'_>,
    criteria: search::Criteria,
    tests: &mut [super::result::GeneratedTest],
) -> Option<CoupledCoverage> {
    let coupling = javamodel::coupling::couple(model, class, also.model, also.class).ok()?;
    let pairs = coupling.pairs();
    if pairs.is_empty() {
        return None;
    }
    let table = GoalTable::for_integration(
        model, class, also.model, also.class, class, &pairs, criteria,
    )?;
    let mapper = super::TraceMapper::new(&table, probes).with_goal_file(also.probes);
    let per_test: Vec<Vec<f64>> = tests
        .iter()
        .map(|test| search::goal_fitness(&table, &mapper.map(&test.test, &test.result)))
        .collect();
    for (test, fitness) in tests.iter_mut().zip(&per_test) {
        if let Some(own) = test.also_covered.last_mut() {
            own.coupled = covered_by_test(&table, fitness);
        }
    }
    Some(coverage(&table, &coupling, &per_test))
}

/// The indexes of the pairs of `coverage` that a test with `fitness` covers.
pub(crate) fn covered_by_test(table: &GoalTable, fitness: &[f64]) -> Vec<usize> {
    table
        .goals()
        .iter()
        .enumerate()
        .filter(|(_, goal)| matches!(goal.kind, StaticGoalKind::Coupled { .. }))
        .enumerate()
        .filter(|(_, (index, _))| fitness.get(*index) == Some(&0.0))
        .map(|(pair, _)| pair)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn model(source: &str) -> javamodel::JavaModel {
        javamodel::JavaModel::build(source, &syntax::parse_java(source, None))
    }

    /// The pairs a test covers are those whose fitness is 0 in its run, and a pair's first
    /// covering test is the first such run; the call site lines come from the model.
    #[test]
    fn coverage_follows_each_tests_fitness() {
        let caller = model(
            "package p;\npublic class Shop {\n    public void buy(Car car, boolean cash) {\n        if (cash) {\n            car.pay(1);\n        }\n    }\n}\n",
        );
        let callee = model(
            "package p;\npublic class Car {\n    public void pay(int n) {\n        if (n > 0) { n--; }\n    }\n}\n",
        );
        let coupling = javamodel::coupling::couple(&caller, "p.Shop", &callee, "p.Car").unwrap();
        let table = GoalTable::for_integration(
            &caller,
            "p.Shop",
            &callee,
            "p.Car",
            "p.Shop",
            &coupling.pairs(),
            search::Criteria::all(),
        )
        .unwrap();
        let goals: Vec<usize> = table
            .goals_of(search::Criterion::Coupled)
            .map(|g| g.index())
            .collect();
        assert_eq!(goals.len(), 2);
        let mut first = vec![1.0; table.goal_count()];
        let mut second = first.clone();
        first[goals[1]] = 0.0;
        second[goals[0]] = 0.0;
        second[goals[1]] = 0.0;
        assert_eq!(covered_by_test(&table, &first), vec![1]);
        assert_eq!(covered_by_test(&table, &second), vec![0, 1]);
        let coverage = coverage(&table, &coupling, &[first, second]);
        assert_eq!((coverage.covered(), coverage.total()), (2, 2));
        assert_eq!(coverage.pairs[0].covered_by, Some(1));
        assert_eq!(coverage.pairs[1].covered_by, Some(0));
        assert_eq!(coverage.pairs[0].call_sites, vec![5]);
        assert_eq!(
            coverage.pairs[0].caller_branch,
            "p.Shop#buy(Car,boolean)/B0.T"
        );
        assert_eq!(coverage.covering_methods, vec!["p.Shop#buy(Car,boolean)"]);
    }

    #[test]
    fn a_pair_without_calls_or_covering_methods_is_warned_about() {
        let person = model("package p;\npublic class Person {\n    public void go() { if (tired()) { rest(); } }\n    protected boolean tired() { return true; }\n    protected void rest() {}\n}\n");
        let green = model("package p;\npublic class Green extends Person {\n    protected void rest() { if (tired()) { return; } }\n}\n");
        let coupling = javamodel::coupling::couple(&person, "p.Person", &green, "p.Green").unwrap();
        // A superclass caller is tested through the subclass, as the paper does: nothing to
        // warn about while a covering method is there.
        assert!(warnings(&coupling, 1).is_empty());
        assert!(warnings(&coupling, 0)[0].contains("no method a test can call"));
        let none = javamodel::coupling::couple(
            &green,
            "p.Green",
            &model("package p;\npublic class Other {}\n"),
            "p.Other",
        )
        .unwrap();
        assert!(warnings(&none, 0)[0].contains("never calls"));
    }
}
