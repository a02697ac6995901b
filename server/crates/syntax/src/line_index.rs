//! The one place where byte offsets and editor positions (`TextPosition` in UTF-8 or UTF-16
//! units) are converted into each other, and where lines are told apart in text
//! ([`text_line`] for strings).
//!
//! Lines follow LSP: they end at `\n`, `\r\n` or a lone `\r`, and at nothing else. This relies
//! on ropey being built with `cr_lines` and without `unicode_lines` (see the root
//! `Cargo.toml`); `tests::only_lsp_line_breaks_split_lines` fails if feature unification ever
//! turns `unicode_lines` back on.
//!
//! Rules for positions that do not name a character boundary exactly, following LSP 3.17
//! ("If the character value is greater than the line length it defaults back to the line
//! length"):
//! - a character past the end of a line's content is clamped to the end of that content (the
//!   line terminator is never part of a line's length);
//! - `line == line_count` with `character == 0` is the end of the document (editors use it to
//!   address "after the last line"); any other position past the last line is an error;
//! - a position inside a UTF-16 surrogate pair or inside a UTF-8 sequence is an error.

use std::ops::Range;

use ropey::Rope;

use crate::position::{PositionEncoding, PositionError, TextPosition, TextRange};

/// A read-only view of a rope that answers position questions in O(log n).
#[derive(Clone, Copy)]
pub struct LineIndex<'a> {
    rope: &'a Rope,
}

impl<'a> LineIndex<'a> {
    pub fn new(rope: &'a Rope) -> Self {
        Self { rope }
    }

    /// The number of lines. A text ending in a line break has an empty last line, so `""` has
    /// one line and `"a\n"` has two.
    pub fn line_count(&self) -> u32 {
        saturating_u32(self.rope.len_lines())
    }

    pub fn len_bytes(&self) -> usize {
        self.rope.len_bytes()
    }

    /// The byte range of a line's content, without its terminator, or `None` when the line
    /// does not exist.
    pub fn line_content(&self, line: u32) -> Option<Range<usize>> {
        let line = line as usize;
        if line >= self.rope.len_lines() {
            return None;
        }
        let start = self.rope.line_to_byte(line);
        Some(start..self.content_end(line, start))
    }

    /// The byte offset of `position`, with the clamping rules of the module documentation.
    pub fn offset(
        &self,
        position: TextPosition,
        encoding: PositionEncoding,
    ) -> Result<usize, PositionError> {
        let line_count = self.rope.len_lines();
        let line = position.line as usize;
        if line >= line_count {
            if line == line_count && position.character == 0 {
                return Ok(self.rope.len_bytes());
            }
            return Err(PositionError::LineOutOfRange {
                position,
                line_count: saturating_u32(line_count),
            });
        }
        let start = self.rope.line_to_byte(line);
        let end = self.content_end(line, start);
        let character = position.character as usize;
        match encoding {
            PositionEncoding::Utf8 => {
                let target = start.saturating_add(character).min(end);
                if !self.is_char_boundary(target) {
                    return Err(PositionError::InsideCharacter { position });
                }
                Ok(target)
            }
            PositionEncoding::Utf16 => {
                let start_cu = self.utf16_at(start);
                let target_cu = start_cu.saturating_add(character).min(self.utf16_at(end));
                let char_idx = self.rope.utf16_cu_to_char(target_cu);
                if self.rope.char_to_utf16_cu(char_idx) != target_cu {
                    return Err(PositionError::InsideCharacter { position });
                }
                Ok(self.rope.char_to_byte(char_idx))
            }
        }
    }

