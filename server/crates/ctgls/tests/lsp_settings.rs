//! End to end over stdio, without a JVM run: the settings users expect (`diagnostics`
//! severities, `trigger`, `sourceRoots`/`testRoots`) and code actions asked for before any
//! results exist (docs/lsp-extensions.md). Runs that start here fail at once on a JDK path that
//! does not exist, which is how a test sees that a run started.

mod support;

use std::time::Duration;

use serde_json::{json, Value};
use support::{Project, TestServer};

const READS_ENV: &str = "package p;\n\npublic class A {\n    public String token() {\n        return System.getenv(\"API_TOKEN\");\n    }\n}\n";

fn start(project: &Project, options: Value, capabilities: Value) -> TestServer {
    let mut server = TestServer::start();
    server.initialize(json!({
        "processId": null,
        "rootUri": format!("file://{}", project.0.display()),
        "capabilities": capabilities,
        "initializationOptions": options,
    }));
    server
}

fn open(server: &mut TestServer, uri: &str, text: &str) {
    server.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": uri, "languageId": "java", "version": 1, "text": text}}),
    );
}

fn status(server: &mut TestServer) -> Value {
    server
        .request(
            "workspace/executeCommand",
            json!({ "command": "ctgls.status", "arguments": [] }),
        )
        .unwrap()
}

/// Settings under which a run fails at once, telling the test it started.
fn failing_runs(trigger: &str) -> Value {
    json!({
        "trigger": trigger,
        "javaHome": "/nonexistent/jdk",
        "buildToolEnabled": false,
        "idleDelayMs": 50,
    })
}

/// Waits until a run has failed for the missing JDK (the status turns `unavailable`).
fn wait_for_a_run(server: &mut TestServer) -> Value {
    server.poll_request(
        "workspace/executeCommand",
        json!({ "command": "ctgls.status", "arguments": [] }),
        |s| s["state"] == "unavailable",
    )
}

fn actions_at(server: &mut TestServer, uri: &str, line: u32, diagnostics: Value) -> Vec<Value> {
    let position = json!({ "line": line, "character": 14 });
    server
        .request(
            "textDocument/codeAction",
            json!({
                "textDocument": { "uri": uri },
                "range": { "start": position, "end": position },
                "context": { "diagnostics": diagnostics },
            }),
        )
        .unwrap()
        .as_array()
        .cloned()
        .unwrap_or_default()
}

#[test]
fn diagnostic_severities_and_off_apply_to_what_is_published() {
    let project = Project::copy("settings", "severities");
    let uri = format!("file://{}/src/main/java/p/A.java", project.0.display());
    let mut server = start(&project, json!({ "executionEnabled": false }), json!({}));
    open(&mut server, &uri, READS_ENV);
    let opened =
        server.wait_for_notification("textDocument/publishDiagnostics", |p| p["uri"] == uri);
    let codes = |published: &Value| -> Vec<(String, u64)> {
        published["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| {
                (
                    d["code"].as_str().unwrap().to_string(),
                    d["severity"].as_u64().unwrap(),
                )
            })
            .collect()
    };
    assert_eq!(
        codes(&opened),
        [
            ("generation-unavailable".to_string(), 3),
            ("nondeterministic-input".to_string(), 3)
        ]
    );

    server.notify(
        "workspace/didChangeConfiguration",
        json!({"settings": {"ctgls": {
            "executionEnabled": false,
            "diagnostics": { "nondeterministic-input": "off", "generation-unavailable": "error" },
        }}}),
    );
    let republished =
        server.wait_for_notification("textDocument/publishDiagnostics", |p| p["uri"] == uri);
    assert_eq!(
        codes(&republished),
        [("generation-unavailable".to_string(), 1)]
    );

    // A code the server does not emit is reported, the rest applies.
    server.notify(
        "workspace/didChangeConfiguration",
        json!({"settings": {"ctgls": {
            "executionEnabled": false,
            "diagnostics": { "spelling": "off", "generation-unavailable": "hint" },
        }}}),
    );
    server.wait_for_message(
        "window/logMessage",
        "unknown setting `ctgls.diagnostics.spelling`",
    );
    let again =
        server.wait_for_notification("textDocument/publishDiagnostics", |p| p["uri"] == uri);
    assert_eq!(
        codes(&again),
        [
            ("generation-unavailable".to_string(), 4),
            ("nondeterministic-input".to_string(), 3)
        ]
    );
    assert_eq!(server.shutdown_and_exit().code(), Some(0));
}

