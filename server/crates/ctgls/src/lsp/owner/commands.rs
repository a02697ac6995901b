//! The `workspace/executeCommand` commands (`protocol::command`), applied by the owner: runs
//! asked for or cancelled, the status, explanations, and the regression guard's accepting of a
//! changed behaviour and opening of a test.

use std::sync::Arc;

use ctg::store::Store;
use serde_json::Value;
use tower_lsp_server::ls_types::{MessageType, Position, Range, ShowDocumentParams, Uri};

use super::Owner;
use crate::lsp::guard::Findings;
use crate::lsp::protocol::{
    command, Accepted, Cancelled, ExplainArgument, FileArgument, OpenTestArgument, Opened,
    Scheduled,
};
use crate::lsp::status;

impl Owner {
    pub(super) async fn command(
        &mut self,
        command: &str,
        arguments: &[Value],
    ) -> Result<Value, String> {
        if command == command::OPEN_TEST {
            return self.open_test(arguments);
        }
        if command == command::GENERATE_INTEGRATION {
            return self.generate_integration(arguments);
        }
        let file = match arguments.first() {
            Some(argument) if command != command::EXPLAIN => Some(
                serde_json::from_value::<FileArgument>(argument.clone())
                    .map_err(|e| format!("invalid argument {argument}: {e}"))?
                    .uri,
            ),
            _ => None,
        };
        let uri = file.as_ref();
        let json = |value: Result<Value, serde_json::Error>| value.map_err(|e| e.to_string());
        match command {
            command::GENERATE => {
                if let Some(uri) = uri {
                    if !self.scheduler.is_tracked(uri) {
                        return Err(format!("{} is not an open Java file", uri.as_str()));
                    }
                }
                if !self.config.execution_enabled {
                    return Err(self.unavailable_reason().unwrap_or_default());
                }
                let scheduled = self.scheduler.force(uri);
                if scheduled > 0 {
                    self.global_problem = None;
                }
                self.dispatch();
                self.send_status();
                json(serde_json::to_value(Scheduled { scheduled }))
            }
            command::CANCEL => {
                let cancelled = self.cancel(uri);
                json(serde_json::to_value(Cancelled { cancelled }))
            }
            command::STATUS => json(serde_json::to_value(status::compute(&self.snapshot()))),
            command::EXPLAIN => {
                let argument: ExplainArgument = arguments
                    .first()
                    .and_then(|a| serde_json::from_value(a.clone()).ok())
                    .ok_or("ctgls.explain needs `{ \"message\": string }`")?;
                self.client
                    .show_message(MessageType::INFO, format!("ctgls: {}", argument.message))
                    .await;
                Ok(Value::Null)
            }
            command::ACCEPT_BEHAVIOUR => {
                let uri = uri.ok_or("ctgls.acceptBehaviour needs `{ \"uri\": string }`")?;
                let accepted = self.accept_behaviour(uri).await?;
                json(serde_json::to_value(accepted))
            }
            other => Err(format!("unknown command {other}")),
        }
    }

    /// Accepting the behaviour changes of `uri`'s class: the store's class asserts the new
    /// values, the guard's baseline is that record, and the changes are gone (the test file's
    /// edit came with the code action). The failures of the project's own tests stay.
    async fn accept_behaviour(&mut self, uri: &Uri) -> Result<Accepted, String> {
        let hash = self
            .files
            .get(uri)
            .map(|file| ctg::pipeline::source_hash(file.model().text()));
        let guard = &mut self
            .shown
            .get_mut(uri)
            .ok_or_else(|| format!("{} is not an open Java file", uri.as_str()))?
            .guard;
        let findings = guard
            .findings
            .clone()
            .filter(|f| !f.changes.is_empty())
            .ok_or("no behaviour change to accept")?;
        let baseline = guard.baseline.clone().ok_or("no stored tests")?;
        let suite = baseline.suite.as_ref().ok_or("no stored test class")?;
        let accepted = ctg::regression::accept(suite, &findings.changes, None)
            .map_err(|error| error.to_string())?;
        Store::open(&findings.project_root)
            .replace_suite(&findings.class, accepted.suite.clone())
            .map_err(|e| format!("cannot update the store: {e}"))?;
        let mut record = (*baseline).clone();
        record.suite = Some(accepted.suite);
        // The stored class now describes the text as it is: that text is the baseline's.
        if let (Some(hash), Some(last)) = (hash, record.history.last_mut()) {
            last.run.source_hash = hash;
        }
        guard.baseline = Some(Arc::new(record));
        guard.findings = Some(Findings {
            changes: Vec::new(),
            ..findings
        });
        self.publish_diagnostics(uri).await;
        Ok(Accepted {
            accepted: accepted.accepted,
        })
    }

    /// `window/showDocument` of a test file at a line, sent from a task of its own (the owner
    /// never awaits the client).
    fn open_test(&self, arguments: &[Value]) -> Result<Value, String> {
        let argument: OpenTestArgument = arguments
            .first()
            .and_then(|a| serde_json::from_value(a.clone()).ok())
            .ok_or("ctgls.openTest needs `{ \"test\": uri, \"line\": number }`")?;
        let client = self.client.clone();
        tokio::spawn(async move {
            let at = Position::new(argument.line, 0);
            let params = ShowDocumentParams {
                uri: argument.test,
                external: Some(false),
                take_focus: Some(true),
                selection: Some(Range::new(at, at)),
            };
            if let Err(error) = client.show_document(params).await {
                tracing::debug!("window/showDocument failed: {error}");
            }
        });
        serde_json::to_value(Opened { opened: true }).map_err(|e| e.to_string())
    }
}
