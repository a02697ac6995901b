//! Control-flow graphs of member and lambda bodies: nodes, edges and what each node is control
//! dependent on. Built by `lower`, analysed by `postdom` and `control_dependence`.
//!
//! The graph is at statement and decision granularity: one node per simple statement, one per
//! decision, and a few structural nodes (loop heads, try, finally) that give jumps a target.
//! Expressions without decisions add no nodes.
//!
//! Conservative approximations (they can only make a goal depend on *more* goals, i.e. be
//! activated earlier, never lose a goal):
//! - Exceptions: a `throw` edges to every catch of each enclosing `try` (types are unknown) and
//!   on outward through `finally` blocks to the exit. Any statement of a `try` body may throw,
//!   so the `try` node itself edges to each of its catches and to its `finally`. Implicit
//!   exceptions outside a `try` are not modelled.
//! - `finally` is one copy: every way into it (normal completion, `return`, `break`,
//!   `continue`, `yield`, exceptions) joins at its entry and its exit edges to every one of
//!   those continuations. javac instead copies the block per exit.
//! - A switch guard that fails goes back to the switch node (javac restarts matching at the
//!   next label).

use crate::branches::{ControlDep, Outcome};
use crate::model::Span;

pub type NodeId = u32;

/// The entry node of every CFG.
pub const ENTRY: NodeId = 0;
/// The exit node of every CFG (normal and exceptional exit).
pub const EXIT: NodeId = 1;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cfg {
    pub origin: CfgOrigin,
    /// `nodes[ENTRY]` and `nodes[EXIT]` always exist.
    pub nodes: Vec<CfgNode>,
    /// Includes the virtual edges used for post-dominance: `ENTRY -> EXIT`, and one edge to
    /// `EXIT` from a node of each region that cannot reach the exit (infinite loops).
    pub edges: Vec<CfgEdge>,
    /// Immediate post-dominator of each node (over all edges, virtual ones included); `None`
    /// for `EXIT`.
    pub ipdom: Vec<Option<NodeId>>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CfgOrigin {
    /// The member's own body (for initializer pseudo-members: all pieces in order).
    Member,
    /// A lambda body: created when `creation_node` of CFG `parent` runs.
    Lambda {
        span: Span,
        parent: u32,
        creation_node: NodeId,
    },
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CfgNode {
    pub kind: CfgNodeKind,
    pub span: Option<Span>,
    /// Reachable from `ENTRY` over non-virtual edges.
    pub reachable: bool,
    /// The goals this node is control dependent on (see [`ControlDep`]); empty when
    /// unreachable. For a lambda body, entry dependence is replaced by the dependencies of the
    /// node that creates the lambda.
    pub control_deps: Vec<ControlDep>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CfgNodeKind {
    Entry,
    Exit,
    /// A statement without control flow of its own, or one that jumps (`return`, `break`,
    /// `throw`, ...), after its sub-expressions; also a field initializer, a resource, the
    /// value of a `case ->` arm in a switch expression, the expression body of a lambda.
    Statement,
    /// Evaluates decision with this ordinal; out-edges are labelled with its outcomes.
    Decision(u32),
    /// Where a loop's condition (or a do-while's body) starts; target of back edges.
    LoopHead,
    /// Start of a basic for's update expressions; target of `continue`.
    ForUpdate,
    /// Start of a `try`; edges into the body, to each catch and to the finally.
    Try,
    FinallyEntry,
    FinallyExit,
    /// Evaluates a lambda expression, whose body is the CFG with this index.
    Lambda(u32),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CfgEdge {
    pub from: NodeId,
    pub to: NodeId,
    pub label: EdgeLabel,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EdgeLabel {
    Flow,
    /// Leaves a decision node with this outcome: traversing it covers the goal.
    Outcome(Outcome),
    /// A possible exception into a catch or finally.
    Exception,
    /// Not an execution path; added so that post-dominators exist.
    Virtual,
}

impl Cfg {
    pub fn successors(&self, node: NodeId) -> impl Iterator<Item = &CfgEdge> + '_ {
        self.edges.iter().filter(move |e| e.from == node)
    }

    pub fn predecessors(&self, node: NodeId) -> impl Iterator<Item = &CfgEdge> + '_ {
        self.edges.iter().filter(move |e| e.to == node)
    }
}
