//! The read-only requests (hover, code lens, code actions and their resolution,
//! `ctgls/coverage`), answered on a `Snapshot` of the owner's state: each builds the
//! `FileView` of a file and hands it to its feature.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use syntax::{PositionEncoding, TextPosition};
use tower_lsp_server::ls_types::{
    CodeAction, CodeActionKind, CodeLens, Diagnostic, Range, Uri, WorkspaceEdit,
};

use crate::lsp::actions::{self, ActionData, TestFileNow};
use crate::lsp::event::ClientFeatures;
use crate::lsp::file_view::{FileView, Shown};
use crate::lsp::integration::{self, Integration, IntegrationRecord, ProjectSources};
use crate::lsp::protocol::settings::Config;
use crate::lsp::protocol::CoverageResult;
use crate::lsp::runner::ClasspathStatus;
use crate::lsp::scheduler::Scheduler;
use crate::lsp::view::View;
use crate::lsp::workspace::{is_source_file, uri_path, Workspace};
use crate::lsp::{coverage, hover, lens};
use crate::open_file::OpenFile;

/// The owner's state, read-only.
pub struct Snapshot<'a> {
    pub files: &'a HashMap<Uri, OpenFile>,
    pub shown: &'a HashMap<Uri, Shown>,
    pub scheduler: &'a Scheduler,
    pub config: &'a Config,
    pub encoding: PositionEncoding,
    pub features: ClientFeatures,
    /// Why no run can happen at all.
    pub unavailable: Option<String>,
    pub workspace: &'a Workspace,
    pub classpaths: &'a BTreeMap<PathBuf, ClasspathStatus>,
    /// The couplings with other classes and this session's integration runs.
    pub integration: &'a Integration,
}

