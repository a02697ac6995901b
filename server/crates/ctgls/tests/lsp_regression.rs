//! The regression guard end to end (`CTGLS_E2E=1`): the real binary over stdio, the real
//! worker, on a copy of the example project. After a first run stores `Account`'s tests, an
//! edit of `getOwner` (which every run's tests assert; which of `deposit`'s effects they assert
//! depends on the run) brings `behaviour-changed` warnings on `getOwner` with an "Accept the
//! new behaviour" action that rewrites the generated test file's assertion; undoing the edit
//! removes them; editing again and running `ctgls.acceptBehaviour` makes the store assert the
//! new value and removes them too. With `CTGLS_BENCH=1` as well, `behaviour_changed_latency` prints the
//! time from the end of typing to the warning (docs/benchmarks.md).

mod support;

use std::time::{Duration, Instant};

use serde_json::{json, Value};
use support::{copy_dir, e2e_enabled, Project, Scratch, TestServer};

const RUN_TIMEOUT: Duration = Duration::from_secs(120);
const CLASS: &str = "com.example.bank.Account";

/// The latency benchmark's switch, on top of `CTGLS_E2E=1`.
fn bench_enabled() -> bool {
    std::env::var("CTGLS_BENCH").is_ok_and(|value| value == "1")
}

fn start(project: &Project, idle_delay_ms: u64) -> TestServer {
    let mut server = TestServer::start();
    let root = format!("file://{}", project.0.display());
    server.initialize(json!({
        "processId": null,
        "rootUri": root,
        "workspaceFolders": [{ "uri": root, "name": "bank" }],
        "initializationOptions": { "budgetSeconds": 6, "idleDelayMs": idle_delay_ms },
        "capabilities": {
            "window": { "workDoneProgress": true },
            "workspace": { "workspaceEdit": { "documentChanges": true } }
        }
    }));
    server
}

/// Opens `Account`, waits for its first run to end and writes the stored test class where
/// `ctgls generate` would have; returns the uri and the text.
fn open_after_a_run(server: &mut TestServer, project: &Project) -> (String, String) {
    let uri = project.uri("Account");
    let text = std::fs::read_to_string(project.file("Account")).unwrap();
    server.notify(
        "textDocument/didOpen",
        json!({ "textDocument": { "uri": uri, "languageId": "java", "version": 1, "text": text } }),
    );
    server.wait_for_notification_within("$/progress", RUN_TIMEOUT, |p| {
        p["value"]["kind"] == "end"
            && p["value"]["message"]
                .as_str()
                .is_some_and(|m| m.contains("branches"))
    });
    let record = ctg::store::Store::open(&project.0)
        .load(CLASS)
        .unwrap()
        .expect("the run's record");
    let suite = record.suite.expect("verified tests");
    let test_file = project.test_file("Account");
    std::fs::create_dir_all(test_file.parent().unwrap()).unwrap();
    std::fs::write(&test_file, &suite.source).unwrap();
    (uri, text)
}

/// Replaces the whole text of `uri` (version `version`).
fn replace(server: &mut TestServer, uri: &str, version: i32, text: &str) {
    server.notify(
        "textDocument/didChange",
        json!({ "textDocument": { "uri": uri, "version": version },
                "contentChanges": [{ "text": text }] }),
    );
}

/// The published diagnostics with `code`.
fn with_code(params: &Value, code: &str) -> Vec<Value> {
    params["diagnostics"]
        .as_array()
        .map(|d| d.iter().filter(|d| d["code"] == code).cloned().collect())
        .unwrap_or_default()
}

fn changed(params: &Value) -> Vec<Value> {
    with_code(params, "behaviour-changed")
}

fn failed(params: &Value) -> Vec<Value> {
    with_code(params, "project-test-failed")
}

/// The code actions for `diagnostic` of `uri`, at its range.
fn actions_for(server: &mut TestServer, uri: &str, diagnostic: &Value) -> Vec<Value> {
    server
        .request(
            "textDocument/codeAction",
            json!({ "textDocument": { "uri": uri }, "range": diagnostic["range"],
                    "context": { "diagnostics": [diagnostic] } }),
        )
        .unwrap()
        .as_array()
        .cloned()
        .unwrap_or_default()
}

/// Waits for diagnostics of `uri` at `version` that do (or do not) have a behaviour change.
fn wait_for(server: &mut TestServer, uri: &str, version: i32, with_change: bool) -> Value {
    server.wait_for_notification_within("textDocument/publishDiagnostics", RUN_TIMEOUT, |p| {
        p["uri"] == uri && p["version"] == version && changed(p).is_empty() != with_change
    })
}

