//! The server's messages and the VS Code client's types (`editor-client/vscode/src/protocol.ts`)
//! agree: a sample of every message is serialised here, and each TypeScript interface has
//! exactly the fields of the object it describes, so renaming a field on one side fails.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

use serde::Serialize;
use serde_json::{json, Value};
use tower_lsp_server::ls_types::notification::Notification;
use tower_lsp_server::ls_types::{Position, Range, TextDocumentIdentifier, Uri};

use super::*;

fn uri() -> Uri {
    "file:///p/src/main/java/p/Account.java".parse().unwrap()
}

fn range() -> Range {
    Range::new(Position::new(6, 12), Position::new(6, 23))
}

fn value(message: impl Serialize) -> Value {
    serde_json::to_value(message).unwrap()
}

/// One sample of every message, every optional part present.
fn samples() -> Value {
    let count = Count {
        covered: 5,
        total: 18,
    };
    let status = Status {
        state: ServerState::Running,
        message: "Account: searching (5/18 branches)".into(),
        running: Some(RunningClass {
            uri: uri(),
            class: "p.Account".into(),
            phase: "searching".into(),
            branches: Some(count),
            elapsed_ms: 1234,
        }),
        queued: vec!["p.Bank".into()],
        classes: vec![ClassStatus {
            uri: uri(),
            class: "p.Account".into(),
            branches: Some(count),
            lines: Some(count),
            tests: Some(3),
            runs: 2,
            origin: Some(ResultsOrigin::Run),
            problem: Some("does not compile".into()),
        }],
        notes: vec!["The build declares Java 5".into()],
        workspace_folders: vec![PathBuf::from("/p")],
        classpaths: vec![ClasspathStatus {
            root: PathBuf::from("/p"),
            tool: "Maven".into(),
            state: ClasspathState::Resolved,
            entries: 12,
            sibling_sources: 1,
            message: Some("note".into()),
        }],
        version: "0.1.0".into(),
    };
    let coverage = CoverageResult {
        files: vec![FileCoverage {
            uri: uri(),
            class: "p.Account".into(),
            version: Some(7),
            lines: vec![LineCoverage {
                line: 12,
                covered: true,
            }],
            branches: vec![BranchCoverage {
                line: 6,
                range: range(),
                label: "true".into(),
                covered: true,
                test: Some("withdrawZero".into()),
            }],
            methods: vec![MethodCoverage {
                name: "withdraw(long)".into(),
                range: range(),
                branches: count,
                tests: 2,
            }],
            summary: CoverageSummary {
                lines: count,
                branches: count,
            },
        }],
    };
    json!({
        "status": value(status),
        "coverage": value(coverage),
        "coverageParams": value(CoverageParams {
            text_document: Some(TextDocumentIdentifier { uri: uri() }),
        }),
        "coverageChanged": value(CoverageChangedParams { uri: uri() }),
        "fileArgument": value(FileArgument { uri: uri() }),
        "explainArgument": value(ExplainArgument { message: "waiting".into() }),
        "openTestArgument": value(OpenTestArgument { test: uri(), line: 12 }),
        "integrationArgument": value(IntegrationArgument {
            caller: "com.example.bank.Bank".into(),
            callee: "com.example.bank.Account".into(),
            caller_uri: uri(),
            callee_uri: uri(),
        }),
        "scheduled": value(Scheduled { scheduled: 1 }),
        "cancelled": value(Cancelled { cancelled: 1 }),
    })
}

/// Which sample object each TypeScript interface describes (a JSON pointer into `samples`).
const INTERFACES: &[(&str, &str)] = &[
    ("FileArgument", "/fileArgument"),
    ("ExplainArgument", "/explainArgument"),
    ("OpenTestArgument", "/openTestArgument"),
    ("IntegrationArgument", "/integrationArgument"),
    ("Count", "/status/classes/0/branches"),
    ("WirePosition", "/coverage/files/0/branches/0/range/start"),
    ("WireRange", "/coverage/files/0/branches/0/range"),
    ("RunningClass", "/status/running"),
    ("ClassStatus", "/status/classes/0"),
    ("ClasspathStatus", "/status/classpaths/0"),
    ("StatusParams", "/status"),
    ("CoverageParams", "/coverageParams"),
    ("LineCoverage", "/coverage/files/0/lines/0"),
    ("BranchCoverageEntry", "/coverage/files/0/branches/0"),
    ("MethodCoverage", "/coverage/files/0/methods/0"),
    ("FileCoverageEntry", "/coverage/files/0"),
    ("CoverageResult", "/coverage"),
    ("CoverageChangedParams", "/coverageChanged"),
];

fn protocol_ts() -> String {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../../editor-client/vscode/src/protocol.ts");
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
}

/// The text between the `{` at `open` and its matching `}`.
fn braced(text: &str, open: usize) -> &str {
    let mut depth = 0;
    for (i, c) in text[open..].char_indices() {
        match c {
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    return &text[open + 1..open + i];
                }
            }
            _ => {}
        }
    }
    panic!("unbalanced braces in protocol.ts");
}

