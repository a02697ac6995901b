//! Gradle's answer: an init script adds a task to every project that writes the project's
//! directories, its main source and resource directories and its classpaths
//! (`sourceSets.main.compileClasspath`, `sourceSets.test.runtimeClasspath`) to a file; one run
//! of the project's `gradlew` (or `gradle`) answers for the whole build. Entries that are
//! another project's build outputs become that project's source roots, so a sibling never
//! built still works.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use super::process::{self, error_lines};
use super::{
    offline_advice, BuildClasspath, BuildToolError, BuildToolSettings, ModuleClasspath, Tool,
};

/// The init script. Groovy that Gradle 4 to 8 accept: `task(name)` rather than
/// `tasks.register`, `buildDir` rather than `layout`.
const INIT_SCRIPT: &str = r#"
allprojects { project ->
    project.task('ctglsClasspath') {
        doLast {
            def out = new File(project.rootProject.property('ctglsOut').toString())
            def lines = []
            lines << 'project\t' + project.projectDir.canonicalPath
            lines << 'build\t' + project.buildDir.canonicalPath
            if (project.hasProperty('sourceSets')) {
                def main = project.sourceSets.findByName('main')
                def test = project.sourceSets.findByName('test')
                if (main != null) {
                    main.java.srcDirs.each { lines << 'source\t' + it.canonicalPath }
                    main.resources.srcDirs.each { lines << 'resource\t' + it.canonicalPath }
                    main.compileClasspath.files.each { lines << 'entry\t' + it.canonicalPath }
                }
                if (test != null) {
                    test.runtimeClasspath.files.each { lines << 'entry\t' + it.canonicalPath }
                }
            }
            def name = project.path == ':' ? 'root' : project.path.substring(1).replace(':', '_')
            new File(out, name + '.txt').write(lines.join('\n') + '\n', 'UTF-8')
        }
    }
}
"#;

#[derive(Debug)]
pub struct Build {
    /// The directory with `settings.gradle(.kts)`, else the module itself.
    pub root: PathBuf,
}

/// What the init script wrote for one project.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct ProjectReport {
    pub dir: PathBuf,
    pub build_dir: PathBuf,
    pub sources: Vec<PathBuf>,
    pub resources: Vec<PathBuf>,
    pub entries: Vec<PathBuf>,
}

const SETTINGS: [&str; 2] = ["settings.gradle", "settings.gradle.kts"];

impl Build {
    pub fn find(module: &Path) -> Build {
        let root = module
            .ancestors()
            .find(|dir| SETTINGS.iter().any(|s| dir.join(s).is_file()))
            .unwrap_or(module)
            .to_path_buf();
        Build { root }
    }

    /// Every build script, settings and properties file and version catalog in the build's
    /// tree (build outputs and hidden directories skipped).
    pub fn files(&self) -> Vec<PathBuf> {
        let mut files = Vec::new();
        collect_build_files(&self.root, 0, &mut files);
        files.sort();
        files
    }

