//! Which overload a call runs: the argument types the source states (literals, the declared
//! types of parameters, locals and fields, `new`, casts, the return types of the class's own
//! methods, and a few operators), matched against the candidates' parameter types with the
//! three phases of JLS 15.12.2 in simplified form: (1) identity and widening (primitive
//! widening, a reference to a type of the same name, to `Object`, `null` to any reference),
//! (2) the same with boxing and unboxing, (3) variable arity. Among the applicable candidates
//! of the first phase that has any, the most specific one is chosen (JLS 15.12.2.5).
//!
//! With no type checker, a reference argument and a parameter of different names may or may
//! not be related (`Savings` and `Account`): such a match is "maybe", never excludes a
//! candidate, and keeps the most-specific step from choosing between candidates. When the type
//! of some argument cannot be inferred at all, every candidate of that arity is kept
//! ([`Resolved::by_arity`]), as before this resolution existed.

use tree_sitter::Node;

use crate::model::{Member, MemberKind, TypeDecl};
use crate::text::{text, unparenthesize};

/// The static type of an argument, as far as the source states it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum ArgType {
    /// A type as written, erased of type arguments (`int`, `String`, `java.util.List`, `int[]`).
    Type(String),
    /// The `null` literal, which fits every reference type.
    Null,
}

/// The members a call may run.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct Resolved {
    /// Indexes into the type's members.
    pub members: Vec<usize>,
    /// True when some argument's type could not be inferred and every candidate of the arity
    /// was kept.
    pub by_arity: bool,
}

/// The view of a member's source needed to infer its expressions' types.
pub(crate) struct Site<'a> {
    pub src: &'a str,
    pub ty: &'a TypeDecl,
    pub member: &'a Member,
}

/// The members of `ty` that a call `name` with `arguments` runs (constructors for `<init>`).
/// `arguments` is `None` when some type is unknown: every candidate of that arity is kept.
pub(crate) fn resolve(
    ty: &TypeDecl,
    name: &str,
    arity: usize,
    arguments: Option<&[ArgType]>,
) -> Resolved {
    let candidates = super::call_sites::members_named(ty, name, arity);
    let Some(arguments) = arguments.filter(|_| candidates.len() > 1) else {
        return Resolved {
            by_arity: arguments.is_none() && candidates.len() > 1,
            members: candidates,
        };
    };
    for phase in [Phase::Strict, Phase::Boxing, Phase::Varargs] {
        let applicable: Vec<(usize, Vec<Fit>)> = candidates
            .iter()
            .filter_map(|&index| {
                let member = &ty.members[index];
                let fits = fits(ty, member, arguments, phase)?;
                (!fits.contains(&Fit::No)).then_some((index, fits))
            })
            .collect();
        if applicable.is_empty() {
            continue;
        }
        let definite = applicable
            .iter()
            .all(|(_, fits)| fits.iter().all(|f| *f == Fit::Yes));
        let members: Vec<usize> = applicable.iter().map(|(i, _)| *i).collect();
        // With a "maybe" anywhere the applicable set itself is uncertain, so choosing the most
        // specific of it could choose a method the call never runs.
        if definite {
            if let Some(best) = most_specific(ty, &members) {
                return Resolved {
                    members: vec![best],
                    by_arity: false,
                };
            }
        }
        return Resolved {
            members,
            by_arity: false,
        };
    }
    // No candidate fits: the inference was wrong somewhere (or the code does not compile);
    // keeping them all loses no coupled branch.
    Resolved {
        members: candidates,
        by_arity: true,
    }
}

