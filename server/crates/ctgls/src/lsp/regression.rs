//! The regression guard's diagnostics (`ctg::regression`, the check in `guard.rs`): the
//! assertions of the stored generated tests that no longer hold after an edit become
//! `behaviour-changed` warnings on the edited member; the failures of the project's own tests
//! of the class become `project-test-failed` diagnostics on the member and, at the failing
//! line, in the test file (open or not). Pure functions of a `FileView` (the class file) or of
//! the guards of the open classes (test files), like every feature; `diagnostics::compute`
//! includes the class file's, the owner publishes the test files' with the user's severities.

use ctg::regression::{BehaviourChange, CalledMember};
use javamodel::Member;
use syntax::PositionEncoding;
use tower_lsp_server::ls_types::{
    Diagnostic, DiagnosticRelatedInformation, DiagnosticSeverity, Location, Position, Range, Uri,
};

use crate::lsp::file_view::FileView;
use crate::lsp::guard::Guard;
use crate::lsp::protocol::{
    diagnostic, BehaviourChangedData, DiagnosticCode, ProjectTestFailedData,
};
use crate::lsp::view::View;
use crate::lsp::workspace::uri_path;
use crate::open_file::OpenFile;

/// The guard's diagnostics of an open class file: its behaviour changes and the failures of
/// its project tests, on the edited member; and the failures its own text holds when it is
/// also a test file of another open class (rare, but cheap to say).
pub fn diagnostics(input: &FileView, out: &mut Vec<Diagnostic>) {
    let Some(guard) = input.guard else {
        return;
    };
    let Some(findings) = &guard.findings else {
        return;
    };
    let file = input.file;
    // Back on a text whose behaviour is known: the one the stored tests were verified on (no
    // behaviour changed), or one a check found clean (nothing at all). An undo needs no check.
    let hash = ctg::pipeline::source_hash(file.model().text());
    if guard.clean_hash.as_deref() == Some(hash.as_str()) {
        return;
    }
    let at_baseline = guard
        .baseline
        .as_ref()
        .and_then(|b| b.last_run())
        .is_some_and(|r| r.run.source_hash == hash);
    let changes: &[BehaviourChange] = if at_baseline { &[] } else { &findings.changes };
    let view = input.results.map(|r| View::new(file, r, input.encoding));
    let test_uri = findings
        .test_file
        .exists()
        .then(|| Uri::from_file_path(&findings.test_file))
        .flatten();
    for change in changes {
        let Some(range) = member_range(
            file,
            &findings.class,
            &change.called,
            view.as_ref(),
            input.encoding,
        ) else {
            continue;
        };
        let mut diagnostic = diagnostic(
            range,
            DiagnosticSeverity::WARNING,
            DiagnosticCode::BehaviourChanged,
            change.message.clone(),
            BehaviourChangedData {
                test: change.method.clone(),
                acceptable: change.replacement.is_some(),
            },
        );
        diagnostic.related_information = test_uri.as_ref().map(|uri| {
            vec![DiagnosticRelatedInformation {
                location: Location::new(uri.clone(), Range::default()),
                message: format!("{} asserts the old behaviour", change.method),
            }]
        });
        out.push(diagnostic);
    }
    for failure in &findings.failures {
        let range = member_range(file, &findings.class, &[], view.as_ref(), input.encoding)
            .unwrap_or_default();
        let file_uri = Uri::from_file_path(&failure.file);
        let line = failure.line.map(|l| l.saturating_sub(1));
        let mut diagnostic = diagnostic(
            range,
            DiagnosticSeverity::WARNING,
            DiagnosticCode::ProjectTestFailed,
            format!(
                "{}.{} fails: {}",
                simple(&failure.test_class),
                failure.test,
                failure.message
            ),
            ProjectTestFailedData {
                test_class: failure.test_class.clone(),
                test: failure.test.clone(),
                file: file_uri.clone(),
                line,
            },
        );
        diagnostic.related_information = file_uri.map(|uri| {
            vec![DiagnosticRelatedInformation {
                location: Location::new(uri, line_range(failure.line)),
                message: "the failing assertion".into(),
            }]
        });
        out.push(diagnostic);
    }
}

/// The failures, in the test file `uri` (open: `file`), of the project tests of every open
/// class (`guards`), at the failing line. Without the user's severities (the caller applies
/// them).
pub fn test_file_diagnostics<'g>(
    uri: &Uri,
    file: Option<&OpenFile>,
    guards: impl Iterator<Item = &'g Guard>,
    encoding: PositionEncoding,
) -> Vec<Diagnostic> {
    let Some(path) = uri_path(uri) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for findings in guards.filter_map(|g| g.findings.as_ref()) {
        for failure in findings.failures.iter().filter(|f| f.file == path) {
            let range = match (file, failure.line) {
                (Some(file), Some(line)) => {
                    crate::lsp::view::line_range(file, line.saturating_sub(1), encoding)
                        .unwrap_or_default()
                }
                _ => line_range(failure.line),
            };
            out.push(diagnostic(
                range,
                DiagnosticSeverity::ERROR,
                DiagnosticCode::ProjectTestFailed,
                format!(
                    "{} fails after the edit of {}: {}",
                    failure.test,
                    simple(&findings.class),
                    failure.message
                ),
                ProjectTestFailedData {
                    test_class: failure.test_class.clone(),
                    test: failure.test.clone(),
                    file: Some(uri.clone()),
                    line: failure.line.map(|l| l.saturating_sub(1)),
                },
            ));
        }
    }
    out
}

/// The range of the member a finding is about: among the members the test calls, the first
/// whose text changed since the results shown (the edited one), else the first; the class
/// name when none is found.
fn member_range(
    file: &OpenFile,
    class: &str,
    called: &[CalledMember],
    view: Option<&View>,
    encoding: PositionEncoding,
) -> Option<Range> {
    let ty = file.model().type_by_binary_name(class)?;
    let members: Vec<&Member> = called
        .iter()
        .filter_map(|c| ty.members.iter().find(|m| is_member(m, c)))
        .collect();
    let edited = members
        .iter()
        .find(|m| view.is_some_and(|v| !v.live(&m.key)))
        .or(members.first());
    let span = match edited {
        Some(member) => member.name_span.unwrap_or(member.span),
        None => ty.name_span.unwrap_or(ty.span),
    };
    file.document()
        .line_index()
        .text_range(span.start_byte..span.end_byte, encoding)
        .ok()
        .map(crate::lsp::to_proto::range)
}

/// Whether `member` is the called one: same name and parameters (erased, by simple name).
fn is_member(member: &Member, called: &CalledMember) -> bool {
    member.name == called.name
        && member.params.len() == called.erased_params.len()
        && member
            .params
            .iter()
            .zip(&called.erased_params)
            .all(|(p, erased)| simple(&p.signature_type) == simple(erased))
}

fn simple(name: &str) -> &str {
    name.rsplit(['.', '$']).next().unwrap_or(name)
}

/// A whole line (1-based `line`, the first when unknown) of a file that is not open.
fn line_range(line: Option<u32>) -> Range {
    let line = line.unwrap_or(1).saturating_sub(1);
    Range::new(Position::new(line, 0), Position::new(line, u32::MAX / 2))
}
