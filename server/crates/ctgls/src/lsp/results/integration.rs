//! What a class-integration run found (`ctgls.generateIntegration`; `lsp/integration/`): the
//! coupled pairs of caller R and callee E it covered, by the written tests' names.

use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;

use ctg::pipeline::ClassOutcome;

/// What one integration run of caller R through callee E covered, kept for the session (the
/// `.ctgls/` store keeps unit tests only, `ctg::pipeline`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IntegrationRecord {
    pub caller: String,
    pub callee: String,
    /// Per coupled pair, `(caller branch, callee branch)` as `javamodel::coupling` displays
    /// them, the name of the written test that covers it (`None`: not covered by the run).
    pub pairs: BTreeMap<(String, String), Option<String>>,
    /// `ctg::pipeline::source_hash` of both classes' texts as the run saw them: a hover on
    /// another text says that the run is older than the edits.
    pub caller_hash: String,
    pub callee_hash: String,
    /// The test file written (`<R>_<E>IntegrationGeneratedTest.java`), when one was.
    pub written: Option<PathBuf>,
}

impl IntegrationRecord {
    /// The record of a finished integration run (`outcome` of `ctg::pipeline` with a callee).
    pub fn from_outcome(
        outcome: &ClassOutcome,
        caller_hash: String,
        callee_hash: String,
    ) -> Option<IntegrationRecord> {
        let coupled = outcome.generation.coupled.as_ref()?;
        let suite = &outcome.emission.suite;
        let names: HashMap<usize, &String> = suite
            .kept_tests
            .iter()
            .copied()
            .zip(suite.kept.iter())
            .collect();
        let pairs = coupled
            .pairs
            .iter()
            .map(|pair| {
                let test = pair
                    .covered_by
                    .and_then(|index| names.get(&index).map(|name| name.to_string()));
                (
                    (pair.caller_branch.clone(), pair.callee_branch.clone()),
                    test,
                )
            })
            .collect();
        Some(IntegrationRecord {
            caller: outcome.generation.class.clone(),
            callee: coupled.callee.clone(),
            pairs,
            caller_hash,
            callee_hash,
            written: outcome
                .emission
                .written
                .as_ref()
                .map(|_| outcome.emission.path.clone()),
        })
    }

    /// Covered pairs (by a written test) out of all.
    pub fn covered(&self) -> usize {
        self.pairs.values().filter(|test| test.is_some()).count()
    }
}
