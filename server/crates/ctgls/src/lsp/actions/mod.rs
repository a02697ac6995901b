//! Code actions: insert a generated test (covering a branch, reproducing an exception), write
//! the whole generated class, add `throws X`. Listed cheaply; the edit is computed by
//! `codeAction/resolve` (or at once for clients that cannot resolve edits).
//!
//! Tests come from whatever results are shown (a finished run's, the store's, or those kept
//! under a running search's interim coverage), and only tests whose called members are all
//! unchanged since their run are offered or inserted (`ClassResults::insertable`).

mod edits;
mod guard;

pub use edits::{edit_document, test_edit, throws_edit, throws_edits, EditSupport, TestFileNow};
pub use guard::{accept_edit, ACCEPT_TITLE};

use serde::{Deserialize, Serialize};
use serde_json::Value;
use tower_lsp_server::ls_types::{
    CodeAction, CodeActionDisabled, CodeActionKind, Command, Diagnostic, NumberOrString,
    Range as LspRange, Uri,
};

use crate::lsp::file_view::FileView;
use crate::lsp::protocol::{
    command, DiagnosticCode, ExplainArgument, FileArgument, DIAGNOSTIC_SOURCE, GENERATE_TESTS_KIND,
};
use crate::lsp::results::words::{member_display, simple_name};
use crate::lsp::results::{ClassResults, Origin};
use crate::lsp::view::View;
use crate::lsp::workspace::{primary_type, uri_path};

/// Carried in `CodeAction::data` from the list to `codeAction/resolve`.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase", tag = "kind")]
pub enum ActionData {
    /// Insert the generated test `test` (an index into the run's tests).
    Test { uri: Uri, run: u64, test: usize },
    /// Write the whole generated test class.
    Suite { uri: Uri, run: u64 },
    /// Add the exception `exception` (an index into the run's exceptions) to the `throws`
    /// clause of the member the test called.
    Throws {
        uri: Uri,
        run: u64,
        exception: usize,
    },
    /// Rewrite the generated test file's assertions to the behaviour the regression guard's
    /// check of run `run` found (`actions/guard.rs`).
    Accept { uri: Uri, run: u64 },
}

impl ActionData {
    pub fn uri(&self) -> &Uri {
        match self {
            ActionData::Test { uri, .. }
            | ActionData::Suite { uri, .. }
            | ActionData::Throws { uri, .. }
            | ActionData::Accept { uri, .. } => uri,
        }
    }

    /// The run whose results the action is about.
    pub fn run(&self) -> u64 {
        match self {
            ActionData::Test { run, .. }
            | ActionData::Suite { run, .. }
            | ActionData::Throws { run, .. }
            | ActionData::Accept { run, .. } => *run,
        }
    }
}

pub struct ListInput<'a> {
    pub view: &'a FileView<'a>,
    pub range: LspRange,
    pub diagnostics: &'a [Diagnostic],
    pub only: Option<&'a [CodeActionKind]>,
    /// The class waits for its idle delay, or the user asked for a run.
    pub queued: bool,
    /// The client shows disabled actions with their reason (LSP 3.16); others get a
    /// `ctgls.explain` command that says it.
    pub disabled_support: bool,
}

/// The actions at a range, without edits. Whatever the moment, "Generate tests for class X"
/// is among them, and a ctgls diagnostic whose test cannot be offered yet gets an action that
/// says what it waits for.
pub fn list(input: &ListInput) -> Vec<CodeAction> {
    let mut out: Vec<CodeAction> = Vec::new();
    if let Some(results) = input.view.results {
        from_results(input, results, &mut out);
    }
    // The ctgls diagnostics asked about that got nothing from the results.
    for diagnostic in input.diagnostics {
        if diagnostic.source.as_deref() != Some(DIAGNOSTIC_SOURCE) {
            continue;
        }
        let title = match diagnostic_code(diagnostic) {
            Some(DiagnosticCode::UncoveredBranch) => "Insert test covering this branch".to_string(),
            Some(DiagnosticCode::UndeclaredException) => {
                let exception = diagnostic
                    .data
                    .as_ref()
                    .and_then(|d| d.get("exception"))
                    .and_then(Value::as_str)
                    .unwrap_or("the exception");
                format!("Insert test reproducing {}", simple_name(exception))
            }
            _ => continue,
        };
        let answered = out.iter().any(|a| {
            a.diagnostics
                .as_ref()
                .is_some_and(|d| d.iter().any(|d| d == diagnostic))
        });
        if !answered {
            let reason = waiting_reason(input, true);
            out.push(waiting(
                input,
                title,
                CodeActionKind::QUICKFIX,
                Some(diagnostic.clone()),
                reason,
            ));
        }
    }
    guard::list(input, &mut out);
    out.extend(generate_action(input));
    if let Some(only) = input.only {
        out.retain(|a| {
            let kind = a.kind.as_ref().map_or("", |k| k.as_str());
            only.iter()
                .any(|o| kind == o.as_str() || kind.starts_with(&format!("{}.", o.as_str())))
        });
    }
    out
}

