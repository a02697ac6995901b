//! `ctgls/coverage`: per-file line and branch coverage for clients that render coverage
//! themselves (`docs/lsp-extensions.md`).

use crate::lsp::file_view::FileView;
use crate::lsp::protocol::{
    BranchCoverage, Count, CoverageSummary, FileCoverage, LineCoverage, MethodCoverage,
};
use crate::lsp::results::words::member_display;
use crate::lsp::view::View;

/// One file's coverage, or `None` when it has no results.
pub fn file_coverage(file_view: &FileView) -> Option<FileCoverage> {
    let results = file_view.results?;
    let file = file_view.file;
    let view = View::new(file, results, file_view.encoding);
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
            branches.push(BranchCoverage {
                line: range.start.line,
                range,
                label: outcome.label.clone(),
                covered,
                test,
            });
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
            let (covered, total, tests) = results.member_summary(&member.key);
            if total == 0 {
                continue;
            }
            let Some(range) = view.span_range(&member.span) else {
                continue;
            };
            methods.push(MethodCoverage {
                name: member_display(&member.key),
                range,
                branches: Count { covered, total },
                tests: tests.len(),
            });
        }
    }
    let covered_lines = lines.iter().filter(|(_, c)| *c).count();
    Some(FileCoverage {
        uri: file_view.uri.clone(),
        class: results.class.clone(),
        version: Some(file.document().version()),
        summary: CoverageSummary {
            lines: Count {
                covered: covered_lines,
                total: lines.len(),
            },
            branches: Count {
                covered: covered_branches,
                total: total_branches,
            },
        },
        lines: lines
            .into_iter()
            .map(|(line, covered)| LineCoverage { line, covered })
            .collect(),
        branches,
        methods,
    })
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
        let results = ClassResults::interim(1, "p.LoneCr", file.model(), &covered);
        let uri: Uri = "file:///p/LoneCr.java".parse().unwrap();
        let severities = DiagnosticSeverities::default();
        let view = FileView {
            results: Some(&results),
            ..FileView::bare(&uri, &file, PositionEncoding::Utf16, &severities)
        };
        let coverage = file_coverage(&view).unwrap();
        // 0-based editor lines, one less than javac's.
        let lines: Vec<(u32, bool)> = coverage.lines.iter().map(|l| (l.line, l.covered)).collect();
        assert_eq!(lines, [(5, true), (8, true), (10, true)]);
        let branches: Vec<(u32, &str, bool)> = coverage
            .branches
            .iter()
            .map(|b| (b.line, b.label.as_str(), b.covered))
            .collect();
        assert!(branches.contains(&(7, "true", true)), "{branches:?}");
        assert!(branches.contains(&(4, "true", false)), "{branches:?}");
    }
}
