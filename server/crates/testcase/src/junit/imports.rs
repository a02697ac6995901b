//! How a test class refers to types, and the imports that makes necessary.
//!
//! The printer renders a class twice: first with a collecting [`TypeNames`] that records every
//! class and static assertion method it mentions, then with the resolved one. Resolution gives
//! simple names in this order, each only when the simple name is still free: the test class
//! itself, classes of the test's own package, `java.lang` classes, then imported classes by
//! fully qualified name. Whatever loses a name is written fully qualified. Nested classes are
//! written through their top-level class (`Outer.Inner`), which is what gets imported.

use std::collections::{BTreeMap, BTreeSet};

use crate::types::{JavaType, WildcardBound};

pub(crate) struct TypeNames {
    package: String,
    /// Top-level classes mentioned (binary names); filled while collecting.
    seen: BTreeSet<String>,
    static_methods: BTreeSet<(String, String)>,
    /// How each top-level class is written; `None` while collecting.
    resolved: Option<BTreeMap<String, String>>,
    imports: Vec<String>,
}

impl TypeNames {
    pub(crate) fn collecting(package: &str) -> TypeNames {
        TypeNames {
            package: package.to_string(),
            seen: BTreeSet::new(),
            static_methods: BTreeSet::new(),
            resolved: None,
            imports: Vec::new(),
        }
    }

    /// The names for the second rendering, from what the first one mentioned.
    pub(crate) fn resolve(self, test_class: &str) -> TypeNames {
        let mut claimed: BTreeSet<String> = BTreeSet::from([test_class.to_string()]);
        let mut resolved = BTreeMap::new();
        let package_of = |c: &str| c.rsplit_once('.').map_or("", |(p, _)| p).to_string();
        let simple_of = |c: &str| c.rsplit('.').next().unwrap_or(c).to_string();
        let same_package: Vec<&String> = self
            .seen
            .iter()
            .filter(|c| package_of(c) == self.package)
            .collect();
        let java_lang: Vec<&String> = self
            .seen
            .iter()
            .filter(|c| package_of(c) == "java.lang" && self.package != "java.lang")
            .collect();
        for c in same_package.iter().chain(&java_lang) {
            let simple = simple_of(c);
            if claimed.insert(simple.clone()) {
                resolved.insert((*c).clone(), simple);
            } else {
                resolved.insert((*c).clone(), (*c).clone());
            }
        }
        let mut imports = Vec::new();
        for c in &self.seen {
            if resolved.contains_key(c) {
                continue;
            }
            let simple = simple_of(c);
            if claimed.insert(simple.clone()) {
                imports.push(c.clone());
                resolved.insert(c.clone(), simple);
            } else {
                resolved.insert(c.clone(), c.clone());
            }
        }
        TypeNames {
            package: self.package,
            seen: self.seen,
            static_methods: self.static_methods,
            resolved: Some(resolved),
            imports,
        }
    }

    /// A class by binary name, as source text: `Account`, `Outer.Inner`, `java.awt.List`.
    pub(crate) fn class(&mut self, binary: &str) -> String {
        let (top, nested) = match binary.split_once('$') {
            Some((top, rest)) => (top, Some(rest.replace('$', "."))),
            None => (binary, None),
        };
        let top_text = match &self.resolved {
            Some(map) => map.get(top).cloned().unwrap_or_else(|| top.to_string()),
            None => {
                self.seen.insert(top.to_string());
                top.to_string()
            }
        };
        match nested {
            Some(n) => format!("{top_text}.{n}"),
            None => top_text,
        }
    }

    /// A type as written in a declaration, with its type arguments.
    pub(crate) fn ty(&mut self, t: &JavaType) -> String {
        match t {
            JavaType::Primitive(k) => k.name().to_string(),
            JavaType::Class { name, args } => {
                let mut out = self.class(name);
                if !args.is_empty() {
                    let args: Vec<String> = args.iter().map(|a| self.ty(a)).collect();
                    out.push('<');
                    out.push_str(&args.join(", "));
                    out.push('>');
                }
                out
            }
            JavaType::Array(c) => format!("{}[]", self.ty(c)),
            // In casts to a parameter's type at a call site (`(List<? extends Number>) null`).
            JavaType::Wildcard(None) => "?".into(),
            JavaType::Wildcard(Some(WildcardBound::Extends(b))) => {
                format!("? extends {}", self.ty(b))
            }
            JavaType::Wildcard(Some(WildcardBound::Super(b))) => format!("? super {}", self.ty(b)),
            // Test cases hold ground types only; a stray variable reads as its erasure.
            JavaType::Var(_) => self.class(crate::types::OBJECT),
        }
    }

    /// A statically imported method of `class` (`assertEquals` of JUnit's assertions).
    pub(crate) fn static_method(&mut self, class: &str, method: &str) -> String {
        if self.resolved.is_none() {
            self.static_methods
                .insert((class.to_string(), method.to_string()));
        }
        method.to_string()
    }

    /// The import lines: static imports first, each group sorted.
    pub(crate) fn import_lines(&self) -> Vec<String> {
        let mut out: Vec<String> = self
            .static_methods
            .iter()
            .map(|(c, m)| format!("import static {c}.{m};"))
            .collect();
        if !out.is_empty() && !self.imports.is_empty() {
            out.push(String::new());
        }
        out.extend(self.imports.iter().map(|c| format!("import {c};")));
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conflicting_simple_names_stay_qualified() {
        let mut names = TypeNames::collecting("com.acme");
        for c in [
            "com.acme.List",
            "java.util.List",
            "java.util.Map$Entry",
            "java.lang.String",
            "org.other.String",
            "com.acme.Outer$Inner",
        ] {
            names.class(c);
        }
        names.static_method("org.junit.jupiter.api.Assertions", "assertEquals");
        let mut names = names.resolve("ListGeneratedTest");
        assert_eq!(names.class("com.acme.List"), "List");
        assert_eq!(names.class("java.util.List"), "java.util.List");
        assert_eq!(names.class("java.util.Map$Entry"), "Map.Entry");
        assert_eq!(names.class("java.lang.String"), "String");
        assert_eq!(names.class("org.other.String"), "org.other.String");
        assert_eq!(names.class("com.acme.Outer$Inner"), "Outer.Inner");
        assert_eq!(
            names.import_lines(),
            vec![
                "import static org.junit.jupiter.api.Assertions.assertEquals;",
                "",
                "import java.util.Map;",
            ]
        );
    }
}