fn diagnostic_code(diagnostic: &Diagnostic) -> Option<DiagnosticCode> {
    match &diagnostic.code {
        Some(NumberOrString::String(code)) => DiagnosticCode::parse(code),
        _ => None,
    }
}

/// Why no test can be offered now, in words: what the user is waiting for. `for_test`: the
/// reason is for one test, which a run can bring.
fn waiting_reason(input: &ListInput, for_test: bool) -> String {
    let view = input.view;
    if let Some(reason) = view.unavailable {
        return reason.to_string();
    }
    if !view.file.model().problems.is_empty() {
        return "the file has syntax errors; generation waits until they are fixed".into();
    }
    if let Some(phase) = view.running {
        return format!(
            "waiting for the run in progress ({phase}); its tests are offered when it ends"
        );
    }
    if input.queued {
        return "waiting for the next run of this class; its tests are offered when it ends".into();
    }
    if let Some(problem) = view.problem {
        return problem.message.clone();
    }
    match view.results {
        Some(results) if results.unverified.is_some() => {
            results.unverified.clone().unwrap_or_default()
        }
        Some(_) if for_test => {
            "no generated test for this fits the code as it is now; Generate tests for the \
             class runs the search again"
                .into()
        }
        Some(_) => "no generated test fits the code as it is now".into(),
        None => {
            "no run has finished for this class yet; Generate tests for the class starts one".into()
        }
    }
}

/// "Generate tests for class X": the whole generated class when the results have tests that
/// fit the current text, else the `ctgls.generate` command, else (a run in progress, or none
/// possible) what it waits for.
fn generate_action(input: &ListInput) -> Option<CodeAction> {
    let view = input.view;
    let class = match view.results {
        Some(results) => results.class.clone(),
        None => {
            let path = uri_path(view.uri);
            primary_type(view.file.model(), path.as_deref())?
                .binary_name
                .clone()
        }
    };
    let title = format!("Generate tests for class {}", simple_name(&class));
    let kind = CodeActionKind::new(GENERATE_TESTS_KIND);
    if let Some(results) = view.results {
        let placed = View::new(view.file, results, view.encoding);
        let fits = (0..results.tests.len()).any(|i| results.insertable(i, |m| placed.live(m)));
        if results.suite.is_some() && fits {
            return Some(action(
                title,
                kind,
                None,
                ActionData::Suite {
                    uri: view.uri.clone(),
                    run: results.run,
                },
            ));
        }
    }
    let blocked = view.unavailable.is_some()
        || view.running.is_some()
        || !view.file.model().problems.is_empty();
    if blocked {
        let reason = waiting_reason(input, false);
        return Some(waiting(input, title, kind, None, reason));
    }
    Some(CodeAction {
        title: title.clone(),
        kind: Some(kind),
        command: Some(Command {
            title,
            command: command::GENERATE.to_string(),
            arguments: serde_json::to_value(FileArgument {
                uri: view.uri.clone(),
            })
            .ok()
            .map(|a| vec![a]),
        }),
        ..CodeAction::default()
    })
}

/// An action that cannot act yet: disabled with `reason` where the client shows such actions,
/// else running `ctgls.explain`, which shows the reason.
fn waiting(
    input: &ListInput,
    title: String,
    kind: CodeActionKind,
    diagnostic: Option<Diagnostic>,
    reason: String,
) -> CodeAction {
    let mut action = cannot_act_yet(title, kind, reason, input.disabled_support);
    action.diagnostics = diagnostic.map(|d| vec![d]);
    action
}

