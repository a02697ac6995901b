//! Finding JUnit and running a test class with a real JUnit launcher in a fresh JVM, its
//! methods in name order or in reverse name order, through ctgls's harness (`harness.rs`,
//! compiled apart at the JDK's own level), which writes one line per event to a file.
//!
//! - JUnit 5: the harness's `JUnit5Runner` drives the JUnit Platform Launcher API
//!   (`LauncherFactory`, `LauncherDiscoveryRequestBuilder`, a `TestExecutionListener`), so the
//!   jars of a Maven test classpath (`junit-jupiter-api`, `-engine`, `junit-platform-engine`,
//!   `-launcher`, `-commons`, `opentest4j`) are enough; the method order is set through the
//!   configuration parameter `junit.jupiter.testmethod.order.default` to a `MethodOrderer` of
//!   the harness, per-test timeouts run in a separate thread.
//! - JUnit 4: `org.junit.runner.JUnitCore` driven by the harness's `JUnit4Runner`, which sorts
//!   the request.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use jvm::{ExecutionLimits, Jdk, SandboxReport, SharedArchives};
use search::CancelToken;
use testcase::junit::JUnit;

use super::harness::runner_class;
use super::javac::join_paths;
use super::perturb::Perturbation;
use super::preload::clock_shift_environment;
use super::process::{run_bounded, Confinement};
use super::VerifyError;

/// Environment variable with JUnit jars (`:`-separated), used when the project's classpath has
/// none.
pub const JUNIT_CLASSPATH_ENV: &str = "CTGLS_JUNIT_CLASSPATH";

/// Where Debian's `junit5` and `junit4` packages put their jars.
pub const SYSTEM_JAVA_DIR: &str = "/usr/share/java";

/// The JUnit a test class compiles and runs with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JUnitSetup {
    pub junit: JUnit,
    /// Jars the test class compiles and runs against (for JUnit 5 they include the platform
    /// launcher and the Jupiter engine, as separate jars or the console-standalone jar).
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
        let systems: Vec<Vec<PathBuf>> = match junit {
            // Debian's `junit5` ships the jars apart (as a Maven test classpath has them) and
            // the console-standalone jar that holds them all.
            JUnit::Five => vec![
                SYSTEM_JUNIT5_JARS
                    .iter()
                    .map(|name| system_dir.join(name))
                    .collect(),
                vec![system_dir.join("junit-platform-console-standalone.jar")],
            ],
            JUnit::Four => vec![vec![
                system_dir.join("junit4.jar"),
                system_dir.join("hamcrest-core.jar"),
            ]],
        };
        if let Some(jars) = systems
            .into_iter()
            .find(|jars| jars.iter().all(|j| j.is_file()))
        {
            return Ok(JUnitSetup {
                junit,
                jars,
                origin: JUnitOrigin::System,
            });
        }
        Err(VerifyError::JUnitNotFound {
            junit,
            searched: format!(
                "the project classpath has no {}, {JUNIT_CLASSPATH_ENV} is not set, and {} lacks \
                 them (Debian and Ubuntu: apt-get install {})",
                match junit {
                    JUnit::Five =>
                        "JUnit 5 engine and platform launcher (junit-jupiter-engine and \
                         junit-platform-launcher, or junit-platform-console-standalone)",
                    JUnit::Four => "junit 4 jar",
                },
                system_dir.display(),
                match junit {
                    JUnit::Five => "junit5",
                    JUnit::Four => "junit4",
                }
            ),
        })
    }
}

/// The jars of Debian's `junit5` package that a JUnit 5 run needs, under [`SYSTEM_JAVA_DIR`].
pub const SYSTEM_JUNIT5_JARS: [&str; 7] = [
    "junit-jupiter-api.jar",
    "junit-jupiter-engine.jar",
    "junit-platform-engine.jar",
    "junit-platform-launcher.jar",
    "junit-platform-commons.jar",
    "opentest4j.jar",
    "apiguardian-api.jar",
];

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
            // The platform launcher and the Jupiter engine as separate jars (a Maven test
            // classpath, or a `target/dependency` copy); the console launcher is not needed.
            let has = |prefix: &str| classpath.iter().any(|p| jar_name(p).starts_with(prefix));
            let has_launcher =
                has("junit-platform-launcher") || has("junit-platform-console-standalone");
            (has_launcher && has("junit-jupiter-engine")).then(|| {
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
    /// A seeded random order (the harness's `TestOrder`): perturbed runs.
    Shuffled(u64),
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
    /// The perturbation the JVM ran under (`perturb.rs`), `None` for the plain runs.
    pub perturbation: Option<String>,
    /// Tests that left the JVM's defaults changed (time zone, locale, system properties), and
    /// what they changed; the harness put them back before the next test.
    pub state_changes: Vec<(String, String)>,
}

impl RunReport {
    pub fn passed(&self) -> bool {
        self.failures.is_empty() && self.timed_out.is_none() && self.state_changes.is_empty()
    }
}

/// How a JUnit JVM is started.
pub(crate) struct Launch<'a> {
    pub jdk: &'a Jdk,
    pub setup: &'a JUnitSetup,
    /// Test classes, project classes and libraries (JUnit and the harness are added).
    pub classpath: &'a [PathBuf],
    /// ctgls's compiled harness (`harness::harness_classpath`): its jar or class directory.
    pub harness: &'a Path,
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
    /// Run under another clock, time zone, locale, charset or working directory.
    pub perturbation: Option<&'a Perturbation>,
    /// Kills the JVM when cancelled (`process::Confinement::cancel`).
    pub cancel: Option<&'a CancelToken>,
    /// Run only these test methods (all when empty).
    pub only: &'a [String],
}

