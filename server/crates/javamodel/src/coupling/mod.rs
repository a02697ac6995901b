//! Coupled branches between a caller class R and a callee class E (Derakhshanfar, Devroey,
//! Zaidman, van Deursen and Panichella, "Generating Class-Level Integration Tests Using Call Site
//! Information", section 3.1): the call sites in R of E's methods, per call site the caller's
//! target branches (Definition 3.1) and the callee's (Definition 3.2), their Cartesian product
//! (Definition 3.3) and its union over the call sites (Definition 3.4), and the covering methods
//! (section 3.2, step 1): the methods of the class under test that run a call site.
//!
//! Pure: it takes the two models (the same model twice when both classes share a file).
//!
//! Deviations from the paper, and why:
//! - The paper works on bytecode with a type-resolved call graph. Here call sites are found in
//!   the source by names (`call_sites`): the receiver's declared type through imports and the
//!   package, inheritance through direct `extends` only. Overloads are resolved from the
//!   argument types the source states, with JLS 15.12.2's phases in simplified form
//!   (`overloads`); where an argument's type cannot be inferred, every member of that name and
//!   arity is a possible target ([`CoupledSite::by_arity`]). Calls in local and anonymous
//!   classes of R are not R's and are left out.
//! - A call site that depends on no branch of its method (it runs whenever the method runs)
//!   has no target caller branch in Definition 3.1, so it would give no coupled branch at all;
//!   here the caller method's entry stands for it ([`CallerBranch::Entry`]), as a branch-free
//!   method's entry is a goal of branch coverage (Fraser and Arcuri, "Whole Test Suites",
//!   III-C). Without it the paper's plain case (`Person.driveToHome` calling `Car.drive`
//!   unconditionally) would be untestable through the criterion.
//! - Callee target branches are the goals of the model's decisions (`branches`): every outcome
//!   of the reachable decisions of the called method and, transitively, of the callee's methods
//!   it calls on itself (the paper's class-level CFG), plus the instance initializer's for a
//!   constructor. Besides branching nodes this counts a catch clause being entered and the
//!   entry of a branch-free method, which the model treats as goals too.
//! - Exceptions thrown between the caller branch and the call site are not modelled (the CFGs
//!   are conservative about them, see `cfg`).

mod call_sites;
mod dump;
mod overloads;

use std::collections::BTreeSet;

use crate::branches::{ControlDep, GoalKey};
use crate::cfg::CfgNodeKind;
use crate::model::{JavaModel, MemberKind, Span, TypeDecl};
use crate::DecisionKey;

pub use call_sites::{Receiver, Relation};
pub use dump::dump_coupling;

use call_sites::Scope;

/// A target branch of the caller (Definition 3.1).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum CallerBranch {
    /// An outcome of a decision the call site is control dependent on.
    Goal(GoalKey),
    /// The entry of this caller member (by key), for a call site that depends on no branch.
    /// A deviation from the paper (see the module's documentation).
    Entry(String),
}

impl std::fmt::Display for CallerBranch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CallerBranch::Goal(goal) => goal.fmt(f),
            CallerBranch::Entry(member) => write!(f, "{member}/entry"),
        }
    }
}

/// One call site of the callee in the caller with its target branches on both sides.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CoupledSite {
    /// The caller member that contains the call (its key).
    pub caller_member: String,
    /// The call (`x.m(...)`, `new E(...)`, `super(...)`).
    pub span: Span,
    /// The called method's name; `<init>` for a constructor.
    pub callee_name: String,
    pub receiver: Receiver,
    /// The keys of the callee members the call may run: the overload the argument types select,
    /// several when they cannot tell (see `by_arity`), none when the callee inherits the method
    /// from a class not in the model.
    pub targets: Vec<String>,
    /// True when some argument's type could not be inferred and the targets are every
    /// overload of that name and arity.
    pub by_arity: bool,
    /// `B_R(s)`, sorted.
    pub caller_branches: Vec<CallerBranch>,
    /// `B_E(s)`, sorted.
    pub callee_branches: Vec<GoalKey>,
}

/// A coupled branch `(b_r, b_e)`: a search objective of the CBC criterion.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct CoupledPair {
    pub caller: CallerBranch,
    pub callee: GoalKey,
}

impl std::fmt::Display for CoupledPair {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "({}, {})", self.caller, self.callee)
    }
}

/// The coupling of a caller with a callee.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Coupling {
    /// Binary names.
    pub caller: String,
    pub callee: String,
    pub relation: Relation,
    /// The class whose tests exercise the pair: the caller, except when the caller is the
    /// callee's superclass (section 3.2.5: the superclass cannot run the subclass's methods,
    /// so tests are generated for the subclass through the methods it inherits).
    pub test_class: String,
    /// Keys of the members (of the caller's source) that run a call site when called,
    /// directly or through the class's own calls (section 3.2, step 1). When the caller is the
    /// superclass, only the methods the callee inherits without redefining them.
    pub covering_methods: Vec<String>,
    pub sites: Vec<CoupledSite>,
}

