//! Finding JUnit and running a test class with a real JUnit launcher in a fresh JVM, its
//! methods in name order or in reverse name order.
//!
//! - JUnit 5: the console launcher (`org.junit.platform.console.ConsoleLauncher`), with the
//!   method order set through the configuration parameter `junit.jupiter.testmethod.order.default`
//!   to a `MethodOrderer` of the verification harness, per-test timeouts in a separate thread,
//!   results read from the legacy XML report (`--reports-dir`) and the execution order from the
//!   `--details=tree` output, which it prints as tests finish.
//! - JUnit 4: `org.junit.runner.JUnitCore` driven by the harness's `JUnit4Runner`, which sorts
//!   the request and writes one line per event to a file.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use jvm::{ExecutionLimits, Jdk, SandboxReport, SharedArchives};
use testcase::junit::JUnit;

use super::javac::join_paths;
use super::process::{run_bounded, Confinement};
use super::VerifyError;

/// Environment variable with JUnit jars (`:`-separated), used when the project's classpath has
/// none.
pub const JUNIT_CLASSPATH_ENV: &str = "CTGLS_JUNIT_CLASSPATH";

/// Where Debian's `junit5` and `junit4` packages put their jars.
pub const SYSTEM_JAVA_DIR: &str = "/usr/share/java";

/// Harness sources compiled next to the test class (package `ctgls.verify`).
const HARNESS_JUNIT5: [(&str, &str); 2] = [
    (
        "MethodNameOrder.java",
        include_str!("harness/MethodNameOrder.java"),
    ),
    (
        "ReverseMethodNameOrder.java",
        include_str!("harness/ReverseMethodNameOrder.java"),
    ),
];
const HARNESS_JUNIT4: [(&str, &str); 1] = [(
    "JUnit4Runner.java",
    include_str!("harness/JUnit4Runner.java"),
)];

/// The JUnit a test class compiles and runs with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JUnitSetup {
    pub junit: JUnit,
    /// Jars the test class compiles and runs against (for JUnit 5 they include the console
    /// launcher).
    pub jars: Vec<PathBuf>,
    pub origin: JUnitOrigin,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JUnitOrigin {
    ProjectClasspath,
    Environment,
    System,
}

impl JUnitSetup {
    /// JUnit from the project's classpath, else from [`JUNIT_CLASSPATH_ENV`], else from
    /// [`SYSTEM_JAVA_DIR`].
    pub fn locate(junit: JUnit, project_classpath: &[PathBuf]) -> Result<JUnitSetup, VerifyError> {
        let env = std::env::var_os(JUNIT_CLASSPATH_ENV);
        JUnitSetup::locate_in(
            junit,
            project_classpath,
            env.as_deref(),
            Path::new(SYSTEM_JAVA_DIR),
        )
    }

    /// [`JUnitSetup::locate`] with the environment and system directory given.
    pub fn locate_in(
        junit: JUnit,
        project_classpath: &[PathBuf],
        env: Option<&std::ffi::OsStr>,
        system_dir: &Path,
    ) -> Result<JUnitSetup, VerifyError> {
        if let Some(jars) = from_project(junit, project_classpath) {
            return Ok(JUnitSetup {
                junit,
                jars,
                origin: JUnitOrigin::ProjectClasspath,
            });
        }
        if let Some(value) = env.filter(|v| !v.is_empty()) {
            let jars: Vec<PathBuf> = std::env::split_paths(value).collect();
            if let Some(missing) = jars.iter().find(|j| !j.exists()) {
                return Err(VerifyError::JUnitNotFound {
                    junit,
                    searched: format!(
                        "{JUNIT_CLASSPATH_ENV} names {}, which does not exist",
                        missing.display()
                    ),
                });
            }
            return Ok(JUnitSetup {
                junit,
                jars,
                origin: JUnitOrigin::Environment,
            });
        }
        let system: Vec<PathBuf> = match junit {
            JUnit::Five => vec![system_dir.join("junit-platform-console-standalone.jar")],
            JUnit::Four => vec![
                system_dir.join("junit4.jar"),
                system_dir.join("hamcrest-core.jar"),
            ],
        };
        if system.iter().all(|j| j.is_file()) {
            return Ok(JUnitSetup {
                junit,
                jars: system,
                origin: JUnitOrigin::System,
            });
        }
        Err(VerifyError::JUnitNotFound {
            junit,
            searched: format!(
                "the project classpath has no {}, {JUNIT_CLASSPATH_ENV} is not set, and {} does not exist",
                match junit {
                    JUnit::Five => "JUnit console launcher (junit-platform-console-standalone)",
                    JUnit::Four => "junit 4 jar",
                },
                system[0].display()
            ),
        })
    }

