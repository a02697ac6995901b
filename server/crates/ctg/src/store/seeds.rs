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

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fmt;
use std::sync::Arc;

use testcase::{
    check_well_typed, Callable, CallableKind, Cluster, SeededObject, Statement, TestCase, VarRef,
};

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

/// Campos et al., "Continuous Test Generation", section 3.2: the objects of `class` that the
/// stored tests of `class` built, for the seeded pool of another class's search. For each
/// statement that creates a `class` object: it, the later calls on that object (the state the
/// test brought it into), and the statements those need. Statements whose callables the
/// other class's `cluster` does not know are left out with everything that needs them; an
/// object whose creation is left out is not offered. Duplicates are offered once.
pub fn object_seeds(stored: &[StoredTest], class: &str, cluster: &Cluster) -> Vec<SeededObject> {
    let mut resolver = Resolver::new(cluster);
    let mut out: Vec<SeededObject> = Vec::new();
    for s in stored {
        let statements = s.test.statements();
        for (i, statement) in statements.iter().enumerate() {
            let creates = matches!(
                statement,
                Statement::Constructor { .. } | Statement::Method { .. }
            ) && statement
                .value_type()
                .is_some_and(|t| t.class_name() == Some(class));
            if !creates {
                continue;
            }
            // The creation and the later calls on the object, then what they need.
            let mut keep: BTreeSet<usize> = [i].into();
            for (j, later) in statements.iter().enumerate().skip(i + 1) {
                if let Statement::Method {
                    receiver: Some(r), ..
                } = later
                {
                    if r.0 == i {
                        keep.insert(j);
                    }
                }
            }
            let mut stack: Vec<usize> = keep.iter().copied().collect();
            while let Some(j) = stack.pop() {
                for (_, r) in statements[j].refs() {
                    if keep.insert(r.0) {
                        stack.push(r.0);
                    }
                }
            }
            if let Some(seeded) = slice(statements, &keep, i, &mut resolver) {
                if check_well_typed(&seeded.statements, cluster).is_ok() && !out.contains(&seeded) {
                    out.push(seeded);
                }
            }
        }
    }
    out
}

/// The statements `keep` of a test, renumbered, with callables resolved against the cluster;
/// a statement that does not resolve is dropped with those that refer to it. `None` when the
/// object's creation `object` is dropped.
fn slice(
    statements: &[Statement],
    keep: &BTreeSet<usize>,
    object: usize,
    resolver: &mut Resolver<'_>,
) -> Option<SeededObject> {
    let mut new_index: BTreeMap<usize, usize> = BTreeMap::new();
    let mut out = Vec::new();
    for &j in keep {
        let mut s = statements[j].clone();
        if let Some(callable) = callable_mut(&mut s) {
            match resolver.resolve(callable) {
                Some(resolved) => *callable = resolved,
                None => continue,
            }
        }
        let mut complete = true;
        s.for_each_ref_mut(|_, r| match new_index.get(&r.0) {
            Some(&n) => r.0 = n,
            None => complete = false,
        });
        if complete {
            new_index.insert(j, out.len());
            out.push(s);
        }
    }
    Some(SeededObject {
        object: VarRef(*new_index.get(&object)?),
        statements: TestCase::from_statements(out),
    })
}

fn callable_mut(s: &mut Statement) -> Option<&mut Arc<Callable>> {
    match s {
        Statement::Constructor { callable, .. }
        | Statement::Method { callable, .. }
        | Statement::FieldRead { callable, .. }
        | Statement::FieldWrite { callable, .. } => Some(callable),
        _ => None,
    }
}
