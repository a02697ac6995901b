//! Java literals that denote exactly the value they were printed from.
//!
//! Unicode escapes are translated before Java lexes a file, so `\u000a` inside a literal ends
//! the line and `\u0022` ends a string: line breaks, quotes and backslashes always get their
//! named escapes, and `\uXXXX` is used only for the other control and non-ASCII characters.
//! Since an escape stands for one UTF-16 code unit, a lone surrogate (Java text that is not
//! valid Unicode) is its escape too, and javac reads it back as that very code unit.
//! Floats print as the shortest decimal that reads back to the same bits (javac rounds to
//! nearest like Rust's formatter), with named constants for NaN and the infinities.

use javatext::JavaText;

use crate::types::PrimitiveKind;
use crate::value::PrimitiveValue;

pub fn string_literal(text: &str) -> String {
    quoted(text.len(), text.chars().map(Ok))
}

/// A String literal that javac reads back as exactly the code units of `text`, lone
/// surrogates included.
pub fn text_literal(text: &JavaText) -> String {
    match text.as_str() {
        Some(s) => string_literal(s),
        None => quoted(text.utf16_len(), text.decode()),
    }
}

/// A String literal of characters and lone surrogates (`Err`).
fn quoted(capacity: usize, chars: impl Iterator<Item = Result<char, u16>>) -> String {
    let mut out = String::with_capacity(capacity + 2);
    out.push('"');
    for c in chars {
        match c {
            Ok('"') => out.push_str("\\\""),
            Ok(c) => escape_into(c, &mut out),
            Err(unit) => unit_escape_into(unit, &mut out),
        }
    }
    out.push('"');
    out
}

/// A char literal. Characters outside the Basic Multilingual Plane are not Java chars; a
/// [`PrimitiveValue::Char`] never holds one, and callers pass only such characters.
pub fn char_literal(c: char) -> String {
    let mut out = String::from("'");
    match c {
        '\'' => out.push_str("\\'"),
        _ => escape_into(c, &mut out),
    }
    out.push('\'');
    out
}

/// A char literal of one UTF-16 code unit, which may be a lone surrogate (`'\ud83d'`).
pub fn char_unit_literal(unit: u16) -> String {
    match char::from_u32(u32::from(unit)) {
        Some(c) => char_literal(c),
        None => {
            let mut out = String::from("'");
            unit_escape_into(unit, &mut out);
            out.push('\'');
            out
        }
    }
}

fn unit_escape_into(unit: u16, out: &mut String) {
    out.push_str(&format!("\\u{unit:04x}"));
}

fn escape_into(c: char, out: &mut String) {
    match c {
        '\\' => out.push_str("\\\\"),
        '\n' => out.push_str("\\n"),
        '\r' => out.push_str("\\r"),
        '\t' => out.push_str("\\t"),
        '\u{8}' => out.push_str("\\b"),
        '\u{c}' => out.push_str("\\f"),
        ' '..='~' => out.push(c),
        _ => {
            let mut units = [0u16; 2];
            for unit in c.encode_utf16(&mut units) {
                unit_escape_into(*unit, out);
            }
        }
    }
}

pub fn int_literal(v: i32) -> String {
    match v {
        i32::MIN => "Integer.MIN_VALUE".into(),
        i32::MAX => "Integer.MAX_VALUE".into(),
        _ => v.to_string(),
    }
}

pub fn long_literal(v: i64) -> String {
    match v {
        i64::MIN => "Long.MIN_VALUE".into(),
        i64::MAX => "Long.MAX_VALUE".into(),
        _ => format!("{v}L"),
    }
}

pub fn float_literal(v: f32) -> String {
    if v.is_nan() {
        "Float.NaN".into()
    } else if v == f32::INFINITY {
        "Float.POSITIVE_INFINITY".into()
    } else if v == f32::NEG_INFINITY {
        "Float.NEGATIVE_INFINITY".into()
    } else {
        format!("{v:?}f")
    }
}

pub fn double_literal(v: f64) -> String {
    if v.is_nan() {
        "Double.NaN".into()
    } else if v == f64::INFINITY {
        "Double.POSITIVE_INFINITY".into()
    } else if v == f64::NEG_INFINITY {
        "Double.NEGATIVE_INFINITY".into()
    } else {
        format!("{v:?}")
    }
}

pub fn primitive_literal(v: &PrimitiveValue) -> String {
    match v {
        PrimitiveValue::Boolean(b) => b.to_string(),
        PrimitiveValue::Byte(b) => format!("(byte) {b}"),
        PrimitiveValue::Short(s) => format!("(short) {s}"),
        PrimitiveValue::Char(c) => char_literal(*c),
        PrimitiveValue::Int(i) => int_literal(*i),
        PrimitiveValue::Long(l) => long_literal(*l),
        PrimitiveValue::Float(f) => float_literal(*f),
        PrimitiveValue::Double(d) => double_literal(*d),
        PrimitiveValue::String(s) => string_literal(s),
    }
}

/// An integer as a literal of primitive `kind`; `None` when the value does not fit (or the
/// kind is not numeric). `char` prints as a char literal.
pub fn integer_as(kind: PrimitiveKind, v: i64) -> Option<String> {
    Some(match kind {
        PrimitiveKind::Byte => format!("(byte) {}", i8::try_from(v).ok()?),
        PrimitiveKind::Short => format!("(short) {}", i16::try_from(v).ok()?),
        PrimitiveKind::Int => int_literal(i32::try_from(v).ok()?),
        PrimitiveKind::Long => long_literal(v),
        PrimitiveKind::Char => char_unit_literal(u16::try_from(v).ok()?),
        // Java's widening to float/double rounds to nearest, as `as` does.
        PrimitiveKind::Float => float_literal(v as f32),
        PrimitiveKind::Double => double_literal(v as f64),
        PrimitiveKind::Boolean => return None,
    })
}

