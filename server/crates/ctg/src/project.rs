//! Finding a Java project's shape on disk: its root, build system, source roots, test root,
//! the classpath its build outputs and jars give, which JUnit its tests use, and (`levels`)
//! the Java levels its build declares. Shared by the CLI (`ctgls generate` defaults) and the
//! language server (workspace folders).

use std::path::{Path, PathBuf};

mod levels;

pub(crate) use levels::parse_java_version;
pub use levels::JavaLevels;

/// Files whose presence marks a project root, nearest first when walking up from a file.
pub const ROOT_MARKERS: &[&str] = &[
    "pom.xml",
    "build.gradle",
    "build.gradle.kts",
    "settings.gradle",
    "settings.gradle.kts",
    ".git",
];

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BuildSystem {
    Maven,
    Gradle,
    /// No build file: sources under `src/` or the root itself.
    Plain,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum JUnitVersion {
    Four,
    Five,
}

/// Source texts that replace files on disk: the editor's unsaved buffers, keyed by the file's
/// path as the layout spells it (absolute, or relative like the layout's roots). Cheap to
/// clone.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SourceOverlays(std::sync::Arc<std::collections::BTreeMap<PathBuf, String>>);

impl SourceOverlays {
    pub fn new(texts: impl IntoIterator<Item = (PathBuf, String)>) -> SourceOverlays {
        SourceOverlays(std::sync::Arc::new(texts.into_iter().collect()))
    }

    pub fn get(&self, path: &Path) -> Option<&str> {
        self.0.get(path).map(String::as_str)
    }

    pub fn paths(&self) -> impl Iterator<Item = &Path> {
        self.0.keys().map(PathBuf::as_path)
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

/// What the user said explicitly; each field overrides what discovery would find.
#[derive(Debug, Clone, Default)]
pub struct LayoutOverrides {
    pub source_roots: Vec<PathBuf>,
    pub test_root: Option<PathBuf>,
    /// Entries added before the discovered ones.
    pub classpath: Vec<PathBuf>,
}

/// Invariant: every path is absolute or relative to the directory `discover` was given,
/// exactly as that directory was given; `source_roots` is never empty.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProjectLayout {
    pub root: PathBuf,
    pub build_system: BuildSystem,
    pub source_roots: Vec<PathBuf>,
    /// Where generated tests go. May not exist yet: it is created when a test is written.
    pub test_root: PathBuf,
    /// Explicit entries, then build outputs that exist, then jars under `lib/` (and Maven's
    /// `target/dependency/`), in that order.
    pub classpath: Vec<PathBuf>,
}

impl ProjectLayout {
    /// What code under test may read of the project: its source roots, test root, resource
    /// directories (`src/*/resources`) and class path. Not the rest of the project directory
    /// (a `.env` file, `.git`), nor anything else of the machine.
    pub fn readable_paths(&self) -> Vec<PathBuf> {
        let mut paths: Vec<PathBuf> = self.source_roots.clone();
        paths.push(self.test_root.clone());
        for kind in ["main", "test"] {
            let resources = self.root.join("src").join(kind).join("resources");
            if resources.is_dir() {
                paths.push(resources);
            }
        }
        paths.extend(self.classpath.iter().cloned());
        paths
    }

    /// The layout of the project at `root`. Reads directory listings and build files only.
    pub fn discover(root: &Path, overrides: &LayoutOverrides) -> ProjectLayout {
        let build_system = if root.join("pom.xml").is_file() {
            BuildSystem::Maven
        } else if ["build.gradle", "build.gradle.kts"]
            .iter()
            .any(|name| root.join(name).is_file())
        {
            BuildSystem::Gradle
        } else {
            BuildSystem::Plain
        };

        let source_roots = if overrides.source_roots.is_empty() {
            vec![default_source_root(root)]
        } else {
            overrides
                .source_roots
                .iter()
                .map(|path| resolve(root, path))
                .collect()
        };
        let test_root = match &overrides.test_root {
            Some(path) => resolve(root, path),
            None => default_test_root(root, &source_roots[0]),
        };

        let mut classpath: Vec<PathBuf> = overrides
            .classpath
            .iter()
            .map(|path| resolve(root, path))
            .collect();
        let outputs: &[&str] = match build_system {
            BuildSystem::Maven => &["target/classes"],
            BuildSystem::Gradle => &["build/classes/java/main", "build/resources/main"],
            BuildSystem::Plain => &["bin", "out/production", "classes"],
        };
        for output in outputs {
            let path = root.join(output);
            if path.is_dir() {
                classpath.push(path);
            }
        }
        for jar_dir in ["lib", "libs", "target/dependency"] {
            classpath.extend(jars_in(&root.join(jar_dir)));
        }
        classpath.dedup();

        ProjectLayout {
            root: root.to_path_buf(),
            build_system,
            source_roots,
            test_root,
            classpath,
        }
    }

    /// Every `.java` file under the source roots, sorted, without duplicates.
    pub fn source_files(&self) -> Vec<PathBuf> {
        let mut files = Vec::new();
        for source_root in &self.source_roots {
            collect_java_files(source_root, &self.root, &mut files);
        }
        files.sort();
        files.dedup();
        files
    }

    /// The source file declaring the top-level class `fqcn` (binary names of nested classes map
    /// to their outer class's file), following the package-directory convention.
    pub fn source_file_of(&self, fqcn: &str) -> Option<PathBuf> {
        let relative = package_path(fqcn, "");
        self.source_roots
            .iter()
            .map(|root| root.join(&relative))
            .find(|path| path.is_file())
    }

    /// The fully qualified name of the top-level class a source file declares by convention
    /// (its path below a source root), if the file is under one.
    pub fn class_name_of(&self, file: &Path) -> Option<String> {
        let relative = self
            .source_roots
            .iter()
            .find_map(|root| file.strip_prefix(root).ok())?;
        let stem = relative.to_str()?.strip_suffix(".java")?;
        Some(stem.replace(['/', '\\'], "."))
    }

    /// Where the test file `<Simple><suffix>.java` for `fqcn` lives under the test root.
    pub fn test_file_for(&self, fqcn: &str, suffix: &str) -> PathBuf {
        self.test_root.join(package_path(fqcn, suffix))
    }

    /// Which JUnit the project's tests use: JUnit 4 when only JUnit 4 shows (in the build
    /// file, the classpath's jar names or the imports of existing tests), else JUnit 5.
    pub fn junit_version(&self) -> JUnitVersion {
        let mut four = false;
        let mut five = false;
        for name in ["pom.xml", "build.gradle", "build.gradle.kts"] {
            if let Ok(text) = std::fs::read_to_string(self.root.join(name)) {
                five |= text.contains("junit-jupiter") || text.contains("org.junit.jupiter");
                four |= text.contains("<artifactId>junit</artifactId>")
                    || text.contains("junit:junit:");
            }
        }
        for entry in &self.classpath {
            let name = entry
                .file_name()
                .and_then(|name| name.to_str())
                .unwrap_or_default();
            five |= name.starts_with("junit-jupiter");
            four |= name.starts_with("junit-4") || name == "junit.jar" || name == "junit4.jar";
        }
        let mut tests = Vec::new();
        collect_java_files(&self.test_root, &self.root, &mut tests);
        for test in tests.iter().take(200) {
            if let Ok(text) = std::fs::read_to_string(test) {
                five |= text.contains("import org.junit.jupiter.");
                four |= text.contains("import org.junit.Test;")
                    || text.contains("import static org.junit.Assert.");
            }
        }
        if four && !five {
            JUnitVersion::Four
        } else {
            JUnitVersion::Five
        }
    }
}

/// The nearest ancestor of `start` (a file or directory) that has a root marker, if any.
pub fn find_project_root(start: &Path) -> Option<PathBuf> {
    let mut dir = if start.is_dir() {
        Some(start)
    } else {
        start.parent()
    };
    while let Some(candidate) = dir {
        if ROOT_MARKERS
            .iter()
            .any(|marker| candidate.join(marker).exists())
        {
            return Some(candidate.to_path_buf());
        }
        dir = candidate.parent();
    }
    None
}

/// `<package dirs>/<Simple><suffix>.java` for the top-level class of `fqcn` (a binary name of a
/// nested class maps to its outer class), built from components so that it is in the
/// platform's separators.
fn package_path(fqcn: &str, suffix: &str) -> PathBuf {
    let outer = fqcn.split('$').next().unwrap_or(fqcn);
    let mut names: Vec<&str> = outer.split('.').collect();
    let simple = names.pop().unwrap_or_default();
    let mut path: PathBuf = names.into_iter().collect();
    path.push(format!("{simple}{suffix}.java"));
    path
}

fn default_source_root(root: &Path) -> PathBuf {
    ["src/main/java", "src"]
        .iter()
        .map(|relative| root.join(relative))
        .find(|path| path.is_dir())
        .unwrap_or_else(|| root.to_path_buf())
}

fn default_test_root(root: &Path, source_root: &Path) -> PathBuf {
    let standard = root.join("src/test/java");
    let plain = root.join("test");
    if standard.is_dir() {
        standard
    } else if plain.is_dir() {
        plain
    } else if source_root == root.join("src/main/java") {
        standard
    } else {
        plain
    }
}

fn resolve(root: &Path, path: &Path) -> PathBuf {
    if path.is_absolute() {
        path.to_path_buf()
    } else {
        root.join(path)
    }
}

fn jars_in(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut jars: Vec<PathBuf> = entries
        .filter_map(|entry| entry.ok().map(|entry| entry.path()))
        .filter(|path| path.extension().is_some_and(|ext| ext == "jar"))
        .collect();
    jars.sort();
    jars
}

/// Directories directly under the project root that hold build outputs, not sources. Only
/// skipped there: inside a source root, `build` or `target` is an ordinary package name.
const BUILD_OUTPUT_DIRS: &[&str] = &["target", "build", "out", "bin", "node_modules"];

/// Collects the `.java` files under `dir`, skipping hidden directories (`.git`, `.ctgls`)
/// everywhere and build outputs directly under `project_root` (which matters when the project
/// root is itself the source root).
pub(crate) fn collect_java_files(dir: &Path, project_root: &Path, files: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut paths: Vec<PathBuf> = entries
        .filter_map(|entry| entry.ok().map(|entry| entry.path()))
        .collect();
    paths.sort();
    for path in paths {
        if path.is_dir() {
            let name = path
                .file_name()
                .and_then(|name| name.to_str())
                .unwrap_or_default();
            let skipped =
                name.starts_with('.') || (dir == project_root && BUILD_OUTPUT_DIRS.contains(&name));
            if !skipped {
                collect_java_files(&path, project_root, files);
            }
        } else if path.extension().is_some_and(|ext| ext == "java") {
            files.push(path);
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A scratch project directory removed on drop (the level reading's and the regression
    /// guard's tests use it too).
    pub(crate) struct Scratch(pub(crate) PathBuf);

    impl Scratch {
        pub(crate) fn new(name: &str) -> Scratch {
            let dir =
                std::env::temp_dir().join(format!("ctg-project-{name}-{}", std::process::id()));
            let _ = std::fs::remove_dir_all(&dir);
            std::fs::create_dir_all(&dir).expect("scratch dir");
            Scratch(dir)
        }

        pub(crate) fn write(&self, relative: &str, text: &str) -> PathBuf {
            let path = self.0.join(relative);
            std::fs::create_dir_all(path.parent().expect("parent")).expect("dirs");
            std::fs::write(&path, text).expect("write");
            path
        }
    }

    impl Drop for Scratch {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    #[test]
    fn maven_layout() {
        let project = Scratch::new("maven");
        project.write(
            "pom.xml",
            "<project><dependencies><dependency><artifactId>junit</artifactId></dependency></dependencies></project>",
        );
        let account = project.write(
            "src/main/java/com/x/Account.java",
            "package com.x; class Account {}",
        );
        let in_package_target = project.write(
            "src/main/java/com/x/target/T.java",
            "package com.x.target; class T {}",
        );
        std::fs::create_dir_all(project.0.join("target/classes")).unwrap();
        project.write("lib/b.jar", "");
        project.write("lib/a.jar", "");
        project.write("lib/readme.txt", "");

        let layout = ProjectLayout::discover(&project.0, &LayoutOverrides::default());
        assert_eq!(layout.build_system, BuildSystem::Maven);
        assert_eq!(layout.source_roots, vec![project.0.join("src/main/java")]);
        assert_eq!(layout.test_root, project.0.join("src/test/java"));
        assert_eq!(
            layout.classpath,
            vec![
                project.0.join("target/classes"),
                project.0.join("lib/a.jar"),
                project.0.join("lib/b.jar")
            ]
        );
        // A package named `target` is a package, not a build output.
        assert_eq!(
            layout.source_files(),
            vec![account.clone(), in_package_target]
        );
        assert_eq!(
            layout.class_name_of(&account).as_deref(),
            Some("com.x.Account")
        );
        assert_eq!(layout.source_file_of("com.x.Account$Inner"), Some(account));
        assert_eq!(layout.source_file_of("com.x.Missing"), None);
        assert_eq!(
            layout.test_file_for("com.x.Account", "GeneratedTest"),
            project
                .0
                .join("src/test/java/com/x/AccountGeneratedTest.java")
        );
        assert_eq!(layout.junit_version(), JUnitVersion::Four);
    }

    #[test]
    fn gradle_layout_with_junit_five_tests() {
        let project = Scratch::new("gradle");
        project.write(
            "build.gradle.kts",
            "dependencies { testImplementation(\"junit:junit:4.13\") }",
        );
        project.write("src/main/java/A.java", "class A {}");
        project.write(
            "src/test/java/ATest.java",
            "import org.junit.jupiter.api.Test;\nclass ATest {}",
        );
        std::fs::create_dir_all(project.0.join("build/classes/java/main")).unwrap();
        let layout = ProjectLayout::discover(&project.0, &LayoutOverrides::default());
        assert_eq!(layout.build_system, BuildSystem::Gradle);
        assert_eq!(
            layout.classpath,
            vec![project.0.join("build/classes/java/main")]
        );
        // Both show; JUnit 5 wins because new tests should not be written against the old one.
        assert_eq!(layout.junit_version(), JUnitVersion::Five);
    }

    #[test]
    fn plain_layouts_and_overrides() {
        let with_src = Scratch::new("plain-src");
        with_src.write("src/p/A.java", "package p; class A {}");
        let layout = ProjectLayout::discover(&with_src.0, &LayoutOverrides::default());
        assert_eq!(layout.build_system, BuildSystem::Plain);
        assert_eq!(layout.source_roots, vec![with_src.0.join("src")]);
        assert_eq!(layout.test_root, with_src.0.join("test"));
        assert_eq!(
            layout
                .class_name_of(&with_src.0.join("src/p/A.java"))
                .as_deref(),
            Some("p.A")
        );
        assert_eq!(layout.junit_version(), JUnitVersion::Five);

        let bare = Scratch::new("plain-bare");
        bare.write("A.java", "class A {}");
        bare.write("out/Copy.java", "class Copy {}");
        bare.write(".ctgls/Stored.java", "class Stored {}");
        let layout = ProjectLayout::discover(&bare.0, &LayoutOverrides::default());
        assert_eq!(layout.source_roots, vec![bare.0.clone()]);
        assert_eq!(layout.source_files(), vec![bare.0.join("A.java")]);

        let overrides = LayoutOverrides {
            source_roots: vec![PathBuf::from("java")],
            test_root: Some(PathBuf::from("/abs/tests")),
            classpath: vec![PathBuf::from("deps/x.jar")],
        };
        let layout = ProjectLayout::discover(&bare.0, &overrides);
        assert_eq!(layout.source_roots, vec![bare.0.join("java")]);
        assert_eq!(layout.test_root, PathBuf::from("/abs/tests"));
        assert_eq!(layout.classpath, vec![bare.0.join("deps/x.jar")]);
    }

    #[test]
    fn project_root_is_the_nearest_marked_ancestor() {
        let project = Scratch::new("root");
        project.write("pom.xml", "<project/>");
        let file = project.write("module/src/main/java/A.java", "class A {}");
        assert_eq!(find_project_root(&file), Some(project.0.clone()));
        project.write("module/build.gradle", "");
        assert_eq!(find_project_root(&file), Some(project.0.join("module")));
    }
}
