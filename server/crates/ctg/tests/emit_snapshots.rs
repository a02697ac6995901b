//! The JUnit printer's snapshots (`testcase/tests/junit_snapshots`) are real Java: they compile
//! against their fixture and pass under the real JUnit 5 and JUnit 4 launchers, in both
//! orders, in fresh JVMs. The Java 7 printings compile at their level: JUnit 4's with `javac
//! --release 7` where the JDK still supports it, JUnit 5's at 8 (JUnit 5 needs Java 8: its
//! assertions have `Supplier` overloads javac cannot resolve without `java.util.function`).

use std::path::{Path, PathBuf};

use ctg::verify::{run_test_class, JUnitSetup, ProjectClasses, RunOrder, VerifyOptions};
use testcase::junit::JUnit;

fn testcase_tests() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../testcase/tests")
}

#[test]
fn printer_snapshots_compile_and_pass_under_junit5_and_junit4() {
    let fixture = testcase_tests().join("junit_fixture/shop");
    let mut sources: Vec<PathBuf> = std::fs::read_dir(&fixture)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    sources.sort();
    let project = ProjectClasses {
        sources,
        classpath: Vec::new(),
        overlays: Default::default(),
    };
    let inventory = "shop.InventoryGeneratedTest";
    let intake = "shop.IntakeGeneratedTest";
    for (file, class, junit, release) in [
        (
            "InventoryGeneratedTest.junit5.java",
            inventory,
            JUnit::Five,
            None,
        ),
        (
            "InventoryGeneratedTest.junit4.java",
            inventory,
            JUnit::Four,
            None,
        ),
        (
            "InventoryGeneratedTest.junit5.java7.java",
            inventory,
            JUnit::Five,
            Some(8),
        ),
        (
            "InventoryGeneratedTest.junit4.java7.java",
            inventory,
            JUnit::Four,
            Some(7),
        ),
        // Console input, input files and system properties (testcase's junit_environment).
        ("IntakeGeneratedTest.junit5.java", intake, JUnit::Five, None),
        ("IntakeGeneratedTest.junit4.java", intake, JUnit::Four, None),
        // Written for Java 6, compiled at the oldest level javac still has.
        (
            "IntakeGeneratedTest.junit4.java6.java",
            intake,
            JUnit::Four,
            Some(7),
        ),
    ] {
        let source =
            std::fs::read_to_string(testcase_tests().join("junit_snapshots").join(file)).unwrap();
        let tests = source.matches("@Test").count();
        let setup = JUnitSetup::locate(junit, &[]).expect("JUnit installed (tests/run.sh)");
        let runs = run_test_class(
            &source,
            class,
            &project,
            &setup,
            &VerifyOptions {
                release,
                // The fixture itself is Java 8 code (`Map.getOrDefault`).
                main_release: release.map(|_| 8),
                ..VerifyOptions::default()
            },
        )
        .unwrap_or_else(|e| panic!("{file}: {e}"));
        assert_eq!(runs.len(), 2);
        for run in &runs {
            assert!(run.passed(), "{file}: {:#?}", run.failures);
            assert_eq!(run.executed.len(), tests, "{file}: {:?}", run.executed);
        }
        assert_eq!(runs[0].order, RunOrder::Forward);
        let mut sorted = runs[0].executed.clone();
        sorted.sort();
        assert_eq!(runs[0].executed, sorted, "{file}: forward runs by name");
        let mut reversed = runs[1].executed.clone();
        reversed.reverse();
        assert_eq!(
            reversed, runs[0].executed,
            "{file}: the second run is reversed"
        );
    }
}
