//! Private directories for processes that run code under test (the worker's scratch directory,
//! verification's run directories): always made afresh, never one that already exists.

use std::fs::DirBuilder;
use std::io::ErrorKind;
#[cfg(unix)]
use std::os::unix::fs::DirBuilderExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// How many names [`create_private_dir`] tries before it gives up.
const ATTEMPTS: u32 = 1000;

/// Creates `<parent>/<prefix>-<pid>-<n>` with mode 0700 for the first `n` whose directory does
/// not exist yet (`parent` is created if missing). On Windows the directory takes the access
/// rules of `parent`, which for the default, the user's own temp directory, are the user's.
///
/// Invariant: the directory returned was created by this call, so it is this user's, empty and
/// private. Names in a shared temp directory are predictable: another local user who made the
/// directory (or a symbolic link under its name) in advance would own what code under test
/// writes there, or see it, had an existing one been accepted.
pub fn create_private_dir(parent: &Path, prefix: &str) -> std::io::Result<PathBuf> {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let pid = std::process::id();
    create_first_free(parent, || {
        format!("{prefix}-{pid}-{}", NEXT.fetch_add(1, Ordering::Relaxed))
    })
}

fn create_first_free(parent: &Path, mut name: impl FnMut() -> String) -> std::io::Result<PathBuf> {
    std::fs::create_dir_all(parent)?;
    for _ in 0..ATTEMPTS {
        let dir = parent.join(name());
        // `create` is mkdir(2) (CreateDirectoryW): it fails on anything already there, a
        // symbolic link included.
        match private_dir_builder().create(&dir) {
            Ok(()) => return Ok(dir),
            Err(e) if e.kind() == ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e),
        }
    }
    Err(std::io::Error::new(
        ErrorKind::AlreadyExists,
        format!(
            "{ATTEMPTS} directory names in {} were taken",
            parent.display()
        ),
    ))
}

#[cfg(unix)]
fn private_dir_builder() -> DirBuilder {
    let mut builder = DirBuilder::new();
    builder.mode(0o700);
    builder
}

#[cfg(not(unix))]
fn private_dir_builder() -> DirBuilder {
    DirBuilder::new()
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn directories_made_in_advance_are_skipped_and_left_alone() {
        let parent =
            std::env::temp_dir().join(format!("ctgls-scratch-test-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&parent);
        // Someone else's directory and a link under the next names.
        let planted = parent.join("job-0");
        std::fs::create_dir_all(&planted).unwrap();
        std::fs::set_permissions(&planted, std::fs::Permissions::from_mode(0o777)).unwrap();
        std::fs::write(planted.join("theirs"), "x").unwrap();
        std::os::unix::fs::symlink(&planted, parent.join("job-1")).unwrap();

        let mut n = 0;
        let made = create_first_free(&parent, || {
            n += 1;
            format!("job-{}", n - 1)
        })
        .unwrap();
        assert_eq!(made, parent.join("job-2"));
        let meta = std::fs::symlink_metadata(&made).unwrap();
        assert!(meta.is_dir());
        assert_eq!(meta.permissions().mode() & 0o777, 0o700);
        assert_eq!(std::fs::read_dir(&made).unwrap().count(), 0, "empty");
        assert!(planted.join("theirs").exists());

        let named = create_private_dir(&parent, "ctgls-job").unwrap();
        assert!(named
            .file_name()
            .unwrap()
            .to_string_lossy()
            .starts_with(&format!("ctgls-job-{}-", std::process::id())));
        std::fs::remove_dir_all(&parent).unwrap();
    }
}
