//! Matching what the stored tests assert now with what the stored class asserted, and the
//! sentence that says what changed (pure).
//!
//! Assertions are matched by kind and printed subject (`account0.getBalanceCents()`): the same
//! test prints the same variables, so a subject names the same value before and after an edit,
//! while its position in the test may move (a value that is no longer asserted shifts the
//! ones after it).

use testcase::junit::{primitive_literal, AssertionKind, ExecutedTest, PrintedClass, PrintedTest};
use testcase::{Statement, TestCase};

use crate::store::{StoredAssertion, StoredMethod, StoredSuite};

/// An assertion of a stored test that no longer holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BehaviourChange {
    /// The test method's name in the stored class (`depositAddsToBalance`).
    pub method: String,
    /// The assertion as stored.
    pub assertion: StoredAssertion,
    /// The assertion's text in the stored class (its lines, joined with `\n`).
    pub stored_text: String,
    pub now: Now,
    /// The lines that assert the new behaviour in place of the stored ones, when one
    /// assertion can (not when the test now throws elsewhere or no longer throws).
    pub replacement: Option<String>,
    /// What the test does, in short: `deposit(100)`.
    pub action: String,
    /// The members of the class under test the test calls, the one it is about first.
    pub called: Vec<CalledMember>,
    /// One sentence: "deposit(100) now leaves getBalanceCents() at 101;
    /// depositAddsToBalance expected 100".
    pub message: String,
}

/// What happens now where the assertion expected something else.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Now {
    /// The same subject is asserted with another value (as printed: `101L`, `false`, the
    /// thrown class's simple name for a `Throws` assertion).
    Value(String),
    /// The test throws this exception (simple name) before the assertion.
    Throws(String),
    /// The test no longer throws the exception it expected.
    DoesNotThrow,
}

/// A member of the class under test that a test calls.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CalledMember {
    /// `<init>` for constructors.
    pub name: String,
    /// Erased parameter types (`long`, `java.lang.String`).
    pub erased_params: Vec<String>,
}

/// The changes between the stored suite's assertions and those of `printed`, the class
/// printed from `executed` (the stored tests of `methods`, run again, in that order).
pub fn compare(
    class: &str,
    suite: &StoredSuite,
    methods: &[&StoredMethod],
    executed: &[ExecutedTest],
    printed: &PrintedClass,
) -> Vec<BehaviourChange> {
    let stored_lines: Vec<&str> = suite.source.split('\n').collect();
    let new_lines: Vec<&str> = printed.source.split('\n').collect();
    let text = |lines: &[&str], first: u32, last: u32| -> String {
        let first = first.saturating_sub(1) as usize;
        let last = (last as usize).min(lines.len());
        lines
            .get(first..last)
            .map(|l| l.join("\n"))
            .unwrap_or_default()
    };
    let mut changes = Vec::new();
    for (i, method) in methods.iter().enumerate() {
        let Some(new_test) = printed.tests.iter().find(|t| t.index == i) else {
            continue;
        };
        let test = &executed[i].test;
        let thrown = executed[i]
            .execution
            .thrown
            .as_ref()
            .map(|t| simple_name(&t.type_name).to_string());
        let (action, called) = action_of(class, test);
        let mut reported_throw = false;
        for stored in &method.assertions {
            let found = find(new_test, stored);
            let (now, replacement) = match found {
                Some(new) if new.expected == stored.expected => continue,
                Some(new) => (
                    Now::Value(new.expected.clone()),
                    Some(text(&new_lines, new.first_line, new.last_line)),
                ),
                None if stored.kind == AssertionKind::Throws => (Now::DoesNotThrow, None),
                None => match &thrown {
                    // Once per test: the assertions after the throw all fail for one reason.
                    Some(_) if reported_throw => continue,
                    Some(name) => {
                        reported_throw = true;
                        (Now::Throws(name.clone()), None)
                    }
                    // The value is no longer asserted (it became unstable, say): nothing
                    // to compare it with.
                    None => continue,
                },
            };
            // A getter asserted on the state objects end in is called by the assertion, not
            // by a statement: it may be the edited member too.
            let mut called = called.clone();
            if let Some(getter) = asserted_getter(stored) {
                if !called.contains(&getter) {
                    called.push(getter);
                }
            }
            changes.push(BehaviourChange {
                method: method.name.clone(),
                message: sentence(&action, &method.name, stored, &now),
                assertion: stored.clone(),
                stored_text: text(&stored_lines, stored.first_line, stored.last_line),
                now,
                replacement,
                action: action.clone(),
                called,
            });
        }
    }
    changes
}

/// The assertion of `test` on the same subject as `stored`.
fn find<'a>(
    test: &'a PrintedTest,
    stored: &StoredAssertion,
) -> Option<&'a testcase::junit::PrintedAssertion> {
    test.assertions
        .iter()
        .find(|a| a.kind == stored.kind && a.subject == stored.subject)
}

