//! Isolation between tests against the real worker: a test's class loader is reused only when no
//! state can have survived in it (docs/protocol.md, "Isolation"), and the reused test thread
//! starts every test like a new thread.

mod common;

use std::path::PathBuf;
use std::process::Command;
use std::sync::OnceLock;

use common::*;
use jvm::*;

/// The `statics` fixture, compiled against the `statics-lib` library (a class directory on the
/// classpath, loaded once per unit like a real dependency).
fn statics(sup: &mut Supervisor) -> UnitId {
    let lib = library(sup);
    let result = sup
        .compile(&CompileRequest {
            sources: project("statics"),
            classpath: vec![lib],
            ..CompileRequest::default()
        })
        .unwrap();
    result
        .unit
        .unwrap_or_else(|| panic!("statics must compile: {:#?}", result.diagnostics))
}

/// Compiled once per test process: tests run in parallel and must not overwrite each other's classes.
fn library(sup: &Supervisor) -> PathBuf {
    static LIBRARY: OnceLock<PathBuf> = OnceLock::new();
    LIBRARY
        .get_or_init(|| {
            let out =
                std::env::temp_dir().join(format!("ctgls-statics-lib-{}", std::process::id()));
            let status = Command::new(&sup.jdk().javac)
                .arg("-d")
                .arg(&out)
                .arg(fixtures().join("statics-lib/lib/Slot.java"))
                .arg(fixtures().join("statics-lib/lib/Seen.java"))
                .status()
                .unwrap();
            assert!(status.success());
            out
        })
        .clone()
}

fn run(sup: &mut Supervisor, unit: UnitId, tests: &[TestCase]) -> Vec<TestResult> {
    finished(sup.execute(unit, tests, &options(5000)).unwrap())
}

fn fresh(results: &[TestResult]) -> Vec<bool> {
    results.iter().map(|r| r.fresh_loader).collect()
}

fn dropped(r: &TestResult) -> &str {
    r.loader_dropped.as_deref().unwrap_or("")
}

#[test]
fn resettable_statics_are_put_back_and_the_loader_is_reused() {
    let mut sup = supervisor();
    let unit = statics(&mut sup);
    let t = test(vec![
        call_static("statics.Counter", "next", &[], &[]),
        call_static("statics.Counter", "next", &[], &[]),
    ]);
    let r = run(&mut sup, unit, &[t.clone(), t.clone(), t.clone()]);
    for (k, r) in r.iter().enumerate() {
        assert_eq!(r.status, TestStatus::Ok, "{r:#?}");
        assert_eq!(
            (int_value(r, 0), int_value(r, 1)),
            (11, 12),
            "test {k} starts from the initial count"
        );
        assert_eq!(r.loader_dropped, None, "{r:#?}");
    }
    assert_eq!(fresh(&r), vec![true, false, false]);

    // The next batch still reuses the loader; asked for fresh loaders, the worker obeys.
    let again = run(&mut sup, unit, std::slice::from_ref(&t));
    assert_eq!((fresh(&again), int_value(&again[0], 1)), (vec![false], 12));
    let opts = ExecuteOptions {
        fresh_loader_per_test: true,
        ..options(5000)
    };
    let forced = finished(sup.execute(unit, &[t.clone(), t], &opts).unwrap());
    assert_eq!(fresh(&forced), vec![true, true]);
    assert_eq!(int_value(&forced[1], 1), 12);
}

#[test]
fn a_static_final_mutable_object_gets_a_fresh_loader_for_every_test() {
    let mut sup = supervisor();
    let unit = statics(&mut sup);
    let counter = test(vec![call_static("statics.Counter", "next", &[], &[])]);
    let registry = test(vec![
        string("a"),
        call_static("statics.Registry", "add", &["java.lang.String"], &[0]),
    ]);
    let r = run(
        &mut sup,
        unit,
        &[counter.clone(), registry.clone(), registry, counter],
    );
    // The second test runs in the first one's loader, but defines Registry afresh there.
    assert_eq!(fresh(&r), vec![true, false, true, true]);
    assert_eq!((int_value(&r[1], 1), int_value(&r[2], 1)), (1, 1));
    for r in &r[1..3] {
        assert!(
            dropped(r).contains("statics.Registry") && dropped(r).contains("CACHE"),
            "{:?}",
            r.loader_dropped
        );
    }
    assert_eq!(int_value(&r[3], 0), 11);
}

