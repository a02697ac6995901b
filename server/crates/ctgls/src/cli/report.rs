//! `ctgls report`: SARIF and HTML from JSON reports written earlier (by `ctgls generate
//! --report`, on CI shards, merged or not), against the project's checkout for the sources.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;

use crate::report::{self, Outputs};

/// The clap form of `ctgls report`'s arguments.
#[derive(Debug, Args)]
#[command(
    long_about = "Converts JSON reports of `ctgls generate --report` (docs/report.md) into SARIF \
                  2.1.0 for code scanning and a static HTML report. Several reports are read as \
                  one: a class in more than one takes the later report's entry."
)]
pub struct ReportCli {
    /// A JSON report; repeatable, at least one
    #[arg(long, value_name = "FILE", required = true)]
    from: Vec<PathBuf>,
    /// The project whose sources the reports describe
    #[arg(long, value_name = "DIR", default_value = ".")]
    project: PathBuf,
    /// Write the findings as SARIF 2.1.0
    #[arg(long, value_name = "FILE")]
    sarif: Option<PathBuf>,
    /// Write the HTML report (index.html, a page per class)
    #[arg(long, value_name = "DIR")]
    html: Option<PathBuf>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReportArgs {
    pub from: Vec<PathBuf>,
    pub project: PathBuf,
    pub outputs: Outputs,
}

impl ReportCli {
    /// What clap cannot say: at least one output.
    pub fn check(self) -> Result<ReportArgs, String> {
        let outputs = Outputs {
            sarif: self.sarif,
            html: self.html,
        };
        if outputs.is_empty() {
            return Err("`report` needs `--sarif FILE`, `--html DIR` or both".into());
        }
        Ok(ReportArgs {
            from: self.from,
            project: self.project,
            outputs,
        })
    }
}

pub fn run(args: ReportArgs) -> ExitCode {
    let written = report::read(&args.from)
        .and_then(|report| report::write(&report, &args.project, &args.outputs));
    match written {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("ctgls: {error:#}");
            ExitCode::FAILURE
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arguments() {
        let parse = |args: &[&str]| {
            let args: Vec<&str> = std::iter::once("report")
                .chain(args.iter().copied())
                .collect();
            match crate::cli::parse_strs(&args) {
                Ok(crate::cli::Command::Report(args)) => Ok(args),
                Ok(other) => panic!("not a report: {other:?}"),
                Err(text) => Err(text),
            }
        };
        let args = parse(&[
            "--from",
            "a.json",
            "--from=b.json",
            "--project",
            "p",
            "--sarif=out.sarif",
            "--html",
            "site",
        ])
        .expect("valid");
        assert_eq!(
            args.from,
            [PathBuf::from("a.json"), PathBuf::from("b.json")]
        );
        assert_eq!(args.project, PathBuf::from("p"));
        assert_eq!(args.outputs.sarif, Some(PathBuf::from("out.sarif")));
        assert_eq!(args.outputs.html, Some(PathBuf::from("site")));
        assert!(parse(&["--sarif", "x"]).unwrap_err().contains("--from"));
        assert!(parse(&["--from", "a.json"])
            .unwrap_err()
            .contains("--sarif"));
        assert!(parse(&["--from"]).unwrap_err().contains("--from"));
        assert!(parse(&["--from", "a", "--html", "d", "--x", "1"])
            .unwrap_err()
            .contains("--x"));
    }
}
