//! Removing statements from a test case (Fraser and Arcuri, "Whole Test Suites", section IV-A: the minimised suite keeps
//! only statements that contribute to coverage). Removal never repairs: a statement goes
//! together with every statement that uses its value, directly or through another removed one.

use std::collections::BTreeSet;

use crate::statement::TestCase;

/// A test case with some statements removed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Removal {
    pub test: TestCase,
    /// For each statement of [`Removal::test`], its index in the original test case.
    pub kept: Vec<usize>,
    /// The original indexes removed, ascending.
    pub removed: Vec<usize>,
}

/// `test` without statement `index` and the statements that depend on it. References of the
/// remaining statements are renumbered; statements before `index` keep their indexes.
pub fn remove_statement(test: &TestCase, index: usize) -> Removal {
    let mut removed = BTreeSet::new();
    if index < test.len() {
        removed.insert(index);
        for (j, s) in test.statements().iter().enumerate().skip(index + 1) {
            if s.refs().iter().any(|(_, r)| removed.contains(&r.index())) {
                removed.insert(j);
            }
        }
    }
    let mut out = test.clone();
    out.remove_all(&removed);
    Removal {
        test: out,
        kept: (0..test.len()).filter(|i| !removed.contains(i)).collect(),
        removed: removed.into_iter().collect(),
    }
}

/// Minimises `test` against `still_sufficient`, which runs a candidate (with the executor) and
/// says whether it still covers what the original covered. Statements are tried from the last
/// to the first, each once, so `still_sufficient` runs at most `test.len()` times; a removal
/// is kept when the candidate still suffices.
pub fn minimise(test: &TestCase, mut still_sufficient: impl FnMut(&TestCase) -> bool) -> TestCase {
    let mut current = test.clone();
    for index in (0..test.len()).rev() {
        // Dependents of a statement always come after it, so indexes below the last removed
        // one are unchanged.
        if index >= current.len() {
            continue;
        }
        let candidate = remove_statement(&current, index);
        if still_sufficient(&candidate.test) {
            current = candidate.test;
        }
    }
    current
}
