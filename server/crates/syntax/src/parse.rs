//! Parsing Java with tree-sitter so that tree rows are Java's lines.
//!
//! javac ends a line at `\n`, `\r\n` or a lone `\r` (JLS 3.4), and so do LSP and our ropes;
//! tree-sitter ends a row at `\n` only, and tree-sitter-java ends a `//` comment only at `\n`
//! (`line_comment: seq('//', /[^\n]*/)`). So tree-sitter reads the text through a view in
//! which every lone `\r` is a `\n`: one byte for one byte, so offsets are unchanged, and rows
//! become JLS lines, the lines of class files, stack traces, JaCoCo and the editor. Java gives
//! `\r` and `\n` the same meaning everywhere (a raw line terminator is not allowed in string
//! or character literals, and text blocks normalise them), so the view parses to the tree
//! javac sees.
//!
//! **Invariant:** every tree of this crate comes from [`parse_java`] or [`parse_rope`], so a
//! node's row is its 0-based JLS line and its column the bytes since that line's start.

use ropey::Rope;
use tree_sitter::{Parser, Point, Tree};

/// Parses Java source with tree-sitter-java. Parsing never fails: syntax errors become
/// `ERROR`/`MISSING` nodes in the returned tree. Passing the previous tree (already adjusted
/// with `Tree::edit` and [`crate::input_edit`]) makes the parse incremental.
pub fn parse_java(text: &str, old_tree: Option<&Tree>) -> Tree {
    let bytes = text.as_bytes();
    let mut read = |offset: usize, _: Point| -> &[u8] {
        if offset >= text.len() {
            return &[];
        }
        // Chunks of a few KB, like a rope's, so that finding the next lone '\r' costs no more
        // than the chunk tree-sitter reads, even when it goes back to re-read.
        let mut end = (offset + READ_CHUNK).min(text.len());
        while !text.is_char_boundary(end) {
            end += 1;
        }
        jls_view(&bytes[offset..end], bytes.get(end).copied())
    };
    parse_with(&mut read, old_tree)
}

/// The most bytes [`parse_java`] hands tree-sitter at once.
const READ_CHUNK: usize = 4096;

/// Parses the rope chunk by chunk, without collecting it into one string.
pub(crate) fn parse_rope(rope: &Rope, old_tree: Option<&Tree>) -> Tree {
    let mut read = |offset: usize, _: Point| -> &[u8] {
        if offset >= rope.len_bytes() {
            return &[];
        }
        let (chunk, chunk_start, _, _) = rope.chunk_at_byte(offset);
        let rest = &chunk.as_bytes()[offset - chunk_start..];
        jls_view(rest, rope.get_byte(offset + rest.len()))
    };
    parse_with(&mut read, old_tree)
}

/// A parser configured for Java; private, so that every tree is read through the view.
fn java_parser() -> Parser {
    let mut parser = Parser::new();
    parser
        .set_language(&tree_sitter_java::LANGUAGE.into())
        .expect("the bundled tree-sitter-java grammar matches the tree-sitter ABI");
    parser
}

fn parse_with<'a>(
    read: &mut impl FnMut(usize, Point) -> &'a [u8],
    old_tree: Option<&Tree>,
) -> Tree {
    java_parser()
        .parse_with_options(read, old_tree, None)
        .expect(
            "tree-sitter returns a tree when a language is set and no cancellation is requested",
        )
}

/// What tree-sitter reads at the start of `rest` (the text from some offset on, up to a chunk
/// end; `next` is the byte after the chunk): `"\n"` for a lone `\r`, else the bytes up to the
/// next lone `\r`. Never empty when `rest` is not, so tree-sitter always advances.
fn jls_view(rest: &[u8], next: Option<u8>) -> &[u8] {
    let byte_after = |i: usize| rest.get(i + 1).copied().or(next);
    let lone_cr = |i: usize| rest[i] == b'\r' && byte_after(i) != Some(b'\n');
    match (0..rest.len()).find(|&i| lone_cr(i)) {
        Some(0) => b"\n",
        Some(i) => &rest[..i],
        None => rest,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_view_reads_a_lone_cr_as_a_newline() {
        assert_eq!(jls_view(b"ab\r\ncd", None), b"ab\r\ncd");
        assert_eq!(jls_view(b"ab\rcd", None), b"ab");
        assert_eq!(jls_view(b"\rcd", None), b"\n");
        assert_eq!(jls_view(b"ab\r", None), b"ab");
        assert_eq!(jls_view(b"\r", None), b"\n");
        // A '\r' at the end of a chunk looks at the next chunk.
        assert_eq!(jls_view(b"ab\r", Some(b'\n')), b"ab\r");
        assert_eq!(jls_view(b"\r", Some(b'x')), b"\n");
        assert_eq!(jls_view(b"", None), b"");
    }

    #[test]
    fn ropes_of_many_chunks_parse_like_strings() {
        let mut text = String::new();
        for i in 0..400 {
            let end = ["\n", "\r", "\r\n"][i % 3];
            text.push_str(&format!(
                "class C{i} {{ int f() {{ return {i}; }} }}{end}// {i}{end}"
            ));
        }
        let rope = Rope::from_str(&text);
        assert!(rope.chunks().count() > 10);
        let from_rope = parse_rope(&rope, None);
        let from_str = parse_java(&text, None);
        assert!(!from_str.root_node().has_error());
        assert_eq!(
            from_rope.root_node().to_sexp(),
            from_str.root_node().to_sexp()
        );
        assert_eq!(
            from_rope.root_node().end_position(),
            Point::new(rope.len_lines() - 1, 0)
        );
    }
}
