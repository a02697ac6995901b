//! Snapshots of the JUnit printer: hand-built test cases on `tests/junit_fixture/shop` with
//! the observations the worker makes for them, printed for JUnit 5 and JUnit 4. The snapshot
//! files are compiled and run against the fixture by `ctg`'s `emit_snapshots` test, so every
//! observation here is what the fixture really does. Refresh with `UPDATE_EXPECT=1`.

use std::sync::Arc;

mod common;

use common::junit::*;
use expect_test::{expect, expect_file};
use javatext::JavaText;
use testcase::junit::{
    print_class, remove_statement, AssertionKind, ExecutedTest, GetterOutcome, JUnit, Observed,
    Suppressions, TestClassSpec, Thrown, TypeFacts, Value,
};
use testcase::{
    Access, Callable, CallableKind, ConstructorDescription, JavaType, MethodDescription,
    ParamDescription, PrimitiveKind, PrimitiveValue, Statement, TypeDescription, TypeKind,
    TypeParameter, VarRef, WildcardBound,
};

const INVENTORY: &str = "shop.Inventory";
const CATEGORY: &str = "shop.Inventory$Category";
const BOX: &str = "shop.Box";
const SHELF: &str = "shop.Shelf";
const CRATE: &str = "shop.Crate";

fn inventory_description() -> TypeDescription {
    let m = |name: &str, params: &[&str], ret: &str, is_static: bool| MethodDescription {
        access: Access::Public,
        name: name.into(),
        declaring_class: INVENTORY.into(),
        is_static,
        return_type: ret.into(),
        generic_return_type: None,
        params: params
            .iter()
            .map(|p| ParamDescription {
                type_name: p.to_string(),
                generic: p.to_string(),
            })
            .collect(),
        exceptions: vec![],
        varargs: false,
        type_parameters: vec![],
    };
    let ctor = |params: &[&str]| ConstructorDescription {
        access: Access::Public,
        params: params
            .iter()
            .map(|p| ParamDescription {
                type_name: p.to_string(),
                generic: p.to_string(),
            })
            .collect(),
        exceptions: vec![],
        varargs: false,
        type_parameters: vec![],
    };
    TypeDescription {
        access: Access::Public,
        name: INVENTORY.into(),
        kind: TypeKind::Class,
        is_public: true,
        project: true,
        inner_class: false,
        superclass: Some("java.lang.Object".into()),
        interfaces: vec![],
        type_parameters: vec![],
        constructors: vec![ctor(&[]), ctor(&["java.lang.String"])],
        methods: vec![
            m("getName", &[], "java.lang.String", false),
            m("add", &["java.lang.String", "int"], "int", false),
            m("count", &["java.lang.String"], "int", false),
            MethodDescription {
                access: Access::Public,
                generic_return_type: Some("java.util.List<java.lang.String>".into()),
                ..m("items", &[], "java.util.List", false)
            },
            m("size", &[], "int", false),
            m("isEmpty", &[], "boolean", false),
            m("getCategory", &[], CATEGORY, false),
            m("setCategory", &[CATEGORY], "void", false),
            m("divide", &["int"], "int", false),
            m(
                "label",
                &["char", "java.lang.String"],
                "java.lang.String",
                false,
            ),
            m("ratio", &["double", "double"], "double", true),
            m("half", &["float"], "float", true),
            m("total", &["long[]"], "long", true),
            m("clamp", &["byte", "short"], "byte", true),
            m("describe", &["java.lang.Object"], "java.lang.String", true),
            m("describe", &["java.lang.String"], "java.lang.String", true),
            m("first", &["java.lang.String"], "char", true),
            m("cut", &["java.lang.String"], "java.lang.String", true),
            m("refuse", &["java.lang.String"], "int", true),
            m("counts", &[], "int[]", false),
            MethodDescription {
                access: Access::Public,
                generic_return_type: Some("shop.Box<java.lang.String>".into()),
                ..m("boxedName", &[], BOX, false)
            },
        ],
        fields: vec![],
        enum_constants: vec![],
        subclasses: vec![],
    }
}

fn category_description() -> TypeDescription {
    TypeDescription {
        access: Access::Public,
        name: CATEGORY.into(),
        kind: TypeKind::Enum,
        enum_constants: vec!["FOOD".into(), "DARK_TOOLS".into()],
        constructors: vec![],
        methods: vec![],
        ..inventory_description()
    }
}

/// A parameter as reflection reports it: erased and generic type names.
fn param(erased: &str, generic: &str) -> ParamDescription {
    ParamDescription {
        type_name: erased.into(),
        generic: generic.into(),
    }
}

