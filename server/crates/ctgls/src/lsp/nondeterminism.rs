//! The `nondeterministic-input` diagnostics and hover: the lines of the open file that read
//! what a test does not control (`ctg::nondeterminism`, found in the current syntax tree
//! whether or not a run finished), with the assertions of the last run's written tests that
//! were left out because of them (kept by member and line offset, shown while the member is
//! unchanged).

use ctg::nondeterminism::{self, InputKind, NondeterministicInput};
use syntax::TextPosition;
use tower_lsp_server::ls_types::{Diagnostic, DiagnosticSeverity};

use crate::lsp::file_view::FileView;
use crate::lsp::protocol::{diagnostic, DiagnosticCode, NondeterministicInputData};
use crate::lsp::view::View;
use crate::open_file::OpenFile;

/// The inputs of the current text.
fn current(file: &OpenFile) -> Vec<NondeterministicInput> {
    let document = file.document();
    nondeterminism::find(&document.text(), document.tree(), file.model())
}

/// What the last run left out because of `input`, while its member is unchanged.
fn left_out<'r>(input: &NondeterministicInput, view: Option<&View<'r>>) -> &'r [String] {
    let Some(view) = view else {
        return &[];
    };
    view.results
        .nondeterministic
        .iter()
        .find(|r| {
            r.kind == input.kind
                && r.what == input.what
                && view.row(&r.at.0, r.at.1) == Some(input.line - 1)
        })
        .map_or(&[], |r| r.left_out.as_slice())
}

/// `reads the clock (System.nanoTime()): generated tests never assert what depends on it (it
/// differs from run to run and day to day); left out: elapsedIsPositive: inputs0.elapsed() (…)`.
fn message(input: &NondeterministicInput, left_out: &[String]) -> String {
    let mut message = format!(
        "{}: generated tests never assert what depends on it ({})",
        input.describe(),
        input.kind.why()
    );
    if !left_out.is_empty() {
        message.push_str(&format!("; left out: {}", left_out.join(", ")));
    }
    message
}

/// One Information diagnostic per input, on its call.
pub fn diagnostics(input: &FileView, out: &mut Vec<Diagnostic>) {
    let (file, encoding) = (input.file, input.encoding);
    let view = input.results.map(|r| View::new(file, r, encoding));
    for input in current(file) {
        let Ok(range) = file
            .document()
            .line_index()
            .text_range(input.bytes.clone(), encoding)
        else {
            continue;
        };
        let left_out = left_out(&input, view.as_ref());
        out.push(diagnostic(
            crate::lsp::to_proto::range(range),
            DiagnosticSeverity::INFORMATION,
            DiagnosticCode::NondeterministicInput,
            message(&input, left_out),
            NondeterministicInputData {
                kind: input.kind.as_str().to_string(),
                reads: input.what.clone(),
                through: input.through.as_ref().map(|(helper, _)| helper.clone()),
                left_out: left_out.to_vec(),
            },
        ));
    }
}

/// The hover of a line that reads a nondeterministic input: what it reads, why ctgls never
/// asserts what depends on it, what the last run left out, and what to do; followed by the
/// coverage hover of the same place, when there is one.
pub fn with_hover(
    input: &FileView,
    position: TextPosition,
    coverage: Option<String>,
) -> Option<String> {
    let row = position.line;
    let view = input
        .results
        .map(|r| View::new(input.file, r, input.encoding));
    let mut out = String::new();
    for found in current(input.file).iter().filter(|i| i.line - 1 == row) {
        let left_out = left_out(found, view.as_ref());
        out.push_str(&format!(
            "**ctgls** · nondeterministic input: {}\n\nGenerated tests never assert a value \
             computed from it: {}. ",
            found.describe(),
            found.kind.why()
        ));
        if left_out.is_empty() {
            out.push_str("No written test left an assertion out because of it.\n\n");
        } else {
            out.push_str("Left out because of it:\n\n");
            for l in left_out {
                out.push_str(&format!("- {l}\n"));
            }
            out.push('\n');
        }
        out.push_str(advice(found.kind));
        out.push_str("\n\n");
    }
    match (out.is_empty(), coverage) {
        (true, coverage) => coverage,
        (false, None) => Some(out.trim_end().to_string()),
        (false, Some(coverage)) => Some(format!("{}\n\n---\n\n{coverage}", out.trim_end())),
    }
}

