//! The HTML report: `index.html`, a row and a coverage bar per class, and a page per class
//! with its source, the lines and branch outcomes the written tests cover or miss, and the
//! undeclared exceptions with the generated tests that reproduce them. Static files with
//! inline CSS, no script and no external asset: they open offline, from a CI artifact, as they
//! are.

mod class_page;
mod project_page;

use std::fmt::Write as _;
use std::path::Path;

use super::model::{Counts, Report};
use super::ReportClass;

/// Writes `index.html` and one page per class with results into `dir` (created if missing).
pub fn write_site(report: &Report, classes: &[ReportClass], dir: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    std::fs::write(
        dir.join("index.html"),
        project_page::render(report, classes),
    )?;
    for class in classes.iter().filter(|c| c.report.has_results()) {
        std::fs::write(
            dir.join(page_name(&class.report.label())),
            class_page::render(report, class),
        )?;
    }
    Ok(())
}

/// The file name of a class's page: its binary name, with anything but letters, digits, `.`,
/// `_`, `-` and `$` replaced, so that it is a safe name and a safe relative URL.
pub fn page_name(class: &str) -> String {
    let safe: String = class
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-' | '$') {
                c
            } else {
                '_'
            }
        })
        .collect();
    format!("{safe}.html")
}

/// Text as HTML text or attribute value.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// A whole page: the shared style, `title`, and `body`.
fn page(title: &str, body: &str) -> String {
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>{}</title>\n<style>\n{STYLE}</style>\n</head>\n<body>\n{body}</body>\n</html>\n",
        escape(title)
    )
}

/// `covered/total` as a percentage, `–` when there is nothing to cover.
fn percent(counts: Counts) -> String {
    match counts.ratio() {
        Some(ratio) => format!("{:.0}%", (ratio * 100.0).floor()),
        None => "–".to_string(),
    }
}

/// A coverage bar: the covered share green, the rest red; grey when there is nothing.
fn bar(counts: Counts) -> String {
    let mut out = String::new();
    match counts.ratio() {
        Some(ratio) => {
            let _ = write!(
                out,
                "<div class=\"bar\" role=\"img\" aria-label=\"{} of branches covered\">\
                 <div class=\"fill\" style=\"width:{:.1}%\"></div></div>",
                percent(counts),
                ratio * 100.0
            );
        }
        None => out.push_str("<div class=\"bar empty\" aria-label=\"no branches\"></div>"),
    }
    out
}

/// A figure of the cards at the top of a page.
fn card(body: &mut String, label: &str, value: String) {
    let _ = writeln!(
        body,
        "<div class=\"card\"><div class=\"label\">{}</div><div class=\"big\">{}</div></div>",
        escape(label),
        escape(&value)
    );
}

/// The first card: branch coverage as a percentage, a count and a bar.
fn coverage_card(body: &mut String, branches: Counts) {
    let _ = writeln!(
        body,
        "<div class=\"card\" style=\"min-width:280px\"><div class=\"label\">Branch coverage</div>\
         <div class=\"big\">{}</div><div>{} of {} branches</div>{}</div>",
        percent(branches),
        branches.covered,
        branches.total,
        bar(branches)
    );
}

/// `com.x.Account` as `Account`, `com.x.A$Inner` as `A$Inner`.
fn simple_class(binary: &str) -> &str {
    binary.rsplit('.').next().unwrap_or(binary)
}

/// `com.x.Account#interest(int)` as `interest(int)`.
fn member_name(key: &str) -> &str {
    key.split_once('#').map_or(key, |(_, member)| member)
}

fn status_badge(status: &str) -> String {
    let (class, text) = match status {
        "ok" => ("ok", "verified"),
        "unverified" => ("warn", "not verified"),
        "not_written" => ("warn", "not written"),
        "error" => ("bad", "failed"),
        other => ("warn", other),
    };
    format!("<span class=\"badge {class}\">{}</span>", escape(text))
}

