//! The record format without the disk: what is written reads back equal, bit for bit, and
//! every broken text is an error value.

mod store_fixtures;

use std::collections::BTreeSet;

use ctg::store::*;
use rand::rngs::StdRng;
use rand::SeedableRng;
use store_fixtures::*;
use testcase::{check_well_typed, PrimitiveValue, Statement, TestCase, Variation};

fn record(tests: Vec<StoredTest>) -> ClassRecord {
    let run = finished_run(ACCOUNT, 1_700_000_000_000, "h1", tests, coverage(3, 4));
    record_after(&[], &run)
}

fn round_trip(r: &ClassRecord) -> ClassRecord {
    let text = encode_record(r).unwrap();
    decode_record(&text).unwrap_or_else(|e| panic!("{e}\n{text}"))
}

fn statement_kind(s: &Statement) -> &'static str {
    match s {
        Statement::Primitive(_) => "primitive",
        Statement::Null(_) => "null",
        Statement::EnumConstant { .. } => "enum constant",
        Statement::Constructor { .. } => "constructor",
        Statement::Method { .. } => "method",
        Statement::FieldRead { .. } => "field read",
        Statement::FieldWrite { .. } => "field write",
        Statement::ArrayNew { .. } => "array new",
        Statement::ArrayStore { .. } => "array store",
        Statement::ConsoleInput { .. } => "console input",
        Statement::SystemProperty { .. } => "system property",
        Statement::InputFile { .. } => "input file",
    }
}

fn value_kind(v: &PrimitiveValue) -> &'static str {
    match v {
        PrimitiveValue::Boolean(_) => "boolean",
        PrimitiveValue::Byte(_) => "byte",
        PrimitiveValue::Short(_) => "short",
        PrimitiveValue::Char(_) => "char",
        PrimitiveValue::Int(_) => "int",
        PrimitiveValue::Long(_) => "long",
        PrimitiveValue::Float(_) => "float",
        PrimitiveValue::Double(_) => "double",
        PrimitiveValue::String(_) => "string",
    }
}

#[test]
fn every_statement_and_value_kind_round_trips() {
    let c = account_cluster();
    let every = every_kind_test(&c);
    let boxed = box_test(&c, box_constructor(&c));
    for t in [&every, &boxed] {
        check_well_typed(t, &c).unwrap();
    }
    let kinds: BTreeSet<_> = every.statements().iter().map(statement_kind).collect();
    assert_eq!(kinds.len(), 9, "{kinds:?}");
    let values: BTreeSet<_> = every
        .statements()
        .iter()
        .filter_map(|s| match s {
            Statement::Primitive(v) => Some(value_kind(v)),
            _ => None,
        })
        .collect();
    assert_eq!(values.len(), 9, "{values:?}");

    let r = record(vec![
        stored(
            every,
            &["com.x.Account#<init>(String,long)/B0.T", "ünï goal"],
        ),
        stored(boxed, &[]),
    ]);
    assert_eq!(round_trip(&r), r);
}

/// Console input, a system property and input files (with and without content) are stored
/// and read back as they were, and stay valid for a cluster whose class reads them.
#[test]
fn environment_statements_round_trip() {
    let mut c = account_cluster();
    c.set_environment(testcase::EnvironmentInputs {
        console: true,
        files: true,
        property_keys: vec!["account.currency".into()],
    });
    let file = |content: Option<&str>| Statement::InputFile {
        name: "owners.txt".into(),
        content: content.map(str::to_string),
        ty: testcase::JavaType::string(),
    };
    let test = TestCase::from_statements(vec![
        Statement::ConsoleInput {
            text: "ann\n42\n".into(),
        },
        Statement::SystemProperty {
            key: "account.currency".into(),
            value: "EUR".into(),
        },
        file(Some("# owners\nann\n")),
        long(7),
        new_account(&c, 2, 3),
        file(None),
        new_account(&c, 5, 3),
    ]);
    check_well_typed(&test, &c).unwrap();
    let kinds: BTreeSet<_> = test.statements().iter().map(statement_kind).collect();
    assert!(kinds.contains("console input") && kinds.contains("input file"));
    let r = record(vec![stored(test, &[])]);
    assert_eq!(round_trip(&r), r);
}

#[test]
fn random_and_mutated_tests_round_trip() {
    let c = account_cluster();
    let variation = Variation::default();
    let mut tests = Vec::new();
    for seed in 0..300 {
        let mut rng = StdRng::seed_from_u64(seed);
        let mut t = variation.random_test(&c, &mut rng);
        for _ in 0..5 {
            variation.mutate(&mut t, &c, &mut rng);
        }
        tests.push(stored(t, &[]));
    }
    let r = record(tests);
    assert_eq!(round_trip(&r), r);
}

