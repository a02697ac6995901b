//! Text surgery on test classes for code actions: keep some test methods of a printed class,
//! insert methods and their imports into an existing class. Pure, on tree-sitter trees; byte
//! ranges out, the caller turns them into editor positions.

use std::collections::BTreeSet;
use std::ops::Range;

use syntax::tree_sitter::Node;

/// The source with every test method but those named in `keep` removed (with the blank lines
/// before them).
pub fn keep_only(source: &str, keep: &[&str]) -> String {
    let tree = syntax::parse_java(source, None);
    let mut removals: Vec<Range<usize>> = Vec::new();
    let Some(body) = first_class_body(tree.root_node()) else {
        return source.to_string();
    };
    let mut cursor = body.walk();
    let mut previous_end = None;
    for child in body.children(&mut cursor) {
        if child.kind() == "method_declaration" {
            let name = child
                .child_by_field_name("name")
                .map(|n| &source[n.byte_range()])
                .unwrap_or("");
            if !keep.contains(&name) {
                let start = previous_end.unwrap_or(child.start_byte());
                removals.push(start..child.end_byte());
                previous_end = Some(child.end_byte());
                continue;
            }
        }
        previous_end = Some(child.end_byte());
    }
    let mut out = source.to_string();
    for range in removals.into_iter().rev() {
        out.replace_range(range, "");
    }
    out
}

/// The import declarations of a source, as written (`import static org.x.Y.z;`).
pub fn imports(source: &str) -> Vec<String> {
    let tree = syntax::parse_java(source, None);
    let root = tree.root_node();
    let mut cursor = root.walk();
    root.children(&mut cursor)
        .filter(|n| n.kind() == "import_declaration")
        .map(|n| normalise(&source[n.byte_range()]))
        .collect()
}

