//! The hover on a branch of a callee: which caller paths reach it (caller class, method,
//! call-site line, the caller branch of each coupled pair) and whether an integration test of
//! this session covers each pair (Markdown, appended to the coverage hover).

use std::sync::Arc;

use javamodel::coupling::{CallerBranch, CoupledSite};
use javamodel::{Decision, DecisionKey, DecisionKind, GoalKey, JavaModel};

use super::{Coupled, IntegrationRecord};
use crate::lsp::results::words::{member_display, simple_name};

/// Call sites listed at most; the rest are counted.
const MAX_SITES: usize = 6;

/// What the hover says at byte `offset` of the callee's text (`model`), given its callers
/// (asked for only when the offset is on a branch); `None` when the offset is on no branch
/// some caller reaches.
pub fn section(
    model: &JavaModel,
    offset: usize,
    callers: impl FnOnce() -> Vec<Coupled>,
    records: impl Fn(&str, &str) -> Option<Arc<IntegrationRecord>>,
) -> Option<String> {
    let (member_key, decision) = decision_at(model, offset)?;
    let callers = callers();
    let goals: Vec<GoalKey> = decision
        .outcomes
        .iter()
        .map(|&outcome| GoalKey {
            decision: DecisionKey {
                member: member_key.to_string(),
                ordinal: decision.ordinal,
            },
            outcome,
        })
        .collect();
    let reaching: Vec<(&Coupled, &CoupledSite)> = callers
        .iter()
        .flat_map(|c| c.coupling.sites.iter().map(move |site| (c, site)))
        .filter(|(_, site)| goals.iter().any(|g| site.callee_branches.contains(g)))
        .collect();
    if reaching.is_empty() {
        return None;
    }
    let mut out = format!(
        "**ctgls** · integration: reached from {} call site{} of other classes\n",
        reaching.len(),
        if reaching.len() == 1 { "" } else { "s" }
    );
    for (coupled, site) in reaching.iter().take(MAX_SITES) {
        let caller = &coupled.caller;
        let record = records(&caller.class, &coupled.callee.class);
        let stale = record
            .as_ref()
            .is_some_and(|r| r.caller_hash != caller.hash || r.callee_hash != coupled.callee.hash);
        out.push_str(&format!(
            "- `{}.{}` line {}: `{}`{}\n",
            simple_name(&caller.class),
            member_display(&site.caller_member),
            site.span.start.row + 1,
            call_text(&caller.model, site),
            if stale {
                " (integration run before the latest edits)"
            } else {
                ""
            }
        ));
        for caller_branch in &site.caller_branches {
            let outcomes: Vec<String> = goals
                .iter()
                .filter(|goal| site.callee_branches.contains(goal))
                .map(|goal| {
                    let label = decision.outcome_label(goal.outcome);
                    let key = (caller_branch.to_string(), goal.to_string());
                    let state = match record.as_ref().map(|r| r.pairs.get(&key)) {
                        Some(Some(Some(test))) => format!("✓ covered by `{test}`"),
                        Some(Some(None)) => "✗ not covered by the integration run".to_string(),
                        _ => "not yet tested".to_string(),
                    };
                    format!("**{label}** {state}")
                })
                .collect();
            out.push_str(&format!(
                "  - {}: {}\n",
                caller_branch_words(&caller.model, caller_branch),
                outcomes.join(" · ")
            ));
        }
    }
    if reaching.len() > MAX_SITES {
        out.push_str(&format!(
            "- … and {} more call sites\n",
            reaching.len() - MAX_SITES
        ));
    }
    out.push_str("\n_Generate integration tests through a caller: code action on the class._\n");
    Some(out)
}

/// The innermost decision at `offset` (a branch-free method's entry on its name), with its
/// member's key.
fn decision_at(model: &JavaModel, offset: usize) -> Option<(&str, &Decision)> {
    let member = crate::lsp::results::innermost_member_at(model, offset)?;
    let body = member.body.as_ref()?;
    let on_name = member
        .name_span
        .as_ref()
        .is_some_and(|s| s.contains_byte(offset));
    let decision = body
        .decisions
        .iter()
        .filter(|d| {
            if d.kind == DecisionKind::MethodEntry {
                on_name
            } else {
                d.span.contains_byte(offset)
            }
        })
        .min_by_key(|d| d.span.end_byte - d.span.start_byte)?;
    Some((member.key.as_str(), decision))
}

