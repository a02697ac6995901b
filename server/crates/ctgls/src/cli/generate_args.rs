//! The arguments of `ctgls generate`: the clap definition (what `--help` shows and how errors
//! read) and [`GenerateArgs`], the checked values the command runs with. Every flag takes
//! `--flag VALUE` or `--flag=VALUE`.

use std::path::PathBuf;
use std::time::Duration;

use clap::{Args, ValueEnum};
use ctg::buildtool::BuildToolSettings;
use ctg::project::JUnitVersion;
use ctgproject::allocation::Strategy;
use ctgproject::shard::Shard;
use search::{Algorithm, Criteria};

const AFTER_HELP: &str = "\
Without --class, every testable class of the project (top-level, not abstract, not an
interface) is generated for, filtered by --package, --include and --changed-since, with
the project's budget shared as Campos et al.'s \"Continuous Test Generation\" does: a minimum
per class, the rest in proportion to its branches, changed classes twice as much, classes
whose last three runs did not improve skipped until they change, classes after the classes
they use (whose tests seed them), time a class did not use handed on (docs/architecture.md).

Exit codes: 0 every class's tests were written; 1 a class failed (not found, does not compile,
tests not verified or not written) or the report could not be written; 2 bad arguments;
3 a --fail-on condition was met (and nothing else failed).";

/// The clap form of `ctgls generate`'s arguments.
#[derive(Debug, Args)]
#[command(after_help = AFTER_HELP)]
pub struct GenerateCli {
    /// The project
    #[arg(long, value_name = "DIR", default_value = ".")]
    project: PathBuf,
    /// A source root; repeatable (default: src/main/java, else src, else DIR)
    #[arg(long = "source-root", value_name = "DIR")]
    source_roots: Vec<PathBuf>,
    /// Extra classpath entries, separated by the platform's path separator (also -cp)
    #[arg(long, value_name = "CP")]
    classpath: Vec<String>,
    /// A class to generate tests for; repeatable. Without any: the whole project
    #[arg(long = "class", value_name = "FQCN", value_parser = class_name("--class"))]
    classes: Vec<String>,
    /// Another class to instrument with each class under test: the JSON report gives its
    /// coverage by that class's tests (the search ignores it); repeatable
    #[arg(long = "instrument-also", value_name = "FQCN", value_parser = class_name("--instrument-also"))]
    instrument_also: Vec<String>,
    /// Class-integration tests: generate tests of the one --class (the caller) that cover its
    /// coupled branches with this class (the callee), written to
    /// <Caller>_<Callee>IntegrationGeneratedTest.java
    #[arg(long, value_name = "FQCN", value_parser = class_name("--callee"))]
    callee: Option<String>,
    /// Wall-clock budget per class, start-up and verification included (default: 30); in
    /// project mode, the average per class when --total-budget is not given
    #[arg(long, value_name = "SECONDS", value_parser = seconds("--budget"), allow_hyphen_values = true)]
    budget: Option<Duration>,
    /// Random seed; same seed, same subject: same search
    #[arg(long, value_name = "N", default_value_t = 0, value_parser = seed, allow_hyphen_values = true)]
    seed: u64,
    /// Stop each search after N test executions (time still bounds it): with the same seed,
    /// the same tests on any machine, however fast
    #[arg(long = "max-executions", value_name = "N")]
    max_executions: Option<u64>,
    /// dynamosa (default), adynamosa, mosa or wholesuite
    #[arg(long, value_name = "NAME", value_parser = algorithm)]
    algorithm: Option<Algorithm>,
    /// Comma-separated: branch, line, method, exception, weak-mutation (default: all but
    /// weak-mutation; branch is always on)
    #[arg(long, value_name = "LIST", value_parser = criteria)]
    criteria: Option<Criteria>,
    /// JUnit version of the emitted tests (default: what the project uses)
    #[arg(long, value_name = "5|4", value_parser = junit)]
    junit: Option<JUnitVersion>,
    /// Run the written tests against mutants of the class: keep per test the assertions that
    /// kill them, and report the mutation score (bounded by the budget). The default
    #[arg(long, overrides_with = "no_mutation")]
    mutation: bool,
    /// No mutation analysis: keep every planned assertion, report no mutation score
    #[arg(long = "no-mutation", overrides_with = "mutation")]
    no_mutation: bool,
    /// Where test files go (default: the project's test root)
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// Also write a JSON report (schema: docs/report.md)
    #[arg(long, value_name = "FILE")]
    report: Option<PathBuf>,
    /// Also write the findings as SARIF 2.1.0, for code scanning
    #[arg(long, value_name = "FILE")]
    sarif: Option<PathBuf>,
    /// Also write an HTML report (index.html, a page per class)
    #[arg(long, value_name = "DIR")]
    html: Option<PathBuf>,
    /// The JDK to use (default: JAVA_HOME, then javac on PATH)
    #[arg(long = "java-home", value_name = "DIR")]
    java_home: Option<PathBuf>,
    /// Exit with 3 when a run finds it (for CI gates); repeatable
    #[arg(long = "fail-on", value_name = "WHAT")]
    fail_on: Vec<FailOn>,
    /// No progress and no notes on stderr (errors still)
    #[arg(long, short, conflicts_with = "verbose")]
    quiet: bool,
    /// Also log what each run does on stderr (like CTGLS_LOG=info)
    #[arg(long, short)]
    verbose: bool,

