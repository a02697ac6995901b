//! The test cluster's input: the non-private members of the class under test and of the types
//! its members mention, as reflection reports them (the worker's `describe`; `ctg::cluster`
//! converts), with the access of each. Type names use `getTypeName()` form; generic forms keep
//! type variables by name. Which of them a test can reach is `access`'s decision.

/// What kind of type a description is of; abstract classes are told apart because they have
/// no usable constructors.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TypeKind {
    Class,
    AbstractClass,
    Interface,
    Enum,
    Record,
    Annotation,
}

impl TypeKind {
    /// A type whose own constructors can create instances.
    pub fn is_instantiable(self) -> bool {
        matches!(self, TypeKind::Class | TypeKind::Record)
    }
}

/// Java's four access levels, most open first. For a type it is the effective access: the most
/// restrictive of its own and of every class that encloses it; local and anonymous classes are
/// `Private` (a test cannot name them).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub enum Access {
    #[default]
    Public,
    Protected,
    /// No modifier: package-private.
    Package,
    Private,
}

impl Access {
    /// The access a list of modifiers (`["protected", "static"]`) gives.
    pub fn from_modifiers<S: AsRef<str>>(modifiers: &[S]) -> Access {
        let has = |m: &str| modifiers.iter().any(|x| x.as_ref() == m);
        if has("public") {
            Access::Public
        } else if has("protected") {
            Access::Protected
        } else if has("private") {
            Access::Private
        } else {
            Access::Package
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TypeDescription {
    /// Binary name, e.g. `com.acme.Outer$Inner`.
    pub name: String,
    pub kind: TypeKind,
    pub is_public: bool,
    /// Effective access (see [`Access`]); with the package of `name`, what decides whether a
    /// test can name the type.
    pub access: Access,
    /// Compiled from the project's sources (not the JDK or a library).
    pub project: bool,
    /// A non-static member class: its constructors take the outer instance first.
    pub inner_class: bool,
    /// The superclass in generic form when reflection gives one (`a.Base<java.lang.Double>`).
    pub superclass: Option<String>,
    /// Implemented (or, for interfaces, extended) interfaces, with their type arguments where
    /// reflection resolved them (`p.Named<java.lang.Integer>`), else raw names.
    pub interfaces: Vec<String>,
    /// Type parameter declarations: `K extends java.lang.Comparable<K>`.
    pub type_parameters: Vec<String>,
    /// Non-private constructors (none for abstract classes).
    pub constructors: Vec<ConstructorDescription>,
    /// Non-private methods that are members of the type (inherited ones included, a
    /// package-private one only along a chain of its own package), except `java.lang.Object`'s.
    pub methods: Vec<MethodDescription>,
    /// Non-private fields, inherited ones included; enum constants are not fields here.
    pub fields: Vec<FieldDescription>,
    pub enum_constants: Vec<String>,
    /// Non-private project classes assignable to this type (subclasses and implementations).
    pub subclasses: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParamDescription {
    /// Erased type: picks the overload.
    pub type_name: String,
    /// Generic type, e.g. `java.util.List<V>`.
    pub generic: String,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConstructorDescription {
    pub access: Access,
    pub params: Vec<ParamDescription>,
    pub exceptions: Vec<String>,
    pub varargs: bool,
    pub type_parameters: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MethodDescription {
    pub access: Access,
    pub name: String,
    pub declaring_class: String,
    pub is_static: bool,
    /// Erased return type; `void` for none.
    pub return_type: String,
    pub generic_return_type: Option<String>,
    pub params: Vec<ParamDescription>,
    pub exceptions: Vec<String>,
    pub varargs: bool,
    pub type_parameters: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldDescription {
    pub access: Access,
    pub name: String,
    pub declaring_class: String,
    pub type_name: String,
    pub generic_type: Option<String>,
    pub is_static: bool,
    pub is_final: bool,
}

/// A type reflection could not load, with its reason.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MissingType {
    pub name: String,
    pub reason: String,
}
