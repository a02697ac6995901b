//! The build tool's classpath with the real tools: Debian's `mvn` against Debian's Maven
//! repository (`/usr/share/maven-repo`, through a `settings.xml` that makes it the local
//! repository and Maven offline) and Debian's `gradle`. `tests/run.sh` installs them.
//!
//! Each test's Maven runs through a wrapper script that counts its runs, so that "the second
//! resolution comes from the cache" is a fact about processes, not about timing.

use std::path::{Path, PathBuf};

use ctg::buildtool::{self, BuildToolSettings, Tool};
use ctg::project::{LayoutOverrides, ProjectLayout};

const REPOSITORY: &str = "/usr/share/maven-repo";

/// A scratch directory removed on drop.
struct Scratch(PathBuf);

impl Scratch {
    fn new(name: &str) -> Scratch {
        let dir = std::env::temp_dir().join(format!("ctg-buildtool-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("scratch dir");
        Scratch(std::fs::canonicalize(&dir).expect("canonical"))
    }

    fn write(&self, relative: &str, text: &str) -> PathBuf {
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

/// Settings as a user with Debian's repository as local repository would have them: offline,
/// `-s settings.xml`, and `mvn` wrapped so that its runs are counted in `<dir>/mvn-runs`.
fn maven_settings(dir: &Scratch) -> BuildToolSettings {
    let settings = dir.write(
        "home/settings.xml",
        &format!(
            "<settings><offline>true</offline><localRepository>{REPOSITORY}</localRepository></settings>\n"
        ),
    );
    let counter = dir.0.join("mvn-runs");
    let wrapper = dir.write(
        "bin/mvn",
        &format!(
            "#!/bin/sh\necho run >> '{}'\nexec mvn \"$@\"\n",
            counter.display()
        ),
    );
    make_executable(&wrapper);
    BuildToolSettings {
        maven_executable: Some(wrapper),
        maven_settings: Some(settings),
        cache_dir: dir.0.join("cache"),
        ..BuildToolSettings::default()
    }
}

fn make_executable(path: &Path) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).expect("chmod");
}

fn runs(dir: &Scratch) -> usize {
    std::fs::read_to_string(dir.0.join("mvn-runs"))
        .map(|t| t.lines().count())
        .unwrap_or(0)
}

fn names(classpath: &[PathBuf]) -> Vec<String> {
    classpath
        .iter()
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect()
}

const LANG: &str = "<dependency><groupId>org.apache.commons</groupId>\
    <artifactId>commons-lang3</artifactId><version>3.12.0</version></dependency>";
const JUNIT4: &str = "<dependency><groupId>junit</groupId><artifactId>junit</artifactId>\
    <version>4.13.2</version><scope>test</scope></dependency>";

fn pom(coordinates: &str, body: &str) -> String {
    format!(
        "<?xml version=\"1.0\"?>\n<project xmlns=\"http://maven.apache.org/POM/4.0.0\">\n  \
         <modelVersion>4.0.0</modelVersion>\n  {coordinates}\n  {body}\n</project>\n"
    )
}

#[test]
fn a_maven_module_gets_its_dependencies_once_then_from_the_cache() {
    let dir = Scratch::new("single");
    let project = dir.0.join("lang");
    dir.write(
        "lang/pom.xml",
        &pom(
            "<groupId>com.acme</groupId><artifactId>lang</artifactId><version>1.0</version>",
            &format!("<dependencies>{LANG}{JUNIT4}</dependencies>"),
        ),
    );
    dir.write(
        "lang/src/main/java/com/acme/Names.java",
        "package com.acme; class Names {}",
    );
    dir.write("lang/lib/guessed.jar", "");
    let settings = maven_settings(&dir);
    let mut layout = ProjectLayout::discover(&project, &LayoutOverrides::default());
    assert_eq!(
        names(&layout.classpath),
        ["guessed.jar"],
        "the guess before Maven is asked"
    );

    let mut started = Vec::new();
    let resolution =
        buildtool::resolve_into(&mut layout, 0, &settings, &mut |tool| started.push(tool))
            .expect("a Maven project");
    let module = resolution
        .outcome
        .expect("resolved offline from Debian's repository");
    assert!(!resolution.cached);
    assert_eq!(started, [Tool::Maven]);
    assert_eq!(runs(&dir), 1);
    assert_eq!(
        names(&module.classpath),
        [
            "commons-lang3-3.12.0.jar",
            "junit-4.13.2.jar",
            "hamcrest-debian.jar"
        ]
    );
    assert!(module.classpath.iter().all(|p| p.starts_with(REPOSITORY)));
    // Maven's classpath replaces the guess.
    assert_eq!(layout.classpath, module.classpath);

    // The same build files: the cache answers and Maven does not start.
    let mut layout = ProjectLayout::discover(&project, &LayoutOverrides::default());
    let again = buildtool::resolve_into(&mut layout, 0, &settings, &mut |_| panic!("mvn started"))
        .expect("a Maven project");
    assert!(again.cached);
    assert_eq!(again.outcome.expect("cached"), module);
    assert_eq!(runs(&dir), 1);
    assert_eq!(std::fs::read_dir(dir.0.join("cache")).unwrap().count(), 1);

    // A changed POM is asked again.
    dir.write(
        "lang/pom.xml",
        &pom(
            "<groupId>com.acme</groupId><artifactId>lang</artifactId><version>1.0</version>",
            &format!("<dependencies>{LANG}</dependencies>"),
        ),
    );
    let changed = buildtool::resolve(&layout, &settings, &mut |_| {}).expect("a Maven project");
    assert!(!changed.cached);
    assert_eq!(
        names(&changed.outcome.unwrap().classpath),
        ["commons-lang3-3.12.0.jar"]
    );
    assert_eq!(runs(&dir), 2);
}

#[test]
fn a_module_depending_on_a_sibling_never_built_gets_its_sources_and_dependencies() {
    let dir = Scratch::new("multi");
    dir.write(
        "shop/pom.xml",
        &pom(
            "<groupId>com.acme</groupId><artifactId>parent</artifactId><version>1.0</version>\
             <packaging>pom</packaging>",
            "<modules><module>a</module><module>b</module><module>c</module></modules>\
             <properties><lang.version>3.12.0</lang.version></properties>",
        ),
    );
    let parent = "<parent><groupId>com.acme</groupId><artifactId>parent</artifactId>\
                  <version>1.0</version></parent>";
    dir.write(
        "shop/a/pom.xml",
        &pom(
            &format!("{parent}<artifactId>a</artifactId>"),
            "<dependencies><dependency><groupId>org.apache.commons</groupId>\
             <artifactId>commons-lang3</artifactId><version>${lang.version}</version>\
             </dependency>\
             <dependency><groupId>junit</groupId><artifactId>junit</artifactId>\
             <version>4.13.2</version><scope>test</scope></dependency></dependencies>",
        ),
    );
    dir.write(
        "shop/a/src/main/java/com/acme/a/Text.java",
        "package com.acme.a; public class Text {}",
    );
    dir.write("shop/a/src/main/resources/a.properties", "x=1");
    dir.write(
        "shop/b/pom.xml",
        &pom(
            &format!("{parent}<artifactId>b</artifactId>"),
            "<dependencies><dependency><groupId>${project.groupId}</groupId>\
             <artifactId>a</artifactId><version>${project.version}</version></dependency>\
             </dependencies>",
        ),
    );
    dir.write(
        "shop/b/src/main/java/com/acme/b/Uses.java",
        "package com.acme.b; class Uses {}",
    );
    // c lacks a dependency: the build fails at its end, the other modules are answered.
    dir.write(
        "shop/c/pom.xml",
        &pom(
            &format!("{parent}<artifactId>c</artifactId>"),
            "<dependencies><dependency><groupId>org.example.absent</groupId>\
             <artifactId>nowhere</artifactId><version>2.1</version></dependency></dependencies>",
        ),
    );
    let settings = maven_settings(&dir);
    let b = dir.0.join("shop/b");
    let mut layout = ProjectLayout::discover(&b, &LayoutOverrides::default());
    let resolution =
        buildtool::resolve_into(&mut layout, 0, &settings, &mut |_| {}).expect("a Maven project");
    let module = resolution
        .outcome
        .expect("b resolves although a was never built");
    // a's compile dependency passes on, its test dependency does not.
    assert_eq!(
        names(&module.classpath),
        ["commons-lang3-3.12.0.jar", "resources"]
    );
    assert_eq!(module.classpath[1], dir.0.join("shop/a/src/main/resources"));
    assert_eq!(module.sibling_sources, [dir.0.join("shop/a/src/main/java")]);
    assert_eq!(
        layout.source_roots,
        [b.join("src/main/java"), dir.0.join("shop/a/src/main/java")]
    );
    // One run answered for every module: a comes from the cache.
    let a = ProjectLayout::discover(&dir.0.join("shop/a"), &LayoutOverrides::default());
    let resolution = buildtool::resolve(&a, &settings, &mut |_| panic!("mvn started")).unwrap();
    assert!(resolution.cached);
    assert_eq!(
        names(&resolution.outcome.unwrap().classpath),
        [
            "commons-lang3-3.12.0.jar",
            "junit-4.13.2.jar",
            "hamcrest-debian.jar",
            "resources"
        ]
    );
    assert_eq!(runs(&dir), 1);
    assert!(!dir.0.join("shop/a/target").exists(), "nothing was built");
    // c is not in the cache: asked again, it fails again, naming what is missing.
    let c = ProjectLayout::discover(&dir.0.join("shop/c"), &LayoutOverrides::default());
    let error = buildtool::resolve(&c, &settings, &mut |_| {})
        .unwrap()
        .outcome
        .unwrap_err();
    assert!(
        error
            .detail
            .contains("lacks org.example.absent:nowhere:jar:2.1"),
        "{}",
        error.detail
    );
    assert_eq!(runs(&dir), 2);
}

#[test]
fn a_dependency_missing_offline_is_named_with_what_to_do_and_not_cached() {
    let dir = Scratch::new("missing");
    let project = dir.0.join("p");
    dir.write(
        "p/pom.xml",
        &pom(
            "<groupId>com.acme</groupId><artifactId>p</artifactId><version>1.0</version>",
            &format!(
                "<dependencies>{LANG}<dependency><groupId>org.example.absent</groupId>\
                 <artifactId>nowhere</artifactId><version>2.1</version></dependency>\
                 </dependencies>"
            ),
        ),
    );
    dir.write("p/src/main/java/p/A.java", "package p; class A {}");
    dir.write("p/lib/guessed.jar", "");
    let settings = maven_settings(&dir);
    let mut layout = ProjectLayout::discover(&project, &LayoutOverrides::default());
    let guessed = layout.clone();
    let resolution =
        buildtool::resolve_into(&mut layout, 0, &settings, &mut |_| {}).expect("a Maven project");
    let error = resolution
        .outcome
        .expect_err("the artifact is in no repository");
    let text = error.to_string();
    assert!(
        text.starts_with(
            "Maven could not give the classpath: the local repository lacks \
             org.example.absent:nowhere:jar:2.1 (Maven said: "
        ),
        "{text}"
    );
    assert!(text.contains("offline mode"), "{text}");
    assert!(
        text.contains("Run `mvn dependency:resolve` once online in"),
        "{text}"
    );
    assert!(text.contains("`buildToolOffline: false`"), "{text}");
    // Instead of the guess, the POM's declared dependencies that the local repository holds,
    // and the user is told which.
    assert!(
        text.contains(&format!(
            "Until then ctgls uses the POMs' declared dependencies from the local repository \
             {REPOSITORY} instead: org.apache.commons:commons-lang3 3.12.0; not found: \
             org.example.absent:nowhere:2.1."
        )),
        "{text}"
    );
    assert_ne!(layout, guessed);
    assert_eq!(
        names(&layout.classpath),
        ["commons-lang3-3.12.0.jar"],
        "the fallback replaces the guessed lib/ jar"
    );
    assert_eq!(
        resolution.fallback.as_ref().map(|m| m.classpath.len()),
        Some(1)
    );
    // The failure is asked again next time.
    buildtool::resolve(&layout, &settings, &mut |_| {})
        .unwrap()
        .outcome
        .unwrap_err();
    assert_eq!(runs(&dir), 2);
}

#[test]
fn the_builds_maven_config_applies() {
    let dir = Scratch::new("maven-config");
    dir.write(
        "p/pom.xml",
        &pom(
            "<groupId>com.acme</groupId><artifactId>p</artifactId><version>1.0</version>",
            "<dependencies><dependency><groupId>org.apache.commons</groupId>\
             <artifactId>commons-lang3</artifactId><version>${lang.version}</version>\
             </dependency></dependencies>",
        ),
    );
    // The version comes from `.mvn/maven.config` only, as in builds that set it for CI.
    dir.write("p/.mvn/maven.config", "-Dlang.version=3.12.0\n");
    let settings = maven_settings(&dir);
    let layout = ProjectLayout::discover(&dir.0.join("p"), &LayoutOverrides::default());
    let module = buildtool::resolve(&layout, &settings, &mut |_| {})
        .unwrap()
        .outcome
        .expect("resolved with the build's maven.config");
    assert_eq!(names(&module.classpath), ["commons-lang3-3.12.0.jar"]);
}

#[test]
fn a_missing_maven_is_named() {
    let dir = Scratch::new("no-mvn");
    dir.write(
        "p/pom.xml",
        &pom(
            "<groupId>g</groupId><artifactId>p</artifactId><version>1</version>",
            "",
        ),
    );
    let settings = BuildToolSettings {
        maven_executable: Some(dir.0.join("bin/no-such-mvn")),
        cache_dir: dir.0.join("cache"),
        ..BuildToolSettings::default()
    };
    let layout = ProjectLayout::discover(&dir.0.join("p"), &LayoutOverrides::default());
    let error = buildtool::resolve(&layout, &settings, &mut |_| {})
        .unwrap()
        .outcome
        .unwrap_err();
    assert!(
        error.detail.ends_with("no-such-mvn` was not found"),
        "{}",
        error.detail
    );
    assert!(
        error.advice.contains("`mavenExecutable`"),
        "{}",
        error.advice
    );
}

#[test]
fn a_junit5_project_gets_an_engine_and_a_launcher_for_verification() {
    let dir = Scratch::new("junit5");
    dir.write(
        "p/pom.xml",
        &pom(
            "<groupId>com.acme</groupId><artifactId>p</artifactId><version>1.0</version>",
            "<dependencies><dependency><groupId>org.junit.jupiter</groupId>\
             <artifactId>junit-jupiter-api</artifactId><version>5.9.2</version>\
             <scope>test</scope></dependency></dependencies>",
        ),
    );
    let settings = maven_settings(&dir);
    let layout = ProjectLayout::discover(&dir.0.join("p"), &LayoutOverrides::default());
    let module = buildtool::resolve(&layout, &settings, &mut |_| {})
        .unwrap()
        .outcome
        .expect("resolved");
    let names = names(&module.classpath);
    assert_eq!(names[0], "junit-jupiter-api-5.9.2.jar", "{names:?}");
    // Debian's repository has no launcher 1.9.2: the closest one it holds is taken.
    for jar in [
        "junit-jupiter-engine-5.9.2.jar",
        "junit-platform-launcher-1.9.1.jar",
        "junit-platform-engine-debian.jar",
        "junit-platform-commons-debian.jar",
        "opentest4j-debian.jar",
    ] {
        assert!(
            names.iter().any(|n| n == jar),
            "{jar} missing from {names:?}"
        );
    }
    assert!(module.notes.is_empty(), "{:?}", module.notes);
}

#[test]
fn a_gradle_build_with_a_sibling_project() {
    let dir = Scratch::new("gradle");
    dir.write("g/settings.gradle", "include 'a', 'b'\n");
    // No daemon left running after the test (users keep Gradle's default).
    dir.write("g/gradle.properties", "org.gradle.daemon=false\n");
    dir.write(
        "g/a/build.gradle",
        &format!(
            "apply plugin: 'java'\nrepositories {{ maven {{ url '{REPOSITORY}' }} }}\n\
             dependencies {{ compile 'org.apache.commons:commons-lang3:3.12.0' }}\n"
        ),
    );
    dir.write("g/a/src/main/java/p/A.java", "package p; public class A {}");
    dir.write(
        "g/b/build.gradle",
        &format!(
            "apply plugin: 'java'\nrepositories {{ maven {{ url '{REPOSITORY}' }} }}\n\
             dependencies {{ compile project(':a')\n testCompile 'junit:junit:4.13.2' }}\n"
        ),
    );
    dir.write("g/b/src/main/java/q/B.java", "package q; class B {}");
    let settings = BuildToolSettings {
        cache_dir: dir.0.join("cache"),
        ..BuildToolSettings::default()
    };
    let b = dir.0.join("g/b");
    let mut layout = ProjectLayout::discover(&b, &LayoutOverrides::default());
    let resolution =
        buildtool::resolve_into(&mut layout, 0, &settings, &mut |_| {}).expect("a Gradle project");
    assert_eq!(resolution.tool, Tool::Gradle);
    let module = resolution
        .outcome
        .expect("Gradle resolves offline from a file repository");
    assert_eq!(module.sibling_sources, [dir.0.join("g/a/src/main/java")]);
    // Gradle names the jars by their real paths: Debian's repository links to /usr/share/java.
    let names = names(&module.classpath);
    for jar in ["commons-lang3", "junit"] {
        assert!(
            names.iter().any(|n| n.starts_with(jar)),
            "{jar} missing from {names:?}"
        );
    }
    assert!(layout
        .source_roots
        .contains(&dir.0.join("g/a/src/main/java")));
    let again = buildtool::resolve(&layout, &settings, &mut |_| panic!("gradle started")).unwrap();
    assert!(again.cached);
}

/// A multi-module build whose parent POM pins a parent the local repository lacks (as real
/// projects pin `commons-parent` or `oss-parent`): Maven fails on every module, and the POMs'
/// own declarations give module b its sibling a's sources and the closest commons-lang3 the
/// repository holds.
fn write_unresolvable_build(dir: &Scratch) -> PathBuf {
    dir.write(
        "shop/pom.xml",
        &pom(
            "<parent><groupId>org.example.absent</groupId><artifactId>corporate-parent</artifactId>\
             <version>52</version></parent><groupId>com.acme</groupId><artifactId>shop</artifactId>\
             <version>1.0</version><packaging>pom</packaging>",
            "<properties><lang.version>3.14.0</lang.version></properties>\
             <modules><module>a</module><module>b</module></modules>\
             <dependencyManagement><dependencies><dependency><groupId>org.apache.commons</groupId>\
             <artifactId>commons-lang3</artifactId><version>${lang.version}</version></dependency>\
             </dependencies></dependencyManagement>",
        ),
    );
    let parent = "<parent><groupId>com.acme</groupId><artifactId>shop</artifactId>\
                  <version>1.0</version></parent><artifactId>{}</artifactId>";
    dir.write("shop/a/pom.xml", &pom(&parent.replace("{}", "a"), ""));
    dir.write(
        "shop/a/src/main/java/com/acme/a/Prefix.java",
        "package com.acme.a;\n\npublic final class Prefix {\n    private Prefix() {}\n\n    \
         public static String of(String s) {\n        return \"> \" + s;\n    }\n}\n",
    );
    dir.write(
        "shop/b/pom.xml",
        &pom(
            &parent.replace("{}", "b"),
            "<dependencies><dependency><groupId>${project.groupId}</groupId>\
             <artifactId>a</artifactId><version>${project.version}</version></dependency>\
             <dependency><groupId>org.apache.commons</groupId>\
             <artifactId>commons-lang3</artifactId></dependency>\
             <dependency><groupId>junit</groupId><artifactId>junit</artifactId>\
             <version>4.12</version><scope>test</scope></dependency></dependencies>",
        ),
    );
    dir.0.join("shop/b")
}

#[test]
fn when_maven_fails_the_poms_declarations_give_the_classpath() {
    let dir = Scratch::new("fallback");
    let module = write_unresolvable_build(&dir);
    let settings = maven_settings(&dir);
    let mut layout = ProjectLayout::discover(&module, &LayoutOverrides::default());
    let resolution =
        buildtool::resolve_into(&mut layout, 0, &settings, &mut |_| {}).expect("a Maven project");
    assert_eq!(runs(&dir), 1, "Maven was asked first");
    let error = resolution
        .outcome
        .expect_err("Maven cannot read the parent");
    assert!(
        error.detail.contains("corporate-parent"),
        "{}",
        error.detail
    );
    let fallback = resolution.fallback.expect("the POMs' declarations");
    // The declared 3.14.0 is not in Debian's repository: 3.12.0 is the closest below; JUnit
    // 4.12 neither: 4.13.2 is the closest above, with its hamcrest.
    assert_eq!(
        names(&fallback.classpath),
        [
            "commons-lang3-3.12.0.jar",
            "junit-4.13.2.jar",
            "hamcrest-debian.jar"
        ]
    );
    assert_eq!(
        fallback.sibling_sources,
        [dir.0.join("shop/a/src/main/java")]
    );
    assert!(layout
        .classpath
        .iter()
        .any(|p| p.ends_with("commons-lang3-3.12.0.jar")));
    assert!(layout
        .source_roots
        .contains(&dir.0.join("shop/a/src/main/java")));
    let text = error.to_string();
    for said in [
        "Until then ctgls uses the POMs' declared dependencies from the local repository",
        "instead: a (sibling module sources), org.apache.commons:commons-lang3 3.12.0, junit:junit 4.13.2",
        "other versions: org.apache.commons:commons-lang3 3.12.0 for 3.14.0, junit:junit 4.13.2 for 4.12",
        "parent or imported POMs not found (their settings are ignored): \
         org.example.absent:corporate-parent:52",
    ] {
        assert!(text.contains(said), "{said}\n{text}");
    }
}