impl Snapshot<'_> {
    /// The view of an open class (a generation target); `None` for other files.
    pub fn view<'s>(&'s self, uri: &'s Uri) -> Option<FileView<'s>> {
        let file = self.files.get(uri)?;
        let shown = self.shown.get(uri)?;
        Some(FileView {
            unavailable: self.unavailable.as_deref(),
            running: self.scheduler.running_phase(uri),
            ..FileView::bare(uri, file, self.encoding, &self.config.diagnostics).with_shown(shown)
        })
    }

    pub fn hover(&self, uri: &Uri, position: TextPosition) -> Option<String> {
        let view = self.view(uri)?;
        let coverage = hover::hover(&view, position);
        let integration = self.integration_hover(&view, position);
        match (coverage, integration) {
            (Some(coverage), Some(integration)) => {
                Some(format!("{coverage}\n---\n\n{integration}"))
            }
            (coverage, integration) => coverage.or(integration),
        }
    }

    /// The callers that reach the branch at `position` of the class of the view's file.
    fn integration_hover(&self, view: &FileView, position: TextPosition) -> Option<String> {
        let offset = view
            .file
            .document()
            .line_index()
            .offset(position, view.encoding)
            .ok()?;
        let path = uri_path(view.uri)?;
        integration::hover::section(
            view.file.model(),
            offset,
            || {
                let sources = self.project_sources(&path);
                self.integration.index.callers(&sources, &path)
            },
            |caller, callee| self.integration_record(&path, caller, callee),
        )
    }

    /// The last integration run of `caller` through `callee`: this session's, else the one the
    /// project's `.ctgls/` store recorded (an earlier session's, the CLI's).
    fn integration_record(
        &self,
        path: &Path,
        caller: &str,
        callee: &str,
    ) -> Option<std::sync::Arc<IntegrationRecord>> {
        let key = (caller.to_string(), callee.to_string());
        if let Some(record) = self.integration.records.get(&key) {
            return Some(record.clone());
        }
        let layout = self
            .workspace
            .layout_for(path, &self.config.layout_overrides());
        match ctg::store::Store::open(&layout.root).load_integration(caller, callee) {
            Ok(stored) => stored
                .map(|stored| std::sync::Arc::new(IntegrationRecord::from_stored(stored, None))),
            Err(error) => {
                tracing::warn!("{error}");
                None
            }
        }
    }

    /// The source files of `path`'s project, with the open documents' texts.
    pub fn project_sources(&self, path: &Path) -> ProjectSources {
        let layout = self
            .workspace
            .layout_for(path, &self.config.layout_overrides());
        let files = self.integration.index.source_files(&layout.root, || {
            layout
                .source_files()
                .into_iter()
                .filter(|file| is_source_file(&layout, file))
                .collect()
        });
        let open = self
            .files
            .iter()
            .filter_map(|(uri, file)| {
                let path = uri_path(uri)?;
                is_source_file(&layout, &path).then(|| (path, file.model().clone()))
            })
            .collect();
        ProjectSources { files, open }
    }

    pub fn code_lens(&self, uri: &Uri) -> Vec<CodeLens> {
        self.view(uri).map(|v| lens::lenses(&v)).unwrap_or_default()
    }

    pub fn code_actions(
        &self,
        uri: &Uri,
        range: Range,
        diagnostics: &[Diagnostic],
        only: Option<&[CodeActionKind]>,
    ) -> Vec<CodeAction> {
        let Some(view) = self.view(uri) else {
            return Vec::new();
        };
        let queued = self
            .scheduler
            .file(uri)
            .is_some_and(|s| s.queued(self.config.trigger));
        let listed = actions::list(&actions::ListInput {
            view: &view,
            range,
            diagnostics,
            only,
            queued,
            disabled_support: self.features.disabled_actions,
        });
        let listed = listed
            .into_iter()
            .chain(self.integration_actions(&view, range, only));
        if self.features.resolve_edit {
            return listed.collect();
        }
        // Clients that cannot resolve edits get them at once (actions without data, which
        // run a command or are disabled, need no resolving).
        listed
            .into_iter()
            .filter_map(|action| match action.data {
                None => Some(action),
                Some(_) => self.resolve_action(action).ok(),
            })
            .collect()
    }

    /// *Generate integration tests through R* on the class's declaration (R a caller) and on
    /// its calls of other classes.
    fn integration_actions(
        &self,
        view: &FileView,
        range: Range,
        only: Option<&[CodeActionKind]>,
    ) -> Vec<CodeAction> {
        let index = view.file.document().line_index();
        let (Ok(start), Ok(end), Some(path)) = (
            index.offset(crate::lsp::from_proto::position(range.start), view.encoding),
            index.offset(crate::lsp::from_proto::position(range.end), view.encoding),
            uri_path(view.uri),
        ) else {
            return Vec::new();
        };
        let sources = self.project_sources(&path);
        // Callers matter on the class's declaration only: not looked for elsewhere.
        let callers = if integration::actions::on_declaration(view.file.model(), &path, start, end)
        {
            self.integration.index.callers(&sources, &path)
        } else {
            Vec::new()
        };
        let callees = self.integration.index.callees(&sources, &path);
        integration::actions::list(&integration::actions::IntegrationActionInput {
            start,
            end,
            callers: &callers,
            callees: &callees,
            only,
            unavailable: self.unavailable.as_deref(),
            disabled_support: self.features.disabled_actions,
        })
    }

    pub fn resolve_action(&self, mut action: CodeAction) -> Result<CodeAction, String> {
        // An action that runs a command or is disabled has nothing to resolve; clients that
        // resolve every action before applying it (Neovim) get it back as it is.
        if action.data.is_none() && (action.command.is_some() || action.disabled.is_some()) {
            return Ok(action);
        }
        let data: ActionData = action
            .data
            .clone()
            .and_then(|d| serde_json::from_value(d).ok())
            .ok_or("not a ctgls code action")?;
        let uri = data.uri();
        let file = self.files.get(uri).ok_or("the file is no longer open")?;
        let results = || {
            self.shown
                .get(uri)
                .and_then(|s| s.results.as_deref())
                .filter(|r| r.run == data.run())
                .ok_or("the results changed since; ask for code actions again")
        };
        let support = self.features.edits;
        action.edit = match &data {
            ActionData::Test { .. } | ActionData::Suite { .. } => {
                let results = results()?;
                let test = match &data {
                    ActionData::Test { test, .. } => Some(*test),
                    _ => None,
                };
                let suite = results
                    .suite
                    .as_ref()
                    .ok_or("no test passed verification")?;
                // Checked again on the text as it is now: it may have changed since the list.
                let view = View::new(file, results, self.encoding);
                Some(actions::test_edit(
                    results,
                    suite,
                    test,
                    &|i| results.insertable(i, |m| view.live(m)),
                    &self.test_file_now(&suite.path)?,
                    support,
                    self.encoding,
                )?)
            }
            ActionData::Throws { exception, .. } => {
                let exception = results()?
                    .exceptions
                    .get(*exception)
                    .ok_or("the exception is gone; ask for code actions again")?;
                Some(actions::throws_edit(
                    uri,
                    file,
                    exception,
                    support,
                    self.encoding,
                )?)
            }
            // Checked against the guard's findings, not the results.
            ActionData::Accept { run, .. } => self.accept_edit(uri, *run)?,
        };
        Ok(action)
    }

    /// The edit of "Accept the new behaviour" (`None` when the generated test file is not there:
    /// accepting updates the store only), while the guard's findings are still run `run`'s.
    fn accept_edit(&self, uri: &Uri, run: u64) -> Result<Option<WorkspaceEdit>, String> {
        let guard = self
            .shown
            .get(uri)
            .map(|s| &s.guard)
            .filter(|g| g.findings.as_ref().is_some_and(|f| f.run == run))
            .ok_or("the behaviour changes are not those any more; ask for code actions again")?;
        let path = &guard.findings.as_ref().expect("filtered").test_file;
        if !path.exists() {
            return Ok(None);
        }
        let test_file = self.test_file_now(path)?;
        Ok(actions::accept_edit(
            guard,
            &test_file,
            self.features.edits,
            self.encoding,
        ))
    }

    /// The generated test file at `path`: the editor's buffer when it is open, else the disk.
    fn test_file_now(&self, path: &Path) -> Result<TestFileNow, String> {
        let uri = Uri::from_file_path(path)
            .ok_or_else(|| format!("{} is not a valid file path", path.display()))?;
        if let Some(open) = self.files.get(&uri) {
            return Ok(TestFileNow {
                existing: Some((open.document().text(), Some(open.document().version()))),
                uri,
            });
        }
        let existing = match std::fs::read_to_string(path) {
            Ok(text) => Some((text, None)),
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
                // Clients create the file (`CreateFile`, or a buffer for the new URI), but not
                // all create its directories, and a fresh project has no test root yet: make
                // them, so the user's save cannot fail. Directories only, never the file.
                if let Some(parent) = path.parent() {
                    std::fs::create_dir_all(parent)
                        .map_err(|error| format!("cannot create {}: {error}", parent.display()))?;
                }
                None
            }
            Err(error) => return Err(format!("cannot read {}: {error}", path.display())),
        };
        Ok(TestFileNow { uri, existing })
    }

    /// `ctgls/coverage` of `uri`, or of every file with results.
    pub fn coverage(&self, uri: Option<&Uri>) -> CoverageResult {
        let mut uris: Vec<&Uri> = self
            .shown
            .keys()
            .filter(|u| uri.is_none_or(|wanted| wanted == *u))
            .collect();
        uris.sort_by(|a, b| a.as_str().cmp(b.as_str()));
        CoverageResult {
            files: uris
                .into_iter()
                .filter_map(|u| coverage::file_coverage(&self.view(u)?))
                .collect(),
        }
    }
}
