//! The constants of a class's source (numbers, characters, strings) read from its tree-sitter
//! tree, to seed the constant pool as EvoSuite seeds it from the class file's constant pool;
//! and those of the project's existing tests of the class, for the tests' pool.

use std::ops::Range;

use javamodel::literals::{integer_literal, IntegerLiteral};

use syntax::tree_sitter::{Node, Tree};

use crate::pool::ConstantPool;
use crate::value::PrimitiveValue;

impl ConstantPool {
    /// Every literal in `source`.
    pub fn from_source(source: &str, tree: &Tree) -> ConstantPool {
        ConstantPool::from_range(source, tree, 0..source.len())
    }

    /// The literals inside `decl` (the class under test with its nested types).
    pub fn from_type(source: &str, tree: &Tree, decl: &javamodel::TypeDecl) -> ConstantPool {
        ConstantPool::from_range(source, tree, decl.span.start_byte..decl.span.end_byte)
    }

    pub fn from_range(source: &str, tree: &Tree, range: Range<usize>) -> ConstantPool {
        let mut pool = ConstantPool::new();
        for v in literals_in(source, tree, range) {
            pool.add(v);
        }
        pool
    }
}

/// Distinct values of each kind the tests' pool keeps, the first found: enough for the
/// documents and keys of a few test classes, few enough that one of them is drawn often.
pub const TEST_CONSTANT_CAPACITY: usize = 200;

/// Longer string literals of tests are left out rather than cut: a cut JSON document or CSV
/// record is no longer valid input, and a long one is mostly expected output.
pub const MAX_TEST_STRING_CHARS: usize = 2000;

impl ConstantPool {
    /// The literals of the project's existing tests of the class (`sources`, in the order
    /// given), for [`crate::ValuePools::tests`]: at most [`TEST_CONSTANT_CAPACITY`] of each
    /// kind, strings up to [`MAX_TEST_STRING_CHARS`] characters, whole.
    pub fn from_tests<'a>(sources: impl IntoIterator<Item = &'a str>) -> ConstantPool {
        let literals = sources.into_iter().flat_map(|source| {
            let tree = syntax::parse_java(source, None);
            literals_in(source, &tree, 0..source.len())
        });
        let kept = literals.filter(|value| match value {
            PrimitiveValue::String(s) => s.chars().count() <= MAX_TEST_STRING_CHARS,
            _ => true,
        });
        ConstantPool::first_of(kept, TEST_CONSTANT_CAPACITY)
    }
}

/// The literals whose nodes lie inside `range`, in source order. A literal under a unary minus
/// is negative (`-2147483648` is `Integer.MIN_VALUE`). Text blocks and hexadecimal floating
/// literals are skipped: they rarely decide branches and Rust does not parse the latter.
pub fn literals_in(source: &str, tree: &Tree, range: Range<usize>) -> Vec<PrimitiveValue> {
    let mut out = Vec::new();
    let mut stack = vec![tree.root_node()];
    while let Some(node) = stack.pop() {
        if node.end_byte() <= range.start || node.start_byte() >= range.end {
            continue;
        }
        if let Some(v) = literal(source, node) {
            if node.start_byte() >= range.start && node.end_byte() <= range.end {
                out.push(v);
            }
            continue;
        }
        let mut cursor = node.walk();
        let children: Vec<Node<'_>> = node.children(&mut cursor).collect();
        stack.extend(children.into_iter().rev());
    }
    out
}

pub(crate) fn literal(source: &str, node: Node<'_>) -> Option<PrimitiveValue> {
    let text = source.get(node.byte_range())?;
    match node.kind() {
        "decimal_integer_literal"
        | "hex_integer_literal"
        | "octal_integer_literal"
        | "binary_integer_literal" => parse_integer(text, negated(source, node)),
        "decimal_floating_point_literal" => parse_float(text, negated(source, node)),
        "character_literal" => {
            let units = unescape(text.strip_prefix('\'')?.strip_suffix('\'')?)?;
            match units.as_slice() {
                [u] => char::from_u32(u32::from(*u)).map(PrimitiveValue::Char),
                _ => None,
            }
        }
        "string_literal" => {
            if text.starts_with("\"\"\"") {
                return None;
            }
            let units = unescape(text.strip_prefix('"')?.strip_suffix('"')?)?;
            String::from_utf16(&units).ok().map(PrimitiveValue::String)
        }
        _ => None,
    }
}

fn negated(source: &str, node: Node<'_>) -> bool {
    node.parent().is_some_and(|p| {
        p.kind() == "unary_expression"
            && p.child_by_field_name("operator")
                .and_then(|o| source.get(o.byte_range()))
                == Some("-")
    })
}

fn parse_integer(text: &str, negative: bool) -> Option<PrimitiveValue> {
    Some(match integer_literal(text, negative)? {
        IntegerLiteral::Int(v) => PrimitiveValue::Int(v),
        IntegerLiteral::Long(v) => PrimitiveValue::Long(v),
    })
}

