//! What a generation job is asked to do: the class (and any other classes to instrument with
//! it), the budget the user waits for, the search settings and the earlier tests to start from.

use std::sync::Arc;
use std::time::Duration;

use search::{Algorithm, CancelToken, Criteria, SearchConfig};
use testcase::{Cluster, SeededObject, TestCase};

use crate::budget::{EmissionCosts, EmissionReserve};
use crate::project::{ProjectLayout, SourceOverlays};

/// One generation job for one class. `GenerationRequest::new` gives the defaults; the fields
/// are public so callers set what they need.
#[derive(Debug, Clone)]
pub struct GenerationRequest {
    pub layout: ProjectLayout,
    /// Texts that replace source files on disk (an editor's unsaved buffers).
    pub overlays: SourceOverlays,
    /// Binary name of the class under test, e.g. `com.example.bank.Account` (`Outer$Inner` for
    /// a member class).
    pub class: String,
    /// Binary names of more classes to instrument with the class under test, so that the
    /// result reports what the job's tests cover of them (`GenerationResult::also_instrumented`).
    /// Their probes never steer the search: its goals are the class under test's alone. A class
    /// in another file adds that file to the compile's roots; one the sources do not declare
    /// fails the job like a missing class under test. The class under test itself and repeats
    /// are ignored.
    pub also_instrument: Vec<String>,
    /// Class-integration tests: the callee class (binary name) whose coupled branches with
    /// `class` are the search's goals (`job::integration`). It is instrumented like the
    /// classes of `also_instrument`.
    pub callee: Option<String>,
    /// Class-integration tests through a subclass (section 3.2.5 of Derakhshanfar et al.): the
    /// pair's caller when it is not `class` but `class`'s superclass, whose calls of the
    /// methods `class` redefines are the call sites; `callee` is then `class` itself. The job
    /// sets it when asked for a superclass caller (`job::integration::through_subclass`); it is
    /// instrumented like the classes of `also_instrument`.
    pub integration_caller: Option<String>,
    /// Everything the user waits for: worker start, compile, describe, search, minimisation,
    /// the final run, and the caller's emission and verification (see `emission_reserve`).
    pub budget: Duration,
    /// What the job leaves of `budget` to the caller for emitting and verifying the tests: the
    /// search stops when the time left reaches the estimate for the tests it has archived
    /// (`crate::budget`). `ctg::pipeline` replaces the default costs with those its
    /// `CostLedger` measured.
    pub emission_reserve: EmissionReserve,
    /// Share of the time left after set-up that goes to minimisation and the final run rather
    /// than the search; in `[0, 0.9]`.
    pub minimisation_share: f64,
    /// Stops the search after this many executions (deterministic budgets for tests and
    /// benchmarks); the time budget still applies.
    pub max_executions: Option<u64>,
    /// Seed of the search's random number generator.
    pub seed: u64,
    pub algorithm: Algorithm,
    pub criteria: Criteria,
    /// Population sizes and probabilities; its `algorithm` is replaced by `algorithm`.
    pub search: SearchConfig,
    /// Test-case operators' settings.
    pub variation: testcase::Config,
    pub cancel: CancelToken,
    /// A cancelled job returns [`crate::job::GenerationError::Cancelled`] as soon as its search
    /// or minimisation stops, without the final run of its tests (the editor does not want the
    /// results of a text it no longer holds); otherwise it returns what it found.
    pub abandon_when_cancelled: bool,
    /// Tests of an earlier run (Campos et al., "Continuous Test Generation" section 4.2); those that no longer type-check against
    /// the class as it is now are dropped.
    pub warm_start: Vec<TestCase>,
    /// More warm-start tests, read once the job has built the cluster (the `.ctgls/` store
    /// resolves its stored tests against it). Filtered like `warm_start`.
    pub warm_start_from: Option<WarmStartSource>,
    /// Objects other classes' tests built, for the seeded pool (Campos et al., "Continuous
    /// Test Generation", section 3.2), read once the job has built the cluster.
    pub seeded_objects_from: Option<ObjectSeedSource>,
    /// Deadline of one test in the worker.
    pub test_timeout: Duration,
    /// Extra javac options, e.g. `--release 17`.
    pub javac_options: Vec<String>,
    /// The Java release the tests will be compiled at: the cluster offers, and the worker
    /// observes, only the JDK API that release has (`List.of` is Java 9). `None`: the
    /// worker's own JDK's.
    pub test_release: Option<u32>,
    /// Stop the search once every static goal is covered. Ignored with the exception
    /// criterion on: there is no knowing when every undeclared exception has been found.
    pub stop_when_covered: bool,
    /// Minimise the archived tests (Fraser and Arcuri, "Whole Test Suites" IV-A).
    pub minimise: bool,
}

impl GenerationRequest {
    pub fn new(layout: ProjectLayout, class: impl Into<String>) -> GenerationRequest {
        GenerationRequest {
            layout,
            overlays: SourceOverlays::default(),
            class: class.into(),
            also_instrument: Vec::new(),
            callee: None,
            integration_caller: None,
            budget: Duration::from_secs(10),
            emission_reserve: EmissionReserve::Estimated(EmissionCosts::default()),
            minimisation_share: 0.15,
            max_executions: None,
            seed: 0,
            algorithm: Algorithm::DynaMosa,
            criteria: Criteria::default(),
            search: SearchConfig::default(),
            variation: testcase::Config::default(),
            cancel: CancelToken::new(),
            abandon_when_cancelled: false,
            warm_start: Vec::new(),
            warm_start_from: None,
            seeded_objects_from: None,
            test_timeout: Duration::from_secs(1),
            javac_options: Vec::new(),
            test_release: None,
            stop_when_covered: true,
            minimise: true,
        }
    }
}

/// Something read once the job has built the class's cluster, against it: warm-start tests
/// ([`WarmStartSource`]) or seeded objects ([`ObjectSeedSource`]).
pub struct ClusterSource<T>(Arc<ClusterFn<T>>);

type ClusterFn<T> = dyn Fn(&Cluster) -> Vec<T> + Send + Sync;

/// Earlier tests of the class (the `.ctgls/` store resolves them against the cluster).
pub type WarmStartSource = ClusterSource<TestCase>;

/// Objects built by other classes' tests (Campos et al., "Continuous Test Generation",
/// section 3.2).
pub type ObjectSeedSource = ClusterSource<SeededObject>;

impl<T> ClusterSource<T> {
    pub fn new(source: impl Fn(&Cluster) -> Vec<T> + Send + Sync + 'static) -> Self {
        ClusterSource(Arc::new(source))
    }

    pub fn read(&self, cluster: &Cluster) -> Vec<T> {
        (self.0)(cluster)
    }
}

impl<T> Clone for ClusterSource<T> {
    fn clone(&self) -> Self {
        ClusterSource(self.0.clone())
    }
}

impl<T> std::fmt::Debug for ClusterSource<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ClusterSource(..)")
    }
}

/// A share from a setting: NaN counts as 0, the rest is clamped so something is always left.
pub(crate) fn share(value: f64) -> f64 {
    if value.is_nan() {
        0.0
    } else {
        value.clamp(0.0, 0.9)
    }
}
