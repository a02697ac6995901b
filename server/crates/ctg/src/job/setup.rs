//! The job's set-up before the search: the project's sources as the worker sees them, the files
//! and models of the class under test and of the other classes to instrument, the compile (their
//! files and what they reach) and compile errors mapped back to files on disk.

use std::path::{Path, PathBuf};

use javamodel::JavaModel;
use jvm::{CompileRequest, Diagnostic, DiagnosticKind, SourceFile, Supervisor};
use syntax::tree_sitter::Tree;

use crate::compile::{compile_instrumented_with, CompileError, CompiledUnit};
use crate::job::request::GenerationRequest;
use crate::job::result::{GenerationError, SourceDiagnostic};
use crate::project::{ProjectLayout, SourceOverlays};

/// A project source file: where it is on disk and what the worker is sent.
pub struct ProjectSource {
    pub disk: PathBuf,
    pub file: SourceFile,
}

/// Every `.java` file of the layout's source roots, with paths relative to their root. A file
/// with an overlay (an editor's unsaved buffer) is read from the overlay instead of the disk;
/// overlays of files under a source root that are not on disk yet are added.
pub fn read_sources(
    layout: &ProjectLayout,
    overlays: &SourceOverlays,
) -> Result<Vec<ProjectSource>, GenerationError> {
    let mut out: Vec<ProjectSource> = Vec::new();
    let mut files = layout.source_files();
    for path in overlays.paths() {
        let under_root = layout.source_roots.iter().any(|r| path.starts_with(r));
        if under_root && !files.iter().any(|f| f == path) {
            files.push(path.to_path_buf());
        }
    }
    for disk in files {
        let text = match overlays.get(&disk) {
            Some(text) => text.to_string(),
            None => std::fs::read_to_string(&disk).map_err(|error| GenerationError::Io {
                path: disk.clone(),
                error,
            })?,
        };
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

/// The classes of `request.also_instrument` (and the integration callee and caller), each once and in the
/// order asked, without the class under test, located and modelled like it; a class no source declares is an error like a
/// missing class under test.
pub fn locate_also(
    request: &GenerationRequest,
    sources: &[ProjectSource],
) -> Result<Vec<(String, ClassSource)>, GenerationError> {
    let mut out: Vec<(String, ClassSource)> = Vec::new();
    let pair = request.callee.iter().chain(&request.integration_caller);
    for class in request.also_instrument.iter().chain(pair) {
        if *class == request.class || out.iter().any(|(c, _)| c == class) {
            continue;
        }
        let located = locate(&request.layout, sources, class).ok_or_else(|| {
            GenerationError::ClassNotFound {
                class: class.clone(),
                source_roots: request.layout.source_roots.clone(),
            }
        })?;
        out.push((class.clone(), located));
    }
    Ok(out)
}

/// Compiles the files declaring `instrumented` (the class under test first, then the request's
/// `also_instrument`) instrumented, and what `roots` (their paths) reach: files no root reaches
/// are not compiled, and their errors do not fail the job. With the weak-mutation criterion
/// they are compiled with their mutants (schemata, all off), whose infection distances the
/// probes then report.
pub fn compile(
    supervisor: &mut Supervisor,
    request: &GenerationRequest,
    sources: &[ProjectSource],
    roots: &[String],
    instrumented: &[String],
) -> Result<CompiledUnit, GenerationError> {
    let compile_request = CompileRequest {
        sources: sources.iter().map(|s| s.file.clone()).collect(),
        classpath: request.layout.classpath.clone(),
        options: request.javac_options.clone(),
        roots: Some(roots.to_vec()),
    };
    let mutants = request.criteria.weak_mutation && request.callee.is_none();
    compile_instrumented_with(supervisor, &compile_request, instrumented, mutants).map_err(|e| {
        match e {
            CompileError::DoesNotCompile { diagnostics } => GenerationError::DoesNotCompile {
                class: request.class.clone(),
                diagnostics: on_disk(sources, diagnostics),
            },
            CompileError::UnknownClass(class) => GenerationError::ClassNotFound {
                class,
                source_roots: request.layout.source_roots.clone(),
            },
            CompileError::Jvm(e) => GenerationError::Jvm(e),
        }
    })
}

/// The errors among `diagnostics`, with the files they name mapped to the files on disk.
fn on_disk(sources: &[ProjectSource], diagnostics: Vec<Diagnostic>) -> Vec<SourceDiagnostic> {
    diagnostics
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
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::project::LayoutOverrides;

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("ctgls-setup-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("src/main/java/p")).unwrap();
        dir
    }

    #[test]
    fn overlays_replace_files_on_disk_and_add_unsaved_ones() {
        let root = scratch("overlays");
        let on_disk = root.join("src/main/java/p/A.java");
        std::fs::write(&on_disk, "package p; class A { int saved; }").unwrap();
        let layout = ProjectLayout::discover(&root, &LayoutOverrides::default());
        let unsaved = root.join("src/main/java/p/B.java");
        let elsewhere = root.join("notes/C.java");
        let overlays = SourceOverlays::new([
            (
                on_disk.clone(),
                "package p; class A { int edited; }".to_string(),
            ),
            (unsaved.clone(), "package p; class B {}".to_string()),
            (elsewhere, "class C {}".to_string()),
        ]);

        let sources = read_sources(&layout, &overlays).unwrap();
        let texts: Vec<(&str, &str)> = sources
            .iter()
            .map(|s| (s.file.path.as_str(), s.file.text.as_str()))
            .collect();
        assert_eq!(
            texts,
            [
                ("p/A.java", "package p; class A { int edited; }"),
                ("p/B.java", "package p; class B {}"),
            ],
            "the overlay wins, a new file under a source root is added, others are not"
        );
        let plain = read_sources(&layout, &SourceOverlays::default()).unwrap();
        assert_eq!(plain[0].file.text, "package p; class A { int saved; }");
        std::fs::remove_dir_all(&root).unwrap();
    }
}