    /// The position of a byte offset. An offset inside a line terminator (between `\r` and
    /// `\n`) maps to the end of that line, since LSP positions cannot address it.
    pub fn position(
        &self,
        offset: usize,
        encoding: PositionEncoding,
    ) -> Result<TextPosition, PositionError> {
        let len = self.rope.len_bytes();
        if offset > len {
            return Err(PositionError::OffsetOutOfRange { offset, len });
        }
        if !self.is_char_boundary(offset) {
            return Err(PositionError::OffsetInsideCharacter { offset });
        }
        let line = self.rope.byte_to_line(offset);
        let start = self.rope.line_to_byte(line);
        let offset = offset.min(self.content_end(line, start));
        let character = match encoding {
            PositionEncoding::Utf8 => offset - start,
            PositionEncoding::Utf16 => self.utf16_at(offset) - self.utf16_at(start),
        };
        Ok(TextPosition::new(
            saturating_u32(line),
            saturating_u32(character),
        ))
    }

    /// The byte range of `range`. Both ends are clamped like `offset`; a start after the end
    /// is an error.
    pub fn byte_range(
        &self,
        range: TextRange,
        encoding: PositionEncoding,
    ) -> Result<Range<usize>, PositionError> {
        let start = self.offset(range.start, encoding)?;
        let end = self.offset(range.end, encoding)?;
        if start > end {
            return Err(PositionError::StartAfterEnd { range });
        }
        Ok(start..end)
    }

    /// The editor range of a byte range.
    pub fn text_range(
        &self,
        bytes: Range<usize>,
        encoding: PositionEncoding,
    ) -> Result<TextRange, PositionError> {
        Ok(TextRange::new(
            self.position(bytes.start, encoding)?,
            self.position(bytes.end, encoding)?,
        ))
    }

    /// The end of the content of `line` (which starts at byte `start`), before its terminator.
    fn content_end(&self, line: usize, start: usize) -> usize {
        if line + 1 >= self.rope.len_lines() {
            return self.rope.len_bytes();
        }
        // Every line but the last ends with exactly one of "\n", "\r\n" or "\r".
        let next = self.rope.line_to_byte(line + 1);
        if self.rope.byte(next - 1) == b'\n'
            && next >= start + 2
            && self.rope.byte(next - 2) == b'\r'
        {
            next - 2
        } else {
            next - 1
        }
    }

    fn is_char_boundary(&self, offset: usize) -> bool {
        // UTF-8 continuation bytes are 0b10xx_xxxx.
        offset == self.rope.len_bytes() || self.rope.byte(offset) & 0xC0 != 0x80
    }

    fn utf16_at(&self, offset: usize) -> usize {
        self.rope.char_to_utf16_cu(self.rope.byte_to_char(offset))
    }
}

/// The byte range of the content of 0-based `line` in `text`, without its terminator; `None`
/// past the last line. Lines break where [`LineIndex`] breaks them, which is where javac does
/// (JLS 3.4), so a 1-based line of a stack trace or a compiler diagnostic is line `n - 1`
/// here. For text held as a string; O(length).
pub fn text_line(text: &str, line: usize) -> Option<Range<usize>> {
    use ropey::str_utils::{byte_to_line_idx, line_to_byte_idx};
    let last = byte_to_line_idx(text, text.len());
    if line > last {
        return None;
    }
    let start = line_to_byte_idx(text, line);
    if line == last {
        return Some(start..text.len());
    }
    let next = line_to_byte_idx(text, line + 1);
    let terminator = if text[..next].ends_with("\r\n") { 2 } else { 1 };
    Some(start..next - terminator)
}