/// The argument types of `call` (a method invocation, object creation or explicit
/// constructor call) in `site`, or `None` when one cannot be inferred.
pub(crate) fn argument_types(
    site: &Site<'_>,
    call: Node<'_>,
    own_return: &dyn Fn(Node<'_>) -> Option<String>,
) -> Option<Vec<ArgType>> {
    let Some(arguments) = call.child_by_field_name("arguments") else {
        return Some(Vec::new());
    };
    super::call_sites::arguments(arguments)
        .into_iter()
        .map(|argument| infer(site, argument, own_return))
        .collect()
}

fn infer(
    site: &Site<'_>,
    node: Node<'_>,
    own_return: &dyn Fn(Node<'_>) -> Option<String>,
) -> Option<ArgType> {
    let src = site.src;
    let node = unparenthesize(node);
    let known = |t: &str| Some(ArgType::Type(erase(t)));
    match node.kind() {
        "decimal_integer_literal"
        | "hex_integer_literal"
        | "octal_integer_literal"
        | "binary_integer_literal" => {
            let literal = text(src, node);
            known(if literal.ends_with(['l', 'L']) {
                "long"
            } else {
                "int"
            })
        }
        "decimal_floating_point_literal" | "hex_floating_point_literal" => {
            let literal = text(src, node);
            known(if literal.ends_with(['f', 'F']) {
                "float"
            } else {
                "double"
            })
        }
        "string_literal" | "text_block" => known("String"),
        "character_literal" => known("char"),
        "true" | "false" => known("boolean"),
        "null_literal" => Some(ArgType::Null),
        "class_literal" => known("Class"),
        "this" => known(&site.ty.name),
        "object_creation_expression" | "cast_expression" => {
            known(text(src, node.child_by_field_name("type")?))
        }
        "identifier" => {
            let id = text(src, node);
            if let Some(param) = site.member.params.iter().find(|p| p.name == id) {
                return known(&param.type_text);
            }
            if let Some(written) = super::call_sites::local_type(src, site.member, node, id) {
                return known(&written);
            }
            let field = site.ty.fields.iter().find(|f| f.name == id)?;
            known(&field.type_text)
        }
        "field_access" => {
            let on_this = node
                .child_by_field_name("object")
                .is_some_and(|o| o.kind() == "this");
            let name = text(src, node.child_by_field_name("field")?);
            let field = site.ty.fields.iter().find(|f| f.name == name)?;
            on_this.then(|| ArgType::Type(erase(&field.type_text)))
        }
        "method_invocation" => known(&own_return(node)?),
        "instanceof_expression" => known("boolean"),
        "unary_expression" => {
            let operator = node.child_by_field_name("operator").map(|o| text(src, o))?;
            if operator == "!" {
                return known("boolean");
            }
            match infer(site, node.child_by_field_name("operand")?, own_return)? {
                ArgType::Type(t) => numeric_promotion(&t, "int").map(ArgType::Type),
                ArgType::Null => None,
            }
        }
        "binary_expression" => {
            let operator = node.child_by_field_name("operator").map(|o| text(src, o))?;
            match operator {
                "==" | "!=" | "<" | ">" | "<=" | ">=" | "&&" | "||" => known("boolean"),
                "+" | "-" | "*" | "/" | "%" => {
                    let left = infer(site, node.child_by_field_name("left")?, own_return);
                    let right = infer(site, node.child_by_field_name("right")?, own_return);
                    let is_string = |t: &Option<ArgType>| matches!(t, Some(ArgType::Type(t)) if simple(t) == "String");
                    if operator == "+" && (is_string(&left) || is_string(&right)) {
                        return known("String");
                    }
                    match (left?, right?) {
                        (ArgType::Type(l), ArgType::Type(r)) => {
                            numeric_promotion(&unboxed(&l), &unboxed(&r)).map(ArgType::Type)
                        }
                        _ => None,
                    }
                }
                _ => None,
            }
        }
        _ => None,
    }
}

/// Binary numeric promotion (JLS 5.6.2) of two primitive numeric types; `None` otherwise.
fn numeric_promotion(a: &str, b: &str) -> Option<String> {
    let rank = |t: &str| match t {
        "byte" | "short" | "char" | "int" => Some(0),
        "long" => Some(1),
        "float" => Some(2),
        "double" => Some(3),
        _ => None,
    };
    let out = ["int", "long", "float", "double"][rank(a)?.max(rank(b)?)];
    Some(out.to_string())
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    Strict,
    Boxing,
    Varargs,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Fit {
    Yes,
    Maybe,
    No,
}

/// How each argument fits `member`'s parameters in `phase`; `None` when the arity does not
/// fit the phase (a variable-arity call only in the third).
fn fits(ty: &TypeDecl, member: &Member, arguments: &[ArgType], phase: Phase) -> Option<Vec<Fit>> {
    let params = &member.params;
    let variable = params.last().is_some_and(|p| p.varargs);
    let by_variable_arity = phase == Phase::Varargs && variable;
    if !by_variable_arity && params.len() != arguments.len() {
        return None;
    }
    if phase == Phase::Varargs && !variable {
        return None;
    }
    let type_vars = |written: &str| {
        let name = simple(written);
        member
            .type_params
            .iter()
            .chain(&ty.type_params)
            .any(|p| p.split_whitespace().next() == Some(name))
    };
    let boxing = phase != Phase::Strict;
    Some(
        arguments
            .iter()
            .enumerate()
            .map(|(i, argument)| {
                let param = if by_variable_arity && i + 1 >= params.len() {
                    let last = &params[params.len() - 1];
                    erase(&last.type_text)
                } else {
                    let written = &params[i].signature_type;
                    // The variable-arity parameter of a fixed-arity call takes an array.
                    written.clone()
                };
                if type_vars(param.trim_end_matches("[]")) {
                    return Fit::Maybe;
                }
                fit(argument, &param, boxing)
            })
            .collect(),
    )
}

const PRIMITIVES: [&str; 8] = [
    "boolean", "byte", "short", "char", "int", "long", "float", "double",
];

fn is_primitive(t: &str) -> bool {
    PRIMITIVES.contains(&t)
}

/// JLS 5.1.2.
fn widens(from: &str, to: &str) -> bool {
    from == to
        || match from {
            "byte" => matches!(to, "short" | "int" | "long" | "float" | "double"),
            "short" | "char" => matches!(to, "int" | "long" | "float" | "double"),
            "int" => matches!(to, "long" | "float" | "double"),
            "long" => matches!(to, "float" | "double"),
            "float" => to == "double",
            _ => false,
        }
}

fn boxed(primitive: &str) -> Option<&'static str> {
    Some(match primitive {
        "boolean" => "Boolean",
        "byte" => "Byte",
        "short" => "Short",
        "char" => "Character",
        "int" => "Integer",
        "long" => "Long",
        "float" => "Float",
        "double" => "Double",
        _ => return None,
    })
}

/// The primitive of a box, or the type itself.
fn unboxed(t: &str) -> String {
    let name = simple(t);
    PRIMITIVES
        .iter()
        .find(|p| boxed(p) == Some(name))
        .map_or_else(|| t.to_string(), |p| p.to_string())
}

/// The supertypes of final JDK types whose whole hierarchy is known: an argument of such a
/// type fits only these (and its own name).
fn final_supertypes(t: &str) -> Option<&'static [&'static str]> {
    Some(match t {
        "String" => &[
            "Object",
            "CharSequence",
            "Comparable",
            "Serializable",
            "Constable",
        ],
        "Integer" | "Long" | "Short" | "Byte" | "Double" | "Float" => &[
            "Object",
            "Number",
            "Comparable",
            "Serializable",
            "Constable",
        ],
        "Boolean" | "Character" => &["Object", "Comparable", "Serializable", "Constable"],
        "Class" => &["Object", "Type", "Serializable", "GenericDeclaration"],
        _ => return None,
    })
}

/// How an argument of type `argument` fits a parameter written `param` (erased).
fn fit(argument: &ArgType, param: &str, boxing: bool) -> Fit {
    let yes_if = |b: bool| if b { Fit::Yes } else { Fit::No };
    let argument = match argument {
        ArgType::Null => return yes_if(!is_primitive(param)),
        ArgType::Type(t) => t.as_str(),
    };
    let (a, p) = (simple(argument), simple(param));
    match (is_primitive(a), is_primitive(p)) {
        (true, true) => yes_if(widens(a, p)),
        (true, false) => {
            // Boxing, then widening reference conversion (JLS 5.3).
            let Some(b) = boxed(a).filter(|_| boxing) else {
                return Fit::No;
            };
            yes_if(b == p || final_supertypes(b).is_some_and(|s| s.contains(&p)))
        }
        (false, true) => {
            // Unboxing, then widening primitive conversion.
            let u = unboxed(a);
            yes_if(boxing && is_primitive(&u) && widens(&u, p))
        }
        (false, false) => reference_fit(argument, param),
    }
}

fn reference_fit(argument: &str, param: &str) -> Fit {
    let (a, p) = (simple(argument), simple(param));
    if a == p || p == "Object" {
        return Fit::Yes;
    }
    if a == "Object" {
        return Fit::No;
    }
    match (a.strip_suffix("[]"), p.strip_suffix("[]")) {
        (Some(a_element), Some(p_element)) => {
            return if is_primitive(a_element) || is_primitive(p_element) {
                if a_element == p_element {
                    Fit::Yes
                } else {
                    Fit::No
                }
            } else {
                reference_fit(a_element, p_element)
            };
        }
        (Some(_), None) => {
            return if matches!(p, "Cloneable" | "Serializable") {
                Fit::Yes
            } else {
                Fit::No
            };
        }
        (None, Some(_)) => return Fit::No,
        (None, None) => {}
    }
    match final_supertypes(a) {
        Some(supertypes) if supertypes.contains(&p) => Fit::Yes,
        Some(_) => Fit::No,
        // No class extends a final one.
        None if final_supertypes(p).is_some() => Fit::No,
        // Unrelated by name: only a type hierarchy could tell.
        None => Fit::Maybe,
    }
}

/// JLS 15.12.2.5 with the definite fits above: the member whose every parameter fits the
/// corresponding parameter of every other; `None` when none or several do.
fn most_specific(ty: &TypeDecl, members: &[usize]) -> Option<usize> {
    if members.len() == 1 {
        return members.first().copied();
    }
    let more_specific = |m1: &Member, m2: &Member| {
        m1.params.len() == m2.params.len()
            && m1.params.iter().zip(&m2.params).all(|(p1, p2)| {
                fit(
                    &ArgType::Type(p1.signature_type.clone()),
                    &p2.signature_type,
                    false,
                ) == Fit::Yes
            })
    };
    let mut best = members.iter().copied().filter(|&i| {
        members
            .iter()
            .all(|&j| i == j || more_specific(&ty.members[i], &ty.members[j]))
    });
    let first = best.next();
    first.filter(|_| best.next().is_none())
}

/// Whether `sub` declares a method with `method`'s name and parameter types: it redefines
/// (overrides or hides) it. Parameter types are compared by simple name, erased.
pub(crate) fn redefines(sub: &TypeDecl, method: &Member) -> bool {
    let kinds = [MemberKind::Method];
    sub.members.iter().any(|m| {
        kinds.contains(&m.kind)
            && m.name == method.name
            && m.params.len() == method.params.len()
            && m.params
                .iter()
                .zip(&method.params)
                .all(|(a, b)| simple(&a.signature_type) == simple(&b.signature_type))
    })
}

/// A type as written without type arguments, annotations or whitespace: `List`, `a.b.C`, `int[]`.
pub(crate) fn erase(written: &str) -> String {
    let mut written = written.trim();
    // Annotations (`@NonNull String`, `@Size(max = 3) List<T>`) are not part of the type.
    while let Some(annotation) = written.strip_prefix('@') {
        let rest = annotation
            .trim_start_matches(|c: char| c.is_alphanumeric() || c == '.' || c == '_' || c == '$')
            .trim_start();
        written = match rest.strip_prefix('(') {
            Some(arguments) => arguments
                .find(')')
                .map_or("", |at| arguments[at + 1..].trim_start()),
            None => rest,
        };
    }
    let mut out = String::new();
    let mut depth = 0;
    for c in written.chars() {
        match c {
            '<' => depth += 1,
            '>' => depth -= 1,
            _ if depth > 0 || c.is_whitespace() => {}
            _ => out.push(c),
        }
    }
    match out.strip_suffix("...") {
        Some(element) => format!("{element}[]"),
        None => out,
    }
}

/// The last segment of a qualified name: `java.util.List` → `List`, `a.B[]` → `B[]`.
fn simple(t: &str) -> &str {
    t.rsplit('.').next().unwrap_or(t)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ty(source: &str) -> TypeDecl {
        let model = crate::JavaModel::build(source, &syntax::parse_java(source, None));
        model.types[0].clone()
    }

    fn signatures(ty: &TypeDecl, resolved: &Resolved) -> Vec<String> {
        resolved
            .members
            .iter()
            .map(|&i| ty.members[i].signature.clone())
            .collect()
    }

    fn t(s: &str) -> ArgType {
        ArgType::Type(s.to_string())
    }

    /// JLS 15.12.2's phases: identity and widening first, boxing only when that finds nothing,
    /// variable arity last; the most specific among definite fits.
    #[test]
    fn phases_and_most_specific() {
        let e = ty("class E {\n void m(int a) {}\n void m(long a) {}\n void m(Integer a) {}\n void m(String s) {}\n void m(Object o) {}\n void m(int... a) {}\n}\n");
        let check = |args: &[ArgType], want: &[&str]| {
            let resolved = resolve(&e, "m", args.len(), Some(args));
            assert_eq!(signatures(&e, &resolved), want, "{args:?}");
            assert!(!resolved.by_arity);
        };
        check(&[t("int")], &["m(int)"]);
        check(&[t("short")], &["m(int)"]);
        check(&[t("long")], &["m(long)"]);
        check(&[t("Integer")], &["m(Integer)"]);
        check(&[t("java.lang.String")], &["m(String)"]);
        // Phase 2: a boolean fits no parameter without boxing; boxed it is an Object.
        check(&[t("boolean")], &["m(Object)"]);
        check(&[], &["m(int[])"]);
        check(&[t("int"), t("int")], &["m(int[])"]);
        // A class the model cannot relate to String or Integer: only Object surely fits,
        // String and Integer surely not (final types).
        check(&[t("Account")], &["m(Object)"]);
        // null fits every reference, the array of the variable-arity one too (by fixed
        // arity); none of String, Integer and int[] is more specific than the others: javac
        // calls the call ambiguous, and every applicable one is kept.
        check(
            &[ArgType::Null],
            &["m(Integer)", "m(String)", "m(Object)", "m(int[])"],
        );
    }

    #[test]
    fn unrelated_names_keep_every_possible_candidate() {
        let e = ty(
            "class E {\n void pay(Account a) {}\n void pay(Card c) {}\n void pay(int n) {}\n}\n",
        );
        let resolved = resolve(&e, "pay", 1, Some(&[t("Savings")]));
        assert_eq!(signatures(&e, &resolved), ["pay(Account)", "pay(Card)"]);
        let unknown = resolve(&e, "pay", 1, None);
        assert!(unknown.by_arity);
        assert_eq!(unknown.members.len(), 3);
    }

    #[test]
    fn type_variables_fit_any_reference() {
        let e = ty("class E<T> {\n void put(T t) {}\n void put(int n) {}\n}\n");
        let resolved = resolve(&e, "put", 1, Some(&[t("String")]));
        assert_eq!(signatures(&e, &resolved), ["put(T)"]);
    }

    #[test]
    fn erasure_drops_type_arguments_annotations_and_varargs_dots() {
        assert_eq!(erase("java.util.List<String>"), "java.util.List");
        assert_eq!(erase("int..."), "int[]");
        assert_eq!(erase("Map<K, List<V>>"), "Map");
        assert_eq!(erase("@NonNull String"), "String");
        assert_eq!(erase("@Size(max = 3) java.util.List<T>"), "java.util.List");
    }
}