impl Coupling {
    /// `CB_{R,E}` (Definition 3.4): the union of every call site's pairs, sorted, each once.
    pub fn pairs(&self) -> Vec<CoupledPair> {
        let mut set = BTreeSet::new();
        for site in &self.sites {
            for caller in &site.caller_branches {
                for callee in &site.callee_branches {
                    set.insert(CoupledPair {
                        caller: caller.clone(),
                        callee: callee.clone(),
                    });
                }
            }
        }
        set.into_iter().collect()
    }

    /// The call sites whose product contains `pair`.
    pub fn sites_of<'a>(&'a self, pair: &'a CoupledPair) -> impl Iterator<Item = &'a CoupledSite> {
        self.sites.iter().filter(move |s| {
            s.caller_branches.contains(&pair.caller) && s.callee_branches.contains(&pair.callee)
        })
    }
}

/// The coupling of type `caller` (binary name) of `caller_model` with type `callee` of
/// `callee_model`. An error says which type is missing; no call site is not an error (the
/// coupling is then empty).
pub fn couple(
    caller_model: &JavaModel,
    caller: &str,
    callee_model: &JavaModel,
    callee: &str,
) -> Result<Coupling, String> {
    fn find<'m>(model: &'m JavaModel, name: &str) -> Result<&'m TypeDecl, String> {
        let found = model.type_by_binary_name(name).or_else(|| {
            // A simple name is accepted when one type of the file has it.
            let mut all = model.all_types().into_iter().filter(|t| t.name == name);
            let first = all.next();
            first.filter(|_| all.next().is_none())
        });
        found.ok_or_else(|| {
            let names: Vec<String> = model
                .all_types()
                .iter()
                .filter(|t| !t.name.is_empty())
                .map(|t| t.binary_name.clone())
                .collect();
            format!(
                "no type {name} in its file (it declares {})",
                names.join(", ")
            )
        })
    }
    let caller_ty = find(caller_model, caller)?;
    let callee_ty = find(callee_model, callee)?;
    let caller_scope = Scope {
        model: caller_model,
        ty: caller_ty,
    };
    let callee_scope = Scope {
        model: callee_model,
        ty: callee_ty,
    };
    let extends = |scope: &Scope<'_>, other: &Scope<'_>| {
        scope.ty.kind == crate::TypeKind::Class
            && scope
                .ty
                .extends
                .first()
                .is_some_and(|e| scope.names(e, other.ty, other.model))
    };
    let relation = if extends(&caller_scope, &callee_scope) {
        Relation::CallerExtendsCallee
    } else if extends(&callee_scope, &caller_scope) {
        Relation::CalleeExtendsCaller
    } else {
        Relation::Unrelated
    };

    let caller_tree = syntax::parse_java(caller_model.text(), None);
    let callee_tree = syntax::parse_java(callee_model.text(), None);
    let found = call_sites::find(
        &caller_scope,
        caller_tree.root_node(),
        &callee_scope,
        relation,
    );

    let callee_closure = |targets: &[usize], constructor: bool| -> Vec<GoalKey> {
        let reached = closure(callee_ty, targets, |m| {
            let mut calls = call_sites::own_calls(
                callee_tree.root_node(),
                callee_model.text(),
                callee_ty,
                &callee_ty.members[m],
            );
            // Section 3.1.5: the superclass's class-level CFG leaves out the methods the
            // subclass redefines; a call to one of them runs the subclass's version.
            if relation == Relation::CallerExtendsCallee {
                calls.retain(|&c| !overloads::redefines(caller_ty, &callee_ty.members[c]));
            }
            calls
        });
        let mut members: Vec<usize> = reached.into_iter().collect();
        if constructor {
            members.extend(
                callee_ty
                    .members
                    .iter()
                    .position(|m| m.kind == MemberKind::InstanceInitializer),
            );
        }
        let mut goals = BTreeSet::new();
        for index in members {
            let member = &callee_ty.members[index];
            for decision in member.body.iter().flat_map(|b| &b.decisions) {
                if !decision.reachable {
                    continue;
                }
                for goal in decision.goals() {
                    goals.insert(GoalKey {
                        decision: DecisionKey {
                            member: member.key.clone(),
                            ordinal: goal.decision,
                        },
                        outcome: goal.outcome,
                    });
                }
            }
        }
        goals.into_iter().collect()
    };

    let mut sites = Vec::new();
    for call in &found {
        let member = &caller_ty.members[call.member];
        let targets = &call.targets.members;
        let callee_branches = callee_closure(targets, call.name == "<init>");
        sites.push(CoupledSite {
            caller_member: member.key.clone(),
            span: call.span,
            callee_name: call.name.clone(),
            receiver: call.receiver.clone(),
            targets: targets
                .iter()
                .map(|&i| callee_ty.members[i].key.clone())
                .collect(),
            by_arity: call.targets.by_arity,
            caller_branches: caller_branches(member, call.span),
            callee_branches,
        });
    }

    // Covering methods: the members containing a call site, and those of the class under test
    // that reach one through the class's own calls.
    let containing: BTreeSet<usize> = found.iter().map(|c| c.member).collect();
    let calls_of = |m: usize| {
        call_sites::own_calls(
            caller_tree.root_node(),
            caller_model.text(),
            caller_ty,
            &caller_ty.members[m],
        )
    };
    let mut covering: BTreeSet<usize> = containing.clone();
    loop {
        let before = covering.len();
        for m in 0..caller_ty.members.len() {
            if !covering.contains(&m) && calls_of(m).iter().any(|c| covering.contains(c)) {
                covering.insert(m);
            }
        }
        if covering.len() == before {
            break;
        }
    }
    // A call in a field initializer or instance block runs in every constructor.
    if covering
        .iter()
        .any(|&m| caller_ty.members[m].kind == MemberKind::InstanceInitializer)
    {
        for (i, m) in caller_ty.members.iter().enumerate() {
            if m.kind == MemberKind::Constructor {
                covering.insert(i);
            }
        }
    }
    let test_class = match relation {
        Relation::CalleeExtendsCaller => {
            // Section 3.2.5: only the inherited methods the subclass does not redefine.
            covering.retain(|&m| {
                let member = &caller_ty.members[m];
                member.kind == MemberKind::Method && !overloads::redefines(callee_ty, member)
            });
            callee_ty.binary_name.clone()
        }
        _ => caller_ty.binary_name.clone(),
    };
    let runs_initializer = covering
        .iter()
        .any(|&m| caller_ty.members[m].kind == MemberKind::InstanceInitializer);
    let mut covering_methods: Vec<String> = covering
        .into_iter()
        .filter(|&m| {
            matches!(
                caller_ty.members[m].kind,
                MemberKind::Method | MemberKind::Constructor | MemberKind::CompactConstructor
            )
        })
        .map(|m| caller_ty.members[m].key.clone())
        .collect();
    // Without a constructor in the source, javac's default one runs the initializer.
    let has_constructor = caller_ty.members.iter().any(|m| {
        matches!(
            m.kind,
            MemberKind::Constructor | MemberKind::CompactConstructor
        )
    });
    if runs_initializer && !has_constructor && test_class == caller_ty.binary_name {
        covering_methods.insert(0, format!("{}#<init>()", caller_ty.binary_name));
    }

    Ok(Coupling {
        caller: caller_ty.binary_name.clone(),
        callee: callee_ty.binary_name.clone(),
        relation,
        test_class,
        covering_methods,
        sites,
    })
}

