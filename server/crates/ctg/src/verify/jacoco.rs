//! Measuring a test class with JaCoCo, the coverage tool most Java projects use: to check that
//! generated tests cover what ctgls claims, on the original classes. Used by tests and
//! benchmarks; needs the JaCoCo jars (Debian's `libjacoco-java` in ours).
//!
//! JaCoCo runs as an agent on a JUnit JVM (forward order) and its execution data is read by
//! `tests/support/jacoco/CoverageReport.java`, compiled here against the same jars. JaCoCo
//! releases lag behind new class-file versions (0.8.6 stops before Java 17's), so classes are
//! compiled with `--release 11` unless the options say otherwise.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use jvm::Jdk;

use super::javac::{join_paths, Javac};
use super::junit::{run_junit, Launch, RunOrder, RunReport};
use super::process::{run_bounded, Confinement};
use super::{
    compile_tests, project_classpath, write_test_source, JUnitSetup, ProjectClasses, Scratch,
    VerifyError, VerifyOptions,
};

/// Directory with the JaCoCo and ASM jars, when not [`super::SYSTEM_JAVA_DIR`].
pub const JACOCO_DIR_ENV: &str = "CTGLS_JACOCO_DIR";

/// The `--release` of measured classes when the options name none.
pub const DEFAULT_RELEASE: u32 = 11;

const REPORT_SOURCE: &str = include_str!("../../../../../tests/support/jacoco/CoverageReport.java");

/// The jars JaCoCo's analysis and agent need.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JacocoJars {
    /// `org.jacoco.agent.jar`, which holds the runtime agent jar.
    pub agent: PathBuf,
    pub jars: Vec<PathBuf>,
}

impl JacocoJars {
    /// The jars in [`JACOCO_DIR_ENV`], else in [`super::SYSTEM_JAVA_DIR`].
    pub fn locate() -> Result<JacocoJars, VerifyError> {
        let dir = std::env::var_os(JACOCO_DIR_ENV)
            .filter(|d| !d.is_empty())
            .map_or_else(|| PathBuf::from(super::SYSTEM_JAVA_DIR), PathBuf::from);
        JacocoJars::in_dir(&dir)
    }

    pub fn in_dir(dir: &Path) -> Result<JacocoJars, VerifyError> {
        let names = [
            "org.jacoco.agent.jar",
            "org.jacoco.core.jar",
            "asm.jar",
            "asm-commons.jar",
            "asm-tree.jar",
        ];
        let jars: Vec<PathBuf> = names.iter().map(|n| dir.join(n)).collect();
        if let Some(missing) = jars.iter().find(|j| !j.is_file()) {
            return Err(VerifyError::Launcher {
                message: format!(
                    "JaCoCo is not installed: {} is missing (set {JACOCO_DIR_ENV})",
                    missing.display()
                ),
            });
        }
        Ok(JacocoJars {
            agent: jars[0].clone(),
            jars,
        })
    }
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counter {
    pub covered: u32,
    pub missed: u32,
}

impl Counter {
    pub fn total(self) -> u32 {
        self.covered + self.missed
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LineStatus {
    NotCovered,
    Partly,
    Fully,
}

/// JaCoCo's counters for one class.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ClassCoverage {
    pub lines: Counter,
    pub branches: Counter,
    pub methods: Counter,
    /// Lines with code: their status and branch counter.
    pub line_status: BTreeMap<u32, (LineStatus, Counter)>,
}

impl ClassCoverage {
    pub fn lines_with(&self, status: LineStatus) -> Vec<u32> {
        self.line_status
            .iter()
            .filter(|(_, (s, _))| *s == status)
            .map(|(n, _)| *n)
            .collect()
    }
}

/// Coverage of the analysed classes by binary name.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Coverage {
    pub classes: BTreeMap<String, ClassCoverage>,
}

/// The coverage and the JUnit run that produced it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Measured {
    pub coverage: Coverage,
    pub run: RunReport,
}