/// An action that cannot act yet, with its `reason`: disabled where the client shows such
/// actions (`disabled_support`), else running `ctgls.explain`, which shows the reason.
pub fn cannot_act_yet(
    title: String,
    kind: CodeActionKind,
    reason: String,
    disabled_support: bool,
) -> CodeAction {
    let mut action = CodeAction {
        title: title.clone(),
        kind: Some(kind),
        ..CodeAction::default()
    };
    if disabled_support {
        action.disabled = Some(CodeActionDisabled { reason });
    } else {
        action.command = Some(Command {
            title,
            command: command::EXPLAIN.to_string(),
            arguments: serde_json::to_value(ExplainArgument { message: reason })
                .ok()
                .map(|a| vec![a]),
        });
    }
    action
}

/// The actions the shown results give: tests for diagnostics and for covered branches under
/// the cursor, `throws` clauses.
fn from_results(input: &ListInput, results: &ClassResults, out: &mut Vec<CodeAction>) {
    let run = results.run;
    let uri = input.view.uri.clone();
    let file = input.view.file;
    let encoding = input.view.encoding;
    let view = View::new(file, results, encoding);

    let named = |test: Option<usize>| -> Option<usize> {
        test.filter(|&i| results.insertable(i, |m| view.live(m)))
    };
    for diagnostic in input.diagnostics {
        if diagnostic.source.as_deref() != Some(DIAGNOSTIC_SOURCE) {
            continue;
        }
        let Some(code) = diagnostic_code(diagnostic) else {
            continue;
        };
        let data = diagnostic.data.clone().unwrap_or(Value::Null);
        match code {
            DiagnosticCode::UncoveredBranch => {
                let Some(goal) = data.get("goal").and_then(Value::as_str) else {
                    continue;
                };
                let Some((decision, outcome)) = results.decisions.iter().find_map(|d| {
                    d.outcomes
                        .iter()
                        .find(|o| format!("{}.{}", d.key, o.outcome) == goal)
                        .map(|o| (d, o))
                }) else {
                    continue;
                };
                if let Some(test) = named(outcome.covered_by) {
                    out.push(insert_test(
                        "Insert test covering this branch".into(),
                        Some(diagnostic.clone()),
                        uri.clone(),
                        run,
                        test,
                    ));
                } else if let Some((other, test)) = decision
                    .outcomes
                    .iter()
                    .find_map(|o| named(o.covered_by).map(|t| (o, t)))
                {
                    out.push(insert_test(
                        format!(
                            "Insert the closest test (it takes the {} branch; edit its inputs)",
                            other.label
                        ),
                        Some(diagnostic.clone()),
                        uri.clone(),
                        run,
                        test,
                    ));
                } else if let Some(test) = (results.origin == Origin::Interim)
                    .then(|| closest_so_far(results, &decision.key.member, &named))
                    .flatten()
                {
                    // While the search runs: a test of the same member that fits the text, as
                    // a starting point, until the run ends with a test for this branch.
                    out.push(insert_test(
                        format!(
                            "Insert the closest test found so far (it calls {}; edit its inputs)",
                            member_display(&decision.key.member)
                        ),
                        Some(diagnostic.clone()),
                        uri.clone(),
                        run,
                        test,
                    ));
                }
            }
            DiagnosticCode::UndeclaredException => {
                let exception_type = data.get("exception").and_then(Value::as_str);
                let member = data.get("member").and_then(Value::as_str);
                let Some(index) = results.exceptions.iter().position(|e| {
                    Some(e.type_name.as_str()) == exception_type
                        && Some(e.called.as_str()) == member
                }) else {
                    continue;
                };
                let exception = &results.exceptions[index];
                let simple = simple_name(&exception.type_name).to_string();
                if let Some(test) = named(exception.test) {
                    out.push(insert_test(
                        format!("Insert test reproducing {simple}"),
                        Some(diagnostic.clone()),
                        uri.clone(),
                        run,
                        test,
                    ));
                }
                if exception.checked {
                    out.push(action(
                        format!("Add `throws {simple}` to the method signature"),
                        CodeActionKind::QUICKFIX,
                        Some(diagnostic.clone()),
                        ActionData::Throws {
                            uri: uri.clone(),
                            run,
                            exception: index,
                        },
                    ));
                }
            }
            _ => {}
        }
    }

    // Covered branches under the cursor: their tests.
    if out.is_empty() {
        let index = file.document().line_index();
        let start = index
            .offset(
                crate::lsp::from_proto::position(input.range.start),
                encoding,
            )
            .ok();
        let end = index
            .offset(crate::lsp::from_proto::position(input.range.end), encoding)
            .ok();
        if let (Some(start), Some(end)) = (start, end) {
            for decision in &results.decisions {
                let Some(current) = view.decision(decision) else {
                    continue;
                };
                let overlaps = current.span.start_byte <= end && start <= current.span.end_byte;
                if !overlaps {
                    continue;
                }
                for outcome in &decision.outcomes {
                    if let Some(test) = named(outcome.covered_by) {
                        out.push(insert_test(
                            format!(
                                "Insert test covering the {} branch of `{}`",
                                outcome.label, decision.condition
                            ),
                            None,
                            uri.clone(),
                            run,
                            test,
                        ));
                    }
                }
            }
        }
    }
}

