//! Integration tests against the real JVM: hello, compile, describe, execute, probe traces.

mod common;

use common::*;
use jvm::*;

const ACCOUNT: &str = "bank.Account";

#[test]
fn hello_reports_protocol_and_java_version() {
    let mut sup = supervisor();
    let info = sup.start().unwrap();
    assert_eq!(info.protocol, PROTOCOL_VERSION);
    assert!(info.java_feature >= 11, "{info:?}");
    assert_eq!(info.java_feature, sup.jdk().version.feature);
    let pid = sup.worker_pid().unwrap();
    assert_eq!(info.pid, pid);
    drop(sup);
    assert!(group_gone(pid), "worker process group {pid} left behind");
}

#[test]
fn compile_errors_have_file_line_and_column() {
    let mut sup = supervisor();
    let broken = SourceFile {
        path: "p/Broken.java".into(),
        text: "package p;\n\npublic class Broken {\n    int f() { return \"no\"; }\n}\n".into(),
        instrumented: None,
    };
    let result = sup
        .compile(&CompileRequest {
            sources: vec![broken],
            ..CompileRequest::default()
        })
        .unwrap();
    assert_eq!(result.unit, None);
    let errors: Vec<_> = result
        .diagnostics
        .iter()
        .filter(|d| d.kind == DiagnosticKind::Error)
        .collect();
    assert_eq!(errors.len(), 1, "{:#?}", result.diagnostics);
    let e = errors[0];
    assert_eq!(e.file.as_deref(), Some("p/Broken.java"));
    assert_eq!((e.line, e.column), (Some(4), Some(22)));
    assert!(e.message.contains("incompatible types"), "{}", e.message);
    assert!(!e.instrumented);
}

#[test]
fn instrumented_text_is_compiled_and_its_lines_are_the_original_lines() {
    let mut sup = supervisor();
    let original = "package p;\npublic class A {\n    public int f(int x) { return x; }\n}\n";
    let instrumented = "package p;\npublic class A {\n    public int f(int x) { ctgls.rt.Probe.enter(undefinedBase); return x; }\n}\n";
    let result = sup
        .compile(&CompileRequest {
            sources: vec![SourceFile {
                path: "p/A.java".into(),
                text: original.into(),
                instrumented: Some(instrumented.into()),
            }],
            ..CompileRequest::default()
        })
        .unwrap();
    assert_eq!(result.unit, None);
    let e = &result.diagnostics[0];
    assert_eq!(e.line, Some(3));
    assert!(e.instrumented);
    assert!(e.message.contains("undefinedBase"), "{}", e.message);
}

#[test]
fn unchanged_files_are_reused_and_dependents_recompiled() {
    let mut sup = supervisor();
    let mut sources = project("bank");
    let first = sup
        .compile(&CompileRequest {
            sources: sources.clone(),
            ..CompileRequest::default()
        })
        .unwrap();
    assert_eq!((first.compiled_files, first.reused_files), (4, 0));
    assert!(first.classes.contains(&"bank.Level".to_string()));

    // Util is mentioned by no other file: only it is recompiled.
    let util = sources
        .iter_mut()
        .find(|s| s.path.ends_with("Util.java"))
        .unwrap();
    util.text = util.text.replace("2 * x", "3 * x");
    let second = sup
        .compile(&CompileRequest {
            sources: sources.clone(),
            ..CompileRequest::default()
        })
        .unwrap();
    assert_eq!((second.compiled_files, second.reused_files), (1, 3));

    // Level is used by Account: both are recompiled, the rest reused.
    let level = sources
        .iter_mut()
        .find(|s| s.path.ends_with("Level.java"))
        .unwrap();
    level.text = level.text.replace("BASIC, GOLD", "BASIC, SILVER, GOLD");
    let third = sup
        .compile(&CompileRequest {
            sources: sources.clone(),
            ..CompileRequest::default()
        })
        .unwrap();
    assert_eq!((third.compiled_files, third.reused_files), (2, 2));

    // The new unit runs the new code; the old unit still runs the old code.
    let old = second.unit.unwrap();
    let new_unit = third.unit.unwrap();
    let t = test(vec![
        int(5),
        call_static("bank.Util", "twice", &["int"], &[0]),
    ]);
    let r = finished(
        sup.execute(old, std::slice::from_ref(&t), &options(2000))
            .unwrap(),
    );
    assert_eq!(int_value(&r[0], 1), 15);
    let r = finished(sup.execute(new_unit, &[t], &options(2000)).unwrap());
    assert_eq!(int_value(&r[0], 1), 15);
    let r = finished(
        sup.execute(
            new_unit,
            &[test(vec![Statement::EnumConstant {
                type_name: "bank.Level".into(),
                name: "SILVER".into(),
            }])],
            &options(2000),
        )
        .unwrap(),
    );
    assert_eq!(value(&r[0], 0).enum_constant.as_deref(), Some("SILVER"));
}

/// A root that reaches `B`, which reaches `C` (whose `h()` returns `c`), next to a `D` that does
/// not compile and that nothing reaches.
fn closure_sources(c: &str) -> Vec<SourceFile> {
    let source = |path: &str, text: String| SourceFile {
        path: path.into(),
        text,
        instrumented: None,
    };
    vec![
        source(
            "p/Root.java",
            "package p;\npublic class Root {\n    public static int f() { return new B().g(); }\n}\n".into(),
        ),
        source(
            "p/B.java",
            "package p;\npublic class B {\n    public int g() { return q.C.h() + 1; }\n}\n".into(),
        ),
        source(
            "q/C.java",
            format!("package q;\npublic class C {{\n    public static int h() {{ return {c}; }}\n}}\n"),
        ),
        source(
            "p/D.java",
            "package p;\npublic class D {\n    int broken() { return \"no\"; }\n}\n".into(),
        ),
    ]
}

fn roots_request(sources: Vec<SourceFile>, roots: &[&str]) -> CompileRequest {
    CompileRequest {
        sources,
        roots: Some(roots.iter().map(|r| r.to_string()).collect()),
        ..CompileRequest::default()
    }
}

fn root_f(sup: &mut Supervisor, unit: UnitId) -> i64 {
    let t = test(vec![call_static("p.Root", "f", &[], &[])]);
    let r = finished(sup.execute(unit, &[t], &options(2000)).unwrap());
    assert_eq!(r[0].status, TestStatus::Ok, "{:#?}", r[0]);
    int_value(&r[0], 0)
}

#[test]
fn roots_compile_what_they_reach_and_nothing_else() {
    let mut sup = supervisor();
    let result = sup
        .compile(&roots_request(closure_sources("41"), &["p/Root.java"]))
        .unwrap();
    assert!(result.diagnostics.is_empty(), "{:#?}", result.diagnostics);
    assert_eq!(result.classes, ["p.B", "p.Root", "q.C"]);
    assert_eq!(result.files, ["p/B.java", "p/Root.java", "q/C.java"]);
    assert_eq!((result.compiled_files, result.reused_files), (3, 0));
    let unit = result.unit.expect("D's error is not the roots' concern");
    assert_eq!(root_f(&mut sup, unit), 42);

    // Without roots every file is one, as before: D's error fails the compile.
    let all = sup
        .compile(&CompileRequest {
            sources: closure_sources("41"),
            ..CompileRequest::default()
        })
        .unwrap();
    assert_eq!(all.unit, None);
    let error = all
        .diagnostics
        .iter()
        .find(|d| d.kind == DiagnosticKind::Error)
        .unwrap();
    assert_eq!(error.file.as_deref(), Some("p/D.java"));
}

