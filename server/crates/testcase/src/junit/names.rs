//! Names in emitted tests: variables named after their types (`account0`, `int1`,
//! `stringArray0`) and test methods named after what they exercise
//! (`interestThrowsArithmeticExceptionWhenRatePerUnitIsZero`, `withdrawReturnsFalse`,
//! `getOwnerReturnsAlice`, `newAccount`), made unique with numeric suffixes.

use std::collections::{BTreeMap, BTreeSet};

use crate::callable::CallableKind;
use crate::statement::{Statement, TestCase, VarRef};
use crate::types::JavaType;
use crate::value::PrimitiveValue;

use super::facts::TypeFacts;
use super::observation::{Execution, Value};

/// Test names longer than this lose their condition, then their outcome.
const MAX_TEST_NAME: usize = 90;

/// The simple name of a binary class name: `a.b.Outer$Inner` → `Inner`.
pub(crate) fn simple_class_name(binary: &str) -> &str {
    let name = binary.rsplit('.').next().unwrap_or(binary);
    name.rsplit('$').next().unwrap_or(name)
}

/// `Account` → `account`, `URLParser` → `urlParser`, `IOException` → `ioException`.
pub(crate) fn lower_camel(name: &str) -> String {
    let chars: Vec<char> = name.chars().collect();
    let upper_run = chars.iter().take_while(|c| c.is_uppercase()).count();
    let lowered = match upper_run {
        0 => return name.to_string(),
        1 => 1,
        // `URLParser`: the last capital starts the next word; `URL`: all of it.
        n if n < chars.len() && chars[n].is_lowercase() => n - 1,
        n => n,
    };
    chars
        .iter()
        .enumerate()
        .map(|(i, c)| {
            if i < lowered {
                c.to_lowercase().next().unwrap_or(*c)
            } else {
                *c
            }
        })
        .collect()
}

