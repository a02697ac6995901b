//! The classpath read from the POMs themselves, for when Maven fails or is missing (DESIGN
//! decision 7: a guess, said to the user). A module's declared dependencies (its own and its
//! parents', with `${...}` properties and `<dependencyManagement>` versions resolved) become
//! the sibling modules' source roots or jars of the local repository, at the declared version
//! or the closest one there, with the jars' own dependencies read from their POMs.
//!
//! The effective model is approximated: parents come from the build's tree or the local
//! repository (a missing one is skipped and said), BOM imports are followed when the local
//! repository holds them, profiles and version ranges' subtleties are not evaluated.

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::path::{Path, PathBuf};

use super::maven::{add_sources_and_resources, read_pom};
use super::pom::{normalise, Pom};
use super::{BuildToolSettings, ModuleClasspath};
use crate::xml::{self, Element};

/// How many dependency hops from the module's declarations are followed.
const MAX_DEPTH: usize = 8;
/// How many parents (and imported BOMs) deep a model is read.
const MAX_PARENTS: usize = 12;

/// One `<dependency>` as written.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Dep {
    group: String,
    artifact: String,
    version: Option<String>,
    scope: Option<String>,
    kind: Option<String>,
    classifier: Option<String>,
    optional: bool,
    exclusions: Vec<(String, String)>,
}

/// The parts of one POM file the fallback reads.
#[derive(Debug, Clone, Default)]
struct RawPom {
    group: Option<String>,
    artifact: String,
    version: Option<String>,
    /// Group, artifact, version and `<relativePath>`.
    parent: Option<(String, String, String, Option<String>)>,
    properties: BTreeMap<String, String>,
    managed: Vec<Dep>,
    dependencies: Vec<Dep>,
}

fn read_deps(root: &Element, text: &str) -> Vec<Dep> {
    root.children_named("dependency")
        .map(|d| {
            let t = |name: &str| d.child_text(text, name);
            Dep {
                group: t("groupId").unwrap_or_default(),
                artifact: t("artifactId").unwrap_or_default(),
                version: t("version"),
                scope: t("scope"),
                kind: t("type"),
                classifier: t("classifier"),
                optional: t("optional").as_deref() == Some("true"),
                exclusions: d
                    .child("exclusions")
                    .map(|e| {
                        e.children_named("exclusion")
                            .map(|x| {
                                (
                                    x.child_text(text, "groupId").unwrap_or_default(),
                                    x.child_text(text, "artifactId").unwrap_or_default(),
                                )
                            })
                            .collect()
                    })
                    .unwrap_or_default(),
            }
        })
        .collect()
}

impl RawPom {
    fn parse(text: &str) -> Option<RawPom> {
        let root = xml::parse(text).ok()?;
        if root.name != "project" {
            return None;
        }
        let t = |e: &Element, name: &str| e.child_text(text, name);
        Some(RawPom {
            group: t(&root, "groupId"),
            artifact: t(&root, "artifactId").unwrap_or_default(),
            version: t(&root, "version"),
            parent: root.child("parent").map(|p| {
                (
                    t(p, "groupId").unwrap_or_default(),
                    t(p, "artifactId").unwrap_or_default(),
                    t(p, "version").unwrap_or_default(),
                    t(p, "relativePath"),
                )
            }),
            properties: root
                .child("properties")
                .map(|p| {
                    p.children
                        .iter()
                        .map(|c| (c.name.clone(), c.text(text)))
                        .collect()
                })
                .unwrap_or_default(),
            managed: root
                .child("dependencyManagement")
                .and_then(|m| m.child("dependencies"))
                .map(|d| read_deps(d, text))
                .unwrap_or_default(),
            dependencies: root
                .child("dependencies")
                .map(|d| read_deps(d, text))
                .unwrap_or_default(),
        })
    }

    fn read(path: &Path) -> Option<RawPom> {
        RawPom::parse(&std::fs::read_to_string(path).ok()?)
    }
}

