//! The Java levels a project's build declares for its main and its test code, read from the
//! build files alone (no build tool runs): Maven's compiler settings with the parent POMs of
//! the same tree, and Gradle's compatibility, release and toolchain settings.
//!
//! A level is the language and API level javac is asked for: `release` where the build names
//! one, else `source`, else `target`. javac wants `target >= source`; a higher target changes
//! the bytecode only, which neither the subject's compile nor the tests depend on.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::ProjectLayout;
use crate::xml::{self, Element};

/// The levels a build declares; `None` where it says nothing (javac's default applies).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct JavaLevels {
    /// The level of the main code (`src/main/java`).
    pub main: Option<u32>,
    /// The level of the test code: its own setting where the build has one (Maven's
    /// `testRelease`/`testSource`, Gradle's `compileTestJava`), else the main level.
    pub test: Option<u32>,
}

impl ProjectLayout {
    /// The levels the project's build file declares: `pom.xml` (with its local parents), else
    /// `build.gradle.kts` or `build.gradle`. Nothing when there is no build file or it does
    /// not say.
    pub fn java_levels(&self) -> JavaLevels {
        let pom = self.root.join("pom.xml");
        if pom.is_file() {
            return maven_levels(&pom);
        }
        ["build.gradle.kts", "build.gradle"]
            .into_iter()
            .find_map(|name| std::fs::read_to_string(self.root.join(name)).ok())
            .map(|text| gradle_levels(&text))
            .unwrap_or_default()
    }
}

/// `8` for `1.8`, `8`, `VERSION_1_8`, `JavaVersion.VERSION_1_8`; `11` for `11`, `VERSION_11`;
/// `5` for `1.5` and `5.0`.
pub(crate) fn parse_java_version(text: &str) -> Option<u32> {
    let text = text.trim().trim_matches(|c| c == '"' || c == '\'');
    let text = text
        .rsplit("VERSION_")
        .next()
        .unwrap_or(text)
        .replace('_', ".");
    let text = text.strip_prefix("1.").unwrap_or(&text);
    let digits: String = text.chars().take_while(char::is_ascii_digit).collect();
    digits.parse().ok().filter(|v| (1..=99).contains(v))
}

// ---------------------------------------------------------------------------------------------
// Maven

/// Parents deeper than this are not followed (a guard against a cycle of relative paths).
const MAX_PARENTS: usize = 16;

const COMPILER_PLUGIN: &str = "maven-compiler-plugin";

/// What one POM and its local parents say, merged as Maven inherits: a child's property or
/// compiler parameter overrides its parent's.
#[derive(Debug, Default)]
struct MavenModel {
    properties: BTreeMap<String, String>,
    /// Parameters of the compiler plugin for both goals (plugin-level configuration).
    compiler: BTreeMap<String, String>,
    /// Parameters of the `compile` goal's execution (`default-compile`), over `compiler`.
    compile: BTreeMap<String, String>,
    /// Parameters of the `testCompile` goal's execution (`default-testCompile`).
    test_compile: BTreeMap<String, String>,
}

fn maven_levels(pom: &Path) -> JavaLevels {
    let mut chain = Vec::new();
    let mut next = Some(pom.to_path_buf());
    while let Some(path) = next.take() {
        if chain.len() >= MAX_PARENTS || chain.iter().any(|(p, _, _)| *p == path) {
            break;
        }
        let Some(text) = std::fs::read_to_string(&path).ok() else {
            break;
        };
        let Ok(root) = xml::parse(&text) else {
            break;
        };
        next = local_parent(&path, &text, &root);
        chain.push((path, text, root));
    }
    // The farthest parent first, so that children override.
    let mut model = MavenModel::default();
    for (_, text, root) in chain.iter().rev() {
        model.absorb(text, root);
    }
    model.levels()
}

