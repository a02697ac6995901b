//! Tree-sitter edits for byte edits. Tree rows are rope lines (see `parse`), so a point is a
//! rope line and the bytes since its start.

use ropey::str_utils::{byte_to_line_idx, line_to_byte_idx};
use ropey::Rope;
use tree_sitter::{InputEdit, Point};

use crate::position::ByteEdit;

/// The tree-sitter edit of `edit`, which turned `before` into `after`: what a caller that
/// keeps its text in a string passes to `Tree::edit` before `parse_java(after, Some(&tree))`.
/// The same edit a [`crate::Document`] makes for its rope.
pub fn input_edit(before: &str, after: &str, edit: ByteEdit) -> InputEdit {
    let start = match edit.start_byte.checked_sub(1) {
        Some(previous) if before.as_bytes()[previous] == b'\r' => previous,
        _ => edit.start_byte,
    };
    InputEdit {
        start_byte: start,
        old_end_byte: edit.old_end_byte,
        new_end_byte: edit.new_end_byte,
        start_position: str_point_at(before, start),
        old_end_position: str_point_at(before, edit.old_end_byte),
        new_end_position: str_point_at(after, edit.new_end_byte),
    }
}

fn str_point_at(text: &str, offset: usize) -> Point {
    let row = byte_to_line_idx(text, offset);
    Point::new(row, offset - line_to_byte_idx(text, row))
}

/// The tree-sitter point of `offset`.
pub(crate) fn point_at(rope: &Rope, offset: usize) -> Point {
    let row = rope.byte_to_line(offset);
    Point::new(row, offset - rope.line_to_byte(row))
}

/// Where tree-sitter must be told that an edit starting at `start` begins. A `\r` right
/// before the edit reads as a line end of its own or as the first half of `\r\n` depending on
/// the byte after it, which the edit may change; tree-sitter sees that `\r` as `\n` or `\r`
/// (see `parse`), so the edit covers it. Bytes after the edit keep their neighbours.
pub(crate) fn edit_start(rope: &Rope, start: usize) -> usize {
    match start.checked_sub(1) {
        Some(before) if rope.byte(before) == b'\r' => before,
        _ => start,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn points_are_rope_lines() {
        let rope = Rope::from_str("ab\r\ncd\ref\n");
        assert_eq!(point_at(&rope, 3), Point::new(0, 3));
        assert_eq!(point_at(&rope, 4), Point::new(1, 0));
        assert_eq!(point_at(&rope, 7), Point::new(2, 0));
        assert_eq!(point_at(&rope, 8), Point::new(2, 1));
        assert_eq!(point_at(&rope, 10), Point::new(3, 0));

        let rope = Rope::from_str("ab\r\nc😀\nd");
        assert_eq!(point_at(&rope, 9), Point::new(1, 5));
        assert_eq!(point_at(&rope, 11), Point::new(2, 1));
    }

    #[test]
    fn points_of_strings_are_points_of_ropes() {
        let text = "ab\r\ncd\ref\n\r\r\n😀\r";
        let rope = Rope::from_str(text);
        for offset in 0..=text.len() {
            assert_eq!(
                str_point_at(text, offset),
                point_at(&rope, offset),
                "{offset}"
            );
        }
    }

    #[test]
    fn edits_after_a_cr_start_at_the_cr() {
        let rope = Rope::from_str("a\rb\r\nc");
        assert_eq!(edit_start(&rope, 0), 0);
        assert_eq!(edit_start(&rope, 1), 1);
        assert_eq!(edit_start(&rope, 2), 1);
        assert_eq!(edit_start(&rope, 4), 3);
        assert_eq!(edit_start(&rope, 5), 5);
    }
}
