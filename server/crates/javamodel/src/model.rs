//! The data types of the Java model: a file's package, imports, types, fields and members, with
//! source spans. Branch, CFG and control-dependence types live in `branches.rs` and `cfg.rs`.

use tree_sitter::Point;

use crate::branches::Decision;
use crate::cfg::Cfg;

/// A source range.
///
/// Invariant: `start_byte <= end_byte`, both on UTF-8 character boundaries of the model's text;
/// `start`/`end` are the tree-sitter points of those bytes (0-based row, 0-based column in
/// **bytes**). `dump` converts columns to 1-based **characters** for humans; the LSP side converts
/// from bytes to whatever position encoding it negotiated.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Span {
    pub start_byte: usize,
    pub end_byte: usize,
    pub start: Point,
    pub end: Point,
}

impl Span {
    pub(crate) fn of(node: tree_sitter::Node<'_>) -> Span {
        Span {
            start_byte: node.start_byte(),
            end_byte: node.end_byte(),
            start: node.start_position(),
            end: node.end_position(),
        }
    }

    /// The span from the start of `first` to the end of `last`.
    pub(crate) fn cover(first: tree_sitter::Node<'_>, last: tree_sitter::Node<'_>) -> Span {
        Span {
            start_byte: first.start_byte(),
            end_byte: last.end_byte().max(first.start_byte()),
            start: first.start_position(),
            end: if last.end_byte() >= first.start_byte() {
                last.end_position()
            } else {
                first.start_position()
            },
        }
    }

    pub fn contains_byte(&self, byte: usize) -> bool {
        self.start_byte <= byte && byte <= self.end_byte
    }
}

/// One edit of the source in bytes, as the document reports it (see [`syntax::ByteEdit`]).
/// A list of edits is applied in order, each one in the coordinates left by the previous ones.
pub use syntax::ByteEdit;

/// The model of one Java compilation unit. Built by [`JavaModel::build`] or, after edits,
/// [`JavaModel::update`]; both give equal models for the same source and tree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JavaModel {
    /// The source the model was built from; spans index into it.
    pub(crate) text: String,
    pub package: Option<PackageDecl>,
    pub imports: Vec<ImportDecl>,
    /// Top-level types in source order; member, local and anonymous types hang below them.
    pub types: Vec<TypeDecl>,
    /// Syntax errors (`ERROR` and `MISSING` nodes) in source order.
    pub problems: Vec<Problem>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PackageDecl {
    pub name: String,
    pub span: Span,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImportDecl {
    /// The imported name without `static` and without a trailing `.*`.
    pub path: String,
    pub is_static: bool,
    /// `import a.b.*;`
    pub on_demand: bool,
    pub span: Span,
}

/// A syntax problem found in the tree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    pub message: String,
    pub span: Span,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TypeKind {
    Class,
    Interface,
    Enum,
    Record,
    Annotation,
}

/// Where a type is declared; decides how javac names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Nesting {
    TopLevel,
    /// Declared in another type's body (or an enum constant's body is *not* this: it is
    /// [`Nesting::Anonymous`], as javac compiles it).
    Member,
    /// Declared in a block (`class Local {}` inside a method, initializer or lambda).
    Local,
    /// `new T() { ... }` or an enum constant with a body.
    Anonymous,
}

/// Modifiers as written, in source order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Modifiers {
    /// Keywords such as `public`, `static`, `sealed`, `non-sealed`, `default`.
    pub keywords: Vec<String>,
    /// Annotations with whitespace collapsed, e.g. `@SuppressWarnings("unchecked")`.
    pub annotations: Vec<String>,
}

impl Modifiers {
    pub fn has(&self, keyword: &str) -> bool {
        self.keywords.iter().any(|k| k == keyword)
    }
}

/// A class, interface, enum, record or annotation type.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TypeDecl {
    pub kind: TypeKind,
    pub nesting: Nesting,
    /// The simple name; empty for anonymous classes.
    pub name: String,
    /// The name javac gives the class file, with the package: `com.x.Outer$Inner`,
    /// `com.x.Outer$1` (anonymous), `com.x.Outer$1Local` (local). Anonymous and local classes
    /// are numbered per enclosing class in the order javac attributes them: source order,
    /// except that a lambda passed as a call argument is attributed after that call's other
    /// arguments.
    pub binary_name: String,
    pub modifiers: Modifiers,
    /// Type parameters as written, e.g. `T extends Comparable<T>`.
    pub type_params: Vec<String>,
    /// The superclass of a class, the extended interfaces of an interface, or the instantiated
    /// type of an anonymous class (which may be an interface: the source does not say).
    pub extends: Vec<String>,
    pub implements: Vec<String>,
    pub permits: Vec<String>,
    pub record_components: Vec<Param>,
    pub enum_constants: Vec<EnumConstant>,
    pub fields: Vec<Field>,
    /// Constructors, methods, annotation elements and the initializer pseudo-members, in
    /// source order (a pseudo-member sits at its first piece). Members javac generates without
    /// source (default constructor, record accessors and canonical constructor, enum
    /// `values`/`valueOf`) are not listed: there is nothing to instrument.
    pub members: Vec<Member>,
    /// Member types and enum-constant bodies, in source order. Local and anonymous types
    /// declared inside members are in [`Member::local_types`].
    pub nested_types: Vec<TypeDecl>,
    pub span: Span,
    pub name_span: Option<Span>,
    /// Sort key among the local and anonymous classes of one enclosing class: javac's
    /// attribution order (see [`TypeDecl::binary_name`]). Byte offsets; empty for other types.
    pub(crate) order_key: Vec<usize>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EnumConstant {
    pub name: String,
    /// The argument list as written (whitespace collapsed), with parentheses.
    pub arguments: Option<String>,
    /// Whether the constant has a class body (an anonymous class in `nested_types`).
    pub has_body: bool,
    pub span: Span,
}

