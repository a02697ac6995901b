//! Which regression assertions a test gets, from what the worker observed (independent of how
//! they are printed and of what verification later drops; an assertion's id is its position
//! in this plan, so it stays the same when the class is printed again).
//!
//! - The value a method or field read produced: primitives and Strings (`assertEquals`, with a
//!   delta for floating point), booleans (`assertTrue`/`assertFalse`), `null`, enum constants,
//!   array lengths; a non-null object nothing else asserts on gets `assertNotNull`.
//! - The state of objects after the last statement: their public getters (collection sizes
//!   included), from the state probes; without probes, right after an object's statement when
//!   nothing uses it later.
//! - A thrown exception ends the test: its class (`assertThrows` / try-fail-catch) and message.
//!
//! Strings the worker truncated are not asserted; values that changed between two runs in the
//! worker, or that print an identity hash code, are replaced by a comment saying why.

use crate::statement::{Statement, Use};
use crate::types::{JavaType, PrimitiveKind, OBJECT, STRING};

use super::facts::{MethodLookup, TypeFacts};
use super::literal::{
    char_unit_literal, delta_for, double_literal, float_literal, integer_as, long_literal,
    string_literal, text_literal,
};
use super::observation::{contains_identity_hash, GetterOutcome, Observed, Thrown, Value};
use super::printer::{AssertionId, AssertionKind};
use super::stability::Instability;
use super::ExecutedTest;

/// Getter strings this long may have been cut by the worker (which marks only statement
/// values as truncated).
const MAX_GETTER_TEXT: usize = 1000;
/// Exception messages longer than this are not asserted.
const MAX_MESSAGE: usize = 500;
/// Exceptions whose messages depend on how the code was compiled or loaded (helpful
/// NullPointerException messages name local variables when compiled with `-g`;
/// ClassCastException names class loaders).
const UNSTABLE_MESSAGES: [&str; 2] = [
    "java.lang.NullPointerException",
    "java.lang.ClassCastException",
];

/// What a failed static initialiser throws: `ExceptionInInitializerError` the first time a JVM
/// initialises the class, `NoClassDefFoundError` every time after. The worker gives each test
/// a fresh class, JUnit runs a class's tests in one JVM, so which one a test sees depends on
/// the tests before it: assert their common superclass, and no message.
const FAILED_INITIALISATION: [&str; 2] = [
    "java.lang.ExceptionInInitializerError",
    "java.lang.NoClassDefFoundError",
];

/// Whether `thrown` is what a failed static initialiser throws (see [`FAILED_INITIALISATION`]).
pub(crate) fn failed_initialisation(thrown: &Thrown) -> bool {
    FAILED_INITIALISATION.contains(&thrown.type_name.as_str())
}

pub(crate) const IDENTITY_HASH: &str = "contains an identity hash code, which differs between runs";

pub(crate) struct Plan<'a> {
    pub executed: &'a ExecutedTest,
    /// Statements `0..end` are printed.
    pub end: usize,
    pub throw: Option<ThrowPlan<'a>>,
    /// What is printed right after each printed statement.
    pub after: Vec<Vec<Item>>,
    /// What is printed after the last statement.
    pub at_end: Vec<Item>,
}

pub(crate) struct ThrowPlan<'a> {
    pub statement: usize,
    pub thrown: &'a Thrown,
    /// Binary name of the class asserted: the thrown class when tests can name it.
    pub class: String,
    pub id: AssertionId,
    pub message: Option<Item>,
}

pub(crate) enum Item {
    Assert(Assertion),
    /// A value that is deliberately not asserted, and why (a sentence fragment).
    Note {
        subject: Subject,
        why: &'static str,
    },
}

pub(crate) struct Assertion {
    pub id: AssertionId,
    pub kind: AssertionKind,
    pub subject: Subject,
    pub check: Check,
}

#[derive(Clone)]
pub(crate) enum Subject {
    /// The value of statement `i`.
    Value(usize),
    /// The length of the array statement `i` produced.
    Length(usize),
    /// A getter called on the object statement `var` produced.
    Getter {
        var: usize,
        name: String,
        wrap: Wrap,
    },
    /// The message of the thrown exception.
    Message,
}

#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Wrap {
    None,
    /// `String.valueOf(x)`: compares a one-character result whether it is a char or a String.
    StringValueOf,
    /// `x.name()`: an enum whose class is not known.
    EnumName,
}

