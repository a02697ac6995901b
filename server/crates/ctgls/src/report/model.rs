//! The `--report` JSON document (`docs/report.md`) as typed values, read back so that SARIF and
//! HTML can be made from a report written earlier (a CI shard's, a merged one). Every field a
//! reader may miss has a default: fields are only ever added within a schema version, so an
//! older report reads with empty lists where a newer one carries data, and an entry with
//! `"status": "error"` carries nothing but its class and error.

use serde::{Deserialize, Serialize};

/// One `ctgls generate` run, or several joined (`Report::join`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Report {
    pub schema: u32,
    /// Version of the ctgls that wrote it.
    pub ctgls: String,
    pub budget_seconds: f64,
    pub seed: u64,
    pub algorithm: String,
    pub warnings: Vec<String>,
    pub classes: Vec<ClassReport>,
}

/// Covered out of total.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct Counts {
    pub covered: usize,
    pub total: usize,
}

impl Counts {
    /// The covered share in `[0, 1]`; `None` when there is nothing to cover.
    pub fn ratio(&self) -> Option<f64> {
        (self.total > 0).then(|| self.covered as f64 / self.total as f64)
    }
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ClassReport {
    /// Binary name.
    pub class: String,
    /// `ok`, `unverified`, `not_written` or `error`.
    pub status: String,
    /// Why the class has no results (status `error`).
    pub error: Option<String>,
    pub verification_error: Option<String>,
    pub write_error: Option<String>,
    /// The class's source file relative to the project root, `/`-separated.
    pub source_file: Option<String>,
    pub branches: Counts,
    pub lines: Counts,
    pub methods: Counts,
    pub covered_lines: Vec<u32>,
    pub uncovered_lines: Vec<u32>,
    pub covered_branches: Vec<BranchOutcome>,
    pub uncovered_branches: Vec<BranchOutcome>,
    pub undeclared_exceptions: Vec<UndeclaredException>,
    pub needs_environment: Vec<EnvironmentNeed>,
    pub tests_written: usize,
    /// The written test class as the run named it (possibly absolute).
    pub test_file: Option<String>,
    /// The written test class relative to the project root, `/`-separated.
    pub test_source_file: Option<String>,
    pub junit: Option<u8>,
    pub verified_with_junit: bool,
    pub wall_seconds: f64,
    pub warnings: Vec<String>,
    /// A class-integration entry's pair (`--callee`, or a pair of `--integration`); `None` for
    /// a unit entry. `class` is the class the tests call: the caller, or the subclass callee
    /// of a superclass caller.
    pub caller: Option<String>,
    pub callee: Option<String>,
    /// A class-integration entry's coupled branches, covered of total.
    pub coupled_branches: Option<Counts>,
}

impl ClassReport {
    /// What names the entry on pages: the class, or `caller -> callee` for an integration
    /// entry (a class may have both, so this also names its page).
    pub fn label(&self) -> String {
        match &self.callee {
            Some(callee) => {
                let caller = self.caller.as_deref().unwrap_or(&self.class);
                ctgproject::pairs::label(caller, callee)
            }
            None => self.class.clone(),
        }
    }

    /// Whether the run gave results (every status but `error`).
    pub fn has_results(&self) -> bool {
        self.status != "error"
    }

    /// The undeclared exceptions that are findings: those the JVM raised, and checked ones. A
    /// runtime exception a `throw` statement of the class raises (an argument check) is the
    /// method's contract, as the editor's diagnostics have it (docs/lsp-extensions.md).
    pub fn findings(&self) -> impl Iterator<Item = &UndeclaredException> {
        self.undeclared_exceptions
            .iter()
            .filter(|e| !e.thrown_explicitly || e.checked)
    }
}

/// One outcome of a decision: a covered one names its test, an uncovered one how close the
/// search came.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct BranchOutcome {
    /// `com.x.A#m(int)/B1.T`: the decision's key and the outcome (`T`, `F`, `C<n>`, `E`).
    pub goal: String,
    pub line: u32,
    pub condition: String,
    pub closest_distance: Option<f64>,
    /// The verified test method that covers it first.
    pub test: Option<String>,
}

