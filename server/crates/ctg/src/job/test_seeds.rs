//! The project's existing tests of the class under test, whose literals seed the search's
//! tests' pool (`testcase::ValuePools::tests`): which test files are read, within bounds.
//!
//! Campos, Arcuri, Fraser and Abreu's "Continuous Test Generation" section 3.2 seeds the search
//! from what earlier runs learnt; the developer's hand-written tests are such knowledge too,
//! and hold exactly the inputs a parser needs (JSON documents, CSV records, map keys). Files
//! ctgls wrote are left out, so that the search does not feed on its own output.

use std::path::{Path, PathBuf};

use crate::emit::GENERATED_TEST_SUFFIX;
use crate::project::{collect_java_files, ProjectLayout, SourceOverlays};

/// At most this many test files are chosen.
pub(crate) const MAX_TEST_FILES: usize = 50;

/// At most this many bytes of test files are read while choosing them: a project with a huge
/// test tree costs the job a bounded pause, not the time of reading it all.
pub(crate) const MAX_BYTES_READ: usize = 2 * 1024 * 1024;

/// A test file chosen for its literals.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ExistingTest {
    pub path: PathBuf,
    pub text: String,
}

/// The existing tests of `class` under the layout's test root: its own test classes, named
/// after it by the usual conventions (`<Simple>Test`, `<Simple>Tests`, `Test<Simple>`,
/// `<Simple>IT`, `<Simple>TestCase`); when it has none, the files that mention its simple name
/// as a word; when none does, the test files of its package. Its own test classes come first
/// because they hold the inputs of its methods, while other tests that name it hold other
/// classes' inputs: every literal more in the pool makes each one rarer, and the corpus's
/// `JsonObject` lost coverage when the pool held its neighbours' tests too (docs/benchmarks.md,
/// issue #19). Files named like
/// or headed like a generated test are left out, and so are files that cannot be read (a
/// missing test root is no error: the project has no tests). The editor's unsaved texts
/// replace the files'. Files of the class's package are looked at first, so that the bounds
/// cut the least likely ones.
pub(crate) fn existing_tests_of(
    layout: &ProjectLayout,
    overlays: &SourceOverlays,
    class: &str,
) -> Vec<ExistingTest> {
    let top_level = class.rsplit('.').next().unwrap_or(class);
    let simple = top_level.rsplit('$').next().unwrap_or(top_level);
    let package_dir = match class.rfind('.') {
        Some(dot) => layout.test_root.join(class[..dot].replace('.', "/")),
        None => layout.test_root.clone(),
    };
    let mut files = Vec::new();
    collect_java_files(&layout.test_root, &layout.root, &mut files);
    files.retain(|path| !named_as_generated(path));
    // Stable: in the package first, each group in path order.
    files.sort_by_key(|path| path.parent() != Some(package_dir.as_path()));

    let mut read = 0usize;
    let mut own = Vec::new();
    let mut mentioning = Vec::new();
    let mut of_package = Vec::new();
    for path in files {
        if own.len() + mentioning.len() >= MAX_TEST_FILES {
            break;
        }
        let Some(text) = read_within(&path, overlays, MAX_BYTES_READ - read) else {
            continue;
        };
        read += text.len();
        if testcase::junit::is_generated_by_ctgls(&text) {
            continue;
        }
        let in_package = path.parent() == Some(package_dir.as_path());
        let test = ExistingTest { path, text };
        if named_after(&test.path, simple) {
            own.push(test);
        } else if mentions_word(&test.text, simple) {
            mentioning.push(test);
        } else if in_package && of_package.len() < MAX_TEST_FILES {
            of_package.push(test);
        }
    }
    [own, mentioning, of_package]
        .into_iter()
        .find(|tests| !tests.is_empty())
        .unwrap_or_default()
}

/// Whether the file's name says it tests the class `simple` (in any package: a test of a
/// nested class, or one kept elsewhere, still counts).
fn named_after(path: &Path, simple: &str) -> bool {
    let Some(stem) = path.file_stem().and_then(|stem| stem.to_str()) else {
        return false;
    };
    stem.strip_prefix(simple)
        .is_some_and(|rest| ["Test", "Tests", "IT", "TestCase"].contains(&rest))
        || stem.strip_prefix("Test") == Some(simple)
}

/// `GeneratedTest.java`, and the integration tests' `..._XIntegrationGeneratedTest.java`.
fn named_as_generated(path: &Path) -> bool {
    path.file_stem()
        .and_then(|stem| stem.to_str())
        .is_some_and(|stem| stem.ends_with(GENERATED_TEST_SUFFIX))
}

/// The text of `path` (the overlay's, if the editor holds one), if it is at most `budget`
/// bytes and readable as UTF-8.
fn read_within(path: &Path, overlays: &SourceOverlays, budget: usize) -> Option<String> {
    if let Some(text) = overlays.get(path) {
        return (text.len() <= budget).then(|| text.to_string());
    }
    let len = std::fs::metadata(path).ok()?.len();
    if len > budget as u64 {
        return None;
    }
    std::fs::read_to_string(path).ok()
}

