//! The regression guard's reports, applied by the owner: what the check before a run found
//! is kept with the class (`Shown::guard`) and published, on the class file and on the project
//! test files that hold failures (open or not).

use std::path::PathBuf;

use tower_lsp_server::ls_types::Uri;

use super::Owner;
use crate::lsp::diagnostics::apply_severities;
use crate::lsp::guard::GuardUpdate;
use crate::lsp::regression;
use crate::lsp::workspace::uri_path;

impl Owner {
    /// A check's results: kept with the class file, and published.
    pub(super) async fn guard_update(&mut self, update: GuardUpdate) {
        let uri = update.uri.clone();
        let Some(shown) = self.shown.get_mut(&uri) else {
            return;
        };
        let before = shown.guard.failure_files();
        shown.guard.apply(update);
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
