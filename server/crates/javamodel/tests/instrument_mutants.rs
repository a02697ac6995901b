//! Mutants as schemata (docs/instrumentation.md, "Mutants"): a snapshot of the instrumented
//! source and of the mutant table of a fixture with every operator, and that without the option
//! nothing changes. Refresh with `UPDATE_EXPECT=1 cargo test -p javamodel --test instrument_mutants`.

use std::fmt::Write;
use std::path::Path;

use expect_test::expect_file;
use javamodel::instrument::{instrument, InstrumentOptions, Instrumented, MutationOperator};
use javamodel::JavaModel;

fn fixture() -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/instrument/mutants/Ledger.java");
    std::fs::read_to_string(path).unwrap()
}

fn run(src: &str, mutants: bool) -> Instrumented {
    let tree = syntax::parse_java(src, None);
    let model = JavaModel::build(src, &tree);
    let options = InstrumentOptions {
        mutants,
        ..InstrumentOptions::default()
    };
    instrument(src, &tree, &model, &options)
}

fn mutant_table(out: &Instrumented) -> String {
    let mut s = String::new();
    for (id, m) in out.probes.mutants.iter().enumerate() {
        writeln!(
            s,
            "{id} L{} {} {} {}",
            m.line,
            m.operator.as_str(),
            m.member.as_deref().unwrap_or("-"),
            m.description
        )
        .unwrap();
    }
    s
}

#[test]
fn every_operator_is_compiled_in_behind_its_id() {
    let src = fixture();
    let out = run(&src, true);
    expect_file!["instrument/snapshots/mutants/Ledger.java.instrumented"].assert_eq(&out.source);
    expect_file!["instrument/snapshots/mutants/Ledger.java.mutants"].assert_eq(&mutant_table(&out));
    for op in [
        MutationOperator::RelationalOperator,
        MutationOperator::NegatedCondition,
        MutationOperator::ArithmeticOperator,
        MutationOperator::Constant,
        MutationOperator::RemovedCall,
        MutationOperator::ReturnValue,
    ] {
        assert!(
            out.probes.mutants.iter().any(|m| m.operator == op),
            "no {op:?} mutant"
        );
    }
}

#[test]
fn lines_are_kept_and_constants_left_alone() {
    let src = fixture();
    let out = run(&src, true);
    assert_eq!(out.source.lines().count(), src.lines().count());
    for (original, instrumented) in src.lines().zip(out.source.lines()) {
        if original.contains("static final int LIMIT") {
            // A constant variable's initializer is a constant expression: no mutant there.
            assert_eq!(original, instrumented);
        }
        if original.trim() == "return 1;" {
            // A byte method's result cannot take an int back.
            assert!(!instrumented.contains("retInt"), "{instrumented}");
        }
    }
}

#[test]
fn without_the_option_there_are_no_mutants() {
    let src = fixture();
    let out = run(&src, false);
    assert!(out.probes.mutants.is_empty());
    assert!(!out.source.contains("ctgls.rt.Mutants"));
    assert!(!out.source.contains("static final int M ="));
}
