//! Test cases for search-based test generation (Fraser and Arcuri, "Whole Test Suites", sections III-B and III-E): the test
//! cluster of a class under test, test cases as sequences of typed statements, value pools, and
//! the operators a search applies (random sampling, mutation, crossover), all well-typedness
//! preserving.
//!
//! Pure: no IO, no serialisation; randomness only through a caller's seeded `StdRng`.
//! Conversions to and from the worker's types live in `ctg::cluster`.
//!
//! Module map: `types` (Java types, parsing, unification), `description` (reflection input), `access` (what a test in the class's package can reach),
//! `hierarchy` (subtyping, assignability), `jdk` (built-in JDK knowledge), `callable`,
//! `signature` (resolution at a call site), `cluster` (targets, generators, reachability),
//! `value`, `pool` and `source_literals` (constant and observed pools), `environment` (console
//! input, input files and system properties as search input: what a class reads, their
//! operators), `random_value`,
//! `delta` (primitive mutation), `statement` (the representation), `dump` (text form), `describe`
//! (test cases in words, for people), `validate`
//! (well-typedness), `factory` (building statements, insertion), `sampling`, `mutation`,
//! `crossover`, `variation` (the search-facing interface), `config`, `junit` (JUnit source of
//! executed test cases, and minimisation).
//!
//! API boundary: the search uses [`Variation::random_test`], [`Variation::mutate`],
//! [`Variation::crossover`] and [`TestCase::len`]; `ctg` builds the [`Cluster`].

mod access;
mod callable;
mod cluster;
mod config;
mod crossover;
mod delta;
mod describe;
mod description;
mod dump;
mod environment;
mod factory;
mod hierarchy;
mod jdk;
pub mod junit;
mod mutation;
mod pool;
mod random_value;
mod sampling;
mod signature;
mod source_literals;
mod statement;
#[cfg(test)]
mod test_fixtures;
mod types;
mod validate;
mod value;
mod variation;

pub use access::{package_of, visible_from};
pub use callable::{Callable, CallableKind};
pub use cluster::{Cluster, ClusterError, SkippedTarget, Unreachable};
pub use config::Config;
pub use describe::{describe_arguments, describe_calls};
pub use description::{
    Access, ConstructorDescription, FieldDescription, MethodDescription, MissingType,
    ParamDescription, TypeDescription, TypeKind,
};
pub use environment::{
    is_file_name, is_input_text, is_path_type, is_property_key, EnvironmentInputs, PATH_TYPES,
};
pub use hierarchy::TypeInfo;
pub use jdk::TOO_GENERAL;
pub use junit::{minimise, remove_statement, Removal};
pub use pool::{ConstantPool, ValuePools, OBSERVED_POOL_CAPACITY};
pub use signature::{CallContext, Signature};
pub use source_literals::literals_in;
pub use statement::{Nullness, Statement, TestCase, Use, VarRef};
pub use types::{JavaType, PrimitiveKind, TypeParameter, WildcardBound};
pub use validate::{check_well_typed, TypeError};
pub use value::{LiteralKind, PrimitiveValue};
pub use variation::Variation;