/// `shop.Shelf<T>`: constructors `(T...)` and `(List<T>)`, `put(T)` and `put(List<T>)`,
/// `putAll(T[])` and `putAll(Collection<? extends T>)`, static `<E> count(E[])` and
/// `count(Collection<E>)`, static factories `<E> of(E...)` and `of(List<E>)`.
fn shelf_description() -> TypeDescription {
    let m = |name: &str, params: Vec<ParamDescription>, ret: &str, generic_ret: Option<&str>| {
        MethodDescription {
            access: Access::Public,
            name: name.into(),
            declaring_class: SHELF.into(),
            is_static: false,
            return_type: ret.into(),
            generic_return_type: generic_ret.map(str::to_string),
            params,
            exceptions: vec![],
            varargs: false,
            type_parameters: vec![],
        }
    };
    let static_generic = |method: MethodDescription| MethodDescription {
        access: Access::Public,
        is_static: true,
        type_parameters: vec!["E".into()],
        ..method
    };
    let ctor = |params: Vec<ParamDescription>, varargs: bool| ConstructorDescription {
        access: Access::Public,
        params,
        exceptions: vec![],
        varargs,
        type_parameters: vec![],
    };
    TypeDescription {
        access: Access::Public,
        name: SHELF.into(),
        kind: TypeKind::Class,
        is_public: true,
        project: true,
        inner_class: false,
        superclass: Some("java.lang.Object".into()),
        interfaces: vec![],
        type_parameters: vec!["T".into()],
        constructors: vec![
            ctor(vec![], false),
            ctor(vec![param("java.lang.Object[]", "T[]")], true),
            ctor(vec![param("java.util.List", "java.util.List<T>")], false),
        ],
        methods: vec![
            m("getMade", vec![], "java.lang.String", None),
            m(
                "put",
                vec![param("java.lang.Object", "T")],
                "java.lang.String",
                None,
            ),
            m(
                "put",
                vec![param("java.util.List", "java.util.List<T>")],
                "java.lang.String",
                None,
            ),
            m(
                "putAll",
                vec![param("java.lang.Object[]", "T[]")],
                "java.lang.String",
                None,
            ),
            m(
                "putAll",
                vec![param(
                    "java.util.Collection",
                    "java.util.Collection<? extends T>",
                )],
                "java.lang.String",
                None,
            ),
            static_generic(m(
                "count",
                vec![param("java.lang.Object[]", "E[]")],
                "java.lang.String",
                None,
            )),
            static_generic(m(
                "count",
                vec![param("java.util.Collection", "java.util.Collection<E>")],
                "java.lang.String",
                None,
            )),
            MethodDescription {
                access: Access::Public,
                varargs: true,
                ..static_generic(m(
                    "of",
                    vec![param("java.lang.Object[]", "E[]")],
                    SHELF,
                    Some("shop.Shelf<E>"),
                ))
            },
            static_generic(m(
                "of",
                vec![param("java.util.List", "java.util.List<E>")],
                SHELF,
                Some("shop.Shelf<E>"),
            )),
        ],
        fields: vec![],
        enum_constants: vec![],
        subclasses: vec![CRATE.into()],
    }
}

/// `shop.Crate<X> extends Shelf<X>`: inherits the shelf's methods under another variable.
fn crate_description() -> TypeDescription {
    let shelf = shelf_description();
    TypeDescription {
        access: Access::Public,
        name: CRATE.into(),
        superclass: Some("shop.Shelf<X>".into()),
        type_parameters: vec!["X".into()],
        constructors: vec![shelf.constructors[0].clone()],
        subclasses: vec![],
        ..shelf
    }
}

fn facts() -> TypeFacts {
    let mut facts = TypeFacts::from_descriptions(&[
        inventory_description(),
        category_description(),
        shelf_description(),
        crate_description(),
    ]);
    facts.set_parameter_names(INVENTORY, "divide", &["int"], &["parts"]);
    facts.set_parameter_names(INVENTORY, "<init>", &["String"], &["name"]);
    facts.set_parameter_names(INVENTORY, "add", &["String", "int"], &["item", "count"]);
    facts
}

