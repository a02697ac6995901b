//! The server's settings: a typed `Config` read from `initializationOptions`,
//! `workspace/configuration` (section `ctgls`) or a pushed `didChangeConfiguration`.
//!
//! A settings object is a complete configuration: keys it omits take their defaults. Keys use
//! camelCase, as editors' settings do (`budgetSeconds`, `javaHome`). Unknown keys are reported
//! but do not make the settings invalid; an invalid value makes the whole object invalid, and
//! the caller keeps its previous configuration.

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use tower_lsp_server::ls_types::DiagnosticSeverity;

use super::DiagnosticCode;

/// The configuration section this server reads from the client.
pub const SECTION: &str = "ctgls";

#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Config {
    /// The JDK to use; `JAVA_HOME` and then `PATH` when unset.
    pub java_home: Option<PathBuf>,
    /// Extra classpath entries of the project under test.
    pub classpath: Vec<String>,
    /// Search budget per class, in seconds. Always finite and positive.
    pub budget_seconds: f64,
    pub algorithm: Algorithm,
    /// JUnit major version of emitted tests (4 or 5); detected from the project when unset.
    pub junit: Option<u8>,
    /// When false, no user code is ever run (no test generation, only static analysis).
    pub execution_enabled: bool,
    /// Quiet time after the last edit before background work for a class starts.
    pub idle_delay_ms: u64,
    /// Log level on stderr, unless the `CTGLS_LOG` environment variable overrides it.
    pub log_level: LogLevel,
    /// Ask Maven or Gradle for the classpath; when false it is guessed from directories.
    pub build_tool_enabled: bool,
    /// Never let the build tool download (it resolves from the local repository only).
    pub build_tool_offline: bool,
    /// The Maven executable; `mvn`, else the project's `mvnw`, when unset.
    pub maven_executable: Option<PathBuf>,
    /// A Maven `settings.xml` passed as `-s`; mvn reads `~/.m2/settings.xml` itself otherwise.
    pub maven_settings: Option<PathBuf>,
    /// The Gradle executable; the project's `gradlew`, else `gradle`, when unset.
    pub gradle_executable: Option<PathBuf>,
    /// Names or glob patterns of the environment variables code under test may see; every
    /// other one is hidden from it. Their values can end up asserted in written tests.
    pub pass_environment: Vec<String>,
    /// The severity of each diagnostic code, or `off`; codes not named keep their own.
    pub diagnostics: DiagnosticSeverities,
    /// When runs start.
    pub trigger: Trigger,
    /// Source roots, relative to the project root or absolute (the CLI's `--source-root`);
    /// empty: the project's own.
    pub source_roots: Vec<String>,
    /// Test roots, likewise; the first is where generated tests go (the CLI's `--out`), and
    /// files under any of them are tests, not classes to generate for. Empty: the project's.
    pub test_roots: Vec<String>,
    /// Run the written tests against mutants of the class: keep per test the assertions that
    /// kill them and show the mutation score (the CLI's `--mutation`; on by default, as there).
    pub mutation_analysis: bool,
}

/// When generation runs start.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Trigger {
    /// After `idleDelayMs` without edits (and on open and save).
    #[default]
    Idle,
    /// After `textDocument/didSave` only (and on open).
    Save,
    /// Only when asked: the `ctgls.generate` command, a code lens or a code action.
    Manual,
}

/// What the user wants of a diagnostic code.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum SeverityLevel {
    Error,
    Warning,
    Information,
    Hint,
    Off,
}

impl SeverityLevel {
    /// The LSP severity; `None` for `off`.
    pub fn severity(self) -> Option<DiagnosticSeverity> {
        match self {
            SeverityLevel::Error => Some(DiagnosticSeverity::ERROR),
            SeverityLevel::Warning => Some(DiagnosticSeverity::WARNING),
            SeverityLevel::Information => Some(DiagnosticSeverity::INFORMATION),
            SeverityLevel::Hint => Some(DiagnosticSeverity::HINT),
            SeverityLevel::Off => None,
        }
    }
}

/// The `diagnostics` setting: per code, a severity or `off`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct DiagnosticSeverities(pub BTreeMap<DiagnosticCode, SeverityLevel>);

impl DiagnosticSeverities {
    /// The user's choice for `code`, if any.
    pub fn get(&self, code: DiagnosticCode) -> Option<SeverityLevel> {
        self.0.get(&code).copied()
    }