    pub(crate) fn harness_sources(&self) -> &'static [(&'static str, &'static str)] {
        match self.junit {
            JUnit::Five => &HARNESS_JUNIT5,
            JUnit::Four => &HARNESS_JUNIT4,
        }
    }
}

fn jar_name(p: &Path) -> &str {
    p.file_name().and_then(|n| n.to_str()).unwrap_or_default()
}

fn from_project(junit: JUnit, classpath: &[PathBuf]) -> Option<Vec<PathBuf>> {
    match junit {
        JUnit::Five => {
            if let Some(standalone) = classpath
                .iter()
                .find(|p| jar_name(p).starts_with("junit-platform-console-standalone"))
            {
                return Some(vec![standalone.clone()]);
            }
            // The launcher as separate jars (a Maven `target/dependency` copy, say).
            let has_console = classpath
                .iter()
                .any(|p| jar_name(p).starts_with("junit-platform-console"));
            let has_engine = classpath
                .iter()
                .any(|p| jar_name(p).starts_with("junit-jupiter-engine"));
            (has_console && has_engine).then(|| {
                classpath
                    .iter()
                    .filter(|p| {
                        let n = jar_name(p);
                        n.starts_with("junit-")
                            || n.starts_with("opentest4j")
                            || n.starts_with("apiguardian")
                    })
                    .cloned()
                    .collect()
            })
        }
        JUnit::Four => {
            let is_junit4 =
                |n: &str| n == "junit.jar" || n.starts_with("junit-4") || n.starts_with("junit4");
            let junit4: Vec<PathBuf> = classpath
                .iter()
                .filter(|p| is_junit4(jar_name(p)) || jar_name(p).starts_with("hamcrest"))
                .cloned()
                .collect();
            junit4
                .iter()
                .any(|p| is_junit4(jar_name(p)))
                .then_some(junit4)
        }
    }
}

/// The order of a run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RunOrder {
    /// Test methods by name.
    Forward,
    /// By name, backwards.
    Reverse,
}

/// One test that failed in a run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TestFailure {
    pub test: String,
    /// An `AssertionError` (a failed assertion), as opposed to any other throwable.
    pub assertion_error: bool,
    pub exception: String,
    pub message: String,
    /// The line in the test class where it failed (the first frame of the test class).
    pub line: Option<u32>,
}

/// One run of the test class in a fresh JVM.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunReport {
    pub round: u32,
    pub order: RunOrder,
    /// Test methods in the order they ran.
    pub executed: Vec<String>,
    pub failures: Vec<TestFailure>,
    /// The run was killed at its deadline while this test (when known) was running.
    pub timed_out: Option<Option<String>>,
    pub duration: Duration,
    /// The sandbox the JVM ran in.
    pub sandbox: SandboxReport,
}

impl RunReport {
    pub fn passed(&self) -> bool {
        self.failures.is_empty() && self.timed_out.is_none()
    }
}

