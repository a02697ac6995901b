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
