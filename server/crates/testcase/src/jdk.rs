//! What the cluster knows about the JDK without asking the worker: the hierarchy of the
//! `java.lang`, `java.util` and `java.io` types that commonly appear in signatures, and the few
//! JDK members it uses to build values of them (`ArrayList`/`HashSet`/`HashMap` filled with
//! `add`/`put`, `Optional.of`/`empty`, `new StringBuilder(String)`/`new StringBuffer(String)`,
//! an `ArrayList`'s `iterator()`, and in-memory streams for the abstract `java.io` types:
//! `new StringReader(String)`, `new StringWriter()`, `new ByteArrayInputStream(byte[])`,
//! `new ByteArrayOutputStream()`). The worker does not describe these types' members
//! (`String`, boxes, `Object` are leaves of `describe`), and using every public JDK member
//! would mostly test the JDK. The abstract types have no subclass in a project as a rule
//! (a parser takes a `Reader`, a printer an `Appendable` or a `Writer`), so without these
//! their parameters got only `null` and the code behind them was out of reach; the in-memory
//! streams touch no file, socket or console, so tests that use them stay repeatable.

use crate::callable::{Callable, CallableKind};
use crate::description::TypeKind;
use crate::hierarchy::TypeInfo;
use crate::types::{JavaType, PrimitiveKind, TypeParameter, OBJECT, STRING};

pub const ARRAY_LIST: &str = "java.util.ArrayList";
pub const HASH_SET: &str = "java.util.HashSet";
pub const HASH_MAP: &str = "java.util.HashMap";
pub const COLLECTION: &str = "java.util.Collection";
pub const MAP: &str = "java.util.Map";
pub const OPTIONAL: &str = "java.util.Optional";
pub const STRING_BUILDER: &str = "java.lang.StringBuilder";
pub const STRING_BUFFER: &str = "java.lang.StringBuffer";
pub const ITERATOR: &str = "java.util.Iterator";
pub const STRING_READER: &str = "java.io.StringReader";
pub const STRING_WRITER: &str = "java.io.StringWriter";
pub const BYTE_ARRAY_INPUT_STREAM: &str = "java.io.ByteArrayInputStream";
pub const BYTE_ARRAY_OUTPUT_STREAM: &str = "java.io.ByteArrayOutputStream";

/// The in-memory readers, writers and streams: values for parameters of their abstract types,
/// never for a general one (`Object` gets literals, arrays, containers and the project's
/// classes, as before; a `Reader` passed as an `Object` reaches nothing they do not).
pub const IN_MEMORY_IO_TYPES: [&str; 4] = [
    STRING_READER,
    STRING_WRITER,
    BYTE_ARRAY_INPUT_STREAM,
    BYTE_ARRAY_OUTPUT_STREAM,
];

/// The concrete types [`builtin_generators`] construct.
pub const BUILTIN_VALUE_TYPES: [&str; 10] = [
    ARRAY_LIST,
    HASH_SET,
    HASH_MAP,
    STRING_BUILDER,
    STRING_BUFFER,
    OPTIONAL,
    STRING_READER,
    STRING_WRITER,
    BYTE_ARRAY_INPUT_STREAM,
    BYTE_ARRAY_OUTPUT_STREAM,
];

/// Supertypes too general to look for generators under: values for them are literals
/// (`Object` gets an `Integer` or a `String`, Fraser and Arcuri, "Whole Test Suites" section IV-A) and an index of every
/// class under `Object` would make the choice meaningless.
pub const TOO_GENERAL: [&str; 9] = [
    OBJECT,
    "java.io.Serializable",
    "java.lang.Cloneable",
    "java.lang.Comparable",
    "java.lang.CharSequence",
    "java.lang.Number",
    "java.lang.constant.Constable",
    "java.lang.constant.ConstantDesc",
    "java.util.RandomAccess",
];

fn var(name: &str) -> JavaType {
    JavaType::Var(name.to_string())
}

fn tp(name: &str) -> TypeParameter {
    TypeParameter {
        name: name.to_string(),
        bounds: Vec::new(),
    }
}

fn info(name: &str, kind: TypeKind, params: &[&str], supertypes: Vec<JavaType>) -> TypeInfo {
    TypeInfo {
        name: name.to_string(),
        kind,
        project: false,
        is_public: true,
        access: crate::description::Access::Public,
        inner_class: false,
        type_params: params.iter().map(|p| tp(p)).collect(),
        supertypes,
        enum_constants: Vec::new(),
    }
}

fn comparable(of: JavaType) -> JavaType {
    JavaType::generic("java.lang.Comparable", vec![of])
}

fn serializable() -> JavaType {
    JavaType::class("java.io.Serializable")
}

/// The built-in part of the hierarchy. It overrides what `describe` says of the same names:
/// reflection gives implemented interfaces raw, these carry their type arguments.
/// The first Java release with `java.util.Optional`.
pub const OPTIONAL_SINCE: u32 = 8;
/// The first Java release where `StringBuilder` and `StringBuffer` are `Comparable`.
pub const COMPARABLE_BUILDERS_SINCE: u32 = 11;