/// One declared field (one declarator of a field declaration).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Field {
    pub modifiers: Modifiers,
    /// The type as written, including C-style dimensions of the declarator (`int a[]` gives
    /// `int[]`).
    pub type_text: String,
    pub name: String,
    pub has_initializer: bool,
    /// The declarator (`name = value`).
    pub span: Span,
}

/// A formal parameter or record component.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Param {
    pub modifiers: Modifiers,
    /// The type as written (annotations and type arguments kept, `...` kept for varargs).
    pub type_text: String,
    /// The type as it appears in a member signature: type arguments and annotations removed,
    /// varargs as `[]`, e.g. `List`, `int[]`, `java.util.Map`.
    pub signature_type: String,
    pub name: String,
    pub varargs: bool,
    pub span: Span,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MemberKind {
    Method,
    Constructor,
    /// A record's compact canonical constructor; its parameters are the record components.
    CompactConstructor,
    /// `<clinit>`: static field initializers, static blocks and enum constant arguments, in
    /// source order, as javac concatenates them.
    StaticInitializer,
    /// `<instinit>`: instance field initializers and instance initializer blocks in source
    /// order. javac copies this code into every constructor that does not start with
    /// `this(...)`; the model keeps it once so each decision is one goal.
    InstanceInitializer,
    /// An element of an annotation type (`int value() default 1;`).
    AnnotationElement,
}

/// A constructor, method, annotation element or initializer pseudo-member.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Member {
    pub kind: MemberKind,
    /// `<init>` for constructors, `<clinit>` / `<instinit>` for initializers.
    pub name: String,
    /// `name(T1,T2)` with [`Param::signature_type`]s, or `<clinit>` / `<instinit>`.
    /// Unique within a type for valid Java.
    pub signature: String,
    /// `binary_name#signature`: the stable key of the member, and the prefix of its decisions'
    /// keys. Set by the naming pass.
    pub key: String,
    pub modifiers: Modifiers,
    pub type_params: Vec<String>,
    pub params: Vec<Param>,
    /// The return type as written (with C-style dimensions after the parameter list appended);
    /// `None` for constructors and initializers.
    pub return_type: Option<String>,
    pub throws: Vec<String>,
    /// An annotation element's `default` value as written.
    pub default_value: Option<String>,
    /// The declaration; for initializer pseudo-members the hull of the pieces.
    pub span: Span,
    pub name_span: Option<Span>,
    /// The source ranges this member owns: the declaration, or each initializer piece
    /// (a field declarator with its value, a static or instance block, an enum constant's
    /// argument list). Incremental update reuses a member only if no edit touched a piece.
    pub pieces: Vec<Span>,
    /// Branches and control flow; `None` when there is no body (abstract, native, interface
    /// and annotation members).
    pub body: Option<Body>,
    /// Local and anonymous classes declared inside this member (lambdas included), in source
    /// order.
    pub local_types: Vec<TypeDecl>,
    /// Whether the syntax tree of a piece contained an error; such members are always rebuilt.
    pub(crate) had_error: bool,
}

/// The analysed code of a member.
///
/// Invariants: `decisions[i].ordinal == i`; ordinals follow the pre-order of the decisions'
/// syntax nodes within the member (lambda bodies included), so they do not depend on anything
/// outside the member. `cfgs[0]` is the member's own body; `cfgs[k]` for `k > 0` is the body of
/// a lambda expression inside it, and a lambda's parent CFG has a smaller index.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Body {
    pub decisions: Vec<Decision>,
    pub cfgs: Vec<Cfg>,
}

impl JavaModel {
    /// The source text the model was built from.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// Every type, local and anonymous ones included, in source order of their declarations.
    pub fn all_types(&self) -> Vec<&TypeDecl> {
        let mut out = Vec::new();
        for ty in &self.types {
            ty.collect_types(&mut out);
        }
        out.sort_by_key(|t| t.span.start_byte);
        out
    }

    /// Looks a type up by binary name.
    pub fn type_by_binary_name(&self, binary_name: &str) -> Option<&TypeDecl> {
        self.all_types()
            .into_iter()
            .find(|t| t.binary_name == binary_name)
    }

    /// Looks a member up by its key (`binary_name#signature`).
    pub fn member_by_key(&self, key: &str) -> Option<(&TypeDecl, &Member)> {
        self.all_types().into_iter().find_map(|t| {
            t.members
                .iter()
                .find(|m| m.key == key)
                .map(|member| (t, member))
        })
    }
}

impl TypeDecl {
    fn collect_types<'a>(&'a self, out: &mut Vec<&'a TypeDecl>) {
        out.push(self);
        for nested in &self.nested_types {
            nested.collect_types(out);
        }
        for member in &self.members {
            for local in &member.local_types {
                local.collect_types(out);
            }
        }
    }

    /// The simple name for named types, `binary_name` after the last `.` otherwise.
    pub fn display_name(&self) -> &str {
        if self.name.is_empty() {
            self.binary_name
                .rsplit('.')
                .next()
                .unwrap_or(&self.binary_name)
        } else {
            &self.name
        }
    }
}