    pub fn resolve(&self, settings: &BuildToolSettings) -> Result<BuildClasspath, BuildToolError> {
        let error = |detail: String, advice: String| BuildToolError {
            tool: Tool::Gradle,
            detail,
            advice,
            fallback: None,
        };
        let scratch = std::env::temp_dir().join(format!(
            "ctgls-gradle-{}-{}",
            std::process::id(),
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_nanos())
        ));
        let out = scratch.join("out");
        std::fs::create_dir_all(&out).map_err(|e| {
            error(
                format!("{}: {e}", out.display()),
                "Check the temporary directory.".into(),
            )
        })?;
        let script = scratch.join("ctgls-classpath.gradle");
        let result = std::fs::write(&script, INIT_SCRIPT)
            .map_err(|e| {
                error(
                    format!("{}: {e}", script.display()),
                    "Check the temporary directory.".into(),
                )
            })
            .and_then(|()| self.run(&script, &out, settings));
        let reports = result.map(|()| read_reports(&out));
        let _ = std::fs::remove_dir_all(&scratch);
        Ok(classpaths(&reports?))
    }

    fn run(
        &self,
        script: &Path,
        out: &Path,
        settings: &BuildToolSettings,
    ) -> Result<(), BuildToolError> {
        let wrapper = self.root.join("gradlew");
        let executable = match &settings.gradle_executable {
            Some(exe) => exe.clone(),
            None if wrapper.is_file() => wrapper,
            None => PathBuf::from("gradle"),
        };
        let mut command = Command::new(&executable);
        command
            .current_dir(&self.root)
            .arg("--init-script")
            .arg(script)
            .arg("-q")
            .arg(format!("-PctglsOut={}", out.display()));
        if settings.offline {
            command.arg("--offline");
        }
        command.arg("ctglsClasspath");
        let output =
            process::run(command, super::TOOL_TIMEOUT).map_err(|detail| BuildToolError {
                tool: Tool::Gradle,
                advice: if detail.contains("was not found") {
                    "Install Gradle or add the Gradle wrapper (`gradlew`) to the project, or set \
                 `gradleExecutable` in the editor's ctgls settings (`--gradle` on the command \
                 line)."
                        .to_string()
                } else {
                    "Check that Gradle works in the project.".to_string()
                },
                detail,
                fallback: None,
            })?;
        if output.success {
            return Ok(());
        }
        let lines = error_lines(&output.text, 6);
        let detail = if lines.is_empty() {
            let tail: Vec<&str> = output.text.lines().rev().take(5).collect();
            tail.into_iter().rev().collect::<Vec<_>>().join(" / ")
        } else {
            lines.join(" / ")
        };
        Err(BuildToolError {
            tool: Tool::Gradle,
            detail,
            advice: offline_advice(Tool::Gradle, &self.root, settings.offline),
            fallback: None,
        })
    }
}

fn collect_build_files(dir: &Path, depth: usize, files: &mut Vec<PathBuf>) {
    const NAMES: [&str; 7] = [
        "build.gradle",
        "build.gradle.kts",
        "settings.gradle",
        "settings.gradle.kts",
        "gradle.properties",
        "libs.versions.toml",
        "gradle-wrapper.properties",
    ];
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.filter_map(|e| e.ok()) {
        let path = entry.path();
        let name = entry.file_name().to_string_lossy().into_owned();
        if path.is_dir() {
            let skipped = (name.starts_with('.') && name != ".")
                || ["build", "target", "out", "node_modules", "src"].contains(&name.as_str());
            if depth < 8 && !skipped {
                collect_build_files(&path, depth + 1, files);
            }
        } else if NAMES.contains(&name.as_str())
            || name.ends_with(".gradle")
            || name.ends_with(".gradle.kts")
        {
            files.push(path);
        }
    }
}

fn read_reports(out: &Path) -> Vec<ProjectReport> {
    let Ok(entries) = std::fs::read_dir(out) else {
        return Vec::new();
    };
    let mut reports: Vec<ProjectReport> = entries
        .filter_map(|e| e.ok())
        .filter_map(|e| std::fs::read_to_string(e.path()).ok())
        .map(|text| parse_report(&text))
        .collect();
    reports.sort_by(|a, b| a.dir.cmp(&b.dir));
    reports
}

pub fn parse_report(text: &str) -> ProjectReport {
    let mut report = ProjectReport::default();
    for line in text.lines() {
        let Some((kind, path)) = line.split_once('\t') else {
            continue;
        };
        let path = PathBuf::from(path);
        match kind {
            "project" => report.dir = path,
            "build" => report.build_dir = path,
            "source" => report.sources.push(path),
            "resource" => report.resources.push(path),
            "entry" if !report.entries.contains(&path) => report.entries.push(path),
            _ => {}
        }
    }
    report
}