/// A POM with its parents folded in and its properties resolved.
#[derive(Debug, Clone, Default)]
struct Model {
    group: String,
    artifact: String,
    /// Managed versions (and scopes) by group and artifact, nearest declaration first.
    managed: BTreeMap<(String, String), Dep>,
    dependencies: Vec<Dep>,
}

/// The local repository and what reading it found, shared by every model read.
struct Reader {
    repository: PathBuf,
    /// Parents and BOMs the repository lacks, said once each.
    missing_parents: BTreeSet<String>,
}

impl Reader {
    fn artifact_dir(&self, group: &str, artifact: &str) -> PathBuf {
        let mut dir = self.repository.clone();
        for part in group.split('.') {
            dir.push(part);
        }
        dir.join(artifact)
    }

    /// The effective model of the POM at `path`: its parents from `<relativePath>` (when that
    /// file is the named parent) or the local repository.
    fn model(&mut self, path: &Path, depth: usize) -> Option<Model> {
        let mut chain = vec![RawPom::read(path)?];
        let mut dir = path.parent().map(Path::to_path_buf);
        while chain.len() < MAX_PARENTS {
            let Some((group, artifact, version, relative)) = chain.last()?.parent.clone() else {
                break;
            };
            let on_disk = dir.as_ref().and_then(|d| {
                let relative = relative.as_deref().unwrap_or("../pom.xml");
                if relative.is_empty() {
                    return None;
                }
                let file = normalise(&d.join(relative));
                let file = if file.is_dir() {
                    file.join("pom.xml")
                } else {
                    file
                };
                let pom = RawPom::read(&file)?;
                (pom.artifact == artifact).then_some((file, pom))
            });
            let found = on_disk.or_else(|| {
                let file = self
                    .artifact_dir(&group, &artifact)
                    .join(&version)
                    .join(format!("{artifact}-{version}.pom"));
                RawPom::read(&file).map(|pom| (file, pom))
            });
            match found {
                Some((file, pom)) => {
                    dir = file.parent().map(Path::to_path_buf);
                    chain.push(pom);
                }
                None => {
                    self.missing_parents
                        .insert(format!("{group}:{artifact}:{version}"));
                    break;
                }
            }
        }
        Some(self.fold(&chain, depth))
    }

