//! The static slice of `testcase::junit::slim_candidates`: which statements of a test the kept
//! assertions need, with getter-like calls taken for pure (first candidate) or not (second).

mod common;

use common::junit::*;
use testcase::junit::{planned_assertions, slim_candidates, JUnit, Suppressions, TestClassSpec};
use testcase::{JavaType, PrimitiveValue};

const INVENTORY: &str = "shop.Inventory";

#[test]
fn a_bystander_and_an_unasserted_getter_call_go() {
    let new_inventory = constructor(INVENTORY, &[], &[]);
    let get_name = method(INVENTORY, "getName", &[], Some("java.lang.String"));
    let add = method(INVENTORY, "add", &["java.lang.String", "int"], Some("int"));
    let ty = JavaType::class(INVENTORY);
    // 0: a bystander; 1: the inventory asserted on; 2: a getter call whose value is not kept;
    // 3, 4, 5: add("pear", 2), the call the test is named after.
    let executed = executed(
        vec![
            new(&new_inventory, &[], ty.clone()),
            new(&new_inventory, &[], ty),
            call(&get_name, Some(1), &[]),
            lit(PrimitiveValue::String("pear".into())),
            lit(PrimitiveValue::Int(2)),
            call(&add, Some(1), &[3, 4]),
        ],
        vec![
            Some(object(INVENTORY, vec![])),
            Some(object(INVENTORY, vec![])),
            value("java.lang.String", text("shop")),
            value("java.lang.String", text("pear")),
            value("java.lang.Integer", testcase::junit::Value::Integer(2)),
            value("java.lang.Integer", testcase::junit::Value::Integer(1)),
        ],
    );
    let mut spec = TestClassSpec::new(INVENTORY, "InventoryGeneratedTest", JUnit::Five);
    spec.tests = vec![executed];
    // Keep only the assertion on `add`'s value (the last planned one).
    let planned = planned_assertions(0, &spec.tests[0], &spec.facts);
    let mut suppressions = Suppressions::default();
    for (id, _) in &planned[..planned.len() - 1] {
        suppressions.assertions.insert(*id, None);
    }
    let candidates = slim_candidates(&spec, 0, &suppressions);
    let removed: Vec<Vec<usize>> = candidates.iter().map(|c| c.removed.clone()).collect();
    assert_eq!(removed, vec![vec![0, 2], vec![0]]);
    assert_eq!(candidates[0].kept, vec![1, 3, 4, 5]);
    assert_eq!(
        candidates[0].test.to_string(),
        "shop.Inventory v0 = new shop.Inventory();\njava.lang.String v1 = \"pear\";\nint v2 = 2;\nint v3 = v0.add(v1, v2);\n"
    );
    // With every assertion kept, the getter's value is asserted: only the bystander, which
    // nothing asserts (no getters observed), goes.
    let all_kept = slim_candidates(&spec, 0, &Suppressions::default());
    let removed: Vec<Vec<usize>> = all_kept.iter().map(|c| c.removed.clone()).collect();
    assert_eq!(removed, vec![vec![0]]);
}
