//! A Maven POM as far as ctgls needs it: coordinates (inherited from the parent), modules,
//! the dependencies of the `<dependencies>` section with their byte ranges, properties and the
//! source directory; and the copy of a POM that leaves chosen dependencies out.

use std::collections::BTreeMap;
use std::ops::Range;
use std::path::{Path, PathBuf};

use crate::xml::{self, Element};

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pom {
    pub text: String,
    pub group_id: Option<String>,
    pub artifact_id: String,
    pub parent: Option<Parent>,
    /// `<modules>`, as written (directories relative to the POM's).
    pub modules: Vec<String>,
    /// The `<modules>` element's span: a copy elsewhere leaves it out.
    pub modules_span: Option<Range<usize>>,
    pub dependencies: Vec<Dependency>,
    pub properties: BTreeMap<String, String>,
    /// `<build><sourceDirectory>` and `<testSourceDirectory>`, as written.
    pub source_directory: Option<String>,
    pub test_source_directory: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Parent {
    pub group_id: String,
    pub artifact_id: String,
    /// `<relativePath>` as written; absent means `../pom.xml`, empty means "not on disk".
    pub relative_path: Option<String>,
    /// Where `</parent>` starts: a `<relativePath>` can be added there.
    pub close_at: usize,
    /// The `<relativePath>` element's span, when there is one.
    pub relative_path_span: Option<Range<usize>>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Dependency {
    pub group_id: String,
    pub artifact_id: String,
    pub scope: Option<String>,
    /// `test-jar`, or a `tests` classifier: the dependency is on the module's tests.
    pub on_tests: bool,
    pub span: Range<usize>,
}

impl Pom {
    pub fn parse(text: String) -> Result<Pom, String> {
        let root = xml::parse(&text)?;
        if root.name != "project" {
            return Err(format!(
                "the root element is `<{}>`, not `<project>`",
                root.name
            ));
        }
        let t = |e: &Element, name: &str| e.child_text(&text, name);
        let parent = root.child("parent").map(|p| Parent {
            group_id: t(p, "groupId").unwrap_or_default(),
            artifact_id: t(p, "artifactId").unwrap_or_default(),
            relative_path: t(p, "relativePath"),
            close_at: p.inner.end,
            relative_path_span: p.child("relativePath").map(|r| r.span.clone()),
        });
        let modules = root
            .child("modules")
            .map(|m| m.children_named("module").map(|m| m.text(&text)).collect())
            .unwrap_or_default();
        let modules_span = root.child("modules").map(|m| m.span.clone());
        let dependencies = root
            .child("dependencies")
            .map(|deps| {
                deps.children_named("dependency")
                    .map(|d| Dependency {
                        group_id: t(d, "groupId").unwrap_or_default(),
                        artifact_id: t(d, "artifactId").unwrap_or_default(),
                        scope: t(d, "scope"),
                        on_tests: t(d, "type").as_deref() == Some("test-jar")
                            || t(d, "classifier").as_deref() == Some("tests"),
                        span: d.span.clone(),
                    })
                    .collect()
            })
            .unwrap_or_default();
        let properties = root
            .child("properties")
            .map(|p| {
                p.children
                    .iter()
                    .map(|c| (c.name.clone(), c.text(&text)))
                    .collect()
            })
            .unwrap_or_default();
        let build = root.child("build");
        let source_directory = build.and_then(|b| t(b, "sourceDirectory"));
        let test_source_directory = build.and_then(|b| t(b, "testSourceDirectory"));
        Ok(Pom {
            group_id: t(&root, "groupId"),
            artifact_id: t(&root, "artifactId").unwrap_or_default(),
            parent,
            modules,
            modules_span,
            dependencies,
            properties,
            source_directory,
            test_source_directory,
            text,
        })
    }

    /// The group id, the parent's when the POM inherits it.
    pub fn effective_group_id(&self) -> String {
        self.group_id
            .clone()
            .or_else(|| self.parent.as_ref().map(|p| p.group_id.clone()))
            .unwrap_or_default()
    }

    /// The parent's POM file on disk as `<relativePath>` says (default `../pom.xml`), for a
    /// POM in `dir`; `None` when the path is empty (the parent comes from a repository).
    pub fn parent_file(&self, dir: &Path) -> Option<PathBuf> {
        let parent = self.parent.as_ref()?;
        let relative = parent.relative_path.as_deref().unwrap_or("../pom.xml");
        if relative.is_empty() {
            return None;
        }
        let path = dir.join(relative);
        let path = if path.is_dir() {
            path.join("pom.xml")
        } else {
            path
        };
        path.is_file().then(|| normalise(&path))
    }

    /// The POM's text without the dependencies `drop` selects and without its modules, its
    /// parent's `<relativePath>` rewritten to `parent_relative` (so that the copy, elsewhere,
    /// finds the same parent).
    pub fn copy_without(
        &self,
        drop: impl Fn(&Dependency) -> bool,
        parent_relative: Option<&str>,
    ) -> String {
        // Edits from the end, so that earlier offsets stay valid.
        let mut edits: Vec<(Range<usize>, String)> = self
            .dependencies
            .iter()
            .filter(|d| drop(d))
            .map(|d| (d.span.clone(), String::new()))
            .collect();
        if let Some(span) = &self.modules_span {
            edits.push((span.clone(), String::new()));
        }
        if let (Some(parent), Some(relative)) = (&self.parent, parent_relative) {
            let element = format!("<relativePath>{relative}</relativePath>");
            match &parent.relative_path_span {
                Some(span) => edits.push((span.clone(), element)),
                None => edits.push((parent.close_at..parent.close_at, element)),
            }
        }
        edits.sort_by_key(|(range, _)| std::cmp::Reverse(range.start));
        let mut text = self.text.clone();
        for (range, replacement) in edits {
            text.replace_range(range, &replacement);
        }
        text
    }
}

/// `path` with `.` and `..` components folded away (without touching the file system).
pub fn normalise(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            std::path::Component::CurDir => {}
            std::path::Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

/// A relative path from directory `from` to `to` (both absolute), with `..` as needed.
pub fn relative_path(from: &Path, to: &Path) -> String {
    let from: Vec<_> = from.components().collect();
    let to_components: Vec<_> = to.components().collect();
    let common = from
        .iter()
        .zip(&to_components)
        .take_while(|(a, b)| a == b)
        .count();
    let mut parts: Vec<String> = vec!["..".to_string(); from.len() - common];
    parts.extend(
        to_components[common..]
            .iter()
            .map(|c| c.as_os_str().to_string_lossy().into_owned()),
    );
    parts.join("/")
}

#[cfg(test)]
mod tests {
    use super::*;

    const MODULE: &str = "<project>\n  <parent>\n    <groupId>com.acme</groupId>\n    \
        <artifactId>parent</artifactId>\n    <version>1.0</version>\n  </parent>\n  \
        <artifactId>b</artifactId>\n  <properties><lang.version>3.12.0</lang.version></properties>\n  \
        <dependencies>\n    <dependency><groupId>${project.groupId}</groupId><artifactId>a</artifactId>\
        <version>${project.version}</version></dependency>\n    <dependency><groupId>com.acme\
        </groupId><artifactId>a</artifactId><type>test-jar</type><scope>test</scope></dependency>\n    \
        <dependency><groupId>org.apache.commons</groupId><artifactId>commons-lang3</artifactId>\
        </dependency>\n  </dependencies>\n  <dependencyManagement><dependencies><dependency>\
        <groupId>x</groupId><artifactId>managed</artifactId></dependency></dependencies>\
        </dependencyManagement>\n</project>\n";

    #[test]
    fn reads_coordinates_and_dependencies() {
        let pom = Pom::parse(MODULE.to_string()).unwrap();
        assert_eq!(pom.artifact_id, "b");
        assert_eq!(pom.effective_group_id(), "com.acme");
        assert_eq!(pom.properties["lang.version"], "3.12.0");
        let names: Vec<(&str, bool)> = pom
            .dependencies
            .iter()
            .map(|d| (d.artifact_id.as_str(), d.on_tests))
            .collect();
        // Managed dependencies are not dependencies.
        assert_eq!(names, [("a", false), ("a", true), ("commons-lang3", false)]);
        assert_eq!(pom.dependencies[1].scope.as_deref(), Some("test"));
    }

    #[test]
    fn the_copy_drops_dependencies_and_points_at_the_parent() {
        let pom = Pom::parse(MODULE.to_string()).unwrap();
        let copy = pom.copy_without(|d| d.artifact_id == "a", Some("../../w/pom.xml"));
        let again = Pom::parse(copy.clone()).unwrap();
        let names: Vec<&str> = again
            .dependencies
            .iter()
            .map(|d| d.artifact_id.as_str())
            .collect();
        assert_eq!(names, ["commons-lang3"]);
        assert_eq!(
            again.parent.unwrap().relative_path.as_deref(),
            Some("../../w/pom.xml")
        );
        // An existing relativePath is replaced, not duplicated.
        let twice = again_copy(&copy);
        assert_eq!(twice.matches("<relativePath>").count(), 1);
        assert!(twice.contains("<relativePath>x/pom.xml</relativePath>"));
    }

    fn again_copy(text: &str) -> String {
        Pom::parse(text.to_string())
            .unwrap()
            .copy_without(|_| false, Some("x/pom.xml"))
    }

    #[test]
    fn relative_paths_between_directories() {
        assert_eq!(
            relative_path(Path::new("/c/x/m1"), Path::new("/w/p/pom.xml")),
            "../../../w/p/pom.xml"
        );
        assert_eq!(
            normalise(Path::new("/w/p/b/../pom.xml")),
            PathBuf::from("/w/p/pom.xml")
        );
    }
}
