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
//! - Other classes the job instrumented (`GenerationRequest::also_instrument`) are invisible
//!   here: their files' traces are skipped, and in the file of the class under test only the
//!   goal table's decisions and members, and the lines of the class's top-level type, are read
//!   ([`TraceMapper::with_own_lines`]). Their coverage is the report's business.
//! - Exceptions that left a member's body ([`member_escapes`], the trace's escapes) are mapped
//!   to member keys for the job's result, and are no goals of the search. One that leaves the
//!   member the test called is already the statement's exception, whose goal the search has;
//!   one that a member of the class catches ends in a catch clause, whose "entered" outcome is
//!   a branch goal, so the archive already keeps a test for it. A goal per (inner member,
//!   type) would make the archive keep more tests that run no code the others do not, and, like
//!   every exception goal, it would exist only once covered, never steering the search.

use std::ops::RangeInclusive;

use javamodel::instrument::ProbeTable;
use javamodel::{JavaModel, Member, Outcome};
use jvm::{EscapeTrace, ExecutionTrace, TestResult, TestStatus};
use search::{ExecutionResult, ExecutionStatus, GoalTable, MemberId, ObservedException};
use testcase::{Callable, CallableKind, TestCase};

/// Maps worker results of one class under test onto its goal table.
///
/// Invariant: only the trace of the file whose probes are `probes` is read (other instrumented
/// files number their probes from 0 too), and of it only what the goal table knows and, for
/// lines and the production proxies, what lies within `own_lines`; so probes of other classes,
/// in other files or in the same one, change nothing the search sees.
pub struct TraceMapper<'a> {
    table: &'a GoalTable,
    /// The probe table of the file declaring the class under test; empty when it could not be
    /// instrumented.
    probes: &'a ProbeTable,
    class: String,
    /// The lines of the file whose line probes are recorded and whose line, method and loop
    /// probes count towards the production proxies; `None` for all of them.
    own_lines: Option<RangeInclusive<u32>>,
    /// Probe tables of other files whose decisions and members the goal table holds too (the
    /// callee of an integration table, `job::integration`): their branch and method rows are
    /// read, their lines and proxies are not.
    goal_files: Vec<&'a ProbeTable>,
}

