//! A class's source as the reports show it: where it lives in the project, its text, the words
//! for each branch outcome (`true`, `case 3`, `catch`) and the calls through which it reads
//! the machine, all read again from the file, so that a report written elsewhere (a CI shard)
//! needs only the project's checkout.

use std::path::Path;

use ctg::project::{LayoutOverrides, ProjectLayout};
use javamodel::{JavaModel, Outcome};

use crate::open_file::OpenFile;

use super::model::ClassReport;

/// `file` relative to the project `root` with `/` separators, as the report's paths are
/// written; a file outside the root keeps its whole path.
pub fn project_relative(root: &Path, file: &Path) -> String {
    let relative = file.strip_prefix(root).unwrap_or(file);
    relative
        .components()
        .map(|part| part.as_os_str().to_string_lossy())
        .collect::<Vec<_>>()
        .join("/")
}

/// One class's source file.
pub struct ClassSource {
    /// Relative to the project root, `/`-separated: the SARIF URI and the HTML's file name.
    pub path: String,
    pub text: String,
    model: JavaModel,
}

impl ClassSource {
    /// The report's `source_file` under `root`, else (a report older than that field) the
    /// file the project's layout gives the class. `None` when the file cannot be read.
    pub fn read(root: &Path, class: &ClassReport) -> Option<ClassSource> {
        let path = match &class.source_file {
            Some(path) => path.clone(),
            None => {
                let layout = ProjectLayout::discover(root, &LayoutOverrides::default());
                let file = layout.source_file_of(&class.class)?;
                project_relative(&layout.root, &file)
            }
        };
        let text = std::fs::read_to_string(root.join(&path)).ok()?;
        Some(ClassSource::new(path, text))
    }

    pub fn new(path: String, text: String) -> ClassSource {
        let tree = syntax::parse_java(&text, None);
        let model = JavaModel::build(&text, &tree);
        ClassSource { path, text, model }
    }

    /// The outcome of `goal` (`com.x.A#m(int)/B1.C2`) in words, as the editor's hover says it:
    /// `true`, `false`, `case 3`, `default`, `catch`, `entry`.
    pub fn outcome_label(&self, goal: &str) -> String {
        let Some((decision, outcome)) = goal.rsplit_once('.') else {
            return goal.to_string();
        };
        let parsed = match outcome {
            "T" => Some(Outcome::True),
            "F" => Some(Outcome::False),
            "E" => Some(Outcome::Entered),
            case => case
                .strip_prefix('C')
                .and_then(|n| n.parse().ok())
                .map(Outcome::Case),
        };
        let Some(outcome) = parsed else {
            return outcome.to_string();
        };
        let found = decision.rsplit_once("/B").and_then(|(member, ordinal)| {
            let ordinal: u32 = ordinal.parse().ok()?;
            let (_, member) = self.model.member_by_key(member)?;
            member
                .body
                .as_ref()?
                .decisions
                .iter()
                .find(|d| d.ordinal == ordinal)
        });
        match (found, outcome) {
            (Some(decision), outcome) => decision.outcome_label(outcome),
            (None, Outcome::True) => "true".into(),
            (None, Outcome::False) => "false".into(),
            (None, Outcome::Entered) => "entry".into(),
            (None, Outcome::Case(n)) => format!("case #{n}"),
        }
    }

    /// The 1-based line of a member's name (`com.x.A#m(int)`), when the file declares it.
    pub fn member_line(&self, key: &str) -> Option<u32> {
        let (_, member) = self.model.member_by_key(key)?;
        let span = member.name_span.as_ref().unwrap_or(&member.span);
        Some(span.start.row as u32 + 1)
    }

    /// The lines that read what a test does not control (`ctg::nondeterminism`, as the
    /// editor's `nondeterministic-input` diagnostics find them): 1-based line, what the call
    /// reads (`reads the clock (System.nanoTime())`) and why tests never assert what depends
    /// on it.
    pub fn nondeterministic_inputs(&self) -> Vec<(u32, String, &'static str)> {
        let file = OpenFile::open(&self.text, 0);
        let document = file.document();
        ctg::nondeterminism::find(&document.text(), document.tree(), file.model())
            .into_iter()
            .map(|input| (input.line, input.describe(), input.kind.why()))
            .collect()
    }

    /// The source's lines as javac numbers them (JLS 3.4: `\n`, `\r\n` and a lone `\r` end
    /// a line, as `syntax::LineIndex` has it), without the empty line after a final break.
    pub fn lines(&self) -> Vec<&str> {
        let mut out = Vec::new();
        let mut rest = self.text.as_str();
        while !rest.is_empty() {
            match rest.find(['\r', '\n']) {
                Some(end) => {
                    out.push(&rest[..end]);
                    let width = if rest[end..].starts_with("\r\n") {
                        2
                    } else {
                        1
                    };
                    rest = &rest[end + width..];
                }
                None => {
                    out.push(rest);
                    rest = "";
                }
            }
        }
        out
    }
}