/// The tests the snapshots print, one behaviour each.
fn shop_tests() -> Vec<ExecutedTest> {
    use PrimitiveValue as P;
    let new_inventory = constructor(INVENTORY, &[], &[]);
    let new_named = constructor(INVENTORY, &["java.lang.String"], &["java.io.IOException"]);
    let add = method(INVENTORY, "add", &["java.lang.String", "int"], Some("int"));
    let divide = method(INVENTORY, "divide", &["int"], Some("int"));
    let ratio = static_method(INVENTORY, "ratio", &["double", "double"], "double");
    let half = static_method(INVENTORY, "half", &["float"], "float");
    let label = method(
        INVENTORY,
        "label",
        &["char", "java.lang.String"],
        Some("java.lang.String"),
    );
    let total = static_method(INVENTORY, "total", &["long[]"], "long");
    let clamp = static_method(INVENTORY, "clamp", &["byte", "short"], "byte");
    let describe_string = static_method(
        INVENTORY,
        "describe",
        &["java.lang.String"],
        "java.lang.String",
    );
    let describe_object = static_method(
        INVENTORY,
        "describe",
        &["java.lang.Object"],
        "java.lang.String",
    );
    let items = {
        let mut c = (*method(INVENTORY, "items", &[], Some("java.util.List"))).clone();
        c.returns = Some(JavaType::generic(
            "java.util.List",
            vec![JavaType::string()],
        ));
        Arc::new(c)
    };
    let counts = method(INVENTORY, "counts", &[], Some("int[]"));
    let first = static_method(INVENTORY, "first", &["java.lang.String"], "char");
    let cut = static_method(INVENTORY, "cut", &["java.lang.String"], "java.lang.String");
    let refuse = static_method(INVENTORY, "refuse", &["java.lang.String"], "int");
    let set_category = method(INVENTORY, "setCategory", &[CATEGORY], None);
    let new_box = {
        let mut c = (*constructor(BOX, &["java.lang.Object"], &[])).clone();
        c.params = vec![JavaType::Var("T".into())];
        Arc::new(c)
    };
    let new_object = constructor("java.lang.Object", &[], &[]);
    let inventory_state = |size: i64, category: &str| {
        object(
            INVENTORY,
            vec![
                ("getCategory", GetterOutcome::Enum(category.into())),
                ("getName", GetterOutcome::Value(text("main"))),
                ("isEmpty", GetterOutcome::Value(Value::Bool(size == 0))),
                ("size", GetterOutcome::Value(Value::Integer(size))),
            ],
        )
    };
    let string_list = JavaType::generic("java.util.List", vec![JavaType::string()]);
    let string_box = JavaType::generic(BOX, vec![JavaType::string()]);

    let mut tests = Vec::new();

    // add: a return value and the object's state at the end.
    let mut test = executed(
        vec![
            lit(P::String("apple".into())),
            lit(P::Int(3)),
            new(&new_inventory, &[], t(INVENTORY)),
            call(&add, Some(2), &[0, 1]),
        ],
        vec![
            value("java.lang.String", text("apple")),
            value("int", Value::Integer(3)),
            Some(inventory_state(0, "FOOD")),
            value("int", Value::Integer(3)),
        ],
    );
    test.execution
        .final_state
        .insert(VarRef(2), inventory_state(1, "FOOD"));
    tests.push(test);

    // An undeclared exception, named after the parameter.
    tests.push(throwing(
        vec![
            new(&new_inventory, &[], t(INVENTORY)),
            lit(P::Int(0)),
            call(&divide, Some(0), &[1]),
            // Never printed: the test ends at the exception.
            call(&divide, Some(0), &[1]),
        ],
        vec![
            Some(inventory_state(0, "FOOD")),
            value("int", Value::Integer(0)),
        ],
        thrown("java.lang.ArithmeticException", "/ by zero", false, false),
    ));

    // A declared checked exception from a constructor.
    tests.push(throwing(
        vec![
            lit(P::String(String::new())),
            new(&new_named, &[0], t(INVENTORY)),
        ],
        vec![value("java.lang.String", text(""))],
        thrown("java.io.IOException", "no name", true, true),
    ));

    // NaN from a value used twice.
    tests.push(executed(
        vec![lit(P::Double(0.0)), call(&ratio, None, &[0, 0])],
        vec![
            value("double", Value::Float(0.0)),
            value("double", Value::Float(f64::NAN)),
        ],
    ));
    tests.push(executed(
        vec![
            lit(P::Double(-1.0)),
            lit(P::Double(0.0)),
            call(&ratio, None, &[0, 1]),
        ],
        vec![
            value("double", Value::Float(-1.0)),
            value("double", Value::Float(0.0)),
            value("double", Value::Float(f64::NEG_INFINITY)),
        ],
    ));
    tests.push(executed(
        vec![lit(P::Float(3.0)), call(&half, None, &[0])],
        vec![
            value("float", Value::Float(3.0)),
            value("float", Value::Float(1.5)),
        ],
    ));

    // Escapes in strings and chars.
    let weird = "a\"b\\c\té\u{0}\n";
    tests.push(executed(
        vec![
            new(&new_inventory, &[], t(INVENTORY)),
            lit(P::Char('\'')),
            lit(P::String(weird.into())),
            call(&label, Some(0), &[1, 2]),
        ],
        vec![
            Some(inventory_state(0, "FOOD")),
            value("char", text("'")),
            value("java.lang.String", text(weird)),
            value("java.lang.String", text(&format!("'{weird}"))),
        ],
    ));

    // Arrays and extreme longs.
    let long_array = Statement::ArrayNew {
        component: JavaType::Primitive(PrimitiveKind::Long),
        length: 3,
    };
    tests.push(executed(
        vec![
            long_array,
            lit(P::Long(5)),
            Statement::ArrayStore {
                array: VarRef(0),
                index: 0,
                value: VarRef(1),
            },
            lit(P::Long(i64::MIN)),
            Statement::ArrayStore {
                array: VarRef(0),
                index: 2,
                value: VarRef(3),
            },
            call(&total, None, &[0]),
        ],
        vec![
            Some(Observed {
                length: Some(3),
                ..Observed::default()
            }),
            value("long", Value::Integer(5)),
            None,
            value("long", Value::Integer(i64::MIN)),
            None,
            value("long", Value::Integer(i64::MIN + 5)),
        ],
    ));
    tests.push(executed(
        vec![
            new(&new_inventory, &[], t(INVENTORY)),
            call(&counts, Some(0), &[]),
        ],
        vec![
            Some(inventory_state(0, "FOOD")),
            Some(Observed {
                runtime_type: Some("int[]".into()),
                length: Some(0),
                ..Observed::default()
            }),
        ],
    ));

    // Narrow primitives need casts.
    tests.push(executed(
        vec![
            lit(P::Byte(-128)),
            lit(P::Short(300)),
            call(&clamp, None, &[0, 1]),
        ],
        vec![
            value("byte", Value::Integer(-128)),
            value("short", Value::Integer(300)),
            value("byte", Value::Integer(-128)),
        ],
    ));

    // Overloads: null and a String passed as an Object are cast.
    tests.push(executed(
        vec![
            Statement::Null(JavaType::string()),
            call(&describe_string, None, &[0]),
        ],
        vec![
            Some(Observed {
                runtime_type: Some("java.lang.String".into()),
                is_null: true,
                ..Observed::default()
            }),
            value("java.lang.String", text("string null")),
        ],
    ));
    tests.push(executed(
        vec![
            lit(P::String("x".into())),
            call(&describe_object, None, &[0]),
        ],
        vec![
            value("java.lang.String", text("x")),
            value("java.lang.String", text("object x")),
        ],
    ));

    // Generics and collections: sizes of returned collections, a generic constructor.
    let mut test = executed(
        vec![
            new(&new_inventory, &[], t(INVENTORY)),
            lit(P::String("pear".into())),
            lit(P::Int(2)),
            call(&add, Some(0), &[1, 2]),
            Statement::Method {
                callable: items.clone(),
                receiver: Some(VarRef(0)),
                type_args: vec![],
                args: vec![],
                ty: Some(string_list.clone()),
            },
            lit(P::String("kiwi".into())),
            new(&new_box, &[5], string_box.clone()),
        ],
        vec![
            Some(inventory_state(0, "FOOD")),
            value("java.lang.String", text("pear")),
            value("int", Value::Integer(2)),
            value("int", Value::Integer(2)),
            Some(object(
                "java.util.ArrayList",
                vec![
                    ("isEmpty", GetterOutcome::Value(Value::Bool(false))),
                    ("size", GetterOutcome::Value(Value::Integer(1))),
                ],
            )),
            value("java.lang.String", text("kiwi")),
            Some(object(
                BOX,
                vec![("isFull", GetterOutcome::Value(Value::Bool(true)))],
            )),
        ],
    );
    test.execution
        .final_state
        .insert(VarRef(0), inventory_state(1, "FOOD"));
    test.execution.final_state.insert(
        VarRef(4),
        object(
            "java.util.ArrayList",
            vec![
                ("isEmpty", GetterOutcome::Value(Value::Bool(false))),
                ("size", GetterOutcome::Value(Value::Integer(1))),
            ],
        ),
    );
    test.execution.final_state.insert(
        VarRef(6),
        object(
            BOX,
            vec![("isFull", GetterOutcome::Value(Value::Bool(true)))],
        ),
    );
    tests.push(test);

    // A setter: no return value, the state says what changed.
    let mut test = executed(
        vec![
            new(&new_inventory, &[], t(INVENTORY)),
            Statement::EnumConstant {
                ty: t(CATEGORY),
                name: "DARK_TOOLS".into(),
            },
            call(&set_category, Some(0), &[1]),
        ],
        vec![
            Some(inventory_state(0, "FOOD")),
            Some(Observed {
                runtime_type: Some(CATEGORY.into()),
                enum_constant: Some("DARK_TOOLS".into()),
                ..Observed::default()
            }),
            None,
        ],
    );
    test.execution
        .final_state
        .insert(VarRef(0), inventory_state(0, "DARK_TOOLS"));
    tests.push(test);

    // An identity hash code in a result is not asserted.
    tests.push(executed(
        vec![
            new(&new_object, &[], JavaType::object()),
            call(&describe_object, None, &[0]),
        ],
        vec![
            Some(object("java.lang.Object", vec![])),
            value("java.lang.String", text("object java.lang.Object@1b6d3586")),
        ],
    ));
    // Text that is not valid Unicode: the high half of the surrogate pair of U+1F600 alone, as
    // a char, a String and a getter's value, and in an exception message, asserted exactly.
    let lone = |units: &[u16]| Value::Text(JavaText::from_utf16(units.to_vec()));
    let emoji = "\u{1F600}";
    tests.push(executed(
        vec![
            lit(P::String(emoji.into())),
            call(&first, None, &[0]),
            call(&cut, None, &[0]),
            new(&new_named, &[2], t(INVENTORY)),
        ],
        vec![
            value("java.lang.String", text(emoji)),
            value("char", lone(&[0xd83d])),
            value("java.lang.String", lone(&[0xd83d])),
            Some(object(
                INVENTORY,
                vec![
                    ("getCategory", GetterOutcome::Enum("FOOD".into())),
                    ("getName", GetterOutcome::Value(lone(&[0xd83d]))),
                    ("isEmpty", GetterOutcome::Value(Value::Bool(true))),
                    ("size", GetterOutcome::Value(Value::Integer(0))),
                ],
            )),
        ],
    ));
    tests.push(throwing(
        vec![
            lit(P::String(format!("a{emoji}"))),
            call(&cut, None, &[0]),
            call(&refuse, None, &[1]),
        ],
        vec![
            value("java.lang.String", text(&format!("a{emoji}"))),
            value("java.lang.String", lone(&[0x61, 0xd83d])),
        ],
        Some(Thrown {
            type_name: "java.lang.IllegalArgumentException".into(),
            message: Some(JavaText::from_utf16(
                "refused a".encode_utf16().chain([0xd83d]).collect(),
            )),
            declared: false,
            checked: false,
            unstable_message: false,
        }),
    ));

    tests.extend(generic_overload_tests());
    tests
}

