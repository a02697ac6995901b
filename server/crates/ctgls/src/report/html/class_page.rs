//! A class's page: its figures, the undeclared exceptions with the generated tests that
//! reproduce them, what needed the environment, and its source with every probed line marked
//! covered or not and every branch outcome as a chip on its line.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use super::{card, coverage_card, escape, member_name, page, simple_class, status_badge};
use crate::report::model::{BranchOutcome, ClassReport, Report};
use crate::report::source::ClassSource;
use crate::report::ReportClass;

pub fn render(report: &Report, class: &ReportClass) -> String {
    let c = class.report;
    let mut body = String::new();
    body.push_str("<div class=\"crumb\"><a href=\"index.html\">← all classes</a></div>\n");
    let _ = writeln!(
        body,
        "<h1>{} {}</h1>",
        escape(simple_class(&c.class)),
        status_badge(&c.status)
    );
    let mut sub = vec![c.label()];
    if let Some(coupled) = c.coupled_branches {
        sub.push(format!(
            "integration tests: {}/{} coupled branches",
            coupled.covered, coupled.total
        ));
    }
    if let Some(path) = class
        .source
        .as_ref()
        .map(|s| &s.path)
        .or(c.source_file.as_ref())
    {
        sub.push(path.clone());
    }
    if c.wall_seconds > 0.0 {
        sub.push(format!("{:.1} s", c.wall_seconds));
    }
    let _ = writeln!(body, "<p class=\"sub\">{}</p>", escape(&sub.join(" · ")));

    body.push_str("<div class=\"cards\">\n");
    coverage_card(&mut body, c.branches);
    card(
        &mut body,
        "Lines",
        format!("{}/{}", c.lines.covered, c.lines.total),
    );
    card(
        &mut body,
        "Methods",
        format!("{}/{}", c.methods.covered, c.methods.total),
    );
    card(&mut body, "Tests written", c.tests_written.to_string());
    card(
        &mut body,
        "Undeclared exceptions",
        c.findings().count().to_string(),
    );
    body.push_str("</div>\n");

    for problem in [&c.verification_error, &c.write_error]
        .into_iter()
        .flatten()
    {
        let _ = writeln!(body, "<div class=\"note\">{}</div>", escape(problem));
    }
    if let Some(file) = c.test_source_file.as_ref().or(c.test_file.as_ref()) {
        let verified = if c.verified_with_junit {
            format!(", verified with JUnit {}", c.junit.unwrap_or(5))
        } else {
            ", not verified with JUnit".to_string()
        };
        let _ = writeln!(
            body,
            "<p>Tests: <code>{}</code>{}</p>",
            escape(file),
            escape(&verified)
        );
    }
    for warning in c.warnings.iter().chain(&report.warnings) {
        let _ = writeln!(body, "<div class=\"note\">{}</div>", escape(warning));
    }

    exceptions(&mut body, c);
    environment(&mut body, c);
    match &class.source {
        Some(source) => source_listing(&mut body, c, source),
        None => {
            let _ = writeln!(
                body,
                "<h2>Source</h2>\n<div class=\"note\">The source file of {} was not found in \
                 the project, so only the branches not covered are listed.</div>",
                escape(&c.class)
            );
            uncovered_list(&mut body, c);
        }
    }
    page(&format!("{} · ctgls", simple_class(&c.class)), &body)
}

