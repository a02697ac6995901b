//! The JUnit 5 runtime verification needs for a project that declares only the JUnit Jupiter
//! API (as most do: Surefire brings the engine and launcher itself): the engine and the
//! platform launcher of the project's version, resolved by Maven from the local repository
//! through a scratch POM, or the closest launcher the repository holds.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use super::super::{BuildClasspath, BuildToolSettings, ModuleClasspath};
use super::{
    error_lines, failure_detail, parse_list, run_list, write, Artifact, Scratch, LIST_FILE,
};

/// The JUnit Jupiter version whose engine and launcher must be added for verification to run
/// the project's JUnit 5 tests: the API's, when the project lacks the engine or the launcher.
pub(super) fn junit5_runtime_wanted(artifacts: &[Artifact]) -> Option<String> {
    let has = |group: &str, name: &str| {
        artifacts
            .iter()
            .any(|a| a.group == group && a.artifact == name)
    };
    let api = artifacts
        .iter()
        .find(|a| a.group == "org.junit.jupiter" && a.artifact == "junit-jupiter-api")?;
    let complete = has("org.junit.jupiter", "junit-jupiter-engine")
        && has("org.junit.platform", "junit-platform-launcher");
    (!complete).then(|| api.version.clone())
}

/// The JUnit Platform version released with Jupiter `jupiter` (5.9.2 → 1.9.2; from 6 on they
/// are the same).
fn platform_version(jupiter: &str) -> String {
    match jupiter.strip_prefix("5.") {
        Some(rest) => format!("1.{rest}"),
        None => jupiter.to_string(),
    }
}

/// Per module that wants it, the JUnit 5 runtime (engine and launcher of the project's version,
/// with what they need) resolved by Maven from a scratch POM; when the local repository lacks
/// that launcher, the nearest launcher it holds. `Err` is a note for the user.
pub(super) fn junit5_runtimes(
    wanted: &BTreeMap<PathBuf, String>,
    answer: &BuildClasspath,
    root: &Path,
    settings: &BuildToolSettings,
) -> BTreeMap<PathBuf, Result<Vec<PathBuf>, String>> {
    let versions: BTreeSet<&String> = wanted.values().collect();
    let mut runtimes: BTreeMap<String, Result<Vec<PathBuf>, String>> = BTreeMap::new();
    for version in versions {
        let launcher = platform_version(version);
        let mut outcome = resolve_runtime(version, &launcher, root, settings);
        if outcome.is_err() {
            // The local repository may hold another launcher (Debian's pairs engine 5.9.2
            // with launcher 1.9.1): take the closest one it has.
            let repository = wanted
                .iter()
                .filter(|(_, v)| *v == version)
                .find_map(|(dir, _)| local_repository_of(answer.modules.get(dir)?));
            if let Some(other) = repository
                .and_then(|repo| closest_launcher(&repo, &launcher))
                .filter(|other| *other != launcher)
            {
                outcome = resolve_runtime(version, &other, root, settings);
            }
        }
        runtimes.insert(version.clone(), outcome);
    }
    wanted
        .iter()
        .map(|(dir, version)| (dir.clone(), runtimes[version].clone()))
        .collect()
}

fn resolve_runtime(
    jupiter: &str,
    launcher: &str,
    root: &Path,
    settings: &BuildToolSettings,
) -> Result<Vec<PathBuf>, String> {
    let scratch = Scratch::new()?;
    let pom = format!(
        "<project xmlns=\"http://maven.apache.org/POM/4.0.0\">\n  <modelVersion>4.0.0</modelVersion>\n  \
         <groupId>ctgls.classpath</groupId>\n  <artifactId>junit-runtime</artifactId>\n  \
         <version>0</version>\n  <dependencies>\n    <dependency><groupId>org.junit.jupiter</groupId>\
         <artifactId>junit-jupiter-engine</artifactId><version>{jupiter}</version></dependency>\n    \
         <dependency><groupId>org.junit.platform</groupId><artifactId>junit-platform-launcher</artifactId>\
         <version>{launcher}</version></dependency>\n  </dependencies>\n</project>\n"
    );
    write(&scratch.0.join("pom.xml"), &pom)?;
    let output = run_list(&scratch.0, root, settings).map_err(|e| e.to_string())?;
    match std::fs::read_to_string(scratch.0.join(LIST_FILE)) {
        Ok(text) => Ok(parse_list(&text).into_iter().map(|a| a.path).collect()),
        Err(_) => Err(format!(
            "the JUnit 5 engine {jupiter} and launcher {launcher} could not be resolved ({}); \
             verification uses another JUnit",
            failure_detail(&error_lines(&output, 3))
        )),
    }
}

