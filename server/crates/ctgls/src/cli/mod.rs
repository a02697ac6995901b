//! The command line: argument parsing and dispatch to the language server or a subcommand.
//! In `lsp` mode stdout carries only the protocol; everything else goes to stderr.

pub mod generate;
pub mod generate_args;
pub mod model;
pub mod report;

use std::ffi::OsString;
use std::path::PathBuf;
use std::process::ExitCode;

const USAGE: &str = "\
ctgls: a Java language server that generates unit tests while you edit

Usage:
  ctgls [lsp] [--stdio]    speak the Language Server Protocol on stdin/stdout (the default)
  ctgls generate --class FQCN [options]
                           generate, verify and write JUnit tests for classes
                           (`ctgls generate --help` lists the options)
  ctgls report --from REPORT.json [--sarif FILE] [--html DIR]
                           SARIF and HTML from JSON reports (`ctgls report --help`)
  ctgls model PATH...      print the Java model of files (directories: every *.java)
  ctgls --version          print the version
  ctgls --help             print this help

Environment:
  CTGLS_LOG                log filter for stderr (error, warn, info, debug, trace or
                           tracing directives such as `ctgls=debug`); overrides the
                           `logLevel` setting";

#[derive(Debug, PartialEq)]
pub enum Command {
    Lsp,
    Model {
        paths: Vec<PathBuf>,
    },
    /// Boxed: the arguments are far larger than the other commands.
    Generate(Box<generate_args::GenerateArgs>),
    GenerateHelp,
    Report(report::ReportArgs),
    ReportHelp,
    Version,
    Help,
}

/// A command line that does not parse: what is wrong, and the usage text to show with it.
#[derive(Debug, PartialEq, Eq)]
pub struct UsageError {
    pub message: String,
    pub usage: &'static str,
}

/// Parses the arguments after the program name.
pub fn parse(args: &[OsString]) -> Result<Command, UsageError> {
    parse_command(args).map_err(|(message, usage)| UsageError { message, usage })
}

fn parse_command(args: &[OsString]) -> Result<Command, (String, &'static str)> {
    let args: Vec<&str> = args
        .iter()
        .map(|arg| {
            arg.to_str()
                .ok_or_else(|| (format!("argument {arg:?} is not valid UTF-8"), USAGE))
        })
        .collect::<Result<_, _>>()?;
    // `--stdio` is what vscode-languageclient appends for the stdio transport.
    match args.as_slice() {
        [] | ["--stdio"] | ["lsp"] | ["lsp", "--stdio"] => Ok(Command::Lsp),
        ["--version" | "-V"] => Ok(Command::Version),
        ["--help" | "-h" | "help"] => Ok(Command::Help),
        ["model", paths @ ..] if !paths.is_empty() && !paths.iter().any(|p| p.starts_with('-')) => {
            Ok(Command::Model {
                paths: paths.iter().map(PathBuf::from).collect(),
            })
        }
        ["model", ..] => Err((
            "`model` takes one or more FILE.java or directories".into(),
            USAGE,
        )),
        ["generate", rest @ ..] if rest.iter().any(|a| *a == "--help" || *a == "-h") => {
            Ok(Command::GenerateHelp)
        }
        ["generate", rest @ ..] => generate_args::parse(rest)
            .map(|args| Command::Generate(Box::new(args)))
            .map_err(|message| (message, generate_args::USAGE)),
        ["report", rest @ ..] if rest.iter().any(|a| *a == "--help" || *a == "-h") => {
            Ok(Command::ReportHelp)
        }
        ["report", rest @ ..] => report::parse(rest)
            .map(Command::Report)
            .map_err(|message| (message, report::USAGE)),
        ["lsp", other, ..] => Err((format!("unexpected argument `{other}` after `lsp`"), USAGE)),
        [first, ..] => Err((format!("unexpected argument `{first}`"), USAGE)),
    }
}

pub fn main() -> ExitCode {
    let args: Vec<OsString> = std::env::args_os().skip(1).collect();
    match parse(&args) {
        Ok(command) => run(command),
        Err(UsageError { message, usage }) => {
            eprintln!("ctgls: {message}\n\n{usage}");
            ExitCode::from(2)
        }
    }
}

fn run(command: Command) -> ExitCode {
    match command {
        Command::Lsp => run_lsp(),
        Command::Model { paths } => match model::run(&paths) {
            Ok(dump) => {
                print!("{dump}");
                ExitCode::SUCCESS
            }
            Err(error) => {
                eprintln!("ctgls: {error:#}");
                ExitCode::FAILURE
            }
        },
        Command::Generate(args) => {
            // Problems reach the user as values (errors, warnings in the summary); logs on
            // stderr only when asked for.
            if std::env::var_os(crate::logging::LOG_ENV).is_some() {
                crate::logging::init();
            }
            generate::run(*args)
        }
        Command::GenerateHelp => {
            println!("{}", generate_args::USAGE);
            ExitCode::SUCCESS
        }
        Command::Report(args) => report::run(args),
        Command::ReportHelp => {
            println!("{}", report::USAGE);
            ExitCode::SUCCESS
        }
        Command::Version => {
            println!("ctgls {}", env!("CARGO_PKG_VERSION"));
            ExitCode::SUCCESS
        }
        Command::Help => {
            println!("{USAGE}");
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

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_strs(args: &[&str]) -> Result<Command, String> {
        let args: Vec<OsString> = args.iter().map(OsString::from).collect();
        parse(&args).map_err(|error| error.message)
    }

    #[test]
    fn commands() {
        assert_eq!(parse_strs(&[]), Ok(Command::Lsp));
        assert_eq!(parse_strs(&["lsp"]), Ok(Command::Lsp));
        assert_eq!(parse_strs(&["--stdio"]), Ok(Command::Lsp));
        assert_eq!(parse_strs(&["lsp", "--stdio"]), Ok(Command::Lsp));
        assert_eq!(parse_strs(&["--version"]), Ok(Command::Version));
        assert_eq!(parse_strs(&["-h"]), Ok(Command::Help));
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
    }

    #[test]
    fn errors() {
        assert_eq!(
            parse_strs(&["model"]),
            Err("`model` takes one or more FILE.java or directories".into())
        );
        assert_eq!(
            parse_strs(&["model", "A.java", "--json"]),
            Err("`model` takes one or more FILE.java or directories".into())
        );
        assert_eq!(
            parse_strs(&["generate"]),
            Err("`generate` needs at least one `--class FQCN`".into())
        );
        let args: Vec<OsString> = ["generate", "--seed", "x"]
            .iter()
            .map(OsString::from)
            .collect();
        assert_eq!(parse(&args).map_err(|e| e.usage), Err(generate_args::USAGE));
        assert_eq!(
            parse_strs(&["generate", "--help"]),
            Ok(Command::GenerateHelp)
        );
        assert_eq!(
            parse_strs(&["lsp", "--tcp"]),
            Err("unexpected argument `--tcp` after `lsp`".into())
        );
    }
}