#[test]
fn trigger_manual_runs_only_when_asked_and_the_action_says_so() {
    let project = Project::copy("settings", "manual");
    let uri = project.uri("Account");
    let text = std::fs::read_to_string(project.file("Account")).unwrap();
    let mut server = start(&project, failing_runs("manual"), json!({}));
    open(&mut server, &uri, &text);
    server.pump_for(Duration::from_millis(600));
    let quiet = status(&mut server);
    assert_eq!(quiet["state"], "idle", "no run without asking: {quiet}");
    assert_eq!(quiet["running"], Value::Null);

    // Before any result: "Generate tests for class Account" runs ctgls.generate.
    let actions = actions_at(&mut server, &uri, 3, json!([]));
    let generate = actions
        .iter()
        .find(|a| a["title"] == "Generate tests for class Account")
        .unwrap_or_else(|| panic!("{actions:?}"));
    assert_eq!(generate["kind"], "source.generateTests.ctgls");
    assert_eq!(generate["command"]["command"], "ctgls.generate");
    assert_eq!(generate["command"]["arguments"][0]["uri"], uri);
    let scheduled = server
        .request("workspace/executeCommand", generate["command"].clone())
        .unwrap();
    assert_eq!(scheduled, json!({ "scheduled": 1 }));
    let failed = wait_for_a_run(&mut server);
    assert!(
        failed["message"].as_str().unwrap().contains("nonexistent"),
        "{failed}"
    );
    assert_eq!(server.shutdown_and_exit().code(), Some(0));
}

#[test]
fn switching_the_trigger_to_idle_runs_the_waiting_classes() {
    let project = Project::copy("settings", "switch");
    let uri = project.uri("Account");
    let text = std::fs::read_to_string(project.file("Account")).unwrap();
    let mut server = start(&project, failing_runs("manual"), json!({}));
    open(&mut server, &uri, &text);
    server.pump_for(Duration::from_millis(300));
    assert_eq!(status(&mut server)["state"], "idle");
    server.notify(
        "workspace/didChangeConfiguration",
        json!({ "settings": { "ctgls": failing_runs("idle") } }),
    );
    wait_for_a_run(&mut server);
    assert_eq!(server.shutdown_and_exit().code(), Some(0));
}

