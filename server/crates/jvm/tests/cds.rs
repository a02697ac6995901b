//! Class data sharing for the worker against a real JVM: the first supervisor on a cache makes
//! the archive, later workers map it (seen in `/proc/<pid>/maps`), and a damaged archive costs
//! one failed start, never a failed request.

mod common;

use std::path::{Path, PathBuf};

use jvm::*;

fn fresh_cache(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("ctgls-cds-test-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

fn config(cache: &Path) -> WorkerConfig {
    WorkerConfig {
        cache_dir: Some(cache.to_path_buf()),
        ..common::config()
    }
}

/// The worker archive under `cache` (there is one JDK, so one archive directory).
fn worker_archive(cache: &Path) -> Option<PathBuf> {
    let jdk_dirs = std::fs::read_dir(cache.join("cds")).ok()?;
    jdk_dirs
        .filter_map(Result::ok)
        .filter_map(|d| std::fs::read_dir(d.path()).ok())
        .flatten()
        .filter_map(Result::ok)
        .map(|e| e.path())
        .find(|p| {
            let name = p.file_name().unwrap().to_string_lossy();
            name.starts_with("worker-") && name.ends_with(".jsa")
        })
}

fn maps_archive(sup: &Supervisor, archive: &Path) -> bool {
    let maps = std::fs::read_to_string(format!("/proc/{}/maps", sup.worker_pid().unwrap()));
    maps.unwrap().contains(&*archive.to_string_lossy())
}

/// Compiles and runs a test of the bank fixture: the worker is fully usable.
fn works(sup: &mut Supervisor) {
    let unit = common::compile_project(sup, "bank");
    let out = sup
        .execute(
            unit,
            &[TestCase {
                statements: vec![
                    Statement::Value(Literal::Int(5)),
                    Statement::New {
                        class: "bank.Account".into(),
                        params: vec!["int".into()],
                        args: vec![0],
                    },
                ],
            }],
            &ExecuteOptions::default(),
        )
        .unwrap();
    let ExecutionOutcome::Finished(results) = out else {
        panic!("{out:?}");
    };
    assert_eq!(results[0].status, TestStatus::Ok, "{:?}", results[0]);
}

/// A supervisor on `cache`, or `None` (the test skips) when the JDK makes no dynamic archives.
fn supervisor_with_archives(cache: &Path) -> Option<Supervisor> {
    let s = Supervisor::new(config(cache)).unwrap();
    if s.shared_archives().enabled() {
        return Some(s);
    }
    eprintln!(
        "skipped: JDK {} has no dynamic archives",
        s.jdk().version.full
    );
    None
}

#[test]
fn the_first_supervisor_makes_the_archive_and_later_workers_map_it() {
    let cache = fresh_cache("make");
    let Some(mut first) = supervisor_with_archives(&cache) else {
        return;
    };
    assert!(!first.uses_worker_archive(), "none made yet");
    works(&mut first);
    assert_eq!(first.prepare_worker_archive(), Some(Training::Made));
    let archive = worker_archive(&cache).expect("an archive in the cache");
    assert!(
        !maps_archive(&first, &archive),
        "the running worker goes on as it started"
    );
    assert!(first.uses_worker_archive(), "the next start maps it");
    drop(first);

    let mut second = Supervisor::new(config(&cache)).unwrap();
    assert_eq!(second.prepare_worker_archive(), Some(Training::Skipped));
    assert!(second.uses_worker_archive());
    works(&mut second);
    assert!(maps_archive(&second, &archive), "{}", archive.display());
    drop(second);

    let mut off = Supervisor::new(WorkerConfig {
        class_data_sharing: false,
        ..config(&cache)
    })
    .unwrap();
    assert!(!off.uses_worker_archive());
    works(&mut off);
    assert!(!maps_archive(&off, &archive));
    drop(off);
    let _ = std::fs::remove_dir_all(&cache);
}

#[test]
fn a_damaged_archive_costs_one_start_and_is_made_again() {
    let cache = fresh_cache("damaged");
    let Some(mut first) = supervisor_with_archives(&cache) else {
        return;
    };
    assert_eq!(first.prepare_worker_archive(), Some(Training::Made));
    drop(first);
    let archive = worker_archive(&cache).expect("an archive in the cache");
    // Cut it short and record the new length, so it passes the length check: the JVM itself
    // must meet the damage (it dies mapping such a file).
    let bytes = std::fs::read(&archive).unwrap();
    std::fs::set_permissions(
        &archive,
        std::os::unix::fs::PermissionsExt::from_mode(0o644),
    )
    .unwrap();
    std::fs::write(&archive, &bytes[..bytes.len() / 3]).unwrap();
    std::fs::write(archive.with_extension("len"), (bytes.len() / 3).to_string()).unwrap();

    let mut damaged = Supervisor::new(config(&cache)).unwrap();
    assert!(damaged.uses_worker_archive());
    works(&mut damaged);
    assert!(!damaged.uses_worker_archive(), "started again without it");
    assert_eq!(damaged.starts(), 2);
    assert!(!archive.exists(), "the damaged archive is gone");
    drop(damaged);

    let mut again = Supervisor::new(config(&cache)).unwrap();
    assert!(!again.uses_worker_archive());
    assert_eq!(again.prepare_worker_archive(), Some(Training::Made));
    assert!(again.uses_worker_archive());
    drop(again);
    let _ = std::fs::remove_dir_all(&cache);
}
