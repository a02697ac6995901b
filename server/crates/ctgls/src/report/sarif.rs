//! The findings of a report as SARIF 2.1.0 (OASIS), shaped for GitHub code scanning: one run,
//! the rules with their descriptions, help and default levels, and a result per finding at its
//! source line, with a project-relative URI under `%SRCROOT%`.
//!
//! What becomes a result, and why:
//! - `undeclared-exception` (warning): an exception a real execution raised out of a method
//!   that does not declare it, with the generated test that reproduces it as a related
//!   location (its code as the region's snippet). A runtime exception raised by a `throw`
//!   statement of the class is the method's contract and is left out, as in the editor.
//! - `needs-environment` (note): code that only runs which wrote files, connected or started
//!   processes reached, so no test covers it: a place where injecting the dependency would make
//!   the code testable.
//! - `nondeterministic-input` (note): calls that read the machine (environment variables, the
//!   user's home, the host's name), whose values generated tests never assert.
//! - Uncovered branches are not results: they are a measure of the tests, not a defect of the
//!   code, there are many of them, and which ones a budgeted search leaves changes from run to
//!   run, so code scanning would open and close alerts on every push. The HTML report shows
//!   them.

use serde_json::{json, Value};

use super::model::{ClassReport, Report};
use super::source::ClassSource;
use super::ReportClass;

/// The base the URIs are relative to.
pub const SRCROOT: &str = "%SRCROOT%";

/// A rule: its id, the default level and its texts.
struct Rule {
    id: &'static str,
    name: &'static str,
    level: &'static str,
    short: &'static str,
    full: &'static str,
    help: &'static str,
    tags: &'static [&'static str],
}

const RULES: [Rule; 3] = [
    Rule {
        id: "undeclared-exception",
        name: "UndeclaredException",
        level: "warning",
        short: "An exception escapes a method that does not declare it",
        full: "A generated test called the method and an exception the method does not declare \
               in its throws clause escaped from it: a runtime exception the JVM or a library \
               raised (division by zero, a null dereference, an index out of bounds, a number \
               that does not parse) rather than a throw statement of the class, or a checked \
               exception. Callers are unlikely to expect it.",
        help: "ctgls ran the method with the inputs shown in the reproducing generated test (a \
               related location of the result) and the exception escaped. Either guard the \
               input (and throw a documented exception), handle the case, or declare the \
               exception. The test passes today because it asserts the exception: once the \
               method is fixed, regenerate the tests.",
        tags: &["correctness", "exception", "ctgls"],
    },
    Rule {
        id: "needs-environment",
        name: "NeedsEnvironment",
        level: "note",
        short: "Code only runs that touch the environment reach",
        full: "Only test runs that wrote files outside the temporary directory, opened network \
               connections or started processes reached this code, so no generated test covers \
               it: a test that depends on the environment is never written.",
        help: "Pass the file, the connection or the process in from the caller (a parameter, an \
               interface), so that tests can give a substitute, or test this code by hand.",
        tags: &["testability", "ctgls"],
    },
    Rule {
        id: "nondeterministic-input",
        name: "NondeterministicInput",
        level: "note",
        short: "The code reads what a test does not control",
        full: "The call reads the clock, an unseeded random generator, a UUID, an environment \
               variable, a system property of the user or the machine, the default time zone, \
               locale or charset, the console, a file by an absolute path or the network. Its \
               value differs from run to run or from machine to machine (and could be a \
               secret), so generated tests never assert what depends on it.",
        help: "Pass what it reads in from the caller (a `java.time.Clock`, a `Random` or its \
               seed, the value itself), so that tests can give a fixed one; or accept that the \
               generated tests leave what depends on it unchecked.",
        tags: &["testability", "determinism", "ctgls"],
    },
];

fn rule_index(id: &str) -> usize {
    RULES.iter().position(|rule| rule.id == id).unwrap_or(0)
}

