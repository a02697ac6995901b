//! The couplings between the project's classes that the editor shows, found lazily: the
//! classes that call a class (its callers, for the hover on its branches and the action on its
//! declaration) and the classes a file calls (for the action on a call site).
//!
//! Cheap per request: the project's source files are listed and stat'ed, but a file is read
//! only when its size or modification time changed, and then only its type-like words are
//! kept (an index of which files mention which simple names); a file is parsed only when it
//! mentions the class asked about, and a coupling is computed once per pair of texts (keyed by
//! their hashes, open documents by their current text). The open documents' texts replace
//! the files on disk.
//!
//! Deviation from the paper's call graph, on top of `javamodel::coupling`'s: a caller is a
//! file's primary type (the class ctgls generates tests for), found among the files that
//! mention the callee's simple name; a class that reaches the callee only through a subclass
//! named otherwise is not found.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime};

use javamodel::coupling::{couple, Coupling};
use javamodel::JavaModel;

use crate::lsp::results::words::simple_name;
use crate::lsp::workspace::primary_type;

/// How long a listing of a project's source files is used before the directories are walked
/// again: code actions are asked for on every cursor move, files come and go rarely.
const LISTING_TTL: Duration = Duration::from_secs(2);

/// Couplings kept at most; the cache is emptied beyond (edits make new texts, hence new keys).
const MAX_COUPLINGS: usize = 512;

/// One side of a coupling: a class and the text it was computed from.
#[derive(Debug, Clone)]
pub struct Side {
    pub path: PathBuf,
    /// Binary name.
    pub class: String,
    pub model: Arc<JavaModel>,
    /// `ctg::pipeline::source_hash` of the text.
    pub hash: String,
}

/// A caller and a callee with their coupled branches (at least one call site).
#[derive(Debug, Clone)]
pub struct Coupled {
    pub caller: Side,
    pub callee: Side,
    pub coupling: Arc<Coupling>,
}

/// The project's sources as a request sees them: the source files under its roots, with the
/// open documents' texts instead of the files'.
pub struct ProjectSources {
    pub files: Arc<Vec<PathBuf>>,
    /// Open documents of the project by path.
    pub open: HashMap<PathBuf, Arc<JavaModel>>,
}

/// A source file on disk as last read.
struct DiskFile {
    stamp: (Option<SystemTime>, u64),
    /// The words of the text that start with an upper-case letter (type names and others).
    names: Arc<HashSet<String>>,
    /// Parsed when a request needed it.
    model: Option<Arc<JavaModel>>,
}

#[derive(Default)]
struct Cache {
    /// The source files of a project (by root) as last listed, and when.
    listings: HashMap<PathBuf, (Instant, Arc<Vec<PathBuf>>)>,
    files: HashMap<PathBuf, DiskFile>,
    /// By (caller class, caller hash, callee class, callee hash); `None`: no call site (or a
    /// class missing from its text).
    couplings: HashMap<(String, String, String, String), Option<Arc<Coupling>>>,
}

/// The coupling cache. Requests are answered on the owner's task one at a time, but a
/// snapshot is read through `&`, hence the mutex (never held across an await).
#[derive(Default)]
pub struct CouplingIndex {
    cache: Mutex<Cache>,
}

impl CouplingIndex {
    /// The classes of the project whose calls of `callee` (the primary type of `callee_path`)
    /// couple with its branches, by caller name.
    pub fn callers(&self, sources: &ProjectSources, callee_path: &Path) -> Vec<Coupled> {
        let mut cache = self.lock();
        let Some(callee) = cache.side(sources, callee_path) else {
            return Vec::new();
        };
        let wanted = simple_name(&callee.class).to_string();
        let mut out = Vec::new();
        for path in all_paths(sources) {
            if path == callee_path || !cache.mentions(sources, &path, &wanted) {
                continue;
            }
            let Some(caller) = cache.side(sources, &path) else {
                continue;
            };
            if let Some(coupling) = cache.coupling(&caller, &callee) {
                out.push(Coupled {
                    caller,
                    callee: callee.clone(),
                    coupling,
                });
            }
        }
        out.sort_by(|a, b| a.caller.class.cmp(&b.caller.class));
        out
    }

    /// The classes of the project that `caller_path`'s primary type calls (through a call
    /// site `javamodel::coupling` finds), by callee name.
    pub fn callees(&self, sources: &ProjectSources, caller_path: &Path) -> Vec<Coupled> {
        let mut cache = self.lock();
        let Some(caller) = cache.side(sources, caller_path) else {
            return Vec::new();
        };
        let names = type_like_names(caller.model.text());
        let mut out = Vec::new();
        for path in all_paths(sources) {
            let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or("");
            if path == caller_path || !names.contains(stem) {
                continue;
            }
            let Some(callee) = cache.side(sources, &path) else {
                continue;
            };
            if let Some(coupling) = cache.coupling(&caller, &callee) {
                out.push(Coupled {
                    caller: caller.clone(),
                    callee,
                    coupling,
                });
            }
        }
        out.sort_by(|a, b| a.callee.class.cmp(&b.callee.class));
        out
    }

