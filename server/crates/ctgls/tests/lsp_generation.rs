//! The editor experience end to end: the real binary over stdio, the real JVM worker, javac
//! and JUnit, on a copy of the bundled example project. Gated by `CTGLS_E2E=1`.

mod support;

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::{json, Value};
use support::{e2e_enabled, Project, TestServer};

const RUN_TIMEOUT: Duration = Duration::from_secs(120);

fn start(project: &Project, settings: Value) -> TestServer {
    let mut server = TestServer::start();
    let capabilities = json!({
        "window": { "workDoneProgress": true },
        "workspace": { "workspaceEdit": { "documentChanges": true, "resourceOperations": ["create"] },
                       "codeLens": { "refreshSupport": true } },
        "textDocument": { "codeAction": { "resolveSupport": { "properties": ["edit"] } } }
    });
    server.initialize_project(project, settings, capabilities);
    server
}

fn open(server: &mut TestServer, project: &Project, class: &str) -> String {
    server.open_class(project, class)
}

/// A content change replacing lines `from` (line, character) to `to` with `text`.
fn change(from: (u32, u32), to: (u32, u32), text: &str) -> Value {
    json!({
        "range": { "start": { "line": from.0, "character": from.1 },
                   "end": { "line": to.0, "character": to.1 } },
        "text": text
    })
}

/// `didChange` of `uri` to `version` with `changes`, applied in order.
fn edit(server: &mut TestServer, uri: &str, version: i32, changes: &[Value]) {
    server.notify(
        "textDocument/didChange",
        json!({ "textDocument": { "uri": uri, "version": version }, "contentChanges": changes }),
    );
}

/// Waits until a run (other than the one with progress token `not`) reports that it is
/// searching; returns its progress token.
fn searching_run(server: &mut TestServer, not: &Value) -> Value {
    let report = server.wait_for_notification_within("$/progress", RUN_TIMEOUT, |p| {
        &p["token"] != not
            && p["value"]["kind"] == "report"
            && p["value"]["message"]
                .as_str()
                .is_some_and(|m| m.starts_with("searching"))
    });
    report["token"].clone()
}

/// Waits for the end of the run with progress token `token`, which must say it was cancelled.
fn assert_run_cancelled(server: &mut TestServer, token: &Value) {
    let end = server.wait_for_notification("$/progress", |p| {
        &p["token"] == token && p["value"]["kind"] == "end"
    });
    let message = end["value"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("cancelled"), "{end}");
}

/// The `ctgls.status` command's answer.
fn ask_status(server: &mut TestServer) -> Value {
    server
        .request(
            "workspace/executeCommand",
            json!({ "command": "ctgls.status", "arguments": [] }),
        )
        .unwrap()
}

fn codes(diagnostics: &Value) -> Vec<String> {
    diagnostics
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["code"].as_str().unwrap_or("").to_string())
        .collect()
}

/// Waits for diagnostics of `uri` from a finished run (they carry closest distances or
/// exceptions, never the interim "search running" note).
fn final_diagnostics(server: &mut TestServer, uri: &str) -> Value {
    server.wait_for_notification_within("textDocument/publishDiagnostics", RUN_TIMEOUT, |p| {
        p["uri"] == uri
            && p["diagnostics"].as_array().is_some_and(|d| {
                d.iter().any(|d| d["code"] == "undeclared-exception")
                    && !d.iter().any(|d| {
                        d["message"]
                            .as_str()
                            .is_some_and(|m| m.contains("search running"))
                    })
            })
    })
}

#[test]
fn opening_a_class_publishes_coverage_diagnostics() {
    if !e2e_enabled() {
        return;
    }
    let project = Project::copy("lsp", "open");
    let mut server = start(&project, json!({ "budgetSeconds": 8, "idleDelayMs": 100 }));
    let uri = open(&mut server, &project, "Account");
    let published = final_diagnostics(&mut server, &uri);
    eprintln!("{}", serde_json::to_string_pretty(&published).unwrap());
    assert!(codes(&published["diagnostics"]).contains(&"undeclared-exception".to_string()));
    server.shutdown_and_exit();
}

