//! `ctgls generate` on long-lived libraries that declare old Java levels (`maven.compiler.source
//! 1.5`, a compiler plugin at 1.7 with a `testSource`): the real binary writes tests that are
//! written for the declared test level (no lambda, no diamond), says once that the JDK compiles
//! at another level, and an independent check compiles project and tests with `javac
//! --release` at the resulting level and runs them on the JDK's own JVM under the real JUnit 4
//! (`JUnitCore`) and JUnit 5 (the console launcher, not ctgls's harness). Gated by
//! `CTGLS_E2E=1` (about a minute).

mod support;
use support::{e2e_enabled, Scratch};

use std::path::{Path, PathBuf};
use std::process::Command;

use ctg::verify::{supported_releases, JUnitSetup, SYSTEM_JAVA_DIR};
use jvm::Jdk;
use serde_json::Value;
use testcase::junit::JUnit;

/// Java 5 code: generics, an enhanced `for`, autoboxing; nothing newer.
const LEDGER: &str = r#"package legacy;

import java.util.ArrayList;
import java.util.List;

public class Ledger {
    private final List<Integer> entries = new ArrayList<Integer>();
    private final String owner;

    public Ledger(String owner) {
        if (owner == null || owner.length() == 0) {
            throw new IllegalArgumentException("owner required");
        }
        this.owner = owner;
    }

    public int record(int amount) {
        if (amount == 0) {
            throw new IllegalArgumentException("zero entry for " + owner);
        }
        entries.add(amount);
        return entries.size();
    }

    public int balance() {
        int sum = 0;
        for (Integer entry : entries) {
            sum += entry;
        }
        return sum;
    }

    public String standing() {
        int balance = balance();
        if (balance < 0) {
            return "overdrawn";
        } else if (balance > 1000) {
            return "wealthy";
        }
        return "fine";
    }

    public Pair<String, Integer> summary() {
        return new Pair<String, Integer>(owner, balance());
    }
}
"#;

const PAIR: &str = r#"package legacy;

public class Pair<A, B> {
    private final A first;
    private final B second;

    public Pair(A first, B second) {
        this.first = first;
        this.second = second;
    }

    public A getFirst() {
        return first;
    }

    public B getSecond() {
        return second;
    }

    public boolean same() {
        return first == null ? second == null : first.equals(second);
    }
}
"#;

struct Project {
    _scratch: Scratch,
    /// The module's directory (the scratch directory, or a module of it).
    dir: PathBuf,
    junit: JUnit,
    /// The declared main and test levels.
    main: u32,
    test: u32,
}

/// A project in `scratch` (its module `module`, "" for the root) with `pom`.
fn project(
    scratch: Scratch,
    module: &str,
    junit: JUnit,
    pom: &str,
    main: u32,
    test: u32,
) -> Project {
    let dir = scratch.0.join(module);
    let prefix = if module.is_empty() {
        String::new()
    } else {
        format!("{module}/")
    };
    scratch.write(&format!("{prefix}pom.xml"), pom);
    scratch.write(&format!("{prefix}src/main/java/legacy/Ledger.java"), LEDGER);
    scratch.write(&format!("{prefix}src/main/java/legacy/Pair.java"), PAIR);
    Project {
        _scratch: scratch,
        dir,
        junit,
        main,
        test,
    }
}

/// A library of 2006: `maven.compiler.source 1.5`, JUnit 4.
fn java5_junit4() -> Project {
    let pom = r#"<?xml version="1.0" encoding="UTF-8"?>
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>org.example</groupId>
  <artifactId>ledger</artifactId>
  <version>1.0</version>
  <properties>
    <maven.compiler.source>1.5</maven.compiler.source>
    <maven.compiler.target>1.5</maven.compiler.target>
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
    project(Scratch::new("levels", "java5"), "", JUnit::Four, pom, 5, 5)
}

/// A module at 1.7 (its compiler plugin, from a property of its parent), in a parent POM of the
/// same tree that sets the tests' level apart; JUnit 5.
fn java7_junit5() -> Project {
    let scratch = Scratch::new("levels", "java7");
    scratch.write(
        "pom.xml",
        r#"<project>
  <modelVersion>4.0.0</modelVersion>
  <groupId>org.example</groupId>
  <artifactId>parent</artifactId>
  <version>1.0</version>
  <packaging>pom</packaging>
  <modules><module>ledger</module></modules>
  <properties>
    <legacy.level>1.7</legacy.level>
    <maven.compiler.testSource>1.7</maven.compiler.testSource>
  </properties>
</project>
"#,
    );
    project(
        scratch,
        "ledger",
        JUnit::Five,
        r#"<project>
  <modelVersion>4.0.0</modelVersion>
  <parent>
    <groupId>org.example</groupId>
    <artifactId>parent</artifactId>
    <version>1.0</version>
  </parent>
  <artifactId>ledger</artifactId>
  <build>
    <plugins>
      <plugin>
        <artifactId>maven-compiler-plugin</artifactId>
        <configuration>
          <source>${legacy.level}</source>
          <target>${legacy.level}</target>
        </configuration>
      </plugin>
    </plugins>
  </build>
  <dependencies>
    <dependency>
      <groupId>org.junit.jupiter</groupId>
      <artifactId>junit-jupiter</artifactId>
      <version>5.9.2</version>
      <scope>test</scope>
    </dependency>
  </dependencies>
</project>
"#,
        7,
        7,
    )
}

