//! The build tool is the truth about a project's classpath (DESIGN decision 7): Maven or Gradle
//! itself is asked for a module's compile and test classpath, offline unless the user allows
//! otherwise, with sibling modules' sources as source roots; the answer is cached on disk by
//! the build files' contents. When the tool is missing or fails, its error is returned for the
//! user and the caller keeps the classpath `ProjectLayout::discover` guessed.
//!
//! When Maven fails or is missing, `pom_fallback` reads the classpath from the POMs and the
//! local repository instead, and the error says so.
//!
//! `maven` and `gradle` run the tools, `cache` keys and stores their answers, `pom` and `xml`
//! read build files.

mod cache;
mod gradle;
mod maven;
mod pom;
mod pom_fallback;
mod process;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::project::{BuildSystem, ProjectLayout};

pub use cache::cache_key;

/// How long one build tool invocation may take before it is killed: resolving offline takes
/// seconds, a first online resolution of a large build a few minutes.
pub const TOOL_TIMEOUT: Duration = Duration::from_secs(300);

/// The user's choices about asking the build tool.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BuildToolSettings {
    /// When false the build tool is never run and the classpath is guessed.
    pub enabled: bool,
    /// `mvn` (or the project's `mvnw`) when unset.
    pub maven_executable: Option<PathBuf>,
    /// The project's `gradlew`, else `gradle`, when unset.
    pub gradle_executable: Option<PathBuf>,
    /// Resolve from the local repository / Gradle cache only; never download without consent.
    pub offline: bool,
    /// A Maven `settings.xml` passed as `-s` (mvn reads `~/.m2/settings.xml` itself otherwise).
    pub maven_settings: Option<PathBuf>,
    /// Where answers are cached (`<cache root>/classpath`).
    pub cache_dir: PathBuf,
}

impl Default for BuildToolSettings {
    fn default() -> Self {
        BuildToolSettings {
            enabled: true,
            maven_executable: None,
            gradle_executable: None,
            offline: true,
            maven_settings: None,
            cache_dir: jvm::default_cache_dir().join("classpath"),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Tool {
    Maven,
    Gradle,
}

impl Tool {
    pub fn name(self) -> &'static str {
        match self {
            Tool::Maven => "Maven",
            Tool::Gradle => "Gradle",
        }
    }
}

/// What the build tool says about one module.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ModuleClasspath {
    /// The module's test classpath (which holds its compile classpath) in the tool's order:
    /// jars and directories, then the resources of the module and of the sibling modules it
    /// depends on, then the JUnit runtime (engine, launcher) verification needs when the
    /// project declares only the API.
    pub classpath: Vec<PathBuf>,
    /// Source roots of the sibling modules it depends on, directly or not: compiled with it,
    /// so that a sibling never built still works.
    pub sibling_sources: Vec<PathBuf>,
    /// Things the user may want to know (a JUnit runtime that could not be resolved, say).
    pub notes: Vec<String>,
}

/// The answer for a whole build (every module), as cached.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct BuildClasspath {
    /// By module directory.
    pub modules: BTreeMap<PathBuf, ModuleClasspath>,
    /// Modules the tool could not resolve, with why. They are left out of the cache.
    #[serde(skip)]
    pub failed: BTreeMap<PathBuf, String>,
}

/// Why the build tool gave no classpath.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BuildToolError {
    pub tool: Tool,
    /// What went wrong, in the tool's words where it said something (its relevant lines).
    pub detail: String,
    /// What the user can do about it.
    pub advice: String,
    /// What ctgls used instead of the tool's answer, when not the guessed classpath (the POMs'
    /// declared dependencies, see `pom_fallback`).
    pub fallback: Option<String>,
}

impl std::fmt::Display for BuildToolError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} could not give the classpath: {}. {} ",
            self.tool.name(),
            self.detail,
            self.advice
        )?;
        match &self.fallback {
            Some(fallback) => write!(f, "Until then {fallback}."),
            None => write!(
                f,
                "Until then ctgls guesses the classpath from the project's directories."
            ),
        }
    }
}

/// The outcome of asking for a module's classpath.
#[derive(Debug, Clone)]
pub struct Resolution {
    pub tool: Tool,
    pub outcome: Result<ModuleClasspath, BuildToolError>,
    /// The answer came from the cache: the tool was not run.
    pub cached: bool,
    /// When the tool failed: the classpath read from the build files instead (Maven's POMs and
    /// local repository), to use rather than the guess. The error's `fallback` says so.
    pub fallback: Option<ModuleClasspath>,
}

