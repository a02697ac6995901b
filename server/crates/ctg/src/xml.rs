//! Just enough XML for build files: the element tree of a POM with each element's byte range,
//! so that Maven's coordinates, modules and dependencies can be read and a copy of the file
//! edited in place. Comments, processing instructions and DOCTYPE are skipped, CDATA is text;
//! entities other than the five predefined ones are left as written.

use std::ops::Range;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Element {
    pub name: String,
    /// From `<` of the start tag to after `>` of the end tag.
    pub span: Range<usize>,
    /// Between the start and end tags (empty for `<x/>`).
    pub inner: Range<usize>,
    pub children: Vec<Element>,
}

impl Element {
    pub fn child(&self, name: &str) -> Option<&Element> {
        self.children.iter().find(|c| c.name == name)
    }

    pub fn children_named<'a>(&'a self, name: &'a str) -> impl Iterator<Item = &'a Element> {
        self.children.iter().filter(move |c| c.name == name)
    }

    /// The element's text, trimmed and with predefined entities decoded (for elements without
    /// children).
    pub fn text(&self, xml: &str) -> String {
        // Character data outside CDATA sections has its entities decoded; a CDATA section's
        // content is taken as written.
        let mut text = String::new();
        let mut rest = &xml[self.inner.clone()];
        while let Some(start) = rest.find("<![CDATA[") {
            text.push_str(&decode_entities(&rest[..start]));
            let content = &rest[start + "<![CDATA[".len()..];
            let end = content.find("]]>").unwrap_or(content.len());
            text.push_str(&content[..end]);
            rest = content.get(end + "]]>".len()..).unwrap_or("");
        }
        text.push_str(&decode_entities(rest));
        text.trim().to_string()
    }

    /// The text of the child `name`, if there is one.
    pub fn child_text(&self, xml: &str, name: &str) -> Option<String> {
        self.child(name).map(|c| c.text(xml))
    }
}

fn decode_entities(text: &str) -> String {
    text.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&apos;", "'")
        .replace("&amp;", "&")
}

/// The root element of `xml`, or why the text is not XML this reader understands.
pub fn parse(xml: &str) -> Result<Element, String> {
    let mut stack: Vec<Element> = Vec::new();
    let mut root = None;
    let mut at = 0;
    let bytes = xml.as_bytes();
    while let Some(offset) = xml[at..].find('<') {
        let start = at + offset;
        let rest = &xml[start..];
        let skip_to = |end: &str| {
            rest.find(end)
                .map(|i| start + i + end.len())
                .ok_or_else(|| format!("unterminated markup at byte {start}"))
        };
        if rest.starts_with("<!--") {
            at = skip_to("-->")?;
        } else if rest.starts_with("<![CDATA[") {
            at = skip_to("]]>")?;
        } else if rest.starts_with("<?") {
            at = skip_to("?>")?;
        } else if rest.starts_with("<!") {
            at = skip_to(">")?;
        } else {
            let end =
                tag_end(bytes, start).ok_or_else(|| format!("unterminated tag at byte {start}"))?;
            let tag = &xml[start + 1..end - 1];
            if let Some(name) = tag.strip_prefix('/') {
                let name = name.trim();
                let mut element = stack
                    .pop()
                    .ok_or_else(|| format!("`</{name}>` without a start tag"))?;
                if element.name != name {
                    return Err(format!("`<{}>` closed by `</{name}>`", element.name));
                }
                element.inner.end = start;
                element.span.end = end;
                match stack.last_mut() {
                    Some(parent) => parent.children.push(element),
                    None => root = Some(element),
                }
            } else {
                let self_closing = tag.ends_with('/');
                let name: String = tag
                    .trim_end_matches('/')
                    .split(|c: char| c.is_whitespace())
                    .next()
                    .unwrap_or_default()
                    .to_string();
                let element = Element {
                    name,
                    span: start..end,
                    inner: end..end,
                    children: Vec::new(),
                };
                if self_closing {
                    match stack.last_mut() {
                        Some(parent) => parent.children.push(element),
                        None => root = Some(element),
                    }
                } else {
                    stack.push(element);
                }
            }
            at = end;
        }
        if root.is_some() {
            break;
        }
    }
    match (root, stack.last()) {
        (Some(root), _) => Ok(root),
        (None, Some(open)) => Err(format!("`<{}>` is never closed", open.name)),
        (None, None) => Err("no element".to_string()),
    }
}

/// The offset after the `>` closing the tag at `start`, skipping `>` inside quoted attributes.
fn tag_end(bytes: &[u8], start: usize) -> Option<usize> {
    let mut quote = None;
    for (i, &b) in bytes.iter().enumerate().skip(start + 1) {
        match (quote, b) {
            (None, b'"' | b'\'') => quote = Some(b),
            (Some(q), _) if q == b => quote = None,
            (None, b'>') => return Some(i + 1),
            _ => {}
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn elements_children_and_text() {
        let xml = "<?xml version=\"1.0\"?>\n<!-- a <fake> comment -->\n<project a=\"x>y\">\
                   <groupId> g &amp; h </groupId><modules><module>a</module><module>b</module>\
                   </modules><empty/><![CDATA[<notatag>]]></project>";
        let root = parse(xml).unwrap();
        assert_eq!(root.name, "project");
        assert_eq!(root.child_text(xml, "groupId").as_deref(), Some("g & h"));
        let modules: Vec<String> = root
            .child("modules")
            .unwrap()
            .children_named("module")
            .map(|m| m.text(xml))
            .collect();
        assert_eq!(modules, ["a", "b"]);
        assert!(root.child("empty").unwrap().inner.is_empty());
        let group = root.child("groupId").unwrap();
        assert_eq!(&xml[group.span.clone()], "<groupId> g &amp; h </groupId>");
    }

    #[test]
    fn broken_xml_is_an_error() {
        assert!(parse("<project><a></b></project>").is_err());
        assert!(parse("<project>").is_err());
        assert!(parse("no xml").is_err());
    }
}
