//! The editor experience end to end: the real binary over stdio, the real JVM worker, javac
//! and JUnit, on a copy of the bundled example project. Gated by `CTGLS_E2E=1`.

mod support;

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::{json, Value};
use support::TestServer;

const RUN_TIMEOUT: Duration = Duration::from_secs(120);

fn e2e_enabled() -> bool {
    std::env::var("CTGLS_E2E").is_ok_and(|value| value == "1")
}

/// A copy of the example project, removed on drop.
struct Project(PathBuf);

impl Project {
    fn copy(name: &str) -> Project {
        let dir = std::env::temp_dir().join(format!("ctgls-lsp-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let from =
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../tests/projects/bank/src/main");
        copy_dir(&from, &dir.join("src/main"));
        std::fs::write(dir.join("pom.xml"), "<project/>\n").unwrap();
        Project(dir)
    }

    fn file(&self, class: &str) -> PathBuf {
        self.0
            .join(format!("src/main/java/com/example/bank/{class}.java"))
    }

    fn uri(&self, class: &str) -> String {
        format!("file://{}", self.file(class).display())
    }

    fn test_file(&self, class: &str) -> PathBuf {
        self.0.join(format!(
            "src/test/java/com/example/bank/{class}GeneratedTest.java"
        ))
    }
}

impl Drop for Project {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let path = entry.unwrap().path();
        let target = to.join(path.file_name().unwrap());
        if path.is_dir() {
            copy_dir(&path, &target);
        } else {
            std::fs::copy(&path, &target).unwrap();
        }
    }
}

fn start(project: &Project, settings: Value) -> TestServer {
    let mut server = TestServer::start();
    server.initialize(json!({
        "processId": null,
        "rootUri": format!("file://{}", project.0.display()),
        "workspaceFolders": [{ "uri": format!("file://{}", project.0.display()), "name": "bank" }],
        "initializationOptions": settings,
        "capabilities": {
            "window": { "workDoneProgress": true },
            "workspace": { "workspaceEdit": { "documentChanges": true, "resourceOperations": ["create"] },
                           "codeLens": { "refreshSupport": true } },
            "textDocument": { "codeAction": { "resolveSupport": { "properties": ["edit"] } } }
        }
    }));
    server
}

fn open(server: &mut TestServer, project: &Project, class: &str) -> String {
    let uri = project.uri(class);
    let text = std::fs::read_to_string(project.file(class)).unwrap();
    server.notify(
        "textDocument/didOpen",
        json!({ "textDocument": { "uri": uri, "languageId": "java", "version": 1, "text": text } }),
    );
    uri
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
    let project = Project::copy("open");
    let mut server = start(&project, json!({ "budgetSeconds": 8, "idleDelayMs": 100 }));
    let uri = open(&mut server, &project, "Account");
    let published = final_diagnostics(&mut server, &uri);
    eprintln!("{}", serde_json::to_string_pretty(&published).unwrap());
    assert!(codes(&published["diagnostics"]).contains(&"undeclared-exception".to_string()));
    server.shutdown_and_exit();
}