/// A literal of `value` converted to primitive `kind` by a widening conversion, as Java would
/// when passing it to a parameter of that kind; the value's own literal otherwise.
pub fn widened_literal(value: &PrimitiveValue, kind: PrimitiveKind) -> String {
    if value.kind() == crate::value::LiteralKind::Primitive(kind) {
        return primitive_literal(value);
    }
    let widened = match value {
        PrimitiveValue::Float(f) if kind == PrimitiveKind::Double => {
            Some(double_literal(f64::from(*f)))
        }
        _ => value.as_integer().and_then(|i| integer_as(kind, i)),
    };
    widened.unwrap_or_else(|| primitive_literal(value))
}

/// The tolerance of a floating-point assertion: 1e-6, relative to the expected value's
/// magnitude above 1 (values are compared exactly when they are not finite).
pub fn delta_for(expected: f64) -> String {
    if !expected.is_finite() || expected.abs() <= 1.0 {
        return "1.0E-6".into();
    }
    let exponent = expected.abs().log10().floor() as i32 - 6;
    format!("1.0E{exponent}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_escape_what_java_would_misread() {
        assert_eq!(string_literal("a\"b\\c"), r#""a\"b\\c""#);
        assert_eq!(string_literal("line\nnext\r\t"), r#""line\nnext\r\t""#);
        assert_eq!(
            string_literal("\u{0}é€😀"),
            r#""\u0000\u00e9\u20ac\ud83d\ude00""#
        );
        assert_eq!(string_literal("it's"), r#""it's""#);
        assert_eq!(char_literal('\''), r"'\''");
        assert_eq!(char_literal('"'), "'\"'");
        assert_eq!(char_literal('\u{0}'), r"'\u0000'");
        assert_eq!(char_literal('\n'), r"'\n'");
        assert_eq!(char_literal('\u{7f}'), r"'\u007f'");
    }

    #[test]
    fn lone_surrogates_are_written_as_the_code_units_they_are() {
        let text = |units: &[u16]| JavaText::from_utf16(units.to_vec());
        // "a" + the high half of U+1F600 + a quote, the low half alone, a whole pair.
        assert_eq!(text_literal(&text(&[0x61, 0xd83d, 0x22])), r#""a\ud83d\"""#);
        assert_eq!(text_literal(&text(&[0xde00])), r#""\ude00""#);
        assert_eq!(
            text_literal(&text(&[0xde00, 0xd83d, 0xde00, 0xd83d])),
            r#""\ude00\ud83d\ude00\ud83d""#
        );
        assert_eq!(text_literal(&"é\n".into()), string_literal("é\n"));
        assert_eq!(char_unit_literal(0xd83d), r"'\ud83d'");
        assert_eq!(char_unit_literal(0xdfff), r"'\udfff'");
        assert_eq!(char_unit_literal(u16::from(b'\'')), r"'\''");
        assert_eq!(char_unit_literal(0xe9), r"'\u00e9'");
        assert_eq!(
            integer_as(PrimitiveKind::Char, 0xd800),
            Some(r"'\ud800'".into())
        );
    }

    #[test]
    fn numbers_keep_their_exact_value() {
        assert_eq!(int_literal(i32::MIN), "Integer.MIN_VALUE");
        assert_eq!(int_literal(-5), "-5");
        assert_eq!(long_literal(i64::MIN), "Long.MIN_VALUE");
        assert_eq!(long_literal(7), "7L");
        assert_eq!(float_literal(f32::NAN), "Float.NaN");
        assert_eq!(float_literal(f32::INFINITY), "Float.POSITIVE_INFINITY");
        assert_eq!(float_literal(0.1), "0.1f");
        assert_eq!(float_literal(-0.0), "-0.0f");
        assert_eq!(float_literal(1e-45), "1e-45f");
        assert_eq!(
            double_literal(f64::NEG_INFINITY),
            "Double.NEGATIVE_INFINITY"
        );
        assert_eq!(double_literal(1.0), "1.0");
        assert_eq!(double_literal(1e300), "1e300");
        assert_eq!(double_literal(0.1 + 0.2), "0.30000000000000004");
        assert_eq!(
            primitive_literal(&PrimitiveValue::Byte(-128)),
            "(byte) -128"
        );
        assert_eq!(primitive_literal(&PrimitiveValue::Short(5)), "(short) 5");
    }

    #[test]
    fn widening_prints_the_target_kind() {
        let five = PrimitiveValue::Int(5);
        assert_eq!(widened_literal(&five, PrimitiveKind::Long), "5L");
        assert_eq!(widened_literal(&five, PrimitiveKind::Double), "5.0");
        assert_eq!(widened_literal(&five, PrimitiveKind::Int), "5");
        assert_eq!(
            widened_literal(&PrimitiveValue::Char('a'), PrimitiveKind::Int),
            "97"
        );
        assert_eq!(
            widened_literal(&PrimitiveValue::Float(0.5), PrimitiveKind::Double),
            "0.5"
        );
        assert_eq!(
            widened_literal(&PrimitiveValue::Long(16_777_217), PrimitiveKind::Float),
            "16777216.0f"
        );
    }

    #[test]
    fn deltas_scale_with_large_values() {
        assert_eq!(delta_for(0.5), "1.0E-6");
        assert_eq!(delta_for(f64::NAN), "1.0E-6");
        assert_eq!(delta_for(12345.0), "1.0E-2");
        assert_eq!(delta_for(-2.0e10), "1.0E4");
    }
}