pub(crate) fn upper_first(name: &str) -> String {
    let mut chars = name.chars();
    match chars.next() {
        Some(c) => c.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// The stem of a variable of type `ty`: `account`, `int`, `intArray`, `list`.
pub(crate) fn variable_stem(ty: &JavaType) -> String {
    match ty {
        JavaType::Primitive(k) => k.name().to_string(),
        JavaType::Class { name, .. } => {
            let simple = simple_class_name(name);
            if simple.is_empty() || simple.starts_with(|c: char| c.is_ascii_digit()) {
                // An anonymous or local class.
                "object".into()
            } else {
                lower_camel(simple)
            }
        }
        JavaType::Array(c) => format!("{}Array", variable_stem(c)),
        JavaType::Var(_) | JavaType::Wildcard(_) => "object".into(),
    }
}

/// Numbered variable names per stem: `account0`, `account1`, `int0`.
#[derive(Default)]
pub(crate) struct VariableNames {
    next: BTreeMap<String, usize>,
}

impl VariableNames {
    pub(crate) fn name(&mut self, ty: &JavaType) -> String {
        let stem = variable_stem(ty);
        let n = self.next.entry(stem.clone()).or_default();
        let name = format!("{stem}{n}");
        *n += 1;
        name
    }
}

/// Unique names for tests named `bases`: the first keeps its base, the next get 2, 3, ...
pub(crate) fn unique(bases: &[String]) -> Vec<String> {
    let mut used: BTreeSet<String> = BTreeSet::new();
    let taken: BTreeSet<&String> = bases.iter().collect();
    let mut out = Vec::with_capacity(bases.len());
    for base in bases {
        let name = if used.contains(base) {
            (2..)
                .map(|k| format!("{base}{k}"))
                .find(|n| !used.contains(n) && !taken.contains(n))
                .unwrap_or_else(|| base.clone())
        } else {
            base.clone()
        };
        used.insert(name.clone());
        out.push(name);
    }
    out
}

/// The statement a test is about: the one that threw, else the last call on the class under
/// test (or a class nested in it), else the last call.
pub(crate) fn focal_statement(
    test: &TestCase,
    execution: &Execution,
    class_under_test: &str,
) -> Option<usize> {
    let end = execution.results.len().min(test.len());
    if execution.thrown.is_some() && end < test.len() {
        return Some(end);
    }
    let calls: Vec<usize> = (0..end)
        .filter(|&i| test.statements()[i].callable().is_some())
        .collect();
    let on_cut = |i: &&usize| {
        let c = test.statements()[**i].callable().expect("a call");
        on_class(c, class_under_test)
    };
    calls.iter().rev().find(on_cut).or(calls.last()).copied()
}

/// The statement a test is named after: the focal statement, unless that is a call outside the
/// class under test that threw (`new URL(string0)` throwing `MalformedURLException`), where
/// the behaviour tested is the class's: then the last call on the class under test whose value
/// the throwing call takes (directly or through other statements), else the last call on the
/// class under test before it. A test with no such call is named after the focal statement.
pub(crate) fn named_statement(
    test: &TestCase,
    execution: &Execution,
    class_under_test: &str,
) -> Option<usize> {
    let focal = focal_statement(test, execution, class_under_test)?;
    let statements = test.statements();
    let threw = execution.thrown.is_some() && execution.results.len() < test.len();
    if !threw
        || statements[focal]
            .callable()
            .is_none_or(|c| on_class(c, class_under_test))
    {
        return Some(focal);
    }
    let on_cut = |i: usize| {
        statements[i]
            .callable()
            .is_some_and(|c| on_class(c, class_under_test))
    };
    // The statements the throwing call depends on.
    let mut needed = vec![false; focal + 1];
    needed[focal] = true;
    for i in (0..=focal).rev() {
        if needed[i] {
            for (_, r) in statements[i].refs() {
                needed[r.0] = true;
            }
        }
    }
    (0..focal)
        .rev()
        .find(|&i| needed[i] && on_cut(i))
        .or_else(|| (0..focal).rev().find(|&i| on_cut(i)))
        .or(Some(focal))
}

/// Whether `callable` is a member of the class under test or of a class nested in it.
fn on_class(callable: &crate::callable::Callable, class_under_test: &str) -> bool {
    [&callable.owner, &callable.declaring_class]
        .iter()
        .any(|o| o.as_str() == class_under_test || o.starts_with(&format!("{class_under_test}$")))
}

/// The base name of a test, before suffixes make it unique. `value_asserted` says whether the
/// focal statement's value is asserted: a name never states a value the test does not check.
pub(crate) fn test_base_name(
    test: &TestCase,
    execution: &Execution,
    class_under_test: &str,
    facts: &TypeFacts,
    value_asserted: bool,
) -> String {
    let Some(focal) = named_statement(test, execution, class_under_test) else {
        return "test".into();
    };
    let statement = &test.statements()[focal];
    let callable = statement.callable().expect("the focal statement is a call");
    let action = match &callable.kind {
        CallableKind::Constructor => {
            format!("new{}", upper_first(simple_class_name(&callable.owner)))
        }
        CallableKind::Method { name, .. } => name.clone(),
        CallableKind::FieldRead { name, .. } => format!("read{}", upper_first(name)),
        CallableKind::FieldWrite { name, .. } => format!("write{}", upper_first(name)),
    };
    let threw_after = execution.thrown.is_some() && execution.results.len() < test.len();
    let outcome = match (&execution.thrown, execution.results.get(focal)) {
        (Some(thrown), _) if threw_after => format!(
            "Throws{}",
            identifier_part(simple_class_name(&thrown.type_name))
        ),
        (_, Some(Some(observed)))
            if value_asserted && !matches!(statement, Statement::Constructor { .. }) =>
        {
            // An unstable value is not named, null included: the name would assert it (and
            // tell what the code read of the machine in the first observation).
            if observed.truncated || observed.unstable {
                String::new()
            } else if observed.is_null {
                "ReturnsNull".into()
            } else if let Some(constant) = &observed.enum_constant {
                format!("Returns{}", words(constant))
            } else {
                observed
                    .value
                    .as_ref()
                    .and_then(value_words)
                    .map(|w| format!("Returns{w}"))
                    .unwrap_or_default()
            }
        }
        _ => String::new(),
    };
    let condition = condition(test, focal, facts).unwrap_or_default();
    let mut name = lower_first(&identifier_part(&action));
    for part in [outcome, condition] {
        if name.len() + part.len() <= MAX_TEST_NAME {
            name.push_str(&part);
        }
    }
    not_an_object_method(name)
}

/// The methods of `Object` without parameters.
const OBJECT_NO_ARG_METHODS: [&str; 8] = [
    "toString",
    "hashCode",
    "getClass",
    "clone",
    "finalize",
    "notify",
    "notifyAll",
    "wait",
];

/// `name`, or `test` + `Name` when a test method `void name()` would clash with a method of
/// `Object` and not compile (`toString() in ...Test cannot override toString() in Object`).
fn not_an_object_method(name: String) -> String {
    if OBJECT_NO_ARG_METHODS.contains(&name.as_str()) {
        format!("test{}", upper_first(&name))
    } else {
        name
    }
}

fn lower_first(s: &str) -> String {
    let mut chars = s.chars();
    match chars.next() {
        Some(c) => c.to_lowercase().chain(chars).collect(),
        None => "test".into(),
    }
}

/// `When<Parameter>Is<Value>` when exactly one argument of the focal call has a notable value
/// (null, empty, negative, NaN, ...), or, when none has, exactly one is zero.
fn condition(test: &TestCase, focal: usize, facts: &TypeFacts) -> Option<String> {
    let statement = &test.statements()[focal];
    let callable = statement.callable()?;
    let args: &[VarRef] = match statement {
        Statement::Constructor { args, .. } | Statement::Method { args, .. } => args,
        Statement::FieldWrite { value, .. } => std::slice::from_ref(value),
        _ => return None,
    };
    let notable: Vec<(usize, &'static str)> = args
        .iter()
        .enumerate()
        .filter_map(|(k, a)| notable_value(test.statement(*a)).map(|w| (k, w)))
        .collect();
    // Zero is common in arguments; another notable value says more when there is one.
    let strong: Vec<(usize, &'static str)> = notable
        .iter()
        .copied()
        .filter(|(_, w)| *w != "Zero")
        .collect();
    let chosen = if strong.is_empty() { notable } else { strong };
    let [(k, word)] = chosen.as_slice() else {
        return None;
    };
    let parameter = match facts.parameter_names(callable) {
        Some(names) if names.len() == args.len() => upper_first(&identifier_part(&names[*k])),
        _ if args.len() == 1 => "Argument".into(),
        _ => format!("Argument{}", k + 1),
    };
    Some(format!("When{parameter}Is{word}"))
}

fn notable_value(s: &Statement) -> Option<&'static str> {
    match s {
        Statement::Null(_) => Some("Null"),
        Statement::Primitive(v) => match v {
            PrimitiveValue::String(s) if s.is_empty() => Some("Empty"),
            PrimitiveValue::String(s) if s.trim().is_empty() => Some("Blank"),
            PrimitiveValue::Float(f) => float_word(f64::from(*f)),
            PrimitiveValue::Double(d) => float_word(*d),
            PrimitiveValue::Int(i32::MIN) | PrimitiveValue::Long(i64::MIN) => Some("MinValue"),
            PrimitiveValue::Int(i32::MAX) | PrimitiveValue::Long(i64::MAX) => Some("MaxValue"),
            PrimitiveValue::Char(_) | PrimitiveValue::Boolean(_) | PrimitiveValue::String(_) => {
                None
            }
            _ => match v.as_integer() {
                Some(0) => Some("Zero"),
                Some(n) if n < 0 => Some("Negative"),
                _ => None,
            },
        },
        _ => None,
    }
}

fn float_word(v: f64) -> Option<&'static str> {
    if v.is_nan() {
        Some("NaN")
    } else if v.is_infinite() {
        Some("Infinite")
    } else if v == 0.0 {
        Some("Zero")
    } else if v < 0.0 {
        Some("Negative")
    } else {
        None
    }
}

/// A returned value in words, when it reads well in a name.
fn value_words(v: &Value) -> Option<String> {
    match v {
        Value::Bool(true) => Some("True".into()),
        Value::Bool(false) => Some("False".into()),
        Value::Integer(0) => Some("Zero".into()),
        Value::Integer(n) if *n == i64::from(i32::MIN) || *n == i64::MIN => Some("MinValue".into()),
        Value::Integer(n) if *n == i64::from(i32::MAX) || *n == i64::MAX => Some("MaxValue".into()),
        Value::Integer(n) if (1..=9999).contains(n) => Some(n.to_string()),
        Value::Integer(n) if (-9999..0).contains(n) => Some(format!("Minus{}", -n)),
        Value::Float(f) if f.is_nan() => Some("NaN".into()),
        Value::Float(f) if *f == f64::INFINITY => Some("Infinity".into()),
        Value::Float(f) if *f == f64::NEG_INFINITY => Some("NegativeInfinity".into()),
        Value::Float(f) if *f == 0.0 => Some("Zero".into()),
        Value::Text(t) if t.is_empty() => Some("EmptyString".into()),
        Value::Text(t) => t
            .as_str()
            .filter(|t| {
                t.chars().count() <= 20
                    && t.chars().any(|c| c.is_ascii_alphabetic())
                    && t.chars()
                        .all(|c| c.is_ascii_alphanumeric() || matches!(c, ' ' | '_' | '-'))
            })
            .map(words),
        _ => None,
    }
}

/// Words of a constant or a short text in upper camel case: `DARK_BLUE` → `DarkBlue`,
/// `hello world` → `HelloWorld`, `Alice` → `Alice`.
fn words(text: &str) -> String {
    let all_caps = !text.chars().any(|c| c.is_lowercase());
    text.split([' ', '_', '-'])
        .filter(|w| !w.is_empty())
        .map(|w| {
            let w = if all_caps {
                w.to_lowercase()
            } else {
                w.to_string()
            };
            upper_first(&w)
        })
        .collect()
}

/// Keeps the characters a Java identifier may hold.
fn identifier_part(s: &str) -> String {
    s.chars()
        .filter(|c| {
            c.is_ascii_alphanumeric() || *c == '_' || (!c.is_ascii() && c.is_alphanumeric())
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn camel_case_handles_acronyms() {
        assert_eq!(lower_camel("Account"), "account");
        assert_eq!(lower_camel("URLParser"), "urlParser");
        assert_eq!(lower_camel("IOException"), "ioException");
        assert_eq!(lower_camel("URL"), "url");
        assert_eq!(lower_camel("already"), "already");
        assert_eq!(words("DARK_BLUE"), "DarkBlue");
        assert_eq!(words("hello world"), "HelloWorld");
        assert_eq!(words("Alice"), "Alice");
    }

    #[test]
    fn stems_follow_types() {
        assert_eq!(variable_stem(&JavaType::class("a.Outer$Inner")), "inner");
        assert_eq!(variable_stem(&JavaType::class("a.Outer$1")), "object");
        assert_eq!(
            variable_stem(&JavaType::array_of(JavaType::array_of(
                JavaType::Primitive(crate::types::PrimitiveKind::Int)
            ))),
            "intArrayArray"
        );
        let mut names = VariableNames::default();
        let account = JavaType::class("bank.Account");
        assert_eq!(names.name(&account), "account0");
        assert_eq!(names.name(&JavaType::string()), "string0");
        assert_eq!(names.name(&account), "account1");
    }

    #[test]
    fn tests_are_not_named_like_methods_of_object() {
        assert_eq!(not_an_object_method("toString".into()), "testToString");
        assert_eq!(not_an_object_method("hashCode".into()), "testHashCode");
        assert_eq!(not_an_object_method("wait".into()), "testWait");
        assert_eq!(
            not_an_object_method("toStringReturnsAbc".into()),
            "toStringReturnsAbc"
        );
        assert_eq!(not_an_object_method("equals".into()), "equals");
    }

    #[test]
    fn duplicates_get_numeric_suffixes() {
        let bases: Vec<String> = ["deposit", "deposit", "withdraw", "deposit2", "deposit"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        assert_eq!(
            unique(&bases),
            vec!["deposit", "deposit3", "withdraw", "deposit2", "deposit4"]
        );
    }
}
