//! Property: applying random edit batches incrementally gives the same text as editing a
//! `String`, and the same tree as parsing the final text from scratch. Positions are computed
//! here by a deliberately naive reference, independent of `LineIndex`.

use proptest::prelude::*;
use syntax::tree_sitter::{Node, Tree};
use syntax::{Document, PositionEncoding, TextChange, TextPosition, TextRange};

/// Pieces of Java and awkward characters that random texts are made of.
const PIECES: &[&str] = &[
    "class A {",
    "}",
    "{",
    "int x = 1;",
    "void m() {",
    "if (x > 0) {",
    "return x;",
    ";",
    "(",
    ")",
    " ",
    "\t",
    "\"é\"",
    "String s = \"中😀\";",
    "'中'",
    "/* 😀 */",
    "// é\n",
    "é",
    "中",
    "😀",
    "\n",
    "\r\n",
    "\r",
    "\u{2028}",
    "\u{c}",
];

fn text_strategy(max_pieces: usize) -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(PIECES), 0..max_pieces).prop_map(|p| p.concat())
}

/// An edit described independently of the text: `start` and `len` pick characters modulo the
/// text length when the edit is resolved.
#[derive(Clone, Debug)]
struct EditSeed {
    start: usize,
    len: usize,
    text: String,
    /// Added to the character of an end position that sits at the end of its line, which LSP
    /// clamps back to the line end.
    overshoot: u32,
    /// Use `(line_count, 0)` for a position at the end of the document.
    end_of_document_as_next_line: bool,
}

fn edit_strategy() -> impl Strategy<Value = EditSeed> {
    (
        any::<usize>(),
        prop_oneof![Just(0usize), 0usize..4, 0usize..40],
        text_strategy(4),
        prop_oneof![Just(0u32), 1u32..5],
        any::<bool>(),
    )
        .prop_map(
            |(start, len, text, overshoot, end_of_document_as_next_line)| EditSeed {
                start,
                len,
                text,
                overshoot,
                end_of_document_as_next_line,
            },
        )
}

/// Byte offsets that a position can address: character boundaries not between '\r' and '\n'.
fn addressable_offsets(text: &str) -> Vec<usize> {
    let bytes = text.as_bytes();
    text.char_indices()
        .map(|(i, _)| i)
        .chain(std::iter::once(text.len()))
        .filter(|&i| !(i > 0 && bytes[i - 1] == b'\r' && bytes.get(i) == Some(&b'\n')))
        .collect()
}

/// Byte offsets where LSP lines start: 0 and after every "\n", "\r\n" and lone "\r".
fn line_starts(text: &str) -> Vec<usize> {
    let bytes = text.as_bytes();
    let mut starts = vec![0];
    for (i, &b) in bytes.iter().enumerate() {
        let ends_line = b == b'\n' || (b == b'\r' && bytes.get(i + 1) != Some(&b'\n'));
        if ends_line {
            starts.push(i + 1);
        }
    }
    starts
}

fn units(s: &str, encoding: PositionEncoding) -> u32 {
    match encoding {
        PositionEncoding::Utf8 => s.len() as u32,
        PositionEncoding::Utf16 => s.encode_utf16().count() as u32,
    }
}

fn reference_position(text: &str, offset: usize, encoding: PositionEncoding) -> TextPosition {
    let starts = line_starts(text);
    let line = starts.iter().rposition(|&s| s <= offset).unwrap();
    TextPosition::new(line as u32, units(&text[starts[line]..offset], encoding))
}

/// The position of `offset`, sometimes written the way a client may legally write it.
fn client_position(
    text: &str,
    offset: usize,
    encoding: PositionEncoding,
    seed: &EditSeed,
) -> TextPosition {
    let starts = line_starts(text);
    if offset == text.len() && seed.end_of_document_as_next_line {
        return TextPosition::new(starts.len() as u32, 0);
    }
    let mut position = reference_position(text, offset, encoding);
    let line_end = starts
        .get(position.line as usize + 1)
        .map_or(text.len(), |&next| {
            let terminator = if text[..next].ends_with("\r\n") { 2 } else { 1 };
            next - terminator
        });
    if offset == line_end {
        position.character += seed.overshoot;
    }
    position
}

/// Resolves a seed against the current text: the change to send and the byte range it edits.
fn resolve(
    text: &str,
    seed: &EditSeed,
    encoding: PositionEncoding,
) -> (TextChange, std::ops::Range<usize>) {
    let offsets = addressable_offsets(text);
    let start_index = seed.start % offsets.len();
    let end_index = (start_index + seed.len).min(offsets.len() - 1);
    let (start, end) = (offsets[start_index], offsets[end_index]);
    let range = TextRange::new(
        client_position(
            text,
            start,
            encoding,
            &EditSeed {
                overshoot: 0,
                ..seed.clone()
            },
        ),
        client_position(text, end, encoding, seed),
    );
    (TextChange::replace(range, seed.text.clone()), start..end)
}

