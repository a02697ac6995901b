//! `ctgls generate` on Maven projects: the classpath comes from the real `mvn` (Debian's, with
//! Debian's Maven repository as local repository through a `settings.xml` the way a user's
//! reaches mvn), the JUnit that verifies from the project's own dependencies, and a dependency
//! Maven cannot resolve offline is reported with what to do.

mod support;
use support::{e2e_enabled, Scratch};

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

fn generate(project: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ctgls"))
        .arg("generate")
        .arg("--project")
        .arg(project)
        .args(args)
        .env_remove("CTGLS_LOG")
        .env_remove("CTGLS_JUNIT_CLASSPATH")
        .output()
        .expect("the ctgls binary runs")
}

/// What one `ctgls generate --report` run left: its exit, its stderr and the report it wrote.
struct Run {
    output: Output,
    stderr: String,
    report: Value,
}

/// Generates for `class` in the module at `root` with the scratch project's offline Maven
/// settings and a report beside them; `extra` arguments go last.
fn generate_with_report(
    project: &Scratch,
    root: &Path,
    class: &str,
    budget: &str,
    extra: &[&str],
) -> Run {
    let settings = project.maven_settings();
    let report_path = project.0.join("report.json");
    let _ = std::fs::remove_file(&report_path);
    let mut args = vec![
        "--class",
        class,
        "--budget",
        budget,
        "--maven-settings",
        settings.to_str().expect("utf-8"),
        "--report",
        report_path.to_str().expect("utf-8"),
    ];
    args.extend_from_slice(extra);
    let output = generate(root, &args);
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    let report = match std::fs::read_to_string(&report_path) {
        Ok(text) => serde_json::from_str(&text).expect("the report is JSON"),
        Err(error) => panic!("no report ({error}); stderr:\n{stderr}"),
    };
    Run {
        output,
        stderr,
        report,
    }
}

fn pom(dependencies: &str) -> String {
    format!(
        "<?xml version=\"1.0\"?>\n<project xmlns=\"http://maven.apache.org/POM/4.0.0\">\n  \
         <modelVersion>4.0.0</modelVersion>\n  <groupId>com.acme</groupId>\n  \
         <artifactId>names</artifactId>\n  <version>1.0</version>\n  <dependencies>\n\
         {dependencies}  </dependencies>\n</project>\n"
    )
}

const LANG: &str = "    <dependency><groupId>org.apache.commons</groupId>\
    <artifactId>commons-lang3</artifactId><version>3.12.0</version></dependency>\n";
const JUNIT4: &str = "    <dependency><groupId>junit</groupId><artifactId>junit</artifactId>\
    <version>4.13.2</version><scope>test</scope></dependency>\n";

const NAMES: &str = "package com.acme;\n\nimport org.apache.commons.lang3.StringUtils;\n\n\
public class Names {\n\
    public static String initials(String name) {\n\
        if (StringUtils.isBlank(name)) {\n\
            return \"\";\n\
        }\n\
        StringBuilder out = new StringBuilder();\n\
        for (String part : StringUtils.split(name)) {\n\
            out.append(Character.toUpperCase(part.charAt(0)));\n\
        }\n\
        return out.toString();\n\
    }\n\n\
    public static String shout(String text) {\n\
        String trimmed = StringUtils.trimToEmpty(text);\n\
        if (trimmed.length() > 10) {\n\
            return StringUtils.abbreviate(trimmed, 10).toUpperCase(java.util.Locale.ROOT);\n\
        }\n\
        return trimmed.toUpperCase(java.util.Locale.ROOT) + \"!\";\n\
    }\n\
}\n";