/// How a JUnit JVM is started.
pub(crate) struct Launch<'a> {
    pub jdk: &'a Jdk,
    pub setup: &'a JUnitSetup,
    /// Test classes, harness, project classes and libraries (JUnit is added).
    pub classpath: &'a [PathBuf],
    pub test_class: &'a str,
    pub order: RunOrder,
    pub per_test_timeout: Duration,
    pub process_timeout: Duration,
    pub jvm_args: &'a [String],
    /// The JUnit 5 launcher maps its class data sharing archive when there is one.
    pub archives: &'a SharedArchives,
    pub limits: &'a ExecutionLimits,
    /// Scratch directory of this run (reports, logs); also the JVM's working, temp and home
    /// directory, as in the worker, and the only place it may write.
    pub dir: &'a Path,
    pub round: u32,
}

pub(crate) fn run_junit(launch: &Launch) -> Result<RunReport, VerifyError> {
    let io = |what: &str, source| VerifyError::Io {
        what: what.to_string(),
        source,
    };
    std::fs::create_dir_all(launch.dir).map_err(|e| io("creating the run directory", e))?;
    let tmp = launch.dir.join("tmp");
    std::fs::create_dir_all(&tmp).map_err(|e| io("creating the run directory", e))?;
    let (classpath, archive) = match launch.setup.junit {
        // JUnit's jars first: an archive is used only when the class path it was made with
        // (the jars) begins the class path it runs with.
        JUnit::Five => (
            [&launch.setup.jars[..], launch.classpath].concat(),
            launch.archives.jvm_args(&archive_key(launch.setup)),
        ),
        JUnit::Four => (
            [launch.classpath, &launch.setup.jars[..]].concat(),
            Vec::new(),
        ),
    };
    let mut command = Command::new(&launch.jdk.java);
    command
        .current_dir(launch.dir)
        .args(launch.limits.jvm_memory_args())
        .args(LAUNCHER_JVM_FLAGS)
        .args(launch.limits.environment.jvm_properties(launch.dir))
        .args(archive)
        .args(launch.jvm_args)
        .arg("-cp")
        .arg(join_paths(&classpath));
    let order = match launch.order {
        RunOrder::Forward => "forward",
        RunOrder::Reverse => "reverse",
    };
    let label = format!("junit-{order}");
    let mut readable: Vec<&Path> = classpath.iter().map(PathBuf::as_path).collect();
    readable.extend(launch.archives.dir());
    // An agent the caller adds (JaCoCo's) is read by the JVM like the class path.
    let agents: Vec<PathBuf> = launch
        .jvm_args
        .iter()
        .filter_map(|arg| arg.strip_prefix("-javaagent:"))
        .map(|agent| PathBuf::from(agent.split('=').next().unwrap_or(agent)))
        .collect();
    readable.extend(agents.iter().map(PathBuf::as_path));
    let confinement = Confinement {
        limits: launch.limits,
        writable: &[launch.dir],
        readable: &readable,
    };
    match launch.setup.junit {
        JUnit::Five => {
            let reports = launch.dir.join("reports");
            command.args(console_launcher_args(
                launch.order,
                &reports,
                launch.test_class,
                launch.per_test_timeout,
            ));
            let finished = run_bounded(
                command,
                launch.process_timeout,
                launch.dir,
                &label,
                &confinement,
            )?;
            let executed = tree_order(&finished.stdout);
            let xml = std::fs::read_to_string(reports.join("TEST-junit-jupiter.xml"));
            if finished.timed_out() {
                return Ok(RunReport {
                    round: launch.round,
                    order: launch.order,
                    executed,
                    failures: Vec::new(),
                    timed_out: Some(None),
                    duration: finished.duration,
                    sandbox: finished.sandbox,
                });
            }
            let xml = xml.map_err(|_| VerifyError::Launcher {
                message: format!("JUnit wrote no report: {}", finished.tail()),
            })?;
            Ok(RunReport {
                round: launch.round,
                order: launch.order,
                executed,
                failures: xml_failures(&xml, launch.test_class),
                timed_out: None,
                duration: finished.duration,
                sandbox: finished.sandbox,
            })
        }
        JUnit::Four => {
            let events = launch.dir.join("events.tsv");
            command
                .arg("ctgls.verify.JUnit4Runner")
                .arg(launch.test_class)
                .arg(order)
                .arg(launch.per_test_timeout.as_millis().to_string())
                .arg(&events);
            let finished = run_bounded(
                command,
                launch.process_timeout,
                launch.dir,
                &label,
                &confinement,
            )?;
            let text = std::fs::read_to_string(&events).unwrap_or_default();
            let parsed = parse_junit4_events(&text);
            if !parsed.done && !finished.timed_out() && parsed.timed_out.is_none() {
                return Err(VerifyError::Launcher {
                    message: format!("JUnitCore did not finish: {}", finished.tail()),
                });
            }
            let timed_out = match (finished.timed_out(), parsed.timed_out) {
                (_, Some(test)) => Some(Some(test)),
                (true, None) => Some(parsed.running),
                (false, None) => None,
            };
            Ok(RunReport {
                round: launch.round,
                order: launch.order,
                executed: parsed.executed,
                failures: parsed.failures,
                timed_out,
                duration: finished.duration,
                sandbox: finished.sandbox,
            })
        }
    }
}