/// The local repository a module's JUnit API jar came from (`<repo>/org/junit/jupiter/
/// junit-jupiter-api/<version>/<jar>`).
fn local_repository_of(module: &ModuleClasspath) -> Option<PathBuf> {
    let api = module.classpath.iter().find(|p| {
        p.components()
            .rev()
            .nth(2)
            .is_some_and(|c| c.as_os_str() == "junit-jupiter-api")
    })?;
    api.ancestors().nth(6).map(Path::to_path_buf)
}

/// Among the launcher versions in the local repository, the one closest to `wanted`: the same
/// major and minor version if there is one, the highest such; else the highest.
fn closest_launcher(repository: &Path, wanted: &str) -> Option<String> {
    let dir = repository.join("org/junit/platform/junit-platform-launcher");
    let mut versions: Vec<String> = std::fs::read_dir(&dir)
        .ok()?
        .filter_map(|e| e.ok())
        .filter_map(|e| e.file_name().to_str().map(str::to_string))
        .filter(|v| {
            dir.join(v)
                .join(format!("junit-platform-launcher-{v}.jar"))
                .is_file()
        })
        .collect();
    versions.sort_by_key(|v| version_key(v));
    let minor = |v: &str| v.split('.').take(2).collect::<Vec<_>>().join(".");
    versions
        .iter()
        .rev()
        .find(|v| minor(v) == minor(wanted))
        .or(versions.last())
        .cloned()
}

fn version_key(version: &str) -> Vec<u64> {
    version
        .split(['.', '-'])
        .map(|part| part.parse().unwrap_or(0))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn junit_platform_versions() {
        assert_eq!(platform_version("5.9.2"), "1.9.2");
        assert_eq!(platform_version("6.0.1"), "6.0.1");
        let artifact = |group: &str, name: &str| Artifact {
            group: group.into(),
            artifact: name.into(),
            classifier: None,
            version: "5.9.2".into(),
            scope: "test".into(),
            path: PathBuf::new(),
        };
        let mut artifacts = vec![artifact("org.junit.jupiter", "junit-jupiter-api")];
        assert_eq!(junit5_runtime_wanted(&artifacts).as_deref(), Some("5.9.2"));
        artifacts.push(artifact("org.junit.jupiter", "junit-jupiter-engine"));
        artifacts.push(artifact("org.junit.platform", "junit-platform-launcher"));
        assert_eq!(junit5_runtime_wanted(&artifacts), None);
        assert_eq!(junit5_runtime_wanted(&[]), None);
    }

    #[test]
    fn the_closest_launcher_in_a_repository() {
        let repo = std::env::temp_dir().join(format!("ctg-bt-launchers-{}", std::process::id()));
        for v in ["1.8.2", "1.9.1", "1.9.0", "1.10.0"] {
            let dir = repo
                .join("org/junit/platform/junit-platform-launcher")
                .join(v);
            std::fs::create_dir_all(&dir).unwrap();
            std::fs::write(dir.join(format!("junit-platform-launcher-{v}.jar")), "").unwrap();
        }
        assert_eq!(closest_launcher(&repo, "1.9.2").as_deref(), Some("1.9.1"));
        assert_eq!(closest_launcher(&repo, "1.7.0").as_deref(), Some("1.10.0"));
        std::fs::remove_dir_all(&repo).unwrap();
    }
}
