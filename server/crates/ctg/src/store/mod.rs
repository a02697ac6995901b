//! The project store under `<workspace>/.ctgls/` (DESIGN decision 6): per class under test, the
//! tests the last run found with the goals they cover, the JUnit class they were verified as,
//! that run's coverage, and the run history, so that the editor, the command line and CI warm-start each other (Campos et al., "Continuous Test Generation"
//! sections 4.1 and 4.2). The format is specified in `docs/store.md`.
//!
//! Layout: `.ctgls/README.txt`, `.ctgls/.gitignore` (temporary files only) and one JSON file
//! per class in `.ctgls/classes/` (see [`record_file_name`]).
//!
//! Safety: every write replaces a whole file atomically (`disk`), so a crash leaves the old
//! file. A file that is corrupt, truncated, of another format version or of another class is
//! a typed [`StoreError`], never a panic; [`Store::load_seeds`] and [`Store::should_rerun`]
//! turn it into "no seeds" and "run" with a warning, so the store never blocks generation.
//! Concurrent writers (the CLI and the server) cannot corrupt a file: the last rename wins, and
//! the run of the writer that loses is missing from the history (a lost update, not damage).
//!
//! Module map: `record` (the plain values callers build and read), `format` (JSON and the
//! private serde structs; pure; `assertion_format` for the methods' assertions), `type_text` (reading types back), `history` (improvement and
//! the re-run rule; pure), `seeds` (re-validation against the current cluster; pure),
//! `file_name` (class name to file name; pure), `disk` (all IO).

mod assertion_format;
mod disk;
mod file_name;
mod format;
mod history;
mod integration;
mod record;
mod seeds;
mod type_text;

use std::path::{Path, PathBuf};
use std::time::SystemTime;

use testcase::Cluster;

pub(crate) use disk::write_atomic;
pub use disk::{MAX_RECORD_BYTES, STALE_TEMP_AGE};
pub use file_name::{fnv1a64, record_file_name};
pub use format::{decode_record, encode_record, FormatError, FORMAT_NAME, FORMAT_VERSION};
pub use history::{
    entry_for, record_after, rerun_decision, RerunDecision, RerunReason, SkipReason, HISTORY_LIMIT,
    RUNS_WITHOUT_IMPROVEMENT,
};
pub use integration::{IntegrationRunRecord, StoredCoupledPair, INTEGRATION_DIR};
pub use record::{
    ClassRecord, Coverage, FinishedRun, HistoryEntry, RunInfo, StoredAssertion, StoredMethod,
    StoredSuite, StoredTest, UndeclaredException,
};
pub use seeds::{object_seeds, revalidate, DropReason, DroppedSeed, Seeds};

/// The store's directory under the workspace root.
pub const STORE_DIR: &str = ".ctgls";

/// The directory of the class records inside the store.
pub const CLASSES_DIR: &str = "classes";

const README: &str = include_str!("README.txt");
const GITIGNORE: &str = "# Left behind by a crash in the middle of a write; never needed.\n*.tmp\n";

/// Why a record could not be read or written.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("{}: {source}", path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// Not JSON, truncated, not a store record, or inconsistent.
    #[error("{}: unreadable record: {message}", path.display())]
    Corrupt { path: PathBuf, message: String },
    /// A record of a format version this build does not read.
    #[error("{}: format version {found} is not supported (this ctgls reads version {FORMAT_VERSION})", path.display())]
    UnsupportedVersion { path: PathBuf, found: u64 },
    /// A newer ctgls wrote the record; this one does not overwrite it with an older format.
    #[error("{}: written by a newer ctgls (format version {found}); left as it is", path.display())]
    NewerFormat { path: PathBuf, found: u64 },
    /// The file holds the record of another class.
    #[error("{}: holds the record of {found}, not {expected}", path.display())]
    ClassMismatch {
        path: PathBuf,
        expected: String,
        found: String,
    },
    #[error("{}: larger than {limit} bytes", path.display())]
    TooLarge { path: PathBuf, limit: u64 },
    #[error("{}: {message}", path.display())]
    Encode { path: PathBuf, message: String },
}

