//! `ctgls generate` in project mode, end to end with the real worker (`CTGLS_E2E=1`): the
//! example project plus a class that takes an `Account` (Campos et al.'s section 3.2 example),
//! all classes on two workers; the same run as two CI shards joined by `ctgls merge` covers
//! the same classes; and a later run of the dependent class alone is seeded with the objects
//! the stored `Account` tests built. Budgets are a few seconds in all.

mod support;

use std::path::Path;
use std::process::{Command, Output};

use serde_json::Value;
use support::{e2e_enabled, Project};

/// Statement.render(Account) covers its branch only with an overdrawn account: the paper's
/// `A.foo(B b) { if (b.isProperlyConfigured()) ... }`.
const STATEMENT: &str = "package com.example.bank;

public class Statement {
    public String render(Account account) {
        if (account.isOverdrawn()) {
            return account.getOwner() + \": overdrawn\";
        }
        return account.getOwner() + \": \" + account.getBalance();
    }
}
";

fn project(name: &str) -> Project {
    let project = Project::copy("project", name);
    std::fs::write(project.file("Statement"), STATEMENT).unwrap();
    project
}

fn ctgls(project: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ctgls"))
        .arg("generate")
        .arg("--project")
        .arg(project)
        // Project mode (budgets, workers, shards, merge, seeding) is what this file checks, not
        // the mutation analysis, which other end-to-end tests run by default; without it
        // emission is shorter and every planned assertion is kept.
        .args(["--no-build-tool", "--no-mutation", "--seed", "3"])
        .args(args)
        .output()
        .expect("the ctgls binary runs")
}

fn report(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).expect("the report")).expect("JSON")
}

fn class_names(report: &Value) -> Vec<String> {
    let mut names: Vec<String> = report["classes"]
        .as_array()
        .expect("classes")
        .iter()
        .map(|c| c["class"].as_str().unwrap().to_string())
        .collect();
    names.sort();
    names
}

const ALL: [&str; 4] = [
    "com.example.bank.Account",
    "com.example.bank.AmountParser",
    "com.example.bank.Bank",
    "com.example.bank.Statement",
];

#[test]
fn whole_project_on_two_workers_then_shards_and_merge() {
    if !e2e_enabled() {
        return;
    }
    let whole = project("whole");
    let whole_report = whole.0.join("report.json");
    let output = ctgls(
        &whole.0,
        &[
            "--total-budget",
            "12",
            "--jobs",
            "2",
            "--report",
            whole_report.to_str().unwrap(),
        ],
    );
    let stderr = String::from_utf8_lossy(&output.stderr);
    let whole_json = report(&whole_report);
    assert_eq!(class_names(&whole_json), ALL, "{stderr}");
    let facts = &whole_json["project"];
    assert_eq!(facts["jobs"], 2, "{facts}");
    assert_eq!(facts["allocation"], "branches");
    assert_eq!(facts["total_budget_seconds"], 12.0);
    // Section 3.2's order: Account before the classes that take or hold one.
    let order: Vec<&str> = facts["order"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c.as_str().unwrap())
        .collect();
    let at = |class: &str| order.iter().position(|c| c.ends_with(class)).unwrap();
    assert!(
        at(".Account") < at(".Bank") && at(".Account") < at(".Statement"),
        "{order:?}"
    );
    // Section 3.1: the budgets follow the branches; Statement (2 outcomes) gets less than
    // AmountParser (many), and each at least the minimum (a third of the 3 s average).
    let budget = |class: &str| {
        whole_json["classes"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["class"].as_str().unwrap().ends_with(class))
            .unwrap()["budget_seconds"]
            .as_f64()
            .unwrap()
    };
    assert!(
        budget(".Statement") < budget(".AmountParser"),
        "{whole_json}"
    );
    assert!(budget(".Statement") >= 1.0, "{whole_json}");
    assert_eq!(
        facts["branches"]["total"],
        whole_json["classes"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["branches"]["total"].as_u64().unwrap_or(0))
            .sum::<u64>()
    );
    assert!(
        output.status.code() == Some(0) || output.status.code() == Some(1),
        "{stderr}"
    );

    // The same run as two shards on two "runners" (fresh copies), then merged.
    let runners = [project("shard1"), project("shard2")];
    let mut shard_reports = Vec::new();
    for (i, runner) in runners.iter().enumerate() {
        let path = runner.0.join(format!("report-{}.json", i + 1));
        let shard = format!("{}/2", i + 1);
        let output = ctgls(
            &runner.0,
            &[
                "--total-budget",
                "12",
                "--jobs",
                "1",
                "--shard",
                &shard,
                "--report",
                path.to_str().unwrap(),
            ],
        );
        let part = report(&path);
        assert!(
            !part["classes"].as_array().unwrap().is_empty(),
            "shard {shard} got no class: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        shard_reports.push(path);
    }
    let first = class_names(&report(&shard_reports[0]));
    let second = class_names(&report(&shard_reports[1]));
    assert!(
        first.iter().all(|c| !second.contains(c)),
        "{first:?} {second:?}"
    );
    let merged_path = runners[0].0.join("merged.json");
    let merged_store = runners[0].0.join("merged-store");
    let output = Command::new(env!("CARGO_BIN_EXE_ctgls"))
        .arg("merge")
        .arg("--report")
        .arg(&merged_path)
        .arg("--store")
        .arg(&merged_store)
        .arg("--from-store")
        .arg(runners[0].0.join(".ctgls"))
        .arg("--from-store")
        .arg(runners[1].0.join(".ctgls"))
        .args(&shard_reports)
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let merged = report(&merged_path);
    assert_eq!(class_names(&merged), class_names(&whole_json));
    assert_eq!(merged["project"]["classes_run"], 4);
    assert_eq!(merged["project"]["shards"], 2);
    assert_eq!(
        merged["project"]["branches"]["total"],
        whole_json["project"]["branches"]["total"]
    );
    let records = std::fs::read_dir(merged_store.join("classes"))
        .unwrap()
        .count();
    assert_eq!(records, 4, "one record per class in the merged store");

    // Section 3.2 across runs: Statement alone (changed, so its history cannot skip it),
    // seeded with the Account objects the stored Account tests built.
    std::fs::write(whole.file("Statement"), format!("{STATEMENT}// changed\n")).unwrap();
    let again = whole.0.join("again.json");
    let output = ctgls(
        &whole.0,
        &[
            "--include",
            "*.Statement",
            "--budget",
            "3",
            "--report",
            again.to_str().unwrap(),
        ],
    );
    let again = report(&again);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(
        class_names(&again),
        ["com.example.bank.Statement"],
        "{stderr}"
    );
    let class = &again["classes"][0];
    assert_eq!(
        class["uses"],
        serde_json::json!(["com.example.bank.Account"])
    );
    assert!(
        class["warm_start"]["seeded_objects"].as_u64().unwrap_or(0) > 0,
        "{class}\n{stderr}"
    );
}