/// The top-level members of a TypeScript object type or literal: `name` in `name: T`,
/// `name?: T`; comments and nested object types are skipped.
fn members(body: &str) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    let mut depth = 0;
    for line in body.lines() {
        let trimmed = line.trim();
        let starts_at_top = depth == 0;
        depth += line.matches('{').count() as i32 - line.matches('}').count() as i32;
        if !starts_at_top || trimmed.starts_with("//") || trimmed.starts_with('*') {
            continue;
        }
        if trimmed.starts_with("/*") {
            continue;
        }
        if let Some((name, rest)) = trimmed.split_once(':') {
            let name = name.trim().trim_end_matches('?');
            if !name.is_empty() && name.chars().all(|c| c.is_alphanumeric() || c == '_') {
                let rest = rest.trim().trim_end_matches([',', ';']).trim();
                out.insert(name.to_string(), rest.trim_matches('\'').to_string());
            }
        }
    }
    out
}

/// `export interface Name {…}` and `export const Name = {…}` blocks of protocol.ts.
fn declarations(ts: &str, keyword: &str) -> BTreeMap<String, BTreeMap<String, String>> {
    let mut out = BTreeMap::new();
    let marker = format!("export {keyword} ");
    let mut at = 0;
    while let Some(found) = ts[at..].find(&marker) {
        let start = at + found + marker.len();
        let name: String = ts[start..]
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        let open = start + ts[start..].find('{').expect("a body");
        out.insert(name, members(braced(ts, open)));
        at = open + 1;
    }
    out
}

#[test]
fn every_typescript_interface_has_the_fields_the_server_sends() {
    let ts = protocol_ts();
    let samples = samples();
    let interfaces = declarations(&ts, "interface");
    let mapped: BTreeSet<&str> = INTERFACES.iter().map(|(name, _)| *name).collect();
    let declared: BTreeSet<&str> = interfaces.keys().map(String::as_str).collect();
    assert_eq!(
        declared, mapped,
        "protocol.ts declares interfaces the server has no message for, or lacks some"
    );
    for (name, pointer) in INTERFACES {
        let sample = samples
            .pointer(pointer)
            .unwrap_or_else(|| panic!("no sample at {pointer}"));
        let sent: BTreeSet<&str> = sample
            .as_object()
            .unwrap_or_else(|| panic!("{pointer} is not an object: {sample}"))
            .keys()
            .map(String::as_str)
            .collect();
        let typed: BTreeSet<&str> = interfaces[*name].keys().map(String::as_str).collect();
        assert_eq!(
            typed, sent,
            "protocol.ts's {name} and the server's {pointer} differ (left: TypeScript)"
        );
    }
}

#[test]
fn the_typescript_method_and_command_names_are_the_servers() {
    let ts = protocol_ts();
    let consts = declarations(&ts, "const");
    let values = |name: &str| -> BTreeSet<String> {
        consts
            .get(name)
            .unwrap_or_else(|| panic!("protocol.ts has no `{name}`"))
            .values()
            .cloned()
            .collect()
    };
    let commands: BTreeSet<String> = command::ALL.iter().map(|c| c.to_string()).collect();
    assert_eq!(values("ServerCommand"), commands);
    let methods: BTreeSet<String> = [
        StatusNotification::METHOD,
        COVERAGE,
        CoverageChanged::METHOD,
        // The VS Code client's "Show Settings the Server Applies".
        DEBUG_CONFIG,
    ]
    .iter()
    .map(|m| m.to_string())
    .collect();
    assert_eq!(values("Method"), methods);
    // The server states.
    let states: BTreeSet<String> = [
        ServerState::Idle,
        ServerState::Running,
        ServerState::Unavailable,
    ]
    .iter()
    .map(|s| value(s).as_str().unwrap().to_string())
    .collect();
    let line = ts
        .lines()
        .find(|l| l.starts_with("export type ServerState"))
        .expect("ServerState in protocol.ts");
    let typed: BTreeSet<String> = line
        .split('\'')
        .skip(1)
        .step_by(2)
        .map(String::from)
        .collect();
    assert_eq!(typed, states);
}

#[test]
fn a_renamed_field_is_caught() {
    // The check itself: a TypeScript interface whose field is spelt otherwise than the
    // server's differs in its field set.
    let ts = "export interface CoverageChangedParams {\n  /** The file. */\n  url: string;\n}\n";
    let interfaces = declarations(ts, "interface");
    let typed: BTreeSet<&str> = interfaces["CoverageChangedParams"]
        .keys()
        .map(String::as_str)
        .collect();
    let sample = value(CoverageChangedParams { uri: uri() });
    let sent: BTreeSet<&str> = sample
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_ne!(typed, sent);
}

#[test]
fn every_diagnostic_code_reads_back() {
    for code in DiagnosticCode::ALL {
        assert_eq!(DiagnosticCode::parse(code.as_str()), Some(*code));
        assert_eq!(value(code), json!(code.as_str()));
    }
    assert_eq!(DiagnosticCode::parse("no-such-code"), None);
}
