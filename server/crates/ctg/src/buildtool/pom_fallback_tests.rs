//! The POM fallback on real files: a local repository in Maven's layout and a multi-module
//! build written into a temporary directory.

use super::*;

/// A temporary directory removed on drop.
struct Temp(PathBuf);

impl Temp {
    fn new(name: &str) -> Temp {
        let dir = std::env::temp_dir().join(format!("ctg-pomfb-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Temp(dir)
    }

    fn write(&self, relative: &str, text: &str) -> PathBuf {
        let path = self.0.join(relative);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, text).unwrap();
        path
    }

    /// An artifact in the repository under `repo/`: its POM (with `body` inside `<project>`)
    /// and, unless `jar` is false, its jar.
    fn artifact(&self, group: &str, artifact: &str, version: &str, body: &str, jar: bool) {
        let dir = format!("repo/{}/{artifact}/{version}", group.replace('.', "/"));
        self.write(
            &format!("{dir}/{artifact}-{version}.pom"),
            &format!(
                "<project><modelVersion>4.0.0</modelVersion><groupId>{group}</groupId>\
                 <artifactId>{artifact}</artifactId><version>{version}</version>{body}</project>\n"
            ),
        );
        if jar {
            self.write(&format!("{dir}/{artifact}-{version}.jar"), "PK");
        }
    }

    fn jar(&self, group: &str, artifact: &str, version: &str) -> PathBuf {
        self.0.join(format!(
            "repo/{}/{artifact}/{version}/{artifact}-{version}.jar",
            group.replace('.', "/")
        ))
    }
}

impl Drop for Temp {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn dep(group: &str, artifact: &str, extra: &str) -> String {
    format!("<dependency><groupId>{group}</groupId><artifactId>{artifact}</artifactId>{extra}</dependency>")
}

#[test]
fn a_module_gets_its_sibling_sources_and_the_repository_jars_with_theirs() {
    let t = Temp::new("multi");
    // lib 1.0 needs dep 2.0 (the repository has 1.5 and 2.5: 1.5 is used), an optional and a
    // test dependency (left out) and one its user excludes.
    t.artifact(
        "org.x",
        "lib",
        "1.0",
        &format!(
            "<dependencies>{}{}{}{}</dependencies>",
            dep("org.x", "dep", "<version>2.0</version>"),
            dep(
                "org.x",
                "opt",
                "<version>1.0</version><optional>true</optional>"
            ),
            dep(
                "org.x",
                "testonly",
                "<version>1.0</version><scope>test</scope>"
            ),
            dep("org.x", "excluded", "<version>1.0</version>"),
        ),
        true,
    );
    for version in ["1.5", "2.5"] {
        t.artifact("org.x", "dep", version, "", true);
    }
    for name in ["opt", "testonly", "excluded"] {
        t.artifact("org.x", name, "1.0", "", true);
    }
    // A managed version comes from a BOM the parent imports.
    t.artifact(
        "org.x",
        "bom",
        "3",
        &format!(
            "<packaging>pom</packaging><dependencyManagement><dependencies>{}</dependencies>\
             </dependencyManagement>",
            dep("org.x", "managed", "<version>4.1</version>")
        ),
        false,
    );
    t.artifact("org.x", "managed", "4.1", "", true);
    // Only a version directory like Debian's, and a POM-only one.
    t.artifact("org.x", "junit-like", "debian", "", true);
    t.artifact("org.x", "junit-like", "4.x", "", false);

    t.write(
        "build/pom.xml",
        &format!(
            "<project><modelVersion>4.0.0</modelVersion>\
             <parent><groupId>org.absent</groupId><artifactId>super</artifactId><version>1\
             </version></parent><groupId>com.acme</groupId><artifactId>build</artifactId>\
             <version>2.0</version><packaging>pom</packaging>\
             <properties><lib.version>1.${{minor}}</lib.version><minor>0</minor></properties>\
             <modules><module>a</module><module>b</module></modules>\
             <dependencyManagement><dependencies>{}</dependencies></dependencyManagement>\
             </project>\n",
            dep(
                "org.x",
                "bom",
                "<version>3</version><type>pom</type><scope>import</scope>"
            )
        ),
    );
    let parent = "<parent><groupId>com.acme</groupId><artifactId>build</artifactId>\
                  <version>2.0</version></parent>";
    t.write(
        "build/a/pom.xml",
        &format!(
            "<project>{parent}<artifactId>a</artifactId><dependencies>{}</dependencies></project>\n",
            dep(
                "org.x",
                "lib",
                "<version>${lib.version}</version><exclusions><exclusion><groupId>org.x\
                 </groupId><artifactId>excluded</artifactId></exclusion></exclusions>"
            )
        ),
    );
    t.write(
        "build/a/src/main/java/a/A.java",
        "package a; public class A {}\n",
    );
    t.write(
        "build/b/pom.xml",
        &format!(
            "<project>{parent}<artifactId>b</artifactId><dependencies>{}{}{}{}</dependencies>\
             </project>\n",
            dep(
                "${project.groupId}",
                "a",
                "<version>${project.version}</version>"
            ),
            dep("org.x", "managed", ""),
            dep(
                "org.x",
                "junit-like",
                "<version>4.12</version><scope>test</scope>"
            ),
            dep("org.x", "missing", "<version>9</version>"),
        ),
    );
    let build = t.0.join("build");
    let modules = vec![build.clone(), build.join("a"), build.join("b")];
    let fallback = resolve(&build.join("b"), &modules, &t.0.join("repo"));

    assert_eq!(
        fallback.module.classpath,
        [
            t.jar("org.x", "managed", "4.1"),
            t.jar("org.x", "junit-like", "debian"),
            t.jar("org.x", "lib", "1.0"),
            t.jar("org.x", "dep", "1.5"),
        ]
    );
    assert_eq!(
        fallback.module.sibling_sources,
        [build.join("a/src/main/java")]
    );
    let summary = &fallback.summary;
    assert!(
        summary.contains("instead: a (sibling module sources), org.x:managed 4.1, org.x:junit-like debian, and 2 of their dependencies"),
        "{summary}"
    );
    assert!(
        summary.contains("other versions: org.x:junit-like debian for 4.12, org.x:dep 1.5 for 2.0"),
        "{summary}"
    );
    assert!(summary.contains("not found: org.x:missing:9"), "{summary}");
    assert!(
        summary.contains("not found (their settings are ignored): org.absent:super:1"),
        "{summary}"
    );
}

#[test]
fn the_closest_version_is_below_else_above() {
    let t = Temp::new("closest");
    for version in ["1.2", "1.10", "1.x", "2.0", "debian"] {
        t.artifact("g", "a", version, "", true);
    }
    let reader = Reader {
        repository: t.0.join("repo"),
        missing_parents: BTreeSet::new(),
    };
    let wanted = Dep {
        group: "g".into(),
        artifact: "a".into(),
        version: None,
        scope: None,
        kind: None,
        classifier: None,
        optional: false,
        exclusions: Vec::new(),
    };
    let found = |v: Option<&str>| reader.find(&wanted, v).map(|f| f.version);
    assert_eq!(found(Some("1.10")).as_deref(), Some("1.10"));
    assert_eq!(found(Some("1.9")).as_deref(), Some("1.2"));
    assert_eq!(found(Some("1.11")).as_deref(), Some("1.10"));
    assert_eq!(found(Some("1.0")).as_deref(), Some("1.2"));
    assert_eq!(found(None).as_deref(), Some("2.0"));
    let other = Dep {
        artifact: "nothing".into(),
        ..wanted.clone()
    };
    assert!(reader.find(&other, Some("1.0")).is_none());
}

#[test]
fn version_ranges_start_from_their_floor() {
    assert_eq!(range_floor("[1.10,2.0)"), "1.10");
    assert_eq!(range_floor("(,2.0]"), "2.0");
    assert_eq!(range_floor("3.1"), "3.1");
}

#[test]
fn properties_name_properties() {
    let properties: BTreeMap<String, String> = [
        ("a".to_string(), "${b}.1".to_string()),
        ("b".to_string(), "4".to_string()),
    ]
    .into();
    assert_eq!(interpolate("v${a}", &properties), "v4.1");
    assert_eq!(interpolate("${unknown}", &properties), "${unknown}");
}

#[test]
fn the_local_repository_comes_from_the_settings_the_user_gave() {
    let t = Temp::new("settings");
    let file = t.write(
        "settings.xml",
        "<settings><localRepository>/srv/m2</localRepository></settings>",
    );
    let settings = BuildToolSettings {
        maven_settings: Some(file),
        ..BuildToolSettings::default()
    };
    assert_eq!(local_repository(&settings), PathBuf::from("/srv/m2"));
}
