//! Tree-sitter points for byte edits. Tree-sitter counts rows at `\n` only and columns in
//! bytes, so a lone `\r`, which ends an LSP line, does not end a tree-sitter row. Rope lines
//! equal tree-sitter rows exactly when the text has no lone `\r`; the document keeps a count
//! of them so the common case stays O(log n) and only texts with lone `\r` pay a linear scan.

use std::ops::Range;

use ropey::Rope;
use tree_sitter::Point;

/// Counts the lone `\r` (not followed by `\n`) that start in `bytes`. `bytes` may start or end
/// inside a character.
pub(crate) fn count_lone_crs(rope: &Rope, bytes: Range<usize>) -> usize {
    if bytes.start >= bytes.end {
        return 0;
    }
    let mut count = 0;
    let mut previous_is_cr = false;
    for (offset, byte) in (bytes.start..).zip(rope.bytes_at(bytes.start)) {
        if previous_is_cr && byte != b'\n' {
            count += 1;
        }
        if offset >= bytes.end {
            return count;
        }
        previous_is_cr = byte == b'\r';
    }
    // The text ended inside `bytes`: a final '\r' has nothing after it.
    count + usize::from(previous_is_cr)
}

/// The tree-sitter point of `offset`, given how many lone `\r` the rope holds.
pub(crate) fn point_at(rope: &Rope, lone_crs: usize, offset: usize) -> Point {
    if lone_crs == 0 {
        let row = rope.byte_to_line(offset);
        return Point::new(row, offset - rope.line_to_byte(row));
    }
    let mut row = 0;
    let mut row_start = 0;
    let mut chunk_start = 0;
    for chunk in rope.chunks() {
        if chunk_start >= offset {
            break;
        }
        let visible = &chunk.as_bytes()[..chunk.len().min(offset - chunk_start)];
        for (index, _) in visible.iter().enumerate().filter(|(_, &b)| b == b'\n') {
            row += 1;
            row_start = chunk_start + index + 1;
        }
        chunk_start += chunk.len();
    }
    Point::new(row, offset - row_start)
}

/// The point reached after inserting `text` at `start`.
pub(crate) fn advance(start: Point, text: &str) -> Point {
    match text.rfind('\n') {
        Some(last_newline) => Point::new(
            start.row + text.bytes().filter(|&b| b == b'\n').count(),
            text.len() - last_newline - 1,
        ),
        None => Point::new(start.row, start.column + text.len()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lone_crs_are_counted_in_a_window() {
        let rope = Rope::from_str("a\r\nb\rc\r");
        assert_eq!(count_lone_crs(&rope, 0..rope.len_bytes()), 2);
        assert_eq!(count_lone_crs(&rope, 0..4), 0);
        assert_eq!(count_lone_crs(&rope, 4..6), 1);
        assert_eq!(count_lone_crs(&rope, 6..7), 1);
        assert_eq!(count_lone_crs(&rope, 1..2), 0);
        assert_eq!(count_lone_crs(&rope, 3..3), 0);
    }

    #[test]
    fn points_count_rows_at_newlines_only() {
        let text = "ab\r\ncd\ref\n";
        let rope = Rope::from_str(text);
        let lone = count_lone_crs(&rope, 0..rope.len_bytes());
        assert_eq!(lone, 1);
        assert_eq!(point_at(&rope, lone, 3), Point::new(0, 3));
        assert_eq!(point_at(&rope, lone, 4), Point::new(1, 0));
        assert_eq!(point_at(&rope, lone, 8), Point::new(1, 4));
        assert_eq!(point_at(&rope, lone, 10), Point::new(2, 0));

        let rope = Rope::from_str("ab\r\nc😀\nd");
        assert_eq!(point_at(&rope, 0, 9), Point::new(1, 5));
        assert_eq!(point_at(&rope, 0, 11), Point::new(2, 1));
    }

    #[test]
    fn advance_over_inserted_text() {
        assert_eq!(advance(Point::new(2, 3), "é"), Point::new(2, 5));
        assert_eq!(advance(Point::new(2, 3), "x\r\nyz"), Point::new(3, 2));
        assert_eq!(advance(Point::new(2, 3), "x\ry"), Point::new(2, 6));
        assert_eq!(advance(Point::new(2, 3), ""), Point::new(2, 3));
    }

    proptest::proptest! {
        #[test]
        fn point_at_matches_counting_newlines(
            pieces in proptest::collection::vec(
                proptest::sample::select(&["a", "\r", "\n", "\r\n", "é", "😀"][..]),
                0..40,
            ),
            pick in proptest::prelude::any::<usize>(),
        ) {
            let text = pieces.concat();
            let rope = Rope::from_str(&text);
            let lone_crs = count_lone_crs(&rope, 0..text.len());
            let offset = pick % (text.len() + 1);
            let before = &text.as_bytes()[..offset];
            let row = before.iter().filter(|&&b| b == b'\n').count();
            let row_start = before.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
            proptest::prop_assert_eq!(point_at(&rope, lone_crs, offset), Point::new(row, offset - row_start));
        }
    }
}