    /// Folds a POM and its ancestors (child first) into one model.
    fn fold(&mut self, chain: &[RawPom], depth: usize) -> Model {
        let own = &chain[0];
        let parent = own.parent.as_ref();
        let group = own
            .group
            .clone()
            .or_else(|| parent.map(|p| p.0.clone()))
            .unwrap_or_default();
        let version = own
            .version
            .clone()
            .or_else(|| parent.map(|p| p.2.clone()))
            .unwrap_or_default();
        let mut properties: BTreeMap<String, String> = BTreeMap::new();
        for pom in chain.iter().rev() {
            properties.extend(pom.properties.clone());
        }
        for prefix in ["project.", "pom.", ""] {
            properties.insert(format!("{prefix}groupId"), group.clone());
            properties.insert(format!("{prefix}artifactId"), own.artifact.clone());
            properties.insert(format!("{prefix}version"), version.clone());
        }
        if let Some((g, _, v, _)) = parent {
            for prefix in ["project.parent.", "parent."] {
                properties.insert(format!("{prefix}groupId"), g.clone());
                properties.insert(format!("{prefix}version"), v.clone());
            }
        }
        let resolve = |dep: &Dep| Dep {
            group: interpolate(&dep.group, &properties),
            artifact: interpolate(&dep.artifact, &properties),
            version: dep.version.as_ref().map(|v| interpolate(v, &properties)),
            scope: dep.scope.clone(),
            kind: dep.kind.as_ref().map(|v| interpolate(v, &properties)),
            classifier: dep.classifier.as_ref().map(|v| interpolate(v, &properties)),
            optional: dep.optional,
            exclusions: dep.exclusions.clone(),
        };
        let mut managed: BTreeMap<(String, String), Dep> = BTreeMap::new();
        let mut imports = Vec::new();
        for pom in chain {
            for dep in pom.managed.iter().map(resolve) {
                if dep.scope.as_deref() == Some("import") {
                    imports.push(dep);
                } else {
                    managed
                        .entry((dep.group.clone(), dep.artifact.clone()))
                        .or_insert(dep);
                }
            }
        }
        // Imported BOMs come after the POM's own management, in declaration order.
        for bom in imports {
            let Some(version) = bom.version.clone() else {
                continue;
            };
            let file = self
                .artifact_dir(&bom.group, &bom.artifact)
                .join(&version)
                .join(format!("{}-{version}.pom", bom.artifact));
            let imported = (depth < MAX_PARENTS)
                .then(|| self.model(&file, depth + 1))
                .flatten();
            match imported {
                Some(model) => {
                    for (key, dep) in model.managed {
                        managed.entry(key).or_insert(dep);
                    }
                }
                None => {
                    self.missing_parents
                        .insert(format!("{}:{}:{version}", bom.group, bom.artifact));
                }
            }
        }
        // Dependencies are inherited from the parents; the child's declaration wins. A version
        // or scope left out comes from the management.
        let mut dependencies: Vec<Dep> = Vec::new();
        for mut dep in chain
            .iter()
            .flat_map(|p| p.dependencies.iter())
            .map(resolve)
        {
            if let Some(entry) = managed.get(&(dep.group.clone(), dep.artifact.clone())) {
                dep.version = dep.version.or_else(|| entry.version.clone());
                dep.scope = dep.scope.or_else(|| entry.scope.clone());
            }
            if !dependencies.iter().any(|d| {
                d.group == dep.group && d.artifact == dep.artifact && d.classifier == dep.classifier
            }) {
                dependencies.push(dep);
            }
        }
        Model {
            group,
            artifact: own.artifact.clone(),
            managed,
            dependencies,
        }
    }
}

/// `${name}` replaced by the properties, repeatedly (properties may name properties); unknown
/// ones are left as written.
fn interpolate(value: &str, properties: &BTreeMap<String, String>) -> String {
    let mut value = value.to_string();
    for _ in 0..10 {
        let Some(start) = value.find("${") else {
            break;
        };
        let Some(length) = value[start..].find('}') else {
            break;
        };
        let name = &value[start + 2..start + length];
        let Some(replacement) = properties.get(name) else {
            break;
        };
        value.replace_range(start..start + length + 1, &replacement.clone());
    }
    value
}

/// The local repository Maven would use: `<localRepository>` of the settings file the user
/// gave, else of `~/.m2/settings.xml`, else `~/.m2/repository`.
pub fn local_repository(settings: &BuildToolSettings) -> PathBuf {
    let home = std::env::var_os("HOME")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/"));
    let files = [
        settings.maven_settings.clone(),
        Some(home.join(".m2/settings.xml")),
    ];
    for file in files.into_iter().flatten() {
        let Ok(text) = std::fs::read_to_string(&file) else {
            continue;
        };
        let Ok(root) = xml::parse(&text) else {
            continue;
        };
        if let Some(path) = root
            .child_text(&text, "localRepository")
            .filter(|p| !p.is_empty())
        {
            let path = path
                .replace("${user.home}", &home.display().to_string())
                .replace("${env.HOME}", &home.display().to_string());
            return PathBuf::from(path);
        }
    }
    home.join(".m2/repository")
}

/// A version's order: numbers compared as numbers, anything else as 0.
fn version_key(version: &str) -> Vec<u64> {
    version
        .split(['.', '-'])
        .map(|part| part.parse().unwrap_or(0))
        .collect()
}

/// A real version number, as opposed to Debian's `debian` and `4.x` placeholders.
fn is_numeric(version: &str) -> bool {
    version
        .split('.')
        .all(|part| part.starts_with(|c: char| c.is_ascii_digit()))
}

