//! Reading source text through syntax nodes: safe slicing, whitespace-collapsed display text,
//! signature types, and child iteration that skips comments.

use tree_sitter::Node;

/// The node's source text, or `""` if the range is not valid for `src` (never panics).
pub(crate) fn text<'s>(src: &'s str, node: Node<'_>) -> &'s str {
    src.get(node.byte_range()).unwrap_or("")
}

/// The node's text with every run of whitespace collapsed to one space.
pub(crate) fn collapsed(src: &str, node: Node<'_>) -> String {
    collapse_ws(text(src, node))
}

pub(crate) fn collapse_ws(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for (i, word) in s.split_whitespace().enumerate() {
        if i > 0 {
            out.push(' ');
        }
        out.push_str(word);
    }
    out
}

pub(crate) fn is_comment(node: Node<'_>) -> bool {
    matches!(node.kind(), "line_comment" | "block_comment")
}

/// Named children without comments.
pub(crate) fn named_children<'t>(node: Node<'t>) -> Vec<Node<'t>> {
    let mut cursor = node.walk();
    node.named_children(&mut cursor)
        .filter(|c| !is_comment(*c))
        .collect()
}

/// All children (named and anonymous tokens) without comments.
pub(crate) fn children<'t>(node: Node<'t>) -> Vec<Node<'t>> {
    let mut cursor = node.walk();
    node.children(&mut cursor)
        .filter(|c| !is_comment(*c))
        .collect()
}

pub(crate) fn children_by_field<'t>(node: Node<'t>, field: &str) -> Vec<Node<'t>> {
    let mut cursor = node.walk();
    node.children_by_field_name(field, &mut cursor).collect()
}

pub(crate) fn first_named_of_kind<'t>(node: Node<'t>, kind: &str) -> Option<Node<'t>> {
    named_children(node).into_iter().find(|c| c.kind() == kind)
}

/// The first anonymous child token with this text, e.g. `)` or `default`.
pub(crate) fn token<'t>(node: Node<'t>, kind: &str) -> Option<Node<'t>> {
    children(node)
        .into_iter()
        .find(|c| !c.is_named() && c.kind() == kind)
}

/// The type in signature form: the concatenated tokens of `node` without annotations and type
/// arguments, e.g. `java.util.List<@NonNull String>[]` gives `java.util.List[]`.
pub(crate) fn signature_type(src: &str, node: Node<'_>) -> String {
    let mut out = String::new();
    push_signature_tokens(src, node, &mut out);
    out
}

fn push_signature_tokens(src: &str, node: Node<'_>, out: &mut String) {
    match node.kind() {
        "annotation" | "marker_annotation" | "type_arguments" => return,
        _ if is_comment(node) => return,
        _ => {}
    }
    if node.child_count() == 0 {
        let t = text(src, node);
        // Two word tokens never meet in an erased type except in error trees; keep them apart.
        if out.ends_with(|c: char| c.is_alphanumeric() || c == '_' || c == '$')
            && t.starts_with(|c: char| c.is_alphanumeric() || c == '_' || c == '$')
        {
            out.push(' ');
        }
        out.push_str(t);
        return;
    }
    let mut cursor = node.walk();
    for child in node.children(&mut cursor) {
        push_signature_tokens(src, child, out);
    }
}

/// Strips parentheses around an expression.
pub(crate) fn unparenthesize(mut node: Node<'_>) -> Node<'_> {
    while node.kind() == "parenthesized_expression" {
        match named_children(node).into_iter().next() {
            Some(inner) => node = inner,
            None => break,
        }
    }
    node
}
