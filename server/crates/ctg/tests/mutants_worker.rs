//! Mutant schemata in the real worker: a file instrumented with its mutants compiles in one
//! round, runs like the original with no mutant active, and a mutant switched on by id through
//! the execute request (`ExecuteOptions::mutant`) changes what the code does; a mutant that
//! loops forever ends at the per-test deadline, and the next request runs unmutated again.

use std::path::Path;

use ctg::compile::{compile_instrumented_with, CompiledUnit};
use jvm::*;

mod instrument_support;
use instrument_support::*;

const LEDGER: &str = "ledger.Ledger";

fn ledger() -> Vec<SourceFile> {
    let file = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../javamodel/tests/instrument/mutants/Ledger.java");
    vec![source("ledger/Ledger.java", &file)]
}

/// The local id of the one mutant on `line` described as `description`.
fn mutant(compiled: &CompiledUnit, line: u32, description: &str) -> ActiveMutant {
    let file = &compiled.files[0];
    let ids: Vec<usize> = (file.probes.mutants.iter().enumerate())
        .filter(|(_, m)| m.line == line && m.description == description)
        .map(|(id, _)| id)
        .collect();
    assert_eq!(ids.len(), 1, "{description} on line {line}: {ids:?}");
    ActiveMutant {
        key: file.probes.key.clone(),
        id: ids[0] as u32,
    }
}

fn returned(r: &TestResult) -> Option<ObservedValue> {
    match r.statements.last()? {
        StatementResult::Value(o) => o.value.clone(),
        StatementResult::Void => None,
    }
}

#[test]
fn a_switched_on_mutant_changes_behaviour_and_the_original_is_back_after_it() {
    let mut sup = supervisor();
    let compiled = compile_instrumented_with(&mut sup, &request(ledger()), &[LEDGER.into()], true)
        .expect("the ledger compiles with its mutants");
    assert_eq!(
        compiled.rounds,
        1,
        "no mutant needed a fallback: {:#?}",
        compiled.fallbacks().collect::<Vec<_>>()
    );
    assert!(compiled.files[0].probes.mutants.len() > 50);
    let unit = compiled.unit;
    let fee = test_case(&call(
        LEDGER,
        Some(A::New(LEDGER)),
        "fee",
        &["int"],
        vec![A::I(10)],
    ));
    let sum = test_case(&call(
        LEDGER,
        Some(A::New(LEDGER)),
        "sumTo",
        &["int"],
        vec![A::I(4)],
    ));
    let run = |sup: &mut Supervisor, mutant: Option<ActiveMutant>, test: &TestCase| {
        let opts = ExecuteOptions {
            mutant,
            ..options(&[LEDGER])
        };
        let results = finished(
            sup.execute(unit, std::slice::from_ref(test), &opts)
                .unwrap(),
        );
        results.into_iter().next().unwrap()
    };

    // 10 * 3 + 2 = 32; 0 + 1 + 2 + 3 = 6.
    let original = run(&mut sup, None, &fee);
    assert_eq!(returned(&original), Some(ObservedValue::Integer(32)));
    let cases = [
        (21, "`*` replaced by `+`", 15),
        (21, "`2` replaced by `3`", 33),
        (21, "`+` replaced by `-`", 28),
        (25, "returned value replaced by 0 (by 1 when it was 0)", 0),
    ];
    for (line, description, expected) in cases {
        let r = run(&mut sup, Some(mutant(&compiled, line, description)), &fee);
        assert_eq!(
            returned(&r),
            Some(ObservedValue::Integer(expected)),
            "{description}"
        );
        assert!(r.fresh_loader, "a mutated test gets a fresh class loader");
    }
    // A mutant of another method leaves `fee` as it was.
    let elsewhere = mutant(&compiled, 46, "`+` replaced by `-`");
    assert_eq!(
        returned(&run(&mut sup, Some(elsewhere.clone()), &fee)),
        Some(ObservedValue::Integer(32))
    );
    assert_eq!(
        returned(&run(&mut sup, Some(elsewhere), &sum)),
        Some(ObservedValue::Integer(-6))
    );

    // `i = i + 0` never ends: the probes' deadline stops the test.
    let forever = mutant(&compiled, 45, "`1` replaced by `0`");
    let opts = ExecuteOptions {
        mutant: Some(forever),
        timeout_per_test: std::time::Duration::from_millis(500),
        ..options(&[LEDGER])
    };
    match sup
        .execute(unit, std::slice::from_ref(&sum), &opts)
        .unwrap()
    {
        ExecutionOutcome::Finished(r) => assert_eq!(r[0].status, TestStatus::Timeout),
        ExecutionOutcome::Timeout { .. } => {}
        other => panic!("expected a timeout, got {other:#?}"),
    }
    // The mutant is off again for the next request.
    assert_eq!(
        returned(&run(&mut sup, None, &sum)),
        Some(ObservedValue::Integer(6))
    );
}

