//! Maven's answer: every module's resolved dependencies from one `mvn dependency:list` run.
//!
//! A module that depends on a sibling cannot be resolved by Maven 3 until the sibling is built
//! or installed (the reactor hands out a sibling's classes only when its `compile` phase runs
//! in the same session). So ctgls resolves a copy of the build instead: every module's POM,
//! copied to a scratch directory without its dependencies on siblings (and pointing at its
//! real parent), as modules of one scratch aggregator. A module's classpath is then its own
//! dependencies followed by those its siblings pass on (compile and runtime scope), and the
//! siblings' source roots are compiled with it, built or not. Nothing is written into the
//! project or the local repository.

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::path::{Path, PathBuf};
use std::process::Command;

mod junit;

use super::pom::{normalise, relative_path, Dependency, Pom};
use super::process::{self, error_lines};
use super::{
    offline_advice, BuildClasspath, BuildToolError, BuildToolSettings, ModuleClasspath, Tool,
};

/// The file each scratch module's `dependency:list` writes, relative to its directory.
const LIST_FILE: &str = "ctgls-dependencies.txt";

/// Builds with more modules than this are resolved for the first ones only.
const MAX_MODULES: usize = 500;

/// A Maven build: its root (the outermost aggregator that lists the module, transitively) and
/// its modules.
#[derive(Debug)]
pub struct Build {
    pub root: PathBuf,
    /// Module directories, root first, in the order the aggregators list them.
    pub modules: Vec<PathBuf>,
}

/// One resolved artifact of `dependency:list`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Artifact {
    pub group: String,
    pub artifact: String,
    pub classifier: Option<String>,
    pub version: String,
    pub scope: String,
    pub path: PathBuf,
}

impl Artifact {
    fn key(&self) -> (String, String, Option<String>) {
        (
            self.group.clone(),
            self.artifact.clone(),
            self.classifier.clone(),
        )
    }
}

pub(super) fn read_pom(dir: &Path) -> Result<Pom, String> {
    let path = dir.join("pom.xml");
    let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    Pom::parse(text).map_err(|e| format!("{} is not a readable POM: {e}", path.display()))
}

/// The module directories an aggregator POM in `dir` lists.
fn module_dirs(dir: &Path, pom: &Pom) -> Vec<PathBuf> {
    pom.modules
        .iter()
        .map(|m| normalise(&dir.join(m)))
        .map(|p| {
            // `<module>` may name the POM file itself.
            if p.extension().is_some_and(|e| e == "xml") {
                p.parent().map(Path::to_path_buf).unwrap_or(p)
            } else {
                p
            }
        })
        .collect()
}

impl Build {
    /// The build `module` belongs to: walking up while the parent directory's POM lists the
    /// directory as a module. Reads POMs only.
    pub fn find(module: &Path) -> Build {
        let mut root = module.to_path_buf();
        while let Some(parent) = root.parent() {
            let lists_it = read_pom(parent)
                .map(|pom| module_dirs(parent, &pom).contains(&root))
                .unwrap_or(false);
            if !lists_it {
                break;
            }
            root = parent.to_path_buf();
        }
        let mut modules = Vec::new();
        let mut queue = VecDeque::from([root.clone()]);
        while let Some(dir) = queue.pop_front() {
            if modules.contains(&dir) || modules.len() >= MAX_MODULES {
                continue;
            }
            if let Ok(pom) = read_pom(&dir) {
                queue.extend(module_dirs(&dir, &pom));
            }
            if dir.join("pom.xml").is_file() {
                modules.push(dir);
            }
        }
        Build { root, modules }
    }

    /// The files whose contents decide the answer: every module's POM and the root's `.mvn`
    /// configuration (copied next to the scratch build, so that Maven reads it there too).
    pub fn files(&self) -> Vec<PathBuf> {
        let mut files: Vec<PathBuf> = self.modules.iter().map(|m| m.join("pom.xml")).collect();
        for extra in [
            ".mvn/maven.config",
            ".mvn/jvm.config",
            ".mvn/extensions.xml",
        ] {
            let path = self.root.join(extra);
            if path.is_file() {
                files.push(path);
            }
        }
        files
    }

