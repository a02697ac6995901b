//! Reading back a test class ctgls printed: its test methods by name, with their annotations
//! (the editor's code actions insert them; the report and the store name them).

use std::collections::HashMap;

use syntax::tree_sitter::Node;

/// The test methods of a printed test class by name, each with its annotations.
pub fn test_methods(source: &str) -> HashMap<String, String> {
    let tree = syntax::parse_java(source, None);
    let mut out = HashMap::new();
    let mut stack = vec![tree.root_node()];
    while let Some(node) = stack.pop() {
        if node.kind() == "method_declaration" {
            if let Some(name) = node.child_by_field_name("name") {
                let name = &source[name.byte_range()];
                out.insert(name.to_string(), node_text_from_line_start(source, node));
            }
            continue;
        }
        let mut cursor = node.walk();
        stack.extend(node.children(&mut cursor));
    }
    out
}

/// A node's text, starting at the beginning of its first line (so indentation is kept).
fn node_text_from_line_start(source: &str, node: Node) -> String {
    let start = source[..node.start_byte()].rfind('\n').map_or(0, |i| i + 1);
    let start = if source[start..node.start_byte()].trim().is_empty() {
        start
    } else {
        node.start_byte()
    };
    source[start..node.end_byte()].to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn test_methods_are_extracted_with_their_annotations() {
        let source = "package p;\nclass ATest {\n\n    @Test\n    void one() {\n        a();\n    }\n\n    @Test\n    void two() {}\n}\n";
        let methods = test_methods(source);
        assert_eq!(
            methods["one"],
            "    @Test\n    void one() {\n        a();\n    }"
        );
        assert_eq!(methods["two"], "    @Test\n    void two() {}");
    }
}