#[test]
fn an_edit_of_get_owner_is_a_behaviour_change_until_it_is_undone() {
    if !e2e_enabled() {
        eprintln!("skipped: the regression guard's editor test runs with CTGLS_E2E=1");
        return;
    }
    let project = Project::copy("lsp-regression", "edit");
    // An idle delay longer than the guard's own (250 ms): the warning comes from the check
    // that runs on its own, ahead of the run.
    let mut server = start(&project, 1500);
    let (uri, text) = open_after_a_run(&mut server, &project);
    let edited = text.replace("return owner;", "return owner + \"!\";");
    assert_ne!(edited, text);

    let typed = Instant::now();
    replace(&mut server, &uri, 2, &edited);
    let published = wait_for(&mut server, &uri, 2, true);
    eprintln!("behaviour-changed after {:?}", typed.elapsed());
    let warnings = changed(&published);
    let warning = warnings
        .iter()
        .find(|w| {
            w["message"].as_str().is_some_and(|m| {
                m.contains(" now leaves getOwner() at \"") || m.contains(" now returns \"")
            })
        })
        .unwrap_or_else(|| panic!("{published}"));
    // Warnings, all on the edited member's name.
    let get_owner_line = edited
        .lines()
        .position(|l| l.contains("public String getOwner("))
        .unwrap();
    for w in &warnings {
        assert_eq!(w["severity"], 2, "{w}");
        assert_eq!(w["range"]["start"]["line"], get_owner_line, "{w}");
    }

    let actions = actions_for(&mut server, &uri, warning);
    let accept = actions
        .iter()
        .find(|a| a["title"] == "Accept the new behaviour")
        .unwrap_or_else(|| panic!("{actions:?}"));
    assert_eq!(accept["command"]["command"], "ctgls.acceptBehaviour");
    let document = &accept["edit"]["documentChanges"][0];
    let test_uri = format!("file://{}", project.test_file("Account").display());
    assert_eq!(document["textDocument"]["uri"], test_uri.as_str());
    // The new value, one more than the old one, where the old one was asserted.
    let new_text = document["edits"][0]["newText"].as_str().unwrap();
    assert!(new_text.contains("!\""), "{new_text}");
    let old_line = document["edits"][0]["range"]["start"]["line"]
        .as_u64()
        .unwrap() as usize;
    let old_text = std::fs::read_to_string(project.test_file("Account")).unwrap();
    let old = old_text.lines().nth(old_line).unwrap();
    assert_ne!(old.trim(), new_text.trim());
    // "Open the test" goes to the declaration of the test the warning names.
    let open = actions
        .iter()
        .find(|a| a["command"]["command"] == "ctgls.openTest")
        .unwrap_or_else(|| panic!("{actions:?}"));
    let declared = format!("void {}(", warning["data"]["test"].as_str().unwrap());
    let test_line = old_text.lines().position(|l| l.contains(&declared));
    assert_eq!(
        open["command"]["arguments"][0],
        json!({ "test": test_uri, "line": test_line.unwrap() }),
        "{declared}"
    );

    // Undo: the warning goes once the stored tests ran again on the undone text.
    replace(&mut server, &uri, 3, &text);
    wait_for(&mut server, &uri, 3, false);

    // The edit again, accepted: the store's tests assert the new value, the warnings go.
    replace(&mut server, &uri, 4, &edited);
    wait_for(&mut server, &uri, 4, true);
    server.forget_notifications();
    let accepted = server
        .request(
            "workspace/executeCommand",
            json!({ "command": "ctgls.acceptBehaviour", "arguments": [{ "uri": uri }] }),
        )
        .unwrap();
    assert!(accepted["accepted"].as_u64().unwrap() >= 1, "{accepted}");
    wait_for(&mut server, &uri, 4, false);
    let stored = ctg::store::Store::open(&project.0)
        .load(CLASS)
        .unwrap()
        .and_then(|r| r.suite)
        .expect("the stored tests");
    assert!(stored.source.contains("!\""), "{}", stored.source);
    server.shutdown_and_exit();
}