/// Whether Java `release` (the tests' level; `None`: the worker's JDK, 11 or newer) has what
/// came in `since`.
fn at_least(release: Option<u32>, since: u32) -> bool {
    release.is_none_or(|r| r >= since)
}

/// The built-in types as the worker's JDK has them (11 or newer).
pub fn builtin_types() -> Vec<TypeInfo> {
    builtin_types_at(None)
}

/// The built-in types at Java `release` (the release the tests compile at): no `Optional`
/// before 8, and no `Comparable` string builders before 11, so that a test compiled at an
/// older release never names or relies on what that release lacks.
pub fn builtin_types_at(release: Option<u32>) -> Vec<TypeInfo> {
    use TypeKind::*;
    let mut out = vec![
        info(OBJECT, Class, &[], vec![]),
        info("java.io.Serializable", Interface, &[], vec![]),
        info("java.lang.Cloneable", Interface, &[], vec![]),
        info("java.lang.Comparable", Interface, &["T"], vec![]),
        info("java.lang.CharSequence", Interface, &[], vec![]),
        info("java.lang.Number", AbstractClass, &[], vec![serializable()]),
        info(
            STRING,
            Class,
            &[],
            vec![
                serializable(),
                comparable(JavaType::string()),
                JavaType::class("java.lang.CharSequence"),
            ],
        ),
        info(
            "java.lang.Enum",
            AbstractClass,
            &["E"],
            vec![comparable(var("E")), serializable()],
        ),
        info("java.lang.Record", AbstractClass, &[], vec![]),
        info("java.lang.Iterable", Interface, &["T"], vec![]),
        info(
            COLLECTION,
            Interface,
            &["E"],
            vec![JavaType::generic("java.lang.Iterable", vec![var("E")])],
        ),
        info(
            "java.util.List",
            Interface,
            &["E"],
            vec![JavaType::generic(COLLECTION, vec![var("E")])],
        ),
        info(
            "java.util.Set",
            Interface,
            &["E"],
            vec![JavaType::generic(COLLECTION, vec![var("E")])],
        ),
        info(MAP, Interface, &["K", "V"], vec![]),
        info("java.util.RandomAccess", Interface, &[], vec![]),
        info(
            ARRAY_LIST,
            Class,
            &["E"],
            vec![
                JavaType::generic("java.util.List", vec![var("E")]),
                JavaType::class("java.util.RandomAccess"),
                JavaType::class("java.lang.Cloneable"),
                serializable(),
            ],
        ),
        info(
            HASH_SET,
            Class,
            &["E"],
            vec![
                JavaType::generic("java.util.Set", vec![var("E")]),
                JavaType::class("java.lang.Cloneable"),
                serializable(),
            ],
        ),
        info(
            HASH_MAP,
            Class,
            &["K", "V"],
            vec![
                JavaType::generic(MAP, vec![var("K"), var("V")]),
                JavaType::class("java.lang.Cloneable"),
                serializable(),
            ],
        ),
    ];
    if at_least(release, OPTIONAL_SINCE) {
        out.push(info(OPTIONAL, Class, &["T"], vec![]));
    }
    // The mutable `CharSequence`s, so that code which treats them apart from `String`
    // (`instanceof StringBuilder`) can be reached; `Comparable` since Java 11.
    for name in [STRING_BUILDER, STRING_BUFFER] {
        let mut supertypes = vec![
            serializable(),
            JavaType::class("java.lang.CharSequence"),
            JavaType::class("java.lang.Appendable"),
        ];
        if at_least(release, COMPARABLE_BUILDERS_SINCE) {
            supertypes.insert(1, comparable(JavaType::class(name)));
        }
        out.push(info(name, Class, &[], supertypes));
    }
    out.push(info(ITERATOR, Interface, &["E"], vec![]));
    out.extend(io_types());
    for k in PrimitiveKind::ALL {
        let boxed = JavaType::class(k.boxed());
        let mut supertypes = vec![serializable(), comparable(boxed)];
        if !matches!(k, PrimitiveKind::Boolean | PrimitiveKind::Char) {
            supertypes.insert(0, JavaType::class("java.lang.Number"));
        }
        out.push(info(k.boxed(), Class, &[], supertypes));
    }
    out
}

/// The `java.io` types of readers, writers and streams, with the in-memory implementations
/// [`builtin_generators`] construct; the interfaces as the JDK declares them (since Java 5).
fn io_types() -> Vec<TypeInfo> {
    use TypeKind::*;
    let class = JavaType::class;
    vec![
        info("java.lang.AutoCloseable", Interface, &[], vec![]),
        info(
            "java.io.Closeable",
            Interface,
            &[],
            vec![class("java.lang.AutoCloseable")],
        ),
        info("java.io.Flushable", Interface, &[], vec![]),
        info("java.lang.Appendable", Interface, &[], vec![]),
        info("java.lang.Readable", Interface, &[], vec![]),
        info(
            "java.io.Reader",
            AbstractClass,
            &[],
            vec![class("java.lang.Readable"), class("java.io.Closeable")],
        ),
        info(STRING_READER, Class, &[], vec![class("java.io.Reader")]),
        info(
            "java.io.Writer",
            AbstractClass,
            &[],
            vec![
                class("java.lang.Appendable"),
                class("java.io.Closeable"),
                class("java.io.Flushable"),
            ],
        ),
        info(STRING_WRITER, Class, &[], vec![class("java.io.Writer")]),
        info(
            "java.io.InputStream",
            AbstractClass,
            &[],
            vec![class("java.io.Closeable")],
        ),
        info(
            BYTE_ARRAY_INPUT_STREAM,
            Class,
            &[],
            vec![class("java.io.InputStream")],
        ),
        info(
            "java.io.OutputStream",
            AbstractClass,
            &[],
            vec![class("java.io.Closeable"), class("java.io.Flushable")],
        ),
        info(
            BYTE_ARRAY_OUTPUT_STREAM,
            Class,
            &[],
            vec![class("java.io.OutputStream")],
        ),
    ]
}

