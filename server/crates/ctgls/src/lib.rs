//! ctgls: a Java language server that generates unit tests while you edit, and the command
//! line around it. `main.rs` only calls `cli::main`; tests and benchmarks use the modules.

pub mod cli;
pub mod logging;
pub mod lsp;
pub mod open_file;
pub mod printed_tests;
pub mod report;