const STYLE: &str = r#"
:root { --ok: #1a7f37; --ok-bg: #dafbe1; --bad: #cf222e; --bad-bg: #ffebe9;
  --warn: #9a6700; --warn-bg: #fff8c5; --line: #d0d7de; --muted: #57606a; --ink: #1f2328; }
* { box-sizing: border-box; }
body { margin: 0; padding: 24px 32px 48px; font: 14px/1.5 system-ui, -apple-system, "Segoe UI",
  "DejaVu Sans", sans-serif; color: var(--ink); background: #f6f8fa; }
a { color: #0969da; text-decoration: none; }
a:hover { text-decoration: underline; }
h1 { font-size: 24px; margin: 0 0 4px; }
h2 { font-size: 18px; margin: 28px 0 10px; }
.sub { color: var(--muted); margin: 0 0 20px; }
.crumb { margin-bottom: 12px; }
.cards { display: flex; gap: 16px; flex-wrap: wrap; margin: 0 0 24px; }
.card { background: #fff; border: 1px solid var(--line); border-radius: 8px; padding: 14px 18px;
  min-width: 170px; }
.card .big { font-size: 26px; font-weight: 600; }
.card .label { color: var(--muted); font-size: 12px; text-transform: uppercase;
  letter-spacing: .04em; }
table.classes { width: 100%; border-collapse: collapse; background: #fff;
  border: 1px solid var(--line); border-radius: 8px; overflow: hidden; }
table.classes th, table.classes td { padding: 8px 12px; border-bottom: 1px solid var(--line);
  text-align: left; white-space: nowrap; }
table.classes th { background: #f6f8fa; font-size: 12px; color: var(--muted);
  text-transform: uppercase; letter-spacing: .04em; }
table.classes td.num { text-align: right; font-variant-numeric: tabular-nums; }
table.classes td.cov { width: 40%; }
table.classes tr:last-child td { border-bottom: 0; }
.covcell { display: flex; align-items: center; gap: 10px; }
.covcell .pct { width: 42px; text-align: right; font-variant-numeric: tabular-nums; }
.bar { flex: 1; height: 12px; min-width: 120px; background: var(--bad-bg);
  border: 1px solid #ffcecb; border-radius: 6px; overflow: hidden; }
.bar .fill { height: 100%; background: var(--ok); }
.bar.empty { background: #eaeef2; border-color: var(--line); }
.pkg { color: var(--muted); }
.badge { display: inline-block; padding: 1px 8px; border-radius: 10px; font-size: 12px;
  font-weight: 600; }
.badge.ok { background: var(--ok-bg); color: var(--ok); }
.badge.warn { background: var(--warn-bg); color: var(--warn); }
.badge.bad { background: var(--bad-bg); color: var(--bad); }
.exc { color: var(--bad); font-weight: 600; }
.error { color: var(--bad); white-space: normal; }
.note { background: var(--warn-bg); border: 1px solid #eed888; border-radius: 6px;
  padding: 8px 12px; margin: 8px 0; }
.finding { background: #fff; border: 1px solid var(--line); border-left: 4px solid var(--bad);
  border-radius: 6px; padding: 12px 16px; margin: 0 0 14px; }
.finding.env { border-left-color: var(--warn); }
.finding h3 { font-size: 15px; margin: 0 0 6px; }
.finding p { margin: 4px 0; }
pre.test { background: #f6f8fa; border: 1px solid var(--line); border-radius: 6px;
  padding: 10px 12px; margin: 8px 0 0; overflow-x: auto; font-size: 12.5px; }
code, pre { font-family: ui-monospace, "SFMono-Regular", "DejaVu Sans Mono", Menlo, Consolas,
  monospace; }
.legend { display: flex; gap: 16px; flex-wrap: wrap; color: var(--muted); margin: 0 0 8px;
  font-size: 12px; align-items: center; }
.legend .sw { display: inline-block; width: 14px; height: 14px; border-radius: 3px;
  vertical-align: -3px; margin-right: 4px; border: 1px solid var(--line); }
table.source { width: 100%; border-collapse: collapse; background: #fff;
  border: 1px solid var(--line); font: 12.5px/1.55 ui-monospace, "SFMono-Regular",
  "DejaVu Sans Mono", Menlo, Consolas, monospace; }
table.source td { padding: 0 8px; vertical-align: top; }
table.source td.ln { width: 1%; text-align: right; color: #8c959f; user-select: none;
  border-right: 1px solid var(--line); }
table.source td.ln a { color: inherit; }
table.source td.marks { width: 1%; white-space: nowrap; border-right: 1px solid var(--line); }
table.source td.code { white-space: pre; }
tr.covered td.code, tr.covered td.marks { background: var(--ok-bg); }
tr.uncovered td.code, tr.uncovered td.marks { background: var(--bad-bg); }
tr.partial td.code, tr.partial td.marks { background: var(--warn-bg); }
tr:target td { outline: 2px solid #0969da; outline-offset: -2px; }
.chip { display: inline-block; font: 11px/16px system-ui, sans-serif; padding: 0 6px;
  margin: 1px 2px 1px 0; border-radius: 8px; border: 1px solid; }
.chip.hit { color: var(--ok); border-color: #4ac26b; background: #fff; }
.chip.miss { color: var(--bad); border-color: #ff8182; background: #fff; }
.chip.thrown { color: #fff; background: var(--bad); border-color: var(--bad); }
.chip.envchip { color: var(--warn); border-color: #d4a72c; background: #fff; }
"#;

#[cfg(test)]
mod tests;