#[test]
fn a_non_final_string_static_is_put_back_and_the_loader_is_reused() {
    let mut sup = supervisor();
    let unit = statics(&mut sup);
    let t = test(vec![
        string("ann"),
        call_static("statics.Names", "remember", &["java.lang.String"], &[0]),
    ]);
    let r = run(&mut sup, unit, &[t.clone(), t]);
    assert_eq!(fresh(&r), vec![true, false]);
    for r in &r {
        assert!(
            value(r, 1).is_null,
            "the earlier test's name leaked: {r:#?}"
        );
        assert_eq!(r.loader_dropped, None, "{r:#?}");
    }
}

#[test]
fn static_arrays_objects_and_strings_a_test_changed_are_put_back_in_a_reused_loader() {
    let mut sup = supervisor();
    let unit = statics(&mut sup);
    let scribble = test(vec![call_static("statics.Tables", "scribble", &[], &[])]);
    let look = test(vec![call_static("statics.Tables", "fingerprint", &[], &[])]);
    let r = run(
        &mut sup,
        unit,
        &[scribble.clone(), scribble, look.clone(), look],
    );
    let pristine = "0123/zero,one/DARK/7/0/none/4/0";
    for (k, r) in r.iter().enumerate() {
        assert_eq!(r.status, TestStatus::Ok, "{r:#?}");
        assert_eq!(
            text_value(r, 0),
            pristine,
            "test {k} saw what an earlier one left"
        );
        assert_eq!(r.loader_dropped, None, "{r:#?}");
    }
    assert_eq!(fresh(&r), vec![true, false, false, false]);
}

#[test]
fn an_initialiser_that_never_ends_is_not_run_outside_a_test() {
    let mut sup = supervisor();
    let unit = statics(&mut sup);
    // The test names Endless (so the loader defines it) without initialising it; putting the
    // loader back would mean initialising it, which never ends.
    let t = test(vec![
        Statement::Null {
            type_name: "statics.Endless".into(),
        },
        call_static("statics.Namer", "describe", &["statics.Endless"], &[0]),
    ]);
    let started = std::time::Instant::now();
    let r = run(&mut sup, unit, &[t.clone(), t]);
    assert!(started.elapsed() < std::time::Duration::from_secs(20));
    for r in &r {
        assert_eq!(r.status, TestStatus::Ok, "{r:#?}");
        assert_eq!(text_value(r, 1), "no endless");
        assert!(
            dropped(r).contains("statics.Endless") && dropped(r).contains("did not end"),
            "{:?}",
            r.loader_dropped
        );
    }
    assert_eq!(fresh(&r), vec![true, true]);
    // Where the JDK can stop the looping thread (up to Java 19) the worker goes on; where it
    // cannot, the worker asks for a restart after the test rather than keep a core busy.
    let feature = sup.start().unwrap().java_feature;
    if feature < 20 {
        assert_eq!(sup.starts(), 1);
    } else {
        assert!(sup.starts() >= 2, "{} starts", sup.starts());
    }
    // The worker is still healthy, and a class it could settle is reused again.
    let look = test(vec![call_static("statics.Tables", "fingerprint", &[], &[])]);
    let again = run(&mut sup, unit, &[look.clone(), look]);
    assert_eq!(fresh(&again), vec![true, false]);
}

#[test]
fn pure_initialisers_immutable_constants_and_enum_switches_are_reused() {
    let mut sup = supervisor();
    let unit = statics(&mut sup);
    let t = test(vec![
        call_static("statics.Pure", "describe", &[], &[]),
        Statement::EnumConstant {
            type_name: "statics.Shade".into(),
            name: "LIGHT".into(),
        },
        call_static("statics.Pure", "weight", &["statics.Shade"], &[1]),
    ]);
    let r = run(&mut sup, unit, &[t.clone(), t]);
    assert_eq!(fresh(&r), vec![true, false]);
    for r in &r {
        assert_eq!(r.status, TestStatus::Ok, "{r:#?}");
        assert_eq!(r.loader_dropped, None);
        assert_eq!(text_value(r, 0), "pure-42/d/0");
        assert_eq!(int_value(r, 2), 1);
    }
}

