//! Project subtypes found in the sources, without compiling them: which files declare classes
//! and interfaces that extend or implement given types, directly or through other project
//! types. The job compiles only what the class under test reaches (`docs/protocol.md`,
//! `compile`), so the worker's reflection sees no subclass outside that closure; this index
//! finds the files to add so that the test cluster still gets them.
//!
//! Names are matched as written (`extends Foo`, `implements java.util.Map`, `Outer.Inner`), by
//! their last segment, qualified names by their whole suffix; a simple name that the file
//! imports from another package under the same simple name does not match. There is no type
//! resolution, so a match may be a namesake: that costs compiling one more file, which the
//! worker's reflection then judges.

use std::collections::{BTreeSet, HashMap};

use jvm::SourceFile;
use syntax::tree_sitter::Node;

/// The subtype declarations of a project's sources, parsed on demand.
pub struct SubtypeIndex<'a> {
    sources: &'a [SourceFile],
    /// Per file, the names that follow an `extends` or `implements` keyword anywhere in it (a
    /// lexical superset of its supertypes' name segments, to skip parsing most files).
    after_keywords: Vec<Option<BTreeSet<String>>>,
    parsed: HashMap<usize, FileTypes>,
}

/// The types one file declares, with their supertypes as written.
struct FileTypes {
    imports: Vec<String>,
    types: Vec<DeclaredType>,
}

struct DeclaredType {
    /// Binary name: `com.x.Outer$Inner`.
    binary_name: String,
    /// Public, as reflection sees it (members of interfaces are implicitly public).
    public: bool,
    /// Supertypes as written, without type arguments: `Foo`, `java.util.Map`, `Outer.Inner`.
    supertypes: Vec<String>,
}

impl<'a> SubtypeIndex<'a> {
    pub fn new(sources: &'a [SourceFile]) -> SubtypeIndex<'a> {
        SubtypeIndex {
            sources,
            after_keywords: vec![None; sources.len()],
            parsed: HashMap::new(),
        }
    }

    /// Indexes of the files declaring a class or interface a test in `test_package` can name
    /// (a public one, or any of that package: the test sits there) that extends or implements
    /// one of `types` (binary names), directly or through other types of the sources (public
    /// or not), in index order.
    pub fn files_with_subtypes_of<'t>(
        &mut self,
        types: impl IntoIterator<Item = &'t str>,
        test_package: &str,
    ) -> BTreeSet<usize> {
        let mut wanted: BTreeSet<String> = types.into_iter().map(str::to_string).collect();
        let mut found = BTreeSet::new();
        let mut fresh: Vec<String> = wanted.iter().cloned().collect();
        while !fresh.is_empty() {
            let simple: BTreeSet<String> = fresh.iter().map(|t| simple_name(t)).collect();
            let mut next = Vec::new();
            for index in 0..self.sources.len() {
                if !self.keywords_of(index).iter().any(|n| simple.contains(n)) {
                    continue;
                }
                let file = self.types_of(index);
                for ty in &file.types {
                    if wanted.contains(&ty.binary_name) {
                        continue;
                    }
                    let extends_wanted = ty.supertypes.iter().any(|written| {
                        fresh
                            .iter()
                            .any(|target| names(written, target, &file.imports))
                    });
                    if extends_wanted {
                        next.push(ty.binary_name.clone());
                        if ty.public || testcase::package_of(&ty.binary_name) == test_package {
                            found.insert(index);
                        }
                    }
                }
            }
            next.retain(|n| wanted.insert(n.clone()));
            fresh = next;
        }
        found
    }

    fn keywords_of(&mut self, index: usize) -> &BTreeSet<String> {
        let text = &self.sources[index].text;
        self.after_keywords[index].get_or_insert_with(|| names_after_keywords(text))
    }

    fn types_of(&mut self, index: usize) -> &FileTypes {
        let text = &self.sources[index].text;
        self.parsed.entry(index).or_insert_with(|| file_types(text))
    }
}

/// Whether `written` (a supertype as written in a file with `imports`) may name `target` (a
/// binary name).
fn names(written: &str, target: &str, imports: &[String]) -> bool {
    let qualified = target.replace('$', ".");
    let simple = simple_name(target);
    if written.rsplit('.').next() != Some(simple.as_str()) {
        return false;
    }
    if written.contains('.') {
        return qualified == written || qualified.ends_with(&format!(".{written}"));
    }
    // `import other.Foo;` makes `Foo` that type, whatever else is called Foo.
    !imports
        .iter()
        .any(|i| i.rsplit('.').next() == Some(simple.as_str()) && *i != qualified)
}