/// The time from the end of typing to the `behaviour-changed` warning, and to its removal
/// after the undo, over several edits (`CTGLS_E2E=1 CTGLS_BENCH=1`; prints, asserts nothing
/// about speed).
#[test]
fn behaviour_changed_latency() {
    if !e2e_enabled() || !bench_enabled() {
        eprintln!("skipped: the latency benchmark runs with CTGLS_E2E=1 CTGLS_BENCH=1");
        return;
    }
    let rounds: usize = std::env::var("CTGLS_BENCH_ROUNDS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(10);
    for idle in [1000, 300] {
        let project = Project::copy("lsp-regression", &format!("bench-{idle}"));
        let mut server = start(&project, idle);
        let (uri, text) = open_after_a_run(&mut server, &project);
        let mut shown = Vec::new();
        let mut cleared = Vec::new();
        let mut version = 1;
        for round in 0..rounds {
            // Each round's value is new, so that the warning timed is this edit's.
            let marker = format!("#{round}\"");
            let edited = text.replace("return owner;", &format!("return owner + \"#{round}\";"));
            version += 1;
            let typed = Instant::now();
            replace(&mut server, &uri, version, &edited);
            server.wait_for_notification_within(
                "textDocument/publishDiagnostics",
                RUN_TIMEOUT,
                |p| {
                    p["uri"] == uri.as_str()
                        && p["version"] == version
                        && changed(p)
                            .iter()
                            .any(|d| d["message"].as_str().is_some_and(|m| m.contains(&marker)))
                },
            );
            shown.push(typed.elapsed());
            version += 1;
            let typed = Instant::now();
            replace(&mut server, &uri, version, &text);
            wait_for(&mut server, &uri, version, false);
            cleared.push(typed.elapsed());
        }
        eprintln!(
            "idle delay {idle} ms, {rounds} edits: warning shown p50 {:?} p99 {:?}; removed \
             after the undo p50 {:?} p99 {:?}",
            percentile(&mut shown, 50),
            percentile(&mut shown, 99),
            percentile(&mut cleared, 50),
            percentile(&mut cleared, 99)
        );
        server.shutdown_and_exit();
    }
}

fn percentile(values: &mut [Duration], p: usize) -> Duration {
    values.sort();
    let index = ((values.len() * p).div_ceil(100)).saturating_sub(1);
    values[index.min(values.len() - 1)]
}

/// The project's own tests of an edited class (`ctg`'s regression fixture: `shop.Account` and
/// its JUnit 5 `AccountTest`): after an edit that breaks `depositAddsToBalance`, its failure is
/// a `project-test-failed` Error at the failing assertion in `AccountTest.java` (not open) and
/// a Warning on the class, whose "Open the test" action goes to that line.
#[test]
fn a_failing_project_test_is_shown_in_its_test_file_and_on_the_class() {
    if !e2e_enabled() {
        eprintln!("skipped: the regression guard's editor test runs with CTGLS_E2E=1");
        return;
    }
    let scratch = Scratch::new("lsp-regression", "project-tests");
    let fixture = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../ctg/tests/fixtures/regression/account");
    copy_dir(&fixture, scratch.path());
    let class_file = scratch.path().join("src/main/java/shop/Account.java");
    let test_file = scratch.path().join("src/test/java/shop/AccountTest.java");
    let (uri, test_uri) = (
        format!("file://{}", class_file.display()),
        format!("file://{}", test_file.display()),
    );
    let mut server = TestServer::start();
    let root = format!("file://{}", scratch.path().display());
    server.initialize(json!({
        "processId": null,
        "rootUri": root,
        "workspaceFolders": [{ "uri": root, "name": "shop" }],
        "initializationOptions": { "budgetSeconds": 2, "idleDelayMs": 100 },
        "capabilities": { "window": { "workDoneProgress": true } }
    }));
    let text = std::fs::read_to_string(&class_file).unwrap();
    server.notify(
        "textDocument/didOpen",
        json!({ "textDocument": { "uri": uri, "languageId": "java", "version": 1, "text": text } }),
    );
    server.wait_for_notification_within("$/progress", RUN_TIMEOUT, |p| p["value"]["kind"] == "end");
    let edited = text.replace("balanceCents += amount;", "balanceCents += amount + 1;");
    assert_ne!(edited, text);
    replace(&mut server, &uri, 2, &edited);

    let in_test =
        server.wait_for_notification_within("textDocument/publishDiagnostics", RUN_TIMEOUT, |p| {
            p["uri"] == test_uri.as_str() && !failed(p).is_empty()
        });
    let assertion_line = std::fs::read_to_string(&test_file)
        .unwrap()
        .lines()
        .position(|l| l.contains("assertEquals(100"))
        .unwrap();
    let error = &failed(&in_test)[0];
    assert_eq!(error["severity"], 1, "{error}");
    assert_eq!(error["range"]["start"]["line"], assertion_line, "{error}");
    assert_eq!(error["data"]["test"], "depositAddsToBalance", "{error}");

    let on_class =
        server.wait_for_notification_within("textDocument/publishDiagnostics", RUN_TIMEOUT, |p| {
            p["uri"] == uri.as_str() && p["version"] == 2 && !failed(p).is_empty()
        });
    let warning = failed(&on_class)[0].clone();
    assert_eq!(warning["severity"], 2, "{warning}");
    assert_eq!(
        warning["data"]["testClass"], "shop.AccountTest",
        "{warning}"
    );
    let actions = actions_for(&mut server, &uri, &warning);
    let open = actions
        .iter()
        .find(|a| a["title"] == "Open the test AccountTest.java")
        .unwrap_or_else(|| panic!("{actions:?}"));
    assert_eq!(
        open["command"]["arguments"][0],
        json!({ "test": test_uri, "line": assertion_line })
    );
    server.shutdown_and_exit();
}
