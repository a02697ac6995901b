//! Snapshots of the environment statements in JUnit (console input, input files, system
//! properties) on `tests/junit_fixture/shop/Intake.java`, for JUnit 5, JUnit 4 and JUnit 4 at
//! Java 6. `ctg`'s `emit_snapshots` test compiles and runs the snapshot files against the
//! fixture under the real JUnit, so the observations here are what the fixture does. Refresh
//! with `UPDATE_EXPECT=1`.

mod common;

use common::junit::*;
use expect_test::expect_file;
use testcase::junit::{print_class, ExecutedTest, JUnit, Suppressions, TestClassSpec, Value};
use testcase::{JavaType, Statement};

const INTAKE: &str = "shop.Intake";

fn console(text: &str) -> Statement {
    Statement::ConsoleInput { text: text.into() }
}

fn file(name: &str, content: Option<&str>, ty: &str) -> Statement {
    Statement::InputFile {
        name: name.into(),
        content: content.map(str::to_string),
        ty: JavaType::class(ty),
    }
}

fn intake_tests() -> Vec<ExecutedTest> {
    let io = |c: std::sync::Arc<testcase::Callable>| {
        let mut c = (*c).clone();
        c.exceptions = vec!["java.io.IOException".into()];
        std::sync::Arc::new(c)
    };
    let first_line = io(static_method(INTAKE, "firstLine", &[], "java.lang.String"));
    let lines = io(static_method(INTAKE, "lines", &["java.lang.String"], "int"));
    let size = static_method(INTAKE, "size", &["java.io.File"], "long");
    let mode = static_method(INTAKE, "mode", &[], "java.lang.String");
    let string = "java.lang.String";
    vec![
        executed(
            vec![console("milk\n2\n"), call(&first_line, None, &[])],
            vec![None, value(string, text("milk"))],
        ),
        executed(
            vec![
                file("stock.csv", Some("# item,count\nmilk,2\n"), string),
                call(&lines, None, &[0]),
            ],
            vec![None, value("int", Value::Integer(2))],
        ),
        executed(
            vec![file("input.txt", None, string), call(&lines, None, &[0])],
            vec![None, value("int", Value::Integer(-1))],
        ),
        executed(
            vec![
                file("data.csv", Some("12\n"), "java.io.File"),
                call(&size, None, &[0]),
            ],
            vec![None, value("long", Value::Integer(3))],
        ),
        executed(
            vec![
                Statement::SystemProperty {
                    key: "shop.mode".into(),
                    value: "closed".into(),
                },
                console(""),
                call(&mode, None, &[]),
            ],
            vec![None, None, value(string, text("closed"))],
        ),
    ]
}

/// `exists(Path)` needs `java.nio.file`, which Java 6 lacks.
fn path_test() -> ExecutedTest {
    let exists = static_method(INTAKE, "exists", &["java.nio.file.Path"], "boolean");
    executed(
        vec![
            file("input", Some(""), "java.nio.file.Path"),
            call(&exists, None, &[0]),
        ],
        vec![None, value("boolean", Value::Bool(true))],
    )
}

fn spec(junit: JUnit, level: Option<u32>) -> TestClassSpec {
    let mut spec = TestClassSpec::new(INTAKE, "IntakeGeneratedTest", junit);
    spec.tests = intake_tests();
    if level.is_none_or(|l| l >= 7) {
        spec.tests.push(path_test());
    }
    spec.level = level;
    // Intake reads `System.in`: tests that choose no console input get none.
    spec.reads_console = true;
    spec.generator_version = "0.0.0-snapshot".into();
    spec
}

#[test]
fn environment_statements_in_junit5() {
    let printed = print_class(&spec(JUnit::Five, None), &Suppressions::default());
    expect_file!["junit_snapshots/IntakeGeneratedTest.junit5.java"].assert_eq(&printed.source);
}

#[test]
fn environment_statements_in_junit4() {
    let printed = print_class(&spec(JUnit::Four, None), &Suppressions::default());
    expect_file!["junit_snapshots/IntakeGeneratedTest.junit4.java"].assert_eq(&printed.source);
}

/// Below Java 7 there is no `java.nio.file` and no `StandardCharsets`: files are written with
/// a `FileWriter` and texts turned into bytes in the default charset (they are ASCII).
#[test]
fn environment_statements_in_junit4_at_java_6() {
    let printed = print_class(&spec(JUnit::Four, Some(6)), &Suppressions::default());
    let source = &printed.source;
    expect_file!["junit_snapshots/IntakeGeneratedTest.junit4.java6.java"].assert_eq(source);
    for newer in ["java.nio", "StandardCharsets", "->"] {
        assert!(!source.contains(newer), "`{newer}` at Java 6:\n{source}");
    }
}

/// Assertion lines inside the `try` block are still found by the line map (verification
/// drops a failing one by its line).
#[test]
fn the_line_map_finds_assertions_inside_the_try_block() {
    let printed = print_class(&spec(JUnit::Five, None), &Suppressions::default());
    let lines: Vec<&str> = printed.source.lines().collect();
    let mut found = 0;
    for test in &printed.tests {
        for a in &test.assertions {
            let line = lines[a.first_line as usize - 1];
            assert!(line.trim_start().starts_with("assert"), "{line}");
            found += 1;
        }
    }
    assert_eq!(found, 6);
}
