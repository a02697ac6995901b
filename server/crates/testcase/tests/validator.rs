//! The validator rejects what javac or the worker would reject, so that the operator property
//! tests can fail.

mod common;

use std::sync::Arc;

use common::*;
use testcase::*;

fn target(c: &Cluster, display: &str) -> Arc<Callable> {
    c.targets()
        .find(|t| t.to_string() == display)
        .unwrap_or_else(|| panic!("no target {display}"))
        .clone()
}

fn string(s: &str) -> Statement {
    Statement::Primitive(PrimitiveValue::String(s.into()))
}

fn long(v: i64) -> Statement {
    Statement::Primitive(PrimitiveValue::Long(v))
}

fn account(c: &Cluster, owner: usize, limit: usize) -> Statement {
    Statement::Constructor {
        callable: target(c, "bank.Account.<init>(java.lang.String, long)"),
        type_args: vec![],
        args: vec![VarRef(owner), VarRef(limit)],
        ty: JavaType::class("bank.Account"),
    }
}

fn deposit(c: &Cluster, receiver: usize, amount: usize) -> Statement {
    Statement::Method {
        callable: target(c, "bank.Account.deposit(long)"),
        receiver: Some(VarRef(receiver)),
        type_args: vec![],
        args: vec![VarRef(amount)],
        ty: None,
    }
}

fn check(c: &Cluster, statements: Vec<Statement>) -> Result<(), String> {
    check_well_typed(&TestCase::from_statements(statements), c).map_err(|e| e.to_string())
}

#[test]
fn a_well_typed_test_case_passes() {
    let c = cluster(&bank(), "bank.Account");
    let ok = vec![
        string("ann"),
        long(5),
        account(&c, 0, 1),
        deposit(&c, 2, 1),
        Statement::Primitive(PrimitiveValue::Int(7)),
        // int widens to long.
        deposit(&c, 2, 4),
    ];
    assert_eq!(check(&c, ok), Ok(()));
}

#[test]
fn references_must_point_back_to_values() {
    let c = cluster(&bank(), "bank.Account");
    let forward = vec![string("ann"), account(&c, 0, 2), long(5)];
    assert_eq!(
        check(&c, forward),
        Err("statement 1: refers to statement 2 which is not earlier".into())
    );
    let void = vec![
        string("a"),
        long(1),
        account(&c, 0, 1),
        deposit(&c, 2, 1),
        deposit(&c, 2, 3),
    ];
    assert_eq!(
        check(&c, void),
        Err("statement 4: refers to statement 3 which defines no value".into())
    );
}

#[test]
fn argument_types_must_fit() {
    let c = cluster(&bank(), "bank.Account");
    let swapped = vec![string("ann"), long(5), account(&c, 1, 0)];
    assert_eq!(
        check(&c, swapped),
        Err("statement 2: statement 1 of type long does not fit java.lang.String".into())
    );
    let narrowing = vec![
        string("ann"),
        long(5),
        account(&c, 0, 1),
        Statement::Primitive(PrimitiveValue::Double(1.0)),
        deposit(&c, 2, 3),
    ];
    assert!(check(&c, narrowing)
        .unwrap_err()
        .contains("does not fit long"));
}

#[test]
fn receivers_must_not_be_null_and_nullable_values_are_not_unboxed() {
    let c = cluster(&bank(), "bank.Account");
    let null_receiver = vec![
        Statement::Null(JavaType::class("bank.Account")),
        long(1),
        deposit(&c, 0, 1),
    ];
    assert_eq!(
        check(&c, null_receiver),
        Err("statement 2: receiver 0 is null".into())
    );

    let m = cluster(&misc(), "misc.Tools");
    let tools = Statement::Constructor {
        callable: target(&m, "misc.Tools.<init>()"),
        type_args: vec![],
        args: vec![],
        ty: JavaType::class("misc.Tools"),
    };
    let count = Statement::Method {
        callable: target(&m, "misc.Tools.count()"),
        receiver: Some(VarRef(0)),
        type_args: vec![],
        args: vec![],
        ty: Some(JavaType::class("java.lang.Integer")),
    };
    let twice = |arg| Statement::Method {
        callable: target(&m, "misc.Tools.twice(int)"),
        receiver: Some(VarRef(0)),
        type_args: vec![],
        args: vec![VarRef(arg)],
        ty: Some(JavaType::Primitive(PrimitiveKind::Int)),
    };
    assert_eq!(
        check(&m, vec![tools.clone(), count.clone(), twice(1)]),
        Err("statement 2: statement 1 may be null but is unboxed into int".into())
    );
    // A declared primitive cannot hide a nullable result either.
    let mut hidden = count;
    if let Statement::Method { ty, .. } = &mut hidden {
        *ty = Some(JavaType::Primitive(PrimitiveKind::Int));
    }
    assert!(check(&m, vec![tools, hidden])
        .unwrap_err()
        .contains("cannot be declared as int"));
}