fn var(name: &str) -> JavaType {
    JavaType::Var(name.into())
}

fn list_of(element: JavaType) -> JavaType {
    JavaType::generic("java.util.List", vec![element])
}

/// A member of a generic class as the cluster reads it from reflection: erased parameter
/// types pick the overload, generic ones mention type variables.
fn generic_member(
    owner: &str,
    kind: CallableKind,
    erased: &[&str],
    params: Vec<JavaType>,
    returns: Option<JavaType>,
    type_params: &[&str],
    varargs: bool,
) -> Arc<Callable> {
    Arc::new(Callable {
        owner: owner.into(),
        declaring_class: SHELF.into(),
        kind,
        erased_params: erased.iter().map(|p| p.to_string()).collect(),
        params,
        erased_return: returns.as_ref().map(JavaType::erased),
        returns,
        type_params: type_params
            .iter()
            .map(|p| TypeParameter {
                name: p.to_string(),
                bounds: vec![],
            })
            .collect(),
        exceptions: vec![],
        varargs,
    })
}

fn null_of(ty: JavaType) -> (Statement, Option<Observed>) {
    let observed = Observed {
        runtime_type: Some(ty.erased().to_string()),
        is_null: true,
        ..Observed::default()
    };
    (Statement::Null(ty), Some(observed))
}

