//! The operators of the environment statements: inserting console input and system
//! properties, giving a path parameter an input file, and changing texts, names and values
//! (Arcuri et al., "Environment Dependencies", 3.3.1 and 3.3.2: the search chooses the
//! environment's contents as it chooses primitive values). As the paper's `addInputLine` and
//! `appendLineToFile`, texts are edited line by line.

use rand::Rng;

use super::{is_file_name, is_path_type, sanitized};
use crate::delta::mutate_value;
use crate::factory::{Factory, Gen};
use crate::random_value::new_value;
use crate::statement::{Statement, TestCase, VarRef};
use crate::types::{JavaType, PrimitiveKind};
use crate::value::{LiteralKind, PrimitiveValue};

/// Probability that an insertion sets up the environment (console input or a property) rather
/// than calling a target, when the class reads any. Ours: the environment matters to a few of
/// a class's branches, calls to all of them.
pub(crate) const ENVIRONMENT_INSERTION: f64 = 0.15;

/// Probability that a new `File` or `Path` value is an input file rather than built otherwise.
const FILE_FOR_FILE_TYPES: f64 = 0.6;

/// Same for a new `String`: most strings are no paths, so less often.
const FILE_FOR_STRINGS: f64 = 0.15;

/// Probability that an input file does not exist (its path only).
const MISSING_FILE: f64 = 0.15;

/// Probability that a new line or property value is a string constant of the source. Ours,
/// higher than the value pool's share (`Config::pool_probability` of which a third goes to
/// observed values): what a class compares its input with is mostly written in it
/// (`line.equals("quit")`), and an input is drawn far less often than an argument.
const SOURCE_STRING: f64 = 0.4;

/// Most lines of a new text.
const MAX_LINES: usize = 4;

/// File names used when the source's strings give none.
const DEFAULT_NAMES: [&str; 3] = ["input.txt", "data.csv", "input"];

