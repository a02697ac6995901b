//! `ctgls merge --report OUT R1 R2 ...`: joins the `--report` files of CI shards
//! (`generate --shard I/N`) into one report of the whole project, with the project's totals
//! recomputed, and with `--store DIR --from-store S1 ...` their `.ctgls/` records into one
//! store, so the next run's history and warm start see every shard's runs.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;
use ctg::store::Store;
use serde_json::{json, Value};

use crate::cli::report_json;

/// The clap form of `ctgls merge`'s arguments.
#[derive(Debug, Args)]
pub struct MergeCli {
    /// Where the joined report goes
    #[arg(long, value_name = "OUT")]
    report: PathBuf,
    /// The shards' reports
    #[arg(required = true, value_name = "REPORT")]
    reports: Vec<PathBuf>,
    /// The `.ctgls/` directory to merge the shards' records into (e.g. the project's)
    #[arg(long, value_name = "DIR", requires = "from_store")]
    store: Option<PathBuf>,
    /// A shard's `.ctgls/` directory; repeatable
    #[arg(long = "from-store", value_name = "DIR", requires = "store")]
    from_store: Vec<PathBuf>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MergeArgs {
    pub report: PathBuf,
    pub reports: Vec<PathBuf>,
    pub store: Option<PathBuf>,
    pub from_store: Vec<PathBuf>,
}

impl From<MergeCli> for MergeArgs {
    fn from(cli: MergeCli) -> MergeArgs {
        MergeArgs {
            report: cli.report,
            reports: cli.reports,
            store: cli.store,
            from_store: cli.from_store,
        }
    }
}

pub fn run(args: &MergeArgs) -> ExitCode {
    let mut reports = Vec::new();
    for path in &args.reports {
        let parsed = std::fs::read_to_string(path)
            .map_err(|e| e.to_string())
            .and_then(|text| serde_json::from_str::<Value>(&text).map_err(|e| e.to_string()));
        match parsed {
            Ok(report) => reports.push(report),
            Err(error) => {
                eprintln!("ctgls: cannot read the report {}: {error}", path.display());
                return ExitCode::FAILURE;
            }
        }
    }
    let merged = match merge_reports(&reports) {
        Ok(merged) => merged,
        Err(error) => {
            eprintln!("ctgls: {error}");
            return ExitCode::FAILURE;
        }
    };
    let text = serde_json::to_string_pretty(&merged).expect("a JSON value serialises");
    if let Err(error) = std::fs::write(&args.report, text + "\n") {
        eprintln!(
            "ctgls: cannot write the report {}: {error}",
            args.report.display()
        );
        return ExitCode::FAILURE;
    }
    if let Some(target) = &args.store {
        let sources: Vec<Store> = args.from_store.iter().map(Store::at).collect();
        match ctgproject::merge::merge_stores(&Store::at(target), &sources) {
            Ok(merge) => {
                for problem in &merge.problems {
                    eprintln!("ctgls: warning: left out {problem}");
                }
                eprintln!(
                    "ctgls: {} records and {} integration records merged into {}",
                    merge.taken.len(),
                    merge.pairs_taken.len(),
                    target.display()
                );
            }
            Err(error) => {
                eprintln!("ctgls: {error}");
                return ExitCode::FAILURE;
            }
        }
    }
    ExitCode::SUCCESS
}

/// One report of the shards' reports: the classes of all (a class in two shards: the later
/// report's), the project's totals recomputed, the run settings of the first (they must agree
/// on seed and algorithm, or the reports are not of one run).
pub fn merge_reports(reports: &[Value]) -> Result<Value, String> {
    let first = reports.first().ok_or("no report to merge")?;
    for (i, report) in reports.iter().enumerate() {
        if report["schema"] != first["schema"] {
            return Err(format!(
                "report {} has schema {} and the first {}",
                i + 1,
                report["schema"],
                first["schema"]
            ));
        }
        for key in ["seed", "algorithm"] {
            if report[key] != first[key] {
                return Err(format!(
                    "report {} was made with {key} {} and the first with {}: not shards of one run",
                    i + 1,
                    report[key],
                    first[key]
                ));
            }
        }
    }
    let mut classes: BTreeMap<String, Value> = BTreeMap::new();
    let mut order = Vec::new();
    let mut warnings: Vec<Value> = Vec::new();
    let mut skipped: BTreeMap<String, Value> = BTreeMap::new();
    let mut cycles: Vec<Value> = Vec::new();
    let mut wall: f64 = 0.0;
    let mut jobs: u64 = 0;
    for report in reports {
        for class in report["classes"].as_array().into_iter().flatten() {
            let name = class["class"].as_str().unwrap_or_default().to_string();
            if classes.insert(name.clone(), class.clone()).is_none() {
                order.push(name);
            }
        }
        for warning in report["warnings"].as_array().into_iter().flatten() {
            if !warnings.contains(warning) {
                warnings.push(warning.clone());
            }
        }
        let project = &report["project"];
        for skip in project["skipped"].as_array().into_iter().flatten() {
            let name = skip["class"].as_str().unwrap_or_default().to_string();
            skipped.insert(name, skip.clone());
        }
        for cycle in project["cycles"].as_array().into_iter().flatten() {
            if !cycles.contains(cycle) {
                cycles.push(cycle.clone());
            }
        }
        wall = wall.max(project["wall_seconds"].as_f64().unwrap_or(0.0));
        jobs += project["jobs"].as_u64().unwrap_or(0);
    }
    let mut merged = first.clone();
    merged["warnings"] = json!(warnings);
    merged["classes"] = json!(order
        .iter()
        .map(|name| classes[name].clone())
        .collect::<Vec<_>>());
    let mut project = json!({
        "allocation": first["project"]["allocation"],
        "total_budget_seconds": first["project"]["total_budget_seconds"],
        "jobs": jobs,
        "shard": null,
        "shards": reports.len(),
        "order": order,
        "cycles": cycles,
        "skipped": skipped.into_values().collect::<Vec<_>>(),
        "wall_seconds": wall,
    });
    report_json::add_totals(&mut project, &merged["classes"]);
    merged["project"] = project;
    Ok(merged)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn class(name: &str, covered: u64, total: u64, status: &str) -> Value {
        json!({
            "class": name,
            "status": status,
            "branches": { "covered": covered, "total": total },
            "lines": { "covered": covered * 2, "total": total * 2 },
            "tests_written": covered,
            "undeclared_exceptions": [{ "thrown_explicitly": false }, { "thrown_explicitly": true }],
            "executions": 100,
            "wall_seconds": 1.5,
        })
    }

    fn shard(index: u64, classes: Vec<Value>, skipped: Vec<Value>, wall: f64) -> Value {
        json!({
            "schema": 1,
            "seed": 0,
            "algorithm": "dynamosa",
            "warnings": ["same note"],
            "classes": classes,
            "project": {
                "allocation": "branches",
                "total_budget_seconds": 60.0,
                "jobs": 2,
                "shard": format!("{index}/2"),
                "cycles": [],
                "skipped": skipped,
                "wall_seconds": wall,
            }
        })
    }

    #[test]
    fn shards_join_into_the_whole() {
        let one = shard(
            1,
            vec![class("p.A", 3, 4, "ok"), class("p.C", 0, 2, "error")],
            vec![json!({ "class": "p.Old", "reason": "no improvement in the last 3 runs" })],
            10.0,
        );
        let two = shard(2, vec![class("p.B", 5, 6, "ok")], vec![], 12.5);
        let merged = merge_reports(&[one, two]).unwrap();
        let project = &merged["project"];
        assert_eq!(project["classes_run"], 3);
        assert_eq!(project["classes_ok"], 2);
        assert_eq!(project["classes_failed"], 1);
        assert_eq!(project["branches"], json!({ "covered": 8, "total": 12 }));
        assert_eq!(project["lines"], json!({ "covered": 16, "total": 24 }));
        assert_eq!(project["tests_written"], 8);
        assert_eq!(project["undeclared_exceptions"], 3);
        assert_eq!(project["wall_seconds"], 12.5);
        assert_eq!(project["jobs"], 4);
        assert_eq!(project["shards"], 2);
        assert_eq!(project["order"], json!(["p.A", "p.C", "p.B"]));
        assert_eq!(project["skipped"][0]["class"], "p.Old");
        assert_eq!(merged["warnings"], json!(["same note"]));
    }

    #[test]
    fn reports_of_different_runs_are_refused() {
        let one = shard(1, vec![], vec![], 1.0);
        let mut two = shard(2, vec![], vec![], 1.0);
        two["seed"] = json!(7);
        let error = merge_reports(&[one, two]).unwrap_err();
        assert!(error.contains("not shards of one run"), "{error}");
        assert!(merge_reports(&[]).is_err());
    }
}