/// Calls of overloaded generic members with `null` (seen on commons-collections4's
/// `FixedOrderComparator`, whose `(T...)` and `(List<T>)` constructors make a bare `null`
/// ambiguous): each argument must be cast to the parameter's type at the call site.
fn generic_overload_tests() -> Vec<ExecutedTest> {
    let method_kind = |name: &str, is_static: bool| CallableKind::Method {
        name: name.into(),
        is_static,
    };
    let string = JavaType::string;
    let integer = || JavaType::class("java.lang.Integer");
    let shelf_of = |t: JavaType| JavaType::generic(SHELF, vec![t]);
    let new_shelf_array = generic_member(
        SHELF,
        CallableKind::Constructor,
        &["java.lang.Object[]"],
        vec![JavaType::array_of(var("T"))],
        None,
        &[],
        true,
    );
    let new_shelf_list = generic_member(
        SHELF,
        CallableKind::Constructor,
        &["java.util.List"],
        vec![list_of(var("T"))],
        None,
        &[],
        false,
    );
    let new_crate = generic_member(
        CRATE,
        CallableKind::Constructor,
        &[],
        vec![],
        None,
        &[],
        false,
    );
    let put = |owner: &str| {
        generic_member(
            owner,
            method_kind("put", false),
            &["java.lang.Object"],
            vec![var("T")],
            Some(string()),
            &[],
            false,
        )
    };
    let put_list = generic_member(
        SHELF,
        method_kind("put", false),
        &["java.util.List"],
        vec![list_of(var("T"))],
        Some(string()),
        &[],
        false,
    );
    let put_all = generic_member(
        SHELF,
        method_kind("putAll", false),
        &["java.util.Collection"],
        vec![JavaType::generic(
            "java.util.Collection",
            vec![JavaType::Wildcard(Some(WildcardBound::Extends(Box::new(
                var("T"),
            ))))],
        )],
        Some(string()),
        &[],
        false,
    );
    let count_array = generic_member(
        SHELF,
        method_kind("count", true),
        &["java.lang.Object[]"],
        vec![JavaType::array_of(var("E"))],
        Some(string()),
        &["E"],
        false,
    );
    let count_collection = generic_member(
        SHELF,
        method_kind("count", true),
        &["java.util.Collection"],
        vec![JavaType::generic("java.util.Collection", vec![var("E")])],
        Some(string()),
        &["E"],
        false,
    );
    let of_array = generic_member(
        SHELF,
        method_kind("of", true),
        &["java.lang.Object[]"],
        vec![JavaType::array_of(var("E"))],
        Some(shelf_of(var("E"))),
        &["E"],
        true,
    );
    // Box is not described: its constructor's parameter type is unknown here.
    let new_box = {
        let mut c = (*constructor(BOX, &["java.lang.Object"], &[])).clone();
        c.params = vec![var("T")];
        Arc::new(c)
    };
    let made = |what: &str| object(SHELF, vec![("getMade", GetterOutcome::Value(text(what)))]);
    let new_with = |c: &Arc<Callable>, arg: usize, ty: JavaType| Statement::Constructor {
        callable: c.clone(),
        type_args: ty.type_args().to_vec(),
        args: vec![VarRef(arg)],
        ty,
    };
    let generic_call =
        |c: &Arc<Callable>, receiver: Option<usize>, arg: usize, targs: Vec<JavaType>| {
            Statement::Method {
                callable: c.clone(),
                receiver: receiver.map(VarRef),
                type_args: targs,
                args: vec![VarRef(arg)],
                ty: Some(string()),
            }
        };
    let with_state = |mut test: ExecutedTest, var: usize, state: Observed| {
        test.execution.final_state.insert(VarRef(var), state);
        test
    };

    let mut tests = Vec::new();
    // Constructors `(T...)` and `(List<T>)` with a diamond.
    let (null_array, observed_array) = null_of(JavaType::array_of(string()));
    tests.push(with_state(
        executed(
            vec![
                null_array,
                new_with(&new_shelf_array, 0, shelf_of(string())),
            ],
            vec![observed_array, Some(made("array null"))],
        ),
        1,
        made("array null"),
    ));
    let (null_list, observed_list) = null_of(list_of(string()));
    tests.push(with_state(
        executed(
            vec![null_list, new_with(&new_shelf_list, 0, shelf_of(string()))],
            vec![observed_list, Some(made("list null"))],
        ),
        1,
        made("list null"),
    ));
    // Nested generics: `T` is `List<Integer>`, so `put(T)` takes a `List<Integer>` and
    // `put(List<T>)` a `List<List<Integer>>`.
    let nested = shelf_of(list_of(integer()));
    let (null_arrays, observed_arrays) = null_of(JavaType::array_of(list_of(integer())));
    let (null_integers, observed_integers) = null_of(list_of(integer()));
    let (null_lists, observed_lists) = null_of(list_of(list_of(integer())));
    tests.push(with_state(
        executed(
            vec![
                null_arrays,
                new_with(&new_shelf_array, 0, nested.clone()),
                null_integers,
                generic_call(&put(SHELF), Some(1), 2, vec![]),
                null_lists,
                generic_call(&put_list, Some(1), 4, vec![]),
            ],
            vec![
                observed_arrays,
                Some(made("array null")),
                observed_integers,
                value("java.lang.String", text("item null")),
                observed_lists,
                value("java.lang.String", text("list null")),
            ],
        ),
        1,
        made("array null"),
    ));
    // A method inherited from the generic superclass, on a subclass with its own variable;
    // and a wildcard parameter.
    let (null_string, observed_string) = null_of(string());
    let (null_strings, observed_strings) =
        null_of(JavaType::generic("java.util.Collection", vec![string()]));
    tests.push(executed(
        vec![
            Statement::Constructor {
                callable: new_crate,
                type_args: vec![string()],
                args: vec![],
                ty: JavaType::generic(CRATE, vec![string()]),
            },
            null_string,
            generic_call(&put(CRATE), Some(0), 1, vec![]),
            null_strings,
            generic_call(&put_all, Some(0), 3, vec![]),
        ],
        vec![
            Some(made("empty")),
            observed_string,
            value("java.lang.String", text("item null")),
            observed_strings,
            value("java.lang.String", text("collection null")),
        ],
    ));
    // Static generic methods and factories: the witness binds `E`.
    let (null_array, observed_array) = null_of(JavaType::array_of(string()));
    let (null_collection, observed_collection) =
        null_of(JavaType::generic("java.util.Collection", vec![string()]));
    let (null_integers, observed_integers) = null_of(JavaType::array_of(integer()));
    tests.push(with_state(
        executed(
            vec![
                null_array,
                generic_call(&count_array, None, 0, vec![string()]),
                null_collection,
                generic_call(&count_collection, None, 2, vec![string()]),
                null_integers,
                Statement::Method {
                    callable: of_array,
                    receiver: None,
                    type_args: vec![integer()],
                    args: vec![VarRef(4)],
                    ty: Some(shelf_of(integer())),
                },
            ],
            vec![
                observed_array,
                value("java.lang.String", text("array null")),
                observed_collection,
                value("java.lang.String", text("collection null")),
                observed_integers,
                Some(made("array null")),
            ],
        ),
        5,
        made("array null"),
    ));
    // Nothing is known of Box's type variable: the constructor is called raw.
    let (null_string, observed_string) = null_of(string());
    tests.push(executed(
        vec![
            null_string,
            new_with(&new_box, 0, JavaType::generic(BOX, vec![string()])),
        ],
        vec![
            observed_string,
            Some(object(
                BOX,
                vec![("isFull", GetterOutcome::Value(Value::Bool(false)))],
            )),
        ],
    ));
    tests
}

