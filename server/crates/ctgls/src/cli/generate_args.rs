//! The arguments of `ctgls generate`, parsed by hand (the flag set is small and fixed).
//! Every flag takes `--flag VALUE` or `--flag=VALUE`.

use std::path::PathBuf;
use std::time::Duration;

use ctg::buildtool::BuildToolSettings;
use ctg::project::JUnitVersion;
use search::{Algorithm, Criteria};

pub const USAGE: &str = "\
Usage: ctgls generate --class FQCN [--class FQCN]... [options]

Generates JUnit tests for each class, verifies them with the real JUnit, and writes
<Class>GeneratedTest.java under the project's test root.

Options:
  --project DIR          the project (default: the current directory)
  --source-root DIR      a source root; repeatable (default: src/main/java, else src, else DIR)
  --classpath CP         extra classpath entries, separated by the platform's path separator
  --class FQCN           a class to generate tests for; repeatable, at least one
  --instrument-also FQCN another class to instrument with each class under test: the JSON
                         report gives its coverage by that class's tests (the search ignores
                         it); repeatable
  --budget SECONDS       wall-clock budget per class, start-up and verification included
                         (default: 30)
  --seed N               random seed (default: 0); same seed, same subject: same search
  --algorithm NAME       dynamosa (default), adynamosa, mosa or wholesuite
  --criteria LIST        comma-separated: branch, line, method, exception (default: all;
                         branch is always on)
  --junit 5|4            JUnit version of the emitted tests (default: what the project uses)
  --out DIR              where test files go (default: the project's test root)
  --report FILE          also write a JSON report (schema: docs/report.md)
  --sarif FILE           also write the findings as SARIF 2.1.0, for code scanning
  --html DIR             also write an HTML report (index.html, a page per class)
  --java-home DIR        the JDK to use (default: JAVA_HOME, then javac on PATH)

The classpath comes from the project's build tool, asked offline and cached by the build
files' contents (--classpath entries come first):
  --online               let Maven or Gradle download what the local repository lacks
  --maven FILE           the Maven executable (default: mvn, else the project's mvnw)
  --maven-settings FILE  a Maven settings.xml, passed as `mvn -s` (default: mvn's own,
                         ~/.m2/settings.xml)
  --gradle FILE          the Gradle executable (default: the project's gradlew, else gradle)
  --no-build-tool        do not ask the build tool: guess the classpath from build outputs and
                         lib/ jars

What code under test sees:
  --pass-environment NAMES
                         environment variables code under test may see, comma-separated
                         names or patterns (`MYAPP_*`); repeatable. Every other variable is
                         hidden from it. Their values can end up asserted in written tests:
                         never pass secrets";

#[derive(Debug, Clone, PartialEq)]
pub struct GenerateArgs {
    pub project: PathBuf,
    pub source_roots: Vec<PathBuf>,
    pub classpath: Vec<PathBuf>,
    pub classes: Vec<String>,
    /// Classes whose coverage by each class's tests is measured and reported
    /// (`GenerationRequest::also_instrument`).
    pub instrument_also: Vec<String>,
    pub budget: Duration,
    pub seed: u64,
    pub algorithm: Algorithm,
    pub criteria: Criteria,
    pub junit: Option<JUnitVersion>,
    pub out: Option<PathBuf>,
    pub report: Option<PathBuf>,
    /// `--sarif FILE` and `--html DIR` (`crate::report`).
    pub sarif: Option<PathBuf>,
    pub html: Option<PathBuf>,
    pub java_home: Option<PathBuf>,
    /// How the build tool is asked for the classpath.
    pub build_tool: BuildToolSettings,
    /// Names or patterns of the variables code under test sees (`passEnvironment`).
    pub pass_environment: Vec<String>,
}

impl Default for GenerateArgs {
    fn default() -> Self {
        GenerateArgs {
            project: PathBuf::from("."),
            source_roots: Vec::new(),
            classpath: Vec::new(),
            classes: Vec::new(),
            instrument_also: Vec::new(),
            budget: Duration::from_secs(30),
            seed: 0,
            algorithm: Algorithm::DynaMosa,
            criteria: Criteria::all(),
            junit: None,
            out: None,
            report: None,
            sarif: None,
            html: None,
            java_home: None,
            build_tool: BuildToolSettings::default(),
            pass_environment: Vec::new(),
        }
    }
}

/// Parses the arguments after `generate`.
pub fn parse(args: &[&str]) -> Result<GenerateArgs, String> {
    let mut parsed = GenerateArgs::default();
    let mut rest = args.iter();
    while let Some(&arg) = rest.next() {
        let (flag, inline_value) = match arg.split_once('=') {
            Some((flag, value)) if flag.starts_with("--") => (flag, Some(value)),
            _ => (arg, None),
        };
        let mut value = || -> Result<&str, String> {
            match inline_value {
                Some(value) => Ok(value),
                None => rest
                    .next()
                    .copied()
                    .ok_or_else(|| format!("`{flag}` needs a value")),
            }
        };
        match flag {
            "--project" => parsed.project = PathBuf::from(value()?),
            "--source-root" => parsed.source_roots.push(PathBuf::from(value()?)),
            "--classpath" | "-cp" => {
                parsed.classpath.extend(std::env::split_paths(value()?));
            }
            "--class" | "--instrument-also" => {
                let class = value()?;
                if !is_qualified_name(class) {
                    return Err(format!(
                        "`{flag} {class}` is not a class name like com.example.Account"
                    ));
                }
                match flag {
                    "--class" => parsed.classes.push(class.to_owned()),
                    _ => parsed.instrument_also.push(class.to_owned()),
                }
            }
            "--budget" => {
                let text = value()?;
                let seconds: f64 = text
                    .parse()
                    .ok()
                    .filter(|seconds: &f64| seconds.is_finite() && *seconds > 0.0)
                    .ok_or_else(|| {
                        format!("`--budget` must be a positive number of seconds, got `{text}`")
                    })?;
                parsed.budget = Duration::from_secs_f64(seconds);
            }
            "--seed" => {
                let text = value()?;
                parsed.seed = text.parse().map_err(|_| {
                    format!("`--seed` must be a non-negative integer, got `{text}`")
                })?;
            }
            "--algorithm" => parsed.algorithm = parse_algorithm(value()?)?,
            "--criteria" => parsed.criteria = parse_criteria(value()?)?,
            "--junit" => {
                parsed.junit = Some(match value()? {
                    "5" => JUnitVersion::Five,
                    "4" => JUnitVersion::Four,
                    other => return Err(format!("`--junit` must be 4 or 5, got `{other}`")),
                })
            }
            "--out" => parsed.out = Some(PathBuf::from(value()?)),
            "--report" => parsed.report = Some(PathBuf::from(value()?)),
            "--sarif" => parsed.sarif = Some(PathBuf::from(value()?)),
            "--html" => parsed.html = Some(PathBuf::from(value()?)),
            "--java-home" => parsed.java_home = Some(PathBuf::from(value()?)),
            "--maven" => parsed.build_tool.maven_executable = Some(PathBuf::from(value()?)),
            "--maven-settings" => parsed.build_tool.maven_settings = Some(PathBuf::from(value()?)),
            "--gradle" => parsed.build_tool.gradle_executable = Some(PathBuf::from(value()?)),
            "--online" | "--no-build-tool" if inline_value.is_some() => {
                return Err(format!("`{flag}` takes no value"))
            }
            "--online" => parsed.build_tool.offline = false,
            "--no-build-tool" => parsed.build_tool.enabled = false,
            "--pass-environment" => {
                let names: Vec<String> = value()?
                    .split(',')
                    .map(str::trim)
                    .filter(|name| !name.is_empty())
                    .map(str::to_owned)
                    .collect();
                jvm::check_patterns(&names).map_err(|e| format!("--pass-environment: {e}"))?;
                parsed.pass_environment.extend(names);
            }
            other => return Err(format!("unexpected argument `{other}` for `generate`")),
        }
    }
    if parsed.classes.is_empty() {
        return Err("`generate` needs at least one `--class FQCN`".into());
    }
    Ok(parsed)
}

fn parse_algorithm(name: &str) -> Result<Algorithm, String> {
    match name {
        "dynamosa" => Ok(Algorithm::DynaMosa),
        "adynamosa" => Ok(Algorithm::ADynaMosa),
        "mosa" => Ok(Algorithm::Mosa),
        "wholesuite" => Ok(Algorithm::WholeSuite),
        other => Err(format!(
            "`--algorithm` must be dynamosa, adynamosa, mosa or wholesuite, got `{other}`"
        )),
    }
}

/// Branch coverage is always on: DynaMOSA reaches the other goals through branch goals.
fn parse_criteria(list: &str) -> Result<Criteria, String> {
    let mut criteria = Criteria::branch_only();
    for name in list
        .split(',')
        .map(str::trim)
        .filter(|name| !name.is_empty())
    {
        match name {
            "branch" => {}
            "line" => criteria.line = true,
            "method" => criteria.method = true,
            "exception" => criteria.exception = true,
            other => {
                return Err(format!(
                    "unknown criterion `{other}` in `--criteria` (branch, line, method, exception)"
                ))
            }
        }
    }
    Ok(criteria)
}

/// `com.example.Account` or `Account$Inner`: dot-separated Java identifiers.
fn is_qualified_name(name: &str) -> bool {
    !name.is_empty()
        && name.split('.').all(|part| {
            let mut chars = part.chars();
            chars
                .next()
                .is_some_and(|first| first.is_alphabetic() || first == '_' || first == '$')
                && chars.all(|c| c.is_alphanumeric() || c == '_' || c == '$')
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_and_every_flag() {
        let args = parse(&["--class", "com.x.A"]).expect("valid");
        assert_eq!(
            args,
            GenerateArgs {
                classes: vec!["com.x.A".into()],
                ..GenerateArgs::default()
            }
        );

        let args = parse(&[
            "--project=proj",
            "--source-root",
            "src",
            "--source-root",
            "gen",
            "--classpath",
            "a.jar:b",
            "--class",
            "p.A",
            "--instrument-also",
            "p.Helper",
            "--class=p.B$Inner",
            "--instrument-also=q.Other$Nested",
            "--budget",
            "2.5",
            "--seed",
            "7",
            "--algorithm",
            "wholesuite",
            "--criteria",
            "branch,exception",
            "--junit",
            "4",
            "--out",
            "tests",
            "--report=r.json",
            "--sarif",
            "r.sarif",
            "--html=site",
            "--java-home",
            "/jdk",
            "--online",
            "--maven",
            "/opt/mvn",
            "--maven-settings=/w/settings.xml",
            "--gradle",
            "./gradlew",
            "--no-build-tool",
            "--pass-environment",
            "MYAPP_*,DB_URL",
            "--pass-environment=LOG_LEVEL",
        ])
        .expect("valid");
        assert_eq!(args.project, PathBuf::from("proj"));
        assert_eq!(args.pass_environment, ["MYAPP_*", "DB_URL", "LOG_LEVEL"]);
        assert!(parse(&["--class", "A", "--pass-environment", "*"])
            .unwrap_err()
            .contains("whole environment"));
        assert_eq!(
            args.source_roots,
            vec![PathBuf::from("src"), PathBuf::from("gen")]
        );
        assert_eq!(
            args.classpath,
            vec![PathBuf::from("a.jar"), PathBuf::from("b")]
        );
        assert_eq!(args.classes, vec!["p.A".to_owned(), "p.B$Inner".to_owned()]);
        assert_eq!(
            args.instrument_also,
            vec!["p.Helper".to_owned(), "q.Other$Nested".to_owned()]
        );
        assert_eq!(args.budget, Duration::from_millis(2500));
        assert_eq!(args.seed, 7);
        assert_eq!(args.algorithm, Algorithm::WholeSuite);
        assert_eq!(
            args.criteria,
            Criteria {
                line: false,
                method: false,
                exception: true
            }
        );
        assert_eq!(args.junit, Some(JUnitVersion::Four));
        assert_eq!(args.out, Some(PathBuf::from("tests")));
        assert_eq!(args.report, Some(PathBuf::from("r.json")));
        assert_eq!(args.sarif, Some(PathBuf::from("r.sarif")));
        assert_eq!(args.html, Some(PathBuf::from("site")));
        assert_eq!(args.java_home, Some(PathBuf::from("/jdk")));
        assert_eq!(
            args.build_tool,
            BuildToolSettings {
                enabled: false,
                maven_executable: Some(PathBuf::from("/opt/mvn")),
                gradle_executable: Some(PathBuf::from("./gradlew")),
                offline: false,
                maven_settings: Some(PathBuf::from("/w/settings.xml")),
                ..BuildToolSettings::default()
            }
        );
    }

    #[test]
    fn errors_name_the_flag() {
        let cases: &[(&[&str], &str)] = &[
            (&[], "`generate` needs at least one `--class FQCN`"),
            (&["--class"], "`--class` needs a value"),
            (
                &["--class", "not a class"],
                "`--class not a class` is not a class name like com.example.Account",
            ),
            (
                &["--class", "A", "--instrument-also"],
                "`--instrument-also` needs a value",
            ),
            (
                &["--class", "A", "--instrument-also", "p.B;"],
                "`--instrument-also p.B;` is not a class name like com.example.Account",
            ),
            (
                &["--instrument-also", "p.B"],
                "`generate` needs at least one `--class FQCN`",
            ),
            (
                &["--class", "A", "--budget", "0"],
                "`--budget` must be a positive number of seconds, got `0`",
            ),
            (
                &["--class", "A", "--budget", "NaN"],
                "`--budget` must be a positive number of seconds, got `NaN`",
            ),
            (
                &["--class", "A", "--seed", "-1"],
                "`--seed` must be a non-negative integer, got `-1`",
            ),
            (
                &["--class", "A", "--algorithm", "random"],
                "`--algorithm` must be dynamosa, adynamosa, mosa or wholesuite, got `random`",
            ),
            (
                &["--class", "A", "--criteria", "branch,mutation"],
                "unknown criterion `mutation` in `--criteria` (branch, line, method, exception)",
            ),
            (
                &["--class", "A", "--junit", "3"],
                "`--junit` must be 4 or 5, got `3`",
            ),
            (
                &["--class", "A", "--online=yes"],
                "`--online` takes no value",
            ),
            (
                &["--class", "A", "--verbose"],
                "unexpected argument `--verbose` for `generate`",
            ),
        ];
        for (args, message) in cases {
            assert_eq!(parse(args), Err((*message).to_owned()), "{args:?}");
        }
    }
}
