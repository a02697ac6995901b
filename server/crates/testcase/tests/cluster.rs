//! Building test clusters from descriptions: targets, generics, reachability and reasons.

mod common;

use rand::rngs::StdRng;
use rand::SeedableRng;

use common::*;
use testcase::*;

fn targets(c: &Cluster) -> Vec<String> {
    c.targets().map(|t| t.to_string()).collect()
}

#[test]
fn targets_are_the_public_members_of_the_class_under_test() {
    let c = cluster(&bank(), "bank.Account");
    expect_test::expect![[r#"
        [
            "bank.Account.<init>(java.lang.String, long)",
            "bank.Account.deposit(long)",
            "bank.Account.getBalance()",
            "bank.Account.getOwner()",
            "bank.Account.interest(int)",
            "bank.Account.isOverdrawn()",
            "bank.Account.setLevel(bank.Level)",
            "bank.Account.withdraw(long)",
            "bank.Account.label",
            "bank.Account.label=",
        ]
    "#]]
    .assert_debug_eq(&targets(&c));
    assert!(c.unreachable().is_empty(), "{:?}", c.unreachable());
}

#[test]
fn inherited_jdk_methods_are_not_targets() {
    let c = cluster(&bank(), "bank.Level");
    expect_test::expect![[r#"
        [
            "bank.Level.valueOf(java.lang.String)",
            "bank.Level.values()",
        ]
    "#]]
    .assert_debug_eq(&targets(&c));
}

#[test]
fn instance_members_of_interfaces_and_abstract_classes_use_project_subclasses() {
    let c = cluster(&shapes(), "shapes.Shape");
    assert_eq!(targets(&c), vec!["shapes.Shape.area()"]);
    let c = cluster(&shapes(), "shapes.AbstractShape");
    assert_eq!(targets(&c).len(), 3);
}

#[test]
fn a_class_nothing_can_instantiate_is_reported_with_the_reason() {
    let mut types = shapes();
    types.retain(|t| t.name != "shapes.Circle" && t.name != "shapes.Square");
    for t in &mut types {
        t.subclasses.clear();
    }
    let err = Cluster::build("shapes.AbstractShape", &types, &[], ConstantPool::new()).unwrap_err();
    assert_eq!(
        err.to_string(),
        "nothing instantiable in shapes.AbstractShape (shapes.AbstractShape is an abstract class \
         with no accessible subclass in the project)"
    );
    let err = Cluster::build("shapes.Shape", &types, &[], ConstantPool::new()).unwrap_err();
    assert!(
        err.to_string().contains("interface with no implementation"),
        "{err}"
    );

    let mut private = ty("p.Hidden", TypeKind::Class);
    private.methods = vec![method("p.Hidden", "run", vec![], "void", "void")];
    let err = Cluster::build("p.Hidden", &[private], &[], ConstantPool::new()).unwrap_err();
    assert!(
        err.to_string()
            .contains("no accessible constructor, static factory or static field"),
        "{err}"
    );
}

#[test]
fn a_class_that_could_not_be_loaded_is_reported_with_its_reason() {
    let missing = [MissingType {
        name: "p.Gone".into(),
        reason: "java.lang.NoClassDefFoundError: p/Dep".into(),
    }];
    let err = Cluster::build("p.Gone", &bank(), &missing, ConstantPool::new()).unwrap_err();
    assert_eq!(
        err,
        ClusterError::NotDescribed {
            class: "p.Gone".into(),
            reason: "java.lang.NoClassDefFoundError: p/Dep".into()
        }
    );
}

#[test]
fn parameter_types_without_generators_are_listed_as_unreachable() {
    let c = cluster(&misc(), "misc.Tools");
    assert_eq!(
        c.unreachable(),
        &[Unreachable {
            type_name: "misc.Task".into(),
            reason: "misc.Task is an interface with no implementation in the project".into()
        }]
    );
    // The method stays a target: null is a valid argument.
    assert!(targets(&c).contains(&"misc.Tools.run(misc.Task)".to_string()));
}

#[test]
fn built_in_values_cover_the_jdk_containers_and_char_sequences() {
    let c = cluster(&bank(), "bank.Account");
    for covered in [
        "java.util.List",
        "java.util.Map",
        "java.lang.Iterable",
        "java.lang.CharSequence",
    ] {
        assert!(c.has_builtin_values(covered), "{covered}");
    }
    for not_covered in ["java.util.Comparator", "java.util.Iterator", "bank.Account"] {
        assert!(!c.has_builtin_values(not_covered), "{not_covered}");
    }
}

#[test]
fn readers_writers_streams_and_iterators_are_built_in_memory() {
    let c = cluster(&streams(), "io.Lines");
    assert_eq!(c.unreachable(), &[], "every parameter type can be built");
    for covered in [
        "java.io.Reader",
        "java.io.InputStream",
        "java.io.Writer",
        "java.io.OutputStream",
        "java.lang.Appendable",
        "java.io.Closeable",
    ] {
        assert!(c.has_builtin_values(covered), "{covered}");
    }
    // Random tests pass each parameter a value of an in-memory implementation (not only null).
    let variation = Variation::default();
    let mut rng = StdRng::seed_from_u64(4);
    let mut built = std::collections::BTreeSet::new();
    for _ in 0..200 {
        for s in variation.random_test(&c, &mut rng).statements() {
            if let Some(callable) = s.callable() {
                built.insert(callable.to_string());
            }
        }
    }
    for wanted in [
        "java.io.StringReader.<init>(java.lang.String)",
        "java.io.ByteArrayInputStream.<init>(byte[])",
        "java.io.StringWriter.<init>()",
        "java.io.ByteArrayOutputStream.<init>()",
        "java.util.ArrayList.iterator()",
    ] {
        assert!(built.contains(wanted), "{wanted} never built: {built:#?}");
    }
}

#[test]
fn generic_members_resolve_through_the_receivers_type_arguments() {
    let c = cluster(&shapes(), "shapes.Registry");
    let sig = |owner: &str, name: &str, receiver: &JavaType| {
        let t = c
            .targets()
            .chain(cluster(&shapes(), owner).targets())
            .find(|t| t.owner == owner && t.name() == name)
            .unwrap()
            .clone();
        let cl = cluster(&shapes(), owner);
        let s = cl
            .signature(&t, CallContext::Receiver(receiver), &[])
            .unwrap();
        (
            s.params.iter().map(|p| p.to_string()).collect::<Vec<_>>(),
            s.returns.map(|r| r.to_string()),
        )
    };
    let registry = JavaType::generic(
        "shapes.Registry",
        vec![JavaType::string(), JavaType::class("shapes.Circle")],
    );
    assert_eq!(
        sig("shapes.Registry", "putAll", &registry),
        (
            vec![
                "java.lang.String".to_string(),
                "java.util.List<shapes.Circle>".to_string()
            ],
            None
        )
    );
    // `Set<? extends K>` is not a type a variable can be declared as: erased.
    assert_eq!(
        sig("shapes.Registry", "keys", &registry).1.as_deref(),
        Some("java.util.Set")
    );
    // Circle extends AbstractShape<Double>.
    assert_eq!(
        sig(
            "shapes.Circle",
            "getSize",
            &JavaType::class("shapes.Circle")
        )
        .1
        .as_deref(),
        Some("java.lang.Double")
    );
    assert_eq!(
        sig(
            "shapes.Circle",
            "setSize",
            &JavaType::class("shapes.Circle")
        )
        .0,
        vec!["java.lang.Double".to_string()]
    );
}

#[test]
fn the_constant_pool_holds_the_literals_of_the_class() {
    let src = "package p;\nclass Other { String s = \"other\"; }\npublic class A {\n  int f(int x) { if (x == 42) return -7; return x > 'c' ? 1 : 0; }\n  String g() { return \"EUR\"; }\n}\n";
    let tree = syntax::parse_java(src, None);
    let model = javamodel::JavaModel::build(src, &tree);
    let decl = model.type_by_binary_name("p.A").unwrap();
    let pool = ConstantPool::from_type(src, &tree, decl);
    assert_eq!(
        pool.candidates(LiteralKind::Primitive(PrimitiveKind::Int)),
        vec![
            PrimitiveValue::Int(42),
            PrimitiveValue::Int(-7),
            PrimitiveValue::Int(1),
            PrimitiveValue::Int(0),
            PrimitiveValue::Int(99),
        ]
    );
    assert_eq!(
        pool.candidates(LiteralKind::String),
        vec![PrimitiveValue::String("EUR".into())]
    );
}

#[test]
fn clusters_and_test_cases_can_move_between_threads() {
    fn send_sync<T: Send + Sync>() {}
    send_sync::<Cluster>();
    send_sync::<TestCase>();
    send_sync::<Variation>();
}

/// An implemented interface with its type arguments binds the interface's variables: on a
/// `Tag implements Named<Integer>`, `Named<T>.label(T)` takes an `Integer`.
#[test]
fn type_arguments_of_implemented_interfaces_bind_their_variables() {
    let label = method(
        "p.Named",
        "label",
        vec![param("java.lang.Object", "T")],
        "java.lang.String",
        "java.lang.String",
    );
    let mut named = ty("p.Named", TypeKind::Interface);
    named.type_parameters = vec!["T".into()];
    named.methods = vec![label.clone()];
    let mut tag = ty("p.Tag", TypeKind::Class);
    tag.interfaces = vec!["p.Named<java.lang.Integer>".into()];
    tag.constructors = vec![ctor(vec![])];
    tag.methods = vec![label];
    let c = Cluster::build("p.Tag", &[tag, named], &[], ConstantPool::new()).unwrap();
    assert!(c.skipped_targets().is_empty(), "{:?}", c.skipped_targets());
    let label = c.targets().find(|t| t.name() == "label").unwrap();
    let receiver = JavaType::class("p.Tag");
    let signature = c
        .signature(label, CallContext::Receiver(&receiver), &[])
        .unwrap();
    assert_eq!(signature.params, vec![JavaType::class("java.lang.Integer")]);
}

#[test]
fn members_with_unresolvable_type_variables_are_skipped_with_a_reason() {
    // `label(T)` comes from a generic interface reflection reports raw: T is unknown here.
    let mut tag = ty("p.Tag", TypeKind::Class);
    tag.interfaces = vec!["p.Named".into()];
    tag.constructors = vec![ctor(vec![])];
    tag.methods = vec![
        method(
            "p.Named",
            "label",
            vec![param("java.lang.Object", "T")],
            "java.lang.String",
            "java.lang.String",
        ),
        method("p.Tag", "size", vec![], "int", "int"),
    ];
    let c = Cluster::build("p.Tag", &[tag], &[], ConstantPool::new()).unwrap();
    assert_eq!(targets(&c), vec!["p.Tag.<init>()", "p.Tag.size()"]);
    assert_eq!(
        c.skipped_targets(),
        &[SkippedTarget {
            member: "p.Tag.label(java.lang.Object)".into(),
            reason: "its signature mentions type variables reflection did not resolve".into()
        }]
    );
}

/// `text.Parser` (package-private constructor and methods, a protected method, a package-private
/// static nested class and a private one), a package-private helper `text.Token`, and what it
/// inherits from `base.Scanner` of another package (a protected and a package-private method,
/// a protected field, and a public method taking `base.Hidden`, a package-private class there).
fn parser_types() -> Vec<TypeDescription> {
    let with = |mut m: MethodDescription, access| {
        m.access = access;
        m
    };
    let parser = "text.Parser";
    let mut t = ty(parser, TypeKind::Class);
    t.superclass = Some("base.Scanner".into());
    t.constructors = vec![ConstructorDescription {
        access: Access::Package,
        ..ctor(vec![p("java.lang.String")])
    }];
    t.methods = vec![
        with(
            method(parser, "number", vec![], "int", "int"),
            Access::Package,
        ),
        with(
            method(parser, "atEnd", vec![], "boolean", "boolean"),
            Access::Protected,
        ),
        with(
            method(
                parser,
                "matches",
                vec![p("text.Token")],
                "boolean",
                "boolean",
            ),
            Access::Package,
        ),
        with(
            method(
                parser,
                "covers",
                vec![p("text.Parser$Span")],
                "boolean",
                "boolean",
            ),
            Access::Package,
        ),
        with(
            method(
                parser,
                "remember",
                vec![p("text.Parser$Cache")],
                "void",
                "void",
            ),
            Access::Package,
        ),
        with(
            method("base.Scanner", "reset", vec![], "void", "void"),
            Access::Protected,
        ),
        with(
            method("base.Scanner", "mark", vec![], "void", "void"),
            Access::Package,
        ),
        method(
            "base.Scanner",
            "accepts",
            vec![p("base.Hidden")],
            "boolean",
            "boolean",
        ),
        method("base.Scanner", "limit", vec![], "int", "int"),
    ];
    t.fields = vec![FieldDescription {
        access: Access::Protected,
        ..field("base.Scanner", "limit", "int", false, false)
    }];
    let mut token = ty("text.Token", TypeKind::Class);
    token.access = Access::Package;
    token.is_public = false;
    token.constructors = vec![ConstructorDescription {
        access: Access::Package,
        ..ctor(vec![p("java.lang.String")])
    }];
    let mut span = ty("text.Parser$Span", TypeKind::Class);
    span.access = Access::Package;
    span.constructors = vec![ConstructorDescription {
        access: Access::Package,
        ..ctor(vec![p("int"), p("int")])
    }];
    let mut cache = ty("text.Parser$Cache", TypeKind::Class);
    cache.access = Access::Private;
    cache.constructors = vec![ctor(vec![])];
    let mut hidden = ty("base.Hidden", TypeKind::Class);
    hidden.access = Access::Package;
    hidden.constructors = vec![ctor(vec![])];
    let mut scanner = ty("base.Scanner", TypeKind::Class);
    scanner.constructors = vec![ctor(vec![])];
    vec![t, token, span, cache, hidden, scanner]
}

#[test]
fn a_test_in_the_package_reaches_its_package_private_and_protected_members_only() {
    let c = cluster(&parser_types(), "text.Parser");
    expect_test::expect![[r#"
        [
            "text.Parser.<init>(java.lang.String)",
            "text.Parser.atEnd()",
            "text.Parser.covers(text.Parser$Span)",
            "text.Parser.limit()",
            "text.Parser.matches(text.Token)",
            "text.Parser.number()",
        ]
    "#]]
    .assert_debug_eq(&{
        let mut t = targets(&c);
        t.sort();
        t
    });
    // Package-private classes of the package and its nested ones can be built for parameters;
    // a private nested class and a package-private class of another package cannot.
    assert!(c.can_build(&JavaType::class("text.Token")));
    assert!(c.can_build(&JavaType::class("text.Parser$Span")));
    assert!(!c.can_build(&JavaType::class("text.Parser$Cache")));
    assert!(!c.can_build(&JavaType::class("base.Hidden")));
}

#[test]
fn the_same_members_are_out_of_reach_of_a_test_in_another_package() {
    // `base.Scanner` under test: its own protected and package-private members are in reach of
    // a test in `base`, and `base.Hidden` can be built there.
    let c = cluster(&parser_types(), "base.Scanner");
    assert!(c.can_build(&JavaType::class("base.Hidden")));
    // Nothing of package `text` is: the parser's constructor is package-private.
    assert!(!c.can_build(&JavaType::class("text.Parser")));
    assert!(!c.can_build(&JavaType::class("text.Token")));
}

#[test]
fn a_private_nested_class_of_the_unnamed_package_is_out_of_reach_too() {
    let mut parser = ty("Parser", TypeKind::Class);
    parser.constructors = vec![ConstructorDescription {
        access: Access::Package,
        ..ctor(vec![])
    }];
    parser.methods = vec![
        MethodDescription {
            access: Access::Package,
            ..method(
                "Parser",
                "remember",
                vec![p("Parser$Cache")],
                "void",
                "void",
            )
        },
        MethodDescription {
            access: Access::Package,
            ..method("Parser", "size", vec![], "int", "int")
        },
    ];
    let mut cache = ty("Parser$Cache", TypeKind::Class);
    cache.access = Access::Private;
    cache.constructors = vec![ctor(vec![])];
    let c = cluster(&[parser, cache], "Parser");
    assert_eq!(targets(&c), ["Parser.<init>()", "Parser.size()"]);
}

/// The `Optional.<init>`-like generators `random_test` used over 300 tests of `misc.Tools`.
fn jdk_callables_built(c: &Cluster) -> std::collections::BTreeSet<String> {
    let variation = Variation::default();
    let mut rng = StdRng::seed_from_u64(11);
    let mut built = std::collections::BTreeSet::new();
    for _ in 0..300 {
        for s in variation.random_test(c, &mut rng).statements() {
            if let Some(callable) = s.callable() {
                built.insert(callable.to_string());
            }
        }
    }
    built
}

#[test]
fn built_ins_are_those_of_the_release_the_tests_compile_at() {
    // A Java 7 project's tests once failed to compile on `Optional.of`, which the cluster
    // offered for an `Object` parameter whatever the release.
    let at = |release: Option<u32>| {
        Cluster::build_at("misc.Tools", &misc(), &[], ConstantPool::new(), release)
            .unwrap_or_else(|e| panic!("{e}"))
    };
    let optional = |built: &std::collections::BTreeSet<String>| {
        built.iter().any(|c| c.starts_with("java.util.Optional."))
    };
    let seven = at(Some(7));
    let built = jdk_callables_built(&seven);
    assert!(!optional(&built), "{built:#?}");
    assert!(built.iter().any(|c| c.starts_with("java.util.ArrayList.")));
    assert!(!seven.has_builtin_values("java.util.Optional"));
    // Before 11 a `StringBuilder` is no `Comparable`.
    assert!(!seven.has_builtin_values("java.lang.Comparable"));
    for release in [Some(8), None] {
        let built = jdk_callables_built(&at(release));
        assert!(optional(&built), "{release:?}: {built:#?}");
    }
    assert!(at(Some(11)).has_builtin_values("java.lang.Comparable"));
}
