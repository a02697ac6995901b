//! LSP types to the server's own types. Positions keep their numbers here: which unit
//! `character` counts is the negotiated encoding, applied by `syntax::LineIndex`.

use syntax::{PositionEncoding, TextChange, TextPosition, TextRange};
use tower_lsp_server::ls_types::{
    ClientCapabilities, Position, PositionEncodingKind, Range, TextDocumentContentChangeEvent,
};

pub fn position(position: Position) -> TextPosition {
    TextPosition::new(position.line, position.character)
}

pub fn range(range: Range) -> TextRange {
    TextRange::new(position(range.start), position(range.end))
}

/// The deprecated `rangeLength` field is ignored, as the specification allows: the range
/// alone says what is replaced.
pub fn text_change(change: TextDocumentContentChangeEvent) -> TextChange {
    TextChange {
        range: change.range.map(range),
        text: change.text,
    }
}

/// UTF-8 when the client offers it (no conversion needed on our side), else UTF-16, which
/// every client must support.
pub fn negotiate_encoding(capabilities: &ClientCapabilities) -> PositionEncoding {
    let offers_utf8 = capabilities
        .general
        .as_ref()
        .and_then(|general| general.position_encodings.as_ref())
        .is_some_and(|offered| offered.contains(&PositionEncodingKind::UTF8));
    if offers_utf8 {
        PositionEncoding::Utf8
    } else {
        PositionEncoding::Utf16
    }
}

#[cfg(test)]
mod tests {
    use tower_lsp_server::ls_types::GeneralClientCapabilities;

    use super::*;

    fn offering(encodings: Option<Vec<PositionEncodingKind>>) -> ClientCapabilities {
        ClientCapabilities {
            general: Some(GeneralClientCapabilities {
                position_encodings: encodings,
                ..Default::default()
            }),
            ..Default::default()
        }
    }

    #[test]
    fn utf8_is_chosen_only_when_offered() {
        use PositionEncodingKind as Kind;
        let cases = [
            (Some(vec![Kind::UTF16, Kind::UTF8]), PositionEncoding::Utf8),
            (
                Some(vec![Kind::UTF32, Kind::UTF16]),
                PositionEncoding::Utf16,
            ),
            (Some(vec![]), PositionEncoding::Utf16),
            (None, PositionEncoding::Utf16),
        ];
        for (offered, expected) in cases {
            assert_eq!(negotiate_encoding(&offering(offered)), expected);
        }
        assert_eq!(
            negotiate_encoding(&ClientCapabilities::default()),
            PositionEncoding::Utf16
        );
    }

    #[test]
    fn changes_keep_their_numbers() {
        let change = TextDocumentContentChangeEvent {
            range: Some(Range::new(Position::new(1, 2), Position::new(3, 4))),
            range_length: Some(99),
            text: "é".into(),
        };
        assert_eq!(
            text_change(change),
            TextChange::replace(
                TextRange::new(TextPosition::new(1, 2), TextPosition::new(3, 4)),
                "é"
            )
        );
    }
}