    /// Only classes in this package or its subpackages; repeatable
    #[arg(
        long = "package",
        value_name = "P",
        help_heading = "Project mode (without --class)"
    )]
    packages: Vec<String>,
    /// Only classes whose name matches (`*` any characters, `?` one); repeatable
    #[arg(
        long,
        value_name = "GLOB",
        help_heading = "Project mode (without --class)"
    )]
    include: Vec<String>,
    /// Only classes whose file changed since the git revision REF (committed, staged, in the
    /// work tree, or new); they count as changed
    #[arg(
        long = "changed-since",
        value_name = "REF",
        help_heading = "Project mode (without --class)"
    )]
    changed_since: Option<String>,
    /// The time of all classes together, in core-seconds (default: --budget × classes)
    #[arg(long = "total-budget", value_name = "SECONDS", value_parser = seconds("--total-budget"), help_heading = "Project mode (without --class)")]
    total_budget: Option<Duration>,
    /// The least a class gets (default: a third of the average, as in the paper)
    #[arg(long = "min-budget", value_name = "SECONDS", value_parser = seconds("--min-budget"), help_heading = "Project mode (without --class)")]
    min_budget: Option<Duration>,
    /// branches (the paper's allocation, default) or equal (the same for every class)
    #[arg(
        long,
        value_name = "HOW",
        default_value = "branches",
        help_heading = "Project mode (without --class)"
    )]
    allocation: Allocation,
    /// Classes at once, one worker JVM each (default: the cores, fewer when memory is short;
    /// with --class: 1)
    #[arg(long, short = 'j', value_name = "N", value_parser = clap::value_parser!(u16).range(1..), help_heading = "Project mode (without --class)")]
    jobs: Option<u16>,
    /// Only shard I of N (a deterministic part, balanced by budget) for CI runners
    #[arg(long, value_name = "I/N", value_parser = shard, help_heading = "Project mode (without --class)")]
    shard: Option<Shard>,
    /// Also class-integration tests of caller/callee pairs chosen from the call sites between
    /// project classes (non-trivial pairs, most coupled branches first), after the unit tests
    #[arg(long, help_heading = "Project mode (without --class)")]
    integration: bool,
    /// With --integration: the percentage of the total budget the pairs share (default 25)
    #[arg(long = "integration-share", value_name = "PERCENT", value_parser = clap::value_parser!(u8).range(1..=90), requires = "integration", help_heading = "Project mode (without --class)")]
    integration_share: Option<u8>,
    /// With --integration: at most N pairs
    #[arg(long = "integration-pairs", value_name = "N", value_parser = clap::value_parser!(u16).range(1..), requires = "integration", help_heading = "Project mode (without --class)")]
    integration_pairs: Option<u16>,

    /// Let Maven or Gradle download what the local repository lacks
    #[arg(
        long,
        help_heading = "Classpath (asked offline from the build tool, cached)"
    )]
    online: bool,
    /// The Maven executable (default: mvn, else the project's mvnw)
    #[arg(
        long,
        value_name = "FILE",
        help_heading = "Classpath (asked offline from the build tool, cached)"
    )]
    maven: Option<PathBuf>,
    /// A Maven settings.xml, passed as `mvn -s` (default: mvn's own, ~/.m2/settings.xml)
    #[arg(
        long = "maven-settings",
        value_name = "FILE",
        help_heading = "Classpath (asked offline from the build tool, cached)"
    )]
    maven_settings: Option<PathBuf>,
    /// The Gradle executable (default: the project's gradlew, else gradle)
    #[arg(
        long,
        value_name = "FILE",
        help_heading = "Classpath (asked offline from the build tool, cached)"
    )]
    gradle: Option<PathBuf>,
    /// Do not ask the build tool: guess the classpath from build outputs and lib/ jars
    #[arg(
        long = "no-build-tool",
        help_heading = "Classpath (asked offline from the build tool, cached)"
    )]
    no_build_tool: bool,

    /// Environment variables code under test may see, comma-separated names or patterns
    /// (`MYAPP_*`); repeatable. Every other variable is hidden from it. Their values can end
    /// up asserted in written tests: never pass secrets
    #[arg(
        long = "pass-environment",
        value_name = "NAMES",
        help_heading = "What code under test sees"
    )]
    pass_environment: Vec<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Allocation {
    Branches,
    Equal,
}