/// The infection distances `result`'s trace reports for the ledger's file, by (line,
/// description) of the mutant; each mutant at most once.
fn infections(
    compiled: &CompiledUnit,
    result: &TestResult,
) -> std::collections::BTreeMap<(u32, String), f64> {
    let probes = &compiled.files[0].probes;
    let rows: Vec<(u32, f64)> = result
        .trace
        .files
        .iter()
        .filter(|f| f.key == probes.key)
        .flat_map(|f| f.mutants.iter().copied())
        .collect();
    let mut ids: Vec<u32> = rows.iter().map(|(id, _)| *id).collect();
    ids.dedup();
    assert_eq!(ids.len(), rows.len(), "one row per mutant: {rows:?}");
    rows.into_iter()
        .map(|(id, distance)| {
            let m = &probes.mutants[id as usize];
            ((m.line, m.description.clone()), distance)
        })
        .collect()
}

/// Weak mutation: with no mutant on, the probes report per reached mutant the distance to its
/// value differing from the original's, per operator as EvoSuite measures it, the minimum over
/// the test once; a mutated run reports none.
#[test]
fn the_probes_report_each_reached_mutants_infection_distance() {
    let mut sup = supervisor();
    let compiled = compile_instrumented_with(&mut sup, &request(ledger()), &[LEDGER.into()], true)
        .expect("the ledger compiles with its mutants");
    let unit = compiled.unit;
    let run =
        |sup: &mut Supervisor, mutant: Option<ActiveMutant>, method: &'static str, arg: i32| {
            let test = test_case(&call(
                LEDGER,
                Some(A::New(LEDGER)),
                method,
                &["int"],
                vec![A::I(arg)],
            ));
            let opts = ExecuteOptions {
                mutant,
                ..options(&[LEDGER])
            };
            finished(sup.execute(unit, &[test], &opts).unwrap())
                .into_iter()
                .next()
                .unwrap()
        };
    let at = |line: u32, description: &str| (line, description.to_string());

    // fee(10): base = 10 * 3 + 2 = 32, `32 >= 105` false, `return base`.
    let fee = infections(&compiled, &run(&mut sup, None, "fee", 10));
    let expected = [
        // Arithmetic: 0 when the replaced operator gives another value.
        (at(21, "`*` replaced by `+`"), 0.0),
        (at(21, "`+` replaced by `%`"), 0.0),
        // Constants always differ.
        (at(21, "`3` replaced by `0`"), 0.0),
        // Relational, d = 32 - 105 = -73: `>=` and `==` differ only above 0 (73 + 1 away),
        // `>=` and `>` only at 0 (73 away), `>=` and `<=` below 0 (infected).
        (at(22, "`>=` replaced by `==`"), 74.0),
        (at(22, "`>=` replaced by `>`"), 73.0),
        (at(22, "`>=` replaced by `<=`"), 0.0),
        // A negated condition and a replaced return value differ whenever they run.
        (at(22, "`base >= LIMIT` negated"), 0.0),
        (
            at(25, "returned value replaced by 0 (by 1 when it was 0)"),
            0.0,
        ),
    ];
    for (key, distance) in expected {
        assert_eq!(fee.get(&key), Some(&distance), "{key:?} in {fee:#?}");
    }
    assert!(
        !fee.keys().any(|(line, _)| *line == 23 || *line == 46),
        "mutants that did not run are not reported: {fee:#?}"
    );

    // fee(0): 0 * 3 is 0 / 3 and 0 % 3 too: not infected.
    let zero = infections(&compiled, &run(&mut sup, None, "fee", 0));
    assert_eq!(zero.get(&at(21, "`*` replaced by `/`")), Some(&1.0));
    assert_eq!(zero.get(&at(21, "`*` replaced by `-`")), Some(&0.0));

    // sumTo(4): `i < 4` runs five times, d = -4 .. 0; `<` and `!=` differ only above 0, the
    // closest d (0) is 1 away: the minimum is kept.
    let sum = infections(&compiled, &run(&mut sup, None, "sumTo", 4));
    assert_eq!(sum.get(&at(45, "`<` replaced by `!=`")), Some(&1.0));
    assert_eq!(sum.get(&at(45, "`<` replaced by `<=`")), Some(&0.0));

    // A mutated run measures no infection.
    let mutated = run(
        &mut sup,
        Some(mutant(&compiled, 21, "`2` replaced by `3`")),
        "fee",
        10,
    );
    assert!(infections(&compiled, &mutated).is_empty());
}
