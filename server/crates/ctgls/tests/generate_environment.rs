//! `ctgls generate` on a class whose code writes files outside any temporary directory, end to
//! end (with `CTGLS_E2E=1`): the real binary, worker and sandbox, then the written tests compiled
//! with javac and run by the plain JUnit console launcher, without any sandbox, in the project
//! directory, as a user would. They must pass, and write neither the file at the absolute path
//! nor the one relative to the working directory; the report names both.

mod support;
use support::{e2e_enabled, Scratch};

use std::path::{Path, PathBuf};
use std::process::Command;

use ctg::verify::JUnitSetup;
use serde_json::Value;
use testcase::junit::JUnit;

/// `export` writes a report at an absolute path outside the project's temporary files and
/// answers false when it cannot (the sandbox's refusal swallowed); `save` writes a path
/// relative to the working directory; `twice` needs nothing.
fn exporter(victim: &Path) -> String {
    format!(
        r#"package env;

import java.io.FileOutputStream;
import java.io.FileWriter;
import java.io.IOException;
import java.io.Writer;

public class Exporter {{
    public boolean export(int n) {{
        if (n < 0) {{
            return false;
        }}
        try (FileOutputStream out = new FileOutputStream("{victim}")) {{
            out.write(n);
            return true;
        }} catch (IOException e) {{
            return false;
        }}
    }}

    public void save(int n) throws IOException {{
        if (n == 7) {{
            throw new IllegalArgumentException("seven");
        }}
        try (Writer w = new FileWriter("exporter-cache.txt")) {{
            w.write(n);
        }}
    }}

    public int twice(int n) {{
        return n * 2;
    }}
}}
"#,
        victim = victim.display()
    )
}

fn files_in(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).expect("readable") {
            let path = entry.expect("entry").path();
            if path.is_dir() {
                stack.push(path);
            } else {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

#[test]
fn tests_that_need_the_environment_are_not_written_and_the_rest_pass_unsandboxed() {
    if !e2e_enabled() {
        eprintln!("skipped: the end-to-end generate test runs with CTGLS_E2E=1");
        return;
    }
    let project = Scratch::new("env", "project");
    let elsewhere = Scratch::new("env", "elsewhere");
    let victim = elsewhere.0.join("report.txt");
    let source = project.0.join("src/main/java/env/Exporter.java");
    std::fs::create_dir_all(source.parent().unwrap()).unwrap();
    std::fs::write(&source, exporter(&victim)).unwrap();
    let report_path = project.0.join("report.json");
    let output = Command::new(env!("CARGO_BIN_EXE_ctgls"))
        .arg("generate")
        .arg("--project")
        .arg(&project.0)
        .args(["--class", "env.Exporter", "--budget", "20", "--seed", "2"])
        .arg("--report")
        .arg(&report_path)
        .env_remove("CTGLS_LOG")
        .output()
        .expect("the ctgls binary runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "stdout:\n{stdout}\nstderr:\n{stderr}"
    );
    assert!(stdout.contains("environment"), "summary column:\n{stdout}");
    assert!(!victim.exists(), "the sandbox kept the search's writes out");

    let report: Value = serde_json::from_str(&std::fs::read_to_string(&report_path).unwrap())
        .expect("the report is JSON");
    let entry = &report["classes"][0];
    assert_eq!(entry["status"], "ok", "{entry}");
    let needs = entry["needs_environment"].as_array().expect("a list");
    let export = needs
        .iter()
        .find(|n| n["target"] == victim.display().to_string())
        .unwrap_or_else(|| panic!("the absolute write is named: {needs:#?}"));
    assert_eq!(export["kind"], "file");
    assert_eq!(export["action"], "writes");
    assert_eq!(export["method"], "env.Exporter#export(int)");
    assert_eq!(export["line"], 13);
    assert!(!export["goals"].as_array().unwrap().is_empty());

    let test_file = PathBuf::from(entry["test_file"].as_str().expect("tests were written"));
    let tests = std::fs::read_to_string(&test_file).unwrap();
    for refusal in ["Permission denied", "FileNotFoundException", "AccessDenied"] {
        assert!(!tests.contains(refusal), "{refusal} asserted:\n{tests}");
    }
    assert!(tests.contains("twice("), "{tests}");

    // Compiled and run as the user would: plain javac and the JUnit console launcher, no
    // sandbox, the project directory as the working directory.
    let before = files_in(&project.0);
    let junit = JUnitSetup::locate(JUnit::Five, &[]).expect("Debian's junit5 (tests/run.sh)");
    let classpath_jars: Vec<String> = junit.jars.iter().map(|j| j.display().to_string()).collect();
    let out = Scratch::new("env", "classes");
    let javac = Command::new("javac")
        .arg("-d")
        .arg(&out.0)
        .arg("-cp")
        .arg(classpath_jars.join(":"))
        .arg(&source)
        .arg(&test_file)
        .output()
        .expect("javac runs");
    assert!(
        javac.status.success(),
        "{}",
        String::from_utf8_lossy(&javac.stderr)
    );
    // The console launcher is not among the jars verification needs (it drives the Launcher
    // API itself), so the run takes Debian's standalone console jar, as a user's build would
    // take Surefire.
    let classpath = [
        out.0.display().to_string(),
        "/usr/share/java/junit-platform-console-standalone.jar".to_string(),
    ];
    let run = Command::new("java")
        .current_dir(&project.0)
        .arg("-cp")
        .arg(classpath.join(":"))
        .arg("org.junit.platform.console.ConsoleLauncher")
        .args(["--disable-banner", "--details=summary"])
        .args(["--select-class", "env.ExporterGeneratedTest"])
        .output()
        .expect("java runs");
    let run_out = String::from_utf8_lossy(&run.stdout);
    assert!(
        run.status.success(),
        "the written tests pass unsandboxed:\n{run_out}\n{}",
        String::from_utf8_lossy(&run.stderr)
    );
    assert!(run_out.contains("tests successful"), "{run_out}");
    assert!(
        !victim.exists(),
        "no written test writes {}",
        victim.display()
    );
    assert_eq!(
        files_in(&project.0),
        before,
        "no written test writes into the project"
    );
}