/// Runs test class `test_class` (binary name; its source is `test_source`) under the JaCoCo
/// agent and returns the coverage of the project's classes matching `includes` (JaCoCo
/// patterns such as `com.example.bank.*`). The project's sources are compiled for the
/// analysis, so `project.sources` must be given.
pub fn measure(
    test_source: &str,
    test_class: &str,
    project: &ProjectClasses,
    junit: &JUnitSetup,
    includes: &[&str],
    options: &VerifyOptions,
) -> Result<Measured, VerifyError> {
    let jars = JacocoJars::locate()?;
    let jdk = match &options.jdk {
        Some(jdk) => jdk.clone(),
        None => Jdk::locate(None)?,
    };
    let options = &super::javac::supported_levels(
        &jdk,
        &VerifyOptions {
            release: Some(options.release.unwrap_or(DEFAULT_RELEASE)),
            ..options.clone()
        },
    );
    let release = options.release;
    let harness = super::harness::harness_classpath(
        &jdk,
        junit,
        &super::harness::harness_cache(options),
        &options.limits,
        options.process_timeout,
    )?;
    let scratch = Scratch::new(
        options.scratch_parent.as_deref(),
        options.keep_scratch,
        "jacoco",
    )?;
    let dir = &scratch.path;
    let classpath = project_classpath(
        &jdk,
        project,
        dir,
        options.main_release.or(release),
        options.process_timeout,
        &options.limits,
        Some(&options.cancel),
    )?;
    let source_path = write_test_source(dir, test_class, test_source)?;
    let (test_classes, errors) =
        compile_tests(&jdk, junit, &source_path, &classpath, dir, options, release)?;
    if !errors.is_empty() {
        return Err(VerifyError::TestClassDoesNotCompile {
            errors,
            test_source: test_source.to_string(),
        });
    }

    let helper = compile_helper(&jdk, &jars, dir, options)?;
    let agent = dir.join("jacocoagent.jar");
    run_helper(
        &jdk,
        &jars,
        &helper,
        dir,
        options,
        "extract-agent",
        &[agent.as_path()],
    )?;

    // In the run directory: the JUnit JVM, and the agent in it, may write nowhere else.
    let run_dir = dir.join("run");
    let exec = run_dir.join("jacoco.exec");
    let agent_arg = format!(
        "-javaagent:{}=destfile={},includes={},excludes={}*:ctgls.*",
        agent.display(),
        exec.display(),
        includes.join(":"),
        test_class
    );
    let mut run_classpath = vec![test_classes];
    run_classpath.extend(classpath.iter().cloned());
    let mut jvm_args = options.jvm_args.clone();
    jvm_args.push(agent_arg);
    let run = run_junit(&Launch {
        jdk: &jdk,
        setup: junit,
        classpath: &run_classpath,
        harness: &harness,
        test_class,
        order: RunOrder::Forward,
        per_test_timeout: options.test_timeout,
        process_timeout: options.process_timeout,
        jvm_args: &jvm_args,
        archives: &options.archives,
        limits: &options.limits,
        dir: &run_dir,
        round: 0,
        perturbation: None,
        only: &[],
        cancel: Some(&options.cancel),
    })?;
    let classes_dir = dir.join("classes");
    let report = run_helper(
        &jdk,
        &jars,
        &helper,
        dir,
        options,
        "report",
        &[exec.as_path(), classes_dir.as_path()],
    )?;
    Ok(Measured {
        coverage: parse_report(&report),
        run,
    })
}

fn compile_helper(
    jdk: &Jdk,
    jars: &JacocoJars,
    dir: &Path,
    options: &VerifyOptions,
) -> Result<PathBuf, VerifyError> {
    let src = dir.join("helper-src");
    let out = dir.join("helper");
    std::fs::create_dir_all(&src).map_err(|e| VerifyError::Io {
        what: "writing the JaCoCo helper".into(),
        source: e,
    })?;
    let file = src.join("CoverageReport.java");
    std::fs::write(&file, REPORT_SOURCE).map_err(|e| VerifyError::Io {
        what: "writing the JaCoCo helper".into(),
        source: e,
    })?;
    let errors = Javac {
        jdk,
        classpath: &jars.jars,
        out_dir: &out,
        release: None,
        timeout: options.process_timeout,
        scratch: dir,
        label: "javac-jacoco-helper",
        limits: &options.limits,
        jvm_options: &[],
        cancel: Some(&options.cancel),
    }
    .compile(&[file])?;
    if !errors.is_empty() {
        return Err(VerifyError::Launcher {
            message: format!(
                "the JaCoCo helper does not compile: {}",
                super::first(&errors)
            ),
        });
    }
    Ok(out)
}