/// The shortest insertable test that calls `member`, among the tests the results carry.
fn closest_so_far(
    results: &ClassResults,
    member: &str,
    named: &dyn Fn(Option<usize>) -> Option<usize>,
) -> Option<usize> {
    (0..results.tests.len())
        .filter(|&i| named(Some(i)).is_some())
        .filter(|&i| results.tests[i].members.contains(member))
        .min_by_key(|&i| {
            results.tests[i]
                .source
                .as_ref()
                .map_or(usize::MAX, String::len)
        })
}

/// A quick fix inserting test `test` of run `run`.
fn insert_test(
    title: String,
    diagnostic: Option<Diagnostic>,
    uri: Uri,
    run: u64,
    test: usize,
) -> CodeAction {
    action(
        title,
        CodeActionKind::QUICKFIX,
        diagnostic,
        ActionData::Test { uri, run, test },
    )
}

fn action(
    title: String,
    kind: CodeActionKind,
    diagnostic: Option<Diagnostic>,
    data: ActionData,
) -> CodeAction {
    CodeAction {
        title,
        kind: Some(kind),
        diagnostics: diagnostic.map(|d| vec![d]),
        data: serde_json::to_value(data).ok(),
        ..CodeAction::default()
    }
}

#[cfg(test)]
mod tests {
    use syntax::PositionEncoding;

    use super::*;
    use crate::lsp::actions::edits::tests::{created_text, new_file};
    use crate::lsp::protocol::settings::DiagnosticSeverities;
    use crate::open_file::OpenFile;

    fn open(text: &str) -> OpenFile {
        OpenFile::open(text, 1)
    }

    /// Titles of the actions with the cursor on `line` (0-based), and the list.
    fn titles_at(file: &OpenFile, results: &ClassResults, line: u32) -> Vec<String> {
        let uri: Uri = "file:///p/src/main/java/p/A.java".parse().unwrap();
        let position = tower_lsp_server::ls_types::Position::new(line, 8);
        let severities = DiagnosticSeverities::default();
        let view = FileView {
            results: Some(results),
            ..FileView::bare(&uri, file, PositionEncoding::Utf16, &severities)
        };
        list(&ListInput {
            view: &view,
            range: LspRange::new(position, position),
            diagnostics: &[],
            only: None,
            queued: false,
            disabled_support: true,
        })
        .into_iter()
        .map(|a| a.title)
        .collect()
    }

    #[test]
    fn stored_tests_are_offered_while_the_members_they_call_are_unchanged() {
        use crate::lsp::results::fixture::{stored_fixture, STORED_CLASS};
        let file = open(STORED_CLASS);
        let results = stored_fixture(file.model());
        // The cursor on f's `if`: its stored test, and the whole class.
        let titles = titles_at(&file, &results, 4);
        assert_eq!(
            titles,
            [
                "Insert test covering the true branch of `x > 0`",
                "Generate tests for class A"
            ]
        );
        let full = EditSupport {
            document_changes: true,
            create_files: true,
        };
        let whole = |file: &OpenFile| {
            let view = View::new(file, &results, PositionEncoding::Utf16);
            test_edit(
                &results,
                results.suite.as_ref().unwrap(),
                None,
                &|i| results.insertable(i, |m| view.live(m)),
                &new_file(),
                full,
                PositionEncoding::Utf16,
            )
        };
        let text = created_text(&whole(&file).unwrap());
        assert!(
            text.contains("void fOne()") && text.contains("void gNine()"),
            "{text}"
        );

        // g edited: f's test still fits; the class comes without g's test.
        let g_edited = open(&STORED_CLASS.replace("x > 5", "x > 6"));
        assert_eq!(titles_at(&g_edited, &results, 4), titles);
        let text = created_text(&whole(&g_edited).unwrap());
        assert!(
            text.contains("void fOne()") && !text.contains("void gNine()"),
            "{text}"
        );
        // Asked for g's test all the same (a list made before the edit): refused.
        let view = View::new(&g_edited, &results, PositionEncoding::Utf16);
        let refused = test_edit(
            &results,
            results.suite.as_ref().unwrap(),
            Some(1),
            &|i| results.insertable(i, |m| view.live(m)),
            &new_file(),
            full,
            PositionEncoding::Utf16,
        );
        assert!(refused.is_err(), "{refused:?}");

        // The constructor edited: every test calls it, so no test is offered; generating
        // tests for the class (a run) is.
        let constructor_edited = open(&STORED_CLASS.replace("A() {}", "A() { int unused = 0; }"));
        assert_eq!(
            titles_at(&constructor_edited, &results, 4),
            ["Generate tests for class A"]
        );
        assert!(whole(&constructor_edited).is_err());
    }

