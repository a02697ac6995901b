//! Syntax problems: one per `ERROR` node (outermost only) and per `MISSING` node, in source
//! order. Only subtrees that contain an error are visited, so an error-free tree costs nothing.

use tree_sitter::Node;

use crate::model::{Problem, Span};
use crate::text::text;

pub(crate) fn collect(src: &str, root: Node<'_>) -> Vec<Problem> {
    let mut out = Vec::new();
    if root.has_error() {
        visit(src, root, &mut out);
    }
    out
}

/// Iterative, so that deep trees cannot overflow the stack.
fn visit(src: &str, root: Node<'_>, out: &mut Vec<Problem>) {
    let mut stack = vec![root];
    while let Some(node) = stack.pop() {
        if node.is_missing() {
            out.push(Problem {
                message: format!("missing `{}`", node.kind()),
                span: Span::of(node),
            });
            continue;
        }
        if node.is_error() {
            let snippet: String = text(src, node).chars().take(40).collect();
            let snippet = crate::text::collapse_ws(&snippet);
            out.push(Problem {
                message: if snippet.is_empty() {
                    "syntax error".to_string()
                } else {
                    format!("syntax error at `{snippet}`")
                },
                span: Span::of(node),
            });
            continue;
        }
        let mut cursor = node.walk();
        let children: Vec<Node<'_>> = node
            .children(&mut cursor)
            .filter(|c| c.has_error() || c.is_missing())
            .collect();
        stack.extend(children.into_iter().rev());
    }
}
