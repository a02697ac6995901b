//! Code lens per method and constructor: "7/9 branches · 3 tests"; clicking regenerates.

use tower_lsp_server::ls_types::{CodeLens, Command};

use crate::lsp::file_view::FileView;
use crate::lsp::protocol::{command, FileArgument};
use crate::lsp::results::Origin;
use crate::lsp::view::View;
use crate::lsp::workspace::{primary_type, uri_path};

pub fn lenses(file_view: &FileView) -> Vec<CodeLens> {
    let Some(results) = file_view.results else {
        return Vec::new();
    };
    let (uri, file, encoding) = (file_view.uri, file_view.file, file_view.encoding);
    let argument = serde_json::to_value(FileArgument { uri: uri.clone() }).ok();
    let path = uri_path(uri);
    let Some(class) = primary_type(file.model(), path.as_deref()) else {
        return Vec::new();
    };
    let nested = format!("{}$", class.binary_name);
    let view = View::new(file, results, encoding);
    let mut out = Vec::new();
    for ty in file.model().all_types() {
        if ty.binary_name != class.binary_name && !ty.binary_name.starts_with(&nested) {
            continue;
        }
        for member in &ty.members {
            let Some(name_span) = &member.name_span else {
                continue;
            };
            if member.body.is_none() {
                continue;
            }
            let Some(range) = view.span_range(name_span) else {
                continue;
            };
            let title = if !view.live(&member.key) {
                "edited · coverage after the next run".to_string()
            } else {
                let (covered, total, tests) = results.member_summary(&member.key);
                match results.origin {
                    Origin::Final => format!(
                        "{covered}/{total} branches · {} test{}",
                        tests.len(),
                        if tests.len() == 1 { "" } else { "s" }
                    ),
                    Origin::Interim => format!("{covered}/{total} branches · searching"),
                    Origin::Stored => format!("{covered}/{total} branches · last session"),
                }
            };
            out.push(CodeLens {
                range,
                command: Some(Command {
                    title,
                    command: command::GENERATE.to_string(),
                    arguments: Some(argument.iter().cloned().collect()),
                }),
                data: None,
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use syntax::PositionEncoding;
    use tower_lsp_server::ls_types::Uri;

    use super::*;
    use crate::lsp::protocol::settings::DiagnosticSeverities;
    use crate::lsp::results::ClassResults;
    use crate::open_file::OpenFile;

    #[test]
    fn one_lens_per_method_with_its_branches_and_the_generate_command() {
        let text = "package p;\n\npublic class A {\n    public A() {}\n\n    public int sign(int x) {\n        return x > 0 ? 1 : 0;\n    }\n\n    abstract static class B {\n        abstract void f();\n    }\n}\n";
        let file = OpenFile::open(text, 1);
        let covered = BTreeSet::from(["p.A#sign(int)/B0.T".to_string()]);
        let results = ClassResults::interim(1, "p.A", file.model(), &covered);
        let uri: Uri = "file:///p/A.java".parse().unwrap();
        let severities = DiagnosticSeverities::default();
        let lenses = lenses(&FileView {
            results: Some(&results),
            ..FileView::bare(&uri, &file, PositionEncoding::Utf16, &severities)
        });
        let titles: Vec<(u32, &str)> = lenses
            .iter()
            .map(|l| {
                (
                    l.range.start.line,
                    l.command.as_ref().unwrap().title.as_str(),
                )
            })
            .collect();
        assert_eq!(
            titles,
            [
                (3, "0/1 branches · searching"),
                (5, "1/2 branches · searching")
            ],
            "abstract methods have no lens"
        );
        let command = lenses[0].command.as_ref().unwrap();
        assert_eq!(command.command, crate::lsp::protocol::command::GENERATE);
        assert_eq!(command.arguments.as_ref().unwrap()[0]["uri"], uri.as_str());
    }
}
