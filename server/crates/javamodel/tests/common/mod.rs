//! Helpers shared by the integration tests: the fixture list and building models.

#![allow(dead_code)]

use std::path::PathBuf;

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