#[test]
fn the_closure_reuses_unchanged_files_and_recompiles_what_an_edit_reaches() {
    let mut sup = supervisor();
    let first = sup
        .compile(&roots_request(closure_sources("41"), &["p/Root.java"]))
        .unwrap();
    let again = sup
        .compile(&roots_request(closure_sources("41"), &["p/Root.java"]))
        .unwrap();
    assert_eq!((again.compiled_files, again.reused_files), (0, 3));
    assert_eq!(again.classes, first.classes);

    // C's body changed: C is compiled again. B mentions C but keeps its classes, since C's
    // interface is the same (compile_cache.rs has the edits that change an interface).
    let edited = sup
        .compile(&roots_request(closure_sources("99"), &["p/Root.java"]))
        .unwrap();
    assert_eq!((edited.compiled_files, edited.reused_files), (1, 2));
    assert_eq!(root_f(&mut sup, edited.unit.unwrap()), 100);
    assert_eq!(root_f(&mut sup, first.unit.unwrap()), 42);
}

#[test]
fn errors_in_implicitly_compiled_files_are_reported_with_their_path() {
    let mut sup = supervisor();
    let result = sup
        .compile(&roots_request(
            closure_sources("\"forty-one\""),
            &["p/Root.java"],
        ))
        .unwrap();
    assert_eq!(result.unit, None);
    let errors: Vec<_> = result
        .diagnostics
        .iter()
        .filter(|d| d.kind == DiagnosticKind::Error)
        .collect();
    assert_eq!(errors.len(), 1, "only C's error, not D's: {errors:#?}");
    assert_eq!(errors[0].file.as_deref(), Some("q/C.java"));
    assert_eq!((errors[0].line, errors[0].column), (Some(3), Some(36)));
}

#[test]
fn cached_classes_get_the_files_they_need_even_when_no_text_names_them() {
    let mut sup = supervisor();
    // B calls a method of V without naming V. A change of V's interface invalidates Box (it
    // names V) and B (its bytecode refers to V); Root's cached class stays valid, and as the only
    // root it leaves javac nothing to compile, yet it needs B: a further run compiles B, and
    // with it what B needs.
    let sources = |v: &str| {
        vec![
            source(
                "p/Root.java",
                "package p;\npublic class Root { public static int f() { return new B().g(); } }\n",
            ),
            source(
                "p/B.java",
                "package p;\npublic class B { public int g() { return Box.make().value(); } }\n",
            ),
            source(
                "p/Box.java",
                "package p;\npublic class Box { public static V make() { return new V(); } }\n",
            ),
            source(
                "p/V.java",
                &format!("package p;\npublic class V {{ public int value() {{ return {v}; }} }}\n"),
            ),
        ]
    };
    let first = sup
        .compile(&roots_request(sources("1"), &["p/Root.java"]))
        .unwrap();
    assert_eq!(first.files.len(), 4, "{:?}", first.files);
    let edited = sup
        .compile(&roots_request(
            sources("2; } public int more() { return 3"),
            &["p/Root.java"],
        ))
        .unwrap();
    assert_eq!(
        edited.files,
        ["p/B.java", "p/Box.java", "p/Root.java", "p/V.java"]
    );
    assert_eq!((edited.compiled_files, edited.reused_files), (3, 1));
    assert_eq!(root_f(&mut sup, edited.unit.unwrap()), 2);
}

#[test]
fn available_sources_are_found_by_their_package_declaration() {
    let mut sup = supervisor();
    // The helper's directory does not match its package, and comments surround the package
    // declaration: javac looks it up in package q all the same.
    let result = sup
        .compile(&roots_request(
            vec![
                source(
                    "p/Root.java",
                    "package p;\npublic class Root { public static int f() { return q.Helper.h(); } }\n",
                ),
                source(
                    "misplaced/Helper.java",
                    "// Copyright\n/* a block\n   comment */ package /* odd */ q ;\n\
                     public class Helper { public static int h() { return 7; } }\n",
                ),
            ],
            &["p/Root.java"],
        ))
        .unwrap();
    assert!(result.diagnostics.is_empty(), "{:#?}", result.diagnostics);
    assert_eq!(result.files, ["misplaced/Helper.java", "p/Root.java"]);
    assert_eq!(root_f(&mut sup, result.unit.unwrap()), 7);
}

#[test]
fn sources_win_over_stale_classes_of_the_same_types_on_the_classpath() {
    let mut sup = supervisor();
    // The stale C's h() returns a long, which B's `return C.h() + 1` cannot return as an int.
    let mut older = closure_sources("0");
    older[2].text = older[2].text.replace("int h()", "long h()");
    let old = sup
        .compile(&roots_request(older, &["q/C.java"]))
        .unwrap()
        .unit
        .unwrap();
    let stale = sup.scratch_dir().expect("a running worker").join("stale");
    sup.write_classes(old, &stale).unwrap();
    let current = sup
        .compile(&CompileRequest {
            classpath: vec![stale],
            ..roots_request(closure_sources("41"), &["p/Root.java"])
        })
        .unwrap();
    assert!(current.diagnostics.is_empty(), "{:#?}", current.diagnostics);
    assert_eq!(current.files, ["p/B.java", "p/Root.java", "q/C.java"]);
    assert_eq!(root_f(&mut sup, current.unit.unwrap()), 42);
}

#[test]
fn describe_reports_hierarchy_generics_enums_and_records() {
    let mut sup = supervisor();
    let unit = compile_project(&mut sup, "shapes");
    let d = sup
        .describe(unit, &["shapes.Circle".into(), "shapes.Registry".into()], 1)
        .unwrap();
    let class = |n: &str| {
        d.classes.iter().find(|c| c.name == n).unwrap_or_else(|| {
            panic!(
                "{n} not described: {:?}",
                d.classes.iter().map(|c| &c.name).collect::<Vec<_>>()
            )
        })
    };

    let circle = class("shapes.Circle");
    assert_eq!(circle.kind, TypeKind::Class);
    assert!(circle.project && circle.is_public && !circle.is_abstract);
    assert_eq!(circle.superclass.as_deref(), Some("shapes.AbstractShape"));
    assert_eq!(
        circle.generic_superclass.as_deref(),
        Some("shapes.AbstractShape<java.lang.Double>")
    );
    assert_eq!(circle.constructors.len(), 2);
    let with_color = circle
        .constructors
        .iter()
        .find(|c| c.params.len() == 2)
        .unwrap();
    assert_eq!(with_color.params[1].type_name, "shapes.Color");
    assert_eq!(
        with_color.exceptions,
        vec!["java.io.IOException".to_string()]
    );
    let unit_factory = circle.methods.iter().find(|m| m.name == "unit").unwrap();
    assert!(unit_factory.is_static && unit_factory.factory);
    let dims = circle
        .methods
        .iter()
        .find(|m| m.name == "dimensions")
        .unwrap();
    assert_eq!(
        dims.generic_return_type.as_deref(),
        Some("java.util.List<java.lang.Double>")
    );
    let size = circle.methods.iter().find(|m| m.name == "getSize").unwrap();
    assert_eq!(size.declaring_class, "shapes.AbstractShape");
    assert!(circle
        .fields
        .iter()
        .any(|f| f.name == "color" && f.type_name == "shapes.Color"));

    let registry = class("shapes.Registry");
    assert_eq!(
        registry.type_parameters,
        vec![
            "K extends java.lang.Comparable<K>".to_string(),
            "V extends shapes.Shape".to_string()
        ]
    );
    let put_all = registry
        .methods
        .iter()
        .find(|m| m.name == "putAll")
        .unwrap();
    assert_eq!(put_all.params[1].type_name, "java.util.List");
    assert_eq!(put_all.params[1].generic, "java.util.List<V>");
    assert_eq!(
        put_all.exceptions,
        vec!["java.lang.IllegalStateException".to_string()]
    );
    let lookup = registry
        .methods
        .iter()
        .find(|m| m.name == "lookup")
        .unwrap();
    assert_eq!(lookup.type_parameters, vec!["R".to_string()]);

    // Mentioned types, one level deep.
    let color = class("shapes.Color");
    assert_eq!(color.kind, TypeKind::Enum);
    assert_eq!(color.enum_constants, vec!["RED", "GREEN", "BLUE"]);
    assert!(color.constructors.is_empty());
    let abstract_shape = class("shapes.AbstractShape");
    assert!(abstract_shape.is_abstract);
    assert!(abstract_shape.constructors.is_empty());
    assert_eq!(
        abstract_shape.type_parameters,
        vec!["T extends java.lang.Number".to_string()]
    );
    let mut subs = abstract_shape.subclasses.clone();
    subs.sort();
    assert_eq!(subs, vec!["shapes.Circle", "shapes.Square"]);

    let d = sup
        .describe(unit, &["shapes.Shape".into(), "shapes.Point".into()], 0)
        .unwrap();
    let shape = &d.classes[0];
    assert_eq!(shape.kind, TypeKind::Interface);
    let mut impls = shape.subclasses.clone();
    impls.sort();
    assert_eq!(
        impls,
        vec!["shapes.AbstractShape", "shapes.Circle", "shapes.Square"]
    );
    let point = &d.classes[1];
    assert_eq!(point.kind, TypeKind::Record);
    let comps: Vec<_> = point
        .record_components
        .iter()
        .map(|c| (c.name.as_str(), c.type_name.as_str()))
        .collect();
    assert_eq!(comps, vec![("x", "int"), ("y", "int")]);

    let d = sup.describe(unit, &["shapes.Nope".into()], 1).unwrap();
    assert!(d.classes.is_empty());
    assert_eq!(d.missing[0].0, "shapes.Nope");
}

