//! Building blocks of the JUnit printer's tests: members as the cluster describes them,
//! statements, and what the worker observed.

use std::sync::Arc;

use testcase::junit::{ExecutedTest, Execution, Getter, GetterOutcome, Observed, Thrown, Value};
use testcase::{
    Callable, CallableKind, JavaType, PrimitiveKind, PrimitiveValue, Statement, TestCase, VarRef,
};

/// A type from a binary name: primitives, `[]` suffixes, else a class.
pub fn t(name: &str) -> JavaType {
    if let Some(component) = name.strip_suffix("[]") {
        return JavaType::array_of(t(component));
    }
    match PrimitiveKind::from_name(name) {
        Some(k) => JavaType::Primitive(k),
        None => JavaType::class(name),
    }
}

pub fn callable(
    owner: &str,
    kind: CallableKind,
    params: &[&str],
    returns: Option<JavaType>,
) -> Arc<Callable> {
    Arc::new(Callable {
        owner: owner.into(),
        declaring_class: owner.into(),
        kind,
        erased_params: params.iter().map(|p| p.to_string()).collect(),
        params: params.iter().map(|p| t(p)).collect(),
        erased_return: returns.as_ref().map(JavaType::erased),
        returns,
        type_params: vec![],
        exceptions: vec![],
        varargs: false,
    })
}

pub fn constructor(owner: &str, params: &[&str], exceptions: &[&str]) -> Arc<Callable> {
    let mut c = (*callable(owner, CallableKind::Constructor, params, None)).clone();
    c.exceptions = exceptions.iter().map(|e| e.to_string()).collect();
    Arc::new(c)
}

pub fn method(owner: &str, name: &str, params: &[&str], returns: Option<&str>) -> Arc<Callable> {
    let kind = CallableKind::Method {
        name: name.into(),
        is_static: false,
    };
    callable(owner, kind, params, returns.map(t))
}

pub fn static_method(owner: &str, name: &str, params: &[&str], returns: &str) -> Arc<Callable> {
    let kind = CallableKind::Method {
        name: name.into(),
        is_static: true,
    };
    callable(owner, kind, params, Some(t(returns)))
}

pub fn lit(v: PrimitiveValue) -> Statement {
    Statement::Primitive(v)
}

pub fn new(c: &Arc<Callable>, args: &[usize], ty: JavaType) -> Statement {
    Statement::Constructor {
        callable: c.clone(),
        type_args: ty.type_args().to_vec(),
        args: args.iter().map(|a| VarRef(*a)).collect(),
        ty,
    }
}

pub fn call(c: &Arc<Callable>, receiver: Option<usize>, args: &[usize]) -> Statement {
    Statement::Method {
        callable: c.clone(),
        receiver: receiver.map(VarRef),
        type_args: vec![],
        args: args.iter().map(|a| VarRef(*a)).collect(),
        ty: c.returns.clone(),
    }
}

pub fn value(runtime: &str, v: Value) -> Option<Observed> {
    Some(Observed {
        runtime_type: Some(runtime.into()),
        value: Some(v),
        ..Observed::default()
    })
}

pub fn object(runtime: &str, getters: Vec<(&str, GetterOutcome)>) -> Observed {
    Observed {
        runtime_type: Some(runtime.into()),
        getters: getters
            .into_iter()
            .map(|(name, outcome)| Getter {
                name: name.into(),
                outcome,
                unstable: false,
            })
            .collect(),
        ..Observed::default()
    }
}

pub fn text(s: &str) -> Value {
    Value::Text(s.into())
}

pub fn thrown(type_name: &str, message: &str, declared: bool, checked: bool) -> Option<Thrown> {
    Some(Thrown {
        type_name: type_name.into(),
        message: Some(message.into()),
        declared,
        checked,
        unstable_message: false,
    })
}

pub fn executed(statements: Vec<Statement>, results: Vec<Option<Observed>>) -> ExecutedTest {
    ExecutedTest {
        test: TestCase::from_statements(statements),
        execution: Execution {
            results,
            ..Execution::default()
        },
    }
}

pub fn throwing(
    statements: Vec<Statement>,
    results: Vec<Option<Observed>>,
    thrown: Option<Thrown>,
) -> ExecutedTest {
    let mut test = executed(statements, results);
    test.execution.thrown = thrown;
    test
}