/// The SARIF log of `report`. `root_uri` is the project root as an absolute `file:` URI
/// ending in `/`, when known (GitHub resolves `%SRCROOT%` to the checkout itself).
pub fn sarif(report: &Report, classes: &[ReportClass], root_uri: Option<&str>) -> Value {
    let mut results = Vec::new();
    let mut notifications = Vec::new();
    for class in classes {
        notification(class.report, &mut notifications);
        if !class.report.has_results() {
            continue;
        }
        let path = class
            .source
            .as_ref()
            .map(|s| s.path.clone())
            .or_else(|| class.report.source_file.clone());
        let Some(path) = path else {
            if class.report.findings().next().is_some() {
                notifications.push(json!({
                    "level": "warning",
                    "message": { "text": format!(
                        "{}: the class's source file is not known, so its findings have no \
                         location and are left out", class.report.class) },
                }));
            }
            continue;
        };
        exceptions(class.report, class.source.as_ref(), &path, &mut results);
        environment(class.report, class.source.as_ref(), &path, &mut results);
    }
    // Machine inputs per source file, once even when several classes share it.
    let mut seen_files: Vec<&str> = Vec::new();
    for class in classes {
        let Some(source) = &class.source else {
            continue;
        };
        if seen_files.contains(&source.path.as_str()) {
            continue;
        }
        seen_files.push(&source.path);
        for (line, what, why) in source.nondeterministic_inputs() {
            let mut message = what.clone();
            message[..1].make_ascii_uppercase();
            results.push(result(
                "nondeterministic-input",
                format!("{message}: generated tests never assert what depends on it ({why})."),
                location(&source.path, line, None),
                vec![],
                &[&source.path, &line.to_string(), &what],
            ));
        }
    }

    // One result per finding: a class-integration entry finds the same undeclared exception
    // of the same method as its class's unit entry does, and GitHub would take the second
    // result of a fingerprint for the first. The first (the unit entry's, which runs first)
    // stays.
    let mut fingerprints = std::collections::BTreeSet::new();
    results.retain(|r| {
        let key = r["partialFingerprints"]["ctglsFinding/v1"]
            .as_str()
            .unwrap_or_default()
            .to_string();
        fingerprints.insert(key)
    });

    let successful = classes.iter().all(|class| class.report.has_results());
    let mut run = json!({
        "tool": { "driver": driver(report) },
        "invocations": [{
            "executionSuccessful": successful,
            "toolExecutionNotifications": notifications,
        }],
        "results": results,
        "columnKind": "utf16CodeUnits",
    });
    if let Some(uri) = root_uri {
        run["originalUriBaseIds"] = json!({
            SRCROOT: {
                "uri": uri,
                "description": { "text": "The root of the project ctgls generated tests for" },
            }
        });
    }
    json!({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [run],
    })
}

fn driver(report: &Report) -> Value {
    let version = if report.ctgls.is_empty() {
        env!("CARGO_PKG_VERSION")
    } else {
        report.ctgls.as_str()
    };
    let rules: Vec<Value> = RULES
        .iter()
        .map(|rule| {
            json!({
                "id": rule.id,
                "name": rule.name,
                "shortDescription": { "text": rule.short },
                "fullDescription": { "text": squeeze(rule.full) },
                "help": { "text": squeeze(rule.help), "markdown": squeeze(rule.help) },
                "defaultConfiguration": { "level": rule.level },
                "properties": { "tags": rule.tags, "precision": "high" },
            })
        })
        .collect();
    let mut driver = json!({
        "name": "ctgls",
        "fullName": "ctgls, search-based unit test generation for Java",
        "version": version,
        "semanticVersion": version,
        "rules": rules,
    });
    if let Some(uri) = information_uri() {
        driver["informationUri"] = json!(uri);
    }
    driver
}

/// Where to learn about ctgls: the `repository` the build's Cargo manifest names, else its
/// `homepage`. SARIF 2.1.0 makes `toolComponent.informationUri` optional (section 3.19.17, "MAY
/// contain"; the schema requires only `name`) and GitHub code scanning reads only `name` and
/// the rules, so without either key the property is left out rather than filled with a guess.
fn information_uri() -> Option<&'static str> {
    // Cargo gives "" for a key the manifest does not set.
    [env!("CARGO_PKG_REPOSITORY"), env!("CARGO_PKG_HOMEPAGE")]
        .into_iter()
        .find(|uri| !uri.is_empty())
}