    /// Reads the object; codes this server does not emit go to `unknown` (as
    /// `diagnostics.<code>`), an invalid level is an error.
    fn parse(key: &str, value: &Value, unknown: &mut Vec<String>) -> Result<Self, String> {
        let object = value
            .as_object()
            .ok_or_else(|| format!("`{key}` must be an object of diagnostic codes, got {value}"))?;
        let mut out = BTreeMap::new();
        for (code, level) in object {
            let Some(parsed) = DiagnosticCode::parse(code) else {
                unknown.push(format!("{key}.{code}"));
                continue;
            };
            let level: SeverityLevel = field(&format!("{key}.{code}"), level)?;
            out.insert(parsed, level);
        }
        Ok(DiagnosticSeverities(out))
    }
}

impl Default for Config {
    fn default() -> Self {
        Self {
            java_home: None,
            classpath: Vec::new(),
            budget_seconds: 10.0,
            algorithm: Algorithm::default(),
            junit: None,
            execution_enabled: true,
            idle_delay_ms: 1000,
            log_level: LogLevel::default(),
            build_tool_enabled: true,
            build_tool_offline: true,
            maven_executable: None,
            maven_settings: None,
            gradle_executable: None,
            pass_environment: Vec::new(),
            diagnostics: DiagnosticSeverities::default(),
            trigger: Trigger::default(),
            source_roots: Vec::new(),
            test_roots: Vec::new(),
            mutation_analysis: true,
        }
    }
}

impl Config {
    /// The project-layout overrides these settings make (`sourceRoots`, `testRoots`,
    /// `classpath`), as the CLI's `--source-root`, `--out` and `--classpath` make them.
    pub fn layout_overrides(&self) -> ctg::project::LayoutOverrides {
        ctg::project::LayoutOverrides {
            source_roots: self.source_roots.iter().map(PathBuf::from).collect(),
            test_root: self.test_roots.first().map(PathBuf::from),
            classpath: self.classpath.iter().map(PathBuf::from).collect(),
        }
    }

    /// How the build tool is asked, in `ctg`'s terms.
    pub fn build_tool(&self) -> ctg::buildtool::BuildToolSettings {
        ctg::buildtool::BuildToolSettings {
            enabled: self.build_tool_enabled,
            maven_executable: self.maven_executable.clone(),
            gradle_executable: self.gradle_executable.clone(),
            offline: self.build_tool_offline,
            maven_settings: self.maven_settings.clone(),
            ..ctg::buildtool::BuildToolSettings::default()
        }
    }
}

/// The search algorithm for test generation.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Algorithm {
    #[default]
    Dynamosa,
    Adynamosa,
    Mosa,
    Wholesuite,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum LogLevel {
    Error,
    Warn,
    #[default]
    Info,
    Debug,
    Trace,
}

impl LogLevel {
    pub fn as_str(self) -> &'static str {
        match self {
            LogLevel::Error => "error",
            LogLevel::Warn => "warn",
            LogLevel::Info => "info",
            LogLevel::Debug => "debug",
            LogLevel::Trace => "trace",
        }
    }
}

/// Settings that were read successfully.
#[derive(Debug, PartialEq)]
pub struct ParsedConfig {
    pub config: Config,
    /// Keys that this server does not know, sorted.
    pub unknown_keys: Vec<String>,
}

/// Why a settings object was rejected: one message per invalid key.
#[derive(Debug, PartialEq)]
pub struct InvalidConfig {
    pub errors: Vec<String>,
}

impl std::fmt::Display for InvalidConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.errors.join("; "))
    }
}

