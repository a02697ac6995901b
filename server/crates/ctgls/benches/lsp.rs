//! The editor's latencies with the real binary and the real JVM, over stdio like an editor:
//! `didOpen` to the first coverage diagnostics, cold (the first JVM start of the server) and
//! warm (another class once the worker runs), and hover round trips once results are shown.
//!
//! `cargo bench -p ctgls --bench lsp` (results in `docs/benchmarks.md`).

#[path = "../tests/support/mod.rs"]
mod support;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use support::{copy_dir, TestServer};

const ROUNDS: usize = 3;
const HOVERS: usize = 2000;
const EDITS: usize = 300;

fn project(round: usize) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("ctgls-bench-lsp-{}-{round}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let from = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../tests/projects/bank/src/main");
    copy_dir(&from, &dir.join("src/main"));
    std::fs::write(dir.join("pom.xml"), "<project/>\n").unwrap();
    dir
}

fn open(server: &mut TestServer, root: &Path, class: &str) -> (String, Instant) {
    let path = root.join(format!("src/main/java/com/example/bank/{class}.java"));
    let uri = format!("file://{}", path.display());
    let text = std::fs::read_to_string(&path).unwrap();
    let started = Instant::now();
    server.notify(
        "textDocument/didOpen",
        json!({ "textDocument": { "uri": uri, "languageId": "java", "version": 1, "text": text } }),
    );
    (uri, started)
}

fn first_coverage(server: &mut TestServer, uri: &str) {
    server.wait_for_notification_within(
        "textDocument/publishDiagnostics",
        Duration::from_secs(120),
        |p| {
            p["uri"] == uri
                && p["diagnostics"].as_array().is_some_and(|d| {
                    d.iter().any(|d| {
                        d["code"] == "uncovered-branch" || d["code"] == "undeclared-exception"
                    })
                })
        },
    );
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    sorted[((sorted.len() as f64 - 1.0) * p).round() as usize]
}

fn main() {
    let mut cold = Vec::new();
    let mut warm = Vec::new();
    let mut hovers = Vec::new();
    let mut edits = Vec::new();
    for round in 0..ROUNDS {
        let root = project(round);
        let mut server = TestServer::start_with_args(&["lsp"]);
        server.initialize(json!({
            "processId": null,
            "workspaceFolders": [{ "uri": format!("file://{}", root.display()), "name": "bank" }],
            "initializationOptions": { "budgetSeconds": 6, "logLevel": "warn" },
            "capabilities": {}
        }));
        let (uri, started) = open(&mut server, &root, "AmountParser");
        first_coverage(&mut server, &uri);
        cold.push(started.elapsed());
        // Let that run finish, so the next open starts on a warm worker.
        server.wait_for_notification_within("ctgls/status", Duration::from_secs(120), |s| {
            s["classes"]
                .as_array()
                .is_some_and(|c| c.iter().any(|c| c["runs"] == 1))
        });
        let (uri, started) = open(&mut server, &root, "Account");
        first_coverage(&mut server, &uri);
        warm.push(started.elapsed());
        server.wait_for_notification_within("ctgls/status", Duration::from_secs(120), |s| {
            s["classes"].as_array().is_some_and(|c| {
                c.iter()
                    .any(|c| c["class"] == "com.example.bank.Account" && c["runs"] == 1)
            })
        });
        // Hover all over the file: method names, branches, lines, blanks.
        let lines =
            std::fs::read_to_string(root.join("src/main/java/com/example/bank/Account.java"))
                .unwrap()
                .lines()
                .count() as u64;
        for i in 0..HOVERS as u64 {
            let position = json!({ "line": i % lines, "character": (i * 7) % 30 });
            let started = Instant::now();
            let _: Value = server
                .request(
                    "textDocument/hover",
                    json!({ "textDocument": { "uri": uri }, "position": position }),
                )
                .unwrap();
            hovers.push(started.elapsed());
        }
        // Typing with results shown: each didChange republishes the diagnostics of the new
        // version (unchanged members' results moved, edited ones withdrawn).
        for i in 0..EDITS {
            let version = 2 + i as i64;
            let change = if i % 2 == 0 {
                json!({ "range": { "start": { "line": 1, "character": 0 }, "end": { "line": 1, "character": 0 } }, "text": " " })
            } else {
                json!({ "range": { "start": { "line": 1, "character": 0 }, "end": { "line": 1, "character": 1 } }, "text": "" })
            };
            let started = Instant::now();
            server.notify(
                "textDocument/didChange",
                json!({ "textDocument": { "uri": uri, "version": version }, "contentChanges": [change] }),
            );
            server.wait_for_notification("textDocument/publishDiagnostics", |p| {
                p["uri"] == uri && p["version"] == version
            });
            edits.push(started.elapsed());
        }
        server.shutdown_and_exit();
        let _ = std::fs::remove_dir_all(&root);
    }
    hovers.sort();
    edits.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    let list = |v: &[Duration]| {
        v.iter()
            .map(|d| format!("{:.0}", ms(*d)))
            .collect::<Vec<_>>()
            .join(", ")
    };
    println!(
        "didOpen -> first coverage diagnostics, cold (ms): {}",
        list(&cold)
    );
    println!(
        "didOpen -> first coverage diagnostics, warm (ms): {}",
        list(&warm)
    );
    println!(
        "hover round trip over stdio ({} requests): p50 {:.3} ms, p99 {:.3} ms, max {:.3} ms",
        hovers.len(),
        ms(percentile(&hovers, 0.5)),
        ms(percentile(&hovers, 0.99)),
        ms(*hovers.last().unwrap())
    );
    println!(
        "didChange -> publishDiagnostics of the new version ({} edits): p50 {:.3} ms, p99 {:.3} ms, max {:.3} ms",
        edits.len(),
        ms(percentile(&edits, 0.5)),
        ms(percentile(&edits, 0.99)),
        ms(*edits.last().unwrap())
    );
}
