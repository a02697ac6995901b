//! Snapshot tests: the dump of every fixture in `tests/fixtures` against `tests/snapshots`.
//! Refresh with `UPDATE_EXPECT=1 cargo test -p javamodel --test snapshots`, then read the diff.

mod common;

use expect_test::expect_file;

fn check(name: &str) {
    let src = common::fixture(name);
    let model = common::build(&src);
    expect_file![format!("snapshots/{name}.txt")].assert_eq(&javamodel::dump(&model));
}

#[test]
fn account() {
    check("Account");
}

#[test]
fn loops() {
    check("Loops");
}

#[test]
fn switches() {
    check("Switches");
}

#[test]
fn exceptions() {
    check("Exceptions");
}

#[test]
fn modern() {
    check("Modern");
}

#[test]
fn nested() {
    check("Nested");
}

#[test]
fn patterns() {
    check("Patterns");
}

#[test]
fn naming() {
    check("Naming");
}

#[test]
fn broken() {
    check("Broken");
}

#[test]
fn every_fixture_has_a_snapshot_test() {
    let dir = common::fixture_path("x");
    let dir = dir.parent().expect("fixtures dir");
    let mut on_disk: Vec<String> = std::fs::read_dir(dir)
        .expect("fixtures dir")
        .filter_map(|e| {
            let name = e.ok()?.file_name().into_string().ok()?;
            name.strip_suffix(".java").map(str::to_string)
        })
        .collect();
    on_disk.sort();
    let mut listed: Vec<String> = common::FIXTURES
        .iter()
        .map(|(n, _)| n.to_string())
        .collect();
    listed.sort();
    assert_eq!(
        on_disk, listed,
        "tests/common/mod.rs FIXTURES must list every fixture"
    );
}
