//! The HTML pages on a small class whose source and messages hold characters HTML gives a
//! meaning to: escaping, the rows of the project page, and the marks of the class page.

use super::*;
use crate::report::model::{BranchOutcome, ClassReport, Counts, UndeclaredException};
use crate::report::source::ClassSource;

const SOURCE: &str = "package p;\n\nclass Cmp {\n    int pick(int a, int b) {\n        if (a < b && b > 0) {\n            return a / (b - 1);\n        }\n        switch (a) {\n            case 3: return 1;\n            default: return 0;\n        }\n    }\n}\n";

fn outcome(goal: &str, line: u32, condition: &str, test: Option<&str>) -> BranchOutcome {
    BranchOutcome {
        goal: goal.into(),
        line,
        condition: condition.into(),
        closest_distance: test.is_none().then_some(2.0),
        test: test.map(String::from),
    }
}

fn class_report() -> ClassReport {
    ClassReport {
        class: "p.Cmp".into(),
        status: "ok".into(),
        source_file: Some("src/main/java/p/Cmp.java".into()),
        branches: Counts { covered: 4, total: 6 },
        lines: Counts { covered: 3, total: 4 },
        methods: Counts { covered: 1, total: 1 },
        covered_lines: vec![5, 6, 8],
        uncovered_lines: vec![9],
        covered_branches: vec![
            outcome("p.Cmp#pick(int,int)/B0.T", 5, "a < b", Some("pickOne")),
            outcome("p.Cmp#pick(int,int)/B0.F", 5, "a < b", Some("pickTwo")),
            outcome("p.Cmp#pick(int,int)/B1.T", 5, "b > 0", Some("pickOne")),
            outcome("p.Cmp#pick(int,int)/B2.C1", 8, "switch (a)", Some("pickTwo")),
        ],
        uncovered_branches: vec![
            outcome("p.Cmp#pick(int,int)/B1.F", 5, "b > 0", None),
            outcome("p.Cmp#pick(int,int)/B2.C0", 8, "switch (a)", None),
        ],
        undeclared_exceptions: vec![UndeclaredException {
            method: "p.Cmp#pick(int,int)".into(),
            exception: "java.lang.ArithmeticException".into(),
            line: Some(6),
            message: Some("/ by zero <&>".into()),
            test: Some("pickThrowsArithmeticException".into()),
            test_line: Some(12),
            test_code: Some(
                "    @Test\n    void pickThrowsArithmeticException() {\n        assertThrows(ArithmeticException.class, () -> new Cmp().pick(0, 1));\n        List<String> l = null;\n    }\n"
                    .into(),
            ),
            ..UndeclaredException::default()
        }],
        tests_written: 3,
        test_source_file: Some("src/test/java/p/CmpGeneratedTest.java".into()),
        verified_with_junit: true,
        junit: Some(5),
        ..ClassReport::default()
    }
}

fn failed_report() -> ClassReport {
    ClassReport {
        class: "p.Broken".into(),
        status: "error".into(),
        error: Some("cannot test p.Broken: nothing instantiable (<private> constructor)".into()),
        ..ClassReport::default()
    }
}

fn report() -> Report {
    Report {
        schema: 1,
        ctgls: "0.1.0".into(),
        budget_seconds: 10.0,
        algorithm: "dynamosa".into(),
        classes: vec![class_report(), failed_report()],
        ..Report::default()
    }
}

fn classes(report: &Report) -> Vec<ReportClass<'_>> {
    vec![
        ReportClass {
            report: &report.classes[0],
            source: Some(ClassSource::new(
                "src/main/java/p/Cmp.java".into(),
                SOURCE.into(),
            )),
        },
        ReportClass {
            report: &report.classes[1],
            source: None,
        },
    ]
}