/// The call as written, on one line and shortened.
fn call_text(model: &JavaModel, site: &CoupledSite) -> String {
    let text = model
        .text()
        .get(site.span.start_byte..site.span.end_byte)
        .unwrap_or("");
    shorten(&text.split_whitespace().collect::<Vec<_>>().join(" "))
}

/// `when `source == null` is false`, or `whenever it runs` for a call site that depends on
/// no branch of its method.
fn caller_branch_words(model: &JavaModel, branch: &CallerBranch) -> String {
    let CallerBranch::Goal(goal) = branch else {
        return "whenever it runs".to_string();
    };
    let decision = model
        .member_by_key(&goal.decision.member)
        .and_then(|(_, member)| member.body.as_ref())
        .and_then(|body| body.decisions.get(goal.decision.ordinal as usize));
    match decision {
        Some(decision) => {
            let condition = model
                .text()
                .get(decision.span.start_byte..decision.span.end_byte)
                .unwrap_or("");
            format!(
                "when `{}` takes its {} branch (line {})",
                shorten(&condition.split_whitespace().collect::<Vec<_>>().join(" ")),
                decision.outcome_label(goal.outcome),
                decision.span.start.row + 1
            )
        }
        None => format!("through `{goal}`"),
    }
}

fn shorten(text: &str) -> String {
    const MAX: usize = 60;
    match text.char_indices().nth(MAX) {
        Some((end, _)) => format!("{}…", &text[..end]),
        None => text.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;
    use crate::lsp::integration::fixture::{coupled, ACCOUNT};

    #[test]
    fn a_callee_branch_lists_its_caller_path_then_what_a_run_covered() {
        let coupled = coupled();
        let model = coupled.callee.model.clone();
        let offset = ACCOUNT.find("amount > balance").unwrap() + 2;
        let callers = vec![coupled.clone()];
        let before = section(&model, offset, || callers.clone(), |_, _| None).unwrap();
        assert!(
            before.contains("reached from 1 call site of other classes"),
            "{before}"
        );
        assert!(
            before.contains("- `Bank.pay(long)` line 10: `account.withdraw(amount)`"),
            "{before}"
        );
        assert!(
            before.contains(
                "when `amount <= 0` takes its false branch (line 7): **true** not yet tested · **false** not yet tested"
            ),
            "{before}"
        );

        let site = coupled
            .coupling
            .sites
            .iter()
            .find(|s| s.callee_name == "withdraw");
        let caller_branch = site.unwrap().caller_branches[0].to_string();
        let mut pairs = BTreeMap::new();
        pairs.insert(
            (
                caller_branch.clone(),
                "p.Account#withdraw(long)/B0.T".to_string(),
            ),
            Some("payReturnsFalse".to_string()),
        );
        pairs.insert(
            (caller_branch, "p.Account#withdraw(long)/B0.F".to_string()),
            None,
        );
        let record = IntegrationRecord {
            caller: "p.Bank".into(),
            callee: "p.Account".into(),
            pairs,
            caller_hash: coupled.caller.hash.clone(),
            callee_hash: coupled.callee.hash.clone(),
            written: None,
        };
        let record = Arc::new(record);
        let records = |caller: &str, callee: &str| {
            ((caller, callee) == ("p.Bank", "p.Account")).then(|| record.clone())
        };
        let after = section(&model, offset, || callers.clone(), records).unwrap();
        assert!(
            after.contains(
                "**true** ✓ covered by `payReturnsFalse` · **false** ✗ not covered by the integration run"
            ),
            "{after}"
        );
        assert!(!after.contains("before the latest edits"), "{after}");

        // Outside any branch a caller reaches: nothing.
        let field = ACCOUNT.find("balance;").unwrap();
        assert!(section(&model, field, || callers.clone(), records).is_none());
    }
}
