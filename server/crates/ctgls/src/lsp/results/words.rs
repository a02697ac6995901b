//! Results in English: outcome labels, conditions as written, how close the search got, and
//! member and class names as people read them. Statements (a test's calls and inputs) are said
//! by `testcase::describe_calls`, next to the test-case model.

use javamodel::{ComparisonOp, ConditionShape, Decision, Outcome};

use super::{ClassResults, ExceptionResult, Origin, OutcomeResult};

/// The condition as written, whitespace collapsed, at most 80 characters.
pub(super) fn condition_text(text: &str, decision: &Decision) -> String {
    let raw = text
        .get(decision.span.start_byte..decision.span.end_byte)
        .unwrap_or("");
    let collapsed = raw.split_whitespace().collect::<Vec<_>>().join(" ");
    if collapsed.chars().count() > 80 {
        let cut: String = collapsed.chars().take(77).collect();
        format!("{cut}...")
    } else {
        collapsed
    }
}

/// "How close did the search get" for an uncovered outcome of an integral comparison with
/// one literal side, worked back from the probe's branch distance (Fraser and Arcuri, "Whole Test Suites" III-C with
/// `K = 1`, as `ctgls.rt.Probe` computes it: `d = left - right`). For other shapes the
/// distance itself.
pub(super) fn closest_in_words(
    text: &str,
    decision: &Decision,
    outcome: Outcome,
    distance: f64,
) -> Option<String> {
    let wants_true = match outcome {
        Outcome::True => true,
        Outcome::False => false,
        _ => return None,
    };
    if let ConditionShape::Comparison { op, left, right } = &decision.shape {
        let source =
            |span: &javamodel::Span| text.get(span.start_byte..span.end_byte).unwrap_or("");
        let literal = |o: &javamodel::Operand| {
            if o.node_kind == "decimal_integer_literal" {
                source(&o.span)
                    .trim_end_matches(['l', 'L'])
                    .replace('_', "")
                    .parse::<i64>()
                    .ok()
            } else {
                None
            }
        };
        let exact = distance.fract() == 0.0 && distance.abs() < 1e15;
        if exact {
            let dist = distance as i64;
            // The value of d = left - right at the closest execution.
            let d = match (op, wants_true) {
                (ComparisonOp::Gt, true) | (ComparisonOp::Le, false) => Some(1 - dist),
                (ComparisonOp::Gt, false) | (ComparisonOp::Le, true) => Some(dist),
                (ComparisonOp::Lt, true) | (ComparisonOp::Ge, false) => Some(dist - 1),
                (ComparisonOp::Lt, false) | (ComparisonOp::Ge, true) => Some(-dist),
                (ComparisonOp::Ne, true) | (ComparisonOp::Eq, false) => Some(0),
                // |d| only: the sign is unknown.
                (ComparisonOp::Eq, true) | (ComparisonOp::Ne, false) => None,
            };
            let needed = if wants_true { *op } else { negate(*op) };
            match (literal(left), literal(right), d) {
                (None, Some(r), Some(d)) => {
                    return Some(format!(
                        "{} == {} (needs {} {r})",
                        source(&left.span),
                        r + d,
                        needed.as_str()
                    ))
                }
                (Some(l), None, Some(d)) => {
                    return Some(format!(
                        "{} == {} (needs {} {l})",
                        source(&right.span),
                        l - d,
                        flip(needed).as_str()
                    ))
                }
                (None, Some(r), None) => {
                    return Some(format!(
                        "{} was {dist} away from {r} (needs {} {r})",
                        source(&left.span),
                        needed.as_str()
                    ))
                }
                _ => {}
            }
        }
        return Some(format!("branch distance {}", trim_float(distance)));
    }
    Some(format!("branch distance {}", trim_float(distance)))
}

fn trim_float(value: f64) -> String {
    if value.fract() == 0.0 && value.abs() < 1e15 {
        format!("{}", value as i64)
    } else {
        format!("{value:.3}")
    }
}

fn negate(op: ComparisonOp) -> ComparisonOp {
    match op {
        ComparisonOp::Lt => ComparisonOp::Ge,
        ComparisonOp::Le => ComparisonOp::Gt,
        ComparisonOp::Gt => ComparisonOp::Le,
        ComparisonOp::Ge => ComparisonOp::Lt,
        ComparisonOp::Eq => ComparisonOp::Ne,
        ComparisonOp::Ne => ComparisonOp::Eq,
    }
}

