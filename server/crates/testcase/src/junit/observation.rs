//! What the worker observed about a run of a test case, in the printer's terms, and the state
//! probes that let it observe objects after the last statement.
//!
//! The worker observes a statement's value right after the statement ran. An object that later
//! statements change (a receiver) is therefore observed in a stale state. To assert the state
//! objects end in, [`with_state_probes`] appends one call per object variable that hands the
//! object back unchanged (`java.util.Objects.requireNonNullElse(v, "")`): the worker observes
//! its result, getters included, after every statement of the test. The probes are never
//! printed.

use std::collections::BTreeMap;
use std::sync::Arc;

use javatext::JavaText;

use crate::callable::{Callable, CallableKind};
use crate::statement::{Statement, TestCase, VarRef};
use crate::types::{JavaType, PrimitiveKind, TypeParameter, OBJECT, STRING};
use crate::value::PrimitiveValue;

/// A simple value: a primitive, a String or a char.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    Bool(bool),
    /// byte, short, int, long and their boxes.
    Integer(i64),
    /// float, double and their boxes; also NaN and the infinities.
    Float(f64),
    /// Strings and chars (a char as a one-unit text), exactly: Java text need not be valid
    /// Unicode.
    Text(JavaText),
}

/// What was observed about one value.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Observed {
    /// The primitive name for primitive values, else the runtime class (binary name).
    pub runtime_type: Option<String>,
    pub is_null: bool,
    pub value: Option<Value>,
    pub enum_constant: Option<String>,
    /// The length of an array.
    pub length: Option<u64>,
    /// The String was cut by the worker; such values are never asserted.
    pub truncated: bool,
    /// Public no-arg getters, sorted by name.
    pub getters: Vec<Getter>,
    /// The value differed in another run of the same test ([`super::mark_unstable`]).
    pub unstable: bool,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Getter {
    pub name: String,
    pub outcome: GetterOutcome,
    /// The outcome differed in another run of the same test.
    pub unstable: bool,
}

#[derive(Debug, Clone, PartialEq)]
pub enum GetterOutcome {
    Value(Value),
    Enum(String),
    Null,
    /// The getter threw an exception of this class.
    Threw(String),
}

/// The exception that ended a test.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Thrown {
    /// Binary name of the exception's class.
    pub type_name: String,
    pub message: Option<JavaText>,
    /// The called constructor or method lists it (or a supertype) in its `throws` clause.
    pub declared: bool,
    pub checked: bool,
    /// The message differed in another run of the same test.
    pub unstable_message: bool,
}

/// One run of a test case as the printer needs it.
///
/// Invariant: `results` holds one entry per statement that completed, in order (`None` for a
/// statement that defines no value); when `thrown` is set, statement `results.len()` threw it.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Execution {
    pub results: Vec<Option<Observed>>,
    pub thrown: Option<Thrown>,
    /// Objects observed after the last statement, by the variable that holds them (from
    /// [`with_state_probes`]); empty when the test threw or was run without probes.
    pub final_state: BTreeMap<VarRef, Observed>,
}

/// A test case with state probes appended, and where each probe's result lands.
#[derive(Debug, Clone)]
pub struct StateProbes {
    test: TestCase,
    original_len: usize,
    /// (variable of the original test, index of its probe statement).
    probes: Vec<(VarRef, usize)>,
}

/// `test` followed by one probe per object variable whose state the printer may assert.
/// Without such variables the test is returned unchanged.
pub fn with_state_probes(test: &TestCase) -> StateProbes {
    let vars: Vec<VarRef> = test
        .statements()
        .iter()
        .enumerate()
        .filter(|(_, s)| has_observable_state(s))
        .map(|(i, _)| VarRef(i))
        .collect();
    let mut statements = test.statements().to_vec();
    let original_len = statements.len();
    let mut probes = Vec::new();
    if !vars.is_empty() {
        statements.push(Statement::Primitive(PrimitiveValue::String(String::new())));
        let fallback = VarRef(original_len);
        let callable = Arc::new(identity_callable());
        for var in vars {
            probes.push((var, statements.len()));
            statements.push(Statement::Method {
                callable: callable.clone(),
                receiver: None,
                type_args: vec![JavaType::object()],
                args: vec![var, fallback],
                ty: Some(JavaType::object()),
            });
        }
    }
    StateProbes {
        test: TestCase::from_statements(statements),
        original_len,
        probes,
    }
}

impl StateProbes {
    /// The test case to execute (with the worker observing getters).
    pub fn test(&self) -> &TestCase {
        &self.test
    }

