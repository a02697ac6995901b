//! Worker results in goal terms: a `jvm::TestResult` (probe trace, status, exception) of one
//! test case becomes a `search::ExecutionResult` through the instrumenter's probe table and the
//! goal table (the recipe is in the `search` crate's documentation).
//!
//! Choices that are ours:
//! - An exception is recorded against the member the failing statement CALLED (the search's
//!   exception goals are per called member), with the line of the top stack frame inside the
//!   class under test.
//! - An exception the statement itself throws before any code under test runs (the worker's
//!   `by_statement`: a call or field access on a `null` receiver, unboxing a `null`, an array
//!   index out of bounds) is the test's own, as in Java: the run finished, the exception is
//!   recorded without a member, so it makes no goal. `Invalid` (unknown member, argument
//!   mismatch: javac would reject the statement) means our statement was wrong: the run counts
//!   as crashed, so the search never archives it.
//! - `SystemExit` (blocked by the worker) is a finished run: its coverage is real. Stack
//!   overflows are finished runs with a `StackOverflowError` (infinite recursion is worth
//!   reporting); timeouts stay timeouts; out-of-memory counts as crashed (its trace is
//!   unreliable and the test would be flaky).

use javamodel::instrument::ProbeTable;
use javamodel::Outcome;
use jvm::{ExecutionTrace, TestResult, TestStatus};
use search::{ExecutionResult, ExecutionStatus, GoalTable, MemberId, ObservedException};
use testcase::{Callable, CallableKind, TestCase};

/// Maps worker results of one class under test onto its goal table.
pub struct TraceMapper<'a> {
    table: &'a GoalTable,
    /// The probe table of the file declaring the class under test; empty when it could not be
    /// instrumented.
    probes: &'a ProbeTable,
    class: String,
}

impl<'a> TraceMapper<'a> {
    pub fn new(table: &'a GoalTable, probes: &'a ProbeTable) -> TraceMapper<'a> {
        TraceMapper {
            table,
            probes,
            class: table.binary_name().to_string(),
        }
    }

    pub fn table(&self) -> &'a GoalTable {
        self.table
    }

    /// The result of running `test` as the worker reported it.
    pub fn map(&self, test: &TestCase, result: &TestResult) -> ExecutionResult {
        let status = match result.status {
            TestStatus::Ok
            | TestStatus::Exception
            | TestStatus::SystemExit
            | TestStatus::StackOverflow => ExecutionStatus::Ok,
            TestStatus::Invalid | TestStatus::OutOfMemory => ExecutionStatus::Crashed,
            TestStatus::Timeout => ExecutionStatus::Timeout,
        };
        let mut out = ExecutionResult::new(self.table, status);
        self.record_trace(&mut out, &result.trace);
        out.executed_statements = executed_statements(test, result);
        if let Some(exception) = self.exception(test, result) {
            out.record_exception(exception);
        }
        out
    }

    /// An empty result for a test the worker never reported on.
    pub fn lost(&self, status: ExecutionStatus) -> ExecutionResult {
        ExecutionResult::new(self.table, status)
    }

    fn record_trace(&self, out: &mut ExecutionResult, trace: &ExecutionTrace) {
        let mut loops = 0u64;
        for file in &trace.files {
            // The I1 proxy counts loops that iterated more than once (seed 002, Table I), so
            // that covering a loop is never penalised.
            loops += file
                .loops
                .iter()
                .filter(|(_, n)| *n > 1)
                .map(|(_, n)| n)
                .sum::<u64>();
            if file.key != self.probes.key {
                continue;
            }
            // A switch has one row per case: the decision's hits are the largest row, since
            // each row counts the same evaluations.
            let mut hits: Vec<(search::DecisionId, u64)> = Vec::new();
            for row in &file.branches {
                let Some(probe) = self.probes.branch(row.id) else {
                    continue;
                };
                let Some(decision) = self.table.decision_by_key(&probe.decision) else {
                    continue;
                };
                match hits.iter_mut().find(|(d, _)| *d == decision) {
                    Some((_, h)) => *h = (*h).max(row.hits),
                    None => hits.push((decision, row.hits)),
                }
                record_side(out, self.table, decision, probe.on_true, row.true_distance);
                record_side(
                    out,
                    self.table,
                    decision,
                    probe.on_false,
                    row.false_distance,
                );
            }
            for (decision, h) in hits {
                out.record_decision(self.table, decision, saturate(h));
            }
            for &(id, h) in &file.methods {
                let member = self
                    .probes
                    .method(id)
                    .and_then(|m| self.table.member_by_key(&m.member));
                if let Some(member) = member {
                    out.record_member_entry(self.table, member, saturate(h));
                }
            }
            for &(line, h) in &file.lines {
                if h > 0 {
                    out.record_line(line);
                }
            }
        }
        out.proxies = search::ProductionProxies {
            executed_loops: loops,
            covered_method_calls: trace.proxies.method_calls,
            object_instantiations: trace.proxies.instantiations,
            covered_statements: trace.proxies.statements,
        };
    }

    fn exception(&self, test: &TestCase, result: &TestResult) -> Option<ObservedException> {
        let at = result.failed_at?;
        let statement = test.statements().get(at)?;
        match result.status {
            TestStatus::Exception | TestStatus::StackOverflow => {
                let thrown = result.exception.as_ref();
                let type_name = thrown.map_or_else(
                    || "java.lang.StackOverflowError".to_string(),
                    |e| e.type_name.clone(),
                );
                let line = thrown
                    .and_then(|e| e.frame.as_ref())
                    .filter(|f| self.is_class_under_test(&f.class))
                    .and_then(|f| f.line);
                let by_statement = thrown.is_some_and(|e| e.by_statement);
                Some(ObservedException {
                    member: statement
                        .callable()
                        .filter(|_| !by_statement)
                        .and_then(|c| self.member_called(c)),
                    type_name,
                    declared: thrown.is_some_and(|e| e.declared),
                    line,
                })
            }
            _ => None,
        }
    }

    /// Whether `class` (a binary name) is the class under test or nested in it.
    pub fn is_class_under_test(&self, class: &str) -> bool {
        class == self.class
            || class
                .strip_prefix(self.class.as_str())
                .is_some_and(|rest| rest.starts_with('$'))
    }

    /// The goal table's member a statement's callable invokes: same declaring class and name,
    /// same arity, and the parameter types that match best (the worker names types in erased
    /// `getTypeName` form, the model as written in the source, so simple names are compared).
    pub fn member_called(&self, callable: &Callable) -> Option<MemberId> {
        let name = match &callable.kind {
            CallableKind::Constructor => "<init>",
            CallableKind::Method { name, .. } => name.as_str(),
            // Field accesses run no member of the class.
            CallableKind::FieldRead { .. } | CallableKind::FieldWrite { .. } => return None,
        };
        let prefix = format!("{}#{name}(", callable.declaring_class);
        let wanted: Vec<String> = callable
            .erased_params
            .iter()
            .map(|p| simple_type(p))
            .collect();
        let mut best: Option<(usize, MemberId)> = None;
        for (index, member) in self.table.members().iter().enumerate() {
            let Some(params) = member
                .key
                .strip_prefix(&prefix)
                .and_then(|rest| rest.strip_suffix(')'))
            else {
                continue;
            };
            let params: Vec<String> = if params.is_empty() {
                Vec::new()
            } else {
                split_params(params).map(simple_type).collect()
            };
            if params.len() != wanted.len() {
                continue;
            }
            let score = params.iter().zip(&wanted).filter(|(a, b)| a == b).count();
            if best.is_none_or(|(s, _)| score > s) {
                best = Some((score, MemberId(index as u32)));
            }
        }
        best.map(|(_, id)| id)
    }
}