/// JVM flags of every launcher run (after the memory bounds): quick start, no perf data file.
pub(crate) const LAUNCHER_JVM_FLAGS: [&str; 4] = [
    "-XX:+UseSerialGC",
    "-XX:TieredStopAtLevel=1",
    "-Xshare:auto",
    "-XX:-UsePerfData",
];

/// The name of the class data sharing archive of the JUnit 5 launcher with `setup`'s jars.
pub(crate) fn archive_key(setup: &JUnitSetup) -> String {
    SharedArchives::key("junit5", &setup.jars)
}

/// The JUnit 5 console launcher's main class and arguments for running `test_class`.
pub(crate) fn console_launcher_args(
    order: RunOrder,
    reports: &Path,
    test_class: &str,
    per_test_timeout: Duration,
) -> Vec<String> {
    let orderer = match order {
        RunOrder::Forward => "ctgls.verify.MethodNameOrder",
        RunOrder::Reverse => "ctgls.verify.ReverseMethodNameOrder",
    };
    vec![
        "org.junit.platform.console.ConsoleLauncher".into(),
        "--disable-banner".into(),
        "--disable-ansi-colors".into(),
        "--details=tree".into(),
        "--details-theme=ascii".into(),
        "--include-engine=junit-jupiter".into(),
        format!("--reports-dir={}", reports.display()),
        format!("--select-class={test_class}"),
        format!("--config=junit.jupiter.testmethod.order.default={orderer}"),
        format!(
            "--config=junit.jupiter.execution.timeout.default={}ms",
            per_test_timeout.as_millis()
        ),
        "--config=junit.jupiter.execution.timeout.thread.mode.default=SEPARATE_THREAD".into(),
    ]
}

/// Test names in the order the tree printer listed them (`|   +-- name() [OK]`).
pub(crate) fn tree_order(stdout: &str) -> Vec<String> {
    let mut out = Vec::new();
    for line in stdout.lines() {
        let item = line.trim_start_matches(['|', '+', '-', '\'', '`', ' ']);
        if let Some((name, rest)) = item.split_once("() [") {
            if !rest.is_empty() && !name.contains(' ') {
                out.push(name.to_string());
            }
        }
    }
    out
}