fn generate(project: &Project) -> (String, Value) {
    let report = project.dir.join("report.json");
    let output = Command::new(env!("CARGO_BIN_EXE_ctgls"))
        .arg("generate")
        .arg("--project")
        .arg(&project.dir)
        .args(["--budget", "15", "--seed", "1", "--class", "legacy.Ledger"])
        // The exception criterion would keep the search going to the end of the budget; the
        // bound (far above what this small class needs) ends it sooner.
        .args(["--max-executions", "1500"])
        .arg("--report")
        .arg(&report)
        .env_remove("CTGLS_LOG")
        .output()
        .expect("the ctgls binary runs");
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert!(
        output.status.success(),
        "stdout:\n{}\nstderr:\n{stderr}",
        String::from_utf8_lossy(&output.stdout)
    );
    let report: Value =
        serde_json::from_str(&std::fs::read_to_string(&report).expect("report written"))
            .expect("JSON");
    (stderr, report)
}

/// Compiles the project and the written test with `javac --release <release>` and returns the
/// class directory.
fn compile_at(project: &Project, jdk: &Jdk, release: u32, jars: &[PathBuf]) -> PathBuf {
    let out = project.dir.join("independent");
    let _ = std::fs::remove_dir_all(&out);
    let mut sources: Vec<PathBuf> = ["Ledger", "Pair"]
        .iter()
        .map(|c| project.dir.join(format!("src/main/java/legacy/{c}.java")))
        .collect();
    sources.push(
        project
            .dir
            .join("src/test/java/legacy/LedgerGeneratedTest.java"),
    );
    let output = Command::new(&jdk.javac)
        .args(["--release", &release.to_string(), "-proc:none", "-d"])
        .arg(&out)
        .arg("-cp")
        .arg(std::env::join_paths(jars).expect("class path"))
        .args(&sources)
        .output()
        .expect("javac runs");
    assert!(
        output.status.success(),
        "javac --release {release}:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    out
}

/// The class file version javac wrote for `class` (51 for Java 7, 52 for 8).
fn major_version(classes: &Path, class: &str) -> u16 {
    let bytes = std::fs::read(classes.join(format!("{}.class", class.replace('.', "/"))))
        .expect("class file");
    u16::from_be_bytes([bytes[6], bytes[7]])
}

fn check(project: Project) {
    let jdk = Jdk::locate(None).expect("a JDK");
    let supported = supported_releases(&jdk);
    let main_release = supported.closest(project.main);
    let mut test_release = supported.closest(project.test);
    if project.junit == JUnit::Five {
        test_release = test_release.max(supported.closest(8));
    }

    let (stderr, report) = generate(&project);
    let class = &report["classes"][0];
    assert_eq!(class["status"], "ok", "{class:#}");
    let test = std::fs::read_to_string(
        project
            .dir
            .join("src/test/java/legacy/LedgerGeneratedTest.java"),
    )
    .expect("the test class was written");
    assert!(test.matches("@Test").count() >= 3, "{test}");
    for newer in ["->", "<>", "assertThrows", "var "] {
        assert!(
            !test.contains(newer),
            "`{newer}` in a Java {} test:\n{test}",
            project.test
        );
    }
    assert!(
        test.contains("fail(\"Expected IllegalArgumentException\");"),
        "{test}"
    );

    // Said once, in the output and in the report.
    let notes: Vec<&str> = stderr
        .lines()
        .filter(|l| l.starts_with("ctgls: note:"))
        .collect();
    let warnings = report["warnings"].as_array().expect("warnings");
    if main_release != project.main || test_release != project.test {
        assert_eq!(notes.len(), 1, "{stderr}");
        assert_eq!(warnings.len(), 1, "{report:#}");
        assert!(
            notes[0].contains(&format!("Java {test_release}")),
            "{stderr}"
        );
    } else {
        assert!(notes.is_empty() && warnings.is_empty(), "{stderr}");
    }

    // Independently: javac at the resulting level, then the real JUnit on this JDK's JVM.
    let setup = JUnitSetup::locate(project.junit, &[]).expect("JUnit (tests/run.sh)");
    // Everything at the tests' level: the main code's is not newer in these projects.
    let classes = compile_at(&project, &jdk, test_release, &setup.jars);
    assert_eq!(
        major_version(&classes, "legacy.LedgerGeneratedTest"),
        44 + test_release as u16,
        "compiled for Java {test_release}"
    );
    let run = match project.junit {
        JUnit::Four => Command::new(&jdk.java)
            .arg("-cp")
            .arg(
                std::env::join_paths(std::iter::once(classes.clone()).chain(setup.jars.clone()))
                    .unwrap(),
            )
            .args(["org.junit.runner.JUnitCore", "legacy.LedgerGeneratedTest"])
            .output(),
        JUnit::Five => Command::new(&jdk.java)
            .arg("-jar")
            .arg(Path::new(SYSTEM_JAVA_DIR).join("junit-platform-console-standalone.jar"))
            .args(["--disable-banner", "--fail-if-no-tests", "-cp"])
            .arg(&classes)
            .args(["--select-class", "legacy.LedgerGeneratedTest"])
            .output(),
    }
    .expect("the JVM runs");
    let out = String::from_utf8_lossy(&run.stdout);
    assert!(
        run.status.success(),
        "{out}\n{}",
        String::from_utf8_lossy(&run.stderr)
    );
}

#[test]
fn a_java5_library_gets_java5_tests_that_pass_under_junit4() {
    if !e2e_enabled() {
        eprintln!("skipped: the levels test runs with CTGLS_E2E=1");
        return;
    }
    check(java5_junit4());
}

#[test]
fn a_java7_module_gets_java7_tests_that_pass_under_junit5() {
    if !e2e_enabled() {
        eprintln!("skipped: the levels test runs with CTGLS_E2E=1");
        return;
    }
    check(java7_junit5());
}
