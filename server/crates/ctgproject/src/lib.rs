//! Continuous Test Generation for a whole project (Campos, Arcuri, Fraser and Abreu,
//! "Continuous Test Generation: Enhancing Continuous Integration with Automated Test
//! Generation", sections 3 and 4): which classes to generate tests for, with how much of the
//! budget each, in which order, on which CI shard, on how many workers at once. The one-class
//! pipeline it drives lives in `ctg`; this crate never starts a JVM itself (`run` is given a
//! function that does).
//!
//! Module map: `discover` (testable classes, branches, uses), `changed` (git), `allocation`
//! (the paper's budget; pure), `order` (dependency order, cycles; pure), `shard` (CI shards;
//! pure), `run` (the parallel schedule, time handed on), `seeding` (objects of
//! used classes' tests), `jobs` (how many workers fit),
//! `merge` (joining shard stores), `pairs` (the caller/callee pairs of class-integration tests
//! and their budget; pure).

pub mod allocation;
pub mod changed;
pub mod discover;
pub mod jobs;
pub mod merge;
pub mod order;
pub mod pairs;
pub mod run;
pub mod seeding;
pub mod shard;