fn parse_float(text: &str, negative: bool) -> Option<PrimitiveValue> {
    let t: String = text.chars().filter(|c| *c != '_').collect();
    let sign = if negative { -1.0 } else { 1.0 };
    if let Some(f) = t.strip_suffix(['f', 'F']) {
        return f
            .parse::<f32>()
            .ok()
            .map(|v| PrimitiveValue::Float(sign as f32 * v));
    }
    let d = t.strip_suffix(['d', 'D']).unwrap_or(&t);
    d.parse::<f64>()
        .ok()
        .map(|v| PrimitiveValue::Double(sign * v))
}

/// Decodes Java escapes (including `\uXXXX` and octal) into UTF-16 code units.
fn unescape(body: &str) -> Option<Vec<u16>> {
    let chars: Vec<char> = body.chars().collect();
    let mut out = Vec::with_capacity(chars.len());
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c != '\\' {
            let mut buf = [0u16; 2];
            out.extend_from_slice(c.encode_utf16(&mut buf));
            i += 1;
            continue;
        }
        let next = *chars.get(i + 1)?;
        i += 2;
        let unit = match next {
            'b' => 0x08,
            't' => 0x09,
            'n' => 0x0a,
            'f' => 0x0c,
            'r' => 0x0d,
            's' => 0x20,
            '"' => 0x22,
            '\'' => 0x27,
            '\\' => 0x5c,
            'u' => {
                while chars.get(i) == Some(&'u') {
                    i += 1;
                }
                let hex: String = chars.get(i..i + 4)?.iter().collect();
                i += 4;
                u16::from_str_radix(&hex, 16).ok()?
            }
            '0'..='7' => {
                // Up to three octal digits, at most \377.
                let max_len = if next <= '3' { 3 } else { 2 };
                let mut value = next.to_digit(8)?;
                let mut len = 1;
                while len < max_len {
                    match chars.get(i).and_then(|c| c.to_digit(8)) {
                        Some(d) => {
                            value = value * 8 + d;
                            i += 1;
                            len += 1;
                        }
                        None => break,
                    }
                }
                value as u16
            }
            _ => return None,
        };
        out.push(unit);
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn literals(src: &str) -> Vec<PrimitiveValue> {
        let tree = syntax::parse_java(src, None);
        literals_in(src, &tree, 0..src.len())
    }

    #[test]
    fn reads_numbers_chars_and_strings() {
        let src = r#"class A {
            long a = -2147483648, b = 0x7fff_ffffL, c = -9223372036854775808L;
            int d = 017, e = 0b101, f = 0xFFFFFFFF, g = 1_000;
            double h = 1.5e3, i = -.25; float j = 2.5f;
            char k = 'x', l = '\n', m = '\u0041', n = '\101';
            String o = "a\tb\"c", p = "\uD83D\uDE00";
            String q = """
                text block
                """;
        }"#;
        let expected = vec![
            PrimitiveValue::Int(i32::MIN),
            PrimitiveValue::Long(0x7fff_ffff),
            PrimitiveValue::Long(i64::MIN),
            PrimitiveValue::Int(15),
            PrimitiveValue::Int(5),
            PrimitiveValue::Int(-1),
            PrimitiveValue::Int(1000),
            PrimitiveValue::Double(1500.0),
            PrimitiveValue::Double(-0.25),
            PrimitiveValue::Float(2.5),
            PrimitiveValue::Char('x'),
            PrimitiveValue::Char('\n'),
            PrimitiveValue::Char('A'),
            PrimitiveValue::Char('A'),
            PrimitiveValue::String("a\tb\"c".into()),
            PrimitiveValue::String("\u{1F600}".into()),
        ];
        assert_eq!(literals(src), expected);
    }

    #[test]
    fn the_tests_pool_keeps_whole_documents_in_order_and_leaves_out_overlong_strings() {
        let long = "x".repeat(MAX_TEST_STRING_CHARS + 1);
        let first = r#"class ParserTest { void t() { parse("{\"k\":[1,2]}"); parse("a"); } }"#;
        let second = format!("class MoreTest {{ String s = \"{long}\", t = \"a\", u = \"b\"; }}");
        let pool = ConstantPool::from_tests([first, second.as_str()]);
        assert_eq!(
            pool.candidates(crate::value::LiteralKind::String),
            ["{\"k\":[1,2]}", "a", "b"]
                .map(|s| PrimitiveValue::String(s.into()))
                .to_vec()
        );
        let many: String = (0..TEST_CONSTANT_CAPACITY + 5)
            .map(|i| format!("int f{i} = {i};"))
            .collect();
        let pool = ConstantPool::from_tests([format!("class T {{ {many} }}").as_str()]);
        assert_eq!(pool.len(), TEST_CONSTANT_CAPACITY);
    }

    #[test]
    fn a_range_limits_the_literals_to_one_type() {
        let src = "class A { int x = 1; }\nclass B { int y = 2; String s = \"b\"; }\n";
        let tree = syntax::parse_java(src, None);
        let start = src.find("class B").unwrap();
        let values = literals_in(src, &tree, start..src.len());
        assert_eq!(
            values,
            vec![PrimitiveValue::Int(2), PrimitiveValue::String("b".into())]
        );
    }
}
