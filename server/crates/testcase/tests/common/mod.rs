//! Hand-written reflection descriptions of small subjects, shaped like the worker's `describe`
//! output, and clusters built from them.
#![allow(dead_code)]

pub mod junit;

use testcase::*;

pub fn param(erased: &str, generic: &str) -> ParamDescription {
    ParamDescription {
        type_name: erased.into(),
        generic: generic.into(),
    }
}

/// A parameter whose generic form equals its erasure.
pub fn p(t: &str) -> ParamDescription {
    param(t, t)
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
    generic_ret: &str,
) -> MethodDescription {
    MethodDescription {
        access: Access::Public,
        name: name.into(),
        declaring_class: declaring.into(),
        is_static: false,
        return_type: ret.into(),
        generic_return_type: Some(generic_ret.into()),
        params,
        exceptions: vec![],
        varargs: false,
        type_parameters: vec![],
    }
}

pub fn static_method(
    declaring: &str,
    name: &str,
    params: Vec<ParamDescription>,
    ret: &str,
    generic_ret: &str,
) -> MethodDescription {
    MethodDescription {
        access: Access::Public,
        is_static: true,
        ..method(declaring, name, params, ret, generic_ret)
    }
}

pub fn field(
    declaring: &str,
    name: &str,
    t: &str,
    is_static: bool,
    is_final: bool,
) -> FieldDescription {
    FieldDescription {
        access: Access::Public,
        name: name.into(),
        declaring_class: declaring.into(),
        type_name: t.into(),
        generic_type: Some(t.into()),
        is_static,
        is_final,
    }
}

/// `bank.Account`, `bank.Bank` (whose `find` may return null), `bank.AmountParser` (static
/// methods only), `bank.Level` (an enum).
pub fn bank() -> Vec<TypeDescription> {
    let account = "bank.Account";
    let mut a = ty(account, TypeKind::Class);
    a.constructors = vec![ctor(vec![p("java.lang.String"), p("long")])];
    a.methods = vec![
        method(account, "deposit", vec![p("long")], "void", "void"),
        method(account, "getBalance", vec![], "long", "long"),
        method(
            account,
            "getOwner",
            vec![],
            "java.lang.String",
            "java.lang.String",
        ),
        method(account, "interest", vec![p("int")], "long", "long"),
        method(account, "isOverdrawn", vec![], "boolean", "boolean"),
        method(account, "setLevel", vec![p("bank.Level")], "void", "void"),
        method(account, "withdraw", vec![p("long")], "boolean", "boolean"),
    ];
    a.fields = vec![field(account, "label", "java.lang.String", false, false)];

    let bank = "bank.Bank";
    let mut b = ty(bank, TypeKind::Class);
    b.constructors = vec![ctor(vec![])];
    b.methods = vec![
        method(bank, "find", vec![p("java.lang.String")], account, account),
        method(
            bank,
            "open",
            vec![p("java.lang.String"), p("long")],
            account,
            account,
        ),
        method(bank, "size", vec![], "int", "int"),
        method(
            bank,
            "transfer",
            vec![p("java.lang.String"), p("java.lang.String"), p("long")],
            "boolean",
            "boolean",
        ),
    ];

    let parser = "bank.AmountParser";
    let mut ap = ty(parser, TypeKind::Class);
    ap.methods = vec![
        static_method(
            parser,
            "format",
            vec![p("long")],
            "java.lang.String",
            "java.lang.String",
        ),
        static_method(
            parser,
            "parseCents",
            vec![p("java.lang.String")],
            "long",
            "long",
        ),
    ];

    let level = "bank.Level";
    let mut l = ty(level, TypeKind::Enum);
    l.superclass = Some("java.lang.Enum<bank.Level>".into());
    l.interfaces = vec!["java.lang.Comparable".into(), "java.io.Serializable".into()];
    l.enum_constants = vec!["BASIC".into(), "GOLD".into()];
    l.methods = vec![
        static_method(level, "valueOf", vec![p("java.lang.String")], level, level),
        static_method(level, "values", vec![], "bank.Level[]", "bank.Level[]"),
        method(
            "java.lang.Enum",
            "compareTo",
            vec![p("java.lang.Enum")],
            "int",
            "int",
        ),
    ];
    vec![a, b, ap, l]
}

