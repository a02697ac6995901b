//! The archive: for every covered goal, the best individual found that covers it. It is the
//! search's result for every algorithm (the final test suite), and the source of "goal covered"
//! events.

use std::sync::Arc;

use crate::execution::ExecutionResult;
use crate::goal_table::GoalId;

/// Which of two individuals covering the same goal the archive keeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ArchivePreference {
    /// The shorter one (MOSA, DynaMOSA: Grano et al., "Testing with Fewer Resources" section 2).
    Shorter,
    /// The one with the lower performance-score, Equation 1 (aDynaMOSA: Grano et al., "Testing with Fewer Resources" section 3.2.2,
    /// "PERFORMANCE-UPDATE-ARCHIVE").
    LowerPerformanceScore,
}

/// An individual kept by the archive, with the execution that covered its goals.
#[derive(Debug)]
pub struct ArchivedTest<I> {
    pub individual: I,
    pub result: Arc<ExecutionResult>,
    /// [`crate::Variation::len`].
    pub length: usize,
    /// [`crate::PerformanceProxies::score`].
    pub performance_score: f64,
    /// How many executions the search had made when this one finished (1-based).
    pub found_at_execution: u64,
}

/// What the archive is offered: an executed individual and the goals it covers.
pub struct Candidate<'a, I> {
    pub individual: &'a I,
    pub result: &'a Arc<ExecutionResult>,
    pub length: usize,
    pub performance_score: f64,
    pub execution: u64,
}

/// Per goal, the best covering individual. Ties keep the individual archived first, so the
/// archive does not churn between equally good tests.
#[derive(Debug)]
pub struct CoverageArchive<I> {
    preference: ArchivePreference,
    entries: Vec<Option<Arc<ArchivedTest<I>>>>,
}

impl<I: Clone> CoverageArchive<I> {
    pub fn new(preference: ArchivePreference) -> CoverageArchive<I> {
        CoverageArchive {
            preference,
            entries: Vec::new(),
        }
    }

    pub fn preference(&self) -> ArchivePreference {
        self.preference
    }

    /// Offers `candidate` for the goals it covers. Returns the goals that were not covered
    /// before (the "goal covered" events).
    pub fn update(&mut self, covered: &[GoalId], candidate: &Candidate<'_, I>) -> Vec<GoalId> {
        let mut newly = Vec::new();
        let mut takes = Vec::new();
        for &goal in covered {
            match self.entries.get(goal.index()).and_then(Option::as_ref) {
                None => {
                    newly.push(goal);
                    takes.push(goal);
                }
                Some(kept) if self.better(candidate, kept) => takes.push(goal),
                Some(_) => {}
            }
        }
        if takes.is_empty() {
            return newly;
        }
        let archived = Arc::new(ArchivedTest {
            individual: candidate.individual.clone(),
            result: Arc::clone(candidate.result),
            length: candidate.length,
            performance_score: candidate.performance_score,
            found_at_execution: candidate.execution,
        });
        for goal in takes {
            if self.entries.len() <= goal.index() {
                self.entries.resize(goal.index() + 1, None);
            }
            self.entries[goal.index()] = Some(Arc::clone(&archived));
        }
        newly
    }

    fn better(&self, candidate: &Candidate<'_, I>, kept: &ArchivedTest<I>) -> bool {
        // Before the paper's preference: a test whose run ends normally beats one that throws.
        // A goal covered only on the way to an exception counts as not covered for bytecode
        // coverage tools such as JaCoCo (they record a block when a probe after it runs), so
        // the suite users measure would cover less than we report. The throwing test stays in
        // the archive for its own exception goal. (A deviation from Grano et al.'s "Testing with Fewer Resources" archive.)
        let candidate_normal = candidate.result.exceptions.is_empty();
        let kept_normal = kept.result.exceptions.is_empty();
        if candidate_normal != kept_normal {
            return candidate_normal;
        }
        match self.preference {
            ArchivePreference::Shorter => candidate.length < kept.length,
            ArchivePreference::LowerPerformanceScore => {
                candidate.performance_score < kept.performance_score
            }
        }
    }

    pub fn get(&self, goal: GoalId) -> Option<&ArchivedTest<I>> {
        self.entries.get(goal.index())?.as_deref()
    }

    pub fn is_covered(&self, goal: GoalId) -> bool {
        self.get(goal).is_some()
    }

    /// Number of covered goals.
    pub fn covered_count(&self) -> usize {
        self.entries.iter().filter(|e| e.is_some()).count()
    }

    /// Covered goals with their tests, by goal id.
    pub fn covered(&self) -> impl Iterator<Item = (GoalId, &ArchivedTest<I>)> {
        self.entries
            .iter()
            .enumerate()
            .filter_map(|(i, e)| e.as_deref().map(|t| (GoalId(i as u32), t)))
    }

    /// The number of distinct tests in the archive: the size of the suite it would give now.
    pub fn distinct_tests(&self) -> usize {
        let mut tests: Vec<*const ArchivedTest<I>> =
            self.entries.iter().flatten().map(Arc::as_ptr).collect();
        tests.sort_unstable();
        tests.dedup();
        tests.len()
    }

    /// The distinct tests of the archive (the final test suite), ordered by the first goal each
    /// one covers.
    pub fn tests(&self) -> Vec<&ArchivedTest<I>> {
        let mut seen: Vec<*const ArchivedTest<I>> = Vec::new();
        let mut out = Vec::new();
        for entry in self.entries.iter().flatten() {
            let ptr = Arc::as_ptr(entry);
            if !seen.contains(&ptr) {
                seen.push(ptr);
                out.push(&**entry);
            }
        }
        out
    }
}
