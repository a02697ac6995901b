//! The tree walk that builds the model: package, imports, types, fields, member headers and
//! initializer pieces. Member code goes to `lower`; members that an edit did not touch come
//! from `update`'s reuse table instead of being rebuilt.
//!
//! Error recovery: declarations inside `ERROR` nodes are still modelled, and methods or
//! constructors that a stray `}` pushed to the top level are attached to the type before them
//! (or the first type), so one typo does not hide the rest of the class.

use tree_sitter::{Node, Tree};

use crate::model::{
    EnumConstant, Field, ImportDecl, JavaModel, Member, MemberKind, Modifiers, Nesting,
    PackageDecl, Param, Span, TypeDecl, TypeKind,
};
use crate::text::{
    children, children_by_field, collapse_ws, collapsed, first_named_of_kind, named_children,
    signature_type, text, token,
};
use crate::update::Reuse;
use crate::{lower, naming, problems};

/// What every part of the walk needs.
pub(crate) struct Env<'a> {
    pub src: &'a str,
    pub reuse: Option<&'a Reuse<'a>>,
}

pub(crate) fn build_model(src: &str, tree: &Tree, reuse: Option<&Reuse<'_>>) -> JavaModel {
    let env = Env { src, reuse };
    let root = tree.root_node();
    let mut model = JavaModel {
        text: src.to_string(),
        package: None,
        imports: Vec::new(),
        types: Vec::new(),
        problems: problems::collect(src, root),
    };
    let mut orphans = Vec::new();
    top_level(&env, root, &mut model, &mut orphans);
    for orphan in orphans {
        let host = model
            .types
            .iter_mut()
            .rev()
            .find(|t| t.span.start_byte <= orphan.start_byte());
        let host = match host {
            Some(host) => host,
            None => match model.types.first_mut() {
                Some(first) => first,
                None => break,
            },
        };
        if let Some(member) = member(&env, orphan) {
            host.members.push(member);
            host.members.sort_by_key(|m| m.span.start_byte);
        }
    }
    naming::finish(&mut model);
    model
}

fn top_level<'t>(
    env: &Env<'_>,
    node: Node<'t>,
    model: &mut JavaModel,
    orphans: &mut Vec<Node<'t>>,
) {
    for child in named_children(node) {
        match child.kind() {
            "package_declaration" => {
                let name = named_children(child)
                    .into_iter()
                    .find(|c| matches!(c.kind(), "identifier" | "scoped_identifier"))
                    .map(|n| collapsed(env.src, n))
                    .unwrap_or_default();
                model.package = Some(PackageDecl {
                    name: name.replace(' ', ""),
                    span: Span::of(child),
                });
            }
            "import_declaration" => {
                let parts = children(child);
                let is_static = parts.iter().any(|c| c.kind() == "static");
                let on_demand = parts.iter().any(|c| c.kind() == "asterisk");
                let path = parts
                    .iter()
                    .find(|c| matches!(c.kind(), "identifier" | "scoped_identifier"))
                    .map(|n| collapsed(env.src, *n).replace(' ', ""))
                    .unwrap_or_default();
                model.imports.push(ImportDecl {
                    path,
                    is_static,
                    on_demand,
                    span: Span::of(child),
                });
            }
            "method_declaration" | "constructor_declaration" => orphans.push(child),
            "ERROR" => top_level(env, child, model, orphans),
            kind => {
                if let Some(type_kind) = type_kind(kind) {
                    model.types.push(type_decl(
                        env,
                        child,
                        type_kind,
                        Nesting::TopLevel,
                        Vec::new(),
                    ));
                }
            }
        }
    }
}

fn type_kind(node_kind: &str) -> Option<TypeKind> {
    Some(match node_kind {
        "class_declaration" => TypeKind::Class,
        "interface_declaration" => TypeKind::Interface,
        "enum_declaration" => TypeKind::Enum,
        "record_declaration" => TypeKind::Record,
        "annotation_type_declaration" => TypeKind::Annotation,
        _ => return None,
    })
}

/// A local class (`class_declaration` etc. in a block) or an anonymous class
/// (`object_creation_expression` with a body).
pub(crate) fn local_type(env: &Env<'_>, node: Node<'_>, order_key: Vec<usize>) -> Option<TypeDecl> {
    if node.kind() == "object_creation_expression" {
        let body = first_named_of_kind(node, "class_body")?;
        let base = node
            .child_by_field_name("type")
            .map(|t| collapsed(env.src, t));
        Some(anonymous_type(env, node, body, base, order_key))
    } else {
        let kind = type_kind(node.kind())?;
        Some(type_decl(env, node, kind, Nesting::Local, order_key))
    }
}