fn spec(junit: JUnit) -> TestClassSpec {
    let mut spec = TestClassSpec::new(INVENTORY, "InventoryGeneratedTest", junit);
    spec.tests = shop_tests();
    spec.facts = facts();
    spec.generator_version = "0.0.0-snapshot".into();
    spec
}

#[test]
fn junit5_class_snapshot() {
    let printed = print_class(&spec(JUnit::Five), &Suppressions::default());
    expect_file!["junit_snapshots/InventoryGeneratedTest.junit5.java"].assert_eq(&printed.source);
}

#[test]
fn junit4_class_snapshot() {
    let printed = print_class(&spec(JUnit::Four), &Suppressions::default());
    expect_file!["junit_snapshots/InventoryGeneratedTest.junit4.java"].assert_eq(&printed.source);
}

/// The class at each Java level a project may declare: below 8 no lambda (expected exceptions
/// in `try`/`catch`, for JUnit 5 too) and no diamond; from 8 on the default printing.
/// `ctg`'s `emit_snapshots` compiles the Java 7 files with `javac --release 7` (JUnit 4) and
/// runs them.
#[test]
fn class_snapshots_at_each_language_level() {
    for (junit, old, new) in [
        (
            JUnit::Five,
            expect_file!["junit_snapshots/InventoryGeneratedTest.junit5.java7.java"],
            expect_file!["junit_snapshots/InventoryGeneratedTest.junit5.java"],
        ),
        (
            JUnit::Four,
            expect_file!["junit_snapshots/InventoryGeneratedTest.junit4.java7.java"],
            expect_file!["junit_snapshots/InventoryGeneratedTest.junit4.java"],
        ),
    ] {
        let at = |level: u32| {
            let mut spec = spec(junit);
            spec.level = Some(level);
            print_class(&spec, &Suppressions::default()).source
        };
        old.assert_eq(&at(7));
        assert_eq!(at(6), at(7), "Java 6 is written like Java 7");
        for level in [8, 11, 17] {
            new.assert_eq(&at(level));
        }
        let java7 = at(7);
        for newer in ["->", "<>", "assertThrows", " var ", "List.of(", "Map.of("] {
            assert!(
                !java7.contains(newer),
                "{junit:?}: `{newer}` at Java 7:\n{java7}"
            );
        }
    }
}

/// A checked exception that no call declares (thrown sneakily): javac lets no `catch` name it,
/// so JUnit 4 expects it in `@Test`, and JUnit 5 below Java 8 (no `assertThrows` lambda, no
/// `expected`) catches `Exception` and checks its class.
#[test]
fn an_undeclared_checked_exception_at_java_7() {
    let named = constructor(INVENTORY, &["java.lang.String"], &[]);
    let test = throwing(
        vec![
            lit(PrimitiveValue::String("x".into())),
            new(&named, &[0], t(INVENTORY)),
        ],
        vec![value("java.lang.String", text("x"))],
        thrown("java.io.IOException", "sneaky", false, true),
    );
    let print = |junit: JUnit, level: Option<u32>| {
        let mut spec = spec(junit);
        spec.tests = vec![test.clone()];
        spec.level = level;
        print_class(&spec, &Suppressions::default()).source
    };
    let five = print(JUnit::Five, Some(7));
    let body = five.split_once("() {\n").expect("a test method").1;
    expect![[r#"
                // Undeclared exception: the Inventory constructor does not declare IOException.
                try {
                    new Inventory("x");
                    fail("Expected IOException");
                } catch (Exception exception) {
                    assertTrue(exception instanceof IOException);
                    assertEquals("sneaky", exception.getMessage());
                }
            }
        }
    "#]]
    .assert_eq(body);
    assert!(print(JUnit::Four, Some(7)).contains("@Test(expected = IOException.class)"));
    assert!(print(JUnit::Five, Some(8))
        .contains("assertThrows(IOException.class, () -> new Inventory(\"x\"));"));
}

