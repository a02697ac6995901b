//! Finding the call sites of one class in another's source, and the calls a class makes to its
//! own members, by names: the receiver's declared type (a field, a parameter, a local, a cast, a
//! `new`, a method's return type, a static call through the type's name) is resolved through the
//! imports and the package, as the rest of the model does, with no type checker. Overloads are
//! told apart by the argument types the source states (`overloads`), by arity where it states
//! too little.

use tree_sitter::Node;

use crate::model::{JavaModel, Member, MemberKind, Span, TypeDecl};
use crate::text::{named_children, text};

use super::overloads::{self, erase, Resolved, Site};

/// How a call site reaches the callee.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Receiver {
    /// Through a field of the caller (`account.deposit(1)`, `this.account.deposit(1)`).
    Field(String),
    /// Through a parameter of the enclosing member.
    Parameter(String),
    /// Through a local variable of the enclosing member.
    Local(String),
    /// `new Callee(...)`, or a call on it.
    New,
    /// A static call through the callee's name.
    Static,
    /// A call on the result of another call or on a cast, whose type is the callee.
    Expression,
    /// The caller is a subclass of the callee and calls an inherited method it does not
    /// redefine (`m()`, `this.m()`, `super.m()`, `super(...)`).
    Inherited,
    /// The caller is the superclass of the callee and calls a method the callee redefines.
    Overridden,
}

impl Receiver {
    pub fn describe(&self) -> String {
        match self {
            Receiver::Field(name) => format!("field {name}"),
            Receiver::Parameter(name) => format!("parameter {name}"),
            Receiver::Local(name) => format!("local {name}"),
            Receiver::New => "new".to_string(),
            Receiver::Static => "static".to_string(),
            Receiver::Expression => "expression".to_string(),
            Receiver::Inherited => "inherited".to_string(),
            Receiver::Overridden => "overridden".to_string(),
        }
    }
}

/// How the caller and the callee are related by inheritance (direct `extends` only: a deeper
/// hierarchy needs the models of the classes between them).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Relation {
    Unrelated,
    CallerExtendsCallee,
    CalleeExtendsCaller,
}

/// A call found in a member of the caller.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FoundCall {
    /// Index into the caller type's members.
    pub member: usize,
    pub span: Span,
    /// The called method's name, `<init>` for constructors.
    pub name: String,
    pub receiver: Receiver,
    /// The callee's members the call may run (indexes), resolved by the argument types.
    pub targets: Resolved,
}

/// The view of one class needed to resolve names in its source.
pub(crate) struct Scope<'m> {
    pub model: &'m JavaModel,
    pub ty: &'m TypeDecl,
}

impl Scope<'_> {
    /// Whether `written` (a type as written in this scope's source) names `target`.
    pub fn names(&self, written: &str, target: &TypeDecl, target_model: &JavaModel) -> bool {
        let written = erase(written);
        if written.is_empty() || written.ends_with(']') {
            return false;
        }
        let canonical = target.binary_name.replace('$', ".");
        if written.contains('.') {
            return written == canonical;
        }
        if written.as_str() != target.name {
            return false;
        }
        let target_package = target_model
            .package
            .as_ref()
            .map_or("", |p| p.name.as_str());
        let own_package = self.model.package.as_ref().map_or("", |p| p.name.as_str());
        let mut single = self
            .model
            .imports
            .iter()
            .filter(|i| !i.is_static && !i.on_demand);
        if let Some(import) = single.find(|i| i.path.rsplit('.').next() == Some(written.as_str())) {
            return import.path == canonical;
        }
        // A type of the same name declared in this file hides the other.
        if self
            .model
            .all_types()
            .iter()
            .any(|t| t.name == written.as_str())
            && !std::ptr::eq(self.model, target_model)
        {
            return false;
        }
        own_package == target_package
            || self
                .model
                .imports
                .iter()
                .any(|i| !i.is_static && i.on_demand && i.path == target_package)
    }
}

pub(crate) fn arity_fits(member: &Member, arity: usize) -> bool {
    let n = member.params.len();
    n == arity || member.params.last().is_some_and(|p| p.varargs) && arity + 1 >= n
}

/// The members of `ty` a call `name` with `arity` arguments may run (constructors for `<init>`).
pub(crate) fn members_named(ty: &TypeDecl, name: &str, arity: usize) -> Vec<usize> {
    ty.members
        .iter()
        .enumerate()
        .filter(|(_, m)| {
            let kind_fits = if name == "<init>" {
                m.kind == MemberKind::Constructor || m.kind == MemberKind::CompactConstructor
            } else {
                m.kind == MemberKind::Method
            };
            kind_fits && m.name == name && arity_fits(m, arity)
        })
        .map(|(i, _)| i)
        .collect()
}

/// The syntax nodes of a member's pieces (its declaration, or each initializer piece).
pub(crate) fn member_nodes<'t>(root: Node<'t>, member: &Member) -> Vec<Node<'t>> {
    member
        .pieces
        .iter()
        .filter_map(|p| root.descendant_for_byte_range(p.start_byte, p.end_byte))
        .collect()
}

