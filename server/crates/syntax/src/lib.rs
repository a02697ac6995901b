//! Document text (a rope), its tree-sitter-java tree, and the conversion between byte offsets
//! and editor positions. Knows nothing of LSP, JSON or IO.
//!
//! Modules: `position` (editor coordinates and changes, plain data), `line_index` (the only
//! offset <-> position conversion), `document` (rope + tree + version, incremental edits),
//! `tree_edit` (tree-sitter points for edits, private).

mod document;
mod line_index;
mod position;
mod tree_edit;

pub use document::{Document, EditError};
pub use line_index::LineIndex;
pub use position::{
    ByteEdit, PositionEncoding, PositionError, TextChange, TextPosition, TextRange,
};
pub use ropey;
pub use tree_sitter;

/// Parses Java source with tree-sitter-java. Parsing never fails: syntax errors become
/// `ERROR`/`MISSING` nodes in the returned tree. Passing the previous tree (already adjusted
/// with `Tree::edit`) makes the parse incremental.
pub fn parse_java(text: &str, old_tree: Option<&tree_sitter::Tree>) -> tree_sitter::Tree {
    let mut parser = java_parser();
    parser
        .parse(text, old_tree)
        .expect("tree-sitter returns a tree when a language is set and no timeout or cancellation flag is used")
}

/// A parser configured for Java. Creating one is cheap compared with a parse, but callers on a
/// hot path may keep one around.
pub fn java_parser() -> tree_sitter::Parser {
    let mut parser = tree_sitter::Parser::new();
    parser
        .set_language(&tree_sitter_java::LANGUAGE.into())
        .expect("the bundled tree-sitter-java grammar matches the tree-sitter ABI");
    parser
}
