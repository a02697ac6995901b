//! Generation jobs for one class (project scheduling is `ctgproject`'s): where the pure
//! crates (the Java model, the test cluster, the search) meet the JVM worker. Used by both the
//! language server and the CLI.

pub mod budget;
pub mod buildtool;
pub mod cluster;
pub mod compile;
pub mod emit;
pub mod job;
pub mod levels;
pub mod mutation;
pub mod nondeterminism;
pub mod pipeline;
pub mod project;
pub mod regression;
pub mod slim;
pub mod store;
pub mod subtypes;
pub mod verify;
mod xml;