impl<'a> TraceMapper<'a> {
    pub fn new(table: &'a GoalTable, probes: &'a ProbeTable) -> TraceMapper<'a> {
        TraceMapper {
            table,
            probes,
            class: table.binary_name().to_string(),
            own_lines: None,
            goal_files: Vec::new(),
        }
    }

    /// Also reads the branch and method rows of the file of `probes` into the goal table (an
    /// integration table holds the callee's decisions). A file that is the class under test's
    /// own is read once.
    pub fn with_goal_file(mut self, probes: &'a ProbeTable) -> TraceMapper<'a> {
        if probes.key != self.probes.key {
            self.goal_files.push(probes);
        }
        self
    }

    /// Reads only the probes on `lines` of the file for covered lines and the production
    /// proxies (Grano et al.'s "Testing with Fewer Resources" I1, I2 and I5): the job passes the lines of the class under test's
    /// top-level type, which is all the file had probes for until another class of the same
    /// file was instrumented too (`GenerationRequest::also_instrument`). The object
    /// instantiations (I4) stay the worker's count over every instrumented class:
    /// `Probe.alloc` does not say where it is.
    pub fn with_own_lines(mut self, lines: RangeInclusive<u32>) -> TraceMapper<'a> {
        self.own_lines = Some(lines);
        self
    }

    fn is_own(&self, line: Option<u32>) -> bool {
        match &self.own_lines {
            None => true,
            Some(lines) => line.is_some_and(|line| lines.contains(&line)),
        }
    }

    pub fn table(&self) -> &'a GoalTable {
        self.table
    }

    /// The probe key of the class under test's instrumented file, as traces name it.
    pub fn file_key(&self) -> &str {
        &self.probes.key
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
        out.needs_environment = !result.environment.is_empty();
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
        let mut method_calls = 0u64;
        let mut statements = 0u64;
        for file in &trace.files {
            if let Some(probes) = self.goal_files.iter().find(|p| p.key == file.key) {
                self.record_goals(out, file, probes);
                continue;
            }
            if file.key != self.probes.key {
                continue;
            }
            // The I1 proxy counts loops that iterated more than once (Grano et al., "Testing with Fewer Resources", Table I), so
            // that covering a loop is never penalised.
            loops += file
                .loops
                .iter()
                .filter(|&&(id, n)| {
                    n > 1 && self.is_own(self.probes.loop_probe(id).map(|l| l.line))
                })
                .map(|(_, n)| n)
                .sum::<u64>();
            // Every `enter` and `line` call counts one (the worker's totals do the same over
            // every instrumented file).
            method_calls += file
                .methods
                .iter()
                .filter(|&&(id, _)| self.is_own(self.probes.method(id).map(|m| m.line)))
                .map(|(_, h)| h)
                .sum::<u64>();
            statements += file
                .lines
                .iter()
                .filter(|&&(line, _)| self.is_own(Some(line)))
                .map(|(_, h)| h)
                .sum::<u64>();
            self.record_goals(out, file, self.probes);
            // Weak mutation: the mutants of the table's members that the test reached.
            for &(id, distance) in &file.mutants {
                if let Some(mutant) = self.table.mutant_by_local_id(id) {
                    out.record_infection(mutant, distance);
                }
            }
            for &(line, h) in &file.lines {
                if h > 0 && self.is_own(Some(line)) {
                    out.record_line(line);
                }
            }
        }
        out.proxies = search::ProductionProxies {
            executed_loops: loops,
            covered_method_calls: method_calls,
            object_instantiations: trace.proxies.instantiations,
            covered_statements: statements,
        };
    }

    /// The branch and method rows of `file`, whose probes are `probes`, in goal terms.
    fn record_goals(&self, out: &mut ExecutionResult, file: &jvm::FileTrace, probes: &ProbeTable) {
        // A switch has one row per case: the decision's hits are the largest row, since each
        // row counts the same evaluations.
        let mut hits: Vec<(search::DecisionId, u64)> = Vec::new();
        for row in &file.branches {
            let Some(probe) = probes.branch(row.id) else {
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
            let member = probes
                .method(id)
                .and_then(|m| self.table.member_by_key(&m.member));
            if let Some(member) = member {
                out.record_member_entry(self.table, member, saturate(h));
            }
        }
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
                    // A member of the class under test: an integration table holds the
                    // callee's members too, and a test that calls the callee alone (`new
                    // Account("", 0)` in `Bank`'s tests) makes no goal of an integration run,
                    // whose every test calls the caller (Derakhshanfar et al., section 3.2.4).
                    member: statement
                        .callable()
                        .filter(|c| !by_statement && self.is_class_under_test(&c.declaring_class))
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

/// An exception that left the body of a member of an instrumented file, in model terms.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MemberEscape {
    /// [`Member::key`].
    pub member: String,
    /// Binary name of the exception's class.
    pub type_name: String,
    /// The line that raised it (see [`EscapeTrace::line`]).
    pub line: Option<u32>,
    /// The member's `throws` clause lists the class or a superclass of it, as the worker's
    /// `declared` of a statement's exception tells from the called method's exception types.
    pub declared: bool,
    /// Neither a `RuntimeException` nor an `Error`.
    pub checked: bool,
    pub hits: u64,
}

/// The escapes `trace` recorded in the file whose probes are `probes` (modelled by `model`),
/// one per (member, type, line) in the trace's order. Method ids the table does not know, and
/// members the model does not have, are skipped.
pub fn member_escapes(
    probes: &ProbeTable,
    model: &JavaModel,
    trace: &ExecutionTrace,
) -> Vec<MemberEscape> {
    trace
        .files
        .iter()
        .filter(|f| f.key == probes.key)
        .flat_map(|f| &f.escapes)
        .filter_map(|e| {
            let key = &probes.method(e.method)?.member;
            let (ty, member) = model.member_by_key(key)?;
            Some(MemberEscape {
                member: key.clone(),
                type_name: e.type_name.clone(),
                line: e.line,
                declared: declares(model, &ty.binary_name, member, e),
                checked: is_checked(e),
                hits: e.hits,
            })
        })
        .collect()
}

/// Whether `member`'s `throws` clause lists the escaped class or one of its superclasses.
/// Names are compared by simple name (the source writes `IOException` or `java.io.IOException`,
/// the worker binary names), and a type variable (`throws E`) stands for its first bound, as
/// in the erased signature the worker's reflection reads.
fn declares(model: &JavaModel, class: &str, member: &Member, escape: &EscapeTrace) -> bool {
    let hierarchy: Vec<String> = std::iter::once(&escape.type_name)
        .chain(&escape.supertypes)
        .map(|t| simple_type(t))
        .collect();
    // The type variables in scope: the member's, then its class's and the enclosing classes'.
    let mut type_params: Vec<&str> = member.type_params.iter().map(String::as_str).collect();
    let mut enclosing = Some(class);
    while let Some(name) = enclosing {
        if let Some(ty) = model.type_by_binary_name(name) {
            type_params.extend(ty.type_params.iter().map(String::as_str));
        }
        enclosing = name.rfind('$').map(|at| &name[..at]);
    }
    member.throws.iter().any(|declared| {
        let erased = erasure(declared, &type_params);
        hierarchy.contains(&simple_type(&erased))
    })
}

/// `name`, or the first bound of the type variable it names (`E` of `E extends IOException`),
/// followed through variables bounded by variables.
fn erasure(name: &str, type_params: &[&str]) -> String {
    let mut current = name.trim().to_string();
    for _ in 0..type_params.len() {
        let bound = type_params.iter().find_map(|p| {
            let mut words = p.split_whitespace();
            (words.next() == Some(current.as_str())).then(|| {
                let rest = p.split_once(" extends ").map_or("", |(_, b)| b);
                rest.split('&').next().unwrap_or("").trim().to_string()
            })
        });
        match bound {
            Some(b) if !b.is_empty() => current = b,
            _ => break,
        }
    }
    current
}

fn is_checked(escape: &EscapeTrace) -> bool {
    !std::iter::once(&escape.type_name)
        .chain(&escape.supertypes)
        .any(|t| t == "java.lang.RuntimeException" || t == "java.lang.Error")
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
pub(crate) fn simple_type(name: &str) -> String {
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
pub(crate) fn split_params(params: &str) -> impl Iterator<Item = &str> {
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
    use jvm::FileTrace;
    use testcase::TestCase;

    const THROWING: &str = "package p;
import java.io.IOException;
class Outer<X extends Exception> {
    void io() throws IOException { }
    void iae() throws java.lang.IllegalArgumentException { }
    <E extends IOException> void generic() throws E { }
    <F extends G, G extends RuntimeException> void chained() throws F { }
    class Inner { void outer() throws X { } }
    void none() { }
}
";

    /// The escapes of one trace whose file holds `(member key, type, supertypes)` entries.
    fn mapped(entries: &[(&str, &str, &[&str])]) -> Vec<MemberEscape> {
        let tree = syntax::parse_java(THROWING, None);
        let model = JavaModel::build(THROWING, &tree);
        let out = javamodel::instrument::instrument(
            THROWING,
            &tree,
            &model,
            &javamodel::instrument::InstrumentOptions::default(),
        );
        let escapes = entries
            .iter()
            .map(|(member, type_name, supertypes)| EscapeTrace {
                method: out.probes.method_of(member).expect(member),
                type_name: type_name.to_string(),
                supertypes: supertypes.iter().map(|s| s.to_string()).collect(),
                line: Some(4),
                hits: 2,
            })
            .chain(std::iter::once(EscapeTrace {
                method: 99,
                type_name: "p.Unknown".into(),
                ..EscapeTrace::default()
            }))
            .collect();
        let trace = ExecutionTrace {
            files: vec![
                FileTrace {
                    key: "other/File.java#0".into(),
                    escapes: vec![EscapeTrace {
                        method: 0,
                        type_name: "p.Elsewhere".into(),
                        ..EscapeTrace::default()
                    }],
                    ..FileTrace::default()
                },
                FileTrace {
                    key: out.probes.key.clone(),
                    escapes,
                    ..FileTrace::default()
                },
            ],
            ..ExecutionTrace::default()
        };
        member_escapes(&out.probes, &model, &trace)
    }

    const RUNTIME: &[&str] = &[
        "java.lang.RuntimeException",
        "java.lang.Exception",
        "java.lang.Throwable",
    ];
    const CHECKED: &[&str] = &["java.lang.Exception", "java.lang.Throwable"];

    #[test]
    fn escapes_map_to_members_and_tell_declared_by_the_throws_clause() {
        let io_sub: &[&str] = &[
            "java.io.IOException",
            "java.lang.Exception",
            "java.lang.Throwable",
        ];
        let nfe: &[&str] = &[
            "java.lang.IllegalArgumentException",
            "java.lang.RuntimeException",
            "java.lang.Exception",
            "java.lang.Throwable",
        ];
        let got: Vec<(String, String, bool, bool)> = mapped(&[
            ("p.Outer#io()", "java.io.IOException", CHECKED),
            // A subclass of a declared class is declared.
            ("p.Outer#io()", "java.io.FileNotFoundException", io_sub),
            ("p.Outer#io()", "java.lang.IllegalStateException", RUNTIME),
            ("p.Outer#iae()", "java.lang.NumberFormatException", nfe),
            // A superclass of a declared class is not.
            ("p.Outer#iae()", "java.lang.RuntimeException", CHECKED),
            // `throws E` with `E extends IOException`, as the erased signature says.
            ("p.Outer#generic()", "java.io.FileNotFoundException", io_sub),
            (
                "p.Outer#chained()",
                "java.lang.IllegalStateException",
                RUNTIME,
            ),
            // The enclosing class's variable, `X extends Exception`.
            ("p.Outer$Inner#outer()", "java.io.IOException", CHECKED),
            (
                "p.Outer#none()",
                "java.lang.Error",
                &["java.lang.Throwable"],
            ),
            // A checked exception escaping a method that does not declare it (a sneaky throw).
            (
                "p.Outer#none()",
                "java.lang.Exception",
                &["java.lang.Throwable"],
            ),
        ])
        .into_iter()
        .map(|e| {
            assert_eq!((e.line, e.hits), (Some(4), 2));
            (e.member, e.type_name, e.declared, e.checked)
        })
        .collect();
        let row =
            |m: &str, t: &str, declared, checked| (m.to_string(), t.to_string(), declared, checked);
        assert_eq!(
            got,
            [
                row("p.Outer#io()", "java.io.IOException", true, true),
                row("p.Outer#io()", "java.io.FileNotFoundException", true, true),
                row(
                    "p.Outer#io()",
                    "java.lang.IllegalStateException",
                    false,
                    false
                ),
                row(
                    "p.Outer#iae()",
                    "java.lang.NumberFormatException",
                    true,
                    false
                ),
                row("p.Outer#iae()", "java.lang.RuntimeException", false, false),
                row(
                    "p.Outer#generic()",
                    "java.io.FileNotFoundException",
                    true,
                    true
                ),
                row(
                    "p.Outer#chained()",
                    "java.lang.IllegalStateException",
                    true,
                    false
                ),
                row("p.Outer$Inner#outer()", "java.io.IOException", true, true),
                row("p.Outer#none()", "java.lang.Error", false, false),
                row("p.Outer#none()", "java.lang.Exception", false, true),
            ]
        );
    }

    /// A file with two top-level classes, both instrumented: the class under test first.
    const TWO_CLASSES: &str = "package p;
class Cut {
    int f(int x) {
        int n = 0;
        for (int i = 0; i < x; i++) { n++; }
        if (x > 3) { return n; }
        return 0;
    }
}
class Helper {
    int g(int x) {
        int n = 0;
        while (n < x) { n++; }
        if (x > 3) { return 1; }
        return 0;
    }
}
";

    fn finished(trace: ExecutionTrace) -> TestResult {
        TestResult {
            status: TestStatus::Ok,
            failed_at: None,
            statements: Vec::new(),
            exception: None,
            message: None,
            exit_status: None,
            exit_attempted: None,
            trace,
            stdout: String::new(),
            stderr: String::new(),
            output_truncated: false,
            duration: std::time::Duration::ZERO,
            leaked_threads: 0,
            processes_killed: 0,
            fresh_loader: false,
            loader_dropped: None,
            environment: Vec::new(),
        }
    }

    /// The worker's totals for `files`, as `Probe` counts them: one per `line` and `enter` call,
    /// every loop iteration, and the allocations (which no file is told of).
    fn totals(files: &[&FileTrace], instantiations: u64) -> jvm::PerformanceProxies {
        let sum = |pairs: &dyn Fn(&FileTrace) -> u64| files.iter().map(|f| pairs(f)).sum();
        jvm::PerformanceProxies {
            loop_iterations: sum(&|f| f.loops.iter().map(|(_, n)| n).sum()),
            method_calls: sum(&|f| f.methods.iter().map(|(_, n)| n).sum()),
            instantiations,
            statements: sum(&|f| f.lines.iter().map(|(_, n)| n).sum()),
        }
    }

    /// Other instrumented classes (`also_instrument`), in another file with the same probe ids
    /// or in the file of the class under test, change nothing the search sees: neither goals
    /// nor the production proxies of the class under test's own code.
    #[test]
    fn probes_of_other_classes_are_neither_goals_nor_proxies() {
        let tree = syntax::parse_java(TWO_CLASSES, None);
        let model = JavaModel::build(TWO_CLASSES, &tree);
        let out = javamodel::instrument::instrument(
            TWO_CLASSES,
            &tree,
            &model,
            &javamodel::instrument::InstrumentOptions {
                types: vec!["p.Cut".into(), "p.Helper".into()],
                path: Some("p/Cut.java".into()),
                ..javamodel::instrument::InstrumentOptions::default()
            },
        );
        let probes = &out.probes;
        let table =
            GoalTable::for_class_with_lines(&model, "p.Cut", Default::default(), &probes.lines)
                .unwrap();
        let span = model.type_by_binary_name("p.Cut").unwrap().span;
        let cut_lines = span.start.row as u32 + 1..=span.end.row as u32 + 1;
        // Every probe of the file ran: both sides of each branch, each line twice, each loop
        // three times.
        let everything = FileTrace {
            key: probes.key.clone(),
            branches: (0..probes.branches.len() as u32)
                .map(|id| jvm::BranchTrace {
                    id,
                    hits: 2,
                    true_distance: 0.0,
                    false_distance: 0.0,
                })
                .collect(),
            lines: probes.lines.iter().map(|&line| (line, 2)).collect(),
            methods: (0..probes.methods.len() as u32).map(|id| (id, 1)).collect(),
            loops: (0..probes.loops.len() as u32).map(|id| (id, 3)).collect(),
            escapes: Vec::new(),
            seeds: Vec::new(),
            mutants: Vec::new(),
        };
        let in_cut = |line: u32| cut_lines.contains(&line);
        let cut_only = FileTrace {
            branches: everything
                .branches
                .iter()
                .filter(|b| in_cut(probes.branch(b.id).unwrap().line))
                .cloned()
                .collect(),
            lines: everything
                .lines
                .iter()
                .filter(|(line, _)| in_cut(*line))
                .copied()
                .collect(),
            methods: everything
                .methods
                .iter()
                .filter(|(id, _)| in_cut(probes.method(*id).unwrap().line))
                .copied()
                .collect(),
            loops: everything
                .loops
                .iter()
                .filter(|(id, _)| in_cut(probes.loop_probe(*id).unwrap().line))
                .copied()
                .collect(),
            ..everything.clone()
        };
        assert!(cut_only.lines.len() < everything.lines.len());
        assert_eq!((cut_only.methods.len(), cut_only.loops.len()), (1, 1));
        let other_file = FileTrace {
            key: "q/Other.java#1".into(),
            ..everything.clone()
        };

        let mixed = ExecutionTrace {
            files: vec![other_file.clone(), everything.clone()],
            proxies: totals(&[&other_file, &everything], 5),
        };
        let alone = ExecutionTrace {
            files: vec![cut_only.clone()],
            proxies: totals(&[&cut_only], 5),
        };
        let mapper = TraceMapper::new(&table, probes).with_own_lines(cut_lines.clone());
        let test = TestCase::default();
        let expected = mapper.map(&test, &finished(alone.clone()));
        assert_eq!(mapper.map(&test, &finished(mixed)), expected);
        assert_eq!(
            expected.proxies,
            search::ProductionProxies {
                executed_loops: 3,
                covered_method_calls: 1,
                object_instantiations: 5,
                covered_statements: 2 * cut_only.lines.len() as u64,
            }
        );
        // Without a scope, the whole file of the class under test counts, as the worker's
        // totals do when nothing else is instrumented.
        let unscoped = TraceMapper::new(&table, probes).map(&test, &finished(alone));
        assert_eq!(unscoped, expected);
    }

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
