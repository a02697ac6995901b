//! The Coupled Branches Criterion as search goals (Derakhshanfar et al., "Generating
//! Class-Level Integration Tests Using Call Site Information", sections 3.1.4-3.2.2): an
//! integration table over a caller and a callee, Equation 2's fitness, and the targets.

mod common;

use std::time::Duration;

use common::{Call, Easy, FakeExecutor, ToyProgram, ToyTest, ToyVariation};
use javamodel::coupling::{couple, CallerBranch};
use javamodel::{JavaModel, Outcome};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use search::{
    goal_fitness, Algorithm, Criteria, Criterion, Dependency, ExecutionResult, ExecutionStatus,
    GoalTable, GoalsManager, ManualClock, MaxExecutions, Search, SearchConfig, StaticGoalKind,
    TestCodeProxies, Variation,
};

const CALLER: &str = "package p;
public class Person {
    private final Car car = new Car();
    public void addEnergy(boolean lazy) {
        if (!lazy) {
            car.refuel(5);
        }
    }
}
";

const CALLEE: &str = "package p;
public class Car {
    private int fuel;
    public void refuel(int litres) {
        if (litres > 0) {
            fuel += litres;
        }
    }
}
";

fn model(source: &str) -> JavaModel {
    JavaModel::build(source, &syntax::parse_java(source, None))
}

fn table() -> GoalTable {
    let (caller, callee) = (model(CALLER), model(CALLEE));
    let coupling = couple(&caller, "p.Person", &callee, "p.Car").unwrap();
    GoalTable::for_integration(
        &caller,
        "p.Person",
        &callee,
        "p.Car",
        &coupling.test_class,
        &coupling.pairs(),
        Criteria::all(),
    )
    .unwrap()
}

#[test]
fn the_table_has_both_classes_branches_then_one_goal_per_coupled_branch() {
    let table = table();
    assert_eq!(table.binary_name(), "p.Person");
    // `lazy` (T/F) in the caller, `litres > 0` (T/F) in the callee.
    assert_eq!(table.branch_goal_count(), 4);
    // (lazy F, litres>0 T) and (lazy F, litres>0 F): the paper's Figure 3 example.
    assert_eq!(table.coupled().len(), 2);
    assert_eq!(table.goals_of(Criterion::Coupled).count(), 2);
    assert_eq!(table.goals_of(Criterion::Line).count(), 0, "no line goals");
    let first = &table.coupled()[0];
    assert!(matches!(&first.pair.caller, CallerBranch::Goal(g) if g.outcome == Outcome::False));
    assert!(matches!(first.caller, Dependency::Goal(_)));
    assert!(table
        .enabled_criteria()
        .any(|criterion| criterion == Criterion::Coupled));
    let described = table.describe(table.coupled_goal(0).unwrap()).unwrap();
    assert!(
        described.starts_with("coupled (p.Person#addEnergy(boolean)/B0.F"),
        "{described}"
    );
}

#[test]
fn a_unit_table_has_no_coupled_criterion() {
    let table = GoalTable::for_class(&model(CALLEE), "p.Car", Criteria::all()).unwrap();
    assert!(table.coupled().is_empty());
    assert!(table
        .enabled_criteria()
        .all(|criterion| criterion != Criterion::Coupled));
}

/// Equation 2: `D(r) + 1` while the caller branch is missed, `D(e)` once it is taken.
#[test]
fn fitness_is_the_caller_distance_plus_one_then_the_callee_distance() {
    let table = table();
    let lazy = table
        .decisions()
        .iter()
        .position(|d| d.key.member == "p.Person#addEnergy(boolean)")
        .map(|i| search::DecisionId(i as u32))
        .unwrap();
    let litres = table
        .decisions()
        .iter()
        .position(|d| d.key.member == "p.Car#refuel(int)")
        .map(|i| search::DecisionId(i as u32))
        .unwrap();
    let goals: Vec<_> = table.goals_of(Criterion::Coupled).collect();
    let callee_outcome = |g: search::GoalId| {
        let StaticGoalKind::Coupled { pair } = table.goal(g).unwrap().kind else {
            unreachable!()
        };
        table.coupled()[pair as usize].pair.callee.outcome
    };
    let to_true = *goals
        .iter()
        .find(|&&g| callee_outcome(g) == Outcome::True)
        .unwrap();
    let to_false = *goals
        .iter()
        .find(|&&g| callee_outcome(g) == Outcome::False)
        .unwrap();

    // The caller branch missed by distance 1 (lazy was true): D(r) = 1/2, so 1.5.
    let mut missed = ExecutionResult::new(&table, ExecutionStatus::Ok);
    missed.record_branch(&table, lazy, 1, 0.0, 1.0);
    let fitness = goal_fitness(&table, &missed);
    assert_eq!(fitness[to_true.index()], 1.5);
    assert_eq!(fitness[to_false.index()], 1.5);

    // The caller branch taken and refuel(0) run: the pair with `litres > 0` false is covered,
    // the other is the callee's normalised distance 1/2.
    let mut taken = ExecutionResult::new(&table, ExecutionStatus::Ok);
    taken.record_branch(&table, lazy, 1, 1.0, 0.0);
    taken.record_branch(&table, litres, 1, 1.0, 0.0);
    let fitness = goal_fitness(&table, &taken);
    assert_eq!(fitness[to_false.index()], 0.0);
    assert_eq!(fitness[to_true.index()], 0.5);

    // The callee's branch covered by another route than the caller's branch does not count.
    let mut elsewhere = ExecutionResult::new(&table, ExecutionStatus::Ok);
    elsewhere.record_branch(&table, litres, 1, 0.0, 1.0);
    assert!(goal_fitness(&table, &elsewhere)[to_true.index()] > 1.0);
}

