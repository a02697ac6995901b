//! The edge between the worker and the `testcase` crate: the worker's reflection data
//! (`describe`) becomes the test cluster's input, test cases become the worker's statement
//! lists, and values the worker observed feed the cluster's observed-value pool.

use std::collections::BTreeSet;

use jvm::{
    ClassInfo, DescribeResult, GetterOutcome, JvmError, Literal, ObservedValue, StatementResult,
    Supervisor, TestResult, UnitId,
};
use testcase::{
    Access, Cluster, ClusterError, ConstantPool, ConstructorDescription, FieldDescription,
    MethodDescription, MissingType, ParamDescription, PrimitiveValue, Statement, TestCase,
    TypeDescription, TypeKind,
};

/// How deep `describe` follows the types members mention: the class under test (0), its
/// parameter types (1), and theirs (2), so that a parameter's own constructor arguments have
/// generators too.
pub const DEFAULT_DESCRIBE_DEPTH: u32 = 2;

/// Rounds of describing project subclasses of described abstract types and interfaces (whose
/// constructors are the only way to obtain those types).
const SUBCLASS_ROUNDS: usize = 3;

/// Describes `class` to `depth`, then the project subclasses and implementations of every
/// described type that were not described yet (one level deep), until none are left. JDK
/// members are those of Java `release` (the tests' level; `None`: the worker's JDK's).
pub fn describe_for_cluster(
    supervisor: &mut Supervisor,
    unit: UnitId,
    class: &str,
    depth: u32,
    release: Option<u32>,
) -> Result<DescribeResult, JvmError> {
    let mut result = supervisor.describe_at(unit, &[class.to_string()], depth, release)?;
    for _ in 0..SUBCLASS_ROUNDS {
        let described: BTreeSet<&str> = result.classes.iter().map(|c| c.name.as_str()).collect();
        let missing: BTreeSet<&str> = result.missing.iter().map(|(n, _)| n.as_str()).collect();
        let wanted: BTreeSet<String> = result
            .classes
            .iter()
            .flat_map(|c| c.subclasses.iter())
            .filter(|s| !described.contains(s.as_str()) && !missing.contains(s.as_str()))
            .cloned()
            .collect();
        if wanted.is_empty() {
            break;
        }
        let wanted: Vec<String> = wanted.into_iter().collect();
        let more = supervisor.describe_at(unit, &wanted, 1, release)?;
        merge(&mut result, more);
    }
    Ok(result)
}

/// Adds the classes and missing types of `more` that `into` does not have yet.
fn merge(into: &mut DescribeResult, more: DescribeResult) {
    for c in more.classes {
        if !into.classes.iter().any(|k| k.name == c.name) {
            into.missing.retain(|(n, _)| *n != c.name);
            into.classes.push(c);
        }
    }
    for (name, reason) in more.missing {
        let known = into.classes.iter().any(|k| k.name == name)
            || into.missing.iter().any(|(n, _)| *n == name);
        if !known {
            into.missing.push((name, reason));
        }
    }
}

/// The test cluster of `class` from a describe result and the constants of its source, for
/// tests compiled at Java `release` (`None`: the worker's JDK's; pass the release the result
/// was described at).
pub fn build_cluster(
    described: &DescribeResult,
    class: &str,
    constants: ConstantPool,
    release: Option<u32>,
) -> Result<Cluster, ClusterError> {
    let types: Vec<TypeDescription> = described.classes.iter().map(type_description).collect();
    let missing: Vec<MissingType> = described
        .missing
        .iter()
        .map(|(name, reason)| MissingType {
            name: name.clone(),
            reason: reason.clone(),
        })
        .collect();
    Cluster::build_at(class, &types, &missing, constants, release)
}