/// Failures of the test class's methods in a legacy XML report (`<testcase>` elements with a
/// `<failure>` or `<error>` child).
pub(crate) fn xml_failures(xml: &str, test_class: &str) -> Vec<TestFailure> {
    let mut out = Vec::new();
    let mut rest = xml;
    while let Some(start) = rest.find("<testcase") {
        rest = &rest[start + "<testcase".len()..];
        let (attrs, self_closing, after) = tag_attributes(rest);
        let name = attr(&attrs, "name").unwrap_or_default();
        let name = name.strip_suffix("()").unwrap_or(&name).to_string();
        rest = after;
        if self_closing {
            continue;
        }
        let body_end = rest.find("</testcase>").unwrap_or(rest.len());
        let body = &rest[..body_end];
        for (kind, assertion) in [("<failure", true), ("<error", false)] {
            if let Some(at) = body.find(kind) {
                let (fattrs, fclosing, fafter) = tag_attributes(&body[at + kind.len()..]);
                let trace = if fclosing {
                    String::new()
                } else {
                    let close = format!("</{}>", &kind[1..]);
                    let end = fafter.find(&close).unwrap_or(fafter.len());
                    text_content(&fafter[..end])
                };
                out.push(TestFailure {
                    test: name.clone(),
                    assertion_error: assertion,
                    exception: attr(&fattrs, "type").unwrap_or_default(),
                    message: attr(&fattrs, "message").unwrap_or_default(),
                    line: frame_line(&trace, test_class),
                });
                break;
            }
        }
        rest = &rest[body_end..];
    }
    out
}

/// The attributes of a tag whose name was just read, whether it closes itself, and the text
/// after it. Quoted values may hold `>`.
fn tag_attributes(s: &str) -> (Vec<(String, String)>, bool, &str) {
    let mut attrs = Vec::new();
    let bytes = s.as_bytes();
    let mut i = 0;
    loop {
        while i < bytes.len() && bytes[i].is_ascii_whitespace() {
            i += 1;
        }
        if i >= bytes.len() {
            return (attrs, false, "");
        }
        match bytes[i] {
            b'/' => {
                let end = s[i..].find('>').map_or(s.len(), |e| i + e + 1);
                return (attrs, true, &s[end..]);
            }
            b'>' => return (attrs, false, &s[i + 1..]),
            _ => {}
        }
        let name_start = i;
        while i < bytes.len()
            && bytes[i] != b'='
            && !bytes[i].is_ascii_whitespace()
            && bytes[i] != b'>'
        {
            i += 1;
        }
        let name = s[name_start..i].to_string();
        if i < bytes.len() && bytes[i] == b'=' {
            i += 1;
            let quote = bytes.get(i).copied().unwrap_or(b'"');
            i += 1;
            let value_start = i.min(s.len());
            while i < bytes.len() && bytes[i] != quote {
                i += 1;
            }
            attrs.push((name, unescape(&s[value_start..i.min(s.len())])));
            i += 1;
        } else {
            attrs.push((name, String::new()));
        }
    }
}

fn attr(attrs: &[(String, String)], name: &str) -> Option<String> {
    attrs
        .iter()
        .find(|(n, _)| n == name)
        .map(|(_, v)| v.clone())
}

/// Element text: CDATA sections as they are, everything else unescaped.
fn text_content(s: &str) -> String {
    let mut out = String::new();
    let mut rest = s;
    while let Some(start) = rest.find("<![CDATA[") {
        out.push_str(&unescape(&rest[..start]));
        let after = &rest[start + 9..];
        let end = after.find("]]>").unwrap_or(after.len());
        out.push_str(&after[..end]);
        rest = after.get(end + 3..).unwrap_or("");
    }
    out.push_str(&unescape(rest));
    out
}

