//! Plain JUnit source for executed test cases (DESIGN decision 4): a test case plus what the
//! worker observed when it ran becomes a JUnit 5 (or JUnit 4) test method with regression
//! assertions, and a list of them becomes a whole test class file that depends on nothing but
//! JUnit and the JDK.
//!
//! Pure: no IO. The worker's results reach this module converted to [`Execution`] by
//! `ctg::emit`; verification with javac and a real JUnit launcher lives in `ctg::verify`, which
//! re-prints a class with [`Suppressions`] until every kept assertion is stable.
//!
//! Module map: `observation` (what was observed, and the state probes that observe objects at
//! the end of a test), `facts` (what reflection and the source tell about types: getters,
//! overloads, parameter names), `stability` (values that change between runs), `literal` (exact Java literals), `names` (test and variable
//! names), `imports` (type references and the import list), `environment` (console input,
//! input files and system properties, and putting them back), `plan` (which assertions a test
//! gets), `mutation` (which assertions kill a mutant, and selecting them), `printer` (the source text and its line map), `minimise` (removing statements), `slim`
//! (the statements no kept assertion needs).
//!
//! Conventions of the emitted code are documented in `docs/emission.md`.

mod environment;
mod facts;
mod imports;
mod literal;
mod minimise;
mod mutation;
mod names;
mod observation;
mod plan;
mod printer;
mod slim;
mod stability;

pub use facts::TypeFacts;
pub use literal::{
    char_literal, double_literal, float_literal, int_literal, long_literal, primitive_literal,
    string_literal,
};
pub use minimise::{minimise, remove_statement, Removal};
pub use mutation::{assertion_kills, planned_assertions, select_assertions, MutantId, TestKills};
pub use observation::{
    contains_identity_hash, with_state_probes, Execution, Getter, GetterOutcome, Observed,
    StateProbes, Thrown, Value,
};
pub use printer::{
    header_line, is_generated_by_ctgls, print_class, AssertionId, AssertionKind, PrintedAssertion,
    PrintedClass, PrintedTest, Suppressions, HEADER_PREFIX,
};
pub use slim::{carried_suppressions, carry_instability, slim_candidates, Carried};
pub use stability::{mark_unstable, Divergence, Instability};

use crate::statement::TestCase;

/// The JUnit generation a test class is written for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum JUnit {
    /// `org.junit.Test`, `org.junit.Assert`; test classes and methods are public.
    Four,
    /// `org.junit.jupiter.api.Test`, `Assertions`; package-private classes and methods.
    Five,
}

/// A test case and what the worker observed when it ran it.
#[derive(Debug, Clone, PartialEq)]
pub struct ExecutedTest {
    pub test: TestCase,
    pub execution: Execution,
}

/// Everything a test class file is printed from.
#[derive(Debug, Clone)]
pub struct TestClassSpec {
    /// Binary name of the class under test, e.g. `com.acme.Account`; the test class goes in
    /// its package.
    pub class_under_test: String,
    /// Simple name of the test class, e.g. `AccountGeneratedTest`.
    pub test_class: String,
    pub junit: JUnit,
    pub tests: Vec<ExecutedTest>,
    pub facts: TypeFacts,
    /// Written into the header line.
    pub generator_version: String,
    /// The Java language level the class is written for (the project's test level): below 8
    /// no lambdas (expected exceptions are caught in `try`/`catch`), below 8 no diamond
    /// either (Java 7 infers a diamond from the constructor's arguments only). `None`: the
    /// newest, as javac's default level reads it.
    pub level: Option<u32>,
    /// The class under test reads `System.in`: every test sets it (to no input when it chooses
    /// none, as in the worker), so that no test reads the console of whoever runs it.
    pub reads_console: bool,
}

impl TestClassSpec {
    pub fn new(class_under_test: &str, test_class: &str, junit: JUnit) -> TestClassSpec {
        TestClassSpec {
            class_under_test: class_under_test.to_string(),
            test_class: test_class.to_string(),
            junit,
            tests: Vec::new(),
            facts: TypeFacts::default(),
            generator_version: env!("CARGO_PKG_VERSION").to_string(),
            level: None,
            reads_console: false,
        }
    }

    /// Whether the level has lambdas (Java 8).
    pub fn lambdas(&self) -> bool {
        self.level.is_none_or(|level| level >= 8)
    }

    /// Whether a diamond (`new Box<>(x)`) infers what the printer means wherever it stands:
    /// Java 8's inference. Java 7's diamond infers from the constructor's arguments alone.
    pub fn diamond(&self) -> bool {
        self.lambdas()
    }

    /// The package of the class under test and of the test class; empty for the default
    /// package.
    pub fn package(&self) -> &str {
        self.class_under_test
            .rsplit_once('.')
            .map_or("", |(package, _)| package)
    }

    /// The test class's binary name, e.g. `com.acme.AccountGeneratedTest`.
    pub fn test_class_binary_name(&self) -> String {
        match self.package() {
            "" => self.test_class.clone(),
            package => format!("{package}.{}", self.test_class),
        }
    }
}