/// The parent POM of `root` (read from `path`) when it is in the same tree: `<relativePath>`
/// (default `../pom.xml`; a directory means its `pom.xml`; empty means none), and only when its
/// artifactId is the one the child names.
fn local_parent(path: &Path, xml: &str, root: &Element) -> Option<PathBuf> {
    let parent = root.child("parent")?;
    let relative = match parent.child("relativePath") {
        Some(element) => element.text(xml),
        None => "../pom.xml".to_string(),
    };
    if relative.is_empty() {
        return None;
    }
    let mut candidate = path.parent()?.join(relative);
    if candidate.is_dir() {
        candidate = candidate.join("pom.xml");
    }
    let wanted = parent.child_text(xml, "artifactId");
    let text = std::fs::read_to_string(&candidate).ok()?;
    let found = xml::parse(&text).ok()?;
    let artifact = found.child_text(&text, "artifactId");
    (wanted.is_none() || wanted == artifact).then_some(candidate)
}

impl MavenModel {
    fn absorb(&mut self, xml: &str, root: &Element) {
        if let Some(properties) = root.child("properties") {
            for property in &properties.children {
                self.properties
                    .insert(property.name.clone(), property.text(xml));
            }
        }
        let Some(build) = root.child("build") else {
            return;
        };
        // Managed configuration first: a plugin's own declaration overrides it.
        let managed = build
            .child("pluginManagement")
            .and_then(|m| m.child("plugins"));
        for plugins in managed.into_iter().chain(build.child("plugins")) {
            for plugin in plugins.children_named("plugin") {
                let artifact = plugin.child_text(xml, "artifactId");
                if artifact.as_deref() != Some(COMPILER_PLUGIN) {
                    continue;
                }
                if let Some(configuration) = plugin.child("configuration") {
                    merge_parameters(&mut self.compiler, xml, configuration);
                }
                let Some(executions) = plugin.child("executions") else {
                    continue;
                };
                for execution in executions.children_named("execution") {
                    let id = execution.child_text(xml, "id").unwrap_or_default();
                    let goals: Vec<String> = execution
                        .child("goals")
                        .map(|g| g.children_named("goal").map(|g| g.text(xml)).collect())
                        .unwrap_or_default();
                    let has_goal = |goal: &str| goals.iter().any(|g| g == goal);
                    let Some(configuration) = execution.child("configuration") else {
                        continue;
                    };
                    if id == "default-compile" || has_goal("compile") {
                        merge_parameters(&mut self.compile, xml, configuration);
                    }
                    if id == "default-testCompile" || has_goal("testCompile") {
                        merge_parameters(&mut self.test_compile, xml, configuration);
                    }
                }
            }
        }
    }

    /// The compiler plugin's parameter `name` for the goal whose execution parameters are
    /// `execution`, else its user property (`maven.compiler.<name>`), resolved.
    fn parameter(&self, execution: &BTreeMap<String, String>, name: &str) -> Option<u32> {
        let raw = execution
            .get(name)
            .or_else(|| self.compiler.get(name))
            .cloned()
            .or_else(|| {
                self.properties
                    .get(&format!("maven.compiler.{name}"))
                    .cloned()
            })?;
        parse_java_version(&self.interpolate(&raw)?)
    }

    /// `raw` with every `${property}` replaced; `None` when one is unknown.
    fn interpolate(&self, raw: &str) -> Option<String> {
        let mut text = raw.to_string();
        for _ in 0..MAX_PARENTS {
            let Some(start) = text.find("${") else {
                return Some(text);
            };
            let end = text[start..].find('}')? + start;
            let value = self.properties.get(&text[start + 2..end])?;
            text.replace_range(start..=end, value);
        }
        None
    }

