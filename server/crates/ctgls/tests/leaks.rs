//! Nothing of the developer's machine reaches what ctgls writes: the real binary
//! (`ctgls generate`) on a class that reads a secret-looking environment variable, the user
//! name, the home directory, the host name and files outside the project, with such variables
//! set; then every file ctgls wrote (tests, JSON report, `.ctgls/`) and its output are searched
//! for the secrets, the user name and the host name, and the written tests are run with the real
//! JUnit outside ctgls's sandbox, with the developer's environment, where they must pass. The
//! same class in the language server: its messages, log and `.ctgls/` record hold none of it.

mod support;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use serde_json::json;
use support::{e2e_enabled, Project, Scratch, TestServer};

use ctg::verify::JUnitSetup;
use testcase::junit::JUnit;

const ENV_SECRET: &str = "sk-live-THIS-IS-A-SECRET-12345";
const TOKEN_SECRET: &str = "tok-live-ANOTHER-SECRET-67890";
const FILE_SECRET: &str = "sk-file-SECRET-IN-A-FILE-424242";

fn settings_class(secret_file: &Path) -> String {
    format!(
        r#"package com.example.leak;

import java.io.IOException;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;

public class Settings {{
    private static final String VAULT = "{vault}";
    private final String service;

    public Settings(String service) {{
        if (service == null) {{
            throw new IllegalArgumentException("service");
        }}
        this.service = service;
    }}

    public String getService() {{
        return service;
    }}

    public String authHeader(boolean bearer) {{
        String token = System.getenv("CTGLS_TEST_SECRET");
        return bearer ? "Bearer " + token : "Basic " + token;
    }}

    public String apiToken() {{
        return System.getenv("API_TOKEN");
    }}

    public String owner() {{
        return service + "@" + System.getProperty("user.name");
    }}

    public String homeDirectory() {{
        return System.getProperty("user.home");
    }}

    public String hostName() {{
        try {{
            return InetAddress.getLocalHost().getHostName();
        }} catch (IOException e) {{
            return "unknown";
        }}
    }}

    public String machineName() {{
        return readOrNone("/etc/hostname");
    }}

    public String vaultKey() {{
        return readOrNone(VAULT);
    }}

    public int serviceLength(int extra) {{
        if (extra < 0) {{
            return -1;
        }}
        return service.length() + extra;
    }}

    private static String readOrNone(String path) {{
        try {{
            return new String(Files.readAllBytes(Paths.get(path)), StandardCharsets.UTF_8).trim();
        }} catch (IOException e) {{
            return "none";
        }}
    }}
}}
"#,
        vault = secret_file.display()
    )
}

/// Every file beneath `dir`, with its text (lossy).
fn texts(dir: &Path, out: &mut Vec<(PathBuf, String)>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            texts(&path, out);
        } else if let Ok(bytes) = std::fs::read(&path) {
            out.push((path, String::from_utf8_lossy(&bytes).into_owned()));
        }
    }
}

/// The developer's user name and the host's name as code under test would have read them.
fn machine_identity() -> (String, String) {
    let user = std::env::var("USER")
        .ok()
        .filter(|u| !u.is_empty())
        .or_else(|| {
            let out = Command::new("id").arg("-un").output().ok()?;
            Some(String::from_utf8_lossy(&out.stdout).trim().to_string())
        })
        .expect("a user name");
    let host = std::fs::read_to_string("/etc/hostname")
        .map(|h| h.trim().to_string())
        .unwrap_or_default();
    (user, host)
}

