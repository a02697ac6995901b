//! The language server: LSP over a byte stream (stdio for editors). This is the only module
//! that speaks LSP or JSON.
//!
//! - `server`: the `LanguageServer` handlers, which only forward `event`s to the owner task;
//! - `owner`: the owner task, which applies events in order (with `owner/commands.rs` and the
//!   regression guard's reports, `owner/guard.rs`); `scheduler` chooses and starts runs,
//!   `runner` is the generation thread, `progress` reports runs as `$/progress`; `guard`: the
//!   regression guard's state per class and its check before a run's search;
//! - `results`: what a run found, in edit-proof terms; `file_view`: what an open class shows
//!   and the read-only view features get; `view`: results placed on the current text;
//! - features, pure functions of a `FileView`: `diagnostics` (with `nondeterminism` and
//!   `regression`, the guard's), `hover`, `lens`, `actions` (with `test_file`), `coverage`;
//!   `integration`: the couplings with other classes, their hover and code action, and
//!   what this session's integration runs covered;
//!   `status` reports the server's state;
//!   `requests` answers the read-only requests with them;
//! - `protocol`: the extension messages, commands, diagnostic codes and settings, typed;
//!   `capabilities`: what we announce; `from_proto` / `to_proto`: conversions at the edge;
//!   `workspace`: projects and the class of a file.
//!
//! Architecture invariant: no import circle among these modules (features never import the
//! owner or the scheduler; the runner reports through a function, not the owner's events).

pub mod actions;
pub mod capabilities;
pub mod coverage;
pub mod diagnostics;
pub mod event;
pub mod file_view;
pub mod from_proto;
pub mod guard;
pub mod hover;
pub mod integration;
pub mod lens;
pub mod nondeterminism;
pub mod owner;
pub mod progress;
pub mod protocol;
pub mod regression;
pub mod requests;
pub mod results;
pub mod runner;
pub mod scheduler;
pub mod server;
pub mod status;
pub mod test_file;
pub mod to_proto;
pub mod view;
pub mod workspace;

use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncWrite};
use tokio::sync::mpsc;
use tower_lsp_server::{LspService, Server};

use crate::logging::LogLevelControl;
use owner::Owner;
use server::Backend;

/// The text of a caught panic.
pub(crate) fn panic_message(panic: &(dyn std::any::Any + Send)) -> String {
    panic
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_else(|| "unknown panic".into())
}

/// How long the owner task may take to drain its queue after the connection ended.
const OWNER_DRAIN_TIMEOUT: Duration = Duration::from_secs(5);

/// Serves one client until `exit` or the end of `input`. Returns the exit code the LSP
/// specification asks for: success if `shutdown` came before, 1 otherwise.
pub async fn serve<I, O>(input: I, output: O, log_level: LogLevelControl) -> ExitCode
where
    I: AsyncRead + Unpin,
    O: AsyncWrite,
{
    let (events, receiver) = mpsc::unbounded_channel();
    let shutdown_requested = Arc::new(AtomicBool::new(false));
    let mut owner = None;
    let owner_events = event::WeakEventSender::new(&events);
    let (service, socket) = LspService::build(|client| {
        owner = Some(tokio::spawn(
            Owner::new(client.clone(), log_level, owner_events).run(receiver),
        ));
        Backend::new(client, events, shutdown_requested.clone())
    })
    .custom_method(protocol::DEBUG_DOCUMENT, Backend::debug_document)
    .custom_method(protocol::DEBUG_CONFIG, Backend::debug_config)
    .custom_method(protocol::COVERAGE, Backend::coverage)
    .custom_method(
        "window/workDoneProgress/cancel",
        Backend::work_done_progress_cancel,
    )
    .finish();

    Server::new(input, output, socket).serve(service).await;

    // `serve` dropped the backend, and with it the last long-lived event sender, so the owner
    // ends once it has drained its queue (it already ended if `shutdown` came).
    if let Some(owner) = owner {
        if tokio::time::timeout(OWNER_DRAIN_TIMEOUT, owner)
            .await
            .is_err()
        {
            tracing::warn!("the owner task did not stop in time");
        }
    }
    if shutdown_requested.load(Ordering::SeqCst) {
        ExitCode::SUCCESS
    } else {
        tracing::warn!("exiting without a shutdown request");
        ExitCode::from(1)
    }
}
