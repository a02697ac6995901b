//! `ctgls report`: SARIF and HTML from a JSON report of the example project (a real run's,
//! `tests/fixtures/bank-report.json`, made by `ctgls generate --report` on
//! `tests/projects/bank` with its paths made project-relative).
//!
//! Always: the SARIF file against its snapshot (`UPDATE_EXPECT=1` refreshes it) and the
//! constraints GitHub code scanning documents for uploaded SARIF. With `CTGLS_E2E=1`: the
//! SARIF file validated by Microsoft's SARIF Multitool against the SARIF 2.1.0 schema and its
//! GitHub rules (`CTGLS_SARIF_MULTITOOL`, installed by tests/run.sh), and the HTML report
//! rendered by headless Chromium (Debian's `chromium`) into screenshots.

mod support;

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;
use support::{e2e_enabled, Scratch};

fn manifest_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn bank_project() -> PathBuf {
    manifest_dir().join("../../../tests/projects/bank")
}

fn fixture_report() -> PathBuf {
    manifest_dir().join("tests/fixtures/bank-report.json")
}

/// `ctgls report --from <fixture> --project <bank> <args>`, which must succeed.
fn ctgls_report(args: &[&str]) {
    let output = Command::new(env!("CARGO_BIN_EXE_ctgls"))
        .arg("report")
        .arg("--from")
        .arg(fixture_report())
        .arg("--project")
        .arg(bank_project())
        .args(args)
        .output()
        .expect("ctgls runs");
    assert!(
        output.status.success(),
        "ctgls report failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
}

fn sarif_of_fixture(scratch: &Scratch) -> (PathBuf, Value) {
    let path = scratch.0.join("ctgls.sarif");
    ctgls_report(&["--sarif", path.to_str().unwrap()]);
    let sarif: Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).expect("SARIF is JSON");
    (path, sarif)
}

#[test]
fn sarif_matches_its_snapshot_and_what_github_code_scanning_requires() {
    let scratch = Scratch::new("report", "sarif");
    let (_, mut sarif) = sarif_of_fixture(&scratch);
    assert_eq!(github_violations(&sarif), Vec::<String>::new());

    // The project root is the one machine-dependent value.
    let root = &mut sarif["runs"][0]["originalUriBaseIds"]["%SRCROOT%"]["uri"];
    let canonical = std::fs::canonicalize(bank_project()).unwrap();
    assert_eq!(
        root.as_str(),
        Some(format!("file://{}/", canonical.display()).as_str())
    );
    *root = Value::from("file:///PROJECT/");
    let text = serde_json::to_string_pretty(&sarif).unwrap() + "\n";
    expect_test::expect_file!["snapshots/bank-report.sarif"].assert_eq(&text);
}

