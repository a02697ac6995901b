//! What one file tells about the static types of expressions and about constant expressions,
//! without a type checker: declared types of locals, parameters, pattern bindings and fields in
//! scope, literal types, casts, and the numeric promotion rules of JLS 5.6.
//!
//! A type is *certain* when it comes from a declaration that nothing outside the file can
//! shadow. Names found beyond a class that has a supertype are uncertain (an inherited field
//! may shadow them), and so are method return types (an inherited overload may win).

use std::collections::HashMap;

use tree_sitter::Node;

use crate::text::{children, children_by_field, named_children, text, unparenthesize};

/// A primitive type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Prim {
    Byte,
    Short,
    Char,
    Int,
    Long,
    Float,
    Double,
    Boolean,
}

/// The rank of a numeric type after unary numeric promotion, which picks the `cmp*` probe.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Rank {
    Int,
    Long,
    Float,
    Double,
}

impl Prim {
    fn from_keyword(s: &str) -> Option<Prim> {
        Some(match s {
            "byte" => Prim::Byte,
            "short" => Prim::Short,
            "char" => Prim::Char,
            "int" => Prim::Int,
            "long" => Prim::Long,
            "float" => Prim::Float,
            "double" => Prim::Double,
            "boolean" => Prim::Boolean,
            _ => return None,
        })
    }

    fn from_box(s: &str) -> Option<Prim> {
        Some(match s.strip_prefix("java.lang.").unwrap_or(s) {
            "Byte" => Prim::Byte,
            "Short" => Prim::Short,
            "Character" => Prim::Char,
            "Integer" => Prim::Int,
            "Long" => Prim::Long,
            "Float" => Prim::Float,
            "Double" => Prim::Double,
            "Boolean" => Prim::Boolean,
            _ => return None,
        })
    }

    pub(crate) fn rank(self) -> Option<Rank> {
        match self {
            Prim::Byte | Prim::Short | Prim::Char | Prim::Int => Some(Rank::Int),
            Prim::Long => Some(Rank::Long),
            Prim::Float => Some(Rank::Float),
            Prim::Double => Some(Rank::Double),
            Prim::Boolean => None,
        }
    }

    fn of_rank(rank: Rank) -> Prim {
        match rank {
            Rank::Int => Prim::Int,
            Rank::Long => Prim::Long,
            Rank::Float => Prim::Float,
            Rank::Double => Prim::Double,
        }
    }
}

/// The category of a static type, as far as probe selection needs it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum JType {
    Prim(Prim),
    Boxed(Prim),
    String,
    /// A reference type that cannot be unboxed: arrays, classes, `Object`, `Number`, enums.
    Ref,
    /// A type variable: a reference whose bound may be a box.
    TypeVar,
    Null,
    /// A primitive numeric type of unknown width (e.g. `a - b` of unknown operands).
    Numeric,
    Unknown,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Typed {
    pub ty: JType,
    pub certain: bool,
}

impl Typed {
    fn certain(ty: JType) -> Typed {
        Typed { ty, certain: true }
    }

    fn guess(ty: JType) -> Typed {
        Typed { ty, certain: false }
    }

    const UNKNOWN: Typed = Typed {
        ty: JType::Unknown,
        certain: false,
    };

    /// The numeric rank after unboxing, if known.
    pub(crate) fn rank(self) -> Option<Rank> {
        match self.ty {
            JType::Prim(p) | JType::Boxed(p) => p.rank(),
            _ => None,
        }
    }

    /// Certainly a primitive numeric value (after any unboxing the operator does not do).
    pub(crate) fn is_primitive_numeric(self) -> bool {
        self.certain
            && match self.ty {
                JType::Prim(p) => p != Prim::Boolean,
                JType::Numeric => true,
                _ => false,
            }
    }

    pub(crate) fn is_primitive_boolean(self) -> bool {
        self.certain && self.ty == JType::Prim(Prim::Boolean)
    }

    /// Certainly a reference (boxes included).
    pub(crate) fn is_reference(self) -> bool {
        self.certain
            && matches!(
                self.ty,
                JType::Boxed(_) | JType::String | JType::Ref | JType::TypeVar | JType::Null
            )
    }

    /// Certainly a reference that no conversion turns into a primitive.
    pub(crate) fn is_unboxable_never(self) -> bool {
        self.certain && matches!(self.ty, JType::String | JType::Ref)
    }
}

/// Whether an expression is a constant expression (JLS 15.29).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Const {
    Yes,
    No,
    /// Depends on names this file cannot resolve; `constant_like` when one of them is named
    /// like a constant (`MAX`, `Config.DEBUG`).
    Maybe {
        constant_like: bool,
    },
}