/// Applies LSP text edits (ASCII text: characters are bytes) to a text.
fn apply_edits(text: &str, edits: &[Value]) -> String {
    let offset = |position: &Value| {
        let line = position["line"].as_u64().unwrap() as usize;
        let character = position["character"].as_u64().unwrap() as usize;
        let start: usize = text.split_inclusive('\n').take(line).map(str::len).sum();
        start + character
    };
    let mut sorted: Vec<&Value> = edits.iter().collect();
    sorted.sort_by_key(|e| std::cmp::Reverse(offset(&e["range"]["start"])));
    let mut out = text.to_string();
    for edit in sorted {
        let range = offset(&edit["range"]["start"])..offset(&edit["range"]["end"]);
        out.replace_range(range, edit["newText"].as_str().unwrap());
    }
    out
}

/// Applies a workspace edit to files on disk (what an editor does, then saves).
fn apply_workspace_edit(edit: &Value) {
    let path = |uri: &Value| PathBuf::from(uri.as_str().unwrap().strip_prefix("file://").unwrap());
    for change in edit["documentChanges"].as_array().expect("documentChanges") {
        if change["kind"] == "create" {
            let file = path(&change["uri"]);
            // Like clients that do not make directories: the server made the test root.
            assert!(
                file.parent().unwrap().is_dir(),
                "{} has no directory to be created in",
                file.display()
            );
            if !file.exists() {
                std::fs::write(&file, "").unwrap();
            }
        } else {
            let file = path(&change["textDocument"]["uri"]);
            let text = std::fs::read_to_string(&file).unwrap_or_default();
            let edits = change["edits"].as_array().unwrap();
            std::fs::write(&file, apply_edits(&text, edits)).unwrap();
        }
    }
}

/// Compiles a test class against the project and runs it with the real JUnit 5 launcher.
fn assert_test_class_passes(project: &Project, class: &str, expected_tests: usize) {
    use ctg::verify::{run_test_class, JUnitSetup, ProjectClasses, VerifyOptions};
    let source = std::fs::read_to_string(project.test_file(class)).unwrap();
    let sources = ProjectClasses {
        sources: ["Account", "Bank", "AmountParser"]
            .iter()
            .map(|c| project.file(c))
            .collect(),
        classpath: Vec::new(),
        overlays: Default::default(),
    };
    let junit = JUnitSetup::locate(testcase::junit::JUnit::Five, &[])
        .expect("Debian's junit5 (tests/run.sh installs it)");
    let runs = run_test_class(
        &source,
        &format!("com.example.bank.{class}GeneratedTest"),
        &sources,
        &junit,
        &VerifyOptions::default(),
    )
    .unwrap_or_else(|e| panic!("the test class compiles and runs: {e}\n{source}"));
    for run in &runs {
        assert!(run.passed(), "{run:?}\n{source}");
        assert_eq!(run.executed.len(), expected_tests, "{run:?}\n{source}");
    }
}

fn diagnostic_with<'a>(diagnostics: &'a Value, code: &str, needle: &str) -> Option<&'a Value> {
    diagnostics
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["code"] == code && d["message"].as_str().is_some_and(|m| m.contains(needle)))
}

fn resolve(server: &mut TestServer, action: &Value) -> Value {
    server
        .request("codeAction/resolve", action.clone())
        .unwrap_or_else(|e| panic!("resolve failed: {e}"))
}

