//! The command line: argument parsing and dispatch to the language server or a subcommand.
//! In `lsp` mode stdout carries only the protocol; everything else goes to stderr.

pub mod generate;
pub mod generate_args;
pub mod merge;
pub mod model;
pub mod progress;
pub mod project;
pub mod report;
pub mod report_json;

use std::ffi::OsString;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{CommandFactory, Parser, Subcommand};

const USAGE: &str = "\
ctgls [lsp] [--stdio]
       ctgls generate [--class FQCN]... [OPTIONS]
       ctgls merge --report OUT REPORT...
       ctgls model PATH...
       ctgls completions SHELL";

const AFTER_HELP: &str = "\
Environment:
  CTGLS_LOG  log filter for stderr (error, warn, info, debug, trace or tracing directives
             such as `ctgls=debug`); overrides the `logLevel` setting";

/// ctgls: a Java language server that generates unit tests while you edit
#[derive(Debug, Parser)]
#[command(name = "ctgls", version, override_usage = USAGE, after_help = AFTER_HELP)]
struct Cli {
    #[command(subcommand)]
    command: Option<Sub>,
    /// Speak LSP on stdin/stdout (what editor clients append; the default anyway)
    #[arg(long)]
    stdio: bool,
}

#[derive(Debug, Subcommand)]
enum Sub {
    /// Speak the Language Server Protocol on stdin/stdout (the default)
    Lsp {
        /// The stdio transport (the only one)
        #[arg(long)]
        stdio: bool,
    },
    /// Generate, verify and write JUnit tests for classes, or for a whole project
    Generate(Box<generate_args::GenerateCli>),
    /// Join the JSON reports and `.ctgls/` stores of CI shards into one
    Merge(merge::MergeCli),
    /// SARIF 2.1.0 and a static HTML report from JSON reports (merged shards' too)
    Report(report::ReportCli),
    /// Print the Java model of files (directories: every *.java)
    Model {
        #[arg(required = true, value_name = "PATH")]
        paths: Vec<PathBuf>,
        /// Print the coupled branches between the class of the one PATH (the caller) and the
        /// class of this file (the callee) instead
        #[arg(long, value_name = "FILE")]
        callee: Option<PathBuf>,
        /// With --callee: the caller's and the callee's class when a file declares several
        /// (binary or simple names, `CALLER:CALLEE`)
        #[arg(long, value_name = "CALLER:CALLEE", requires = "callee")]
        classes: Option<String>,
    },
    /// Print a completion script for a shell (bash, zsh, fish, elvish, powershell)
    Completions { shell: clap_complete::Shell },
}

#[derive(Debug, PartialEq)]
pub enum Command {
    Lsp,
    Model {
        paths: Vec<PathBuf>,
    },
    /// `model CALLER.java --callee CALLEE.java`: coupled branches.
    Coupling {
        caller: PathBuf,
        callee: PathBuf,
        classes: Option<String>,
    },
    /// Boxed: the arguments are far larger than the other commands.
    Generate(Box<generate_args::GenerateArgs>),
    Merge(merge::MergeArgs),
    Report(report::ReportArgs),
    Completions(clap_complete::Shell),
}

/// Parses the arguments after the program name; a clap error (help and version included)
/// carries its own text and exit code.
pub fn parse(args: &[OsString]) -> Result<Command, clap::Error> {
    // `-cp` is the JDK tools' spelling of `--classpath`; clap would read it as `-c -p`.
    let args = std::iter::once(OsString::from("ctgls")).chain(args.iter().map(|arg| {
        if arg == "-cp" {
            OsString::from("--classpath")
        } else {
            arg.clone()
        }
    }));
    let args: Vec<OsString> = args.collect();
    let cli = Cli::try_parse_from(&args).map_err(|error| with_usage(error, &args))?;
    Ok(match cli.command {
        None | Some(Sub::Lsp { .. }) => Command::Lsp,
        Some(Sub::Model {
            paths,
            callee: None,
            ..
        }) => Command::Model { paths },
        Some(Sub::Model {
            mut paths,
            callee: Some(callee),
            classes,
        }) => {
            if paths.len() != 1 {
                return Err(usage_error(
                    "model",
                    "--callee takes one caller file as PATH".to_string(),
                ));
            }
            Command::Coupling {
                caller: paths.remove(0),
                callee,
                classes,
            }
        }
        Some(Sub::Generate(generate)) => Command::Generate(Box::new(
            generate
                .check()
                .map_err(|message| usage_error("generate", message))?,
        )),
        Some(Sub::Merge(merge)) => Command::Merge(merge.into()),
        Some(Sub::Report(report)) => Command::Report(
            report
                .check()
                .map_err(|message| usage_error("report", message))?,
        ),
        Some(Sub::Completions { shell }) => Command::Completions(shell),
    })
}

/// Clap shows the usage with some errors only; a bad value should show it too (the user sees
/// what the command takes, as before clap).
fn with_usage(error: clap::Error, args: &[OsString]) -> clap::Error {
    use clap::error::ErrorKind;
    if matches!(
        error.kind(),
        ErrorKind::DisplayHelp | ErrorKind::DisplayVersion
    ) {
        return error;
    }
    let text = error.render().to_string();
    if text.contains("Usage:") {
        return error;
    }
    let mut command = Cli::command();
    // Built, a subcommand's usage names the program (`ctgls generate`).
    command.build();
    let sub = args
        .get(1)
        .and_then(|a| a.to_str())
        .and_then(|name| command.find_subcommand_mut(name).map(|c| c.render_usage()));
    let usage = sub.unwrap_or_else(|| Cli::command().render_usage());
    let message = text.trim_end().trim_start_matches("error: ").to_string();
    clap::Error::raw(error.kind(), format!("{message}\n\n{usage}\n"))
}