/// Conditions that make `generate` exit with 3.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum FailOn {
    /// A method lets an exception escape that it does not declare.
    UndeclaredException,
}

/// The checked arguments `generate` runs with.
#[derive(Debug, Clone, PartialEq)]
pub struct GenerateArgs {
    pub project: PathBuf,
    pub source_roots: Vec<PathBuf>,
    pub classpath: Vec<PathBuf>,
    /// Empty: project mode.
    pub classes: Vec<String>,
    /// Classes whose coverage by each class's tests is measured and reported
    /// (`GenerationRequest::also_instrument`).
    pub instrument_also: Vec<String>,
    /// The callee of class-integration tests (`GenerationRequest::callee`); only with one
    /// class.
    pub callee: Option<String>,
    pub budget: Duration,
    pub seed: u64,
    pub max_executions: Option<u64>,
    pub algorithm: Algorithm,
    pub criteria: Criteria,
    pub junit: Option<JUnitVersion>,
    /// Mutation analysis and assertion selection by it: on unless `--no-mutation`
    /// (docs/benchmarks.md, "Mutation analysis on by default").
    pub mutation: bool,
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
    pub fail_on: Vec<FailOn>,
    pub quiet: bool,
    pub verbose: bool,
    pub project_mode: ProjectMode,
}

/// What only project mode (no `--class`) uses.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ProjectMode {
    pub packages: Vec<String>,
    pub include: Vec<String>,
    pub changed_since: Option<String>,
    pub total_budget: Option<Duration>,
    pub min_budget: Option<Duration>,
    pub allocation: Strategy,
    pub jobs: Option<usize>,
    pub shard: Option<Shard>,
    /// `--integration`: class-integration tests of chosen pairs too.
    pub integration: Option<IntegrationMode>,
}

/// How project mode runs class-integration tests (`--integration`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct IntegrationMode {
    /// The share of the total budget the pairs get, in `(0, 0.9]`.
    pub share: f64,
    /// At most this many pairs.
    pub max_pairs: Option<usize>,
}

/// `--integration-share`'s default: a quarter of the project's time for the pairs.
pub const DEFAULT_INTEGRATION_SHARE: f64 = 0.25;