/// One described class as the cluster's input.
pub fn type_description(c: &ClassInfo) -> TypeDescription {
    let kind = match c.kind {
        jvm::TypeKind::Class if c.is_abstract => TypeKind::AbstractClass,
        jvm::TypeKind::Class => TypeKind::Class,
        jvm::TypeKind::Interface => TypeKind::Interface,
        jvm::TypeKind::Enum => TypeKind::Enum,
        jvm::TypeKind::Record => TypeKind::Record,
        jvm::TypeKind::Annotation => TypeKind::Annotation,
    };
    let params = |ps: &[jvm::Param]| -> Vec<ParamDescription> {
        ps.iter()
            .map(|p| ParamDescription {
                type_name: p.type_name.clone(),
                generic: p.generic.clone(),
            })
            .collect()
    };
    TypeDescription {
        name: c.name.clone(),
        kind,
        is_public: c.is_public,
        access: match c.access.as_str() {
            "public" => Access::Public,
            "protected" => Access::Protected,
            "private" => Access::Private,
            _ => Access::Package,
        },
        project: c.project,
        inner_class: c.inner_class,
        superclass: c
            .generic_superclass
            .clone()
            .or_else(|| c.superclass.clone()),
        interfaces: if c.generic_interfaces.len() == c.interfaces.len() {
            c.generic_interfaces.clone()
        } else {
            c.interfaces.clone()
        },
        type_parameters: c.type_parameters.clone(),
        constructors: c
            .constructors
            .iter()
            .map(|k| ConstructorDescription {
                access: Access::from_modifiers(&k.modifiers),
                params: params(&k.params),
                exceptions: k.exceptions.clone(),
                varargs: k.varargs,
                type_parameters: k.type_parameters.clone(),
            })
            .collect(),
        methods: c
            .methods
            .iter()
            .map(|m| MethodDescription {
                access: Access::from_modifiers(&m.modifiers),
                name: m.name.clone(),
                declaring_class: m.declaring_class.clone(),
                is_static: m.is_static,
                return_type: m.return_type.clone(),
                generic_return_type: m.generic_return_type.clone(),
                params: params(&m.params),
                exceptions: m.exceptions.clone(),
                varargs: m.varargs,
                type_parameters: m.type_parameters.clone(),
            })
            .collect(),
        fields: c
            .fields
            .iter()
            .map(|f| FieldDescription {
                access: Access::from_modifiers(&f.modifiers),
                name: f.name.clone(),
                declaring_class: f.declaring_class.clone(),
                type_name: f.type_name.clone(),
                generic_type: f.generic_type.clone(),
                is_static: f.is_static,
                is_final: f.is_final,
            })
            .collect(),
        enum_constants: c.enum_constants.clone(),
        subclasses: c.subclasses.clone(),
    }
}

/// The worker's form of a test case: statement `i` stays statement `i`, references stay
/// indexes; members are named by their owner class and erased parameter types.
pub fn to_worker_test(test: &TestCase) -> jvm::TestCase {
    jvm::TestCase {
        statements: test.statements().iter().map(to_worker_statement).collect(),
    }
}

fn to_worker_statement(s: &Statement) -> jvm::Statement {
    let idx = |r: &testcase::VarRef| r.index();
    match s {
        Statement::Primitive(v) => jvm::Statement::Value(literal(v)),
        Statement::Null(t) => jvm::Statement::Null {
            type_name: t.erased_name(),
        },
        Statement::EnumConstant { ty, name } => jvm::Statement::EnumConstant {
            type_name: ty.erased_name(),
            name: name.clone(),
        },
        Statement::Constructor { callable, args, .. } => jvm::Statement::New {
            class: callable.owner.clone(),
            params: callable.erased_params.clone(),
            args: args.iter().map(idx).collect(),
        },
        Statement::Method {
            callable,
            receiver,
            args,
            ..
        } => jvm::Statement::Call {
            class: callable.owner.clone(),
            method: callable.name().to_string(),
            params: callable.erased_params.clone(),
            receiver: receiver.as_ref().map(idx),
            args: args.iter().map(idx).collect(),
        },
        Statement::FieldRead {
            callable, receiver, ..
        } => jvm::Statement::GetField {
            class: callable.owner.clone(),
            field: callable.name().to_string(),
            receiver: receiver.as_ref().map(idx),
        },
        Statement::FieldWrite {
            callable,
            receiver,
            value,
        } => jvm::Statement::SetField {
            class: callable.owner.clone(),
            field: callable.name().to_string(),
            receiver: receiver.as_ref().map(idx),
            value: value.index(),
        },
        Statement::ArrayNew { component, length } => jvm::Statement::NewArray {
            component: component.erased_name(),
            length: *length,
        },
        Statement::ArrayStore {
            array,
            index,
            value,
        } => jvm::Statement::SetElement {
            array: array.index(),
            index: *index,
            value: value.index(),
        },
        Statement::ConsoleInput { text } => jvm::Statement::ConsoleInput { text: text.clone() },
        Statement::SystemProperty { key, value } => jvm::Statement::SystemProperty {
            key: key.clone(),
            value: value.clone(),
        },
        Statement::InputFile { name, content, ty } => jvm::Statement::InputFile {
            name: name.clone(),
            content: content.clone(),
            type_name: ty.erased_name(),
        },
    }
}

fn literal(v: &PrimitiveValue) -> Literal {
    match v {
        PrimitiveValue::Boolean(b) => Literal::Boolean(*b),
        PrimitiveValue::Byte(b) => Literal::Byte(*b),
        PrimitiveValue::Short(s) => Literal::Short(*s),
        PrimitiveValue::Char(c) => Literal::Char(*c),
        PrimitiveValue::Int(i) => Literal::Int(*i),
        PrimitiveValue::Long(l) => Literal::Long(*l),
        PrimitiveValue::Float(f) => Literal::Float(*f),
        PrimitiveValue::Double(d) => Literal::Double(*d),
        PrimitiveValue::String(s) => Literal::String(s.clone()),
    }
}