/// `l op x` as `x op' l`.
fn flip(op: ComparisonOp) -> ComparisonOp {
    match op {
        ComparisonOp::Lt => ComparisonOp::Gt,
        ComparisonOp::Le => ComparisonOp::Ge,
        ComparisonOp::Gt => ComparisonOp::Lt,
        ComparisonOp::Ge => ComparisonOp::Le,
        other => other,
    }
}

pub fn simple_name(binary: &str) -> &str {
    let base = binary.split('<').next().unwrap_or(binary);
    base.rsplit(['.', '$']).next().unwrap_or(base)
}

/// A member key's display form: `interest(int)`, `Account(String,long)` for constructors.
pub fn member_display(key: &str) -> String {
    let Some((class, signature)) = key.split_once('#') else {
        return key.to_string();
    };
    match signature.strip_prefix("<init>") {
        Some(params) => format!("{}{params}", simple_name(class)),
        None => signature.to_string(),
    }
}

/// "true branch not covered; closest: amount == 99 (needs > 100)".
pub fn uncovered_message(
    results: &ClassResults,
    kind: javamodel::DecisionKind,
    outcome: &OutcomeResult,
) -> String {
    use javamodel::DecisionKind as K;
    let what = match (kind, outcome.label.as_str()) {
        (K::MethodEntry, _) => "never called".to_string(),
        (K::Catch, _) => "catch block never entered".to_string(),
        (K::ForEach, "true") => "loop body never ran".to_string(),
        (K::ForEach, "false") => "loop never finished".to_string(),
        (_, "true" | "false") => format!("{} branch not covered", outcome.label),
        (_, label) => format!("{label} not covered"),
    };
    match results.origin {
        Origin::Interim => format!("{what} yet (search running)"),
        Origin::Stored => format!("{what} (last session)"),
        Origin::Final => match (&outcome.closest, outcome.reached) {
            (Some(closest), _) => format!("{what}; closest: {closest}"),
            (None, false) if kind != K::MethodEntry => format!("{what} (never reached)"),
            (None, _) => what,
        },
    }
}

/// "ArithmeticException (/ by zero) escapes interest(int) when ratePerUnit = 0".
pub fn exception_message(exception: &ExceptionResult) -> String {
    let mut message = simple_name(&exception.type_name).to_string();
    if let Some(text) = exception.message.as_deref().filter(|m| !m.is_empty()) {
        message.push_str(&format!(" ({text})"));
    }
    message.push_str(&format!(
        " escapes {} without being declared",
        member_display(&exception.called)
    ));
    if !exception.inputs.is_empty() {
        message.push_str(&format!(" when {}", exception.inputs));
    }
    message
}

#[cfg(test)]
mod tests {
    use javamodel::JavaModel;

    use super::*;

    fn model(text: &str) -> JavaModel {
        JavaModel::build(text, &syntax::parse_java(text, None))
    }

    fn decision(model: &JavaModel, ordinal: u32) -> &Decision {
        model
            .decisions()
            .into_iter()
            .map(|(_, _, d)| d)
            .find(|d| d.ordinal == ordinal)
            .unwrap()
    }

    #[test]
    fn closest_distance_is_told_as_the_value_the_search_reached() {
        let text = "class A { boolean f(int amount) { if (amount > 100) return true; if (5 <= amount) return true; return false; } }";
        let m = model(text);
        // `amount > 100` true needs d > 0; distance 2 means d = -1: amount == 99.
        assert_eq!(
            closest_in_words(text, decision(&m, 0), Outcome::True, 2.0).unwrap(),
            "amount == 99 (needs > 100)"
        );
        // false needs d <= 0; distance 3 means d = 3: amount == 103.
        assert_eq!(
            closest_in_words(text, decision(&m, 0), Outcome::False, 3.0).unwrap(),
            "amount == 103 (needs <= 100)"
        );
        // `5 <= amount` true needs left - right <= 0; distance 2 means d = 2: amount == 3.
        assert_eq!(
            closest_in_words(text, decision(&m, 1), Outcome::True, 2.0).unwrap(),
            "amount == 3 (needs >= 5)"
        );
    }

    #[test]
    fn other_shapes_report_the_distance() {
        let text =
            "class A { boolean f(String s) { if (s.isEmpty()) return true; return false; } }";
        let m = model(text);
        assert_eq!(
            closest_in_words(text, decision(&m, 0), Outcome::True, 1.0).unwrap(),
            "branch distance 1"
        );
    }

    #[test]
    fn member_keys_display_like_java() {
        assert_eq!(
            member_display("com.x.Account#<init>(String,long)"),
            "Account(String,long)"
        );
        assert_eq!(
            member_display("com.x.Account#interest(int)"),
            "interest(int)"
        );
    }
}
