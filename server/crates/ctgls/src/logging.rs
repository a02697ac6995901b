//! Logging to stderr with `tracing`. Stdout belongs to the protocol, so nothing here may ever
//! write to it. The level comes from the `CTGLS_LOG` environment variable (an `EnvFilter`
//! directive such as `debug` or `ctgls=trace`) or, when that is unset, from the `logLevel`
//! setting, which can change while the server runs.

use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::util::SubscriberInitExt;
use tracing_subscriber::{reload, EnvFilter, Registry};

use crate::lsp::protocol::settings::LogLevel;

pub const LOG_ENV: &str = "CTGLS_LOG";

/// Changes the log level at run time, unless `CTGLS_LOG` fixed it at start.
#[derive(Clone)]
pub struct LogLevelControl {
    handle: Option<reload::Handle<EnvFilter, Registry>>,
}

impl LogLevelControl {
    /// A control that changes nothing, for servers run without `init` (in tests).
    pub fn disabled() -> Self {
        Self { handle: None }
    }

    pub fn set(&self, level: LogLevel) {
        if let Some(handle) = &self.handle {
            if let Err(error) = handle.reload(EnvFilter::new(level.as_str())) {
                tracing::warn!("cannot change the log level: {error}");
            }
        }
    }
}

/// Installs the global subscriber. Call once, before anything logs.
pub fn init() -> LogLevelControl {
    let from_env = std::env::var(LOG_ENV).ok().filter(|v| !v.trim().is_empty());
    let env_filter = from_env.as_deref().map(EnvFilter::try_new);
    let fixed_by_env = matches!(env_filter, Some(Ok(_)));
    let (filter, env_error) = match env_filter {
        Some(Ok(filter)) => (filter, None),
        Some(Err(error)) => (EnvFilter::new(LogLevel::default().as_str()), Some(error)),
        None => (EnvFilter::new(LogLevel::default().as_str()), None),
    };
    let (filter, handle) = reload::Layer::new(filter);
    let installed = tracing_subscriber::registry()
        .with(filter)
        .with(
            tracing_subscriber::fmt::layer()
                .with_writer(std::io::stderr)
                .with_ansi(false),
        )
        .try_init()
        .is_ok();
    if let Some(error) = env_error {
        tracing::warn!("ignoring {LOG_ENV}: {error}");
    }
    LogLevelControl {
        handle: (installed && !fixed_by_env).then_some(handle),
    }
}
