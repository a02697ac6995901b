//! The `LanguageServer` implementation. tower-lsp runs handlers concurrently, so handlers
//! hold no editor state: notifications are converted and forwarded, synchronously and before
//! any `.await`, to the owner task (`state.rs`); reads ask it for a snapshot.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;

use serde_json::Value;
use tokio::sync::oneshot;
use tower_lsp_server::jsonrpc::{self, Result};
use tower_lsp_server::ls_types::{
    ConfigurationItem, DidChangeConfigurationParams, DidChangeTextDocumentParams,
    DidCloseTextDocumentParams, DidOpenTextDocumentParams, DidSaveTextDocumentParams,
    InitializeParams, InitializeResult, InitializedParams, ServerInfo,
};
use tower_lsp_server::{Client, LanguageServer};

use crate::lsp::capabilities::server_capabilities;
use crate::lsp::config::{self, SECTION};
use crate::lsp::ext::{DebugDocument, DebugDocumentParams};
use crate::lsp::from_proto;
use crate::lsp::state::{Event, EventSender, SettingsOrigin};

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

    /// `ctgls/debugDocument`, see `ext.rs`.
    pub async fn debug_document(
        &self,
        params: DebugDocumentParams,
    ) -> Result<Option<DebugDocument>> {
        let uri = params.uri;
        let document = self
            .ask(|reply| Event::DocumentSnapshot {
                uri: uri.clone(),
                reply,
            })
            .await?;
        Ok(document.map(|document| DebugDocument {
            uri,
            version: document.version(),
            text: document.text(),
        }))
    }

    /// `ctgls/debugConfig`, see `ext.rs`.
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
        self.send(Event::Initialize { encoding });
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