#[test]
fn a_maven_project_using_commons_lang_gets_verified_tests_run_with_its_junit() {
    if !e2e_enabled() {
        eprintln!("skipped: the Maven end-to-end generate test runs with CTGLS_E2E=1");
        return;
    }
    let project = Scratch::new("maven", "names");
    let root = project.0.join("names");
    project.write("names/pom.xml", &pom(&format!("{LANG}{JUNIT4}")));
    project.write("names/src/main/java/com/acme/Names.java", NAMES);
    let Run {
        output,
        stderr,
        report,
    } = generate_with_report(&project, &root, "com.acme.Names", "15", &["--seed", "1"]);
    assert!(
        output.status.success(),
        "stdout:\n{}\nstderr:\n{stderr}",
        String::from_utf8_lossy(&output.stdout)
    );
    assert!(
        stderr.contains("ctgls: resolving the Maven classpath (offline)..."),
        "{stderr}"
    );
    assert!(
        stderr.contains("ctgls: classpath from Maven: 3 entries"),
        "{stderr}"
    );
    assert_eq!(report["classpath"]["tool"], "Maven", "{report}");
    assert_eq!(report["classpath"]["state"], "resolved", "{report}");
    assert_eq!(report["classpath"]["entries"], 3, "{report}");
    let entry = &report["classes"][0];
    assert_eq!(entry["status"], "ok", "{entry}");
    // The project's JUnit 4 (junit:junit from the local repository), found through Maven.
    assert_eq!(entry["junit"], 4, "{entry}");
    assert_eq!(entry["verified_with_junit"], true, "{entry}");
    assert!(
        entry["tests_written"].as_u64().expect("count") > 0,
        "{entry}"
    );
    let test_file = PathBuf::from(entry["test_file"].as_str().expect("written"));
    assert_eq!(
        test_file,
        root.join("src/test/java/com/acme/NamesGeneratedTest.java")
    );
    let source = std::fs::read_to_string(&test_file).expect("the test file exists");
    assert!(source.contains("import org.junit.Test;"), "{source}");

    // A second run: the build files are unchanged, so Maven is not started.
    let Run { output, stderr, .. } =
        generate_with_report(&project, &root, "com.acme.Names", "15", &["--seed", "1"]);
    assert!(output.status.success(), "{stderr}");
    assert!(
        !stderr.contains("resolving the Maven classpath"),
        "{stderr}"
    );
    assert!(
        stderr.contains("ctgls: classpath from Maven, cached: 3 entries"),
        "{stderr}"
    );
}

#[test]
fn a_dependency_missing_offline_is_explained_and_the_poms_declarations_are_used() {
    let project = Scratch::new("maven", "missing");
    let root = project.0.join("p");
    project.write(
        "p/pom.xml",
        &pom(&format!(
            "{LANG}    <dependency><groupId>org.example.absent</groupId>\
             <artifactId>nowhere</artifactId><version>2.1</version></dependency>\n"
        )),
    );
    project.write("p/src/main/java/com/acme/Names.java", NAMES);
    let Run { stderr, report, .. } =
        generate_with_report(&project, &root, "com.acme.Names", "5", &[]);
    assert!(
        stderr.contains(
            "ctgls: Maven could not give the classpath: the local repository lacks \
             org.example.absent:nowhere:jar:2.1"
        ),
        "{stderr}"
    );
    assert!(
        stderr.contains("Run `mvn dependency:resolve` once online in"),
        "{stderr}"
    );
    assert!(
        stderr.contains("`--online` on the command line"),
        "{stderr}"
    );
    // The POM's declarations give commons-lang3 from the local repository: the class compiles.
    assert!(
        stderr.contains(
            "Until then ctgls uses the POMs' declared dependencies from the local repository \
             /usr/share/maven-repo instead: org.apache.commons:commons-lang3 3.12.0; not found: \
             org.example.absent:nowhere:2.1."
        ),
        "{stderr}"
    );
    assert!(!stderr.contains("does not compile"), "{stderr}");
    assert_eq!(report["classpath"]["state"], "fallback", "{report}");
    assert_eq!(report["classes"][0]["status"], "ok", "{report}");
}