#[test]
fn a_session_diagnostics_hover_lens_coverage_actions_and_edits() {
    if !e2e_enabled() {
        return;
    }
    let project = Project::copy("lsp", "session");
    let mut server = start(&project, json!({ "budgetSeconds": 8, "idleDelayMs": 300 }));
    let uri = open(&mut server, &project, "Account");

    // Interim coverage while the search runs, then the final diagnostics.
    server.wait_for_notification_within("textDocument/publishDiagnostics", RUN_TIMEOUT, |p| {
        p["uri"] == uri && p["diagnostics"].as_array().is_some_and(|d| !d.is_empty())
    });
    let published = final_diagnostics(&mut server, &uri);
    assert_eq!(published["version"], 1);
    let diagnostics = &published["diagnostics"];
    for d in diagnostics.as_array().unwrap() {
        assert_eq!(d["source"], "ctgls", "{d}");
    }
    let arithmetic = diagnostic_with(diagnostics, "undeclared-exception", "ArithmeticException")
        .expect("the / by zero in interest(int) is found")
        .clone();
    assert_eq!(arithmetic["severity"], 2);
    assert!(
        arithmetic["message"]
            .as_str()
            .unwrap()
            .contains("interest(int)")
            && arithmetic["message"]
                .as_str()
                .unwrap()
                .contains("ratePerUnit = 0"),
        "{arithmetic}"
    );
    assert_eq!(
        arithmetic["range"]["start"]["line"], 54,
        "the division's line"
    );
    assert!(
        diagnostic_with(
            diagnostics,
            "undeclared-exception",
            "IllegalArgumentException"
        )
        .is_none(),
        "argument checks thrown on purpose are not findings: {diagnostics}"
    );

    // Progress: begun and ended for the run.
    server.wait_for_notification("$/progress", |p| p["value"]["kind"] == "end");
    let progress: Vec<&Value> = server
        .notifications
        .iter()
        .filter(|n| n["method"] == "$/progress")
        .collect();
    assert!(progress
        .iter()
        .any(|n| n["params"]["value"]["kind"] == "begin"
            && n["params"]["value"]["title"] == "ctgls: Account"
            && n["params"]["value"]["cancellable"] == true));
    assert!(progress
        .iter()
        .any(|n| n["params"]["value"]["kind"] == "end"));
    assert!(server
        .server_requests
        .iter()
        .any(|(method, _)| method == "window/workDoneProgress/create"));

    // Hover on a method name, on a branch, on a line.
    let hover = |server: &mut TestServer, line: u32, character: u32| {
        server
            .request(
                "textDocument/hover",
                json!({ "textDocument": { "uri": uri }, "position": { "line": line, "character": character } }),
            )
            .unwrap()
    };
    let on_withdraw = hover(&mut server, 35, 20);
    let text = on_withdraw["contents"]["value"]
        .as_str()
        .unwrap_or_default();
    assert!(
        text.contains("withdraw(long)") && text.contains("branches covered by"),
        "{on_withdraw}"
    );
    let on_branch = hover(&mut server, 36, 14);
    let text = on_branch["contents"]["value"].as_str().unwrap_or_default();
    assert!(
        text.contains("amount <= 0") && text.contains("**true**"),
        "{on_branch}"
    );
    assert!(
        text.contains("covered by `"),
        "names the covering test: {on_branch}"
    );

    // Code lens per method.
    let lenses = server
        .request(
            "textDocument/codeLens",
            json!({ "textDocument": { "uri": uri } }),
        )
        .unwrap();
    let titles: Vec<&str> = lenses
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["command"]["title"].as_str().unwrap())
        .collect();
    assert!(
        titles
            .iter()
            .any(|t| t.contains(" branches · ") && t.ends_with("tests")),
        "{titles:?}"
    );

    // ctgls/coverage.
    let coverage = server
        .request("ctgls/coverage", json!({ "textDocument": { "uri": uri } }))
        .unwrap();
    let file = &coverage["files"][0];
    assert_eq!(file["class"], "com.example.bank.Account");
    assert!(file["lines"].as_array().unwrap().len() > 10, "{file}");
    assert!(
        file["summary"]["branches"]["covered"].as_u64().unwrap() > 10,
        "{file}"
    );

    // Quick fix: insert the test reproducing the exception; the file is created.
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
    let insert = actions
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["title"] == "Insert test reproducing ArithmeticException")
        .unwrap_or_else(|| panic!("{actions}"))
        .clone();
    assert!(insert.get("edit").is_none(), "edits are resolved lazily");
    let resolved = resolve(&mut server, &insert);
    assert_eq!(resolved["edit"]["documentChanges"][0]["kind"], "create");
    apply_workspace_edit(&resolved["edit"]);
    assert_test_class_passes(&project, "Account", 1);
    // Opening the generated test class does not make it a class to generate tests for.
    let test_uri = format!("file://{}", project.test_file("Account").display());
    let test_text = std::fs::read_to_string(project.test_file("Account")).unwrap();
    server.notify(
        "textDocument/didOpen",
        json!({ "textDocument": { "uri": test_uri, "languageId": "java", "version": 1, "text": test_text } }),
    );
    let status = ask_status(&mut server);
    assert_eq!(status["classes"].as_array().unwrap().len(), 1, "{status}");

    // Source action: the whole class replaces the file ctgls made.
    let actions = server
        .request(
            "textDocument/codeAction",
            json!({
                "textDocument": { "uri": uri },
                "range": { "start": { "line": 0, "character": 0 }, "end": { "line": 0, "character": 0 } },
                "context": { "diagnostics": [], "only": ["source"] }
            }),
        )
        .unwrap();
    let generate = actions
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["title"] == "Generate tests for class Account")
        .unwrap_or_else(|| panic!("{actions}"))
        .clone();
    let resolved = resolve(&mut server, &generate);
    apply_workspace_edit(&resolved["edit"]);
    let written = std::fs::read_to_string(project.test_file("Account")).unwrap();
    assert_test_class_passes(&project, "Account", written.matches("@Test").count());

    // Edit interest(int): its results are withdrawn at once, the others move with the text.
    let covered_before = ask_status(&mut server)["classes"][0]["branches"]["covered"]
        .as_u64()
        .unwrap();
    server.forget_notifications();
    edit(
        &mut server,
        &uri,
        2,
        &[
            change((0, 0), (0, 0), "// a comment\n"),
            change((55, 0), (55, 0), "        int unused = 0;\n"),
        ],
    );
    let edited = server.wait_for_notification("textDocument/publishDiagnostics", |p| {
        p["uri"] == uri && p["version"] == 2
    });
    assert!(
        diagnostic_with(
            &edited["diagnostics"],
            "undeclared-exception",
            "ArithmeticException"
        )
        .is_none(),
        "interest(int) changed: its exception is withdrawn: {edited}"
    );
    let moved = edited["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["code"] == "uncovered-branch")
        .count();
    let before = diagnostics
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| {
            d["code"] == "uncovered-branch" && d["range"]["start"]["line"].as_u64().unwrap() < 50
        })
        .count();
    assert!(
        moved >= before,
        "unchanged members keep their results ({moved} < {before})"
    );
    // After the idle delay a new run starts. While it searches, its interim coverage shows
    // on top of the last run's: the unchanged members keep their coverage and the last run's
    // tests stay (only interest(int), three outcomes, starts again from what the search finds).
    let interim = server.wait_for_notification_within("ctgls/status", RUN_TIMEOUT, |s| {
        s["classes"][0]["origin"] == "running"
    });
    let interim_covered = interim["classes"][0]["branches"]["covered"]
        .as_u64()
        .unwrap();
    assert!(
        interim_covered + 3 >= covered_before,
        "interim results of a later run keep the last run's coverage ({interim_covered} of {covered_before}): {interim}"
    );
    assert!(
        interim["classes"][0]["tests"].as_u64().unwrap() > 0,
        "the last run's tests stay while the search runs: {interim}"
    );
    // Code actions at any moment: while the search runs, "Generate tests for class Account"
    // is offered, and a diagnostic of the class gets an action of its own (a test of the last
    // run, the closest one so far, or what it waits for).
    let uncovered = diagnostics
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["code"] == "uncovered-branch")
        .cloned();
    let actions = server
        .request(
            "textDocument/codeAction",
            json!({
                "textDocument": { "uri": uri },
                "range": { "start": { "line": 0, "character": 0 }, "end": { "line": 0, "character": 0 } },
                "context": { "diagnostics": uncovered.iter().collect::<Vec<_>>() }
            }),
        )
        .unwrap();
    let actions = actions.as_array().unwrap();
    assert!(
        actions
            .iter()
            .any(|a| a["title"] == "Generate tests for class Account"),
        "{actions:?}"
    );
    if let Some(uncovered) = &uncovered {
        assert!(
            actions.iter().any(|a| a["diagnostics"][0] == *uncovered),
            "an action for {uncovered}: {actions:?}"
        );
    }
    // The run's end brings the exception back, for the new version (interim results have
    // none for the edited member).
    let rerun =
        server.wait_for_notification_within("textDocument/publishDiagnostics", RUN_TIMEOUT, |p| {
            p["uri"] == uri
                && diagnostic_with(
                    &p["diagnostics"],
                    "undeclared-exception",
                    "ArithmeticException",
                )
                .is_some()
                && !p["diagnostics"].as_array().unwrap().iter().any(|d| {
                    d["message"]
                        .as_str()
                        .is_some_and(|m| m.contains("search running"))
                })
        });
    assert_eq!(rerun["version"], 2);
    let back = diagnostic_with(
        &rerun["diagnostics"],
        "undeclared-exception",
        "ArithmeticException",
    )
    .expect("found again");
    assert_eq!(back["range"]["start"]["line"], 56, "two lines lower");

    let status = ask_status(&mut server);
    assert_eq!(
        status["classes"][0]["class"], "com.example.bank.Account",
        "{status}"
    );
    assert!(
        status["classes"][0]["runs"].as_u64().unwrap() >= 2,
        "{status}"
    );
    assert!(server
        .notifications
        .iter()
        .any(|n| n["method"] == "ctgls/coverageChanged"));
    server.shutdown_and_exit();
}