/// Whether `name` occurs in `text` not as a part of a longer identifier.
fn mentions_word(text: &str, name: &str) -> bool {
    let identifier = |c: char| c.is_alphanumeric() || c == '_' || c == '$';
    text.match_indices(name).any(|(at, _)| {
        let before = text[..at].chars().next_back();
        let after = text[at + name.len()..].chars().next();
        !before.is_some_and(identifier) && !after.is_some_and(identifier)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::project::tests::Scratch;
    use crate::project::LayoutOverrides;

    fn chosen(project: &Scratch, class: &str, overlays: &SourceOverlays) -> Vec<String> {
        let layout = ProjectLayout::discover(&project.0, &LayoutOverrides::default());
        existing_tests_of(&layout, overlays, class)
            .into_iter()
            .map(|t| {
                let relative = t.path.strip_prefix(&layout.test_root).expect("under root");
                relative.to_string_lossy().into_owned()
            })
            .collect()
    }

    #[test]
    fn tests_that_name_the_class_are_chosen_and_generated_ones_are_not() {
        let project = Scratch::new("test-seeds-choice");
        project.write("pom.xml", "<project/>");
        project.write("src/main/java/p/Parser.java", "package p; class Parser {}");
        let t = "src/test/java/";
        project.write(
            &format!("{t}p/ParserTest.java"),
            "class ParserTest { Parser p; String s = \"{}\"; }",
        );
        project.write(
            &format!("{t}q/UsesTest.java"),
            "class UsesTest { p.Parser p; }",
        );
        // A longer identifier is no mention, nor is a test ctgls wrote, by name or by header.
        project.write(
            &format!("{t}p/OtherTest.java"),
            "class OtherTest { ParserFactory f; }",
        );
        project.write(
            &format!("{t}p/ParserGeneratedTest.java"),
            "class ParserGeneratedTest { Parser p; }",
        );
        project.write(
            &format!("{t}p/RenamedTest.java"),
            "// Generated by ctgls 0.1.0. Regenerating replaces this file; do not edit.\n\
             class RenamedTest { Parser p; }",
        );
        let none = SourceOverlays::default();
        // The class's own test class is preferred to other tests that name it.
        assert_eq!(chosen(&project, "p.Parser", &none), ["p/ParserTest.java"]);
        project.write(
            &format!("{t}p/TokenTest.java"),
            "class TokenTest { Parser.Token t; }",
        );
        assert_eq!(chosen(&project, "p.Token", &none), ["p/TokenTest.java"]);
        std::fs::remove_file(project.0.join(format!("{t}p/TokenTest.java"))).expect("rm");
        // Without one, the tests that name it.
        std::fs::remove_file(project.0.join(format!("{t}p/ParserTest.java"))).expect("rm");
        assert_eq!(chosen(&project, "p.Parser", &none), ["q/UsesTest.java"]);
        project.write(
            &format!("{t}p/ParserTest.java"),
            "class ParserTest { Parser p; String s = \"{}\"; }",
        );
        // No test names `Lexer`: the package's own tests, still not the generated ones.
        assert_eq!(
            chosen(&project, "p.Lexer", &none),
            ["p/OtherTest.java", "p/ParserTest.java"]
        );
        // A nested class is named by its own simple name; the editor's text wins.
        let overlays = SourceOverlays::new([(
            project.0.join(format!("{t}p/OtherTest.java")),
            "class OtherTest { Parser.Token t; }".to_string(),
        )]);
        assert_eq!(
            chosen(&project, "p.Parser$Token", &overlays),
            ["p/OtherTest.java"]
        );
        for (file, named) in [
            ("ParserTest", true),
            ("ParserTests", true),
            ("TestParser", true),
            ("ParserIT", true),
            ("ParserTestCase", true),
            ("ParserFactoryTest", false),
            ("Parser", false),
        ] {
            let path = PathBuf::from(format!("{file}.java"));
            assert_eq!(named_after(&path, "Parser"), named, "{file}");
        }
        // A project without tests has none; that is no error.
        assert!(chosen(&project, "r.Absent", &none).is_empty());
        let bare = Scratch::new("test-seeds-bare");
        assert!(chosen(&bare, "p.Parser", &none).is_empty());
    }

    #[test]
    fn reading_stops_at_the_bounds() {
        let project = Scratch::new("test-seeds-bounds");
        project.write("pom.xml", "<project/>");
        for i in 0..MAX_TEST_FILES + 5 {
            project.write(
                &format!("src/test/java/p/T{i:03}Test.java"),
                "class T { Parser p; }",
            );
        }
        let none = SourceOverlays::default();
        assert_eq!(chosen(&project, "p.Parser", &none).len(), MAX_TEST_FILES);
        // A file bigger than what is left to read is skipped, not cut.
        let big = format!(
            "class Big {{ Parser p; /* {} */ }}",
            "x".repeat(MAX_BYTES_READ)
        );
        let other = Scratch::new("test-seeds-big");
        other.write("pom.xml", "<project/>");
        other.write("src/test/java/p/BigTest.java", &big);
        other.write("src/test/java/p/SmallTest.java", "class S { Parser p; }");
        assert_eq!(chosen(&other, "p.Parser", &none), ["p/SmallTest.java"]);
    }
}
