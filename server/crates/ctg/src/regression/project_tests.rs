//! The project's own tests of a class, run after an edit (Infinitest's job, in any LSP
//! editor): found in the test root by name (`AccountTest`, `AccountTests`, `TestAccount`) or
//! because they mention the class, and run with the real JUnit in sandboxed fresh JVMs through
//! verification's harness (`crate::verify::run_test_class`) against the edited sources.
//! ctgls's own `*GeneratedTest` classes are not the project's tests: the stored generated
//! tests are checked in the worker instead (`super::check`).

use std::path::{Path, PathBuf};

use testcase::junit::is_generated_by_ctgls;

use crate::emit::GENERATED_TEST_SUFFIX;
use crate::project::{collect_java_files, ProjectLayout, SourceOverlays};
use crate::verify::{run_test_class, JUnitSetup, ProjectClasses, VerifyError, VerifyOptions};

/// At most this many test classes run after one edit: the named ones first, then those that
/// mention the class. More would take seconds of the user's machine per pause in typing.
pub const MAX_PROJECT_TESTS: usize = 4;

/// The project's test classes of a class under test.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ProjectTests {
    /// Test files, those named after the class first.
    pub files: Vec<PathBuf>,
}

/// A failing test of the project.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProjectTestFailure {
    pub file: PathBuf,
    /// The test class's binary name.
    pub test_class: String,
    /// The test method.
    pub test: String,
    /// The failing line of the test file (1-based), when the stack trace names one.
    pub line: Option<u32>,
    /// What failed: the exception's class (simple name) and message.
    pub message: String,
}

/// What running the project's tests of a class gave.
#[derive(Debug, Clone, Default)]
pub struct ProjectTestRun {
    pub failures: Vec<ProjectTestFailure>,
    /// Test classes that ran.
    pub ran: Vec<String>,
    /// Test classes that could not run, with why (they need other test sources, say).
    pub not_run: Vec<(String, String)>,
    /// `options.cancel` stopped the run (its javac or JUnit process killed): the failures
    /// are not all there, so report none of them.
    pub cancelled: bool,
}

/// The test files of `layout`'s test root that test `class` (a binary name).
pub fn find_project_tests(
    layout: &ProjectLayout,
    overlays: &SourceOverlays,
    class: &str,
) -> ProjectTests {
    let top = class.split('$').next().unwrap_or(class);
    let simple = top.rsplit('.').next().unwrap_or(top);
    let mut files = Vec::new();
    collect_java_files(&layout.test_root, &layout.root, &mut files);
    let named = [
        format!("{simple}Test.java"),
        format!("{simple}Tests.java"),
        format!("Test{simple}.java"),
    ];
    let mut by_name = Vec::new();
    let mut mentioning = Vec::new();
    for file in files {
        let name = file
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or_default();
        if name.ends_with(&format!("{GENERATED_TEST_SUFFIX}.java")) {
            continue;
        }
        let Some(text) = text_of(&file, overlays) else {
            continue;
        };
        if is_generated_by_ctgls(&text) {
            continue;
        }
        if named.iter().any(|n| n == name) {
            by_name.push(file);
        } else if mentions(&text, simple) && looks_like_a_test(&text) {
            mentioning.push(file);
        }
    }
    by_name.extend(mentioning);
    by_name.truncate(MAX_PROJECT_TESTS);
    ProjectTests { files: by_name }
}