fn saturating_u32(value: usize) -> u32 {
    u32::try_from(value).unwrap_or(u32::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;
    use PositionEncoding::{Utf16, Utf8};

    fn pos(line: u32, character: u32) -> TextPosition {
        TextPosition::new(line, character)
    }

    /// Checks that `offset` and `position` map into each other in `encoding`.
    fn check_round_trip(text: &str, encoding: PositionEncoding, pairs: &[(usize, (u32, u32))]) {
        let rope = Rope::from_str(text);
        let index = LineIndex::new(&rope);
        for &(offset, (line, character)) in pairs {
            assert_eq!(
                index.position(offset, encoding),
                Ok(pos(line, character)),
                "position of byte {offset} in {text:?} ({encoding:?})"
            );
            assert_eq!(
                index.offset(pos(line, character), encoding),
                Ok(offset),
                "offset of {line}:{character} in {text:?} ({encoding:?})"
            );
        }
    }

    #[test]
    fn only_lsp_line_breaks_split_lines() {
        // U+2028, U+2029, NEL, VT and FF are line breaks for ropey's default `unicode_lines`
        // feature but not for LSP; Java sources do contain form feeds.
        let rope = Rope::from_str("a\u{2028}b\u{2029}c\u{85}d\u{b}e\u{c}f");
        assert_eq!(LineIndex::new(&rope).line_count(), 1);
        let rope = Rope::from_str("a\nb\r\nc\rd");
        assert_eq!(LineIndex::new(&rope).line_count(), 4);
    }

    #[test]
    fn ascii() {
        let text = "class A {\n  int x;\n}";
        for encoding in [Utf8, Utf16] {
            check_round_trip(
                text,
                encoding,
                &[
                    (0, (0, 0)),
                    (9, (0, 9)),
                    (10, (1, 0)),
                    (12, (1, 2)),
                    (19, (2, 0)),
                    (20, (2, 1)),
                ],
            );
        }
    }

    #[test]
    fn two_byte_char() {
        // 'é' is 2 UTF-8 bytes and 1 UTF-16 unit.
        let text = "s = \"é\";\nx";
        check_round_trip(
            text,
            Utf8,
            &[(5, (0, 5)), (7, (0, 7)), (9, (0, 9)), (10, (1, 0))],
        );
        check_round_trip(
            text,
            Utf16,
            &[(5, (0, 5)), (7, (0, 6)), (9, (0, 8)), (10, (1, 0))],
        );
    }

    #[test]
    fn three_byte_char() {
        // '中' is 3 UTF-8 bytes and 1 UTF-16 unit.
        let text = "中文\n中";
        check_round_trip(
            text,
            Utf8,
            &[(3, (0, 3)), (6, (0, 6)), (7, (1, 0)), (10, (1, 3))],
        );
        check_round_trip(
            text,
            Utf16,
            &[(3, (0, 1)), (6, (0, 2)), (7, (1, 0)), (10, (1, 1))],
        );
    }

    #[test]
    fn astral_char() {
        // '😀' is 4 UTF-8 bytes and a UTF-16 surrogate pair.
        let text = "a😀b";
        check_round_trip(text, Utf8, &[(1, (0, 1)), (5, (0, 5)), (6, (0, 6))]);
        check_round_trip(text, Utf16, &[(1, (0, 1)), (5, (0, 3)), (6, (0, 4))]);
    }

    #[test]
    fn positions_inside_a_character_are_errors() {
        let rope = Rope::from_str("a😀é中");
        let index = LineIndex::new(&rope);
        for character in [2, 3, 4, 6, 8, 9] {
            assert_eq!(
                index.offset(pos(0, character), Utf8),
                Err(PositionError::InsideCharacter {
                    position: pos(0, character)
                })
            );
        }
        assert_eq!(
            index.offset(pos(0, 2), Utf16),
            Err(PositionError::InsideCharacter {
                position: pos(0, 2)
            })
        );
        assert_eq!(index.offset(pos(0, 3), Utf16), Ok(5));
        assert_eq!(
            index.position(2, Utf8),
            Err(PositionError::OffsetInsideCharacter { offset: 2 })
        );
    }

    #[test]
    fn crlf_and_lone_cr() {
        let text = "ab\r\ncd\ref\n\r\n";
        for encoding in [Utf8, Utf16] {
            check_round_trip(
                text,
                encoding,
                &[
                    (2, (0, 2)),
                    (4, (1, 0)),
                    (6, (1, 2)),
                    (7, (2, 0)),
                    (9, (2, 2)),
                    (10, (3, 0)),
                    (12, (4, 0)),
                ],
            );
        }
        let rope = Rope::from_str(text);
        let index = LineIndex::new(&rope);
        assert_eq!(index.line_count(), 5);
        // Between '\r' and '\n' is not addressable: it maps to the end of the line.
        assert_eq!(index.position(3, Utf16), Ok(pos(0, 2)));
        assert_eq!(index.line_content(0), Some(0..2));
        assert_eq!(index.line_content(1), Some(4..6));
        assert_eq!(index.line_content(3), Some(10..10));
        assert_eq!(index.line_content(4), Some(12..12));
        assert_eq!(index.line_content(5), None);
    }

    #[test]
    fn lines_of_a_string_are_the_lines_of_a_rope() {
        let text = "ab\r\ncd\ref\n\r\n";
        let lines: Vec<&str> = (0..6)
            .map_while(|line| text_line(text, line).map(|r| &text[r]))
            .collect();
        assert_eq!(lines, ["ab", "cd", "ef", "", ""]);
        let rope = Rope::from_str(text);
        let index = LineIndex::new(&rope);
        for line in 0..5 {
            assert_eq!(text_line(text, line), index.line_content(line as u32));
        }
        assert_eq!(text_line("", 0), Some(0..0));
        assert_eq!(text_line("", 1), None);
    }

    #[test]
    fn character_past_line_end_clamps_to_line_end() {
        let rope = Rope::from_str("ab\r\ncé\nx");
        let index = LineIndex::new(&rope);
        assert_eq!(index.offset(pos(0, 3), Utf16), Ok(2));
        assert_eq!(index.offset(pos(0, 100), Utf8), Ok(2));
        assert_eq!(index.offset(pos(1, 3), Utf16), Ok(7));
        assert_eq!(index.offset(pos(1, u32::MAX), Utf8), Ok(7));
        assert_eq!(index.offset(pos(2, 5), Utf16), Ok(9));
    }

    #[test]
    fn empty_document() {
        let rope = Rope::new();
        let index = LineIndex::new(&rope);
        assert_eq!(index.line_count(), 1);
        for encoding in [Utf8, Utf16] {
            assert_eq!(index.offset(pos(0, 0), encoding), Ok(0));
            assert_eq!(index.offset(pos(0, 7), encoding), Ok(0));
            assert_eq!(index.offset(pos(1, 0), encoding), Ok(0));
            assert_eq!(index.position(0, encoding), Ok(pos(0, 0)));
        }
        assert_eq!(
            index.offset(pos(1, 1), Utf16),
            Err(PositionError::LineOutOfRange {
                position: pos(1, 1),
                line_count: 1
            })
        );
    }

    #[test]
    fn end_of_document() {
        let rope = Rope::from_str("a\nbc");
        let index = LineIndex::new(&rope);
        assert_eq!(index.position(4, Utf16), Ok(pos(1, 2)));
        assert_eq!(index.offset(pos(1, 2), Utf16), Ok(4));
        // (line_count, 0) addresses the end of the document.
        assert_eq!(index.offset(pos(2, 0), Utf16), Ok(4));
        assert_eq!(
            index.offset(pos(3, 0), Utf16),
            Err(PositionError::LineOutOfRange {
                position: pos(3, 0),
                line_count: 2
            })
        );
        assert_eq!(
            index.position(5, Utf16),
            Err(PositionError::OffsetOutOfRange { offset: 5, len: 4 })
        );
    }

    #[test]
    fn ranges() {
        let rope = Rope::from_str("中\n😀x");
        let index = LineIndex::new(&rope);
        let range = TextRange::new(pos(0, 1), pos(1, 2));
        assert_eq!(index.byte_range(range, Utf16), Ok(3..8));
        assert_eq!(index.text_range(3..8, Utf16), Ok(range));
        let backwards = TextRange::new(pos(1, 0), pos(0, 1));
        assert_eq!(
            index.byte_range(backwards, Utf16),
            Err(PositionError::StartAfterEnd { range: backwards })
        );
    }
}