/// The advice for a tool that failed offline or online.
fn offline_advice(tool: Tool, root: &Path, offline: bool) -> String {
    let command = match tool {
        Tool::Maven => "mvn dependency:resolve",
        Tool::Gradle => "gradle dependencies",
    };
    if offline {
        format!(
            "Run `{command}` once online in {} so that the dependencies are in the local \
             repository, or let ctgls resolve online (`buildToolOffline: false` in the editor's \
             ctgls settings, `--online` on the command line).",
            root.display()
        )
    } else {
        format!("Check that `{command}` works in {}.", root.display())
    }
}

/// Asks the project's build tool for the classpath of the module at `layout.root`: from the
/// cache when the build files are unchanged, else by running the tool (`on_run` is called
/// first, so that callers can show progress). `None` when there is no build tool to ask (a
/// plain project) or the user turned it off.
/// When Maven fails, the classpath comes from the POMs and the local repository instead
/// (`pom_fallback`), said in the error.
pub fn resolve(
    layout: &ProjectLayout,
    settings: &BuildToolSettings,
    on_run: &mut dyn FnMut(Tool),
) -> Option<Resolution> {
    let mut resolution = ask(layout, settings, on_run)?;
    if let (Tool::Maven, Err(error)) = (resolution.tool, &mut resolution.outcome) {
        let module = std::fs::canonicalize(&layout.root).unwrap_or_else(|_| layout.root.clone());
        let build = maven::Build::find(&module);
        let repository = pom_fallback::local_repository(settings);
        let fallback = pom_fallback::resolve(&module, &build.modules, &repository);
        error.fallback = Some(fallback.summary);
        resolution.fallback = Some(fallback.module);
    }
    Some(resolution)
}

/// Asks the tool (or its cache) only.
fn ask(
    layout: &ProjectLayout,
    settings: &BuildToolSettings,
    on_run: &mut dyn FnMut(Tool),
) -> Option<Resolution> {
    if !settings.enabled {
        return None;
    }
    let tool = match layout.build_system {
        BuildSystem::Maven => Tool::Maven,
        BuildSystem::Gradle => Tool::Gradle,
        BuildSystem::Plain => return None,
    };
    let module = std::fs::canonicalize(&layout.root).unwrap_or_else(|_| layout.root.clone());
    let build = match tool {
        Tool::Maven => BuildKind::Maven(maven::Build::find(&module)),
        Tool::Gradle => BuildKind::Gradle(gradle::Build::find(&module)),
    };
    let key = cache::cache_key(tool, build.root(), &build.files(), settings);
    if let Some(cached) = cache::load(&settings.cache_dir, &key) {
        if let Some(classpath) = cached.modules.get(&module) {
            return Some(Resolution {
                tool,
                outcome: Ok(classpath.clone()),
                cached: true,
                fallback: None,
            });
        }
    }
    on_run(tool);
    let answer = match &build {
        BuildKind::Maven(build) => build.resolve(settings),
        BuildKind::Gradle(build) => build.resolve(settings),
    };
    let outcome = match answer {
        Ok(answer) => {
            // The modules that failed are not stored, so asking for one of them runs the tool
            // again; the others are answered from the cache.
            if !answer.modules.is_empty() {
                if let Err(error) = cache::save(&settings.cache_dir, &key, &answer) {
                    tracing::warn!("could not cache the {} classpath: {error}", tool.name());
                }
            }
            if let Some(detail) = answer.failed.get(&module) {
                return Some(Resolution {
                    tool,
                    outcome: Err(BuildToolError {
                        tool,
                        detail: detail.clone(),
                        advice: offline_advice(tool, build.root(), settings.offline),
                        fallback: None,
                    }),
                    cached: false,
                    fallback: None,
                });
            }
            answer
                .modules
                .get(&module)
                .cloned()
                .ok_or_else(|| BuildToolError {
                    tool,
                    detail: format!(
                        "{} is not a module of the build at {}",
                        module.display(),
                        build.root().display()
                    ),
                    advice: "List it in the build's modules (or open the module's own folder)."
                        .to_string(),
                    fallback: None,
                })
        }
        Err(error) => Err(error),
    };
    Some(Resolution {
        tool,
        outcome,
        cached: false,
        fallback: None,
    })
}

/// The build a module belongs to, of either tool.
enum BuildKind {
    Maven(maven::Build),
    Gradle(gradle::Build),
}

impl BuildKind {
    fn root(&self) -> &Path {
        match self {
            BuildKind::Maven(build) => &build.root,
            BuildKind::Gradle(build) => &build.root,
        }
    }

    fn files(&self) -> Vec<PathBuf> {
        match self {
            BuildKind::Maven(build) => build.files(),
            BuildKind::Gradle(build) => build.files(),
        }
    }
}

