//! The fixtures are real Java: each compiles with `javac --release N` (the broken one
//! excepted), and the class files javac writes are exactly the model's binary names, apart
//! from javac's synthetic switch-map classes.
//!
//! Needs a JDK: `JAVA_HOME`, `javac` on `PATH`, or one under `/usr/lib/jvm`, new enough for
//! the release a fixture asks for (21 for record patterns and guarded switch patterns).

mod common;

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;

fn class_files(dir: &Path, root: &Path, out: &mut BTreeSet<String>) {
    for entry in std::fs::read_dir(dir).expect("readable output dir") {
        let path = entry.expect("dir entry").path();
        if path.is_dir() {
            class_files(&path, root, out);
        } else if let Some(rel) = path.strip_prefix(root).ok().and_then(|p| p.to_str()) {
            if let Some(name) = rel.strip_suffix(".class") {
                out.insert(name.replace(['/', '\\'], "."));
            }
        }
    }
}

fn is_switch_map(javap: &Path, out_dir: &Path, class: &str) -> bool {
    let output = Command::new(javap)
        .args(["-p", "-cp"])
        .arg(out_dir)
        .arg(class)
        .output()
        .expect("javap runs");
    String::from_utf8_lossy(&output.stdout).contains("$SwitchMap$")
}

/// Every field and method the model puts in a type is in the class file of that name, so
/// anonymous and local classes got javac's numbers, not just the right count.
fn check_fields_and_methods(
    javap: &Path,
    out_dir: &Path,
    model: &javamodel::JavaModel,
    fixture: &str,
) {
    let types = model.all_types();
    let output = Command::new(javap)
        .args(["-p", "-cp"])
        .arg(out_dir)
        .args(types.iter().map(|t| t.binary_name.as_str()))
        .output()
        .expect("javap runs");
    let text = String::from_utf8_lossy(&output.stdout);
    let listings: Vec<&str> = text.split("Compiled from").skip(1).collect();
    assert_eq!(
        listings.len(),
        types.len(),
        "{fixture}: one javap listing per type"
    );
    for (ty, listing) in types.iter().zip(listings) {
        for field in &ty.fields {
            assert!(
                listing.contains(&format!(" {};", field.name)),
                "{fixture}: field {} not in {}:\n{listing}",
                field.name,
                ty.binary_name
            );
        }
        for member in &ty.members {
            if member.kind == javamodel::MemberKind::Method {
                assert!(
                    listing.contains(&format!(" {}(", member.name)),
                    "{fixture}: method {} not in {}:\n{listing}",
                    member.name,
                    ty.binary_name
                );
            }
        }
    }
}

#[test]
fn fixtures_compile_and_class_files_match_binary_names() {
    for &(name, release) in common::FIXTURES {
        let Some(release) = release else { continue };
        // `tests/run.sh` guarantees a JDK 17; fixtures written for a newer release (record
        // patterns need 21) are checked where such a JDK exists, as on our machines.
        let Some(javac) = common::find_javac(release) else {
            assert!(
                release > 17,
                "no javac for --release {release} (JAVA_HOME, PATH, /usr/lib/jvm)"
            );
            eprintln!("{name}.java not compiled: no JDK {release}+ on this machine");
            continue;
        };
        let javap = javac.with_file_name("javap");
        let dir =
            std::env::temp_dir().join(format!("javamodel-javac-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("temp dir");
        let source = dir.join(format!("{name}.java"));
        std::fs::copy(common::fixture_path(name), &source).expect("copy fixture");
        let out_dir = dir.join("out");
        let result = Command::new(&javac)
            .args(["--release", &release.to_string(), "-d"])
            .arg(&out_dir)
            .arg(&source)
            .output()
            .expect("javac runs");
        assert!(
            result.status.success(),
            "{name}.java does not compile with {} --release {release}:\n{}",
            javac.display(),
            String::from_utf8_lossy(&result.stderr)
        );

        let mut written = BTreeSet::new();
        class_files(&out_dir, &out_dir, &mut written);
        let model = common::build(&common::fixture(name));
        let named: BTreeSet<String> = model
            .all_types()
            .iter()
            .map(|t| t.binary_name.clone())
            .collect();
        let missing: Vec<&String> = named.difference(&written).collect();
        assert!(
            missing.is_empty(),
            "{name}: model names without class file: {missing:?}"
        );
        let extra: Vec<&String> = written
            .difference(&named)
            .filter(|class| !is_switch_map(&javap, &out_dir, class))
            .collect();
        assert!(
            extra.is_empty(),
            "{name}: class files the model does not name: {extra:?}"
        );
        check_fields_and_methods(&javap, &out_dir, &model, name);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
