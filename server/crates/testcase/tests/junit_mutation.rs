//! Mutation analysis in the printer's terms: which planned assertions a mutated run fails, and
//! assertion selection by the mutants they kill (`testcase::junit::{assertion_kills,
//! select_assertions}`), on hand-built runs of a small `Inventory`.

use std::collections::BTreeSet;

mod common;

use common::junit::*;
use testcase::junit::{
    assertion_kills, planned_assertions, print_class, select_assertions, AssertionKind,
    ExecutedTest, Execution, GetterOutcome, JUnit, Observed, TestClassSpec, TestKills, TypeFacts,
    Value,
};
use testcase::{
    Access, ConstructorDescription, MethodDescription, PrimitiveValue as P, TypeDescription,
    TypeKind, VarRef,
};

const INVENTORY: &str = "shop.Inventory";

fn facts() -> TypeFacts {
    let m = |name: &str, params: &[&str], ret: &str| MethodDescription {
        access: Access::Public,
        name: name.into(),
        declaring_class: INVENTORY.into(),
        is_static: false,
        return_type: ret.into(),
        generic_return_type: None,
        params: params.iter().map(|p| common::param(p, p)).collect(),
        exceptions: vec![],
        varargs: false,
        type_parameters: vec![],
    };
    TypeFacts::from_descriptions(&[TypeDescription {
        access: Access::Public,
        name: INVENTORY.into(),
        kind: TypeKind::Class,
        is_public: true,
        project: true,
        inner_class: false,
        superclass: Some("java.lang.Object".into()),
        interfaces: vec![],
        type_parameters: vec![],
        constructors: vec![ConstructorDescription {
            access: Access::Public,
            params: vec![],
            exceptions: vec![],
            varargs: false,
            type_parameters: vec![],
        }],
        methods: vec![
            m("add", &["java.lang.String", "int"], "int"),
            m("getName", &[], "java.lang.String"),
            m("size", &[], "int"),
            m("isEmpty", &[], "boolean"),
        ],
        fields: vec![],
        enum_constants: vec![],
        subclasses: vec![],
    }])
}

fn state(size: i64, name: &str) -> Observed {
    object(
        INVENTORY,
        vec![
            ("getName", GetterOutcome::Value(text(name))),
            ("isEmpty", GetterOutcome::Value(Value::Bool(size == 0))),
            ("size", GetterOutcome::Value(Value::Integer(size))),
        ],
    )
}

/// `inventory.add("apple", 3)` returning `added`, leaving `size` items and the inventory named
/// `name`.
fn add_test(added: i64, size: i64, name: &str) -> ExecutedTest {
    let new_inventory = constructor(INVENTORY, &[], &[]);
    let add = method(INVENTORY, "add", &["java.lang.String", "int"], Some("int"));
    let mut test = executed(
        vec![
            lit(P::String("apple".into())),
            lit(P::Int(3)),
            new(&new_inventory, &[], t(INVENTORY)),
            call(&add, Some(2), &[0, 1]),
        ],
        vec![
            value("java.lang.String", text("apple")),
            value("int", Value::Integer(3)),
            Some(state(0, "main")),
            value("int", Value::Integer(added)),
        ],
    );
    test.execution
        .final_state
        .insert(VarRef(2), state(size, name));
    test
}

fn spec(tests: Vec<ExecutedTest>) -> TestClassSpec {
    let mut spec = TestClassSpec::new(INVENTORY, "InventoryGeneratedTest", JUnit::Five);
    spec.tests = tests;
    spec.facts = facts();
    spec.generator_version = "0.0.0-snapshot".into();
    spec
}

/// The planned assertion of test 0 whose printed subject contains `subject`.
fn assertion(spec: &TestClassSpec, subject: &str) -> testcase::junit::AssertionId {
    let printed = print_class(spec, &Default::default());
    printed.tests[0]
        .assertions
        .iter()
        .find(|a| a.subject.contains(subject))
        .unwrap_or_else(|| panic!("no assertion on {subject} in\n{}", printed.source))
        .id
}

#[test]
fn an_assertion_kills_a_mutant_when_the_value_it_checks_differs() {
    let original = add_test(3, 1, "main");
    let spec = spec(vec![original.clone()]);
    let facts = facts();
    let same: Execution = original.execution.clone();
    assert!(assertion_kills(0, &original, &same, &facts).is_empty());

    // Returns 4 and counts 2 items: the value and the size (and nothing else) fail.
    let mutated = add_test(4, 2, "main").execution;
    let killed = assertion_kills(0, &original, &mutated, &facts);
    let expected: BTreeSet<_> = [assertion(&spec, "add("), assertion(&spec, "size()")].into();
    assert_eq!(killed, expected);

    // Renames the inventory: only `getName` fails.
    let renamed = add_test(3, 1, "other").execution;
    let killed = assertion_kills(0, &original, &renamed, &facts);
    assert_eq!(killed, [assertion(&spec, "getName()")].into());
}

#[test]
fn selection_keeps_the_focal_assertion_and_those_that_kill_more() {
    let spec = spec(vec![add_test(3, 1, "main")]);
    let all = planned_assertions(0, &spec.tests[0], &spec.facts);
    assert_eq!(all.len(), 3, "{all:?}");
    assert!(all.iter().all(|(_, kind)| *kind != AssertionKind::Throws));
    let (value, size, name) = (
        assertion(&spec, "add("),
        assertion(&spec, "size()"),
        assertion(&spec, "getName()"),
    );
    // Mutant 0 changes the value; 1 and 2 the size; 2 also the name; 3 is killed by a crash.
    let mut kills = TestKills {
        reached: (0..5).collect(),
        ..TestKills::default()
    };
    kills.by_assertion.insert(value, [0].into());
    kills.by_assertion.insert(size, [1, 2].into());
    kills.by_assertion.insert(name, [2].into());
    kills.by_outcome.insert(3);
    let selected = select_assertions(&spec, std::slice::from_ref(&kills), 3);
    let kept: BTreeSet<_> = all
        .iter()
        .map(|(id, _)| *id)
        .filter(|id| !selected.assertions.contains_key(id))
        .collect();
    // The focal value, then `size()` (two new kills); `getName()` kills nothing new.
    assert_eq!(kept, [value, size].into());
    assert_eq!(
        kills.killed_with(&kept),
        kills.killed_with(&all.iter().map(|(id, _)| *id).collect())
    );
    let printed = print_class(&spec, &selected);
    let source = &printed.source;
    let asserting = source
        .lines()
        .filter(|l| l.trim_start().starts_with("assert"))
        .count();
    assert_eq!(asserting, 2, "{source}");
    assert!(!source.contains("// Not asserted"), "{source}");

    // With no room per test, the suite-level pass still brings `size()` back: without it the
    // selection would kill fewer mutants than all assertions together.
    let bounded = select_assertions(&spec, std::slice::from_ref(&kills), 0);
    assert_eq!(
        bounded.assertions.keys().copied().collect::<Vec<_>>(),
        [name]
    );

    // Mutants run and nothing killed: the focal assertion stays alone.
    let survived = TestKills {
        reached: [0].into(),
        ..TestKills::default()
    };
    let none = select_assertions(&spec, &[survived], 1);
    assert_eq!(none.assertions.len(), all.len() - 1);
    assert!(!none.assertions.contains_key(&value));
    // No mutant run for the test: no evidence, every assertion stays.
    let unknown = select_assertions(&spec, &[TestKills::default()], 1);
    assert!(unknown.assertions.is_empty());
}