/// The key the answer for `layout`'s build is cached under, or `None` when no build tool would
/// be asked. Callers that remember failures (which are not cached) key them with it, so that
/// an edited build file is asked again at once.
pub fn build_key(layout: &ProjectLayout, settings: &BuildToolSettings) -> Option<String> {
    if !settings.enabled {
        return None;
    }
    let module = std::fs::canonicalize(&layout.root).unwrap_or_else(|_| layout.root.clone());
    let (tool, build) = match layout.build_system {
        BuildSystem::Maven => (Tool::Maven, BuildKind::Maven(maven::Build::find(&module))),
        BuildSystem::Gradle => (
            Tool::Gradle,
            BuildKind::Gradle(gradle::Build::find(&module)),
        ),
        BuildSystem::Plain => return None,
    };
    Some(format!(
        "{}:{}",
        module.display(),
        cache::cache_key(tool, build.root(), &build.files(), settings)
    ))
}

impl Tool {
    /// The phase a caller reports while the tool runs.
    pub fn phase(self) -> crate::job::Phase {
        match self {
            Tool::Maven => crate::job::Phase::ResolvingMaven,
            Tool::Gradle => crate::job::Phase::ResolvingGradle,
        }
    }
}

/// Replaces the guessed classpath of `layout` with the build tool's: the first `explicit`
/// entries (the user's) stay first, then the build output directories discovery found under
/// the project (`target/classes`: classes loaded by name at run time come from there), then
/// the tool's classpath; the sibling modules' source roots join the source roots.
pub fn apply(layout: &mut ProjectLayout, explicit: usize, module: &ModuleClasspath) {
    let explicit = explicit.min(layout.classpath.len());
    let mut classpath: Vec<PathBuf> = layout.classpath[..explicit].to_vec();
    classpath.extend(
        layout.classpath[explicit..]
            .iter()
            .filter(|entry| entry.starts_with(&layout.root) && entry.is_dir())
            .cloned(),
    );
    for entry in &module.classpath {
        if !classpath.contains(entry) {
            classpath.push(entry.clone());
        }
    }
    layout.classpath = classpath;
    for root in &module.sibling_sources {
        if !layout.source_roots.contains(root) {
            layout.source_roots.push(root.clone());
        }
    }
}

/// Resolves and applies in one step, returning what happened for the caller to report:
/// `None` when no build tool was asked.
pub fn resolve_into(
    layout: &mut ProjectLayout,
    explicit: usize,
    settings: &BuildToolSettings,
    on_run: &mut dyn FnMut(Tool),
) -> Option<Resolution> {
    let resolution = resolve(layout, settings, on_run)?;
    match (&resolution.outcome, &resolution.fallback) {
        (Ok(module), _) | (Err(_), Some(module)) => apply(layout, explicit, module),
        (Err(_), None) => {}
    }
    Some(resolution)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn applying_keeps_explicit_entries_and_build_outputs_first() {
        let root = std::env::temp_dir().join(format!("ctg-bt-apply-{}", std::process::id()));
        std::fs::create_dir_all(root.join("target/classes")).unwrap();
        let mut layout = ProjectLayout {
            root: root.clone(),
            build_system: BuildSystem::Maven,
            source_roots: vec![root.join("src/main/java")],
            test_root: root.join("src/test/java"),
            classpath: vec![
                PathBuf::from("/x/mine.jar"),
                root.join("target/classes"),
                root.join("lib/guessed.jar"),
            ],
        };
        let module = ModuleClasspath {
            classpath: vec![
                PathBuf::from("/repo/lang.jar"),
                PathBuf::from("/x/mine.jar"),
            ],
            sibling_sources: vec![PathBuf::from("/w/a/src/main/java")],
            notes: Vec::new(),
        };
        apply(&mut layout, 1, &module);
        assert_eq!(
            layout.classpath,
            [
                PathBuf::from("/x/mine.jar"),
                root.join("target/classes"),
                PathBuf::from("/repo/lang.jar"),
            ]
        );
        assert_eq!(
            layout.source_roots,
            [
                root.join("src/main/java"),
                PathBuf::from("/w/a/src/main/java")
            ]
        );
        std::fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn errors_say_what_to_do() {
        let error = BuildToolError {
            tool: Tool::Maven,
            detail: "the artifact org.x:y:jar:1.0 is not in the local repository".into(),
            advice: offline_advice(Tool::Maven, Path::new("/w/p"), true),
            fallback: None,
        };
        let text = error.to_string();
        assert!(text.starts_with("Maven could not give the classpath: the artifact org.x:y"));
        assert!(text.contains("Run `mvn dependency:resolve` once online in /w/p"));
        assert!(text.contains("`buildToolOffline: false`"));
        assert!(text.ends_with("guesses the classpath from the project's directories."));
    }
}
