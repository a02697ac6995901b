//! The server's own types to LSP types.

use syntax::PositionEncoding;
use tower_lsp_server::ls_types::PositionEncodingKind;

pub fn position_encoding(encoding: PositionEncoding) -> PositionEncodingKind {
    match encoding {
        PositionEncoding::Utf8 => PositionEncodingKind::UTF8,
        PositionEncoding::Utf16 => PositionEncodingKind::UTF16,
    }
}