    /// The project's source files: `list`'s answer, reused for `LISTING_TTL` per `root`.
    pub fn source_files(
        &self,
        root: &Path,
        list: impl FnOnce() -> Vec<PathBuf>,
    ) -> Arc<Vec<PathBuf>> {
        let mut cache = self.lock();
        if let Some((when, files)) = cache.listings.get(root) {
            if when.elapsed() < LISTING_TTL {
                return files.clone();
            }
        }
        let files = Arc::new(list());
        cache
            .listings
            .insert(root.to_path_buf(), (Instant::now(), files.clone()));
        files
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Cache> {
        // A panic while the lock was held leaves at worst a stale cache entry.
        self.cache.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// The source files and the open documents, each once, sorted.
fn all_paths(sources: &ProjectSources) -> Vec<PathBuf> {
    let mut paths: Vec<PathBuf> = sources
        .files
        .iter()
        .cloned()
        .chain(sources.open.keys().cloned())
        .collect();
    paths.sort();
    paths.dedup();
    paths
}

impl Cache {
    /// Whether the text of `path` has the word `name`.
    fn mentions(&mut self, sources: &ProjectSources, path: &Path, name: &str) -> bool {
        if let Some(model) = sources.open.get(path) {
            return model.text().contains(name) && type_like_names(model.text()).contains(name);
        }
        self.disk(path)
            .is_some_and(|file| file.names.contains(name))
    }

    /// The primary type of `path` with its model (the open document's, else the file's).
    fn side(&mut self, sources: &ProjectSources, path: &Path) -> Option<Side> {
        let model = match sources.open.get(path) {
            Some(model) => model.clone(),
            None => {
                let file = self.disk(path)?;
                match &file.model {
                    Some(model) => model.clone(),
                    None => {
                        let text = std::fs::read_to_string(path).ok()?;
                        let model =
                            Arc::new(JavaModel::build(&text, &syntax::parse_java(&text, None)));
                        file.model = Some(model.clone());
                        model
                    }
                }
            }
        };
        let class = primary_type(&model, Some(path))?.binary_name.clone();
        Some(Side {
            path: path.to_path_buf(),
            class,
            hash: ctg::pipeline::source_hash(model.text()),
            model,
        })
    }

    /// The file's entry, read again when its size or modification time changed; `None` when
    /// it cannot be read.
    fn disk(&mut self, path: &Path) -> Option<&mut DiskFile> {
        let metadata = std::fs::metadata(path).ok()?;
        let stamp = (metadata.modified().ok(), metadata.len());
        let fresh = self.files.get(path).is_some_and(|f| f.stamp == stamp);
        if !fresh {
            let text = std::fs::read_to_string(path).ok()?;
            self.files.insert(
                path.to_path_buf(),
                DiskFile {
                    stamp,
                    names: Arc::new(type_like_names(&text)),
                    model: None,
                },
            );
        }
        self.files.get_mut(path)
    }

    fn coupling(&mut self, caller: &Side, callee: &Side) -> Option<Arc<Coupling>> {
        let key = (
            caller.class.clone(),
            caller.hash.clone(),
            callee.class.clone(),
            callee.hash.clone(),
        );
        if let Some(known) = self.couplings.get(&key) {
            return known.clone();
        }
        if self.couplings.len() >= MAX_COUPLINGS {
            self.couplings.clear();
        }
        let coupling = couple(&caller.model, &caller.class, &callee.model, &callee.class)
            .ok()
            .filter(|c| !c.sites.is_empty())
            .map(Arc::new);
        self.couplings.insert(key, coupling.clone());
        coupling
    }
}

/// The words of `text` that start with an upper-case letter: every simple type name it
/// mentions, and some other words.
fn type_like_names(text: &str) -> HashSet<String> {
    text.split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '$'))
        .filter(|word| word.starts_with(char::is_uppercase))
        .map(str::to_string)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lsp::integration::fixture::{ACCOUNT, BANK};

    const OTHER: &str =
        "package p;\n\npublic class Other {\n    public int one() {\n        return 1;\n    }\n}\n";

    fn model(text: &str) -> Arc<JavaModel> {
        Arc::new(JavaModel::build(text, &syntax::parse_java(text, None)))
    }

    #[test]
    fn callers_and_callees_from_disk_and_open_documents() {
        let dir = std::env::temp_dir().join(format!("ctgls-index-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("p")).unwrap();
        for (name, text) in [("Account", ACCOUNT), ("Bank", BANK), ("Other", OTHER)] {
            std::fs::write(dir.join(format!("p/{name}.java")), text).unwrap();
        }
        let account = dir.join("p/Account.java");
        let bank = dir.join("p/Bank.java");
        let files = vec![account.clone(), bank.clone(), dir.join("p/Other.java")];
        let index = CouplingIndex::default();
        let sources = ProjectSources {
            files: Arc::new(files.clone()),
            open: HashMap::from([(account.clone(), model(ACCOUNT))]),
        };

        let callers = index.callers(&sources, &account);
        assert_eq!(callers.len(), 1, "Bank, from disk; Other does not call");
        assert_eq!(callers[0].caller.class, "p.Bank");
        let called: Vec<&str> = callers[0]
            .coupling
            .sites
            .iter()
            .map(|s| s.callee_name.as_str())
            .collect();
        assert_eq!(called, ["<init>", "withdraw"]);
        let callees = index.callees(&sources, &bank);
        assert_eq!(callees.len(), 1);
        assert_eq!(callees[0].callee.class, "p.Account");

        // The open document replaces the file: a Bank that no longer calls Account.
        let sources = ProjectSources {
            files: Arc::new(files),
            open: HashMap::from([(bank.clone(), model(OTHER.replace("Other", "Bank").as_str()))]),
        };
        assert!(index.callers(&sources, &account).is_empty());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
