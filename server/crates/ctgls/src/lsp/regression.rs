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
use crate::lsp::guard::{Findings, Guard};
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
    // On any other text than the one checked, nothing: the latest edit's check tells.
    let hash = ctg::pipeline::source_hash(file.model().text());
    if guard.clean_hash.as_deref() == Some(hash.as_str()) || findings.hash != hash {
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
            findings,
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
        let range =
            member_range(file, findings, &[], view.as_ref(), input.encoding).unwrap_or_default();
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
/// that was edited when the check reported (`Findings::edited`), else the first whose text
/// changed since the results shown, else the first; the class name when none is found.
fn member_range(
    file: &OpenFile,
    findings: &Findings,
    called: &[CalledMember],
    view: Option<&View>,
    encoding: PositionEncoding,
) -> Option<Range> {
    let ty = file.model().type_by_binary_name(&findings.class)?;
    let members: Vec<&Member> = called
        .iter()
        .filter_map(|c| ty.members.iter().find(|m| is_member(m, c)))
        .collect();
    let edited = members
        .iter()
        .find(|m| findings.edited.contains(&m.key))
        .or_else(|| {
            members
                .iter()
                .find(|m| view.is_some_and(|v| !v.live(&m.key)))
        })
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

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;
    use std::path::PathBuf;

    use ctg::regression::{Now, ProjectTestFailure};
    use ctg::store::StoredAssertion;
    use testcase::junit::AssertionKind;
    use tower_lsp_server::ls_types::{CodeActionKind, NumberOrString};

    use super::*;
    use crate::lsp::actions::{self, ListInput};
    use crate::lsp::guard::GuardUpdate;
    use crate::lsp::protocol::command;
    use crate::lsp::protocol::settings::{DiagnosticSeverities, SeverityLevel};

    const ACCOUNT: &str = "package p;\npublic class Account {\n    private long balance;\n    \
                           public void deposit(long amount) { balance += amount + 1; }\n    \
                           public long getBalance() { return balance; }\n}\n";

    fn change(acceptable: bool) -> BehaviourChange {
        BehaviourChange {
            method: "depositAddsToBalance".into(),
            assertion: StoredAssertion {
                first_line: 9,
                last_line: 9,
                kind: AssertionKind::State,
                subject: "account0.getBalance()".into(),
                expected: "100L".into(),
            },
            stored_text: "assertEquals(100L, account0.getBalance());".into(),
            now: Now::Value("101L".into()),
            replacement: acceptable.then(|| "assertEquals(101L, account0.getBalance());".into()),
            action: "deposit(100)".into(),
            called: vec![
                CalledMember {
                    name: "<init>".into(),
                    erased_params: vec![],
                },
                CalledMember {
                    name: "deposit".into(),
                    erased_params: vec!["long".into()],
                },
            ],
            message: "deposit(100) now leaves getBalance() at 101; depositAddsToBalance \
                      expected 100"
                .into(),
        }
    }

    fn account_uri() -> Uri {
        "file:///nonexistent-ctgls-guard/src/main/java/p/Account.java"
            .parse()
            .unwrap()
    }

    fn guard(changes: Vec<BehaviourChange>, failures: Vec<ProjectTestFailure>) -> Guard {
        Guard {
            findings: Some(Findings {
                run: 4,
                hash: ctg::pipeline::source_hash(ACCOUNT),
                class: "p.Account".into(),
                project_root: PathBuf::from("/nonexistent-ctgls-guard"),
                test_file: PathBuf::from(
                    "/nonexistent-ctgls-guard/src/test/java/p/AccountGeneratedTest.java",
                ),
                changes,
                failures,
                edited: Vec::new(),
            }),
            ..Guard::default()
        }
    }

    fn compute(
        file: &OpenFile,
        guard: &Guard,
        severities: &DiagnosticSeverities,
    ) -> Vec<Diagnostic> {
        let uri = account_uri();
        let view = FileView {
            guard: Some(guard),
            ..FileView::bare(&uri, file, PositionEncoding::Utf16, severities)
        };
        crate::lsp::diagnostics::compute(&view)
            .into_iter()
            .filter(|d| {
                d.code
                    .as_ref()
                    .is_some_and(|c| *c != NumberOrString::String("nondeterministic-input".into()))
            })
            .collect()
    }

    #[test]
    fn a_behaviour_change_is_a_warning_on_the_member_the_test_is_about_with_typed_data() {
        let file = OpenFile::open(ACCOUNT, 1);
        let guard = guard(vec![change(true)], vec![]);
        let out = compute(&file, &guard, &DiagnosticSeverities::default());
        assert_eq!(out.len(), 1, "{out:?}");
        let d = &out[0];
        assert_eq!(d.severity, Some(DiagnosticSeverity::WARNING));
        assert_eq!(
            d.code,
            Some(NumberOrString::String("behaviour-changed".into()))
        );
        // No results shown: the first member the test calls that the class declares.
        assert_eq!(d.range.start.line, 3, "deposit's line");
        let data: BehaviourChangedData = serde_json::from_value(d.data.clone().unwrap()).unwrap();
        assert_eq!(
            data,
            BehaviourChangedData {
                test: "depositAddsToBalance".into(),
                acceptable: true
            }
        );
        // The user's severities apply; `off` drops it.
        let error = DiagnosticSeverities(BTreeMap::from([(
            DiagnosticCode::BehaviourChanged,
            SeverityLevel::Error,
        )]));
        assert_eq!(
            compute(&file, &guard, &error)[0].severity,
            Some(DiagnosticSeverity::ERROR)
        );
        let off = DiagnosticSeverities(BTreeMap::from([(
            DiagnosticCode::BehaviourChanged,
            SeverityLevel::Off,
        )]));
        assert!(compute(&file, &guard, &off).is_empty());
        // Back on the text a check found clean: nothing shown, without a new check.
        let clean = Guard {
            clean_hash: Some(ctg::pipeline::source_hash(ACCOUNT)),
            ..guard.clone()
        };
        assert!(compute(&file, &clean, &DiagnosticSeverities::default()).is_empty());
    }

    #[test]
    fn the_warning_stays_on_the_member_edited_when_the_check_reported() {
        let file = OpenFile::open(ACCOUNT, 1);
        let mut change = change(true);
        change.called = vec![
            CalledMember {
                name: "getBalance".into(),
                erased_params: vec![],
            },
            CalledMember {
                name: "deposit".into(),
                erased_params: vec!["long".into()],
            },
        ];
        let mut guard = guard(vec![change], vec![]);
        let line = |guard: &Guard| {
            compute(&file, guard, &DiagnosticSeverities::default())[0]
                .range
                .start
                .line
        };
        // Nothing known of the edit (no results shown then or now): the first member called.
        assert_eq!(line(&guard), 4, "getBalance's line");
        let ty = file.model().type_by_binary_name("p.Account").unwrap();
        let deposit = ty.members.iter().find(|m| m.name == "deposit").unwrap();
        guard.findings.as_mut().unwrap().edited = vec![deposit.key.clone()];
        assert_eq!(line(&guard), 3, "deposit's line");
    }

    fn failure(test_file: &std::path::Path) -> ProjectTestFailure {
        ProjectTestFailure {
            file: test_file.to_path_buf(),
            test_class: "p.AccountTest".into(),
            test: "depositAdds".into(),
            line: Some(12),
            message: "AssertionFailedError: expected: <100> but was: <101>".into(),
        }
    }

    #[test]
    fn a_failing_project_test_is_diagnosed_on_the_class_and_in_its_test_file() {
        let file = OpenFile::open(ACCOUNT, 1);
        let test_file = PathBuf::from("/nonexistent-ctgls-guard/src/test/java/p/AccountTest.java");
        let guard = guard(vec![], vec![failure(&test_file)]);
        let out = compute(&file, &guard, &DiagnosticSeverities::default());
        assert_eq!(out.len(), 1, "{out:?}");
        assert_eq!(out[0].range.start.line, 1, "the class name");
        let data: ProjectTestFailedData =
            serde_json::from_value(out[0].data.clone().unwrap()).unwrap();
        assert_eq!(data.line, Some(11), "0-based");
        let test_uri = Uri::from_file_path(&test_file).unwrap();
        assert_eq!(data.file.as_ref(), Some(&test_uri));

        // In the test file (not open): an Error at the failing line.
        let in_test = test_file_diagnostics(
            &test_uri,
            None,
            [&guard].into_iter(),
            PositionEncoding::Utf16,
        );
        assert_eq!(in_test.len(), 1);
        assert_eq!(in_test[0].severity, Some(DiagnosticSeverity::ERROR));
        assert_eq!(in_test[0].range.start.line, 11);
        assert!(in_test[0]
            .message
            .starts_with("depositAdds fails after the edit of Account: "));

        // Its code action opens the test there: a plain command, nothing to resolve.
        let uri = account_uri();
        let severities = DiagnosticSeverities::default();
        let view = FileView {
            guard: Some(&guard),
            ..FileView::bare(&uri, &file, PositionEncoding::Utf16, &severities)
        };
        let listed = actions::list(&ListInput {
            view: &view,
            range: out[0].range,
            diagnostics: &out,
            only: None,
            queued: false,
            disabled_support: true,
        });
        let open = listed
            .iter()
            .find(|a| a.title == "Open the test AccountTest.java")
            .unwrap_or_else(|| panic!("{listed:?}"));
        assert_eq!(open.kind, Some(CodeActionKind::QUICKFIX));
        assert!(open.data.is_none());
        let command = open.command.as_ref().unwrap();
        assert_eq!(command.command, command::OPEN_TEST);
        assert_eq!(
            command.arguments.as_ref().unwrap()[0],
            serde_json::json!({ "test": test_uri.as_str(), "line": 11 })
        );
    }

    #[test]
    fn a_project_test_failing_after_the_stored_tests_passed_is_shown_on_the_class() {
        // A check reports twice: the stored tests (here: no change, so far a clean text), then
        // the project's tests, which fail on the same text. The failure is shown on the class.
        let file = OpenFile::open(ACCOUNT, 2);
        let test_file = PathBuf::from("/nonexistent-ctgls-guard/src/test/java/p/AccountTest.java");
        let layout = ctg::project::ProjectLayout::discover(
            std::path::Path::new("/nonexistent-ctgls-guard"),
            &ctg::project::LayoutOverrides::default(),
        );
        let report = |failures| GuardUpdate {
            run: 2,
            uri: account_uri(),
            hash: ctg::pipeline::source_hash(ACCOUNT),
            class: "p.Account".into(),
            layout: layout.clone(),
            changes: Vec::new(),
            failures,
        };
        let mut guard = Guard::default();
        guard.apply(report(None), Vec::new());
        let severities = DiagnosticSeverities::default();
        assert!(compute(&file, &guard, &severities).is_empty());
        guard.apply(report(Some(vec![failure(&test_file)])), Vec::new());
        let out = compute(&file, &guard, &severities);
        assert_eq!(out.len(), 1, "{out:?}");
        assert_eq!(
            out[0].code,
            Some(NumberOrString::String("project-test-failed".into()))
        );
        // Nor is the failing run the clean one, whose record would become the reference.
        assert_eq!(guard.clean_run, None);
    }

    #[test]
    fn accept_is_offered_for_an_acceptable_change_with_data_to_resolve_and_its_command() {
        let file = OpenFile::open(ACCOUNT, 1);
        let uri = account_uri();
        let severities = DiagnosticSeverities::default();
        for acceptable in [true, false] {
            let guard = guard(vec![change(acceptable)], vec![]);
            let view = FileView {
                guard: Some(&guard),
                ..FileView::bare(&uri, &file, PositionEncoding::Utf16, &severities)
            };
            let diagnostics = crate::lsp::diagnostics::compute(&view);
            let listed = actions::list(&ListInput {
                view: &view,
                range: diagnostics[0].range,
                diagnostics: &diagnostics,
                only: None,
                queued: false,
                disabled_support: true,
            });
            let accept = listed.iter().find(|a| a.title == actions::ACCEPT_TITLE);
            assert_eq!(accept.is_some(), acceptable, "{listed:?}");
            if let Some(accept) = accept {
                let data: actions::ActionData =
                    serde_json::from_value(accept.data.clone().unwrap()).unwrap();
                assert_eq!(
                    data,
                    actions::ActionData::Accept {
                        uri: uri.clone(),
                        run: 4
                    }
                );
                let command = accept.command.as_ref().unwrap();
                assert_eq!(command.command, command::ACCEPT_BEHAVIOUR);
                assert_eq!(
                    command.arguments.as_ref().unwrap()[0],
                    serde_json::json!({ "uri": uri.as_str() })
                );
            }
            // "Generate tests for class" is still there, whatever the guard found.
            assert!(listed
                .iter()
                .any(|a| a.title == "Generate tests for class Account"));
        }
    }
}
