//! Values that change from run to run, and what they most likely depend on.
//!
//! Two places find them: the worker running every test twice ([`mark_unstable`] compares the
//! runs; values that differ are never asserted), and verification in fresh JVMs (a value the
//! worker saw twice but a plain JVM sees differently). Either way the printed test keeps a
//! comment, `// Not asserted: <expression> <note>.`, so a reader knows the value was seen and
//! why it is not checked.

use super::observation::{contains_identity_hash, Execution, Observed, Value};

/// What an unstable value most likely depends on, from the expression and its values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Instability {
    IdentityHash,
    Time,
    Randomness,
    Unknown,
}

impl Instability {
    /// From the name of the member that produced the value (or the whole expression) and the
    /// text of the values or of the failure message.
    pub fn classify(subject: &str, values: &str) -> Instability {
        let s = subject.to_ascii_lowercase();
        let has = |words: &[&str]| words.iter().any(|w| s.contains(w));
        if has(&["hashcode", "identityhash"]) || contains_identity_hash(values) {
            Instability::IdentityHash
        } else if has(&[
            "time", "nano", "milli", "now", "clock", "date", "instant", "elapsed",
        ]) {
            Instability::Time
        } else if has(&["random", "rand", "uuid", "shuffle", "seed", "dice"]) {
            Instability::Randomness
        } else {
            Instability::Unknown
        }
    }

    /// The end of the comment that replaces the assertion.
    pub fn note(self) -> &'static str {
        match self {
            Instability::IdentityHash => "differs between runs (it depends on identity hash codes)",
            Instability::Time => "differs between runs (it depends on time)",
            Instability::Randomness => "differs between runs (it depends on randomness)",
            Instability::Unknown => "differs between runs",
        }
    }
}

/// How two runs of the same test differed beyond single values.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Divergence {
    /// One run threw where the other did not, or at another statement, or another exception.
    Outcome,
}

/// Marks in `first` every value, getter and exception message that differs in `second`, a
/// second run of the same test case. A test whose outcome differs cannot be printed.
pub fn mark_unstable(first: &mut Execution, second: &Execution) -> Result<(), Divergence> {
    let same_outcome = first.results.len() == second.results.len()
        && match (&first.thrown, &second.thrown) {
            (None, None) => true,
            (Some(a), Some(b)) => a.type_name == b.type_name,
            _ => false,
        };
    if !same_outcome {
        return Err(Divergence::Outcome);
    }
    if let (Some(a), Some(b)) = (&mut first.thrown, &second.thrown) {
        a.unstable_message |= a.message != b.message;
    }
    for (a, b) in first.results.iter_mut().zip(&second.results) {
        if let (Some(a), Some(b)) = (a, b) {
            mark_observed(a, b);
        }
    }
    for (var, a) in first.final_state.iter_mut() {
        match second.final_state.get(var) {
            Some(b) => mark_observed(a, b),
            None => a.unstable = true,
        }
    }
    Ok(())
}

fn mark_observed(a: &mut Observed, b: &Observed) {
    a.unstable |= a.is_null != b.is_null
        || !same_value(a.value.as_ref(), b.value.as_ref())
        || a.enum_constant != b.enum_constant
        || a.length != b.length;
    for g in &mut a.getters {
        let other = b.getters.iter().find(|h| h.name == g.name);
        g.unstable |= other.is_none_or(|h| !same_outcome(&g.outcome, &h.outcome));
    }
}

fn same_outcome(a: &super::GetterOutcome, b: &super::GetterOutcome) -> bool {
    use super::GetterOutcome as G;
    match (a, b) {
        (G::Value(x), G::Value(y)) => same_value(Some(x), Some(y)),
        _ => a == b,
    }
}

/// Equal values; NaN equals NaN (the assertion would pass).
fn same_value(a: Option<&Value>, b: Option<&Value>) -> bool {
    match (a, b) {
        (Some(Value::Float(x)), Some(Value::Float(y))) => {
            x.to_bits() == y.to_bits() || (x.is_nan() && y.is_nan())
        }
        _ => a == b,
    }
}

#[cfg(test)]
mod tests {
    use super::super::{Getter, GetterOutcome, Thrown};
    use super::*;

    fn observed(v: Value, getters: Vec<(&str, Value)>) -> Option<Observed> {
        Some(Observed {
            value: Some(v),
            getters: getters
                .into_iter()
                .map(|(n, v)| Getter {
                    name: n.into(),
                    outcome: GetterOutcome::Value(v),
                    unstable: false,
                })
                .collect(),
            ..Observed::default()
        })
    }

    #[test]
    fn values_that_differ_between_runs_are_marked() {
        let mut a = Execution {
            results: vec![
                observed(Value::Integer(1), vec![]),
                observed(Value::Float(f64::NAN), vec![]),
                observed(
                    Value::Text("x".into()),
                    vec![("getA", Value::Integer(1)), ("getB", Value::Integer(2))],
                ),
            ],
            ..Execution::default()
        };
        let b = Execution {
            results: vec![
                observed(Value::Integer(2), vec![]),
                observed(Value::Float(f64::NAN), vec![]),
                observed(
                    Value::Text("x".into()),
                    vec![("getA", Value::Integer(1)), ("getB", Value::Integer(3))],
                ),
            ],
            ..Execution::default()
        };
        mark_unstable(&mut a, &b).unwrap();
        let flags: Vec<bool> = a
            .results
            .iter()
            .map(|r| r.as_ref().unwrap().unstable)
            .collect();
        assert_eq!(flags, vec![true, false, false]);
        let getters = &a.results[2].as_ref().unwrap().getters;
        assert!(!getters[0].unstable);
        assert!(getters[1].unstable);
    }

    #[test]
    fn a_different_outcome_is_a_divergence() {
        let thrown = |t: &str, m: &str| {
            Some(Thrown {
                type_name: t.into(),
                message: Some(m.into()),
                declared: false,
                checked: false,
                unstable_message: false,
            })
        };
        let mut a = Execution {
            thrown: thrown("java.lang.IllegalStateException", "at 1"),
            ..Execution::default()
        };
        let b = Execution {
            thrown: thrown("java.lang.IllegalStateException", "at 2"),
            ..Execution::default()
        };
        mark_unstable(&mut a, &b).unwrap();
        assert!(a.thrown.as_ref().unwrap().unstable_message);
        let c = Execution::default();
        assert_eq!(mark_unstable(&mut a, &c), Err(Divergence::Outcome));
    }

    #[test]
    fn instabilities_are_told_apart_by_expression_and_values() {
        assert_eq!(
            Instability::classify("freshHashCode", "1"),
            Instability::IdentityHash
        );
        assert_eq!(
            Instability::classify(
                "string0",
                "expected: <java.lang.Object@1b6d3586> but was: <x>"
            ),
            Instability::IdentityHash
        );
        assert_eq!(
            Instability::classify("flaky0.elapsedNanos()", ""),
            Instability::Time
        );
        assert_eq!(
            Instability::classify("randomRatio", ""),
            Instability::Randomness
        );
        assert_eq!(
            Instability::classify("getBalance", ""),
            Instability::Unknown
        );
    }
}
