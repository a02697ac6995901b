//! The diagnostics of an open file: uncovered branches, undeclared exceptions, lines that read
//! nondeterministic inputs (`nondeterminism.rs`), and why generation cannot run (codes and shapes in `docs/lsp-extensions.md`). Computed from the
//! results placed on the current text, so they are always for the version they are published
//! with.

use tower_lsp_server::ls_types::{
    Diagnostic, DiagnosticRelatedInformation, DiagnosticSeverity, Location, NumberOrString,
};

use crate::lsp::file_view::FileView;
/// A ctgls diagnostic with its typed `data` (defined beside the codes, so that every feature
/// module, this one's parts too, builds its diagnostics with it).
pub use crate::lsp::protocol::diagnostic;
use crate::lsp::protocol::settings::DiagnosticSeverities;
use crate::lsp::protocol::{
    DiagnosticCode, NeedsEnvironmentData, NoData, UncoveredBranchData, UndeclaredExceptionData,
};
use crate::lsp::results::words::{exception_message, member_display, uncovered_message};
use crate::lsp::results::ClassResults;
use crate::lsp::runner::FailureKind;
use crate::lsp::view::View;
use crate::lsp::workspace::{primary_type, uri_path};

/// Every diagnostic of the file, with the user's severities (`diagnostics` setting) applied.
pub fn compute(input: &FileView) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    let (uri, file, encoding) = (input.uri, input.file, input.encoding);
    let path = uri_path(uri);
    let class_range = primary_type(file.model(), path.as_deref()).and_then(|ty| {
        let span = ty.name_span.as_ref().unwrap_or(&ty.span);
        file.document()
            .line_index()
            .text_range(span.start_byte..span.end_byte, encoding)
            .ok()
            .map(crate::lsp::to_proto::range)
    });
    let class_range = class_range.unwrap_or_default();
    if let Some(reason) = input.unavailable {
        out.push(diagnostic(
            class_range,
            DiagnosticSeverity::INFORMATION,
            DiagnosticCode::GenerationUnavailable,
            reason.to_string(),
            NoData {},
        ));
    } else if let Some(problem) = input.problem {
        let severity = if problem.kind == FailureKind::DoesNotCompile {
            DiagnosticSeverity::WARNING
        } else {
            DiagnosticSeverity::INFORMATION
        };
        out.push(diagnostic(
            class_range,
            severity,
            DiagnosticCode::GenerationUnavailable,
            problem.message.clone(),
            NoData {},
        ));
    }
    if let Some(reason) = input.results.and_then(|r| r.unverified.as_ref()) {
        if input.unavailable.is_none() && input.problem.is_none() {
            out.push(diagnostic(
                class_range,
                DiagnosticSeverity::WARNING,
                DiagnosticCode::VerificationFailed,
                reason.clone(),
                NoData {},
            ));
        }
    }
    if let Some(results) = input.results {
        let view = View::new(file, results, encoding);
        uncovered_branches(input, &view, &mut out);
        undeclared_exceptions(input, &view, &mut out);
        needs_environment(input, &view, &mut out);
    }
    crate::lsp::nondeterminism::diagnostics(input, &mut out);
    crate::lsp::regression::diagnostics(input, &mut out);
    apply_severities(out, input.severities)
}

/// The user's severities: a code set to `off` is dropped, another gets the severity asked for.
pub fn apply_severities(
    diagnostics: Vec<Diagnostic>,
    severities: &DiagnosticSeverities,
) -> Vec<Diagnostic> {
    diagnostics
        .into_iter()
        .filter_map(|mut diagnostic| {
            let code = match &diagnostic.code {
                Some(NumberOrString::String(code)) => DiagnosticCode::parse(code),
                _ => None,
            };
            if let Some(level) = code.and_then(|c| severities.get(c)) {
                diagnostic.severity = Some(level.severity()?);
            }
            Some(diagnostic)
        })
        .collect()
}

