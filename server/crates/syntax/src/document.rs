//! An open document: its text as a rope, its tree-sitter tree and the editor's version, kept
//! in step by applying editor changes incrementally.

use std::fmt;

use ropey::Rope;
use tree_sitter::{InputEdit, Tree};

use crate::line_index::LineIndex;
use crate::parse::parse_rope;
use crate::position::{ByteEdit, PositionEncoding, PositionError, TextChange};
use crate::tree_edit::{edit_start, point_at};

/// Up to this size (bytes), text with syntax errors is parsed from scratch after an edit, so
/// that its tree does not depend on the edit history; about 1,000 lines of Java, a few
/// milliseconds to parse.
pub const FRESH_PARSE_LIMIT: usize = 32 * 1024;

/// Text, tree and version of one document.
///
/// Invariant: `tree` is a parse of exactly the rope's text (the same as a parse from scratch
/// when the text has no syntax errors or is at most [`FRESH_PARSE_LIMIT`] long), and its rows
/// are the rope's lines. Cloning is cheap (the rope shares its nodes and the tree is reference
/// counted), so a clone serves as a snapshot for readers.
#[derive(Clone)]
pub struct Document {
    rope: Rope,
    tree: Tree,
    version: i32,
}

/// A batch of changes was rejected because change number `change_index` (zero-based, in
/// batch order) does not denote a place in the text it applies to. The document is unchanged.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EditError {
    pub change_index: usize,
    pub error: PositionError,
}

impl fmt::Display for EditError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "change #{}: {}", self.change_index, self.error)
    }
}

impl std::error::Error for EditError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.error)
    }
}

impl Document {
    pub fn new(text: &str, version: i32) -> Self {
        let rope = Rope::from_str(text);
        let tree = parse_rope(&rope, None);
        Self {
            rope,
            tree,
            version,
        }
    }

    pub fn rope(&self) -> &Rope {
        &self.rope
    }

    pub fn tree(&self) -> &Tree {
        &self.tree
    }

    pub fn version(&self) -> i32 {
        self.version
    }

    /// The whole text. Allocates; prefer `rope()` for slices.
    pub fn text(&self) -> String {
        self.rope.to_string()
    }

    pub fn line_index(&self) -> LineIndex<'_> {
        LineIndex::new(&self.rope)
    }

    /// Applies a batch of changes in order, each relative to the text left by the previous
    /// one (LSP `didChange` semantics), then reparses incrementally and sets `version`.
    ///
    /// The batch is atomic: if any change has a range that does not denote a place in the text
    /// (see `LineIndex` for the rules), nothing is changed, not even the version. Returns the
    /// applied edits in order, each in the byte offsets of the text at its turn; a full
    /// replacement is reported as an edit of the whole text.
    pub fn apply_changes(
        &mut self,
        changes: &[TextChange],
        version: i32,
        encoding: PositionEncoding,
    ) -> Result<Vec<ByteEdit>, EditError> {
        // Work on clones (O(1) for both) so that an invalid change leaves `self` untouched.
        let mut rope = self.rope.clone();
        let mut tree = self.tree.clone();
        let mut reparse_from_scratch = false;
        let mut edits = Vec::with_capacity(changes.len());

        for (change_index, change) in changes.iter().enumerate() {
            let bytes = match change.range {
                None => 0..rope.len_bytes(),
                Some(range) => {
                    LineIndex::new(&rope)
                        .byte_range(range, encoding)
                        .map_err(|error| EditError {
                            change_index,
                            error,
                        })?
                }
            };
            let edit = ByteEdit {
                start_byte: bytes.start,
                old_end_byte: bytes.end,
                new_end_byte: bytes.start + change.text.len(),
            };
            let tree_start = edit_start(&rope, edit.start_byte);
            let start_position = point_at(&rope, tree_start);
            let old_end_position = point_at(&rope, edit.old_end_byte);

            let start_char = rope.byte_to_char(edit.start_byte);
            let old_end_char = rope.byte_to_char(edit.old_end_byte);
            rope.remove(start_char..old_end_char);
            rope.insert(start_char, &change.text);

            if change.range.is_none() {
                // Nothing of the old tree can be reused.
                reparse_from_scratch = true;
            } else {
                tree.edit(&InputEdit {
                    start_byte: tree_start,
                    old_end_byte: edit.old_end_byte,
                    new_end_byte: edit.new_end_byte,
                    start_position,
                    old_end_position,
                    new_end_position: point_at(&rope, edit.new_end_byte),
                });
            }
            edits.push(edit);
        }

        // Tree-sitter's error recovery depends on the subtrees it reuses: with syntax errors
        // before or after the edit, an incremental reparse can give a different tree than a
        // parse from scratch (https://github.com/tree-sitter/tree-sitter/issues/4001). So
        // erroneous text is parsed from scratch, and the tree is the parse of the text, up to
        // `FRESH_PARSE_LIMIT`: beyond it a parse from scratch costs more than a keystroke may
        // (20-30 ms for 127 KB, `cargo bench -p ctgls --bench edit`), and while such a file
        // has errors its tree is tree-sitter's incremental recovery. An error-free result is
        // the parse of the text either way.
        if rope.len_bytes() <= FRESH_PARSE_LIMIT {
            reparse_from_scratch |= self.tree.root_node().has_error();
        }
        let mut new_tree = parse_rope(&rope, (!reparse_from_scratch).then_some(&tree));
        if !reparse_from_scratch
            && rope.len_bytes() <= FRESH_PARSE_LIMIT
            && new_tree.root_node().has_error()
        {
            new_tree = parse_rope(&rope, None);
        }
        self.tree = new_tree;
        self.rope = rope;
        self.version = version;
        Ok(edits)
    }
}

