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

use std::collections::HashMap;
use std::sync::Arc;

pub use crate::lsp::results::integration::IntegrationRecord;
pub use index::{Coupled, CouplingIndex, ProjectSources};

/// The owner's integration state: the coupling index and the records of this session's
/// integration runs by (caller, callee).
#[derive(Default)]
pub struct Integration {
    pub index: CouplingIndex,
    pub records: HashMap<(String, String), Arc<IntegrationRecord>>,
}
