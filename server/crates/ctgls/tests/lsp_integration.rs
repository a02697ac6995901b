//! Class-integration tests in the editor over stdio (docs/lsp-extensions.md, "Class-integration
//! tests"), on the example project's `Bank` through its calls of `Account`, the pair of
//! `generate_integration.rs`: the hover on a branch of `Account` lists the call sites of `Bank`
//! that reach it before any run; *Generate integration tests through Bank* is offered on
//! `Account`'s declaration and on a call of it in `Bank`, not elsewhere. With `CTGLS_E2E=1`
//! the action's command runs the integration job with the real worker (a budget of 5 s),
//! writes `Bank_AccountIntegrationGeneratedTest.java`, and the hover then says which pairs the
//! run covered, also in a new session (from the `.ctgls/` store).

mod support;

use std::time::Duration;

use serde_json::{json, Value};
use support::{e2e_enabled, Project, TestServer};

const RUN_TIMEOUT: Duration = Duration::from_secs(120);

/// Lines (0-based) of `Account.java`'s decisions that `Bank` reaches: the constructor's two
/// checks, `deposit`'s and `withdraw`'s two.
const ACCOUNT_DECISIONS: &[u32] = &[9, 12, 28, 36, 39];

fn start(project: &Project, settings: Value) -> TestServer {
    let mut server = TestServer::start();
    let capabilities = json!({ "window": { "workDoneProgress": true } });
    server.initialize_project(project, settings, capabilities);
    server
}

fn open(server: &mut TestServer, project: &Project, class: &str) -> String {
    server.open_class(project, class)
}

fn hover(server: &mut TestServer, uri: &str, line: u32, character: u32) -> String {
    let answer = server
        .request(
            "textDocument/hover",
            json!({ "textDocument": { "uri": uri }, "position": { "line": line, "character": character } }),
        )
        .unwrap();
    answer["contents"]["value"]
        .as_str()
        .map(str::to_string)
        .unwrap_or_default()
}

/// The integration actions at (line, character).
fn integration_actions(
    server: &mut TestServer,
    uri: &str,
    line: u32,
    character: u32,
) -> Vec<Value> {
    let position = json!({ "line": line, "character": character });
    let actions = server
        .request(
            "textDocument/codeAction",
            json!({
                "textDocument": { "uri": uri },
                "range": { "start": position, "end": position },
                "context": { "diagnostics": [] },
            }),
        )
        .unwrap();
    actions
        .as_array()
        .cloned()
        .unwrap_or_default()
        .into_iter()
        .filter(|a| a["kind"] == "source.generateTests.ctgls.integration")
        .collect()
}