/// Per project, its classpath: entries in Gradle's order, where another project's build
/// output (classes, resources or jar) is replaced by that project's sources (and resources);
/// the project's own outputs are left to discovery.
pub fn classpaths(reports: &[ProjectReport]) -> BuildClasspath {
    let mut answer = BuildClasspath {
        modules: BTreeMap::new(),
        failed: BTreeMap::new(),
    };
    for report in reports {
        let mut module = ModuleClasspath::default();
        for entry in &report.entries {
            if entry.starts_with(&report.build_dir) {
                continue;
            }
            let sibling = reports
                .iter()
                .filter(|r| r.dir != report.dir && entry.starts_with(&r.build_dir))
                .max_by_key(|r| r.build_dir.components().count());
            match sibling {
                Some(sibling) if sibling.sources.iter().any(|s| s.is_dir()) => {
                    for source in sibling.sources.iter().filter(|s| s.is_dir()) {
                        if !module.sibling_sources.contains(source) {
                            module.sibling_sources.push(source.clone());
                        }
                    }
                    for resource in sibling.resources.iter().filter(|r| r.is_dir()) {
                        if !module.classpath.contains(resource) {
                            module.classpath.push(resource.clone());
                        }
                    }
                }
                _ => {
                    if entry.exists() && !module.classpath.contains(entry) {
                        module.classpath.push(entry.clone());
                    }
                }
            }
        }
        for resource in report.resources.iter().filter(|r| r.is_dir()) {
            if !module.classpath.contains(resource) {
                module.classpath.push(resource.clone());
            }
        }
        answer.modules.insert(report.dir.clone(), module);
    }
    answer
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sibling_outputs_become_sources() {
        let root = std::env::temp_dir().join(format!("ctg-bt-gradle-{}", std::process::id()));
        let jar = root.join("cache/lang.jar");
        for dir in [
            "a/src/main/java",
            "a/src/main/resources",
            "b/src/main/java",
            "cache",
        ] {
            std::fs::create_dir_all(root.join(dir)).unwrap();
        }
        std::fs::write(&jar, "").unwrap();
        let report = |name: &str, entries: Vec<PathBuf>| {
            let dir = root.join(name);
            let mut text = format!(
                "project\t{}\nbuild\t{}\nsource\t{}\nresource\t{}\n",
                dir.display(),
                dir.join("build").display(),
                dir.join("src/main/java").display(),
                dir.join("src/main/resources").display()
            );
            for entry in entries {
                text.push_str(&format!("entry\t{}\n", entry.display()));
            }
            parse_report(&text)
        };
        let a = report("a", vec![jar.clone()]);
        let b = report(
            "b",
            vec![
                root.join("a/build/libs/a.jar"),
                jar.clone(),
                root.join("b/build/classes/java/main"),
                root.join("nowhere.jar"),
            ],
        );
        let answer = classpaths(&[a, b]);
        let b = &answer.modules[&root.join("b")];
        assert_eq!(b.sibling_sources, [root.join("a/src/main/java")]);
        assert_eq!(
            b.classpath,
            [root.join("a/src/main/resources"), jar.clone()]
        );
        let a = &answer.modules[&root.join("a")];
        assert_eq!(a.classpath, [jar, root.join("a/src/main/resources")]);
        std::fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn the_build_root_has_the_settings_file() {
        let root = std::env::temp_dir().join(format!("ctg-bt-gradle-root-{}", std::process::id()));
        std::fs::create_dir_all(root.join("app/src")).unwrap();
        std::fs::write(root.join("settings.gradle"), "include 'app'").unwrap();
        std::fs::write(root.join("app/build.gradle"), "").unwrap();
        std::fs::write(root.join("app/src/x.gradle"), "").unwrap();
        let build = Build::find(&root.join("app"));
        assert_eq!(build.root, root);
        assert_eq!(
            build.files(),
            [root.join("app/build.gradle"), root.join("settings.gradle")]
        );
        std::fs::remove_dir_all(&root).unwrap();
    }
}
