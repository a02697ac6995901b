//! The testable classes of a project (or module): every top-level, non-abstract class, enum
//! or record of its source roots, with what the allocation and the order need: its branch
//! outcomes (Campos et al.'s proxy for difficulty), the project classes it takes as input
//! (section 3.2's "if a CUT A takes as input an object of type B"), and its source hash (the
//! `.ctgls/` store's notion of "changed").

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use javamodel::{JavaModel, MemberKind, TypeDecl, TypeKind};

/// One class that `ctgls generate --project` may generate tests for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProjectClass {
    /// Binary name, `com.x.Account`.
    pub name: String,
    pub file: PathBuf,
    /// Branch outcomes of the class and its nested types.
    pub branches: usize,
    /// Other project classes its constructors, methods and fields take or hold, by binary
    /// name (resolved like javac: same package, single-type imports, on-demand imports).
    pub uses: BTreeSet<String>,
    /// The `.ctgls/` store's hash of the file's text.
    pub source_hash: String,
}

/// What to keep (`--package`, `--include`).
#[derive(Debug, Clone, Default)]
pub struct ClassFilter {
    /// `com.x` keeps `com.x.A` and `com.x.y.B`.
    pub packages: Vec<String>,
    /// Glob patterns on the binary name (`*` any run of characters, `?` one); a class is kept
    /// when one matches. `com.x.*Service`, `*Parser`.
    pub include: Vec<String>,
}

impl ClassFilter {
    pub fn keeps(&self, class: &str) -> bool {
        let in_package = self.packages.is_empty()
            || self.packages.iter().any(|p| {
                class
                    .strip_prefix(p.as_str())
                    .is_some_and(|rest| rest.starts_with('.'))
            });
        let included = self.include.is_empty() || self.include.iter().any(|g| glob(g, class));
        in_package && included
    }
}

/// Reads every `*.java` under `source_roots` except under `exclude` (the test root) and test
/// classes (`*Test.java`, `*Tests.java`), sorted by name. `hash` is the store's hash of a
/// file's text. Unreadable files are returned as problems, never fatal.
pub fn discover(
    source_roots: &[PathBuf],
    exclude: &[PathBuf],
    hash: &dyn Fn(&str) -> String,
) -> (Vec<ProjectClass>, Vec<String>) {
    let mut files = Vec::new();
    let mut problems = Vec::new();
    for root in source_roots {
        collect_java_files(root, exclude, &mut files, &mut problems);
    }
    files.sort();
    files.dedup();
    struct Parsed {
        file: PathBuf,
        model: JavaModel,
        hash: String,
    }
    let mut parsed = Vec::new();
    for file in files {
        match std::fs::read_to_string(&file) {
            Ok(text) => {
                let tree = syntax::parse_java(&text, None);
                parsed.push(Parsed {
                    model: JavaModel::build(&text, &tree),
                    hash: hash(&text),
                    file,
                });
            }
            Err(e) => problems.push(format!("cannot read {}: {e}", file.display())),
        }
    }
    // Every top-level type of the project by package, for resolving simple names.
    let mut by_package: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for p in &parsed {
        for ty in &p.model.types {
            let (package, simple) = split_name(&ty.binary_name);
            by_package
                .entry(package.to_string())
                .or_default()
                .insert(simple.to_string());
        }
    }
    let mut classes = Vec::new();
    for p in &parsed {
        for ty in &p.model.types {
            if !testable(ty) {
                continue;
            }
            let uses = referenced_types(ty)
                .into_iter()
                .filter_map(|written| resolve(&written, &p.model, &by_package))
                .filter(|name| *name != ty.binary_name)
                .collect();
            classes.push(ProjectClass {
                name: ty.binary_name.clone(),
                file: p.file.clone(),
                branches: branch_outcomes(ty),
                uses,
                source_hash: p.hash.clone(),
            });
        }
    }
    classes.sort_by(|a, b| a.name.cmp(&b.name));
    (classes, problems)
}

/// A class the generator can instantiate: not an interface or annotation, not abstract.
fn testable(ty: &TypeDecl) -> bool {
    matches!(ty.kind, TypeKind::Class | TypeKind::Enum | TypeKind::Record)
        && !ty.modifiers.has("abstract")
        && !ty.name.is_empty()
}

fn branch_outcomes(ty: &TypeDecl) -> usize {
    let own: usize = ty
        .members
        .iter()
        .filter_map(|m| m.body.as_ref())
        .flat_map(|body| &body.decisions)
        .map(|d| d.goals().count())
        .sum();
    own + ty.nested_types.iter().map(branch_outcomes).sum::<usize>()
}

/// The types written in the class's constructor and method parameters and field types (and
/// those of its nested types): the inputs section 3.2 seeds from other classes' tests. Type
/// arguments and array brackets are taken apart: `List<Account>[]` gives `List` and `Account`.
fn referenced_types(ty: &TypeDecl) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut add = |text: &str| {
        for part in text.split(|c: char| !(c.is_alphanumeric() || c == '.' || c == '_' || c == '$'))
        {
            if part.chars().next().is_some_and(char::is_alphabetic) {
                out.insert(part.to_string());
            }
        }
    };
    for member in &ty.members {
        if matches!(member.kind, MemberKind::Constructor | MemberKind::Method) {
            for param in &member.params {
                add(&param.type_text);
            }
        }
    }
    for field in &ty.fields {
        add(&field.type_text);
    }
    for nested in &ty.nested_types {
        out.extend(referenced_types(nested));
    }
    out
}