fn simple_name(binary_name: &str) -> String {
    binary_name
        .rsplit(['.', '$'])
        .next()
        .unwrap_or(binary_name)
        .to_string()
}

/// Every identifier between an `extends` or `implements` keyword and the next `{`, `;` or `)`.
fn names_after_keywords(text: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for keyword in ["extends", "implements"] {
        for (at, _) in text.match_indices(keyword) {
            let before = text[..at].chars().next_back();
            let after = text[at + keyword.len()..].chars().next();
            if before.is_some_and(is_identifier_char) || after.is_some_and(is_identifier_char) {
                continue;
            }
            let rest = &text[at + keyword.len()..];
            let end = rest.find(['{', ';', ')']).unwrap_or(rest.len());
            out.extend(
                rest[..end]
                    .split(|c: char| !is_identifier_char(c))
                    .filter(|w| !w.is_empty())
                    .map(str::to_string),
            );
        }
    }
    out
}

fn is_identifier_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_' || c == '$'
}

fn file_types(text: &str) -> FileTypes {
    let tree = syntax::parse_java(text, None);
    let root = tree.root_node();
    let mut package = String::new();
    let mut imports = Vec::new();
    let mut types = Vec::new();
    let mut cursor = root.walk();
    for child in root.named_children(&mut cursor) {
        match child.kind() {
            "package_declaration" => {
                if let Some(name) = child
                    .named_children(&mut child.walk())
                    .find(|n| matches!(n.kind(), "scoped_identifier" | "identifier"))
                {
                    package = squeeze(&text[name.byte_range()]);
                }
            }
            "import_declaration" => {
                let node_text = &text[child.byte_range()];
                let is_static = node_text.trim_start()["import".len()..]
                    .trim_start()
                    .starts_with("static");
                let wildcard = child
                    .named_children(&mut child.walk())
                    .any(|n| n.kind() == "asterisk");
                if let (false, false, Some(name)) = (
                    is_static,
                    wildcard,
                    child
                        .named_children(&mut child.walk())
                        .find(|n| matches!(n.kind(), "scoped_identifier" | "identifier")),
                ) {
                    imports.push(squeeze(&text[name.byte_range()]));
                }
            }
            _ => {
                let prefix = if package.is_empty() {
                    String::new()
                } else {
                    format!("{package}.")
                };
                collect_types(text, child, &prefix, false, &mut types);
            }
        }
    }
    FileTypes { imports, types }
}

/// Adds the type declared by `node` (if it declares one) and its member types. `prefix` is the
/// binary-name prefix (`com.x.` or `com.x.Outer$`); `in_interface` says the enclosing type is
/// an interface or annotation, whose members are implicitly public.
fn collect_types(
    text: &str,
    node: Node<'_>,
    prefix: &str,
    in_interface: bool,
    out: &mut Vec<DeclaredType>,
) {
    let kind = node.kind();
    let is_interface = matches!(
        kind,
        "interface_declaration" | "annotation_type_declaration"
    );
    if !matches!(
        kind,
        "class_declaration" | "enum_declaration" | "record_declaration"
    ) && !is_interface
    {
        return;
    }
    let Some(name) = node.child_by_field_name("name") else {
        return;
    };
    let binary_name = format!("{prefix}{}", &text[name.byte_range()]);
    let mut cursor = node.walk();
    let public = in_interface
        || node
            .named_children(&mut cursor)
            .filter(|c| c.kind() == "modifiers")
            .any(|m| {
                m.children(&mut m.walk())
                    .any(|k| &text[k.byte_range()] == "public")
            });
    let mut supertypes = Vec::new();
    if let Some(superclass) = node.child_by_field_name("superclass") {
        supertypes.extend(
            superclass
                .named_children(&mut superclass.walk())
                .map(|t| type_name(text, t)),
        );
    }
    let mut cursor = node.walk();
    for list in node.named_children(&mut cursor) {
        if matches!(list.kind(), "super_interfaces" | "extends_interfaces") {
            for types in list.named_children(&mut list.walk()) {
                if types.kind() == "type_list" {
                    supertypes.extend(
                        types
                            .named_children(&mut types.walk())
                            .map(|t| type_name(text, t)),
                    );
                }
            }
        }
    }
    let nested_prefix = format!("{binary_name}$");
    out.push(DeclaredType {
        binary_name,
        public,
        supertypes,
    });
    let Some(body) = node.child_by_field_name("body") else {
        return;
    };
    let mut cursor = body.walk();
    for member in body.named_children(&mut cursor) {
        if member.kind() == "enum_body_declarations" {
            for inner in member.named_children(&mut member.walk()) {
                collect_types(text, inner, &nested_prefix, false, out);
            }
        } else {
            collect_types(text, member, &nested_prefix, is_interface, out);
        }
    }
}

