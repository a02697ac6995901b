//! Text blocks (JLS 3.10.6) as one-line string literals, so that a switch probe can list a
//! text-block case label among its constants without adding a line break.
//!
//! A text block's value is its content with line terminators normalised to `\n`, incidental
//! white space stripped as `String.stripIndent` strips it, then escape sequences translated as
//! `String.translateEscapes` translates them. The decoder follows those steps for text blocks
//! whose white space is spaces and tabs and that use no Unicode escape (javac translates those
//! before it even finds the literal); for any other it gives up, and the caller falls back.

/// The value of the text block whose source text (delimiters included) is `raw`, or `None`
/// when it is not a text block this decoder follows.
pub(super) fn text_block_value(raw: &str) -> Option<String> {
    let rest = raw.strip_prefix("\"\"\"")?;
    let body = rest.strip_suffix("\"\"\"")?;
    // The opening delimiter is followed by white space and a line terminator.
    let break_at = body.find(['\n', '\r'])?;
    if !body[..break_at].chars().all(is_white) {
        return None;
    }
    let content = &body[break_at..];
    let content = content
        .strip_prefix("\r\n")
        .or_else(|| content.strip_prefix('\n'))
        .or_else(|| content.strip_prefix('\r'))?;
    if content.contains("\\u") || content.chars().any(unsupported) {
        return None;
    }
    let normalised = content.replace("\r\n", "\n").replace('\r', "\n");
    translate_escapes(&strip_indent(&normalised))
}

/// `s` as a Java string literal on one line: printable ASCII as itself, other characters as
/// escapes (a line break in the literal would move every later line).
pub(super) fn string_literal(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            // Three octal digits starting with 0 or 1, so a following digit is not taken in.
            c if (c as u32) < 0x20 || c as u32 == 0x7f => {
                out.push_str(&format!("\\{:03o}", c as u32));
            }
            c if c.is_ascii() => out.push(c),
            // Unicode escapes of characters that are neither line terminators, quotes nor
            // backslashes are safe to translate before lexing.
            c => {
                let mut units = [0u16; 2];
                for unit in c.encode_utf16(&mut units) {
                    out.push_str(&format!("\\u{unit:04x}"));
                }
            }
        }
    }
    out.push('"');
    out
}

/// The white space `String.stripIndent` strips, as far as this decoder admits it.
fn is_white(c: char) -> bool {
    c == ' ' || c == '\t'
}

/// Characters whose handling by `Character.isWhitespace` this decoder does not model: other
/// control characters and non-ASCII white space.
fn unsupported(c: char) -> bool {
    (c.is_control() && !matches!(c, '\t' | '\n' | '\r')) || (!c.is_ascii() && c.is_whitespace())
}

/// `String.stripIndent` on content whose line terminators are `\n`: the smallest indentation
/// of the non-blank lines and of the last line (the closing delimiter's, blank or not) is
/// removed from every line, trailing white space from every line, and blank lines become
/// empty. Content that ends with a line break keeps every indentation.
fn strip_indent(content: &str) -> String {
    let lines: Vec<&str> = content.split('\n').collect();
    let ends_with_break = content.ends_with('\n');
    let indent = |line: &str| line.chars().take_while(|c| is_white(*c)).count();
    let blank = |line: &str| line.chars().all(is_white);
    let outdent = if ends_with_break {
        0
    } else {
        let last = lines.last().copied().unwrap_or("");
        lines
            .iter()
            .filter(|l| !blank(l))
            .map(|l| indent(l))
            .chain(blank(last).then(|| last.chars().count()))
            .min()
            .unwrap_or(0)
    };
    // `split` gives an empty last piece after a final line break, which `String.lines` does
    // not count as a line; the break itself is put back by the join.
    let counted = if ends_with_break {
        &lines[..lines.len() - 1]
    } else {
        &lines[..]
    };
    let stripped: Vec<String> = counted
        .iter()
        .map(|line| {
            if blank(line) {
                return String::new();
            }
            let skip = indent(line).min(outdent);
            line.chars()
                .skip(skip)
                .collect::<String>()
                .trim_end_matches(is_white)
                .to_string()
        })
        .collect();
    let mut out = stripped.join("\n");
    if ends_with_break {
        out.push('\n');
    }
    out
}