fn anonymous_type(
    env: &Env<'_>,
    node: Node<'_>,
    body: Node<'_>,
    base: Option<String>,
    order_key: Vec<usize>,
) -> TypeDecl {
    let mut ty = empty_type(
        TypeKind::Class,
        Nesting::Anonymous,
        Span::of(node),
        order_key,
    );
    ty.extends.extend(base);
    fill_body(env, &mut ty, body);
    ty
}

fn empty_type(kind: TypeKind, nesting: Nesting, span: Span, order_key: Vec<usize>) -> TypeDecl {
    TypeDecl {
        kind,
        nesting,
        name: String::new(),
        binary_name: String::new(),
        modifiers: Modifiers::default(),
        type_params: Vec::new(),
        extends: Vec::new(),
        implements: Vec::new(),
        permits: Vec::new(),
        record_components: Vec::new(),
        enum_constants: Vec::new(),
        fields: Vec::new(),
        members: Vec::new(),
        nested_types: Vec::new(),
        span,
        name_span: None,
        order_key,
    }
}

fn type_decl(
    env: &Env<'_>,
    node: Node<'_>,
    kind: TypeKind,
    nesting: Nesting,
    order_key: Vec<usize>,
) -> TypeDecl {
    let src = env.src;
    let mut ty = empty_type(kind, nesting, Span::of(node), order_key);
    if let Some(name) = node.child_by_field_name("name") {
        ty.name = text(src, name).to_string();
        ty.name_span = Some(Span::of(name));
    }
    ty.modifiers = modifiers(src, first_named_of_kind(node, "modifiers"));
    ty.type_params = type_params(src, node);
    if let Some(superclass) = node.child_by_field_name("superclass") {
        ty.extends.extend(
            named_children(superclass)
                .into_iter()
                .map(|t| collapsed(src, t)),
        );
    }
    if let Some(extends) = first_named_of_kind(node, "extends_interfaces") {
        ty.extends.extend(type_list(src, extends));
    }
    if let Some(interfaces) = node.child_by_field_name("interfaces") {
        ty.implements = type_list(src, interfaces);
    }
    if let Some(permits) = node.child_by_field_name("permits") {
        ty.permits = type_list(src, permits);
    }
    if kind == TypeKind::Record {
        if let Some(parameters) = node.child_by_field_name("parameters") {
            ty.record_components = params(src, parameters);
        }
    }
    if let Some(body) = node.child_by_field_name("body") {
        fill_body(env, &mut ty, body);
    }
    ty
}

fn type_list(src: &str, node: Node<'_>) -> Vec<String> {
    match first_named_of_kind(node, "type_list") {
        Some(list) => named_children(list)
            .into_iter()
            .map(|t| collapsed(src, t))
            .collect(),
        None => Vec::new(),
    }
}

fn type_params(src: &str, node: Node<'_>) -> Vec<String> {
    match node.child_by_field_name("type_parameters") {
        Some(list) => named_children(list)
            .into_iter()
            .filter(|p| p.kind() == "type_parameter")
            .map(|p| collapsed(src, p))
            .collect(),
        None => Vec::new(),
    }
}

fn modifiers(src: &str, node: Option<Node<'_>>) -> Modifiers {
    let mut out = Modifiers::default();
    if let Some(node) = node {
        for child in children(node) {
            if child.is_named() {
                if matches!(child.kind(), "annotation" | "marker_annotation") {
                    out.annotations.push(collapsed(src, child));
                }
            } else {
                out.keywords.push(text(src, child).to_string());
            }
        }
    }
    out
}

