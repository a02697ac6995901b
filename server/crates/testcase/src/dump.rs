//! A compact, Java-like text form of test cases, for snapshots and debugging (not the JUnit
//! printer): one statement per line, variables named by index.

use std::fmt;

use crate::callable::CallableKind;
use crate::statement::{Statement, TestCase, VarRef};

struct Var(VarRef);

impl fmt::Display for Var {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "v{}", self.0 .0)
    }
}

fn list(refs: &[VarRef]) -> String {
    refs.iter()
        .map(|r| Var(*r).to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

impl fmt::Display for TestCase {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, s) in self.statements().iter().enumerate() {
            if let Some(t) = s.value_type() {
                write!(f, "{t} v{i} = ")?;
            }
            match s {
                Statement::Primitive(v) => write!(f, "{v}")?,
                Statement::Null(_) => write!(f, "null")?,
                Statement::EnumConstant { ty, name } => write!(f, "{ty}.{name}")?,
                Statement::Constructor {
                    callable,
                    type_args,
                    args,
                    ..
                } => {
                    let diamond = if type_args.is_empty() { "" } else { "<>" };
                    write!(f, "new {}{diamond}({})", callable.owner, list(args))?
                }
                Statement::Method {
                    callable,
                    receiver,
                    args,
                    ..
                } => {
                    match receiver {
                        Some(r) => write!(f, "{}", Var(*r))?,
                        None => write!(f, "{}", callable.owner)?,
                    }
                    write!(f, ".{}({})", callable.name(), list(args))?
                }
                Statement::FieldRead {
                    callable, receiver, ..
                } => match receiver {
                    Some(r) => write!(f, "{}.{}", Var(*r), callable.name())?,
                    None => write!(f, "{}.{}", callable.owner, callable.name())?,
                },
                Statement::FieldWrite {
                    callable,
                    receiver,
                    value,
                } => {
                    debug_assert!(matches!(callable.kind, CallableKind::FieldWrite { .. }));
                    match receiver {
                        Some(r) => write!(f, "{}.{}", Var(*r), callable.name())?,
                        None => write!(f, "{}.{}", callable.owner, callable.name())?,
                    }
                    write!(f, " = {}", Var(*value))?
                }
                Statement::ArrayNew { component, length } => {
                    write!(f, "new {component}[{length}]")?
                }
                Statement::ArrayStore {
                    array,
                    index,
                    value,
                } => write!(f, "{}[{index}] = {}", Var(*array), Var(*value))?,
                Statement::ConsoleInput { text } => write!(f, "System.setIn({text:?})")?,
                Statement::SystemProperty { key, value } => {
                    write!(f, "System.setProperty({key:?}, {value:?})")?
                }
                Statement::InputFile { name, content, .. } => match content {
                    Some(c) => write!(f, "file({name:?}, {c:?})")?,
                    None => write!(f, "file({name:?}, no file)")?,
                },
            }
            writeln!(f, ";")?;
        }
        Ok(())
    }
}
