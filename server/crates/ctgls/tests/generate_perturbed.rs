//! Perturbed re-execution end to end (docs/emission.md, "Perturbed re-execution"): `ctgls
//! generate` on `tests/projects/moody`, a class that reads the clock, the default time zone,
//! locale and charset and the working directory, and changes the default time zone and a system
//! property. The written suite asserts none of those values, keeps no test that changes the
//! JVM's defaults, the report counts what each perturbation removed, and plain JUnit (the
//! console launcher, not ctgls's harness) passes the written class 40 days ahead under Debian's
//! `faketime`, in another time zone, in another locale and in a random order. Gated by
//! `CTGLS_E2E=1` (under a minute).

mod support;

use std::path::Path;
use std::process::Command;

use jvm::Jdk;
use support::{e2e_enabled, generate_with_report, Project};

const STANDALONE: &str = "/usr/share/java/junit-platform-console-standalone.jar";

/// Runs the compiled test class with JUnit's console launcher, `prefix` before `java` (e.g.
/// `faketime`), `env` and `flags` for the JVM; panics with the output unless every test passed.
fn plain_junit(jdk: &Jdk, classes: &Path, prefix: &[&str], env: &[(&str, &str)], flags: &[&str]) {
    let mut command = match prefix.split_first() {
        Some((program, args)) => {
            let mut c = Command::new(program);
            c.args(args).arg(&jdk.java);
            c
        }
        None => Command::new(&jdk.java),
    };
    command
        .envs(env.iter().copied())
        .args(flags)
        .args([
            "-jar",
            STANDALONE,
            "--disable-banner",
            "--details=summary",
            "-cp",
        ])
        .arg(classes)
        .args(["--select-class", "moody.MoodyGeneratedTest"])
        .args([
            "--config",
            "junit.jupiter.testmethod.order.default=org.junit.jupiter.api.MethodOrderer$Random",
        ]);
    let output = command.output().expect("java runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{prefix:?} {env:?} {flags:?}: plain JUnit failed\n{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(stdout.contains("tests successful"), "{stdout}");
}

#[test]
fn the_written_suite_passes_on_another_day_zone_locale_and_order() {
    if !e2e_enabled() {
        eprintln!("skipped: the perturbation test runs with CTGLS_E2E=1");
        return;
    }
    let jdk = Jdk::locate(None).expect("a JDK");
    let project = Project::copy_of("moody", "perturbed", "moody");
    // Every planned assertion is kept (`--no-mutation`), so that the perturbation stage meets
    // the assertions on the zone, the locale and the clock and must remove them: the mutation
    // analysis's selection often leaves them out before it runs (they kill no mutant another
    // assertion does not).
    let (output, report) = generate_with_report(
        &project.0,
        &[
            "--budget",
            "30",
            // The exception criterion would keep the search going to the end of the budget;
            // the bound ends it sooner (deterministically) and leaves perturbation its time.
            "--max-executions",
            "1500",
            "--seed",
            "3",
            "--class",
            "moody.Moody",
            "--no-mutation",
        ],
    );
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert!(output.status.success(), "stderr:\n{stderr}");
    assert!(report.is_object(), "no report written: {stderr}");
    let class = &report["classes"][0];
    assert_eq!(class["status"], "ok", "{class:#}");
    let test_file = project
        .0
        .join("src/test/java/moody/MoodyGeneratedTest.java");
    let test = std::fs::read_to_string(&test_file).expect("the test class was written");

    // No assertion on a value of the machine, the day or the defaults.
    for line in test
        .lines()
        .filter(|l| l.trim_start().starts_with("assert"))
    {
        for unstable in [
            "dayOfMonth()",
            "isWeekend()",
            "price(",
            "zone()",
            "byteLength()",
            "where()",
        ] {
            assert!(
                !line.contains(unstable),
                "`{line}` asserts {unstable}:\n{test}"
            );
        }
    }
    // No test that changes the default time zone or a system property is kept.
    assert!(!test.contains("useZone("), "{test}");
    assert!(!test.contains("remember("), "{test}");
    // Stable values are still asserted.
    assert!(test.contains("assertEquals"), "{test}");

    // The report says what went and why.
    let perturbation = &class["perturbation"];
    assert!(
        perturbation["rounds"].as_u64() >= Some(1),
        "{perturbation:#}"
    );
    assert!(perturbation["runs"].as_u64() >= Some(3), "{perturbation:#}");
    assert_eq!(perturbation["clock_shifted"], true, "{perturbation:#}");
    let removed = &perturbation["removed"];
    let count = |kind: &str| {
        removed[kind]["tests"].as_u64().unwrap_or(0)
            + removed[kind]["assertions"].as_u64().unwrap_or(0)
    };
    assert!(count("global_state") >= 1, "useZone/remember: {class:#}");
    // The clock: the worker's two runs and the plain rounds saw the same day, only the shifted
    // clock shows that dayOfMonth() depends on it. Near the budget's end (a loaded machine)
    // failures are not attributed and count as `combined`.
    let combined = count("combined");
    assert!(
        count("clock_ahead") + count("clock_back") + combined >= 1,
        "{class:#}"
    );
    assert!(count("time_zone") + combined >= 1, "zone(): {class:#}");
    // price(double) formats with the default locale: its assertions must have gone, unless
    // no written test asserts a value of it at all (slimming or the search may leave none);
    // the suite's run under another locale below checks what is left either way.
    let price_vars: Vec<String> = test
        .lines()
        .filter(|l| l.contains(".price("))
        .filter_map(|l| {
            l.split('=')
                .next()?
                .split_whitespace()
                .last()
                .map(String::from)
        })
        .collect();
    let price_asserted = test.lines().any(|l| {
        l.contains("assert")
            && (l.contains(".price(") || price_vars.iter().any(|v| l.contains(v.as_str())))
    });
    assert!(
        count("locale") + combined >= 1 || !price_asserted,
        "price(double): {class:#}"
    );
    let dropped = class["dropped"].as_array().expect("dropped");
    let perturbed_drops = dropped
        .iter()
        .filter(|d| {
            let reason = d["reason"].as_str().unwrap_or_default();
            reason.starts_with("Perturbed") || reason.starts_with("ChangesGlobalState")
        })
        .count() as u64;
    let total: u64 = removed
        .as_object()
        .expect("removed")
        .values()
        .map(|r| r["tests"].as_u64().unwrap() + r["assertions"].as_u64().unwrap())
        .sum();
    assert_eq!(
        total, perturbed_drops,
        "the counts match dropped[]: {class:#}"
    );

    // Plain JUnit passes the written class wherever and whenever it runs.
    let classes = project.0.join("plain-classes");
    let compiled = Command::new(&jdk.javac)
        .args(["-proc:none", "-d"])
        .arg(&classes)
        .args(["-cp", STANDALONE])
        .arg(project.0.join("src/main/java/moody/Moody.java"))
        .arg(&test_file)
        .output()
        .expect("javac runs");
    assert!(
        compiled.status.success(),
        "{}",
        String::from_utf8_lossy(&compiled.stderr)
    );
    plain_junit(&jdk, &classes, &[], &[], &[]);
    if Path::new("/usr/bin/faketime").exists() {
        plain_junit(
            &jdk,
            &classes,
            &["/usr/bin/faketime", "-f", "+40d"],
            &[],
            &[],
        );
        plain_junit(
            &jdk,
            &classes,
            &["/usr/bin/faketime", "-f", "-17d"],
            &[],
            &[],
        );
    }
    plain_junit(
        &jdk,
        &classes,
        &[],
        &[("TZ", "Asia/Kolkata")],
        &["-Duser.timezone=Asia/Kolkata"],
    );
    plain_junit(
        &jdk,
        &classes,
        &[],
        &[],
        &[
            "-Duser.language=fr",
            "-Duser.country=FR",
            "-Dfile.encoding=ISO-8859-1",
        ],
    );
}