#[test]
fn trigger_save_runs_after_a_save_only() {
    let project = Project::copy("settings", "save");
    let uri = project.uri("Account");
    let text = std::fs::read_to_string(project.file("Account")).unwrap();
    let mut server = start(&project, failing_runs("save"), json!({}));
    open(&mut server, &uri, &text);
    server.notify(
        "textDocument/didChange",
        json!({
            "textDocument": {"uri": uri, "version": 2},
            "contentChanges": [{"range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}}, "text": "// edited\n"}],
        }),
    );
    // Well past the idle delay: still no run, and nothing queued (it waits for a save).
    server.pump_for(Duration::from_millis(600));
    let waiting = status(&mut server);
    assert_eq!(waiting["state"], "idle", "{waiting}");
    assert_eq!(waiting["queued"], json!([]), "{waiting}");
    server.notify(
        "textDocument/didSave",
        json!({ "textDocument": { "uri": uri } }),
    );
    wait_for_a_run(&mut server);
    assert_eq!(server.shutdown_and_exit().code(), Some(0));
}

#[test]
fn trigger_idle_is_the_default() {
    let project = Project::copy("settings", "idle");
    let uri = project.uri("Account");
    let text = std::fs::read_to_string(project.file("Account")).unwrap();
    let mut options = failing_runs("idle");
    options.as_object_mut().unwrap().remove("trigger");
    let mut server = start(&project, options, json!({}));
    open(&mut server, &uri, &text);
    wait_for_a_run(&mut server);
    assert_eq!(server.shutdown_and_exit().code(), Some(0));
}

#[test]
fn source_and_test_roots_come_from_the_settings() {
    let project = Project::copy("settings", "roots");
    for (dir, file, text) in [
        (
            "code/p",
            "A.java",
            "package p;\npublic class A { int f() { return 1; } }\n",
        ),
        (
            "checks/p",
            "ATest.java",
            "package p;\npublic class ATest { void t() {} }\n",
        ),
    ] {
        std::fs::create_dir_all(project.0.join(dir)).unwrap();
        std::fs::write(project.0.join(dir).join(file), text).unwrap();
    }
    let source = format!("file://{}/code/p/A.java", project.0.display());
    let test = format!("file://{}/checks/p/ATest.java", project.0.display());
    let classes = |roots: Value| -> Vec<String> {
        let mut options = json!({ "executionEnabled": false });
        options
            .as_object_mut()
            .unwrap()
            .extend(roots.as_object().unwrap().clone());
        let mut server = start(&project, options, json!({}));
        for uri in [&source, &test] {
            let path = uri.strip_prefix("file://").unwrap();
            open(&mut server, uri, &std::fs::read_to_string(path).unwrap());
        }
        let classes = status(&mut server)["classes"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["class"].as_str().unwrap().to_string())
            .collect();
        assert_eq!(server.shutdown_and_exit().code(), Some(0));
        classes
    };
    // The project's own layout: src/main/java, so neither file is a class to generate for.
    assert!(classes(json!({})).is_empty());
    // Relative and absolute roots, as the CLI's --source-root and --out take them.
    let absolute_tests = project.0.join("checks").display().to_string();
    assert_eq!(
        classes(json!({ "sourceRoots": ["code", "checks"], "testRoots": [absolute_tests] })),
        ["p.A"]
    );
    assert_eq!(
        classes(json!({ "sourceRoots": ["code", "checks"], "testRoots": ["elsewhere", "checks"] })),
        ["p.A"],
        "every test root holds tests, not only the first"
    );
}

#[test]
fn actions_before_any_result_say_what_they_wait_for() {
    let project = Project::copy("settings", "waiting");
    let uri = project.uri("Account");
    let text = std::fs::read_to_string(project.file("Account")).unwrap();
    // A client that shows disabled actions.
    let disabled = json!({ "textDocument": { "codeAction": { "disabledSupport": true } } });
    let mut server = start(&project, json!({ "executionEnabled": false }), disabled);
    open(&mut server, &uri, &text);
    // A diagnostic of an earlier session, sent back by the client.
    let uncovered = json!({
        "range": { "start": { "line": 3, "character": 0 }, "end": { "line": 3, "character": 5 } },
        "source": "ctgls",
        "code": "uncovered-branch",
        "message": "true branch not covered",
        "data": { "uri": uri, "class": "com.example.bank.Account", "goal": "x/B0.T", "run": 1 },
    });
    let actions = actions_at(&mut server, &uri, 3, json!([uncovered]));
    let titles: Vec<&str> = actions.iter().filter_map(|a| a["title"].as_str()).collect();
    assert_eq!(
        titles,
        [
            "Insert test covering this branch",
            "Generate tests for class Account",
            // `Bank` calls `Account` (lsp_integration.rs).
            "Generate integration tests through Bank"
        ]
    );
    for action in &actions {
        let reason = action["disabled"]["reason"].as_str().unwrap_or_default();
        assert!(reason.contains("executionEnabled"), "{action}");
        assert!(action.get("command").is_none() && action.get("edit").is_none());
    }
    assert_eq!(server.shutdown_and_exit().code(), Some(0));

    // A client that does not: a command that shows the reason.
    let mut server = start(&project, json!({ "executionEnabled": false }), json!({}));
    open(&mut server, &uri, &text);
    let actions = actions_at(&mut server, &uri, 3, json!([]));
    let generate = actions
        .iter()
        .find(|a| a["title"] == "Generate tests for class Account")
        .unwrap_or_else(|| panic!("{actions:?}"));
    assert_eq!(generate["command"]["command"], "ctgls.explain");
    server.forget_notifications();
    let answer = server
        .request("workspace/executeCommand", generate["command"].clone())
        .unwrap();
    assert_eq!(answer, Value::Null);
    server.wait_for_message("window/showMessage", "executionEnabled");
    assert_eq!(server.shutdown_and_exit().code(), Some(0));
}
