//! Writing generated test classes: the file's place and name, the never-overwrite rule for
//! files ctgls did not write, replacement of its own files, and atomic writes.

mod verify_support;

use ctg::emit::{
    test_class_name, test_file, write_for_class, write_test_class, EmitError, Written,
};
use testcase::junit::header_line;
use verify_support::TempProject;

fn generated(body: &str) -> String {
    format!(
        "{}\npackage com.acme;\n\nclass AccountGeneratedTest {{{body}}}\n",
        header_line("0.1.0")
    )
}

#[test]
fn generated_tests_live_beside_the_package_under_the_test_root() {
    let project = TempProject::new();
    assert_eq!(test_class_name("com.acme.Account"), "AccountGeneratedTest");
    assert_eq!(
        test_class_name("com.acme.Outer$Inner"),
        "OuterInnerGeneratedTest"
    );
    assert_eq!(test_class_name("Plain"), "PlainGeneratedTest");
    assert_eq!(
        test_file(&project.layout, "com.acme.Account"),
        project
            .root
            .join("src/test/java/com/acme/AccountGeneratedTest.java")
    );
    assert_eq!(
        test_file(&project.layout, "Plain"),
        project.root.join("src/test/java/PlainGeneratedTest.java")
    );
}

#[test]
fn a_file_ctgls_did_not_write_is_never_overwritten() {
    let project = TempProject::new();
    let path = test_file(&project.layout, "com.acme.Account");
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let handwritten = "package com.acme;\n\nclass AccountGeneratedTest { /* mine */ }\n";
    std::fs::write(&path, handwritten).unwrap();

    let err = write_for_class(&project.layout, "com.acme.Account", &generated("")).unwrap_err();
    assert!(
        matches!(&err, EmitError::NotGenerated { path: p } if *p == path),
        "{err}"
    );
    assert!(
        err.to_string().contains("was not written by ctgls"),
        "{err}"
    );
    assert_eq!(std::fs::read_to_string(&path).unwrap(), handwritten);
    // Nothing was left behind next to it.
    let entries: Vec<_> = std::fs::read_dir(path.parent().unwrap()).unwrap().collect();
    assert_eq!(entries.len(), 1);
}

#[test]
fn regenerating_replaces_only_files_ctgls_wrote() {
    let project = TempProject::new();
    let first = generated(" /* first */ ");
    let second = generated(" /* second */ ");
    let (path, written) = write_for_class(&project.layout, "com.acme.Account", &first).unwrap();
    assert_eq!(written, Written::Created);
    assert_eq!(std::fs::read_to_string(&path).unwrap(), first);
    assert_eq!(write_test_class(&path, &first).unwrap(), Written::Unchanged);
    assert_eq!(write_test_class(&path, &second).unwrap(), Written::Replaced);
    assert_eq!(std::fs::read_to_string(&path).unwrap(), second);
    let names: Vec<String> = std::fs::read_dir(path.parent().unwrap())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(
        names,
        vec!["AccountGeneratedTest.java"],
        "no temporary files remain"
    );
}

#[test]
fn a_source_without_the_header_is_refused() {
    let project = TempProject::new();
    let path = test_file(&project.layout, "com.acme.Account");
    let err = write_test_class(&path, "class AccountGeneratedTest {}\n").unwrap_err();
    assert!(matches!(err, EmitError::MissingHeader { .. }), "{err}");
    assert!(!path.exists());
}