impl StoreError {
    fn from_format(path: &Path, e: FormatError) -> StoreError {
        let path = path.to_path_buf();
        match e {
            FormatError::Corrupt(message) => StoreError::Corrupt { path, message },
            FormatError::UnsupportedVersion { found } => {
                StoreError::UnsupportedVersion { path, found }
            }
            FormatError::Encode(message) => StoreError::Encode { path, message },
        }
    }
}

/// The `.ctgls/` store of one workspace. Cheap to create; does no IO until used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Store {
    dir: PathBuf,
}

/// What [`Store::save_run`] wrote.
#[derive(Debug)]
pub struct SavedRun {
    /// The record as written: the run's tests and coverage, and the history with the run's
    /// entry last.
    pub record: ClassRecord,
    /// The earlier file could not be read and was replaced (its history is lost).
    pub replaced_unreadable: Option<StoreError>,
}

impl Store {
    /// The store of the workspace at `workspace_root` (its `.ctgls/` directory, created on the
    /// first save).
    pub fn open(workspace_root: impl AsRef<Path>) -> Store {
        Store {
            dir: workspace_root.as_ref().join(STORE_DIR),
        }
    }

    /// The `.ctgls/` directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Where the record of `class` lives.
    pub fn record_path(&self, class: &str) -> PathBuf {
        self.dir.join(CLASSES_DIR).join(record_file_name(class))
    }

    /// The record of `class`; `None` when it has none.
    pub fn load(&self, class: &str) -> Result<Option<ClassRecord>, StoreError> {
        let path = self.record_path(class);
        let Some(text) = disk::read_text(&path)? else {
            return Ok(None);
        };
        let record = decode_record(&text).map_err(|e| StoreError::from_format(&path, e))?;
        if record.class != class {
            return Err(StoreError::ClassMismatch {
                path,
                expected: class.to_string(),
                found: record.class,
            });
        }
        Ok(Some(record))
    }

    /// Records a finished run: its tests and coverage replace the class's previous ones and
    /// its entry is appended to the history (with `improved` computed from it). An unreadable
    /// earlier record is replaced and reported in [`SavedRun::replaced_unreadable`]; one
    /// written by a newer ctgls is left alone ([`StoreError::NewerFormat`]).
    pub fn save_run(&self, run: &FinishedRun) -> Result<SavedRun, StoreError> {
        let path = self.record_path(&run.class);
        let (history, replaced_unreadable) = match self.load(&run.class) {
            Ok(Some(previous)) => (previous.history, None),
            Ok(None) => (Vec::new(), None),
            Err(StoreError::UnsupportedVersion { path, found }) if found > FORMAT_VERSION => {
                return Err(StoreError::NewerFormat { path, found });
            }
            Err(e @ StoreError::Io { .. }) => return Err(e),
            Err(e) => {
                tracing::warn!("replacing an unreadable ctgls record: {e}");
                (Vec::new(), Some(e))
            }
        };
        let record = record_after(&history, run);
        let text = encode_record(&record).map_err(|e| StoreError::from_format(&path, e))?;
        self.write_support_files();
        disk::write_atomic(&path, text.as_bytes())?;
        disk::remove_stale_temp_files(&path, SystemTime::now());
        Ok(SavedRun {
            record,
            replaced_unreadable,
        })
    }

    /// Replaces the JUnit class of `class`'s record, leaving its tests, coverage and history
    /// as they are: what accepting a changed behaviour writes (`crate::regression::accept`).
    /// Fails when the class has no readable record.
    pub fn replace_suite(&self, class: &str, suite: StoredSuite) -> Result<(), StoreError> {
        let path = self.record_path(class);
        let Some(mut record) = self.load(class)? else {
            return Err(StoreError::Corrupt {
                path,
                message: format!("no record of {class} to update"),
            });
        };
        record.suite = Some(suite);
        let text = encode_record(&record).map_err(|e| StoreError::from_format(&path, e))?;
        disk::write_atomic(&path, text.as_bytes())
    }

