//! A callable's parameter and result types at one call site: class type variables bound from
//! the receiver's (or the constructed instance's) type arguments, method type variables from
//! the statement's chosen type arguments. Wildcards in parameters become a concrete type (the
//! bound, or `Integer` for `?`, as Fraser and Arcuri, "Whole Test Suites" section IV-A puts `Integer` into containers); a
//! result that stays non-ground falls back to the erased type, which is always sound.

use std::collections::BTreeMap;

use crate::callable::Callable;
use crate::hierarchy::TypeTable;
use crate::types::{JavaType, TypeParameter, WildcardBound};

/// The concrete type used for an unbounded type variable or wildcard.
pub const DEFAULT_TYPE_ARGUMENT: &str = "java.lang.Integer";

/// What the callable is applied to.
#[derive(Debug, Clone, Copy)]
pub enum CallContext<'a> {
    /// A static method or field.
    Static,
    /// A constructor creating this (ground) instance type of the owner.
    Constructor(&'a JavaType),
    /// An instance member on a receiver of this static type.
    Receiver(&'a JavaType),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Signature {
    pub params: Vec<JavaType>,
    /// The type of the value the statement defines; `None` for void.
    pub returns: Option<JavaType>,
}

/// The erasure of a type parameter: its first bound's erasure, else `Object`.
pub fn erasure_of(param: &TypeParameter) -> JavaType {
    match param.bounds.first() {
        Some(b @ (JavaType::Class { .. } | JavaType::Array(_))) => b.erased(),
        _ => JavaType::object(),
    }
}

/// Resolves `callable` at a call site; `None` when a parameter type cannot be made ground
/// (a variable we cannot bind, e.g. one inherited through an interface whose type arguments
/// reflection did not report) or when the receiver is not an instance of the declaring class.
pub fn resolve(
    table: &TypeTable,
    callable: &Callable,
    context: CallContext<'_>,
    method_args: &[JavaType],
) -> Option<Signature> {
    let bindings = bindings(table, callable, context, method_args)?;
    let mut params = Vec::with_capacity(callable.params.len());
    for p in &callable.params {
        let t = concretize_wildcards(&p.substitute_map(&bindings));
        if !t.is_ground() {
            return None;
        }
        params.push(t);
    }
    let returns = if let CallContext::Constructor(instance) = context {
        Some(instance.clone())
    } else {
        callable.returns.as_ref().map(|r| {
            let t = r.substitute_map(&bindings);
            if t.is_ground() {
                t
            } else {
                callable.erased_return.clone().unwrap_or_else(|| t.erased())
            }
        })
    };
    Some(Signature { params, returns })
}

/// The type variables of `callable`'s signature bound at a call site: the declaring class's
/// from the instance or receiver (a raw one binds each to its erasure), the method's own from
/// `method_args`. Variables of a class the table does not know stay unbound. `None` when the
/// context does not fit the callable.
pub(crate) fn bindings(
    table: &TypeTable,
    callable: &Callable,
    context: CallContext<'_>,
    method_args: &[JavaType],
) -> Option<BTreeMap<String, JavaType>> {
    if method_args.len() != callable.type_params.len() {
        return None;
    }
    let mut bindings: BTreeMap<String, JavaType> = BTreeMap::new();
    match context {
        CallContext::Static => {
            if callable.needs_receiver() || callable.is_constructor() {
                return None;
            }
        }
        CallContext::Constructor(instance) => {
            if !callable.is_constructor() || !instance.is_class(&callable.owner) {
                return None;
            }
            bind_class_vars(table, &callable.owner, instance, &mut bindings)?;
        }
        CallContext::Receiver(receiver) => {
            if !callable.needs_receiver() {
                return None;
            }
            let view = table.view_as(receiver, &callable.declaring_class)?;
            bind_class_vars(table, &callable.declaring_class, &view, &mut bindings)?;
        }
    }
    // Method variables shadow class variables of the same name.
    for (p, a) in callable.type_params.iter().zip(method_args) {
        bindings.insert(p.name.clone(), a.clone());
    }
    Some(bindings)
}

/// Binds the type variables of `class` from `instance` (an instance type of `class`). A raw
/// instance binds each variable to its erasure, as Java's raw member access does.
fn bind_class_vars(
    table: &TypeTable,
    class: &str,
    instance: &JavaType,
    bindings: &mut BTreeMap<String, JavaType>,
) -> Option<()> {
    let Some(info) = table.get(class) else {
        // Unknown class: its variables stay unbound, so members mentioning them are unusable.
        return Some(());
    };
    let args = instance.type_args();
    if args.is_empty() {
        for p in &info.type_params {
            bindings.insert(p.name.clone(), erasure_of(p));
        }
        return Some(());
    }
    if args.len() != info.type_params.len() || !instance.is_ground() {
        return None;
    }
    for (p, a) in info.type_params.iter().zip(args) {
        bindings.insert(p.name.clone(), a.clone());
    }
    Some(())
}

/// `? extends B` and `? super B` become `B`, `?` becomes `Integer`: a value of that type is
/// accepted wherever the wildcard type is.
pub fn concretize_wildcards(t: &JavaType) -> JavaType {
    match t {
        JavaType::Wildcard(None) => JavaType::class(DEFAULT_TYPE_ARGUMENT),
        JavaType::Wildcard(Some(WildcardBound::Extends(b) | WildcardBound::Super(b))) => {
            concretize_wildcards(b)
        }
        JavaType::Class { name, args } => JavaType::Class {
            name: name.clone(),
            args: args.iter().map(concretize_wildcards).collect(),
        },
        JavaType::Array(c) => JavaType::array_of(concretize_wildcards(c)),
        _ => t.clone(),
    }
}

/// Chooses ground type arguments for `params` (class or method type parameters): variables
/// already in `bindings` keep theirs; others get `Integer`, else `String`, when that satisfies
/// every bound (Fraser and Arcuri, "Whole Test Suites" IV-A: put `Integer` into generic containers), else their first bound
/// (ground after substitution) or its erasure.
pub fn choose_type_args(
    table: &TypeTable,
    params: &[TypeParameter],
    bindings: &mut BTreeMap<String, JavaType>,
) -> Vec<JavaType> {
    for p in params {
        if bindings.contains_key(&p.name) {
            continue;
        }
        let chosen = [DEFAULT_TYPE_ARGUMENT, crate::types::STRING]
            .into_iter()
            .map(JavaType::class)
            .find(|candidate| {
                p.bounds.iter().all(|b| {
                    let mut with = bindings.clone();
                    with.insert(p.name.clone(), candidate.clone());
                    let bound = concretize_wildcards(&b.substitute_map(&with));
                    table.is_assignable(candidate, &bound)
                })
            })
            .unwrap_or_else(|| match p.bounds.first() {
                Some(b) => {
                    let bound = concretize_wildcards(&b.substitute_map(bindings));
                    if bound.is_ground() {
                        bound
                    } else {
                        bound.erased()
                    }
                }
                None => JavaType::class(DEFAULT_TYPE_ARGUMENT),
            });
        bindings.insert(p.name.clone(), chosen);
    }
    params.iter().map(|p| bindings[&p.name].clone()).collect()
}