/// Regression: only raw types were followed, so a project type that appears only as a type
/// argument (`List<Item>`), a bound or a generic array's component, and the class's project
/// interfaces, were never described. Checked to fail without the fix.
#[test]
fn describe_follows_type_arguments_bounds_and_interfaces_to_project_types() {
    let mut sup = supervisor();
    let class = |name: &str, body: &str| {
        source(
            &format!("d/{name}.java"),
            &format!("package d;\npublic {body}\n"),
        )
    };
    let result = sup
        .compile(&CompileRequest {
            sources: vec![
                class(
                    "Catalog",
                    "class Catalog implements Listing<Item> {\n    \
                     public Catalog(java.util.List<Item> items) {}\n    \
                     public java.util.Map<String, Entry[]> index() { return null; }\n    \
                     public <T extends Comparable<Bound>> void sort(T key) {}\n    \
                     public void addAll(java.util.Collection<? super Extra> more) {}\n    \
                     public java.util.List<Tag>[] tags() { return null; }\n    \
                     public java.util.List<java.time.LocalDate> dates() { return null; }\n}",
                ),
                class("Listing", "interface Listing<T> {}"),
                class("Item", "class Item {}"),
                class("Entry", "class Entry {}"),
                class("Bound", "class Bound {}"),
                class("Extra", "class Extra {}"),
                class("Tag", "class Tag {}"),
                class("Unused", "class Unused {}"),
            ],
            ..CompileRequest::default()
        })
        .unwrap();
    let unit = result
        .unit
        .unwrap_or_else(|| panic!("{:#?}", result.diagnostics));
    let d = sup.describe(unit, &["d.Catalog".into()], 1).unwrap();
    let described: Vec<&str> = d.classes.iter().map(|c| c.name.as_str()).collect();
    for name in [
        "d.Catalog",
        "d.Listing",
        "d.Item",
        "d.Entry",
        "d.Bound",
        "d.Extra",
        "d.Tag",
    ] {
        assert!(described.contains(&name), "{name} not in {described:?}");
    }
    assert!(!described.contains(&"d.Unused"), "{described:?}");
    // A JDK type argument is not expanded (only raw JDK types are, as before).
    assert!(!described.contains(&"java.time.LocalDate"), "{described:?}");
    assert!(d.missing.is_empty(), "{:?}", d.missing);
    let catalog = &d.classes[0];
    assert_eq!(catalog.interfaces, ["d.Listing"]);
    assert_eq!(catalog.generic_interfaces, ["d.Listing<d.Item>"]);
}

