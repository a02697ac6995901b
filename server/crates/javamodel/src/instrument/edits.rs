//! Text edits of the instrumenter: insertions at byte offsets and replacements of operator
//! tokens, rendered in one pass. Owns the two invariants the rest relies on: nested wrappers
//! come out properly nested, and every original line stays on its line number.

use std::ops::Range;

/// How an insertion nests with others at the same offset. Lower layers are outer: a brace that
/// wraps a statement (0) opens before the probes that start a body (1), which open before a
/// statement's line probe (2), a `yield` keyword (3), a decision's probe call (4) and an
/// allocation's (5). Closing insertions at one offset come out in the reverse order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Layer {
    Brace = 0,
    BodyEntry = 1,
    Line = 2,
    Yield = 3,
    Decision = 4,
    Alloc = 5,
    Seed = 6,
}

#[derive(Debug)]
struct Insert {
    at: usize,
    /// Closes something that started earlier (rendered before the openings at `at`).
    close: bool,
    /// Length of the source range the insertion wraps; at one offset, larger wraps open first
    /// and close last.
    wrapped: usize,
    layer: Layer,
    seq: usize,
    text: String,
    site: Option<usize>,
}

#[derive(Debug)]
struct Replace {
    range: Range<usize>,
    text: String,
    site: Option<usize>,
}

#[derive(Debug, Default)]
pub(crate) struct Edits {
    inserts: Vec<Insert>,
    replaces: Vec<Replace>,
}

/// The rendered text and, per site index, the output byte range its edits span.
pub(crate) struct Rendered {
    pub text: String,
    pub site_ranges: Vec<Option<Range<usize>>>,
}

impl Edits {
    /// Inserts `text` at `at`, opening a wrapper around `wrapped` source bytes.
    pub fn open(
        &mut self,
        at: usize,
        wrapped: usize,
        layer: Layer,
        text: String,
        site: Option<usize>,
    ) {
        debug_assert!(!text.contains(['\n', '\r']), "insertions stay on one line");
        let seq = self.inserts.len();
        self.inserts.push(Insert {
            at,
            close: false,
            wrapped,
            layer,
            seq,
            text,
            site,
        });
    }

    /// Inserts `text` at `at`, closing a wrapper around `wrapped` source bytes.
    pub fn close(
        &mut self,
        at: usize,
        wrapped: usize,
        layer: Layer,
        text: String,
        site: Option<usize>,
    ) {
        debug_assert!(!text.contains(['\n', '\r']), "insertions stay on one line");
        let seq = self.inserts.len();
        self.inserts.push(Insert {
            at,
            close: true,
            wrapped,
            layer,
            seq,
            text,
            site,
        });
    }

    /// Replaces `range` of the source with `text`, followed by the line breaks `range`
    /// contained, so that the text after it keeps its line. Replaced ranges never overlap and
    /// never contain an insertion point strictly inside.
    pub fn replace(&mut self, src: &str, range: Range<usize>, text: &str, site: Option<usize>) {
        let mut out = text.to_string();
        out.push_str(&line_breaks(&src[range.clone()]));
        self.replaces.push(Replace {
            range,
            text: out,
            site,
        });
    }