    /// The number of statements of the original test case.
    pub fn original_len(&self) -> usize {
        self.original_len
    }

    /// The execution of the original test from the results of running [`StateProbes::test`]:
    /// probe results become [`Execution::final_state`] (for variables that were not null),
    /// and a throw inside the probes, which no printed statement makes, is forgotten.
    pub fn execution(
        &self,
        mut results: Vec<Option<Observed>>,
        thrown: Option<Thrown>,
    ) -> Execution {
        if results.len() < self.original_len {
            return Execution {
                results,
                thrown,
                final_state: BTreeMap::new(),
            };
        }
        let probe_results = results.split_off(self.original_len);
        let mut final_state = BTreeMap::new();
        for (var, probe) in &self.probes {
            let was_null = results[var.0].as_ref().is_none_or(|o| o.is_null);
            if was_null {
                continue;
            }
            if let Some(Some(observed)) = probe_results.get(probe - self.original_len) {
                final_state.insert(*var, observed.clone());
            }
        }
        Execution {
            results,
            thrown: None,
            final_state,
        }
    }
}

/// Statements whose value is an object that getters can describe: new objects and object
/// results, but not Strings, boxes, arrays or plain `Object`s (which have no getters to call).
fn has_observable_state(s: &Statement) -> bool {
    let ty = match s {
        Statement::Constructor { ty, .. } | Statement::FieldRead { ty, .. } => ty,
        Statement::Method { ty: Some(ty), .. } => ty,
        _ => return false,
    };
    match ty {
        JavaType::Class { name, .. } => {
            name != STRING && name != OBJECT && PrimitiveKind::unboxed(name).is_none()
        }
        _ => false,
    }
}

/// `static <T> T java.util.Objects.requireNonNullElse(T obj, T defaultObj)` (Java 9+): returns
/// its first argument unchanged when it is not null, and never throws for a non-null default.
fn identity_callable() -> Callable {
    let t = JavaType::Var("T".into());
    Callable {
        owner: "java.util.Objects".into(),
        declaring_class: "java.util.Objects".into(),
        kind: CallableKind::Method {
            name: "requireNonNullElse".into(),
            is_static: true,
        },
        erased_params: vec![OBJECT.into(), OBJECT.into()],
        params: vec![t.clone(), t.clone()],
        returns: Some(t),
        erased_return: Some(JavaType::object()),
        type_params: vec![TypeParameter {
            name: "T".into(),
            bounds: Vec::new(),
        }],
        exceptions: Vec::new(),
        varargs: false,
    }
}

/// Whether `text` contains what `Object.toString()` prints for an object: a class name, `@`,
/// and its identity hash code in hex; or how the JDK names an unnamed class loader in messages
/// (`loader com.acme.Loader @4c45e493`, e.g. in a `ClassCastException`'s, where the worker's
/// loader differs from JUnit's anyway). Such values change from run to run.
pub fn contains_identity_hash(text: &str) -> bool {
    let bytes = text.as_bytes();
    let class_char = |b: u8| b.is_ascii_alphanumeric() || b == b'$' || b == b'_';
    for (at, _) in text.match_indices('@') {
        let before = at.checked_sub(1).map(|i| bytes[i]);
        let loader = before == Some(b' ')
            && at >= 2
            && class_char(bytes[at - 2])
            && text[..at].contains("loader ");
        let names_a_class = loader || before.is_some_and(|b| class_char(b) || b == b']');
        if !names_a_class {
            continue;
        }
        let hex = bytes[at + 1..]
            .iter()
            .take_while(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(b))
            .count();
        let after = bytes.get(at + 1 + hex);
        let ends = after.is_none_or(|b| !b.is_ascii_alphanumeric());
        if (5..=8).contains(&hex) && ends {
            return true;
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identity_hashes_are_recognised() {
        assert!(contains_identity_hash("java.lang.Object@1b6d3586"));
        assert!(contains_identity_hash("[Account@7a81197d, x]"));
        assert!(contains_identity_hash("[I@4e25154f"));
        assert!(!contains_identity_hash("alice@example.com"));
        assert!(!contains_identity_hash("@1b6d3586"));
        assert!(!contains_identity_hash("price@12"));
        assert!(!contains_identity_hash("a@1b6d3586ff"));
        assert!(contains_identity_hash(
            "class a.B cannot be cast to class [B (a.B is in unnamed module of loader \
             ctgls.worker.Unit$TestLoader @4c45e493; [B is in module java.base of loader 'bootstrap')"
        ));
        assert!(!contains_identity_hash("mail me @ home @1b6d3586"));
    }
}