#[test]
fn without_the_build_tool_the_classpath_is_guessed() {
    let project = Scratch::new("maven", "off");
    let root = project.0.join("p");
    project.write("p/pom.xml", &pom(LANG));
    project.write("p/src/main/java/com/acme/Names.java", NAMES);
    let output = generate(
        &root,
        &[
            "--class",
            "com.acme.Names",
            "--budget",
            "5",
            "--no-build-tool",
            "--maven",
            "/nonexistent/mvn",
        ],
    );
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(!stderr.contains("Maven"), "{stderr}");
    assert!(stderr.contains("does not compile"), "{stderr}");
}

#[test]
fn a_module_of_a_multi_module_build_gets_verified_tests_with_its_sibling_never_built() {
    if !e2e_enabled() {
        eprintln!("skipped: the Maven end-to-end generate test runs with CTGLS_E2E=1");
        return;
    }
    let project = Scratch::new("maven", "shop");
    project.write(
        "shop/pom.xml",
        "<project xmlns=\"http://maven.apache.org/POM/4.0.0\"><modelVersion>4.0.0</modelVersion>\
         <groupId>com.acme</groupId><artifactId>shop</artifactId><version>1.0</version>\
         <packaging>pom</packaging><modules><module>text</module><module>greet</module>\
         </modules></project>\n",
    );
    let parent = "<parent><groupId>com.acme</groupId><artifactId>shop</artifactId>\
                  <version>1.0</version></parent>";
    project.write(
        "shop/text/pom.xml",
        &format!(
            "<project xmlns=\"http://maven.apache.org/POM/4.0.0\"><modelVersion>4.0.0</modelVersion>\
             {parent}<artifactId>text</artifactId><dependencies>\n{LANG}</dependencies></project>\n"
        ),
    );
    project.write(
        "shop/text/src/main/java/com/acme/text/Text.java",
        "package com.acme.text;\n\nimport org.apache.commons.lang3.StringUtils;\n\n\
         public final class Text {\n    private Text() {}\n\n    \
         public static String clean(String s) {\n        return StringUtils.normalizeSpace(s);\n    }\n}\n",
    );
    project.write(
        "shop/greet/pom.xml",
        &format!(
            "<project xmlns=\"http://maven.apache.org/POM/4.0.0\"><modelVersion>4.0.0</modelVersion>\
             {parent}<artifactId>greet</artifactId><dependencies>\n\
             <dependency><groupId>com.acme</groupId><artifactId>text</artifactId>\
             <version>${{project.version}}</version></dependency>\n{JUNIT4}</dependencies></project>\n"
        ),
    );
    project.write(
        "shop/greet/src/main/java/com/acme/greet/Greeter.java",
        "package com.acme.greet;\n\nimport com.acme.text.Text;\n\n\
         public class Greeter {\n    public String greet(String name) {\n        \
         String clean = Text.clean(name);\n        if (clean == null || clean.isEmpty()) {\n            \
         return \"Hello!\";\n        }\n        return \"Hello, \" + clean + \"!\";\n    }\n}\n",
    );
    let root = project.0.join("shop/greet");
    let Run {
        output,
        stderr,
        report,
    } = generate_with_report(&project, &root, "com.acme.greet.Greeter", "15", &[]);
    assert!(output.status.success(), "{stderr}");
    assert_eq!(report["classpath"]["state"], "resolved", "{report}");
    assert_eq!(report["classpath"]["sibling_sources"], 1, "{report}");
    let entry = &report["classes"][0];
    assert_eq!(entry["status"], "ok", "{entry}");
    assert_eq!(entry["junit"], 4, "{entry}");
    assert_eq!(entry["verified_with_junit"], true, "{entry}");
    assert_eq!(
        entry["branches"]["covered"], entry["branches"]["total"],
        "{entry}"
    );
    assert!(
        !project.0.join("shop/text/target").exists(),
        "the sibling was not built"
    );
}

