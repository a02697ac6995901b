//! Reports for people and tools, made from the `--report` JSON model (`docs/report.md`): SARIF
//! 2.1.0 for code scanning (`sarif`) and a static HTML site (`html`). Both read the classes'
//! sources from the project's checkout, so a report written on another machine (a CI shard)
//! converts wherever the same checkout is. `ctgls generate --sarif/--html` and `ctgls report`
//! call [`write`].
//!
//! **API boundary:** this module reads only the report model and the project's files; it knows
//! nothing of the pipeline's types, so what it shows is what the JSON report says.

pub mod html;
pub mod model;
pub mod sarif;
pub mod source;

use std::path::{Path, PathBuf};

use anyhow::Context as _;

use model::ClassReport;
pub use model::Report;
use source::ClassSource;

/// Where to write what; `None` writes nothing of that kind.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Outputs {
    pub sarif: Option<PathBuf>,
    pub html: Option<PathBuf>,
}

impl Outputs {
    pub fn is_empty(&self) -> bool {
        self.sarif.is_none() && self.html.is_none()
    }
}

/// A class of the report with its source, when the checkout has it.
pub struct ReportClass<'a> {
    pub report: &'a ClassReport,
    pub source: Option<ClassSource>,
}

/// Reads report files and joins them into one (`Report::join`).
pub fn read(paths: &[PathBuf]) -> anyhow::Result<Report> {
    let mut reports = Vec::new();
    for path in paths {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("cannot read the report {}", path.display()))?;
        let report: Report = serde_json::from_str(&text).with_context(|| {
            format!(
                "{} is not a ctgls JSON report (docs/report.md)",
                path.display()
            )
        })?;
        reports.push(report);
    }
    Ok(Report::join(reports))
}

/// Writes the SARIF file and the HTML site of `report`; `root` is the project the classes'
/// `source_file`s are relative to.
pub fn write(report: &Report, root: &Path, outputs: &Outputs) -> anyhow::Result<()> {
    if outputs.is_empty() {
        return Ok(());
    }
    let classes: Vec<ReportClass> = report
        .classes
        .iter()
        .map(|class| ReportClass {
            report: class,
            source: ClassSource::read(root, class),
        })
        .collect();
    if let Some(path) = &outputs.sarif {
        let log = sarif::sarif(report, &classes, root_uri(root).as_deref());
        let text = serde_json::to_string_pretty(&log).expect("a JSON value serialises");
        std::fs::write(path, text + "\n")
            .with_context(|| format!("cannot write the SARIF file {}", path.display()))?;
    }
    if let Some(dir) = &outputs.html {
        html::write_site(report, &classes, dir)
            .with_context(|| format!("cannot write the HTML report into {}", dir.display()))?;
    }
    Ok(())
}

/// [`write`] for the report `ctgls generate` has just built as JSON.
pub fn write_from_json(
    report: serde_json::Value,
    root: &Path,
    outputs: &Outputs,
) -> anyhow::Result<()> {
    if outputs.is_empty() {
        return Ok(());
    }
    let report: Report =
        serde_json::from_value(report).context("the run's report does not read back")?;
    write(&report, root, outputs)
}

/// The project root as an absolute `file:` URI ending in `/`, as SARIF wants a base URI.
fn root_uri(root: &Path) -> Option<String> {
    let absolute = std::fs::canonicalize(root).ok()?;
    let text = absolute.to_str()?.replace('\\', "/");
    let path = if text.starts_with('/') {
        text
    } else {
        format!("/{text}")
    };
    let mut uri = format!("file://{}", sarif::uri_path(&path));
    if !uri.ends_with('/') {
        uri.push('/');
    }
    Some(uri)
}
