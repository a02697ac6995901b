//! `ctgls generate` end to end on a parser whose API is package-private
//! (`server/crates/ctg/tests/fixtures/job/access`): the tests it writes sit in the parser's
//! package and call its package-private and protected members, construct its package-private
//! helper class and nested class, and never what a test there cannot reach (the protected and
//! package-private members of its superclass in another package, a package-private class of
//! that package, a private nested class). The written files are checked apart from ctgls's own
//! verification with the real javac and the JUnit launcher, for JUnit 5 and 4. Gated by
//! `CTGLS_E2E=1` (about two minutes).

mod support;
use support::{e2e_enabled, Scratch};

use std::path::{Path, PathBuf};
use std::process::Command;

use ctg::verify::{run_test_class, JUnitSetup, ProjectClasses, VerifyOptions};
use serde_json::Value;
use testcase::junit::JUnit;

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../ctg/tests/fixtures/job/access/src")
}

fn copy_sources(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("dir");
    for entry in std::fs::read_dir(from).expect("readable") {
        let path = entry.expect("entry").path();
        let target = to.join(path.file_name().expect("name"));
        if path.is_dir() {
            copy_sources(&path, &target);
        } else {
            std::fs::copy(&path, &target).expect("copy");
        }
    }
}

fn java_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("readable") {
        let path = entry.expect("entry").path();
        if path.is_dir() {
            java_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "java") {
            out.push(path);
        }
    }
}

#[test]
fn tests_of_a_package_private_api_compile_and_pass_under_junit_5_and_4() {
    if !e2e_enabled() {
        eprintln!("skipped: the package-private generate test runs with CTGLS_E2E=1");
        return;
    }
    let project = Scratch::new("generate-access", "fixture");
    copy_sources(&fixture(), &project.0.join("src/main/java"));
    let mut sources = Vec::new();
    java_files(&project.0.join("src/main/java"), &mut sources);
    let classes = ProjectClasses {
        sources,
        classpath: Vec::new(),
        overlays: Default::default(),
    };

    for (junit, version) in [(JUnit::Five, "5"), (JUnit::Four, "4")] {
        let out = project.0.join(format!("tests-junit{version}"));
        let report_path = project.0.join(format!("report-{version}.json"));
        let output = Command::new(env!("CARGO_BIN_EXE_ctgls"))
            .arg("generate")
            .arg("--project")
            .arg(&project.0)
            .args(["--class", "text.Parser", "--budget", "20", "--seed", "1"])
            .args(["--junit", version, "--out"])
            .arg(&out)
            .arg("--report")
            .arg(&report_path)
            .env_remove("CTGLS_LOG")
            .output()
            .expect("the ctgls binary runs");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(output.status.success(), "JUnit {version}:\n{stderr}");
        let report: Value =
            serde_json::from_str(&std::fs::read_to_string(&report_path).expect("report"))
                .expect("JSON");
        let entry = &report["classes"][0];
        assert_eq!(entry["status"], "ok", "{entry}");
        assert_eq!(entry["verified_with_junit"], true, "{entry}");
        let covered = entry["branches"]["covered"].as_u64().expect("covered");
        let total = entry["branches"]["total"].as_u64().expect("total");
        // All but the entry of `remember(Cache)`, which takes a private nested class; the
        // written tests may lose a branch whose test verification dropped.
        assert!(
            covered + 3 >= total,
            "JUnit {version}: {covered}/{total}\n{entry}"
        );

        let source = std::fs::read_to_string(out.join("text/ParserGeneratedTest.java"))
            .expect("the tests are written in the parser's package");
        assert!(source.contains("package text;"), "{source}");
        for reached in ["new Token(", "new DigitRule(", ".number()"] {
            assert!(
                source.contains(reached),
                "JUnit {version}: {reached} in\n{source}"
            );
        }
        for out_of_reach in [
            ".reset()",
            ".mark()",
            ".accepts(",
            "Hidden",
            "Cache",
            ".create()",
        ] {
            assert!(
                !source.contains(out_of_reach),
                "JUnit {version}: {out_of_reach} in\n{source}"
            );
        }

        // Independently of ctgls's verification: javac compiles the file and JUnit passes it,
        // in both orders.
        let setup = JUnitSetup::locate(junit, &[]).expect("Debian's junit5 and junit4");
        let runs = run_test_class(
            &source,
            "text.ParserGeneratedTest",
            &classes,
            &setup,
            &VerifyOptions::default(),
        )
        .expect("the written tests compile and run");
        assert!(runs.len() >= 2, "JUnit {version}: ran {} times", runs.len());
        for run in &runs {
            assert!(run.passed(), "JUnit {version}: {run:?}\n{source}");
            assert!(!run.executed.is_empty(), "JUnit {version}: {run:?}");
        }
        eprintln!("JUnit {version}: {covered}/{total} branches");
    }
}
