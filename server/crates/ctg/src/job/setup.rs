//! The job's set-up before the search: the project's sources as the worker sees them, the file
//! and model of the class under test, and compile errors mapped back to files on disk.

use std::path::{Path, PathBuf};

use javamodel::JavaModel;
use jvm::{CompileRequest, DiagnosticKind, SourceFile, Supervisor};
use syntax::tree_sitter::Tree;

use crate::compile::{compile_instrumented, CompileError, CompiledUnit};
use crate::job::request::GenerationRequest;
use crate::job::result::{GenerationError, SourceDiagnostic};
use crate::project::ProjectLayout;

/// A project source file: where it is on disk and what the worker is sent.
pub struct ProjectSource {
    pub disk: PathBuf,
    pub file: SourceFile,
}

/// Every `.java` file of the layout's source roots, with paths relative to their root.
pub fn read_sources(layout: &ProjectLayout) -> Result<Vec<ProjectSource>, GenerationError> {
    let mut out: Vec<ProjectSource> = Vec::new();
    for disk in layout.source_files() {
        let text = std::fs::read_to_string(&disk).map_err(|error| GenerationError::Io {
            path: disk.clone(),
            error,
        })?;
        let path = relative_path(layout, &disk);
        // The same relative path under two source roots: javac would see one class twice.
        if out.iter().any(|s| s.file.path == path) {
            continue;
        }
        out.push(ProjectSource {
            disk,
            file: SourceFile {
                path,
                text,
                instrumented: None,
            },
        });
    }
    Ok(out)
}

fn relative_path(layout: &ProjectLayout, disk: &Path) -> String {
    let relative = layout
        .source_roots
        .iter()
        .find_map(|root| disk.strip_prefix(root).ok())
        .unwrap_or(disk);
    relative
        .components()
        .map(|c| c.as_os_str().to_string_lossy())
        .collect::<Vec<_>>()
        .join("/")
}

/// The file declaring the class under test, parsed and modelled.
pub struct ClassSource {
    /// Index into the sources.
    pub index: usize,
    pub tree: Tree,
    pub model: JavaModel,
}

/// Finds the file that declares `class`: the package-directory convention first, then any file
/// that mentions the class's simple name.
pub fn locate(
    layout: &ProjectLayout,
    sources: &[ProjectSource],
    class: &str,
) -> Option<ClassSource> {
    let top = class.split('$').next().unwrap_or(class);
    let simple = top.rsplit('.').next().unwrap_or(top);
    let conventional = layout.source_file_of(class);
    let mut order: Vec<usize> = (0..sources.len())
        .filter(|&i| sources[i].file.text.contains(simple))
        .collect();
    order.sort_by_key(|&i| Some(&sources[i].disk) != conventional.as_ref());
    order.into_iter().find_map(|index| {
        let text = &sources[index].file.text;
        let tree = syntax::parse_java(text, None);
        let model = JavaModel::build(text, &tree);
        model
            .type_by_binary_name(class)
            .is_some()
            .then_some(ClassSource { index, tree, model })
    })
}

/// Compiles the project with the class under test instrumented.
pub fn compile(
    supervisor: &mut Supervisor,
    request: &GenerationRequest,
    sources: &[ProjectSource],
) -> Result<CompiledUnit, GenerationError> {
    let compile_request = CompileRequest {
        sources: sources.iter().map(|s| s.file.clone()).collect(),
        classpath: request.layout.classpath.clone(),
        options: request.javac_options.clone(),
    };
    compile_instrumented(
        supervisor,
        &compile_request,
        std::slice::from_ref(&request.class),
    )
    .map_err(|e| match e {
        CompileError::DoesNotCompile { diagnostics } => GenerationError::DoesNotCompile {
            class: request.class.clone(),
            diagnostics: diagnostics
                .into_iter()
                .filter(|d| d.kind == DiagnosticKind::Error)
                .map(|d| SourceDiagnostic {
                    file: d
                        .file
                        .as_deref()
                        .map(|path| {
                            sources
                                .iter()
                                .find(|s| s.file.path == path)
                                .map_or_else(|| PathBuf::from(path), |s| s.disk.clone())
                        })
                        .unwrap_or_default(),
                    line: d.line,
                    column: d.column,
                    message: d.message,
                })
                .collect(),
        },
        CompileError::UnknownClass(_) => GenerationError::ClassNotFound {
            class: request.class.clone(),
            source_roots: request.layout.source_roots.clone(),
        },
        CompileError::Jvm(e) => GenerationError::Jvm(e),
    })
}
