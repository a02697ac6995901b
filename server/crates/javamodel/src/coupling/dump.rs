//! The stable text form of a [`Coupling`], for snapshot tests and `ctgls model --callee`.
//!
//! ```text
//! coupling <caller> -> <callee> [<relation>] tests for <class>
//! covering <member key>...
//! site <line:col> in <caller member> <name>/<receiver> -> <targets> [(by arity: ...)]
//!   caller <B_R(s)>
//!   callee <B_E(s)>
//! pairs <n>
//!   (<caller branch>, <callee branch>)
//! ```

use std::fmt::Write;

use super::{Coupling, Relation};

pub fn dump_coupling(coupling: &Coupling) -> String {
    let mut out = String::new();
    let relation = match coupling.relation {
        Relation::Unrelated => "",
        Relation::CallerExtendsCallee => " [caller extends callee]",
        Relation::CalleeExtendsCaller => " [callee extends caller]",
    };
    let _ = writeln!(
        out,
        "coupling {} -> {}{relation} tests for {}",
        coupling.caller, coupling.callee, coupling.test_class
    );
    for member in &coupling.covering_methods {
        let _ = writeln!(out, "covering {member}");
    }
    for site in &coupling.sites {
        let targets = if site.targets.is_empty() {
            "(no member in the callee's source)".to_string()
        } else if site.by_arity {
            format!(
                "{} (by arity: argument types unknown)",
                site.targets.join(" | ")
            )
        } else {
            site.targets.join(" | ")
        };
        let _ = writeln!(
            out,
            "site {}:{} in {} {}/{} -> {targets}",
            site.span.start.row + 1,
            site.span.start.column + 1,
            site.caller_member,
            site.callee_name,
            site.receiver.describe(),
        );
        let join = |items: Vec<String>| {
            if items.is_empty() {
                "-".to_string()
            } else {
                items.join(" ")
            }
        };
        let _ = writeln!(
            out,
            "  caller {}",
            join(site.caller_branches.iter().map(|b| b.to_string()).collect())
        );
        let _ = writeln!(
            out,
            "  callee {}",
            join(site.callee_branches.iter().map(|b| b.to_string()).collect())
        );
    }
    let pairs = coupling.pairs();
    let _ = writeln!(out, "pairs {}", pairs.len());
    for pair in pairs {
        let _ = writeln!(out, "  {pair}");
    }
    out
}
