//! What the worker reports of exceptions, against the real JVM: failed static initialisers as
//! the same Java statement sees them, user exceptions whose own methods throw, and runtime
//! exceptions a `throws` clause declares.

mod common;

use common::*;
use jvm::*;

fn compile(sup: &mut Supervisor, sources: Vec<SourceFile>) -> UnitId {
    let result = sup
        .compile(&CompileRequest {
            sources,
            ..CompileRequest::default()
        })
        .unwrap();
    result
        .unit
        .unwrap_or_else(|| panic!("{:#?}", result.diagnostics))
}

fn exception(r: &TestResult) -> &ThrownException {
    assert_eq!(r.status, TestStatus::Exception, "{r:#?}");
    r.exception.as_ref().unwrap()
}

fn frame(e: &ThrownException) -> (&str, &str, Option<u32>) {
    let f = e
        .frame
        .as_ref()
        .unwrap_or_else(|| panic!("no frame: {e:#?}"));
    (f.class.as_str(), f.method.as_str(), f.line)
}

/// An enum and a class whose static initialisers fail (on line 4 and line 3), and a class that
/// touches the enum and swallows what its failed initialisation throws.
fn failing_initialisers() -> Vec<SourceFile> {
    vec![
        source(
            "p/Mode.java",
            "package p;\npublic enum Mode {\n    ON, OFF;\n    \
             static final int LIMIT = Integer.parseInt(\"none\");\n}\n",
        ),
        source(
            "p/Gauge.java",
            "package p;\npublic class Gauge {\n    \
             static final int SCALE = Integer.parseInt(\"none\");\n    \
             public Gauge() {}\n    \
             public static int scale() { return SCALE; }\n}\n",
        ),
        source(
            "p/Touch.java",
            "package p;\npublic class Touch {\n    public static String mode() {\n        \
             try { return Mode.ON.name(); } catch (ExceptionInInitializerError e) { return \"swallowed\"; }\n    \
             }\n}\n",
        ),
    ]
}

fn mode_on() -> Statement {
    Statement::EnumConstant {
        type_name: "p.Mode".into(),
        name: "ON".into(),
    }
}

/// Regression: an `enum` statement reported the initialiser's cause (`NumberFormatException`)
/// where `Mode.ON` in Java throws `ExceptionInInitializerError`, as `new` and calls already
/// reported; and no statement had a frame, because the `<clinit>` frame is only in the cause's
/// stack. Checked to fail without the fix (type and frames).
#[test]
fn a_failed_static_initialiser_is_what_the_same_java_statement_throws() {
    let mut sup = supervisor();
    let unit = compile(&mut sup, failing_initialisers());
    let tests = [
        test(vec![mode_on()]),
        test(vec![call_static("p.Gauge", "scale", &[], &[])]),
        test(vec![new("p.Gauge", &[], &[])]),
        // The first access failed inside `Touch`: a later one throws NoClassDefFoundError.
        test(vec![call_static("p.Touch", "mode", &[], &[]), mode_on()]),
    ];
    let r = finished(sup.execute(unit, &tests, &options(2000)).unwrap());

    let expected = [
        ("p.Mode", Some(4)),
        ("p.Gauge", Some(3)),
        ("p.Gauge", Some(3)),
    ];
    for (k, (class, line)) in expected.into_iter().enumerate() {
        let e = exception(&r[k]);
        assert_eq!(
            e.type_name, "java.lang.ExceptionInInitializerError",
            "test {k}"
        );
        assert_eq!(
            e.cause.as_deref(),
            Some("java.lang.NumberFormatException"),
            "test {k}"
        );
        assert!(!e.declared && !e.checked && !e.by_statement, "test {k}");
        assert_eq!(frame(e), (class, "<clinit>", line), "test {k}");
    }

    assert_eq!(text_value(&r[3], 0), "swallowed");
    assert_eq!(r[3].failed_at, Some(1));
    let e = exception(&r[3]);
    assert_eq!(e.type_name, "java.lang.NoClassDefFoundError");
}

