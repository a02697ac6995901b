//! Class-integration runs in the owner: `ctgls.generateIntegration` queues one, `dispatch`
//! starts it before the other runs (the user asked), and its end keeps what it covered in
//! `Integration::records` for the hover (no diagnostics: docs/lsp-extensions.md).

use std::sync::Arc;
use std::time::Duration;

use javamodel::JavaModel;
use serde_json::Value;
use tower_lsp_server::ls_types::MessageType;

use super::Owner;
use crate::lsp::integration::IntegrationRecord;
use crate::lsp::progress::RunProgress;
use crate::lsp::protocol::{IntegrationArgument, Scheduled};
use crate::lsp::results::words::simple_name;
use crate::lsp::runner::{FailureKind, RunFailure};
use crate::lsp::scheduler::{Inputs, IntegrationAsk, RunEnd};
use crate::lsp::workspace::uri_path;

impl Owner {
    /// `ctgls.generateIntegration`: queues the run and starts it when nothing runs.
    pub(super) fn generate_integration(&mut self, arguments: &[Value]) -> Result<Value, String> {
        let argument: IntegrationArgument = arguments
            .first()
            .and_then(|a| serde_json::from_value(a.clone()).ok())
            .ok_or(
                "ctgls.generateIntegration needs `{ \"caller\", \"callee\", \"callerUri\", \
                 \"calleeUri\" }`",
            )?;
        if !self.config.execution_enabled {
            return Err(self.unavailable_reason().unwrap_or_default());
        }
        let callee_text = match self.files.get(&argument.callee_uri) {
            Some(file) => file.model().text().to_string(),
            None => uri_path(&argument.callee_uri)
                .and_then(|path| std::fs::read_to_string(path).ok())
                .ok_or_else(|| format!("cannot read {}", argument.callee_uri.as_str()))?,
        };
        let scheduled = self.scheduler.ask_integration(IntegrationAsk {
            caller_uri: argument.caller_uri,
            caller: argument.caller,
            callee: argument.callee,
            callee_hash: ctg::pipeline::source_hash(&callee_text),
        });
        self.global_problem = None;
        self.dispatch();
        self.send_status();
        serde_json::to_value(Scheduled { scheduled }).map_err(|e| e.to_string())
    }

    /// Starts the integration run asked for first; whether one started.
    pub(super) fn start_integration(&mut self) -> bool {
        let Some(ask) = self.scheduler.next_integration() else {
            return false;
        };
        // The caller's open document, else its file.
        let model = match self.files.get(&ask.caller_uri) {
            Some(file) => Some(file.model().clone()),
            None => uri_path(&ask.caller_uri)
                .and_then(|path| std::fs::read_to_string(path).ok())
                .map(|text| Arc::new(JavaModel::build(&text, &syntax::parse_java(&text, None)))),
        };
        if model.is_none() {
            tracing::warn!(
                "cannot read {}: integration run dropped",
                ask.caller_uri.as_str()
            );
        }
        let inputs = Inputs {
            files: &self.files,
            config: &self.config,
            workspace: &self.workspace,
        };
        let updates = self.update_sink();
        let Some(running) = self.scheduler.start_integration(model, &inputs, updates) else {
            return false;
        };
        let title = format!(
            "ctgls: {} through {}",
            simple_name(&running.class),
            simple_name(running.callee.as_deref().unwrap_or_default())
        );
        self.progress = self
            .client_features
            .work_done_progress
            .then(|| RunProgress::start(&self.client, running.run, title));
        self.send_status();
        true
    }

    /// An integration run ended: its record is kept for the hover, the progress ends with
    /// what it covered and where the tests went.
    pub(super) async fn finish_integration(
        &mut self,
        run: u64,
        outcome: Result<Arc<IntegrationRecord>, RunFailure>,
        wall: Duration,
    ) {
        let end = match &outcome {
            Ok(_) => RunEnd::Results,
            Err(failure) if failure.kind == FailureKind::Cancelled => RunEnd::Cancelled,
            Err(_) => RunEnd::Failed,
        };
        let Some(running) = self.scheduler.finish(run, end) else {
            return;
        };
        let end_message = match &outcome {
            Ok(record) => format!(
                "{}/{} coupled branches{} ({:.1} s)",
                record.covered(),
                record.pairs.len(),
                match &record.written {
                    Some(path) => format!(
                        " · {}",
                        path.file_name().unwrap_or_default().to_string_lossy()
                    ),
                    None => " · no test written".to_string(),
                },
                wall.as_secs_f64()
            ),
            Err(failure) => failure.message.clone(),
        };
        if let Some(progress) = self.progress.take_if(|p| p.run == running.run) {
            progress.end(end_message.clone());
        }
        tracing::info!(
            "run {} ({} through {}): {end_message}",
            running.run,
            running.class,
            running.callee.as_deref().unwrap_or_default()
        );
        match outcome {
            Ok(record) => {
                self.global_problem = None;
                self.integration
                    .records
                    .insert((record.caller.clone(), record.callee.clone()), record);
            }
            Err(failure) if failure.kind == FailureKind::Cancelled => {}
            Err(failure) if failure.kind.is_global() => {
                self.show_once(MessageType::ERROR, &failure.message).await;
                self.global_problem = Some(failure);
            }
            Err(failure) => self.show_once(MessageType::WARNING, &failure.message).await,
        }
        self.send_status();
    }
}