fn sentence(action: &str, method: &str, stored: &StoredAssertion, now: &Now) -> String {
    let expected = readable(&stored.expected);
    let subject = short_subject(&stored.subject);
    match (now, stored.kind) {
        (Now::Value(new), AssertionKind::Throws) => {
            format!("{action} now throws {new}; {method} expected {expected}")
        }
        (Now::Value(new), AssertionKind::ExceptionMessage) => format!(
            "{action} now throws with the message {}; {method} expected {expected}",
            readable(new)
        ),
        (Now::Value(new), _) if subject != action && subject.ends_with(')') => format!(
            "{action} now leaves {subject} at {}; {method} expected {expected}",
            readable(new)
        ),
        (Now::Value(new), _) => format!(
            "{action} now returns {}; {method} expected {expected}",
            readable(new)
        ),
        (Now::Throws(thrown), _) => {
            format!("{action} now throws {thrown}; {method} expected {subject} to be {expected}")
        }
        (Now::DoesNotThrow, _) => {
            format!("{action} no longer throws {expected}; {method} expected it to")
        }
    }
}

/// The getter of a `State` assertion (`account0.getBalance()` → `getBalance`, no parameters).
fn asserted_getter(stored: &StoredAssertion) -> Option<CalledMember> {
    if stored.kind != AssertionKind::State {
        return None;
    }
    let call = short_subject(&stored.subject);
    let name = call.strip_suffix("()")?;
    name.chars()
        .all(|c| c.is_ascii_alphanumeric() || c == '_')
        .then(|| CalledMember {
            name: name.to_string(),
            erased_params: Vec::new(),
        })
}

/// `account0.getBalanceCents()` → `getBalanceCents()`: the variable means nothing to a reader
/// of the class.
fn short_subject(subject: &str) -> &str {
    match subject.split_once('.') {
        Some((var, rest))
            if !var.is_empty() && var.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') =>
        {
            rest
        }
        _ => subject,
    }
}

/// A printed literal as a person writes it: `100L` → `100`.
fn readable(literal: &str) -> String {
    match literal.strip_suffix('L') {
        Some(digits) if digits.parse::<i64>().is_ok() => digits.to_string(),
        _ => literal.to_string(),
    }
}

fn simple_name(binary: &str) -> &str {
    let simple = binary.rsplit('.').next().unwrap_or(binary);
    simple.rsplit('$').next().unwrap_or(simple)
}

/// What `test` does, in short (its last call of a member of `class` that is not a getter,
/// else its last call of one), and every member of `class` it calls, that one first.
fn action_of(class: &str, test: &TestCase) -> (String, Vec<CalledMember>) {
    let statements = test.statements();
    let calls: Vec<usize> = (0..statements.len())
        .filter(|&i| {
            matches!(
                &statements[i],
                Statement::Method { callable, .. } | Statement::Constructor { callable, .. }
                    if callable.owner == class || callable.declaring_class == class
            )
        })
        .collect();
    let is_getter = |i: usize| match &statements[i] {
        Statement::Method { callable, args, .. } => {
            args.is_empty()
                && (callable.name().starts_with("get") || callable.name().starts_with("is"))
        }
        _ => false,
    };
    let focal = calls
        .iter()
        .rev()
        .copied()
        .find(|&i| !is_getter(i))
        .or_else(|| calls.last().copied());
    let mut called: Vec<CalledMember> = Vec::new();
    for &i in focal.iter().chain(calls.iter().rev()) {
        let callable = statements[i].callable().expect("a call");
        let member = CalledMember {
            name: callable.name().to_string(),
            erased_params: callable.erased_params.clone(),
        };
        if !called.contains(&member) {
            called.push(member);
        }
    }
    let action = match focal {
        Some(i) => call_text(statements, i),
        None => "the test".to_string(),
    };
    (action, called)
}

/// `deposit(100)`, `new Account("a")`: arguments that are literals as literals, others as `…`.
fn call_text(statements: &[Statement], i: usize) -> String {
    let (name, args) = match &statements[i] {
        Statement::Method { callable, args, .. } => (callable.name().to_string(), args),
        Statement::Constructor { callable, args, .. } => {
            (format!("new {}", simple_name(&callable.owner)), args)
        }
        _ => return String::new(),
    };
    let args: Vec<String> = args
        .iter()
        .map(|arg| match statements.get(arg.index()) {
            Some(Statement::Primitive(value)) => readable(&primitive_literal(value)),
            Some(Statement::Null(_)) => "null".to_string(),
            Some(Statement::EnumConstant { name, .. }) => name.clone(),
            _ => "…".to_string(),
        })
        .collect();
    format!("{name}({})", args.join(", "))
}
