//! What the pipeline keeps of a class-integration run (`GenerationRequest::callee`): not the
//! tests (they are not the caller's suite, `crate::store`), only which coupled branches the
//! written tests cover, as the store's `IntegrationRunRecord` of the pair.

use super::{source_hash, Emission};
use crate::job::{GenerationResult, ProjectSource};
use crate::project::ProjectLayout;
use crate::store::{IntegrationRunRecord, Store, StoreError, StoredCoupledPair};

/// The store's record of an integration run: every coupled pair with the name of the written
/// test that covers it; `None` for a run without coupled branches.
pub fn integration_record(
    generation: &GenerationResult,
    emission: &Emission,
    timestamp_ms: u64,
    caller_hash: String,
    callee_hash: String,
) -> Option<IntegrationRunRecord> {
    let coupled = generation.coupled.as_ref()?;
    let suite = &emission.suite;
    let name_of = |test: usize| {
        let at = suite.kept_tests.iter().position(|&kept| kept == test)?;
        suite.kept.get(at).cloned()
    };
    let mut pairs: Vec<StoredCoupledPair> = coupled
        .pairs
        .iter()
        .map(|pair| StoredCoupledPair {
            caller_branch: pair.caller_branch.clone(),
            callee_branch: pair.callee_branch.clone(),
            test: pair.covered_by.and_then(name_of),
        })
        .collect();
    pairs.sort_by(|a, b| {
        (&a.caller_branch, &a.callee_branch).cmp(&(&b.caller_branch, &b.callee_branch))
    });
    Some(IntegrationRunRecord {
        caller: coupled.caller.clone(),
        callee: coupled.callee.clone(),
        caller_hash,
        callee_hash,
        timestamp_ms,
        pairs,
    })
}

/// Saves the record of the run of `generation.class` through `callee` (nothing for a run
/// without coupled branches); the callee's hash is of its text among the run's `sources`.
#[allow(clippy::too_many_arguments)]
pub(super) fn save(
    store: &Store,
    callee: &str,
    layout: &ProjectLayout,
    sources: &[ProjectSource],
    generation: &GenerationResult,
    emission: &Emission,
    timestamp_ms: u64,
    caller_hash: String,
) -> Result<(), StoreError> {
    let hash_of = |class: &str| {
        let file = layout.source_file_of(class);
        let text = sources
            .iter()
            .find(|s| Some(s.disk.as_path()) == file.as_deref())
            .map(|s| s.file.text.as_str());
        text.map(source_hash).unwrap_or_default()
    };
    let callee_hash = hash_of(callee);
    // Tests through a subclass (section 3.2.5): the caller is the class under test's
    // superclass, whose text is another file's.
    let caller_hash = match &generation.coupled {
        Some(coupled) if coupled.caller != generation.class => hash_of(&coupled.caller),
        _ => caller_hash,
    };
    match integration_record(generation, emission, timestamp_ms, caller_hash, callee_hash) {
        Some(record) => store.save_integration(&record),
        None => Ok(()),
    }
}
