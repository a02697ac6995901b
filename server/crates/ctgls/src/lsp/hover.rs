//! Hover on a method, a branch or a line: what the generated tests cover there, which test and
//! with which inputs, or why nothing is covered (Markdown).

use syntax::TextPosition;

use crate::lsp::file_view::FileView;
use crate::lsp::results::words::{exception_message, member_display, uncovered_message};
use crate::lsp::results::{ClassResults, Origin};
use crate::lsp::view::View;

/// What ctgls says at `position`; `None` when it has nothing to say there: a line that reads
/// a nondeterministic input first, then the coverage of the place.
pub fn hover(input: &FileView, position: TextPosition) -> Option<String> {
    crate::lsp::nondeterminism::with_hover(input, position, coverage_hover(input, position))
}

/// What the tests cover at `position`.
fn coverage_hover(input: &FileView, position: TextPosition) -> Option<String> {
    let document = input.file.document();
    let offset = document
        .line_index()
        .offset(position, input.encoding)
        .ok()?;
    let model = input.file.model();
    if let Some(summary) = class_hover(input, offset) {
        return Some(summary);
    }
    let member = crate::lsp::results::innermost_member_at(model, offset)?;
    let mut out = String::new();
    let status = status_note(input);

    let Some(results) = input.results else {
        // Nothing to show but why.
        if member
            .name_span
            .as_ref()
            .is_some_and(|s| s.contains_byte(offset))
            || status.is_some()
        {
            return Some(format!(
                "**ctgls** · {}",
                status.unwrap_or_else(|| "no generation run yet".into())
            ));
        }
        return None;
    };
    let view = View::new(input.file, results, input.encoding);
    if !view.live(&member.key) {
        let on_name = member
            .name_span
            .as_ref()
            .is_some_and(|s| s.contains_byte(offset));
        let on_decision = member
            .body
            .as_ref()
            .is_some_and(|b| b.decisions.iter().any(|d| d.span.contains_byte(offset)));
        if on_name || on_decision {
            return Some(format!(
                "**ctgls** · {}: edited since the last run; its coverage comes with the next run{}",
                member_display(&member.key),
                status.map(|s| format!(" ({s})")).unwrap_or_default()
            ));
        }
        return None;
    }

    // A branch under the cursor: the innermost decision of the member.
    let decision = results
        .decisions
        .iter()
        .filter(|d| d.key.member == member.key)
        .filter_map(|d| view.decision(d).map(|current| (d, current)))
        // A branch-free method's entry goal spans its name: the name shows the summary.
        .filter(|(_, current)| current.kind != javamodel::DecisionKind::MethodEntry)
        .filter(|(_, current)| current.span.contains_byte(offset))
        .min_by_key(|(_, current)| current.span.end_byte - current.span.start_byte);
    if let Some((decision, current)) = decision {
        out.push_str(&format!("**ctgls** · `{}`\n\n", decision.condition));
        for outcome in &decision.outcomes {
            if results.is_covered(outcome) {
                out.push_str(&format!("- ✓ **{}**", outcome.label));
                if let Some(test) = outcome.covered_by.and_then(|i| results.tests.get(i)) {
                    if let Some(name) = &test.name {
                        out.push_str(&format!(" covered by `{name}`"));
                    } else {
                        out.push_str(" covered");
                    }
                    if !test.calls.is_empty() {
                        out.push_str(&format!(": `{}`", test.calls));
                    }
                } else {
                    out.push_str(" covered");
                }
                out.push('\n');
            } else {
                out.push_str(&format!(
                    "- ✗ **{}** {}\n",
                    outcome.label,
                    uncovered_message(results, current.kind, outcome)
                        .trim_start_matches(&format!("{} ", outcome.label))
                ));
            }
        }
        push_footer(&mut out, results, status);
        return Some(out);
    }

    // The member's name: its summary.
    let on_name = member
        .name_span
        .as_ref()
        .is_some_and(|s| s.contains_byte(offset));
    if on_name {
        let (covered, total, tests) = results.member_summary(&member.key);
        out.push_str(&format!(
            "**ctgls** · `{}`: {covered}/{total} branches covered by {} generated test{}\n",
            member_display(&member.key),
            tests.len(),
            if tests.len() == 1 { "" } else { "s" }
        ));
        for name in tests.iter().take(8) {
            out.push_str(&format!("- `{name}`\n"));
        }
        if tests.len() > 8 {
            out.push_str(&format!("- … and {} more\n", tests.len() - 8));
        }
        for exception in results.exceptions.iter().filter(|e| e.called == member.key) {
            out.push_str(&format!("\n⚠ {}\n", exception_message(exception)));
        }
        push_footer(&mut out, results, status);
        return Some(out);
    }

    // A line.
    let row = position.line;
    let line = results
        .lines
        .iter()
        .find(|l| l.member == member.key && view.row(&l.member, l.offset) == Some(row))?;
    if line.covered {
        out.push_str(&format!("**ctgls** · line {} is run", row + 1));
        if let Some(test) = line.covered_by.and_then(|i| results.tests.get(i)) {
            if let Some(name) = &test.name {
                out.push_str(&format!(" by `{name}`"));
            }
            if !test.calls.is_empty() {
                out.push_str(&format!(": `{}`", test.calls));
            }
        }
        out.push('\n');
    } else {
        out.push_str(&format!(
            "**ctgls** · line {} is not run by any generated test\n",
            row + 1
        ));
    }
    push_footer(&mut out, results, status);
    Some(out)
}