/// On the line that needed the environment, while its member is unchanged: why the goals
/// there have no test (docs/lsp-extensions.md, `needs-environment`).
fn needs_environment(input: &FileView, view: &View, out: &mut Vec<Diagnostic>) {
    let results = view.results;
    for need in &results.environment {
        let Some((member, offset)) = &need.at else {
            continue;
        };
        let Some(row) = view.row(member, *offset) else {
            continue;
        };
        let Some(range) = view.line_range(row) else {
            continue;
        };
        let goals = need.goals.len();
        out.push(diagnostic(
            range,
            DiagnosticSeverity::INFORMATION,
            DiagnosticCode::NeedsEnvironment,
            format!(
                "{}; no test is written for the {goals} goal{} only such runs reach",
                need.message,
                if goals == 1 { "" } else { "s" }
            ),
            NeedsEnvironmentData {
                uri: input.uri.clone(),
                class: results.class.clone(),
                target: need.target.clone(),
                goals: need.goals.clone(),
                run: results.run,
            },
        ));
    }
}

fn uncovered_branches(input: &FileView, view: &View, out: &mut Vec<Diagnostic>) {
    let results = view.results;
    for decision in &results.decisions {
        let Some(current) = view.decision(decision) else {
            continue;
        };
        let Some(range) = view.span_range(&current.span) else {
            continue;
        };
        for outcome in &decision.outcomes {
            if results.is_covered(outcome) {
                continue;
            }
            let goal = format!("{}.{}", decision.key, outcome.outcome);
            out.push(diagnostic(
                range,
                DiagnosticSeverity::INFORMATION,
                DiagnosticCode::UncoveredBranch,
                uncovered_message(results, current.kind, outcome),
                UncoveredBranchData {
                    uri: input.uri.clone(),
                    class: results.class.clone(),
                    goal,
                    run: results.run,
                },
            ));
        }
    }
}

fn undeclared_exceptions(input: &FileView, view: &View, out: &mut Vec<Diagnostic>) {
    let uri = input.uri;
    let results = view.results;
    for (index, exception) in results.exceptions.iter().enumerate() {
        // A runtime exception thrown on purpose (`throw new IllegalArgumentException(...)`)
        // is the method's contract, not a finding; checked ones are findings either way.
        if exception.explicit && !exception.checked {
            continue;
        }
        // On the throwing line when its member is unchanged, else not at all.
        let Some((member, offset)) = &exception.at else {
            continue;
        };
        let Some(row) = view.row(member, *offset) else {
            continue;
        };
        let Some(range) = view.line_range(row) else {
            continue;
        };
        let related = view
            .member(&exception.called)
            .filter(|_| view.live(&exception.called))
            .and_then(|m| view.span_range(m.name_span.as_ref().unwrap_or(&m.span)))
            .map(|range| {
                vec![DiagnosticRelatedInformation {
                    location: Location::new(uri.clone(), range),
                    message: format!(
                        "the test calls {}{}",
                        member_display(&exception.called),
                        test_name(results, exception.test)
                            .map(|n| format!(" ({n})"))
                            .unwrap_or_default()
                    ),
                }]
            });
        let mut diagnostic = diagnostic(
            range,
            DiagnosticSeverity::WARNING,
            DiagnosticCode::UndeclaredException,
            exception_message(exception),
            UndeclaredExceptionData {
                uri: uri.clone(),
                class: results.class.clone(),
                exception: exception.type_name.clone(),
                member: exception.called.clone(),
                index,
                run: results.run,
            },
        );
        diagnostic.related_information = related;
        out.push(diagnostic);
    }
}