/// Regression: `getConstructors()` was not guarded against `LinkageError`, so a class whose
/// constructor mentions a type missing from the classpath (an optional dependency) failed the
/// whole describe request. Checked to fail without the fix.
#[test]
fn a_constructor_mentioning_a_missing_class_does_not_fail_describe() {
    let mut sup = supervisor();
    let library = std::env::temp_dir().join(format!("ctgls-optional-lib-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&library);
    std::fs::create_dir_all(library.join("opt")).unwrap();
    std::fs::write(
        library.join("opt/Plugin.java"),
        "package opt;\npublic class Plugin {}\n",
    )
    .unwrap();
    let status = std::process::Command::new(&sup.jdk().javac)
        .arg("-d")
        .arg(&library)
        .arg(library.join("opt/Plugin.java"))
        .status()
        .unwrap();
    assert!(status.success());
    let result = sup
        .compile(&CompileRequest {
            sources: vec![
                source(
                    "d/Host.java",
                    "package d;\npublic class Host {\n    public Host() {}\n    \
                     public Host(opt.Plugin plugin) {}\n    \
                     public static int size() { return 1; }\n}\n",
                ),
                source(
                    "d/Guest.java",
                    "package d;\npublic class Guest {\n    public Guest(Host host) {}\n}\n",
                ),
            ],
            classpath: vec![library.clone()],
            ..CompileRequest::default()
        })
        .unwrap();
    let unit = result
        .unit
        .unwrap_or_else(|| panic!("{:#?}", result.diagnostics));
    // The dependency is absent at run time, as an optional one may be.
    std::fs::remove_file(library.join("opt/Plugin.class")).unwrap();

    let d = sup.describe(unit, &["d.Guest".into()], 1).unwrap();
    let _ = std::fs::remove_dir_all(&library);
    let host = d
        .classes
        .iter()
        .find(|c| c.name == "d.Host")
        .unwrap_or_else(|| panic!("{d:#?}"));
    // Reflection lists a class's constructors all at once or not at all.
    assert!(host.constructors.is_empty(), "{:#?}", host.constructors);
    assert!(host.methods.iter().any(|m| m.name == "size"), "{host:#?}");
    let guest = d.classes.iter().find(|c| c.name == "d.Guest").unwrap();
    assert_eq!(guest.constructors.len(), 1);
}

#[test]
fn execute_constructors_methods_getters_and_static_calls() {
    let mut sup = supervisor();
    let unit = compile_project(&mut sup, "bank");
    let t = test(vec![
        int(150),
        new(ACCOUNT, &["int"], &[0]),
        int(30),
        call(ACCOUNT, "withdraw", &["int"], 1, &[2]),
        call(ACCOUNT, "deposit", &["int"], 1, &[2]),
        call(ACCOUNT, "getLevel", &[], 1, &[]),
        string("ann"),
        call_static(ACCOUNT, "open", &["java.lang.String"], &[6]),
        call_static(ACCOUNT, "createdCount", &[], &[]),
    ]);
    let opts = ExecuteOptions {
        observe_getters: true,
        ..options(2000)
    };
    let r = finished(sup.execute(unit, &[t], &opts).unwrap());
    let r = &r[0];
    assert_eq!(r.status, TestStatus::Ok, "{r:#?}");
    assert_eq!(int_value(r, 3), 120);
    assert_eq!(r.statements[4], StatementResult::Void);
    assert_eq!(value(r, 5).enum_constant.as_deref(), Some("GOLD"));
    let account = value(r, 1);
    assert_eq!(account.type_name.as_deref(), Some(ACCOUNT));
    assert!(!account.is_null);
    let getters: Vec<_> = account
        .getters
        .iter()
        .map(|g| (g.name.as_str(), g.outcome.clone()))
        .collect();
    // Observed right after construction.
    assert_eq!(
        getters,
        vec![
            (
                "getBalance",
                GetterOutcome::Value(ObservedValue::Integer(150))
            ),
            ("getLevel", GetterOutcome::Enum("GOLD".into())),
            ("isEmpty", GetterOutcome::Value(ObservedValue::Bool(false))),
        ]
    );
    assert_eq!(value(r, 7).type_name.as_deref(), Some(ACCOUNT));
    assert_eq!(int_value(r, 8), 2, "two accounts created in this test");
}

/// Regression: only `getX`/`isX`/`hasX`/`size`/`length`/`isEmpty` were observed, so a record's
/// state (`x()`, `label()`) got no assertions. Checked to fail without the fix.
#[test]
fn record_component_accessors_are_observed_like_getters() {
    let mut sup = supervisor();
    let result = sup
        .compile(&CompileRequest {
            sources: vec![source(
                "r/Spot.java",
                "package r;\npublic record Spot(int x, String label, long[] path) {\n    \
                 public int twice() { return 2 * x; }\n    \
                 public boolean isOrigin() { return x == 0; }\n}\n",
            )],
            ..CompileRequest::default()
        })
        .unwrap();
    let unit = result
        .unit
        .unwrap_or_else(|| panic!("{:#?}", result.diagnostics));
    let t = test(vec![
        int(3),
        string("a"),
        Statement::NewArray {
            component: "long".into(),
            length: 1,
        },
        new("r.Spot", &["int", "java.lang.String", "long[]"], &[0, 1, 2]),
    ]);
    let opts = ExecuteOptions {
        observe_getters: true,
        ..options(2000)
    };
    let r = finished(sup.execute(unit, &[t], &opts).unwrap());
    assert_eq!(r[0].status, TestStatus::Ok, "{:#?}", r[0]);
    let getters: Vec<_> = value(&r[0], 3)
        .getters
        .iter()
        .map(|g| (g.name.as_str(), g.outcome.clone()))
        .collect();
    // Accessors of simple types, beside the getters; not other no-arg methods (`twice`), not
    // an accessor whose value cannot be asserted (`path`).
    assert_eq!(
        getters,
        vec![
            ("isOrigin", GetterOutcome::Value(ObservedValue::Bool(false))),
            (
                "label",
                GetterOutcome::Value(ObservedValue::Text("a".into()))
            ),
            ("x", GetterOutcome::Value(ObservedValue::Integer(3))),
        ]
    );
}

#[test]
fn static_state_does_not_leak_between_tests() {
    let mut sup = supervisor();
    let unit = compile_project(&mut sup, "bank");
    let t = test(vec![
        int(1),
        new(ACCOUNT, &["int"], &[0]),
        new(ACCOUNT, &["int"], &[0]),
        call_static(ACCOUNT, "createdCount", &[], &[]),
    ]);
    let r = finished(
        sup.execute(unit, &[t.clone(), t.clone(), t], &options(2000))
            .unwrap(),
    );
    let counts: Vec<i64> = r.iter().map(|r| int_value(r, 3)).collect();
    assert_eq!(counts, vec![2, 2, 2]);
}

#[test]
fn exceptions_are_declared_or_undeclared_with_their_line() {
    let mut sup = supervisor();
    let unit = compile_project(&mut sup, "bank");
    let declared = test(vec![
        int(10),
        new(ACCOUNT, &["int"], &[0]),
        int(50),
        call(ACCOUNT, "withdraw", &["int"], 1, &[2]),
        call_static(ACCOUNT, "createdCount", &[], &[]),
    ]);
    let undeclared = test(vec![
        int(0),
        new(ACCOUNT, &["int"], &[0]),
        call(ACCOUNT, "share", &["int"], 1, &[0]),
    ]);
    let in_constructor = test(vec![int(-1), new(ACCOUNT, &["int"], &[0])]);
    let r = finished(
        sup.execute(
            unit,
            &[declared, undeclared, in_constructor],
            &options(2000),
        )
        .unwrap(),
    );

    assert_eq!(r[0].status, TestStatus::Exception);
    assert_eq!(r[0].failed_at, Some(3));
    assert_eq!(
        r[0].statements.len(),
        3,
        "execution stops at the throwing statement"
    );
    let e = r[0].exception.as_ref().unwrap();
    assert_eq!(e.type_name, "bank.InsufficientFundsException");
    assert_eq!(e.message, Some("missing 40".into()));
    assert!(e.declared && e.checked);
    assert_eq!(e.frame.as_ref().unwrap().line, Some(45));
    assert_eq!(e.frame.as_ref().unwrap().method, "withdraw");

    let e = r[1].exception.as_ref().unwrap();
    assert_eq!(e.type_name, "java.lang.ArithmeticException");
    assert!(!e.declared && !e.checked && !e.by_statement);
    let frame = e.frame.as_ref().unwrap();
    assert_eq!((frame.class.as_str(), frame.line), (ACCOUNT, Some(52)));

    let e = r[2].exception.as_ref().unwrap();
    assert_eq!(e.type_name, "java.lang.IllegalArgumentException");
    assert_eq!(e.frame.as_ref().unwrap().line, Some(11));
    assert_eq!(e.frame.as_ref().unwrap().method, "<init>");
}

#[test]
fn fields_and_arrays() {
    let mut sup = supervisor();
    let unit = compile_project(&mut sup, "bank");
    let t = test(vec![
        int(0),
        new(ACCOUNT, &["int"], &[0]),
        Statement::GetField {
            class: ACCOUNT.into(),
            field: "limit".into(),
            receiver: Some(1),
        },
        int(500),
        Statement::SetField {
            class: ACCOUNT.into(),
            field: "limit".into(),
            receiver: Some(1),
            value: 3,
        },
        Statement::GetField {
            class: ACCOUNT.into(),
            field: "limit".into(),
            receiver: Some(1),
        },
        Statement::GetField {
            class: ACCOUNT.into(),
            field: "created".into(),
            receiver: None,
        },
        Statement::NewArray {
            component: "int".into(),
            length: 3,
        },
        Statement::SetElement {
            array: 7,
            index: 0,
            value: 3,
        },
        int(7),
        Statement::SetElement {
            array: 7,
            index: 2,
            value: 9,
        },
        Statement::GetElement { array: 7, index: 2 },
        call(ACCOUNT, "total", &["int[]"], 1, &[7]),
        Statement::Null {
            type_name: "java.lang.String".into(),
        },
        Statement::GetField {
            class: ACCOUNT.into(),
            field: "owner".into(),
            receiver: Some(1),
        },
    ]);
    let r = finished(sup.execute(unit, &[t], &options(2000)).unwrap());
    let r = &r[0];
    assert_eq!(r.status, TestStatus::Ok, "{r:#?}");
    assert_eq!(int_value(r, 2), 100);
    assert_eq!(int_value(r, 5), 500);
    assert_eq!(int_value(r, 6), 1);
    assert_eq!(value(r, 7).length, Some(3));
    assert_eq!(value(r, 7).type_name.as_deref(), Some("int[]"));
    assert_eq!(int_value(r, 11), 7);
    assert_eq!(int_value(r, 12), 507);
    assert!(value(r, 13).is_null);
    assert!(value(r, 14).is_null);
}

#[test]
fn invalid_statements_are_reported_not_thrown() {
    let mut sup = supervisor();
    let unit = compile_project(&mut sup, "bank");
    let account = || new(ACCOUNT, &["int"], &[0]);
    let tests = [
        test(vec![call_static(ACCOUNT, "noSuchMethod", &[], &[])]),
        // Wrong arity.
        test(vec![
            int(1),
            account(),
            call(ACCOUNT, "getBalance", &[], 1, &[0]),
        ]),
        // A reference to a later statement.
        test(vec![int(1), new(ACCOUNT, &["int"], &[5])]),
        // A long where the constructor takes an int.
        test(vec![
            Statement::Value(Literal::Long(1 << 40)),
            new(ACCOUNT, &["int"], &[0]),
        ]),
        // A null String for an int parameter: Java would not compile it (a null Integer would).
        test(vec![
            Statement::Null {
                type_name: "java.lang.String".into(),
            },
            new(ACCOUNT, &["int"], &[0]),
        ]),
        // A receiver of another class.
        test(vec![
            string("not an account"),
            call(ACCOUNT, "getBalance", &[], 0, &[]),
        ]),
    ];
    let r = finished(sup.execute(unit, &tests, &options(2000)).unwrap());
    for (k, t) in r.iter().enumerate() {
        assert_eq!(t.status, TestStatus::Invalid, "test {k}: {t:#?}");
        assert!(t.message.is_some());
        assert!(t.exception.is_none());
    }
    assert_eq!(r[1].failed_at, Some(2));
    assert!(
        r[1].message
            .as_deref()
            .unwrap()
            .contains("0 parameters but 1 arguments"),
        "{:?}",
        r[1].message
    );
}

#[test]
fn statements_throw_what_the_same_java_statement_would() {
    let mut sup = supervisor();
    let unit = compile_project(&mut sup, "bank");
    let null_account = || Statement::Null {
        type_name: ACCOUNT.into(),
    };
    let limit = "limit".to_string();
    let tests = [
        test(vec![
            null_account(),
            call(ACCOUNT, "getBalance", &[], 0, &[]),
        ]),
        test(vec![
            null_account(),
            Statement::GetField {
                class: ACCOUNT.into(),
                field: limit.clone(),
                receiver: Some(0),
            },
        ]),
        test(vec![
            null_account(),
            int(3),
            Statement::SetField {
                class: ACCOUNT.into(),
                field: limit,
                receiver: Some(0),
                value: 1,
            },
        ]),
        test(vec![
            Statement::Null {
                type_name: "int[]".into(),
            },
            Statement::GetElement { array: 0, index: 0 },
        ]),
        test(vec![
            Statement::NewArray {
                component: "int".into(),
                length: 2,
            },
            int(7),
            Statement::SetElement {
                array: 0,
                index: 2,
                value: 1,
            },
        ]),
        test(vec![
            Statement::Null {
                type_name: "java.lang.Integer".into(),
            },
            new(ACCOUNT, &["int"], &[0]),
        ]),
    ];
    let r = finished(sup.execute(unit, &tests, &options(2000)).unwrap());
    let expected = [
        (
            1,
            "java.lang.NullPointerException",
            "Cannot invoke \"bank.Account.getBalance()\"",
        ),
        (
            1,
            "java.lang.NullPointerException",
            "Cannot read field \"limit\"",
        ),
        (
            2,
            "java.lang.NullPointerException",
            "Cannot assign field \"limit\"",
        ),
        (
            1,
            "java.lang.NullPointerException",
            "Cannot load from int array",
        ),
        (
            2,
            "java.lang.ArrayIndexOutOfBoundsException",
            "Index 2 out of bounds for length 2",
        ),
        (
            1,
            "java.lang.NullPointerException",
            "Cannot unbox argument 0",
        ),
    ];
    for (k, (at, type_name, message)) in expected.iter().enumerate() {
        let t = &r[k];
        assert_eq!(t.status, TestStatus::Exception, "test {k}: {t:#?}");
        assert_eq!(t.failed_at, Some(*at), "test {k}");
        assert_eq!(
            t.statements.len(),
            *at,
            "test {k}: the statements before it ran"
        );
        let e = t.exception.as_ref().unwrap();
        assert_eq!(e.type_name, *type_name, "test {k}");
        let text = e.message.as_ref().and_then(JavaText::as_str).unwrap_or("");
        assert!(text.starts_with(message), "test {k}: {text}");
        assert!(
            e.by_statement && !e.declared && !e.checked,
            "test {k}: {e:#?}"
        );
        assert_eq!(e.frame, None, "test {k}: no code under test ran");
    }
}

#[test]
fn constants_of_non_public_enums() {
    let mut sup = supervisor();
    let result = sup
        .compile(&CompileRequest {
            sources: vec![
                source("q/Mode.java", "package q;\nenum Mode { ON, OFF }\n"),
                source(
                    "q/Panel.java",
                    "package q;\npublic class Panel {\n    private enum Secret { HIDDEN }\n    \
                     public static String name(Object o) { return String.valueOf(o); }\n}\n",
                ),
            ],
            ..CompileRequest::default()
        })
        .unwrap();
    let unit = result.unit.unwrap();
    let constant = |type_name: &str, name: &str| Statement::EnumConstant {
        type_name: type_name.into(),
        name: name.into(),
    };
    let t = test(vec![
        constant("q.Mode", "OFF"),
        constant("q.Panel$Secret", "HIDDEN"),
        call_static("q.Panel", "name", &["java.lang.Object"], &[1]),
    ]);
    let r = finished(sup.execute(unit, &[t], &options(2000)).unwrap());
    assert_eq!(r[0].status, TestStatus::Ok, "{:#?}", r[0]);
    assert_eq!(value(&r[0], 0).enum_constant.as_deref(), Some("OFF"));
    assert_eq!(value(&r[0], 1).enum_constant.as_deref(), Some("HIDDEN"));
    assert_eq!(text_value(&r[0], 2), "HIDDEN");
}

#[test]
fn describe_never_reports_probe_holders() {
    let mut sup = supervisor();
    // As the instrumenter appends it, and a public one shaped to be listed as an implementation.
    let result = sup
        .compile(&CompileRequest {
            sources: vec![
                source(
                    "p/A.java",
                    "package p;\npublic class A implements Marker { public int f() { return $CtglsProbe_0badf00d.B; } } \
                     final class $CtglsProbe_0badf00d { static final int B = ctgls.rt.Probe.register(\"p/A.java#0\", 0, 3, 0, 0); }\n",
                ),
                source("p/Marker.java", "package p;\npublic interface Marker {}\n"),
                source(
                    "p/$CtglsProbe_feedbeef.java",
                    "package p;\npublic final class $CtglsProbe_feedbeef implements Marker {}\n",
                ),
            ],
            ..CompileRequest::default()
        })
        .unwrap();
    let unit = result.unit.unwrap();
    let d = sup
        .describe(
            unit,
            &[
                "p.A".into(),
                "p.$CtglsProbe_0badf00d".into(),
                "p.$CtglsProbe_feedbeef".into(),
                "p.Marker".into(),
            ],
            1,
        )
        .unwrap();
    let names: Vec<&str> = d.classes.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, vec!["p.A", "p.Marker"]);
    let marker = d.classes.iter().find(|c| c.name == "p.Marker").unwrap();
    assert_eq!(marker.subclasses, vec!["p.A".to_string()]);
    assert!(d.missing.is_empty(), "{:?}", d.missing);
}

#[test]
fn user_output_never_corrupts_the_protocol() {
    let mut sup = supervisor();
    let unit = compile_project(&mut sup, "bank");
    let chatter = test(vec![
        int(1),
        new(ACCOUNT, &["int"], &[0]),
        call(ACCOUNT, "chatter", &[], 1, &[]),
    ]);
    let flood = test(vec![
        int(5000),
        new(ACCOUNT, &["int"], &[0]),
        call(ACCOUNT, "shout", &["int"], 1, &[0]),
    ]);
    let opts = ExecuteOptions {
        output_limit: 1000,
        ..options(5000)
    };
    let r = finished(sup.execute(unit, &[chatter, flood], &opts).unwrap());
    assert_eq!(r[0].status, TestStatus::Ok);
    assert!(r[0].stdout.contains("forged"), "{:?}", r[0].stdout);
    assert_eq!(r[0].stderr, "to stderr\n");
    assert!(r[1].output_truncated);
    assert!(r[1].stdout.len() < 1200);
    assert!(r[1].stdout.contains("output truncated"));
    // The worker still answers.
    let again = finished(sup.execute(unit, &[test(vec![int(3)])], &opts).unwrap());
    assert_eq!(int_value(&again[0], 0), 3);
}

#[test]
fn probe_trace_of_a_hand_instrumented_class() {
    let mut sup = supervisor();
    let dir = fixtures().join("probe/probe");
    let original = std::fs::read_to_string(dir.join("Triangle.java")).unwrap();
    let instrumented = std::fs::read_to_string(dir.join("Triangle.instrumented.java")).unwrap();
    assert_eq!(
        original.lines().count(),
        instrumented.lines().count(),
        "lines are preserved"
    );
    let result = sup
        .compile(&CompileRequest {
            sources: vec![SourceFile {
                path: "probe/Triangle.java".into(),
                text: original,
                instrumented: Some(instrumented),
            }],
            ..CompileRequest::default()
        })
        .unwrap();
    let unit = result
        .unit
        .unwrap_or_else(|| panic!("{:#?}", result.diagnostics));
    let classify = |a, b, c| {
        test(vec![
            int(a),
            int(b),
            int(c),
            call_static(
                "probe.Triangle",
                "classify",
                &["int", "int", "int"],
                &[0, 1, 2],
            ),
        ])
    };
    let r = finished(
        sup.execute(
            unit,
            &[classify(3, 4, 5), classify(0, 1, 1), classify(2, 2, 2)],
            &options(2000),
        )
        .unwrap(),
    );
    assert_eq!(text_value(&r[0], 3), "scalene");
    assert_eq!(text_value(&r[1], 3), "invalid");
    assert_eq!(text_value(&r[2], 3), "equilateral");

    let t = &r[0].trace;
    assert_eq!(t.files.len(), 1);
    let f = &t.files[0];
    assert_eq!(f.key, "probe/Triangle.java#t1");
    let b: Vec<(u32, u64, f64, f64)> = f
        .branches
        .iter()
        .map(|b| (b.id, b.hits, b.true_distance, b.false_distance))
        .collect();
    assert_eq!(
        b,
        vec![
            (0, 1, 3.0, 0.0), // a <= 0 with a = 3: a - 0 away from true
            (1, 1, 4.0, 0.0),
            (2, 1, 5.0, 0.0),
            (3, 1, 1.0, 0.0), // a == b with 3, 4: |a - b|
            (5, 4, 0.0, 0.0), // k < a taken both ways
            (6, 1, 1.0, 0.0),
            (7, 1, 1.0, 0.0),
        ]
    );
    assert_eq!(f.methods, vec![(0, 1)]);
    assert_eq!(f.loops, vec![(0, 3)]);
    assert_eq!(
        f.lines,
        vec![(5, 1), (8, 1), (11, 1), (12, 1), (13, 3), (15, 1), (18, 1)]
    );
    assert_eq!(
        t.proxies,
        PerformanceProxies {
            loop_iterations: 3,
            method_calls: 1,
            instantiations: 1,
            statements: 9
        }
    );

    // The next test starts from a clean trace; a <= 0 taken is 1 (k) away from false.
    let f = &r[1].trace.files[0];
    let b: Vec<_> = f
        .branches
        .iter()
        .map(|b| (b.id, b.true_distance, b.false_distance))
        .collect();
    assert_eq!(b, vec![(0, 0.0, 1.0)]);
    assert_eq!(f.lines, vec![(5, 1), (6, 1)]);
}

#[test]
fn units_survive_a_worker_restart() {
    let mut sup = supervisor();
    let unit = compile_project(&mut sup, "bank");
    let first = sup.worker_pid().unwrap();
    sup.shutdown();
    assert!(group_gone(first));
    let r = finished(
        sup.execute(
            unit,
            &[test(vec![
                int(4),
                call_static("bank.Util", "twice", &["int"], &[0]),
            ])],
            &options(2000),
        )
        .unwrap(),
    );
    assert_eq!(int_value(&r[0], 1), 8);
    assert_ne!(sup.worker_pid(), Some(first));
    assert_eq!(sup.starts(), 2);
    assert!(matches!(
        sup.execute(UnitId(999), &[], &options(100)),
        Err(JvmError::UnknownUnit(_))
    ));
}

#[test]
fn execution_can_be_disabled() {
    let config = WorkerConfig {
        execution_enabled: false,
        ..config()
    };
    assert!(matches!(
        Supervisor::new(config),
        Err(JvmError::ExecutionDisabled)
    ));
}

#[test]
fn a_missing_jdk_is_a_typed_error() {
    let config = WorkerConfig {
        java_home: Some("/nonexistent/jdk".into()),
        ..config()
    };
    let err = Supervisor::new(config).err().unwrap();
    assert!(
        matches!(err, JvmError::Jdk(JdkError::NotFound { .. })),
        "{err}"
    );
}

#[test]
fn strings_and_special_floats_round_trip_through_the_protocol() {
    let mut sup = supervisor();
    let unit = compile_project(&mut sup, "bank");
    let tricky = "h\u{e9}llo \"q\" \\ \n\t\u{1F600} {\"id\":1}";
    let t = test(vec![
        string(tricky),
        Statement::Value(Literal::Double(f64::NEG_INFINITY)),
        Statement::Value(Literal::Float(f32::NAN)),
        Statement::Value(Literal::Char('\u{e9}')),
        Statement::Value(Literal::Long(i64::MIN)),
    ]);
    let r = finished(sup.execute(unit, &[t], &options(2000)).unwrap());
    assert_eq!(text_value(&r[0], 0), tricky);
    assert_eq!(
        value(&r[0], 1).value,
        Some(ObservedValue::Float(f64::NEG_INFINITY))
    );
    assert!(matches!(value(&r[0], 2).value, Some(ObservedValue::Float(f)) if f.is_nan()));
    assert_eq!(text_value(&r[0], 3), "\u{e9}");
    assert_eq!(int_value(&r[0], 4), i64::MIN);
}

#[test]
fn write_classes_puts_the_units_class_files_in_the_scratch_directory() {
    let mut sup = supervisor();
    let source = SourceFile {
        path: "p/Outer.java".into(),
        text: "package p;\n\npublic class Outer {\n    public static class Inner {}\n    public int f() { return 1; }\n}\n".into(),
        instrumented: None,
    };
    let unit = sup
        .compile(&CompileRequest {
            sources: vec![source],
            ..CompileRequest::default()
        })
        .unwrap()
        .unit
        .expect("compiles");
    let dir = sup
        .scratch_dir()
        .expect("a running worker")
        .join("classes-test");
    assert_eq!(sup.write_classes(unit, &dir).unwrap(), 2);
    for class in ["p/Outer.class", "p/Outer$Inner.class"] {
        let bytes = std::fs::read(dir.join(class)).unwrap();
        assert_eq!(
            &bytes[..4],
            &[0xca, 0xfe, 0xba, 0xbe],
            "{class} is a class file"
        );
    }
    // Outside the scratch directory the sandbox refuses, as a rejected request.
    let outside = std::env::temp_dir().join(format!("ctgls-outside-{}", std::process::id()));
    if sup.sandbox().is_some_and(|s| s.filesystem) {
        assert!(sup.write_classes(unit, &outside).is_err());
        assert!(!outside.exists());
    }
}

#[test]
fn observing_getters_does_not_move_a_buffer_or_bump_a_counter() {
    let mut sup = supervisor();
    let unit = compile_project(&mut sup, "bank");
    let t = test(vec![
        int(100),
        call_static("java.nio.ByteBuffer", "allocate", &["int"], &[0]),
        call("java.nio.ByteBuffer", "remaining", &[], 1, &[]),
        new("java.util.concurrent.atomic.AtomicInteger", &["int"], &[0]),
        call(
            "java.util.concurrent.atomic.AtomicInteger",
            "get",
            &[],
            3,
            &[],
        ),
    ]);
    let opts = ExecuteOptions {
        observe_getters: true,
        ..options(2000)
    };
    let r = finished(sup.execute(unit, &[t], &opts).unwrap());
    let r = &r[0];
    assert_eq!(r.status, TestStatus::Ok, "{r:#?}");
    // ByteBuffer.getInt() and friends would have moved the position by 28 bytes.
    assert_eq!(int_value(r, 2), 100, "{r:#?}");
    assert_eq!(
        int_value(r, 4),
        100,
        "getAndIncrement() would have counted up"
    );
    let names: Vec<&str> = value(r, 1)
        .getters
        .iter()
        .map(|g| g.name.as_str())
        .collect();
    assert!(!names.contains(&"getInt"), "{names:?}");
}

#[test]
fn strings_cross_the_protocol_unchanged_whatever_their_characters() {
    let mut sup = supervisor();
    let unit = compile_project(&mut sup, "bank");
    // Non-ASCII (two-, three- and four-byte UTF-8), escapes, control characters, a NUL, a lone
    // surrogate's neighbours, and a long string (beyond the parser's shared short strings).
    let texts = [
        "plain",
        "é à ü ß",
        "€ ✓ 中文",
        "😀 emoji 🎉",
        "quote \" backslash \\ slash / tab \t newline \n cr \r",
        "nul \u{0} bell \u{7} del \u{7f}",
        &"long é ".repeat(40),
    ];
    let tests: Vec<TestCase> = texts
        .iter()
        .map(|t| {
            test(vec![
                string(t),
                call_static("java.lang.String", "valueOf", &["java.lang.Object"], &[0]),
            ])
        })
        .collect();
    let r = finished(sup.execute(unit, &tests, &options(2000)).unwrap());
    for (t, r) in texts.iter().zip(&r) {
        assert_eq!(r.status, TestStatus::Ok, "{r:#?}");
        assert_eq!(text_value(r, 1), *t);
    }
}

#[test]
fn a_request_much_longer_than_the_read_buffer_arrives_whole() {
    let mut sup = supervisor();
    let mut sources = project("bank");
    // Several times the worker's 64 KiB read buffer, with multi-byte characters across its edges.
    let padding = "// é€😀 padding line\n".repeat(20_000);
    sources.push(SourceFile {
        path: "bank/Padded.java".into(),
        text: format!("package bank;\n{padding}public class Padded {{ public static int one() {{ return 1; }} }}\n"),
        instrumented: None,
    });
    let result = sup
        .compile(&CompileRequest {
            sources,
            ..CompileRequest::default()
        })
        .unwrap();
    let unit = result
        .unit
        .unwrap_or_else(|| panic!("{:#?}", result.diagnostics));
    let r = finished(
        sup.execute(
            unit,
            &[test(vec![call_static("bank.Padded", "one", &[], &[])])],
            &options(2000),
        )
        .unwrap(),
    );
    assert_eq!(int_value(&r[0], 0), 1);
}

/// A Java string need not be valid Unicode: a lone surrogate (half of a pair) is no Rust char.
/// Such values, as a char, a String, an exception message and a getter's value, arrive exactly,
/// and with them everything else of the test and of the batch.
#[test]
fn text_that_is_not_unicode_arrives_exactly() {
    let mut sup = supervisor();
    let dir = fixtures().join("surrogates/lone");
    let read = |name: &str| std::fs::read_to_string(dir.join(name)).unwrap();
    let result = sup
        .compile(&CompileRequest {
            sources: vec![SourceFile {
                path: "lone/Halves.java".into(),
                text: read("Halves.java"),
                instrumented: Some(read("Halves.instrumented.java")),
            }],
            ..CompileRequest::default()
        })
        .unwrap();
    let unit = result
        .unit
        .unwrap_or_else(|| panic!("{:#?}", result.diagnostics));
    const HALVES: &str = "lone.Halves";
    let lone = |units: &[u16]| JavaText::from_utf16(units.to_vec());
    let halves = test(vec![
        call_static(HALVES, "high", &[], &[]),
        string("ab\u{1F600}"),
        call_static(HALVES, "cut", &["java.lang.String"], &[1]),
        new(HALVES, &["java.lang.String"], &[2]),
        call(HALVES, "getName", &[], 3, &[]),
        int(7),
        call_static(HALVES, "check", &["int"], &[5]),
    ]);
    let fine = test(vec![int(0), call_static(HALVES, "check", &["int"], &[0])]);
    let opts = ExecuteOptions {
        observe_getters: true,
        ..options(2000)
    };
    let r = finished(sup.execute(unit, &[halves, fine], &opts).unwrap());
    assert_eq!(r.len(), 2, "{r:#?}");

    let r0 = &r[0];
    assert_eq!(r0.status, TestStatus::Exception, "{r0:#?}");
    assert_eq!(r0.failed_at, Some(6));
    assert_eq!(value(r0, 0).type_name.as_deref(), Some("char"));
    assert_eq!(java_text(r0, 0), lone(&[0xd83d]));
    assert_eq!(text_value(r0, 1), "ab\u{1F600}");
    let cut = lone(&[0x61, 0x62, 0xd83d]);
    assert_eq!(java_text(r0, 2), cut);
    assert_eq!(
        value(r0, 3).getters,
        [GetterObservation {
            name: "getName".into(),
            outcome: GetterOutcome::Value(ObservedValue::Text(cut.clone())),
        }]
    );
    assert_eq!(java_text(r0, 4), cut);
    assert_eq!(int_value(r0, 5), 7);
    let exception = r0.exception.as_ref().expect("an exception");
    assert_eq!(exception.type_name, "java.lang.IllegalStateException");
    let message: Vec<u16> = "bad "
        .encode_utf16()
        .chain([0xde00])
        .chain(" at 7".encode_utf16())
        .collect();
    assert_eq!(exception.message, Some(lone(&message)));
    let frame = exception.frame.as_ref().expect("a frame in the class");
    assert_eq!((frame.method.as_str(), frame.line), ("check", Some(21)));

    // The probe trace of the same test: every method entered once, the lines, the branch.
    let file = &r0.trace.files[0];
    assert_eq!(file.key, "lone/Halves.java#h1");
    assert_eq!(file.methods, [(0, 1), (1, 1), (2, 1), (3, 1), (4, 1)]);
    assert_eq!(
        file.lines,
        [(8, 1), (12, 1), (16, 1), (20, 1), (21, 1), (27, 1)]
    );
    let branches: Vec<_> = file
        .branches
        .iter()
        .map(|b| (b.id, b.hits, b.true_distance, b.false_distance))
        .collect();
    assert_eq!(branches, [(0, 1, 0.0, 7.0)]);

    // The next test of the batch ran, in the same worker.
    let r1 = &r[1];
    assert_eq!(r1.status, TestStatus::Ok, "{r1:#?}");
    assert_eq!(int_value(r1, 1), 0);
    assert_eq!(r1.trace.files[0].branches[0].false_distance, 0.0);
}

/// Text the worker does not send exactly (messages, names) never carries a lone surrogate, which
/// JSON readers refuse: it becomes U+FFFD, and a surrogate pair stays whole. The worker runs by
/// hand in its stdin/stdout mode here, so that a request can carry what the supervisor never
/// sends: an op it echoes in its rejection.
#[test]
fn free_text_never_carries_a_lone_surrogate() {
    use std::io::{Read, Write};
    use std::process::{Command, Stdio};

    let mut sup = supervisor();
    sup.start().unwrap();
    let pid = sup.worker_pid().expect("a running worker");
    let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap();
    let args: Vec<String> = cmdline
        .split(|&b| b == 0)
        .map(|a| String::from_utf8_lossy(a).into_owned())
        .collect();
    let class_path = args
        .iter()
        .position(|a| a == "-cp")
        .map(|i| args[i + 1].clone())
        .expect("the worker's class path");
    let mut worker = Command::new(&sup.jdk().java)
        .args(["-cp", &class_path, "ctgls.worker.Main", "--no-exit-guard"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let requests = concat!(
        r#"{"id":1,"op":"high \ud800, low \udfff, reversed \ude00\ud83d"}"#,
        "\n",
        r#"{"id":2,"op":"pair \ud83d\ude00"}"#,
        "\n",
        r#"{"id":3,"op":"shutdown"}"#,
        "\n",
    );
    let mut stdin = worker.stdin.take().unwrap();
    stdin.write_all(requests.as_bytes()).unwrap();
    drop(stdin);
    let mut replies = String::new();
    worker
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut replies)
        .unwrap();
    worker.wait().unwrap();
    let messages: Vec<String> = replies
        .lines()
        .map(|line| {
            let reply: serde_json::Value =
                serde_json::from_str(line).unwrap_or_else(|e| panic!("{line}: {e}"));
            reply["error"]["message"].as_str().unwrap_or("").to_string()
        })
        .collect();
    assert_eq!(
        messages,
        [
            "unknown op 'high \u{fffd}, low \u{fffd}, reversed \u{fffd}\u{fffd}'",
            "unknown op 'pair \u{1F600}'",
            "",
        ]
    );
}

/// Sources for the access tests: `p.Sub` (package-private) extends `p.Mid`, which extends
/// `q.Base` of another package.
fn access_unit(sup: &mut Supervisor) -> UnitId {
    let result = sup
        .compile(&CompileRequest {
            sources: vec![
                source(
                    "q/Base.java",
                    "package q;\npublic class Base {\n    protected int f;\n    int g;\n    \
                     private int h;\n    protected int p() { return 1; }\n    \
                     int hiddenInQ() { return 2; }\n    public int pub() { return 3; }\n    \
                     protected int getShared() { return 4; }\n}\n",
                ),
                source(
                    "p/Mid.java",
                    "package p;\npublic class Mid extends q.Base {\n    int own() { return 5; }\n    \
                     int getCount() { return 7; }\n    private int secret() { return 0; }\n    \
                     protected int getShared() { return 6; }\n    static class Nested {}\n    \
                     private static class Private {}\n}\n",
                ),
                source("p/Sub.java", "package p;\nclass Sub extends Mid {\n    Sub() {}\n}\n"),
            ],
            ..CompileRequest::default()
        })
        .unwrap();
    result
        .unit
        .unwrap_or_else(|| panic!("{:#?}", result.diagnostics))
}

/// `describe` reports the non-private members of a class (JLS 8.4.8: a package-private method
/// of another package is not inherited) with their modifiers, and each class's package and
/// effective access; which of them a test can use is the client's decision.
#[test]
fn describe_reports_non_private_members_with_modifiers_package_and_access() {
    let mut sup = supervisor();
    let unit = access_unit(&mut sup);
    let d = sup
        .describe(
            unit,
            &[
                "p.Sub".into(),
                "p.Mid$Nested".into(),
                "p.Mid$Private".into(),
            ],
            0,
        )
        .unwrap();
    let sub = &d.classes[0];
    assert_eq!(
        (sub.package.as_str(), sub.access.as_str()),
        ("p", "package")
    );
    assert!(!sub.is_public);
    let methods: Vec<(String, String, String)> = sub
        .methods
        .iter()
        .map(|m| {
            (
                m.name.clone(),
                m.declaring_class.clone(),
                m.modifiers.join(" "),
            )
        })
        .collect();
    let expected = [
        ("getCount", "p.Mid", ""),
        ("getShared", "p.Mid", "protected"),
        ("own", "p.Mid", ""),
        ("p", "q.Base", "protected"),
        ("pub", "q.Base", "public"),
    ];
    assert_eq!(
        methods,
        expected.map(|(a, b, c)| (a.to_string(), b.to_string(), c.to_string())),
    );
    let fields: Vec<(&str, &str, String)> = sub
        .fields
        .iter()
        .map(|f| {
            (
                f.name.as_str(),
                f.declaring_class.as_str(),
                f.modifiers.join(" "),
            )
        })
        .collect();
    assert_eq!(fields, [("f", "q.Base", "protected".to_string())]);
    assert_eq!(sub.constructors.len(), 1);
    assert!(sub.constructors[0].modifiers.is_empty());
    assert_eq!(d.classes[1].access, "package");
    assert_eq!(d.classes[2].access, "private");

    // Mid's subclasses list the package-private Sub.
    let d = sup.describe(unit, &["p.Mid".into()], 0).unwrap();
    assert_eq!(d.classes[0].subclasses, ["p.Sub"]);
}

/// Getters declared package-private or protected in the test's package are observed (a test
/// there can call them); without a test package, or for another one, only public ones are.
#[test]
fn package_private_getters_are_observed_for_a_test_in_their_package() {
    let mut sup = supervisor();
    let unit = access_unit(&mut sup);
    let t = test(vec![new("p.Sub", &[], &[])]);
    let observed = |sup: &mut Supervisor, package: Option<&str>| {
        let opts = ExecuteOptions {
            observe_getters: true,
            test_package: package.map(str::to_string),
            ..options(2000)
        };
        let r = finished(sup.execute(unit, std::slice::from_ref(&t), &opts).unwrap());
        assert_eq!(r[0].status, TestStatus::Ok, "{:#?}", r[0]);
        value(&r[0], 0)
            .getters
            .iter()
            .map(|g| (g.name.clone(), g.outcome.clone()))
            .collect::<Vec<_>>()
    };
    assert_eq!(
        observed(&mut sup, Some("p")),
        [
            (
                "getCount".to_string(),
                GetterOutcome::Value(ObservedValue::Integer(7))
            ),
            (
                "getShared".to_string(),
                GetterOutcome::Value(ObservedValue::Integer(6))
            ),
        ]
    );
    assert!(observed(&mut sup, None).is_empty());
    assert!(observed(&mut sup, Some("q")).is_empty());
}
