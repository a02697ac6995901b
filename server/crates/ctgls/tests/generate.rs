//! `ctgls generate` end to end: the real binary on a copy of the bundled example project, then
//! an independent check of what it wrote with the real tools: javac, the JUnit launcher (twice,
//! forward and reversed) and JaCoCo, whose branch coverage of each class must be at least 95%
//! of what ctgls reported. Also the errors a user meets, each with a clear message and a
//! non-zero exit.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use ctg::verify::jacoco;
use ctg::verify::{run_test_class, JUnitSetup, ProjectClasses, VerifyOptions};
use serde_json::Value;
use testcase::junit::JUnit;

/// The slow end-to-end test runs when `CTGLS_E2E=1` (`.ci/run` sets it).
fn e2e_enabled() -> bool {
    std::env::var("CTGLS_E2E").is_ok_and(|value| value == "1")
}

fn example_project() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../tests/projects/bank")
}

/// A scratch directory removed on drop.
struct Scratch(PathBuf);

impl Scratch {
    fn new(name: &str) -> Scratch {
        let dir =
            std::env::temp_dir().join(format!("ctgls-generate-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("scratch dir");
        Scratch(dir)
    }

    fn write(&self, relative: &str, text: &str) {
        let path = self.0.join(relative);
        std::fs::create_dir_all(path.parent().expect("parent")).expect("dirs");
        std::fs::write(path, text).expect("write");
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn copy_sources(from: &Path, to: &Path) {
    for entry in std::fs::read_dir(from).expect("readable") {
        let path = entry.expect("entry").path();
        let target = to.join(path.file_name().expect("name"));
        if path.is_dir() {
            std::fs::create_dir_all(&target).expect("dir");
            copy_sources(&path, &target);
        } else if path.extension().is_some_and(|ext| ext == "java") {
            std::fs::copy(&path, &target).expect("copy");
        }
    }
}

fn generate(project: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ctgls"))
        .arg("generate")
        .arg("--project")
        .arg(project)
        .args(args)
        .env_remove("CTGLS_LOG")
        .output()
        .expect("the ctgls binary runs")
}

const CLASSES: [&str; 3] = [
    "com.example.bank.Account",
    "com.example.bank.Bank",
    "com.example.bank.AmountParser",
];

#[test]
fn generated_tests_compile_pass_twice_and_cover_what_ctgls_reports() {
    if !e2e_enabled() {
        eprintln!("skipped: the end-to-end generate test runs with CTGLS_E2E=1");
        return;
    }
    let project = Scratch::new("bank");
    std::fs::create_dir_all(project.0.join("src/main/java")).expect("dirs");
    copy_sources(
        &example_project().join("src/main/java"),
        &project.0.join("src/main/java"),
    );
    let report_path = project.0.join("report.json");
    let mut args = vec!["--budget", "15", "--seed", "1", "--report"];
    let report_arg = report_path.to_str().expect("utf-8 path").to_owned();
    args.push(&report_arg);
    for class in CLASSES {
        args.extend(["--class", class]);
    }
    let output = generate(&project.0, &args);
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "stdout:\n{stdout}\nstderr:\n{stderr}"
    );
    assert!(stdout.starts_with("class"), "summary table:\n{stdout}");
    for class in CLASSES {
        assert!(stdout.contains(class), "{class} in the summary:\n{stdout}");
    }

    let report: Value =
        serde_json::from_str(&std::fs::read_to_string(&report_path).expect("report written"))
            .expect("the report is JSON");
    assert_eq!(report["schema"], 1);
    let classes = report["classes"].as_array().expect("classes");
    assert_eq!(classes.len(), CLASSES.len());

    let sources = ProjectClasses {
        sources: CLASSES
            .iter()
            .map(|class| {
                let relative = format!("src/main/java/{}.java", class.replace('.', "/"));
                project.0.join(relative)
            })
            .collect(),
        classpath: Vec::new(),
        overlays: Default::default(),
    };
    let junit =
        JUnitSetup::locate(JUnit::Five, &[]).expect("Debian's junit5 (tests/run.sh installs it)");
    let options = VerifyOptions::default();
    for entry in classes {
        let class = entry["class"].as_str().expect("class name");
        assert_eq!(entry["status"], "ok", "{entry}");
        assert_eq!(entry["junit"], 5);
        let tests_written = entry["tests_written"].as_u64().expect("count");
        assert!(tests_written > 0, "{class} got tests");
        let test_file = PathBuf::from(entry["test_file"].as_str().expect("written"));
        let source = std::fs::read_to_string(&test_file).expect("the test file exists");
        assert!(
            source.starts_with("// Generated by ctgls"),
            "{}",
            test_file.display()
        );
        let test_class = format!("{class}GeneratedTest");
        assert_eq!(
            source.matches("@Test").count() as u64,
            tests_written,
            "{class}: every written test is in the file"
        );

        // Independently of ctgls's own verification: both orders pass.
        let runs = run_test_class(&source, &test_class, &sources, &junit, &options)
            .expect("the emitted tests compile and run");
        assert!(runs.len() >= 2, "{class}: ran {} times", runs.len());
        for run in &runs {
            assert!(run.passed(), "{class}: {run:?}");
            assert_eq!(run.executed.len() as u64, tests_written, "{class}: {run:?}");
        }
        let mut reversed = runs[1].executed.clone();
        reversed.reverse();
        assert_eq!(
            runs[0].executed, reversed,
            "{class}: the second run is reversed"
        );

        // JaCoCo's branch coverage is at least 95% of what ctgls reported.
        let measured = jacoco::measure(
            &source,
            &test_class,
            &sources,
            &junit,
            &["com.example.bank.*"],
            &options,
        )
        .expect("JaCoCo measures the emitted tests");
        assert!(measured.run.passed(), "{class}: {:?}", measured.run);
        let jacoco = &measured.coverage.classes[class];
        let ratio = |covered: f64, total: f64| if total == 0.0 { 1.0 } else { covered / total };
        let jacoco_branches = ratio(
            f64::from(jacoco.branches.covered),
            f64::from(jacoco.branches.total()),
        );
        let reported = ratio(
            entry["branches"]["covered"].as_f64().expect("covered"),
            entry["branches"]["total"].as_f64().expect("total"),
        );
        assert!(
            jacoco_branches >= 0.95 * reported,
            "{class}: JaCoCo {jacoco_branches:.3} ({:?}) < 95% of reported {reported:.3}; \
             lines JaCoCo marks partly covered: {:?}, not covered: {:?}\n{source}",
            jacoco.branches,
            jacoco.lines_with(jacoco::LineStatus::Partly),
            jacoco.lines_with(jacoco::LineStatus::NotCovered),
        );
        eprintln!(
            "{class}: ctgls {reported:.3} JaCoCo {jacoco_branches:.3} ({} tests)",
            tests_written
        );
    }

    // The undeclared exception of the example: `interest(0)` divides by zero on line 55.
    let account = &classes[0];
    let exceptions = account["undeclared_exceptions"].as_array().expect("list");
    assert!(
        exceptions
            .iter()
            .any(|e| e["exception"] == "java.lang.ArithmeticException"
                && e["line"] == 55
                && e["method"] == "com.example.bank.Account#interest(int)"
                && e["thrown_explicitly"] == false),
        "{exceptions:?}"
    );
    // The same exception left interest(int): every exception that leaves a method of the class
    // is recorded, also one a caller in the class catches.
    let escapes = account["escaping_exceptions"].as_array().expect("list");
    assert!(
        escapes
            .iter()
            .any(|e| e["exception"] == "java.lang.ArithmeticException"
                && e["line"] == 55
                && e["method"] == "com.example.bank.Account#interest(int)"
                && e["declared"] == false
                && e["checked"] == false),
        "{escapes:?}"
    );
    let account_tests = std::fs::read_to_string(
        project
            .0
            .join("src/test/java/com/example/bank/AccountGeneratedTest.java"),
    )
    .expect("Account's tests");
    assert!(
        account_tests.contains("assertThrows(ArithmeticException.class"),
        "{account_tests}"
    );

    // The run was recorded for the next one.
    assert!(project.0.join(".ctgls/classes").is_dir());
}

#[test]
fn a_class_that_is_not_in_the_project_is_an_error() {
    let project = Scratch::new("missing");
    project.write("src/main/java/p/A.java", "package p;\npublic class A {}\n");
    let output = generate(&project.0, &["--class", "p.Missing", "--budget", "5"]);
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("class p.Missing not found"), "{stderr}");
    assert!(String::from_utf8_lossy(&output.stdout).contains("failed"));
}

#[test]
fn a_class_that_does_not_compile_is_an_error_with_positions() {
    let project = Scratch::new("broken");
    project.write(
        "src/main/java/p/Broken.java",
        "package p;\npublic class Broken {\n    int f() { return \"no\"; }\n}\n",
    );
    let output = generate(&project.0, &["--class", "p.Broken", "--budget", "5"]);
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("does not compile"), "{stderr}");
    assert!(stderr.contains("Broken.java:3"), "{stderr}");
}

#[test]
fn a_missing_jdk_is_an_error() {
    let project = Scratch::new("nojdk");
    project.write("src/main/java/p/A.java", "package p;\npublic class A {}\n");
    let output = generate(
        &project.0,
        &["--class", "p.A", "--java-home", "/nonexistent/jdk"],
    );
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("cannot run Java code"), "{stderr}");
    assert!(stderr.contains("/nonexistent/jdk"), "{stderr}");
}

