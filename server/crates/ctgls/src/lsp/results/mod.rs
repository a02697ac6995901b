//! The result model: what a run found for one class, in terms that survive editing.
//!
//! A run happens on a snapshot of the text; by the time its results are shown the user may
//! have typed more. So nothing here is stored as a file position: decisions are kept by their
//! stable keys (`member#signature/B<n>`, unchanged by edits elsewhere), and lines and
//! exceptions by their member and their line offset inside it. With each member goes a
//! fingerprint of its text at run time. [`ClassResults::is_live_as`] says whether a member still
//! has that text: results of live members are shown at their moved positions, those of edited
//! (or removed) members are withdrawn until the next run. A test can be inserted only while
//! every member of the file it calls is live ([`ClassResults::insertable`]): an edited member
//! may no longer compile with it, or no longer behave as it asserts.
//!
//! While a run searches, its interim coverage is shown on top of the best results known
//! before it ([`ClassResults::with_interim`]).
//!
//! `build.rs` makes results from a run, a searching run's coverage or the store's record;
//! `words.rs` says them in English.

mod build;
pub mod integration;
pub mod words;

#[cfg(test)]
pub(crate) use build::fixture;

use std::collections::{BTreeSet, HashMap};
use std::path::PathBuf;

use ctg::project::JUnitVersion;
use javamodel::{DecisionKey, JavaModel, Member, Outcome};

/// A run's nondeterministic input that explains left-out assertions, by member and line offset.
#[derive(Debug, Clone)]
pub struct NondeterministicResult {
    pub at: (String, u32),
    pub kind: ctg::nondeterminism::InputKind,
    pub what: String,
    /// `test: subject (why)` of each assertion left out because of it.
    pub left_out: Vec<String>,
}

/// Where results came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin {
    /// Coverage so far of a run that is still searching, with the coverage and tests of the
    /// results shown before it for the members unchanged since.
    Interim,
    /// A finished run: coverage of the tests that passed verification, and those tests.
    Final,
    /// The `.ctgls/` store's record of an earlier session, for the same source text: its
    /// coverage, and its tests when the record kept their JUnit class.
    Stored,
}