/// Runs `tests` against the project's sources as the editor holds them.
pub fn run_project_tests(
    layout: &ProjectLayout,
    overlays: &SourceOverlays,
    tests: &ProjectTests,
    options: &VerifyOptions,
) -> ProjectTestRun {
    let mut run = ProjectTestRun::default();
    let project = ProjectClasses::from_layout(layout).with_overlays(overlays);
    for file in &tests.files {
        if options.cancel.is_cancelled() {
            run.cancelled = true;
            break;
        }
        let Some(text) = text_of(file, overlays) else {
            continue;
        };
        let test_class = binary_name(&layout.test_root, file);
        let junit = if text.contains("org.junit.jupiter") {
            crate::project::JUnitVersion::Five
        } else {
            crate::project::JUnitVersion::Four
        };
        let setup = match JUnitSetup::locate(junit.into(), &layout.classpath) {
            Ok(setup) => setup,
            Err(error) => {
                run.not_run.push((test_class, error.to_string()));
                continue;
            }
        };
        match run_test_class(&text, &test_class, &project, &setup, options) {
            Ok(reports) => {
                run.ran.push(test_class.clone());
                // The forward run's failures; the reversed run's only add those that depend
                // on the order, which the developer's own run would not see either.
                for failure in reports
                    .first()
                    .map(|r| r.failures.as_slice())
                    .unwrap_or(&[])
                {
                    let exception = failure
                        .exception
                        .rsplit('.')
                        .next()
                        .unwrap_or(&failure.exception);
                    run.failures.push(ProjectTestFailure {
                        file: file.clone(),
                        test_class: test_class.clone(),
                        test: failure.test.clone(),
                        line: failure.line,
                        message: if failure.message.is_empty() {
                            exception.to_string()
                        } else {
                            format!("{exception}: {}", failure.message)
                        },
                    });
                }
            }
            Err(error @ VerifyError::TestClassDoesNotCompile { .. }) => {
                run.not_run
                    .push((test_class, first_line(&error.to_string())));
            }
            Err(VerifyError::Cancelled { .. }) => {
                run.cancelled = true;
                break;
            }
            Err(error) => run.not_run.push((test_class, error.to_string())),
        }
    }
    run
}

fn text_of(file: &Path, overlays: &SourceOverlays) -> Option<String> {
    match overlays.get(file) {
        Some(text) => Some(text.to_string()),
        None => std::fs::read_to_string(file).ok(),
    }
}

/// Whether `text` names `simple` as a whole word.
fn mentions(text: &str, simple: &str) -> bool {
    text.match_indices(simple).any(|(at, _)| {
        let before = text[..at].chars().next_back();
        let after = text[at + simple.len()..].chars().next();
        let word = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '$');
        !word(before) && !word(after)
    })
}

fn looks_like_a_test(text: &str) -> bool {
    text.contains("@Test") || text.contains("extends TestCase")
}

/// `com/x/AccountTest.java` under `root` → `com.x.AccountTest`.
fn binary_name(root: &Path, file: &Path) -> String {
    let relative = file.strip_prefix(root).unwrap_or(file).with_extension("");
    relative
        .components()
        .map(|c| c.as_os_str().to_string_lossy())
        .collect::<Vec<_>>()
        .join(".")
}

fn first_line(text: &str) -> String {
    text.lines().next().unwrap_or_default().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_class_is_mentioned_as_a_word_only() {
        assert!(mentions("new Account(1)", "Account"));
        assert!(!mentions("new SavingsAccount(1)", "Account"));
        assert!(!mentions("AccountHolder h;", "Account"));
    }

    #[test]
    fn the_tests_of_a_class_are_named_after_it_or_mention_it_and_generated_ones_are_not() {
        let scratch = crate::project::tests::Scratch::new("regression-project-tests");
        let root = &scratch.0;
        let tests = root.join("src/test/java/p");
        scratch.write(
            "src/main/java/p/Account.java",
            "package p; class Account {}",
        );
        let test = "package p; class X { @Test void t() { new Account(); } }";
        scratch.write("src/test/java/p/AccountTest.java", test);
        scratch.write("src/test/java/p/BankTest.java", test);
        scratch.write(
            "src/test/java/p/OtherTest.java",
            "package p; class OtherTest { @Test void t() {} }",
        );
        scratch.write(
            "src/test/java/p/AccountGeneratedTest.java",
            &format!("{}\n{test}", testcase::junit::header_line("0.1.0")),
        );
        let layout = ProjectLayout::discover(root, &Default::default());
        let found = find_project_tests(&layout, &SourceOverlays::default(), "p.Account");
        assert_eq!(
            found.files,
            vec![tests.join("AccountTest.java"), tests.join("BankTest.java")]
        );
        assert_eq!(
            binary_name(&layout.test_root, &found.files[0]),
            "p.AccountTest"
        );
    }
}