fn test_name(results: &ClassResults, test: Option<usize>) -> Option<&str> {
    results.tests.get(test?)?.name.as_deref()
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use syntax::{PositionEncoding, TextChange, TextPosition, TextRange};
    use tower_lsp_server::ls_types::Uri;

    use super::*;
    use crate::lsp::protocol::DIAGNOSTIC_SOURCE;
    use crate::lsp::results::ClassResults;
    use crate::open_file::OpenFile;

    const ACCOUNT: &str = "package p;\n\npublic class Account {\n    private long balance;\n\n    public boolean withdraw(long amount) {\n        if (amount <= 0) {\n            return false;\n        }\n        balance -= amount;\n        return true;\n    }\n\n    public long interest(int rate) {\n        if (balance > 100) {\n            return balance / rate;\n        }\n        return 0;\n    }\n}\n";

    fn uri() -> Uri {
        "file:///p/Account.java".parse().unwrap()
    }

    /// Interim results of the file covering `covered` goals.
    fn tracked_with(file: &OpenFile, covered: &[&str]) -> ClassResults {
        let covered: BTreeSet<String> = covered.iter().map(|g| g.to_string()).collect();
        ClassResults::interim(1, "p.Account", file.model(), &covered)
    }

    /// The diagnostics of `file` showing `results`, with `severities`.
    fn compute_with(
        file: &OpenFile,
        results: Option<&ClassResults>,
        unavailable: Option<&str>,
        severities: &DiagnosticSeverities,
    ) -> Vec<Diagnostic> {
        let uri = uri();
        compute(&FileView {
            results,
            unavailable,
            ..FileView::bare(&uri, file, PositionEncoding::Utf16, severities)
        })
    }

    fn defaults() -> DiagnosticSeverities {
        DiagnosticSeverities::default()
    }

    fn messages(diagnostics: &[Diagnostic]) -> Vec<(u32, String)> {
        diagnostics
            .iter()
            .map(|d| (d.range.start.line, d.message.clone()))
            .collect()
    }

    #[test]
    fn a_need_of_the_environment_is_information_on_its_line_while_its_member_is_unchanged() {
        let file = OpenFile::open(ACCOUNT, 1);
        let all = [
            "p.Account#withdraw(long)/B0.T",
            "p.Account#withdraw(long)/B0.F",
            "p.Account#interest(int)/B0.T",
            "p.Account#interest(int)/B0.F",
        ];
        let mut results = tracked_with(&file, &all);
        // `balance -= amount;`: line 10, offset 4 in withdraw (which starts on row 5).
        results.environment = vec![crate::lsp::results::EnvironmentResult {
            at: Some(("p.Account#withdraw(long)".into(), 4)),
            message: "needs the environment: writes /home/x/out.txt (refused by the sandbox)"
                .into(),
            target: "/home/x/out.txt".into(),
            goals: vec!["line 10".into(), "line 11".into()],
        }];
        let diagnostics = compute_with(&file, Some(&results), None, &defaults());
        let need: Vec<&Diagnostic> = diagnostics
            .iter()
            .filter(|d| {
                d.code
                    == Some(NumberOrString::String(
                        DiagnosticCode::NeedsEnvironment.as_str().into(),
                    ))
            })
            .collect();
        assert_eq!(
            messages(&need.into_iter().cloned().collect::<Vec<_>>()),
            [(
                9,
                "needs the environment: writes /home/x/out.txt (refused by the sandbox); no test \
                 is written for the 2 goals only such runs reach"
                    .to_string()
            )]
        );
        let info = diagnostics
            .iter()
            .find(|d| {
                d.code
                    == Some(NumberOrString::String(
                        DiagnosticCode::NeedsEnvironment.as_str().into(),
                    ))
            })
            .unwrap();
        assert_eq!(info.severity, Some(DiagnosticSeverity::INFORMATION));
        assert_eq!(info.data.as_ref().unwrap()["target"], "/home/x/out.txt");

        // Editing withdraw withdraws it.
        let mut edited = OpenFile::open(ACCOUNT, 1);
        edited
            .apply_changes(
                &[TextChange::replace(
                    TextRange::new(TextPosition::new(9, 8), TextPosition::new(9, 8)),
                    "// x\n        ",
                )],
                2,
                PositionEncoding::Utf16,
            )
            .unwrap();
        let diagnostics = compute_with(&edited, Some(&results), None, &defaults());
        assert!(!diagnostics.iter().any(|d| d.code
            == Some(NumberOrString::String(
                DiagnosticCode::NeedsEnvironment.as_str().into()
            ))));
    }

    #[test]
    fn uncovered_outcomes_are_diagnosed_on_their_condition() {
        let file = OpenFile::open(ACCOUNT, 1);
        let tracked = tracked_with(&file, &["p.Account#withdraw(long)/B0.T"]);
        let diagnostics = compute_with(&file, Some(&tracked), None, &defaults());
        assert_eq!(
            messages(&diagnostics),
            [
                (
                    6,
                    "false branch not covered yet (search running)".to_string()
                ),
                (
                    14,
                    "true branch not covered yet (search running)".to_string()
                ),
                (
                    14,
                    "false branch not covered yet (search running)".to_string()
                ),
            ]
        );
        let first = &diagnostics[0];
        assert_eq!(first.source.as_deref(), Some(DIAGNOSTIC_SOURCE));
        assert_eq!(
            first.code,
            Some(NumberOrString::String(
                DiagnosticCode::UncoveredBranch.as_str().into()
            ))
        );
        assert_eq!(first.severity, Some(DiagnosticSeverity::INFORMATION));
        assert_eq!(
            (first.range.start.character, first.range.end.character),
            (12, 23)
        );
        assert_eq!(
            first.data.as_ref().unwrap()["goal"],
            "p.Account#withdraw(long)/B0.F"
        );
    }

    #[test]
    fn edits_move_unchanged_results_and_withdraw_edited_ones() {
        let mut file = OpenFile::open(ACCOUNT, 1);
        let tracked = tracked_with(&file, &[]);
        let change = |line, from, to, text: &str| {
            TextChange::replace(
                TextRange::new(TextPosition::new(line, from), TextPosition::new(line, to)),
                text,
            )
        };
        // Two lines above everything, and an edit inside interest(int).
        file.apply_changes(
            &[
                change(1, 0, 0, "// a\n// b\n"),
                change(16, 19, 23, "rate + 1"),
            ],
            2,
            PositionEncoding::Utf16,
        )
        .unwrap();
        let diagnostics = compute_with(&file, Some(&tracked), None, &defaults());
        let lines: Vec<u32> = diagnostics.iter().map(|d| d.range.start.line).collect();
        assert_eq!(
            lines,
            [8, 8],
            "withdraw's two outcomes moved; interest's are withdrawn"
        );
    }

    #[test]
    fn a_call_that_reads_the_machine_is_information_on_its_line() {
        let source = "package p;\n\npublic class Settings {\n    public String header() {\n        return \"Bearer \" + System.getenv(\"API_TOKEN\");\n    }\n}\n";
        let file = OpenFile::open(source, 1);
        let diagnostics = compute_with(&file, None, None, &defaults());
        assert_eq!(diagnostics.len(), 1, "{diagnostics:?}");
        let hint = &diagnostics[0];
        assert_eq!(
            hint.code,
            Some(NumberOrString::String(
                DiagnosticCode::NondeterministicInput.as_str().into()
            ))
        );
        assert_eq!(hint.severity, Some(DiagnosticSeverity::INFORMATION));
        assert_eq!((hint.range.start.line, hint.range.start.character), (4, 27));
        assert!(
            hint.message
                .starts_with("reads the environment variable \"API_TOKEN\": generated tests never"),
            "{}",
            hint.message
        );
    }

    #[test]
    fn an_unavailable_reason_is_shown_on_the_class_name() {
        let file = OpenFile::open(ACCOUNT, 1);
        let diagnostics = compute_with(&file, None, Some("test generation is off"), &defaults());
        assert_eq!(diagnostics.len(), 1);
        assert_eq!(
            diagnostics[0].code,
            Some(NumberOrString::String(
                DiagnosticCode::GenerationUnavailable.as_str().into()
            ))
        );
        assert_eq!(diagnostics[0].range.start.line, 2);
        assert_eq!(diagnostics[0].range.start.character, 13);
    }
}
