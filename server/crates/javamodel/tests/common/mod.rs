//! Helpers shared by the integration tests: the fixture list and building models.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;

use javamodel::JavaModel;

/// Every fixture, with the `--release` it compiles with (`None`: deliberately broken).
pub const FIXTURES: &[(&str, Option<u32>)] = &[
    ("Account", Some(17)),
    ("Loops", Some(17)),
    ("Switches", Some(17)),
    ("Exceptions", Some(17)),
    ("Modern", Some(17)),
    ("Nested", Some(17)),
    ("Patterns", Some(21)),
    ("Naming", Some(17)),
    ("Broken", None),
];

pub fn fixture_path(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(format!("{name}.java"))
}

pub fn fixture(name: &str) -> String {
    std::fs::read_to_string(fixture_path(name)).expect("fixture exists")
}

pub fn build(src: &str) -> JavaModel {
    let tree = syntax::parse_java(src, None);
    JavaModel::build(src, &tree)
}

/// The model of a Java snippet placed in `class T { ... }`.
pub fn build_class_body(body: &str) -> JavaModel {
    build(&format!("class T {{\n{body}\n}}\n"))
}

fn javac_major(javac: &Path) -> Option<u32> {
    let out = Command::new(javac).arg("-version").output().ok()?;
    let text =
        String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr);
    text.split_whitespace()
        .nth(1)?
        .split('.')
        .next()?
        .parse()
        .ok()
}

/// A javac that accepts `--release release`, if this machine has one: `JAVA_HOME`, then `PATH`,
/// then the JDKs under `/usr/lib/jvm`.
pub fn find_javac(release: u32) -> Option<PathBuf> {
    let mut candidates: Vec<PathBuf> = Vec::new();
    if let Ok(home) = std::env::var("JAVA_HOME") {
        candidates.push(Path::new(&home).join("bin/javac"));
    }
    candidates.push(PathBuf::from("javac"));
    if let Ok(entries) = std::fs::read_dir("/usr/lib/jvm") {
        let mut dirs: Vec<PathBuf> = entries.filter_map(|e| Some(e.ok()?.path())).collect();
        dirs.sort();
        candidates.extend(dirs.into_iter().map(|d| d.join("bin/javac")));
    }
    candidates
        .into_iter()
        .find(|c| javac_major(c).is_some_and(|major| major >= release))
}