#[test]
fn floating_point_values_read_back_bit_for_bit() {
    let floats = [
        0.0,
        -0.0,
        0.1,
        f32::MIN_POSITIVE / 4.0,
        f32::MAX,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
        -f32::NAN,
        f32::from_bits(0x7f80_0001),
    ];
    let doubles = [
        0.0,
        -0.0,
        0.1,
        1e-310,
        f64::MAX,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
        -f64::NAN,
        f64::from_bits(0x7ff0_0000_0000_0001),
    ];
    let statements = floats
        .iter()
        .map(|&f| PrimitiveValue::Float(f))
        .chain(doubles.iter().map(|&d| PrimitiveValue::Double(d)))
        .map(Statement::Primitive)
        .collect();
    let r = record(vec![stored(TestCase::from_statements(statements), &[])]);
    let back = round_trip(&r);
    let bits = |r: &ClassRecord| -> Vec<u64> {
        r.tests[0]
            .test
            .statements()
            .iter()
            .map(|s| match s {
                Statement::Primitive(PrimitiveValue::Float(f)) => u64::from(f.to_bits()),
                Statement::Primitive(PrimitiveValue::Double(d)) => d.to_bits(),
                other => panic!("{other:?}"),
            })
            .collect()
    };
    assert_eq!(bits(&back), bits(&r));
}

#[test]
fn callables_that_differ_only_beyond_their_display_get_distinct_keys() {
    let c = account_cluster();
    let deposit = deposit_test(&c);
    let mut statements = deposit.statements().to_vec();
    let Statement::Method { callable, .. } = &mut statements[4] else {
        panic!()
    };
    let mut throwing = (**callable).clone();
    throwing.exceptions = vec!["java.io.IOException".into()];
    *callable = std::sync::Arc::new(throwing);
    let r = record(vec![
        stored(deposit, &[]),
        stored(TestCase::from_statements(statements), &[]),
    ]);
    let text = encode_record(&r).unwrap();
    assert!(
        text.contains("\"com.x.Account.deposit(long) #2\""),
        "{text}"
    );
    assert_eq!(decode_record(&text).unwrap(), r);
}

/// A JUnit class of the record's one test.
fn suite() -> StoredSuite {
    StoredSuite {
        junit: ctg::project::JUnitVersion::Five,
        source: "// Generated by ctgls\npackage com.x;\n\nimport static org.junit.jupiter.api.Assertions.assertEquals;\n\nimport org.junit.jupiter.api.Test;\n\nclass AccountGeneratedTest {\n\n    @Test\n    void parseReturns12() {\n        assertEquals(12L, Account.parse(\"12\"));\n    }\n}\n".into(),
        methods: vec![StoredMethod {
            name: "parseReturns12".into(),
            test: 0,
            goals: BTreeSet::from(["com.x.Account#parse(String)/B1.F".to_string()]),
            assertions: vec![StoredAssertion {
                first_line: 12,
                last_line: 12,
                kind: testcase::junit::AssertionKind::Value,
                subject: "Account.parse(\"12\")".into(),
                expected: "12L".into(),
            }],
        }],
        unverified: None,
    }
}

#[test]
fn the_json_form_is_stable() {
    let c = account_cluster();
    let mut r = record(vec![stored(
        parse_test(&c),
        &["com.x.Account#parse(String)/B1.F"],
    )]);
    r.suite = Some(suite());
    r.coverage.undeclared_exceptions[0].test = Some(0);
    expect_test::expect_file!["store_snapshots/record_v1.json"]
        .assert_eq(&encode_record(&r).unwrap());
    assert_eq!(round_trip(&r), r);
}

#[test]
fn a_record_written_before_the_junit_class_was_kept_still_reads() {
    // The exact bytes an earlier ctgls wrote: no `junit_class`, exceptions without message,
    // `checked` and test.
    let old = include_str!("store_snapshots/record_v1_without_junit_class.json");
    let c = account_cluster();
    let mut expected = record(vec![stored(
        parse_test(&c),
        &["com.x.Account#parse(String)/B1.F"],
    )]);
    expected.coverage.undeclared_exceptions[0].message = None;
    let read = decode_record(old).unwrap();
    assert_eq!(read, expected);
    assert_eq!(read.suite, None);
}

#[test]
fn the_junit_class_reads_back_byte_for_byte() {
    let c = account_cluster();
    for source in [
        "",
        "class A {}",
        "\n\nclass A {\r\n  void a() {}\r\n}\n\n",
        "// ü \"quoted\" \\ \t tab\nclass A {}\n",
    ] {
        let mut r = record(vec![stored(parse_test(&c), &[])]);
        r.suite = Some(StoredSuite {
            source: source.into(),
            junit: ctg::project::JUnitVersion::Four,
            unverified: Some("no JUnit was found".into()),
            ..suite()
        });
        assert_eq!(round_trip(&r), r, "{source:?}");
    }
}

