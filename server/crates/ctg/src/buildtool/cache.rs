//! The build tool's answers on disk (`<cache root>/classpath/<key>.json`), keyed by everything
//! that decides them: the build files' contents, the settings used, and the Maven settings
//! files and options the tool reads. The cache lives in the user's cache directory, not in the
//! project's `.ctgls/`, because its paths are this machine's (`~/.m2/...`). An answer is used
//! only while every path it names still exists, so a cleaned local repository means a new run;
//! modules the tool failed on are not in it, so they are asked again.

use std::path::{Path, PathBuf};

use super::{BuildClasspath, BuildToolSettings, Tool};

/// Bumped when the cached format or what goes into an answer changes.
const FORMAT: &str = "ctgls-classpath-1";

/// FNV-1a, 128 bits: collisions between two builds' keys are not a practical concern.
struct Hasher(u128);

impl Hasher {
    fn new() -> Hasher {
        Hasher(0x6c62272e07bb014262b821756295c58d)
    }

    fn feed(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 ^= u128::from(b);
            self.0 = self.0.wrapping_mul(0x0000000001000000000000000000013B);
        }
        // The length separates fields, so ("ab", "c") and ("a", "bc") differ.
        for &b in &(bytes.len() as u64).to_le_bytes() {
            self.0 ^= u128::from(b);
            self.0 = self.0.wrapping_mul(0x0000000001000000000000000000013B);
        }
    }

    fn feed_file(&mut self, path: &Path) {
        self.feed(path.to_string_lossy().as_bytes());
        match std::fs::read(path) {
            Ok(bytes) => self.feed(&bytes),
            Err(_) => self.feed(b"<absent>"),
        }
    }
}

/// The key of the answer for the build at `root` with these build files and settings.
pub fn cache_key(
    tool: Tool,
    root: &Path,
    files: &[PathBuf],
    settings: &BuildToolSettings,
) -> String {
    let mut h = Hasher::new();
    h.feed(FORMAT.as_bytes());
    h.feed(tool.name().as_bytes());
    h.feed(root.to_string_lossy().as_bytes());
    let mut files = files.to_vec();
    files.sort();
    for file in &files {
        h.feed_file(file);
    }
    h.feed(&[u8::from(settings.offline)]);
    for exe in [&settings.maven_executable, &settings.gradle_executable] {
        h.feed(
            exe.as_deref()
                .map(|p| p.to_string_lossy())
                .unwrap_or_default()
                .as_bytes(),
        );
    }
    match &settings.maven_settings {
        Some(file) => h.feed_file(file),
        None => h.feed(b"<default settings>"),
    }
    // What the tools read besides the build: the user's Maven settings (the local repository
    // and mirrors live there) and the options in the environment.
    if let Some(home) = std::env::var_os("HOME") {
        h.feed_file(&Path::new(&home).join(".m2/settings.xml"));
        h.feed_file(&Path::new(&home).join(".gradle/gradle.properties"));
    }
    for var in [
        "MAVEN_OPTS",
        "MAVEN_ARGS",
        "GRADLE_OPTS",
        "GRADLE_USER_HOME",
        "JAVA_HOME",
    ] {
        h.feed(std::env::var(var).unwrap_or_default().as_bytes());
    }
    format!("{:032x}", h.0)
}

fn file_of(dir: &Path, key: &str) -> PathBuf {
    dir.join(format!("{key}.json"))
}

/// The cached answer, if there is one whose paths all exist.
pub fn load(dir: &Path, key: &str) -> Option<BuildClasspath> {
    let text = std::fs::read_to_string(file_of(dir, key)).ok()?;
    let answer: BuildClasspath = serde_json::from_str(&text).ok()?;
    let all_there = answer.modules.values().all(|m| {
        m.classpath
            .iter()
            .chain(&m.sibling_sources)
            .all(|p| p.exists())
    });
    all_there.then_some(answer)
}

/// Stores an answer atomically (a temporary file renamed into place).
pub fn save(dir: &Path, key: &str, answer: &BuildClasspath) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    let text = serde_json::to_string_pretty(answer).map_err(std::io::Error::other)?;
    let temp = dir.join(format!("{key}.{}.tmp", std::process::id()));
    std::fs::write(&temp, text)?;
    std::fs::rename(&temp, file_of(dir, key))
}

#[cfg(test)]
mod tests {
    use super::super::ModuleClasspath;
    use super::*;

    #[test]
    fn the_key_follows_build_files_and_settings() {
        let dir = std::env::temp_dir().join(format!("ctg-bt-key-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("a")).unwrap();
        let pom = dir.join("pom.xml");
        let module = dir.join("a/pom.xml");
        std::fs::write(&pom, "<project/>").unwrap();
        std::fs::write(&module, "<project><artifactId>a</artifactId></project>").unwrap();
        let settings = BuildToolSettings::default();
        let files = [pom.clone(), module.clone()];
        let key = cache_key(Tool::Maven, &dir, &files, &settings);
        // Order of discovery does not matter; contents, tool and settings do.
        assert_eq!(
            key,
            cache_key(Tool::Maven, &dir, &[module.clone(), pom.clone()], &settings)
        );
        assert_ne!(key, cache_key(Tool::Gradle, &dir, &files, &settings));
        let online = BuildToolSettings {
            offline: false,
            ..settings.clone()
        };
        assert_ne!(key, cache_key(Tool::Maven, &dir, &files, &online));
        std::fs::write(&module, "<project><artifactId>b</artifactId></project>").unwrap();
        assert_ne!(key, cache_key(Tool::Maven, &dir, &files, &settings));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_cached_answer_is_used_while_its_paths_exist() {
        let dir = std::env::temp_dir().join(format!("ctg-bt-cache-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let jar = dir.join("lib.jar");
        std::fs::write(&jar, "").unwrap();
        let mut answer = BuildClasspath::default();
        answer.modules.insert(
            PathBuf::from("/w/p"),
            ModuleClasspath {
                classpath: vec![jar.clone()],
                ..ModuleClasspath::default()
            },
        );
        save(&dir, "k", &answer).unwrap();
        assert_eq!(load(&dir, "k"), Some(answer));
        assert_eq!(load(&dir, "other"), None);
        std::fs::remove_file(&jar).unwrap();
        assert_eq!(
            load(&dir, "k"),
            None,
            "a vanished jar makes the answer stale"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