/// Section 3.2.2: the targets are the coupled goals only.
#[test]
fn only_coupled_goals_are_targets() {
    let table = table();
    let targets = GoalsManager::coupled(&table).targets();
    assert_eq!(
        targets,
        table.goals_of(Criterion::Coupled).collect::<Vec<_>>()
    );
}

/// The toy operators, with method 0 as the one covering method.
struct Covering(ToyVariation);

impl Variation for Covering {
    type Individual = ToyTest;
    fn random(&mut self, rng: &mut StdRng) -> ToyTest {
        self.0.random(rng)
    }
    fn mutate(&mut self, test: &mut ToyTest, rng: &mut StdRng) -> bool {
        self.0.mutate(test, rng)
    }
    fn crossover(&mut self, a: &ToyTest, b: &ToyTest, rng: &mut StdRng) -> (ToyTest, ToyTest) {
        self.0.crossover(a, b, rng)
    }
    fn len(&self, test: &ToyTest) -> usize {
        self.0.len(test)
    }
    fn accept_seed(&mut self, test: &ToyTest) -> bool {
        self.0.accept_seed(test)
    }
    fn test_code_proxies(&self, test: &ToyTest) -> TestCodeProxies {
        self.0.test_code_proxies(test)
    }
    fn has_covering_call(&self, test: &ToyTest) -> bool {
        test.calls.iter().any(|c| c.method == 0)
    }
    /// Fails half the time, so the repair loop is exercised.
    fn insert_covering_call(&mut self, test: &mut ToyTest, rng: &mut StdRng) -> bool {
        if rng.gen_bool(0.5) {
            return false;
        }
        let at = rng.gen_range(0..=test.calls.len());
        test.calls.insert(
            at,
            Call {
                method: 0,
                args: [rng.gen_range(-9..9), 0],
            },
        );
        true
    }
}

/// Section 3.2.4: every test the search runs calls a covering method: random tests are
/// repaired, children of crossover without one are replaced by a parent, and mutated children
/// are repaired (or dropped).
#[test]
fn every_executed_test_calls_a_covering_method() {
    let table = common::table(common::EASY, "toy.Easy", Criteria::branch_only());
    for algorithm in [Algorithm::Mosa, Algorithm::DynaMosa] {
        let config = SearchConfig {
            algorithm,
            ..SearchConfig::default()
        };
        let mut variation = Covering(ToyVariation::new(Easy.methods(), 100));
        let clock = ManualClock::new();
        let mut executor =
            FakeExecutor::new(&table, Easy).with_clock(clock.clone(), Duration::from_millis(1));
        let mut rng = StdRng::seed_from_u64(7);
        let result = Search::new(&table, &config, &mut variation, &mut executor)
            .clock(&clock)
            .stop_when(MaxExecutions(600))
            .run(&mut rng);
        assert!(executor.log.len() >= 300, "{}", executor.log.len());
        let broken = executor
            .log
            .iter()
            .filter(|t| !t.calls.iter().any(|c| c.method == 0))
            .count();
        assert_eq!(broken, 0, "{algorithm:?}");
        assert!(result.archive.distinct_tests() > 0);
    }
}

/// A call in a field initializer couples the initializer's entry, which no probe reports: it is
/// taken whenever the callee's branch is, since the initializer runs with every constructor.
#[test]
fn a_field_initializer_call_is_covered_with_the_callee_branch() {
    let caller =
        model("package p;\npublic class Shop {\n    private final Car car = new Car(3);\n}\n");
    let callee = model("package p;\npublic class Car {\n    private int fuel;\n    public Car(int fuel) {\n        if (fuel > 0) { this.fuel = fuel; }\n    }\n}\n");
    let coupling = couple(&caller, "p.Shop", &callee, "p.Car").unwrap();
    let table = GoalTable::for_integration(
        &caller,
        "p.Shop",
        &callee,
        "p.Car",
        "p.Shop",
        &coupling.pairs(),
        Criteria::all(),
    )
    .unwrap();
    assert_eq!(table.coupled().len(), 2);
    let fuel = search::DecisionId(
        table
            .decisions()
            .iter()
            .position(|d| d.key.member == "p.Car#<init>(int)")
            .unwrap() as u32,
    );
    let mut run = ExecutionResult::new(&table, ExecutionStatus::Ok);
    run.record_branch(&table, fuel, 1, 0.0, 3.0);
    let fitness = goal_fitness(&table, &run);
    let scores: Vec<f64> = table
        .goals_of(Criterion::Coupled)
        .map(|g| fitness[g.index()])
        .collect();
    assert!(scores.contains(&0.0), "{scores:?}");
    assert!(scores.contains(&0.75), "{scores:?}");
}
