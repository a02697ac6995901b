//! End to end: settings from initializationOptions, workspace/configuration and
//! didChangeConfiguration.

mod support;

use serde_json::{json, Value};
use support::TestServer;

fn debug_config(server: &mut TestServer) -> Value {
    server
        .request("ctgls/debugConfig", Value::Null)
        .expect("ctgls/debugConfig answers")
}

#[test]
fn invalid_initialization_options_warn_and_keep_the_defaults() {
    let mut server = TestServer::start();
    let result = server.initialize(json!({
        "processId": null,
        "rootUri": null,
        "capabilities": {},
        "initializationOptions": {"budgetSeconds": 0, "algorithm": "mosa"},
    }));
    assert!(result["capabilities"].is_object(), "initialize succeeded");
    let shown = server.wait_for_message("window/showMessage", "budgetSeconds");
    assert_eq!(shown["type"], 2, "a warning: {shown}");
    let config = debug_config(&mut server);
    assert_eq!(config["budgetSeconds"], 10.0);
    assert_eq!(config["algorithm"], "dynamosa");
    assert_eq!(server.shutdown_and_exit().code(), Some(0));
}

#[test]
fn configuration_is_pulled_after_initialized_and_on_change() {
    let mut server = TestServer::start();
    server.configuration = json!({"budgetSeconds": 3, "algorithm": "mosa", "colour": "blue"});
    server.initialize(json!({
        "processId": null,
        "rootUri": null,
        "capabilities": {"workspace": {"configuration": true, "didChangeConfiguration": {}}},
        "initializationOptions": {"junit": 4, "budgetSeconds": 7},
    }));
    // The pulled section replaces the initialization options as a whole.
    let config = server.poll_request("ctgls/debugConfig", Value::Null, |config| {
        config["budgetSeconds"] == 3.0
    });
    assert_eq!(config["algorithm"], "mosa");
    assert_eq!(config["junit"], Value::Null);
    server.wait_for_message("window/logMessage", "unknown setting `ctgls.colour`");
    let (method, params) = &server.server_requests[0];
    assert_eq!(method, "workspace/configuration");
    assert_eq!(params["items"], json!([{"section": "ctgls"}]));

    // On a change, the server pulls again; an invalid answer keeps the configuration.
    server.configuration = json!({"junit": 7, "budgetSeconds": 1});
    server.notify(
        "workspace/didChangeConfiguration",
        json!({"settings": null}),
    );
    server.wait_for_message("window/showMessage", "`junit` must be 4 or 5");
    assert_eq!(server.server_requests.len(), 2);
    assert_eq!(debug_config(&mut server), config);

    server.configuration = json!({"idleDelayMs": 5});
    server.notify(
        "workspace/didChangeConfiguration",
        json!({"settings": null}),
    );
    let config = server.poll_request("ctgls/debugConfig", Value::Null, |config| {
        config["idleDelayMs"] == 5
    });
    assert_eq!(config["budgetSeconds"], 10.0);
    assert_eq!(server.shutdown_and_exit().code(), Some(0));
}

#[test]
fn pushed_settings_are_used_when_the_client_cannot_be_asked() {
    let mut server = TestServer::start();
    server.initialize(json!({"processId": null, "rootUri": null, "capabilities": {}}));
    server.notify(
        "workspace/didChangeConfiguration",
        json!({"settings": {"ctgls": {"executionEnabled": false, "logLevel": "warn"}}}),
    );
    // Notifications and requests reach the owner task in order: no polling needed.
    let config = debug_config(&mut server);
    assert_eq!(config["executionEnabled"], false);
    assert_eq!(config["logLevel"], "warn");
    // Settings for other tools are ignored.
    server.notify(
        "workspace/didChangeConfiguration",
        json!({"settings": {"java": {"home": "/opt/jdk"}}}),
    );
    assert_eq!(debug_config(&mut server), config);
    assert!(server.server_requests.is_empty());
    assert_eq!(server.shutdown_and_exit().code(), Some(0));
}

#[test]
fn workspace_folders_follow_did_change_workspace_folders() {
    let mut server = TestServer::start();
    server.initialize(json!({
        "processId": null,
        "workspaceFolders": [{ "uri": "file:///tmp/ctgls-a", "name": "a" }],
        "initializationOptions": { "executionEnabled": false },
        "capabilities": {}
    }));
    let status = |server: &mut TestServer| {
        server
            .request(
                "workspace/executeCommand",
                json!({ "command": "ctgls.status", "arguments": [] }),
            )
            .unwrap()
    };
    assert_eq!(
        status(&mut server)["workspaceFolders"],
        json!(["/tmp/ctgls-a"])
    );
    assert_eq!(status(&mut server)["state"], "unavailable");
    server.notify(
        "workspace/didChangeWorkspaceFolders",
        json!({ "event": {
            "added": [{ "uri": "file:///tmp/ctgls-b", "name": "b" }],
            "removed": [{ "uri": "file:///tmp/ctgls-a", "name": "a" }]
        } }),
    );
    let after = server.poll_request(
        "workspace/executeCommand",
        json!({ "command": "ctgls.status", "arguments": [] }),
        |s| s["workspaceFolders"] == json!(["/tmp/ctgls-b"]),
    );
    assert_eq!(after["version"], env!("CARGO_PKG_VERSION"));
    server.shutdown_and_exit();
}
