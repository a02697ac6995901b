//! Shared setup of the emit and verify tests: the real worker with a compiled subject, the
//! project classes verification compiles, temporary projects, and expected-source fixtures.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::time::Duration;

use ctg::cluster::{build_cluster, describe_for_cluster, DEFAULT_DESCRIBE_DEPTH};
use ctg::emit::type_facts;
use ctg::project::{BuildSystem, ProjectLayout};
use ctg::verify::ProjectClasses;
use jvm::{CompileRequest, ExecuteOptions, SourceFile, Supervisor, UnitId, WorkerConfig};
use testcase::junit::TypeFacts;
use testcase::{Cluster, ConstantPool};

pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../..")
}

pub fn bank_root() -> PathBuf {
    repo_root().join("tests/projects/bank/src/main/java")
}

pub fn fixture_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/emit")
}

/// Every `.java` file under `root`, sorted.
pub fn java_files(root: &Path) -> Vec<PathBuf> {
    files_where(root, |path| path.extension().is_some_and(|e| e == "java"))
}

/// Every file under `root` that `keep` accepts, sorted.
pub fn files_where(root: &Path, keep: impl Fn(&Path) -> bool) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if keep(&path) {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

pub fn bank_project() -> ProjectClasses {
    ProjectClasses {
        sources: java_files(&bank_root()),
        classpath: Vec::new(),
        overlays: Default::default(),
    }
}

pub fn execute_options() -> ExecuteOptions {
    ExecuteOptions {
        timeout_per_test: Duration::from_secs(2),
        ..ExecuteOptions::default()
    }
}

/// The worker with a project's sources compiled (uninstrumented), and what the printer may
/// know about its classes.
pub struct Subject {
    pub sup: Supervisor,
    pub unit: UnitId,
    pub sources: Vec<SourceFile>,
    pub facts: TypeFacts,
}

impl Subject {
    pub fn new(root: &Path) -> Subject {
        // The worker cache the jvm crate's tests use: whoever comes first builds it.
        let mut sup = Supervisor::new(WorkerConfig {
            cache_dir: Some(std::env::temp_dir().join("ctgls-jvm-tests-cache")),
            heap_mb: 128,
            ..WorkerConfig::default()
        })
        .expect("JDK 11+ and a buildable worker");
        let sources: Vec<SourceFile> = java_files(root)
            .into_iter()
            .map(|path| SourceFile {
                path: path
                    .strip_prefix(root)
                    .unwrap()
                    .to_string_lossy()
                    .into_owned(),
                text: std::fs::read_to_string(&path).unwrap(),
                instrumented: None,
            })
            .collect();
        let result = sup
            .compile(&CompileRequest {
                sources: sources.clone(),
                ..CompileRequest::default()
            })
            .unwrap();
        let unit = result
            .unit
            .unwrap_or_else(|| panic!("the subject compiles: {:#?}", result.diagnostics));
        let mut facts = TypeFacts::new();
        for file in &sources {
            let tree = syntax::parse_java(&file.text, None);
            facts.add_parameter_names(&javamodel::JavaModel::build(&file.text, &tree));
        }
        Subject {
            sup,
            unit,
            sources,
            facts,
        }
    }

    pub fn bank() -> Subject {
        Subject::new(&bank_root())
    }

    /// The test cluster of `class`; adds what reflection says about its types to the facts.
    pub fn cluster(&mut self, class: &str) -> Cluster {
        let described = describe_for_cluster(
            &mut self.sup,
            self.unit,
            class,
            DEFAULT_DESCRIBE_DEPTH,
            None,
        )
        .unwrap();
        let path = format!("{}.java", class.replace('.', "/"));
        let file = self.sources.iter().find(|s| s.path == path).unwrap();
        let tree = syntax::parse_java(&file.text, None);
        let model = javamodel::JavaModel::build(&file.text, &tree);
        let decl = model.type_by_binary_name(class).unwrap();
        let constants = ConstantPool::from_type(&file.text, &tree, decl);
        let described_facts = type_facts(&described, class);
        let mut facts = described_facts;
        for file in &self.sources {
            let tree = syntax::parse_java(&file.text, None);
            facts.add_parameter_names(&javamodel::JavaModel::build(&file.text, &tree));
        }
        self.facts = facts;
        build_cluster(&described, class, constants, None).unwrap_or_else(|e| panic!("{e}"))
    }
}

/// The member of `cluster` displayed as `display`, e.g.
/// `com.example.bank.Account.deposit(long)`.
pub fn target(cluster: &Cluster, display: &str) -> std::sync::Arc<testcase::Callable> {
    cluster
        .targets()
        .find(|c| c.to_string() == display)
        .unwrap_or_else(|| panic!("no target {display}"))
        .clone()
}

/// A project directory under the system temp directory, removed on drop.
pub struct TempProject {
    pub root: PathBuf,
    pub layout: ProjectLayout,
}

impl TempProject {
    pub fn new() -> TempProject {
        use std::sync::atomic::{AtomicU32, Ordering};
        static NEXT: AtomicU32 = AtomicU32::new(0);
        let root = std::env::temp_dir().join(format!(
            "ctgls-emit-test-{}-{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        ));
        let _ = std::fs::remove_dir_all(&root);
        std::fs::create_dir_all(root.join("src/main/java")).unwrap();
        let layout = ProjectLayout {
            root: root.clone(),
            build_system: BuildSystem::Plain,
            source_roots: vec![root.join("src/main/java")],
            test_root: root.join("src/test/java"),
            classpath: Vec::new(),
        };
        TempProject { root, layout }
    }
}

impl Drop for TempProject {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.root);
    }
}

/// Compares `actual` with the fixture `name` under `tests/fixtures/emit/expected`; with
/// `UPDATE_EXPECT=1` it writes the fixture instead.
pub fn assert_matches_fixture(actual: &str, name: &str) {
    let path = fixture_dir().join("expected").join(name);
    if std::env::var_os("UPDATE_EXPECT").is_some() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, actual).unwrap();
        return;
    }
    let expected = std::fs::read_to_string(&path)
        .unwrap_or_else(|_| panic!("{} is missing; run with UPDATE_EXPECT=1", path.display()));
    // The header names the version, which changes with releases.
    let strip = |s: &str| s.lines().skip(1).collect::<Vec<_>>().join("\n");
    assert_eq!(
        strip(actual),
        strip(&expected),
        "{} differs; run with UPDATE_EXPECT=1 to accept:\n{actual}",
        path.display()
    );
}