/// A check across flags that clap cannot express, reported like clap's own errors.
fn usage_error(subcommand: &str, message: String) -> clap::Error {
    let mut command = Cli::command();
    command.build();
    let command = command
        .find_subcommand_mut(subcommand)
        .expect("a known subcommand");
    command.error(clap::error::ErrorKind::ArgumentConflict, message)
}

pub fn main() -> ExitCode {
    let args: Vec<OsString> = std::env::args_os().skip(1).collect();
    match parse(&args) {
        Ok(command) => run(command),
        // Help and version print to stdout and exit 0; usage errors print to stderr and
        // exit 2 (clap's conventions, which `docs` and the tests rely on).
        Err(error) => {
            let _ = error.print();
            ExitCode::from(u8::try_from(error.exit_code()).unwrap_or(2))
        }
    }
}

/// A `model` command's text on stdout, or its error on stderr.
fn print_dump(dump: anyhow::Result<String>) -> ExitCode {
    match dump {
        Ok(dump) => {
            print!("{dump}");
            ExitCode::SUCCESS
        }
        Err(error) => {
            eprintln!("ctgls: {error:#}");
            ExitCode::FAILURE
        }
    }
}

fn run(command: Command) -> ExitCode {
    match command {
        Command::Lsp => run_lsp(),
        Command::Coupling {
            caller,
            callee,
            classes,
        } => print_dump(model::run_coupling(&caller, &callee, classes.as_deref())),
        Command::Model { paths } => print_dump(model::run(&paths)),
        Command::Generate(args) => {
            // Problems reach the user as values (errors, warnings in the summary); logs on
            // stderr only when asked for.
            if args.verbose && std::env::var_os(crate::logging::LOG_ENV).is_none() {
                std::env::set_var(crate::logging::LOG_ENV, "info");
            }
            if std::env::var_os(crate::logging::LOG_ENV).is_some() {
                crate::logging::init();
            }
            generate::run(*args)
        }
        Command::Merge(args) => merge::run(&args),
        Command::Report(args) => report::run(args),
        Command::Completions(shell) => {
            clap_complete::generate(shell, &mut Cli::command(), "ctgls", &mut std::io::stdout());
            ExitCode::SUCCESS
        }
    }
}

fn run_lsp() -> ExitCode {
    let log_level = crate::logging::init();
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("ctgls: cannot start the async runtime: {error}");
            return ExitCode::FAILURE;
        }
    };
    let code = runtime.block_on(crate::lsp::serve(
        tokio::io::stdin(),
        tokio::io::stdout(),
        log_level,
    ));
    // Tokio reads stdin on a blocking thread that cannot be interrupted; waiting for it would
    // hang until the client closes the pipe, which the spec does not require it to do.
    // https://docs.rs/tokio/latest/tokio/io/struct.Stdin.html
    runtime.shutdown_background();
    code
}

/// The test form of [`parse`]: arguments as strings, the error as its rendered text.
#[cfg(test)]
pub(crate) fn parse_strs(args: &[&str]) -> Result<Command, String> {
    let args: Vec<OsString> = args.iter().map(OsString::from).collect();
    parse(&args).map_err(|error| error.render().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands() {
        assert_eq!(parse_strs(&[]), Ok(Command::Lsp));
        assert_eq!(parse_strs(&["lsp"]), Ok(Command::Lsp));
        assert_eq!(parse_strs(&["--stdio"]), Ok(Command::Lsp));
        assert_eq!(parse_strs(&["lsp", "--stdio"]), Ok(Command::Lsp));
        assert_eq!(
            parse_strs(&["model", "A.java"]),
            Ok(Command::Model {
                paths: vec![PathBuf::from("A.java")]
            })
        );
        assert_eq!(
            parse_strs(&["model", "A.java", "src"]),
            Ok(Command::Model {
                paths: vec![PathBuf::from("A.java"), PathBuf::from("src")]
            })
        );
        assert_eq!(
            parse_strs(&["model", "R.java", "--callee", "E.java"]),
            Ok(Command::Coupling {
                caller: PathBuf::from("R.java"),
                callee: PathBuf::from("E.java"),
                classes: None,
            })
        );
        assert!(parse_strs(&["model", "R.java", "S.java", "--callee", "E.java"]).is_err());
        assert_eq!(
            parse_strs(&["completions", "bash"]),
            Ok(Command::Completions(clap_complete::Shell::Bash))
        );
    }

    #[test]
    fn help_version_and_errors() {
        for (args, kind) in [
            (&["--version"][..], clap::error::ErrorKind::DisplayVersion),
            (&["-h"][..], clap::error::ErrorKind::DisplayHelp),
            (
                &["generate", "--help"][..],
                clap::error::ErrorKind::DisplayHelp,
            ),
            (
                &["model"][..],
                clap::error::ErrorKind::MissingRequiredArgument,
            ),
            (
                &["model", "A.java", "--json"][..],
                clap::error::ErrorKind::UnknownArgument,
            ),
            (
                &["lsp", "--tcp"][..],
                clap::error::ErrorKind::UnknownArgument,
            ),
        ] {
            let args: Vec<OsString> = args.iter().map(OsString::from).collect();
            assert_eq!(parse(&args).unwrap_err().kind(), kind, "{args:?}");
        }
        let error = parse_strs(&["generate", "--seed", "x"]).unwrap_err();
        assert!(error.contains("Usage: ctgls generate"), "{error}");
        Cli::command().debug_assert();
    }
}
