//! Class-integration tests in the editor (Derakhshanfar et al., "Generating Class-Level
//! Integration Tests Using Call Site Information"; the CLI's `ctgls generate --class R --callee
//! E`): which classes of the project reach a class's branches through their calls of it
//! (`index`, the couplings built lazily from the project's sources), what the integration
//! runs of this session covered (`IntegrationRecord`), the hover that says both on a callee's
//! branch (`hover`) and the code action *Generate integration tests through R* (`actions`).
//!
//! Uncovered coupled pairs are not diagnostics: a callee's branch is coupled with every
//! caller branch that leads to each of its call sites, so they would bury the class's own
//! diagnostics; they are in the hover and in the CLI's report.

pub mod actions;
pub mod hover;
pub mod index;

use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;
use std::sync::Arc;

use ctg::pipeline::ClassOutcome;

pub use index::{Coupled, CouplingIndex, ProjectSources};

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

/// The owner's integration state: the coupling index and the records of this session's
/// integration runs by (caller, callee).
#[derive(Default)]
pub struct Integration {
    pub index: CouplingIndex,
    pub records: HashMap<(String, String), Arc<IntegrationRecord>>,
}
