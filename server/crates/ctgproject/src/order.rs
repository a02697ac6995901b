//! The order classes are generated in: Campos et al., "Continuous Test Generation", section
//! 3.2, "when a class c can use test cases from another class c', then c' should be executed
//! before c". Classes that use each other (a cycle) cannot all come after each other: they are
//! strongly connected components (Tarjan), ordered among themselves by name, and each
//! component comes after every component it uses. Pure and deterministic.

use std::collections::{BTreeMap, BTreeSet};

/// A generation order of `uses`' keys: each class after the classes it uses, except inside a
/// cycle. `uses[c]` may name classes that are not keys (they are ignored).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Order {
    /// Every class once, dependencies first; ties by name.
    pub classes: Vec<String>,
    /// The cycles found (each sorted), for the user to see why an order was not possible.
    pub cycles: Vec<Vec<String>>,
}

impl Order {
    /// `uses` restricted to the ordered classes, minus the edges inside a cycle: what must
    /// finish before a class starts.
    pub fn prerequisites(
        &self,
        uses: &BTreeMap<String, BTreeSet<String>>,
    ) -> BTreeMap<String, BTreeSet<String>> {
        let component: BTreeMap<&str, usize> = self
            .cycles
            .iter()
            .enumerate()
            .flat_map(|(i, cycle)| cycle.iter().map(move |c| (c.as_str(), i)))
            .collect();
        let known: BTreeSet<&str> = self.classes.iter().map(String::as_str).collect();
        self.classes
            .iter()
            .map(|class| {
                let deps = uses
                    .get(class)
                    .into_iter()
                    .flatten()
                    .filter(|d| *d != class && known.contains(d.as_str()))
                    .filter(|d| {
                        !matches!((component.get(class.as_str()), component.get(d.as_str())),
                            (Some(a), Some(b)) if a == b)
                    })
                    .cloned()
                    .collect();
                (class.clone(), deps)
            })
            .collect()
    }
}

/// Orders the keys of `uses` so that a class comes after the classes it uses.
pub fn dependency_order(uses: &BTreeMap<String, BTreeSet<String>>) -> Order {
    let names: Vec<&str> = uses.keys().map(String::as_str).collect();
    let index: BTreeMap<&str, usize> = names.iter().enumerate().map(|(i, n)| (*n, i)).collect();
    let edges: Vec<Vec<usize>> = names
        .iter()
        .map(|n| {
            uses[*n]
                .iter()
                .filter_map(|d| index.get(d.as_str()).copied())
                .collect()
        })
        .collect();
    let components = tarjan(&edges);
    // Tarjan emits a component only after every component it reaches: dependencies first.
    // For a stable, readable order, repeatedly take the smallest-named component whose
    // dependencies are all placed.
    let component_of: Vec<usize> = {
        let mut of = vec![0; names.len()];
        for (c, members) in components.iter().enumerate() {
            for &m in members {
                of[m] = c;
            }
        }
        of
    };
    let mut needs: Vec<BTreeSet<usize>> = components
        .iter()
        .enumerate()
        .map(|(c, members)| {
            members
                .iter()
                .flat_map(|&m| edges[m].iter().map(|&d| component_of[d]))
                .filter(|&d| d != c)
                .collect()
        })
        .collect();
    let key = |c: usize| names[*components[c].iter().min().expect("non-empty")];
    let mut ready: BTreeSet<(&str, usize)> = (0..components.len())
        .filter(|&c| needs[c].is_empty())
        .map(|c| (key(c), c))
        .collect();
    let mut needed_by: Vec<Vec<usize>> = vec![Vec::new(); components.len()];
    for (c, needed) in needs.iter().enumerate() {
        for &d in needed {
            needed_by[d].push(c);
        }
    }
    let mut classes = Vec::with_capacity(names.len());
    let mut cycles = Vec::new();
    let mut placed = vec![false; components.len()];
    while let Some(&(name, c)) = ready.iter().next() {
        ready.remove(&(name, c));
        placed[c] = true;
        let mut members: Vec<String> = components[c].iter().map(|&m| names[m].into()).collect();
        members.sort();
        if members.len() > 1 {
            cycles.push(members.clone());
        }
        classes.extend(members);
        for &other in &needed_by[c] {
            if !placed[other] && needs[other].remove(&c) && needs[other].is_empty() {
                ready.insert((key(other), other));
            }
        }
    }
    Order { classes, cycles }
}