/// Regression: commons-csv's `CSVFormat` needed a fresh loader for every test because its
/// initialiser's scan met `Objects.toString` in a loop over an array that is null there, then
/// `StringBuilder.append(Object)` of a `Character`, the setters of a builder it had just made and
/// a `HashSet` of strings of its own. `Formats` has that shape (checked to fail before the scan
/// interpreted values).
#[test]
fn an_initialiser_that_builds_its_constants_through_a_builder_and_null_arrays_is_reused() {
    let mut sup = supervisor();
    let unit = statics(&mut sup);
    let t = test(vec![call_static("statics.Formats", "both", &[], &[])]);
    let r = run(&mut sup, unit, &[t.clone(), t]);
    for r in &r {
        assert_eq!(r.status, TestStatus::Ok, "{r:#?}");
        assert_eq!(r.loader_dropped, None, "{r:#?}");
        assert_eq!(text_value(r, 0), ",|\"x\"|null|null/\t|nullxnull|null|null");
    }
    assert_eq!(fresh(&r), vec![true, false]);
}

/// The same helper as `Formats` given a value whose `toString` reads a system property, a
/// virtual call whose override reads one, and a library's set an initialiser adds to: each
/// leaves state that differs between runs, so each class gets a fresh loader with the reason.
#[test]
fn initialisers_whose_calls_reach_run_dependent_state_are_run_again_for_every_test() {
    let mut sup = supervisor();
    let unit = statics(&mut sup);
    let set = |key: &str, value: &str| {
        vec![
            string(key),
            string(value),
            call_static(
                "statics.Props",
                "set",
                &["java.lang.String", "java.lang.String"],
                &[0, 1],
            ),
        ]
    };
    let with = |mut first: Vec<Statement>, class: &str, method: &str| {
        first.push(call_static(class, method, &[], &[]));
        test(first)
    };
    let cases = [
        (
            "statics.Stamped",
            "first",
            set("statics.stamp", "a"),
            ("a", "unset"),
            "java.util.Objects.toString",
        ),
        (
            "statics.Greeting",
            "text",
            set("statics.greeting", "hi"),
            ("hi", "HELLO"),
            "virtual call of statics.Greeting$Greeter.greet",
        ),
    ];
    for (class, method, setter, (changed, pristine), reason) in cases {
        let r = run(
            &mut sup,
            unit,
            &[with(setter, class, method), with(vec![], class, method)],
        );
        assert_eq!(text_value(&r[0], 3), changed, "{class}: {r:#?}");
        assert!(
            dropped(&r[0]).contains(class) && dropped(&r[0]).contains(reason),
            "{class}: {:?}",
            r[0].loader_dropped
        );
        // The worker put the property back; a fresh copy of the class reads it again.
        assert!(r[1].fresh_loader, "{class}");
        assert_eq!(text_value(&r[1], 0), pristine, "{class}");
    }
    let first = test(vec![call_static("statics.FirstSeen", "first", &[], &[])]);
    let r = run(&mut sup, unit, &[first.clone(), first]);
    assert!(
        dropped(&r[0]).contains("statics.FirstSeen")
            && dropped(&r[0]).contains("java.util.HashSet.add"),
        "{:?}",
        r[0].loader_dropped
    );
    // The library's set outlives the test: the second copy of FirstSeen finds the name there.
    assert_eq!(fresh(&r), vec![true, true]);
    let seen = |r: &TestResult| value(r, 0).value.clone();
    assert_eq!(
        (seen(&r[0]), seen(&r[1])),
        (
            Some(ObservedValue::Bool(true)),
            Some(ObservedValue::Bool(false))
        )
    );
}

#[test]
fn an_initialiser_that_reads_system_properties_is_run_again_for_every_test() {
    let mut sup = supervisor();
    let unit = statics(&mut sup);
    let set_then_read = test(vec![
        string("statics.home"),
        string("/set/by/test"),
        call_static(
            "statics.Props",
            "set",
            &["java.lang.String", "java.lang.String"],
            &[0, 1],
        ),
        call_static("statics.Home", "dir", &[], &[]),
    ]);
    let read = test(vec![call_static("statics.Home", "dir", &[], &[])]);
    let r = run(&mut sup, unit, &[set_then_read, read]);
    assert_eq!(text_value(&r[0], 3), "/set/by/test");
    assert!(
        dropped(&r[0]).contains("statics.Home") && dropped(&r[0]).contains("System.getProperty"),
        "{:?}",
        r[0].loader_dropped
    );
    // The worker put the property back; a fresh Home reads it again.
    assert!(r[1].fresh_loader);
    assert_eq!(text_value(&r[1], 0), "none");
}

