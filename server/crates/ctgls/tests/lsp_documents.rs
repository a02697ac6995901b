//! End to end: document synchronisation through the real binary, in both position encodings.

mod support;

use serde_json::{json, Value};
use support::{position, TestServer};

const URI: &str = "file:///project/src/main/java/bank/Account.java";

/// U+2028 is a line break for some libraries but not for LSP: edits after it on the same line
/// only land right if the server agrees.
const INITIAL: &str =
    "class Account {\r\n    String owner = \"é\";\n    // a\u{2028}b: one line for LSP\n}\n";

/// The client's view of the open document, which the server's must match.
struct ClientDocument {
    text: String,
    version: i32,
    utf8: bool,
}

impl ClientDocument {
    /// A `didChange` for a batch of edits `(anchor, old, new)`: replace `old`, which follows
    /// the first occurrence of `anchor`, with `new`. Each edit sees the text left by the
    /// previous one, as in LSP.
    fn change(&mut self, edits: &[(&str, &str, &str)]) -> Value {
        self.version += 1;
        let mut changes = Vec::new();
        for &(anchor, old, new) in edits {
            let start = self.text.find(anchor).expect("anchor in text") + anchor.len();
            let end = start + old.len();
            assert_eq!(&self.text[start..end], old, "edit target");
            changes.push(json!({
                "range": {
                    "start": position(&self.text, start, self.utf8),
                    "end": position(&self.text, end, self.utf8),
                },
                "text": new,
            }));
            self.text.replace_range(start..end, new);
        }
        json!({
            "textDocument": {"uri": URI, "version": self.version},
            "contentChanges": changes,
        })
    }
}

fn initialize_params(offer_utf8: bool) -> Value {
    let encodings = if offer_utf8 {
        json!(["utf-8", "utf-16"])
    } else {
        json!(["utf-16"])
    };
    json!({
        "processId": null,
        "rootUri": null,
        "capabilities": {"general": {"positionEncodings": encodings}},
    })
}

fn debug_document(server: &mut TestServer) -> Value {
    server
        .request("ctgls/debugDocument", json!({"uri": URI}))
        .expect("ctgls/debugDocument answers")
}

fn assert_server_has(server: &mut TestServer, doc: &ClientDocument) {
    let seen = debug_document(server);
    assert_eq!(seen["text"], doc.text, "text at version {}", doc.version);
    assert_eq!(seen["version"], doc.version);
}

fn edit_in_both_encodings(offer_utf8: bool) {
    let mut server = TestServer::start();
    let result = server.initialize(initialize_params(offer_utf8));
    let capabilities = &result["capabilities"];
    let expected_encoding = if offer_utf8 { "utf-8" } else { "utf-16" };
    assert_eq!(capabilities["positionEncoding"], expected_encoding);
    assert_eq!(
        capabilities["textDocumentSync"],
        json!({"openClose": true, "change": 2, "save": {"includeText": false}})
    );
    assert_eq!(result["serverInfo"]["name"], "ctgls");

    let mut doc = ClientDocument {
        text: INITIAL.to_owned(),
        version: 1,
        utf8: offer_utf8,
    };
    server.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": URI, "languageId": "java", "version": 1, "text": INITIAL}}),
    );
    assert_server_has(&mut server, &doc);

    let batches: &[&[(&str, &str, &str)]] = &[
        &[("\"é", "", "中")],
        &[("中", "", "😀")],
        &[("String ", "owner", "ownér")],
        // Two changes in one notification, the second relative to the first.
        &[("b: one line", "", " 😀 still"), ("é中", "", "x")],
        &[(
            "😀\";\n",
            "",
            "    int balance() {\r\n        return 0;\n    }\n",
        )],
        &[("int ", "balance", "saldo"), ("return ", "0", "-1")],
    ];
    for batch in batches {
        let change = doc.change(batch);
        server.notify("textDocument/didChange", change);
        assert_server_has(&mut server, &doc);
    }
    assert!(doc.text.contains("ownér = \"é中x😀\";"), "{}", doc.text);

    // An invalid range is dropped with a warning; the document is kept as it was.
    let kept = (doc.text.clone(), doc.version);
    server.notify(
        "textDocument/didChange",
        json!({
            "textDocument": {"uri": URI, "version": doc.version + 1},
            "contentChanges": [
                {"range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}}, "text": "valid "},
                {"range": {"start": {"line": 99, "character": 0}, "end": {"line": 99, "character": 0}}, "text": "x"},
            ],
        }),
    );
    let warning = server.wait_for_message("window/logMessage", "dropped didChange");
    assert_eq!(warning["type"], 2, "a warning: {warning}");
    assert_server_has(&mut server, &doc);

    // A position inside the emoji: inside its UTF-8 bytes, or between its surrogates.
    let emoji = doc.text.find('😀').unwrap();
    let mut inside = position(&doc.text, emoji, offer_utf8);
    inside["character"] = json!(inside["character"].as_u64().unwrap() + 1);
    server.notify(
        "textDocument/didChange",
        json!({
            "textDocument": {"uri": URI, "version": doc.version + 1},
            "contentChanges": [{"range": {"start": inside, "end": inside}, "text": "x"}],
        }),
    );
    server.wait_for_message("window/logMessage", "inside a character");
    assert_server_has(&mut server, &doc);
    assert_eq!((doc.text.clone(), doc.version), kept);

    // The server carries on with valid changes.
    let change = doc.change(&[("é中", "x", "")]);
    server.notify("textDocument/didChange", change);
    assert_server_has(&mut server, &doc);

    // A change to a document that is not open is reported, not applied.
    server.notify(
        "textDocument/didChange",
        json!({
            "textDocument": {"uri": "file:///elsewhere/B.java", "version": 2},
            "contentChanges": [{"text": "class B {}"}],
        }),
    );
    server.wait_for_message("window/logMessage", "which is not open");
    let absent = server
        .request(
            "ctgls/debugDocument",
            json!({"uri": "file:///elsewhere/B.java"}),
        )
        .unwrap();
    assert_eq!(absent, Value::Null);

    server.notify(
        "textDocument/didSave",
        json!({"textDocument": {"uri": URI}}),
    );
    assert_server_has(&mut server, &doc);
    server.notify(
        "textDocument/didClose",
        json!({"textDocument": {"uri": URI}}),
    );
    assert_eq!(debug_document(&mut server), Value::Null);

    let status = server.shutdown_and_exit();
    assert_eq!(status.code(), Some(0));
}

