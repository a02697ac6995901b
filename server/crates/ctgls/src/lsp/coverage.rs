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