#[test]
fn callables_must_come_from_the_cluster_and_be_used_as_declared() {
    let c = cluster(&bank(), "bank.Account");
    let mut foreign = (*target(&c, "bank.Account.deposit(long)")).clone();
    foreign.erased_params = vec!["int".into()];
    let s = vec![
        string("a"),
        long(1),
        account(&c, 0, 1),
        Statement::Method {
            callable: Arc::new(foreign),
            receiver: Some(VarRef(2)),
            type_args: vec![],
            args: vec![VarRef(1)],
            ty: None,
        },
    ];
    assert!(check(&c, s)
        .unwrap_err()
        .contains("is not in the test cluster"));

    let p = cluster(&bank(), "bank.AmountParser");
    let format = target(&p, "bank.AmountParser.format(long)");
    let with_receiver = vec![
        long(1),
        Statement::Method {
            callable: format,
            receiver: Some(VarRef(0)),
            type_args: vec![],
            args: vec![VarRef(0)],
            ty: Some(JavaType::string()),
        },
    ];
    assert!(check(&p, with_receiver)
        .unwrap_err()
        .contains("is static but has a receiver"));

    let wrong_constant = vec![Statement::EnumConstant {
        ty: JavaType::class("bank.Level"),
        name: "PLATINUM".into(),
    }];
    assert!(check(&c, wrong_constant)
        .unwrap_err()
        .contains("is not an enum constant"));
}

#[test]
fn arrays_are_stored_into_within_bounds_with_fitting_elements() {
    let m = cluster(&misc(), "misc.Tools");
    let array = Statement::ArrayNew {
        component: JavaType::Primitive(PrimitiveKind::Int),
        length: 2,
    };
    let store = |index, value| Statement::ArrayStore {
        array: VarRef(0),
        index,
        value: VarRef(value),
    };
    let int = Statement::Primitive(PrimitiveValue::Int(3));
    assert_eq!(
        check(&m, vec![array.clone(), int.clone(), store(1, 1)]),
        Ok(())
    );
    assert!(check(&m, vec![array.clone(), int, store(2, 1)])
        .unwrap_err()
        .contains("index 2 out of bounds"));
    assert!(check(&m, vec![array, long(3), store(0, 1)])
        .unwrap_err()
        .contains("does not fit int"));
}

#[test]
fn type_arguments_are_invariant() {
    let c = cluster(&shapes(), "shapes.Registry");
    let registry = Statement::Constructor {
        callable: target(&c, "shapes.Registry.<init>()"),
        type_args: vec![
            JavaType::class("java.lang.Integer"),
            JavaType::class("shapes.Shape"),
        ],
        args: vec![],
        ty: JavaType::generic(
            "shapes.Registry",
            vec![
                JavaType::class("java.lang.Integer"),
                JavaType::class("shapes.Shape"),
            ],
        ),
    };
    let list_of = |element: &str| {
        Statement::Null(JavaType::generic(
            "java.util.List",
            vec![JavaType::class(element)],
        ))
    };
    let put_all = Statement::Method {
        callable: target(
            &c,
            "shapes.Registry.putAll(java.lang.Comparable, java.util.List)",
        ),
        receiver: Some(VarRef(0)),
        type_args: vec![],
        args: vec![VarRef(1), VarRef(2)],
        ty: None,
    };
    let key = Statement::Primitive(PrimitiveValue::Int(1));
    assert_eq!(
        check(
            &c,
            vec![
                registry.clone(),
                key.clone(),
                list_of("shapes.Shape"),
                put_all.clone()
            ]
        ),
        Ok(())
    );
    assert_eq!(
        check(&c, vec![registry, key, list_of("shapes.Circle"), put_all]),
        Err(
            "statement 3: statement 2 of type java.util.List<shapes.Circle> does not fit \
             java.util.List<shapes.Shape>"
                .into()
        )
    );
}