    pub fn resolve(&self, settings: &BuildToolSettings) -> Result<BuildClasspath, BuildToolError> {
        let error = |detail: String, advice: &str| BuildToolError {
            tool: Tool::Maven,
            detail,
            advice: advice.to_string(),
            fallback: None,
        };
        let mut poms = Vec::new();
        for dir in &self.modules {
            let pom = read_pom(dir).map_err(|e| error(e, "Fix the POM."))?;
            // Maven rejects such a POM after seconds of start-up: say so at once.
            if pom.artifact_id.is_empty() {
                return Err(error(
                    format!(
                        "{} has no <artifactId>, so Maven cannot read it",
                        dir.join("pom.xml").display()
                    ),
                    "Fix the POM.",
                ));
            }
            poms.push(pom);
        }
        let siblings = sibling_dependencies(&self.modules, &poms);

        let scratch = Scratch::new().map_err(|e| error(e, "Check the cache directory."))?;
        let mut names = Vec::new();
        for (index, (dir, pom)) in self.modules.iter().zip(&poms).enumerate() {
            let name = format!("m{index}");
            let copy_dir = scratch.0.join(&name);
            let parent = match pom.parent_file(dir) {
                Some(file) => relative_path(&copy_dir, &file),
                // The parent comes from a repository: keep Maven from taking the scratch
                // aggregator for it.
                None => String::new(),
            };
            let is_sibling = |d: &Dependency| siblings[index].iter().any(|s| s.span == d.span);
            let text = pom.copy_without(is_sibling, pom.parent.as_ref().map(|_| parent.as_str()));
            write(&copy_dir.join("pom.xml"), &text)
                .map_err(|e| error(e, "Check the temporary directory."))?;
            names.push(name);
        }
        write(&scratch.0.join("pom.xml"), &aggregator("reactor", &names))
            .map_err(|e| error(e, "Check the temporary directory."))?;
        // Maven reads `.mvn/` (maven.config, jvm.config, extensions) next to the top POM.
        copy_mvn_config(&self.root.join(".mvn"), &scratch.0.join(".mvn"))
            .map_err(|e| error(e, "Check the temporary directory."))?;
        let output = run_list(&scratch.0, &self.root, settings)?;

        let mut resolved: Vec<Option<Vec<Artifact>>> = Vec::new();
        for name in &names {
            resolved.push(
                std::fs::read_to_string(scratch.0.join(name).join(LIST_FILE))
                    .ok()
                    .map(|text| parse_list(&text)),
            );
        }
        let messages = error_lines(&output, 6)
            .into_iter()
            .map(|line| unscratch(&line, &scratch.0, &self.modules))
            .collect::<Vec<_>>();

        let mut answer = BuildClasspath::default();
        let mut junit_wanted: BTreeMap<PathBuf, String> = BTreeMap::new();
        for (index, dir) in self.modules.iter().enumerate() {
            let closure = sibling_closure(index, &siblings);
            let needed = std::iter::once(index).chain(closure.iter().map(|(i, _)| *i));
            if needed.clone().any(|i| resolved[i].is_none()) {
                answer.failed.insert(dir.clone(), failure_detail(&messages));
                continue;
            }
            let mut artifacts: Vec<Artifact> = resolved[index].clone().unwrap_or_default();
            for (sibling, _) in &closure {
                for artifact in resolved[*sibling].iter().flatten() {
                    if matches!(artifact.scope.as_str(), "compile" | "runtime" | "system") {
                        push_artifact(&mut artifacts, artifact.clone());
                    }
                }
            }
            if let Some(version) = junit::junit5_runtime_wanted(&artifacts) {
                junit_wanted.insert(dir.clone(), version);
            }
            let mut module = ModuleClasspath {
                classpath: artifacts.iter().map(|a| a.path.clone()).collect(),
                ..ModuleClasspath::default()
            };
            add_sources_and_resources(&mut module, dir, &closure, &self.modules, &poms);
            answer.modules.insert(dir.clone(), module);
        }

        if !junit_wanted.is_empty() {
            let runtimes = junit::junit5_runtimes(&junit_wanted, &answer, &self.root, settings);
            for (dir, outcome) in runtimes {
                let Some(module) = answer.modules.get_mut(&dir) else {
                    continue;
                };
                match outcome {
                    Ok(jars) => {
                        for jar in jars {
                            if !module.classpath.contains(&jar) {
                                module.classpath.push(jar);
                            }
                        }
                    }
                    Err(note) => module.notes.push(note),
                }
            }
        }
        if answer.modules.is_empty() && !answer.failed.is_empty() {
            return Err(error(
                failure_detail(&messages),
                &offline_advice(Tool::Maven, &self.root, settings.offline),
            ));
        }
        Ok(answer)
    }
}

/// A directory removed when dropped.
struct Scratch(PathBuf);

