//! The worker's compile cache: compiled variants of one file (original and instrumented), and
//! the cache on disk that carries a worker's classes to the next worker of the same project.

mod common;

use std::path::{Path, PathBuf};

use common::*;
use jvm::*;

/// A directory of its own standing for a project root (the cache file is named after it).
fn project_root(name: &str) -> PathBuf {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos();
    let dir = std::env::temp_dir().join(format!(
        "ctgls-compile-cache-{name}-{}-{nanos}",
        std::process::id()
    ));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn compile(sup: &mut Supervisor, sources: &[SourceFile]) -> CompileResult {
    let result = sup
        .compile(&CompileRequest {
            sources: sources.to_vec(),
            ..CompileRequest::default()
        })
        .unwrap();
    assert!(result.unit.is_some(), "{:#?}", result.diagnostics);
    result
}

fn counts(result: &CompileResult) -> (u32, u32, u32) {
    (
        result.compiled_files,
        result.reused_files,
        result.cache_loaded_files,
    )
}

fn twice(sup: &mut Supervisor, unit: UnitId, x: i32) -> i64 {
    let t = test(vec![
        int(x),
        call_static("bank.Util", "twice", &["int"], &[0]),
    ]);
    let r = finished(sup.execute(unit, &[t], &options(2000)).unwrap());
    int_value(&r[0], 1)
}

/// A first worker compiles the project and saves its cache.
fn saved_cache(root: &Path, sources: &[SourceFile]) -> PathBuf {
    let mut first = supervisor();
    first.use_compile_cache_of(root);
    let result = compile(&mut first, sources);
    assert_eq!(counts(&result), (4, 0, 0));
    assert_eq!(result.cache_error, None);
    match first.save_compile_cache().unwrap() {
        CompileCacheSave::Saved { files, bytes } => {
            assert_eq!(files, 4);
            assert!(bytes > 0);
        }
        other => panic!("expected the cache to be saved, got {other:?}"),
    }
    // Nothing new was compiled since: nothing to write.
    assert_eq!(
        first.save_compile_cache().unwrap(),
        CompileCacheSave::Unchanged
    );
    let file = first.compile_cache_file().unwrap().to_path_buf();
    assert!(file.is_file(), "{}", file.display());
    file
}

#[test]
fn a_new_worker_starts_from_the_cache_an_earlier_one_saved() {
    let root = project_root("carry");
    let mut sources = project("bank");
    saved_cache(&root, &sources);

    let mut second = supervisor();
    second.use_compile_cache_of(&root);
    let loaded = compile(&mut second, &sources);
    assert_eq!(counts(&loaded), (0, 4, 4));
    assert_eq!(loaded.cache_error, None);
    assert_eq!(
        twice(&mut second, loaded.unit.unwrap(), 21),
        42,
        "classes from the cache run"
    );

    // After the load the cache behaves as if this worker had compiled it: an edit recompiles
    // only the edited file (Util is mentioned by no other file).
    let util = sources
        .iter_mut()
        .find(|s| s.path.ends_with("Util.java"))
        .unwrap();
    util.text = util.text.replace("2 * x", "3 * x");
    let edited = compile(&mut second, &sources);
    assert_eq!(counts(&edited), (1, 3, 0));
    assert_eq!(twice(&mut second, edited.unit.unwrap(), 21), 63);

    // A file changed since the save is compiled, with the files that mention its types.
    let mut third = supervisor();
    third.use_compile_cache_of(&root);
    let level = sources
        .iter_mut()
        .find(|s| s.path.ends_with("Level.java"))
        .unwrap();
    level.text = level.text.replace("BASIC, GOLD", "BASIC, SILVER, GOLD");
    let stale = compile(&mut third, &sources);
    // Util (edited), Level (edited) and Account (mentions Level) are compiled.
    assert_eq!(counts(&stale), (3, 1, 4));
    assert_eq!(twice(&mut third, stale.unit.unwrap(), 21), 63);
    let _ = std::fs::remove_dir_all(root);
}

#[test]
fn a_cache_of_other_settings_or_of_another_project_is_not_used() {
    let root = project_root("settings");
    let sources = project("bank");
    saved_cache(&root, &sources);

    let mut other_options = supervisor();
    other_options.use_compile_cache_of(&root);
    let result = other_options
        .compile(&CompileRequest {
            sources: sources.clone(),
            options: vec!["-parameters".into()],
            ..CompileRequest::default()
        })
        .unwrap();
    assert!(result.unit.is_some());
    assert_eq!(counts(&result), (4, 0, 0));
    assert_eq!(result.cache_error, None);

    let other_root = project_root("settings-other");
    let mut other_project = supervisor();
    other_project.use_compile_cache_of(&other_root);
    assert_eq!(counts(&compile(&mut other_project, &sources)), (4, 0, 0));

    let mut without = Supervisor::new(WorkerConfig {
        compile_cache: false,
        ..config()
    })
    .unwrap();
    without.use_compile_cache_of(&root);
    assert_eq!(without.compile_cache_file(), None);
    assert_eq!(counts(&compile(&mut without, &sources)), (4, 0, 0));
    assert_eq!(
        without.save_compile_cache().unwrap(),
        CompileCacheSave::NotInUse
    );
    let _ = std::fs::remove_dir_all(root);
    let _ = std::fs::remove_dir_all(other_root);
}

#[test]
fn a_damaged_cache_is_reported_and_the_compile_goes_on() {
    let root = project_root("damaged");
    let sources = project("bank");
    let file = saved_cache(&root, &sources);
    let bytes = std::fs::read(&file).unwrap();

    for damaged in [
        bytes[..bytes.len() / 2].to_vec(),
        b"not a cache at all".to_vec(),
    ] {
        std::fs::write(&file, &damaged).unwrap();
        let mut sup = supervisor();
        sup.use_compile_cache_of(&root);
        let result = compile(&mut sup, &sources);
        assert_eq!(counts(&result), (4, 0, 0));
        let error = result.cache_error.expect("the damage is reported");
        assert!(error.contains("could not be read"), "{error}");
        assert_eq!(twice(&mut sup, result.unit.unwrap(), 2), 4);
        // The next save replaces the damaged file with a good one.
        assert!(matches!(
            sup.save_compile_cache().unwrap(),
            CompileCacheSave::Saved { files: 4, .. }
        ));
    }
    let mut after = supervisor();
    after.use_compile_cache_of(&root);
    assert_eq!(counts(&compile(&mut after, &sources)), (0, 4, 4));
    let _ = std::fs::remove_dir_all(root);
}

#[test]
fn switching_between_original_and_instrumented_text_compiles_only_that_file() {
    // `User` mentions `Base`. The "instrumented" text returns something else, so the test can
    // tell which variant's classes a unit holds.
    let base = "package p;\npublic class Base {\n    public static int f(int x) { return x; }\n}\n";
    let user =
        "package p;\npublic class User {\n    public static int g(int x) { return Base.f(x); }\n}\n";
    let instrumented = SourceFile {
        instrumented: Some(base.replace("return x;", "return x + 1000;")),
        ..source("p/Base.java", base)
    };
    let with_probes = vec![instrumented, source("p/User.java", user)];
    let as_written = vec![source("p/Base.java", base), source("p/User.java", user)];

    let mut sup = supervisor();
    let g = |sup: &mut Supervisor, unit: UnitId| {
        let t = test(vec![int(1), call_static("p.User", "g", &["int"], &[0])]);
        int_value(
            &finished(sup.execute(unit, &[t], &options(2000)).unwrap())[0],
            1,
        )
    };
    let first = compile(&mut sup, &with_probes);
    assert_eq!(counts(&first), (2, 0, 0));
    assert_eq!(g(&mut sup, first.unit.unwrap()), 1001);

    // The original text is another variant of the same file: User, which was compiled against
    // the instrumented Base, stays valid (instrumentation changes no signature or constant).
    let original = compile(&mut sup, &as_written);
    assert_eq!(counts(&original), (1, 1, 0));
    assert_eq!(g(&mut sup, original.unit.unwrap()), 1);

    // Both variants are cached now.
    let again = compile(&mut sup, &with_probes);
    assert_eq!(counts(&again), (0, 2, 0));
    assert_eq!(g(&mut sup, again.unit.unwrap()), 1001);
    let back = compile(&mut sup, &as_written);
    assert_eq!(counts(&back), (0, 2, 0));
    assert_eq!(g(&mut sup, back.unit.unwrap()), 1);

    // A change of the original text is a change: the variants go. Base's interface is the same,
    // so User stays.
    let edited_base = base.replace("return x;", "return x * 2;");
    let edited = compile(
        &mut sup,
        &[
            source("p/Base.java", &edited_base),
            source("p/User.java", user),
        ],
    );
    assert_eq!(counts(&edited), (1, 1, 0));
    assert_eq!(g(&mut sup, edited.unit.unwrap()), 2);
    let probes_again = compile(&mut sup, &with_probes);
    assert_eq!(counts(&probes_again), (1, 1, 0));
    assert_eq!(g(&mut sup, probes_again.unit.unwrap()), 1001);
}

#[test]
fn a_file_nothing_compiled_is_no_change_when_it_comes_back_the_same() {
    // `A` names `B` in a comment only: B is on the source path, never compiled, and A's cached
    // classes do not depend on it.
    let a = "package p;\n/** Not {@code B}. */\npublic class A {\n    public static int f() { return 1; }\n}\n";
    let b = "package p;\npublic class B {}\n";
    let sources = vec![source("p/A.java", a), source("p/B.java", b)];
    let request = |sources: &[SourceFile]| CompileRequest {
        sources: sources.to_vec(),
        roots: Some(vec!["p/A.java".into()]),
        ..CompileRequest::default()
    };
    let root = project_root("unneeded");
    let mut sup = supervisor();
    sup.use_compile_cache_of(&root);
    let first = sup.compile(&request(&sources)).unwrap();
    assert_eq!((first.compiled_files, first.reused_files), (1, 0));
    assert_eq!(first.files, vec!["p/A.java".to_string()]);
    let again = sup.compile(&request(&sources)).unwrap();
    assert_eq!((again.compiled_files, again.reused_files), (0, 1));
    assert!(matches!(
        sup.save_compile_cache().unwrap(),
        CompileCacheSave::Saved { files: 1, .. }
    ));

    // The same holds for the next worker, from the cache on disk.
    let mut next = supervisor();
    next.use_compile_cache_of(&root);
    let loaded = next.compile(&request(&sources)).unwrap();
    assert_eq!(counts(&loaded), (0, 1, 1));

    // A change of B is a change: A mentions it, so A is compiled again.
    let changed = [
        source("p/A.java", a),
        source("p/B.java", "package p;\npublic class B { int x; }\n"),
    ];
    let after = next.compile(&request(&changed)).unwrap();
    assert_eq!((after.compiled_files, after.reused_files), (1, 0));
    let _ = std::fs::remove_dir_all(root);
}

#[test]
fn an_edit_that_keeps_the_interface_does_not_compile_the_files_that_mention_it() {
    let base = |k: i32, body: &str, extra: &str| {
        source(
            "p/Base.java",
            &format!(
                "package p;\npublic class Base {{\n    public static final int K = {k};\n    \
                 public static int f(int x) {{ return {body}; }}\n{extra}}}\n"
            ),
        )
    };
    let user = source(
        "p/User.java",
        "package p;\npublic class User {\n    public static int g(int x) { return Base.f(x) * 10 + Base.K; }\n}\n",
    );
    let mut sup = supervisor();
    let mut g = |sources: Vec<SourceFile>| {
        let compiled = compile(&mut sup, &sources);
        let t = test(vec![int(1), call_static("p.User", "g", &["int"], &[0])]);
        let r = finished(
            sup.execute(compiled.unit.unwrap(), &[t], &options(2000))
                .unwrap(),
        );
        (
            (compiled.compiled_files, compiled.reused_files),
            int_value(&r[0], 1),
        )
    };
    assert_eq!(g(vec![base(1, "x + K", ""), user.clone()]), ((2, 0), 21));
    // A new body: User, compiled against the old Base, stays.
    assert_eq!(
        g(vec![base(1, "x + K + 100", ""), user.clone()]),
        ((1, 1), 1021)
    );
    // A private member is no part of the interface either.
    let helper = "    private static int helper() { return 0; }\n";
    assert_eq!(
        g(vec![base(1, "x + K + 100", helper), user.clone()]),
        ((1, 1), 1021)
    );
    // A constant is: User has K inlined and is compiled again (with the old User, 1031).
    assert_eq!(
        g(vec![base(2, "x + K + 100", helper), user.clone()]),
        ((2, 0), 1032)
    );
    // So is a new public member.
    let public = "    public static int more() { return 1; }\n";
    assert_eq!(
        g(vec![base(2, "x + K + 100", public), user.clone()]),
        ((2, 0), 1032)
    );
}

#[test]
fn an_edit_that_does_not_compile_is_reported_once() {
    let base = |body: &str| {
        source(
            "p/Base.java",
            &format!("package p;\npublic class Base {{\n    public static int f(int x) {{ return {body}; }}\n}}\n"),
        )
    };
    let user = source(
        "p/User.java",
        "package p;\npublic class User {\n    public static int g(int x) { return Base.f(x); }\n}\n",
    );
    let mut sup = supervisor();
    compile(&mut sup, &[base("x"), user.clone()]);
    let broken = sup
        .compile(&CompileRequest {
            sources: vec![base("\"text\""), user.clone()],
            ..CompileRequest::default()
        })
        .unwrap();
    assert_eq!(broken.unit, None);
    let errors: Vec<_> = broken
        .diagnostics
        .iter()
        .filter(|d| d.kind == DiagnosticKind::Error)
        .collect();
    assert_eq!(errors.len(), 1, "{:#?}", broken.diagnostics);
    assert_eq!(errors[0].file.as_deref(), Some("p/Base.java"));
    // Repaired, with the same interface as before the broken edit.
    let repaired = compile(&mut sup, &[base("x + 1"), user]);
    assert_eq!((repaired.compiled_files, repaired.reused_files), (1, 1));
}

fn roots(sources: &[SourceFile], root: &str) -> CompileRequest {
    CompileRequest {
        sources: sources.to_vec(),
        roots: Some(vec![root.to_string()]),
        ..CompileRequest::default()
    }
}

/// `class.method()` of `unit`, an int.
fn call_int(sup: &mut Supervisor, unit: UnitId, class: &str, method: &str) -> i64 {
    let t = test(vec![call_static(class, method, &[], &[])]);
    let r = finished(sup.execute(unit, &[t], &options(2000)).unwrap());
    int_value(&r[0], 0)
}

/// `Y` calls `m(1)` on an `X`, which inherits `m` from `Z`; `z_int` gives `Z` an `m(int)` too,
/// which the same call resolves to from then on.
fn inherited(z_int: bool) -> Vec<SourceFile> {
    let extra = if z_int {
        "    public int m(int x) { return 2; }\n"
    } else {
        ""
    };
    vec![
        source(
            "p/Z.java",
            &format!("package p;\npublic class Z {{\n    public int m(long x) {{ return 1; }}\n{extra}}}\n"),
        ),
        source("p/X.java", "package p;\npublic class X extends Z {}\n"),
        source(
            "p/Y.java",
            "package p;\npublic class Y {\n    public static int g() { return new X().m(1); }\n}\n",
        ),
    ]
}

#[test]
fn a_change_of_a_supertype_reaches_the_files_that_use_its_subtypes() {
    let mut sup = supervisor();
    let first = sup.compile(&roots(&inherited(false), "p/Y.java")).unwrap();
    assert_eq!(first.files.len(), 3, "{:?}", first.files);
    assert_eq!(call_int(&mut sup, first.unit.unwrap(), "p.Y", "g"), 1);
    // Y names X only, but what X inherits changed: Y's call resolves to m(int) now.
    let second = sup.compile(&roots(&inherited(true), "p/Y.java")).unwrap();
    assert_eq!(call_int(&mut sup, second.unit.unwrap(), "p.Y", "g"), 2);
}

#[test]
fn a_file_the_cache_dropped_counts_as_changed_in_the_next_compile() {
    let mut sup = supervisor();
    let first = sup.compile(&roots(&inherited(false), "p/Y.java")).unwrap();
    assert_eq!(call_int(&mut sup, first.unit.unwrap(), "p.Y", "g"), 1);
    // A compile of Z alone: X and Y mention what changed, nothing needs them compiled, so the
    // cache drops them without compiling them.
    let only_z = sup.compile(&roots(&inherited(true), "p/Z.java")).unwrap();
    assert_eq!(only_z.files, ["p/Z.java"]);
    // Their texts did not change, yet their classes would be stale: they are compiled again.
    let third = sup.compile(&roots(&inherited(true), "p/Y.java")).unwrap();
    assert_eq!((third.compiled_files, third.reused_files), (2, 1));
    assert_eq!(call_int(&mut sup, third.unit.unwrap(), "p.Y", "g"), 2);
}

/// `A.f()` returns `B.X + B.zero()`, `B.X` is the constant `C.K`: javac inlines `K` into `B`
/// and `B.X` into `A`, so neither `A` nor `B` names the value they hold.
fn chain(k: i32, a_body_edit: bool) -> Vec<SourceFile> {
    let a = if a_body_edit {
        "package p;\npublic class A {\n    public static int f() { return B.X + B.zero() + 0; }\n}\n"
    } else {
        "package p;\npublic class A {\n    public static int f() { return B.X + B.zero(); }\n}\n"
    };
    vec![
        source("p/A.java", a),
        source(
            "p/B.java",
            "package p;\npublic class B {\n    public static final int X = C.K;\n    \
             public static int zero() { return 0; }\n}\n",
        ),
        source(
            "p/C.java",
            &format!("package p;\npublic class C {{\n    public static final int K = {k};\n}}\n"),
        ),
    ]
}

#[test]
fn a_constant_is_traced_through_files_whose_text_did_not_change() {
    for a_body_edit in [false, true] {
        let mut sup = supervisor();
        let first = sup.compile(&roots(&chain(2, false), "p/A.java")).unwrap();
        assert_eq!(call_int(&mut sup, first.unit.unwrap(), "p.A", "f"), 2);
        // C's constant changes: B is compiled again (it names C) and its constant changes with
        // it, so A, which names only B, is compiled again too; also when A itself changed
        // inside a body (it is first compiled against the B it knew).
        let second = sup
            .compile(&roots(&chain(3, a_body_edit), "p/A.java"))
            .unwrap();
        assert_eq!(
            call_int(&mut sup, second.unit.unwrap(), "p.A", "f"),
            3,
            "A body edited too: {a_body_edit}"
        );
    }
}

#[test]
fn a_cache_made_against_another_build_of_the_classpath_is_not_used() {
    let root = project_root("classpath");
    let lib = root.join("lib");
    std::fs::create_dir_all(lib.join("q")).unwrap();
    std::fs::write(lib.join("q/Thing.class"), b"first build").unwrap();
    let request = CompileRequest {
        sources: project("bank"),
        classpath: vec![lib.clone()],
        ..CompileRequest::default()
    };
    let worker = || {
        let mut sup = supervisor();
        sup.use_compile_cache_of(&root);
        sup
    };
    let mut first = worker();
    assert_eq!(counts(&first.compile(&request).unwrap()), (4, 0, 0));
    assert!(matches!(
        first.save_compile_cache().unwrap(),
        CompileCacheSave::Saved { .. }
    ));
    drop(first);
    assert_eq!(counts(&worker().compile(&request).unwrap()), (0, 4, 4));
    // The build output was rebuilt: what it holds may differ, so the cache is not used.
    std::fs::write(lib.join("q/Thing.class"), b"second build, longer").unwrap();
    assert_eq!(counts(&worker().compile(&request).unwrap()), (4, 0, 0));
    let _ = std::fs::remove_dir_all(root);
}

#[test]
fn a_file_that_reaches_a_changed_type_only_by_inference_is_compiled_again() {
    // U calls B's `helper` on what `A.make()` returns without ever naming B.
    let sources = |helper: &str| {
        vec![
            source(
                "p/A.java",
                "package p;\npublic class A {\n    public static B make() { return new B(); }\n}\n",
            ),
            source("p/B.java", &format!("package p;\npublic class B {{\n{helper}}}\n")),
            source(
                "p/U.java",
                "package p;\npublic class U {\n    public static long f() { var x = A.make().helper(1); return x; }\n}\n",
            ),
        ]
    };
    let mut sup = supervisor();
    let first = sup
        .compile(&roots(
            &sources("    public int helper(long x) { return 1; }\n"),
            "p/U.java",
        ))
        .unwrap();
    assert_eq!(first.files.len(), 3, "{:?}", first.files);
    assert_eq!(call_int(&mut sup, first.unit.unwrap(), "p.U", "f"), 1);
    // helper's descriptor changes: U's call must be compiled again, though U names only A.
    let second = sup
        .compile(&roots(
            &sources("    public long helper(long x) { return 2; }\n"),
            "p/U.java",
        ))
        .unwrap();
    assert_eq!(call_int(&mut sup, second.unit.unwrap(), "p.U", "f"), 2);
}