#[test]
fn no_secret_user_or_host_name_reaches_what_ctgls_writes_and_the_tests_pass_anywhere() {
    if !e2e_enabled() {
        eprintln!("skipped: the end-to-end leak test runs with CTGLS_E2E=1");
        return;
    }
    let outside = Scratch::new("leaks", "outside");
    let secret_file = outside.0.join("vault.key");
    std::fs::write(&secret_file, FILE_SECRET).expect("secret file");
    let project = Scratch::new("leaks", "project");
    let source = project
        .0
        .join("src/main/java/com/example/leak/Settings.java");
    std::fs::create_dir_all(source.parent().unwrap()).unwrap();
    std::fs::write(&source, settings_class(&secret_file)).unwrap();
    let report_path = project.0.join("report.json");

    let output = Command::new(env!("CARGO_BIN_EXE_ctgls"))
        .arg("generate")
        .arg("--project")
        .arg(&project.0)
        .args(["--class", "com.example.leak.Settings", "--budget", "20"])
        .args(["--seed", "3", "--report"])
        .arg(&report_path)
        .env("CTGLS_TEST_SECRET", ENV_SECRET)
        .env("API_TOKEN", TOKEN_SECRET)
        .env("CTGLS_LOG", "debug")
        .output()
        .expect("the ctgls binary runs");
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert!(
        output.status.success(),
        "stdout:\n{stdout}\nstderr:\n{stderr}"
    );
    let test_file = project
        .0
        .join("src/test/java/com/example/leak/SettingsGeneratedTest.java");
    let tests = std::fs::read_to_string(&test_file).expect("tests written");
    eprintln!("{tests}");
    assert!(tests.contains("@Test"), "{tests}");
    // The class's own behaviour is still asserted.
    assert!(tests.contains("serviceLength("), "{tests}");

    let mut written = Vec::new();
    texts(&project.0.join("src/test"), &mut written);
    texts(&project.0.join(".ctgls"), &mut written);
    written.push((
        report_path.clone(),
        std::fs::read_to_string(&report_path).unwrap(),
    ));
    written.push((PathBuf::from("<stdout>"), stdout.clone()));
    written.push((PathBuf::from("<stderr>"), stderr.clone()));
    assert!(written.len() >= 5, "{written:?}");
    let (user, host) = machine_identity();
    for (path, text) in &written {
        for secret in [ENV_SECRET, TOKEN_SECRET, FILE_SECRET] {
            assert!(!text.contains(secret), "{secret} in {}", path.display());
        }
        // As a value: the name inside quotes (a Java or JSON string), or a path under the home.
        for quoted in [
            format!("\"{user}\""),
            format!("\"{user}@"),
            format!("@{user}\""),
        ] {
            assert!(
                !contains_as_value(text, &quoted),
                "{quoted} in {}",
                path.display()
            );
        }
        if !host.is_empty() {
            assert!(
                !text.contains(&format!("\"{host}\"")),
                "the host name {host} in {}",
                path.display()
            );
        }
    }
    // What the class read of the machine is never asserted: those lines are comments.
    for call in [
        "authHeader(",
        "apiToken()",
        "owner()",
        "homeDirectory()",
        "hostName()",
        "machineName()",
        "vaultKey()",
    ] {
        for line in tests.lines().filter(|l| l.contains(call)) {
            assert!(
                !line.trim_start().starts_with("assert"),
                "asserted a machine's value: {line}\n{tests}"
            );
        }
    }

    // Nor named: a test name states a value as surely as an assertion.
    for name in tests
        .lines()
        .filter(|l| l.trim_start().starts_with("void "))
    {
        for call in [
            "authHeader",
            "apiToken",
            "owner",
            "homeDirectory",
            "hostName",
            "machine",
            "vault",
        ] {
            assert!(
                !(name.contains(call) && name.contains("Returns")),
                "a machine's value in a test name: {name}"
            );
        }
    }

    // The real JUnit, outside ctgls's sandbox, with the developer's environment (the secrets
    // set): the written tests pass.
    let junit = JUnitSetup::locate(JUnit::Five, &[]).expect("Debian's junit5");
    let classes = project.0.join("out");
    std::fs::create_dir_all(&classes).unwrap();
    let classpath = std::env::join_paths(junit.jars.iter().chain([&classes])).unwrap();
    let javac = Command::new("javac")
        .arg("-d")
        .arg(&classes)
        .arg("-cp")
        .arg(&classpath)
        .arg(&source)
        .arg(&test_file)
        .output()
        .expect("javac runs");
    assert!(
        javac.status.success(),
        "{}",
        String::from_utf8_lossy(&javac.stderr)
    );
    // Verification needs no console launcher (it drives the Launcher API), so the run takes
    // Debian's standalone console jar, as a user's build would take Surefire.
    let run_classpath = std::env::join_paths([
        classes.clone(),
        PathBuf::from("/usr/share/java/junit-platform-console-standalone.jar"),
    ])
    .unwrap();
    let run = Command::new("java")
        .arg("-cp")
        .arg(&run_classpath)
        .arg("org.junit.platform.console.ConsoleLauncher")
        .args(["--disable-banner", "--select-class"])
        .arg("com.example.leak.SettingsGeneratedTest")
        .env("CTGLS_TEST_SECRET", ENV_SECRET)
        .env("API_TOKEN", TOKEN_SECRET)
        .output()
        .expect("JUnit runs");
    assert!(
        run.status.success(),
        "the written tests fail outside the sandbox:\n{}\n{tests}",
        String::from_utf8_lossy(&run.stdout)
    );
}

