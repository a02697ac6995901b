//! Where an open file's project is: the workspace folders the client named, the nearest
//! project root inside them (Maven, Gradle, plain), and the class a file declares.

use std::path::{Path, PathBuf};

use ctg::project::{find_project_root, LayoutOverrides, ProjectLayout};
use javamodel::{JavaModel, TypeDecl};
use tower_lsp_server::ls_types::Uri;

/// The workspace folders, as local paths.
#[derive(Debug, Clone, Default)]
pub struct Workspace {
    pub folders: Vec<PathBuf>,
}

impl Workspace {
    /// The project of `file`: the nearest directory with a root marker (`pom.xml`,
    /// `build.gradle[.kts]`, `settings.gradle[.kts]`, `.git`) inside the workspace folder that
    /// holds the file, else that folder; outside every folder, the nearest marked directory,
    /// else the file's directory. The `overrides` (the settings' source and test roots and
    /// classpath entries) are relative to the project root, or absolute.
    pub fn layout_for(&self, file: &Path, overrides: &LayoutOverrides) -> ProjectLayout {
        let folder = self
            .folders
            .iter()
            .filter(|folder| file.starts_with(folder))
            .max_by_key(|folder| folder.components().count());
        let root = match (find_project_root(file), folder) {
            (Some(root), Some(folder)) if root.starts_with(folder) => root,
            (_, Some(folder)) => folder.clone(),
            (Some(root), None) => root,
            (None, None) => file.parent().map(Path::to_path_buf).unwrap_or_default(),
        };
        ProjectLayout::discover(&root, overrides)
    }
}

/// A Java file under a source root of the layout and not under its test root (when the test
/// root is not itself a source root): a class under test, not a test.
pub fn is_source_file(layout: &ProjectLayout, path: &Path) -> bool {
    let java = path.extension().is_some_and(|e| e == "java");
    let in_tests = layout.test_root != layout.root
        && !layout.source_roots.contains(&layout.test_root)
        && path.starts_with(&layout.test_root);
    java && !in_tests
        && layout
            .source_roots
            .iter()
            .any(|root| path.starts_with(root))
}

/// A `file:` URI's path.
pub fn uri_path(uri: &Uri) -> Option<PathBuf> {
    uri.to_file_path().map(|path| path.into_owned())
}

/// The class generation targets in a file: the top-level type named like the file, else the
/// first top-level class, enum or record. Interfaces and annotations alone are not targets.
pub fn primary_type<'m>(model: &'m JavaModel, file: Option<&Path>) -> Option<&'m TypeDecl> {
    let stem = file
        .and_then(|f| f.file_stem())
        .and_then(|s| s.to_str())
        .unwrap_or("");
    let testable = |t: &&TypeDecl| {
        !matches!(
            t.kind,
            javamodel::TypeKind::Interface | javamodel::TypeKind::Annotation
        )
    };
    model
        .types
        .iter()
        .filter(testable)
        .find(|t| t.name == stem)
        .or_else(|| model.types.iter().find(testable))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_type_named_like_the_file_is_the_target() {
        let text = "package p; interface I {} class Helper {} public class Account {}";
        let model = JavaModel::build(text, &syntax::parse_java(text, None));
        let account = primary_type(&model, Some(Path::new("/x/p/Account.java"))).unwrap();
        assert_eq!(account.binary_name, "p.Account");
        let first = primary_type(&model, Some(Path::new("/x/p/Other.java"))).unwrap();
        assert_eq!(first.binary_name, "p.Helper", "interfaces are skipped");
    }

    #[test]
    fn the_project_root_is_the_nearest_marked_directory_inside_the_folder() {
        let dir = std::env::temp_dir().join(format!("ctgls-ws-{}", std::process::id()));
        let module = dir.join("module");
        std::fs::create_dir_all(module.join("src/main/java/p")).unwrap();
        std::fs::write(module.join("pom.xml"), "<project/>").unwrap();
        let file = module.join("src/main/java/p/A.java");
        let workspace = Workspace {
            folders: vec![dir.clone()],
        };
        let overrides = LayoutOverrides {
            classpath: vec!["lib/extra.jar".into()],
            ..LayoutOverrides::default()
        };
        let layout = workspace.layout_for(&file, &overrides);
        assert_eq!(layout.root, module);
        assert_eq!(layout.source_roots, [module.join("src/main/java")]);
        assert_eq!(layout.classpath[0], module.join("lib/extra.jar"));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
