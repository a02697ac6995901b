//! Progress of a generation job for whoever shows it (the CLI's progress bar, the editor's
//! `$/progress`): the phase it is in, and the search's coverage over time.

use std::time::Duration;

use search::{GoalId, Progress, SearchObserver};

/// The phases of a job, in order. Cancellation may skip the later ones.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Phase {
    /// Asking Maven for the project's classpath (before the job; callers report it).
    ResolvingMaven,
    /// Asking Gradle for the project's classpath.
    ResolvingGradle,
    /// Reading and parsing the project's sources.
    Reading,
    /// Starting the JVM worker (when it was not running).
    Starting,
    /// Instrumenting and compiling.
    Compiling,
    /// Reflection on the class and building the test cluster.
    Describing,
    Searching,
    Minimising,
    /// Running the final tests with getter observation.
    Observing,
    /// After the job (`ctg::pipeline`): compiling the classes again uninstrumented and
    /// running the tests in the worker to turn what they observe into assertions.
    Emitting,
    /// After the job (`ctg::pipeline`): compiling the test class with javac and running it
    /// with JUnit in fresh JVMs.
    Verifying,
}

impl Phase {
    pub fn as_str(self) -> &'static str {
        match self {
            Phase::ResolvingMaven => "resolving the Maven classpath",
            Phase::ResolvingGradle => "resolving the Gradle classpath",
            Phase::Reading => "reading sources",
            Phase::Starting => "starting the JVM",
            Phase::Compiling => "compiling",
            Phase::Describing => "building the test cluster",
            Phase::Searching => "searching",
            Phase::Minimising => "minimising",
            Phase::Observing => "observing results",
            Phase::Emitting => "printing the tests",
            Phase::Verifying => "verifying the tests with JUnit",
        }
    }
}

/// Watches a job. Every method defaults to doing nothing.
pub trait GenerationObserver {
    /// A phase starts; `elapsed` is the job's time so far.
    fn on_phase(&mut self, _phase: Phase, _elapsed: Duration) {}

    /// After the initial population and after every generation of the search.
    fn on_progress(&mut self, _progress: &Progress) {}

    /// A goal was covered for the first time during the search.
    fn on_goal_covered(&mut self, _description: &str) {}
}

/// Observes nothing.
impl GenerationObserver for () {}

/// Forwards the search's events to a job observer.
pub(crate) struct SearchBridge<'o> {
    pub observer: &'o mut dyn GenerationObserver,
    /// Samples forwarded so far.
    pub forwarded: usize,
}

impl SearchObserver for SearchBridge<'_> {
    fn on_progress(&mut self, progress: &Progress) {
        self.forwarded += 1;
        self.observer.on_progress(progress);
    }

    fn on_goal_covered(&mut self, _goal: GoalId, description: &str) {
        self.observer.on_goal_covered(description);
    }
}