#[derive(Debug, Clone)]
pub struct ClassResults {
    /// Binary name of the class under test.
    pub class: String,
    /// The run that produced these results (0 for stored ones).
    pub run: u64,
    pub origin: Origin,
    /// Every member of the class's file at run time, by key.
    pub members: HashMap<String, MemberSnapshot>,
    pub decisions: Vec<DecisionResult>,
    pub lines: Vec<LineResult>,
    pub exceptions: Vec<ExceptionResult>,
    /// What runs needed of the environment where only they reached goals (no test is written
    /// for those goals: `ctg::job::EnvironmentDependency`).
    pub environment: Vec<EnvironmentResult>,
    /// The nondeterministic inputs that explain assertions the written tests left out.
    pub nondeterministic: Vec<NondeterministicResult>,
    pub tests: Vec<TestInfo>,
    /// The verified test class, for code actions.
    pub suite: Option<Suite>,
    /// Things the user should know about the run (weaker sandbox, unverified tests, ...).
    pub notes: Vec<String>,
    /// The project's Java levels, where this JDK compiles at others than its build declares
    /// (`ctg::levels`): one note for the project, shown once in `ctgls/status`.
    pub level_note: Option<String>,
    /// Why the run's tests could not be verified (`ctg::pipeline::Verification::Failed`): the
    /// coverage is the search's, unverified, and no test is offered for insertion.
    pub unverified: Option<String>,
    /// The written tests' mutation score, as a sentence (`ctg::mutation::MutationScore::summary`),
    /// when the run analysed mutants (`mutationAnalysis`).
    pub mutation: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MemberSnapshot {
    pub fingerprint: u64,
    /// 0-based line of the member's first line at run time.
    pub start_line: u32,
}

#[derive(Debug, Clone)]
pub struct DecisionResult {
    pub key: DecisionKey,
    /// The condition as written, e.g. `amount > balance + overdraftLimit`.
    pub condition: String,
    pub outcomes: Vec<OutcomeResult>,
}

#[derive(Debug, Clone)]
pub struct OutcomeResult {
    pub outcome: Outcome,
    /// `true`, `false`, `case 3`, `default`, `catch`, `entry`.
    pub label: String,
    /// Covered: by a test of [`ClassResults::tests`], or as the search or the store reported
    /// it (interim and stored results may know no test for it).
    pub covered: bool,
    /// Index into [`ClassResults::tests`].
    pub covered_by: Option<usize>,
    /// Only for uncovered outcomes: how close the search got, in words
    /// (`amount == 99 (needs > 100)`), or `None` when the decision was never reached.
    pub closest: Option<String>,
    /// The decision ran during the search (only meaningful for uncovered outcomes).
    pub reached: bool,
}

#[derive(Debug, Clone)]
pub struct LineResult {
    pub member: String,
    /// Line offset from the member's first line.
    pub offset: u32,
    /// The first test that ran the line.
    pub covered_by: Option<usize>,
    pub covered: bool,
}

/// A need of the environment placed on the line that made it (or, when the stack did not show
/// it, the first line only such runs reached), by member and line offset like the rest.
#[derive(Debug, Clone)]
pub struct EnvironmentResult {
    pub at: Option<(String, u32)>,
    /// `needs the environment: writes /home/x/out.txt (refused by the sandbox)`.
    pub message: String,
    /// The path, address or program.
    pub target: String,
    /// The goals no test covers because only runs with this need reached them.
    pub goals: Vec<String>,
}

#[derive(Debug, Clone)]
pub struct ExceptionResult {
    /// The member of the class under test the test called (`…#interest(int)`).
    pub called: String,
    /// The member holding the throwing line, and the line's offset in it.
    pub at: Option<(String, u32)>,
    /// Binary name (`java.lang.ArithmeticException`).
    pub type_name: String,
    pub message: Option<String>,
    pub checked: bool,
    /// Thrown by a `throw` statement of the class (an argument check, on purpose) rather
    /// than by an operation that failed.
    pub explicit: bool,
    /// The inputs of the call that threw, in words (`ratePerUnit = 0`).
    pub inputs: String,
    pub test: Option<usize>,
}

#[derive(Debug, Clone)]
pub struct TestInfo {
    /// The test method's name in the verified class; `None` when verification dropped it.
    pub name: Option<String>,
    /// The test method's source (annotations included), as verified.
    pub source: Option<String>,
    /// The calls the test makes, in words.
    pub calls: String,
    /// Branch goals (`…/B1.T`) it covers.
    pub goals: BTreeSet<String>,
    /// Keys of the members of the class's file the test runs directly: what it calls, and
    /// the initializers that run with it. All of them must be live for it to be inserted.
    pub members: BTreeSet<String>,
}

#[derive(Debug, Clone)]
pub struct Suite {
    pub source: String,
    pub junit: JUnitVersion,
    /// Where the test class goes.
    pub path: PathBuf,
    /// Why the tests were not checked with JUnit, when they were not.
    pub unverified: Option<String>,
}

impl ClassResults {
    /// Whether `member` (a key), found as `current` in `text` (or not found), has the text it
    /// had in the run.
    pub fn is_live_as(&self, member: &str, current: Option<&Member>, text: &str) -> bool {
        match (self.members.get(member), current) {
            (Some(snapshot), Some(current)) => fingerprint(text, current) == snapshot.fingerprint,
            _ => false,
        }
    }

    /// Whether test `index` can be inserted into the current text: it passed verification and
    /// every member of the file it calls has the text it had in the run (`live`).
    pub fn insertable(&self, index: usize, live: impl Fn(&str) -> bool) -> bool {
        self.tests
            .get(index)
            .is_some_and(|t| t.source.is_some() && t.members.iter().all(|m| live(m)))
            && self.unverified.is_none()
    }

    /// The decision outcomes covered.
    pub fn covered_goals(&self) -> usize {
        self.decisions
            .iter()
            .flat_map(|d| &d.outcomes)
            .filter(|o| self.is_covered(o))
            .count()
    }

