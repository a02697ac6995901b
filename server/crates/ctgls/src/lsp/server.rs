//! The `LanguageServer` implementation. tower-lsp runs handlers concurrently, so handlers
//! hold no editor state: notifications are converted and forwarded, synchronously and before
//! any `.await`, to the owner task (`owner.rs`); reads ask it for a snapshot.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;

use serde_json::Value;
use tokio::sync::oneshot;
use tower_lsp_server::jsonrpc::{self, Result};
use tower_lsp_server::ls_types::{
    CodeAction, CodeActionOrCommand, CodeActionParams, CodeActionResponse, CodeLens,
    CodeLensParams, ConfigurationItem, DidChangeConfigurationParams, DidChangeTextDocumentParams,
    DidChangeWorkspaceFoldersParams, DidCloseTextDocumentParams, DidOpenTextDocumentParams,
    DidSaveTextDocumentParams, ExecuteCommandParams, Hover, HoverContents, HoverParams,
    InitializeParams, InitializeResult, InitializedParams, LSPAny, MarkupContent, MarkupKind,
    ResourceOperationKind, ServerInfo, WorkDoneProgressCancelParams,
};
use tower_lsp_server::{Client, LanguageServer};

use crate::lsp::actions::EditSupport;
use crate::lsp::capabilities::server_capabilities;
use crate::lsp::event::{ClientFeatures, Event, EventSender, SettingsOrigin};
use crate::lsp::from_proto;
use crate::lsp::protocol::settings::{self as config, SECTION};
use crate::lsp::protocol::{CoverageParams, CoverageResult, DebugDocument, DebugDocumentParams};

pub struct Backend {
    client: Client,
    events: EventSender,
    /// Whether the client answers `workspace/configuration`; set once by `initialize`.
    pulls_configuration: AtomicBool,
    /// Tags settings so the owner can drop a pull answered after a newer one.
    settings_generation: Arc<AtomicU64>,
    /// Set by `shutdown`; decides the exit code after `exit`.
    shutdown_requested: Arc<AtomicBool>,
}

impl Backend {
    pub fn new(client: Client, events: EventSender, shutdown_requested: Arc<AtomicBool>) -> Self {
        Self {
            client,
            events,
            pulls_configuration: AtomicBool::new(false),
            settings_generation: Arc::new(AtomicU64::new(0)),
            shutdown_requested,
        }
    }

    fn send(&self, event: Event) {
        if self.events.send(event).is_err() {
            tracing::debug!("the owner task has stopped; event dropped");
        }
    }

    fn next_settings_generation(&self) -> u64 {
        self.settings_generation.fetch_add(1, Ordering::SeqCst) + 1
    }

    /// Sends an event carrying a reply channel and waits for the owner's answer.
    async fn ask<T>(&self, event: impl FnOnce(oneshot::Sender<T>) -> Event) -> Result<T> {
        let (reply, answer) = oneshot::channel();
        self.send(event(reply));
        answer.await.map_err(|_| {
            let mut error = jsonrpc::Error::internal_error();
            error.message = "the server is shutting down".into();
            error
        })
    }

    /// Asks the client for the `ctgls` section in the background; the answer reaches the owner
    /// as a `Settings` event.
    fn pull_configuration(&self) {
        let generation = self.next_settings_generation();
        let client = self.client.clone();
        let events = self.events.clone();
        tokio::spawn(async move {
            let item = ConfigurationItem {
                scope_uri: None,
                section: Some(SECTION.to_owned()),
            };
            match client.configuration(vec![item]).await {
                Ok(values) => {
                    let settings = values.into_iter().next().unwrap_or(Value::Null);
                    let _ = events.send(Event::Settings {
                        generation,
                        settings,
                        origin: SettingsOrigin::WorkspaceConfiguration,
                    });
                }
                Err(error) => tracing::warn!("workspace/configuration failed: {error}"),
            }
        });
    }

    /// `ctgls/debugDocument`, see `protocol`.
    pub async fn debug_document(
        &self,
        params: DebugDocumentParams,
    ) -> Result<Option<DebugDocument>> {
        let uri = params.uri;
        let file = self
            .ask(|reply| Event::DocumentSnapshot {
                uri: uri.clone(),
                reply,
            })
            .await?;
        Ok(file.map(|file| DebugDocument {
            uri,
            version: file.document().version(),
            text: file.document().text(),
            model: javamodel::dump(file.model()),
        }))
    }

