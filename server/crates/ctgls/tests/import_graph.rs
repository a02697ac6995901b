//! The crate's modules import each other without a circle (docs/architecture.md): a module of
//! `lsp/` (a file, or a directory with its children) that names another through
//! `crate::lsp::<name>` depends on it, and the graph of those dependencies has no cycle. Test
//! modules (`#[cfg(test)] mod tests`) are left out: they may use anything.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Every `.rs` file under `dir`.
fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The top-level module of `lsp/` a file belongs to (`lsp/results/build.rs` → `results`).
fn module_of(lsp: &Path, file: &Path) -> Option<String> {
    let relative = file.strip_prefix(lsp).ok()?;
    let first = relative.components().next()?.as_os_str().to_str()?;
    let name = first.trim_end_matches(".rs");
    (name != "mod").then(|| name.to_string())
}

/// The `lsp` modules named as `crate::lsp::<name>` in the text, test modules left out.
fn imports(text: &str) -> BTreeSet<String> {
    let code = text
        .split("#[cfg(test)]\nmod tests")
        .next()
        .unwrap_or(text)
        .split("#[cfg(test)]\npub(crate) mod tests")
        .next()
        .unwrap_or(text);
    let mut out = BTreeSet::new();
    let mut rest = code;
    while let Some(at) = rest.find("crate::lsp::") {
        rest = &rest[at + "crate::lsp::".len()..];
        let name: String = rest
            .chars()
            .take_while(|c| c.is_ascii_lowercase() || *c == '_')
            .collect();
        if !name.is_empty() {
            out.insert(name);
        }
        // `crate::lsp::{a, b}` names several.
        if rest.starts_with('{') {
            let group = &rest[1..rest.find('}').unwrap_or(rest.len())];
            for item in group.split(',') {
                let name: String = item
                    .trim()
                    .chars()
                    .take_while(|c| c.is_ascii_lowercase() || *c == '_')
                    .collect();
                if !name.is_empty() {
                    out.insert(name);
                }
            }
        }
    }
    out
}

/// A cycle of the graph, if it has one.
fn find_cycle(graph: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    fn visit(
        node: &str,
        graph: &BTreeMap<String, BTreeSet<String>>,
        path: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) -> Option<Vec<String>> {
        if let Some(at) = path.iter().position(|n| n == node) {
            let mut cycle = path[at..].to_vec();
            cycle.push(node.to_string());
            return Some(cycle);
        }
        if done.contains(node) {
            return None;
        }
        path.push(node.to_string());
        for next in graph.get(node).into_iter().flatten() {
            if let Some(cycle) = visit(next, graph, path, done) {
                return Some(cycle);
            }
        }
        path.pop();
        done.insert(node.to_string());
        None
    }
    let mut done = BTreeSet::new();
    graph
        .keys()
        .find_map(|node| visit(node, graph, &mut Vec::new(), &mut done))
}

#[test]
fn the_lsp_modules_import_each_other_without_a_circle() {
    let lsp = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/lsp");
    let mut files = Vec::new();
    sources(&lsp, &mut files);
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for file in &files {
        let Some(module) = module_of(&lsp, file) else {
            continue;
        };
        let text = std::fs::read_to_string(file).unwrap();
        let entry = graph.entry(module.clone()).or_default();
        entry.extend(imports(&text).into_iter().filter(|m| *m != module));
    }
    assert!(graph.len() > 10, "the lsp modules were found: {graph:?}");
    assert!(
        graph["owner"].contains("scheduler"),
        "the graph has edges: {graph:?}"
    );
    if let Some(cycle) = find_cycle(&graph) {
        panic!("an import circle: {}", cycle.join(" -> "));
    }
}

#[test]
fn a_circle_is_found() {
    let graph: BTreeMap<String, BTreeSet<String>> = [
        ("a", vec!["b"]),
        ("b", vec!["c"]),
        ("c", vec!["a"]),
        ("d", vec![]),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v.into_iter().map(String::from).collect()))
    .collect();
    assert_eq!(
        find_cycle(&graph),
        Some(vec!["a".into(), "b".into(), "c".into(), "a".into()])
    );
    assert_eq!(
        imports("use crate::lsp::{coverage, hover, lens};\nuse crate::lsp::view::View;"),
        ["coverage", "hover", "lens", "view"]
            .into_iter()
            .map(String::from)
            .collect()
    );
}
