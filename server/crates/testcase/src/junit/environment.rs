//! The JUnit form of the environment statements (docs/emission.md, "Environment inputs"):
//! console input as `System.setIn`, system properties as `System.setProperty`, input files
//! created in the test's own temporary directory (JUnit 5's `@TempDir` parameter, JUnit 4's
//! `TemporaryFolder` created and deleted by the test), and the `try`/`finally` that puts the
//! console and the properties back when the test ends, however it ends.
//!
//! Everything stays inside the test method, so that a test inserted alone into an existing test
//! class (the editor's code action) needs no field, rule or helper of its class.

use crate::statement::Statement;
use crate::types::JavaType;

use super::imports::TypeNames;
use super::literal::string_literal;
use super::{JUnit, TestClassSpec};

const TEMPORARY_DIRECTORY: &str = "temporaryDirectory";
const TEMPORARY_FOLDER: &str = "temporaryFolder";

/// What of the environment a test sets up.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(super) struct EnvironmentUse {
    console: bool,
    /// The test sets console input itself.
    chosen_console: bool,
    properties: bool,
    files: bool,
}

impl EnvironmentUse {
    /// What `statements` (the printed ones) of a test of `spec` set up.
    pub(super) fn of(statements: &[Statement], spec: &TestClassSpec) -> EnvironmentUse {
        let mut u = EnvironmentUse {
            console: spec.reads_console,
            ..EnvironmentUse::default()
        };
        for s in statements {
            match s {
                Statement::ConsoleInput { .. } => {
                    u.console = true;
                    u.chosen_console = true;
                }
                Statement::SystemProperty { .. } => u.properties = true,
                Statement::InputFile { .. } => u.files = true,
                _ => {}
            }
        }
        u
    }

    /// Whether the method declares `throws Exception` for what it sets up (files are written,
    /// JUnit 4's folder is created, and both may throw `IOException`).
    pub(super) fn throws(self) -> bool {
        self.files
    }

    /// The test method's parameter: JUnit 5's temporary directory.
    pub(super) fn parameter(self, spec: &TestClassSpec, types: &mut TypeNames) -> Option<String> {
        (self.files && spec.junit == JUnit::Five).then(|| {
            let temp_dir = types.class("org.junit.jupiter.api.io.TempDir");
            let path = types.class("java.nio.file.Path");
            format!("@{temp_dir} {path} {TEMPORARY_DIRECTORY}")
        })
    }

    /// Wraps a method body: saves what the test changes, runs the body in `try`, and puts it
    /// back in `finally`. Returns the lines before the body and after it (none when nothing
    /// needs putting back); the body goes one level deeper when there are lines after it.
    pub(super) fn wrapping(
        self,
        spec: &TestClassSpec,
        types: &mut TypeNames,
    ) -> (Vec<String>, Vec<String>) {
        let mut before = Vec::new();
        let mut restore = Vec::new();
        if self.files && spec.junit == JUnit::Four {
            let folder = types.class("org.junit.rules.TemporaryFolder");
            before.push(format!("{folder} {TEMPORARY_FOLDER} = new {folder}();"));
            before.push(format!("{TEMPORARY_FOLDER}.create();"));
            restore.push(format!("{TEMPORARY_FOLDER}.delete();"));
        }
        if self.console {
            let input = types.class("java.io.InputStream");
            before.push(format!("{input} systemIn = System.in;"));
            restore.insert(0, "System.setIn(systemIn);".to_string());
        }
        let no_input = self.console && !self.chosen_console;
        if self.properties {
            let properties = types.class("java.util.Properties");
            before.push(format!(
                "{properties} systemProperties = ({properties}) System.getProperties().clone();"
            ));
            restore.insert(0, "System.setProperties(systemProperties);".to_string());
        }
        if restore.is_empty() {
            return (before, Vec::new());
        }
        before.push("try {".to_string());
        if no_input {
            let stream = types.class("java.io.ByteArrayInputStream");
            before.push(format!("    System.setIn(new {stream}(new byte[0]));"));
        }
        let mut after = vec!["} finally {".to_string()];
        after.extend(restore.into_iter().map(|l| format!("    {l}")));
        after.push("}".to_string());
        (before, after)
    }
}

/// The statement text of console input or a system property, without its semicolon.
pub(super) fn statement_text(s: &Statement, spec: &TestClassSpec, types: &mut TypeNames) -> String {
    match s {
        Statement::ConsoleInput { text } => {
            let stream = types.class("java.io.ByteArrayInputStream");
            format!("System.setIn(new {stream}({}))", bytes(text, spec, types))
        }
        Statement::SystemProperty { key, value } => format!(
            "System.setProperty({}, {})",
            string_literal(key),
            string_literal(value)
        ),
        _ => unreachable!("not a console or property statement"),
    }
}

/// The expression of an input file's path, as its declared type.
pub(super) fn file_path(
    name: &str,
    ty: &JavaType,
    spec: &TestClassSpec,
    types: &mut TypeNames,
) -> String {
    let name = string_literal(name);
    match spec.junit {
        JUnit::Five => {
            let path = format!("{TEMPORARY_DIRECTORY}.resolve({name})");
            match path_kind(ty) {
                PathKind::Path => path,
                PathKind::File => format!("{path}.toFile()"),
                PathKind::String => format!("{path}.toString()"),
            }
        }
        JUnit::Four => match path_kind(ty) {
            PathKind::Path => format!("{TEMPORARY_FOLDER}.getRoot().toPath().resolve({name})"),
            kind => {
                let file = types.class("java.io.File");
                let file = format!("new {file}({TEMPORARY_FOLDER}.getRoot(), {name})");
                if kind == PathKind::String {
                    format!("{file}.getPath()")
                } else {
                    file
                }
            }
        },
    }
}

/// The statement that writes an input file's content to the path in variable `var`.
pub(super) fn file_write(
    var: &str,
    ty: &JavaType,
    content: &str,
    spec: &TestClassSpec,
    types: &mut TypeNames,
) -> String {
    if !nio(spec) {
        // Java 6 and older: no java.nio.file; the content is ASCII, the same in every charset.
        let writer = types.class("java.io.FileWriter");
        return format!(
            "new {writer}({var}).append({}).close();",
            string_literal(content)
        );
    }
    let files = types.class("java.nio.file.Files");
    let path = match path_kind(ty) {
        PathKind::Path => var.to_string(),
        PathKind::File => format!("{var}.toPath()"),
        PathKind::String => format!("{}.get({var})", types.class("java.nio.file.Paths")),
    };
    format!("{files}.write({path}, {});", bytes(content, spec, types))
}

/// `"text".getBytes(...)`: UTF-8 by name from Java 7, else the default charset (the text is
/// ASCII, so its bytes are the same).
fn bytes(text: &str, spec: &TestClassSpec, types: &mut TypeNames) -> String {
    let literal = string_literal(text);
    if nio(spec) {
        let charsets = types.class("java.nio.charset.StandardCharsets");
        format!("{literal}.getBytes({charsets}.UTF_8)")
    } else {
        format!("{literal}.getBytes()")
    }
}

/// Whether the level has `java.nio.file` and `StandardCharsets` (Java 7).
fn nio(spec: &TestClassSpec) -> bool {
    spec.level.is_none_or(|level| level >= 7)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum PathKind {
    String,
    File,
    Path,
}

fn path_kind(ty: &JavaType) -> PathKind {
    if ty.is_class("java.io.File") {
        PathKind::File
    } else if ty.is_class("java.nio.file.Path") {
        PathKind::Path
    } else {
        PathKind::String
    }
}