pub(crate) fn run_junit(launch: &Launch) -> Result<RunReport, VerifyError> {
    let io = |what: &str, source| VerifyError::Io {
        what: what.to_string(),
        source,
    };
    std::fs::create_dir_all(launch.dir).map_err(|e| io("creating the run directory", e))?;
    let tmp = launch.dir.join("tmp");
    std::fs::create_dir_all(&tmp).map_err(|e| io("creating the run directory", e))?;
    let harness = std::slice::from_ref(&launch.harness.to_path_buf()).to_vec();
    let (classpath, archive) = match launch.setup.junit {
        // JUnit's jars and the harness first: an archive is used only when the class path it
        // was made with begins the class path it runs with.
        JUnit::Five => (
            [&launch.setup.jars[..], &harness, launch.classpath].concat(),
            launch
                .archives
                .jvm_args(&archive_key(launch.setup, launch.harness)),
        ),
        JUnit::Four => (
            [launch.classpath, &launch.setup.jars[..], &harness].concat(),
            Vec::new(),
        ),
    };
    let mut limits = launch.limits.clone();
    let mut working_dir = launch.dir.to_path_buf();
    let mut perturbed_args = Vec::new();
    let mut preload = None;
    if let Some(perturbation) = launch.perturbation {
        perturbed_args = perturbation.jvm_properties();
        if perturbation.elsewhere {
            working_dir = launch.dir.join(ELSEWHERE);
            std::fs::create_dir_all(&working_dir)
                .map_err(|e| io("creating the run directory", e))?;
        }
        if let Some((library, offset)) = &perturbation.clock {
            limits
                .environment
                .extra
                .extend(clock_shift_environment(library, *offset));
            preload = Some(library.clone());
        }
    }
    if !launch.only.is_empty() {
        perturbed_args.push(format!("-Dctgls.verify.only={}", launch.only.join(",")));
    }
    let mut command = Command::new(&launch.jdk.java);
    command
        .current_dir(&working_dir)
        .args(launch.limits.jvm_memory_args())
        .args(LAUNCHER_JVM_FLAGS)
        .args(launch.limits.environment.jvm_properties(launch.dir))
        .args(archive)
        .args(launch.jvm_args)
        .args(&perturbed_args)
        .arg("-cp")
        .arg(join_paths(&classpath));
    let label = match launch.perturbation {
        Some(perturbation) => format!("junit-{}", perturbation.label),
        None => format!("junit-{}", order_arg(launch.order)),
    };
    let mut readable: Vec<&Path> = classpath.iter().map(PathBuf::as_path).collect();
    readable.extend(launch.archives.dir());
    readable.extend(preload.as_deref());
    // An agent the caller adds (JaCoCo's) is read by the JVM like the class path.
    let agents: Vec<PathBuf> = launch
        .jvm_args
        .iter()
        .filter_map(|arg| arg.strip_prefix("-javaagent:"))
        .map(|agent| PathBuf::from(agent.split('=').next().unwrap_or(agent)))
        .collect();
    readable.extend(agents.iter().map(PathBuf::as_path));
    let confinement = Confinement {
        limits: &limits,
        writable: &[launch.dir],
        readable: &readable,
        cancel: launch.cancel,
    };
    let events = launch.dir.join("events.tsv");
    command.args(runner_args(
        launch.setup.junit,
        launch.test_class,
        launch.order,
        launch.per_test_timeout,
        &events,
    ));
    let finished = run_bounded(
        command,
        launch.process_timeout,
        launch.dir,
        &label,
        &confinement,
    )?;
    let text = std::fs::read_to_string(&events).unwrap_or_default();
    let parsed = parse_events(&text);
    if !parsed.done && !finished.timed_out() && parsed.timed_out.is_none() {
        return Err(VerifyError::Launcher {
            message: format!("the JUnit run did not finish: {}", finished.tail()),
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
        perturbation: launch.perturbation.map(|p| p.label.clone()),
        state_changes: parsed.state_changes,
    })
}

/// The working directory of a run that is perturbed by another one, beneath its run directory.
const ELSEWHERE: &str = "elsewhere/cwd";

fn order_arg(order: RunOrder) -> String {
    match order {
        RunOrder::Forward => "forward".into(),
        RunOrder::Reverse => "reverse".into(),
        RunOrder::Shuffled(seed) => format!("shuffle:{seed}"),
    }
}

/// The harness runner's main class and arguments for running `test_class`, writing its events
/// to `events`.
pub(crate) fn runner_args(
    junit: JUnit,
    test_class: &str,
    order: RunOrder,
    per_test_timeout: Duration,
    events: &Path,
) -> Vec<String> {
    vec![
        runner_class(junit).to_string(),
        test_class.to_string(),
        order_arg(order),
        per_test_timeout.as_millis().to_string(),
        events.display().to_string(),
    ]
}

/// JVM flags of every launcher run (after the memory bounds): quick start, no perf data file.
pub(crate) const LAUNCHER_JVM_FLAGS: [&str; 4] = [
    "-XX:+UseSerialGC",
    "-XX:TieredStopAtLevel=1",
    "-Xshare:auto",
    "-XX:-UsePerfData",
];

/// The name of the class data sharing archive of the JUnit 5 launcher with `setup`'s jars and
/// the harness.
pub(crate) fn archive_key(setup: &JUnitSetup, harness: &Path) -> String {
    let mut classpath = setup.jars.clone();
    classpath.push(harness.to_path_buf());
    SharedArchives::key("junit5", &classpath)
}

pub(crate) struct Events {
    pub executed: Vec<String>,
    pub failures: Vec<TestFailure>,
    pub timed_out: Option<String>,
    /// A test that started and did not finish.
    pub running: Option<String>,
    pub done: bool,
    /// Tests that changed the JVM's defaults, with what they changed.
    pub state_changes: Vec<(String, String)>,
}

pub(crate) fn parse_events(text: &str) -> Events {
    let mut events = Events {
        executed: Vec::new(),
        failures: Vec::new(),
        timed_out: None,
        running: None,
        done: false,
        state_changes: Vec::new(),
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
            ["STATE", name, what] => events
                .state_changes
                .push((name.to_string(), unescape_tabs(what))),
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn junit5_from_a_maven_test_classpath_needs_no_console_launcher() {
        let classpath: Vec<PathBuf> = [
            "/m2/org/junit/jupiter/junit-jupiter-api/5.10.0/junit-jupiter-api-5.10.0.jar",
            "/m2/org/junit/jupiter/junit-jupiter-engine/5.10.0/junit-jupiter-engine-5.10.0.jar",
            "/m2/org/junit/platform/junit-platform-engine/1.10.0/junit-platform-engine-1.10.0.jar",
            "/m2/org/junit/platform/junit-platform-launcher/1.10.0/junit-platform-launcher-1.10.0.jar",
            "/m2/org/junit/platform/junit-platform-commons/1.10.0/junit-platform-commons-1.10.0.jar",
            "/m2/org/opentest4j/opentest4j/1.3.0/opentest4j-1.3.0.jar",
            "/m2/org/apiguardian/apiguardian-api/1.1.2/apiguardian-api-1.1.2.jar",
            "/m2/com/google/guava/guava/32.0/guava-32.0.jar",
        ]
        .into_iter()
        .map(PathBuf::from)
        .collect();
        let setup =
            JUnitSetup::locate_in(JUnit::Five, &classpath, None, Path::new("/none")).unwrap();
        assert_eq!(setup.origin, JUnitOrigin::ProjectClasspath);
        assert_eq!(
            setup.jars,
            classpath[..7].to_vec(),
            "every JUnit jar, no other"
        );
        // Without the platform launcher (Surefire brings its own) the project's JUnit is not
        // enough to run tests.
        let without: Vec<PathBuf> = classpath
            .iter()
            .filter(|p| !p.to_string_lossy().contains("launcher"))
            .cloned()
            .collect();
        assert!(JUnitSetup::locate_in(JUnit::Five, &without, None, Path::new("/none")).is_err());
    }

    #[test]
    fn runner_events_are_read_back() {
        let text = "START\tb\nFAIL\tb\t1\t12\tjava.lang.AssertionError\texpected:<1> but\\twas:<2>\nSTATE\tb\tthe default time zone (UTC to Asia/Tokyo)\nEND\tb\nSTART\ta\n";
        let events = parse_events(text);
        assert_eq!(
            events.state_changes,
            vec![(
                "b".to_string(),
                "the default time zone (UTC to Asia/Tokyo)".to_string()
            )]
        );
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
        // Debian's separate jars come before its console-standalone jar.
        for name in SYSTEM_JUNIT5_JARS {
            std::fs::write(dir.join(name), b"").unwrap();
        }
        let five = JUnitSetup::locate_in(JUnit::Five, &project, None, &dir).unwrap();
        assert_eq!(five.jars.len(), SYSTEM_JUNIT5_JARS.len());
        assert!(five.jars[1].ends_with("junit-jupiter-engine.jar"));
        let missing = dir.join("nope.jar");
        let err =
            JUnitSetup::locate_in(JUnit::Five, &[], Some(missing.as_os_str()), &dir).unwrap_err();
        assert!(err.to_string().contains("nope.jar"), "{err}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