fn record_side(
    out: &mut ExecutionResult,
    table: &GoalTable,
    decision: search::DecisionId,
    outcome: Option<Outcome>,
    distance: f64,
) {
    if let Some(outcome) = outcome {
        out.record_distance(table, decision, outcome, distance);
    }
}

fn saturate(n: u64) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

/// Statements that ran, the one that threw (or hit the deadline) included.
pub fn executed_statements(test: &TestCase, result: &TestResult) -> u64 {
    let n = match (result.status, result.failed_at) {
        (TestStatus::Ok, _) => test.len(),
        (TestStatus::Invalid, Some(i)) => i,
        (_, Some(i)) => i + 1,
        (_, None) => result.statements.len(),
    };
    n.min(test.len()) as u64
}

/// `java.util.Map$Entry[]` and `Map.Entry[]` both become `Entry[]`; type arguments and
/// varargs dots are normalised away.
fn simple_type(name: &str) -> String {
    let name = name.trim();
    let (base, dims) = match name.strip_suffix("...") {
        Some(base) => (base, "[]"),
        None => (name, ""),
    };
    let base = match base.find('<') {
        Some(at) => {
            let close = base.rfind('>').unwrap_or(base.len() - 1);
            format!("{}{}", &base[..at], &base[close + 1..])
        }
        None => base.to_string(),
    };
    let (element, arrays) = match base.find('[') {
        Some(at) => (&base[..at], base[at..].replace(' ', "")),
        None => (base.as_str(), String::new()),
    };
    let simple = element.rsplit(['.', '$']).next().unwrap_or(element).trim();
    format!("{simple}{arrays}{dims}")
}

/// Splits a signature's parameter list at top-level commas (type arguments are already gone in
/// member signatures, but be safe).
fn split_params(params: &str) -> impl Iterator<Item = &str> {
    let mut depth = 0i32;
    let mut start = 0;
    let mut out = Vec::new();
    for (i, c) in params.char_indices() {
        match c {
            '<' => depth += 1,
            '>' => depth -= 1,
            ',' if depth == 0 => {
                out.push(&params[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    out.push(&params[start..]);
    out.into_iter()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn simple_types_compare_source_and_erased_names() {
        assert_eq!(simple_type("java.lang.String"), "String");
        assert_eq!(simple_type("String"), "String");
        assert_eq!(simple_type("com.x.Outer$Inner"), "Inner");
        assert_eq!(simple_type("Outer.Inner"), "Inner");
        assert_eq!(simple_type("int[]"), "int[]");
        assert_eq!(simple_type("java.util.List<String>"), "List");
        assert_eq!(simple_type("java.util.Map.Entry[]"), "Entry[]");
        assert_eq!(simple_type("int..."), "int[]");
        assert_eq!(simple_type("long"), "long");
        assert_eq!(
            split_params("int,Map<K,V>,String").collect::<Vec<_>>(),
            ["int", "Map<K,V>", "String"]
        );
    }
}