#[test]
fn incremental_edits_in_utf8_when_the_client_offers_it() {
    edit_in_both_encodings(true);
}

#[test]
fn incremental_edits_in_utf16_when_the_client_does_not_offer_utf8() {
    edit_in_both_encodings(false);
}

#[test]
fn full_document_changes_replace_the_text_and_versions_are_checked() {
    let mut server = TestServer::start();
    server.initialize(initialize_params(false));
    server.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": URI, "languageId": "java", "version": 1, "text": "class A {}"}}),
    );
    server.notify(
        "textDocument/didChange",
        json!({
            "textDocument": {"uri": URI, "version": 2},
            "contentChanges": [
                {"text": "class B {}\n"},
                {"range": {"start": {"line": 1, "character": 0}, "end": {"line": 1, "character": 0}}, "text": "// 😀"},
            ],
        }),
    );
    let seen = debug_document(&mut server);
    assert_eq!(seen["text"], "class B {}\n// 😀");
    assert_eq!(seen["version"], 2);

    // A version that does not increase is reported; the change still applies, because it is
    // relative to the text the client and the server share.
    server.notify(
        "textDocument/didChange",
        json!({
            "textDocument": {"uri": URI, "version": 2},
            "contentChanges": [{"text": "class C {}"}],
        }),
    );
    server.wait_for_message("window/logMessage", "has version 2, not newer than 2");
    assert_eq!(debug_document(&mut server)["text"], "class C {}");
    assert_eq!(server.shutdown_and_exit().code(), Some(0));
}

#[test]
fn exit_without_shutdown_exits_with_1() {
    let mut server = TestServer::start();
    server.initialize(initialize_params(true));
    let status = server.exit();
    assert_eq!(status.code(), Some(1));
}

/// Regression: with execution disabled, the `generation-unavailable` diagnostic on the class
/// name was published on open and never again, so after an edit above the class the editor
/// kept it at the old version and the old place.
#[test]
fn the_unavailable_diagnostic_follows_edits() {
    let project = std::env::temp_dir().join(format!("ctgls-unavailable-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&project);
    std::fs::create_dir_all(project.join("src/main/java")).unwrap();
    std::fs::write(project.join("pom.xml"), "<project/>\n").unwrap();
    let root = format!("file://{}", project.display());
    let uri = format!("{root}/src/main/java/A.java");

    let mut server = TestServer::start();
    server.initialize(json!({
        "processId": null,
        "rootUri": root,
        "capabilities": {},
        "initializationOptions": {"executionEnabled": false},
    }));
    server.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": uri, "languageId": "java", "version": 1, "text": "class A {}\n"}}),
    );
    let opened =
        server.wait_for_notification("textDocument/publishDiagnostics", |p| p["uri"] == uri);
    assert_eq!(opened["version"], 1);
    assert_eq!(opened["diagnostics"][0]["code"], "generation-unavailable");
    assert_eq!(opened["diagnostics"][0]["range"]["start"]["line"], 0);

    server.notify(
        "textDocument/didChange",
        json!({
            "textDocument": {"uri": uri, "version": 2},
            "contentChanges": [{"range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}}, "text": "// 😀\n"}],
        }),
    );
    let edited = server.wait_for_notification("textDocument/publishDiagnostics", |p| {
        p["uri"] == uri && p["version"] == 2
    });
    assert_eq!(edited["diagnostics"][0]["code"], "generation-unavailable");
    assert_eq!(
        edited["diagnostics"][0]["range"],
        json!({"start": {"line": 1, "character": 6}, "end": {"line": 1, "character": 7}})
    );
    assert_eq!(server.shutdown_and_exit().code(), Some(0));
    let _ = std::fs::remove_dir_all(&project);
}