#[test]
fn the_constraint_check_finds_what_github_would_reject() {
    let scratch = Scratch::new("report", "violations");
    let (_, sarif) = sarif_of_fixture(&scratch);
    let broken = |edit: &dyn Fn(&mut Value)| {
        let mut copy = sarif.clone();
        edit(&mut copy);
        github_violations(&copy)
    };
    assert!(!broken(&|s| s["version"] = "2.0.0".into()).is_empty());
    assert!(
        !broken(&|s| s["runs"][0]["results"][0]["locations"] = Value::Array(vec![])).is_empty()
    );
    assert!(!broken(&|s| s["runs"][0]["results"][0]["ruleIndex"] = 7.into()).is_empty());
    assert!(!broken(&|s| {
        s["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] =
            "file:///home/x/A.java".into()
    })
    .is_empty());
    assert!(
        !broken(&|s| s["runs"][0]["tool"]["driver"]["rules"][0]["help"] = Value::Null).is_empty()
    );
    assert!(!broken(&|s| s["runs"][0]["results"][0]["relatedLocations"] = Value::Null).is_empty());
}

/// What GitHub code scanning documents about uploaded SARIF ("SARIF support for code
/// scanning"), as a list of violations: the properties it reads, the limits it enforces.
fn github_violations(sarif: &Value) -> Vec<String> {
    let mut out = Vec::new();
    let mut check = |ok: bool, what: String| {
        if !ok {
            out.push(what);
        }
    };
    check(sarif["version"] == "2.1.0", "version must be 2.1.0".into());
    check(sarif["$schema"].is_string(), "$schema".into());
    let runs = sarif["runs"].as_array().cloned().unwrap_or_default();
    check(!runs.is_empty() && runs.len() <= 20, "1 to 20 runs".into());
    for run in &runs {
        let driver = &run["tool"]["driver"];
        check(
            driver["name"].as_str().is_some_and(|n| !n.is_empty()),
            "tool.driver.name".into(),
        );
        let rules = driver["rules"].as_array().cloned().unwrap_or_default();
        check(rules.len() <= 25_000, "at most 25,000 rules".into());
        for rule in &rules {
            let id = rule["id"].as_str().unwrap_or("");
            check(!id.is_empty(), "rule id".into());
            for field in ["shortDescription", "fullDescription", "help"] {
                check(
                    rule[field]["text"].as_str().is_some_and(|t| !t.is_empty()),
                    format!("rule {id}: {field}.text"),
                );
            }
            check(
                matches!(
                    rule["defaultConfiguration"]["level"].as_str(),
                    Some("none" | "note" | "warning" | "error")
                ),
                format!("rule {id}: defaultConfiguration.level"),
            );
            let tags = rule["properties"]["tags"].as_array().map_or(0, Vec::len);
            check(tags <= 20, format!("rule {id}: at most 20 tags"));
        }
        let bases = &run["originalUriBaseIds"];
        if let Some(bases) = bases.as_object() {
            for (name, base) in bases {
                check(
                    base["uri"]
                        .as_str()
                        .is_none_or(|u| u.starts_with("file:///") && u.ends_with('/')),
                    format!("originalUriBaseIds.{name}: an absolute URI ending in /"),
                );
            }
        }
        let results = run["results"].as_array().cloned().unwrap_or_default();
        check(results.len() <= 25_000, "at most 25,000 results".into());
        for (index, result) in results.iter().enumerate() {
            let rule = result["ruleId"].as_str().unwrap_or("");
            let at = format!("result {index} ({rule})");
            let rule_index = result["ruleIndex"].as_u64().map(|i| i as usize);
            check(
                rule_index
                    .and_then(|i| rules.get(i))
                    .is_some_and(|r| r["id"] == rule),
                format!("{at}: ruleIndex names its rule"),
            );
            check(
                matches!(
                    result["level"].as_str(),
                    Some("none" | "note" | "warning" | "error")
                ),
                format!("{at}: level"),
            );
            let message = result["message"]["text"].as_str().unwrap_or("");
            check(!message.is_empty(), format!("{at}: message.text"));
            let locations = result["locations"].as_array().cloned().unwrap_or_default();
            check(
                !locations.is_empty() && locations.len() <= 10,
                format!("{at}: 1 to 10 locations"),
            );
            let related = result["relatedLocations"]
                .as_array()
                .cloned()
                .unwrap_or_default();
            check(
                related.len() <= 1000,
                format!("{at}: at most 1,000 related locations"),
            );
            for location in locations.iter().chain(&related) {
                let physical = &location["physicalLocation"];
                let uri = physical["artifactLocation"]["uri"].as_str().unwrap_or("");
                check(
                    !uri.is_empty() && !uri.contains(':') && !uri.starts_with('/'),
                    format!("{at}: a relative uri, got {uri:?}"),
                );
                let base = physical["artifactLocation"]["uriBaseId"].as_str();
                check(
                    base.is_none_or(|b| !bases[b].is_null()),
                    format!("{at}: uriBaseId {base:?} declared"),
                );
                let start = physical["region"]["startLine"].as_u64().unwrap_or(0);
                check(start >= 1, format!("{at}: region.startLine >= 1"));
                if let Some(end) = physical["region"]["endLine"].as_u64() {
                    check(end >= start, format!("{at}: endLine >= startLine"));
                }
            }
            // Links in the message, `[text](id)`, point at related locations.
            let mut rest = message;
            while let Some(open) = rest.find("](") {
                let after = &rest[open + 2..];
                let close = after.find(')').unwrap_or(after.len());
                let id: Option<u64> = after[..close].parse().ok();
                check(
                    id.is_some_and(|id| related.iter().any(|r| r["id"] == id)),
                    format!(
                        "{at}: message link {:?} names a related location",
                        &after[..close]
                    ),
                );
                rest = &after[close..];
            }
            if let Some(fingerprints) = result["partialFingerprints"].as_object() {
                check(
                    fingerprints.values().all(Value::is_string),
                    format!("{at}: partialFingerprints are strings"),
                );
            }
        }
    }
    out
}

#[test]
fn sarif_validates_with_the_sarif_multitool() {
    if !e2e_enabled() {
        eprintln!("skipped: the SARIF Multitool check runs with CTGLS_E2E=1");
        return;
    }
    let multitool = std::env::var_os("CTGLS_SARIF_MULTITOOL")
        .map(PathBuf::from)
        .filter(|path| path.is_file())
        .expect(
            "CTGLS_SARIF_MULTITOOL names the SARIF Multitool binary (tests/run.sh installs \
             @microsoft/sarif-multitool-linux from npm)",
        );
    let scratch = Scratch::new("report", "multitool");
    let (path, _) = sarif_of_fixture(&scratch);
    let log = scratch.0.join("validation.sarif");
    // SARIF2005 also asks for the driver's `informationUri`, which SARIF 2.1.0 leaves optional
    // and ctgls gives only when its build names a repository or homepage (Cargo's
    // `repository`, `homepage`): the rule's own option turns that one check off, and its
    // others (a version, a short tool name) still apply.
    let policy = scratch.0.join("policy.xml");
    let uri_required =
        !env!("CARGO_PKG_REPOSITORY").is_empty() || !env!("CARGO_PKG_HOMEPAGE").is_empty();
    std::fs::write(
        &policy,
        format!(
            "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<Properties>\n  <Properties \
             Key=\"SARIF2005.ProvideToolProperties.Options\">\n    <Property \
             Key=\"InformationUriRequired\" Value=\"{}\" />\n  </Properties>\n</Properties>\n",
            if uri_required { "True" } else { "False" }
        ),
    )
    .unwrap();
    let output = Command::new(&multitool)
        .arg("validate")
        .arg(&path)
        .args([
            "--rule-kind",
            "Gh;Sarif",
            "--level",
            "Error;Warning",
            "--config",
        ])
        .arg(&policy)
        .arg("--output")
        .arg(&log)
        .args(["--log", "ForceOverwrite"])
        .env("DOTNET_SYSTEM_GLOBALIZATION_INVARIANT", "1")
        .output()
        .expect("the SARIF Multitool runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let validation: Value = serde_json::from_str(
        &std::fs::read_to_string(&log).unwrap_or_else(|_| panic!("no validation log: {stdout}")),
    )
    .expect("the validation log is JSON");
    let problems: Vec<String> = validation["runs"][0]["results"]
        .as_array()
        .cloned()
        .unwrap_or_default()
        .iter()
        .map(|r| format!("{} {}: {}", r["level"], r["ruleId"], r["message"]))
        .collect();
    let notifications = validation["runs"][0]["invocations"][0]["toolExecutionNotifications"]
        .as_array()
        .map_or(0, Vec::len);
    assert!(
        problems.is_empty() && notifications == 0,
        "the SARIF Multitool found problems: {problems:#?}\n{stdout}"
    );
    assert!(output.status.success(), "{stdout}");
}

#[test]
fn html_report_renders_in_headless_chromium() {
    if !e2e_enabled() {
        eprintln!("skipped: the Chromium test of the HTML report runs with CTGLS_E2E=1");
        return;
    }
    let scratch = Scratch::new("report", "html");
    let site = scratch.0.join("site");
    ctgls_report(&["--html", site.to_str().unwrap()]);
    let index = site.join("index.html");
    let parser = site.join("com.example.bank.AmountParser.html");

    let dom = chromium(&scratch, &["--dump-dom"], &index);
    for class in [
        "com.example.bank.Account",
        "com.example.bank.Bank",
        "com.example.bank.AmountParser",
    ] {
        assert!(
            dom.contains(&format!("<tr class=\"class-row\" data-class=\"{class}\">")),
            "the rendered project page has a row for {class}"
        );
    }
    let dom = chromium(&scratch, &["--dump-dom"], &parser);
    assert!(
        dom.contains("<tr id=\"L28\" class=\"covered\">"),
        "the class page shows the source with its coverage"
    );
    assert!(dom.contains("<div class=\"finding\" id=\"exception-0\">"));
    assert!(dom.contains("void parseCentsThrowsNumberFormatException()"));

    for (page, name) in [(&index, "index.png"), (&parser, "amount-parser.png")] {
        let png = scratch.0.join(name);
        chromium(
            &scratch,
            &[
                &format!("--screenshot={}", png.display()),
                "--window-size=1200,900",
                "--hide-scrollbars",
            ],
            page,
        );
        let bytes = std::fs::read(&png).expect("a screenshot was written");
        let (width, height) = png_size(&bytes).expect("a PNG");
        assert_eq!((width, height), (1200, 900), "{name}");
        // A page of one colour compresses to a few kilobytes; text, bars and the coloured
        // source lines take tens.
        assert!(
            bytes.len() > 20_000,
            "{name} is {} bytes: blank?",
            bytes.len()
        );
        if let Some(keep) = std::env::var_os("CTGLS_REPORT_SCREENSHOTS") {
            std::fs::create_dir_all(&keep).unwrap();
            std::fs::copy(&png, Path::new(&keep).join(name)).unwrap();
        }
    }
}

/// Headless Chromium on a `file:` page with a fresh profile; returns stdout.
fn chromium(scratch: &Scratch, args: &[&str], page: &Path) -> String {
    let profile = scratch.0.join(format!("profile-{}", args.len()));
    let _ = std::fs::remove_dir_all(&profile);
    let output = Command::new("chromium")
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .args(args)
        .arg(format!("file://{}", page.display()))
        .output()
        .expect("chromium runs (Debian package `chromium`; tests/run.sh installs it)");
    assert!(
        output.status.success(),
        "chromium failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// Width and height from a PNG's signature and IHDR chunk.
fn png_size(bytes: &[u8]) -> Option<(u32, u32)> {
    const SIGNATURE: &[u8] = b"\x89PNG\r\n\x1a\n";
    if !bytes.starts_with(SIGNATURE) || bytes.get(12..16)? != b"IHDR" {
        return None;
    }
    let word = |at: usize| Some(u32::from_be_bytes(bytes.get(at..at + 4)?.try_into().ok()?));
    Some((word(16)?, word(20)?))
}

/// A report that is missing or not a report is a clear error, exit 1, and nothing written.
#[test]
fn unreadable_reports_are_clear_errors() {
    let scratch = Scratch::new("report", "errors");
    let not_json = scratch.0.join("notes.txt");
    std::fs::write(&not_json, "not a report").unwrap();
    let sarif = scratch.0.join("out.sarif");
    for (from, expected) in [
        (scratch.0.join("missing.json"), "cannot read the report"),
        (not_json, "is not a ctgls JSON report (docs/report.md)"),
    ] {
        let output = Command::new(env!("CARGO_BIN_EXE_ctgls"))
            .args(["report", "--from"])
            .arg(&from)
            .arg("--sarif")
            .arg(&sarif)
            .output()
            .expect("ctgls runs");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(1), "{stderr}");
        assert!(stderr.contains(expected), "{stderr}");
        assert!(!sarif.exists());
    }
    let output = Command::new(env!("CARGO_BIN_EXE_ctgls"))
        .args(["report", "--sarif", "x.sarif"])
        .output()
        .expect("ctgls runs");
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("Usage: ctgls report"));
}