pub(crate) enum Check {
    Equals {
        expected: Expected,
        /// The actual value is cast to this primitive first (unboxing, or picking the
        /// `long`/`double` overload when the static type is unknown).
        cast: Option<PrimitiveKind>,
        delta: Option<String>,
    },
    True,
    False,
    Null,
    NotNull,
}

pub(crate) enum Expected {
    Literal(String),
    /// An enum constant: its class (binary name) and name.
    Constant {
        class: String,
        name: String,
    },
}

struct Ids {
    test: usize,
    next: usize,
}

impl Ids {
    fn next(&mut self) -> AssertionId {
        let id = AssertionId {
            test: self.test,
            ordinal: self.next,
        };
        self.next += 1;
        id
    }
}

pub(crate) fn plan<'a>(index: usize, executed: &'a ExecutedTest, facts: &TypeFacts) -> Plan<'a> {
    let test = &executed.test;
    let execution = &executed.execution;
    let statements = test.statements();
    let completed = execution.results.len().min(test.len());
    let throw_at = match &execution.thrown {
        Some(t) if completed < test.len() => Some((completed, t)),
        _ => None,
    };
    let end = completed + usize::from(throw_at.is_some());
    let mut ids = Ids {
        test: index,
        next: 0,
    };
    let (uses, _) = uses(statements, end);

    let mut after: Vec<Vec<Item>> = (0..end).map(|_| Vec::new()).collect();
    let mut at_end = Vec::new();
    for i in 0..completed {
        let Some(Some(observed)) = execution.results.get(i) else {
            continue;
        };
        let s = &statements[i];
        let produced = match s {
            Statement::Method { ty: Some(ty), .. } | Statement::FieldRead { ty, .. } => {
                let name = s.callable().map_or("", |c| c.name());
                let items = value_items(i, name, ty, observed, facts, &mut ids);
                let asserted = !items.is_empty();
                after[i].extend(items);
                Some((ty, asserted))
            }
            Statement::Constructor { ty, .. } => Some((ty, true)),
            _ => None,
        };
        let Some((ty, value_asserted)) = produced else {
            continue;
        };
        if observed.is_null || !is_object_type(ty) {
            continue;
        }
        // One behaviour per test: a test that ends in an exception asserts the exception.
        let mut state = Vec::new();
        if throw_at.is_none() {
            let skip = last_use_is_getter_call(statements, i, end);
            if let Some(final_state) = execution.final_state.get(&crate::VarRef(i)) {
                let mut items = state_items(i, ty, final_state, skip.as_deref(), facts, &mut ids);
                if !items.is_empty() {
                    at_end.append(&mut items);
                    continue;
                }
            } else if uses[i] == 0 {
                state = state_items(i, ty, observed, None, facts, &mut ids);
            }
        }
        if state.is_empty() && !value_asserted && uses[i] == 0 {
            state.push(Item::Assert(Assertion {
                id: ids.next(),
                kind: AssertionKind::Value,
                subject: Subject::Value(i),
                check: Check::NotNull,
            }));
        }
        after[i].append(&mut state);
    }

    let throw = throw_at.map(|(statement, thrown)| {
        let id = ids.next();
        ThrowPlan {
            statement,
            thrown,
            class: assertable_exception(thrown),
            id,
            message: message_item(thrown, &mut ids),
        }
    });
    Plan {
        executed,
        end,
        throw,
        after,
        at_end,
    }
}

/// Class types other than Strings, boxes and `Object`: what getters can describe.
fn is_object_type(ty: &JavaType) -> bool {
    matches!(ty, JavaType::Class { name, .. }
        if name != STRING && name != OBJECT && PrimitiveKind::unboxed(name).is_none())
}

/// When the last statement using variable `var` calls one of its getters, that getter's
/// value is already asserted there and its state assertion would repeat it.
fn last_use_is_getter_call(statements: &[Statement], var: usize, end: usize) -> Option<String> {
    let last = (var + 1..end)
        .rev()
        .find(|&j| statements[j].refs().iter().any(|(_, r)| r.0 == var))?;
    match &statements[last] {
        Statement::Method {
            callable,
            receiver: Some(r),
            args,
            ..
        } if r.0 == var && args.is_empty() => Some(callable.name().to_string()),
        _ => None,
    }
}

