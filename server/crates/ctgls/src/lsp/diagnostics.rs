//! The diagnostics of an open file: uncovered branches, undeclared exceptions, calls that read
//! the machine (`machine_inputs.rs`), and why generation cannot run (codes and shapes in `docs/lsp-extensions.md`). Computed from the
//! results placed on the current text, so they are always for the version they are published
//! with.

use serde_json::json;
use syntax::PositionEncoding;
use tower_lsp_server::ls_types::{
    Diagnostic, DiagnosticRelatedInformation, DiagnosticSeverity, Location, NumberOrString, Range,
    Uri,
};

use crate::lsp::engine::Tracked;
use crate::lsp::results::{member_display, simple_name, ClassResults, Origin, OutcomeResult};
use crate::lsp::runner::FailureKind;
use crate::lsp::view::View;
use crate::lsp::workspace::{primary_type, uri_path};
use crate::open_file::OpenFile;

pub const SOURCE: &str = "ctgls";
pub const UNCOVERED_BRANCH: &str = "uncovered-branch";
pub const UNDECLARED_EXCEPTION: &str = "undeclared-exception";
pub const GENERATION_UNAVAILABLE: &str = "generation-unavailable";
pub const NEEDS_ENVIRONMENT: &str = "needs-environment";
pub const NONDETERMINISTIC_INPUT: &str = "nondeterministic-input";
pub const VERIFICATION_FAILED: &str = "verification-failed";

pub fn compute(
    uri: &Uri,
    file: &OpenFile,
    tracked: &Tracked,
    unavailable: Option<&str>,
    encoding: PositionEncoding,
) -> Vec<Diagnostic> {
    let mut out = Vec::new();
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
    if let Some(reason) = unavailable {
        out.push(diagnostic(
            class_range,
            DiagnosticSeverity::INFORMATION,
            GENERATION_UNAVAILABLE,
            reason.to_string(),
            json!({}),
        ));
    } else if let Some(problem) = &tracked.problem {
        let severity = if problem.kind == FailureKind::DoesNotCompile {
            DiagnosticSeverity::WARNING
        } else {
            DiagnosticSeverity::INFORMATION
        };
        out.push(diagnostic(
            class_range,
            severity,
            GENERATION_UNAVAILABLE,
            problem.message.clone(),
            json!({}),
        ));
    }
    if let Some(reason) = tracked.results.as_ref().and_then(|r| r.unverified.as_ref()) {
        if unavailable.is_none() && tracked.problem.is_none() {
            out.push(diagnostic(
                class_range,
                DiagnosticSeverity::WARNING,
                VERIFICATION_FAILED,
                reason.clone(),
                json!({}),
            ));
        }
    }
    if let Some(results) = &tracked.results {
        let view = View::new(file, results, encoding);
        uncovered_branches(uri, &view, &mut out);
        undeclared_exceptions(uri, &view, &mut out);
        needs_environment(uri, &view, &mut out);
    }
    machine_inputs(file, encoding, &mut out);
    out
}

/// On the line that needed the environment, while its member is unchanged: why the goals
/// there have no test (docs/lsp-extensions.md, `needs-environment`).
fn needs_environment(uri: &Uri, view: &View, out: &mut Vec<Diagnostic>) {
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
            NEEDS_ENVIRONMENT,
            format!(
                "{}; no test is written for the {goals} goal{} only such runs reach",
                need.message,
                if goals == 1 { "" } else { "s" }
            ),
            json!({
                "uri": uri.as_str(),
                "class": results.class,
                "target": need.target,
                "goals": need.goals,
                "run": results.run,
            }),
        ));
    }
}

/// One hint per call that reads the machine: why what it returned is never asserted.
fn machine_inputs(file: &OpenFile, encoding: PositionEncoding, out: &mut Vec<Diagnostic>) {
    for input in crate::lsp::machine_inputs::find(file) {
        let Ok(range) = file
            .document()
            .line_index()
            .text_range(input.bytes.clone(), encoding)
        else {
            continue;
        };
        out.push(diagnostic(
            crate::lsp::to_proto::range(range),
            DiagnosticSeverity::HINT,
            NONDETERMINISTIC_INPUT,
            format!(
                "reads {} of the machine it runs on: generated tests never assert what depends \
                 on it (it differs on another machine, and could be a secret)",
                input.what
            ),
            json!({ "reads": input.what }),
        ));
    }
}