/// The project class a type name written in `model`'s file means, if any.
fn resolve(
    written: &str,
    model: &JavaModel,
    by_package: &BTreeMap<String, BTreeSet<String>>,
) -> Option<String> {
    let is_project = |package: &str, simple: &str| {
        by_package
            .get(package)
            .is_some_and(|names| names.contains(simple))
    };
    if written.contains('.') {
        // A qualified name: `com.x.Account`, or `Outer.Inner` (its outer class is used).
        let (package, simple) = split_name(written);
        if is_project(package, simple) {
            return Some(written.to_string());
        }
    }
    let simple = written.split('.').next().unwrap_or(written);
    let own_package = model.package.as_ref().map_or("", |p| p.name.as_str());
    for import in model.imports.iter().filter(|i| !i.is_static) {
        if import.on_demand {
            if is_project(&import.path, simple) {
                return Some(qualify(&import.path, simple));
            }
        } else if import.path.rsplit('.').next() == Some(simple) {
            let (package, _) = split_name(&import.path);
            return is_project(package, simple).then(|| import.path.clone());
        }
    }
    is_project(own_package, simple).then(|| qualify(own_package, simple))
}

fn qualify(package: &str, simple: &str) -> String {
    if package.is_empty() {
        simple.to_string()
    } else {
        format!("{package}.{simple}")
    }
}

fn split_name(name: &str) -> (&str, &str) {
    name.rsplit_once('.').unwrap_or(("", name))
}

/// `*` matches any run of characters (dots included), `?` one character.
pub fn glob(pattern: &str, text: &str) -> bool {
    let p: Vec<char> = pattern.chars().collect();
    let t: Vec<char> = text.chars().collect();
    let (mut pi, mut ti) = (0, 0);
    let (mut star, mut mark) = (None, 0);
    while ti < t.len() {
        if pi < p.len() && (p[pi] == '?' || p[pi] == t[ti]) {
            pi += 1;
            ti += 1;
        } else if pi < p.len() && p[pi] == '*' {
            star = Some(pi);
            mark = ti;
            pi += 1;
        } else if let Some(s) = star {
            pi = s + 1;
            mark += 1;
            ti = mark;
        } else {
            return false;
        }
    }
    p[pi..].iter().all(|&c| c == '*')
}

fn collect_java_files(
    dir: &Path,
    exclude: &[PathBuf],
    files: &mut Vec<PathBuf>,
    problems: &mut Vec<String>,
) {
    if exclude.iter().any(|e| dir == e) {
        return;
    }
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) => {
            problems.push(format!("cannot read directory {}: {e}", dir.display()));
            return;
        }
    };
    let mut paths: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    paths.sort();
    for path in paths {
        if path.is_dir() {
            collect_java_files(&path, exclude, files, problems);
        } else if let Some(name) = path.file_name().and_then(|n| n.to_str()) {
            let test_class = name.ends_with("Test.java") || name.ends_with("Tests.java");
            if name.ends_with(".java") && !test_class && name != "module-info.java" {
                files.push(path);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs() {
        assert!(glob("com.x.*Service", "com.x.AccountService"));
        assert!(glob("*Parser", "a.b.AmountParser"));
        assert!(glob("com.?.A", "com.x.A"));
        assert!(!glob("com.x.*Service", "com.x.ServiceImpl"));
        assert!(glob("*", "anything"));
    }

    #[test]
    fn filters() {
        let filter = ClassFilter {
            packages: vec!["com.x".into()],
            include: vec!["*Bank*".into(), "*.Account".into()],
        };
        assert!(filter.keeps("com.x.Bank"));
        assert!(filter.keeps("com.x.sub.Account"));
        assert!(!filter.keeps("com.xy.Bank"));
        assert!(!filter.keeps("com.x.Parser"));
        assert!(ClassFilter::default().keeps("Anything"));
    }

    #[test]
    fn classes_branches_and_uses() {
        let dir = std::env::temp_dir().join(format!("ctgproject-discover-{}", std::process::id()));
        let src = dir.join("src/main/java/p");
        std::fs::create_dir_all(&src).unwrap();
        std::fs::create_dir_all(dir.join("src/main/java/q")).unwrap();
        std::fs::write(
            src.join("A.java"),
            "package p; import q.C; public class A { C c; public int f(B b, java.util.List<q.C> cs) { if (b == null) return 0; return 1; } }",
        )
        .unwrap();
        std::fs::write(
            src.join("B.java"),
            "package p; public class B { public int g(int x) { return x > 0 && x < 9 ? 1 : 2; } }",
        )
        .unwrap();
        std::fs::write(
            src.join("I.java"),
            "package p; public interface I { void h(); }",
        )
        .unwrap();
        std::fs::write(src.join("BTest.java"), "package p; class BTest {}").unwrap();
        std::fs::write(
            dir.join("src/main/java/q/C.java"),
            "package q; public abstract class C { } class D { }",
        )
        .unwrap();
        let (classes, problems) =
            discover(&[dir.join("src/main/java")], &[], &|t| t.len().to_string());
        assert!(problems.is_empty(), "{problems:?}");
        let names: Vec<&str> = classes.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, ["p.A", "p.B", "q.D"]);
        assert_eq!(classes[0].branches, 2);
        // `x > 0 && x < 9 ? ...`: one decision per condition, two outcomes each.
        assert_eq!(classes[1].branches, 4);
        assert_eq!(
            classes[0].uses,
            ["p.B".to_string(), "q.C".to_string()].into()
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
