//! The editor after a run whose tests could not be verified for a reason outside the class
//! (issue #15): the server's `CTGLS_JUNIT_CLASSPATH` names JUnit 4's jars while the tests are
//! written for JUnit 5, so ctgls's JUnit 5 harness cannot compile. The run's coverage
//! diagnostics are still published, a `verification-failed` diagnostic and a message give
//! the reason, the status carries it, and no test is offered for insertion. Gated by
//! `CTGLS_E2E=1` (the real binary over stdio, the real worker and javac).

mod support;

use std::time::Duration;

use serde_json::{json, Value};
use support::{e2e_enabled, Project, TestServer};

const RUN_TIMEOUT: Duration = Duration::from_secs(120);

fn codes(diagnostics: &Value) -> Vec<&str> {
    diagnostics
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["code"].as_str().unwrap_or(""))
        .collect()
}

#[test]
fn an_unverified_run_shows_its_coverage_and_the_reason_and_offers_no_test() {
    if !e2e_enabled() {
        eprintln!("skipped: the unverified LSP test runs with CTGLS_E2E=1");
        return;
    }
    let project = Project::copy("lsp", "unverified");
    let mut server = TestServer::start_with_env(
        &["lsp"],
        &[(
            "CTGLS_JUNIT_CLASSPATH",
            "/usr/share/java/junit4.jar:/usr/share/java/hamcrest-core.jar",
        )],
    );
    server.initialize(json!({
        "processId": null,
        "rootUri": format!("file://{}", project.0.display()),
        "workspaceFolders": [{ "uri": format!("file://{}", project.0.display()), "name": "bank" }],
        "initializationOptions": {
            "budgetSeconds": 8, "idleDelayMs": 100, "junit": 5, "buildToolEnabled": false
        },
        "capabilities": {
            "window": { "workDoneProgress": true },
            "textDocument": { "codeAction": { "resolveSupport": { "properties": ["edit"] } } }
        }
    }));
    let uri = project.uri("Account");
    let text = std::fs::read_to_string(project.file("Account")).unwrap();
    server.notify(
        "textDocument/didOpen",
        json!({ "textDocument": { "uri": uri, "languageId": "java", "version": 1, "text": text } }),
    );

    let published =
        server.wait_for_notification_within("textDocument/publishDiagnostics", RUN_TIMEOUT, |p| {
            p["uri"] == uri
                && p["diagnostics"]
                    .as_array()
                    .is_some_and(|d| d.iter().any(|d| d["code"] == "verification-failed"))
        });
    let diagnostics = &published["diagnostics"];
    let codes = codes(diagnostics);
    assert!(
        !codes.contains(&"generation-unavailable"),
        "{diagnostics:#}"
    );
    // The search's findings stay: the `/ by zero` of `interest(int)`.
    let arithmetic = diagnostics
        .as_array()
        .unwrap()
        .iter()
        .find(|d| {
            d["code"] == "undeclared-exception"
                && d["message"]
                    .as_str()
                    .is_some_and(|m| m.contains("ArithmeticException"))
        })
        .unwrap_or_else(|| panic!("the search's exception is kept: {diagnostics:#}"))
        .clone();
    let failed = diagnostics
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["code"] == "verification-failed")
        .unwrap();
    let reason = failed["message"].as_str().unwrap();
    assert!(reason.contains("could not be verified"), "{reason}");
    assert!(reason.contains("CTGLS_JUNIT_CLASSPATH"), "{reason}");
    server.wait_for_message("window/showMessage", "could not be verified");

    // The status has the coverage and the reason.
    let status = server
        .request(
            "workspace/executeCommand",
            json!({ "command": "ctgls.status", "arguments": [] }),
        )
        .unwrap();
    let class = &status["classes"][0];
    assert_eq!(class["class"], "com.example.bank.Account", "{status:#}");
    assert!(
        class["branches"]["covered"].as_u64().unwrap() > 0,
        "{status:#}"
    );
    assert_eq!(class["tests"], 0, "{status:#}");
    assert!(
        class["problem"]
            .as_str()
            .is_some_and(|p| p.contains("could not be verified")),
        "{status:#}"
    );

    // No test is offered: neither on the exception nor for the whole class ("Generate tests
    // for class Account" runs generation again, or says what it waits for, with no edit).
    let actions = server
        .request(
            "textDocument/codeAction",
            json!({
                "textDocument": { "uri": uri },
                "range": arithmetic["range"],
                "context": { "diagnostics": [arithmetic] }
            }),
        )
        .unwrap();
    let generate = server
        .request(
            "textDocument/codeAction",
            json!({
                "textDocument": { "uri": uri },
                "range": { "start": { "line": 0, "character": 0 }, "end": { "line": 0, "character": 0 } },
                "context": { "diagnostics": [], "only": ["source"] }
            }),
        )
        .unwrap();
    for action in actions
        .as_array()
        .into_iter()
        .flatten()
        .chain(generate.as_array().into_iter().flatten())
    {
        let title = action["title"].as_str().unwrap_or_default();
        let inserts = action.get("data").is_some() || action.get("edit").is_some();
        assert!(!title.starts_with("Insert test") || !inserts, "{action:#}");
        if title.starts_with("Generate tests") {
            assert!(!inserts, "{action:#}");
            // A run now, or (a background re-run in progress) what it waits for.
            let command = action["command"]["command"].as_str().unwrap_or_default();
            assert!(
                ["ctgls.generate", "ctgls.explain"].contains(&command),
                "{action:#}"
            );
        }
    }
    assert!(!project.test_file("Account").exists());
    server.shutdown_and_exit();
}
