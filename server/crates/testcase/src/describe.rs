//! Test cases in words, for people reading hover texts and diagnostics: the calls a test
//! makes and their arguments (`new Account("x", 0L) · withdraw(amount = 150L)`), with
//! parameter names from the Java model when it has the member.

use javamodel::JavaModel;

use crate::junit::primitive_literal;
use crate::{CallableKind, Statement, TestCase};

/// The calls of a test in words: `new Account("x", 0L) · withdraw(amount = 150L)`.
pub fn describe_calls(test: &TestCase, model: &JavaModel) -> String {
    test.statements()
        .iter()
        .filter_map(|statement| {
            let callable = statement.callable()?;
            let name = match &callable.kind {
                CallableKind::Constructor => {
                    format!("new {}", simple_name(&callable.owner))
                }
                CallableKind::Method { name, .. } => name.clone(),
                _ => return None,
            };
            Some(format!(
                "{name}({})",
                describe_arguments(test, statement, model)
            ))
        })
        .collect::<Vec<_>>()
        .join(" · ")
}

/// A call's arguments as `name = value` (parameter names from the model when it has the
/// member), values as Java literals where they are literals.
pub fn describe_arguments(test: &TestCase, statement: &Statement, model: &JavaModel) -> String {
    let (callable, args) = match statement {
        Statement::Constructor { callable, args, .. }
        | Statement::Method { callable, args, .. } => (callable, args),
        _ => return String::new(),
    };
    let member_name = match &callable.kind {
        CallableKind::Constructor => "<init>".to_string(),
        CallableKind::Method { name, .. } => name.clone(),
        _ => String::new(),
    };
    let params: Vec<String> = model
        .type_by_binary_name(&callable.declaring_class)
        .and_then(|ty| {
            ty.members
                .iter()
                .find(|m| m.name == member_name && m.params.len() == args.len())
        })
        .map(|m| m.params.iter().map(|p| p.name.clone()).collect())
        .unwrap_or_default();
    args.iter()
        .enumerate()
        .map(|(i, arg)| {
            let value = match test.statements().get(arg.index()) {
                Some(Statement::Primitive(v)) => primitive_literal(v),
                Some(Statement::Null(_)) => "null".into(),
                Some(Statement::EnumConstant { ty, name }) => {
                    format!("{}.{name}", simple_name(&ty.to_string()))
                }
                Some(Statement::Constructor { ty, .. }) => {
                    format!("a new {}", simple_name(&ty.to_string()))
                }
                Some(other) => other
                    .value_type()
                    .map(|t| format!("a {}", simple_name(&t.to_string())))
                    .unwrap_or_else(|| "?".into()),
                None => "?".into(),
            };
            match params.get(i) {
                Some(name) => format!("{name} = {value}"),
                None => value,
            }
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// A type's simple name, without type arguments: `List` for `java.util.List<java.lang.String>`.
fn simple_name(binary: &str) -> &str {
    let base = binary.split('<').next().unwrap_or(binary);
    base.rsplit(['.', '$']).next().unwrap_or(base)
}
