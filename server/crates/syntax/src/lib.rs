//! Document text (a rope), its tree-sitter-java tree, and the conversion between byte offsets
//! and editor positions. Knows nothing of LSP, JSON or IO.

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