/// The numbers, characters and strings a test's statements and observed getters produced, for
/// [`Cluster::add_observed`]. Booleans and truncated strings are left out, and so is text that
/// is not valid Unicode: a lone surrogate is no Rust `char` and in no `String`, so a test case
/// cannot hold it as a literal.
pub fn observed_values(result: &TestResult) -> Vec<PrimitiveValue> {
    let mut out = Vec::new();
    for s in &result.statements {
        let StatementResult::Value(o) = s else {
            continue;
        };
        if let Some(v) = &o.value {
            if !o.truncated {
                let is_char =
                    matches!(o.type_name.as_deref(), Some("char" | "java.lang.Character"));
                out.extend(observed(v, is_char));
            }
        }
        for g in &o.getters {
            if let GetterOutcome::Value(v) = &g.outcome {
                out.extend(observed(v, false));
            }
        }
    }
    out
}

/// The values the code of the file registered as `file` (the class under test's) compared its
/// data with during `test` (the trace's dynamic seeds), for [`Cluster::add_compared`]: other
/// instrumented files (a job's `also_instrument`) must not change the search; text that is not valid Unicode is left out as above,
/// and so is a value the test itself holds as a literal: an input compared with something is
/// one side of every comparison it reaches, and pooling it would only push the other sides,
/// the values worth drawing, out of the bounded pool. (EvoSuite pools both sides.)
pub fn compared_values(test: &TestCase, result: &TestResult, file: &str) -> Vec<PrimitiveValue> {
    let inputs: Vec<&PrimitiveValue> = test
        .statements()
        .iter()
        .filter_map(|s| match s {
            Statement::Primitive(v) => Some(v),
            _ => None,
        })
        .collect();
    let is_input = |v: &PrimitiveValue| {
        inputs.iter().any(|i| match (i, v) {
            (PrimitiveValue::String(a), PrimitiveValue::String(b)) => a == b,
            (PrimitiveValue::Float(a), PrimitiveValue::Double(b)) => f64::from(*a) == *b,
            (PrimitiveValue::Double(a), PrimitiveValue::Double(b)) => a == b,
            (i, v) => i.as_integer().is_some() && i.as_integer() == v.as_integer(),
        })
    };
    result
        .trace
        .files
        .iter()
        .filter(|f| f.key == file)
        .flat_map(|f| &f.seeds)
        .filter_map(|v| observed(v, false))
        .filter(|v| !is_input(v))
        .collect()
}

fn observed(v: &ObservedValue, is_char: bool) -> Option<PrimitiveValue> {
    match v {
        ObservedValue::Bool(_) => None,
        ObservedValue::Integer(i) => Some(PrimitiveValue::Long(*i)),
        ObservedValue::Float(f) => Some(PrimitiveValue::Double(*f)),
        ObservedValue::Text(t) if is_char => t.as_str()?.chars().next().map(PrimitiveValue::Char),
        ObservedValue::Text(t) => Some(PrimitiveValue::String(t.as_str()?.to_string())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use jvm::{ExecutionTrace, GetterObservation, JavaText, Observation, TestResult, TestStatus};

    fn text(type_name: &str, text: JavaText, getters: Vec<GetterObservation>) -> StatementResult {
        StatementResult::Value(Observation {
            type_name: Some(type_name.into()),
            is_null: false,
            value: Some(ObservedValue::Text(text)),
            enum_constant: None,
            length: None,
            truncated: false,
            getters,
        })
    }

    #[test]
    fn text_that_is_not_unicode_stays_out_of_the_pool() {
        let lone = |units: &[u16]| JavaText::from_utf16(units.to_vec());
        let getter = |value: JavaText| GetterObservation {
            name: "getName".into(),
            outcome: GetterOutcome::Value(ObservedValue::Text(value)),
        };
        let result = TestResult {
            status: TestStatus::Ok,
            failed_at: None,
            statements: vec![
                text("char", lone(&[0xd83d]), Vec::new()),
                text("char", "é".into(), Vec::new()),
                text("java.lang.String", lone(&[0x61, 0xde00]), Vec::new()),
                text(
                    "java.lang.String",
                    "a😀".into(),
                    vec![getter(lone(&[0xd83d])), getter("b".into())],
                ),
            ],
            exception: None,
            message: None,
            exit_status: None,
            exit_attempted: None,
            trace: ExecutionTrace::default(),
            stdout: String::new(),
            stderr: String::new(),
            output_truncated: false,
            duration: std::time::Duration::ZERO,
            leaked_threads: 0,
            processes_killed: 0,
            fresh_loader: true,
            loader_dropped: None,
            environment: Vec::new(),
        };
        assert_eq!(
            observed_values(&result),
            [
                PrimitiveValue::Char('é'),
                PrimitiveValue::String("a😀".into()),
                PrimitiveValue::String("b".into()),
            ]
        );
    }
}