fn status_note(input: &FileView) -> Option<String> {
    if let Some(reason) = input.unavailable {
        return Some(reason.to_string());
    }
    if let Some(problem) = input.problem {
        return Some(problem.message.clone());
    }
    if !input.file.model().problems.is_empty() {
        return Some("the file has syntax errors; generation waits until they are fixed".into());
    }
    input
        .running
        .map(|phase| format!("generating tests: {phase}"))
}

/// On the name of the class under test: its branches covered, its written tests and their
/// mutation score when the run analysed mutants.
fn class_hover(input: &FileView, offset: usize) -> Option<String> {
    let results = input.results?;
    let ty = input.file.model().all_types().into_iter().find(|t| {
        t.name_span
            .as_ref()
            .is_some_and(|s| s.contains_byte(offset))
    })?;
    if ty.binary_name != results.class {
        return None;
    }
    let (mut covered, mut total) = (0, 0);
    for decision in &results.decisions {
        for outcome in &decision.outcomes {
            total += 1;
            covered += usize::from(results.is_covered(outcome));
        }
    }
    let tests = results.tests.iter().filter(|t| t.name.is_some()).count();
    let mut out = format!(
        "**ctgls** · `{}`: {covered}/{total} branches covered by {tests} generated test{}\n",
        ty.name,
        if tests == 1 { "" } else { "s" }
    );
    if let Some(mutation) = &results.mutation {
        out.push_str(&format!("\nThe tests' {mutation}.\n"));
    }
    push_footer(&mut out, results, status_note(input));
    Some(out)
}

fn push_footer(out: &mut String, results: &ClassResults, status: Option<String>) {
    let origin = match results.origin {
        Origin::Final => None,
        Origin::Interim => Some("search still running"),
        Origin::Stored => Some("from the last session"),
    };
    let notes: Vec<String> = origin
        .map(str::to_string)
        .into_iter()
        .chain(status)
        .collect();
    if !notes.is_empty() {
        out.push_str(&format!("\n_{}_\n", notes.join(" · ")));
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use super::*;
    use crate::lsp::protocol::settings::DiagnosticSeverities;
    use crate::lsp::results::ClassResults;
    use crate::open_file::OpenFile;
    use syntax::PositionEncoding;
    use tower_lsp_server::ls_types::Uri;

    const SOURCE: &str = "package p;\n\npublic class A {\n    public int sign(int x) {\n        if (x > 0) {\n            return 1;\n        }\n        return 0;\n    }\n\n    public int one() {\n        return 1;\n    }\n}\n";

    fn hover_at(
        file: &OpenFile,
        results: &ClassResults,
        line: u32,
        character: u32,
    ) -> Option<String> {
        let uri: Uri = "file:///p/A.java".parse().unwrap();
        let severities = DiagnosticSeverities::default();
        let view = FileView {
            results: Some(results),
            ..FileView::bare(&uri, file, PositionEncoding::Utf16, &severities)
        };
        hover(&view, TextPosition::new(line, character))
    }

    fn tracked(file: &OpenFile, covered: &[&str]) -> ClassResults {
        let covered: BTreeSet<String> = covered.iter().map(|g| g.to_string()).collect();
        ClassResults::interim(1, "p.A", file.model(), &covered)
    }

    #[test]
    fn a_branch_a_method_name_and_a_line() {
        let file = OpenFile::open(SOURCE, 1);
        let tracked = tracked(&file, &["p.A#sign(int)/B0.T", "p.A#one()/B0.E", "line 12"]);
        let branch = hover_at(&file, &tracked, 4, 13).unwrap();
        assert!(branch.starts_with("**ctgls** · `x > 0`"), "{branch}");
        assert!(branch.contains("- ✓ **true** covered"), "{branch}");
        assert!(
            branch.contains("- ✗ **false** branch not covered yet"),
            "{branch}"
        );
        assert!(branch.contains("_search still running_"), "{branch}");

        let name = hover_at(&file, &tracked, 10, 16).unwrap();
        assert!(
            name.contains("`one()`: 1/1 branches"),
            "the entry goal shows the summary: {name}"
        );
        let sign = hover_at(&file, &tracked, 3, 16).unwrap();
        assert!(sign.contains("`sign(int)`: 1/2 branches"), "{sign}");

        let line = hover_at(&file, &tracked, 11, 10).unwrap();
        assert!(line.contains("line 12 is run"), "{line}");
        assert!(
            hover_at(&file, &tracked, 1, 0).is_none(),
            "nothing outside members"
        );
    }

    #[test]
    fn an_edited_method_says_so() {
        let mut file = OpenFile::open(SOURCE, 1);
        let tracked = tracked(&file, &[]);
        let change = syntax::TextChange::replace(
            syntax::TextRange::new(TextPosition::new(4, 16), TextPosition::new(4, 17)),
            "1",
        );
        file.apply_changes(&[change], 2, PositionEncoding::Utf16)
            .unwrap();
        let text = hover_at(&file, &tracked, 3, 16).unwrap();
        assert!(text.contains("edited since the last run"), "{text}");
    }

    #[test]
    fn the_class_name_shows_coverage_and_the_mutation_score() {
        let file = OpenFile::open(SOURCE, 1);
        let mut results = tracked(&file, &["p.A#sign(int)/B0.T", "p.A#one()/B0.E"]);
        let before = hover_at(&file, &results, 2, 14).unwrap();
        assert!(before.contains("`A`: 2/3 branches covered"), "{before}");
        assert!(!before.contains("mutation score"), "{before}");
        results.mutation = Some("mutation score 0.90 (52/58 reached mutants killed)".to_string());
        let after = hover_at(&file, &results, 2, 14).unwrap();
        assert!(
            after.contains("The tests' mutation score 0.90 (52/58 reached mutants killed)."),
            "{after}"
        );
    }
}