fn exceptions(body: &mut String, c: &ClassReport) {
    let findings: Vec<_> = c.findings().collect();
    if findings.is_empty() {
        return;
    }
    body.push_str("<h2>Undeclared exceptions</h2>\n");
    for (index, e) in findings.iter().enumerate() {
        let _ = write!(
            body,
            "<div class=\"finding\" id=\"exception-{index}\"><h3><span class=\"exc\">{}</span>",
            escape(simple_class(&e.exception))
        );
        if let Some(message) = e.message.as_deref().filter(|m| !m.is_empty()) {
            let _ = write!(body, " ({})", escape(message));
        }
        let _ = write!(
            body,
            " escapes <code>{}</code> without being declared</h3>",
            escape(member_name(&e.method))
        );
        let at = match e.line {
            Some(line) => format!("<a href=\"#L{line}\">line {line}</a>"),
            None => "a line outside the class's file".to_string(),
        };
        let _ = write!(
            body,
            "<p>Raised at {at}: <code>{}</code>.</p>",
            escape(&e.exception)
        );
        match (&e.test, &e.test_code) {
            (Some(test), Some(code)) => {
                let _ = write!(
                    body,
                    "<p>Reproduced by the generated test <code>{}</code>{}:</p>\
                     <pre class=\"test\">{}</pre>",
                    escape(test),
                    match (&c.test_source_file, e.test_line) {
                        (Some(file), Some(line)) => {
                            format!(" ({}:{line})", escape(file))
                        }
                        _ => String::new(),
                    },
                    escape(&dedent(code))
                );
            }
            (Some(test), None) => {
                let _ = write!(
                    body,
                    "<p>Reproduced by the generated test <code>{}</code>.</p>",
                    escape(test)
                );
            }
            _ => body.push_str("<p>No verified test reproduces it.</p>"),
        }
        body.push_str("</div>\n");
    }
}

fn environment(body: &mut String, c: &ClassReport) {
    if c.needs_environment.is_empty() {
        return;
    }
    body.push_str("<h2>Needs the environment</h2>\n");
    for need in &c.needs_environment {
        let at = need
            .line
            .map(|line| format!(" at <a href=\"#L{line}\">line {line}</a>"))
            .unwrap_or_default();
        let method = need
            .method
            .as_deref()
            .map(|m| format!("<code>{}</code> ", escape(member_name(m))))
            .unwrap_or_default();
        let _ = writeln!(
            body,
            "<div class=\"finding env\"><p>{method}{}{at}: no test is written for the {} goals \
             only such runs reach.</p></div>",
            escape(&need.describe()),
            need.goals.len()
        );
    }
}

/// What the source listing shows on one line.
#[derive(Default)]
struct LineMarks<'a> {
    probed: Option<bool>,
    /// Each outcome, and whether the tests cover it (a covered one names its test only when
    /// the tests were verified).
    outcomes: Vec<(&'a BranchOutcome, bool)>,
    exceptions: Vec<usize>,
    environment: bool,
}

fn source_listing(body: &mut String, c: &ClassReport, source: &ClassSource) {
    let mut marks: BTreeMap<u32, LineMarks> = BTreeMap::new();
    for &line in &c.covered_lines {
        marks.entry(line).or_default().probed = Some(true);
    }
    for &line in &c.uncovered_lines {
        marks.entry(line).or_default().probed = Some(false);
    }
    let covered = c.covered_branches.iter().map(|o| (o, true));
    for (outcome, is_covered) in covered.chain(c.uncovered_branches.iter().map(|o| (o, false))) {
        marks
            .entry(outcome.line)
            .or_default()
            .outcomes
            .push((outcome, is_covered));
    }
    for (index, e) in c.findings().enumerate() {
        if let Some(line) = e.line {
            marks.entry(line).or_default().exceptions.push(index);
        }
    }
    for need in &c.needs_environment {
        if let Some(line) = need.line {
            marks.entry(line).or_default().environment = true;
        }
    }
    // Per decision, in source order of its key: true before false, cases in label order.
    for line in marks.values_mut() {
        line.outcomes.sort_by_key(|(o, _)| {
            let (decision, outcome) = o.goal.rsplit_once('.').unwrap_or((&o.goal, ""));
            let rank = match outcome {
                "T" => 0,
                "F" => 1,
                case => 2 + case.trim_start_matches('C').parse::<u32>().unwrap_or(0),
            };
            (decision.to_string(), rank)
        });
    }

    body.push_str("<h2>Source</h2>\n<div class=\"legend\">\
        <span><span class=\"sw\" style=\"background:var(--ok-bg)\"></span>line run by a test</span>\
        <span><span class=\"sw\" style=\"background:var(--bad-bg)\"></span>line no test runs</span>\
        <span><span class=\"sw\" style=\"background:var(--warn-bg)\"></span>branch outcome missed</span>\
        <span><span class=\"chip hit\">✓ true</span> outcome covered</span>\
        <span><span class=\"chip miss\">✗ false</span> outcome not covered</span>\
        <span><span class=\"chip thrown\">⚠</span> undeclared exception</span></div>\n");
    body.push_str("<table class=\"source\">\n");
    for (index, text) in source.lines().into_iter().enumerate() {
        let number = index as u32 + 1;
        let line = marks.get(&number);
        let missed = line.is_some_and(|l| l.outcomes.iter().any(|(_, covered)| !covered));
        let class = match line.and_then(|l| l.probed) {
            Some(false) => " class=\"uncovered\"",
            Some(true) if missed => " class=\"partial\"",
            Some(true) => " class=\"covered\"",
            None if missed => " class=\"partial\"",
            None => "",
        };
        let chips = line.map(|l| chips(l, source)).unwrap_or_default();
        let _ = writeln!(
            body,
            "<tr id=\"L{number}\"{class}><td class=\"ln\"><a href=\"#L{number}\">{number}</a></td>\
             <td class=\"marks\">{chips}</td><td class=\"code\">{}</td></tr>",
            escape(text)
        );
    }
    body.push_str("</table>\n");
}