#[test]
fn the_language_server_publishes_hints_and_nothing_of_the_machine() {
    if !e2e_enabled() {
        eprintln!("skipped: the end-to-end leak test runs with CTGLS_E2E=1");
        return;
    }
    let outside = Scratch::new("leaks", "lsp-outside");
    let secret_file = outside.0.join("vault.key");
    std::fs::write(&secret_file, FILE_SECRET).expect("secret file");
    let project = Project::copy("leaks", "lsp");
    let source = settings_class(&secret_file)
        .replace("package com.example.leak;", "package com.example.bank;");
    std::fs::write(project.file("Settings"), &source).unwrap();
    // The server inherits them, as it inherits the editor's environment. This is the only test
    // of this file that starts a process after setting them, and it sets them before any.
    std::env::set_var("CTGLS_TEST_SECRET", ENV_SECRET);
    std::env::set_var("API_TOKEN", TOKEN_SECRET);
    let mut server = TestServer::start();
    let root = format!("file://{}", project.0.display());
    server.initialize(json!({
        "processId": null,
        "rootUri": root,
        "workspaceFolders": [{ "uri": root, "name": "bank" }],
        "initializationOptions": { "budgetSeconds": 8 },
        "capabilities": { "window": { "workDoneProgress": true } }
    }));
    let uri = project.uri("Settings");
    server.notify(
        "textDocument/didOpen",
        json!({ "textDocument": { "uri": uri, "languageId": "java", "version": 1, "text": source } }),
    );
    let hints = server.wait_for_notification("textDocument/publishDiagnostics", |p| {
        p["uri"] == uri.as_str()
            && p["diagnostics"]
                .as_array()
                .is_some_and(|d| d.iter().any(|d| d["code"] == "nondeterministic-input"))
    });
    let lines: Vec<u64> = hints["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["code"] == "nondeterministic-input")
        .map(|d| d["range"]["start"]["line"].as_u64().unwrap())
        .collect();
    let line_of = |needle: &str| source.lines().position(|l| l.contains(needle)).unwrap() as u64;
    for needle in [
        "System.getenv(\"CTGLS_TEST_SECRET\")",
        "System.getenv(\"API_TOKEN\")",
        "System.getProperty(\"user.name\")",
        "System.getProperty(\"user.home\")",
        "InetAddress.getLocalHost()",
    ] {
        assert!(lines.contains(&line_of(needle)), "{needle}: {hints}");
    }
    // The run ends with its record in the store.
    let store = project.0.join(".ctgls");
    let deadline = Instant::now() + Duration::from_secs(180);
    let recorded = |store: &Path| {
        let mut files = Vec::new();
        texts(store, &mut files);
        files.iter().any(|(_, text)| text.contains("Settings"))
    };
    while !recorded(&store) && Instant::now() < deadline {
        server.pump_for(Duration::from_secs(1));
    }
    assert!(
        recorded(&store),
        "no record of the run in {}",
        store.display()
    );
    server.pump_for(Duration::from_secs(2));
    let mut seen: Vec<(PathBuf, String)> = Vec::new();
    texts(&store, &mut seen);
    for (i, n) in server.notifications.iter().enumerate() {
        seen.push((PathBuf::from(format!("<notification {i}>")), n.to_string()));
    }
    for (method, params) in &server.server_requests {
        seen.push((
            PathBuf::from(format!("<request {method}>")),
            params.to_string(),
        ));
    }
    seen.push((PathBuf::from("<log>"), server.stderr()));
    let (user, host) = machine_identity();
    for (path, text) in &seen {
        for secret in [ENV_SECRET, TOKEN_SECRET, FILE_SECRET] {
            assert!(!text.contains(secret), "{secret} in {}", path.display());
        }
        for quoted in [
            format!("\"{user}\""),
            format!("@{user}\""),
            format!("@{user}\\\""),
        ] {
            assert!(
                !contains_as_value(text, &quoted),
                "{quoted} in {}: {text}",
                path.display()
            );
        }
        if !host.is_empty() {
            for quoted in [format!("\"{host}\""), format!("\\\"{host}\\\"")] {
                assert!(!text.contains(&quoted), "{quoted} in {}", path.display());
            }
        }
    }
    server.shutdown_and_exit();
}

/// Whether `needle` occurs in `text` other than as a JSON object key (`"root":`): the user
/// name here may be `root`, which is also a key of ctgls's own status messages.
fn contains_as_value(text: &str, needle: &str) -> bool {
    text.match_indices(needle)
        .any(|(at, _)| !text[at + needle.len()..].starts_with(':'))
}
