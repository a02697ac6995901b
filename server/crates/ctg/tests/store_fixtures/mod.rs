//! Subjects for the store tests, as reflection descriptions (the shape of the worker's
//! `describe` output), with a hook to edit them: a warm start meets the class as it is now.
#![allow(dead_code)]

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use ctg::store::{Coverage, FinishedRun, RunInfo, StoredTest, UndeclaredException};
use testcase::*;

pub const ACCOUNT: &str = "com.x.Account";
pub const LEVEL: &str = "com.x.Level";
pub const BOX: &str = "com.x.Box";
/// A nested class with a non-ASCII name.
pub const UNICODE: &str = "com.ex.Outer$Ünïcödé";

pub fn p(t: &str) -> ParamDescription {
    param(t, t)
}

pub fn param(erased: &str, generic: &str) -> ParamDescription {
    ParamDescription {
        type_name: erased.into(),
        generic: generic.into(),
    }
}

pub fn ty(name: &str, kind: TypeKind) -> TypeDescription {
    TypeDescription {
        access: Access::Public,
        name: name.into(),
        kind,
        is_public: true,
        project: true,
        inner_class: false,
        superclass: Some("java.lang.Object".into()),
        interfaces: vec![],
        type_parameters: vec![],
        constructors: vec![],
        methods: vec![],
        fields: vec![],
        enum_constants: vec![],
        subclasses: vec![],
    }
}

pub fn ctor(params: Vec<ParamDescription>) -> ConstructorDescription {
    ConstructorDescription {
        access: Access::Public,
        params,
        exceptions: vec![],
        varargs: false,
        type_parameters: vec![],
    }
}

pub fn method(
    declaring: &str,
    name: &str,
    params: Vec<ParamDescription>,
    ret: &str,
) -> MethodDescription {
    MethodDescription {
        access: Access::Public,
        name: name.into(),
        declaring_class: declaring.into(),
        is_static: false,
        return_type: ret.into(),
        generic_return_type: Some(ret.into()),
        params,
        exceptions: vec![],
        varargs: false,
        type_parameters: vec![],
    }
}

/// `com.x.Account`: a constructor, instance and static methods, a generic static method, a
/// public field, and parameters of an enum, a generic class and an array type.
pub fn account_types() -> Vec<TypeDescription> {
    let mut a = ty(ACCOUNT, TypeKind::Class);
    a.constructors = vec![ctor(vec![p("java.lang.String"), p("long")])];
    let mut parse = method(ACCOUNT, "parse", vec![p("java.lang.String")], "long");
    parse.is_static = true;
    let mut pick = method(
        ACCOUNT,
        "pick",
        vec![
            param("java.lang.Object", "T"),
            param("java.lang.Object", "T"),
        ],
        "java.lang.Object",
    );
    pick.is_static = true;
    pick.generic_return_type = Some("T".into());
    pick.type_parameters = vec!["T".into()];
    a.methods = vec![
        method(ACCOUNT, "deposit", vec![p("long")], "void"),
        method(ACCOUNT, "withdraw", vec![p("long")], "boolean"),
        method(ACCOUNT, "setLevel", vec![p(LEVEL)], "void"),
        method(ACCOUNT, "total", vec![p("long[]")], "long"),
        method(
            ACCOUNT,
            "keep",
            vec![param(BOX, "com.x.Box<java.lang.String>")],
            "void",
        ),
        method(
            ACCOUNT,
            "rate",
            vec![
                p("byte"),
                p("short"),
                p("char"),
                p("int"),
                p("float"),
                p("double"),
                p("boolean"),
            ],
            "double",
        ),
        parse,
        pick,
    ];
    a.fields = vec![FieldDescription {
        access: Access::Public,
        name: "label".into(),
        declaring_class: ACCOUNT.into(),
        type_name: "java.lang.String".into(),
        generic_type: Some("java.lang.String".into()),
        is_static: false,
        is_final: false,
    }];

    let mut level = ty(LEVEL, TypeKind::Enum);
    level.superclass = Some(format!("java.lang.Enum<{LEVEL}>"));
    level.enum_constants = vec!["BASIC".into(), "GOLD".into()];

    let mut boxed = ty(BOX, TypeKind::Class);
    boxed.type_parameters = vec!["T".into()];
    boxed.constructors = vec![ctor(vec![param("java.lang.Object", "T")])];
    boxed.methods = vec![MethodDescription {
        access: Access::Public,
        generic_return_type: Some("T".into()),
        ..method(BOX, "get", vec![], "java.lang.Object")
    }];
    vec![a, level, boxed]
}

