//! The store on disk: layout, file names, unreadable files reported and replaced (never a
//! panic, never blocking), atomic replacement under crashes and concurrent writers.

mod store_fixtures;

use std::fs;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use ctg::store::*;
use store_fixtures::*;

fn account_run(timestamp_ms: u64) -> FinishedRun {
    let c = account_cluster();
    finished_run(
        ACCOUNT,
        timestamp_ms,
        "h1",
        vec![
            stored(every_kind_test(&c), &["g1", "g2"]),
            stored(withdraw_test(&c), &["g3"]),
        ],
        coverage(3, 4),
    )
}

fn files_in(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    names
}

#[test]
fn a_saved_run_loads_back_and_the_directory_explains_itself() {
    let ws = Workspace::new("layout");
    let store = Store::open(ws.path());
    assert_eq!(store.dir(), ws.path().join(".ctgls"));
    let saved = store.save_run(&account_run(1)).unwrap();
    assert!(saved.replaced_unreadable.is_none());
    assert_eq!(store.load(ACCOUNT).unwrap(), Some(saved.record.clone()));
    assert_eq!(saved.record.tests, account_run(1).tests);

    assert_eq!(
        files_in(store.dir()),
        [".gitignore", "README.txt", "classes"]
    );
    let readme = fs::read_to_string(store.dir().join("README.txt")).unwrap();
    assert!(readme.contains("Committing it: safe"), "{readme}");
    let gitignore = fs::read_to_string(store.dir().join(".gitignore")).unwrap();
    assert!(gitignore.lines().any(|l| l == "*.tmp"), "{gitignore}");
    assert_eq!(
        files_in(&store.dir().join("classes")),
        [record_file_name(ACCOUNT)]
    );
    assert_eq!(
        store.record_path(ACCOUNT),
        store.dir().join("classes").join(record_file_name(ACCOUNT))
    );
}

#[test]
fn a_class_without_a_record_has_nothing() {
    let ws = Workspace::new("empty");
    let store = Store::open(ws.path());
    assert!(store.load(ACCOUNT).unwrap().is_none());
    assert!(store.history(ACCOUNT).unwrap().is_empty());
    let seeds = store.load_seeds(ACCOUNT, &account_cluster());
    assert!(seeds.tests.is_empty() && seeds.dropped.is_empty() && seeds.problem.is_none());
    assert!(!store.dir().exists(), "reading creates nothing");
}

#[test]
fn unreadable_records_are_reported_ignored_and_replaced() {
    let valid = encode_record(&record_after(&[], &account_run(1))).unwrap();
    let cases: Vec<(&str, Vec<u8>)> = vec![
        ("garbage", b"not json at all".to_vec()),
        ("empty", Vec::new()),
        ("truncated", valid.as_bytes()[..valid.len() / 2].to_vec()),
        ("not UTF-8", vec![b'{', 0xff, 0xfe, b'}']),
        (
            "old version",
            valid
                .replace("\"version\": 1,", "\"version\": 0,")
                .into_bytes(),
        ),
    ];
    for (what, bytes) in cases {
        let ws = Workspace::new(&format!("unreadable-{}", what.replace(' ', "-")));
        let store = Store::open(ws.path());
        let path = store.record_path(ACCOUNT);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(&path, &bytes).unwrap();

        match store.load(ACCOUNT) {
            Err(StoreError::Corrupt { .. }) if what != "old version" => {}
            Err(StoreError::UnsupportedVersion { found: 0, .. }) if what == "old version" => {}
            other => panic!("{what}: {other:?}"),
        }
        let seeds = store.load_seeds(ACCOUNT, &account_cluster());
        assert!(seeds.tests.is_empty(), "{what}");
        assert!(seeds.problem.is_some(), "{what}");
        assert!(seeds.summary().starts_with("no earlier tests: "), "{what}");
        assert_eq!(
            store.should_rerun(ACCOUNT, "h1"),
            RerunDecision::Yes(RerunReason::HistoryUnreadable),
            "{what}"
        );

        let saved = store.save_run(&account_run(2)).unwrap();
        assert!(saved.replaced_unreadable.is_some(), "{what}");
        let reloaded = store.load(ACCOUNT).unwrap().unwrap();
        assert_eq!(reloaded.history.len(), 1, "{what}");
        assert_eq!(reloaded.history[0].run.timestamp_ms, 2, "{what}");
    }
}