    /// The compile mojo's rule: `release` wins, else `source`, else `target`; the test-compile
    /// mojo uses `testRelease`/`testSource`/`testTarget` where set and the main parameters
    /// otherwise.
    fn levels(&self) -> JavaLevels {
        let main_level = |execution: &BTreeMap<String, String>| {
            self.parameter(execution, "release")
                .or_else(|| self.parameter(execution, "source"))
                .or_else(|| self.parameter(execution, "target"))
        };
        let main = main_level(&self.compile).or_else(|| {
            // Spring Boot's parent (not in the tree) turns `java.version` into the release.
            self.properties
                .get("java.version")
                .and_then(|raw| parse_java_version(&self.interpolate(raw)?))
        });
        let test_execution = &self.test_compile;
        let test = self
            .parameter(test_execution, "testRelease")
            .or_else(|| self.parameter(test_execution, "release"))
            .or_else(|| self.parameter(test_execution, "testSource"))
            .or_else(|| self.parameter(test_execution, "source"))
            .or_else(|| self.parameter(test_execution, "testTarget"))
            .or_else(|| self.parameter(test_execution, "target"))
            .or(main);
        JavaLevels { main, test }
    }
}

fn merge_parameters(into: &mut BTreeMap<String, String>, xml: &str, configuration: &Element) {
    for parameter in &configuration.children {
        into.insert(parameter.name.clone(), parameter.text(xml));
    }
}

// ---------------------------------------------------------------------------------------------
// Gradle

/// Blocks that configure only the compilation of the tests.
const GRADLE_TEST_BLOCKS: &[&str] = &[
    "compileTestJava {",
    "named(\"compileTestJava\")",
    "named('compileTestJava')",
    "named<JavaCompile>(\"compileTestJava\")",
    "getByName(\"compileTestJava\")",
];

fn gradle_levels(build: &str) -> JavaLevels {
    let mut main_text = build.to_string();
    let mut test_text = String::new();
    for opening in GRADLE_TEST_BLOCKS {
        while let Some(at) = main_text.find(opening) {
            let Some(open) = main_text[at..].find('{').map(|o| o + at) else {
                break;
            };
            let end = matching_brace(&main_text, open).unwrap_or(main_text.len());
            test_text.push_str(&main_text[open..end]);
            test_text.push('\n');
            main_text.replace_range(at..end, "");
        }
    }
    let main = gradle_level(&main_text);
    JavaLevels {
        main,
        test: gradle_level(&test_text).or(main),
    }
}

/// The index just past the `}` matching the `{` at `open`.
fn matching_brace(text: &str, open: usize) -> Option<usize> {
    let mut depth = 0usize;
    for (i, c) in text[open..].char_indices() {
        match c {
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    return Some(open + i + 1);
                }
            }
            _ => {}
        }
    }
    None
}

