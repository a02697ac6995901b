//! Editor coordinates (line + character in a negotiated encoding), text changes expressed in
//! them, and the byte edits they turn into. Plain data: no LSP types, no serde.

use std::fmt;

/// The unit in which `TextPosition::character` counts. UTF-16 is the LSP default; UTF-8 means
/// bytes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum PositionEncoding {
    Utf8,
    #[default]
    Utf16,
}

/// A zero-based line and a character offset within that line, counted in the units of a
/// `PositionEncoding`. Lines are separated by `\n`, `\r\n` or `\r`, as in LSP.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct TextPosition {
    pub line: u32,
    pub character: u32,
}

impl TextPosition {
    pub const fn new(line: u32, character: u32) -> Self {
        Self { line, character }
    }
}

impl fmt::Display for TextPosition {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.line, self.character)
    }
}

/// A half-open range `[start, end)` of positions.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct TextRange {
    pub start: TextPosition,
    pub end: TextPosition,
}

impl TextRange {
    pub const fn new(start: TextPosition, end: TextPosition) -> Self {
        Self { start, end }
    }
}

impl fmt::Display for TextRange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}-{}", self.start, self.end)
    }
}

/// One edit as an editor reports it: replace `range` with `text`, or the whole document when
/// `range` is `None`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TextChange {
    pub range: Option<TextRange>,
    pub text: String,
}

impl TextChange {
    pub fn replace(range: TextRange, text: impl Into<String>) -> Self {
        Self {
            range: Some(range),
            text: text.into(),
        }
    }

    pub fn full(text: impl Into<String>) -> Self {
        Self {
            range: None,
            text: text.into(),
        }
    }
}

/// An applied edit in byte offsets: bytes `start_byte..old_end_byte` of the text before the
/// edit became bytes `start_byte..new_end_byte` of the text after it. The same numbers as the
/// byte fields of tree-sitter's `InputEdit`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ByteEdit {
    pub start_byte: usize,
    pub old_end_byte: usize,
    pub new_end_byte: usize,
}

/// Why a position, offset or range does not denote a place in the document.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PositionError {
    /// The line does not exist. `(line_count, 0)` is accepted as the end of the document, so
    /// this is reported for `line > line_count` or `line == line_count` with a non-zero
    /// character.
    LineOutOfRange {
        position: TextPosition,
        line_count: u32,
    },
    /// The position falls between the code units of one character: inside a UTF-16 surrogate
    /// pair or inside a multi-byte UTF-8 sequence.
    InsideCharacter { position: TextPosition },
    /// A range whose start lies after its end (after clamping both to their lines).
    StartAfterEnd { range: TextRange },
    /// A byte offset beyond the end of the text.
    OffsetOutOfRange { offset: usize, len: usize },
    /// A byte offset that is not on a character boundary.
    OffsetInsideCharacter { offset: usize },
}

impl fmt::Display for PositionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PositionError::LineOutOfRange {
                position,
                line_count,
            } => write!(
                f,
                "position {position} is past the last line (the document has {line_count} lines)"
            ),
            PositionError::InsideCharacter { position } => {
                write!(f, "position {position} is inside a character")
            }
            PositionError::StartAfterEnd { range } => {
                write!(f, "range {range} starts after it ends")
            }
            PositionError::OffsetOutOfRange { offset, len } => {
                write!(
                    f,
                    "byte offset {offset} is past the end of the text ({len} bytes)"
                )
            }
            PositionError::OffsetInsideCharacter { offset } => {
                write!(f, "byte offset {offset} is inside a character")
            }
        }
    }
}

impl std::error::Error for PositionError {}