fn unescape(s: &str) -> String {
    if !s.contains('&') {
        return s.to_string();
    }
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(amp) = rest.find('&') {
        out.push_str(&rest[..amp]);
        let after = &rest[amp + 1..];
        let Some(semi) = after.find(';') else {
            out.push_str(&rest[amp..]);
            return out;
        };
        let entity = &after[..semi];
        let decoded = match entity {
            "lt" => Some('<'),
            "gt" => Some('>'),
            "amp" => Some('&'),
            "quot" => Some('"'),
            "apos" => Some('\''),
            _ => entity
                .strip_prefix("#x")
                .and_then(|h| u32::from_str_radix(h, 16).ok())
                .or_else(|| entity.strip_prefix('#').and_then(|d| d.parse().ok()))
                .and_then(char::from_u32),
        };
        match decoded {
            Some(c) => {
                out.push(c);
                rest = &after[semi + 1..];
            }
            None => {
                out.push('&');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// The line of the first stack frame in `test_class` (or a lambda or nested class of it):
/// `at pkg.FooTest.method(FooTest.java:42)`.
pub(crate) fn frame_line(trace: &str, test_class: &str) -> Option<u32> {
    for line in trace.lines() {
        let Some(frame) = line.trim().strip_prefix("at ") else {
            continue;
        };
        // Frames may carry a module or loader prefix: `app//pkg.FooTest.m(...)`.
        let frame = frame.rsplit('/').next().unwrap_or(frame);
        let Some(rest) = frame.strip_prefix(test_class) else {
            continue;
        };
        if !(rest.starts_with('.') || rest.starts_with('$')) {
            continue;
        }
        let location = rest
            .rsplit_once('(')
            .map(|(_, l)| l.trim_end_matches(')'))?;
        if let Some((_, n)) = location.rsplit_once(':') {
            if let Ok(n) = n.parse() {
                return Some(n);
            }
        }
    }
    None
}

pub(crate) struct Junit4Events {
    pub executed: Vec<String>,
    pub failures: Vec<TestFailure>,
    pub timed_out: Option<String>,
    /// A test that started and did not finish.
    pub running: Option<String>,
    pub done: bool,
}

pub(crate) fn parse_junit4_events(text: &str) -> Junit4Events {
    let mut events = Junit4Events {
        executed: Vec::new(),
        failures: Vec::new(),
        timed_out: None,
        running: None,
        done: false,
    };
    for line in text.lines() {
        let fields: Vec<&str> = line.splitn(6, '\t').collect();
        match fields.as_slice() {
            ["START", name] => {
                events.executed.push(name.to_string());
                events.running = Some(name.to_string());
            }
            ["END", _] => events.running = None,
            ["FAIL", name, assertion, line_no, exception, message] => {
                events.failures.push(TestFailure {
                    test: name.to_string(),
                    assertion_error: *assertion == "1",
                    exception: exception.to_string(),
                    message: unescape_tabs(message),
                    line: line_no.parse().ok().filter(|n: &u32| *n > 0),
                })
            }
            ["TIMEOUT", name] => events.timed_out = Some(name.to_string()),
            ["DONE", ..] => events.done = true,
            _ => {}
        }
    }
    events
}

fn unescape_tabs(s: &str) -> String {
    let mut out = String::new();
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            match chars.next() {
                Some('t') => out.push('\t'),
                Some('n') => out.push('\n'),
                Some('r') => out.push('\r'),
                Some(other) => out.push(other),
                None => out.push('\\'),
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// Writes the harness sources for `setup` under `dir` and returns their paths.
pub(crate) fn write_harness(setup: &JUnitSetup, dir: &Path) -> Result<Vec<PathBuf>, VerifyError> {
    let package_dir = dir.join("ctgls").join("verify");
    std::fs::create_dir_all(&package_dir).map_err(|e| VerifyError::Io {
        what: "writing the verification harness".into(),
        source: e,
    })?;
    let mut out = Vec::new();
    for (name, text) in setup.harness_sources() {
        let path = package_dir.join(name);
        std::fs::write(&path, text).map_err(|e| VerifyError::Io {
            what: "writing the verification harness".into(),
            source: e,
        })?;
        out.push(path);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_legacy_xml_report_gives_failures_with_lines() {
        let xml = r#"<?xml version="1.0" encoding="UTF-8"?>
<testsuite name="JUnit Jupiter" tests="3">
<properties><property name="line.separator" value="
"/></properties>
<testcase name="ok()" classname="p.ATest" time="0"/>
<testcase name="b()" classname="p.ATest" time="0">
<failure message="expected: &lt;1&gt; but was: &lt;2&gt;" type="org.opentest4j.AssertionFailedError"><![CDATA[org.opentest4j.AssertionFailedError: expected: <1> but was: <2>
	at org.junit.jupiter.api.Assertions.assertEquals(Assertions.java:528)
	at p.ATest.b(ATest.java:5)
]]></failure>
<system-out><![CDATA[hi]]></system-out>
</testcase>
<testcase name="c()" classname="p.ATest" time="0">
<error message="a > b" type="java.lang.IllegalStateException">java.lang.IllegalStateException: a &gt; b
	at p.Other.f(Other.java:3)
	at p.ATest.lambda$c$0(ATest.java:9)
</error>
</testcase>
</testsuite>"#;
        let failures = xml_failures(xml, "p.ATest");
        assert_eq!(failures.len(), 2);
        assert_eq!(failures[0].test, "b");
        assert!(failures[0].assertion_error);
        assert_eq!(failures[0].message, "expected: <1> but was: <2>");
        assert_eq!(failures[0].line, Some(5));
        assert_eq!(failures[1].test, "c");
        assert!(!failures[1].assertion_error);
        assert_eq!(failures[1].exception, "java.lang.IllegalStateException");
        assert_eq!(failures[1].message, "a > b");
        assert_eq!(failures[1].line, Some(9));
    }

    #[test]
    fn the_tree_lists_tests_in_execution_order() {
        let tree = ".\n+-- JUnit Jupiter [OK]\n| '-- ATest [OK]\n|   +-- b() [OK]\n|   +-- a() [X] expected: <1> but was: <2>\n|   '-- c() [OK]\n";
        assert_eq!(tree_order(tree), vec!["b", "a", "c"]);
    }

    #[test]
    fn junit4_events_are_read_back() {
        let text = "START\tb\nFAIL\tb\t1\t12\tjava.lang.AssertionError\texpected:<1> but\\twas:<2>\nEND\tb\nSTART\ta\n";
        let events = parse_junit4_events(text);
        assert_eq!(events.executed, vec!["b", "a"]);
        assert_eq!(events.failures[0].line, Some(12));
        assert_eq!(events.failures[0].message, "expected:<1> but\twas:<2>");
        assert_eq!(events.running.as_deref(), Some("a"));
        assert!(!events.done);
    }

    #[test]
    fn junit_is_found_on_the_project_classpath_then_the_environment_then_the_system() {
        let dir = std::env::temp_dir().join(format!("ctgls-junit-locate-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let jar = dir.join("my-junit.jar");
        std::fs::write(&jar, b"").unwrap();
        let project = vec![
            PathBuf::from("/p/lib/guava.jar"),
            PathBuf::from("/p/lib/junit-4.13.2.jar"),
            PathBuf::from("/p/lib/hamcrest-core-1.3.jar"),
        ];
        let four = JUnitSetup::locate_in(JUnit::Four, &project, None, &dir).unwrap();
        assert_eq!(four.origin, JUnitOrigin::ProjectClasspath);
        assert_eq!(four.jars, project[1..].to_vec());
        let five =
            JUnitSetup::locate_in(JUnit::Five, &project, Some(jar.as_os_str()), &dir).unwrap();
        assert_eq!(five.origin, JUnitOrigin::Environment);
        assert_eq!(five.jars, vec![jar.clone()]);
        let err = JUnitSetup::locate_in(JUnit::Five, &project, None, &dir).unwrap_err();
        assert!(matches!(err, VerifyError::JUnitNotFound { .. }), "{err}");
        std::fs::write(dir.join("junit-platform-console-standalone.jar"), b"").unwrap();
        let five = JUnitSetup::locate_in(JUnit::Five, &project, None, &dir).unwrap();
        assert_eq!(five.origin, JUnitOrigin::System);
        let missing = dir.join("nope.jar");
        let err =
            JUnitSetup::locate_in(JUnit::Five, &[], Some(missing.as_os_str()), &dir).unwrap_err();
        assert!(err.to_string().contains("nope.jar"), "{err}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