impl Default for GenerateArgs {
    fn default() -> Self {
        GenerateArgs {
            project: PathBuf::from("."),
            source_roots: Vec::new(),
            classpath: Vec::new(),
            classes: Vec::new(),
            instrument_also: Vec::new(),
            callee: None,
            budget: Duration::from_secs(30),
            seed: 0,
            max_executions: None,
            algorithm: Algorithm::DynaMosa,
            criteria: Criteria::default(),
            junit: None,
            mutation: true,
            out: None,
            report: None,
            sarif: None,
            html: None,
            java_home: None,
            build_tool: BuildToolSettings::default(),
            pass_environment: Vec::new(),
            fail_on: Vec::new(),
            quiet: false,
            verbose: false,
            project_mode: ProjectMode::default(),
        }
    }
}

impl GenerateCli {
    /// The checked arguments; the message names the flag that is wrong.
    pub fn check(self) -> Result<GenerateArgs, String> {
        let mut pass_environment = Vec::new();
        for list in &self.pass_environment {
            let names: Vec<String> = list
                .split(',')
                .map(str::trim)
                .filter(|name| !name.is_empty())
                .map(str::to_owned)
                .collect();
            jvm::check_patterns(&names).map_err(|e| format!("--pass-environment: {e}"))?;
            pass_environment.extend(names);
        }
        let project_only = [
            (!self.packages.is_empty(), "--package"),
            (!self.include.is_empty(), "--include"),
            (self.changed_since.is_some(), "--changed-since"),
            (self.total_budget.is_some(), "--total-budget"),
            (self.min_budget.is_some(), "--min-budget"),
            (self.shard.is_some(), "--shard"),
            (self.integration, "--integration"),
        ];
        if !self.classes.is_empty() {
            if let Some((_, flag)) = project_only.iter().find(|(given, _)| *given) {
                return Err(format!(
                    "`{flag}` chooses among the project's classes: leave out `--class` to use it"
                ));
            }
        }
        if self.callee.is_some() && self.classes.len() != 1 {
            return Err(
                "`--callee` makes integration tests of one caller: give exactly one `--class`"
                    .to_string(),
            );
        }
        if self.callee.is_some() && self.callee.as_ref() == self.classes.first() {
            return Err("`--callee` names another class than `--class`".to_string());
        }
        let defaults = BuildToolSettings::default();
        Ok(GenerateArgs {
            project: self.project,
            source_roots: self.source_roots,
            classpath: self
                .classpath
                .iter()
                .flat_map(std::env::split_paths)
                .collect(),
            classes: self.classes,
            instrument_also: self.instrument_also,
            callee: self.callee,
            budget: self.budget.unwrap_or(Duration::from_secs(30)),
            seed: self.seed,
            max_executions: self.max_executions,
            algorithm: self.algorithm.unwrap_or(Algorithm::DynaMosa),
            criteria: self.criteria.unwrap_or_default(),
            junit: self.junit,
            mutation: !self.no_mutation,
            out: self.out,
            report: self.report,
            sarif: self.sarif,
            html: self.html,
            java_home: self.java_home,
            build_tool: BuildToolSettings {
                enabled: !self.no_build_tool,
                maven_executable: self.maven,
                gradle_executable: self.gradle,
                offline: !self.online,
                maven_settings: self.maven_settings,
                ..defaults
            },
            pass_environment,
            fail_on: self.fail_on,
            quiet: self.quiet,
            verbose: self.verbose,
            project_mode: ProjectMode {
                packages: self.packages,
                include: self.include,
                changed_since: self.changed_since,
                total_budget: self.total_budget,
                min_budget: self.min_budget,
                allocation: match self.allocation {
                    Allocation::Branches => Strategy::Branches,
                    Allocation::Equal => Strategy::Equal,
                },
                jobs: self.jobs.map(usize::from),
                shard: self.shard,
                integration: self.integration.then(|| IntegrationMode {
                    share: self
                        .integration_share
                        .map_or(DEFAULT_INTEGRATION_SHARE, |p| f64::from(p) / 100.0),
                    max_pairs: self.integration_pairs.map(usize::from),
                }),
            },
        })
    }
}

