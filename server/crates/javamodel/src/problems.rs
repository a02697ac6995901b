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

fn visit(src: &str, node: Node<'_>, out: &mut Vec<Problem>) {
    if node.is_missing() {
        out.push(Problem {
            message: format!("missing `{}`", node.kind()),
            span: Span::of(node),
        });
        return;
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
        return;
    }
    let mut cursor = node.walk();
    for child in node.children(&mut cursor) {
        if child.has_error() || child.is_missing() {
            visit(src, child, out);
        }
    }
}