/// Strongly connected components of a graph given as adjacency lists (Tarjan's algorithm,
/// iterative so a long chain of classes cannot overflow the stack).
fn tarjan(edges: &[Vec<usize>]) -> Vec<Vec<usize>> {
    let n = edges.len();
    let mut index = vec![usize::MAX; n];
    let mut low = vec![0; n];
    let mut on_stack = vec![false; n];
    let mut stack = Vec::new();
    let mut components = Vec::new();
    let mut next = 0;
    for root in 0..n {
        if index[root] != usize::MAX {
            continue;
        }
        let mut call: Vec<(usize, usize)> = vec![(root, 0)];
        while let Some(&mut (v, ref mut child)) = call.last_mut() {
            if *child == 0 && index[v] == usize::MAX {
                index[v] = next;
                low[v] = next;
                next += 1;
                stack.push(v);
                on_stack[v] = true;
            }
            if let Some(&w) = edges[v].get(*child) {
                *child += 1;
                if index[w] == usize::MAX {
                    call.push((w, 0));
                } else if on_stack[w] {
                    low[v] = low[v].min(index[w]);
                }
                continue;
            }
            call.pop();
            if let Some(&(parent, _)) = call.last() {
                low[parent] = low[parent].min(low[v]);
            }
            if low[v] == index[v] {
                let mut component = Vec::new();
                loop {
                    let w = stack.pop().expect("v is on the stack");
                    on_stack[w] = false;
                    component.push(w);
                    if w == v {
                        break;
                    }
                }
                components.push(component);
            }
        }
    }
    components
}

#[cfg(test)]
mod tests {
    use super::*;

    fn graph(edges: &[(&str, &[&str])]) -> BTreeMap<String, BTreeSet<String>> {
        edges
            .iter()
            .map(|(c, deps)| (c.to_string(), deps.iter().map(|d| d.to_string()).collect()))
            .collect()
    }

    #[test]
    fn dependencies_come_first() {
        // The paper's example: A.foo(B b) needs B's tests; B uses C.
        let uses = graph(&[
            ("p.A", &["p.B"]),
            ("p.B", &["p.C"]),
            ("p.C", &[]),
            ("p.D", &[]),
        ]);
        let order = dependency_order(&uses);
        assert_eq!(order.classes, ["p.C", "p.B", "p.A", "p.D"]);
        assert!(order.cycles.is_empty());
        let pre = order.prerequisites(&uses);
        assert_eq!(pre["p.A"], ["p.B".to_string()].into());
        assert!(pre["p.C"].is_empty());
    }

    #[test]
    fn a_cycle_is_ordered_by_name_after_what_it_uses() {
        // X and Y use each other, both use Z; W uses X.
        let uses = graph(&[
            ("p.W", &["p.X"]),
            ("p.X", &["p.Y", "p.Z", "java.util.List"]),
            ("p.Y", &["p.X", "p.Y"]),
            ("p.Z", &[]),
        ]);
        let order = dependency_order(&uses);
        assert_eq!(order.classes, ["p.Z", "p.X", "p.Y", "p.W"]);
        assert_eq!(order.cycles, [vec!["p.X".to_string(), "p.Y".to_string()]]);
        let pre = order.prerequisites(&uses);
        // Inside the cycle nothing waits for the other; outside it the edges stay.
        assert_eq!(pre["p.X"], ["p.Z".to_string()].into());
        assert!(pre["p.Y"].is_empty());
        assert_eq!(pre["p.W"], ["p.X".to_string()].into());
    }

    #[test]
    fn a_long_chain_does_not_overflow() {
        let n = 20_000;
        let uses: BTreeMap<String, BTreeSet<String>> = (0..n)
            .map(|i| {
                let deps = if i + 1 < n {
                    [format!("c{:05}", i + 1)].into()
                } else {
                    BTreeSet::new()
                };
                (format!("c{i:05}"), deps)
            })
            .collect();
        let order = dependency_order(&uses);
        assert_eq!(order.classes.first().map(String::as_str), Some("c19999"));
        assert_eq!(order.classes.last().map(String::as_str), Some("c00000"));
    }
}