/// Reads a settings object. `null` is not handled here: callers treat it as "no settings".
pub fn parse(settings: &Value) -> Result<ParsedConfig, InvalidConfig> {
    let Some(object) = settings.as_object() else {
        return Err(InvalidConfig {
            errors: vec![format!(
                "`{SECTION}` settings must be an object, got {settings}"
            )],
        });
    };
    let mut config = Config::default();
    let mut unknown_keys = Vec::new();
    let mut errors = Vec::new();
    // Sorted, so that messages do not depend on how the JSON map orders its keys.
    let mut entries: Vec<_> = object.iter().collect();
    entries.sort_unstable_by_key(|(key, _)| *key);
    for (key, value) in entries {
        let result = match key.as_str() {
            "javaHome" => field(key, value).map(|v| config.java_home = v),
            "classpath" => field(key, value).map(|v| config.classpath = v),
            "budgetSeconds" => field(key, value).and_then(|v: f64| {
                if v.is_finite() && v > 0.0 {
                    config.budget_seconds = v;
                    Ok(())
                } else {
                    Err(format!(
                        "`{key}` must be a positive number of seconds, got {v}"
                    ))
                }
            }),
            "algorithm" => field(key, value).map(|v| config.algorithm = v),
            "junit" => field(key, value).and_then(|v: Option<u8>| match v {
                None | Some(4) | Some(5) => {
                    config.junit = v;
                    Ok(())
                }
                Some(other) => Err(format!("`{key}` must be 4 or 5, got {other}")),
            }),
            "executionEnabled" => field(key, value).map(|v| config.execution_enabled = v),
            "idleDelayMs" => field(key, value).map(|v| config.idle_delay_ms = v),
            "logLevel" => field(key, value).map(|v| config.log_level = v),
            "buildToolEnabled" => field(key, value).map(|v| config.build_tool_enabled = v),
            "buildToolOffline" => field(key, value).map(|v| config.build_tool_offline = v),
            "mavenExecutable" => field(key, value).map(|v| config.maven_executable = v),
            "mavenSettings" => field(key, value).map(|v| config.maven_settings = v),
            "gradleExecutable" => field(key, value).map(|v| config.gradle_executable = v),
            "passEnvironment" => field(key, value).and_then(|v: Vec<String>| {
                jvm::check_patterns(&v).map_err(|e| format!("`{key}`: {e}"))?;
                config.pass_environment = v;
                Ok(())
            }),
            "diagnostics" => DiagnosticSeverities::parse(key, value, &mut unknown_keys)
                .map(|v| config.diagnostics = v),
            "trigger" => field(key, value).map(|v| config.trigger = v),
            "sourceRoots" => field(key, value).map(|v| config.source_roots = v),
            "testRoots" => field(key, value).map(|v| config.test_roots = v),
            "mutationAnalysis" => field(key, value).map(|v| config.mutation_analysis = v),
            _ => {
                unknown_keys.push(key.clone());
                Ok(())
            }
        };
        if let Err(error) = result {
            errors.push(error);
        }
    }
    unknown_keys.sort();
    if errors.is_empty() {
        Ok(ParsedConfig {
            config,
            unknown_keys,
        })
    } else {
        Err(InvalidConfig { errors })
    }
}

/// The `ctgls` section of a pushed `didChangeConfiguration` payload, if it has one.
pub fn section(settings: &Value) -> Option<&Value> {
    settings.get(SECTION).filter(|value| !value.is_null())
}

fn field<T: DeserializeOwned>(key: &str, value: &Value) -> Result<T, String> {
    T::deserialize(value).map_err(|error| format!("`{key}`: {error}, got {value}"))
}

#[cfg(test)]
mod tests {
    use expect_test::expect;
    use serde_json::json;

    use super::*;