/// The version a range such as `[1.2,2.0)` starts from; a plain version as it is.
fn range_floor(version: &str) -> String {
    let trimmed = version.trim_matches(|c| matches!(c, '[' | ']' | '(' | ')'));
    trimmed
        .split(',')
        .map(str::trim)
        .find(|v| !v.is_empty())
        .unwrap_or(trimmed)
        .to_string()
}

/// What ended up on the classpath for one dependency.
struct Found {
    jar: PathBuf,
    version: String,
    pom: PathBuf,
}

impl Reader {
    /// The file of `dep` at `wanted` (or the closest version the repository holds: the highest
    /// below, else the lowest above, else a version directory such as Debian's `debian`).
    fn find(&self, dep: &Dep, wanted: Option<&str>) -> Option<Found> {
        let dir = self.artifact_dir(&dep.group, &dep.artifact);
        let extension = match dep.kind.as_deref() {
            None | Some("jar" | "bundle" | "maven-plugin" | "ejb") => "jar",
            Some("test-jar") => "jar",
            Some(other) => other,
        };
        let classifier = dep
            .classifier
            .clone()
            .or_else(|| (dep.kind.as_deref() == Some("test-jar")).then(|| "tests".to_string()));
        let file = |version: &str| {
            let suffix = classifier
                .as_ref()
                .map(|c| format!("-{c}"))
                .unwrap_or_default();
            let name = format!("{}-{version}{suffix}", dep.artifact);
            Found {
                jar: dir.join(version).join(format!("{name}.{extension}")),
                version: version.to_string(),
                pom: dir
                    .join(version)
                    .join(format!("{}-{version}.pom", dep.artifact)),
            }
        };
        if let Some(wanted) = wanted {
            let exact = file(wanted);
            if exact.jar.is_file() {
                return Some(exact);
            }
        }
        let mut versions: Vec<String> = std::fs::read_dir(&dir)
            .ok()?
            .filter_map(|e| e.ok())
            .filter_map(|e| e.file_name().to_str().map(str::to_string))
            .filter(|v| file(v).jar.is_file())
            .collect();
        versions.sort_by_key(|v| (is_numeric(v), version_key(v)));
        let numeric: Vec<&String> = versions.iter().filter(|v| is_numeric(v)).collect();
        let chosen = match wanted.filter(|w| is_numeric(w)) {
            Some(wanted) => {
                let key = version_key(wanted);
                numeric
                    .iter()
                    .rev()
                    .find(|v| version_key(v) < key)
                    .or_else(|| numeric.iter().find(|v| version_key(v) > key))
                    .copied()
            }
            None => numeric.last().copied(),
        };
        let chosen = chosen
            .or_else(|| versions.iter().find(|v| *v == "debian"))
            .or(versions.first())?;
        Some(file(chosen))
    }
}

/// What the fallback resolved for one module, with the sentence that tells the user.
#[derive(Debug, Clone)]
pub struct Fallback {
    pub module: ModuleClasspath,
    pub summary: String,
}

/// One dependency waiting to be resolved, with the exclusions of the path that led to it.
struct Pending {
    dep: Dep,
    depth: usize,
    exclusions: Vec<(String, String)>,
}