fn uncovered_branches(uri: &Uri, view: &View, out: &mut Vec<Diagnostic>) {
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
                UNCOVERED_BRANCH,
                uncovered_message(results, current.kind, outcome),
                json!({ "uri": uri.as_str(), "class": results.class, "goal": goal, "run": results.run }),
            ));
        }
    }
}

/// "true branch not covered; closest: amount == 99 (needs > 100)".
pub fn uncovered_message(
    results: &ClassResults,
    kind: javamodel::DecisionKind,
    outcome: &OutcomeResult,
) -> String {
    use javamodel::DecisionKind as K;
    let what = match (kind, outcome.label.as_str()) {
        (K::MethodEntry, _) => "never called".to_string(),
        (K::Catch, _) => "catch block never entered".to_string(),
        (K::ForEach, "true") => "loop body never ran".to_string(),
        (K::ForEach, "false") => "loop never finished".to_string(),
        (_, "true" | "false") => format!("{} branch not covered", outcome.label),
        (_, label) => format!("{label} not covered"),
    };
    match results.origin {
        Origin::Interim => format!("{what} yet (search running)"),
        Origin::Stored => format!("{what} (last session)"),
        Origin::Final => match (&outcome.closest, outcome.reached) {
            (Some(closest), _) => format!("{what}; closest: {closest}"),
            (None, false) if kind != K::MethodEntry => format!("{what} (never reached)"),
            (None, _) => what,
        },
    }
}

fn undeclared_exceptions(uri: &Uri, view: &View, out: &mut Vec<Diagnostic>) {
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
            UNDECLARED_EXCEPTION,
            exception_message(exception),
            json!({
                "uri": uri.as_str(),
                "class": results.class,
                "exception": exception.type_name,
                "member": exception.called,
                "index": index,
                "run": results.run,
            }),
        );
        diagnostic.related_information = related;
        out.push(diagnostic);
    }
}

/// "ArithmeticException (/ by zero) escapes interest(int) when ratePerUnit = 0".
pub fn exception_message(exception: &crate::lsp::results::ExceptionResult) -> String {
    let mut message = simple_name(&exception.type_name).to_string();
    if let Some(text) = exception.message.as_deref().filter(|m| !m.is_empty()) {
        message.push_str(&format!(" ({text})"));
    }
    message.push_str(&format!(
        " escapes {} without being declared",
        member_display(&exception.called)
    ));
    if !exception.inputs.is_empty() {
        message.push_str(&format!(" when {}", exception.inputs));
    }
    message
}

fn test_name(results: &ClassResults, test: Option<usize>) -> Option<&str> {
    results.tests.get(test?)?.name.as_deref()
}

