//! `ctgls report`: SARIF and HTML from JSON reports written earlier (by `ctgls generate
//! --report`, on CI shards, merged or not), against the project's checkout for the sources.

use std::path::PathBuf;
use std::process::ExitCode;

use crate::report::{self, Outputs};

pub const USAGE: &str = "\
Usage: ctgls report --from REPORT.json [--from REPORT.json]... [--project DIR]
                    [--sarif FILE] [--html DIR]

Converts JSON reports of `ctgls generate --report` (docs/report.md) into SARIF 2.1.0 for code
scanning and a static HTML report. Several reports are read as one: a class in more than one
takes the later report's entry.

Options:
  --from FILE            a JSON report; repeatable, at least one
  --project DIR          the project whose sources the reports describe (default: the
                         current directory)
  --sarif FILE           write the findings as SARIF 2.1.0
  --html DIR             write the HTML report (index.html, a page per class)";

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReportArgs {
    pub from: Vec<PathBuf>,
    pub project: PathBuf,
    pub outputs: Outputs,
}

/// Parses the arguments after `report`.
pub fn parse(args: &[&str]) -> Result<ReportArgs, String> {
    let mut parsed = ReportArgs {
        from: Vec::new(),
        project: PathBuf::from("."),
        outputs: Outputs::default(),
    };
    let mut rest = args.iter();
    while let Some(&arg) = rest.next() {
        let (flag, inline) = match arg.split_once('=') {
            Some((flag, value)) if flag.starts_with("--") => (flag, Some(value)),
            _ => (arg, None),
        };
        let value = match inline {
            Some(value) => value,
            None => rest
                .next()
                .copied()
                .ok_or_else(|| format!("`{flag}` needs a value"))?,
        };
        match flag {
            "--from" => parsed.from.push(PathBuf::from(value)),
            "--project" => parsed.project = PathBuf::from(value),
            "--sarif" => parsed.outputs.sarif = Some(PathBuf::from(value)),
            "--html" => parsed.outputs.html = Some(PathBuf::from(value)),
            other => return Err(format!("unknown option `{other}`")),
        }
    }
    if parsed.from.is_empty() {
        return Err("`report` needs at least one `--from REPORT.json`".into());
    }
    if parsed.outputs.is_empty() {
        return Err("`report` needs `--sarif FILE`, `--html DIR` or both".into());
    }
    Ok(parsed)
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
        assert!(parse(&["--from"]).unwrap_err().contains("needs a value"));
        assert!(parse(&["--from", "a", "--html", "d", "--x", "1"])
            .unwrap_err()
            .contains("unknown option `--x`"));
    }
}
