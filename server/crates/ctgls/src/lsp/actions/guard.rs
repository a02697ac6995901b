//! The regression guard's code actions: "Accept the new behaviour" on `behaviour-changed`
//! diagnostics (its edit rewrites the changed assertions of the generated test file, computed
//! on resolve like every edit; its command `ctgls.acceptBehaviour` updates the store), and
//! "Open the test" (`ctgls.openTest`) on those (at the test's declaration) and on
//! `project-test-failed` diagnostics (at the failing line).

use ctg::regression::BehaviourChange;
use serde_json::Value;
use syntax::PositionEncoding;
use tower_lsp_server::ls_types::{
    CodeAction, CodeActionKind, Command, Diagnostic, Position, Range, TextEdit, Uri, WorkspaceEdit,
};

use super::{action, diagnostic_code, ActionData, EditSupport, ListInput, TestFileNow};
use crate::lsp::guard::Guard;
use crate::lsp::protocol::{
    command, BehaviourChangedData, DiagnosticCode, FileArgument, OpenTestArgument,
    ProjectTestFailedData, DIAGNOSTIC_SOURCE,
};

pub const ACCEPT_TITLE: &str = "Accept the new behaviour";

/// The guard's actions for the diagnostics asked about.
pub(super) fn list(input: &ListInput, out: &mut Vec<CodeAction>) {
    let ours = |code: DiagnosticCode| -> Vec<&Diagnostic> {
        input
            .diagnostics
            .iter()
            .filter(|d| d.source.as_deref() == Some(DIAGNOSTIC_SOURCE))
            .filter(|d| diagnostic_code(d) == Some(code))
            .collect()
    };
    let changed = ours(DiagnosticCode::BehaviourChanged);
    let findings = input.view.guard.and_then(|g| g.findings.as_ref());
    if let (Some(findings), false) = (findings, changed.is_empty()) {
        if findings.changes.iter().any(|c| c.replacement.is_some()) {
            let uri = input.view.uri.clone();
            let mut accept = action(
                ACCEPT_TITLE.into(),
                CodeActionKind::QUICKFIX,
                None,
                ActionData::Accept {
                    uri: uri.clone(),
                    run: findings.run,
                },
            );
            accept.diagnostics = Some(changed.iter().map(|d| (*d).clone()).collect());
            accept.command = Some(Command {
                title: ACCEPT_TITLE.into(),
                command: command::ACCEPT_BEHAVIOUR.into(),
                arguments: argument(FileArgument { uri }),
            });
            out.push(accept);
        }
        if let Some(test) = findings
            .test_file
            .exists()
            .then(|| Uri::from_file_path(&findings.test_file))
            .flatten()
        {
            // At the test of the first warning asked about.
            let method = changed
                .iter()
                .filter_map(|d| d.data.clone())
                .filter_map(|data| serde_json::from_value::<BehaviourChangedData>(data).ok())
                .map(|data| data.test)
                .next();
            let line = method
                .and_then(|m| test_line(&findings.test_file, &m, &findings.changes))
                .unwrap_or(0);
            out.push(open_test(test, line));
        }
    }
    for d in ours(DiagnosticCode::ProjectTestFailed) {
        let data: Option<ProjectTestFailedData> = d
            .data
            .clone()
            .and_then(|data| serde_json::from_value(data).ok());
        if let Some(data) = data {
            if let Some(file) = data.file {
                out.push(open_test(file, data.line.unwrap_or(0)));
            }
        }
    }
}

/// The 0-based line of test `method` in the generated test file as it is on disk (its
/// declaration), else of its first changed assertion as stored.
fn test_line(file: &std::path::Path, method: &str, changes: &[BehaviourChange]) -> Option<u32> {
    let declared = format!("void {method}(");
    let on_disk = std::fs::read_to_string(file).ok().and_then(|text| {
        text.lines()
            .position(|line| line.contains(&declared))
            .map(|l| l as u32)
    });
    on_disk.or_else(|| {
        changes
            .iter()
            .find(|c| c.method == method)
            .map(|c| c.assertion.first_line.saturating_sub(1))
    })
}

fn argument(value: impl serde::Serialize) -> Option<Vec<Value>> {
    serde_json::to_value(value).ok().map(|a| vec![a])
}

/// "Open the test X" at 0-based `line`: a plain command, nothing to resolve.
fn open_test(test: Uri, line: u32) -> CodeAction {
    let name = test
        .as_str()
        .rsplit('/')
        .next()
        .unwrap_or_default()
        .to_string();
    CodeAction {
        title: format!("Open the test {name}"),
        // A quick fix, so that VS Code's Quick Fix menu (which asks for `quickfix` only) has it.
        kind: Some(CodeActionKind::QUICKFIX),
        command: Some(Command {
            title: "Open the test".into(),
            command: command::OPEN_TEST.into(),
            arguments: argument(OpenTestArgument { test, line }),
        }),
        ..CodeAction::default()
    }
}

/// The edit of the generated test file (the editor's buffer when open, else the disk) that
/// accepting the guard's findings makes; `None` when the file is not there or holds none of
/// them (accepting then updates the store only).
pub fn accept_edit(
    guard: &Guard,
    test_file: &TestFileNow,
    support: EditSupport,
    encoding: PositionEncoding,
) -> Option<WorkspaceEdit> {
    let findings = guard.findings.as_ref()?;
    let (text, version) = test_file.existing.as_ref()?;
    let suite = guard.baseline.as_ref()?.suite.as_ref()?;
    let accepted = ctg::regression::accept(suite, &findings.changes, Some(text)).ok()?;
    if accepted.file_edits.is_empty() {
        return None;
    }
    let lines: Vec<&str> = text.split('\n').collect();
    let edits = accepted
        .file_edits
        .into_iter()
        .map(|e| {
            // Whole lines: from the first line's start to the end of the last one.
            let last = e.end_line.saturating_sub(1) as usize;
            let line = lines.get(last).copied().unwrap_or_default();
            let end_column = match encoding {
                PositionEncoding::Utf8 => line.len() as u32,
                _ => line.encode_utf16().count() as u32,
            };
            TextEdit::new(
                Range::new(
                    Position::new(e.first_line, 0),
                    Position::new(last as u32, end_column),
                ),
                e.text,
            )
        })
        .collect();
    Some(super::edit_document(
        &test_file.uri,
        *version,
        edits,
        support,
    ))
}