#[test]
fn a_class_with_nothing_instantiable_is_an_error_with_the_reason() {
    let project = Scratch::new("abstract");
    project.write(
        "src/main/java/p/Shape.java",
        "package p;\npublic abstract class Shape {\n    public abstract double area();\n    public boolean big() { return area() > 10; }\n}\n",
    );
    let output = generate(&project.0, &["--class", "p.Shape", "--budget", "5"]);
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("nothing instantiable"), "{stderr}");
}

#[test]
fn bad_arguments_print_the_generate_usage() {
    let output = Command::new(env!("CARGO_BIN_EXE_ctgls"))
        .args(["generate", "--class", "p.A", "--algorithm", "random"])
        .output()
        .expect("runs");
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("`--algorithm` must be dynamosa"),
        "{stderr}"
    );
    assert!(stderr.contains("Usage: ctgls generate"), "{stderr}");
}

/// `ctgls generate --project <project> <args> --report <file>` on a machine without JUnit (quick:
/// no verification runs): the process's output and the report. The run must succeed.
fn generate_without_junit(project: &Scratch, args: &[&str]) -> (std::process::Output, Value) {
    let report = project.0.join("report.json");
    let output = Command::new(env!("CARGO_BIN_EXE_ctgls"))
        .arg("generate")
        .arg("--project")
        .arg(&project.0)
        .args(args)
        .arg("--report")
        .arg(&report)
        .env("CTGLS_JUNIT_CLASSPATH", "/nonexistent/junit.jar")
        .output()
        .expect("runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    let report =
        serde_json::from_str(&std::fs::read_to_string(report).expect("report")).expect("JSON");
    (output, report)
}

/// A machine with a JDK but no JUnit still gets its tests: written, marked as not verified
/// with JUnit, with a warning that says how to fix it.
#[test]
fn without_junit_the_tests_are_written_and_marked_unverified() {
    let project = Scratch::new("nojunit");
    project.write(
        "src/main/java/p/Sign.java",
        "package p;\npublic class Sign {\n    public static int of(int x) {\n        if (x > 0) { return 1; }\n        if (x < 0) { return -1; }\n        return 0;\n    }\n}\n",
    );
    let sarif = project.0.join("out.sarif");
    let site = project.0.join("site");
    let (output, report) = generate_without_junit(
        &project,
        &[
            "--class",
            "p.Sign",
            "--budget",
            "6",
            "--sarif",
            sarif.to_str().unwrap(),
            "--html",
            site.to_str().unwrap(),
        ],
    );
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("the tests were not run with JUnit"),
        "{stderr}"
    );
    assert!(stderr.contains("CTGLS_JUNIT_CLASSPATH"), "{stderr}");
    let written = std::fs::read_to_string(project.0.join("src/test/java/p/SignGeneratedTest.java"))
        .expect("the tests are written");
    let second_line = written.lines().nth(1).unwrap_or_default();
    assert_eq!(second_line, ctg::pipeline::UNVERIFIED_NOTE);
    assert!(written.contains("@Test"), "{written}");
    assert_eq!(report["classes"][0]["verified_with_junit"], false);
    assert_eq!(
        report["classes"][0]["branches"]["covered"],
        report["classes"][0]["branches"]["total"]
    );

    // What the SARIF and HTML reports are made from: the source file, line coverage and the
    // test that covers each branch outcome, named as in the written file.
    let class = &report["classes"][0];
    assert_eq!(class["source_file"], "src/main/java/p/Sign.java");
    assert_eq!(
        class["test_source_file"],
        "src/test/java/p/SignGeneratedTest.java"
    );
    assert_eq!(class["covered_lines"], serde_json::json!([4, 5, 6]));
    let covered = class["covered_branches"]
        .as_array()
        .expect("covered branches");
    assert_eq!(
        covered.len() as u64,
        class["branches"]["covered"].as_u64().unwrap()
    );
    for branch in covered {
        let test = branch["test"].as_str().expect("a covering test");
        assert!(written.contains(&format!("void {test}()")), "{test}");
    }
    // `--sarif` and `--html`, from the same run.
    let sarif: Value = serde_json::from_str(&std::fs::read_to_string(&sarif).expect("SARIF"))
        .expect("SARIF is JSON");
    assert_eq!(sarif["version"], "2.1.0");
    assert_eq!(
        sarif["runs"][0]["invocations"][0]["executionSuccessful"],
        true
    );
    assert_eq!(sarif["runs"][0]["results"], serde_json::json!([]));
    let index = std::fs::read_to_string(site.join("index.html")).expect("index.html");
    assert!(index.contains("<a href=\"p.Sign.html\">"), "{index}");
    let page = std::fs::read_to_string(site.join("p.Sign.html")).expect("the class page");
    assert!(
        page.contains("<td class=\"code\">        if (x &gt; 0) { return 1; }</td>"),
        "{page}"
    );
}