    /// `ctgls/coverage`, see `docs/lsp-extensions.md`.
    pub async fn coverage(&self, params: Option<CoverageParams>) -> Result<CoverageResult> {
        let uri = params.and_then(|p| p.text_document).map(|d| d.uri);
        self.ask(|reply| Event::Coverage { uri, reply }).await
    }

    /// `window/workDoneProgress/cancel` (not a trait method of tower-lsp-server yet).
    pub async fn work_done_progress_cancel(&self, params: WorkDoneProgressCancelParams) {
        self.send(Event::CancelProgress {
            token: params.token,
        });
    }

    /// `ctgls/debugConfig`, see `protocol`.
    pub async fn debug_config(&self) -> Result<Value> {
        let config = self.ask(|reply| Event::ConfigSnapshot { reply }).await?;
        serde_json::to_value(config).map_err(|error| {
            let mut rpc_error = jsonrpc::Error::internal_error();
            rpc_error.message = error.to_string().into();
            rpc_error
        })
    }
}

impl LanguageServer for Backend {
    async fn initialize(&self, params: InitializeParams) -> Result<InitializeResult> {
        let encoding = from_proto::negotiate_encoding(&params.capabilities);
        let pulls = params
            .capabilities
            .workspace
            .as_ref()
            .and_then(|workspace| workspace.configuration)
            .unwrap_or(false);
        self.pulls_configuration.store(pulls, Ordering::SeqCst);
        self.send(Event::Initialize {
            encoding,
            features: client_features(&params.capabilities),
            folders: workspace_folders(&params),
        });
        if let Some(options) = params.initialization_options {
            self.send(Event::Settings {
                generation: self.next_settings_generation(),
                settings: options,
                origin: SettingsOrigin::InitializationOptions,
            });
        }
        Ok(InitializeResult {
            capabilities: server_capabilities(encoding),
            server_info: Some(ServerInfo {
                name: env!("CARGO_PKG_NAME").to_owned(),
                version: Some(env!("CARGO_PKG_VERSION").to_owned()),
            }),
            ..InitializeResult::default()
        })
    }

    async fn initialized(&self, _: InitializedParams) {
        if self.pulls_configuration.load(Ordering::SeqCst) {
            self.pull_configuration();
        }
        self.send(Event::Initialized);
    }

    async fn hover(&self, params: HoverParams) -> Result<Option<Hover>> {
        let at = params.text_document_position_params;
        let markdown = self
            .ask(|reply| Event::Hover {
                uri: at.text_document.uri,
                position: from_proto::position(at.position),
                reply,
            })
            .await?;
        Ok(markdown.map(|value| Hover {
            contents: HoverContents::Markup(MarkupContent {
                kind: MarkupKind::Markdown,
                value,
            }),
            range: None,
        }))
    }

    async fn code_lens(&self, params: CodeLensParams) -> Result<Option<Vec<CodeLens>>> {
        let lenses = self
            .ask(|reply| Event::CodeLens {
                uri: params.text_document.uri,
                reply,
            })
            .await?;
        Ok(Some(lenses))
    }

    async fn code_action(&self, params: CodeActionParams) -> Result<Option<CodeActionResponse>> {
        let actions = self
            .ask(|reply| Event::CodeActions {
                uri: params.text_document.uri,
                range: params.range,
                diagnostics: params.context.diagnostics,
                only: params.context.only,
                reply,
            })
            .await?;
        Ok(Some(
            actions
                .into_iter()
                .map(CodeActionOrCommand::CodeAction)
                .collect(),
        ))
    }

    async fn code_action_resolve(&self, action: CodeAction) -> Result<CodeAction> {
        let resolved = self
            .ask(|reply| Event::ResolveAction {
                action: Box::new(action),
                reply,
            })
            .await?;
        resolved.map_err(|message| {
            let mut error = jsonrpc::Error::invalid_params(message.clone());
            error.message = message.into();
            error
        })
    }

    async fn execute_command(&self, params: ExecuteCommandParams) -> Result<Option<LSPAny>> {
        let result = self
            .ask(|reply| Event::Command {
                command: params.command,
                arguments: params.arguments,
                reply,
            })
            .await?;
        result.map(Some).map_err(|message| {
            let mut error = jsonrpc::Error::invalid_params(message.clone());
            error.message = message.into();
            error
        })
    }

