//! The text of a Java `String` or `char`, which a Rust `String` cannot always hold.
//!
//! A Java string is a sequence of UTF-16 code units and Java never checks that it is
//! well-formed: `"😀".charAt(0)`, `(char) (c + k)` or a `substring` through a surrogate pair
//! give a *lone surrogate*, which no Unicode scalar value (and so no Rust `char`) stands for.
//! [`JavaText`] keeps such text exactly, as its code units, and every other text as a `String`,
//! so the common case costs what a `String` costs.

use std::borrow::Cow;
use std::fmt;

/// The text of a Java `String` (or of a `char`, as a one-unit text), exactly.
///
/// Invariant: text is kept as code units only when it is not well-formed UTF-16 (it holds a
/// lone surrogate); well-formed text is always kept as a `String`. So two texts are equal
/// exactly when their code units are, and [`JavaText::as_str`] is `None` exactly for text no
/// Rust string can hold.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct JavaText(Repr);

#[derive(Clone, PartialEq, Eq, Hash)]
enum Repr {
    Unicode(String),
    /// Not well-formed: at least one surrogate has no partner.
    Utf16(Vec<u16>),
}

impl JavaText {
    /// The text of these code units, whatever they hold.
    pub fn from_utf16(units: Vec<u16>) -> JavaText {
        match String::from_utf16(&units) {
            Ok(s) => JavaText(Repr::Unicode(s)),
            Err(_) => JavaText(Repr::Utf16(units)),
        }
    }

    /// The text as a Rust string; `None` when it holds a lone surrogate.
    pub fn as_str(&self) -> Option<&str> {
        match &self.0 {
            Repr::Unicode(s) => Some(s),
            Repr::Utf16(_) => None,
        }
    }

    /// The text with every lone surrogate replaced by U+FFFD, for showing it to people.
    pub fn to_string_lossy(&self) -> Cow<'_, str> {
        match &self.0 {
            Repr::Unicode(s) => Cow::Borrowed(s),
            Repr::Utf16(units) => Cow::Owned(String::from_utf16_lossy(units)),
        }
    }

    /// The code units, in order (what `String.charAt` gives in Java).
    pub fn code_units(&self) -> impl Iterator<Item = u16> + '_ {
        let (text, units) = match &self.0 {
            Repr::Unicode(s) => (Some(s.encode_utf16()), None),
            Repr::Utf16(units) => (None, Some(units.iter().copied())),
        };
        text.into_iter()
            .flatten()
            .chain(units.into_iter().flatten())
    }

    /// The text decoded: each character, or `Err` with a lone surrogate's code unit.
    pub fn decode(&self) -> impl Iterator<Item = Result<char, u16>> + '_ {
        char::decode_utf16(self.code_units()).map(|r| r.map_err(|e| e.unpaired_surrogate()))
    }

    /// The number of code units (Java's `String.length()`).
    pub fn utf16_len(&self) -> usize {
        match &self.0 {
            Repr::Unicode(s) => s.encode_utf16().count(),
            Repr::Utf16(units) => units.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        match &self.0 {
            Repr::Unicode(s) => s.is_empty(),
            // Not well-formed text holds at least one unit.
            Repr::Utf16(_) => false,
        }
    }
}

impl From<String> for JavaText {
    fn from(s: String) -> JavaText {
        JavaText(Repr::Unicode(s))
    }
}

impl From<&str> for JavaText {
    fn from(s: &str) -> JavaText {
        JavaText(Repr::Unicode(s.to_string()))
    }
}

/// Quoted like a `str`'s `Debug`, a lone surrogate as `\u{d83d}`.
impl fmt::Debug for JavaText {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.0 {
            Repr::Unicode(s) => fmt::Debug::fmt(s, f),
            Repr::Utf16(_) => {
                f.write_str("\"")?;
                for c in self.decode() {
                    match c {
                        Ok(c) => write!(f, "{}", c.escape_debug())?,
                        Err(unit) => write!(f, "\\u{{{unit:x}}}")?,
                    }
                }
                f.write_str("\"")
            }
        }
    }
}

/// Lossy, as [`JavaText::to_string_lossy`].
impl fmt::Display for JavaText {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_string_lossy())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The code units of "a😀b".
    const PAIR: [u16; 4] = [0x61, 0xd83d, 0xde00, 0x62];

    #[test]
    fn well_formed_units_become_a_string() {
        let text = JavaText::from_utf16(PAIR.to_vec());
        assert_eq!(text.as_str(), Some("a😀b"));
        assert_eq!(text, JavaText::from("a😀b"));
        assert_eq!(text.utf16_len(), 4);
        assert_eq!(text.code_units().collect::<Vec<_>>(), PAIR);
        assert_eq!(JavaText::from_utf16(Vec::new()), JavaText::from(""));
        assert!(JavaText::from("").is_empty());
    }

    #[test]
    fn lone_surrogates_are_kept_exactly() {
        for units in [
            vec![0xd83d],
            vec![0xde00],
            vec![0x61, 0xd83d],
            vec![0xde00, 0xd83d],
            vec![0xd83d, 0xd83d, 0xde00],
        ] {
            let text = JavaText::from_utf16(units.clone());
            assert_eq!(text.as_str(), None, "{units:x?}");
            assert_eq!(text.code_units().collect::<Vec<_>>(), units);
            assert_eq!(text.utf16_len(), units.len());
            assert!(!text.is_empty());
            assert_ne!(text, JavaText::from(text.to_string_lossy().into_owned()));
        }
    }

    #[test]
    fn lone_surrogates_decode_as_errors_and_show_as_replacement_characters() {
        let text = JavaText::from_utf16(vec![0x61, 0xd83d, 0xd83d, 0xde00, 0xde00]);
        assert_eq!(
            text.decode().collect::<Vec<_>>(),
            [Ok('a'), Err(0xd83d), Ok('😀'), Err(0xde00)]
        );
        assert_eq!(text.to_string_lossy(), "a\u{fffd}😀\u{fffd}");
        assert_eq!(text.to_string(), "a\u{fffd}😀\u{fffd}");
        assert_eq!(format!("{text:?}"), r#""a\u{d83d}😀\u{de00}""#);
        assert_eq!(format!("{:?}", JavaText::from("a\"b")), r#""a\"b""#);
    }
}
