//! `ctgls generate` on a real project as Debian's source package ships it, unedited: the
//! smallest case of the corpus (`tests/corpus/`, docs/benchmarks.md "Real projects,
//! unmodified"), run by the corpus script itself, which fetches the project, runs this build's
//! ctgls on it as a user would and then checks the written tests outside ctgls with javac, the
//! real JUnit in a plain JVM and JaCoCo.

mod support;
use support::e2e_enabled;

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

fn repository() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../..")
}

/// java-diff-utils 4.9: a multi-module Maven build declaring Java 8 whose tests use JUnit 5;
/// `Chunk` is a public class with branches in its verification and equality methods. Fetching
/// it needs the network (`apt-get source`, once; later runs reuse `target/corpus`), and root or
/// sudo the first time for the `deb-src` entry and the Debian packages.
#[test]
fn generate_writes_verified_tests_for_an_unedited_debian_project() {
    if !e2e_enabled() {
        return;
    }
    let results = std::env::temp_dir().join(format!("ctgls-real-project-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&results);
    let output = Command::new("bash")
        .arg("tests/corpus/run.sh")
        .arg("java-diff-utils")
        .current_dir(repository())
        .env("CTGLS_BIN", env!("CARGO_BIN_EXE_ctgls"))
        .env("CTGLS_CORPUS_CLASSES", "com.github.difflib.patch.Chunk")
        .env("CTGLS_CORPUS_RESULTS", &results)
        .output()
        .expect("bash runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "tests/corpus/run.sh failed (fetching needs the network and apt: see its message):\n{stderr}"
    );
    let summary: Value = serde_json::from_str(
        &std::fs::read_to_string(results.join("summary.json")).expect("summary.json written"),
    )
    .expect("summary.json is JSON");
    let classes = summary["classes"].as_array().expect("classes");
    assert_eq!(classes.len(), 1, "{summary}");
    let class = &classes[0];
    assert_eq!(class["class"], "com.github.difflib.patch.Chunk", "{class}");
    // Verified means: ctgls verified them with JUnit, and here they compiled with plain javac
    // and passed under the real JUnit launcher in a JVM without ctgls's sandbox.
    assert_eq!(
        class["verified"], true,
        "no verified tests: {class}\n{stderr}"
    );
    assert!(class["tests"].as_u64().unwrap_or(0) > 0, "{class}");
    assert_eq!(
        class["junit"], 5,
        "the project's tests use JUnit 5: {class}"
    );
    let covered = class["jacoco"]["covered"]
        .as_u64()
        .expect("JaCoCo measured");
    let total = class["jacoco"]["total"].as_u64().expect("JaCoCo measured");
    // The tests reach the class: the figure itself depends on the machine's load (the budget is
    // wall-clock), which docs/benchmarks.md records instead.
    assert!(
        total > 0 && covered > 0,
        "JaCoCo covers {covered} of {total} branches of Chunk: {class}"
    );
    // The fetched tree stays pristine: the tests went into the run's copy.
    let corpus = std::env::var_os("CTGLS_CORPUS")
        .filter(|dir| !dir.is_empty())
        .map_or_else(|| repository().join("target/corpus"), PathBuf::from);
    let pristine = corpus.join("src/java-diff-utils/java-diff-utils");
    assert!(
        !pristine
            .join("src/test/java/com/github/difflib/patch/ChunkGeneratedTest.java")
            .exists(),
        "ctgls wrote into the fetched source"
    );
    let _ = std::fs::remove_dir_all(&results);
}
