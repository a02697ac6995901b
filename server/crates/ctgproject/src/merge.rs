//! Joining the `.ctgls/` stores of CI shards (`ctgls merge`): every shard started from the
//! same store and ran other classes, so for each class the record with the newest run is the
//! one to keep (it already holds the older history).

use std::collections::BTreeMap;

use ctg::store::{ClassRecord, Store};

/// What [`merge_stores`] did.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct StoreMerge {
    /// Classes whose record was taken from one of the sources.
    pub taken: Vec<String>,
    /// Files that could not be read (left out, said on stderr).
    pub problems: Vec<String>,
}

/// Copies into `target` each class's newest record among `sources` and `target` itself.
pub fn merge_stores(target: &Store, sources: &[Store]) -> Result<StoreMerge, String> {
    let mut merge = StoreMerge::default();
    let (existing, problems) = target.records();
    merge
        .problems
        .extend(problems.iter().map(|p| p.to_string()));
    let mut newest: BTreeMap<String, (u64, Option<ClassRecord>)> = existing
        .into_iter()
        .map(|r| (r.class.clone(), (last_run(&r), None)))
        .collect();
    for source in sources {
        let (records, problems) = source.records();
        merge
            .problems
            .extend(problems.iter().map(|p| p.to_string()));
        for record in records {
            let when = last_run(&record);
            let entry = newest.entry(record.class.clone()).or_insert((0, None));
            if entry.1.is_none() && entry.0 == 0 || when > entry.0 {
                *entry = (when, Some(record));
            }
        }
    }
    for (class, (_, record)) in newest {
        if let Some(record) = record {
            target
                .put_record(&record)
                .map_err(|e| format!("cannot write the record of {class}: {e}"))?;
            merge.taken.push(class);
        }
    }
    Ok(merge)
}

fn last_run(record: &ClassRecord) -> u64 {
    record.history.last().map_or(0, |e| e.run.timestamp_ms)
}
