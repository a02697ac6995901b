//! The server's own types to LSP types.

use syntax::PositionEncoding;
use tower_lsp_server::ls_types::PositionEncodingKind;

pub fn position_encoding(encoding: PositionEncoding) -> PositionEncodingKind {
    match encoding {
        PositionEncoding::Utf8 => PositionEncodingKind::UTF8,
        PositionEncoding::Utf16 => PositionEncodingKind::UTF16,
    }
}

pub fn position(position: syntax::TextPosition) -> tower_lsp_server::ls_types::Position {
    tower_lsp_server::ls_types::Position::new(position.line, position.character)
}

pub fn range(range: syntax::TextRange) -> tower_lsp_server::ls_types::Range {
    tower_lsp_server::ls_types::Range::new(position(range.start), position(range.end))
}