/// `options.release`, then `sourceCompatibility`, then `targetCompatibility`, then the
/// toolchain's language version (a toolchain compiles at its own level unless told otherwise).
fn gradle_level(build: &str) -> Option<u32> {
    // The value after `key` up to the end of its statement: `= 11`, `.set(11)`, `(17)`.
    let after = |key: &str| -> Option<u32> {
        build.match_indices(key).find_map(|(at, _)| {
            let rest = build[at + key.len()..].trim_start();
            let rest = rest
                .strip_prefix(".set")
                .or_else(|| rest.strip_prefix('='))
                .unwrap_or(rest)
                .trim_start()
                .trim_start_matches('(')
                .trim_start();
            let rest = rest.strip_prefix("JavaVersion.").unwrap_or(rest);
            let end = rest.find([')', '\n', ';']).unwrap_or(rest.len());
            parse_java_version(&rest[..end])
        })
    };
    [
        "options.release",
        "sourceCompatibility",
        "targetCompatibility",
        "JavaLanguageVersion.of",
        "jvmToolchain",
    ]
    .into_iter()
    .find_map(after)
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::project::tests::Scratch;

    fn levels(main: Option<u32>, test: Option<u32>) -> JavaLevels {
        JavaLevels { main, test }
    }

    fn pom(body: &str) -> JavaLevels {
        let dir = Scratch::new("pom");
        let path = dir.write("pom.xml", &format!("<project>{body}</project>"));
        maven_levels(&path)
    }

    fn compiler(configuration: &str) -> String {
        format!(
            "<build><plugins><plugin><groupId>org.apache.maven.plugins</groupId>\
             <artifactId>maven-compiler-plugin</artifactId><version>3.11.0</version>\
             {configuration}</plugin></plugins></build>"
        )
    }

    #[test]
    fn maven_properties_give_both_levels() {
        assert_eq!(
            pom("<properties><maven.compiler.release>11</maven.compiler.release></properties>"),
            levels(Some(11), Some(11))
        );
        assert_eq!(
            pom(
                "<properties><maven.compiler.source>1.5</maven.compiler.source>\
                 <maven.compiler.target>1.5</maven.compiler.target></properties>"
            ),
            levels(Some(5), Some(5))
        );
        assert_eq!(
            pom(
                "<properties><maven.compiler.source>1.7</maven.compiler.source>\
                 <maven.compiler.testSource>1.8</maven.compiler.testSource></properties>"
            ),
            levels(Some(7), Some(8))
        );
        assert_eq!(
            pom(
                "<properties><maven.compiler.release>8</maven.compiler.release>\
                 <maven.compiler.testRelease>17</maven.compiler.testRelease></properties>"
            ),
            levels(Some(8), Some(17))
        );
        assert_eq!(pom("<dependencies/>"), levels(None, None));
        assert_eq!(
            pom("<properties><maven.compiler.source>${unknown}</maven.compiler.source></properties>"),
            levels(None, None),
            "an unresolvable value says nothing"
        );
    }

    #[test]
    fn the_compiler_plugin_configuration_overrides_properties() {
        let body = format!(
            "<properties><maven.compiler.source>1.8</maven.compiler.source>\
             <jdk.level>1.6</jdk.level></properties>{}",
            compiler(
                "<configuration><source>${jdk.level}</source><target>${jdk.level}</target>\
                 <testSource>1.7</testSource></configuration>"
            )
        );
        assert_eq!(pom(&body), levels(Some(6), Some(7)));
        // `release` wins over `source` in both goals, as `--release` does on javac.
        let body =
            compiler("<configuration><release>11</release><source>1.8</source></configuration>");
        assert_eq!(pom(&body), levels(Some(11), Some(11)));
    }

    #[test]
    fn execution_configuration_sets_one_goal() {
        let body = compiler(
            "<configuration><source>1.7</source><target>1.7</target></configuration>\
             <executions><execution><id>default-testCompile</id>\
             <configuration><source>1.8</source><target>1.8</target></configuration>\
             </execution></executions>",
        );
        assert_eq!(pom(&body), levels(Some(7), Some(8)));
    }

    #[test]
    fn comments_cdata_attributes_and_declarations_are_read_over() {
        let xml = r#"<?xml version="1.0" encoding="UTF-8"?>
<!-- <properties><maven.compiler.source>1.4</maven.compiler.source></properties> -->
<project xmlns="http://maven.apache.org/POM/4.0.0" a='x>y'>
  <properties>
    <maven.compiler.source><![CDATA[1.7]]></maven.compiler.source>
    <empty/>
  </properties>
</project>"#;
        let dir = Scratch::new("xml");
        assert_eq!(
            maven_levels(&dir.write("pom.xml", xml)),
            levels(Some(7), Some(7))
        );
        assert!(xml::parse("<project><a></b></project>").is_err());
    }

    #[test]
    fn parents_in_the_tree_are_inherited_and_overridden() {
        let tree = Scratch::new("parents");
        tree.write(
            "pom.xml",
            "<project><artifactId>root</artifactId><properties>\
             <maven.compiler.source>1.6</maven.compiler.source>\
             <maven.compiler.target>1.6</maven.compiler.target>\
             <level>1.8</level></properties></project>",
        );
        tree.write(
            "libs/pom.xml",
            "<project><parent><artifactId>root</artifactId><relativePath>..</relativePath></parent>\
             <artifactId>libs</artifactId></project>",
        );
        // Default relative path `../pom.xml`: the `libs` aggregator, then its own parent.
        let inherits = tree.write(
            "libs/a/pom.xml",
            "<project><parent><artifactId>libs</artifactId></parent></project>",
        );
        assert_eq!(maven_levels(&inherits), levels(Some(6), Some(6)));
        let overrides = tree.write(
            "libs/b/pom.xml",
            &format!(
                "<project><parent><artifactId>libs</artifactId></parent>{}</project>",
                compiler("<configuration><testSource>${level}</testSource></configuration>")
            ),
        );
        assert_eq!(maven_levels(&overrides), levels(Some(6), Some(8)));
        // A parent that is not the one named (it comes from a repository), or no local path.
        let elsewhere = tree.write(
            "libs/c/pom.xml",
            "<project><parent><artifactId>spring-boot-starter-parent</artifactId></parent>\
             <properties><java.version>17</java.version></properties></project>",
        );
        assert_eq!(maven_levels(&elsewhere), levels(Some(17), Some(17)));
        let detached = tree.write(
            "libs/d/pom.xml",
            "<project><parent><artifactId>libs</artifactId><relativePath/></parent></project>",
        );
        assert_eq!(maven_levels(&detached), levels(None, None));
    }

    #[test]
    fn a_parent_cycle_ends() {
        let tree = Scratch::new("cycle");
        tree.write(
            "a/pom.xml",
            "<project><artifactId>a</artifactId><parent><artifactId>b</artifactId>\
             <relativePath>../b/pom.xml</relativePath></parent></project>",
        );
        let b = tree.write(
            "b/pom.xml",
            "<project><artifactId>b</artifactId><parent><artifactId>a</artifactId>\
             <relativePath>../a/pom.xml</relativePath></parent>\
             <properties><maven.compiler.source>7</maven.compiler.source></properties></project>",
        );
        assert_eq!(maven_levels(&b), levels(Some(7), Some(7)));
    }

    #[test]
    fn gradle_levels_from_compatibility_release_and_toolchains() {
        let gradle = |text: &str| gradle_levels(text);
        assert_eq!(
            gradle("java { sourceCompatibility = JavaVersion.VERSION_1_8 }"),
            levels(Some(8), Some(8))
        );
        assert_eq!(
            gradle("sourceCompatibility = '1.7'\ntargetCompatibility = '1.7'"),
            levels(Some(7), Some(7))
        );
        assert_eq!(
            gradle("java {\n    toolchain {\n        languageVersion = JavaLanguageVersion.of(21)\n    }\n}"),
            levels(Some(21), Some(21))
        );
        assert_eq!(
            gradle("kotlin { jvmToolchain(17) }"),
            levels(Some(17), Some(17))
        );
        assert_eq!(
            gradle("java { toolchain { languageVersion = JavaLanguageVersion.of(17) } }\nsourceCompatibility = 1.7"),
            levels(Some(7), Some(7)),
            "the toolchain compiles at the declared compatibility"
        );
        assert_eq!(
            gradle("tasks.withType<JavaCompile> { options.release.set(11) }\nsourceCompatibility = JavaVersion.VERSION_17"),
            levels(Some(11), Some(11))
        );
        assert_eq!(
            gradle("sourceCompatibility = 1.7\ncompileTestJava {\n    sourceCompatibility = 1.8\n    targetCompatibility = 1.8\n}\n"),
            levels(Some(7), Some(8))
        );
        assert_eq!(
            gradle("java { sourceCompatibility = JavaVersion.VERSION_1_6 }\ntasks.named<JavaCompile>(\"compileTestJava\") { options.release.set(11) }"),
            levels(Some(6), Some(11))
        );
        assert_eq!(
            gradle("dependencies { testImplementation(\"junit:junit:4.13\") }"),
            levels(None, None)
        );
    }

    #[test]
    fn a_layout_reads_its_build_file() {
        let project = Scratch::new("layout");
        project.write("pom.xml", "<project><properties><maven.compiler.source>1.5</maven.compiler.source></properties></project>");
        project.write("src/main/java/A.java", "class A {}");
        let layout = ProjectLayout::discover(&project.0, &super::super::LayoutOverrides::default());
        assert_eq!(layout.java_levels(), levels(Some(5), Some(5)));
    }
}