/// Regression: `null` passed to overloaded members whose parameters mention type variables
/// was never cast, so `new Shelf<>(null)` was ambiguous (`Shelf(T...)`, `Shelf(List<T>)`) and
/// verification dropped the test. The erasure would not do with a diamond or a witness
/// (`new Shelf<>((Object[]) null)` is no `Shelf<String>`): the cast is to the parameter's
/// type at the call site. Every line here is compiled and run by `ctg`'s `emit_snapshots`.
#[test]
fn null_arguments_of_generic_overloads_are_cast_to_their_type_at_the_call_site() {
    let mut spec = spec(JUnit::Five);
    spec.tests = generic_overload_tests();
    let printed = print_class(&spec, &Suppressions::default());
    for line in [
        "Shelf<String> shelf0 = new Shelf<>((String[]) null);",
        "Shelf<String> shelf0 = new Shelf<>((List<String>) null);",
        "Shelf<List<Integer>> shelf0 = new Shelf<>((List<Integer>[]) null);",
        "assertEquals(\"item null\", shelf0.put((List<Integer>) null));",
        "assertEquals(\"list null\", shelf0.put((List<List<Integer>>) null));",
        "assertEquals(\"item null\", crate0.put((String) null));",
        "assertEquals(\"collection null\", crate0.putAll((Collection<? extends String>) null));",
        "assertEquals(\"array null\", Shelf.<String>count((String[]) null));",
        "assertEquals(\"collection null\", Shelf.<String>count((Collection<String>) null));",
        "Shelf<Integer> shelf0 = Shelf.<Integer>of((Integer[]) null);",
        "Box<String> box0 = new Box((Object) null);",
    ] {
        assert!(
            printed.source.contains(&format!("        {line}\n")),
            "missing `{line}` in\n{}",
            printed.source
        );
    }
}

#[test]
fn printing_is_deterministic() {
    let a = print_class(&spec(JUnit::Five), &Suppressions::default());
    let b = print_class(&spec(JUnit::Five), &Suppressions::default());
    assert_eq!(a, b);
}

#[test]
fn the_line_map_finds_every_assertion() {
    let printed = print_class(&spec(JUnit::Five), &Suppressions::default());
    let lines: Vec<&str> = printed.source.lines().collect();
    assert_eq!(printed.tests.len(), spec(JUnit::Five).tests.len());
    for test in &printed.tests {
        let declaration = lines[test.first_line as usize];
        assert!(
            declaration.contains(&format!("void {}(", test.name)),
            "{declaration}"
        );
        assert_eq!(lines[test.last_line as usize - 1], "    }");
        for a in &test.assertions {
            let line = lines[a.first_line as usize - 1];
            match a.kind {
                AssertionKind::Throws => assert!(line.contains("assertThrows("), "{line}"),
                _ => assert!(line.trim_start().starts_with("assert"), "{line}"),
            }
            assert!(line.contains(&a.subject), "{line} / {}", a.subject);
            let (t, found) = printed.locate(a.first_line).unwrap();
            assert_eq!(t.index, test.index);
            assert_eq!(found.unwrap().id, a.id);
        }
    }
}

#[test]
fn suppressed_assertions_become_comments_and_suppressed_tests_vanish() {
    let spec = spec(JUnit::Five);
    let printed = print_class(&spec, &Suppressions::default());
    let add_test = &printed.tests[0];
    assert_eq!(add_test.name, "addReturns3");
    let value = add_test
        .assertions
        .iter()
        .find(|a| a.subject == "inventory0.add(\"apple\", 3)")
        .unwrap();
    assert!(value.runs_statement);
    let mut suppressions = Suppressions::default();
    suppressions.assertions.insert(
        value.id,
        Some("differs between runs (it depends on time)".into()),
    );
    suppressions.tests.insert(1, "fails".into());
    let again = print_class(&spec, &suppressions);
    assert!(again.source.contains(
        "        inventory0.add(\"apple\", 3);\n        // Not asserted: inventory0.add(\"apple\", 3) differs between runs (it depends on time).\n"
    ), "{}", again.source);
    assert!(!again.source.contains(&printed.names[1]));
    // The name no longer states the value it does not check.
    assert_eq!(again.names[0], "add");
    assert_eq!(again.names[1..], printed.names[1..]);
    // The other assertions keep their ids.
    let kept: Vec<_> = again.tests[0].assertions.iter().map(|a| a.id).collect();
    let before: Vec<_> = add_test
        .assertions
        .iter()
        .map(|a| a.id)
        .filter(|id| *id != value.id)
        .collect();
    assert_eq!(kept, before);
}

#[test]
fn values_that_changed_between_runs_become_comments() {
    let mut spec = spec(JUnit::Five);
    spec.tests.truncate(1);
    let execution = &mut spec.tests[0].execution;
    execution.results[3].as_mut().unwrap().unstable = true;
    let state = execution.final_state.get_mut(&VarRef(2)).unwrap();
    state.getters[1].unstable = true;
    let printed = print_class(&spec, &Suppressions::default());
    let body: Vec<&str> = printed
        .source
        .lines()
        .skip_while(|l| !l.contains("void "))
        .collect();
    assert_eq!(
        body[..8].join("\n"),
        [
            "    void add() {",
            "        Inventory inventory0 = new Inventory();",
            "        inventory0.add(\"apple\", 3);",
            "        // Not asserted: inventory0.add(\"apple\", 3) differs between runs.",
            "        assertEquals(Inventory.Category.FOOD, inventory0.getCategory());",
            "        // Not asserted: inventory0.getName() differs between runs.",
            "        assertEquals(1, inventory0.size());",
            "    }",
        ]
        .join("\n")
    );
}

