//! `$/progress` for a run: the token is created in a task of its own (a request to the client
//! must not hold up the owner), which then forwards the run's messages in order.

use tokio::sync::mpsc;
use tower_lsp_server::ls_types::notification::Progress;
use tower_lsp_server::ls_types::{
    NumberOrString, ProgressParams, ProgressParamsValue, ProgressToken, WorkDoneProgress,
    WorkDoneProgressBegin, WorkDoneProgressEnd, WorkDoneProgressReport,
};
use tower_lsp_server::Client;

enum ProgressMessage {
    Report(String),
    End(String),
}

/// The progress of one run, shown by the client.
pub struct RunProgress {
    pub run: u64,
    pub token: ProgressToken,
    sender: mpsc::UnboundedSender<ProgressMessage>,
}

impl RunProgress {
    /// Starts the progress of run `run`, titled `title` (`ctgls: Account`).
    pub fn start(client: &Client, run: u64, title: String) -> RunProgress {
        let token = NumberOrString::String(format!("ctgls/run/{run}"));
        let (sender, mut receiver) = mpsc::unbounded_channel();
        let client = client.clone();
        let task_token = token.clone();
        tokio::spawn(async move {
            if let Err(error) = client.create_work_done_progress(task_token.clone()).await {
                tracing::debug!("window/workDoneProgress/create failed: {error}");
                return;
            }
            send(
                &client,
                &task_token,
                WorkDoneProgress::Begin(WorkDoneProgressBegin {
                    title,
                    cancellable: Some(true),
                    message: Some("starting".into()),
                    percentage: None,
                }),
            )
            .await;
            while let Some(message) = receiver.recv().await {
                let (value, last) = match message {
                    ProgressMessage::Report(message) => (
                        WorkDoneProgress::Report(WorkDoneProgressReport {
                            cancellable: Some(true),
                            message: Some(message),
                            percentage: None,
                        }),
                        false,
                    ),
                    ProgressMessage::End(message) => (
                        WorkDoneProgress::End(WorkDoneProgressEnd {
                            message: Some(message),
                        }),
                        true,
                    ),
                };
                send(&client, &task_token, value).await;
                if last {
                    return;
                }
            }
        });
        RunProgress { run, token, sender }
    }

    pub fn report(&self, message: String) {
        let _ = self.sender.send(ProgressMessage::Report(message));
    }

    pub fn end(self, message: String) {
        let _ = self.sender.send(ProgressMessage::End(message));
    }
}

async fn send(client: &Client, token: &ProgressToken, value: WorkDoneProgress) {
    client
        .send_notification::<Progress>(ProgressParams {
            token: token.clone(),
            value: ProgressParamsValue::WorkDone(value),
        })
        .await;
}