impl BranchOutcome {
    /// The outcome part of the goal key (`T`, `F`, `C2`, `E`).
    pub fn outcome(&self) -> &str {
        self.goal.rsplit('.').next().unwrap_or("")
    }
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct UndeclaredException {
    /// The member the test called (`com.x.A#interest(int)`).
    pub method: String,
    /// Binary name.
    pub exception: String,
    pub line: Option<u32>,
    pub message: Option<String>,
    pub thrown_explicitly: bool,
    pub checked: bool,
    /// The verified test method that reproduces it, its first line in the test class, and its
    /// source.
    pub test: Option<String>,
    pub test_line: Option<u32>,
    pub test_code: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct EnvironmentNeed {
    pub kind: String,
    pub action: String,
    pub target: String,
    pub refused: bool,
    pub detail: Option<String>,
    pub method: Option<String>,
    pub line: Option<u32>,
    pub goals: Vec<String>,
}

impl EnvironmentNeed {
    /// `writes /home/x/out.txt (refused by the sandbox)`.
    pub fn describe(&self) -> String {
        let refused = if self.refused {
            " (refused by the sandbox)"
        } else {
            ""
        };
        format!("{} {}{refused}", self.action, self.target)
    }
}

impl Report {
    /// Several reports as one (CI shards converted together): the classes of all in the order
    /// given, a class given twice taken from the later report; the settings of the first.
    pub fn join(reports: Vec<Report>) -> Report {
        let mut joined = Report::default();
        for (index, report) in reports.into_iter().enumerate() {
            if index == 0 {
                joined = Report {
                    classes: Vec::new(),
                    warnings: Vec::new(),
                    ..report.clone()
                };
            }
            for warning in report.warnings {
                if !joined.warnings.contains(&warning) {
                    joined.warnings.push(warning);
                }
            }
            for class in report.classes {
                // A class's unit and integration entries are different entries.
                match joined
                    .classes
                    .iter_mut()
                    .find(|c| c.label() == class.label())
                {
                    Some(earlier) => *earlier = class,
                    None => joined.classes.push(class),
                }
            }
        }
        joined
    }

    /// Branch coverage over every class with results (unit entries: an integration entry's
    /// class is counted by its unit entry).
    pub fn branches(&self) -> Counts {
        self.classes
            .iter()
            .filter(|class| class.callee.is_none())
            .fold(Counts::default(), |sum, class| Counts {
                covered: sum.covered + class.branches.covered,
                total: sum.total + class.branches.total,
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn older_reports_and_error_entries_read_with_defaults() {
        // A report from before `source_file` and the line lists, with an error entry.
        let report: Report = serde_json::from_str(
            r#"{ "schema": 1, "ctgls": "0.1.0", "budget_seconds": 30.0, "seed": 0,
                 "algorithm": "dynamosa", "future_field": {"x": 1},
                 "classes": [
                   { "class": "p.A", "status": "ok", "branches": { "covered": 1, "total": 2 },
                     "undeclared_exceptions": [
                       { "method": "p.A#m()", "exception": "java.lang.ArithmeticException",
                         "line": 3, "message": "/ by zero", "thrown_explicitly": false } ] },
                   { "class": "p.B", "status": "error", "error": "class p.B not found" } ] }"#,
        )
        .expect("reads");
        let a = &report.classes[0];
        assert_eq!(a.branches.ratio(), Some(0.5));
        assert_eq!(a.source_file, None);
        assert!(a.covered_lines.is_empty());
        assert_eq!(a.findings().count(), 1);
        assert_eq!(a.undeclared_exceptions[0].test, None);
        let b = &report.classes[1];
        assert!(!b.has_results());
        assert_eq!(b.error.as_deref(), Some("class p.B not found"));
        assert_eq!(b.branches.ratio(), None);
    }

    #[test]
    fn explicit_runtime_exceptions_are_contracts_not_findings() {
        let exception = |thrown_explicitly, checked| UndeclaredException {
            thrown_explicitly,
            checked,
            ..UndeclaredException::default()
        };
        let class = ClassReport {
            undeclared_exceptions: vec![
                exception(true, false),
                exception(false, false),
                exception(true, true),
            ],
            ..ClassReport::default()
        };
        let found: Vec<(bool, bool)> = class
            .findings()
            .map(|e| (e.thrown_explicitly, e.checked))
            .collect();
        assert_eq!(found, [(false, false), (true, true)]);
    }

    /// An integration entry of a class is told apart from its unit entry: by label when
    /// joined, left out of the branch total, named `caller -> callee`.
    #[test]
    fn integration_entries_are_apart_from_the_unit_entries() {
        let text = r#"{"classes": [
            {"class": "p.Bank", "status": "ok", "branches": {"covered": 3, "total": 4}},
            {"class": "p.Bank", "status": "ok", "branches": {"covered": 2, "total": 4},
             "caller": "p.Bank", "callee": "p.Account",
             "coupled_branches": {"covered": 5, "total": 9}}
        ]}"#;
        let report: Report = serde_json::from_str(text).unwrap();
        assert_eq!(report.classes[1].label(), "p.Bank -> p.Account");
        assert_eq!(report.classes[1].coupled_branches.unwrap().total, 9);
        assert_eq!(report.branches().total, 4);
        let joined = Report::join(vec![report.clone(), report]);
        assert_eq!(joined.classes.len(), 2);
    }

    #[test]
    fn joined_reports_keep_the_later_entry_of_a_class() {
        let class = |name: &str, covered| ClassReport {
            class: name.into(),
            status: "ok".into(),
            branches: Counts { covered, total: 4 },
            ..ClassReport::default()
        };
        let shard = |classes, warning: &str| Report {
            seed: 3,
            warnings: vec![warning.into()],
            classes,
            ..Report::default()
        };
        let joined = Report::join(vec![
            shard(vec![class("p.A", 1), class("p.B", 2)], "w"),
            shard(vec![class("p.A", 4), class("p.C", 3)], "w"),
        ]);
        let names: Vec<(&str, usize)> = joined
            .classes
            .iter()
            .map(|c| (c.class.as_str(), c.branches.covered))
            .collect();
        assert_eq!(names, [("p.A", 4), ("p.B", 2), ("p.C", 3)]);
        assert_eq!(joined.warnings, ["w"]);
        assert_eq!(joined.seed, 3);
        assert_eq!(
            joined.branches(),
            Counts {
                covered: 9,
                total: 12
            }
        );
    }
}