fn normalise(import: &str) -> String {
    import.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The names of the methods of the first class of a source.
pub fn method_names(source: &str) -> BTreeSet<String> {
    let tree = syntax::parse_java(source, None);
    let mut names = BTreeSet::new();
    if let Some(body) = first_class_body(tree.root_node()) {
        let mut cursor = body.walk();
        for child in body.children(&mut cursor) {
            if child.kind() == "method_declaration" {
                if let Some(name) = child.child_by_field_name("name") {
                    names.insert(source[name.byte_range()].to_string());
                }
            }
        }
    }
    names
}

/// A method's source with its name changed (the first `name(` after the annotations).
pub fn rename_method(method: &str, from: &str, to: &str) -> String {
    let needle = format!("{from}(");
    match method.find(&format!(" {needle}")) {
        Some(at) => format!(
            "{}{to}{}",
            &method[..at + 1],
            &method[at + 1 + from.len()..]
        ),
        None => method.to_string(),
    }
}

/// Edits (byte ranges of `existing`, replacement text) that add `methods` to the first class of
/// `existing` and the `imports` it lacks. Methods whose names are taken get a number.
/// `None` when `existing` has no class to insert into.
pub fn insertion_edits(
    existing: &str,
    methods: &[(String, String)],
    imports_needed: &[String],
) -> Option<Vec<(Range<usize>, String)>> {
    let tree = syntax::parse_java(existing, None);
    let root = tree.root_node();
    let body = first_class_body(root)?;
    let close = body.end_byte().checked_sub(1)?;
    if existing.as_bytes().get(close) != Some(&b'}') {
        return None;
    }
    let mut taken = method_names(existing);
    let mut text = String::new();
    for (name, source) in methods {
        let mut unique = name.clone();
        let mut n = 2;
        while taken.contains(&unique) {
            unique = format!("{name}{n}");
            n += 1;
        }
        taken.insert(unique.clone());
        text.push('\n');
        text.push_str(&rename_method(source, name, &unique));
        text.push('\n');
    }
    let line_start = existing[..close].rfind('\n').map_or(0, |i| i + 1);
    let mut edits = Vec::new();
    if existing[line_start..close].trim().is_empty() {
        edits.push((line_start..line_start, text));
    } else {
        edits.push((close..close, text));
    }

    let present: BTreeSet<String> = imports(existing).into_iter().collect();
    let missing: Vec<&String> = imports_needed
        .iter()
        .filter(|i| !present.contains(&normalise(i)))
        .collect();
    if !missing.is_empty() {
        let mut cursor = root.walk();
        let children: Vec<Node> = root.children(&mut cursor).collect();
        let last_import = children
            .iter()
            .rev()
            .find(|n| n.kind() == "import_declaration");
        let package = children.iter().find(|n| n.kind() == "package_declaration");
        let lines: String = missing.iter().map(|i| format!("\n{i}")).collect();
        let edit = match (last_import, package) {
            (Some(import), _) => (import.end_byte()..import.end_byte(), lines),
            (None, Some(package)) => (package.end_byte()..package.end_byte(), format!("\n{lines}")),
            (None, None) => (0..0, format!("{}\n\n", lines.trim_start())),
        };
        edits.insert(0, edit);
    }
    Some(edits)
}

fn first_class_body(root: Node) -> Option<Node> {
    let mut cursor = root.walk();
    let class = root
        .children(&mut cursor)
        .find(|n| n.kind() == "class_declaration")?;
    class.child_by_field_name("body")
}

/// Applies byte edits (non-overlapping, any order) to a text; for tests and for files that
/// are not open.
pub fn apply(text: &str, edits: &[(Range<usize>, String)]) -> String {
    let mut sorted: Vec<_> = edits.iter().collect();
    sorted.sort_by_key(|(range, _)| std::cmp::Reverse(range.start));
    let mut out = text.to_string();
    for (range, replacement) in sorted {
        out.replace_range(range.clone(), replacement);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const SUITE: &str = "// Generated by ctgls 0.1.0. Regenerating replaces this file; do not edit.\npackage p;\n\nimport static org.junit.jupiter.api.Assertions.assertEquals;\n\nimport org.junit.jupiter.api.Test;\n\nclass AGeneratedTest {\n\n    @Test\n    void one() {\n        assertEquals(1, new A().one());\n    }\n\n    @Test\n    void two() {\n        assertEquals(2, new A().two());\n    }\n}\n";

    #[test]
    fn keeping_one_test_drops_the_others_and_their_blank_lines() {
        let three = SUITE.replace(
            "    @Test\n    void two()",
            "    @Test\n    void zero() {}\n\n    @Test\n    void two()",
        );
        let kept = keep_only(&three, &["one"]);
        assert!(!kept.contains("zero") && !kept.contains("two"), "{kept}");
        assert!(kept.contains("void one()"));
        let kept = keep_only(SUITE, &["two"]);
        assert!(!kept.contains("void one()"));
        assert!(
            kept.contains("class AGeneratedTest {\n\n    @Test\n    void two() {"),
            "{kept}"
        );
    }

    #[test]
    fn inserting_adds_the_method_before_the_closing_brace_and_missing_imports() {
        let existing = "package p;\n\nimport org.junit.jupiter.api.Test;\n\nclass AGeneratedTest {\n    @Test\n    void one() {}\n}\n";
        let method = "    @Test\n    void one() {\n        assertEquals(1, 1);\n    }".to_string();
        let edits = insertion_edits(existing, &[("one".into(), method)], &imports(SUITE)).unwrap();
        let after = apply(existing, &edits);
        assert_eq!(
            after,
            "package p;\n\nimport org.junit.jupiter.api.Test;\nimport static org.junit.jupiter.api.Assertions.assertEquals;\n\nclass AGeneratedTest {\n    @Test\n    void one() {}\n\n    @Test\n    void one2() {\n        assertEquals(1, 1);\n    }\n}\n"
        );
    }

    #[test]
    fn a_file_without_a_class_cannot_take_tests() {
        assert!(insertion_edits("package p;\n", &[], &[]).is_none());
    }
}