fn run_helper(
    jdk: &Jdk,
    jars: &JacocoJars,
    helper: &Path,
    dir: &Path,
    options: &VerifyOptions,
    mode: &str,
    args: &[&Path],
) -> Result<String, VerifyError> {
    let mut classpath = vec![helper.to_path_buf()];
    classpath.extend(jars.jars.iter().cloned());
    let mut command = Command::new(&jdk.java);
    command
        .args(options.limits.environment.jvm_properties(dir))
        .arg("-cp")
        .arg(join_paths(&classpath))
        .arg("CoverageReport")
        .arg(mode)
        .args(args);
    let label = format!("jacoco-{mode}");
    // The helper runs JaCoCo's analysis, which reads the project's classes without loading
    // them; it is sandboxed like the rest all the same.
    let mut readable: Vec<&Path> = classpath.iter().map(PathBuf::as_path).collect();
    readable.extend(args.iter().copied());
    let confinement = Confinement {
        limits: &options.limits,
        writable: &[dir],
        readable: &readable,
        cancel: Some(&options.cancel),
    };
    let finished = run_bounded(command, options.process_timeout, dir, &label, &confinement)?;
    if finished.timed_out() {
        return Err(VerifyError::TimedOut {
            what: format!("the JaCoCo helper ({mode})"),
            after: options.process_timeout,
        });
    }
    if !finished.success() {
        return Err(VerifyError::Launcher {
            message: format!("the JaCoCo helper failed ({mode}): {}", finished.tail()),
        });
    }
    Ok(finished.stdout)
}

/// Reads the helper's `class` and `line` records.
pub fn parse_report(text: &str) -> Coverage {
    let mut coverage = Coverage::default();
    let counter = |c: &str, m: &str| Counter {
        covered: c.parse().unwrap_or(0),
        missed: m.parse().unwrap_or(0),
    };
    for line in text.lines() {
        let f: Vec<&str> = line.split('\t').collect();
        match f.as_slice() {
            ["class", name, "lines", lc, lm, "branches", bc, bm, "methods", mc, mm] => {
                let class = coverage.classes.entry(name.to_string()).or_default();
                class.lines = counter(lc, lm);
                class.branches = counter(bc, bm);
                class.methods = counter(mc, mm);
            }
            ["line", name, nr, status, bc, bm] => {
                let status = match *status {
                    "FULLY" => LineStatus::Fully,
                    "PARTLY" => LineStatus::Partly,
                    _ => LineStatus::NotCovered,
                };
                if let Ok(nr) = nr.parse() {
                    coverage
                        .classes
                        .entry(name.to_string())
                        .or_default()
                        .line_status
                        .insert(nr, (status, counter(bc, bm)));
                }
            }
            _ => {}
        }
    }
    coverage
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn report_lines_become_counters() {
        let text = "class\ta.B\tlines\t3\t1\tbranches\t2\t2\tmethods\t2\t0\nline\ta.B\t4\tFULLY\t0\t0\nline\ta.B\t5\tPARTLY\t1\t1\nline\ta.B\t9\tNOT_COVERED\t0\t0\n";
        let coverage = parse_report(text);
        let b = &coverage.classes["a.B"];
        assert_eq!(
            b.lines,
            Counter {
                covered: 3,
                missed: 1
            }
        );
        assert_eq!(b.branches.total(), 4);
        assert_eq!(b.lines_with(LineStatus::Partly), vec![5]);
        assert_eq!(
            b.line_status[&5].1,
            Counter {
                covered: 1,
                missed: 1
            }
        );
    }
}