impl fmt::Display for Document {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.rope.chunks().try_for_each(|chunk| f.write_str(chunk))
    }
}

impl fmt::Debug for Document {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Document")
            .field("version", &self.version)
            .field("len_bytes", &self.rope.len_bytes())
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::position::{TextPosition, TextRange};
    use PositionEncoding::{Utf16, Utf8};

    fn range(start: (u32, u32), end: (u32, u32)) -> Option<TextRange> {
        Some(TextRange::new(
            TextPosition::new(start.0, start.1),
            TextPosition::new(end.0, end.1),
        ))
    }

    fn change(start: (u32, u32), end: (u32, u32), text: &str) -> TextChange {
        TextChange {
            range: range(start, end),
            text: text.to_owned(),
        }
    }

    fn sexp(tree: &Tree) -> String {
        tree.root_node().to_sexp()
    }

    #[test]
    fn changes_in_a_batch_apply_in_order() {
        let mut doc = Document::new("class A {}\n", 1);
        let edits = doc
            .apply_changes(
                &[
                    change((0, 9), (0, 9), " int x; "),
                    // Relative to the text after the first change.
                    change((0, 14), (0, 15), "y"),
                ],
                2,
                Utf16,
            )
            .unwrap();
        assert_eq!(doc.text(), "class A { int y; }\n");
        assert_eq!(doc.to_string(), doc.text());
        assert_eq!(doc.version(), 2);
        assert_eq!(
            edits,
            vec![
                ByteEdit {
                    start_byte: 9,
                    old_end_byte: 9,
                    new_end_byte: 17
                },
                ByteEdit {
                    start_byte: 14,
                    old_end_byte: 15,
                    new_end_byte: 15
                },
            ]
        );
        assert_eq!(
            sexp(doc.tree()),
            sexp(&crate::parse_java(&doc.text(), None))
        );
        assert!(!doc.tree().root_node().has_error());
    }

    #[test]
    fn multi_byte_positions_follow_the_encoding() {
        // "😀" is 2 UTF-16 units and 4 bytes; insert after it in each encoding.
        let mut doc = Document::new("//😀\nclass A {}", 1);
        doc.apply_changes(&[change((0, 4), (0, 4), "é")], 2, Utf16)
            .unwrap();
        assert_eq!(doc.text(), "//😀é\nclass A {}");
        doc.apply_changes(&[change((0, 8), (0, 8), "中")], 3, Utf8)
            .unwrap();
        assert_eq!(doc.text(), "//😀é中\nclass A {}");
        // Deleting "é中" in UTF-16: characters 4..6.
        doc.apply_changes(&[change((0, 4), (0, 6), "")], 4, Utf16)
            .unwrap();
        assert_eq!(doc.text(), "//😀\nclass A {}");
    }

    #[test]
    fn full_replacement() {
        let mut doc = Document::new("class A {}", 1);
        let edits = doc
            .apply_changes(
                &[TextChange::full("class Bé {}"), change((0, 6), (0, 8), "C")],
                2,
                Utf16,
            )
            .unwrap();
        assert_eq!(doc.text(), "class C {}");
        assert_eq!(
            edits[0],
            ByteEdit {
                start_byte: 0,
                old_end_byte: 10,
                new_end_byte: 12
            }
        );
        assert_eq!(
            sexp(doc.tree()),
            sexp(&crate::parse_java("class C {}", None))
        );
    }