#[test]
fn classes_that_initialise_each_other_are_run_again_for_every_test() {
    let mut sup = supervisor();
    let unit = statics(&mut sup);
    let b_first = test(vec![call_static("statics.CycleB", "y", &[], &[])]);
    let a_first = test(vec![call_static("statics.CycleA", "x", &[], &[])]);
    let r = run(&mut sup, unit, &[b_first, a_first]);
    // Java's answer depends on which class a test touches first; each test must get its own.
    assert_eq!((int_value(&r[0], 0), int_value(&r[1], 0)), (15, 6));
    assert!(
        dropped(&r[0]).contains("depends on itself"),
        "{:?}",
        r[0].loader_dropped
    );
    assert!(r[1].fresh_loader);
}

#[test]
fn a_failed_initialisation_is_seen_by_every_test() {
    let mut sup = supervisor();
    let unit = statics(&mut sup);
    let swallow = test(vec![call_static(
        "statics.Catcher",
        "touchBroken",
        &[],
        &[],
    )]);
    let touch = test(vec![call_static("statics.Broken", "value", &[], &[])]);
    let r = run(
        &mut sup,
        unit,
        &[swallow.clone(), touch.clone(), swallow, touch],
    );
    for k in [0, 2] {
        assert_eq!(r[k].status, TestStatus::Ok);
        assert_eq!(text_value(&r[k], 0), "ExceptionInInitializerError");
        assert!(
            dropped(&r[k]).contains("initialisation failed"),
            "{:?}",
            r[k].loader_dropped
        );
    }
    for k in [1, 3] {
        assert!(r[k].fresh_loader);
        let e = r[k].exception.as_ref().unwrap();
        assert_eq!(e.type_name, "java.lang.ExceptionInInitializerError");
        assert_eq!(e.cause.as_deref(), Some("java.lang.NumberFormatException"));
    }
}

#[test]
fn a_thread_that_escapes_the_test_group_makes_the_next_test_use_a_fresh_loader() {
    let mut sup = supervisor();
    let unit = statics(&mut sup);
    let escape = test(vec![
        int(100),
        call_static("statics.Late", "escape", &["int"], &[0]),
    ]);
    let read = test(vec![
        int(400),
        call_static("statics.Late", "hitsAfter", &["int"], &[0]),
    ]);
    let r = run(&mut sup, unit, &[escape, read]);
    assert!(
        dropped(&r[0]).contains("outside the test's thread group"),
        "{:?}",
        r[0].loader_dropped
    );
    assert!(r[1].fresh_loader);
    assert_eq!(
        int_value(&r[1], 1),
        0,
        "the late thread changed the next test's class"
    );
}

/// What `ThreadFacts.facts()` says in a thread in the state of a new one.
const NEW_THREAD: &str = "ctgls-test|5|false|group handler|null|test loader";

fn look() -> TestCase {
    test(vec![call_static("statics.ThreadFacts", "facts", &[], &[])])
}

#[test]
fn the_reused_test_thread_starts_every_test_like_a_new_thread() {
    let mut sup = supervisor();
    let unit = statics(&mut sup);
    let change = test(vec![
        call_static("statics.ThreadFacts", "change", &[], &[]),
        call_static("statics.ThreadFacts", "facts", &[], &[]),
    ]);
    let r = run(&mut sup, unit, &[look(), change, look()]);
    assert_eq!(text_value(&r[0], 0), NEW_THREAD);
    assert_eq!(
        text_value(&r[1], 1),
        "renamed|1|true|own handler|left behind|test loader"
    );
    assert_eq!(text_value(&r[2], 0), NEW_THREAD);
    assert!(!r[2].fresh_loader, "ThreadFacts has no static state");
}

