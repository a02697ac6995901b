//! Well-typedness of a test case against its cluster: what javac would accept of the printed
//! test, plus the run-time conditions the worker enforces that the types alone do not (no
//! `null` receiver literal, no possibly-null value unboxed into a primitive parameter).

use std::fmt;

use crate::callable::{Callable, CallableKind};
use crate::cluster::Cluster;
use crate::description::TypeKind;
use crate::signature::{CallContext, Signature};
use crate::statement::{Nullness, Statement, TestCase, VarRef};
use crate::types::JavaType;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TypeError {
    /// Index of the offending statement.
    pub statement: usize,
    pub message: String,
}

impl fmt::Display for TypeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "statement {}: {}", self.statement, self.message)
    }
}

impl std::error::Error for TypeError {}

/// Checks every statement: references point to earlier statements that define values;
/// callables belong to the cluster and are used as declared (static or not, constructors of
/// instantiable classes, writes of non-final fields); argument types are assignable to the
/// parameter types resolved for the receiver's type; declared types are ground and accept the
/// produced value; receivers are never the `null` literal; primitive parameters and primitive
/// array elements only get values that cannot be null; array stores go into an `ArrayNew`
/// within its length; environment statements set up only what the class reads, with texts,
/// names and path types [`crate::environment::check`] accepts.
pub fn check_well_typed(test: &TestCase, cluster: &Cluster) -> Result<(), TypeError> {
    for (i, s) in test.statements().iter().enumerate() {
        check_statement(test, cluster, i, s).map_err(|message| TypeError {
            statement: i,
            message,
        })?;
    }
    Ok(())
}

fn check_statement(
    test: &TestCase,
    cluster: &Cluster,
    i: usize,
    s: &Statement,
) -> Result<(), String> {
    for (_, r) in s.refs() {
        if r.0 >= i {
            return Err(format!("refers to statement {} which is not earlier", r.0));
        }
        if !test.statement(r).defines_value() {
            return Err(format!(
                "refers to statement {} which defines no value",
                r.0
            ));
        }
    }
    if let Some(t) = s.value_type() {
        if !t.is_ground() {
            return Err(format!("declared type {t} is not ground"));
        }
    }
    match s {
        Statement::Primitive(_) => Ok(()),
        Statement::Null(t) => {
            if t.is_primitive() {
                Err(format!("null of primitive type {t}"))
            } else {
                Ok(())
            }
        }
        Statement::EnumConstant { ty, name } => {
            let enum_name = ty.class_name().ok_or("enum constant of a non-class type")?;
            let info = cluster
                .type_info(enum_name)
                .ok_or_else(|| format!("unknown enum {enum_name}"))?;
            if info.kind != TypeKind::Enum || !info.enum_constants.contains(name) {
                return Err(format!("{enum_name}.{name} is not an enum constant"));
            }
            Ok(())
        }
        Statement::Constructor {
            callable,
            type_args,
            args,
            ty,
        } => {
            known(cluster, callable)?;
            if !callable.is_constructor() {
                return Err(format!("{callable} is not a constructor"));
            }
            let info = cluster
                .type_info(&callable.owner)
                .ok_or_else(|| format!("unknown class {}", callable.owner))?;
            if !info.kind.is_instantiable() {
                return Err(format!("{} cannot be instantiated", callable.owner));
            }
            if type_args.len() != info.type_params.len() && !type_args.is_empty() {
                return Err(format!(
                    "wrong number of type arguments for {}",
                    callable.owner
                ));
            }
            let instance = JavaType::generic(&callable.owner, type_args.clone());
            let sig = cluster
                .signature(callable, CallContext::Constructor(&instance), &[])
                .ok_or_else(|| format!("{callable} does not resolve for {instance}"))?;
            check_args(test, cluster, &sig, args)?;
            check_declared(cluster, &instance, ty)
        }
        Statement::Method {
            callable,
            receiver,
            type_args,
            args,
            ty,
        } => {
            known(cluster, callable)?;
            if !matches!(callable.kind, CallableKind::Method { .. }) {
                return Err(format!("{callable} is not a method"));
            }
            let sig = resolve(test, cluster, callable, *receiver, type_args)?;
            check_args(test, cluster, &sig, args)?;
            match (&sig.returns, ty) {
                (None, None) => Ok(()),
                (Some(r), Some(t)) => check_declared(cluster, r, t),
                (None, Some(_)) => Err(format!("{callable} returns nothing")),
                (Some(_), None) => Err(format!("the result of {callable} has no declared type")),
            }
        }
        Statement::FieldRead {
            callable,
            receiver,
            ty,
        } => {
            known(cluster, callable)?;
            if !matches!(callable.kind, CallableKind::FieldRead { .. }) {
                return Err(format!("{callable} is not a field read"));
            }
            let sig = resolve(test, cluster, callable, *receiver, &[])?;
            let r = sig.returns.ok_or("field read without a type")?;
            check_declared(cluster, &r, ty)
        }
        Statement::FieldWrite {
            callable,
            receiver,
            value,
        } => {
            known(cluster, callable)?;
            if !matches!(callable.kind, CallableKind::FieldWrite { .. }) {
                return Err(format!("{callable} is not a field write"));
            }
            let sig = resolve(test, cluster, callable, *receiver, &[])?;
            check_args(test, cluster, &sig, std::slice::from_ref(value))
        }
        Statement::ArrayNew { component, .. } => {
            if !component.is_ground() {
                return Err(format!("array of non-ground type {component}"));
            }
            Ok(())
        }
        Statement::ArrayStore {
            array,
            index,
            value,
        } => {
            let Statement::ArrayNew { component, length } = test.statement(*array) else {
                return Err(format!("statement {} is not an array creation", array.0));
            };
            if index >= length {
                return Err(format!("index {index} out of bounds for length {length}"));
            }
            check_value(test, cluster, *value, component)
        }
        Statement::ConsoleInput { .. }
        | Statement::SystemProperty { .. }
        | Statement::InputFile { .. } => crate::environment::check(s, cluster.environment()),
    }
}

