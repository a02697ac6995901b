//! Typed errors of the supervisor. Misbehaving user code is not an error: it is an
//! [`ExecutionOutcome`](crate::ExecutionOutcome) value.

use std::path::PathBuf;
use std::time::Duration;

use crate::model::{CrashReason, UnitId};

/// Why no usable JDK was found.
#[derive(Debug, Clone, thiserror::Error)]
pub enum JdkError {
    #[error("no JDK found ({searched}); install a JDK 11 or newer or set JAVA_HOME / the JDK path setting")]
    NotFound { searched: String },
    #[error("{home} has a `java` but no `javac`: ctgls needs a JDK, not a JRE")]
    NoCompiler { home: PathBuf },
    #[error("the JDK at {home} is Java {found}; ctgls needs Java {required} or newer")]
    TooOld {
        found: String,
        required: u32,
        home: PathBuf,
    },
    #[error("could not read the Java version of {path}: {output}")]
    VersionUnreadable { path: PathBuf, output: String },
}

/// Errors of the supervisor API.
#[derive(Debug, Clone, thiserror::Error)]
pub enum JvmError {
    #[error("test execution is disabled by configuration")]
    ExecutionDisabled,
    #[error(transparent)]
    Jdk(#[from] JdkError),
    #[error("could not build the JVM worker: {0}")]
    WorkerBuild(String),
    #[error("could not start the JVM worker: {0}")]
    Spawn(String),
    #[error("a sandbox is required but this system offers only: {0}")]
    SandboxUnavailable(String),
    #[error("the worker speaks protocol version {found}, this ctgls speaks {expected}")]
    ProtocolVersion { found: u64, expected: u64 },
    #[error("worker protocol error: {0}")]
    Protocol(String),
    #[error("unknown compilation unit set {0:?}")]
    UnknownUnit(UnitId),
    #[error("the worker rejected the request ({kind}): {message}")]
    Rejected { kind: String, message: String },
    #[error("the worker did not answer within {0:?} and was killed")]
    Timeout(Duration),
    #[error("the worker died: {0}")]
    Crashed(CrashReason),
    #[error("could not keep the compile cache: {0}")]
    CompileCache(String),
}