#[test]
fn cancelling_a_run_and_restarting_with_the_store() {
    if !e2e_enabled() {
        return;
    }
    let project = Project::copy("lsp", "restart");
    let mut server = start(&project, json!({ "budgetSeconds": 30, "idleDelayMs": 100 }));
    let uri = open(&mut server, &project, "Bank");
    // The cancel button of the progress: the run ends early, saying so.
    let token = searching_run(&mut server, &Value::Null);
    server.notify("window/workDoneProgress/cancel", json!({ "token": token }));
    assert_run_cancelled(&mut server, &token);
    // Cancelled means: not again until the text changes or the user asks.
    let status = ask_status(&mut server);
    assert_eq!(status["state"], "idle", "{status}");
    assert!(status["running"].is_null(), "{status}");

    // An edit during a run cancels it; the class runs again, on the new text, once quiet.
    let scheduled = server
        .request(
            "workspace/executeCommand",
            json!({ "command": "ctgls.generate", "arguments": [{ "uri": uri }] }),
        )
        .unwrap();
    assert_eq!(scheduled["scheduled"], 1);
    let second = searching_run(&mut server, &token);
    edit(
        &mut server,
        &uri,
        2,
        &[change((0, 0), (0, 0), "// edited\n")],
    );
    assert_run_cancelled(&mut server, &second);
    server.wait_for_notification("$/progress", |p| {
        p["token"] != second && p["token"] != token && p["value"]["kind"] == "begin"
    });
    server
        .request(
            "workspace/executeCommand",
            json!({ "command": "ctgls.cancel", "arguments": [] }),
        )
        .unwrap();

    // A shorter budget through didChangeConfiguration; then the text goes back to what is on
    // disk (which the restarted server below opens), and that edit makes the class due again.
    server.notify(
        "workspace/didChangeConfiguration",
        json!({ "settings": { "ctgls": { "budgetSeconds": 6, "idleDelayMs": 100 } } }),
    );
    server.poll_request("ctgls/debugConfig", Value::Null, |c| {
        c["budgetSeconds"] == 6.0
    });
    edit(&mut server, &uri, 3, &[change((0, 0), (1, 0), "")]);
    let first = server.wait_for_notification_within("ctgls/status", RUN_TIMEOUT, |s| {
        s["classes"][0]["runs"] == 1 && s["running"].is_null()
    });
    assert!(
        server.stderr().contains("budget 6.0 s"),
        "the new budget applies:\n{}",
        server.stderr()
    );
    let covered = first["classes"][0]["branches"]["covered"].as_u64().unwrap();
    assert!(covered > 0, "{first}");
    server.shutdown_and_exit();
    let record = project.0.join(".ctgls/classes");
    assert!(
        std::fs::read_dir(&record).map(|d| d.count()).unwrap_or(0) == 1,
        "the run is in the store"
    );

    // A new server shows the stored coverage at once, before any run, then runs warm.
    let mut server = start(&project, json!({ "budgetSeconds": 6, "idleDelayMs": 100 }));
    let uri = open(&mut server, &project, "Bank");
    let stored =
        server.wait_for_notification("ctgls/status", |s| s["classes"][0]["origin"] == "stored");
    assert_eq!(
        stored["classes"][0]["branches"]["covered"]
            .as_u64()
            .unwrap(),
        covered,
        "{stored}"
    );

    let hover = server
        .request(
            "textDocument/hover",
            json!({ "textDocument": { "uri": uri }, "position": { "line": 20, "character": 20 } }),
        )
        .unwrap();
    let text = hover["contents"]["value"].as_str().unwrap_or_default();
    assert!(text.contains("from the last session"), "{hover}");

    // The stored tests are offered at once: a quick fix on `transfer`'s first condition,
    // whose edit creates a test class that compiles and passes under JUnit.
    let cursor =
        json!({ "start": { "line": 32, "character": 12 }, "end": { "line": 32, "character": 12 } });
    let actions = server
        .request(
            "textDocument/codeAction",
            json!({ "textDocument": { "uri": uri }, "range": cursor, "context": { "diagnostics": [] } }),
        )
        .unwrap();
    let insert = actions
        .as_array()
        .unwrap()
        .iter()
        .find(|a| {
            a["title"]
                .as_str()
                .is_some_and(|t| t.starts_with("Insert test covering the "))
        })
        .unwrap_or_else(|| panic!("a stored test for `source == null`: {actions}"))
        .clone();
    let resolved = resolve(&mut server, &insert);
    assert!(
        !server
            .notifications
            .iter()
            .any(|n| n["method"] == "$/progress" && n["params"]["value"]["kind"] == "end"),
        "offered and resolved before any run of this session ended"
    );
    assert_eq!(resolved["edit"]["documentChanges"][0]["kind"], "create");
    apply_workspace_edit(&resolved["edit"]);
    assert_test_class_passes(&project, "Bank", 1);
    let after = server.wait_for_notification_within("ctgls/status", RUN_TIMEOUT, |s| {
        s["classes"][0]["origin"] == "run"
    });
    assert!(
        after["classes"][0]["branches"]["covered"].as_u64().unwrap() >= covered,
        "a warm start does not lose coverage: {after}"
    );
    assert!(
        server.stderr().contains("warm start"),
        "the run says it started warm:\n{}",
        server.stderr()
    );
    // The warm JVM worker ends with the server.
    let workers = server.children();
    assert!(!workers.is_empty(), "a worker runs");
    server.shutdown_and_exit();
    for pid in workers {
        assert!(
            !Path::new(&format!("/proc/{pid}")).exists()
                || std::fs::read_to_string(format!("/proc/{pid}/stat"))
                    .is_ok_and(|stat| stat.contains(") Z ")),
            "worker {pid} outlived the server"
        );
    }
}