fn builtin(
    owner: &str,
    kind: CallableKind,
    erased_params: &[&str],
    params: Vec<JavaType>,
    returns: Option<JavaType>,
    type_params: &[&str],
) -> Callable {
    Callable {
        owner: owner.to_string(),
        declaring_class: owner.to_string(),
        kind,
        erased_params: erased_params.iter().map(|s| s.to_string()).collect(),
        params,
        erased_return: returns.as_ref().map(JavaType::erased),
        returns,
        type_params: type_params.iter().map(|p| tp(p)).collect(),
        exceptions: Vec::new(),
        varargs: false,
    }
}

fn method(name: &str, is_static: bool) -> CallableKind {
    CallableKind::Method {
        name: name.to_string(),
        is_static,
    }
}

/// Constructors and factories of the built-in containers and string builders: generators, at
/// Java `release` (the release the tests compile at; `None`: the worker's JDK, 11 or newer):
/// `Optional`'s only from 8 (a Java 7 project's tests once failed to compile on `Optional.of`).
pub fn builtin_generators_at(release: Option<u32>) -> Vec<Callable> {
    let mut out = all_builtin_generators();
    if !at_least(release, OPTIONAL_SINCE) {
        out.retain(|c| c.owner != OPTIONAL);
    }
    out
}

fn all_builtin_generators() -> Vec<Callable> {
    let optional_t = JavaType::generic(OPTIONAL, vec![var("T")]);
    vec![
        builtin(
            ARRAY_LIST,
            CallableKind::Constructor,
            &[],
            vec![],
            None,
            &[],
        ),
        builtin(HASH_SET, CallableKind::Constructor, &[], vec![], None, &[]),
        builtin(HASH_MAP, CallableKind::Constructor, &[], vec![], None, &[]),
        builtin(
            STRING_BUILDER,
            CallableKind::Constructor,
            &[STRING],
            vec![JavaType::string()],
            None,
            &[],
        ),
        builtin(
            STRING_BUFFER,
            CallableKind::Constructor,
            &[STRING],
            vec![JavaType::string()],
            None,
            &[],
        ),
        builtin(
            OPTIONAL,
            method("of", true),
            &[OBJECT],
            vec![var("T")],
            Some(optional_t.clone()),
            &["T"],
        ),
        builtin(
            OPTIONAL,
            method("empty", true),
            &[],
            vec![],
            Some(optional_t),
            &["T"],
        ),
        // An iterator over a list the test filled: the iterator of the list's element type.
        builtin(
            ARRAY_LIST,
            method("iterator", false),
            &[],
            vec![],
            Some(JavaType::generic(ITERATOR, vec![var("E")])),
            &[],
        ),
        builtin(
            STRING_READER,
            CallableKind::Constructor,
            &[STRING],
            vec![JavaType::string()],
            None,
            &[],
        ),
        builtin(
            STRING_WRITER,
            CallableKind::Constructor,
            &[],
            vec![],
            None,
            &[],
        ),
        builtin(
            BYTE_ARRAY_INPUT_STREAM,
            CallableKind::Constructor,
            &["byte[]"],
            vec![JavaType::Array(Box::new(JavaType::Primitive(
                PrimitiveKind::Byte,
            )))],
            None,
            &[],
        ),
        builtin(
            BYTE_ARRAY_OUTPUT_STREAM,
            CallableKind::Constructor,
            &[],
            vec![],
            None,
            &[],
        ),
    ]
}

/// `Collection.add(E)` and `Map.put(K, V)`: the calls that fill containers, also offered as
/// calls on existing container objects.
pub fn builtin_modifiers() -> Vec<Callable> {
    vec![
        builtin(
            COLLECTION,
            method("add", false),
            &[OBJECT],
            vec![var("E")],
            Some(JavaType::Primitive(PrimitiveKind::Boolean)),
            &[],
        ),
        builtin(
            MAP,
            method("put", false),
            &[OBJECT, OBJECT],
            vec![var("K"), var("V")],
            Some(var("V")),
            &[],
        ),
    ]
}

/// Whether values of `class` are made by the built-in container constructors, so that a new
/// one gets filled with `add`/`put` calls.
pub fn is_fillable_container(class: &str) -> bool {
    matches!(class, ARRAY_LIST | HASH_SET | HASH_MAP)
}