#[test]
fn removing_a_statement_removes_its_dependents() {
    let tests = shop_tests();
    // The collections test: removing the inventory removes everything that uses it.
    let collections = &tests[12].test;
    let removal = remove_statement(collections, 0);
    assert_eq!(removal.removed, vec![0, 3, 4]);
    assert_eq!(removal.kept, vec![1, 2, 5, 6]);
    let remaining: Vec<String> = removal.test.to_string().lines().map(String::from).collect();
    assert_eq!(
        remaining,
        vec![
            "java.lang.String v0 = \"pear\";",
            "int v1 = 2;",
            "java.lang.String v2 = \"kiwi\";",
            "shop.Box<java.lang.String> v3 = new shop.Box<>(v2);",
        ]
    );
    // Minimisation keeps what the predicate needs: here, any call of `add`.
    let minimal = testcase::minimise(collections, |t| {
        t.statements()
            .iter()
            .any(|s| s.callable().is_some_and(|c| c.name() == "add"))
    });
    assert_eq!(minimal.len(), 4);
    assert!(
        minimal.to_string().ends_with("v0.add(v1, v2);\n"),
        "{minimal}"
    );
}

/// A record's component accessors come from the worker as getters named `x` and `label`, and
/// are asserted by calling them.
#[test]
fn record_component_accessors_are_asserted_like_getters() {
    const SPOT: &str = "shop.Spot";
    let accessor = |name: &str, ret: &str| MethodDescription {
        access: Access::Public,
        name: name.into(),
        declaring_class: SPOT.into(),
        is_static: false,
        return_type: ret.into(),
        generic_return_type: None,
        params: vec![],
        exceptions: vec![],
        varargs: false,
        type_parameters: vec![],
    };
    let spot = TypeDescription {
        access: Access::Public,
        name: SPOT.into(),
        kind: TypeKind::Record,
        superclass: Some("java.lang.Record".into()),
        constructors: vec![ConstructorDescription {
            access: Access::Public,
            params: vec![
                param("int", "int"),
                param("java.lang.String", "java.lang.String"),
            ],
            exceptions: vec![],
            varargs: false,
            type_parameters: vec![],
        }],
        methods: vec![accessor("x", "int"), accessor("label", "java.lang.String")],
        ..inventory_description()
    };
    let new_spot = constructor(SPOT, &["int", "java.lang.String"], &[]);
    let state = object(
        SPOT,
        vec![
            ("label", GetterOutcome::Value(text("a"))),
            ("x", GetterOutcome::Value(Value::Integer(3))),
        ],
    );
    let mut test = executed(
        vec![
            lit(PrimitiveValue::Int(3)),
            lit(PrimitiveValue::String("a".into())),
            new(&new_spot, &[0, 1], t(SPOT)),
        ],
        vec![
            value("int", Value::Integer(3)),
            value("java.lang.String", text("a")),
            Some(state.clone()),
        ],
    );
    test.execution.final_state.insert(VarRef(2), state);
    let mut spec = TestClassSpec::new(SPOT, "SpotGeneratedTest", JUnit::Five);
    spec.tests = vec![test];
    spec.facts = TypeFacts::from_descriptions(&[spot]);
    let printed = print_class(&spec, &Suppressions::default());
    for line in [
        "assertEquals(\"a\", spot0.label());",
        "assertEquals(3, spot0.x());",
    ] {
        assert!(
            printed.source.contains(&format!("        {line}\n")),
            "missing `{line}` in\n{}",
            printed.source
        );
    }
}

/// A value's runtime class is named only where the test can name it: an enum constant of a
/// package-private JDK class (`Comparator.naturalOrder()` is
/// `java.util.Comparators$NaturalOrderComparator.INSTANCE`) or of a package-private class of
/// another package is not asserted, while one of a public enum the facts describe is, through
/// its class.
#[test]
fn enum_constants_of_classes_the_test_cannot_name_are_not_asserted() {
    const SORTERS: &str = "shop.internal.Sorters";
    let sorters = TypeDescription {
        access: Access::Package,
        name: SORTERS.into(),
        kind: TypeKind::Enum,
        enum_constants: vec!["BY_NAME".into()],
        constructors: vec![],
        methods: vec![],
        ..inventory_description()
    };
    let order = static_method(INVENTORY, "order", &[], "java.util.Comparator");
    let sorter = static_method(INVENTORY, "sorter", &[], "java.util.Comparator");
    let favourite = static_method(INVENTORY, "favourite", &[], "java.lang.Object");
    let constant = |runtime: &str, name: &str| {
        Some(Observed {
            runtime_type: Some(runtime.into()),
            enum_constant: Some(name.into()),
            ..Observed::default()
        })
    };
    let test = executed(
        vec![
            call(&order, None, &[]),
            call(&sorter, None, &[]),
            call(&favourite, None, &[]),
        ],
        vec![
            constant("java.util.Comparators$NaturalOrderComparator", "INSTANCE"),
            constant(SORTERS, "BY_NAME"),
            constant(CATEGORY, "DARK_TOOLS"),
        ],
    );
    let mut spec = TestClassSpec::new(INVENTORY, "InventoryGeneratedTest", JUnit::Five);
    spec.tests = vec![test];
    spec.facts = TypeFacts::visible_from(
        &[inventory_description(), category_description(), sorters],
        INVENTORY,
    );
    let printed = print_class(&spec, &Suppressions::default());
    for absent in [
        "Comparators",
        "NaturalOrderComparator",
        "Sorters",
        "BY_NAME",
    ] {
        assert!(
            !printed.source.contains(absent),
            "`{absent}` named in\n{}",
            printed.source
        );
    }
    assert!(
        printed
            .source
            .contains("assertEquals(Inventory.Category.DARK_TOOLS, "),
        "the public enum's constant is asserted in\n{}",
        printed.source
    );
}