impl Scratch {
    fn new() -> Result<Scratch, String> {
        static COUNTER: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let n = COUNTER.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!("ctgls-maven-{}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        Ok(Scratch(dir))
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn write(path: &Path, text: &str) -> Result<(), String> {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).map_err(|e| format!("{}: {e}", parent.display()))?;
    }
    std::fs::write(path, text).map_err(|e| format!("{}: {e}", path.display()))
}

/// Copies the build's `.mvn` directory (without the wrapper's jar and downloads), so that the
/// scratch build runs with the options the project gives Maven.
fn copy_mvn_config(from: &Path, to: &Path) -> Result<(), String> {
    let Ok(entries) = std::fs::read_dir(from) else {
        return Ok(());
    };
    for entry in entries.filter_map(|e| e.ok()) {
        let path = entry.path();
        let target = to.join(entry.file_name());
        if path.is_dir() {
            if entry.file_name() != "wrapper" {
                copy_mvn_config(&path, &target)?;
            }
        } else {
            std::fs::create_dir_all(to).map_err(|e| format!("{}: {e}", to.display()))?;
            std::fs::copy(&path, &target).map_err(|e| format!("{}: {e}", path.display()))?;
        }
    }
    Ok(())
}

fn aggregator(name: &str, modules: &[String]) -> String {
    let modules: String = modules
        .iter()
        .map(|m| format!("    <module>{m}</module>\n"))
        .collect();
    format!(
        "<project xmlns=\"http://maven.apache.org/POM/4.0.0\">\n  \
         <modelVersion>4.0.0</modelVersion>\n  <groupId>ctgls.classpath</groupId>\n  \
         <artifactId>{name}</artifactId>\n  <version>0</version>\n  \
         <packaging>pom</packaging>\n  <modules>\n{modules}  </modules>\n</project>\n"
    )
}

/// The Maven executable: the setting, else `mvn`, else the build's own `mvnw` (the wrapper may
/// download Maven itself, so it comes after an installed one).
fn maven_executable(settings: &BuildToolSettings, root: &Path) -> PathBuf {
    if let Some(exe) = &settings.maven_executable {
        return exe.clone();
    }
    let on_path = std::env::var_os("PATH")
        .map(|path| std::env::split_paths(&path).any(|dir| dir.join("mvn").is_file()))
        .unwrap_or(false);
    let wrapper = root.join("mvnw");
    if !on_path && wrapper.is_file() {
        wrapper
    } else {
        PathBuf::from("mvn")
    }
}

/// Runs `dependency:list` on the scratch aggregator in `dir` for the build at `root`; every
/// module writes its list. Returns the tool's output; failing modules are found by their
/// missing lists.
fn run_list(
    dir: &Path,
    root: &Path,
    settings: &BuildToolSettings,
) -> Result<String, BuildToolError> {
    let mut command = Command::new(maven_executable(settings, root));
    command
        .current_dir(dir)
        .args(["-B", "-q", "-fae", "-f"])
        .arg(dir.join("pom.xml"));
    if settings.offline {
        command.arg("-o");
    }
    if let Some(file) = &settings.maven_settings {
        command.arg("-s").arg(file);
    }
    command.args([
        "dependency:list",
        &format!("-DoutputFile={LIST_FILE}"),
        "-DoutputAbsoluteArtifactFilename=true",
        "-DappendOutput=false",
    ]);
    let output = process::run(command, super::TOOL_TIMEOUT).map_err(|detail| BuildToolError {
        tool: Tool::Maven,
        advice: if detail.contains("was not found") {
            "Install Maven, or set `mavenExecutable` in the editor's ctgls settings \
             (`--maven` on the command line)."
                .to_string()
        } else {
            "Check that Maven works in the project.".to_string()
        },
        detail,
        fallback: None,
    })?;
    Ok(output.text)
}

/// Writes temp paths in Maven's messages as the project's own.
fn unscratch(line: &str, scratch: &Path, modules: &[PathBuf]) -> String {
    let mut line = line.to_string();
    for (index, dir) in modules.iter().enumerate().rev() {
        let copy = scratch.join(format!("m{index}"));
        line = line.replace(&copy.display().to_string(), &dir.display().to_string());
    }
    line
}

/// What went wrong in words: the missing artifacts when Maven names them, then its lines.
fn failure_detail(messages: &[String]) -> String {
    let mut missing = BTreeSet::new();
    for message in messages {
        for (marker, end) in [
            ("the artifact ", " has not been downloaded"),
            ("Could not find artifact ", " in "),
            ("Failure to find ", " in "),
        ] {
            let mut rest = message.as_str();
            while let Some(at) = rest.find(marker) {
                rest = &rest[at + marker.len()..];
                if let Some(stop) = rest.find(end) {
                    missing.insert(rest[..stop].to_string());
                }
            }
        }
    }
    let said = if messages.is_empty() {
        "Maven failed without saying why".to_string()
    } else {
        messages.join(" / ")
    };
    if missing.is_empty() {
        said
    } else {
        format!(
            "the local repository lacks {} (Maven said: {said})",
            missing.into_iter().collect::<Vec<_>>().join(", ")
        )
    }
}

/// Per module, its dependencies that are modules of the build, with the module they name.
fn sibling_dependencies(modules: &[PathBuf], poms: &[Pom]) -> Vec<Vec<SiblingDependency>> {
    let coordinates: Vec<(String, String)> = poms
        .iter()
        .map(|p| (p.effective_group_id(), p.artifact_id.clone()))
        .collect();
    poms.iter()
        .enumerate()
        .map(|(index, pom)| {
            pom.dependencies
                .iter()
                .filter_map(|d| {
                    let group = interpolate(&d.group_id, index, modules, poms);
                    let artifact = interpolate(&d.artifact_id, index, modules, poms);
                    let target = coordinates
                        .iter()
                        .position(|(g, a)| *g == group && *a == artifact)?;
                    (target != index).then(|| SiblingDependency {
                        module: target,
                        on_tests: d.on_tests,
                        span: d.span.clone(),
                    })
                })
                .collect()
        })
        .collect()
}

#[derive(Debug, Clone)]
struct SiblingDependency {
    module: usize,
    on_tests: bool,
    span: std::ops::Range<usize>,
}

/// `${...}` in a coordinate: the project's and its parent's group id and version, and
/// properties of the POM and its ancestors in the build.
fn interpolate(value: &str, index: usize, modules: &[PathBuf], poms: &[Pom]) -> String {
    let Some(name) = value.strip_prefix("${").and_then(|v| v.strip_suffix('}')) else {
        return value.to_string();
    };
    let pom = &poms[index];
    match name {
        "project.groupId" | "pom.groupId" | "groupId" => return pom.effective_group_id(),
        "project.parent.groupId" => {
            return pom
                .parent
                .as_ref()
                .map(|p| p.group_id.clone())
                .unwrap_or_default()
        }
        "project.artifactId" => return pom.artifact_id.clone(),
        _ => {}
    }
    let mut current = Some(index);
    let mut seen = 0;
    while let Some(i) = current {
        if let Some(found) = poms[i].properties.get(name) {
            return found.clone();
        }
        let parent = poms[i].parent_file(&modules[i]);
        current = parent.and_then(|file| modules.iter().position(|m| m.join("pom.xml") == file));
        seen += 1;
        if seen > modules.len() {
            break;
        }
    }
    value.to_string()
}

/// The siblings `index` depends on, directly or through other siblings (compile and runtime
/// dependencies only pass on), breadth first, each once, with whether its tests are wanted.
fn sibling_closure(index: usize, siblings: &[Vec<SiblingDependency>]) -> Vec<(usize, bool)> {
    let mut out: Vec<(usize, bool)> = Vec::new();
    let mut queue: VecDeque<&SiblingDependency> = siblings[index].iter().collect();
    while let Some(dependency) = queue.pop_front() {
        if dependency.module == index {
            continue;
        }
        match out.iter_mut().find(|(m, _)| *m == dependency.module) {
            Some((_, tests)) => *tests |= dependency.on_tests,
            None => {
                out.push((dependency.module, dependency.on_tests));
                queue.extend(siblings[dependency.module].iter().filter(|d| !d.on_tests));
            }
        }
    }
    out
}

/// Adds an artifact unless one of the same coordinates is there (nearest wins, as in Maven).
fn push_artifact(artifacts: &mut Vec<Artifact>, artifact: Artifact) {
    if !artifacts.iter().any(|a| a.key() == artifact.key()) {
        artifacts.push(artifact);
    }
}

/// The module's resources, and per sibling its source root (with its test sources when its
/// tests are a dependency) and resources; a sibling without sources on disk gives its build
/// output instead.
pub(super) fn add_sources_and_resources(
    module: &mut ModuleClasspath,
    dir: &Path,
    closure: &[(usize, bool)],
    modules: &[PathBuf],
    poms: &[Pom],
) {
    let mut classpath_dirs = vec![
        dir.join("src/main/resources"),
        dir.join("src/test/resources"),
    ];
    for (sibling, tests) in closure {
        let sibling_dir = &modules[*sibling];
        let sibling_pom = &poms[*sibling];
        let main = source_dir(
            sibling_dir,
            sibling_pom.source_directory.as_deref(),
            "src/main/java",
        );
        if main.is_dir() {
            module.sibling_sources.push(main);
        } else {
            classpath_dirs.push(sibling_dir.join("target/classes"));
        }
        if *tests {
            let test = source_dir(
                sibling_dir,
                sibling_pom.test_source_directory.as_deref(),
                "src/test/java",
            );
            if test.is_dir() {
                module.sibling_sources.push(test);
            }
        }
        classpath_dirs.push(sibling_dir.join("src/main/resources"));
    }
    for entry in classpath_dirs {
        if entry.is_dir() && !module.classpath.contains(&entry) {
            module.classpath.push(entry);
        }
    }
}

fn source_dir(module: &Path, written: Option<&str>, default: &str) -> PathBuf {
    let written = written
        .map(|w| {
            w.trim_start_matches("${project.basedir}/")
                .trim_start_matches("${basedir}/")
                .to_string()
        })
        .filter(|w| !w.contains("${"));
    normalise(&module.join(written.as_deref().unwrap_or(default)))
}

/// Reads a `dependency:list` output file: `group:artifact:type[:classifier]:version:scope:path`
/// per line, possibly followed by ` -- module name`.
pub fn parse_list(text: &str) -> Vec<Artifact> {
    const SCOPES: [&str; 6] = ["compile", "provided", "runtime", "test", "system", "import"];
    let mut artifacts = Vec::new();
    for line in text.lines() {
        let line = line.trim();
        let line = line.rfind(" -- module").map_or(line, |at| &line[..at]);
        let parts: Vec<&str> = line.split(':').collect();
        let Some(scope_at) =
            (4..parts.len().saturating_sub(1)).find(|&i| SCOPES.contains(&parts[i]))
        else {
            continue;
        };
        let path = PathBuf::from(parts[scope_at + 1..].join(":"));
        let (classifier, version) = match scope_at {
            4 => (None, parts[3]),
            5 => (Some(parts[3].to_string()), parts[4]),
            _ => continue,
        };
        artifacts.push(Artifact {
            group: parts[0].to_string(),
            artifact: parts[1].to_string(),
            classifier,
            version: version.to_string(),
            scope: parts[scope_at].to_string(),
            path,
        });
    }
    artifacts
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dependency_list_lines() {
        let text = "\nThe following files have been resolved:\n   \
            org.apache.commons:commons-lang3:jar:3.12.0:compile:/r/commons-lang3-3.12.0.jar -- module org.apache.commons.lang3 [auto]\n   \
            com.acme:a:test-jar:tests:1.0:test:/r/a-1.0-tests.jar\n   \
            junit:junit:jar:4.13.2:test:C:\\r\\junit.jar\n   none\n";
        let artifacts = parse_list(text);
        assert_eq!(artifacts.len(), 3);
        assert_eq!(artifacts[0].artifact, "commons-lang3");
        assert_eq!(artifacts[0].version, "3.12.0");
        assert_eq!(
            artifacts[0].path,
            PathBuf::from("/r/commons-lang3-3.12.0.jar")
        );
        assert_eq!(artifacts[1].classifier.as_deref(), Some("tests"));
        assert_eq!(artifacts[1].scope, "test");
        assert_eq!(artifacts[2].path, PathBuf::from("C:\\r\\junit.jar"));
    }

    #[test]
    fn missing_artifacts_are_named() {
        let detail = failure_detail(&[
            "Failed to execute goal on project b: Could not resolve dependencies for project \
             com.acme:b:jar:1.0: Cannot access central (https://repo.maven.apache.org/maven2) in \
             offline mode and the artifact org.x:y:jar:1.0 has not been downloaded from it before."
                .to_string(),
        ]);
        assert!(detail.starts_with("the local repository lacks org.x:y:jar:1.0 (Maven said: "));
    }

    #[test]
    fn siblings_pass_on_their_dependencies_transitively() {
        let dep = |module: usize, on_tests: bool| SiblingDependency {
            module,
            on_tests,
            span: 0..0,
        };
        // 0 → 1 → 2, 0 → 2's tests, 3 alone.
        let siblings = vec![
            vec![dep(1, false), dep(2, true)],
            vec![dep(2, false)],
            vec![],
            vec![],
        ];
        assert_eq!(sibling_closure(0, &siblings), [(1, false), (2, true)]);
        assert_eq!(sibling_closure(1, &siblings), [(2, false)]);
        assert!(sibling_closure(3, &siblings).is_empty());
    }
}
