//! Nondeterministic inputs end to end, on a class whose method returns the clock. In the
//! editor: the `nondeterministic-input` diagnostic is on that line as soon as the file is
//! opened, and once a run has written its tests, the diagnostic and the hover on that line name
//! the assertion the written test left out because of it. In `ctgls generate --report`: the
//! line is listed with the same assertion. Gated by `CTGLS_E2E=1` (the real binary, the real
//! worker, javac and JUnit).

mod support;

use std::time::Duration;

use serde_json::{json, Value};
use support::{e2e_enabled, Project, TestServer};

const RUN_TIMEOUT: Duration = Duration::from_secs(120);

const STAMP: &str = "package com.example.bank;

public class Stamp {
    private final String prefix;

    public Stamp(String prefix) {
        this.prefix = prefix;
    }

    public long elapsed() {
        return System.nanoTime();
    }

    public int width() {
        return prefix.length();
    }
}
";

fn nondeterministic(published: &Value) -> Vec<Value> {
    published["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["code"] == "nondeterministic-input")
        .cloned()
        .collect()
}

#[test]
fn the_clock_s_line_names_the_assertion_left_out_because_of_it() {
    if !e2e_enabled() {
        eprintln!("skipped: the nondeterminism LSP test runs with CTGLS_E2E=1");
        return;
    }
    let project = Project::copy("lsp", "nondeterminism");
    std::fs::write(project.file("Stamp"), STAMP).unwrap();
    let mut server = TestServer::start();
    let root = format!("file://{}", project.0.display());
    server.initialize(json!({
        "processId": null,
        "rootUri": root,
        "workspaceFolders": [{ "uri": root, "name": "bank" }],
        "initializationOptions": { "budgetSeconds": 3, "idleDelayMs": 100, "buildToolEnabled": false },
        "capabilities": { "window": { "workDoneProgress": true } }
    }));
    let uri = project.uri("Stamp");
    server.notify(
        "textDocument/didOpen",
        json!({ "textDocument": { "uri": uri, "languageId": "java", "version": 1, "text": STAMP } }),
    );
    let clock_line = STAMP
        .lines()
        .position(|l| l.contains("System.nanoTime()"))
        .unwrap() as u64;

    // At once, from the syntax: the line, what it reads, nothing left out yet.
    let first = server.wait_for_notification("textDocument/publishDiagnostics", |p| {
        p["uri"] == uri.as_str() && !nondeterministic(p).is_empty()
    });
    let found = nondeterministic(&first);
    assert_eq!(found.len(), 1, "{first:#}");
    assert_eq!(found[0]["range"]["start"]["line"], clock_line, "{first:#}");
    assert_eq!(found[0]["severity"], 3, "Information: {first:#}");
    assert_eq!(found[0]["data"]["kind"], "clock");
    assert!(
        found[0]["message"]
            .as_str()
            .unwrap()
            .starts_with("reads the clock (System.nanoTime()): generated tests never assert"),
        "{first:#}"
    );

    // After the run: the written test's left-out assertion is named on the same line.
    let linked =
        server.wait_for_notification_within("textDocument/publishDiagnostics", RUN_TIMEOUT, |p| {
            p["uri"] == uri.as_str()
                && nondeterministic(p).iter().any(|d| {
                    d["data"]["leftOut"]
                        .as_array()
                        .is_some_and(|l| !l.is_empty())
                })
        });
    let found = nondeterministic(&linked);
    assert_eq!(found.len(), 1, "{linked:#}");
    let diagnostic = &found[0];
    assert_eq!(diagnostic["range"]["start"]["line"], clock_line);
    let message = diagnostic["message"].as_str().unwrap();
    // `widthReturns2: stamp0.elapsed() (differs between runs (it depends on time))`: the test
    // (named after its last call) and the expression of the comment that replaced the assertion.
    let left_out = diagnostic["data"]["leftOut"].as_array().unwrap();
    assert_eq!(left_out.len(), 1, "{diagnostic:#}");
    let named = left_out[0].as_str().unwrap();
    let (test, rest) = named.split_once(": ").unwrap();
    assert!(!test.is_empty() && !test.contains(' '), "{named}");
    assert!(rest.contains(".elapsed()"), "{named}");
    assert!(
        rest.ends_with(" (differs between runs (it depends on time))"),
        "{named}"
    );
    assert!(
        message.ends_with(&format!("; left out: {named}")),
        "{message}"
    );

    // Hover on the line explains, and names the same assertion.
    let hover = server
        .request(
            "textDocument/hover",
            json!({
                "textDocument": { "uri": uri },
                "position": { "line": clock_line, "character": 20 }
            }),
        )
        .unwrap();
    let text = hover["contents"]["value"].as_str().unwrap_or_default();
    assert!(
        text.contains("nondeterministic input: reads the clock (System.nanoTime())"),
        "{hover:#}"
    );
    assert!(text.contains("Left out because of it"), "{hover:#}");
    assert!(text.contains(named), "{hover:#}");
    assert!(text.contains("java.time.Clock"), "{hover:#}");
    server.shutdown_and_exit();
}

#[test]
fn the_report_lists_the_clock_s_line_with_the_assertion_left_out() {
    if !e2e_enabled() {
        eprintln!("skipped: the nondeterminism report test runs with CTGLS_E2E=1");
        return;
    }
    let project = Project::copy("report", "nondeterminism");
    std::fs::write(project.file("Stamp"), STAMP).unwrap();
    let (output, report) = support::generate_with_report(
        &project.0,
        &[
            "--class",
            "com.example.bank.Stamp",
            "--budget",
            "3",
            "--seed",
            "1",
            "--no-build-tool",
        ],
    );
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    let entry = &report["classes"][0];
    let inputs = entry["nondeterministic_inputs"].as_array().expect("a list");
    assert_eq!(inputs.len(), 1, "{entry:#}");
    let clock = &inputs[0];
    let clock_line = STAMP
        .lines()
        .position(|l| l.contains("System.nanoTime()"))
        .unwrap() as u64
        + 1;
    assert_eq!(clock["line"], clock_line, "{clock:#}");
    assert_eq!(clock["kind"], "clock");
    assert_eq!(clock["what"], "the clock (System.nanoTime())");
    assert_eq!(clock["method"], "com.example.bank.Stamp#elapsed()");
    assert!(
        clock["file"]
            .as_str()
            .unwrap()
            .ends_with("com/example/bank/Stamp.java"),
        "{clock:#}"
    );
    let written = std::fs::read_to_string(project.test_file("Stamp")).unwrap();
    let left_out = clock["left_out"].as_array().unwrap();
    assert_eq!(left_out.len(), 1, "{clock:#}\n{written}");
    let assertion = left_out[0]["assertion"].as_str().unwrap();
    assert!(
        written.contains(&format!(
            "// Not asserted: {assertion} differs between runs"
        )),
        "{written}"
    );
    assert!(
        written.contains(&format!("void {}()", left_out[0]["test"].as_str().unwrap())),
        "{written}"
    );
}