/// Parameters of a `formal_parameters` node (receiver parameters are not parameters).
fn params(src: &str, node: Node<'_>) -> Vec<Param> {
    let mut out = Vec::new();
    for p in named_children(node) {
        match p.kind() {
            "formal_parameter" => {
                let ty = p.child_by_field_name("type");
                let dims = p
                    .child_by_field_name("dimensions")
                    .map(|d| collapsed(src, d))
                    .unwrap_or_default();
                let sig_dims = p
                    .child_by_field_name("dimensions")
                    .map(|d| signature_type(src, d))
                    .unwrap_or_default();
                out.push(Param {
                    modifiers: modifiers(src, first_named_of_kind(p, "modifiers")),
                    type_text: ty.map(|t| collapsed(src, t)).unwrap_or_default() + &dims,
                    signature_type: ty.map(|t| signature_type(src, t)).unwrap_or_default()
                        + &sig_dims,
                    name: p
                        .child_by_field_name("name")
                        .map(|n| text(src, n).to_string())
                        .unwrap_or_default(),
                    varargs: false,
                    span: Span::of(p),
                });
            }
            "spread_parameter" => {
                // modifiers? type annotations* `...` variable_declarator
                let parts = named_children(p);
                let ty = parts.iter().copied().find(|c| {
                    !matches!(
                        c.kind(),
                        "modifiers" | "variable_declarator" | "annotation" | "marker_annotation"
                    )
                });
                let ellipsis = token(p, "...");
                let declarator = first_named_of_kind(p, "variable_declarator");
                let type_text = match (ty, ellipsis) {
                    (Some(t), Some(e)) => src
                        .get(t.start_byte()..e.end_byte())
                        .map(collapse_ws)
                        .unwrap_or_default(),
                    (Some(t), None) => collapsed(src, t),
                    _ => String::new(),
                };
                out.push(Param {
                    modifiers: modifiers(src, first_named_of_kind(p, "modifiers")),
                    type_text,
                    signature_type: ty.map(|t| signature_type(src, t)).unwrap_or_default() + "[]",
                    name: declarator
                        .and_then(|d| d.child_by_field_name("name"))
                        .map(|n| text(src, n).to_string())
                        .unwrap_or_default(),
                    varargs: true,
                    span: Span::of(p),
                });
            }
            _ => {}
        }
    }
    out
}

/// Initializer pieces found while walking a type body, in source order.
#[derive(Default)]
struct Pieces<'t> {
    static_pieces: Vec<Node<'t>>,
    instance_pieces: Vec<Node<'t>>,
}

fn fill_body<'t>(env: &Env<'_>, ty: &mut TypeDecl, body: Node<'t>) {
    let mut pieces = Pieces::default();
    body_members(env, ty, body, &mut pieces);
    for (kind, list) in [
        (MemberKind::StaticInitializer, pieces.static_pieces),
        (MemberKind::InstanceInitializer, pieces.instance_pieces),
    ] {
        if !list.is_empty() {
            ty.members.push(initializer(env, kind, &list));
        }
    }
    ty.members.sort_by_key(|m| m.span.start_byte);
}

fn body_members<'t>(env: &Env<'_>, ty: &mut TypeDecl, body: Node<'t>, pieces: &mut Pieces<'t>) {
    let src = env.src;
    for child in named_children(body) {
        match child.kind() {
            "method_declaration"
            | "constructor_declaration"
            | "compact_constructor_declaration"
            | "annotation_type_element_declaration" => {
                if let Some(m) = member(env, child) {
                    ty.members.push(m);
                }
            }
            "field_declaration" | "constant_declaration" => {
                let mods = modifiers(src, first_named_of_kind(child, "modifiers"));
                let is_static = mods.has("static")
                    || child.kind() == "constant_declaration"
                    || matches!(ty.kind, TypeKind::Interface | TypeKind::Annotation);
                let base_type = child.child_by_field_name("type");
                for declarator in children_by_field(child, "declarator") {
                    let dims = declarator
                        .child_by_field_name("dimensions")
                        .map(|d| collapsed(src, d))
                        .unwrap_or_default();
                    let has_initializer = declarator.child_by_field_name("value").is_some();
                    ty.fields.push(Field {
                        modifiers: mods.clone(),
                        type_text: base_type.map(|t| collapsed(src, t)).unwrap_or_default() + &dims,
                        name: declarator
                            .child_by_field_name("name")
                            .map(|n| text(src, n).to_string())
                            .unwrap_or_default(),
                        has_initializer,
                        span: Span::of(declarator),
                    });
                    if has_initializer {
                        if is_static {
                            pieces.static_pieces.push(declarator);
                        } else {
                            pieces.instance_pieces.push(declarator);
                        }
                    }
                }
            }
            "static_initializer" => pieces.static_pieces.push(child),
            "block" => pieces.instance_pieces.push(child),
            "enum_constant" => {
                let arguments = child.child_by_field_name("arguments");
                let class_body = child.child_by_field_name("body");
                ty.enum_constants.push(EnumConstant {
                    name: child
                        .child_by_field_name("name")
                        .map(|n| text(src, n).to_string())
                        .unwrap_or_default(),
                    arguments: arguments.map(|a| collapsed(src, a)),
                    has_body: class_body.is_some(),
                    span: Span::of(child),
                });
                if let Some(arguments) = arguments {
                    pieces.static_pieces.push(arguments);
                }
                if let Some(class_body) = class_body {
                    let base = Some(ty.name.clone());
                    let anonymous =
                        anonymous_type(env, child, class_body, base, vec![class_body.start_byte()]);
                    ty.nested_types.push(anonymous);
                }
            }
            "enum_body_declarations" | "ERROR" => body_members(env, ty, child, pieces),
            kind => {
                if let Some(kind) = type_kind(kind) {
                    ty.nested_types
                        .push(type_decl(env, child, kind, Nesting::Member, Vec::new()));
                }
            }
        }
    }
}