#[test]
fn callee_hover_lists_caller_paths_and_the_action_runs_the_integration_job() {
    let project = Project::copy("lsp-integration", "bank");
    // `manual`: no unit run starts on its own; only the integration run asked for.
    let mut server = start(
        &project,
        json!({ "trigger": "manual", "buildToolEnabled": false, "budgetSeconds": 5 }),
    );
    let account = open(&mut server, &project, "Account");

    // Before any run: `withdraw`'s `amount <= 0` is reached from `transfer`'s call (line 36),
    // when the check of both accounts takes its false branch; nothing tested yet.
    let before = hover(&mut server, &account, 36, 14);
    assert!(before.contains("integration: reached from"), "{before}");
    assert!(
        before.contains("- `Bank.transfer(String,String,long)` line 36: `source.withdraw(amount)`"),
        "{before}"
    );
    assert!(
        before.contains(
            "takes its false branch (line 33): **true** not yet tested · **false** not yet tested"
        ),
        "{before}"
    );
    // A method of Account that Bank never calls: no integration section.
    let interest = hover(&mut server, &account, 51, 14);
    assert!(!interest.contains("integration"), "{interest}");

    // The action on Account's declaration, one per caller.
    let on_class = integration_actions(&mut server, &account, 3, 8);
    assert_eq!(on_class.len(), 1, "{on_class:#?}");
    assert_eq!(
        on_class[0]["title"],
        "Generate integration tests through Bank"
    );
    let command = on_class[0]["command"].clone();
    assert_eq!(command["command"], "ctgls.generateIntegration");
    assert_eq!(command["arguments"][0]["caller"], "com.example.bank.Bank");
    assert_eq!(
        command["arguments"][0]["callee"],
        "com.example.bank.Account"
    );
    assert!(integration_actions(&mut server, &account, 36, 14).is_empty());
    // Clients that resolve every action before applying it (Neovim) get it back unchanged.
    let resolved = server
        .request("codeAction/resolve", on_class[0].clone())
        .unwrap();
    assert_eq!(resolved, on_class[0]);

    // And on a call of Account inside Bank, not on a call of something else.
    let bank = open(&mut server, &project, "Bank");
    let at_call = integration_actions(&mut server, &bank, 35, 22);
    assert_eq!(at_call.len(), 1, "{at_call:#?}");
    assert_eq!(
        at_call[0]["title"],
        "Generate integration tests through Bank (its calls of Account)"
    );
    assert!(
        integration_actions(&mut server, &bank, 43, 25).is_empty(),
        "accounts.size()"
    );

    if !e2e_enabled() {
        eprintln!("skipped the integration run: it runs with CTGLS_E2E=1");
        return;
    }
    let scheduled = server
        .request(
            "workspace/executeCommand",
            json!({ "command": command["command"], "arguments": command["arguments"] }),
        )
        .unwrap();
    assert_eq!(scheduled["scheduled"], 1, "{scheduled}");
    let end = server
        .wait_for_notification_within("$/progress", RUN_TIMEOUT, |p| p["value"]["kind"] == "end");
    let message = end["value"]["message"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    assert!(
        message.contains("coupled branches · Bank_AccountIntegrationGeneratedTest.java"),
        "{message}\n{}",
        server.stderr()
    );
    let written = project
        .0
        .join("src/test/java/com/example/bank/Bank_AccountIntegrationGeneratedTest.java");
    let source = std::fs::read_to_string(&written).expect("the integration test file");
    assert!(
        source.contains("class Bank_AccountIntegrationGeneratedTest"),
        "{source}"
    );
    assert!(!project.test_file("Bank").exists(), "no unit test file");

    // Now every pair the hover lists is either covered by a named test or left by the run.
    let hovers: Vec<String> = ACCOUNT_DECISIONS
        .iter()
        .map(|&line| {
            let character = if line == 39 { 14 } else { 13 };
            hover(&mut server, &account, line, character)
        })
        .collect();
    for text in &hovers {
        assert!(text.contains("integration: reached from"), "{text}");
        assert!(!text.contains("not yet tested"), "{text}");
    }
    let covered = hovers
        .iter()
        .filter(|text| text.contains("✓ covered by `"))
        .count();
    assert!(covered >= 2, "{hovers:#?}");
    assert_eq!(server.shutdown_and_exit().code(), Some(0));

    // The store recorded the pairs (not as Bank's suite): a new session's hover shows them
    // before any run.
    assert!(project.0.join(".ctgls/integration").is_dir());
    assert!(
        !project.0.join(".ctgls/classes").exists(),
        "no class record"
    );
    let mut server = start(
        &project,
        json!({ "trigger": "manual", "buildToolEnabled": false }),
    );
    let account = open(&mut server, &project, "Account");
    let restarted: Vec<String> = ACCOUNT_DECISIONS
        .iter()
        .map(|&line| {
            hover(
                &mut server,
                &account,
                line,
                if line == 39 { 14 } else { 13 },
            )
        })
        .collect();
    assert_eq!(
        restarted, hovers,
        "the store's record shows as the run's did"
    );
    assert_eq!(server.shutdown_and_exit().code(), Some(0));
}
