//! What of its environment a class reads, from its source's tree: `System.in`, the file API,
//! and the string-literal keys passed to `System.getProperty`, `Boolean.getBoolean`,
//! `Integer.getInteger` and `Long.getLong`.
//!
//! The paper's mocks observe these reads at run time; reading the source finds them before the
//! first test runs, at the price of a name a local class could shadow (a `File` of the
//! project's own is taken for `java.io.File`, which costs the search some file inputs, no more).

use std::ops::Range;

use syntax::tree_sitter::{Node, Tree};

use super::EnvironmentInputs;
use crate::source_literals;
use crate::value::PrimitiveValue;

/// Names whose use means the class reads or writes files by path.
const FILE_API: [&str; 10] = [
    "File",
    "Files",
    "FileReader",
    "FileInputStream",
    "RandomAccessFile",
    "Path",
    "Paths",
    "FileSystems",
    "FileChannel",
    "AsynchronousFileChannel",
];

/// The owners and methods that read a system property whose key is their first argument.
const PROPERTY_READS: [(&str, &str); 4] = [
    ("System", "getProperty"),
    ("Boolean", "getBoolean"),
    ("Integer", "getInteger"),
    ("Long", "getLong"),
];

impl EnvironmentInputs {
    /// What the whole of `source` reads.
    pub fn from_source(source: &str, tree: &Tree) -> EnvironmentInputs {
        EnvironmentInputs::from_range(source, tree, 0..source.len())
    }

    /// What the class `decl` (with its nested types) reads.
    pub fn from_type(source: &str, tree: &Tree, decl: &javamodel::TypeDecl) -> EnvironmentInputs {
        EnvironmentInputs::from_range(source, tree, decl.span.start_byte..decl.span.end_byte)
    }

    pub fn from_range(source: &str, tree: &Tree, range: Range<usize>) -> EnvironmentInputs {
        let mut env = EnvironmentInputs::default();
        let mut stack = vec![tree.root_node()];
        while let Some(node) = stack.pop() {
            if node.end_byte() <= range.start || node.start_byte() >= range.end {
                continue;
            }
            let text = |n: Node<'_>| source.get(n.byte_range()).unwrap_or("");
            match node.kind() {
                "field_access" => {
                    let object = node.child_by_field_name("object").map(text);
                    let field = node.child_by_field_name("field").map(text);
                    if field == Some("in") && object.is_some_and(is_system) {
                        env.console = true;
                    }
                }
                "method_invocation" => {
                    if let Some(key) = property_key(source, node) {
                        env.add_property_key(&key);
                    }
                }
                "type_identifier" | "identifier" if FILE_API.contains(&text(node)) => {
                    env.files = true;
                }
                _ => {}
            }
            let mut cursor = node.walk();
            let children: Vec<Node<'_>> = node.children(&mut cursor).collect();
            stack.extend(children.into_iter().rev());
        }
        env
    }
}

fn is_system(object: &str) -> bool {
    object == "System" || object == "java.lang.System"
}

/// The key of `System.getProperty("k")` (and the other reads), when it is a string literal.
fn property_key(source: &str, call: Node<'_>) -> Option<String> {
    let text = |n: Node<'_>| source.get(n.byte_range()).unwrap_or("");
    let object = text(call.child_by_field_name("object")?);
    let name = text(call.child_by_field_name("name")?);
    let owner = object.strip_prefix("java.lang.").unwrap_or(object);
    if !PROPERTY_READS.contains(&(owner, name)) {
        return None;
    }
    let args = call.child_by_field_name("arguments")?;
    let mut cursor = args.walk();
    let first = args.named_children(&mut cursor).next()?;
    match source_literals::literal(source, first)? {
        PrimitiveValue::String(key) => Some(key),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn inputs(src: &str) -> EnvironmentInputs {
        let tree = syntax::parse_java(src, None);
        EnvironmentInputs::from_source(src, &tree)
    }

    #[test]
    fn console_files_and_property_keys_are_read_from_the_source() {
        let env = inputs(
            r#"
            import java.io.*;
            class A {
                String line() { return new java.util.Scanner(System.in).nextLine(); }
                int mode() {
                    if (Boolean.getBoolean("a.debug")) return 1;
                    return Integer.getInteger("a.size", 3) + System.getProperty("a.mode", "x").length()
                        + java.lang.System.getProperty("a.mode").length() + Long.getLong("a.limit").intValue();
                }
                boolean exists(String name) { return new File(name).exists(); }
                String other(String key) { return System.getProperty(key) + props().getProperty("not.a.read"); }
                java.util.Properties props() { return null; }
            }
            "#,
        );
        assert!(env.console);
        assert!(env.files);
        assert_eq!(
            env.property_keys,
            ["a.debug", "a.limit", "a.mode", "a.size"]
        );
    }

    #[test]
    fn properties_the_jvm_defines_are_not_inputs() {
        let env = inputs(
            "class A { String f() { return System.getProperty(\"user.home\") + System.getProperty(\"java.io.tmpdir\") + System.getProperty(\"app.mode\"); } }",
        );
        assert_eq!(env.property_keys, ["app.mode"]);
    }

    #[test]
    fn a_class_that_reads_nothing_has_no_inputs() {
        let env = inputs("class B { int in; int f(B b) { return b.in + System.out.hashCode(); } }");
        assert!(env.is_empty(), "{env:?}");
        let files =
            inputs("class C { java.nio.file.Path p() { return java.nio.file.Paths.get(\"x\"); } }");
        assert!(files.files && !files.console);
    }
}
