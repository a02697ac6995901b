//! Shared set-up of the end-to-end pipeline tests (`pipeline_*.rs`).

use jvm::{Supervisor, WorkerConfig};

/// Whether the end-to-end tests run (`CTGLS_E2E=1`; the real worker, javac and JUnit).
pub fn e2e_enabled() -> bool {
    std::env::var("CTGLS_E2E").is_ok_and(|value| value == "1")
}

/// A worker with the test suites' shared cache of the compiled worker.
pub fn supervisor() -> Supervisor {
    Supervisor::new(WorkerConfig {
        cache_dir: Some(std::env::temp_dir().join("ctgls-jvm-tests-cache")),
        ..WorkerConfig::default()
    })
    .expect("JDK 11+ and a buildable worker")
}