/// The members reached from `start` along `calls`, `start` included.
fn closure(ty: &TypeDecl, start: &[usize], calls: impl Fn(usize) -> Vec<usize>) -> BTreeSet<usize> {
    let mut seen: BTreeSet<usize> = BTreeSet::new();
    let mut work: Vec<usize> = start.to_vec();
    while let Some(m) = work.pop() {
        if m >= ty.members.len() || !seen.insert(m) {
            continue;
        }
        work.extend(calls(m));
    }
    seen
}

/// Definition 3.1 for a call at `span` in `member`: the goals the CFG node evaluating the call
/// is control dependent on. Control dependence (Ferrante, Ottenstein and Warren) on an edge
/// `A -> B` means the node post-dominates `B` but not `A`, which is the definition's (i) and
/// (ii) at once. The node is the innermost one whose span holds the call.
fn caller_branches(member: &crate::Member, span: Span) -> Vec<CallerBranch> {
    let Some(body) = &member.body else {
        return Vec::new();
    };
    let mut best: Option<(usize, &crate::CfgNode)> = None;
    for cfg in &body.cfgs {
        for node in &cfg.nodes {
            let Some(node_span) = node.span else { continue };
            if matches!(node.kind, CfgNodeKind::Entry | CfgNodeKind::Exit) {
                continue;
            }
            if node_span.start_byte <= span.start_byte && span.end_byte <= node_span.end_byte {
                let size = node_span.end_byte - node_span.start_byte;
                if best.is_none_or(|(s, _)| size < s) {
                    best = Some((size, node));
                }
            }
        }
    }
    let Some((_, node)) = best else {
        return Vec::new();
    };
    let mut out: Vec<CallerBranch> = node
        .control_deps
        .iter()
        .map(|dep| match dep {
            ControlDep::Goal(goal) => CallerBranch::Goal(GoalKey {
                decision: DecisionKey {
                    member: member.key.clone(),
                    ordinal: goal.decision,
                },
                outcome: goal.outcome,
            }),
            ControlDep::Entry => CallerBranch::Entry(member.key.clone()),
        })
        .collect();
    out.sort();
    out.dedup();
    out
}