fn chips(line: &LineMarks, source: &ClassSource) -> String {
    let mut out = String::new();
    for &index in &line.exceptions {
        let _ = write!(
            out,
            "<a class=\"chip thrown\" href=\"#exception-{index}\" \
             title=\"an undeclared exception is raised here\">⚠</a>"
        );
    }
    if line.environment {
        out.push_str("<span class=\"chip envchip\" title=\"needs the environment\">env</span>");
    }
    let decisions: std::collections::BTreeSet<&str> = line
        .outcomes
        .iter()
        .map(|(o, _)| o.goal.rsplit_once('.').map_or(o.goal.as_str(), |(d, _)| d))
        .collect();
    for &(outcome, covered) in &line.outcomes {
        let word = source.outcome_label(&outcome.goal);
        let label = if decisions.len() > 1 {
            format!("{}: {word}", shorten(&outcome.condition, 24))
        } else {
            word.clone()
        };
        let (class, mark, title) = match (covered, &outcome.test) {
            (true, Some(test)) => (
                "hit",
                "✓",
                format!("{} → {word}: covered by {test}", outcome.condition),
            ),
            (true, None) => (
                "hit",
                "✓",
                format!("{} → {word}: covered", outcome.condition),
            ),
            (false, _) => (
                "miss",
                "✗",
                match outcome.closest_distance {
                    Some(d) => format!(
                        "{} → {word}: not covered (closest branch distance {d})",
                        outcome.condition
                    ),
                    None => format!(
                        "{} → {word}: not covered (never reached)",
                        outcome.condition
                    ),
                },
            ),
        };
        let _ = write!(
            out,
            "<span class=\"chip {class}\" title=\"{}\">{mark} {}</span>",
            escape(&title),
            escape(&label)
        );
    }
    out
}

/// A test method's text without the indentation its lines share (it is printed inside its
/// class).
fn dedent(code: &str) -> String {
    let indent = code
        .lines()
        .filter(|line| !line.trim().is_empty())
        .map(|line| line.len() - line.trim_start().len())
        .min()
        .unwrap_or(0);
    code.lines()
        .map(|line| line.get(indent..).unwrap_or(line.trim_start()))
        .collect::<Vec<_>>()
        .join("\n")
        .trim_end()
        .to_string()
}

fn shorten(text: &str, most: usize) -> String {
    if text.chars().count() <= most {
        text.to_string()
    } else {
        let cut: String = text.chars().take(most - 1).collect();
        format!("{cut}…")
    }
}

/// Without the source: the uncovered outcomes as a list.
fn uncovered_list(body: &mut String, c: &ClassReport) {
    if c.uncovered_branches.is_empty() {
        return;
    }
    body.push_str("<ul>\n");
    for outcome in &c.uncovered_branches {
        let _ = writeln!(
            body,
            "<li>line {}: <code>{}</code> ({})</li>",
            outcome.line,
            escape(&outcome.condition),
            escape(outcome.outcome())
        );
    }
    body.push_str("</ul>\n");
}
