//! `ctgls/coverage`: per-file line and branch coverage for clients that render coverage
//! themselves (`docs/lsp-extensions.md`).

use serde::Deserialize;
use serde_json::{json, Value};
use syntax::PositionEncoding;
use tower_lsp_server::ls_types::{TextDocumentIdentifier, Uri};

use crate::lsp::engine::Tracked;
use crate::lsp::hover::member_summary;
use crate::lsp::results::member_display;
use crate::lsp::view::View;
use crate::open_file::OpenFile;

pub const METHOD: &str = "ctgls/coverage";

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CoverageParams {
    pub text_document: Option<TextDocumentIdentifier>,
}

/// One file's coverage, or `None` when it has no results.
pub fn file_coverage(
    uri: &Uri,
    file: &OpenFile,
    tracked: &Tracked,
    encoding: PositionEncoding,
) -> Option<Value> {
    let results = tracked.results.as_deref()?;
    let view = View::new(file, results, encoding);
    let mut lines: Vec<(u32, bool)> = results
        .lines
        .iter()
        .filter_map(|l| view.row(&l.member, l.offset).map(|row| (row, l.covered)))
        .collect();
    lines.sort();
    lines.dedup_by_key(|(row, _)| *row);
    let mut branches = Vec::new();
    let mut covered_branches = 0;
    let mut total_branches = 0;
    for decision in &results.decisions {
        let Some(current) = view.decision(decision) else {
            continue;
        };
        let Some(range) = view.span_range(&current.span) else {
            continue;
        };
        for outcome in &decision.outcomes {
            let covered = results.is_covered(outcome);
            total_branches += 1;
            covered_branches += usize::from(covered);
            let test = outcome
                .covered_by
                .and_then(|i| results.tests.get(i))
                .and_then(|t| t.name.clone());
            branches.push(json!({
                "line": range.start.line,
                "range": range,
                "label": outcome.label,
                "covered": covered,
                "test": test,
            }));
        }
    }
    let mut methods = Vec::new();
    for ty in file.model().all_types() {
        for member in &ty.members {
            if member.body.is_none() || !view.live(&member.key) {
                continue;
            }
            if !results.members.contains_key(&member.key) {
                continue;
            }
            let (covered, total, tests) = member_summary(results, &member.key);
            if total == 0 {
                continue;
            }
            let Some(range) = view.span_range(&member.span) else {
                continue;
            };
            methods.push(json!({
                "name": member_display(&member.key),
                "range": range,
                "branches": { "covered": covered, "total": total },
                "tests": tests.len(),
            }));
        }
    }
    let covered_lines = lines.iter().filter(|(_, c)| *c).count();
    Some(json!({
        "uri": uri.as_str(),
        "class": results.class,
        "version": file.document().version(),
        "lines": lines.iter().map(|(line, covered)| json!({ "line": line, "covered": covered })).collect::<Vec<_>>(),
        "branches": branches,
        "methods": methods,
        "summary": {
            "lines": { "covered": covered_lines, "total": lines.len() },
            "branches": { "covered": covered_branches, "total": total_branches },
        },
    }))
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;
    use std::sync::Arc;

    use super::*;
    use crate::lsp::results::ClassResults;

    /// Lines end in `\n`, `\r\n` and lone `\r`; javac's line numbers on the right.
    const LONE_CR: &str = concat!(
        "package p;\n",                                                    // 1
        "\r\n",                                                            // 2
        "public class LoneCr {\r",                                         // 3
        "    public int sign(int x) {\r",                                  // 4
        "        if (x > 0) {\r\n",                                        // 5
        "            return 1;\n",                                         // 6
        "        }\r",                                                     // 7
        "        if (x < 0) { // negative\r",                              // 8
        "            throw new IllegalArgumentException(\"negative\");\n", // 9
        "        }\n",                                                     // 10
        "        return 0;\r",                                             // 11
        "    }\n",                                                         // 12
        "}\n",                                                             // 13
    );

    /// Regression: rows were tree-sitter's (ending at `\n` only), so javac's lines after a
    /// lone `\r` fell outside their method and were not shown, or shown on another line.
    #[test]
    fn lines_after_a_lone_cr_land_on_their_editor_line() {
        let file = OpenFile::open(LONE_CR, 1);
        let covered: BTreeSet<String> = ["line 6", "line 9", "line 11", "p.LoneCr#sign(int)/B1.T"]
            .iter()
            .map(|g| g.to_string())
            .collect();
        let mut tracked = Tracked::new();
        tracked.results = Some(Arc::new(ClassResults::interim(
            1,
            "p.LoneCr",
            file.model(),
            &covered,
        )));
        let uri: Uri = "file:///p/LoneCr.java".parse().unwrap();
        let coverage = file_coverage(&uri, &file, &tracked, PositionEncoding::Utf16).unwrap();
        // 0-based editor lines, one less than javac's.
        assert_eq!(
            coverage["lines"],
            json!([
                { "line": 5, "covered": true },
                { "line": 8, "covered": true },
                { "line": 10, "covered": true },
            ])
        );
        let branches: Vec<(u64, &str, bool)> = coverage["branches"]
            .as_array()
            .unwrap()
            .iter()
            .map(|b| {
                (
                    b["line"].as_u64().unwrap(),
                    b["label"].as_str().unwrap(),
                    b["covered"].as_bool().unwrap(),
                )
            })
            .collect();
        assert!(branches.contains(&(7, "true", true)), "{branches:?}");
        assert!(branches.contains(&(4, "true", false)), "{branches:?}");
    }
}