/// Assertions on the value statement `i` (a call of `member`) produced.
fn value_items(
    i: usize,
    member: &str,
    ty: &JavaType,
    observed: &Observed,
    facts: &TypeFacts,
    ids: &mut Ids,
) -> Vec<Item> {
    let assert = |check: Check, subject: Subject, ids: &mut Ids| {
        vec![Item::Assert(Assertion {
            id: ids.next(),
            kind: AssertionKind::Value,
            subject,
            check,
        })]
    };
    if let Some(Value::Text(t)) = &observed.value {
        if contains_identity_hash(&t.to_string_lossy()) {
            return vec![Item::Note {
                subject: Subject::Value(i),
                why: IDENTITY_HASH,
            }];
        }
    }
    if observed.unstable {
        return vec![Item::Note {
            subject: Subject::Value(i),
            why: Instability::classify(member, &value_text(observed.value.as_ref())).note(),
        }];
    }
    if observed.is_null {
        return assert(Check::Null, Subject::Value(i), ids);
    }
    if observed.truncated {
        return Vec::new();
    }
    let static_kind = match ty {
        JavaType::Primitive(k) => Some((*k, None)),
        JavaType::Class { name, .. } => PrimitiveKind::unboxed(name).map(|k| (k, Some(k))),
        _ => None,
    };
    let check = if let Some((kind, cast)) = static_kind {
        observed
            .value
            .as_ref()
            .and_then(|v| primitive_check(v, kind, cast))
    } else if let JavaType::Array(_) = ty {
        if let Some(n) = observed.length {
            return assert(
                equals(Expected::Literal(n.to_string()), None, None),
                Subject::Length(i),
                ids,
            );
        }
        None
    } else if let Some(constant) = &observed.enum_constant {
        observed
            .runtime_type
            .as_deref()
            .map(enum_class)
            .filter(|class| nameable_enum(class, ty, facts))
            .map(|class| {
                equals(
                    Expected::Constant {
                        class: class.to_string(),
                        name: constant.clone(),
                    },
                    None,
                    None,
                )
            })
    } else {
        observed
            .value
            .as_ref()
            .and_then(|v| boxed_check(v, observed.runtime_type.as_deref()))
    };
    match check {
        Some(check) => assert(check, Subject::Value(i), ids),
        None => Vec::new(),
    }
}

fn equals(expected: Expected, cast: Option<PrimitiveKind>, delta: Option<String>) -> Check {
    Check::Equals {
        expected,
        cast,
        delta,
    }
}

/// A value whose static type is primitive `kind` (or its box, then `cast` is set).
fn primitive_check(v: &Value, kind: PrimitiveKind, cast: Option<PrimitiveKind>) -> Option<Check> {
    let literal = |s: String| Expected::Literal(s);
    Some(match (v, kind) {
        (Value::Bool(true), PrimitiveKind::Boolean) => Check::True,
        (Value::Bool(false), PrimitiveKind::Boolean) => Check::False,
        (Value::Integer(n), _) => equals(literal(integer_as(kind, *n)?), cast, None),
        (Value::Float(f), PrimitiveKind::Float) => {
            equals(literal(float_literal(*f as f32)), cast, Some(delta_for(*f)))
        }
        (Value::Float(f), PrimitiveKind::Double) => {
            equals(literal(double_literal(*f)), cast, Some(delta_for(*f)))
        }
        (Value::Text(t), PrimitiveKind::Char) => {
            let mut units = t.code_units();
            let unit = units.next()?;
            if units.next().is_some() {
                return None;
            }
            equals(literal(char_unit_literal(unit)), cast, None)
        }
        _ => return None,
    })
}

/// A value whose static type is a reference type that is neither a primitive's box nor an
/// array (`Object`, `String`, `Number`, an interface): compared with `equals` against a literal
/// that boxes to the runtime class.
fn boxed_check(v: &Value, runtime: Option<&str>) -> Option<Check> {
    let expected = match (v, runtime) {
        (Value::Text(t), Some("java.lang.Character")) => char_unit_literal(t.code_units().next()?),
        (Value::Text(t), _) => text_literal(t),
        (Value::Bool(b), _) => b.to_string(),
        (Value::Integer(n), Some(r)) => integer_as(PrimitiveKind::unboxed(r)?, *n)?,
        (Value::Float(f), Some("java.lang.Float")) => float_literal(*f as f32),
        (Value::Float(f), Some("java.lang.Double")) => double_literal(*f),
        _ => return None,
    };
    Some(equals(Expected::Literal(expected), None, None))
}

