//! The language server: LSP over a byte stream (stdio for editors). This is the only module
//! that speaks LSP or JSON.
//!
//! - `server`: the `LanguageServer` handlers, which only forward to the owner task;
//! - `state`: the owner task, which applies events in order and hands out snapshots;
//! - `config`: typed settings; `capabilities`: what we announce;
//! - `from_proto` / `to_proto`: conversions at the edge; `ext`: debugging extensions.

pub mod actions;
pub mod capabilities;
pub mod config;
pub mod coverage;
pub mod diagnostics;
pub mod engine;
pub mod ext;
pub mod from_proto;
pub mod hover;
pub mod lens;
pub mod machine_inputs;
pub mod regression;
pub mod results;
pub mod runner;
pub mod server;
pub mod state;
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
use server::Backend;
use state::State;

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
    let owner_events = state::WeakEventSender::new(&events);
    let (service, socket) = LspService::build(|client| {
        owner = Some(tokio::spawn(
            State::new(client.clone(), log_level, owner_events).run(receiver),
        ));
        Backend::new(client, events, shutdown_requested.clone())
    })
    .custom_method(ext::DEBUG_DOCUMENT, Backend::debug_document)
    .custom_method(ext::DEBUG_CONFIG, Backend::debug_config)
    .custom_method(coverage::METHOD, Backend::coverage)
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
