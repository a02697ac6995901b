//! Describing the class under test for its test cluster, and widening the compiled unit with
//! the project's subtypes the cluster would otherwise miss.
//!
//! Why: the job compiles only the file of the class under test and what it reaches (so a large
//! project costs the closure, not every file), but the cluster builds values of abstract types
//! and interfaces from their project implementations, which the worker finds by reflection among
//! the unit's classes: an implementation the class never mentions (a `Transformer` the caller
//! is meant to pass) would vanish. So after describing, the sources are searched *syntactically*
//! (`crate::subtypes`; every source is in memory already) for files declaring public subtypes
//! of the class under test (an abstract class's only instances) and of the types the cluster
//! needs values of: parameter types of the described project classes
//! that are project types (a `Discount` parameter) or JDK interfaces and abstract classes that
//! no class of the unit implements and the cluster's built-in containers do not cover (an
//! `IntUnaryOperator` parameter, not a `List`), and the types the cluster reports it cannot
//! build. Those files become roots of an incremental compile (cached classes
//! are reused), which is described again.
//!
//! Chosen over the alternatives: compiling every file again gives the old cluster exactly but
//! the old cost; asking the worker for subtypes would need a Java parser there. Before, every
//! described type got its project subtypes, whether the cluster needed values of it or not:
//! commons-collections' `LRUMap` described 182 of them, nearly the whole project, as more
//! `Map`s, `Iterator`s and `Object`s (its methods return project interfaces such as
//! `OrderedMapIterator`, which most of the project implements). Now types that are only returned,
//! JDK types the closure or the built-in containers already implement (`Map` for a map class,
//! `List`) and the general types the cluster fills with literals (`Object`, `Serializable`, ...)
//! are not searched: widening by every described project type compiled 152 more files for
//! `LRUMap`, and by `List` 100 for `FixedOrderComparator` (its `List` parameter brought the
//! project's lists, whose `Transformer` and `Factory` parameters brought the functors), as long
//! as the closure compile saved.

use std::collections::{BTreeSet, HashMap};
use std::time::{Duration, Instant};

use jvm::{
    ClassInfo, CompileRequest, DescribeResult, DiagnosticKind, SourceFile, Supervisor, UnitId,
};
use testcase::{Cluster, ClusterError, ConstantPool, TOO_GENERAL};

use crate::cluster::{build_cluster, describe_for_cluster, DEFAULT_DESCRIBE_DEPTH};
use crate::compile::CompiledUnit;
use crate::job::request::GenerationRequest;
use crate::job::result::GenerationError;
use crate::job::setup::ProjectSource;
use crate::subtypes::SubtypeIndex;

/// Compiles with more roots at most this often: the syntactic search is transitive already,
/// so a later round only follows types that the new subtypes' members mention.
const WIDENING_ROUNDS: usize = 2;

/// The cluster of the unit the search runs on, after widening.
pub(super) struct ClusterUnit {
    pub cluster: Cluster,
    /// The files added as roots to the job's first compile.
    pub added_roots: Vec<String>,
    /// Time spent compiling (the rest was describing).
    pub compile_time: Duration,
}

/// Describes `class` in `*unit` (compiled from `compiled`) and builds its cluster, widening the
/// unit with the files of project subtypes first (see the module doc). `*unit` is updated to
/// the unit the cluster was built from, also on error; units replaced are released.
pub(super) fn describe_widening(
    supervisor: &mut Supervisor,
    request: &GenerationRequest,
    sources: &[ProjectSource],
    compiled: &CompiledUnit,
    unit: &mut UnitId,
    constants: &ConstantPool,
    warnings: &mut Vec<String>,
) -> Result<ClusterUnit, GenerationError> {
    let class = request.class.as_str();
    let originals: Vec<SourceFile> = sources.iter().map(|s| s.file.clone()).collect();
    let compiled_texts = compiled.compiled_sources(&originals);
    let mut index = SubtypeIndex::new(&originals);
    let mut in_unit: BTreeSet<String> = compiled.closure.iter().cloned().collect();
    let mut left_out: BTreeSet<String> = BTreeSet::new();
    let mut roots = compiled.roots.clone();
    let mut compile_time = Duration::ZERO;
    let mut round = 0;
    loop {
        let described = describe_for_cluster(
            supervisor,
            *unit,
            class,
            DEFAULT_DESCRIBE_DEPTH,
            request.test_release,
        )?;
        // An abstract class under test whose only subclasses are outside its closure has no
        // cluster yet: widening by its own subtypes may give it one.
        let cluster = build_cluster(&described, class, constants.clone(), request.test_release)
            .map_err(|e| match e {
                ClusterError::NothingInstantiable { class, reason } => {
                    GenerationError::NothingInstantiable { class, reason }
                }
                ClusterError::NotDescribed { class, reason } => {
                    GenerationError::NotLoadable { class, reason }
                }
            });
        let mut targets = subtype_targets(&described, cluster.as_ref().ok());
        targets.insert(class);
        let new: Vec<String> = if round == WIDENING_ROUNDS {
            Vec::new()
        } else {
            index
                .files_with_subtypes_of(targets, testcase::package_of(class))
                .into_iter()
                .map(|i| originals[i].path.clone())
                .filter(|p| !in_unit.contains(p) && !left_out.contains(p))
                .collect()
        };
        if new.is_empty() {
            return Ok(ClusterUnit {
                cluster: cluster?,
                added_roots: roots.split_off(compiled.roots.len()),
                compile_time,
            });
        }
        tracing::debug!(
            files = new.len(),
            "{class}: compiling project subtypes for the cluster"
        );
        let started = Instant::now();
        let widened = compile_with(
            supervisor,
            request,
            &compiled_texts,
            &roots,
            new,
            &mut left_out,
            warnings,
        )?;
        compile_time += started.elapsed();
        let Some(widened) = widened else {
            return Ok(ClusterUnit {
                cluster: cluster?,
                added_roots: roots.split_off(compiled.roots.len()),
                compile_time,
            });
        };
        supervisor.release(*unit);
        *unit = widened.unit;
        roots.extend(widened.added);
        in_unit = widened.closure.into_iter().collect();
        round += 1;
    }
}

