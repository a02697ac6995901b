//! `ctgls model PATH...`: the Java model of files, or of every `*.java` under directories, as
//! text, for humans debugging the analysis and for the snapshot tests.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use anyhow::Context;
use javamodel::JavaModel;

/// The dumps of every Java file named by `paths`, each headed by its path. Directories are
/// walked recursively in sorted order, so the output is stable.
pub fn run(paths: &[PathBuf]) -> anyhow::Result<String> {
    let mut files = Vec::new();
    for path in paths {
        collect_java_files(path, &mut files)?;
    }
    if files.is_empty() {
        anyhow::bail!("no .java files under {}", display_paths(paths));
    }
    let single = files.len() == 1;
    let mut out = String::new();
    for file in &files {
        let source = std::fs::read_to_string(file)
            .with_context(|| format!("cannot read {}", file.display()))?;
        if !single {
            let _ = writeln!(out, "=== {}", file.display());
        }
        out.push_str(&dump_model(&source));
        if !single {
            out.push('\n');
        }
    }
    Ok(out)
}

/// `ctgls model CALLER.java --callee CALLEE.java`: the coupled branches between the two files'
/// classes (Derakhshanfar et al., "Generating Class-Level Integration Tests Using Call Site
/// Information", section 3.1). `classes` (`CALLER:CALLEE`) picks the classes when a file
/// declares several; by default each file's first top-level class.
pub fn run_coupling(caller: &Path, callee: &Path, classes: Option<&str>) -> anyhow::Result<String> {
    let read = |path: &Path| {
        std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))
    };
    let build = |source: &str| JavaModel::build(source, &syntax::parse_java(source, None));
    let caller_model = build(&read(caller)?);
    let callee_model = build(&read(callee)?);
    let first = |model: &JavaModel, path: &Path| {
        model
            .types
            .first()
            .map(|t| t.binary_name.clone())
            .with_context(|| format!("{} declares no type", path.display()))
    };
    let (caller_class, callee_class) = match classes {
        Some(pair) => {
            let (r, e) = pair
                .split_once(':')
                .context("--classes takes CALLER:CALLEE")?;
            (r.to_string(), e.to_string())
        }
        None => (first(&caller_model, caller)?, first(&callee_model, callee)?),
    };
    let coupling =
        javamodel::coupling::couple(&caller_model, &caller_class, &callee_model, &callee_class)
            .map_err(anyhow::Error::msg)?;
    Ok(javamodel::coupling::dump_coupling(&coupling))
}

/// The model dump of one source text.
pub fn dump_model(source: &str) -> String {
    let tree = syntax::parse_java(source, None);
    javamodel::dump(&JavaModel::build(source, &tree))
}

fn collect_java_files(path: &Path, files: &mut Vec<PathBuf>) -> anyhow::Result<()> {
    let metadata =
        std::fs::metadata(path).with_context(|| format!("cannot read {}", path.display()))?;
    if !metadata.is_dir() {
        files.push(path.to_path_buf());
        return Ok(());
    }
    let mut entries = std::fs::read_dir(path)
        .with_context(|| format!("cannot read directory {}", path.display()))?
        .map(|entry| entry.map(|entry| entry.path()))
        .collect::<Result<Vec<_>, _>>()
        .with_context(|| format!("cannot read directory {}", path.display()))?;
    entries.sort();
    for entry in entries {
        if entry.is_dir() {
            collect_java_files(&entry, files)?;
        } else if entry.extension().is_some_and(|ext| ext == "java") {
            files.push(entry);
        }
    }
    Ok(())
}

fn display_paths(paths: &[PathBuf]) -> String {
    paths
        .iter()
        .map(|path| path.display().to_string())
        .collect::<Vec<_>>()
        .join(", ")
}