/// Every method invocation, object creation and explicit constructor call in `node`, without
/// descending into local or anonymous class bodies (those are other classes).
pub(crate) fn invocations<'t>(node: Node<'t>, out: &mut Vec<Node<'t>>) {
    match node.kind() {
        "class_body"
        | "class_declaration"
        | "interface_declaration"
        | "enum_declaration"
        | "record_declaration" => return,
        "method_invocation" | "object_creation_expression" | "explicit_constructor_invocation" => {
            out.push(node)
        }
        _ => {}
    }
    let mut cursor = node.walk();
    for child in node.children(&mut cursor) {
        invocations(child, out);
    }
}

pub(crate) fn argument_count(node: Node<'_>) -> usize {
    node.child_by_field_name("arguments")
        .map_or(0, |args| arguments(args).len())
}

/// The argument expressions of an argument list (comments are named nodes too).
pub(crate) fn arguments(list: Node<'_>) -> Vec<Node<'_>> {
    named_children(list)
        .into_iter()
        .filter(|n| !n.kind().ends_with("comment"))
        .collect()
}

/// The members of `target` that `call`, written in `site`, may run.
pub(crate) fn resolve_call(
    target: &TypeDecl,
    site: &Site<'_>,
    call: Node<'_>,
    name: &str,
) -> Resolved {
    let arguments = overloads::argument_types(site, call, &|inner| own_return_type(site, inner));
    overloads::resolve(target, name, argument_count(call), arguments.as_deref())
}

/// The return type of a call of the site's class's own method (`m(..)`, `this.m(..)`), when
/// every method it may run returns the same type.
fn own_return_type(site: &Site<'_>, call: Node<'_>) -> Option<String> {
    let own = call
        .child_by_field_name("object")
        .is_none_or(|o| o.kind() == "this");
    if !own || call.kind() != "method_invocation" {
        return None;
    }
    let name = text(site.src, call.child_by_field_name("name")?);
    let resolved = resolve_call(site.ty, site, call, name);
    let mut returns = resolved
        .members
        .iter()
        .map(|&m| site.ty.members[m].return_type.clone());
    let first = returns.next()??;
    returns.all(|r| r.as_ref() == Some(&first)).then_some(first)
}

/// The unqualified or `this.`-qualified calls of `member` to members of its own class: the
/// edges of the class's call graph (the paper's class-level CFG joins methods along them).
pub(crate) fn own_calls(root: Node<'_>, src: &str, ty: &TypeDecl, member: &Member) -> Vec<usize> {
    let mut nodes = Vec::new();
    for piece in member_nodes(root, member) {
        invocations(piece, &mut nodes);
    }
    let mut out = Vec::new();
    for node in nodes {
        if node.kind() != "method_invocation" {
            continue;
        }
        let own = match node.child_by_field_name("object") {
            None => true,
            Some(object) => object.kind() == "this",
        };
        let Some(name) = node.child_by_field_name("name") else {
            continue;
        };
        if own {
            let site = Site { src, ty, member };
            out.extend(resolve_call(ty, &site, node, text(src, name)).members);
        }
    }
    out.sort_unstable();
    out.dedup();
    out
}

/// Finds the calls in `caller` that may run members of `callee`.
pub(crate) fn find(
    caller: &Scope<'_>,
    root: Node<'_>,
    callee: &Scope<'_>,
    relation: Relation,
) -> Vec<FoundCall> {
    let src = caller.model.text();
    let mut out = Vec::new();
    for (index, member) in caller.ty.members.iter().enumerate() {
        let mut nodes = Vec::new();
        for piece in member_nodes(root, member) {
            invocations(piece, &mut nodes);
        }
        let site = Site {
            src,
            ty: caller.ty,
            member,
        };
        for node in nodes {
            let found = |name: String, receiver| FoundCall {
                member: index,
                span: Span::of(node),
                targets: resolve_call(callee.ty, &site, node, &name),
                name,
                receiver,
            };
            match node.kind() {
                "object_creation_expression" => {
                    let written = node
                        .child_by_field_name("type")
                        .map_or("", |t| text(src, t));
                    if caller.names(written, callee.ty, callee.model) {
                        out.push(found("<init>".to_string(), Receiver::New));
                    }
                }
                "explicit_constructor_invocation" => {
                    let is_super = node
                        .child_by_field_name("constructor")
                        .is_some_and(|c| c.kind() == "super");
                    if is_super && relation == Relation::CallerExtendsCallee {
                        out.push(found("<init>".to_string(), Receiver::Inherited));
                    }
                }
                _ => {
                    let Some(name) = node.child_by_field_name("name") else {
                        continue;
                    };
                    let name = text(src, name).to_string();
                    if let Some(receiver) =
                        receiver_of(caller, callee, relation, &site, node, &name)
                    {
                        out.push(found(name, receiver));
                    }
                }
            }
        }
    }
    out
}

fn receiver_of(
    caller: &Scope<'_>,
    callee: &Scope<'_>,
    relation: Relation,
    site: &Site<'_>,
    call: Node<'_>,
    name: &str,
) -> Option<Receiver> {
    let src = caller.model.text();
    let member = site.member;
    let declared_by_caller = !resolve_call(caller.ty, site, call, name).members.is_empty();
    let declared_by_callee = !resolve_call(callee.ty, site, call, name).members.is_empty();
    let is = |written: &str| caller.names(written, callee.ty, callee.model);
    let object = call.child_by_field_name("object");
    match object.map(|o| o.kind()) {
        None | Some("this") => match relation {
            Relation::CallerExtendsCallee if !declared_by_caller && declared_by_callee => {
                Some(Receiver::Inherited)
            }
            Relation::CalleeExtendsCaller if declared_by_caller && declared_by_callee => {
                Some(Receiver::Overridden)
            }
            _ => None,
        },
        Some("super") => (relation == Relation::CallerExtendsCallee && declared_by_callee)
            .then_some(Receiver::Inherited),
        Some("identifier") => {
            let id = text(src, object?);
            // Java forbids a local to shadow a parameter, so the parameter comes first.
            if let Some(param) = member.params.iter().find(|p| p.name == id) {
                return is(&param.type_text).then(|| Receiver::Parameter(id.to_string()));
            }
            if let Some(written) = local_type(src, member, call, id) {
                return is(&written).then(|| Receiver::Local(id.to_string()));
            }
            if let Some(field) = caller.ty.fields.iter().find(|f| f.name == id) {
                return is(&field.type_text).then(|| Receiver::Field(id.to_string()));
            }
            is(id).then_some(Receiver::Static)
        }
        Some("field_access") => {
            let object = object?;
            let on_this = object
                .child_by_field_name("object")
                .is_some_and(|o| o.kind() == "this");
            let field = object.child_by_field_name("field").map(|f| text(src, f))?;
            if on_this {
                let field = caller.ty.fields.iter().find(|f| f.name == field)?;
                return is(&field.type_text).then(|| Receiver::Field(field.name.clone()));
            }
            // `a.b.Callee.m()`: a static call through the qualified name.
            is(text(src, object)).then_some(Receiver::Static)
        }
        Some("scoped_identifier") => is(text(src, object?)).then_some(Receiver::Static),
        _ => {
            let written = expression_type(site, object?)?;
            let receiver = if object?.kind() == "object_creation_expression" {
                Receiver::New
            } else {
                Receiver::Expression
            };
            is(&written).then_some(receiver)
        }
    }
}

/// The declared type of an expression where the source says it: a `new`, a cast, or a call of
/// one of the caller's own methods.
fn expression_type(site: &Site<'_>, node: Node<'_>) -> Option<String> {
    let node = crate::text::unparenthesize(node);
    match node.kind() {
        "object_creation_expression" | "cast_expression" => node
            .child_by_field_name("type")
            .map(|t| text(site.src, t).to_string()),
        "method_invocation" => own_return_type(site, node),
        _ => None,
    }
}

/// The type written for local `name` declared in `member` before `call` (a local variable,
/// an enhanced-for variable, a catch or lambda parameter; `var` takes the type of a `new`).
/// Scopes are not tracked: the last declaration before the call wins.
pub(crate) fn local_type(src: &str, member: &Member, call: Node<'_>, name: &str) -> Option<String> {
    let mut root = call;
    while let Some(parent) = root.parent() {
        if parent.start_byte() < member.span.start_byte {
            break;
        }
        root = parent;
    }
    let mut found = None;
    declarations_before(src, root, call.start_byte(), name, &mut found);
    found
}

fn declarations_before(
    src: &str,
    node: Node<'_>,
    before: usize,
    name: &str,
    found: &mut Option<String>,
) {
    if node.start_byte() >= before {
        return;
    }
    match node.kind() {
        "local_variable_declaration" => {
            let written = node.child_by_field_name("type").map(|t| text(src, t));
            let mut cursor = node.walk();
            for declarator in node.children_by_field_name("declarator", &mut cursor) {
                let id = declarator.child_by_field_name("name").map(|n| text(src, n));
                if id == Some(name) {
                    let value = declarator.child_by_field_name("value");
                    *found = match (written, value) {
                        (Some("var"), Some(value)) => value
                            .child_by_field_name("type")
                            .filter(|_| value.kind() == "object_creation_expression")
                            .map(|t| text(src, t).to_string()),
                        (Some(written), _) => Some(written.to_string()),
                        _ => None,
                    };
                }
            }
        }
        "enhanced_for_statement" | "catch_formal_parameter" | "formal_parameter" => {
            let id = node.child_by_field_name("name").map(|n| text(src, n));
            if id == Some(name) {
                *found = node
                    .child_by_field_name("type")
                    .map(|t| text(src, t).to_string());
            }
        }
        _ => {}
    }
    let mut cursor = node.walk();
    for child in node.children(&mut cursor) {
        declarations_before(src, child, before, name, found);
    }
}