/// Resolves the classpath of the module in `dir` (one of `modules`, the build's module
/// directories) from the POMs and the local repository `repository`.
pub fn resolve(dir: &Path, modules: &[PathBuf], repository: &Path) -> Fallback {
    let mut reader = Reader {
        repository: repository.to_path_buf(),
        missing_parents: BTreeSet::new(),
    };
    // The reactor: every module's coordinates and model.
    let mut reactor: Vec<Option<Model>> = Vec::new();
    for module in modules {
        reactor.push(reader.model(&module.join("pom.xml"), 0));
    }
    let poms: Vec<Pom> = modules
        .iter()
        .map(|m| read_pom(m).unwrap_or_else(|_| Pom::parse("<project/>".into()).expect("valid")))
        .collect();
    let own_index = modules.iter().position(|m| m == dir);
    let own = match own_index.and_then(|i| reactor[i].clone()) {
        Some(model) => model,
        None => reader.model(&dir.join("pom.xml"), 0).unwrap_or_default(),
    };
    let sibling = |group: &str, artifact: &str| {
        reactor.iter().position(|m| {
            m.as_ref()
                .is_some_and(|m| m.group == group && m.artifact == artifact)
        })
    };

    let mut queue: VecDeque<Pending> = own
        .dependencies
        .iter()
        .filter(|d| {
            matches!(
                d.scope.as_deref().unwrap_or("compile"),
                "compile" | "provided" | "runtime" | "test" | "system"
            )
        })
        .map(|d| Pending {
            dep: d.clone(),
            depth: 0,
            exclusions: Vec::new(),
        })
        .collect();
    let mut seen: BTreeSet<(String, String, Option<String>)> = BTreeSet::new();
    let mut closure: Vec<(usize, bool)> = Vec::new();
    let mut jars: Vec<PathBuf> = Vec::new();
    let mut used: Vec<String> = Vec::new();
    let mut approximated: Vec<String> = Vec::new();
    let mut not_found: Vec<String> = Vec::new();
    let mut transitive = 0usize;
    let mut versions: BTreeMap<(String, String), String> = BTreeMap::new();
    let mut junit_checked = false;
    loop {
        let Some(Pending {
            dep,
            depth,
            exclusions,
        }) = queue.pop_front()
        else {
            // Verification needs the JUnit 5 engine and launcher, which projects leave to
            // Surefire: add those of the API's version when the repository has them.
            if junit_checked {
                break;
            }
            junit_checked = true;
            queue.extend(junit5_runtime(&seen, &versions));
            continue;
        };
        // A dependency on a module's tests is another artifact than one on the module.
        let classifier = dep
            .classifier
            .clone()
            .or_else(|| (dep.kind.as_deref() == Some("test-jar")).then(|| "tests".to_string()));
        let key = (dep.group.clone(), dep.artifact.clone(), classifier);
        if dep.group.is_empty() || !seen.insert(key) {
            continue;
        }
        let name = format!("{}:{}", dep.group, dep.artifact);
        if let Some(index) = sibling(&dep.group, &dep.artifact).filter(|i| Some(*i) != own_index) {
            let on_tests = dep.kind.as_deref() == Some("test-jar")
                || dep.classifier.as_deref() == Some("tests");
            closure.push((index, on_tests));
            if depth == 0 {
                used.push(format!("{} (sibling module sources)", dep.artifact));
            }
            let model = reactor[index].clone().unwrap_or_default();
            queue.extend(passed_on(&model, &dep, depth, &exclusions));
            continue;
        }
        if dep.scope.as_deref() == Some("system") {
            continue;
        }
        // The module's management decides the versions of what its dependencies bring.
        let managed_version = managed(&own, &dep).and_then(|m| m.version.clone());
        let version = if depth == 0 {
            dep.version.clone().or(managed_version)
        } else {
            managed_version.or_else(|| dep.version.clone())
        }
        .map(|v| range_floor(&v));
        let Some(found) = reader.find(&dep, version.as_deref()) else {
            not_found.push(match &version {
                Some(v) => format!("{name}:{v}"),
                None => name,
            });
            continue;
        };
        match &version {
            Some(v) if *v == found.version => {}
            Some(v) => approximated.push(format!("{name} {} for {v}", found.version)),
            None => approximated.push(format!("{name} {} (no version declared)", found.version)),
        }
        versions.insert(
            (dep.group.clone(), dep.artifact.clone()),
            found.version.clone(),
        );
        if depth == 0 {
            used.push(format!("{name} {}", found.version));
        } else {
            transitive += 1;
        }
        if dep.kind.as_deref() != Some("pom") && !jars.contains(&found.jar) {
            jars.push(found.jar.clone());
        }
        if depth < MAX_DEPTH {
            if let Some(model) = reader.model(&found.pom, 0) {
                queue.extend(passed_on(&model, &dep, depth, &exclusions));
            }
        }
    }

    let mut module = ModuleClasspath {
        classpath: jars,
        ..ModuleClasspath::default()
    };
    add_sources_and_resources(&mut module, dir, &closure, modules, &poms);
    let mut summary = format!(
        "ctgls uses the POMs' declared dependencies from the local repository {} instead: {}",
        repository.display(),
        if used.is_empty() {
            "none".to_string()
        } else {
            used.join(", ")
        }
    );
    if transitive > 0 {
        summary.push_str(&format!(", and {transitive} of their dependencies"));
    }
    if !approximated.is_empty() {
        summary.push_str(&format!("; other versions: {}", approximated.join(", ")));
    }
    if !not_found.is_empty() {
        summary.push_str(&format!("; not found: {}", not_found.join(", ")));
    }
    if !reader.missing_parents.is_empty() {
        let missing: Vec<String> = reader.missing_parents.iter().cloned().collect();
        summary.push_str(&format!(
            "; parent or imported POMs not found (their settings are ignored): {}",
            missing.join(", ")
        ));
    }
    Fallback { module, summary }
}