/// `String.translateEscapes`: `\b \t \n \f \r \s \" \' \\`, octal escapes up to `\377`, and a
/// backslash before a line break joins the lines. `None` on an escape javac would reject.
fn translate_escapes(s: &str) -> Option<String> {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next()? {
            'b' => out.push('\u{8}'),
            't' => out.push('\t'),
            'n' => out.push('\n'),
            'f' => out.push('\u{c}'),
            'r' => out.push('\r'),
            's' => out.push(' '),
            '"' => out.push('"'),
            '\'' => out.push('\''),
            '\\' => out.push('\\'),
            '\n' => {}
            first @ '0'..='7' => {
                let max_digits = if first <= '3' { 3 } else { 2 };
                let mut value = first.to_digit(8)?;
                for _ in 1..max_digits {
                    match chars.peek().and_then(|d| d.to_digit(8)) {
                        Some(d) => {
                            value = value * 8 + d;
                            chars.next();
                        }
                        None => break,
                    }
                }
                out.push(char::from_u32(value)?);
            }
            _ => return None,
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn value(raw: &str) -> Option<String> {
        text_block_value(raw)
    }

    #[test]
    fn incidental_white_space_is_the_least_indentation_including_the_closing_line() {
        assert_eq!(value("\"\"\"\n        a\"\"\"").as_deref(), Some("a"));
        assert_eq!(
            value("\"\"\"\n    a\n      b\n    \"\"\"").as_deref(),
            Some("a\n  b\n")
        );
        // The closing delimiter left of the content keeps some indentation.
        assert_eq!(value("\"\"\"\n    a\n  \"\"\"").as_deref(), Some("  a\n"));
        // Blank lines do not count, and trailing white space goes.
        assert_eq!(
            value("\"\"\"  \n    a  \n\n      b\t\"\"\"").as_deref(),
            Some("a\n\n  b")
        );
        // A closing delimiter at the start of a line keeps every indentation.
        assert_eq!(value("\"\"\"\n  a\n\"\"\"").as_deref(), Some("  a\n"));
        assert_eq!(value("\"\"\"\r\n  a\r\n  b\"\"\"").as_deref(), Some("a\nb"));
    }

    #[test]
    fn escapes_are_translated_after_stripping() {
        assert_eq!(
            value("\"\"\"\n    c\\t\n    \"\"\"").as_deref(),
            Some("c\t\n")
        );
        assert_eq!(value("\"\"\"\n  a\\s \n  \"\"\"").as_deref(), Some("a \n"));
        assert_eq!(
            value("\"\"\"\n  one \\\n  two\"\"\"").as_deref(),
            Some("one two")
        );
        assert_eq!(
            value("\"\"\"\n  \\\"q\\\" \\101\\0\\477\"\"\"").as_deref(),
            Some("\"q\" A\u{0}'7")
        );
        assert_eq!(value("\"\"\"\n  \\x\"\"\""), None);
    }

    #[test]
    fn what_the_decoder_does_not_follow_is_refused() {
        assert_eq!(value("\"a\""), None);
        assert_eq!(value("\"\"\" a\"\"\""), None);
        assert_eq!(value("\"\"\"\n  \\u0041\"\"\""), None);
        assert_eq!(value("\"\"\"\n  a\u{c}\"\"\""), None);
        assert_eq!(value("\"\"\"\n\u{2003}a\"\"\""), None);
        assert_eq!(value("\"\"\"\n  é\"\"\"").as_deref(), Some("é"));
    }

    #[test]
    fn string_literals_stay_on_one_line() {
        assert_eq!(string_literal("a\"b\\c"), r#""a\"b\\c""#);
        assert_eq!(string_literal("x\n\r\t\u{8}\u{c}"), r#""x\n\r\t\b\f""#);
        assert_eq!(string_literal("\u{1}7\u{7f}"), r#""\0017\177""#);
        assert_eq!(string_literal("é😀"), r#""\u00e9\ud83d\ude00""#);
    }
}
