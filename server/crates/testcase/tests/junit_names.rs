//! Test names of tests that end in an exception a JDK call threw: named after the call of the
//! class under test whose behaviour they test, not after the JDK call (issue #19: jsoup's
//! `StringUtil` got `newURLThrowsMalformedURLException`). Snapshots of the printed methods.

mod common;

use common::junit::*;
use expect_test::{expect, Expect};
use testcase::junit::{print_class, ExecutedTest, JUnit, Suppressions, TestClassSpec, Value};
use testcase::{JavaType, PrimitiveValue};

const UTIL: &str = "web.StringUtil";

/// The printed test methods of `tests` for `web.StringUtil`, from the first `@Test` on.
fn check(tests: Vec<ExecutedTest>, expect: Expect) {
    let mut spec = TestClassSpec::new(UTIL, "StringUtilGeneratedTest", JUnit::Five);
    spec.tests = tests;
    spec.generator_version = "0.0.0-snapshot".into();
    let printed = print_class(&spec, &Suppressions::default());
    let methods: String = printed
        .source
        .lines()
        .skip_while(|l| !l.contains("@Test"))
        .map(|l| format!("{l}\n"))
        .collect();
    expect.assert_eq(&methods);
}

/// `new URL(String)`, which declares `MalformedURLException`.
fn new_url() -> std::sync::Arc<testcase::Callable> {
    constructor(
        "java.net.URL",
        &["java.lang.String"],
        &["java.net.MalformedURLException"],
    )
}

fn malformed() -> Option<testcase::junit::Thrown> {
    thrown(
        "java.net.MalformedURLException",
        "no protocol: /a",
        true,
        true,
    )
}

#[test]
fn a_jdk_call_that_throws_on_the_value_of_the_class_names_the_class_call() {
    let resolve = static_method(
        UTIL,
        "resolve",
        &["java.lang.String", "java.lang.String"],
        "java.lang.String",
    );
    let length = static_method(UTIL, "length", &["java.lang.String"], "int");
    check(
        vec![throwing(
            vec![
                lit(PrimitiveValue::String("x".into())),
                lit(PrimitiveValue::String("/a".into())),
                call(&resolve, None, &[0, 1]),
                call(&length, None, &[1]),
                new(&new_url(), &[2], JavaType::class("java.net.URL")),
            ],
            vec![
                value("java.lang.String", text("x")),
                value("java.lang.String", text("/a")),
                value("java.lang.String", text("/a")),
                value("java.lang.Integer", Value::Integer(2)),
            ],
            malformed(),
        )],
        // `resolve` gave the value `new URL` threw on, though `length` came later.
        expect![[r#"
                @Test
                void resolveThrowsMalformedURLException() {
                    String string0 = "/a";
                    String string1 = StringUtil.resolve("x", string0);
                    assertEquals("/a", string1);
                    assertEquals(2, StringUtil.length(string0));
                    MalformedURLException exception = assertThrows(MalformedURLException.class, () -> new URL(string1));
                    assertEquals("no protocol: /a", exception.getMessage());
                }
            }
        "#]],
    );
}

#[test]
fn without_such_a_value_the_last_call_of_the_class_names_the_test() {
    let length = static_method(UTIL, "length", &["java.lang.String"], "int");
    check(
        vec![throwing(
            vec![
                lit(PrimitiveValue::String("/a".into())),
                call(&length, None, &[0]),
                new(&new_url(), &[0], JavaType::class("java.net.URL")),
            ],
            vec![
                value("java.lang.String", text("/a")),
                value("java.lang.Integer", Value::Integer(2)),
            ],
            malformed(),
        )],
        expect![[r#"
                @Test
                void lengthThrowsMalformedURLException() {
                    String string0 = "/a";
                    assertEquals(2, StringUtil.length(string0));
                    MalformedURLException exception = assertThrows(MalformedURLException.class, () -> new URL(string0));
                    assertEquals("no protocol: /a", exception.getMessage());
                }
            }
        "#]],
    );
}

#[test]
fn a_test_without_a_call_of_the_class_keeps_the_jdk_call_name() {
    check(
        vec![throwing(
            vec![
                lit(PrimitiveValue::String("/a".into())),
                new(&new_url(), &[0], JavaType::class("java.net.URL")),
            ],
            vec![value("java.lang.String", text("/a"))],
            malformed(),
        )],
        expect![[r#"
                @Test
                void newURLThrowsMalformedURLException() {
                    MalformedURLException exception = assertThrows(MalformedURLException.class, () -> new URL("/a"));
                    assertEquals("no protocol: /a", exception.getMessage());
                }
            }
        "#]],
    );
}