/// A declared member: from the reuse table when untouched, otherwise built.
fn member(env: &Env<'_>, node: Node<'_>) -> Option<Member> {
    let kind = match node.kind() {
        "method_declaration" => MemberKind::Method,
        "constructor_declaration" => MemberKind::Constructor,
        "compact_constructor_declaration" => MemberKind::CompactConstructor,
        "annotation_type_element_declaration" => MemberKind::AnnotationElement,
        _ => return None,
    };
    if let Some(reused) = env.reuse.and_then(|r| r.reuse(kind, &[node])) {
        return Some(reused);
    }
    let src = env.src;
    let name_node = node.child_by_field_name("name");
    let name = match kind {
        MemberKind::Method | MemberKind::AnnotationElement => name_node
            .map(|n| text(src, n).to_string())
            .unwrap_or_default(),
        _ => "<init>".to_string(),
    };
    let mut mods = modifiers(src, first_named_of_kind(node, "modifiers"));
    // Annotations between type parameters and the return type.
    for child in named_children(node) {
        if matches!(child.kind(), "annotation" | "marker_annotation") {
            mods.annotations.push(collapsed(src, child));
        }
    }
    let params = node
        .child_by_field_name("parameters")
        .map(|p| params(src, p))
        .unwrap_or_default();
    let return_type = match kind {
        MemberKind::Method | MemberKind::AnnotationElement => {
            let dims = node
                .child_by_field_name("dimensions")
                .map(|d| collapsed(src, d))
                .unwrap_or_default();
            node.child_by_field_name("type")
                .map(|t| collapsed(src, t) + &dims)
        }
        _ => None,
    };
    let throws = first_named_of_kind(node, "throws")
        .map(|t| {
            named_children(t)
                .into_iter()
                .map(|ty| collapsed(src, ty))
                .collect()
        })
        .unwrap_or_default();
    let signature = format!(
        "{name}({})",
        params
            .iter()
            .map(|p| p.signature_type.as_str())
            .collect::<Vec<_>>()
            .join(",")
    );
    let name_span = name_node.map(Span::of);
    let (body, local_types) = match node.child_by_field_name("body") {
        Some(body) if kind != MemberKind::AnnotationElement => {
            let entry_span = name_span.unwrap_or_else(|| Span::of(node));
            let (body, locals) = lower::lower_member(env, kind, &[body], entry_span);
            (Some(body), locals)
        }
        _ => (None, Vec::new()),
    };
    Some(Member {
        kind,
        name,
        signature,
        key: String::new(),
        modifiers: mods,
        type_params: type_params(src, node),
        params,
        return_type,
        throws,
        default_value: match kind {
            MemberKind::AnnotationElement => {
                node.child_by_field_name("value").map(|v| collapsed(src, v))
            }
            _ => None,
        },
        span: Span::of(node),
        name_span,
        pieces: vec![Span::of(node)],
        body,
        local_types,
        had_error: node.has_error(),
    })
}

/// The `<clinit>` or `<instinit>` pseudo-member made of `pieces`.
fn initializer(env: &Env<'_>, kind: MemberKind, pieces: &[Node<'_>]) -> Member {
    if let Some(reused) = env.reuse.and_then(|r| r.reuse(kind, pieces)) {
        return reused;
    }
    let name = match kind {
        MemberKind::StaticInitializer => "<clinit>",
        _ => "<instinit>",
    };
    let first = pieces[0];
    let last = pieces[pieces.len() - 1];
    let (body, local_types) = lower::lower_member(env, kind, pieces, Span::of(first));
    Member {
        kind,
        name: name.to_string(),
        signature: name.to_string(),
        key: String::new(),
        modifiers: Modifiers::default(),
        type_params: Vec::new(),
        params: Vec::new(),
        return_type: None,
        throws: Vec::new(),
        default_value: None,
        span: Span::cover(first, last),
        name_span: None,
        pieces: pieces.iter().map(|p| Span::of(*p)).collect(),
        body: Some(body),
        local_types,
        had_error: pieces.iter().any(|p| p.has_error()),
    }
}