#[test]
fn truncated_texts_are_corrupt_never_a_panic() {
    let c = account_cluster();
    let text = encode_record(&record(vec![stored(every_kind_test(&c), &["g"])])).unwrap();
    // Without its final newline the text is still complete JSON; any shorter prefix is not.
    for len in 0..text.len() - 1 {
        if !text.is_char_boundary(len) {
            continue;
        }
        match decode_record(&text[..len]) {
            Err(FormatError::Corrupt(_)) => {}
            other => panic!("prefix of {len} bytes: {other:?}"),
        }
    }
}

#[test]
fn foreign_and_inconsistent_texts_are_corrupt() {
    let c = account_cluster();
    let good = encode_record(&record(vec![stored(deposit_test(&c), &["g"])])).unwrap();
    let corrupt = |text: &str, why: &str| match decode_record(text) {
        Err(FormatError::Corrupt(message)) => {
            assert!(message.contains(why), "{message} does not say {why}")
        }
        other => panic!("{why}: {other:?}"),
    };
    corrupt("", "invalid JSON");
    corrupt("\u{feff}garbage", "invalid JSON");
    corrupt("[1, 2]", "invalid JSON");
    corrupt(
        &good.replace("\"ctgls-store\"", "\"something-else\""),
        "not 'ctgls-store'",
    );
    let edited = |edit: &dyn Fn(&mut serde_json::Value)| {
        let mut v: serde_json::Value = serde_json::from_str(&good).unwrap();
        edit(&mut v);
        v.to_string()
    };
    let deposit = "/tests/0/statements/4/method";
    corrupt(
        &edited(&|v| {
            *v.pointer_mut(deposit).unwrap() = serde_json::json!({
                "callable": "com.x.Account.deposit(long)",
                "receiver": 2, "type_args": [], "args": [4], "type": null
            })
        }),
        "test 0: statement 4: refers to statement 4, which is not earlier",
    );
    corrupt(
        &edited(&|v| {
            v.pointer_mut(deposit).unwrap()["callable"] = "com.x.Account.nothing()".into()
        }),
        "unknown callable 'com.x.Account.nothing()'",
    );
    corrupt(
        &edited(&|v| {
            v.pointer_mut("/tests/0/statements/2/constructor").unwrap()["type"] =
                "com.x.Account<".into()
        }),
        "test 0: statement 2",
    );
    corrupt(
        &edited(&|v| {
            *v.pointer_mut("/tests/0/statements/1").unwrap() = serde_json::json!({
                "primitive": {"byte": 300}
            })
        }),
        "invalid JSON",
    );
    corrupt(
        &edited(&|v| {
            *v.pointer_mut("/tests/0/statements/1").unwrap() = serde_json::json!({
                "primitive": {"double": "one"}
            })
        }),
        "'one' is not a double",
    );
    let with_suite = {
        let mut r = record(vec![stored(deposit_test(&c), &["g"])]);
        r.suite = Some(suite());
        encode_record(&r).unwrap()
    };
    let edited_suite = |edit: &dyn Fn(&mut serde_json::Value)| {
        let mut v: serde_json::Value = serde_json::from_str(&with_suite).unwrap();
        edit(&mut v);
        v.to_string()
    };
    corrupt(
        &edited_suite(&|v| v["junit_class"]["methods"][0]["test"] = 1.into()),
        "junit_class: method parseReturns12 refers to test 1; there are 1",
    );
    corrupt(
        &edited_suite(&|v| v["junit_class"]["junit"] = 3.into()),
        "JUnit 3 is not 4 or 5",
    );
    corrupt(
        &edited(&|v| v["coverage"]["undeclared_exceptions"][0]["test"] = 7.into()),
        "exception java.lang.ArithmeticException refers to test 7",
    );

    // Fields this build does not know are ignored: they may be added within a version.
    let extended = good.replacen(
        "\"class\":",
        "\"written_by\": \"ctgls 9\",\n  \"class\":",
        1,
    );
    assert_eq!(
        decode_record(&extended).unwrap(),
        decode_record(&good).unwrap()
    );
}

#[test]
fn other_versions_are_reported_as_unsupported() {
    let c = account_cluster();
    let good = encode_record(&record(vec![stored(deposit_test(&c), &[])])).unwrap();
    assert!(good.contains("\"version\": 1,"));
    for v in [0u64, 2, u64::MAX] {
        let text = good.replace("\"version\": 1,", &format!("\"version\": {v},"));
        assert_eq!(
            decode_record(&text),
            Err(FormatError::UnsupportedVersion { found: v })
        );
    }
    // A newer version may change everything but the header; it is still "unsupported", not
    // "corrupt".
    let future = "{\"format\": \"ctgls-store\", \"version\": 2, \"classes\": {}}";
    assert_eq!(
        decode_record(future),
        Err(FormatError::UnsupportedVersion { found: 2 })
    );
}
