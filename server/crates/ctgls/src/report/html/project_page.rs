//! `index.html`: the run's totals and one row per class, with its branch coverage as a bar.

use std::fmt::Write as _;

use super::{bar, card, coverage_card, escape, page, page_name, percent, status_badge};
use crate::report::model::{Counts, Report};
use crate::report::ReportClass;

pub fn render(report: &Report, classes: &[ReportClass]) -> String {
    let with_results: Vec<_> = classes.iter().filter(|c| c.report.has_results()).collect();
    let branches = report.branches();
    let tests: usize = with_results.iter().map(|c| c.report.tests_written).sum();
    let findings: usize = with_results
        .iter()
        .map(|c| c.report.findings().count())
        .sum();
    let failed = classes.len() - with_results.len();

    let mut body = String::new();
    body.push_str("<h1>ctgls test generation report</h1>\n");
    let mut settings = vec![format!(
        "{} class{}",
        classes.len(),
        if classes.len() == 1 { "" } else { "es" }
    )];
    if report.budget_seconds > 0.0 {
        settings.push(format!("budget {} s per class", report.budget_seconds));
    }
    if !report.algorithm.is_empty() {
        settings.push(format!("{} seed {}", report.algorithm, report.seed));
    }
    if !report.ctgls.is_empty() {
        settings.push(format!("ctgls {}", report.ctgls));
    }
    let _ = writeln!(
        body,
        "<p class=\"sub\">{}</p>",
        escape(&settings.join(" · "))
    );

    body.push_str("<div class=\"cards\">\n");
    coverage_card(&mut body, branches);
    card(&mut body, "Tests written", tests.to_string());
    card(&mut body, "Undeclared exceptions", findings.to_string());
    card(&mut body, "Classes failed", failed.to_string());
    body.push_str("</div>\n");

    for warning in &report.warnings {
        let _ = writeln!(body, "<div class=\"note\">{}</div>", escape(warning));
    }

    body.push_str(
        "<table class=\"classes\">\n<thead><tr><th>Class</th><th>Branch coverage</th>\
         <th>Branches</th><th>Lines</th><th>Tests</th><th>Exceptions</th><th>Status</th></tr>\
         </thead>\n<tbody>\n",
    );
    for class in classes {
        row(&mut body, class);
    }
    body.push_str("</tbody>\n</table>\n");
    page("ctgls report", &body)
}

fn row(body: &mut String, class: &ReportClass) {
    let report = class.report;
    let (package, simple) = match report.class.rsplit_once('.') {
        Some((package, simple)) => (format!("{package}."), simple),
        None => (String::new(), report.class.as_str()),
    };
    // An integration entry: the pair, with its coupled branches in the coverage column.
    let (simple, coverage) = match (&report.callee, report.coupled_branches) {
        (Some(callee), Some(coupled)) => (
            format!(
                "{simple} → {} (integration)",
                callee.rsplit('.').next().unwrap_or(callee)
            ),
            coupled,
        ),
        _ => (simple.to_string(), report.branches),
    };
    let name = format!(
        "<span class=\"pkg\">{}</span>{}",
        escape(&package),
        escape(&simple)
    );
    if !report.has_results() {
        let _ = writeln!(
            body,
            "<tr class=\"class-row\" data-class=\"{}\"><td>{name}</td>\
             <td colspan=\"5\" class=\"error\">{}</td><td>{}</td></tr>",
            escape(&report.class),
            escape(report.error.as_deref().unwrap_or("no results")),
            status_badge(&report.status)
        );
        return;
    }
    let findings = report.findings().count();
    let exceptions = if findings > 0 {
        format!("<span class=\"exc\">{findings}</span>")
    } else {
        "0".to_string()
    };
    let _ = writeln!(
        body,
        "<tr class=\"class-row\" data-class=\"{}\"><td><a href=\"{}\">{name}</a></td>\
         <td class=\"cov\"><div class=\"covcell\">{}<span class=\"pct\">{}</span></div></td>\
         <td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td>\
         <td class=\"num\">{exceptions}</td><td>{}</td></tr>",
        escape(&report.class),
        escape(&page_name(&report.label())),
        bar(coverage),
        percent(coverage),
        fraction(coverage),
        fraction(report.lines),
        report.tests_written,
        status_badge(&report.status)
    );
}

fn fraction(counts: Counts) -> String {
    format!("{}/{}", counts.covered, counts.total)
}
