//! A cancelled run winds down at once in emission and in verification (issue #17: the
//! regression guard's check waits on the generation thread for the run an edit cancelled) and
//! loses nothing: no test file, no store record, the earlier run's results unchanged. A first run, not cancelled, measures how long each phase takes here; the same
//! run is then cancelled a third of the way into emission and into verification. Gated by
//! `CTGLS_E2E=1` (the real worker, javac and JUnit 5; about 20 s).

mod pipeline_support;
use pipeline_support::{e2e_enabled, supervisor};

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use ctg::job::{GenerationError, GenerationObserver, GenerationRequest, Phase};
use ctg::pipeline::{generate_tests, PipelineError, PipelineOptions, Verification};
use ctg::project::{JUnitVersion, LayoutOverrides, ProjectLayout};
use ctg::store::Store;
use search::CancelToken;

/// Notes when each phase starts; when `cancel_in` is that phase, cancels `delay` later from
/// another thread (as the editor's owner task does) and notes when.
struct Phases {
    started: Vec<(Phase, Instant)>,
    cancel_in: Option<(Phase, Duration, CancelToken)>,
    cancelled_at: Arc<Mutex<Option<Instant>>>,
}

impl Phases {
    fn new(cancel_in: Option<(Phase, Duration, CancelToken)>) -> Phases {
        Phases {
            started: Vec::new(),
            cancel_in,
            cancelled_at: Arc::default(),
        }
    }

    fn start_of(&self, phase: Phase) -> Instant {
        self.started
            .iter()
            .find(|(p, _)| *p == phase)
            .unwrap_or_else(|| panic!("no {phase:?} in {:?}", self.started))
            .1
    }
}

impl GenerationObserver for Phases {
    fn on_phase(&mut self, phase: Phase, _elapsed: Duration) {
        self.started.push((phase, Instant::now()));
        if let Some((_, delay, cancel)) = self.cancel_in.as_ref().filter(|(p, ..)| *p == phase) {
            let (delay, cancel, at) = (*delay, cancel.clone(), self.cancelled_at.clone());
            std::thread::spawn(move || {
                std::thread::sleep(delay);
                *at.lock().unwrap() = Some(Instant::now());
                cancel.cancel();
            });
        }
    }
}

/// Every file beneath `dir` with its bytes.
fn files(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut found = BTreeMap::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(dir) = pending.pop() {
        for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() {
                pending.push(path);
            } else {
                found.insert(path.clone(), std::fs::read(&path).unwrap());
            }
        }
    }
    found
}

#[test]
fn a_run_cancelled_in_emission_or_verification_stops_at_once_and_writes_nothing() {
    if !e2e_enabled() {
        eprintln!("skipped: the pipeline cancellation test runs with CTGLS_E2E=1");
        return;
    }
    let scratch =
        std::env::temp_dir().join(format!("ctgls-pipeline-cancel-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&scratch);
    std::fs::create_dir_all(&scratch).unwrap();
    let project = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/job/general");
    let layout = ProjectLayout::discover(
        &project,
        &LayoutOverrides {
            test_root: Some(scratch.join("tests")),
            ..LayoutOverrides::default()
        },
    );
    let request = || {
        let mut request = GenerationRequest::new(layout.clone(), "job.Ratio");
        request.budget = Duration::from_secs(10);
        request.max_executions = Some(300);
        request.seed = 1;
        request
    };
    let options = PipelineOptions {
        junit: Some(JUnitVersion::Five),
        store: Some(Store::open(&scratch)),
        write: true,
        abandon_when_cancelled: true,
        ..PipelineOptions::default()
    };
    let mut supervisor = supervisor();

    // Uncancelled: how long emission and verification take on this machine now.
    let mut phases = Phases::new(None);
    let outcome = generate_tests(&request(), &options, &mut supervisor, &mut phases)
        .expect("the uncancelled run");
    let ended = Instant::now();
    assert_eq!(outcome.emission.verification, Verification::JUnit);
    assert!(outcome.emission.written.is_some());
    let emitting = phases.start_of(Phase::Emitting);
    let verifying = phases.start_of(Phase::Verifying);
    let took = |phase: Phase| match phase {
        Phase::Emitting => verifying - emitting,
        _ => ended - verifying,
    };
    let written = files(&scratch);
    assert!(
        written
            .keys()
            .any(|p| p.ends_with("RatioGeneratedTest.java"))
            && written
                .keys()
                .any(|p| p.starts_with(scratch.join(".ctgls"))),
        "the first run writes its tests and its record: {:?}",
        written.keys()
    );

    for phase in [Phase::Verifying, Phase::Emitting] {
        let delay = took(phase) / 3;
        // What the run would still have done had it not been cancelled.
        let remaining = ended - phases.start_of(phase) - delay;
        let cancel = CancelToken::new();
        let mut request = request();
        request.cancel = cancel.clone();
        let mut cancelling = Phases::new(Some((phase, delay, cancel)));
        let result = generate_tests(&request, &options, &mut supervisor, &mut cancelling);
        let returned = Instant::now();
        let cancelled_at = cancelling.cancelled_at.lock().unwrap().expect("cancelled");
        let wind_down = returned.saturating_duration_since(cancelled_at);
        eprintln!(
            "cancelled {delay:?} into {phase:?} (uncancelled: {:?}, {remaining:?} left): \
             returned {wind_down:?} after the cancel",
            took(phase)
        );
        assert!(
            matches!(
                result,
                Err(PipelineError::Generation(GenerationError::Cancelled { .. }))
            ),
            "{phase:?}: {result:?}"
        );
        assert!(
            wind_down * 2 < remaining,
            "{phase:?}: {wind_down:?} after the cancel, with {remaining:?} left uncancelled"
        );
        assert!(
            files(&scratch) == written,
            "{phase:?}: a cancelled run changed the test file or the store"
        );
    }
    supervisor.shutdown();
    let _ = std::fs::remove_dir_all(&scratch);
}