    pub fn render(mut self, src: &str, sites: usize) -> Rendered {
        self.inserts.sort_by(|a, b| {
            a.at.cmp(&b.at).then_with(|| match (a.close, b.close) {
                (true, false) => std::cmp::Ordering::Less,
                (false, true) => std::cmp::Ordering::Greater,
                // Inner wrappers close first: smaller wrapped range, then higher layer, then
                // the one opened later.
                (true, true) => a
                    .wrapped
                    .cmp(&b.wrapped)
                    .then_with(|| b.layer.cmp(&a.layer))
                    .then_with(|| b.seq.cmp(&a.seq)),
                // Outer wrappers open first: larger wrapped range, then lower layer.
                (false, false) => b
                    .wrapped
                    .cmp(&a.wrapped)
                    .then_with(|| a.layer.cmp(&b.layer))
                    .then_with(|| a.seq.cmp(&b.seq)),
            })
        });
        self.replaces.sort_by_key(|r| r.range.start);
        let extra: usize = self.inserts.iter().map(|i| i.text.len()).sum::<usize>()
            + self.replaces.iter().map(|r| r.text.len()).sum::<usize>();
        let mut text = String::with_capacity(src.len() + extra);
        let mut site_ranges: Vec<Option<Range<usize>>> = vec![None; sites];
        let mut note = |site: Option<usize>, range: Range<usize>| {
            if let Some(s) = site {
                let slot = &mut site_ranges[s];
                *slot = Some(match slot.take() {
                    Some(r) => r.start.min(range.start)..r.end.max(range.end),
                    None => range,
                });
            }
        };
        let mut cursor = 0;
        let mut inserts = self.inserts.iter().peekable();
        let mut replaces = self.replaces.iter().peekable();
        loop {
            let next_insert = inserts.peek().map(|i| i.at);
            let next_replace = replaces.peek().map(|r| r.range.start);
            let at = match (next_insert, next_replace) {
                (None, None) => break,
                (Some(i), Some(r)) => i.min(r),
                (Some(i), None) => i,
                (None, Some(r)) => r,
            };
            if at > cursor {
                text.push_str(&src[cursor..at]);
                cursor = at;
            }
            if next_insert == Some(at) {
                let insert = inserts.next().expect("peeked");
                let start = text.len();
                text.push_str(&insert.text);
                note(insert.site, start..text.len());
            } else {
                let replace = replaces.next().expect("peeked");
                let start = text.len();
                text.push_str(&replace.text);
                note(replace.site, start..text.len());
                cursor = cursor.max(replace.range.end);
            }
        }
        text.push_str(&src[cursor..]);
        Rendered { text, site_ranges }
    }
}

/// The line breaks of `s` in order (`\r\n`, `\n` and `\r` each count as one, as in javac).
pub(crate) fn line_breaks(s: &str) -> String {
    let mut out = String::new();
    let bytes = s.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'\r' if bytes.get(i + 1) == Some(&b'\n') => {
                out.push_str("\r\n");
                i += 2;
                continue;
            }
            b'\r' => out.push('\r'),
            b'\n' => out.push('\n'),
            _ => {}
        }
        i += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nested_wrappers_open_outer_first_and_close_inner_first() {
        let src = "a<b";
        let mut e = Edits::default();
        e.open(0, 3, Layer::Decision, "C(".into(), Some(0));
        e.open(0, 1, Layer::Alloc, "A(".into(), Some(1));
        e.close(1, 1, Layer::Alloc, ")".into(), Some(1));
        e.replace(src, 1..2, ",", Some(0));
        e.close(3, 3, Layer::Decision, ")".into(), Some(0));
        let r = e.render(src, 2);
        assert_eq!(r.text, "C(A(a),b)");
        assert_eq!(r.site_ranges[0], Some(0..9));
        assert_eq!(r.site_ranges[1], Some(2..6));
    }

    #[test]
    fn replacements_keep_line_breaks() {
        let src = "x\r\n  == null;";
        let mut e = Edits::default();
        e.open(0, 12, Layer::Decision, "N(".into(), None);
        e.replace(src, 1..12, ")", None);
        let r = e.render(src, 0);
        assert_eq!(r.text, "N(x)\r\n;");
    }

    #[test]
    fn same_offset_layers_order_braces_entries_and_lines() {
        let src = "s;";
        let mut e = Edits::default();
        e.open(0, 2, Layer::Line, "L;".into(), None);
        e.open(0, 2, Layer::Brace, "{".into(), None);
        e.open(0, 2, Layer::BodyEntry, "E;".into(), None);
        e.close(2, 2, Layer::Brace, "}".into(), None);
        e.close(2, 2, Layer::Line, "X;".into(), None);
        assert_eq!(e.render(src, 0).text, "{E;L;s;X;}");
    }
}
