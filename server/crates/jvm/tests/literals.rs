//! Literal statements against the real worker: extreme values cross the protocol unchanged, and
//! values outside their type's range are `invalid` (docs/protocol.md, `execute`), including
//! values the typed API cannot express, sent by hand.

mod common;

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};

use common::*;
use jvm::*;

#[test]
fn extreme_literals_round_trip_through_the_protocol() {
    let mut sup = supervisor();
    let unit = compile_project(&mut sup, "bank");
    let t = test(vec![
        Statement::Value(Literal::Double(-0.0)),
        Statement::Value(Literal::Float(-0.0)),
        Statement::Value(Literal::Double(f64::INFINITY)),
        Statement::Value(Literal::Float(f32::INFINITY)),
        Statement::Value(Literal::Byte(i8::MIN)),
        Statement::Value(Literal::Byte(i8::MAX)),
        Statement::Value(Literal::Short(i16::MIN)),
        Statement::Value(Literal::Short(i16::MAX)),
        Statement::Value(Literal::Int(i32::MIN)),
        Statement::Value(Literal::Char('\u{ffff}')),
        Statement::Value(Literal::Double(f64::MIN_POSITIVE)),
    ]);
    let r = finished(sup.execute(unit, &[t], &options(2000)).unwrap());
    let r = &r[0];
    assert_eq!(r.status, TestStatus::Ok, "{r:#?}");
    let float = |k: usize| match value(r, k).value {
        Some(ObservedValue::Float(f)) => f,
        ref other => panic!("statement {k}: expected a float, got {other:?}"),
    };
    for k in [0, 1] {
        assert!(
            float(k) == 0.0 && float(k).is_sign_negative(),
            "statement {k}: {}",
            float(k)
        );
    }
    assert_eq!(float(2), f64::INFINITY);
    assert_eq!(float(3), f64::INFINITY);
    let integers: Vec<i64> = (4..=8).map(|k| int_value(r, k)).collect();
    assert_eq!(integers, [-128, 127, -32768, 32767, i64::from(i32::MIN)]);
    assert_eq!(value(r, 4).type_name.as_deref(), Some("byte"));
    assert_eq!(value(r, 6).type_name.as_deref(), Some("short"));
    assert_eq!(text_value(r, 9), "\u{ffff}");
    assert_eq!(float(10), f64::MIN_POSITIVE);
}

/// Regression: a char above U+FFFF was cut to its low 16 bits (U+1F600 became U+F600). Checked
/// to fail without the fix.
#[test]
fn a_char_outside_one_utf16_unit_is_invalid() {
    let mut sup = supervisor();
    let unit = compile_project(&mut sup, "bank");
    let t = test(vec![Statement::Value(Literal::Char('\u{1F600}'))]);
    let r = finished(sup.execute(unit, &[t], &options(2000)).unwrap());
    assert_eq!(r[0].status, TestStatus::Invalid, "{:#?}", r[0]);
    assert_eq!(r[0].failed_at, Some(0));
    let message = r[0].message.as_deref().unwrap_or("");
    assert!(message.contains("out of range for char"), "{message}");
}

/// The worker of `sup`'s build, started by hand on stdin/stdout (as docs/protocol.md describes
/// for debugging, without the sandbox: it only evaluates literals here), answering `requests`.
/// Returns every line it wrote, parsed.
fn exchange_by_hand(sup: &mut Supervisor, requests: &[String]) -> Vec<serde_json::Value> {
    sup.start().unwrap();
    let pid = sup.worker_pid().unwrap();
    let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap();
    let args: Vec<String> = cmdline
        .split(|b| *b == 0)
        .map(|a| String::from_utf8_lossy(a).into_owned())
        .collect();
    let classpath = args
        .iter()
        .position(|a| a == "-cp")
        .map(|k| args[k + 1].clone())
        .expect("the worker is started with -cp");
    let mut child = Command::new(&sup.jdk().java)
        .args(["-Xmx64m", "-cp", &classpath, "ctgls.worker.Main"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    for r in requests {
        writeln!(stdin, "{r}").unwrap();
    }
    // End of input ends the worker once it has answered everything.
    drop(stdin);
    let lines: Vec<serde_json::Value> = BufReader::new(child.stdout.take().unwrap())
        .lines()
        .map(|l| serde_json::from_str(&l.unwrap()).unwrap())
        .collect();
    assert!(child.wait().unwrap().success());
    lines
}

#[test]
fn literals_outside_their_types_range_are_invalid() {
    let mut sup = supervisor();
    let cases = [
        ("byte", "128"),
        ("byte", "-129"),
        ("short", "32768"),
        ("short", "-32769"),
        ("char", "65536"),
        ("char", "-1"),
        ("int", "2147483648"),
        ("int", "-2147483649"),
        ("long", "9223372036854775808"),
        // The parser reads an integer beyond the long range as a double, which cannot tell
        // -2^63 - 1 from -2^63; the next double down is out of range.
        ("long", "-9223372036854777856"),
        ("int", "1.5"),
        ("float", "1e300"),
        ("float", "-1e300"),
    ];
    let tests: Vec<String> = cases
        .iter()
        .map(|(t, v)| format!(r#"{{"statements":[{{"kind":"value","type":"{t}","value":{v}}}]}}"#))
        .collect();
    let compile = r#"{"id":1,"op":"compile","unit":"u1","classpath":[],"options":[],"sources":[{"path":"p/A.java","text":"package p; public class A {}","instrumented":null}]}"#;
    let execute = format!(
        r#"{{"id":2,"op":"execute","unit":"u1","timeoutMs":2000,"classesUnderTest":[],"tests":[{}]}}"#,
        tests.join(",")
    );
    let lines = exchange_by_hand(&mut sup, &[compile.to_string(), execute]);
    assert_eq!(lines[0]["ok"], true, "{}", lines[0]);
    let events: Vec<&serde_json::Value> = lines
        .iter()
        .filter(|l| l["id"] == 2 && l["event"] == "test")
        .collect();
    assert_eq!(events.len(), cases.len(), "{lines:#?}");
    for ((t, v), e) in cases.iter().zip(events) {
        assert_eq!(e["status"], "invalid", "{t} {v}: {e}");
        assert_eq!(e["failedAt"], 0, "{t} {v}");
        assert!(
            e["message"].as_str().unwrap_or("").contains(t),
            "{t} {v}: {}",
            e["message"]
        );
    }
    // In range, the same statements are values.
    let edges = r#"{"id":3,"op":"execute","unit":"u1","timeoutMs":2000,"classesUnderTest":[],"tests":[{"statements":[{"kind":"value","type":"char","value":65535},{"kind":"value","type":"long","value":-9223372036854775808},{"kind":"value","type":"float","value":3.4028234663852886e38}]}]}"#;
    let lines = exchange_by_hand(&mut sup, &[compile.to_string(), edges.to_string()]);
    let event = lines.iter().find(|l| l["event"] == "test").unwrap();
    assert_eq!(event["status"], "ok", "{event}");
}