/// An exception whose `getCause`, `getMessage`, `getStackTrace` and `toString` all throw (one
/// of them an `Error`), and two exceptions that are each other's cause.
fn awkward_exceptions() -> Vec<SourceFile> {
    vec![
        source(
            "p/Sly.java",
            "package p;\npublic class Sly extends RuntimeException {\n    \
             @Override public Throwable getCause() { throw new UnsupportedOperationException(\"cause\"); }\n    \
             @Override public String getMessage() { throw new UnsupportedOperationException(\"message\"); }\n    \
             @Override public StackTraceElement[] getStackTrace() { throw new AssertionError(\"trace\"); }\n    \
             @Override public String toString() { throw new UnsupportedOperationException(\"text\"); }\n}\n",
        ),
        source(
            "p/Thrower.java",
            "package p;\npublic class Thrower {\n    \
             public static void sly() { throw new Sly(); }\n    \
             public static void cycle() {\n        \
             RuntimeException a = new RuntimeException(\"a\");\n        \
             IllegalStateException b = new IllegalStateException(\"b\", a);\n        \
             a.initCause(b);\n        \
             throw a;\n    }\n}\n",
        ),
    ]
}

/// Regression: `getCause()` was called unguarded, so the worker reported what `Sly.getCause`
/// threw instead of `Sly`, and walked a cycle of causes for ever (a timeout). Checked to fail
/// without the fix.
#[test]
fn user_exceptions_whose_methods_throw_are_still_reported() {
    let mut sup = supervisor();
    let unit = compile(&mut sup, awkward_exceptions());
    let r = finished(
        sup.execute(
            unit,
            &[
                test(vec![call_static("p.Thrower", "sly", &[], &[])]),
                test(vec![call_static("p.Thrower", "cycle", &[], &[])]),
            ],
            &options(2000),
        )
        .unwrap(),
    );

    let e = exception(&r[0]);
    assert_eq!(e.type_name, "p.Sly");
    assert_eq!(e.message, None, "getMessage threw");
    assert_eq!(e.cause, None, "getCause threw");
    assert_eq!(e.frame, None, "getStackTrace threw");
    assert!(!e.declared && !e.checked && !e.by_statement);

    let e = exception(&r[1]);
    assert_eq!(e.type_name, "java.lang.RuntimeException");
    assert_eq!(e.message.as_ref().and_then(JavaText::as_str), Some("a"));
    assert_eq!(e.cause.as_deref(), Some("java.lang.IllegalStateException"));
    assert_eq!(frame(e), ("p.Thrower", "cycle", Some(5)));
}

#[test]
fn runtime_exceptions_in_a_throws_clause_are_declared() {
    let mut sup = supervisor();
    let unit = compile(
        &mut sup,
        vec![source(
            "p/Strict.java",
            "package p;\npublic class Strict {\n    \
             public static void exact() throws IllegalStateException { throw new IllegalStateException(\"exact\"); }\n    \
             public static void wider() throws RuntimeException { throw new IllegalStateException(\"wider\"); }\n    \
             public static void unlisted() { throw new IllegalStateException(\"unlisted\"); }\n}\n",
        )],
    );
    let call = |m: &str| test(vec![call_static("p.Strict", m, &[], &[])]);
    let r = finished(
        sup.execute(
            unit,
            &[call("exact"), call("wider"), call("unlisted")],
            &options(2000),
        )
        .unwrap(),
    );
    for (k, (method, declared, line)) in [
        ("exact", true, 3),
        ("wider", true, 4),
        ("unlisted", false, 5),
    ]
    .into_iter()
    .enumerate()
    {
        let e = exception(&r[k]);
        assert_eq!(e.type_name, "java.lang.IllegalStateException", "{method}");
        assert_eq!(e.message.as_ref().and_then(JavaText::as_str), Some(method));
        assert_eq!(e.declared, declared, "{method}");
        assert!(!e.checked && !e.by_statement, "{method}");
        assert_eq!(frame(e), ("p.Strict", method, Some(line)));
    }
}
