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

/// The code actions for `diagnostic` of `uri`, at its range, as VS Code's Quick Fix menu asks
/// for them (`only` quick fixes).
fn actions_for(server: &mut TestServer, uri: &str, diagnostic: &Value) -> Vec<Value> {
    server
        .request(
            "textDocument/codeAction",
            json!({ "textDocument": { "uri": uri }, "range": diagnostic["range"],
                    "context": { "diagnostics": [diagnostic], "only": ["quickfix"] } }),
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
/// about speed): on the bank example with the idle delays 1000 and 300 ms, then (when
/// tests/corpus/fetch.sh has fetched java-diff-utils into target/corpus) on a copy of its
/// module, editing `Chunk.getPosition()`. Also prints what the stored tests cost per check,
/// from the server's log.
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
    // `CTGLS_BENCH_BANK=0`: the corpus class only.
    let bank: &[u64] = if std::env::var("CTGLS_BENCH_BANK").is_ok_and(|v| v == "0") {
        &[]
    } else {
        &[1000, 300]
    };
    for &idle in bank {
        let project = Project::copy("lsp-regression", &format!("bench-{idle}"));
        let mut server = start(&project, idle);
        let (uri, text) = open_after_a_run(&mut server, &project);
        // Each round's value is new, so that the warning timed is this edit's.
        let edit = |round: usize| {
            let edited = text.replace("return owner;", &format!("return owner + \"#{round}\";"));
            (edited, Some(format!("#{round}\"")))
        };
        bench_rounds(
            &format!("bank Account, idle delay {idle} ms"),
            server,
            &uri,
            &text,
            rounds,
            &edit,
        );
    }
    let corpus = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../target/corpus");
    let module = corpus.join("src/java-diff-utils/java-diff-utils");
    if !module.is_dir() {
        eprintln!(
            "the corpus class skipped: no {} (tests/corpus/fetch.sh)",
            module.display()
        );
        return;
    }
    // A copy: the corpus is never edited.
    let scratch = Scratch::new("lsp-regression", "bench-corpus");
    copy_dir(&module, scratch.path());
    let _ = std::fs::remove_dir_all(scratch.path().join(".ctgls"));
    let home = corpus.join("home");
    let maven_opts = format!("-Duser.home={}", home.display());
    let mut server = TestServer::start_with_env(
        &["lsp"],
        &[
            ("HOME", home.to_str().unwrap()),
            ("MAVEN_OPTS", &maven_opts),
        ],
    );
    let root = format!("file://{}", scratch.path().display());
    server.initialize(json!({
        "processId": null,
        "rootUri": root,
        "workspaceFolders": [{ "uri": root, "name": "java-diff-utils" }],
        "initializationOptions": { "budgetSeconds": 10, "idleDelayMs": 1000 },
        "capabilities": { "window": { "workDoneProgress": true } }
    }));
    let file = scratch
        .path()
        .join("src/main/java/com/github/difflib/patch/Chunk.java");
    let uri = format!("file://{}", file.display());
    let text = std::fs::read_to_string(&file).unwrap();
    server.notify(
        "textDocument/didOpen",
        json!({ "textDocument": { "uri": uri, "languageId": "java", "version": 1, "text": text } }),
    );
    server.wait_for_notification_within("$/progress", Duration::from_secs(300), |p| {
        p["value"]["kind"] == "end"
            && p["value"]["message"]
                .as_str()
                .is_some_and(|m| m.contains("branches"))
    });
    let edit = |round: usize| {
        let edited = text.replace(
            "return position;",
            &format!("return position + {};", round + 1),
        );
        (edited, None)
    };
    bench_rounds(
        "java-diff-utils Chunk, idle delay 1000 ms",
        server,
        &uri,
        &text,
        rounds,
        &edit,
    );
}

/// `rounds` edits of `uri` (`edit` gives the edited text and, when it can, a text only this
/// round's warning holds) each followed by its undo; prints the percentiles and the cost of
/// the stored tests' checks from the server's log.
fn bench_rounds(
    name: &str,
    mut server: TestServer,
    uri: &str,
    text: &str,
    rounds: usize,
    edit: &dyn Fn(usize) -> (String, Option<String>),
) {
    let mut shown = Vec::new();
    let mut cleared = Vec::new();
    let mut version = 1;
    // Round 0 is the first check after the first run (a fresh compile of the class's unit in
    // the worker): printed apart, not counted.
    let mut first = None;
    for round in 0..=rounds {
        let (edited, marker) = edit(round);
        assert_ne!(edited, text, "the edit changes nothing");
        version += 1;
        let typed = Instant::now();
        replace(&mut server, uri, version, &edited);
        server.wait_for_notification_within("textDocument/publishDiagnostics", RUN_TIMEOUT, |p| {
            p["uri"] == uri
                && p["version"] == version
                && changed(p).iter().any(|d| {
                    marker
                        .as_ref()
                        .is_none_or(|m| d["message"].as_str().is_some_and(|t| t.contains(m)))
                })
        });
        if round == 0 {
            first = Some(typed.elapsed());
        } else {
            shown.push(typed.elapsed());
        }
        version += 1;
        let typed = Instant::now();
        replace(&mut server, uri, version, text);
        wait_for(&mut server, uri, version, false);
        cleared.push(typed.elapsed());
        if marker.is_none() {
            // Without a marker, the next warning must not be this one's: let the undo's own
            // check (and any run) settle first.
            server.pump_for(Duration::from_millis(2500));
        }
    }
    let log = server.stderr();
    // `CTGLS_BENCH_LOG=DIR`: the server's log of each benchmark, to see where the time went.
    if let Some(dir) = std::env::var_os("CTGLS_BENCH_LOG") {
        let file: String = name
            .chars()
            .map(|c| if c.is_alphanumeric() { c } else { '-' })
            .collect();
        let path = std::path::Path::new(&dir).join(format!("{file}.log"));
        if let Err(error) = std::fs::write(&path, &log) {
            eprintln!("cannot write {}: {error}", path.display());
        }
    }
    let mut totals: Vec<Duration> = Vec::new();
    let mut tests = 0;
    for line in log.lines().filter(|l| l.contains("the stored tests of")) {
        if let Some(total) = line
            .split(" ran in ")
            .nth(1)
            .and_then(|rest| rest.split(' ').next())
            .and_then(parse_duration)
        {
            totals.push(total);
            tests += 1;
        }
    }
    eprintln!("{name}: the first edit's warning (the first check after the run) after {first:?}");
    eprintln!(
        "{name}, {rounds} edits: warning shown p50 {:?} p99 {:?}; removed after the undo p50 \
         {:?} p99 {:?}; stored tests per check ({tests} checks): p50 {:?} max {:?}",
        percentile(&mut shown, 50),
        percentile(&mut shown, 99),
        percentile(&mut cleared, 50),
        percentile(&mut cleared, 99),
        (!totals.is_empty()).then(|| percentile(&mut totals.clone(), 50)),
        totals.iter().max(),
    );
    for line in log
        .lines()
        .filter(|l| l.contains("the stored tests of"))
        .take(3)
    {
        eprintln!("  {line}");
    }
    server.shutdown_and_exit();
}

/// A `Debug`-printed duration (`641.2ms`, `1.2s`, `950µs`).
fn parse_duration(text: &str) -> Option<Duration> {
    let text = text.trim_end_matches(',');
    let (number, unit) = text.split_at(text.find(|c: char| c.is_alphabetic() || c == 'µ')?);
    let value: f64 = number.parse().ok()?;
    let seconds = match unit {
        "s" => value,
        "ms" => value / 1e3,
        "µs" => value / 1e6,
        "ns" => value / 1e9,
        _ => return None,
    };
    Some(Duration::from_secs_f64(seconds))
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