    #[test]
    fn invalid_change_leaves_the_document_untouched() {
        let text = "class A {\r\n  String s = \"😀é\";\r}\n";
        let invalid: Vec<(TextChange, PositionEncoding, PositionError)> = vec![
            (
                change((5, 0), (5, 0), "x"),
                Utf16,
                PositionError::LineOutOfRange {
                    position: TextPosition::new(5, 0),
                    line_count: 4,
                },
            ),
            (
                change((4, 1), (4, 1), "x"),
                Utf16,
                PositionError::LineOutOfRange {
                    position: TextPosition::new(4, 1),
                    line_count: 4,
                },
            ),
            (
                // Inside the surrogate pair of '😀' (which starts at UTF-16 column 14).
                change((1, 15), (1, 16), "x"),
                Utf16,
                PositionError::InsideCharacter {
                    position: TextPosition::new(1, 15),
                },
            ),
            (
                // Inside the UTF-8 bytes of 'é' (which starts at byte column 18).
                change((1, 14), (1, 19), "x"),
                Utf8,
                PositionError::InsideCharacter {
                    position: TextPosition::new(1, 19),
                },
            ),
            (
                change((1, 3), (0, 2), "x"),
                Utf16,
                PositionError::StartAfterEnd {
                    range: range((1, 3), (0, 2)).unwrap(),
                },
            ),
        ];
        for (bad, encoding, error) in invalid {
            let mut doc = Document::new(text, 7);
            let before_tree = sexp(doc.tree());
            // A valid change first: the whole batch must still be rejected.
            let batch = [change((0, 0), (0, 0), "/* h */"), bad];
            assert_eq!(
                doc.apply_changes(&batch, 8, encoding),
                Err(EditError {
                    change_index: 1,
                    error
                })
            );
            assert_eq!(doc.text(), text);
            assert_eq!(doc.version(), 7);
            assert_eq!(sexp(doc.tree()), before_tree);
            // The document still accepts edits afterwards.
            doc.apply_changes(&[change((0, 6), (0, 7), "B")], 8, encoding)
                .unwrap();
            assert!(doc.text().starts_with("class B {"));
        }
    }

    #[test]
    fn edits_update_tree_points_across_crlf_and_lone_cr() {
        let mut doc = Document::new("class A {\r\n int x;\r}\n", 1);
        doc.apply_changes(
            &[
                change((1, 7), (1, 7), "\r int y;"),
                change((0, 9), (0, 9), "\n"),
            ],
            2,
            Utf16,
        )
        .unwrap();
        let text = doc.text();
        assert_eq!(text, "class A {\n\r\n int x;\r int y;\r}\n");
        let fresh = crate::parse_java(&text, None);
        let incremental = doc.tree().root_node();
        let class_body = |root: tree_sitter::Node<'_>| {
            let class = root.named_child(0).unwrap();
            let body = class.child_by_field_name("body").unwrap();
            (body.start_position(), body.end_position())
        };
        assert_eq!(class_body(incremental), class_body(fresh.root_node()));
        // Rows are lines: "\n", "\r\n", "\r" and "\r" end the first four, so the closing
        // brace is on row 4.
        assert_eq!(class_body(incremental).1, tree_sitter::Point::new(4, 1));
    }

    /// Regression: tree-sitter's error recovery depends on the subtrees it reuses, so an
    /// incremental reparse of text with syntax errors could give a different tree than a parse
    /// from scratch (here the stray `}` closed a different block), and the Java model built
    /// from it differed from a fresh build. Found by the LSP soak test.
    #[test]
    fn an_edit_that_breaks_the_syntax_gives_the_tree_of_a_fresh_parse() {
        let before = "public final class AmountParser {\n\
                      public static long parseCents(String text) {\n\
                      if (trimmed.endsWith(\" EUR\")) {\n}\n\
                      if (negative) {\n}\n\
                      \x20               throw new IllegalArgumentException(\"more than two decimals: \" + text);\n\
                      while (fraction.length() < 2) {\n}\n";
        let mut doc = Document::new(before, 1);
        doc.apply_changes(&[change((6, 9), (6, 9), "        }\n")], 2, Utf8)
            .unwrap();
        let text = doc.text();
        assert!(
            text.contains("\n                 }\n       throw"),
            "{text:?}"
        );
        assert_eq!(sexp(doc.tree()), sexp(&crate::parse_java(&text, None)));

        // And back: repairing the text gives the fresh tree too.
        doc.apply_changes(&[change((6, 9), (7, 0), "")], 3, Utf8)
            .unwrap();
        assert_eq!(doc.text(), before);
        assert_eq!(sexp(doc.tree()), sexp(&crate::parse_java(before, None)));
    }
}
