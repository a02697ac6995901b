//! `ctgls generate` on a Java 8 project whose methods take and return JDK collections,
//! `Optional` and `String`, on a newer JDK: the real binary writes tests that use only the JDK
//! API of Java 8 (no `List.of`, `Map.of`, `Optional.isEmpty`, `String.repeat`), so verification
//! drops no test for a symbol javac `--release 8` does not know, and an independent `javac
//! --release 8` compiles the written class. Gated by `CTGLS_E2E=1` (about half a minute).

mod support;
use support::{e2e_enabled, generate_with_report, Scratch};

use std::process::Command;

use ctg::verify::JUnitSetup;
use jvm::Jdk;
use testcase::junit::JUnit;

const POM: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>org.example</groupId>
  <artifactId>tally</artifactId>
  <version>1.0</version>
  <properties>
    <maven.compiler.source>1.8</maven.compiler.source>
    <maven.compiler.target>1.8</maven.compiler.target>
  </properties>
  <dependencies>
    <dependency>
      <groupId>junit</groupId>
      <artifactId>junit</artifactId>
      <version>4.13.2</version>
      <scope>test</scope>
    </dependency>
  </dependencies>
</project>
"#;

/// Java 8 code whose parameters a test fills with JDK values and whose results are JDK values
/// a test asserts on.
const TALLY: &str = r#"package tally;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

public class Tally {
    public int total(List<Integer> amounts) {
        int sum = 0;
        for (Integer amount : amounts) {
            if (amount == null) {
                throw new IllegalArgumentException("missing amount");
            }
            sum += amount;
        }
        return sum;
    }

    public int weight(Map<String, Integer> weights, String key) {
        Integer w = weights.get(key);
        if (w == null) {
            return weights.isEmpty() ? -1 : 0;
        }
        return w > 10 ? 10 : w;
    }

    public Optional<String> first(List<String> names) {
        if (names.isEmpty()) {
            return Optional.empty();
        }
        return Optional.ofNullable(names.get(0));
    }

    public String label(Optional<String> name, String fallback) {
        if (fallback.length() > 3) {
            return name.orElse(fallback).trim();
        }
        return name.isPresent() ? "named" : "anonymous";
    }

    public List<String> names(String csv) {
        List<String> out = new ArrayList<String>();
        for (String part : csv.split(",")) {
            if (!part.trim().isEmpty()) {
                out.add(part.trim());
            }
        }
        return out;
    }
}
"#;

#[test]
fn a_java8_project_gets_tests_of_the_java8_jdk_api() {
    if !e2e_enabled() {
        eprintln!("skipped: the JDK API test runs with CTGLS_E2E=1");
        return;
    }
    let jdk = Jdk::locate(None).expect("a JDK");
    assert!(
        jdk.version.feature > 11,
        "the test needs a JDK whose API is newer than Java 8's and 11's"
    );
    let scratch = Scratch::new("jdk-api", "tally");
    scratch.write("pom.xml", POM);
    scratch.write("src/main/java/tally/Tally.java", TALLY);
    let (output, report) = generate_with_report(
        &scratch.0,
        // The exception criterion would keep the search going to the end of the budget; the
        // bound (far above what this small class needs) ends it sooner.
        &[
            "--budget",
            "20",
            "--max-executions",
            "1500",
            "--seed",
            "1",
            "--class",
            "tally.Tally",
        ],
    );
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert!(
        output.status.success(),
        "stdout:\n{}\nstderr:\n{stderr}",
        String::from_utf8_lossy(&output.stdout)
    );
    assert!(report.is_object(), "no report written: {stderr}");
    let class = &report["classes"][0];
    assert_eq!(class["status"], "ok", "{class:#}");
    assert_eq!(class["verified_with_junit"], true, "{class:#}");
    // Nothing was lost to a JDK member Java 8 lacks: no test or assertion dropped because it
    // did not compile.
    for dropped in class["dropped"].as_array().expect("dropped") {
        let text = dropped.to_string();
        assert!(
            !text.contains("cannot find symbol") && !text.to_lowercase().contains("compile"),
            "dropped at verification: {text}\n{stderr}"
        );
    }
    let test_file = scratch
        .0
        .join("src/test/java/tally/TallyGeneratedTest.java");
    let test = std::fs::read_to_string(&test_file).expect("the test class was written");
    assert!(test.matches("@Test").count() >= 3, "{test}");
    for newer in [
        "List.of(",
        "Map.of(",
        "Set.of(",
        "copyOf(",
        "ofEntries(",
        ".repeat(",
        ".isBlank(",
        ".strip(",
    ] {
        assert!(!test.contains(newer), "`{newer}` in a Java 8 test:\n{test}");
    }

    // Independently: the written class compiles at Java 8 against the project.
    let setup = JUnitSetup::locate(JUnit::Four, &[]).expect("JUnit 4 (tests/run.sh)");
    let out = scratch.0.join("independent");
    let compiled = Command::new(&jdk.javac)
        .args(["--release", "8", "-proc:none", "-d"])
        .arg(&out)
        .arg("-cp")
        .arg(std::env::join_paths(&setup.jars).expect("class path"))
        .arg(scratch.0.join("src/main/java/tally/Tally.java"))
        .arg(&test_file)
        .output()
        .expect("javac runs");
    assert!(
        compiled.status.success(),
        "javac --release 8:\n{}\n{test}",
        String::from_utf8_lossy(&compiled.stderr)
    );
}