#[test]
fn bad_inputs_are_reported_and_nothing_is_lost() {
    if !e2e_enabled() {
        return;
    }
    let project = Project::copy("lsp", "bad");

    // Execution disabled: a message once, a diagnostic on the class, no run.
    let mut server = start(&project, json!({ "executionEnabled": false }));
    server.wait_for_message("window/showMessage", "executionEnabled");
    let uri = open(&mut server, &project, "Account");
    let published =
        server.wait_for_notification("textDocument/publishDiagnostics", |p| p["uri"] == uri);
    assert_eq!(
        codes(&published["diagnostics"]),
        ["generation-unavailable"],
        "{published}"
    );
    let denied = server.request(
        "workspace/executeCommand",
        json!({ "command": "ctgls.generate", "arguments": [{ "uri": uri }] }),
    );
    assert!(denied.is_err(), "{denied:?}");
    server.shutdown_and_exit();

    // A class nothing can instantiate: said once, and on the class name.
    std::fs::write(
        project.0.join("src/main/java/com/example/bank/Sealed.java"),
        "package com.example.bank;\n\npublic class Sealed {\n    private Sealed() {}\n\n    public int value(int x) {\n        return x > 0 ? 1 : 2;\n    }\n}\n",
    )
    .unwrap();
    let mut server = start(&project, json!({ "idleDelayMs": 50, "budgetSeconds": 5 }));
    let uri = open(&mut server, &project, "Sealed");
    let message = server.wait_for_notification_within("window/showMessage", RUN_TIMEOUT, |p| {
        p["message"].as_str().is_some_and(|m| m.contains("Sealed"))
    });
    assert!(
        message["message"].as_str().unwrap().contains("instance"),
        "{message}"
    );
    let published = server.wait_for_notification("textDocument/publishDiagnostics", |p| {
        p["uri"] == uri && !p["diagnostics"].as_array().unwrap().is_empty()
    });
    assert_eq!(
        codes(&published["diagnostics"]),
        ["generation-unavailable"],
        "{published}"
    );
    assert_eq!(
        published["diagnostics"][0]["range"]["start"]["line"], 2,
        "on the class name"
    );
    server.shutdown_and_exit();
    std::fs::remove_file(project.0.join("src/main/java/com/example/bank/Sealed.java")).unwrap();

    // A JDK that is not there.
    let mut server = start(
        &project,
        json!({ "javaHome": "/nonexistent/jdk", "idleDelayMs": 50 }),
    );
    let uri = open(&mut server, &project, "Account");
    let message = server.wait_for_notification_within("window/showMessage", RUN_TIMEOUT, |p| {
        p["message"]
            .as_str()
            .is_some_and(|m| m.contains("JDK") || m.contains("javaHome"))
    });
    assert_eq!(message["type"], 1, "an error: {message}");
    let published = server.wait_for_notification("textDocument/publishDiagnostics", |p| {
        p["uri"] == uri && !p["diagnostics"].as_array().unwrap().is_empty()
    });
    assert_eq!(codes(&published["diagnostics"]), ["generation-unavailable"]);
    let status = ask_status(&mut server);
    assert_eq!(status["state"], "unavailable", "{status}");
    server.shutdown_and_exit();

    // Broken Java: no run while the file does not parse; the earlier results stay.
    let mut server = start(&project, json!({ "budgetSeconds": 6, "idleDelayMs": 100 }));
    let uri = open(&mut server, &project, "Account");
    let good = final_diagnostics(&mut server, &uri);
    server.forget_notifications();
    edit(
        &mut server,
        &uri,
        2,
        &[change((36, 0), (36, 0), "        if (amount <= \n")],
    );
    let broken = server.wait_for_notification("textDocument/publishDiagnostics", |p| {
        p["uri"] == uri && p["version"] == 2
    });
    // Runs started so far: every run's progress token is created as it starts, and a
    // background re-run may have started after the first run (when it left a branch
    // uncovered) and before the edit. Messages arrive in order, and the edit's diagnostics
    // are published before any run it could cause, so later creations are runs on broken Java.
    let runs_started = |server: &TestServer| {
        server
            .server_requests
            .iter()
            .filter(|(method, _)| method == "window/workDoneProgress/create")
            .count()
    };
    let runs_before = runs_started(&server);
    let kept = diagnostic_with(
        &broken["diagnostics"],
        "undeclared-exception",
        "ArithmeticException",
    );
    assert!(kept.is_some(), "interest(int) did not change: {broken}");
    std::thread::sleep(Duration::from_millis(1500));
    let status = ask_status(&mut server);
    assert!(
        status["running"].is_null(),
        "no run on broken Java: {status}"
    );
    assert!(
        status["classes"][0]["problem"]
            .as_str()
            .unwrap()
            .contains("syntax errors"),
        "{status}"
    );
    assert_eq!(runs_before, runs_started(&server), "no run on broken Java");
    assert_eq!(good["version"], 1);
    server.shutdown_and_exit();
}