    fn listed(view: &FileView, diagnostics: &[Diagnostic]) -> Vec<CodeAction> {
        let position = tower_lsp_server::ls_types::Position::new(0, 0);
        list(&ListInput {
            view,
            range: LspRange::new(position, position),
            diagnostics,
            only: None,
            queued: false,
            disabled_support: true,
        })
    }

    #[test]
    fn an_interim_diagnostic_offers_the_closest_test_found_so_far() {
        use crate::lsp::results::fixture::{goal, outcome, stored_fixture, STORED_CLASS};
        let file = open(STORED_CLASS);
        let base = stored_fixture(file.model());
        let searching = ClassResults::interim(9, "p.A", file.model(), &Default::default());
        let mut merged = ClassResults::with_interim(&base, &searching);
        // Neither of f's outcomes has a test yet; fOne (test 0) calls f all the same.
        let (f_true, f_false) = (
            goal(&merged, "p.A#f(int)", "true"),
            goal(&merged, "p.A#f(int)", "false"),
        );
        for decision in &mut merged.decisions {
            for o in &mut decision.outcomes {
                if format!("{}.{}", decision.key, o.outcome) == f_true {
                    o.covered = false;
                    o.covered_by = None;
                }
            }
        }
        assert!(!outcome(&merged, &f_false).covered);
        let uri: Uri = "file:///p/src/main/java/p/A.java".parse().unwrap();
        let severities = DiagnosticSeverities::default();
        let view = FileView {
            results: Some(&merged),
            running: Some("searching"),
            ..FileView::bare(&uri, &file, PositionEncoding::Utf16, &severities)
        };
        let diagnostics = crate::lsp::diagnostics::compute(&view);
        let uncovered = diagnostics
            .iter()
            .find(|d| {
                d.data
                    .as_ref()
                    .is_some_and(|data| data["goal"] == f_false.as_str())
            })
            .expect("f's false branch is diagnosed")
            .clone();
        let actions = listed(&view, &[uncovered]);
        assert_eq!(
            actions[0].title,
            "Insert the closest test found so far (it calls f(int); edit its inputs)"
        );
        assert_eq!(
            actions[0].data.as_ref().unwrap()["test"],
            0,
            "fOne, the test that calls f"
        );
        // The stored tests fit the text: the whole class is offered while the search runs.
        assert_eq!(actions.last().unwrap().title, "Generate tests for class A");
        assert!(actions.last().unwrap().data.is_some());
    }

    #[test]
    fn before_any_result_the_actions_say_what_they_wait_for() {
        let file = open("package p;\npublic class A { int f(int x) { return x > 0 ? 1 : 2; } }\n");
        let uri: Uri = "file:///p/src/main/java/p/A.java".parse().unwrap();
        let severities = DiagnosticSeverities::default();
        let idle = FileView::bare(&uri, &file, PositionEncoding::Utf16, &severities);
        // Nothing running: Generate tests runs the command.
        let actions = listed(&idle, &[]);
        assert_eq!(actions.len(), 1);
        assert_eq!(
            actions[0].command.as_ref().unwrap().command,
            command::GENERATE
        );
        // A run in progress: disabled, saying for what.
        let running = FileView {
            running: Some("searching"),
            ..idle
        };
        let actions = listed(&running, &[]);
        assert_eq!(actions[0].title, "Generate tests for class A");
        assert_eq!(
            actions[0].disabled.as_ref().unwrap().reason,
            "waiting for the run in progress (searching); its tests are offered when it ends"
        );
    }
}