/// The rules' texts are written wrapped in the source; one space between words.
fn squeeze(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn notification(class: &ClassReport, out: &mut Vec<Value>) {
    let (level, why) = match class.status.as_str() {
        "error" => ("error", class.error.clone()),
        "unverified" => ("warning", class.verification_error.clone()),
        "not_written" => ("warning", class.write_error.clone()),
        _ => return,
    };
    out.push(json!({
        "level": level,
        "message": { "text": format!(
            "{}: {}", class.class, why.unwrap_or_else(|| class.status.clone())) },
    }));
}

fn exceptions(class: &ClassReport, source: Option<&ClassSource>, path: &str, out: &mut Vec<Value>) {
    for exception in class.findings() {
        let line = exception
            .line
            .or_else(|| source.and_then(|s| s.member_line(&exception.method)))
            .unwrap_or(1);
        let mut text = simple_name(&exception.exception).to_string();
        if let Some(message) = exception.message.as_deref().filter(|m| !m.is_empty()) {
            text.push_str(&format!(" ({message})"));
        }
        text.push_str(&format!(
            " escapes {} without being declared.",
            member_display(&exception.method)
        ));
        let mut related = Vec::new();
        if let (Some(test), Some(file)) = (&exception.test, &class.test_source_file) {
            let mut test_location = location(file, exception.test_line.unwrap_or(1), None);
            if let (Some(start), Some(code)) = (exception.test_line, &exception.test_code) {
                let lines = code.lines().count().max(1) as u32;
                test_location["physicalLocation"]["region"] = json!({
                    "startLine": start,
                    "endLine": start + lines - 1,
                    "snippet": { "text": code },
                });
            }
            test_location["id"] = json!(1);
            test_location["message"] = json!({
                "text": format!("the generated test {test} reproduces it")
            });
            related.push(test_location);
            text.push_str(&format!(" The generated test [{test}](1) reproduces it."));
        } else if let Some(test) = &exception.test {
            text.push_str(&format!(" The generated test {test} reproduces it."));
        }
        let mut result = result(
            "undeclared-exception",
            text,
            location(path, line, Some(&exception.method)),
            related,
            &[&class.class, &exception.method, &exception.exception],
        );
        result["properties"] = json!({ "exception": exception.exception });
        out.push(result);
    }
}

fn environment(
    class: &ClassReport,
    source: Option<&ClassSource>,
    path: &str,
    out: &mut Vec<Value>,
) {
    for need in &class.needs_environment {
        let line = need
            .line
            .or_else(|| {
                need.goals
                    .iter()
                    .find_map(|g| g.strip_prefix("line ")?.parse().ok())
            })
            .or_else(|| {
                let method = need.method.as_deref()?;
                source.and_then(|s| s.member_line(method))
            })
            .unwrap_or(1);
        let mut text = match &need.method {
            Some(method) => format!("{} {}", member_display(method), need.describe()),
            None => format!("The code {}", need.describe()),
        };
        let goals = need.goals.len();
        text.push_str(&format!(
            ": no test is written for the {goals} goal{} only such runs reach.",
            if goals == 1 { "" } else { "s" }
        ));
        out.push(result(
            "needs-environment",
            text,
            location(path, line, need.method.as_deref()),
            vec![],
            &[&class.class, &need.kind, &need.action, &need.target],
        ));
    }
}

fn result(
    rule: &str,
    text: String,
    location: Value,
    related: Vec<Value>,
    identity: &[&str],
) -> Value {
    let index = rule_index(rule);
    let mut result = json!({
        "ruleId": rule,
        "ruleIndex": index,
        "level": RULES[index].level,
        "message": { "text": text },
        "locations": [location],
        // Stable across runs and edits that move the line: what the finding is about, not
        // where; GitHub adds its own line hash when it uploads.
        "partialFingerprints": {
            "ctglsFinding/v1": fingerprint(rule, identity),
        },
    });
    if !related.is_empty() {
        result["relatedLocations"] = json!(related);
    }
    result
}

fn location(path: &str, line: u32, member: Option<&str>) -> Value {
    let mut location = json!({
        "physicalLocation": {
            "artifactLocation": { "uri": uri_path(path), "uriBaseId": SRCROOT },
            "region": { "startLine": line.max(1) },
        },
    });
    if let Some(member) = member {
        location["logicalLocations"] = json!([{
            "fullyQualifiedName": member.replace('#', "."),
            "kind": "member",
        }]);
    }
    location
}

/// FNV-1a, 64 bits, of the identity's parts, as 16 hex digits.
fn fingerprint(rule: &str, identity: &[&str]) -> String {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for part in std::iter::once(rule).chain(identity.iter().copied()) {
        for byte in part.bytes().chain([0]) {
            hash ^= u64::from(byte);
            hash = hash.wrapping_mul(0x0100_0000_01b3);
        }
    }
    format!("{hash:016x}")
}

/// A relative path as a URI reference: every byte but the unreserved ones and `/`
/// percent-encoded (RFC 3986).
pub fn uri_path(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for byte in path.bytes() {
        if byte.is_ascii_alphanumeric() || b"-._~/".contains(&byte) {
            out.push(byte as char);
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

fn simple_name(binary: &str) -> &str {
    binary.rsplit(['.', '$']).next().unwrap_or(binary)
}

/// `com.x.Account#interest(int)` as `Account.interest(int)`.
fn member_display(key: &str) -> String {
    match key.split_once('#') {
        Some((class, member)) => format!("{}.{member}", simple_name(class)),
        None => key.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uris_are_percent_encoded_paths() {
        assert_eq!(uri_path("src/main/java/p/A.java"), "src/main/java/p/A.java");
        assert_eq!(uri_path("my src/p/Ä$1.java"), "my%20src/p/%C3%84%241.java");
    }

    #[test]
    fn fingerprints_name_the_finding_not_its_line() {
        let a = fingerprint("undeclared-exception", &["p.A", "p.A#m()", "java.lang.X"]);
        assert_eq!(a.len(), 16);
        assert_eq!(
            a,
            fingerprint("undeclared-exception", &["p.A", "p.A#m()", "java.lang.X"])
        );
        // The parts are separated, so moving a character between them changes the print.
        assert_ne!(
            a,
            fingerprint("undeclared-exception", &["p.A", "p.A#m()java", ".lang.X"])
        );
    }

    #[test]
    fn a_pair_finding_what_its_class_found_gives_one_result() {
        use crate::report::model::UndeclaredException;
        let text = "package p;\nclass A {\n    int m(int d) {\n        return 1 / d;\n    }\n}\n";
        let exception = |test: &str| UndeclaredException {
            method: "p.A#m(int)".into(),
            exception: "java.lang.ArithmeticException".into(),
            line: Some(4),
            test: Some(test.into()),
            ..UndeclaredException::default()
        };
        let unit = ClassReport {
            class: "p.A".into(),
            status: "ok".into(),
            undeclared_exceptions: vec![exception("mThrowsArithmeticException")],
            ..ClassReport::default()
        };
        let pair = ClassReport {
            caller: Some("p.A".into()),
            callee: Some("p.B".into()),
            undeclared_exceptions: vec![exception("mThrowsArithmeticException2")],
            ..unit.clone()
        };
        let report = Report {
            classes: vec![unit, pair],
            ..Report::default()
        };
        let classes: Vec<ReportClass> = report
            .classes
            .iter()
            .map(|class| ReportClass {
                report: class,
                source: Some(ClassSource::new("src/p/A.java".into(), text.into())),
            })
            .collect();
        let log = sarif(&report, &classes, None);
        let results = log["runs"][0]["results"].as_array().unwrap();
        assert_eq!(results.len(), 1, "{results:#?}");
        // The unit entry's, which comes first.
        assert!(results[0]["message"]["text"]
            .as_str()
            .unwrap()
            .contains("mThrowsArithmeticException reproduces it"));
    }

    #[test]
    fn environment_needs_and_machine_inputs_are_notes_at_their_lines() {
        use crate::report::model::EnvironmentNeed;
        let text = "package p;\nclass Io {\n    String token() {\n        return System.getenv(\"API_TOKEN\");\n    }\n    void save() throws Exception {\n        java.nio.file.Files.writeString(java.nio.file.Path.of(\"/home/x/out.txt\"), \"x\");\n    }\n}\n";
        let class = ClassReport {
            class: "p.Io".into(),
            status: "ok".into(),
            needs_environment: vec![EnvironmentNeed {
                kind: "file".into(),
                action: "writes".into(),
                target: "/home/x/out.txt".into(),
                refused: true,
                method: Some("p.Io#save()".into()),
                goals: vec!["method p.Io#save()".into()],
                ..EnvironmentNeed::default()
            }],
            ..ClassReport::default()
        };
        let report = Report {
            classes: vec![class],
            ..Report::default()
        };
        let classes = [ReportClass {
            report: &report.classes[0],
            source: Some(ClassSource::new("src/p/Io.java".into(), text.into())),
        }];
        let log = sarif(&report, &classes, None);
        let results = log["runs"][0]["results"].as_array().unwrap();
        let summary: Vec<(String, String, u64, String)> = results
            .iter()
            .map(|r| {
                (
                    r["ruleId"].as_str().unwrap().to_string(),
                    r["level"].as_str().unwrap().to_string(),
                    r["locations"][0]["physicalLocation"]["region"]["startLine"]
                        .as_u64()
                        .unwrap(),
                    r["message"]["text"].as_str().unwrap().to_string(),
                )
            })
            .collect();
        assert_eq!(
            summary,
            [
                (
                    "needs-environment".to_string(),
                    "note".to_string(),
                    // No line from the stack: the method's name.
                    6,
                    "Io.save() writes /home/x/out.txt (refused by the sandbox): no test is \
                     written for the 1 goal only such runs reach."
                        .to_string()
                ),
                (
                    "nondeterministic-input".to_string(),
                    "note".to_string(),
                    4,
                    "Reads the environment variable \"API_TOKEN\": generated tests never assert \
                     what depends on it (it differs on another machine, and could be a secret)."
                        .to_string()
                ),
            ]
        );
        assert_eq!(
            log["runs"][0]["invocations"][0]["executionSuccessful"],
            true
        );
        assert!(log["runs"][0]["originalUriBaseIds"].is_null());
    }
}