/// A ctgls diagnostic (`pub(crate)`: the regression guard's too, `lsp/regression.rs`).
pub(crate) fn diagnostic(
    range: Range,
    severity: DiagnosticSeverity,
    code: &str,
    message: String,
    data: serde_json::Value,
) -> Diagnostic {
    Diagnostic {
        range,
        severity: Some(severity),
        code: Some(NumberOrString::String(code.to_string())),
        source: Some(SOURCE.to_string()),
        message,
        data: Some(data),
        ..Diagnostic::default()
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;
    use std::sync::Arc;

    use syntax::{TextChange, TextPosition, TextRange};

    use super::*;
    use crate::lsp::engine::Tracked;
    use crate::lsp::results::ClassResults;

    const ACCOUNT: &str = "package p;\n\npublic class Account {\n    private long balance;\n\n    public boolean withdraw(long amount) {\n        if (amount <= 0) {\n            return false;\n        }\n        balance -= amount;\n        return true;\n    }\n\n    public long interest(int rate) {\n        if (balance > 100) {\n            return balance / rate;\n        }\n        return 0;\n    }\n}\n";

    fn uri() -> Uri {
        "file:///p/Account.java".parse().unwrap()
    }

    /// A file whose interim results cover `covered` goals.
    fn tracked_with(file: &OpenFile, covered: &[&str]) -> Tracked {
        let covered: BTreeSet<String> = covered.iter().map(|g| g.to_string()).collect();
        let mut tracked = Tracked::new();
        tracked.results = Some(Arc::new(ClassResults::interim(
            1,
            "p.Account",
            file.model(),
            &covered,
        )));
        tracked
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
        let mut tracked = tracked_with(&file, &all);
        let mut results = (**tracked.results.as_ref().unwrap()).clone();
        // `balance -= amount;`: line 10, offset 4 in withdraw (which starts on row 5).
        results.environment = vec![crate::lsp::results::EnvironmentResult {
            at: Some(("p.Account#withdraw(long)".into(), 4)),
            message: "needs the environment: writes /home/x/out.txt (refused by the sandbox)"
                .into(),
            target: "/home/x/out.txt".into(),
            goals: vec!["line 10".into(), "line 11".into()],
        }];
        tracked.results = Some(Arc::new(results));
        let diagnostics = compute(&uri(), &file, &tracked, None, PositionEncoding::Utf16);
        let need: Vec<&Diagnostic> = diagnostics
            .iter()
            .filter(|d| d.code == Some(NumberOrString::String(NEEDS_ENVIRONMENT.into())))
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
            .find(|d| d.code == Some(NumberOrString::String(NEEDS_ENVIRONMENT.into())))
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
        let diagnostics = compute(&uri(), &edited, &tracked, None, PositionEncoding::Utf16);
        assert!(!diagnostics
            .iter()
            .any(|d| d.code == Some(NumberOrString::String(NEEDS_ENVIRONMENT.into()))));
    }

    #[test]
    fn uncovered_outcomes_are_diagnosed_on_their_condition() {
        let file = OpenFile::open(ACCOUNT, 1);
        let tracked = tracked_with(&file, &["p.Account#withdraw(long)/B0.T"]);
        let diagnostics = compute(&uri(), &file, &tracked, None, PositionEncoding::Utf16);
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
        assert_eq!(first.source.as_deref(), Some(SOURCE));
        assert_eq!(
            first.code,
            Some(NumberOrString::String(UNCOVERED_BRANCH.into()))
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
        let diagnostics = compute(&uri(), &file, &tracked, None, PositionEncoding::Utf16);
        let lines: Vec<u32> = diagnostics.iter().map(|d| d.range.start.line).collect();
        assert_eq!(
            lines,
            [8, 8],
            "withdraw's two outcomes moved; interest's are withdrawn"
        );
    }

    #[test]
    fn a_call_that_reads_the_machine_is_a_hint_on_its_line() {
        let source = "package p;\n\npublic class Settings {\n    public String header() {\n        return \"Bearer \" + System.getenv(\"API_TOKEN\");\n    }\n}\n";
        let file = OpenFile::open(source, 1);
        let diagnostics = compute(
            &uri(),
            &file,
            &Tracked::new(),
            None,
            PositionEncoding::Utf16,
        );
        assert_eq!(diagnostics.len(), 1, "{diagnostics:?}");
        let hint = &diagnostics[0];
        assert_eq!(
            hint.code,
            Some(NumberOrString::String(NONDETERMINISTIC_INPUT.into()))
        );
        assert_eq!(hint.severity, Some(DiagnosticSeverity::HINT));
        assert_eq!((hint.range.start.line, hint.range.start.character), (4, 27));
        assert!(
            hint.message
                .starts_with("reads the environment variable \"API_TOKEN\" of the machine"),
            "{}",
            hint.message
        );
    }

    #[test]
    fn an_unavailable_reason_is_shown_on_the_class_name() {
        let file = OpenFile::open(ACCOUNT, 1);
        let diagnostics = compute(
            &uri(),
            &file,
            &Tracked::new(),
            Some("test generation is off"),
            PositionEncoding::Utf16,
        );
        assert_eq!(diagnostics.len(), 1);
        assert_eq!(
            diagnostics[0].code,
            Some(NumberOrString::String(GENERATION_UNAVAILABLE.into()))
        );
        assert_eq!(diagnostics[0].range.start.line, 2);
        assert_eq!(diagnostics[0].range.start.character, 13);
    }
}