/// `--instrument-also`: the report gives, under the class, what its tests cover of the other
/// class (`Sign` calls `Magnitude.of` only for non-zero numbers, never `Magnitude.twice`);
/// the summary table stays one row per `--class`. Without JUnit, so that it stays quick.
#[test]
fn instrument_also_puts_the_other_class_coverage_in_the_report() {
    let project = Scratch::new("also");
    project.write(
        "src/main/java/p/Sign.java",
        "package p;\npublic class Sign {\n    public static int of(int x) {\n        if (x == 0) { return 0; }\n        return Magnitude.of(x) > 0 ? 1 : -1;\n    }\n}\n",
    );
    project.write(
        "src/main/java/p/Magnitude.java",
        "package p;\npublic class Magnitude {\n    public static int of(int x) {\n        if (x == 0) { return 0; }\n        return x;\n    }\n    public static int twice(int x) {\n        if (x > 100) { return x; }\n        return 2 * x;\n    }\n}\n",
    );
    let (output, report) = generate_without_junit(
        &project,
        &[
            "--class",
            "p.Sign",
            "--instrument-also",
            "p.Magnitude",
            "--budget",
            "6",
        ],
    );
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(stdout.lines().count(), 2, "{stdout}");
    assert!(!stdout.contains("Magnitude"), "{stdout}");

    let sign = &report["classes"][0];
    assert_eq!(sign["branches"]["covered"], sign["branches"]["total"]);
    let also = sign["also_instrumented"]
        .as_array()
        .expect("also_instrumented");
    assert_eq!(also.len(), 1, "{also:#?}");
    let magnitude = &also[0];
    assert_eq!(magnitude["class"], "p.Magnitude");
    assert_eq!(magnitude["branches"]["total"], 4);
    assert_eq!(magnitude["branches"]["covered"], 1);
    assert_eq!(magnitude["lines"]["total"], 4);
    assert_eq!(magnitude["lines"]["covered"], 2);
    let covered = magnitude["covered_branches"].as_array().expect("covered");
    assert_eq!(covered.len(), 1, "{covered:#?}");
    assert!(
        covered[0]
            .as_str()
            .is_some_and(|goal| goal.starts_with("p.Magnitude#of(int)/") && goal.ends_with(".F")),
        "{covered:#?}"
    );
    let uncovered: Vec<&str> = magnitude["uncovered_branches"]
        .as_array()
        .expect("uncovered")
        .iter()
        .map(|goal| goal["condition"].as_str().expect("condition"))
        .collect();
    assert_eq!(uncovered, ["x == 0", "x > 100", "x > 100"]);
}