/// The start and end point of every node, in document order.
fn node_points(
    tree: &Tree,
) -> Vec<(
    usize,
    syntax::tree_sitter::Point,
    syntax::tree_sitter::Point,
)> {
    let mut out = Vec::new();
    let mut stack = vec![tree.root_node()];
    while let Some(node) = stack.pop() {
        out.push((
            node.start_byte(),
            node.start_position(),
            node.end_position(),
        ));
        let mut cursor = node.walk();
        stack.extend(node.children(&mut cursor));
    }
    out
}

/// The points [`node_points`] must give: rows are LSP (and JLS) lines, columns bytes.
fn reference_points(
    tree: &Tree,
    text: &str,
) -> Vec<(
    usize,
    syntax::tree_sitter::Point,
    syntax::tree_sitter::Point,
)> {
    let point = |offset: usize| {
        let position = reference_position(text, offset, PositionEncoding::Utf8);
        syntax::tree_sitter::Point::new(position.line as usize, position.character as usize)
    };
    let mut out = Vec::new();
    let mut stack = vec![tree.root_node()];
    while let Some(node) = stack.pop() {
        out.push((
            node.start_byte(),
            point(node.start_byte()),
            point(node.end_byte()),
        ));
        let mut cursor = node.walk();
        stack.extend(node.children(&mut cursor));
    }
    out
}

/// Kind, byte range and points of every node, in document order.
fn node_table(tree: &Tree) -> Vec<String> {
    fn walk(node: Node<'_>, out: &mut Vec<String>) {
        out.push(format!(
            "{} {:?} {:?}-{:?} missing={}",
            node.kind(),
            node.byte_range(),
            node.start_position(),
            node.end_position(),
            node.is_missing()
        ));
        let mut cursor = node.walk();
        for child in node.children(&mut cursor) {
            walk(child, out);
        }
    }
    let mut out = Vec::new();
    walk(tree.root_node(), &mut out);
    out
}

fn encoding_strategy() -> impl Strategy<Value = PositionEncoding> {
    prop_oneof![Just(PositionEncoding::Utf8), Just(PositionEncoding::Utf16)]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn incremental_edits_match_edits_on_a_string_and_a_fresh_parse(
        initial in text_strategy(24),
        batches in prop::collection::vec(prop::collection::vec(edit_strategy(), 1..4), 1..8),
        encoding in encoding_strategy(),
    ) {
        let mut doc = Document::new(&initial, 0);
        let mut expected = initial.clone();
        for (version, batch) in (1..).zip(&batches) {
            let mut changes = Vec::new();
            for seed in batch {
                let (change, bytes) = resolve(&expected, seed, encoding);
                expected.replace_range(bytes, &change.text);
                changes.push(change);
            }
            let edits = doc.apply_changes(&changes, version, encoding).unwrap();
            prop_assert_eq!(edits.len(), changes.len());
            for (edit, change) in edits.iter().zip(&changes) {
                prop_assert_eq!(edit.new_end_byte - edit.start_byte, change.text.len());
            }
            prop_assert_eq!(doc.version(), version);
            prop_assert_eq!(doc.text(), expected.clone());

            let fresh = syntax::parse_java(&expected, None);
            prop_assert_eq!(doc.tree().root_node().to_sexp(), fresh.root_node().to_sexp());
            prop_assert_eq!(doc.tree().root_node().has_error(), fresh.root_node().has_error());
            prop_assert_eq!(node_table(doc.tree()), node_table(&fresh));
            prop_assert_eq!(node_points(doc.tree()), reference_points(doc.tree(), &expected));
        }
    }

    #[test]
    fn offsets_and_positions_match_the_reference(
        text in text_strategy(24),
        pick in any::<usize>(),
        encoding in encoding_strategy(),
    ) {
        let doc = Document::new(&text, 0);
        let index = doc.line_index();
        prop_assert_eq!(index.line_count() as usize, line_starts(&text).len());
        let offsets = addressable_offsets(&text);
        let offset = offsets[pick % offsets.len()];
        let position = reference_position(&text, offset, encoding);
        prop_assert_eq!(index.position(offset, encoding), Ok(position));
        prop_assert_eq!(index.offset(position, encoding), Ok(offset));
    }
}
