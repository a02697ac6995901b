//! `--changed-since REF`: the Java files git says differ from `REF` (committed, staged, or in
//! the work tree, and new untracked files), for section 4.1's "changed" classes.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Absolute paths of the files that changed since `reference` in the repository around
/// `project`.
pub fn changed_files(project: &Path, reference: &str) -> Result<BTreeSet<PathBuf>, String> {
    let top = git(project, &["rev-parse", "--show-toplevel"])?;
    let top = PathBuf::from(top.trim());
    let mut files = BTreeSet::new();
    for args in [
        &["diff", "--name-only", "--no-renames", reference, "--"][..],
        &["ls-files", "--others", "--exclude-standard", "--full-name"][..],
    ] {
        for line in git(project, args)?.lines().filter(|l| !l.is_empty()) {
            files.insert(canonical(&top.join(line)));
        }
    }
    Ok(files)
}

/// A path with symbolic links resolved when it exists, so paths from git and from the
/// project's layout compare equal.
pub fn canonical(path: &Path) -> PathBuf {
    path.canonicalize().unwrap_or_else(|_| path.to_path_buf())
}

fn git(dir: &Path, args: &[&str]) -> Result<String, String> {
    let output = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .output()
        .map_err(|e| format!("cannot run git: {e}"))?;
    if !output.status.success() {
        return Err(format!(
            "`git {}` failed: {}",
            args.join(" "),
            String::from_utf8_lossy(&output.stderr).trim()
        ));
    }
    Ok(String::from_utf8_lossy(&output.stdout).into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn committed_modified_and_new_files() {
        let dir = std::env::temp_dir().join(format!("ctgproject-changed-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let run = |args: &[&str]| {
            let ok = Command::new("git")
                .arg("-C")
                .arg(&dir)
                .args(args)
                .env("GIT_AUTHOR_NAME", "t")
                .env("GIT_AUTHOR_EMAIL", "t@t")
                .env("GIT_COMMITTER_NAME", "t")
                .env("GIT_COMMITTER_EMAIL", "t@t")
                .output()
                .unwrap()
                .status
                .success();
            assert!(ok, "git {args:?}");
        };
        run(&["init", "-q"]);
        for name in ["A.java", "B.java", "C.java"] {
            std::fs::write(dir.join(name), "class X {}").unwrap();
        }
        run(&["add", "."]);
        run(&["commit", "-q", "-m", "one"]);
        run(&["tag", "base"]);
        std::fs::write(dir.join("A.java"), "class A {}").unwrap();
        run(&["commit", "-q", "-am", "two"]);
        std::fs::write(dir.join("B.java"), "class B {}").unwrap();
        std::fs::write(dir.join("D.java"), "class D {}").unwrap();
        let changed = changed_files(&dir, "base").unwrap();
        let names: Vec<String> = changed
            .iter()
            .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names, ["A.java", "B.java", "D.java"]);
        assert!(changed_files(&dir, "no-such-ref")
            .unwrap_err()
            .contains("git diff"));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
