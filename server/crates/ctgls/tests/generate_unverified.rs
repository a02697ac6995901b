//! `ctgls generate` when the tests cannot be verified for a reason outside the class (issue
//! #15): `CTGLS_JUNIT_CLASSPATH` names JUnit 4's jars for tests written for JUnit 5, so ctgls's
//! JUnit 5 harness cannot compile. The search's coverage is still printed and reported, with
//! the reason; no test file is written, and the command fails. Gated by `CTGLS_E2E=1` (the real
//! worker and javac; about 15 s).

mod support;
use support::{e2e_enabled, Scratch};

use std::process::Command;

use serde_json::Value;

#[test]
fn a_failed_verification_reports_the_coverage_and_the_reason() {
    if !e2e_enabled() {
        eprintln!("skipped: the unverified generate test runs with CTGLS_E2E=1");
        return;
    }
    let junit4 = [
        "/usr/share/java/junit4.jar",
        "/usr/share/java/hamcrest-core.jar",
    ];
    assert!(
        junit4.iter().all(|jar| std::path::Path::new(jar).is_file()),
        "Debian's junit4 (tests/run.sh installs it)"
    );
    let project = Scratch::new("generate-unverified", "sign");
    let source = project.0.join("src/main/java/p/Sign.java");
    std::fs::create_dir_all(source.parent().unwrap()).unwrap();
    std::fs::write(
        &source,
        "package p;\npublic class Sign {\n    public static int of(int x) {\n        if (x > 0) { return 1; }\n        if (x < 0) { return -1; }\n        return 100 / x;\n    }\n}\n",
    )
    .unwrap();
    let report = project.0.join("report.json");
    let output = Command::new(env!("CARGO_BIN_EXE_ctgls"))
        .arg("generate")
        .arg("--project")
        .arg(&project.0)
        .args(["--class", "p.Sign", "--budget", "6", "--junit", "5"])
        .arg("--report")
        .arg(&report)
        .env("CTGLS_JUNIT_CLASSPATH", junit4.join(":"))
        .env_remove("CTGLS_LOG")
        .output()
        .expect("the ctgls binary runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stdout}\n{stderr}");
    assert!(
        stderr.contains("the tests could not be verified and none was written"),
        "{stderr}"
    );
    assert!(stderr.contains("CTGLS_JUNIT_CLASSPATH"), "{stderr}");
    // The summary has the class's coverage, and says its tests are unverified.
    let row = stdout
        .lines()
        .find(|line| line.starts_with("p.Sign"))
        .unwrap_or_else(|| panic!("a row for p.Sign:\n{stdout}"));
    assert!(row.contains("4/4 100%"), "{row}");
    assert!(row.contains("unverified"), "{row}");
    assert!(
        !project.0.join("src/test").exists(),
        "no test file is written"
    );

    let report: Value =
        serde_json::from_str(&std::fs::read_to_string(&report).expect("the report")).unwrap();
    let class = &report["classes"][0];
    assert_eq!(class["status"], "unverified", "{class:#}");
    let reason = class["verification_error"].as_str().expect("a reason");
    assert!(reason.contains("p.Sign"), "{reason}");
    assert_eq!(class["branches"]["covered"], 4);
    assert_eq!(class["branches"]["total"], 4);
    assert_eq!(class["verified_with_junit"], false);
    assert_eq!(class["tests_written"], 0);
    assert_eq!(class["test_file"], Value::Null);
    let exceptions = class["undeclared_exceptions"]
        .as_array()
        .expect("exceptions");
    assert!(
        exceptions
            .iter()
            .any(|e| e["exception"] == "java.lang.ArithmeticException"),
        "{exceptions:#?}"
    );
}