/// Whether the test can name enum `class`, the runtime class of a value of static type `ty`:
/// the static type itself, or an enum the facts describe as nameable from the test's package.
/// A runtime class the test may not name is never written (`Comparator.naturalOrder()` is
/// `java.util.Comparators.NaturalOrderComparator.INSTANCE`, of a package-private class): the
/// value is then not asserted.
fn nameable_enum(class: &str, ty: &JavaType, facts: &TypeFacts) -> bool {
    matches!(ty, JavaType::Class { name, .. } if name == class)
        || facts.is_enum(class) == Some(true) && facts.nameable(class) != Some(false)
}

/// The enum class of a constant's runtime class: a constant with a body is an instance of an
/// anonymous subclass `E$1`.
fn enum_class(runtime: &str) -> &str {
    match runtime.rsplit_once('$') {
        Some((outer, n)) if !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()) => outer,
        _ => runtime,
    }
}

/// Assertions on the getters the worker observed on the object of statement `var`.
fn state_items(
    var: usize,
    declared: &JavaType,
    observed: &Observed,
    skip: Option<&str>,
    facts: &TypeFacts,
    ids: &mut Ids,
) -> Vec<Item> {
    let Some(class) = declared.class_name() else {
        return Vec::new();
    };
    let mut getters: Vec<_> = observed.getters.iter().collect();
    getters.sort_by(|a, b| a.name.cmp(&b.name));
    let has_size = getters.iter().any(|g| {
        (g.name == "size" || g.name == "length")
            && matches!(g.outcome, GetterOutcome::Value(Value::Integer(_)))
    });
    let mut out = Vec::new();
    for g in getters {
        if Some(g.name.as_str()) == skip || (g.name == "isEmpty" && has_size) {
            continue;
        }
        let ret = match facts.no_arg_method(class, &g.name) {
            MethodLookup::Returns(t) => Some(t),
            MethodLookup::Absent => continue,
            MethodLookup::Unknown => None,
        };
        let subject = |wrap: Wrap| Subject::Getter {
            var,
            name: g.name.clone(),
            wrap,
        };
        if let GetterOutcome::Value(Value::Text(t)) = &g.outcome {
            if contains_identity_hash(&t.to_string_lossy()) {
                out.push(Item::Note {
                    subject: subject(Wrap::None),
                    why: IDENTITY_HASH,
                });
                continue;
            }
        }
        if g.unstable {
            let values = match &g.outcome {
                GetterOutcome::Value(v) => value_text(Some(v)),
                _ => String::new(),
            };
            out.push(Item::Note {
                subject: subject(Wrap::None),
                why: Instability::classify(&g.name, &values).note(),
            });
            continue;
        }
        let item = match &g.outcome {
            GetterOutcome::Threw(_) => continue,
            GetterOutcome::Null if ret.as_ref().is_some_and(JavaType::is_primitive) => continue,
            GetterOutcome::Null => Some((subject(Wrap::None), Check::Null)),
            GetterOutcome::Enum(constant) => enum_getter(ret.as_ref(), constant, facts)
                .map(|(wrap, check)| (subject(wrap), check)),
            GetterOutcome::Value(v) => getter_value_check(&g.name, v, ret.as_ref())
                .map(|(wrap, check)| (subject(wrap), check)),
        };
        if let Some((subject, check)) = item {
            out.push(Item::Assert(Assertion {
                id: ids.next(),
                kind: AssertionKind::State,
                subject,
                check,
            }));
        }
    }
    out
}

fn enum_getter(ret: Option<&JavaType>, constant: &str, facts: &TypeFacts) -> Option<(Wrap, Check)> {
    match ret {
        Some(JavaType::Class { name, .. }) if facts.is_enum(name) == Some(true) => Some((
            Wrap::None,
            equals(
                Expected::Constant {
                    class: name.clone(),
                    name: constant.to_string(),
                },
                None,
                None,
            ),
        )),
        Some(_) => None,
        None => Some((
            Wrap::EnumName,
            equals(Expected::Literal(string_literal(constant)), None, None),
        )),
    }
}