fn known(cluster: &Cluster, callable: &Callable) -> Result<(), String> {
    if cluster.knows(callable) {
        Ok(())
    } else {
        Err(format!("{callable} is not in the test cluster"))
    }
}

fn resolve(
    test: &TestCase,
    cluster: &Cluster,
    callable: &Callable,
    receiver: Option<VarRef>,
    type_args: &[JavaType],
) -> Result<Signature, String> {
    match (callable.needs_receiver(), receiver) {
        (false, None) => cluster
            .signature(callable, CallContext::Static, type_args)
            .ok_or_else(|| format!("{callable} does not resolve")),
        (true, Some(r)) => {
            let s = test.statement(r);
            if s.nullness() == Nullness::Null {
                return Err(format!("receiver {} is null", r.0));
            }
            let t = s.value_type().ok_or("receiver without a value")?;
            cluster
                .signature(callable, CallContext::Receiver(&t), type_args)
                .ok_or_else(|| format!("{callable} cannot be called on {t}"))
        }
        (false, Some(_)) => Err(format!("{callable} is static but has a receiver")),
        (true, None) => Err(format!("{callable} needs a receiver")),
    }
}

fn check_args(
    test: &TestCase,
    cluster: &Cluster,
    sig: &Signature,
    args: &[VarRef],
) -> Result<(), String> {
    if sig.params.len() != args.len() {
        return Err(format!(
            "{} parameters but {} arguments",
            sig.params.len(),
            args.len()
        ));
    }
    for (p, a) in sig.params.iter().zip(args) {
        check_value(test, cluster, *a, p)?;
    }
    Ok(())
}

/// `value` may be passed where `expected` is wanted.
fn check_value(
    test: &TestCase,
    cluster: &Cluster,
    value: VarRef,
    expected: &JavaType,
) -> Result<(), String> {
    let s = test.statement(value);
    let t = s.value_type().ok_or("value without a type")?;
    if !cluster.is_assignable(&t, expected) {
        return Err(format!(
            "statement {} of type {t} does not fit {expected}",
            value.0
        ));
    }
    if expected.is_primitive() && s.nullness() != Nullness::NonNull {
        return Err(format!(
            "statement {} may be null but is unboxed into {expected}",
            value.0
        ));
    }
    Ok(())
}

/// A declared type may be a supertype of the produced one; primitives must match exactly: the
/// worker holds every value boxed, so a widened or unboxed declaration would not describe the
/// value it holds (an `Integer` declared `long` does not fit a `Long` parameter, a possibly-null
/// `Integer` declared `int` is not certain to be non-null).
pub(crate) fn declarable(cluster: &Cluster, produced: &JavaType, declared: &JavaType) -> bool {
    if produced.is_primitive() || declared.is_primitive() {
        produced == declared
    } else {
        cluster.is_assignable(produced, declared)
    }
}

fn check_declared(
    cluster: &Cluster,
    produced: &JavaType,
    declared: &JavaType,
) -> Result<(), String> {
    if declarable(cluster, produced, declared) {
        Ok(())
    } else {
        Err(format!("a {produced} cannot be declared as {declared}"))
    }
}
