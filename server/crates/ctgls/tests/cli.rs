//! The command line outside LSP mode.

use std::process::Command;

fn ctgls(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_ctgls"))
        .args(args)
        .output()
        .expect("the ctgls binary runs")
}

#[test]
fn version() {
    let output = ctgls(&["--version"]);
    assert!(output.status.success());
    assert_eq!(
        String::from_utf8_lossy(&output.stdout),
        format!("ctgls {}\n", env!("CARGO_PKG_VERSION"))
    );
}

#[test]
fn help_lists_the_commands() {
    let output = ctgls(&["--help"]);
    assert!(output.status.success());
    let help = String::from_utf8_lossy(&output.stdout);
    for command in ["ctgls [lsp]", "ctgls model PATH...", "CTGLS_LOG"] {
        assert!(help.contains(command), "{command} in {help}");
    }
}

#[test]
fn unknown_arguments_fail_with_usage() {
    let output = ctgls(&["--frobnicate"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(output.stdout.is_empty());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("unexpected argument '--frobnicate'"),
        "{stderr}"
    );
    assert!(stderr.contains("Usage:"), "{stderr}");
}

#[test]
fn model_of_a_missing_file_is_an_error() {
    let output = ctgls(&["model", "/nonexistent/Missing.java"]);
    assert_eq!(output.status.code(), Some(1));
    assert!(output.stdout.is_empty());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("cannot read /nonexistent/Missing.java"),
        "{stderr}"
    );
}

/// The README's quick-start command, on the bundled example project.
#[test]
fn model_of_the_example_project() {
    let output = in_bank(&["model", "src/main/java"]);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    expect_test::expect_file!["snapshots/bank-model.txt"]
        .assert_eq(&String::from_utf8_lossy(&output.stdout));
}

#[test]
fn model_of_a_directory_without_java_files_is_an_error() {
    let empty = std::env::temp_dir().join(format!("ctgls-cli-empty-{}", std::process::id()));
    std::fs::create_dir_all(&empty).expect("temp dir");
    let output = ctgls(&["model", empty.to_str().expect("utf-8 temp path")]);
    std::fs::remove_dir_all(&empty).ok();
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("no .java files under"), "{stderr}");
}

/// `ctgls ARGS` run in the example project `tests/projects/bank`.
fn in_bank(args: &[&str]) -> std::process::Output {
    let project =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../tests/projects/bank");
    Command::new(env!("CARGO_BIN_EXE_ctgls"))
        .current_dir(&project)
        .args(args)
        .output()
        .expect("the ctgls binary runs")
}

const BANK: &str = "src/main/java/com/example/bank/Bank.java";
const ACCOUNT: &str = "src/main/java/com/example/bank/Account.java";

/// `ctgls model CALLER --callee CALLEE`: the coupled branches of the example project's `Bank`
/// (the caller) with `Account`: calls through locals of enhanced fors, locals and a `new`.
#[test]
fn coupled_branches_of_the_example_project() {
    let output = in_bank(&["model", BANK, "--callee", ACCOUNT]);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    expect_test::expect_file!["snapshots/bank-coupling.txt"]
        .assert_eq(&String::from_utf8_lossy(&output.stdout));
}

#[test]
fn coupled_branches_of_a_class_the_file_lacks_is_an_error() {
    let output = in_bank(&[
        "model",
        BANK,
        "--callee",
        ACCOUNT,
        "--classes",
        "Bank:Nobody",
    ]);
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("no type Nobody"), "{stderr}");
}