/// Shapes with an interface, an abstract generic superclass, a generic registry with bounded
/// type parameters, an enum, a record and a static factory returning a parameterized type.
pub fn shapes() -> Vec<TypeDescription> {
    let mut shape = ty("shapes.Shape", TypeKind::Interface);
    shape.superclass = None;
    shape.methods = vec![method("shapes.Shape", "area", vec![], "double", "double")];
    shape.subclasses = vec![
        "shapes.AbstractShape".into(),
        "shapes.Circle".into(),
        "shapes.Square".into(),
    ];

    let mut abs = ty("shapes.AbstractShape", TypeKind::AbstractClass);
    abs.type_parameters = vec!["T extends java.lang.Number".into()];
    abs.interfaces = vec!["shapes.Shape".into()];
    abs.methods = vec![
        method("shapes.Shape", "area", vec![], "double", "double"),
        method(
            "shapes.AbstractShape",
            "getSize",
            vec![],
            "java.lang.Number",
            "T",
        ),
        method(
            "shapes.AbstractShape",
            "setSize",
            vec![param("java.lang.Number", "T")],
            "void",
            "void",
        ),
    ];
    abs.subclasses = vec!["shapes.Circle".into(), "shapes.Square".into()];

    let circle_methods = |owner: &str| {
        vec![
            method(owner, "area", vec![], "double", "double"),
            method(
                owner,
                "dimensions",
                vec![],
                "java.util.List",
                "java.util.List<java.lang.Double>",
            ),
            method(
                "shapes.AbstractShape",
                "getSize",
                vec![],
                "java.lang.Number",
                "T",
            ),
            method(
                "shapes.AbstractShape",
                "setSize",
                vec![param("java.lang.Number", "T")],
                "void",
                "void",
            ),
        ]
    };
    let mut circle = ty("shapes.Circle", TypeKind::Class);
    circle.superclass = Some("shapes.AbstractShape<java.lang.Double>".into());
    circle.constructors = vec![
        ctor(vec![p("double")]),
        ctor(vec![p("double"), p("shapes.Color")]),
    ];
    circle.methods = circle_methods("shapes.Circle");
    circle.methods.push(static_method(
        "shapes.Circle",
        "unit",
        vec![],
        "shapes.Circle",
        "shapes.Circle",
    ));
    circle.fields = vec![field(
        "shapes.Circle",
        "color",
        "shapes.Color",
        false,
        false,
    )];

    let mut square = ty("shapes.Square", TypeKind::Class);
    square.superclass = Some("shapes.AbstractShape<java.lang.Integer>".into());
    square.constructors = vec![ctor(vec![p("int")])];
    square.methods = vec![
        method("shapes.Square", "area", vec![], "double", "double"),
        method(
            "shapes.AbstractShape",
            "getSize",
            vec![],
            "java.lang.Number",
            "T",
        ),
        method(
            "shapes.AbstractShape",
            "setSize",
            vec![param("java.lang.Number", "T")],
            "void",
            "void",
        ),
    ];

    let mut color = ty("shapes.Color", TypeKind::Enum);
    color.superclass = Some("java.lang.Enum<shapes.Color>".into());
    color.enum_constants = vec!["RED".into(), "GREEN".into(), "BLUE".into()];

    let mut point = ty("shapes.Point", TypeKind::Record);
    point.superclass = Some("java.lang.Record".into());
    point.constructors = vec![ctor(vec![p("int"), p("int")])];
    point.methods = vec![
        method("shapes.Point", "x", vec![], "int", "int"),
        method(
            "shapes.Point",
            "translate",
            vec![p("shapes.Point")],
            "shapes.Point",
            "shapes.Point",
        ),
    ];

    let reg = "shapes.Registry";
    let mut registry = ty(reg, TypeKind::Class);
    registry.type_parameters = vec![
        "K extends java.lang.Comparable<K>".into(),
        "V extends shapes.Shape".into(),
    ];
    registry.constructors = vec![ctor(vec![])];
    let mut lookup = method(
        reg,
        "lookup",
        vec![param("java.lang.Comparable", "K")],
        "java.util.List",
        "java.util.List<V>",
    );
    lookup.type_parameters = vec![];
    let mut first = static_method(
        reg,
        "first",
        vec![param("java.util.List", "java.util.List<T>")],
        "java.lang.Object",
        "T",
    );
    first.type_parameters = vec!["T".into()];
    registry.methods = vec![
        method(
            reg,
            "putAll",
            vec![
                param("java.lang.Comparable", "K"),
                param("java.util.List", "java.util.List<V>"),
            ],
            "void",
            "void",
        ),
        lookup,
        first,
        static_method(
            reg,
            "ofCircles",
            vec![],
            reg,
            "shapes.Registry<java.lang.String, shapes.Circle>",
        ),
        method(
            reg,
            "count",
            vec![param(
                "java.util.Map",
                "java.util.Map<K, java.lang.Integer>",
            )],
            "int",
            "int",
        ),
        method(
            reg,
            "keys",
            vec![],
            "java.util.Set",
            "java.util.Set<? extends K>",
        ),
    ];
    vec![shape, abs, circle, square, color, point, registry]
}