/// `com.ex.Outer$Ünïcödé(String)` with `größe(int)`.
pub fn unicode_types() -> Vec<TypeDescription> {
    let mut u = ty(UNICODE, TypeKind::Class);
    u.constructors = vec![ctor(vec![p("java.lang.String")])];
    u.methods = vec![method(UNICODE, "größe", vec![p("int")], "int")];
    vec![u]
}

pub fn cluster(under_test: &str, types: &[TypeDescription]) -> Cluster {
    Cluster::build(under_test, types, &[], ConstantPool::new()).unwrap()
}

pub fn account_cluster() -> Cluster {
    cluster(ACCOUNT, &account_types())
}

/// The account cluster after `edit` changed its descriptions.
pub fn edited_account_cluster(edit: impl FnOnce(&mut Vec<TypeDescription>)) -> Cluster {
    let mut types = account_types();
    edit(&mut types);
    cluster(ACCOUNT, &types)
}

pub fn account_mut(types: &mut [TypeDescription]) -> &mut TypeDescription {
    types.iter_mut().find(|t| t.name == ACCOUNT).unwrap()
}

/// The cluster's target whose display form is `display`.
pub fn target(c: &Cluster, display: &str) -> Arc<Callable> {
    c.targets()
        .find(|t| t.to_string() == display)
        .unwrap_or_else(|| panic!("no target {display}"))
        .clone()
}

pub fn prim(v: PrimitiveValue) -> Statement {
    Statement::Primitive(v)
}

pub fn string(s: &str) -> Statement {
    prim(PrimitiveValue::String(s.into()))
}

pub fn long(v: i64) -> Statement {
    prim(PrimitiveValue::Long(v))
}

pub fn new_account(c: &Cluster, owner: usize, limit: usize) -> Statement {
    Statement::Constructor {
        callable: target(c, "com.x.Account.<init>(java.lang.String, long)"),
        type_args: vec![],
        args: vec![VarRef(owner), VarRef(limit)],
        ty: JavaType::class(ACCOUNT),
    }
}

pub fn call(c: &Cluster, display: &str, receiver: Option<usize>, args: &[usize]) -> Statement {
    let callable = target(c, display);
    let ty = callable.returns.clone();
    Statement::Method {
        callable,
        receiver: receiver.map(VarRef),
        type_args: vec![],
        args: args.iter().copied().map(VarRef).collect(),
        ty,
    }
}

/// `new Account("ann", 100); account.deposit(5)`.
pub fn deposit_test(c: &Cluster) -> TestCase {
    TestCase::from_statements(vec![
        string("ann"),
        long(100),
        new_account(c, 0, 1),
        long(5),
        call(c, "com.x.Account.deposit(long)", Some(2), &[3]),
    ])
}

/// `new Account("bob", 10); account.withdraw(50)`.
pub fn withdraw_test(c: &Cluster) -> TestCase {
    TestCase::from_statements(vec![
        string("bob"),
        long(10),
        new_account(c, 0, 1),
        long(50),
        call(c, "com.x.Account.withdraw(long)", Some(2), &[3]),
    ])
}

/// `Account.parse("12")`: static, no receiver.
pub fn parse_test(c: &Cluster) -> TestCase {
    TestCase::from_statements(vec![
        string("12"),
        call(c, "com.x.Account.parse(java.lang.String)", None, &[0]),
    ])
}

