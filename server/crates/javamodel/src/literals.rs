//! The values of Java integer literals as javac reads them (JLS 3.10.1): decimal, hex, octal
//! and binary, underscores, the `L` suffix; a non-decimal literal is a two's complement bit
//! pattern (`0xFFFFFFFF` is the `int` -1), a decimal one must fit its type once negated
//! (`-2147483648`). Shared by the source's value pool and the mutants' descriptions.

/// An integer literal's value, of the type its suffix gives it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IntegerLiteral {
    Int(i32),
    Long(i64),
}

impl IntegerLiteral {
    pub fn value(self) -> i64 {
        match self {
            IntegerLiteral::Int(v) => i64::from(v),
            IntegerLiteral::Long(v) => v,
        }
    }
}

/// The value of the integer literal `text`, negated when it is the operand of a unary minus
/// (`negative`); `None` for what javac would reject (too large for its type) or not a literal.
pub fn integer_literal(text: &str, negative: bool) -> Option<IntegerLiteral> {
    let t: String = text.chars().filter(|c| *c != '_').collect();
    let (t, long) = match t.strip_suffix(['l', 'L']) {
        Some(rest) => (rest.to_string(), true),
        None => (t, false),
    };
    let (digits, radix) = if let Some(h) = t.strip_prefix("0x").or(t.strip_prefix("0X")) {
        (h, 16)
    } else if let Some(b) = t.strip_prefix("0b").or(t.strip_prefix("0B")) {
        (b, 2)
    } else if t.len() > 1 && t.starts_with('0') {
        (&t[1..], 8)
    } else {
        (t.as_str(), 10)
    };
    let magnitude = u64::from_str_radix(digits, radix).ok()?;
    let signed = |m: i128| if negative { -m } else { m };
    if long {
        let v = if radix == 10 {
            i64::try_from(signed(i128::from(magnitude))).ok()?
        } else {
            let bits = magnitude as i64;
            if negative {
                bits.wrapping_neg()
            } else {
                bits
            }
        };
        Some(IntegerLiteral::Long(v))
    } else {
        let v = if radix == 10 {
            i32::try_from(signed(i128::from(magnitude))).ok()?
        } else {
            let bits = u32::try_from(magnitude).ok()? as i32;
            if negative {
                bits.wrapping_neg()
            } else {
                bits
            }
        };
        Some(IntegerLiteral::Int(v))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use IntegerLiteral::{Int, Long};

    #[test]
    fn literals_read_as_javac_reads_them() {
        assert_eq!(integer_literal("42", false), Some(Int(42)));
        assert_eq!(integer_literal("0x1F", false), Some(Int(31)));
        assert_eq!(integer_literal("0b101", false), Some(Int(5)));
        assert_eq!(integer_literal("017", false), Some(Int(15)));
        assert_eq!(integer_literal("1_000L", false), Some(Long(1000)));
        assert_eq!(integer_literal("0", false), Some(Int(0)));
        assert_eq!(integer_literal("0xFFFFFFFF", false), Some(Int(-1)));
        assert_eq!(integer_literal("2147483648", true), Some(Int(i32::MIN)));
        assert_eq!(
            integer_literal("2147483648", false),
            None,
            "too large for an int"
        );
        assert_eq!(
            integer_literal("0x8000000000000000L", false),
            Some(Long(i64::MIN))
        );
        assert_eq!(integer_literal("0x1FFFFFFFF", false), None);
    }
}
