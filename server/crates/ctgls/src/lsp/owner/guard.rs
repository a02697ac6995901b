//! The regression guard, owner side: its check on its own `guard::CHECK_DELAY` after an
//! edit (ahead of the idle delay's run), and its reports: what a check found on the text the
//! editor holds is kept with the class (`Shown::guard`) and published, on the class file and
//! on the project test files that hold failures (open or not); a report on an older text is
//! dropped (the latest edit wins: its own check follows).

use std::path::PathBuf;
use std::sync::Arc;

use tower_lsp_server::ls_types::Uri;

use super::Owner;
use crate::lsp::diagnostics::apply_severities;
use crate::lsp::event::Event;
use crate::lsp::guard::{GuardUpdate, JobFor};
use crate::lsp::regression;
use crate::lsp::results::ClassResults;
use crate::lsp::runner::UpdateSink;
use crate::lsp::scheduler::Inputs;
use crate::lsp::view::View;
use crate::lsp::workspace::uri_path;
use crate::open_file::OpenFile;
use syntax::PositionEncoding;

impl Owner {
    /// The guard's delay after edit `seq` of `uri` passed: when that edit is the latest, the
    /// file parses and runs may happen, the stored tests (and the project's) are checked on
    /// the generation thread now rather than with the run after the idle delay.
    pub(super) fn check(&mut self, uri: &Uri, seq: u64) {
        if !self.initialized
            || !self.config.execution_enabled
            || self
                .global_problem
                .as_ref()
                .is_some_and(|p| p.kind.is_global())
            || !self.scheduler.is_latest_edit(uri, seq)
            || self
                .files
                .get(uri)
                .is_none_or(|f| !f.model().problems.is_empty())
        {
            return;
        }
        let Some(file) = self.files.get(uri) else {
            return;
        };
        let hash = ctg::pipeline::source_hash(file.model().text());
        let Some(shown) = self.shown.get_mut(uri) else {
            return;
        };
        let class = crate::lsp::workspace::primary_type(file.model(), uri_path(uri).as_deref())
            .map(|ty| ty.binary_name.clone());
        let edited = class
            .map(|class| edited_members(file, shown.results.as_deref(), &class, self.encoding))
            .unwrap_or_default();
        shown.guard.edited_at_check = Some((hash, edited));
        let inputs = Inputs {
            files: &self.files,
            config: &self.config,
            workspace: &self.workspace,
        };
        let events = self.events.clone();
        let updates =
            move || -> UpdateSink { Arc::new(move |update| events.send(Event::Run(update))) };
        let guard = |what: &JobFor| shown.guard.job(None, what);
        self.scheduler.check(uri, &inputs, updates, guard);
    }

    /// A check's results: kept with the class file, and published, when they are of the text
    /// the editor holds.
    pub(super) async fn guard_update(&mut self, update: GuardUpdate) {
        let uri = update.uri.clone();
        let current = self
            .files
            .get(&uri)
            .is_some_and(|f| ctg::pipeline::source_hash(f.model().text()) == update.hash);
        if !current {
            tracing::debug!("run {}: the guard's report is of an older text", update.run);
            return;
        }
        let Some(shown) = self.shown.get_mut(&uri) else {
            return;
        };
        // The members edited since the results shown when its check started (a check on its
        // own), else now (a run's check, before the run's own results).
        let edited = match &shown.guard.edited_at_check {
            Some((hash, edited)) if *hash == update.hash => edited.clone(),
            _ => self
                .files
                .get(&uri)
                .map(|file| {
                    edited_members(file, shown.results.as_deref(), &update.class, self.encoding)
                })
                .unwrap_or_default(),
        };
        tracing::debug!(
            "run {}: the guard reports {} behaviour changes and {}",
            update.run,
            update.changes.len(),
            match &update.failures {
                Some(failures) => format!("{} failing project tests", failures.len()),
                None => "no report of the project's tests (yet)".into(),
            }
        );
        let before = shown.guard.failure_files();
        shown.guard.apply(update, edited);
        let after = shown.guard.failure_files();
        self.publish_diagnostics(&uri).await;
        self.publish_test_files(before.into_iter().chain(after))
            .await;
    }

    /// A file that is not a class to generate for was opened or edited: when it is a test file
    /// with failures, they are published on its text.
    pub(super) async fn test_file_shown(&self, uri: &Uri) {
        let Some(path) = uri_path(uri) else {
            return;
        };
        let has_failures = self
            .shown
            .values()
            .any(|s| s.guard.failure_files().contains(&path));
        if has_failures {
            self.publish_test_files(std::iter::once(path)).await;
        }
    }

    /// Publishes the guard's diagnostics of project test files (open or not).
    pub(super) async fn publish_test_files(&self, files: impl Iterator<Item = PathBuf>) {
        let mut uris: Vec<Uri> = files.filter_map(Uri::from_file_path).collect();
        uris.sort_by(|a, b| a.as_str().cmp(b.as_str()));
        uris.dedup();
        for uri in uris {
            if self.shown.contains_key(&uri) {
                self.publish_diagnostics(&uri).await;
                continue;
            }
            let file = self.files.get(&uri);
            let diagnostics = regression::test_file_diagnostics(
                &uri,
                file,
                self.shown.values().map(|s| &s.guard),
                self.encoding,
            );
            let diagnostics = apply_severities(diagnostics, &self.config.diagnostics);
            let version = file.map(|f| f.document().version());
            self.client
                .publish_diagnostics(uri, diagnostics, version)
                .await;
        }
    }
}

/// The members of `class` in `file` whose text differs from the one `results` describe.
fn edited_members(
    file: &OpenFile,
    results: Option<&ClassResults>,
    class: &str,
    encoding: PositionEncoding,
) -> Vec<String> {
    let (Some(results), Some(ty)) = (results, file.model().type_by_binary_name(class)) else {
        return Vec::new();
    };
    let view = View::new(file, results, encoding);
    ty.members
        .iter()
        .filter(|m| !view.live(&m.key))
        .map(|m| m.key.clone())
        .collect()
}
