//! Post-dominators: Cooper–Harvey–Kennedy's iterative dominator algorithm ("A Simple, Fast
//! Dominance Algorithm", 2001) run on the reversed graph from the exit, and the virtual exit
//! edges that give every node a path to the exit first.
//!
//! Graphs here are plain successor lists over node indices `0..n`, so the functions can be
//! tested on textbook graphs.

/// Nodes from which a virtual edge to `exit` makes every node able to reach `exit`.
///
/// Without them, nodes of an infinite loop (`while (true) { ... }` with no `break`) would have
/// no post-dominator. One node per such region is chosen: the first in a depth-first preorder
/// from `entry` (for a loop that is its head), then, for regions unreachable from `entry`, the
/// lowest index.
pub fn escape_nodes(succs: &[Vec<u32>], entry: u32, exit: u32) -> Vec<u32> {
    let n = succs.len();
    let mut preds: Vec<Vec<u32>> = vec![Vec::new(); n];
    for (from, list) in succs.iter().enumerate() {
        for &to in list {
            preds[to as usize].push(from as u32);
        }
    }
    let mut reaches_exit = vec![false; n];
    mark_backwards(&preds, exit, &mut reaches_exit);

    let mut order = preorder(succs, entry);
    order.extend(0..n as u32);
    let mut escapes = Vec::new();
    for node in order {
        if !reaches_exit[node as usize] {
            escapes.push(node);
            mark_backwards(&preds, node, &mut reaches_exit);
        }
    }
    escapes
}

fn mark_backwards(preds: &[Vec<u32>], from: u32, marked: &mut [bool]) {
    if marked[from as usize] {
        return;
    }
    marked[from as usize] = true;
    let mut stack = vec![from];
    while let Some(node) = stack.pop() {
        for &p in &preds[node as usize] {
            if !marked[p as usize] {
                marked[p as usize] = true;
                stack.push(p);
            }
        }
    }
}

fn preorder(succs: &[Vec<u32>], entry: u32) -> Vec<u32> {
    let mut seen = vec![false; succs.len()];
    let mut order = Vec::new();
    let mut stack = vec![entry];
    while let Some(node) = stack.pop() {
        if std::mem::replace(&mut seen[node as usize], true) {
            continue;
        }
        order.push(node);
        for &s in succs[node as usize].iter().rev() {
            if !seen[s as usize] {
                stack.push(s);
            }
        }
    }
    order
}

/// The immediate post-dominator of every node: `None` for `exit` and for nodes that cannot
/// reach `exit`.
pub fn immediate_post_dominators(succs: &[Vec<u32>], exit: u32) -> Vec<Option<u32>> {
    let n = succs.len();
    // On the reversed graph, a node's predecessors are its successors in `succs`, and the
    // DFS from the exit follows the original predecessors.
    let mut preds: Vec<Vec<u32>> = vec![Vec::new(); n];
    for (from, list) in succs.iter().enumerate() {
        for &to in list {
            preds[to as usize].push(from as u32);
        }
    }
    // Postorder of the reversed graph from the exit (iterative DFS).
    const UNVISITED: u32 = u32::MAX;
    let mut postorder_number = vec![UNVISITED; n];
    let mut postorder: Vec<u32> = Vec::with_capacity(n);
    let mut visited = vec![false; n];
    let mut stack: Vec<(u32, usize)> = vec![(exit, 0)];
    visited[exit as usize] = true;
    while let Some(&mut (node, ref mut next)) = stack.last_mut() {
        if let Some(&p) = preds[node as usize].get(*next) {
            *next += 1;
            if !visited[p as usize] {
                visited[p as usize] = true;
                stack.push((p, 0));
            }
        } else {
            postorder_number[node as usize] = postorder.len() as u32;
            postorder.push(node);
            stack.pop();
        }
    }

    let mut ipdom: Vec<Option<u32>> = vec![None; n];
    ipdom[exit as usize] = Some(exit);
    let mut changed = true;
    while changed {
        changed = false;
        // Reverse postorder, skipping the root (the exit, last in postorder).
        for &node in postorder.iter().rev().skip(1) {
            let mut new_ipdom: Option<u32> = None;
            for &s in &succs[node as usize] {
                if ipdom[s as usize].is_none() {
                    continue;
                }
                new_ipdom = Some(match new_ipdom {
                    None => s,
                    Some(current) => intersect(&ipdom, &postorder_number, current, s),
                });
            }
            if new_ipdom.is_some() && ipdom[node as usize] != new_ipdom {
                ipdom[node as usize] = new_ipdom;
                changed = true;
            }
        }
    }
    ipdom[exit as usize] = None;
    ipdom
}

fn intersect(ipdom: &[Option<u32>], number: &[u32], mut a: u32, mut b: u32) -> u32 {
    while a != b {
        while number[a as usize] < number[b as usize] {
            a = ipdom[a as usize].expect("processed nodes have a post-dominator");
        }
        while number[b as usize] < number[a as usize] {
            b = ipdom[b as usize].expect("processed nodes have a post-dominator");
        }
    }
    a
}

#[cfg(test)]
mod tests {
    use super::*;

    fn succs(n: usize, edges: &[(u32, u32)]) -> Vec<Vec<u32>> {
        let mut s = vec![Vec::new(); n];
        for &(a, b) in edges {
            s[a as usize].push(b);
        }
        s
    }

    #[test]
    fn diamond_post_dominated_by_join() {
        // 0 -> 1 -> {2, 3} -> 4 -> 5(exit)
        let g = succs(6, &[(0, 1), (1, 2), (1, 3), (2, 4), (3, 4), (4, 5)]);
        let ipdom = immediate_post_dominators(&g, 5);
        assert_eq!(
            ipdom,
            vec![Some(1), Some(4), Some(4), Some(4), Some(5), None]
        );
    }

    #[test]
    fn loop_head_post_dominates_body() {
        // 0 -> 1(head) -> 2(body) -> 1; 1 -> 3(exit)
        let g = succs(4, &[(0, 1), (1, 2), (2, 1), (1, 3)]);
        let ipdom = immediate_post_dominators(&g, 3);
        assert_eq!(ipdom, vec![Some(1), Some(3), Some(1), None]);
    }

    #[test]
    fn early_return_makes_exit_the_post_dominator() {
        // 0 -> 1 -> {2 -> 4(exit), 3 -> 4}
        let g = succs(5, &[(0, 1), (1, 2), (1, 3), (2, 4), (3, 4)]);
        let ipdom = immediate_post_dominators(&g, 4);
        assert_eq!(ipdom[1], Some(4));
    }

    #[test]
    fn infinite_loop_gets_one_escape_at_its_head() {
        // 0 -> 1(head) -> 2 -> 3 -> 1; 4 is the exit, unreachable: the entry escapes, and
        // so must the loop, which still cannot reach the exit through the entry.
        let g = succs(5, &[(0, 1), (1, 2), (2, 3), (3, 1)]);
        assert_eq!(escape_nodes(&g, 0, 4), vec![0, 1]);
        // With the entry able to reach the exit, the loop head is the escape.
        let g = succs(5, &[(0, 1), (0, 4), (1, 2), (2, 3), (3, 1)]);
        assert_eq!(escape_nodes(&g, 0, 4), vec![1]);
    }
}