/// A type as written, without annotations, type arguments and whitespace: `java.util.Map`.
fn type_name(text: &str, node: Node<'_>) -> String {
    let written = &text[node.byte_range()];
    let mut out = String::new();
    let mut depth = 0usize;
    for c in written.chars() {
        match c {
            '<' => depth += 1,
            '>' => depth = depth.saturating_sub(1),
            c if depth == 0 && !c.is_whitespace() => out.push(c),
            _ => {}
        }
    }
    // Type annotations (`@NonNull Foo`) are rare in supertype clauses; keep the last word.
    match out.rfind('@') {
        Some(_) => out
            .rsplit(|c: char| !(is_identifier_char(c) || c == '.'))
            .next()
            .unwrap_or_default()
            .to_string(),
        None => out,
    }
}

fn squeeze(s: &str) -> String {
    s.chars().filter(|c| !c.is_whitespace()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn source(path: &str, text: &str) -> SourceFile {
        SourceFile {
            path: path.into(),
            text: text.into(),
            instrumented: None,
        }
    }

    fn paths(sources: &[SourceFile], types: &[&str]) -> Vec<String> {
        SubtypeIndex::new(sources)
            .files_with_subtypes_of(types.iter().copied(), "elsewhere")
            .into_iter()
            .map(|i| sources[i].path.clone())
            .collect()
    }

    #[test]
    fn direct_and_transitive_subtypes_through_non_public_types() {
        let sources = [
            source("p/Shape.java", "package p;\npublic interface Shape { double area(); }\n"),
            source(
                "p/Base.java",
                "package p;\nabstract class Base<T extends Number> implements Shape, java.io.Serializable {}\n",
            ),
            source("p/Square.java", "package p;\npublic class Square extends Base<Integer> { public double area() { return 1; } }\n"),
            source(
                "q/Circle.java",
                "package q;\nimport p.Shape;\npublic final class Circle implements /* round */ Shape {\n  public double area() { return 3; }\n  public static class Unit extends Circle {}\n}\n",
            ),
            source("q/Other.java", "package q;\nimport other.Shape;\npublic class Other implements Shape {}\n"),
            source("q/Unrelated.java", "package q;\npublic class Unrelated extends Exception {}\n"),
        ];
        assert_eq!(
            paths(&sources, &["p.Shape"]),
            ["p/Square.java", "q/Circle.java"],
            "Base is not public (its file is not listed) but Square extends it; Other's Shape is another type"
        );
        assert_eq!(paths(&sources, &["q.Circle"]), ["q/Circle.java"]);
        assert!(paths(&sources, &["p.Square"]).is_empty());
        // A test in package p can name Base, so its file is listed for it.
        let in_p: Vec<String> = SubtypeIndex::new(&sources)
            .files_with_subtypes_of(["p.Shape"], "p")
            .into_iter()
            .map(|i| sources[i].path.clone())
            .collect();
        assert_eq!(in_p, ["p/Base.java", "p/Square.java", "q/Circle.java"]);
    }

    #[test]
    fn qualified_nested_and_interface_member_types() {
        let sources = [
            source(
                "a/Outer.java",
                "package a;\npublic class Outer {\n  public interface Listener {}\n  interface Api { class Impl implements Listener {} }\n}\n",
            ),
            source("b/Uses.java", "package b;\npublic class Uses implements a.Outer.Listener {}\n"),
            source("b/Jdk.java", "package b;\nimport java.util.*;\npublic class Jdk<K> extends AbstractMap<K, String> implements Map<K, String> {}\n"),
        ];
        assert_eq!(
            paths(&sources, &["a.Outer$Listener"]),
            ["a/Outer.java", "b/Uses.java"],
            "Api.Impl is public as an interface member"
        );
        assert_eq!(paths(&sources, &["java.util.Map"]), ["b/Jdk.java"]);
    }
}