impl Const {
    fn and(self, other: Const) -> Const {
        match (self, other) {
            (Const::No, _) | (_, Const::No) => Const::No,
            (Const::Yes, Const::Yes) => Const::Yes,
            (Const::Maybe { constant_like: a }, Const::Maybe { constant_like: b }) => {
                Const::Maybe {
                    constant_like: a || b,
                }
            }
            (Const::Maybe { constant_like }, Const::Yes)
            | (Const::Yes, Const::Maybe { constant_like }) => Const::Maybe { constant_like },
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum DeclKind {
    Local,
    Param,
    Field,
    EnumConstant,
    Pattern,
}

/// A declaration a simple name resolves to.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Decl<'t> {
    pub kind: DeclKind,
    /// The declared type node; `None` when the type is not written (lambda parameters).
    pub ty: Option<Node<'t>>,
    /// C-style dimensions on the declarator, or varargs: the variable is an array.
    pub extra_dims: bool,
    pub init: Option<Node<'t>>,
    pub is_final: bool,
    /// False when something outside the file might shadow the declaration.
    pub certain: bool,
}

const MAX_DEPTH: u32 = 12;

pub(crate) struct Resolver<'s, 't> {
    src: &'s str,
    /// Type declarations of the file by simple name (the first one wins).
    types: HashMap<&'s str, Node<'t>>,
}

fn is_type_declaration(kind: &str) -> bool {
    matches!(
        kind,
        "class_declaration"
            | "interface_declaration"
            | "enum_declaration"
            | "record_declaration"
            | "annotation_type_declaration"
    )
}

fn is_class_body(kind: &str) -> bool {
    matches!(
        kind,
        "class_body"
            | "interface_body"
            | "enum_body"
            | "enum_body_declarations"
            | "annotation_type_body"
    )
}

pub(crate) fn has_modifier(src: &str, node: Node<'_>, keyword: &str) -> bool {
    named_children(node)
        .into_iter()
        .filter(|c| c.kind() == "modifiers")
        .any(|m| children(m).iter().any(|t| text(src, *t) == keyword))
}

fn all_caps(name: &str) -> bool {
    name.chars().any(|c| c.is_ascii_uppercase()) && !name.chars().any(|c| c.is_ascii_lowercase())
}

impl<'s, 't> Resolver<'s, 't> {
    pub(crate) fn new(src: &'s str, root: Node<'t>) -> Resolver<'s, 't> {
        let mut types = HashMap::new();
        let mut stack = vec![root];
        while let Some(node) = stack.pop() {
            if is_type_declaration(node.kind()) {
                if let Some(name) = node.child_by_field_name("name") {
                    types.entry(text(src, name)).or_insert(node);
                }
            }
            stack.extend(named_children(node));
        }
        Resolver { src, types }
    }

    fn text(&self, node: Node<'_>) -> &'s str {
        text(self.src, node)
    }

    /// An in-file type declaration by simple name.
    pub(crate) fn type_named(&self, name: &str) -> Option<Node<'t>> {
        self.types.get(name).copied()
    }

    // ------------------------------------------------------------------ name resolution

    /// The declaration the simple name `ident` refers to, if the file declares it.
    pub(crate) fn resolve(&self, ident: Node<'t>) -> Option<Decl<'t>> {
        let name = self.text(ident);
        let mut certain = true;
        let mut child = ident;
        let mut current = ident.parent();
        while let Some(node) = current {
            if let Some(mut decl) = self.declared_in(node, child, name) {
                decl.certain &= certain;
                return Some(decl);
            }
            if is_class_body(node.kind()) && self.type_has_supertype(node) {
                certain = false;
            }
            child = node;
            current = node.parent();
        }
        None
    }

    /// Declarations of `name` that `node` puts in scope for its child `child`.
    fn declared_in(&self, node: Node<'t>, child: Node<'t>, name: &str) -> Option<Decl<'t>> {
        let before = |n: &Node<'_>| n.end_byte() <= child.start_byte();
        match node.kind() {
            "block" | "constructor_body" | "switch_block_statement_group" => {
                for statement in named_children(node).into_iter().filter(before).rev() {
                    if statement.kind() == "local_variable_declaration" {
                        if let Some(decl) =
                            self.in_variable_declaration(statement, name, DeclKind::Local)
                        {
                            return Some(decl);
                        }
                    }
                    if statement.kind() == "switch_label" {
                        if let Some(decl) = self.pattern_binding(statement, name) {
                            return Some(decl);
                        }
                        continue;
                    }
                    // `if (!(o instanceof Foo f)) return; f.use();`: a binding of an earlier
                    // statement's condition is in scope after it.
                    if matches!(statement.kind(), "if_statement" | "while_statement") {
                        if let Some(condition) = statement.child_by_field_name("condition") {
                            if let Some(mut decl) = self.pattern_binding(condition, name) {
                                // In scope only if the statement cannot complete normally
                                // when the pattern fails; a field of that name may be meant.
                                decl.certain = false;
                                return Some(decl);
                            }
                        }
                    }
                }
                None
            }
            // A switch block is one scope: a local of an earlier colon group is in scope.
            "switch_block" => {
                for group in named_children(node).into_iter().filter(before).rev() {
                    for statement in named_children(group).into_iter().rev() {
                        if statement.kind() == "local_variable_declaration" {
                            if let Some(decl) =
                                self.in_variable_declaration(statement, name, DeclKind::Local)
                            {
                                return Some(decl);
                            }
                        }
                    }
                }
                None
            }
            "switch_rule" => named_children(node)
                .into_iter()
                .find(|c| c.kind() == "switch_label")
                .and_then(|label| self.pattern_binding(label, name)),
            "for_statement" => {
                for init in children_by_field(node, "init") {
                    if init.kind() == "local_variable_declaration" && init != child {
                        if let Some(decl) =
                            self.in_variable_declaration(init, name, DeclKind::Local)
                        {
                            return Some(decl);
                        }
                    }
                }
                self.binding_in_field(node, child, "condition", name)
            }
            "enhanced_for_statement" => {
                if node.child_by_field_name("body") == Some(child)
                    && node.child_by_field_name("name").map(|n| self.text(n)) == Some(name)
                {
                    return Some(Decl {
                        kind: DeclKind::Local,
                        ty: node.child_by_field_name("type"),
                        extra_dims: node.child_by_field_name("dimensions").is_some(),
                        init: None,
                        is_final: false,
                        certain: true,
                    });
                }
                None
            }
            "catch_clause" => {
                let parameter = named_children(node)
                    .into_iter()
                    .find(|c| c.kind() == "catch_formal_parameter")?;
                if parameter.child_by_field_name("name").map(|n| self.text(n)) != Some(name) {
                    return None;
                }
                let types = named_children(parameter)
                    .into_iter()
                    .find(|c| c.kind() == "catch_type")?;
                let single = named_children(types);
                Some(Decl {
                    kind: DeclKind::Param,
                    ty: if single.len() == 1 {
                        single.first().copied()
                    } else {
                        None
                    },
                    extra_dims: false,
                    init: None,
                    is_final: false,
                    certain: true,
                })
            }
            "try_with_resources_statement" | "resource_specification" => {
                let resources = if node.kind() == "resource_specification" {
                    named_children(node)
                } else {
                    node.child_by_field_name("resources")
                        .map(named_children)
                        .unwrap_or_default()
                };
                for resource in resources.into_iter().filter(before) {
                    if resource.child_by_field_name("name").map(|n| self.text(n)) == Some(name) {
                        return Some(Decl {
                            kind: DeclKind::Local,
                            ty: resource.child_by_field_name("type"),
                            extra_dims: false,
                            init: resource.child_by_field_name("value"),
                            is_final: true,
                            certain: true,
                        });
                    }
                }
                None
            }
            "lambda_expression" => {
                let parameters = node.child_by_field_name("parameters")?;
                match parameters.kind() {
                    "identifier" => (self.text(parameters) == name).then_some(Decl {
                        kind: DeclKind::Param,
                        ty: None,
                        extra_dims: false,
                        init: None,
                        is_final: false,
                        certain: true,
                    }),
                    "inferred_parameters" => named_children(parameters)
                        .into_iter()
                        .any(|p| self.text(p) == name)
                        .then_some(Decl {
                            kind: DeclKind::Param,
                            ty: None,
                            extra_dims: false,
                            init: None,
                            is_final: false,
                            certain: true,
                        }),
                    _ => self.in_formal_parameters(parameters, name),
                }
            }
            "method_declaration" | "constructor_declaration" => {
                let parameters = node.child_by_field_name("parameters")?;
                self.in_formal_parameters(parameters, name)
            }
            "compact_constructor_declaration" => {
                let record = node.parent()?.parent()?;
                let parameters = record.child_by_field_name("parameters")?;
                self.in_formal_parameters(parameters, name)
            }
            "if_statement" | "while_statement" | "do_statement" => {
                self.binding_in_field(node, child, "condition", name)
            }
            "ternary_expression" => self.binding_in_field(node, child, "condition", name),
            "binary_expression" => {
                let left = node.child_by_field_name("left")?;
                if left == child {
                    return None;
                }
                self.pattern_binding(left, name)
            }
            kind if is_class_body(kind) => self.field_in_body(node, name),
            _ => None,
        }
    }

    /// A pattern binding in `node`'s field `field` that is in scope for `child`.
    fn binding_in_field(
        &self,
        node: Node<'t>,
        child: Node<'t>,
        field: &str,
        name: &str,
    ) -> Option<Decl<'t>> {
        let condition = node.child_by_field_name(field)?;
        if condition == child {
            return None;
        }
        self.pattern_binding(condition, name)
    }

    /// A type-pattern binding named `name` inside `node` (not inside lambdas or classes).
    fn pattern_binding(&self, node: Node<'t>, name: &str) -> Option<Decl<'t>> {
        let mut stack = vec![node];
        while let Some(n) = stack.pop() {
            match n.kind() {
                "lambda_expression" | "class_body" => continue,
                "instanceof_expression"
                    if n.child_by_field_name("name").map(|x| self.text(x)) == Some(name) =>
                {
                    return Some(Decl {
                        kind: DeclKind::Pattern,
                        ty: n.child_by_field_name("right"),
                        extra_dims: false,
                        init: None,
                        is_final: false,
                        certain: true,
                    });
                }
                "type_pattern" | "record_pattern_component" => {
                    let parts = named_children(n);
                    if parts.len() == 2 && self.text(parts[1]) == name {
                        return Some(Decl {
                            kind: DeclKind::Pattern,
                            ty: Some(parts[0]),
                            extra_dims: false,
                            init: None,
                            is_final: false,
                            certain: true,
                        });
                    }
                }
                _ => {}
            }
            stack.extend(named_children(n));
        }
        None
    }

    fn in_variable_declaration(
        &self,
        declaration: Node<'t>,
        name: &str,
        kind: DeclKind,
    ) -> Option<Decl<'t>> {
        let ty = declaration.child_by_field_name("type");
        let interface_constant = declaration.kind() == "constant_declaration";
        let is_final = interface_constant || has_modifier(self.src, declaration, "final");
        children_by_field(declaration, "declarator")
            .into_iter()
            .find(|d| d.child_by_field_name("name").map(|n| self.text(n)) == Some(name))
            .map(|d| Decl {
                kind,
                ty,
                extra_dims: d.child_by_field_name("dimensions").is_some(),
                init: d.child_by_field_name("value"),
                is_final,
                certain: true,
            })
    }

    fn in_formal_parameters(&self, parameters: Node<'t>, name: &str) -> Option<Decl<'t>> {
        for parameter in named_children(parameters) {
            match parameter.kind() {
                "formal_parameter"
                    if parameter.child_by_field_name("name").map(|n| self.text(n))
                        == Some(name) =>
                {
                    return Some(Decl {
                        kind: DeclKind::Param,
                        ty: parameter.child_by_field_name("type"),
                        extra_dims: parameter.child_by_field_name("dimensions").is_some(),
                        init: None,
                        is_final: false,
                        certain: true,
                    });
                }
                "spread_parameter" => {
                    let declarator = named_children(parameter)
                        .into_iter()
                        .find(|c| c.kind() == "variable_declarator");
                    if declarator
                        .and_then(|d| d.child_by_field_name("name"))
                        .map(|n| self.text(n))
                        == Some(name)
                    {
                        return Some(Decl {
                            kind: DeclKind::Param,
                            ty: None,
                            extra_dims: true,
                            init: None,
                            is_final: false,
                            certain: true,
                        });
                    }
                }
                _ => {}
            }
        }
        None
    }

    /// A field, enum constant or record component declared directly in a type body.
    fn field_in_body(&self, body: Node<'t>, name: &str) -> Option<Decl<'t>> {
        for member in named_children(body) {
            match member.kind() {
                "field_declaration" | "constant_declaration" => {
                    if let Some(mut decl) =
                        self.in_variable_declaration(member, name, DeclKind::Field)
                    {
                        decl.is_final |=
                            matches!(body.kind(), "interface_body" | "annotation_type_body");
                        return Some(decl);
                    }
                }
                "enum_constant"
                    if member.child_by_field_name("name").map(|n| self.text(n)) == Some(name) =>
                {
                    return Some(Decl {
                        kind: DeclKind::EnumConstant,
                        ty: None,
                        extra_dims: false,
                        init: None,
                        is_final: true,
                        certain: true,
                    });
                }
                "enum_body_declarations" => {
                    if let Some(decl) = self.field_in_body(member, name) {
                        return Some(decl);
                    }
                }
                _ => {}
            }
        }
        let record = body.parent().filter(|p| p.kind() == "record_declaration")?;
        let mut decl =
            self.in_formal_parameters(record.child_by_field_name("parameters")?, name)?;
        decl.kind = DeclKind::Field;
        decl.is_final = true;
        Some(decl)
    }

    /// Whether the type owning `body` may inherit fields declared outside the file's view.
    fn type_has_supertype(&self, body: Node<'t>) -> bool {
        let body = if body.kind() == "enum_body_declarations" {
            match body.parent() {
                Some(p) => p,
                None => return true,
            }
        } else {
            body
        };
        let Some(owner) = body.parent() else {
            return true;
        };
        match owner.kind() {
            "class_declaration" => {
                owner.child_by_field_name("superclass").is_some()
                    || owner.child_by_field_name("interfaces").is_some()
            }
            "interface_declaration" => named_children(owner)
                .iter()
                .any(|c| c.kind() == "extends_interfaces"),
            "enum_declaration" | "record_declaration" => {
                owner.child_by_field_name("interfaces").is_some()
            }
            "annotation_type_declaration" => false,
            // Anonymous classes and enum constant bodies extend something.
            _ => true,
        }
    }

    /// The innermost type body enclosing `node`.
    fn enclosing_body(&self, node: Node<'t>) -> Option<Node<'t>> {
        let mut current = node.parent();
        while let Some(n) = current {
            if is_class_body(n.kind()) {
                return Some(n);
            }
            current = n.parent();
        }
        None
    }

    /// Whether `name` is a type parameter in scope at `node`.
    fn is_type_variable(&self, node: Node<'t>, name: &str) -> bool {
        let mut current = Some(node);
        while let Some(n) = current {
            if let Some(params) = n.child_by_field_name("type_parameters") {
                for param in named_children(params) {
                    if named_children(param)
                        .first()
                        .is_some_and(|id| self.text(*id) == name)
                    {
                        return true;
                    }
                }
            }
            current = n.parent();
        }
        false
    }

    // ------------------------------------------------------------------ types

    /// The category of a written type; `at` is where it is used (for type variables).
    pub(crate) fn classify(&self, ty: Node<'t>, extra_dims: bool) -> JType {
        if extra_dims {
            return JType::Ref;
        }
        match ty.kind() {
            "integral_type" | "floating_point_type" | "boolean_type" => {
                Prim::from_keyword(self.text(ty)).map_or(JType::Unknown, JType::Prim)
            }
            "array_type" => JType::Ref,
            "annotated_type" => named_children(ty)
                .into_iter()
                .rfind(|c| !matches!(c.kind(), "annotation" | "marker_annotation"))
                .map_or(JType::Unknown, |inner| self.classify(inner, false)),
            "type_identifier" | "scoped_type_identifier" => {
                let name: String = self.text(ty).split_whitespace().collect();
                if let Some(p) = Prim::from_box(&name) {
                    JType::Boxed(p)
                } else if name == "String" || name == "java.lang.String" {
                    JType::String
                } else if name == "var" {
                    JType::Unknown
                } else if ty.kind() == "type_identifier" && self.is_type_variable(ty, &name) {
                    JType::TypeVar
                } else {
                    JType::Ref
                }
            }
            "generic_type" => JType::Ref,
            _ => JType::Unknown,
        }
    }

    fn decl_type(&self, decl: &Decl<'t>, depth: u32) -> Typed {
        let ty = match decl.kind {
            DeclKind::EnumConstant => JType::Ref,
            _ => match decl.ty {
                Some(ty) if self.text(ty) == "var" && !decl.extra_dims => {
                    return match decl.init {
                        Some(init) if depth < MAX_DEPTH => {
                            let t = self.type_of_at(init, depth + 1);
                            Typed {
                                ty: t.ty,
                                certain: t.certain && decl.certain,
                            }
                        }
                        _ => Typed::UNKNOWN,
                    };
                }
                Some(ty) => self.classify(ty, decl.extra_dims),
                None if decl.extra_dims => JType::Ref,
                None => JType::Unknown,
            },
        };
        Typed {
            ty,
            certain: decl.certain && ty != JType::Unknown,
        }
    }

    pub(crate) fn type_of(&self, expr: Node<'t>) -> Typed {
        self.type_of_at(expr, 0)
    }

    fn type_of_at(&self, expr: Node<'t>, depth: u32) -> Typed {
        if depth > MAX_DEPTH {
            return Typed::UNKNOWN;
        }
        let d = depth + 1;
        let t = self.text(expr);
        match expr.kind() {
            "decimal_integer_literal"
            | "hex_integer_literal"
            | "octal_integer_literal"
            | "binary_integer_literal" => Typed::certain(JType::Prim(if t.ends_with(['l', 'L']) {
                Prim::Long
            } else {
                Prim::Int
            })),
            "decimal_floating_point_literal" | "hex_floating_point_literal" => {
                Typed::certain(JType::Prim(if t.ends_with(['f', 'F']) {
                    Prim::Float
                } else {
                    Prim::Double
                }))
            }
            "character_literal" => Typed::certain(JType::Prim(Prim::Char)),
            "true" | "false" => Typed::certain(JType::Prim(Prim::Boolean)),
            "string_literal" => Typed::certain(JType::String),
            "null_literal" => Typed::certain(JType::Null),
            "this"
            | "class_literal"
            | "lambda_expression"
            | "method_reference"
            | "array_creation_expression" => Typed::certain(JType::Ref),
            "identifier" => match self.resolve(expr) {
                Some(decl) => self.decl_type(&decl, d),
                None => Typed::UNKNOWN,
            },
            "parenthesized_expression" => match named_children(expr).first() {
                Some(inner) => self.type_of_at(*inner, d),
                None => Typed::UNKNOWN,
            },
            "cast_expression" => {
                let types = children_by_field(expr, "type");
                match types.as_slice() {
                    [one] => {
                        let ty = self.classify(*one, false);
                        Typed {
                            ty,
                            certain: ty != JType::Unknown,
                        }
                    }
                    _ => Typed::certain(JType::Ref),
                }
            }
            "object_creation_expression" => {
                let ty = expr.child_by_field_name("type").map_or(JType::Ref, |t| {
                    match self.classify(t, false) {
                        JType::Boxed(p) => JType::Boxed(p),
                        JType::String => JType::String,
                        _ => JType::Ref,
                    }
                });
                Typed::certain(ty)
            }
            "field_access" => self.field_access_type(expr, d),
            "array_access" => expr
                .child_by_field_name("array")
                .and_then(|array| self.array_element_type(array, d))
                .unwrap_or(Typed::UNKNOWN),
            "method_invocation" => self.call_type(expr),
            "instanceof_expression" => Typed::certain(JType::Prim(Prim::Boolean)),
            "assignment_expression" => expr
                .child_by_field_name("left")
                .map_or(Typed::UNKNOWN, |left| self.type_of_at(left, d)),
            "update_expression" => named_children(expr)
                .first()
                .map_or(Typed::UNKNOWN, |operand| self.type_of_at(*operand, d)),
            "unary_expression" => {
                let op = expr.child_by_field_name("operator").map(|o| self.text(o));
                let operand = expr.child_by_field_name("operand");
                match (op, operand) {
                    (Some("!"), _) => Typed::certain(JType::Prim(Prim::Boolean)),
                    (Some(_), Some(operand)) => unary_promote(self.type_of_at(operand, d)),
                    _ => Typed::UNKNOWN,
                }
            }
            "binary_expression" => self.binary_type(expr, d),
            "ternary_expression" => {
                let a = expr
                    .child_by_field_name("consequence")
                    .map_or(Typed::UNKNOWN, |n| self.type_of_at(n, d));
                let b = expr
                    .child_by_field_name("alternative")
                    .map_or(Typed::UNKNOWN, |n| self.type_of_at(n, d));
                if a.ty == b.ty && a.ty != JType::Unknown {
                    Typed {
                        ty: a.ty,
                        certain: a.certain && b.certain,
                    }
                } else {
                    Typed::UNKNOWN
                }
            }
            _ => Typed::UNKNOWN,
        }
    }

    fn binary_type(&self, expr: Node<'t>, depth: u32) -> Typed {
        let op = expr
            .child_by_field_name("operator")
            .map_or("", |o| self.text(o));
        let (Some(left), Some(right)) = (
            expr.child_by_field_name("left"),
            expr.child_by_field_name("right"),
        ) else {
            return Typed::UNKNOWN;
        };
        match op {
            "<" | "<=" | ">" | ">=" | "==" | "!=" | "&&" | "||" => {
                Typed::certain(JType::Prim(Prim::Boolean))
            }
            "<<" | ">>" | ">>>" => unary_promote(self.type_of_at(left, depth)),
            "+" => {
                let (a, b) = (self.type_of_at(left, depth), self.type_of_at(right, depth));
                if a.ty == JType::String || b.ty == JType::String {
                    Typed {
                        ty: JType::String,
                        certain: (a.ty == JType::String && a.certain)
                            || (b.ty == JType::String && b.certain),
                    }
                } else if a.rank().is_some() && b.rank().is_some() {
                    binary_promote(a, b)
                } else {
                    // An unknown operand may be a String.
                    Typed::UNKNOWN
                }
            }
            "-" | "*" | "/" | "%" => {
                binary_promote(self.type_of_at(left, depth), self.type_of_at(right, depth))
            }
            "&" | "|" | "^" => {
                let (a, b) = (self.type_of_at(left, depth), self.type_of_at(right, depth));
                let boolean = |t: Typed| {
                    matches!(
                        t.ty,
                        JType::Prim(Prim::Boolean) | JType::Boxed(Prim::Boolean)
                    )
                };
                if boolean(a) || boolean(b) {
                    Typed {
                        ty: JType::Prim(Prim::Boolean),
                        certain: (boolean(a) && a.certain) || (boolean(b) && b.certain),
                    }
                } else if a.rank().is_some() && b.rank().is_some() {
                    binary_promote(a, b)
                } else {
                    Typed::UNKNOWN
                }
            }
            _ => Typed::UNKNOWN,
        }
    }

    fn field_access_type(&self, expr: Node<'t>, depth: u32) -> Typed {
        let (Some(object), Some(field)) = (
            expr.child_by_field_name("object"),
            expr.child_by_field_name("field"),
        ) else {
            return Typed::UNKNOWN;
        };
        let name = self.text(field);
        if let Some(decl) = self.field_of_object(object, name) {
            return self.decl_type(&decl, depth);
        }
        if name == "length" {
            if let Some(decl) = (object.kind() == "identifier")
                .then(|| self.resolve(object))
                .flatten()
            {
                if self.decl_type(&decl, depth).certain && self.declares_array(&decl) {
                    return Typed::certain(JType::Prim(Prim::Int));
                }
            }
            return Typed::guess(JType::Prim(Prim::Int));
        }
        Typed::UNKNOWN
    }

    fn declares_array(&self, decl: &Decl<'t>) -> bool {
        decl.extra_dims || decl.ty.is_some_and(|t| t.kind() == "array_type")
    }

    /// `this.x`, `Type.x` (an in-file type) or `local.x` (a local of an in-file class type).
    fn field_of_object(&self, object: Node<'t>, name: &str) -> Option<Decl<'t>> {
        let body = match object.kind() {
            "this" => self.enclosing_body(object)?,
            "identifier" => {
                let type_name = match self.resolve(object) {
                    Some(decl) => {
                        let ty = decl.ty?;
                        (ty.kind() == "type_identifier").then(|| self.text(ty))?
                    }
                    None => self.text(object),
                };
                self.type_named(type_name)?.child_by_field_name("body")?
            }
            _ => return None,
        };
        self.field_in_body(body, name)
    }

    fn array_element_type(&self, array: Node<'t>, depth: u32) -> Option<Typed> {
        let decl = match array.kind() {
            "identifier" => self.resolve(array)?,
            "field_access" => {
                let object = array.child_by_field_name("object")?;
                let field = array.child_by_field_name("field")?;
                self.field_of_object(object, self.text(field))?
            }
            _ => return None,
        };
        let ty = decl.ty?;
        // `int[] a` or `int a[]`: one dimension less is the element type.
        let element = match (ty.kind(), decl.extra_dims) {
            ("array_type", false) => {
                let dims = ty.child_by_field_name("dimensions")?;
                if self.text(dims).matches('[').count() != 1 {
                    return Some(Typed::certain(JType::Ref));
                }
                ty.child_by_field_name("element")?
            }
            (_, true) if ty.kind() != "array_type" => ty,
            _ => return Some(Typed::certain(JType::Ref)),
        };
        let t = self.classify(element, false);
        let _ = depth;
        Some(Typed {
            ty: t,
            certain: decl.certain && t != JType::Unknown,
        })
    }

    /// A method's return type is certain when every same-arity method of that name is declared
    /// in the file, in a type without supertypes (beyond `Object`), that encloses the call or
    /// types the receiver; otherwise an inherited overload might be called, and it is a guess.
    fn call_type(&self, call: Node<'t>) -> Typed {
        let Some(name) = call.child_by_field_name("name").map(|n| self.text(n)) else {
            return Typed::UNKNOWN;
        };
        let arguments = call
            .child_by_field_name("arguments")
            .map_or(0, |a| named_children(a).len());
        let receiver = call.child_by_field_name("object");
        let declared = match receiver {
            None => self.declared_return(self.enclosing_body(call), name, arguments),
            Some(r) if r.kind() == "this" => {
                self.body_return(self.enclosing_body(call), name, arguments)
            }
            // `local.m()` with a local of an in-file class type, or `Type.m()`.
            Some(r) if r.kind() == "identifier" => {
                let (type_name, certain) = match self.resolve(r) {
                    Some(decl) => (
                        decl.ty
                            .filter(|t| t.kind() == "type_identifier")
                            .map(|t| self.text(t)),
                        decl.certain,
                    ),
                    None => (Some(self.text(r)), true),
                };
                let body = type_name
                    .and_then(|n| self.type_named(n))
                    .and_then(|t| t.child_by_field_name("body"));
                self.body_return(body, name, arguments).map(|t| Typed {
                    ty: t.ty,
                    certain: t.certain && certain,
                })
            }
            Some(_) => None,
        };
        if let Some(t) = declared {
            return t;
        }
        match name {
            "length"
            | "size"
            | "indexOf"
            | "lastIndexOf"
            | "compareTo"
            | "compareToIgnoreCase"
            | "compare"
            | "hashCode"
            | "ordinal"
            | "signum"
            | "intValue" => Typed::guess(JType::Prim(Prim::Int)),
            "charAt" => Typed::guess(JType::Prim(Prim::Char)),
            "longValue" => Typed::guess(JType::Prim(Prim::Long)),
            _ => Typed::UNKNOWN,
        }
    }

    /// The return type of an unqualified call: from the innermost enclosing type declaring a
    /// method of that name.
    fn declared_return(
        &self,
        body: Option<Node<'t>>,
        name: &str,
        arguments: usize,
    ) -> Option<Typed> {
        let mut certain = true;
        let mut current = body;
        while let Some(body) = current {
            if let Some(t) = self.body_return(Some(body), name, arguments) {
                return Some(Typed {
                    ty: t.ty,
                    certain: t.certain && certain,
                });
            }
            if self.type_has_supertype(body) {
                certain = false;
            }
            current = self.enclosing_body(body);
        }
        None
    }

    /// The return type of the methods of `body` named `name` with `arguments` parameters.
    fn body_return(&self, body: Option<Node<'t>>, name: &str, arguments: usize) -> Option<Typed> {
        let body = body?;
        // A record component's accessor returns the component's type, whatever else is
        // inherited (an explicit accessor must return the same type).
        if arguments == 0 {
            if let Some(decl) = body
                .parent()
                .filter(|p| p.kind() == "record_declaration")
                .and_then(|r| r.child_by_field_name("parameters"))
                .and_then(|ps| self.in_formal_parameters(ps, name))
            {
                let ty = decl
                    .ty
                    .map_or(JType::Unknown, |t| self.classify(t, decl.extra_dims));
                return Some(Typed {
                    ty,
                    certain: ty != JType::Unknown,
                });
            }
        }
        let ty = self.methods_return(Some(body), name, arguments)?;
        let object_method = matches!(
            name,
            "equals"
                | "hashCode"
                | "toString"
                | "getClass"
                | "clone"
                | "finalize"
                | "wait"
                | "notify"
                | "notifyAll"
        );
        let certain = !object_method && !self.type_has_supertype(body) && ty != JType::Unknown;
        Some(Typed { ty, certain })
    }

    /// The return type of the methods named `name` with `arguments` parameters declared in
    /// `body`, when they all agree.
    fn methods_return(
        &self,
        body: Option<Node<'t>>,
        name: &str,
        arguments: usize,
    ) -> Option<JType> {
        let body = body?;
        let mut found: Option<JType> = None;
        for member in named_children(body) {
            if member.kind() != "method_declaration"
                || member.child_by_field_name("name").map(|n| self.text(n)) != Some(name)
            {
                continue;
            }
            let params = member
                .child_by_field_name("parameters")
                .map(named_children)
                .unwrap_or_default();
            let varargs = params.iter().any(|p| p.kind() == "spread_parameter");
            if params.len() != arguments || varargs {
                continue;
            }
            let ty = member.child_by_field_name("type")?;
            let t = self.classify(ty, member.child_by_field_name("dimensions").is_some());
            match found {
                Some(previous) if previous != t => return None,
                _ => found = Some(t),
            }
        }
        found
    }

    // ------------------------------------------------------------------ constants

    /// Whether `expr` is a constant expression (JLS 15.29), as far as this file tells.
    pub(crate) fn const_status(&self, expr: Node<'t>) -> Const {
        self.const_at(expr, 0)
    }

    fn const_at(&self, expr: Node<'t>, depth: u32) -> Const {
        if depth > MAX_DEPTH {
            return Const::Maybe {
                constant_like: false,
            };
        }
        let d = depth + 1;
        match expr.kind() {
            "decimal_integer_literal"
            | "hex_integer_literal"
            | "octal_integer_literal"
            | "binary_integer_literal"
            | "decimal_floating_point_literal"
            | "hex_floating_point_literal"
            | "character_literal"
            | "true"
            | "false"
            | "string_literal" => Const::Yes,
            "parenthesized_expression"
            | "unary_expression"
            | "binary_expression"
            | "ternary_expression" => {
                if expr.kind() == "unary_expression"
                    && !matches!(
                        expr.child_by_field_name("operator").map(|o| self.text(o)),
                        Some("+" | "-" | "~" | "!")
                    )
                {
                    return Const::No;
                }
                named_children(expr)
                    .into_iter()
                    .fold(Const::Yes, |acc, c| acc.and(self.const_at(c, d)))
            }
            "cast_expression" => {
                let types = children_by_field(expr, "type");
                let to_constant_type = types.len() == 1
                    && matches!(
                        self.classify(types[0], false),
                        JType::Prim(_) | JType::String
                    );
                match expr.child_by_field_name("value") {
                    Some(value) if to_constant_type => self.const_at(value, d),
                    _ => Const::No,
                }
            }
            "identifier" => match self.resolve(expr) {
                Some(decl) => self.constant_variable(&decl, d),
                None => Const::Maybe {
                    constant_like: all_caps(self.text(expr)),
                },
            },
            "field_access" => {
                let (Some(object), Some(field)) = (
                    expr.child_by_field_name("object"),
                    expr.child_by_field_name("field"),
                ) else {
                    return Const::No;
                };
                let name = self.text(field);
                // Only `TypeName.NAME` can be constant; `this.x` and `local.x` cannot.
                let qualifier_is_variable = match unparenthesize(object).kind() {
                    "identifier" => self.resolve(object).is_some(),
                    "field_access" | "scoped_identifier" => false,
                    _ => true,
                };
                if qualifier_is_variable || object.kind() == "parenthesized_expression" {
                    return Const::No;
                }
                if object.kind() == "identifier" {
                    if let Some(body) = self
                        .type_named(self.text(object))
                        .and_then(|t| t.child_by_field_name("body"))
                    {
                        return match self.field_in_body(body, name) {
                            Some(decl) => self.constant_variable(&decl, d),
                            None => Const::Maybe {
                                constant_like: all_caps(name),
                            },
                        };
                    }
                }
                Const::Maybe {
                    constant_like: all_caps(name),
                }
            }
            _ => Const::No,
        }
    }

    /// A constant variable: final, of primitive or String type, initialized with a constant
    /// expression (JLS 4.12.4).
    fn constant_variable(&self, decl: &Decl<'t>, depth: u32) -> Const {
        if !decl.is_final || !matches!(decl.kind, DeclKind::Local | DeclKind::Field) {
            return Const::No;
        }
        let Some(init) = decl.init else {
            return Const::No;
        };
        let typed = match decl.ty {
            Some(ty) if self.text(ty) == "var" => true,
            Some(ty) => matches!(
                self.classify(ty, decl.extra_dims),
                JType::Prim(_) | JType::String
            ),
            None => false,
        };
        if !typed {
            return Const::No;
        }
        match self.const_at(init, depth) {
            // A constant found through an uncertain scope may be shadowed.
            Const::Yes if !decl.certain => Const::Maybe {
                constant_like: true,
            },
            c => c,
        }
    }

    /// The initializer `node` belongs to when that initializer could be a constant expression
    /// of a variable that may be a constant variable (final, of primitive or String type):
    /// wrapping code there could change its constancy (and with it `case` labels, inlining and
    /// class initialization order).
    pub(crate) fn constant_variable_initializer(&self, node: Node<'t>) -> Option<Node<'t>> {
        let mut child = node;
        let mut current = node.parent();
        while let Some(n) = current {
            match n.kind() {
                "parenthesized_expression"
                | "unary_expression"
                | "binary_expression"
                | "ternary_expression"
                | "cast_expression" => {}
                "variable_declarator" => {
                    if n.child_by_field_name("value") != Some(child) {
                        return None;
                    }
                    let declaration = n.parent()?;
                    let is_final = declaration.kind() == "constant_declaration"
                        || has_modifier(self.src, declaration, "final")
                        || declaration.parent().is_some_and(|b| {
                            matches!(b.kind(), "interface_body" | "annotation_type_body")
                        });
                    let constant_type = declaration.child_by_field_name("type").is_some_and(|t| {
                        self.text(t) == "var"
                            || (n.child_by_field_name("dimensions").is_none()
                                && matches!(
                                    self.classify(t, false),
                                    JType::Prim(_) | JType::String
                                ))
                    });
                    return (is_final && constant_type).then_some(child);
                }
                _ => return None,
            }
            child = n;
            current = n.parent();
        }
        None
    }
}

fn unbox(t: Typed) -> Option<(Rank, bool)> {
    match t.ty {
        JType::Prim(p) | JType::Boxed(p) => p.rank().map(|r| (r, t.certain)),
        _ => None,
    }
}

/// Unary numeric promotion (JLS 5.6): the result is a primitive.
fn unary_promote(t: Typed) -> Typed {
    match unbox(t) {
        Some((rank, certain)) => Typed {
            ty: JType::Prim(Prim::of_rank(rank)),
            certain,
        },
        None => Typed::certain(JType::Numeric),
    }
}

/// Binary numeric promotion (JLS 5.6): double, else float, else long, else int.
fn binary_promote(a: Typed, b: Typed) -> Typed {
    match (unbox(a), unbox(b)) {
        (Some((ra, ca)), Some((rb, cb))) => Typed {
            ty: JType::Prim(Prim::of_rank(ra.max(rb))),
            certain: ca && cb,
        },
        // Double wins whatever the other operand is.
        (Some((Rank::Double, true)), None) | (None, Some((Rank::Double, true))) => {
            Typed::certain(JType::Prim(Prim::Double))
        }
        _ => Typed::certain(JType::Numeric),
    }
}