    #[test]
    fn empty_object_gives_defaults() {
        let parsed = parse(&json!({})).unwrap();
        assert_eq!(parsed.config, Config::default());
        assert!(parsed.unknown_keys.is_empty());
        expect![[r#"{"javaHome":null,"classpath":[],"budgetSeconds":10.0,"algorithm":"dynamosa","junit":null,"executionEnabled":true,"idleDelayMs":1000,"logLevel":"info","buildToolEnabled":true,"buildToolOffline":true,"mavenExecutable":null,"mavenSettings":null,"gradleExecutable":null,"passEnvironment":[],"diagnostics":{},"trigger":"idle","sourceRoots":[],"testRoots":[],"mutationAnalysis":true}"#]]
            .assert_eq(&serde_json::to_string(&parsed.config).unwrap());
    }

    #[test]
    fn every_key_is_read() {
        let parsed = parse(&json!({
            "javaHome": "/usr/lib/jvm/java-17",
            "classpath": ["lib/a.jar", "target/classes"],
            "budgetSeconds": 2.5,
            "algorithm": "wholesuite",
            "junit": 4,
            "executionEnabled": false,
            "idleDelayMs": 250,
            "logLevel": "debug",
            "buildToolEnabled": false,
            "buildToolOffline": false,
            "mavenExecutable": "/opt/maven/bin/mvn",
            "mavenSettings": "/w/settings.xml",
            "gradleExecutable": "/opt/gradle/bin/gradle",
            "passEnvironment": ["MYAPP_*"],
            "diagnostics": { "uncovered-branch": "off", "behaviour-changed": "error", "spelling": "hint" },
            "trigger": "save",
            "sourceRoots": ["src", "/abs/gen"],
            "testRoots": ["test"],
            "mutationAnalysis": false,
            "colour": "blue",
            "budget_seconds": 3,
        }))
        .unwrap();
        assert_eq!(
            parsed.config,
            Config {
                java_home: Some(PathBuf::from("/usr/lib/jvm/java-17")),
                classpath: vec!["lib/a.jar".into(), "target/classes".into()],
                budget_seconds: 2.5,
                algorithm: Algorithm::Wholesuite,
                junit: Some(4),
                execution_enabled: false,
                idle_delay_ms: 250,
                log_level: LogLevel::Debug,
                build_tool_enabled: false,
                build_tool_offline: false,
                maven_executable: Some(PathBuf::from("/opt/maven/bin/mvn")),
                maven_settings: Some(PathBuf::from("/w/settings.xml")),
                gradle_executable: Some(PathBuf::from("/opt/gradle/bin/gradle")),
                pass_environment: vec!["MYAPP_*".into()],
                diagnostics: DiagnosticSeverities(BTreeMap::from([
                    (DiagnosticCode::UncoveredBranch, SeverityLevel::Off),
                    (DiagnosticCode::BehaviourChanged, SeverityLevel::Error),
                ])),
                trigger: Trigger::Save,
                source_roots: vec!["src".into(), "/abs/gen".into()],
                test_roots: vec!["test".into()],
                mutation_analysis: false,
            }
        );
        assert_eq!(
            parsed.unknown_keys,
            ["budget_seconds", "colour", "diagnostics.spelling"]
        );
    }

    #[test]
    fn invalid_values_are_all_reported() {
        let error = parse(&json!({
            "budgetSeconds": -1,
            "algorithm": "hillclimbing",
            "junit": 3,
            "idleDelayMs": "soon",
            "executionEnabled": true,
            "passEnvironment": ["*"],
        }))
        .unwrap_err();
        expect![[r#"`algorithm`: unknown variant `hillclimbing`, expected one of `dynamosa`, `adynamosa`, `mosa`, `wholesuite`, got "hillclimbing"; `budgetSeconds` must be a positive number of seconds, got -1; `idleDelayMs`: invalid type: string "soon", expected u64, got "soon"; `junit` must be 4 or 5, got 3; `passEnvironment`: `*` would pass the whole environment, secrets included: name the variables"#]]
            .assert_eq(&error.to_string());
    }

    #[test]
    fn settings_must_be_an_object() {
        expect!["`ctgls` settings must be an object, got [1]"]
            .assert_eq(&parse(&json!([1])).unwrap_err().to_string());
    }

    #[test]
    fn pushed_settings_are_read_from_the_section() {
        assert_eq!(
            section(&json!({"ctgls": {"junit": 5}, "java": {}})),
            Some(&json!({"junit": 5}))
        );
        assert_eq!(section(&json!({"java": {}})), None);
        assert_eq!(section(&json!({"ctgls": null})), None);
        assert_eq!(section(&Value::Null), None);
    }

    #[test]
    fn severities_trigger_and_roots_reject_bad_values() {
        let error = parse(&json!({
            "diagnostics": { "uncovered-branch": "loud" },
            "trigger": "always",
            "sourceRoots": "src",
        }))
        .unwrap_err();
        expect![[r#"`diagnostics.uncovered-branch`: unknown variant `loud`, expected one of `error`, `warning`, `information`, `hint`, `off`, got "loud"; `sourceRoots`: invalid type: string "src", expected a sequence, got "src"; `trigger`: unknown variant `always`, expected one of `idle`, `save`, `manual`, got "always""#]]
            .assert_eq(&error.to_string());
        expect!["`diagnostics` must be an object of diagnostic codes, got [1]"].assert_eq(
            &parse(&json!({ "diagnostics": [1] }))
                .unwrap_err()
                .to_string(),
        );
    }

    #[test]
    fn every_diagnostic_code_can_be_set() {
        for code in DiagnosticCode::ALL {
            let parsed = parse(&json!({ "diagnostics": { code.as_str(): "hint" } })).unwrap();
            assert_eq!(
                parsed.config.diagnostics.get(*code),
                Some(SeverityLevel::Hint)
            );
            assert!(parsed.unknown_keys.is_empty());
        }
        assert_eq!(SeverityLevel::Off.severity(), None);
        assert_eq!(
            SeverityLevel::Information.severity(),
            Some(DiagnosticSeverity::INFORMATION)
        );
    }

    #[test]
    fn roots_become_the_cli_s_layout_overrides() {
        let parsed = parse(&json!({
            "sourceRoots": ["src/java", "/elsewhere/gen"],
            "testRoots": ["tests/java", "more-tests"],
            "classpath": ["lib/a.jar"],
        }))
        .unwrap();
        let overrides = parsed.config.layout_overrides();
        assert_eq!(
            overrides.source_roots,
            [PathBuf::from("src/java"), PathBuf::from("/elsewhere/gen")]
        );
        assert_eq!(overrides.test_root, Some(PathBuf::from("tests/java")));
        assert_eq!(overrides.classpath, [PathBuf::from("lib/a.jar")]);
        let root = std::path::Path::new("/project");
        let layout = ctg::project::ProjectLayout::discover(root, &overrides);
        assert_eq!(
            layout.source_roots,
            [root.join("src/java"), PathBuf::from("/elsewhere/gen")]
        );
        assert_eq!(layout.test_root, root.join("tests/java"));
    }
}