#[test]
fn a_test_that_interrupts_its_thread_does_not_disturb_the_cleanup_after_it() {
    let mut sup = supervisor();
    let unit = statics(&mut sup);
    let t = test(vec![call_static(
        "statics.ThreadFacts",
        "interruptedWithHelper",
        &[],
        &[],
    )]);
    let r = run(&mut sup, unit, &[t, look()]);
    // The helper ends 20 ms after the worker interrupts it: the worker must wait for it.
    assert_eq!((r[0].status, r[0].leaked_threads), (TestStatus::Ok, 0));
    assert_eq!(sup.starts(), 1, "no restart");
    assert_eq!(text_value(&r[1], 0), NEW_THREAD);
}

/// Regression: the worker put back `System.out` and `System.err` only when a test replaced them,
/// so after a test closed them every later test's output was lost. Checked to fail without the
/// fix.
#[test]
fn a_test_that_closes_the_standard_streams_does_not_silence_later_tests() {
    let mut sup = supervisor();
    let unit = sup
        .compile(&CompileRequest {
            sources: vec![source(
                "p/Closer.java",
                "package p;\npublic class Closer {\n    \
                 public static void close() { System.out.close(); System.err.close(); }\n    \
                 public static void print() { System.out.println(\"out\"); System.err.println(\"err\"); }\n}\n",
            )],
            ..CompileRequest::default()
        })
        .unwrap()
        .unit
        .unwrap();
    let close = call_static("p.Closer", "close", &[], &[]);
    let print = || call_static("p.Closer", "print", &[], &[]);
    let r = run(
        &mut sup,
        unit,
        &[
            test(vec![close.clone()]),
            test(vec![print()]),
            test(vec![close, print()]),
            test(vec![print()]),
        ],
    );
    let output = |k: usize| (r[k].stdout.as_str(), r[k].stderr.as_str());
    assert_eq!(output(1), ("out\n", "err\n"));
    // Within the test that closed them, the streams stay closed, as in a JUnit run.
    assert_eq!(output(2), ("", ""));
    assert_eq!(output(3), ("out\n", "err\n"));
    let again = run(&mut sup, unit, &[test(vec![print()])]);
    assert_eq!(
        (again[0].stdout.as_str(), again[0].stderr.as_str()),
        ("out\n", "err\n")
    );
}

#[test]
fn a_reused_loader_still_reports_what_the_initialiser_of_the_class_under_test_covered() {
    let mut sup = supervisor();
    let unit = statics(&mut sup);
    let t = test(vec![
        int(3),
        call_static("statics.Squares", "square", &["int"], &[0]),
    ]);
    let r = run(&mut sup, unit, &[t.clone(), t.clone(), t]);
    assert_eq!(fresh(&r), vec![true, false, false]);
    let first = &r[0].trace;
    for (k, r) in r.iter().enumerate() {
        assert_eq!(r.status, TestStatus::Ok, "{r:#?}");
        assert_eq!(int_value(r, 1), 9);
        assert_eq!(r.loader_dropped, None, "{r:#?}");
        let file = r
            .trace
            .files
            .iter()
            .find(|f| f.key == "statics/Squares.java#s1")
            .unwrap_or_else(|| panic!("test {k}: {:#?}", r.trace));
        // The initialiser's lines, its loop (5 iterations) and both outcomes of its condition.
        assert!(
            file.lines.contains(&(13, 1)) && file.lines.contains(&(14, 5)),
            "test {k}: {file:#?}"
        );
        assert_eq!(file.loops, vec![(0, 5)], "test {k}");
        // The exception that left `check` while the initialiser ran.
        let escape = EscapeTrace {
            method: 1,
            type_name: "java.lang.IllegalArgumentException".into(),
            supertypes: vec![
                "java.lang.RuntimeException".into(),
                "java.lang.Exception".into(),
                "java.lang.Throwable".into(),
            ],
            line: Some(30),
            hits: 1,
        };
        assert_eq!(file.escapes, vec![escape], "test {k}");
        let condition = file.branches.iter().find(|b| b.id == 0).unwrap();
        assert_eq!(
            (condition.true_distance, condition.false_distance),
            (0.0, 0.0)
        );
        assert_eq!(
            r.trace, *first,
            "test {k} reports what a fresh loader reports"
        );
    }
}
