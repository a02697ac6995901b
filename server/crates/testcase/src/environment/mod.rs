//! The environment as search input, in plain JUnit (Arcuri et al., "Environment
//! Dependencies", 3.3.1 and 3.3.2): console input, files whose
//! names and contents the search chooses, and system properties become statements of the test
//! case ([`crate::Statement::ConsoleInput`], [`crate::Statement::InputFile`],
//! [`crate::Statement::SystemProperty`]) with operators of their own.
//!
//! Deviation from the paper: EvoSuite replaces `System.in` and the file API (`java.io.File`,
//! the streams, ...) by mocks of its runtime library (a virtual file system), instrumented into
//! the class under test, and adds their methods (`addInputLine`, `appendLineToFile`) to the
//! search once a test was seen reading the console or a file. Our
//! tests stay plain JUnit (no runtime library of ours): console input is a real
//! `System.setIn`, files are real files in the test's temporary directory (the worker's
//! scratch directory while searching, JUnit's `@TempDir` or `TemporaryFolder` in the written
//! test), and properties are real `System.setProperty` calls; the printed test puts the console
//! and the properties back when it ends. Which of them a class reads is told by its source
//! ([`EnvironmentInputs::from_type`]), where the paper's mocks observe it at run time.
//!
//! Texts (console input, file contents, property values) are ASCII without control characters
//! other than tab and line ends, so that their bytes are the same in every charset a JVM can
//! have as its default and they print as plain Java string literals.

mod factory;
pub(crate) use factory::ENVIRONMENT_INSERTION;
mod sources;

use crate::statement::Statement;
use crate::types::JavaType;

/// The parameter types an [`crate::Statement::InputFile`] may give a path as.
pub const PATH_TYPES: [&str; 3] = ["java.lang.String", "java.io.File", "java.nio.file.Path"];

/// What of its environment a class under test reads, so what the search may set up.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EnvironmentInputs {
    /// The class reads `System.in`.
    pub console: bool,
    /// The class uses the file API (`File`, `Files`, `FileReader`, `Paths`, ...): its `String`,
    /// `File` and `Path` parameters may get paths of files the test creates.
    pub files: bool,
    /// Keys of the system properties it reads, sorted and distinct.
    pub property_keys: Vec<String>,
}

impl EnvironmentInputs {
    /// Whether the class reads none of what the search can set up.
    pub fn is_empty(&self) -> bool {
        !self.console && !self.files && self.property_keys.is_empty()
    }

    /// Adds a property key; keeps them sorted and distinct.
    pub fn add_property_key(&mut self, key: &str) {
        if is_property_key(key) {
            if let Err(at) = self.property_keys.binary_search_by(|k| k.as_str().cmp(key)) {
                self.property_keys.insert(at, key.to_string());
            }
        }
    }
}

/// Whether `ty` is a type an input file's path can be given as.
pub fn is_path_type(ty: &JavaType) -> bool {
    PATH_TYPES.iter().any(|t| ty.is_class(t))
}

/// Whether `text` may be console input, a file's content or a property value: printable
/// ASCII, tabs and line ends.
pub fn is_input_text(text: &str) -> bool {
    text.chars().all(is_text_char)
}

fn is_text_char(c: char) -> bool {
    c == '\n' || c == '\r' || c == '\t' || (' '..='~').contains(&c)
}

/// Whether `name` may name an input file: a plain file name of letters, digits, `.`, `_` and
/// `-`, at most 64 long, not `.` or `..` (the file stays inside the test's directory on every
/// file system).
pub fn is_file_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= MAX_FILE_NAME
        && name != "."
        && name != ".."
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'))
}

/// The prefixes of the properties the JVM itself defines (`System.getProperties()`'s standard
/// keys and the implementation's): they describe the JVM and the machine, not the application.
const JVM_PROPERTY_PREFIXES: [&str; 12] = [
    "java.", "jdk.", "sun.", "os.", "user.", "file.", "path.", "line.", "native.", "stdout.",
    "stderr.", "awt.",
];

/// Whether `key` may be a property key a test sets: non-empty printable ASCII, and not one the
/// JVM defines. A deviation from Arcuri et al., who let the search set any property the class
/// reads: a test that sets `user.home` or `java.io.tmpdir` tests a machine that does not exist
/// (and moves the directories the JVM and JUnit use for the rest of the run), where what the
/// code reads of the real machine is a nondeterministic input (`ctg::nondeterminism`), left
/// out of assertions and reported.
pub fn is_property_key(key: &str) -> bool {
    !key.is_empty()
        && key.chars().all(|c| (' '..='~').contains(&c))
        && !JVM_PROPERTY_PREFIXES
            .iter()
            .any(|prefix| key.starts_with(prefix))
}

const MAX_FILE_NAME: usize = 64;

/// Whether an environment statement is well formed and sets up what `env` says the class
/// reads (a test of a class that no longer reads it is not valid any more).
pub(crate) fn check(s: &Statement, env: &EnvironmentInputs) -> Result<(), String> {
    match s {
        Statement::ConsoleInput { text } => {
            if !env.console {
                return Err("console input for a class that does not read System.in".into());
            }
            text_ok(text)
        }
        Statement::SystemProperty { key, value } => {
            if !env.property_keys.contains(key) {
                return Err(format!("the class reads no system property {key:?}"));
            }
            text_ok(value)
        }
        Statement::InputFile { name, content, ty } => {
            if !env.files {
                return Err("an input file for a class that does not use files".into());
            }
            if !is_file_name(name) {
                return Err(format!("{name:?} is not a plain file name"));
            }
            if !is_path_type(ty) {
                return Err(format!("an input file's path cannot be a {ty}"));
            }
            content.as_deref().map_or(Ok(()), text_ok)
        }
        _ => Ok(()),
    }
}

fn text_ok(text: &str) -> Result<(), String> {
    if is_input_text(text) {
        Ok(())
    } else {
        Err(format!("{text:?} is not ASCII input text"))
    }
}

/// `text` with the characters [`is_input_text`] refuses left out, and line ends too when
/// `one_line`.
pub(crate) fn sanitized(text: &str, one_line: bool) -> String {
    text.chars()
        .filter(|c| is_text_char(*c) && !(one_line && (*c == '\n' || *c == '\r')))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn texts_names_and_keys() {
        assert!(is_input_text("3\n# header\tx\r\n"));
        assert!(!is_input_text("caf\u{e9}"));
        assert!(!is_input_text("a\u{0}b"));
        assert!(is_file_name("data-1.csv"));
        for bad in ["", ".", "..", "a/b", "a b", "\u{e9}.txt"] {
            assert!(!is_file_name(bad), "{bad:?}");
        }
        assert_eq!(sanitized("a\u{e9}b\nc", false), "ab\nc");
        assert_eq!(sanitized("a\u{e9}b\nc", true), "abc");
        let mut env = EnvironmentInputs::default();
        assert!(env.is_empty());
        for k in ["b", "a", "b", ""] {
            env.add_property_key(k);
        }
        assert_eq!(env.property_keys, ["a", "b"]);
        assert!(is_path_type(&JavaType::string()));
        assert!(is_path_type(&JavaType::class("java.nio.file.Path")));
        assert!(!is_path_type(&JavaType::object()));
    }
}
