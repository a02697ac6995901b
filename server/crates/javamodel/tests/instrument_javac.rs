//! The instrumented fixtures are real Java: every file of `tests/instrument/fixtures` and of the
//! model's `tests/fixtures`, instrumented, compiles with `javac --release N` against the probe
//! runtime (`server/java/ctgls/rt`), in one javac run per release.
//!
//! Needs a JDK 17 (`JAVA_HOME`, `javac` on `PATH` or under `/usr/lib/jvm`); the Java 21
//! fixtures are compiled where a JDK 21+ exists.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use javamodel::instrument::{instrument, InstrumentOptions};
use javamodel::JavaModel;

fn manifest() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Instruments `files` into `dir` and compiles them with the probe runtime.
fn compile_instrumented(release: u32, files: &[PathBuf], dir: &Path, mutants: bool) {
    compile_instrumented_at(release, files, dir, mutants, None);
}

/// [`compile_instrumented`], instrumented for the language level `java_level`.
fn compile_instrumented_at(
    release: u32,
    files: &[PathBuf],
    dir: &Path,
    mutants: bool,
    java_level: Option<u32>,
) {
    let Some(javac) = common::find_javac(release) else {
        assert!(release > 17, "no javac for --release {release}");
        eprintln!("Java {release} fixtures not compiled: no JDK {release}+ on this machine");
        return;
    };
    let _ = std::fs::remove_dir_all(dir);
    std::fs::create_dir_all(dir.join("src")).unwrap();
    let mut args: Vec<PathBuf> = Vec::new();
    for file in files {
        let src = std::fs::read_to_string(file).unwrap();
        let tree = syntax::parse_java(&src, None);
        let model = JavaModel::build(&src, &tree);
        let options = InstrumentOptions {
            mutants,
            java_level,
            ..InstrumentOptions::default()
        };
        let out = instrument(&src, &tree, &model, &options);
        assert!(!out.sites.is_empty(), "{} got probes", file.display());
        let target = dir.join("src").join(file.file_name().unwrap());
        // Fixtures of different packages may share a simple file name.
        let target = if args.contains(&target) {
            target.with_extension(format!("{}.java", args.len()))
        } else {
            target
        };
        std::fs::write(&target, out.source).unwrap();
        args.push(target);
    }
    let runtime = manifest().join("../../java/ctgls/rt");
    let runtime: Vec<PathBuf> = [
        "Probe.java",
        "DeadlineExceeded.java",
        "Environment.java",
        "Mutants.java",
    ]
    .iter()
    .map(|name| runtime.join(name))
    .collect();
    let mut javac_command = Command::new(&javac);
    javac_command.args(["--release", &release.to_string(), "-Xmaxerrs", "20", "-d"]);
    javac_command.arg(dir.join("classes"));
    if release < 8 {
        // The probe runtime needs a newer Java (lambdas, `StackWalker`): compiled apart at
        // 17, as the worker's class path has it, then on the class path of the older level.
        let compiled = Command::new(&javac)
            .args(["--release", "17", "-d"])
            .arg(dir.join("rt"))
            .args(&runtime)
            .output()
            .expect("javac runs");
        assert!(compiled.status.success(), "{compiled:?}");
        javac_command.arg("-cp").arg(dir.join("rt"));
    } else {
        args.extend(runtime);
    }
    let result = javac_command.args(&args).output().expect("javac runs");
    assert!(
        result.status.success(),
        "instrumented fixtures do not compile with {} --release {release}:\n{}",
        javac.display(),
        String::from_utf8_lossy(&result.stderr)
    );
    let _ = std::fs::remove_dir_all(dir);
}

fn fixtures(dir: &str, release: u32) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(manifest().join(dir))
        .unwrap()
        .filter_map(|e| Some(e.ok()?.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "java"))
        .filter(|p| {
            let name = p.file_stem().unwrap().to_string_lossy();
            // `Broken` does not compile; the pattern fixtures need Java 21.
            let needs_21 = name.ends_with("21") || name == "Patterns";
            name != "Broken" && needs_21 == (release == 21)
        })
        .collect();
    out.sort();
    out
}

#[test]
fn instrumented_fixtures_compile_with_java_17() {
    let mut files = fixtures("tests/instrument/fixtures", 17);
    files.extend(fixtures("tests/fixtures", 17));
    assert_eq!(files.len(), 14, "{files:?}");
    let dir = std::env::temp_dir().join(format!("javamodel-instrument-17-{}", std::process::id()));
    compile_instrumented(17, &files, &dir, false);
}

#[test]
fn instrumented_fixtures_compile_with_java_21() {
    let mut files = fixtures("tests/instrument/fixtures", 21);
    files.extend(fixtures("tests/fixtures", 21));
    assert_eq!(files.len(), 2, "{files:?}");
    let dir = std::env::temp_dir().join(format!("javamodel-instrument-21-{}", std::process::id()));
    compile_instrumented(21, &files, &dir, false);
}

/// With every mutant compiled in (mutant schemata), the fixtures still compile: javac rejects
/// no mutant here, so none depends on the compile loop's fallback.
#[test]
fn instrumented_fixtures_with_mutants_compile_with_java_17() {
    let mut files = fixtures("tests/instrument/fixtures", 17);
    files.extend(fixtures("tests/fixtures", 17));
    files.extend(fixtures("tests/instrument/mutants", 17));
    let dir = std::env::temp_dir().join(format!(
        "javamodel-instrument-mutants-17-{}",
        std::process::id()
    ));
    compile_instrumented(17, &files, &dir, true);
}

/// At Java 7 a diamond wrapped in the allocation probe's call infers `Object` for its type
/// arguments and javac rejects the line; instrumented for level 7, the file compiles at
/// `--release 7` the first time (and still counts its other allocations).
#[test]
fn diamonds_compile_at_java_7() {
    let file = manifest().join("tests/instrument/java7/Diamonds.java");
    let src = std::fs::read_to_string(&file).unwrap();
    let tree = syntax::parse_java(&src, None);
    let model = JavaModel::build(&src, &tree);
    let at = |java_level| {
        let options = InstrumentOptions {
            java_level,
            ..InstrumentOptions::default()
        };
        instrument(&src, &tree, &model, &options).source
    };
    assert_eq!(
        at(Some(7)).matches(".alloc(").count(),
        1,
        "new Object() only"
    );
    assert_eq!(at(None).matches(".alloc(").count(), 4);
    let dir = std::env::temp_dir().join(format!("javamodel-instrument-7-{}", std::process::id()));
    compile_instrumented_at(7, &[file], &dir, false, Some(7));
}