/// A getter's value, with its return type when the class was described. Without the type,
/// integers are compared as `long` and floating point as `double` (casts that compile for every
/// primitive and box), and one-character texts through `String.valueOf` (a char or a String).
fn getter_value_check(name: &str, v: &Value, ret: Option<&JavaType>) -> Option<(Wrap, Check)> {
    let plain = |check: Check| Some((Wrap::None, check));
    let static_kind = match ret {
        Some(JavaType::Primitive(k)) => Some((*k, None)),
        Some(JavaType::Class { name, .. }) => PrimitiveKind::unboxed(name).map(|k| (k, Some(k))),
        _ => None,
    };
    if let Some((kind, cast)) = static_kind {
        return primitive_check(v, kind, cast).map(|c| (Wrap::None, c));
    }
    match (v, ret) {
        // By convention an `int` (Collection, Map, CharSequence, arrays); `assertEquals(long,
        // long)` still applies should one return a `long`.
        (Value::Integer(n), None) if matches!(name, "size" | "length") => plain(equals(
            Expected::Literal(integer_as(PrimitiveKind::Int, *n)?),
            None,
            None,
        )),
        (Value::Bool(true), None) => plain(Check::True),
        (Value::Bool(false), None) => plain(Check::False),
        (Value::Integer(n), None) => plain(equals(
            Expected::Literal(long_literal(*n)),
            Some(PrimitiveKind::Long),
            None,
        )),
        (Value::Float(f), None) => plain(equals(
            Expected::Literal(double_literal(*f)),
            Some(PrimitiveKind::Double),
            Some(delta_for(*f)),
        )),
        // The worker cuts at 1000 code units.
        (Value::Text(t), _) if t.utf16_len() >= MAX_GETTER_TEXT => None,
        (Value::Text(t), None) if t.utf16_len() == 1 => Some((
            Wrap::StringValueOf,
            equals(Expected::Literal(text_literal(t)), None, None),
        )),
        (Value::Text(t), _) => plain(equals(Expected::Literal(text_literal(t)), None, None)),
        // A reference return type that is not a box: the runtime class of the number is not
        // known, so no literal is sure to be equal.
        _ => None,
    }
}

fn message_item(thrown: &Thrown, ids: &mut Ids) -> Option<Item> {
    let exact = thrown.message.as_ref()?;
    let message = exact.to_string_lossy();
    if UNSTABLE_MESSAGES.contains(&thrown.type_name.as_str())
        || failed_initialisation(thrown)
        || message.len() > MAX_MESSAGE
    {
        return None;
    }
    if contains_identity_hash(&message) {
        return Some(Item::Note {
            subject: Subject::Message,
            why: IDENTITY_HASH,
        });
    }
    if thrown.unstable_message {
        return Some(Item::Note {
            subject: Subject::Message,
            why: Instability::classify(&thrown.type_name, &message).note(),
        });
    }
    Some(Item::Assert(Assertion {
        id: ids.next(),
        kind: AssertionKind::ExceptionMessage,
        subject: Subject::Message,
        check: equals(Expected::Literal(text_literal(exact)), None, None),
    }))
}

/// The exception class a test can name: the thrown one, unless it is anonymous or internal to
/// the JDK, then `Throwable` (which every thrown object is).
fn assertable_exception(thrown: &Thrown) -> String {
    let name = &thrown.type_name;
    let internal = ["sun.", "jdk.", "com.sun."]
        .iter()
        .any(|p| name.starts_with(p));
    let anonymous = name
        .split('$')
        .skip(1)
        .any(|part| part.starts_with(|c: char| c.is_ascii_digit()));
    if internal || anonymous {
        "java.lang.Throwable".into()
    } else if failed_initialisation(thrown) {
        "java.lang.LinkageError".into()
    } else {
        name.clone()
    }
}

fn value_text(v: Option<&Value>) -> String {
    match v {
        Some(Value::Text(t)) => t.to_string_lossy().into_owned(),
        _ => String::new(),
    }
}

/// How statement `j` is referenced by the printed statements `0..end`.
pub(crate) fn uses(statements: &[Statement], end: usize) -> (Vec<usize>, Vec<bool>) {
    let mut count = vec![0usize; end];
    let mut only_values = vec![true; end];
    for s in &statements[..end] {
        for (u, r) in s.refs() {
            count[r.0] += 1;
            if u != Use::Value {
                only_values[r.0] = false;
            }
        }
    }
    (count, only_values)
}