/// What the developer can do so that the value can be asserted.
fn advice(kind: InputKind) -> &'static str {
    match kind {
        InputKind::Clock => {
            "To test it, take a `java.time.Clock` (or a time) as a parameter or constructor \
             argument: tests can then pass a fixed one."
        }
        InputKind::Random | InputKind::Uuid => {
            "To test it, take the `Random` (or a seed, or a `Supplier<UUID>`) as a parameter \
             or constructor argument."
        }
        InputKind::TimeZone | InputKind::Locale | InputKind::Charset => {
            "To test it, pass the zone, locale or charset explicitly."
        }
        _ => "To test it, pass what it reads as a parameter or constructor argument.",
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use syntax::{TextChange, TextPosition, TextRange};

    use super::*;
    use crate::lsp::protocol::settings::DiagnosticSeverities;
    use crate::lsp::results::{ClassResults, NondeterministicResult};
    use syntax::PositionEncoding;
    use tower_lsp_server::ls_types::Uri;

    const STAMP: &str = "package p;\n\npublic class Stamp {\n    public long elapsed() {\n        return System.nanoTime();\n    }\n}\n";
    const LEFT_OUT: &str = "elapsed: stamp0.elapsed() (differs between runs (it depends on time))";

    /// Results of a run that left `stamp0.elapsed()` out because of the clock on row 4.
    fn results(file: &OpenFile) -> ClassResults {
        let mut results = ClassResults::interim(1, "p.Stamp", file.model(), &BTreeSet::new());
        results.nondeterministic = vec![NondeterministicResult {
            at: ("p.Stamp#elapsed()".into(), 1),
            kind: InputKind::Clock,
            what: "the clock (System.nanoTime())".into(),
            left_out: vec![LEFT_OUT.into()],
        }];
        results
    }

    fn uri() -> Uri {
        "file:///p/Stamp.java".parse().expect("uri")
    }

    fn view<'a>(
        uri: &'a Uri,
        file: &'a OpenFile,
        results: &'a ClassResults,
        severities: &'a DiagnosticSeverities,
    ) -> FileView<'a> {
        FileView {
            results: Some(results),
            ..FileView::bare(uri, file, PositionEncoding::Utf16, severities)
        }
    }

    fn messages(file: &OpenFile, results: &ClassResults) -> Vec<(u32, String)> {
        let (uri, severities) = (uri(), DiagnosticSeverities::default());
        let mut out = Vec::new();
        diagnostics(&view(&uri, file, results, &severities), &mut out);
        out.into_iter()
            .map(|d| (d.range.start.line, d.message))
            .collect()
    }

    #[test]
    fn the_left_out_assertion_is_named_on_the_line_while_its_member_is_unchanged() {
        let mut file = OpenFile::open(STAMP, 1);
        let results = results(&file);
        assert_eq!(
            messages(&file, &results),
            [(
                4,
                format!(
                    "reads the clock (System.nanoTime()): generated tests never assert what \
                     depends on it (it differs from run to run and day to day); left out: \
                     {LEFT_OUT}"
                )
            )]
        );
        // Editing the method keeps the diagnostic (from the syntax) but not the run's link.
        file.apply_changes(
            &[TextChange::replace(
                TextRange::new(TextPosition::new(4, 8), TextPosition::new(4, 8)),
                "// x\n        ",
            )],
            2,
            PositionEncoding::Utf16,
        )
        .unwrap();
        let edited = messages(&file, &results);
        assert_eq!(edited.len(), 1);
        assert_eq!(edited[0].0, 5);
        assert!(!edited[0].1.contains("left out"), "{edited:?}");
    }

    #[test]
    fn hover_on_the_line_explains_and_names_what_was_left_out() {
        let file = OpenFile::open(STAMP, 1);
        let results = results(&file);
        let (uri, severities) = (uri(), DiagnosticSeverities::default());
        let hover = |line, character| {
            crate::lsp::hover::hover(
                &view(&uri, &file, &results, &severities),
                TextPosition::new(line, character),
            )
        };
        let text = hover(4, 3).expect("a hover on the clock's line");
        assert!(
            text.starts_with(
                "**ctgls** · nondeterministic input: reads the clock (System.nanoTime())"
            ),
            "{text}"
        );
        assert!(text.contains(&format!("- {LEFT_OUT}")), "{text}");
        assert!(text.contains("java.time.Clock"), "{text}");
        // The method's name has no input on its line: only its coverage.
        assert!(!hover(3, 17)
            .unwrap_or_default()
            .contains("nondeterministic"));
    }
}
