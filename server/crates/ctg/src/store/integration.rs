//! The record of the last class-integration run of a caller R through a callee E (Derakhshanfar
//! et al., "Generating Class-Level Integration Tests Using Call Site Information"; `ctgls
//! generate --class R --callee E` and the editor's *Generate integration tests through R*):
//! which coupled branches its written tests cover, and the texts of both classes it ran on.
//! Kept apart from the class records (`classes/`), whose tests are a class's unit suite:
//! `<workspace>/.ctgls/integration/<R>--<E>-<hash>.json` (format `ctgls-integration`, version
//! 1), replaced by each run of the pair. The serde structs are private to this module.

use std::path::{Path, PathBuf};
use std::time::SystemTime;

use serde::{Deserialize, Serialize};

use super::file_name::record_file_name;
use super::{disk, Store, StoreError};

/// The directory of the integration records inside the store.
pub const INTEGRATION_DIR: &str = "integration";

const FORMAT_NAME: &str = "ctgls-integration";
const FORMAT_VERSION: u64 = 1;

/// The last integration run of `caller` through `callee` (binary names).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IntegrationRunRecord {
    pub caller: String,
    pub callee: String,
    /// `crate::pipeline::source_hash` of the texts the run saw.
    pub caller_hash: String,
    pub callee_hash: String,
    pub timestamp_ms: u64,
    /// Every coupled pair of the run, sorted.
    pub pairs: Vec<StoredCoupledPair>,
}

/// A coupled branch and the written test that covers it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredCoupledPair {
    /// As `javamodel::coupling` displays them (`…#transfer(String,String,long)/B2.F`,
    /// `…#open(String,long)/entry`).
    pub caller_branch: String,
    pub callee_branch: String,
    /// The JUnit method; `None`: not covered.
    pub test: Option<String>,
}

#[derive(Serialize, Deserialize)]
struct RecordDto {
    format: String,
    version: u64,
    caller: String,
    callee: String,
    caller_hash: String,
    callee_hash: String,
    timestamp_ms: u64,
    pairs: Vec<PairDto>,
}

#[derive(Serialize, Deserialize)]
struct PairDto {
    caller_branch: String,
    callee_branch: String,
    test: Option<String>,
}

impl Store {
    /// Where the record of the pair lives.
    pub fn integration_path(&self, caller: &str, callee: &str) -> PathBuf {
        self.dir()
            .join(INTEGRATION_DIR)
            .join(record_file_name(&format!("{caller}--{callee}")))
    }

    /// Replaces the pair's record with `record`.
    pub fn save_integration(&self, record: &IntegrationRunRecord) -> Result<(), StoreError> {
        let path = self.integration_path(&record.caller, &record.callee);
        let dto = RecordDto {
            format: FORMAT_NAME.to_string(),
            version: FORMAT_VERSION,
            caller: record.caller.clone(),
            callee: record.callee.clone(),
            caller_hash: record.caller_hash.clone(),
            callee_hash: record.callee_hash.clone(),
            timestamp_ms: record.timestamp_ms,
            pairs: record
                .pairs
                .iter()
                .map(|p| PairDto {
                    caller_branch: p.caller_branch.clone(),
                    callee_branch: p.callee_branch.clone(),
                    test: p.test.clone(),
                })
                .collect(),
        };
        let mut text = serde_json::to_string_pretty(&dto).map_err(|e| StoreError::Encode {
            path: path.clone(),
            message: e.to_string(),
        })?;
        text.push('\n');
        self.write_support_files();
        disk::write_atomic(&path, text.as_bytes())?;
        disk::remove_stale_temp_files(&path, SystemTime::now());
        Ok(())
    }

    /// The pair's record; `None` when no integration run of it was recorded.
    pub fn load_integration(
        &self,
        caller: &str,
        callee: &str,
    ) -> Result<Option<IntegrationRunRecord>, StoreError> {
        let path = self.integration_path(caller, callee);
        let Some(record) = read_integration(&path)? else {
            return Ok(None);
        };
        if (record.caller.as_str(), record.callee.as_str()) != (caller, callee) {
            return Err(StoreError::Corrupt {
                path,
                message: format!(
                    "the record is of {} through {}",
                    record.caller, record.callee
                ),
            });
        }
        Ok(Some(record))
    }

    /// Every integration record of the store, in file-name order, and the files that could not
    /// be read (`ctgls merge` joins shards' records with them).
    pub fn integration_records(&self) -> (Vec<IntegrationRunRecord>, Vec<StoreError>) {
        let mut records = Vec::new();
        let mut problems = Vec::new();
        for path in disk::json_files(&self.dir().join(INTEGRATION_DIR)) {
            match read_integration(&path) {
                Ok(Some(record)) => records.push(record),
                Ok(None) => {}
                Err(e) => problems.push(e),
            }
        }
        (records, problems)
    }
}

/// The integration record in the file at `path`; `None` when there is no such file.
fn read_integration(path: &Path) -> Result<Option<IntegrationRunRecord>, StoreError> {
    let path = path.to_path_buf();
    let Some(text) = disk::read_text(&path)? else {
        return Ok(None);
    };
    let corrupt = |message: String| StoreError::Corrupt {
        path: path.clone(),
        message,
    };
    let dto: RecordDto = serde_json::from_str(&text).map_err(|e| corrupt(e.to_string()))?;
    if dto.format != FORMAT_NAME {
        return Err(corrupt(format!(
            "format is '{}', not '{FORMAT_NAME}'",
            dto.format
        )));
    }
    if dto.version != FORMAT_VERSION {
        return Err(StoreError::UnsupportedVersion {
            path,
            found: dto.version,
        });
    }
    Ok(Some(IntegrationRunRecord {
        caller: dto.caller,
        callee: dto.callee,
        caller_hash: dto.caller_hash,
        callee_hash: dto.callee_hash,
        timestamp_ms: dto.timestamp_ms,
        pairs: dto
            .pairs
            .into_iter()
            .map(|p| StoredCoupledPair {
                caller_branch: p.caller_branch,
                callee_branch: p.callee_branch,
                test: p.test,
            })
            .collect(),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_record_reads_back_and_names_its_pair() {
        let dir =
            std::env::temp_dir().join(format!("ctgls-store-integration-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let store = Store::open(&dir);
        assert_eq!(store.load_integration("p.Bank", "p.Account").unwrap(), None);
        let record = IntegrationRunRecord {
            caller: "p.Bank".into(),
            callee: "p.Account".into(),
            caller_hash: "1".into(),
            callee_hash: "2".into(),
            timestamp_ms: 3,
            pairs: vec![
                StoredCoupledPair {
                    caller_branch: "p.Bank#pay(long)/B0.F".into(),
                    callee_branch: "p.Account#withdraw(long)/B0.T".into(),
                    test: Some("payReturnsFalse".into()),
                },
                StoredCoupledPair {
                    caller_branch: "p.Bank#pay(long)/B0.F".into(),
                    callee_branch: "p.Account#withdraw(long)/B0.F".into(),
                    test: None,
                },
            ],
        };
        store.save_integration(&record).unwrap();
        assert_eq!(
            store.load_integration("p.Bank", "p.Account").unwrap(),
            Some(record)
        );
        assert_eq!(store.load_integration("p.Account", "p.Bank").unwrap(), None);
        assert!(!store.record_path("p.Bank").exists(), "no class record");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
