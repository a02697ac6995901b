//! What an open class shows, and the read-only view of it that features get.
//!
//! Architecture invariant: features (diagnostics, hover, code lens, code actions, coverage)
//! read a [`FileView`] and nothing else of the server: not the scheduler's record of the file,
//! not the owner. They are pure functions of it.

use std::sync::Arc;

use syntax::PositionEncoding;
use tower_lsp_server::ls_types::Uri;

use crate::lsp::guard::Guard;
use crate::lsp::protocol::settings::DiagnosticSeverities;
use crate::lsp::results::{ClassResults, Origin};
use crate::lsp::runner::RunFailure;
use crate::open_file::OpenFile;

/// What an open class shows: the results of its last run (or the store's, or a running
/// search's on top of those), why its last run produced nothing, and what the regression
/// guard found.
#[derive(Debug, Default, Clone)]
pub struct Shown {
    pub results: Option<Arc<ClassResults>>,
    /// Why the last run produced nothing (cancellations are not kept).
    pub problem: Option<RunFailure>,
    /// The regression guard's baseline and findings.
    pub guard: Guard,
}

impl Shown {
    /// Puts back the results shown before a run that ended without results (`before`), in
    /// place of its interim ones; whether anything changed.
    pub fn end_interim(&mut self, before: Option<Arc<ClassResults>>) -> bool {
        let interim = self
            .results
            .as_ref()
            .is_some_and(|r| r.origin == Origin::Interim);
        if interim {
            self.results = before;
        }
        interim
    }
}

/// One open file as features see it.
#[derive(Clone, Copy)]
pub struct FileView<'a> {
    pub uri: &'a Uri,
    pub file: &'a OpenFile,
    pub results: Option<&'a ClassResults>,
    pub problem: Option<&'a RunFailure>,
    /// Why no run can happen at all (no JDK, execution disabled).
    pub unavailable: Option<&'a str>,
    /// The phase of this file's run in progress.
    pub running: Option<&'a str>,
    pub encoding: PositionEncoding,
    /// The user's severity (or `off`) per diagnostic code.
    pub severities: &'a DiagnosticSeverities,
    /// The regression guard's state of the class.
    pub guard: Option<&'a Guard>,
}

impl<'a> FileView<'a> {
    /// A view with nothing but the file, for tests and files that are not generation targets.
    pub fn bare(
        uri: &'a Uri,
        file: &'a OpenFile,
        encoding: PositionEncoding,
        severities: &'a DiagnosticSeverities,
    ) -> FileView<'a> {
        FileView {
            uri,
            file,
            results: None,
            problem: None,
            unavailable: None,
            running: None,
            encoding,
            severities,
            guard: None,
        }
    }

    pub fn with_shown(self, shown: &'a Shown) -> FileView<'a> {
        FileView {
            results: shown.results.as_deref(),
            problem: shown.problem.as_ref(),
            guard: Some(&shown.guard),
            ..self
        }
    }
}