impl Factory<'_> {
    /// Console input or a system property the test does not set yet, inserted first; `None`
    /// when the class reads neither or the test sets all of them.
    pub(crate) fn insert_environment(&mut self, tc: &mut TestCase) -> Option<bool> {
        let env = self.cluster.environment();
        let console = env.console
            && !tc
                .statements()
                .iter()
                .any(|s| matches!(s, Statement::ConsoleInput { .. }));
        let keys: Vec<String> = env
            .property_keys
            .iter()
            .filter(|k| {
                !tc.statements()
                    .iter()
                    .any(|s| matches!(s, Statement::SystemProperty { key, .. } if key == *k))
            })
            .cloned()
            .collect();
        let choices = usize::from(console) + keys.len();
        if choices == 0 || tc.len() >= self.config.max_length {
            return None;
        }
        let pick = self.rng.gen_range(0..choices);
        let s = if console && pick == 0 {
            Statement::ConsoleInput {
                text: self.new_text(),
            }
        } else {
            let key = keys[pick - usize::from(console)].clone();
            Statement::SystemProperty {
                key,
                value: self.property_value(),
            }
        };
        tc.insert(0, s);
        Some(true)
    }

    /// An input file for a parameter of type `want` at `*pos`, with the probability of its
    /// type, when the class uses the file API; `None` to build `want` otherwise.
    pub(crate) fn maybe_input_file(
        &mut self,
        tc: &mut TestCase,
        pos: &mut usize,
        want: &JavaType,
    ) -> Option<Gen<VarRef>> {
        if !self.cluster.environment().files || !is_path_type(want) {
            return None;
        }
        let p = if *want == JavaType::string() {
            FILE_FOR_STRINGS
        } else {
            FILE_FOR_FILE_TYPES
        };
        if !self.rng.gen_bool(p) || tc.len() >= self.config.max_length {
            return None;
        }
        let s = Statement::InputFile {
            name: self.file_name(),
            content: self.file_content(),
            ty: want.clone(),
        };
        let v = tc.insert(*pos, s);
        *pos += 1;
        Some(Ok(v))
    }

    /// Changes an environment statement: console input's text; a property's value (or, one
    /// time in four, its key); an input file's content (or, one time in four, its name, or
    /// whether it exists).
    pub(crate) fn change_environment(&mut self, tc: &mut TestCase, i: usize) -> bool {
        let new = match tc.statements()[i].clone() {
            Statement::ConsoleInput { text } => Statement::ConsoleInput {
                text: self.changed_text(&text),
            },
            Statement::SystemProperty { key, value } => {
                let keys: Vec<&String> = self
                    .cluster
                    .environment()
                    .property_keys
                    .iter()
                    .filter(|k| **k != key)
                    .filter(|k| {
                        !tc.statements().iter().any(
                            |s| matches!(s, Statement::SystemProperty { key, .. } if key == *k),
                        )
                    })
                    .collect();
                if !keys.is_empty() && self.rng.gen_bool(0.25) {
                    let key = keys[self.rng.gen_range(0..keys.len())].clone();
                    Statement::SystemProperty { key, value }
                } else {
                    Statement::SystemProperty {
                        value: self.changed_value(&value),
                        key,
                    }
                }
            }
            Statement::InputFile { name, content, ty } => match self.rng.gen_range(0..4) {
                0 => Statement::InputFile {
                    name: self.file_name(),
                    content,
                    ty,
                },
                1 => Statement::InputFile {
                    name,
                    content: match content {
                        Some(_) => None,
                        None => Some(self.new_text()),
                    },
                    ty,
                },
                _ => Statement::InputFile {
                    name,
                    content: Some(match content {
                        Some(text) => self.changed_text(&text),
                        None => self.new_text(),
                    }),
                    ty,
                },
            },
            _ => return false,
        };
        let changed = new != tc.statements()[i];
        tc.replace(i, new);
        changed
    }

    /// A text of up to [`MAX_LINES`] lines, each ended by `\n`: constants of the source,
    /// numbers and random words.
    fn new_text(&mut self) -> String {
        let n = self.rng.gen_range(0..=MAX_LINES);
        (0..n).map(|_| self.new_line() + "\n").collect()
    }

    fn new_line(&mut self) -> String {
        if self.rng.gen_bool(SOURCE_STRING) {
            if let Some(line) = self.source_string() {
                return line;
            }
        }
        let kind = if self.rng.gen_bool(0.4) {
            LiteralKind::Primitive(PrimitiveKind::Int)
        } else {
            LiteralKind::String
        };
        line_of(&new_value(
            kind,
            self.cluster.pools(),
            self.config,
            self.rng,
        ))
    }

    /// A string constant of the source, as one line.
    fn source_string(&mut self) -> Option<String> {
        let v = self
            .cluster
            .pools()
            .constants
            .pick(LiteralKind::String, self.rng)?;
        Some(line_of(&v))
    }

    /// `text` with a line added, removed or edited, or replaced by a new text.
    fn changed_text(&mut self, text: &str) -> String {
        let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
        match self.rng.gen_range(0..4) {
            0 if lines.len() < MAX_LINES * 2 => {
                let at = self.rng.gen_range(0..=lines.len());
                let line = self.new_line();
                lines.insert(at, line);
            }
            1 if !lines.is_empty() => {
                let at = self.rng.gen_range(0..lines.len());
                lines.remove(at);
            }
            2 if !lines.is_empty() => {
                let at = self.rng.gen_range(0..lines.len());
                lines[at] = self.changed_line(&lines[at]);
            }
            _ => return self.new_text(),
        }
        lines.iter().map(|l| format!("{l}\n")).collect()
    }

    /// A line edited as a string (or as a number, when it is one) is by a delta mutation.
    fn changed_line(&mut self, line: &str) -> String {
        let mut v = match line.trim().parse::<i32>() {
            Ok(n) => PrimitiveValue::Int(n),
            Err(_) => PrimitiveValue::String(line.to_string()),
        };
        mutate_value(&mut v, self.cluster.pools(), self.config, self.rng);
        line_of(&v)
    }

    /// A property value: a constant of the source, `true`/`false`, a number or a word.
    fn property_value(&mut self) -> String {
        if self.rng.gen_bool(SOURCE_STRING) {
            if let Some(value) = self.source_string() {
                return value;
            }
        }
        match self.rng.gen_range(0..5) {
            0 => self.rng.gen_bool(0.5).to_string(),
            1 => line_of(&new_value(
                LiteralKind::Primitive(PrimitiveKind::Int),
                self.cluster.pools(),
                self.config,
                self.rng,
            )),
            _ => line_of(&new_value(
                LiteralKind::String,
                self.cluster.pools(),
                self.config,
                self.rng,
            )),
        }
    }

    fn changed_value(&mut self, value: &str) -> String {
        if self.rng.gen_bool(0.5) {
            return self.property_value();
        }
        self.changed_line(value)
    }

    /// A file name: a string constant of the source that is one, else a default.
    fn file_name(&mut self) -> String {
        let names: Vec<String> = self
            .cluster
            .pools()
            .constants
            .candidates(LiteralKind::String)
            .into_iter()
            .filter_map(|v| match v {
                PrimitiveValue::String(s) if is_file_name(&s) && s.contains('.') => Some(s),
                _ => None,
            })
            .collect();
        if !names.is_empty() && self.rng.gen_bool(0.5) {
            return names[self.rng.gen_range(0..names.len())].clone();
        }
        DEFAULT_NAMES[self.rng.gen_range(0..DEFAULT_NAMES.len())].to_string()
    }

    fn file_content(&mut self) -> Option<String> {
        (!self.rng.gen_bool(MISSING_FILE)).then(|| self.new_text())
    }
}

/// A value as one line of input text.
fn line_of(v: &PrimitiveValue) -> String {
    match v {
        PrimitiveValue::String(s) => sanitized(s, true),
        PrimitiveValue::Char(c) => sanitized(&c.to_string(), true),
        other => other
            .as_integer()
            .map_or_else(String::new, |n| n.to_string()),
    }
}
