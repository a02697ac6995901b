//! Joining the `.ctgls/` stores of CI shards (`ctgls merge`): every shard started from the
//! same store and ran other classes, so for each class the record with the newest run is the
//! one to keep (it already holds the older history); so for each class-integration pair
//! (`integration/`), whose record is of its last run only.

use std::collections::BTreeMap;

use ctg::store::{ClassRecord, IntegrationRunRecord, Store};

/// What [`merge_stores`] did.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct StoreMerge {
    /// Classes whose record was taken from one of the sources.
    pub taken: Vec<String>,
    /// Class-integration pairs (`caller--callee`) whose record was taken from a source.
    pub pairs_taken: Vec<String>,
    /// Files that could not be read (left out, said on stderr).
    pub problems: Vec<String>,
}

/// Copies into `target` each class's newest record among `sources` and `target` itself.
pub fn merge_stores(target: &Store, sources: &[Store]) -> Result<StoreMerge, String> {
    let mut merge = StoreMerge::default();
    let taken = newest(
        target.records(),
        sources.iter().map(Store::records),
        |r: &ClassRecord| r.class.clone(),
        last_run,
        &mut merge.problems,
    );
    for (class, record) in taken {
        target
            .put_record(&record)
            .map_err(|e| format!("cannot write the record of {class}: {e}"))?;
        merge.taken.push(class);
    }
    let taken = newest(
        target.integration_records(),
        sources.iter().map(Store::integration_records),
        |r: &IntegrationRunRecord| (r.caller.clone(), r.callee.clone()),
        |r| r.timestamp_ms,
        &mut merge.problems,
    );
    for ((caller, callee), record) in taken {
        target.save_integration(&record).map_err(|e| {
            format!("cannot write the integration record of {caller} through {callee}: {e}")
        })?;
        merge.pairs_taken.push(format!("{caller}--{callee}"));
    }
    Ok(merge)
}

/// Of each key's records in the sources, the newest, when it is newer than the target's own
/// (`existing`); the files that could not be read go to `problems`.
fn newest<K: Ord, R, E: std::fmt::Display>(
    existing: (Vec<R>, Vec<E>),
    sources: impl Iterator<Item = (Vec<R>, Vec<E>)>,
    key: impl Fn(&R) -> K,
    when: impl Fn(&R) -> u64,
    problems: &mut Vec<String>,
) -> BTreeMap<K, R> {
    let (existing, unreadable) = existing;
    problems.extend(unreadable.iter().map(|p| p.to_string()));
    let mut newest: BTreeMap<K, (u64, Option<R>)> =
        existing.iter().map(|r| (key(r), (when(r), None))).collect();
    for (records, unreadable) in sources {
        problems.extend(unreadable.iter().map(|p| p.to_string()));
        for record in records {
            let at = when(&record);
            let entry = newest.entry(key(&record)).or_insert((0, None));
            if entry.1.is_none() && entry.0 == 0 || at > entry.0 {
                *entry = (at, Some(record));
            }
        }
    }
    newest
        .into_iter()
        .filter_map(|(k, (_, record))| Some((k, record?)))
        .collect()
}

fn last_run(record: &ClassRecord) -> u64 {
    record.history.last().map_or(0, |e| e.run.timestamp_ms)
}

#[cfg(test)]
mod tests {
    use super::*;
    use ctg::store::StoredCoupledPair;

    fn record(caller: &str, timestamp_ms: u64, test: &str) -> IntegrationRunRecord {
        IntegrationRunRecord {
            caller: caller.into(),
            callee: "p.E".into(),
            caller_hash: "r".into(),
            callee_hash: "e".into(),
            timestamp_ms,
            pairs: vec![StoredCoupledPair {
                caller_branch: "p.R#m()/B1:true".into(),
                callee_branch: "p.E#n()/B1:false".into(),
                test: Some(test.into()),
            }],
        }
    }

    #[test]
    fn each_pairs_newest_integration_record_is_kept() {
        let dir = std::env::temp_dir().join(format!("ctgls-merge-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let (target, one, two) = (
            Store::at(dir.join("target")),
            Store::at(dir.join("one")),
            Store::at(dir.join("two")),
        );
        target.save_integration(&record("p.R", 5, "old")).unwrap();
        one.save_integration(&record("p.R", 9, "newest")).unwrap();
        two.save_integration(&record("p.R", 7, "older")).unwrap();
        two.save_integration(&record("p.S", 3, "only")).unwrap();

        let merge = merge_stores(&target, &[one, two]).unwrap();
        assert_eq!(merge.pairs_taken, ["p.R--p.E", "p.S--p.E"]);
        assert!(merge.problems.is_empty(), "{:?}", merge.problems);
        let test = |caller: &str| {
            target
                .load_integration(caller, "p.E")
                .unwrap()
                .unwrap()
                .pairs[0]
                .test
                .clone()
                .unwrap()
        };
        assert_eq!(test("p.R"), "newest");
        assert_eq!(test("p.S"), "only");
        // Merging again takes nothing: the target holds the newest of each pair.
        let again = merge_stores(&target, &[Store::at(dir.join("one"))]).unwrap();
        assert!(again.pairs_taken.is_empty());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
