//! What a class-integration run found (`ctgls.generateIntegration`; `lsp/integration/`): the
//! coupled pairs of caller R and callee E it covered, by the written tests' names.

use std::collections::BTreeMap;
use std::path::PathBuf;

use ctg::pipeline::ClassOutcome;
use ctg::store::IntegrationRunRecord;

/// What the last integration run of caller R through callee E covered: this session's run, or
/// the `.ctgls/` store's record (`ctg::store::IntegrationRunRecord`, which the pipeline saves).
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
        let stored = ctg::pipeline::integration_record(
            &outcome.generation,
            &outcome.emission,
            0,
            caller_hash,
            callee_hash,
        )?;
        let written = outcome
            .emission
            .written
            .as_ref()
            .map(|_| outcome.emission.path.clone());
        Some(IntegrationRecord::from_stored(stored, written))
    }

    /// The `.ctgls/` store's record of a run (of this session or an earlier one, or of the
    /// CLI's `ctgls generate --callee`).
    pub fn from_stored(
        stored: IntegrationRunRecord,
        written: Option<PathBuf>,
    ) -> IntegrationRecord {
        IntegrationRecord {
            pairs: stored
                .pairs
                .into_iter()
                .map(|p| ((p.caller_branch, p.callee_branch), p.test))
                .collect(),
            caller: stored.caller,
            callee: stored.callee,
            caller_hash: stored.caller_hash,
            callee_hash: stored.callee_hash,
            written,
        }
    }

    /// Covered pairs (by a written test) out of all.
    pub fn covered(&self) -> usize {
        self.pairs.values().filter(|test| test.is_some()).count()
    }
}
