//! Scratch directories for tests that build a project on disk, and the switch of the slow
//! end-to-end tests.

use std::path::{Path, PathBuf};

/// Whether the slow end-to-end tests run (`CTGLS_E2E=1`, which `.ci/run` sets).
pub fn e2e_enabled() -> bool {
    std::env::var("CTGLS_E2E").is_ok_and(|value| value == "1")
}

/// A fresh directory under the system's temporary directory, removed on drop. The name holds
/// the test file's `prefix`, the test's `name` and the process id, so parallel tests and
/// parallel test binaries never share one.
pub struct Scratch(pub PathBuf);

impl Scratch {
    pub fn new(prefix: &str, name: &str) -> Scratch {
        let dir =
            std::env::temp_dir().join(format!("ctgls-{prefix}-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("scratch dir");
        Scratch(dir)
    }

    pub fn path(&self) -> &Path {
        &self.0
    }

    /// Writes `text` to `relative` (creating its directories) and returns the file's path.
    pub fn write(&self, relative: &str, text: &str) -> PathBuf {
        let path = self.0.join(relative);
        std::fs::create_dir_all(path.parent().expect("parent")).expect("dirs");
        std::fs::write(&path, text).expect("write");
        path
    }

    /// A Maven `settings.xml`: offline, Debian's repository as the local repository (what a
    /// user's `~/.m2` stands in for here).
    pub fn maven_settings(&self) -> PathBuf {
        self.write(
            "m2/settings.xml",
            "<settings><offline>true</offline>\
             <localRepository>/usr/share/maven-repo</localRepository></settings>\n",
        )
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}
