//! Document text (a rope), its tree-sitter-java tree, and the conversion between byte offsets
//! and editor positions. Knows nothing of LSP, JSON or IO.
//!
//! Lines are Java's (JLS 3.4) and the editor's (LSP 3.17) everywhere: `\n`, `\r\n` and a lone
//! `\r` each end one, in tree rows as in positions.
//!
//! Modules: `position` (editor coordinates and changes, plain data), `line_index` (the only
//! offset <-> position conversion), `parse` (tree-sitter trees whose rows are JLS lines),
//! `document` (rope + tree + version, incremental edits), `tree_edit` (tree-sitter edits for
//! byte edits).

mod document;
mod line_index;
mod parse;
mod position;
mod tree_edit;

pub use document::{Document, EditError};
pub use line_index::{text_line, LineIndex};
pub use parse::parse_java;
pub use position::{
    ByteEdit, PositionEncoding, PositionError, TextChange, TextPosition, TextRange,
};
pub use ropey;
pub use tree_edit::input_edit;
pub use tree_sitter;