    /// The earlier tests of `class` that are still valid against `cluster` (Campos et al., "Continuous Test Generation" section
    /// 4.2). Never fails: an unreadable record gives no seeds and says why in
    /// [`Seeds::problem`].
    pub fn load_seeds(&self, class: &str, cluster: &Cluster) -> Seeds {
        match self.load(class) {
            Ok(Some(record)) => revalidate(&record.tests, cluster),
            Ok(None) => Seeds::default(),
            Err(e) => {
                tracing::warn!("no warm start for {class}: {e}");
                Seeds {
                    problem: Some(e),
                    ..Seeds::default()
                }
            }
        }
    }

    /// The objects the stored tests of `class` built, usable in `cluster` (another class's):
    /// Campos et al., "Continuous Test Generation", section 3.2. Nothing when the record is
    /// missing or unreadable (seeding is an optimisation, never a reason to fail).
    pub fn load_object_seeds(&self, class: &str, cluster: &Cluster) -> Vec<testcase::SeededObject> {
        match self.load(class) {
            Ok(Some(record)) => object_seeds(&record.tests, class, cluster),
            Ok(None) => Vec::new(),
            Err(e) => {
                tracing::warn!("no seeded objects from {class}: {e}");
                Vec::new()
            }
        }
    }

    /// Campos et al., "Continuous Test Generation" section 4.1 for `class`, whose source now hashes to `current_source_hash`.
    /// An unreadable history means "run" ([`RerunReason::HistoryUnreadable`]).
    pub fn should_rerun(&self, class: &str, current_source_hash: &str) -> RerunDecision {
        match self.history(class) {
            Ok(history) => rerun_decision(&history, current_source_hash),
            Err(e) => {
                tracing::warn!("ignoring the run history of {class}: {e}");
                RerunDecision::Yes(RerunReason::HistoryUnreadable)
            }
        }
    }

    /// Every record of the store, by class name, with the files that could not be read (for
    /// `ctgls merge`, which joins the stores of CI shards).
    pub fn records(&self) -> (Vec<ClassRecord>, Vec<StoreError>) {
        let mut records = Vec::new();
        let mut problems = Vec::new();
        for path in disk::json_files(&self.dir.join(CLASSES_DIR)) {
            match disk::read_text(&path) {
                Ok(Some(text)) => match decode_record(&text) {
                    Ok(record) => records.push(record),
                    Err(e) => problems.push(StoreError::from_format(&path, e)),
                },
                Ok(None) => {}
                Err(e) => problems.push(e),
            }
        }
        records.sort_by(|a, b| a.class.cmp(&b.class));
        (records, problems)
    }

    /// Writes `record` as it is (history included), replacing the class's record: how
    /// `ctgls merge` brings a shard's record into the project's store.
    pub fn put_record(&self, record: &ClassRecord) -> Result<(), StoreError> {
        let path = self.record_path(&record.class);
        let text = encode_record(record).map_err(|e| StoreError::from_format(&path, e))?;
        self.write_support_files();
        disk::write_atomic(&path, text.as_bytes())
    }

    /// The store in the directory `dir` itself (a shard's `.ctgls/` copied elsewhere).
    pub fn at(dir: impl AsRef<Path>) -> Store {
        Store {
            dir: dir.as_ref().to_path_buf(),
        }
    }

    /// The runs of `class`, oldest first; empty when it has none.
    pub fn history(&self, class: &str) -> Result<Vec<HistoryEntry>, StoreError> {
        Ok(self.load(class)?.map(|r| r.history).unwrap_or_default())
    }

    /// The README and the `.gitignore`; their absence harms nothing, so failures are only
    /// logged (the record write that follows reports a real problem).
    fn write_support_files(&self) {
        for (name, text) in [("README.txt", README), (".gitignore", GITIGNORE)] {
            if let Err(e) = disk::write_if_missing(&self.dir.join(name), text.as_bytes()) {
                tracing::warn!("cannot write {name} of the ctgls store: {e}");
            }
        }
    }
}