    /// Results of a run still searching (`interim`, on the run's text) on top of the results
    /// shown before it (`base`: the last run's, or the store's). Members with the same text in
    /// both keep `base`'s coverage, covering tests and exceptions, and gain what the search
    /// has covered since, so they never show less than `base`; members edited in between
    /// show the search's coverage alone. `base`'s tests stay insertable only while they call
    /// no member edited in between. The result is `interim`'s (origin and run).
    pub fn with_interim(base: &ClassResults, interim: &ClassResults) -> ClassResults {
        let unchanged = |member: &str| match (base.members.get(member), interim.members.get(member))
        {
            (Some(before), Some(now)) => before.fingerprint == now.fingerprint,
            _ => false,
        };
        let mut merged = interim.clone();
        merged.environment = base
            .environment
            .iter()
            .filter(|e| e.at.as_ref().is_some_and(|(member, _)| unchanged(member)))
            .cloned()
            .collect();
        for decision in &mut merged.decisions {
            if !unchanged(&decision.key.member) {
                continue;
            }
            let Some(before) = base.decisions.iter().find(|d| d.key == decision.key) else {
                continue;
            };
            for outcome in &mut decision.outcomes {
                if let Some(old) = before
                    .outcomes
                    .iter()
                    .find(|o| o.outcome == outcome.outcome)
                {
                    outcome.covered_by = old.covered_by;
                    outcome.covered |= old.covered;
                    outcome.reached |= old.covered;
                }
            }
        }
        let mut lines: Vec<LineResult> = base
            .lines
            .iter()
            .filter(|l| unchanged(&l.member))
            .cloned()
            .collect();
        let known: HashMap<(String, u32), usize> = lines
            .iter()
            .enumerate()
            .map(|(i, l)| ((l.member.clone(), l.offset), i))
            .collect();
        for line in &interim.lines {
            match known.get(&(line.member.clone(), line.offset)) {
                Some(&i) => lines[i].covered |= line.covered,
                None => lines.push(line.clone()),
            }
        }
        merged.lines = lines;
        merged.exceptions = base
            .exceptions
            .iter()
            .filter(|e| {
                unchanged(&e.called) && e.at.as_ref().is_none_or(|(member, _)| unchanged(member))
            })
            .cloned()
            .collect();
        merged.tests = base.tests.clone();
        for test in &mut merged.tests {
            if !test.members.iter().all(|m| unchanged(m)) {
                test.source = None;
            }
        }
        merged.suite = base.suite.clone();
        merged.notes = base.notes.clone();
        merged.level_note = base.level_note.clone();
        merged.unverified = base.unverified.clone();
        merged
    }

    /// Whether an outcome counts as covered.
    pub fn is_covered(&self, outcome: &OutcomeResult) -> bool {
        outcome.covered
    }

    /// Covered and total outcomes of a member, and the names of the tests that cover any of
    /// them.
    pub fn member_summary(&self, member: &str) -> (usize, usize, Vec<String>) {
        let mut covered = 0;
        let mut total = 0;
        let mut tests = BTreeSet::new();
        let prefix = format!("{member}/");
        for decision in self.decisions.iter().filter(|d| d.key.member == member) {
            for outcome in &decision.outcomes {
                total += 1;
                covered += usize::from(self.is_covered(outcome));
            }
        }
        for test in &self.tests {
            if let Some(name) = &test.name {
                if test.goals.iter().any(|g| g.starts_with(&prefix)) {
                    tests.insert(name.clone());
                }
            }
        }
        (covered, total, tests.into_iter().collect())
    }
}

/// A stable hash of a member's text (all its pieces, for initializer pseudo-members).
pub fn fingerprint(text: &str, member: &Member) -> u64 {
    let mut bytes = Vec::new();
    for piece in &member.pieces {
        if let Some(slice) = text.get(piece.start_byte..piece.end_byte) {
            bytes.extend_from_slice(slice.as_bytes());
            bytes.push(0);
        }
    }
    ctg::store::fnv1a64(&bytes)
}

/// The innermost member (methods of local and anonymous classes are inside their enclosing
/// member) whose span covers the 0-based `row`.
pub fn innermost_member_at_row(model: &JavaModel, row: usize) -> Option<&Member> {
    model
        .all_types()
        .into_iter()
        .flat_map(|ty| ty.members.iter())
        .filter(|m| m.span.start.row <= row && row <= m.span.end.row)
        .min_by_key(|m| m.span.end_byte - m.span.start_byte)
}

/// The innermost member whose span holds the byte offset.
pub fn innermost_member_at(model: &JavaModel, byte: usize) -> Option<&Member> {
    model
        .all_types()
        .into_iter()
        .flat_map(|ty| ty.members.iter())
        .filter(|m| m.pieces.iter().any(|p| p.contains_byte(byte)))
        .min_by_key(|m| m.span.end_byte - m.span.start_byte)
}

#[cfg(test)]
mod tests {
    use super::fixture::*;
    use super::*;

