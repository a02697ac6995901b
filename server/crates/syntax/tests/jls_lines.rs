//! Tree rows are lines as javac counts them (JLS 3.4: `\n`, `\r\n` and a lone `\r` each end
//! one line), which are also the editor's lines (LSP 3.17). Tree-sitter on its own ends rows
//! at `\n` only and ends a `//` comment there, so a lone `\r` moved every later row and could
//! hide code from the tree.

use syntax::tree_sitter::{Node, Point, Tree};
use syntax::{Document, PositionEncoding, TextChange, TextPosition, TextRange};

fn find<'t>(tree: &'t Tree, kind: &str) -> Vec<Node<'t>> {
    let mut out = Vec::new();
    let mut stack = vec![tree.root_node()];
    while let Some(node) = stack.pop() {
        if node.kind() == kind {
            out.push(node);
        }
        let mut cursor = node.walk();
        stack.extend(node.children(&mut cursor));
    }
    out.sort_by_key(|n| n.start_byte());
    out
}

/// `A.java` with a lone `\r` before a branch: javac puts the `if` on line 4 (row 3).
const LONE_CR: &str =
    "class A {\n  int f(int x) {\r    if (x > 0) {\r\n      return 1;\n    }\r    return 0;\n  }\n}\n";

#[test]
fn rows_count_lone_cr_as_a_line_end() {
    let tree = syntax::parse_java(LONE_CR, None);
    let ifs = find(&tree, "if_statement");
    assert_eq!(ifs[0].start_position(), Point::new(2, 4));
    assert_eq!(ifs[0].end_position(), Point::new(4, 5));
    let returns = find(&tree, "return_statement");
    assert_eq!(returns[1].start_position(), Point::new(5, 4));
    assert_eq!(tree.root_node().end_position(), Point::new(8, 0));
}

#[test]
fn a_line_comment_ends_at_a_lone_cr() {
    // javac compiles the field after the comment; tree-sitter alone read it as comment text.
    let text = "class A {\n  // note\r  int x;\n}\n";
    let tree = syntax::parse_java(text, None);
    assert!(!tree.root_node().has_error());
    let comments = find(&tree, "line_comment");
    assert_eq!(&text[comments[0].byte_range()], "// note");
    let fields = find(&tree, "field_declaration");
    assert_eq!(fields.len(), 1);
    assert_eq!(fields[0].start_position(), Point::new(2, 2));
}

#[test]
fn documents_agree_with_a_fresh_parse_when_an_edit_makes_a_cr_lone() {
    // Deleting the '\n' of "\r\n" turns the '\r' before the edit into a line end of its own,
    // and inserting one joins them again: the byte before the edit changes meaning.
    let text = "class A {\r\n  int x;\r\n}\n";
    let mut doc = Document::new(text, 1);
    let encoding = PositionEncoding::Utf8;
    let range = |a: (u32, u32), b: (u32, u32)| {
        TextRange::new(TextPosition::new(a.0, a.1), TextPosition::new(b.0, b.1))
    };
    // Line 0 ends at byte 9; the '\n' is byte 10, which LSP cannot address alone, so replace
    // "\r\n" by "\r" and check the rows.
    doc.apply_changes(
        &[TextChange::replace(range((0, 9), (1, 0)), "\r")],
        2,
        encoding,
    )
    .unwrap();
    assert_eq!(doc.text(), "class A {\r  int x;\r\n}\n");
    let fresh = syntax::parse_java(&doc.text(), None);
    assert_eq!(
        find(doc.tree(), "field_declaration")[0].start_position(),
        Point::new(1, 2)
    );
    assert_eq!(
        find(doc.tree(), "field_declaration")[0].start_position(),
        find(&fresh, "field_declaration")[0].start_position()
    );
    // Insert '\n' right after the lone '\r' (at the start of line 1).
    doc.apply_changes(
        &[TextChange::replace(range((1, 0), (1, 0)), "\n")],
        3,
        encoding,
    )
    .unwrap();
    assert_eq!(doc.text(), text);
    assert_eq!(
        find(doc.tree(), "field_declaration")[0].start_position(),
        Point::new(1, 2)
    );
}
