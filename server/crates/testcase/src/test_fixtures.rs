//! A small cluster for unit tests inside the crate (the integration tests have richer ones).

use std::sync::Arc;

use crate::callable::Callable;
use crate::cluster::Cluster;
use crate::description::*;
use crate::pool::ConstantPool;
use crate::statement::{Statement, VarRef};
use crate::types::JavaType;
use crate::value::PrimitiveValue;

fn p(t: &str) -> ParamDescription {
    ParamDescription {
        type_name: t.into(),
        generic: t.into(),
    }
}

/// `b.Account(String, long)` with `deposit(long)`, `b.Bank()` with `open(String, long)`.
pub fn bank_cluster() -> Cluster {
    let method = |owner: &str, name: &str, params, ret: &str| MethodDescription {
        access: Access::Public,
        name: name.into(),
        declaring_class: owner.into(),
        is_static: false,
        return_type: ret.into(),
        generic_return_type: Some(ret.into()),
        params,
        exceptions: vec![],
        varargs: false,
        type_parameters: vec![],
    };
    let ty = |name: &str, params: Vec<ParamDescription>, methods| TypeDescription {
        access: Access::Public,
        name: name.into(),
        kind: TypeKind::Class,
        is_public: true,
        project: true,
        inner_class: false,
        superclass: Some("java.lang.Object".into()),
        interfaces: vec![],
        type_parameters: vec![],
        constructors: vec![ConstructorDescription {
            access: Access::Public,
            params,
            exceptions: vec![],
            varargs: false,
            type_parameters: vec![],
        }],
        methods,
        fields: vec![],
        enum_constants: vec![],
        subclasses: vec![],
    };
    let account = ty(
        "b.Account",
        vec![p("java.lang.String"), p("long")],
        vec![method("b.Account", "deposit", vec![p("long")], "void")],
    );
    let bank = ty(
        "b.Bank",
        vec![],
        vec![method(
            "b.Bank",
            "open",
            vec![p("java.lang.String"), p("long")],
            "b.Account",
        )],
    );
    Cluster::build("b.Account", &[account, bank], &[], ConstantPool::new()).unwrap()
}

/// `g.Holder(Object)` with `hold(Cloneable)` and `text(CharSequence)`: parameters of the
/// general types arrays and other concrete types fit.
pub fn general_cluster() -> Cluster {
    let method = |name: &str, param: &str| MethodDescription {
        access: Access::Public,
        name: name.into(),
        declaring_class: "g.Holder".into(),
        is_static: false,
        return_type: "void".into(),
        generic_return_type: Some("void".into()),
        params: vec![p(param)],
        exceptions: vec![],
        varargs: false,
        type_parameters: vec![],
    };
    let holder = TypeDescription {
        access: Access::Public,
        name: "g.Holder".into(),
        kind: TypeKind::Class,
        is_public: true,
        project: true,
        inner_class: false,
        superclass: Some("java.lang.Object".into()),
        interfaces: vec![],
        type_parameters: vec![],
        constructors: vec![ConstructorDescription {
            access: Access::Public,
            params: vec![p("java.lang.Object")],
            exceptions: vec![],
            varargs: false,
            type_parameters: vec![],
        }],
        methods: vec![
            method("hold", "java.lang.Cloneable"),
            method("text", "java.lang.CharSequence"),
        ],
        fields: vec![],
        enum_constants: vec![],
        subclasses: vec![],
    };
    Cluster::build("g.Holder", &[holder], &[], ConstantPool::new()).unwrap()
}

pub fn callable(c: &Cluster, display: &str) -> Arc<Callable> {
    (0..)
        .map(|i| c.callable(i))
        .find(|t| t.to_string() == display)
        .unwrap()
        .clone()
}

pub fn string(s: &str) -> Statement {
    Statement::Primitive(PrimitiveValue::String(s.into()))
}

pub fn long(v: i64) -> Statement {
    Statement::Primitive(PrimitiveValue::Long(v))
}

pub fn new_account(c: &Cluster, owner: usize, limit: usize) -> Statement {
    Statement::Constructor {
        callable: callable(c, "b.Account.<init>(java.lang.String, long)"),
        type_args: vec![],
        args: vec![VarRef(owner), VarRef(limit)],
        ty: JavaType::class("b.Account"),
    }
}

pub fn deposit(c: &Cluster, account: usize, amount: usize) -> Statement {
    Statement::Method {
        callable: callable(c, "b.Account.deposit(long)"),
        receiver: Some(VarRef(account)),
        type_args: vec![],
        args: vec![VarRef(amount)],
        ty: None,
    }
}

/// `k.Client.describe(k.Settings)`, where a `k.Settings` comes only from
/// `k.Settings$Builder.build()` and the builder has the chaining setters `retries(int)` and
/// `name(String)`.
pub fn builder_cluster() -> Cluster {
    let method = |owner: &str, name: &str, params, ret: &str, is_static| MethodDescription {
        access: Access::Public,
        name: name.into(),
        declaring_class: owner.into(),
        is_static,
        return_type: ret.into(),
        generic_return_type: Some(ret.into()),
        params,
        exceptions: vec![],
        varargs: false,
        type_parameters: vec![],
    };
    let ty = |name: &str, constructors, methods| TypeDescription {
        access: Access::Public,
        name: name.into(),
        kind: TypeKind::Class,
        is_public: true,
        project: true,
        inner_class: false,
        superclass: Some("java.lang.Object".into()),
        interfaces: vec![],
        type_parameters: vec![],
        constructors,
        methods,
        fields: vec![],
        enum_constants: vec![],
        subclasses: vec![],
    };
    let public_new = || {
        vec![ConstructorDescription {
            access: Access::Public,
            params: vec![],
            exceptions: vec![],
            varargs: false,
            type_parameters: vec![],
        }]
    };
    let b = "k.Settings$Builder";
    let builder = ty(
        b,
        public_new(),
        vec![
            method(b, "retries", vec![p("int")], b, false),
            method(b, "name", vec![p("java.lang.String")], b, false),
            method(b, "build", vec![], "k.Settings", false),
        ],
    );
    let settings = ty(
        "k.Settings",
        vec![],
        vec![method("k.Settings", "retries", vec![], "int", false)],
    );
    let client = ty(
        "k.Client",
        public_new(),
        vec![method(
            "k.Client",
            "describe",
            vec![p("k.Settings")],
            "java.lang.String",
            true,
        )],
    );
    Cluster::build(
        "k.Client",
        &[client, settings, builder],
        &[],
        ConstantPool::new(),
    )
    .unwrap()
}