    fn model(text: &str) -> JavaModel {
        JavaModel::build(text, &syntax::parse_java(text, None))
    }

    #[test]
    fn members_are_live_until_their_text_changes() {
        let before =
            "class A {\n  int f(int x) { return x > 0 ? 1 : 2; }\n  int g() { return 1; }\n}\n";
        let results = ClassResults::interim(1, "A", &model(before), &BTreeSet::new());
        let after = "class A {\n  // moved\n\n  int f(int x) { return x > 0 ? 1 : 2; }\n  int g() { return 2; }\n}\n";
        let m = model(after);
        let live = |key: &str| {
            let current = m.member_by_key(key).map(|(_, member)| member);
            results.is_live_as(key, current, m.text())
        };
        assert!(live("A#f(int)"), "moved but unchanged");
        assert!(!live("A#g()"), "edited");
        assert!(!live("A#h()"), "unknown");
        assert_eq!(results.decisions.len(), 2, "f's ternary and g's entry");
    }

    #[test]
    fn interim_coverage_adds_to_the_earlier_results_of_unchanged_members() {
        let before = STORED_CLASS;
        let after = STORED_CLASS.replace("x > 5", "x > 6");
        let base = stored_fixture(&model(before));
        let f_true = goal(&base, "p.A#f(int)", "true");
        let f_false = goal(&base, "p.A#f(int)", "false");
        let g_true = goal(&base, "p.A#g(int)", "true");
        let g_false = goal(&base, "p.A#g(int)", "false");
        assert!(
            outcome(&base, &g_true).covered,
            "the fixture covers g's true branch"
        );

        // The search (on the edited text) has covered f's false branch and g's false one.
        let now = model(&after);
        let covered = BTreeSet::from([f_false.clone(), g_false.clone()]);
        let interim = ClassResults::interim(9, "p.A", &now, &covered);
        let merged = ClassResults::with_interim(&base, &interim);
        assert_eq!((merged.origin, merged.run), (Origin::Interim, 9));
        // f is unchanged: the stored test still covers its true branch, and the new false one
        // shows at once.
        assert!(outcome(&merged, &f_true).covered);
        assert_eq!(outcome(&merged, &f_true).covered_by, Some(0));
        assert!(outcome(&merged, &f_false).covered);
        // g was edited: only what the search found on the new text.
        assert!(
            !outcome(&merged, &g_true).covered,
            "g's old coverage is gone"
        );
        assert!(outcome(&merged, &g_false).covered);
        assert_eq!(
            merged.covered_goals(),
            3,
            "f: both branches; g: the false one"
        );
        // The tests come along; the one calling g no longer fits the text.
        let live = |m: &str| {
            let current = now.member_by_key(m).map(|(_, member)| member);
            merged.is_live_as(m, current, now.text())
        };
        assert!(merged.insertable(0, live));
        assert!(!merged.insertable(1, live));
        assert!(merged.suite.is_some());

        // Nothing covered yet by the search: an unchanged member shows what it had.
        let empty = ClassResults::interim(10, "p.A", &model(before), &BTreeSet::new());
        let merged = ClassResults::with_interim(&base, &empty);
        assert_eq!(merged.covered_goals(), base.covered_goals());
        assert_eq!(merged.lines.len(), base.lines.len());
    }
}
