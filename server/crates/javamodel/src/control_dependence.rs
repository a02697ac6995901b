//! Control dependence (Ferrante, Ottenstein, Warren 1987) and its translation from CFG edges to
//! goals, which is what DynaMOSA uses to activate goals.
//!
//! For every edge `A -> B` where `B` does not post-dominate `A`, the nodes on the
//! post-dominator tree path from `B` up to, but excluding, `ipdom(A)` are control dependent on
//! that edge. An edge leaving a decision node with an outcome stands for the goal
//! `(decision, outcome)`; the augmented edge out of the entry stands for "member entered". An
//! edge leaving any other node with several successors (a `try`, a `throw`, the exit of a
//! `finally`, a node given a virtual exit) stands for whatever that node is itself control
//! dependent on, transitively.

use std::collections::BTreeSet;
use std::ops::Range;

use crate::branches::{ControlDep, GoalRef, Outcome};
use crate::cfg::{Cfg, CfgEdge, CfgNodeKind, EdgeLabel, NodeId, ENTRY, EXIT};
use crate::postdom;

/// For each node, the indices of the edges it is control dependent on.
pub fn edge_dependences(
    node_count: usize,
    edges: &[(u32, u32)],
    ipdom: &[Option<u32>],
) -> Vec<Vec<usize>> {
    let mut deps: Vec<Vec<usize>> = vec![Vec::new(); node_count];
    for (index, &(a, b)) in edges.iter().enumerate() {
        let stop = ipdom[a as usize];
        if stop == Some(b) {
            continue;
        }
        let mut runner = Some(b);
        // `stop` is a proper ancestor of `b` in the post-dominator tree, or `None` when `a`
        // has no post-dominator; the walk ends at the tree root either way.
        while let Some(node) = runner {
            if Some(node) == stop {
                break;
            }
            deps[node as usize].push(index);
            runner = ipdom[node as usize];
        }
    }
    deps
}

/// A catch clause's body: the CFG nodes created while lowering it.
#[derive(Debug, Clone)]
pub(crate) struct CatchBody {
    pub catch_node: NodeId,
    pub decision: u32,
    pub nodes: Range<u32>,
}

/// Completes `cfg`: adds the virtual edges, computes post-dominators, reachability and every
/// node's goal-level control dependencies.
///
/// `entry_deps` stands for the entry edge: `[Entry]` for a member body, the dependencies of the
/// creating node for a lambda body (empty, with `entry_reachable` false, when that node is
/// unreachable).
///
/// Nodes inside a catch body that depend on everything the catch node depends on get the
/// goal "catch entered" in place of those dependencies: FOW alone never makes anything depend
/// on a single-outcome decision, but the body only runs once the catch goal is covered.
pub(crate) fn analyse(
    cfg: &mut Cfg,
    entry_deps: &[ControlDep],
    entry_reachable: bool,
    catch_bodies: &[CatchBody],
) {
    let n = cfg.nodes.len();
    cfg.edges.push(CfgEdge {
        from: ENTRY,
        to: EXIT,
        label: EdgeLabel::Virtual,
    });
    let mut succs = successor_lists(n, &cfg.edges);
    for node in postdom::escape_nodes(&succs, ENTRY, EXIT) {
        cfg.edges.push(CfgEdge {
            from: node,
            to: EXIT,
            label: EdgeLabel::Virtual,
        });
        succs[node as usize].push(EXIT);
    }
    cfg.ipdom = postdom::immediate_post_dominators(&succs, EXIT);

    let pairs: Vec<(u32, u32)> = cfg.edges.iter().map(|e| (e.from, e.to)).collect();
    let edge_deps = edge_dependences(n, &pairs, &cfg.ipdom);

    let mut reachable = vec![false; n];
    if entry_reachable {
        reachable[ENTRY as usize] = true;
        let mut real_succs: Vec<Vec<u32>> = vec![Vec::new(); n];
        for edge in cfg.edges.iter().filter(|e| e.label != EdgeLabel::Virtual) {
            real_succs[edge.from as usize].push(edge.to);
        }
        let mut stack = vec![ENTRY];
        while let Some(node) = stack.pop() {
            for &to in &real_succs[node as usize] {
                if !reachable[to as usize] {
                    reachable[to as usize] = true;
                    stack.push(to);
                }
            }
        }
    }

    let mut deps: Vec<Vec<ControlDep>> = (0..n)
        .map(|node| {
            if !reachable[node] {
                Vec::new()
            } else if node as u32 == ENTRY || node as u32 == EXIT {
                entry_deps.to_vec()
            } else {
                goal_deps(cfg, &edge_deps, &reachable, node as u32, entry_deps)
            }
        })
        .collect();

    for body in catch_bodies {
        let catch_deps: BTreeSet<ControlDep> =
            deps[body.catch_node as usize].iter().copied().collect();
        if catch_deps.is_empty() {
            continue;
        }
        let entered = ControlDep::Goal(GoalRef {
            decision: body.decision,
            outcome: Outcome::Entered,
        });
        for node in body.nodes.clone() {
            let node_deps: BTreeSet<ControlDep> = deps[node as usize].iter().copied().collect();
            if catch_deps.is_subset(&node_deps) {
                let mut refined: BTreeSet<ControlDep> =
                    node_deps.difference(&catch_deps).copied().collect();
                refined.insert(entered);
                deps[node as usize] = refined.into_iter().collect();
            }
        }
    }

    for (node, (d, r)) in cfg.nodes.iter_mut().zip(deps.into_iter().zip(reachable)) {
        node.control_deps = d;
        node.reachable = r;
    }
}

