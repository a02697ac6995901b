//! The owner of editor state. One task receives every state-changing notification as an
//! `Event`, in the order the client sent them, and applies them one at a time; readers get
//! snapshots (cheap `Document` clones) through a reply channel.
//!
//! Architecture invariant: nothing else holds the document store or the configuration, so
//! no lock is needed and a `didChange` can never be applied before the one sent before it.

use std::collections::HashMap;
use std::ops::ControlFlow;

use serde_json::Value;
use syntax::{Document, PositionEncoding, TextChange};

use crate::open_file::OpenFile;
use tokio::sync::{mpsc, oneshot};
use tower_lsp_server::ls_types::{MessageType, Uri};
use tower_lsp_server::Client;

use crate::logging::LogLevelControl;
use crate::lsp::config::{self, Config, SECTION};

/// Everything that reaches the owner task.
#[derive(Debug)]
pub enum Event {
    /// Sent by the `initialize` handler, before any other event.
    Initialize {
        encoding: PositionEncoding,
    },
    DidOpen {
        uri: Uri,
        version: i32,
        text: String,
    },
    DidChange {
        uri: Uri,
        version: i32,
        changes: Vec<TextChange>,
    },
    DidSave {
        uri: Uri,
    },
    DidClose {
        uri: Uri,
    },
    /// A settings object for the `ctgls` section (`null` when the client has none). Settings
    /// older than the newest applied `generation` are dropped: pulls can answer out of order.
    Settings {
        generation: u64,
        settings: Value,
        origin: SettingsOrigin,
    },
    DocumentSnapshot {
        uri: Uri,
        reply: oneshot::Sender<Option<Document>>,
    },
    ConfigSnapshot {
        reply: oneshot::Sender<Config>,
    },
    /// Stop after everything sent before has been applied; `done` is answered just before.
    Shutdown {
        done: oneshot::Sender<()>,
    },
}

/// Where settings came from, for messages.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SettingsOrigin {
    InitializationOptions,
    WorkspaceConfiguration,
    DidChangeConfiguration,
}

impl SettingsOrigin {
    fn describe(self) -> &'static str {
        match self {
            SettingsOrigin::InitializationOptions => "initializationOptions",
            SettingsOrigin::WorkspaceConfiguration => "workspace/configuration",
            SettingsOrigin::DidChangeConfiguration => "workspace/didChangeConfiguration",
        }
    }
}

pub type EventSender = mpsc::UnboundedSender<Event>;

pub struct State {
    client: Client,
    log_level: LogLevelControl,
    encoding: PositionEncoding,
    /// Every open file with its Java model, kept up to date edit by edit.
    files: HashMap<Uri, OpenFile>,
    config: Config,
    config_generation: u64,
}

impl State {
    pub fn new(client: Client, log_level: LogLevelControl) -> Self {
        Self {
            client,
            log_level,
            encoding: PositionEncoding::default(),
            files: HashMap::new(),
            config: Config::default(),
            config_generation: 0,
        }
    }

    /// Applies events until `Shutdown` arrives or every sender is gone.
    pub async fn run(mut self, mut events: mpsc::UnboundedReceiver<Event>) {
        while let Some(event) = events.recv().await {
            if self.handle(event).await.is_break() {
                tracing::debug!("owner task: shut down");
                return;
            }
        }
        tracing::debug!("owner task: all senders gone");
    }

    async fn handle(&mut self, event: Event) -> ControlFlow<()> {
        match event {
            Event::Initialize { encoding } => self.encoding = encoding,
            Event::DidOpen { uri, version, text } => {
                let previous = self
                    .files
                    .insert(uri.clone(), OpenFile::open(&text, version));
                if previous.is_some() {
                    self.warn(format!(
                        "didOpen for {}, which is already open: replaced its text",
                        uri.as_str()
                    ))
                    .await;
                }
            }
            Event::DidChange {
                uri,
                version,
                changes,
            } => self.did_change(uri, version, changes).await,
            Event::DidSave { uri } => {
                tracing::debug!("saved {}", uri.as_str());
            }
            Event::DidClose { uri } => {
                if self.files.remove(&uri).is_none() {
                    self.warn(format!(
                        "didClose for {}, which is not open: ignored",
                        uri.as_str()
                    ))
                    .await;
                }
            }
            Event::Settings {
                generation,
                settings,
                origin,
            } => self.apply_settings(generation, settings, origin).await,
            Event::DocumentSnapshot { uri, reply } => {
                let _ = reply.send(self.files.get(&uri).map(|file| file.document().clone()));
            }
            Event::ConfigSnapshot { reply } => {
                let _ = reply.send(self.config.clone());
            }
            Event::Shutdown { done } => {
                let _ = done.send(());
                return ControlFlow::Break(());
            }
        }
        ControlFlow::Continue(())
    }

    async fn did_change(&mut self, uri: Uri, version: i32, changes: Vec<TextChange>) {
        let Some(file) = self.files.get_mut(&uri) else {
            self.warn(format!(
                "didChange for {}, which is not open: ignored",
                uri.as_str()
            ))
            .await;
            return;
        };
        let previous_version = file.document().version();
        // The changes apply to the text we hold whatever the version says, because events are
        // applied in the order the client sent them; a non-increasing version is only reported.
        let result = file.apply_changes(&changes, version, self.encoding);
        if version <= previous_version {
            self.warn(format!(
                "didChange for {} has version {version}, not newer than {previous_version}",
                uri.as_str()
            ))
            .await;
        }
        match result {
            Ok(()) => {}
            Err(error) => {
                self.warn(format!(
                    "dropped didChange for {} (version {version}): {error}; \
                     the document stays at version {previous_version}",
                    uri.as_str()
                ))
                .await;
            }
        }
    }

    async fn apply_settings(&mut self, generation: u64, settings: Value, origin: SettingsOrigin) {
        let origin = origin.describe();
        if generation < self.config_generation {
            tracing::debug!("dropping settings from {origin}: newer ones were applied");
            return;
        }
        self.config_generation = generation;
        if settings.is_null() {
            tracing::debug!("no `{SECTION}` settings in {origin}: configuration unchanged");
            return;
        }
        match config::parse(&settings) {
            Ok(parsed) => {
                for key in parsed.unknown_keys {
                    self.warn(format!(
                        "unknown setting `{SECTION}.{key}` in {origin}: ignored"
                    ))
                    .await;
                }
                self.config = parsed.config;
                self.log_level.set(self.config.log_level);
                tracing::info!("configuration from {origin}: {:?}", self.config);
            }
            Err(invalid) => {
                let message = format!(
                    "ctgls: invalid settings in {origin}, keeping the previous configuration: \
                     {invalid}"
                );
                tracing::warn!("{message}");
                self.client
                    .show_message(MessageType::WARNING, message)
                    .await;
            }
        }
    }

    /// Logs a warning on stderr and in the client's log.
    async fn warn(&self, message: String) {
        tracing::warn!("{message}");
        self.client.log_message(MessageType::WARNING, message).await;
    }
}
