//! Warm start (Campos et al., "Continuous Test Generation" section 4.2): which tests of an earlier run still "compile" against the
//! class as it is now. Each callable of a stored test is resolved against the current cluster,
//! then the test must pass `check_well_typed`. Pure.
//!
//! A test target (constructor, method or field of the class under test) resolves by signature:
//! owner class, kind, name and erased parameter types, so a test survives changes the call
//! site does not see (a new `throws` clause, a method pulled up into a superclass, a changed
//! generic return type that still fits). Any other callable (a dependency's constructor, a
//! JDK built-in) must still be in the cluster exactly as stored: `Cluster` lists only its
//! targets, so those cannot be looked up by signature.

use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::sync::Arc;

use testcase::{check_well_typed, Callable, CallableKind, Cluster, Statement, TestCase};

use super::record::StoredTest;
use super::StoreError;

/// The earlier tests that are still valid, and why the others were dropped.
#[derive(Debug, Default)]
pub struct Seeds {
    /// Still well typed against the current cluster, in archive order, with their callables
    /// replaced by the cluster's.
    pub tests: Vec<TestCase>,
    pub dropped: Vec<DroppedSeed>,
    /// The record could not be read; there are no seeds (generation goes on without them).
    pub problem: Option<StoreError>,
}

impl Seeds {
    /// One line for logs and progress: `kept 3 of 5 earlier tests (2 dropped: ...)`.
    pub fn summary(&self) -> String {
        if let Some(p) = &self.problem {
            return format!("no earlier tests: {p}");
        }
        let total = self.tests.len() + self.dropped.len();
        let mut out = format!("kept {} of {total} earlier tests", self.tests.len());
        if let Some(first) = self.dropped.first() {
            out.push_str(&format!(
                " ({} dropped; first: {first})",
                self.dropped.len()
            ));
        }
        out
    }
}

/// An earlier test that is no longer valid.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DroppedSeed {
    /// Its position in the stored archive.
    pub test: usize,
    pub reason: DropReason,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DropReason {
    /// A callable the test uses is not in the current cluster: removed, its signature
    /// changed, or no longer public. Holds the callable's display form.
    Unresolved(String),
    /// All callables resolve but the test is not well typed any more.
    IllTyped(String),
}

impl fmt::Display for DroppedSeed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.reason {
            DropReason::Unresolved(c) => {
                write!(f, "test {}: {c} is not in the cluster any more", self.test)
            }
            DropReason::IllTyped(e) => write!(f, "test {}: {e}", self.test),
        }
    }
}

/// The tests of `stored` that are valid against `cluster`.
pub fn revalidate(stored: &[StoredTest], cluster: &Cluster) -> Seeds {
    let mut resolver = Resolver::new(cluster);
    let mut seeds = Seeds::default();
    for (i, s) in stored.iter().enumerate() {
        match resolve_test(&s.test, &mut resolver) {
            Err(callable) => seeds.dropped.push(DroppedSeed {
                test: i,
                reason: DropReason::Unresolved(callable),
            }),
            Ok(test) => match check_well_typed(&test, cluster) {
                Ok(()) => seeds.tests.push(test),
                Err(e) => seeds.dropped.push(DroppedSeed {
                    test: i,
                    reason: DropReason::IllTyped(e.to_string()),
                }),
            },
        }
    }
    seeds
}

/// The signature a target is matched by.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct SignatureKey {
    owner: String,
    kind: &'static str,
    name: String,
    erased_params: Vec<String>,
}

impl SignatureKey {
    fn of(c: &Callable) -> SignatureKey {
        let kind = match c.kind {
            CallableKind::Constructor => "constructor",
            CallableKind::Method { .. } => "method",
            CallableKind::FieldRead { .. } => "field read",
            CallableKind::FieldWrite { .. } => "field write",
        };
        SignatureKey {
            owner: c.owner.clone(),
            kind,
            name: c.name().to_string(),
            erased_params: c.erased_params.clone(),
        }
    }
}

struct Resolver<'a> {
    cluster: &'a Cluster,
    targets: HashMap<SignatureKey, Arc<Callable>>,
    resolved: BTreeMap<Callable, Option<Arc<Callable>>>,
}

impl<'a> Resolver<'a> {
    fn new(cluster: &'a Cluster) -> Resolver<'a> {
        let targets = cluster
            .targets()
            .map(|t| (SignatureKey::of(t), t.clone()))
            .collect();
        Resolver {
            cluster,
            targets,
            resolved: BTreeMap::new(),
        }
    }

    fn resolve(&mut self, stored: &Arc<Callable>) -> Option<Arc<Callable>> {
        if let Some(r) = self.resolved.get(&**stored) {
            return r.clone();
        }
        let r = match self.targets.get(&SignatureKey::of(stored)) {
            Some(current) => Some(current.clone()),
            None if self.cluster.knows(stored) => Some(stored.clone()),
            None => None,
        };
        self.resolved.insert((**stored).clone(), r.clone());
        r
    }
}

/// `test` with every callable replaced by the cluster's; the display form of the first one
/// that does not resolve otherwise.
fn resolve_test(test: &TestCase, resolver: &mut Resolver<'_>) -> Result<TestCase, String> {
    let mut out = Vec::with_capacity(test.len());
    for s in test.statements() {
        let mut s = s.clone();
        match &mut s {
            Statement::Constructor { callable, .. }
            | Statement::Method { callable, .. }
            | Statement::FieldRead { callable, .. }
            | Statement::FieldWrite { callable, .. } => {
                *callable = resolver
                    .resolve(callable)
                    .ok_or_else(|| callable.to_string())?;
            }
            Statement::Primitive(_)
            | Statement::Null(_)
            | Statement::EnumConstant { .. }
            | Statement::ArrayNew { .. }
            | Statement::ArrayStore { .. }
            | Statement::ConsoleInput { .. }
            | Statement::SystemProperty { .. }
            | Statement::InputFile { .. } => {}
        }
        out.push(s);
    }
    Ok(TestCase::from_statements(out))
}
