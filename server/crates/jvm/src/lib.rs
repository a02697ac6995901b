//! JVM worker supervisor: finds the JDK, builds the embedded worker (`server/java/`), runs it as
//! a sandboxed child process and speaks its wire protocol (docs/protocol.md). The only crate
//! that reads or writes the worker's JSON; everything it returns is a plain Rust value.
//!
//! Other processes that run code under test (the verification's JVMs) start through
//! [`spawn_sandboxed`] / [`ExecutionLimits::spawn`], under the same sandbox policy.
//!
//! API boundary: callers use [`Supervisor`] synchronously. Misbehaving code under test never
//! makes a call fail or panic: it becomes an [`ExecutionOutcome`] or a [`TestStatus`].

mod cds;
mod command;
mod config;
mod environment;
mod error;
mod jdk;
mod model;
mod process;
mod proto;
mod sandbox;
mod scratch;
#[cfg(target_os = "linux")]
mod seccomp;
mod supervisor;
mod training;
mod worker_build;

pub use cds::{SharedArchives, Training};
pub use command::{spawn_sandboxed, ExecutionLimits, SandboxedChild};
pub use config::WorkerConfig;
pub use environment::{check_patterns, pass_warning, Identity, ProcessEnvironment};
pub use error::{JdkError, JvmError};
pub use javatext::JavaText;
pub use jdk::{parse_version, JavaVersion, Jdk, MINIMUM_JAVA};
pub use model::*;
pub use proto::PROTOCOL_VERSION;
pub use sandbox::{
    kernel_landlock_abi, NetworkNamespace, SandboxLevel, SandboxPlatform, SandboxPolicy,
    SandboxReport,
};
pub use scratch::create_private_dir;
pub use supervisor::Supervisor;
pub use worker_build::default_cache_dir;