/// Odds and ends: varargs, arrays, `Object`, `CharSequence`, `Optional`, containers of
/// containers, a static field, an interface parameter without implementations.
pub fn misc() -> Vec<TypeDescription> {
    let owner = "misc.Tools";
    let mut t = ty(owner, TypeKind::Class);
    t.constructors = vec![ctor(vec![]), ctor(vec![p("int[]")])];
    let mut sum = static_method(owner, "sum", vec![p("int[]")], "int", "int");
    sum.varargs = true;
    t.methods = vec![
        sum,
        method(
            owner,
            "describe",
            vec![p("java.lang.Object")],
            "java.lang.String",
            "java.lang.String",
        ),
        method(
            owner,
            "length",
            vec![p("java.lang.CharSequence")],
            "int",
            "int",
        ),
        method(
            owner,
            "orElse",
            vec![param(
                "java.util.Optional",
                "java.util.Optional<java.lang.String>",
            )],
            "java.lang.String",
            "java.lang.String",
        ),
        method(
            owner,
            "nested",
            vec![param(
                "java.util.List",
                "java.util.List<java.util.List<java.lang.String>>",
            )],
            "int",
            "int",
        ),
        method(owner, "grid", vec![p("char[][]")], "int", "int"),
        method(
            owner,
            "boxed",
            vec![p("java.lang.Integer"), p("java.lang.Character")],
            "long",
            "long",
        ),
        method(owner, "run", vec![p("misc.Task")], "void", "void"),
        method(
            owner,
            "count",
            vec![],
            "java.lang.Integer",
            "java.lang.Integer",
        ),
        method(owner, "twice", vec![p("int")], "int", "int"),
        method(
            owner,
            "iterate",
            vec![param(
                "java.lang.Iterable",
                "java.lang.Iterable<? extends java.lang.Number>",
            )],
            "double",
            "double",
        ),
    ];
    t.fields = vec![
        field(owner, "DEFAULT", owner, true, true),
        field(owner, "limit", "long", false, false),
    ];
    let mut task = ty("misc.Task", TypeKind::Interface);
    task.superclass = None;
    task.methods = vec![method("misc.Task", "run", vec![], "void", "void")];
    vec![t, task]
}

/// `env.Report`, which reads the console, files by name (`String`) and as `java.io.File`, and
/// the system properties `report.mode` and `report.limit`.
pub fn env() -> Vec<TypeDescription> {
    let owner = "env.Report";
    let mut r = ty(owner, TypeKind::Class);
    r.constructors = vec![ctor(vec![])];
    r.methods = vec![
        static_method(
            owner,
            "greet",
            vec![],
            "java.lang.String",
            "java.lang.String",
        ),
        static_method(owner, "sum", vec![p("java.lang.String")], "int", "int"),
        method(owner, "size", vec![p("java.io.File")], "long", "long"),
        static_method(
            owner,
            "mode",
            vec![],
            "java.lang.String",
            "java.lang.String",
        ),
    ];
    let mut file = ty("java.io.File", TypeKind::Class);
    file.project = false;
    file.constructors = vec![ctor(vec![p("java.lang.String")])];
    vec![r, file]
}

/// The cluster of `env.Report`, reading what [`env`] says.
pub fn env_cluster() -> Cluster {
    let mut c = cluster(&env(), "env.Report");
    c.set_environment(EnvironmentInputs {
        console: true,
        files: true,
        property_keys: vec!["report.limit".into(), "report.mode".into()],
    });
    c
}

pub fn cluster(types: &[TypeDescription], under_test: &str) -> Cluster {
    let mut constants = ConstantPool::new();
    for v in [
        PrimitiveValue::Int(100),
        PrimitiveValue::Long(-1),
        PrimitiveValue::String("EUR".into()),
        PrimitiveValue::Char('.'),
        PrimitiveValue::Double(0.5),
    ] {
        constants.add(v);
    }
    Cluster::build(under_test, types, &[], constants).unwrap_or_else(|e| panic!("{e}"))
}

/// Every class under test of the fixtures, with its cluster.
pub fn all_clusters() -> Vec<Cluster> {
    let mut out = Vec::new();
    for cut in [
        "bank.Account",
        "bank.Bank",
        "bank.AmountParser",
        "bank.Level",
    ] {
        out.push(cluster(&bank(), cut));
    }
    for cut in [
        "shapes.Circle",
        "shapes.Registry",
        "shapes.AbstractShape",
        "shapes.Shape",
        "shapes.Point",
    ] {
        out.push(cluster(&shapes(), cut));
    }
    out.push(cluster(&misc(), "misc.Tools"));
    out.push(env_cluster());
    out.push(cluster(&streams(), "io.Lines"));
    out
}

/// `io.Lines`: static methods that take the abstract `java.io` types, an `Appendable` and an
/// `Iterator`, as parsers and printers do.
pub fn streams() -> Vec<TypeDescription> {
    let owner = "io.Lines";
    let mut t = ty(owner, TypeKind::Class);
    t.constructors = vec![ctor(vec![])];
    t.methods = vec![
        static_method(owner, "count", vec![p("java.io.Reader")], "int", "int"),
        static_method(owner, "sum", vec![p("java.io.InputStream")], "int", "int"),
        static_method(
            owner,
            "print",
            vec![p("java.lang.Appendable"), p("java.lang.String")],
            "void",
            "void",
        ),
        static_method(owner, "write", vec![p("java.io.Writer")], "void", "void"),
        static_method(
            owner,
            "dump",
            vec![p("java.io.OutputStream")],
            "void",
            "void",
        ),
        static_method(
            owner,
            "join",
            vec![param(
                "java.util.Iterator",
                "java.util.Iterator<java.lang.String>",
            )],
            "java.lang.String",
            "java.lang.String",
        ),
    ];
    vec![t]
}