/// The management entry for `dep` in the module's model.
fn managed<'a>(own: &'a Model, dep: &Dep) -> Option<&'a Dep> {
    own.managed.get(&(dep.group.clone(), dep.artifact.clone()))
}

/// The dependencies `model` (reached through `through`) passes on: compile and runtime scope,
/// not optional, not excluded on the way.
fn passed_on(
    model: &Model,
    through: &Dep,
    depth: usize,
    exclusions: &[(String, String)],
) -> Vec<Pending> {
    let mut exclusions = exclusions.to_vec();
    exclusions.extend(through.exclusions.iter().cloned());
    let excluded = |d: &Dep| {
        exclusions
            .iter()
            .any(|(g, a)| (g == "*" || *g == d.group) && (a == "*" || *a == d.artifact))
    };
    model
        .dependencies
        .iter()
        .filter(|d| {
            matches!(
                d.scope.as_deref().unwrap_or("compile"),
                "compile" | "runtime"
            )
        })
        .filter(|d| !d.optional && !excluded(d))
        .map(|d| Pending {
            dep: d.clone(),
            depth: depth + 1,
            exclusions: exclusions.clone(),
        })
        .collect()
}

/// The JUnit Jupiter engine and Platform launcher to add when the JUnit Jupiter API was
/// resolved without them (of the versions released with the API's).
fn junit5_runtime(
    seen: &BTreeSet<(String, String, Option<String>)>,
    versions: &BTreeMap<(String, String), String>,
) -> Vec<Pending> {
    let has = |g: &str, a: &str| seen.contains(&(g.to_string(), a.to_string(), None));
    let Some(version) = versions
        .get(&(
            "org.junit.jupiter".to_string(),
            "junit-jupiter-api".to_string(),
        ))
        .cloned()
    else {
        return Vec::new();
    };
    let api = Dep {
        group: "org.junit.jupiter".into(),
        artifact: "junit-jupiter-api".into(),
        version: None,
        scope: None,
        kind: None,
        classifier: None,
        optional: false,
        exclusions: Vec::new(),
    };
    let platform = match version.strip_prefix("5.") {
        Some(rest) => format!("1.{rest}"),
        None => version.clone(),
    };
    let mut wanted = Vec::new();
    for (group, artifact, version) in [
        ("org.junit.jupiter", "junit-jupiter-engine", version.clone()),
        ("org.junit.platform", "junit-platform-launcher", platform),
    ] {
        if !has(group, artifact) {
            wanted.push(Pending {
                dep: Dep {
                    group: group.into(),
                    artifact: artifact.into(),
                    version: Some(version),
                    ..api.clone()
                },
                depth: 1,
                exclusions: Vec::new(),
            });
        }
    }
    wanted
}

#[cfg(test)]
#[path = "pom_fallback_tests.rs"]
mod tests;
