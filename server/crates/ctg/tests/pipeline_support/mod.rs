//! Shared set-up of the end-to-end pipeline tests (`pipeline_*.rs`).

use std::path::{Path, PathBuf};

use ctg::job::GenerationRequest;
use ctg::project::{LayoutOverrides, ProjectLayout};
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

/// A request for `class` of the fixture project `tests/fixtures/job/<fixture>`, with seed 1;
/// its tests, when written, go to a temporary directory of the fixture's name.
#[allow(dead_code)]
pub fn fixture_request(fixture: &str, class: &str) -> GenerationRequest {
    let root = fixture_root(fixture);
    let layout = ProjectLayout::discover(
        &root,
        &LayoutOverrides {
            test_root: Some(std::env::temp_dir().join(format!("ctgls-pipeline-{fixture}-tests"))),
            ..LayoutOverrides::default()
        },
    );
    let mut request = GenerationRequest::new(layout, class);
    request.seed = 1;
    request
}

/// The fixture project `tests/fixtures/job/<fixture>`.
pub fn fixture_root(fixture: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/job")
        .join(fixture)
}