/// The types whose project subtypes the cluster could use: the parameter types of the
/// described project classes' public constructors and methods (the class under test's among
/// them) that are project types, or JDK interfaces and abstract classes that neither a class of
/// the unit nor a built-in container implements; and the types the cluster says it cannot
/// build. Types that are only returned need no values, and the general types get literals.
/// Without a cluster (none could be built), the project types only.
fn subtype_targets<'d>(
    described: &'d DescribeResult,
    cluster: Option<&'d Cluster>,
) -> BTreeSet<&'d str> {
    let info: HashMap<&str, &ClassInfo> = described
        .classes
        .iter()
        .map(|c| (c.name.as_str(), c))
        .collect();
    described
        .classes
        .iter()
        .filter(|c| c.project)
        .flat_map(|c| {
            let constructors = c.constructors.iter().flat_map(|k| &k.params);
            constructors.chain(c.methods.iter().flat_map(|m| &m.params))
        })
        .filter_map(|p| info.get(p.type_name.trim_end_matches("[]")))
        .filter(|c| {
            c.project
                || cluster.is_some_and(|cluster| {
                    c.is_abstract && c.subclasses.is_empty() && !cluster.has_builtin_values(&c.name)
                })
        })
        .map(|c| c.name.as_str())
        .chain(
            cluster
                .iter()
                .flat_map(|c| c.unreachable())
                .map(|u| u.type_name.as_str()),
        )
        .filter(|name| !TOO_GENERAL.contains(name))
        .collect()
}

/// A compile with more roots.
struct Widened {
    unit: UnitId,
    /// [`jvm::CompileResult::files`].
    closure: Vec<String>,
    /// The roots added.
    added: Vec<String>,
}

/// Compiles with `candidates` as more roots. A candidate whose own file has errors is left out
/// (with a warning) and the others are tried once more; when the errors are elsewhere (in a
/// file a candidate reached) all of them are left out. `None` when nothing compiled.
fn compile_with(
    supervisor: &mut Supervisor,
    request: &GenerationRequest,
    sources: &[SourceFile],
    roots: &[String],
    mut candidates: Vec<String>,
    left_out: &mut BTreeSet<String>,
    warnings: &mut Vec<String>,
) -> Result<Option<Widened>, GenerationError> {
    for _ in 0..2 {
        let compile = CompileRequest {
            sources: sources.to_vec(),
            classpath: request.layout.classpath.clone(),
            options: request.javac_options.clone(),
            roots: Some(roots.iter().chain(&candidates).cloned().collect()),
        };
        let result = supervisor.compile(&compile)?;
        if let Some(unit) = result.unit {
            return Ok(Some(Widened {
                unit,
                closure: result.files,
                added: candidates,
            }));
        }
        let errors: Vec<_> = result
            .diagnostics
            .iter()
            .filter(|d| d.kind == DiagnosticKind::Error)
            .collect();
        let broken: Vec<String> = candidates
            .iter()
            .filter(|c| errors.iter().any(|e| e.file.as_deref() == Some(c.as_str())))
            .cloned()
            .collect();
        let first = errors.first().map_or_else(String::new, |e| {
            format!(
                ": {}:{}: {}",
                e.file.as_deref().unwrap_or("?"),
                e.line.unwrap_or(0),
                e.message.lines().next().unwrap_or("")
            )
        });
        let dropped = if broken.is_empty() {
            std::mem::take(&mut candidates)
        } else {
            candidates.retain(|c| !broken.contains(c));
            broken
        };
        warnings.push(format!(
            "project types in {} are not used to build test values: they do not compile{first}",
            dropped.join(", ")
        ));
        left_out.extend(dropped);
        if candidates.is_empty() {
            return Ok(None);
        }
    }
    left_out.extend(candidates);
    Ok(None)
}