fn class_name(flag: &'static str) -> impl Fn(&str) -> Result<String, String> + Clone {
    move |class| {
        if is_qualified_name(class) {
            Ok(class.to_owned())
        } else {
            Err(format!(
                "`{flag} {class}` is not a class name like com.example.Account"
            ))
        }
    }
}

fn seconds(flag: &'static str) -> impl Fn(&str) -> Result<Duration, String> + Clone {
    move |text| {
        text.parse()
            .ok()
            .filter(|seconds: &f64| seconds.is_finite() && *seconds > 0.0)
            .map(Duration::from_secs_f64)
            .ok_or_else(|| format!("`{flag}` must be a positive number of seconds, got `{text}`"))
    }
}

fn seed(text: &str) -> Result<u64, String> {
    text.parse()
        .map_err(|_| format!("`--seed` must be a non-negative integer, got `{text}`"))
}

fn junit(text: &str) -> Result<JUnitVersion, String> {
    match text {
        "5" => Ok(JUnitVersion::Five),
        "4" => Ok(JUnitVersion::Four),
        other => Err(format!("`--junit` must be 4 or 5, got `{other}`")),
    }
}

fn shard(text: &str) -> Result<Shard, String> {
    text.parse()
}

fn algorithm(name: &str) -> Result<Algorithm, String> {
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
fn criteria(list: &str) -> Result<Criteria, String> {
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
            "weak-mutation" => criteria.weak_mutation = true,
            other => {
                return Err(format!(
                    "unknown criterion `{other}` in `--criteria` (branch, line, method, \
                     exception, weak-mutation)"
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
    use crate::cli::{parse_strs, Command};

    fn parse(args: &[&str]) -> Result<GenerateArgs, String> {
        let mut all = vec!["generate"];
        all.extend_from_slice(args);
        match parse_strs(&all)? {
            Command::Generate(args) => Ok(*args),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn callee_needs_exactly_one_other_class() {
        let args = parse(&["--class", "p.Bank", "--callee", "p.Account"]).expect("valid");
        assert_eq!(args.callee.as_deref(), Some("p.Account"));
        for wrong in [
            &["--callee", "p.Account"][..],
            &["--class", "p.A", "--class", "p.B", "--callee", "p.C"],
            &["--class", "p.A", "--callee", "p.A"],
        ] {
            let error = parse(wrong).expect_err("invalid");
            assert!(error.contains("--callee"), "{error}");
        }
    }

    #[test]
    fn weak_mutation_is_a_criterion_outside_the_default_set() {
        let default = parse(&["--class", "p.A"]).expect("valid").criteria;
        assert_eq!(default, Criteria::default());
        assert!(!default.weak_mutation && default.line && default.exception);
        let chosen = parse(&["--class", "p.A", "--criteria", "line, weak-mutation"])
            .expect("valid")
            .criteria;
        assert_eq!(
            chosen,
            Criteria {
                line: true,
                weak_mutation: true,
                ..Criteria::branch_only()
            }
        );
    }

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
        assert_eq!(parse(&[]).expect("project mode"), GenerateArgs::default());

        let args = parse(&[
            "--project=proj",
            "--source-root",
            "src",
            "--source-root",
            "gen",
            "-cp",
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
            "--max-executions",
            "500",
            "--algorithm",
            "wholesuite",
            "--criteria",
            "branch,exception,weak-mutation",
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
            "--fail-on",
            "undeclared-exception",
            "--quiet",
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
        assert_eq!(args.max_executions, Some(500));
        assert_eq!(args.algorithm, Algorithm::WholeSuite);
        assert_eq!(
            args.criteria,
            Criteria {
                line: false,
                method: false,
                exception: true,
                weak_mutation: true,
            }
        );
        assert_eq!(args.junit, Some(JUnitVersion::Four));
        assert_eq!(args.out, Some(PathBuf::from("tests")));
        assert_eq!(args.report, Some(PathBuf::from("r.json")));
        assert_eq!(args.sarif, Some(PathBuf::from("r.sarif")));
        assert_eq!(args.html, Some(PathBuf::from("site")));
        assert_eq!(args.java_home, Some(PathBuf::from("/jdk")));
        assert_eq!(args.fail_on, [FailOn::UndeclaredException]);
        assert!(args.quiet);
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

    /// Mutation analysis is on unless `--no-mutation`; of the two flags the last one counts.
    #[test]
    fn mutation_is_on_unless_turned_off() {
        let mutation = |flags: &[&str]| {
            let mut args = vec!["--class", "com.x.A"];
            args.extend_from_slice(flags);
            parse(&args).expect("valid").mutation
        };
        assert!(mutation(&[]));
        assert!(mutation(&["--mutation"]));
        assert!(!mutation(&["--no-mutation"]));
        assert!(!mutation(&["--mutation", "--no-mutation"]));
        assert!(mutation(&["--no-mutation", "--mutation"]));
    }

    #[test]
    fn project_mode_flags() {
        let args = parse(&[
            "--package",
            "com.x",
            "--include=*Service",
            "--changed-since",
            "origin/main",
            "--total-budget",
            "600",
            "--min-budget",
            "20",
            "--allocation",
            "equal",
            "-j",
            "3",
            "--shard",
            "2/4",
            "--integration",
            "--integration-share",
            "40",
            "--integration-pairs",
            "3",
        ])
        .expect("valid");
        assert_eq!(
            args.project_mode,
            ProjectMode {
                packages: vec!["com.x".into()],
                include: vec!["*Service".into()],
                changed_since: Some("origin/main".into()),
                total_budget: Some(Duration::from_secs(600)),
                min_budget: Some(Duration::from_secs(20)),
                allocation: Strategy::Equal,
                jobs: Some(3),
                shard: Some(Shard { index: 2, count: 4 }),
                integration: Some(IntegrationMode {
                    share: 0.4,
                    max_pairs: Some(3),
                }),
            }
        );
        let plain = parse(&["--integration"]).expect("valid");
        assert_eq!(
            plain.project_mode.integration,
            Some(IntegrationMode {
                share: DEFAULT_INTEGRATION_SHARE,
                max_pairs: None
            })
        );
        assert!(parse(&["--integration-share", "40"]).is_err());
        assert!(parse(&["--class", "p.A", "--integration"]).is_err());
    }

    #[test]
    fn errors_name_the_flag() {
        let cases: &[(&[&str], &str)] = &[
            (&["--class"], "a value is required for '--class <FQCN>'"),
            (
                &["--class", "not a class"],
                "`--class not a class` is not a class name like com.example.Account",
            ),
            (
                &["--class", "A", "--instrument-also"],
                "a value is required for '--instrument-also <FQCN>'",
            ),
            (
                &["--class", "A", "--instrument-also", "p.B;"],
                "`--instrument-also p.B;` is not a class name like com.example.Account",
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
                "unknown criterion `mutation` in `--criteria` (branch, line, method, exception, \
                 weak-mutation)",
            ),
            (
                &["--class", "A", "--junit", "3"],
                "`--junit` must be 4 or 5, got `3`",
            ),
            (&["--class", "A", "--online=yes"], "--online"),
            (
                &["--class", "A", "--frobnicate"],
                "unexpected argument '--frobnicate'",
            ),
            (&["--shard", "3/2"], "between 1 and the count"),
            (&["--jobs", "0"], "--jobs"),
            (&["--fail-on", "warnings"], "undeclared-exception"),
            (
                &["--class", "A", "--shard", "1/2"],
                "`--shard` chooses among the project's classes: leave out `--class` to use it",
            ),
        ];
        for (args, message) in cases {
            let error = parse(args).unwrap_err();
            assert!(error.contains(message), "{args:?}: {error}");
        }
    }
}
