//! What reaches the owner task (`owner.rs`): the closed set of events, the channel they travel
//! on, and what the client said it can do. Handlers (`server.rs`), idle timers and the
//! generation thread only send these; the owner applies them in arrival order.

use std::path::PathBuf;

use serde_json::Value;
use syntax::{PositionEncoding, TextChange, TextPosition};
use tokio::sync::{mpsc, oneshot};
use tower_lsp_server::ls_types::{
    CodeAction, CodeActionKind, CodeLens, Diagnostic, ProgressToken, Range, Uri,
};

use crate::lsp::actions::EditSupport;
use crate::lsp::protocol::settings::Config;
use crate::lsp::protocol::CoverageResult;
use crate::lsp::runner::RunUpdate;
use crate::open_file::OpenFile;

/// What the client can do, from `initialize`.
#[derive(Debug, Clone, Copy, Default)]
pub struct ClientFeatures {
    pub work_done_progress: bool,
    pub code_lens_refresh: bool,
    pub edits: EditSupport,
    /// The client resolves a code action's `edit` lazily (`codeAction/resolve`).
    pub resolve_edit: bool,
    /// The client shows disabled code actions with their reason (`codeAction.disabledSupport`).
    pub disabled_actions: bool,
}

/// Everything that reaches the owner task.
#[derive(Debug)]
pub enum Event {
    /// Sent by the `initialize` handler, before any other event.
    Initialize {
        encoding: PositionEncoding,
        features: ClientFeatures,
        folders: Vec<PathBuf>,
    },
    /// `initialized`: runs may start.
    Initialized,
    /// `workspace/didChangeWorkspaceFolders`.
    WorkspaceFolders {
        added: Vec<PathBuf>,
        removed: Vec<PathBuf>,
    },
    /// The idle delay after edit `seq` of `uri` passed.
    Idle {
        uri: Uri,
        seq: u64,
    },
    /// The regression guard's shorter delay (`guard::CHECK_DELAY`) after edit `seq` of `uri`
    /// passed.
    CheckDelay {
        uri: Uri,
        seq: u64,
    },
    /// From the generation thread.
    Run(RunUpdate),
    Hover {
        uri: Uri,
        position: TextPosition,
        reply: oneshot::Sender<Option<String>>,
    },
    CodeLens {
        uri: Uri,
        reply: oneshot::Sender<Vec<CodeLens>>,
    },
    CodeActions {
        uri: Uri,
        range: Range,
        diagnostics: Vec<Diagnostic>,
        only: Option<Vec<CodeActionKind>>,
        reply: oneshot::Sender<Vec<CodeAction>>,
    },
    ResolveAction {
        action: Box<CodeAction>,
        reply: oneshot::Sender<Result<CodeAction, String>>,
    },
    Coverage {
        uri: Option<Uri>,
        reply: oneshot::Sender<CoverageResult>,
    },
    /// `workspace/executeCommand` for the `ctgls.*` commands.
    Command {
        command: String,
        arguments: Vec<Value>,
        reply: oneshot::Sender<Result<Value, String>>,
    },
    /// `window/workDoneProgress/cancel`.
    CancelProgress {
        token: ProgressToken,
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
        reply: oneshot::Sender<Option<OpenFile>>,
    },
    ConfigSnapshot {
        reply: oneshot::Sender<Config>,
    },
    /// Stop after everything sent before has been applied; `done` is answered just before.
    Shutdown {
        done: oneshot::Sender<()>,
    },
}

impl Event {
    /// The event's name, for logs.
    pub fn name(&self) -> &'static str {
        match self {
            Event::Initialize { .. } => "initialize",
            Event::Initialized => "initialized",
            Event::WorkspaceFolders { .. } => "workspace/didChangeWorkspaceFolders",
            Event::Idle { .. } => "an idle timer",
            Event::CheckDelay { .. } => "the regression guard's timer",
            Event::Run(_) => "a generation update",
            Event::Hover { .. } => "textDocument/hover",
            Event::CodeLens { .. } => "textDocument/codeLens",
            Event::CodeActions { .. } => "textDocument/codeAction",
            Event::ResolveAction { .. } => "codeAction/resolve",
            Event::Coverage { .. } => "ctgls/coverage",
            Event::Command { .. } => "workspace/executeCommand",
            Event::CancelProgress { .. } => "window/workDoneProgress/cancel",
            Event::DidOpen { .. } => "textDocument/didOpen",
            Event::DidChange { .. } => "textDocument/didChange",
            Event::DidSave { .. } => "textDocument/didSave",
            Event::DidClose { .. } => "textDocument/didClose",
            Event::Settings { .. } => "settings",
            Event::DocumentSnapshot { .. } => "a document snapshot",
            Event::ConfigSnapshot { .. } => "a configuration snapshot",
            Event::Shutdown { .. } => "shutdown",
        }
    }
}

/// Where settings came from, for messages.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SettingsOrigin {
    InitializationOptions,
    WorkspaceConfiguration,
    DidChangeConfiguration,
}

impl SettingsOrigin {
    pub fn describe(self) -> &'static str {
        match self {
            SettingsOrigin::InitializationOptions => "initializationOptions",
            SettingsOrigin::WorkspaceConfiguration => "workspace/configuration",
            SettingsOrigin::DidChangeConfiguration => "workspace/didChangeConfiguration",
        }
    }
}

pub type EventSender = mpsc::UnboundedSender<Event>;

/// A sender of events to the owner that does not keep the owner alive: what the owner gives
/// its own timers and the generation thread. When the client connection is gone (the backend
/// and its sender dropped), the owner ends even though they still hold one of these.
#[derive(Clone)]
pub struct WeakEventSender(mpsc::WeakUnboundedSender<Event>);

impl WeakEventSender {
    pub fn new(sender: &EventSender) -> WeakEventSender {
        WeakEventSender(sender.downgrade())
    }

    /// `false` when the owner is gone.
    pub fn send(&self, event: Event) -> bool {
        self.0
            .upgrade()
            .is_some_and(|sender| sender.send(event).is_ok())
    }
}