    async fn shutdown(&self) -> Result<()> {
        self.shutdown_requested.store(true, Ordering::SeqCst);
        // Answer only once the owner has applied everything sent before and stopped.
        let (done, stopped) = oneshot::channel();
        self.send(Event::Shutdown { done });
        let _ = stopped.await;
        Ok(())
    }

    async fn did_open(&self, params: DidOpenTextDocumentParams) {
        let document = params.text_document;
        self.send(Event::DidOpen {
            uri: document.uri,
            version: document.version,
            text: document.text,
        });
    }

    async fn did_change(&self, params: DidChangeTextDocumentParams) {
        self.send(Event::DidChange {
            uri: params.text_document.uri,
            version: params.text_document.version,
            changes: params
                .content_changes
                .into_iter()
                .map(from_proto::text_change)
                .collect(),
        });
    }

    async fn did_save(&self, params: DidSaveTextDocumentParams) {
        self.send(Event::DidSave {
            uri: params.text_document.uri,
        });
    }

    async fn did_close(&self, params: DidCloseTextDocumentParams) {
        self.send(Event::DidClose {
            uri: params.text_document.uri,
        });
    }

    async fn did_change_workspace_folders(&self, params: DidChangeWorkspaceFoldersParams) {
        let paths = |folders: Vec<tower_lsp_server::ls_types::WorkspaceFolder>| {
            folders
                .iter()
                .filter_map(|f| crate::lsp::workspace::uri_path(&f.uri))
                .collect::<Vec<_>>()
        };
        self.send(Event::WorkspaceFolders {
            added: paths(params.event.added),
            removed: paths(params.event.removed),
        });
    }

    async fn did_change_configuration(&self, params: DidChangeConfigurationParams) {
        if self.pulls_configuration.load(Ordering::SeqCst) {
            // The pushed payload is often empty or partial; the pull answers with the section.
            self.pull_configuration();
        } else if let Some(settings) = config::section(&params.settings) {
            self.send(Event::Settings {
                generation: self.next_settings_generation(),
                settings: settings.clone(),
                origin: SettingsOrigin::DidChangeConfiguration,
            });
        } else {
            tracing::debug!("didChangeConfiguration without a `{SECTION}` section: ignored");
        }
    }
}

fn client_features(
    capabilities: &tower_lsp_server::ls_types::ClientCapabilities,
) -> ClientFeatures {
    let workspace = capabilities.workspace.as_ref();
    let edit = workspace.and_then(|w| w.workspace_edit.as_ref());
    ClientFeatures {
        work_done_progress: capabilities
            .window
            .as_ref()
            .and_then(|w| w.work_done_progress)
            .unwrap_or(false),
        code_lens_refresh: workspace
            .and_then(|w| w.code_lens.as_ref())
            .and_then(|c| c.refresh_support)
            .unwrap_or(false),
        edits: EditSupport {
            document_changes: edit.and_then(|e| e.document_changes).unwrap_or(false),
            create_files: edit
                .and_then(|e| e.resource_operations.as_ref())
                .is_some_and(|ops| ops.contains(&ResourceOperationKind::Create)),
        },
        resolve_edit: capabilities
            .text_document
            .as_ref()
            .and_then(|t| t.code_action.as_ref())
            .and_then(|c| c.resolve_support.as_ref())
            .is_some_and(|r| r.properties.iter().any(|p| p == "edit")),
        disabled_actions: capabilities
            .text_document
            .as_ref()
            .and_then(|t| t.code_action.as_ref())
            .and_then(|c| c.disabled_support)
            .unwrap_or(false),
    }
}

/// The workspace folders as paths (`rootUri` for clients that send no folders).
#[allow(deprecated)]
fn workspace_folders(params: &InitializeParams) -> Vec<std::path::PathBuf> {
    let mut folders: Vec<_> = params
        .workspace_folders
        .iter()
        .flatten()
        .filter_map(|f| crate::lsp::workspace::uri_path(&f.uri))
        .collect();
    if folders.is_empty() {
        if let Some(root) = params
            .root_uri
            .as_ref()
            .and_then(crate::lsp::workspace::uri_path)
        {
            folders.push(root);
        }
    }
    folders
}
