//! The build tool's classpath in the editor: the real binary over stdio, the real `mvn`
//! (Debian's, with Debian's Maven repository as local repository through a `settings.xml`
//! given as `mavenSettings`), the real JVM worker. Gated by `CTGLS_E2E=1`.

mod support;

use std::path::PathBuf;
use std::time::Duration;

use serde_json::{json, Value};
use support::{e2e_enabled, TestServer};

const RUN_TIMEOUT: Duration = Duration::from_secs(180);

/// A scratch Maven project removed on drop.
struct Project(PathBuf);

impl Project {
    fn new(name: &str, dependencies: &str) -> Project {
        let dir =
            std::env::temp_dir().join(format!("ctgls-lsp-maven-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("src/main/java/com/acme")).unwrap();
        std::fs::write(
            dir.join("pom.xml"),
            format!(
                "<project xmlns=\"http://maven.apache.org/POM/4.0.0\"><modelVersion>4.0.0</modelVersion>\
                 <groupId>com.acme</groupId><artifactId>names</artifactId><version>1.0</version>\
                 <dependencies><dependency><groupId>org.apache.commons</groupId>\
                 <artifactId>commons-lang3</artifactId><version>3.12.0</version></dependency>\
                 {dependencies}</dependencies></project>\n"
            ),
        )
        .unwrap();
        std::fs::write(
            dir.join("src/main/java/com/acme/Names.java"),
            "package com.acme;\n\nimport org.apache.commons.lang3.StringUtils;\n\n\
             public class Names {\n    public static String shout(String text) {\n        \
             if (StringUtils.isBlank(text)) {\n            return \"\";\n        }\n        \
             return StringUtils.upperCase(text.trim()) + \"!\";\n    }\n}\n",
        )
        .unwrap();
        std::fs::write(
            dir.join("settings.xml"),
            "<settings><offline>true</offline>\
             <localRepository>/usr/share/maven-repo</localRepository></settings>\n",
        )
        .unwrap();
        Project(dir)
    }

    fn uri(&self) -> String {
        format!(
            "file://{}",
            self.0.join("src/main/java/com/acme/Names.java").display()
        )
    }

    fn start(&self) -> TestServer {
        let mut server = TestServer::start();
        server.initialize(json!({
            "processId": null,
            "rootUri": format!("file://{}", self.0.display()),
            "workspaceFolders": [{ "uri": format!("file://{}", self.0.display()), "name": "names" }],
            "initializationOptions": {
                "mavenSettings": self.0.join("settings.xml"),
                "budgetSeconds": 5,
                "idleDelayMs": 50
            },
            "capabilities": { "window": { "workDoneProgress": true } }
        }));
        let text =
            std::fs::read_to_string(self.0.join("src/main/java/com/acme/Names.java")).unwrap();
        server.notify(
            "textDocument/didOpen",
            json!({ "textDocument": { "uri": self.uri(), "languageId": "java", "version": 1, "text": text } }),
        );
        server
    }
}

impl Drop for Project {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn classpath_status(server: &mut TestServer, state: &str) -> Value {
    server.wait_for_notification_within("ctgls/status", RUN_TIMEOUT, |s| {
        s["classpaths"][0]["state"] == state
    })
}

#[test]
fn maven_gives_the_classpath_with_progress_then_the_cache_does() {
    if !e2e_enabled() {
        eprintln!("skipped: the editor's Maven test runs with CTGLS_E2E=1");
        return;
    }
    let project = Project::new("resolved", "");
    let mut server = project.start();
    server.wait_for_notification_within("$/progress", RUN_TIMEOUT, |p| {
        p["value"]["message"] == "resolving the Maven classpath"
    });
    let status = classpath_status(&mut server, "resolved");
    assert_eq!(status["classpaths"][0]["tool"], "Maven", "{status}");
    assert_eq!(status["classpaths"][0]["entries"], 1, "{status}");
    // The class compiles against commons-lang3 and gets tests.
    let done = server.wait_for_notification_within("ctgls/status", RUN_TIMEOUT, |s| {
        s["classes"][0]["origin"] == "run"
    });
    assert!(done["classes"][0]["problem"].is_null(), "{done}");
    assert!(done["classes"][0]["tests"].as_u64().unwrap() > 0, "{done}");
    server.shutdown_and_exit();

    // A new server: the cache answers, Maven is not run.
    let mut server = project.start();
    classpath_status(&mut server, "cached");
    server.pump_for(Duration::from_millis(200));
    assert!(
        !server
            .notifications
            .iter()
            .any(|n| n["method"] == "$/progress"
                && n["params"]["value"]["message"] == "resolving the Maven classpath"),
        "Maven ran again"
    );
    server.shutdown_and_exit();
}

#[test]
fn a_dependency_missing_offline_is_shown_with_what_to_do_and_the_poms_declarations_used() {
    if !e2e_enabled() {
        eprintln!("skipped: the editor's Maven test runs with CTGLS_E2E=1");
        return;
    }
    let project = Project::new(
        "missing",
        "<dependency><groupId>org.example.absent</groupId><artifactId>nowhere</artifactId>\
         <version>2.1</version></dependency>",
    );
    let mut server = project.start();
    let shown = server.wait_for_notification_within("window/showMessage", RUN_TIMEOUT, |p| {
        p["message"]
            .as_str()
            .is_some_and(|m| m.contains("Maven could not give the classpath"))
    });
    let message = shown["message"].as_str().unwrap();
    assert!(
        message.contains("org.example.absent:nowhere:jar:2.1"),
        "{message}"
    );
    assert!(message.contains("`buildToolOffline: false`"), "{message}");
    // Meanwhile the POM's declarations give commons-lang3 from the local repository.
    assert!(
        message.contains(
            "Until then ctgls uses the POMs' declared dependencies from the local repository \
             /usr/share/maven-repo instead: org.apache.commons:commons-lang3 3.12.0"
        ),
        "{message}"
    );
    assert!(
        message.contains("not found: org.example.absent:nowhere:2.1"),
        "{message}"
    );
    let status = classpath_status(&mut server, "fallback");
    assert!(
        status["classpaths"][0]["message"]
            .as_str()
            .unwrap()
            .contains("mvn dependency:resolve"),
        "{status}"
    );
    assert_eq!(status["classpaths"][0]["entries"], 1, "{status}");
    // On that classpath the class compiles and gets tests.
    let done = server.wait_for_notification_within("ctgls/status", RUN_TIMEOUT, |s| {
        s["classes"][0]["origin"] == "run"
    });
    assert!(done["classes"][0]["problem"].is_null(), "{done}");
    assert!(done["classes"][0]["tests"].as_u64().unwrap() > 0, "{done}");
    server.shutdown_and_exit();
}