/// A test with a statement of every kind, and a primitive value of every kind.
pub fn every_kind_test(c: &Cluster) -> TestCase {
    use PrimitiveValue as V;
    let s = JavaType::string();
    let pick = target(c, "com.x.Account.pick(java.lang.Object, java.lang.Object)");
    TestCase::from_statements(vec![
        /* 0 */ string("ann \"quoted\" ünï ☃ \u{0}"),
        /* 1 */ long(i64::MIN),
        /* 2 */ new_account(c, 0, 1),
        /* 3 */ Statement::Null(JavaType::class(LEVEL)),
        /* 4 */ call(c, "com.x.Account.setLevel(com.x.Level)", Some(2), &[3]),
        /* 5 */
        Statement::EnumConstant {
            ty: JavaType::class(LEVEL),
            name: "GOLD".into(),
        },
        /* 6 */ call(c, "com.x.Account.setLevel(com.x.Level)", Some(2), &[5]),
        /* 7 */
        Statement::ArrayNew {
            component: JavaType::Primitive(PrimitiveKind::Long),
            length: 3,
        },
        /* 8 */
        Statement::ArrayStore {
            array: VarRef(7),
            index: 2,
            value: VarRef(1),
        },
        /* 9 */ call(c, "com.x.Account.total(long[])", Some(2), &[7]),
        /* 10 */
        Statement::FieldRead {
            callable: target(c, "com.x.Account.label"),
            receiver: Some(VarRef(2)),
            ty: s.clone(),
        },
        /* 11 */
        Statement::FieldWrite {
            callable: target(c, "com.x.Account.label="),
            receiver: Some(VarRef(2)),
            value: VarRef(0),
        },
        /* 12 */
        Statement::Method {
            callable: pick,
            receiver: None,
            type_args: vec![s.clone()],
            args: vec![VarRef(0), VarRef(10)],
            ty: Some(s),
        },
        /* 13 */ prim(V::Byte(-128)),
        /* 14 */ prim(V::Short(i16::MAX)),
        /* 15 */ prim(V::Char('\u{ffff}')),
        /* 16 */ prim(V::Int(-7)),
        /* 17 */ prim(V::Float(f32::from_bits(0x7fc0_0001))),
        /* 18 */ prim(V::Double(-0.0)),
        /* 19 */ prim(V::Boolean(true)),
        /* 20 */
        call(
            c,
            "com.x.Account.rate(byte, short, char, int, float, double, boolean)",
            Some(2),
            &[13, 14, 15, 16, 17, 18, 19],
        ),
        /* 21 */ prim(V::Double(f64::NEG_INFINITY)),
        /* 22 */ prim(V::Float(0.1)),
        /* 23 */ prim(V::Double(f64::NAN)),
        /* 24 */ prim(V::Double(1e-310)),
    ])
}

/// `new Box<String>("in a box"); account.keep(box)`: a constructor with type arguments of a
/// dependency (not a target).
pub fn box_test(c: &Cluster, box_ctor: Arc<Callable>) -> TestCase {
    let boxed = JavaType::generic(BOX, vec![JavaType::string()]);
    TestCase::from_statements(vec![
        string("ann"),
        long(1),
        new_account(c, 0, 1),
        string("in a box"),
        Statement::Constructor {
            callable: box_ctor,
            type_args: vec![JavaType::string()],
            args: vec![VarRef(3)],
            ty: boxed,
        },
        call(c, "com.x.Account.keep(com.x.Box)", Some(2), &[4]),
    ])
}

/// The constructor of `com.x.Box` as the cluster has it, found in random tests (the cluster
/// lists only its targets).
pub fn box_constructor(c: &Cluster) -> Arc<Callable> {
    use rand::SeedableRng;
    let variation = Variation::default();
    for seed in 0..2000 {
        let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
        let t = variation.random_test(c, &mut rng);
        for s in t.statements() {
            if let Some(callable) = s.callable() {
                if callable.owner == BOX && callable.is_constructor() {
                    return callable.clone();
                }
            }
        }
    }
    panic!("no random test builds a com.x.Box");
}

pub fn stored(test: TestCase, covers: &[&str]) -> StoredTest {
    StoredTest {
        test,
        covers: covers.iter().map(|s| s.to_string()).collect(),
    }
}

pub fn run_info(timestamp_ms: u64, source_hash: &str) -> RunInfo {
    RunInfo {
        timestamp_ms,
        source_hash: source_hash.into(),
        budget_ms: 30_000,
        algorithm: "dynamosa".into(),
        seed: u64::MAX,
        executions: 1234,
    }
}

/// Coverage with `covered` of `total` goals covered.
pub fn coverage(covered: usize, total: usize) -> Coverage {
    let goals: BTreeMap<String, bool> = (0..total)
        .map(|i| (format!("{ACCOUNT}#withdraw(long)/B{i}.T"), i < covered))
        .collect();
    Coverage {
        goals,
        covered_lines: BTreeSet::from([3, 4, 7]),
        uncovered_lines: BTreeSet::from([9]),
        undeclared_exceptions: vec![UndeclaredException {
            member: format!("{ACCOUNT}#withdraw(long)"),
            exception: "java.lang.ArithmeticException".into(),
            line: Some(7),
            message: Some("/ by zero".into()),
            checked: false,
            test: None,
        }],
    }
}

pub fn finished_run(
    class: &str,
    timestamp_ms: u64,
    source_hash: &str,
    tests: Vec<StoredTest>,
    coverage: Coverage,
) -> FinishedRun {
    FinishedRun {
        class: class.into(),
        run: run_info(timestamp_ms, source_hash),
        tests,
        suite: None,
        coverage,
    }
}

/// A fresh workspace directory, removed on drop.
pub struct Workspace(PathBuf);

impl Workspace {
    pub fn new(name: &str) -> Workspace {
        let dir = std::env::temp_dir().join(format!("ctg-store-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Workspace(dir)
    }

    pub fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for Workspace {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}