#[test]
fn a_record_of_a_newer_format_is_left_alone() {
    let ws = Workspace::new("newer");
    let store = Store::open(ws.path());
    let path = store.record_path(ACCOUNT);
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    let future = "{\"format\": \"ctgls-store\", \"version\": 2, \"whatever\": []}\n";
    fs::write(&path, future).unwrap();

    assert!(matches!(
        store.load(ACCOUNT),
        Err(StoreError::UnsupportedVersion { found: 2, .. })
    ));
    assert!(store.should_rerun(ACCOUNT, "h1").should_run());
    match store.save_run(&account_run(1)) {
        Err(e @ StoreError::NewerFormat { found: 2, .. }) => {
            assert!(e.to_string().contains("written by a newer ctgls"), "{e}")
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(fs::read_to_string(&path).unwrap(), future);
}

#[test]
fn a_write_interrupted_before_its_rename_leaves_the_old_record() {
    let ws = Workspace::new("crash");
    let store = Store::open(ws.path());
    let first = store.save_run(&account_run(1)).unwrap().record;
    let path = store.record_path(ACCOUNT);
    let classes = path.parent().unwrap();
    let name = record_file_name(ACCOUNT);

    // A writer died after writing half of its temporary file: one long ago, one just now
    // (which may still be a live writer's).
    let half = encode_record(&record_after(&first.history, &account_run(2))).unwrap();
    let half = &half.as_bytes()[..half.len() / 2];
    let stale = classes.join(format!("{name}.4242-0.tmp"));
    let young = classes.join(format!("{name}.4243-0.tmp"));
    for temp in [&stale, &young] {
        fs::write(temp, half).unwrap();
    }
    fs::File::options()
        .write(true)
        .open(&stale)
        .unwrap()
        .set_modified(SystemTime::now() - STALE_TEMP_AGE - Duration::from_secs(60))
        .unwrap();

    assert_eq!(store.load(ACCOUNT).unwrap(), Some(first.clone()));
    assert_eq!(
        store.should_rerun(ACCOUNT, "h1"),
        RerunDecision::Yes(RerunReason::MayImprove)
    );

    let second = store.save_run(&account_run(3)).unwrap().record;
    assert_eq!(second.history.len(), 2);
    assert_eq!(store.load(ACCOUNT).unwrap(), Some(second));
    assert!(!stale.exists(), "a stale temporary file is cleaned up");
    assert!(young.exists(), "a young one may belong to a live writer");
}

#[test]
fn concurrent_writers_never_leave_a_broken_record() {
    let ws = Workspace::new("concurrent");
    // The server and the command line, each with its own handle.
    let stores = [Store::open(ws.path()), Store::open(ws.path())];
    let done = Arc::new(AtomicBool::new(false));
    const RUNS: u64 = 25;
    std::thread::scope(|scope| {
        let reader = {
            let store = stores[0].clone();
            let done = done.clone();
            scope.spawn(move || {
                let mut reads = 0;
                while !done.load(Ordering::Relaxed) {
                    match store.load(ACCOUNT) {
                        Ok(_) => reads += 1,
                        Err(e) => panic!("a reader saw a broken record: {e}"),
                    }
                }
                reads
            })
        };
        let writers: Vec<_> = stores
            .iter()
            .enumerate()
            .map(|(w, store)| {
                scope.spawn(move || {
                    for i in 0..RUNS {
                        let run = account_run(w as u64 * 1000 + i);
                        store.save_run(&run).unwrap();
                    }
                })
            })
            .collect();
        for w in writers {
            w.join().unwrap();
        }
        done.store(true, Ordering::Relaxed);
        assert!(reader.join().unwrap() > 0);
    });
    let record = stores[1].load(ACCOUNT).unwrap().unwrap();
    // Last writer wins per file: runs may be missing (lost updates), none is torn. A writer
    // saves over what it last loaded, which the other may have replaced since, so the final
    // record can lack runs of either writer (24 of 25 once); it holds at least the last run
    // of the writer that saved last, and no run twice.
    let n = record.history.len() as u64;
    assert!((1..=2 * RUNS).contains(&n), "{n} runs in the history");
    let stamps: Vec<u64> = record.history.iter().map(|h| h.run.timestamp_ms).collect();
    let distinct: std::collections::BTreeSet<u64> = stamps.iter().copied().collect();
    assert_eq!(distinct.len(), stamps.len(), "a run twice: {stamps:?}");
    assert!(
        stamps.contains(&(RUNS - 1)) || stamps.contains(&(1000 + RUNS - 1)),
        "neither writer's last run: {stamps:?}"
    );
    assert_eq!(record.tests, account_run(0).tests);
    let leftovers: Vec<String> = files_in(&stores[0].dir().join("classes"))
        .into_iter()
        .filter(|f| f.ends_with(".tmp"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

#[test]
fn file_names_are_safe_and_distinct_for_any_class_name() {
    let long = format!("com.{}.Long", "x".repeat(400));
    let classes = [
        "com.x.Outer$Inner",
        "com.x.Outer$1",
        UNICODE,
        "com.x.Foo",
        "com.x.foo",
        "Default",
        "../../etc/passwd",
        "a\\b:c*d?e\"f<g>h|i",
        "",
        long.as_str(),
    ];
    let names: Vec<String> = classes.iter().map(|c| record_file_name(c)).collect();
    for (class, name) in classes.iter().zip(&names) {
        assert!(name.ends_with(".json"), "{name}");
        assert!(name.len() <= 255, "{name}");
        assert!(
            name.chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-' | '$')),
            "{class} -> {name}"
        );
        assert!(!name.starts_with('.'), "{name}");
    }
    assert_eq!(
        record_file_name("com.x.Outer$Inner"),
        record_file_name("com.x.Outer$Inner"),
        "stable"
    );
    // Pinned: a release that named files differently would lose every user's store.
    assert_eq!(names[0], "com.x.Outer$Inner-09aa5ffc10d827a9.json");
    assert_eq!(names[2], "com.ex.Outer$_n_c_d_-3a8abf373155cc29.json");
    assert_eq!(names[6], "_._.._etc_passwd-2bef2c0bbbdefdfa.json");
    // Distinct even when folded to one case (macOS, Windows).
    let folded: std::collections::BTreeSet<String> =
        names.iter().map(|n| n.to_lowercase()).collect();
    assert_eq!(folded.len(), names.len());

    let ws = Workspace::new("names");
    let store = Store::open(ws.path());
    for (i, class) in classes.iter().enumerate() {
        let mut run = account_run(i as u64);
        run.class = class.to_string();
        store.save_run(&run).unwrap();
    }
    for (i, class) in classes.iter().enumerate() {
        let record = store.load(class).unwrap().unwrap();
        assert_eq!(record.class, *class);
        assert_eq!(record.history[0].run.timestamp_ms, i as u64);
    }
    assert_eq!(files_in(&store.dir().join("classes")).len(), classes.len());
    assert_eq!(files_in(ws.path()), [".ctgls"], "nothing escapes the store");
}

#[test]
fn a_class_with_a_unicode_nested_name_warm_starts() {
    let ws = Workspace::new("unicode");
    let store = Store::open(ws.path());
    let c = cluster(UNICODE, &unicode_types());
    let test = testcase::TestCase::from_statements(vec![
        string("ß"),
        testcase::Statement::Constructor {
            callable: target(&c, "com.ex.Outer$Ünïcödé.<init>(java.lang.String)"),
            type_args: vec![],
            args: vec![testcase::VarRef(0)],
            ty: testcase::JavaType::class(UNICODE),
        },
        prim(testcase::PrimitiveValue::Int(3)),
        call(&c, "com.ex.Outer$Ünïcödé.größe(int)", Some(1), &[2]),
    ]);
    let run = finished_run(
        UNICODE,
        1,
        "h",
        vec![stored(
            test.clone(),
            &["com.ex.Outer$Ünïcödé#größe(int)/B0.T"],
        )],
        coverage(1, 1),
    );
    store.save_run(&run).unwrap();
    let seeds = store.load_seeds(UNICODE, &c);
    assert!(seeds.dropped.is_empty(), "{:?}", seeds.dropped);
    assert_eq!(seeds.tests, vec![test]);
    assert_eq!(store.load(UNICODE).unwrap().unwrap().tests, run.tests);
}

#[test]
fn a_file_holding_another_class_is_a_mismatch() {
    let ws = Workspace::new("mismatch");
    let store = Store::open(ws.path());
    store.save_run(&account_run(1)).unwrap();
    fs::copy(store.record_path(ACCOUNT), store.record_path("com.x.Other")).unwrap();
    match store.load("com.x.Other") {
        Err(StoreError::ClassMismatch {
            expected, found, ..
        }) => {
            assert_eq!(expected, "com.x.Other");
            assert_eq!(found, ACCOUNT);
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn an_oversized_file_is_not_read() {
    let ws = Workspace::new("oversized");
    let store = Store::open(ws.path());
    let path = store.record_path(ACCOUNT);
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    // Sparse: no disk space is used.
    fs::File::create(&path)
        .unwrap()
        .set_len(MAX_RECORD_BYTES + 1)
        .unwrap();
    assert!(matches!(
        store.load(ACCOUNT),
        Err(StoreError::TooLarge { .. })
    ));
}