#[test]
fn escaping_covers_every_character_html_reads() {
    assert_eq!(
        escape(r#"<a href="x">'&'</a>"#),
        "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;"
    );
    assert_eq!(escape("plain ✓ text"), "plain ✓ text");
    assert_eq!(page_name("com.x.A$Inner"), "com.x.A$Inner.html");
    assert_eq!(page_name("../evil/<x>"), ".._evil__x_.html");
}

#[test]
fn project_page_has_a_row_and_bar_per_class() {
    let report = report();
    let html = project_page::render(&report, &classes(&report));
    assert!(html.starts_with("<!DOCTYPE html>"));
    assert!(!html.contains("<script"), "no script");
    assert!(
        !html.contains("http://") && !html.contains("https://"),
        "no external asset"
    );
    assert_eq!(html.matches("<tr class=\"class-row\"").count(), 2);
    // The class with results links to its page, with its coverage bar at 4 of 6.
    assert!(html.contains("<a href=\"p.Cmp.html\"><span class=\"pkg\">p.</span>Cmp</a>"));
    assert!(html.contains("<div class=\"fill\" style=\"width:66.7%\"></div>"));
    assert!(html.contains("<span class=\"pct\">66%</span>"));
    assert!(html.contains("<td class=\"num\">4/6</td>"));
    // The failed class shows its escaped error and no link.
    assert!(html.contains("nothing instantiable (&lt;private&gt; constructor)"));
    assert!(!html.contains("p.Broken.html"));
    assert!(html.contains("<span class=\"badge bad\">failed</span>"));
    // Totals: one undeclared exception, one failed class.
    assert!(
        html.contains("<div class=\"label\">Undeclared exceptions</div><div class=\"big\">1</div>")
    );
    assert!(html.contains("<div class=\"label\">Classes failed</div><div class=\"big\">1</div>"));
}

#[test]
fn class_page_marks_lines_and_outcomes_on_the_escaped_source() {
    let report = report();
    let classes = classes(&report);
    let html = class_page::render(&report, &classes[0]);
    assert!(!html.contains("<script"));
    // The source, escaped, one row per line.
    assert_eq!(html.matches("<tr id=\"L").count(), SOURCE.lines().count());
    assert!(html.contains("<td class=\"code\">        if (a &lt; b &amp;&amp; b &gt; 0) {</td>"));
    // Line 5 ran but misses an outcome, line 6 ran, line 9 did not, line 1 is not probed.
    assert!(html.contains("<tr id=\"L5\" class=\"partial\">"));
    assert!(html.contains("<tr id=\"L6\" class=\"covered\">"));
    assert!(html.contains("<tr id=\"L9\" class=\"uncovered\">"));
    assert!(html.contains("<tr id=\"L1\"><td"));
    // Two decisions on line 5: each chip names its condition; the switch's cases by label.
    let line5 = html
        .lines()
        .find(|l| l.starts_with("<tr id=\"L5\""))
        .unwrap();
    assert!(
        line5.contains("✓ a &lt; b: true</span><span class=\"chip hit\" title=\"a &lt; b → false: covered by pickTwo\">✓ a &lt; b: false</span>"),
        "{line5}"
    );
    assert!(html.contains("✗ b &gt; 0: false</span>"));
    assert!(html.contains("✓ default</span>"));
    assert!(html.contains("✗ case 3</span>"));
    assert!(html.contains("title=\"a &lt; b → true: covered by pickOne\""));
    assert!(html.contains("not covered (closest branch distance 2)"));
    // The exception: its card with the escaped message and test code, linked both ways.
    assert!(html.contains("<div class=\"finding\" id=\"exception-0\">"));
    assert!(html.contains("(/ by zero &lt;&amp;&gt;)"));
    assert!(html.contains("<a href=\"#L6\">line 6</a>"));
    // The test's code as written, without the indentation of its class.
    assert!(html.contains(
        "<pre class=\"test\">@Test\nvoid pickThrowsArithmeticException() {\n    assertThrows("
    ));
    assert!(html.contains("    List&lt;String&gt; l = null;\n}</pre>"));
    assert!(html.contains("(src/test/java/p/CmpGeneratedTest.java:12)"));
    assert!(html.contains("<a class=\"chip thrown\" href=\"#exception-0\""));
}

#[test]
fn class_page_without_its_source_lists_what_is_not_covered() {
    let report = report();
    let class = ReportClass {
        report: &report.classes[0],
        source: None,
    };
    let html = class_page::render(&report, &class);
    assert!(html.contains("was not found in the project"));
    assert!(html.contains("<li>line 5: <code>b &gt; 0</code> (F)</li>"));
    assert!(!html.contains("<table class=\"source\">"));
}

#[test]
fn outcomes_of_unverified_tests_are_covered_without_a_test_name() {
    // Tests that could not be verified name no test; their coverage is still the search's.
    let mut report = report();
    report.classes[0].status = "unverified".into();
    for outcome in &mut report.classes[0].covered_branches {
        outcome.test = None;
    }
    let classes = classes(&report);
    let html = class_page::render(&report, &classes[0]);
    assert!(html.contains("<span class=\"badge warn\">not verified</span>"));
    assert!(html.contains("title=\"switch (a) → default: covered\">✓ default</span>"));
    assert!(html.contains("<tr id=\"L6\" class=\"covered\">"));
}