fn successor_lists(n: usize, edges: &[CfgEdge]) -> Vec<Vec<u32>> {
    let mut succs = vec![Vec::new(); n];
    for edge in edges {
        succs[edge.from as usize].push(edge.to);
    }
    succs
}

/// The goals `node` is control dependent on, looking through non-decision branch nodes.
fn goal_deps(
    cfg: &Cfg,
    edge_deps: &[Vec<usize>],
    reachable: &[bool],
    node: NodeId,
    entry_deps: &[ControlDep],
) -> Vec<ControlDep> {
    let mut out = BTreeSet::new();
    let mut visited = vec![false; cfg.nodes.len()];
    visited[node as usize] = true;
    let mut stack = vec![node];
    while let Some(current) = stack.pop() {
        for &edge_index in &edge_deps[current as usize] {
            let edge = cfg.edges[edge_index];
            if !reachable[edge.from as usize] {
                continue;
            }
            if edge.from == ENTRY {
                out.extend(entry_deps.iter().copied());
                continue;
            }
            match (cfg.nodes[edge.from as usize].kind, edge.label) {
                (CfgNodeKind::Decision(decision), EdgeLabel::Outcome(outcome)) => {
                    out.insert(ControlDep::Goal(GoalRef { decision, outcome }));
                }
                _ => {
                    if !visited[edge.from as usize] {
                        visited[edge.from as usize] = true;
                        stack.push(edge.from);
                    }
                }
            }
        }
    }
    out.into_iter().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn textbook_if_then_else() {
        // 0 entry, 1 cond, 2 then, 3 else, 4 join, 5 exit; plus augmented 0 -> 5.
        let edges = [(0, 1), (1, 2), (1, 3), (2, 4), (3, 4), (4, 5), (0, 5)];
        let mut succs = vec![Vec::new(); 6];
        for &(a, b) in &edges {
            succs[a as usize].push(b);
        }
        let ipdom = postdom::immediate_post_dominators(&succs, 5);
        let deps = edge_dependences(6, &edges, &ipdom);
        assert_eq!(deps[2], vec![1]); // then depends on edge 1 -> 2
        assert_eq!(deps[3], vec![2]); // else depends on edge 1 -> 3
        assert_eq!(deps[1], vec![0]); // the condition depends on entry
        assert_eq!(deps[4], vec![0]);
    }

    #[test]
    fn loop_condition_depends_on_itself() {
        // 0 entry, 1 head/cond, 2 body, 3 exit; 0 -> 3 augmented.
        let edges = [(0, 1), (1, 2), (2, 1), (1, 3), (0, 3)];
        let mut succs = vec![Vec::new(); 4];
        for &(a, b) in &edges {
            succs[a as usize].push(b);
        }
        let ipdom = postdom::immediate_post_dominators(&succs, 3);
        let deps = edge_dependences(4, &edges, &ipdom);
        assert_eq!(deps[1], vec![0, 1]); // entry, and its own true edge
        assert_eq!(deps[2], vec![1]);
    }
}