/// Real projects pin parent POMs the local repository may lack (`commons-parent`, `oss-parent`):
/// Maven then fails on every module, and the POMs' own declarations give the classpath.
#[test]
fn a_module_whose_build_maven_cannot_read_gets_verified_tests_from_the_poms_declarations() {
    if !e2e_enabled() {
        eprintln!("skipped: the Maven end-to-end generate test runs with CTGLS_E2E=1");
        return;
    }
    let project = Scratch::new("maven", "pinned");
    project.write(
        "shop/pom.xml",
        "<project xmlns=\"http://maven.apache.org/POM/4.0.0\"><modelVersion>4.0.0</modelVersion>\
         <parent><groupId>org.example.absent</groupId><artifactId>corporate-parent</artifactId>\
         <version>52</version></parent>\
         <groupId>com.acme</groupId><artifactId>shop</artifactId><version>1.0</version>\
         <packaging>pom</packaging><properties><lang.version>3.14.0</lang.version></properties>\
         <modules><module>text</module><module>greet</module></modules></project>\n",
    );
    let parent = "<parent><groupId>com.acme</groupId><artifactId>shop</artifactId>\
                  <version>1.0</version></parent>";
    project.write(
        "shop/text/pom.xml",
        &format!(
            "<project xmlns=\"http://maven.apache.org/POM/4.0.0\"><modelVersion>4.0.0</modelVersion>\
             {parent}<artifactId>text</artifactId></project>\n"
        ),
    );
    project.write(
        "shop/text/src/main/java/com/acme/text/Text.java",
        "package com.acme.text;\n\npublic final class Text {\n    private Text() {}\n\n    \
         public static String quote(String s) {\n        return \"'\" + s + \"'\";\n    }\n}\n",
    );
    // commons-lang3 3.14.0 and JUnit 4.12 are not in Debian's repository: 3.12.0 and 4.13.2.
    project.write(
        "shop/greet/pom.xml",
        &format!(
            "<project xmlns=\"http://maven.apache.org/POM/4.0.0\"><modelVersion>4.0.0</modelVersion>\
             {parent}<artifactId>greet</artifactId><dependencies>\n\
             <dependency><groupId>com.acme</groupId><artifactId>text</artifactId>\
             <version>${{project.version}}</version></dependency>\n\
             <dependency><groupId>org.apache.commons</groupId><artifactId>commons-lang3</artifactId>\
             <version>${{lang.version}}</version></dependency>\n\
             <dependency><groupId>junit</groupId><artifactId>junit</artifactId>\
             <version>4.12</version><scope>test</scope></dependency>\n</dependencies></project>\n"
        ),
    );
    project.write(
        "shop/greet/src/main/java/com/acme/greet/Greeter.java",
        "package com.acme.greet;\n\nimport com.acme.text.Text;\nimport org.apache.commons.lang3.StringUtils;\n\n\
         public class Greeter {\n    public String greet(String name) {\n        \
         if (StringUtils.isBlank(name)) {\n            return \"Hello!\";\n        }\n        \
         return \"Hello, \" + Text.quote(StringUtils.normalizeSpace(name)) + \"!\";\n    }\n}\n",
    );
    let root = project.0.join("shop/greet");
    let Run {
        output,
        stderr,
        report,
    } = generate_with_report(&project, &root, "com.acme.greet.Greeter", "15", &[]);
    assert!(output.status.success(), "{stderr}");
    assert!(stderr.contains("corporate-parent"), "{stderr}");
    assert!(
        stderr.contains(
            "instead: text (sibling module sources), org.apache.commons:commons-lang3 3.12.0, \
             junit:junit 4.13.2"
        ),
        "{stderr}"
    );
    assert_eq!(report["classpath"]["state"], "fallback", "{report}");
    assert_eq!(report["classpath"]["sibling_sources"], 1, "{report}");
    let entry = &report["classes"][0];
    assert_eq!(entry["status"], "ok", "{entry}");
    assert_eq!(entry["junit"], 4, "{entry}");
    assert_eq!(entry["verified_with_junit"], true, "{entry}");
    assert!(
        entry["tests_written"].as_u64().expect("count") > 0,
        "{entry}"
    );
    assert_eq!(
        entry["branches"]["covered"], entry["branches"]["total"],
        "{entry}"
    );
}
