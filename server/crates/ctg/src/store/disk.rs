//! The store's only file-system code: bounded reads, atomic replacement, and clean-up of the
//! temporary files a crash leaves behind.
//!
//! A file is replaced by writing a temporary file in the same directory, syncing it, renaming
//! it over the target and syncing the directory. Rename within a directory is atomic on POSIX
//! file systems (and replaces the target on Windows), so a reader sees the old file or the new
//! one, never a mix, and a crash at any point leaves the old file (plus, at worst, a temporary
//! file that readers never look at).

use std::fs::{self, File, OpenOptions};
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, SystemTime};

use super::StoreError;

/// Files larger than this are not read: a record holds at most a few hundred tests.
pub const MAX_RECORD_BYTES: u64 = 64 << 20;

/// Temporary files older than this are left over from a crash; younger ones may belong to a
/// writer that is still running (the CLI and the server can write at the same time).
pub const STALE_TEMP_AGE: Duration = Duration::from_secs(3600);

/// Makes temporary names unique between threads of one process; the process id makes them
/// unique between processes.
static TEMP_COUNTER: AtomicU64 = AtomicU64::new(0);

/// The text of `path`; `None` when there is no such file.
pub fn read_text(path: &Path) -> Result<Option<String>, StoreError> {
    let io_err = |source| StoreError::Io {
        path: path.to_path_buf(),
        source,
    };
    let file = match File::open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(io_err(e)),
    };
    let mut bytes = Vec::new();
    file.take(MAX_RECORD_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(io_err)?;
    if bytes.len() as u64 > MAX_RECORD_BYTES {
        return Err(StoreError::TooLarge {
            path: path.to_path_buf(),
            limit: MAX_RECORD_BYTES,
        });
    }
    String::from_utf8(bytes)
        .map(Some)
        .map_err(|e| StoreError::Corrupt {
            path: path.to_path_buf(),
            message: format!("not UTF-8 text ({e})"),
        })
}

/// The `.json` files of `dir`, sorted; none when the directory cannot be read (a store with no
/// records of that kind yet).
pub fn json_files(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut paths: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    paths.sort();
    paths
}

/// Replaces `path` with `contents` atomically, creating its directory when missing.
pub fn write_atomic(path: &Path, contents: &[u8]) -> Result<(), StoreError> {
    let io_err = |source| StoreError::Io {
        path: path.to_path_buf(),
        source,
    };
    let (dir, name) = split(path).map_err(io_err)?;
    fs::create_dir_all(dir).map_err(io_err)?;
    let temp = dir.join(format!(
        "{name}.{}-{}.tmp",
        std::process::id(),
        TEMP_COUNTER.fetch_add(1, Ordering::Relaxed)
    ));
    let result = write_synced(&temp, contents).and_then(|()| fs::rename(&temp, path));
    if let Err(e) = result {
        // Best effort: the temporary file is useless now; a failure to remove it is covered
        // by the stale-file clean-up.
        let _ = fs::remove_file(&temp);
        return Err(io_err(e));
    }
    sync_dir(dir);
    Ok(())
}

/// Writes `path` atomically unless it exists.
pub fn write_if_missing(path: &Path, contents: &[u8]) -> Result<(), StoreError> {
    if path.exists() {
        return Ok(());
    }
    write_atomic(path, contents)
}

/// Removes temporary files of `path` older than [`STALE_TEMP_AGE`]; failures are ignored
/// (another writer may have removed or renamed the file meanwhile).
pub fn remove_stale_temp_files(path: &Path, now: SystemTime) {
    let Ok((dir, name)) = split(path) else {
        return;
    };
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    let prefix = format!("{name}.");
    for entry in entries.flatten() {
        let file_name = entry.file_name();
        let Some(file_name) = file_name.to_str() else {
            continue;
        };
        if !(file_name.starts_with(&prefix) && file_name.ends_with(".tmp")) {
            continue;
        }
        let stale = entry
            .metadata()
            .and_then(|m| m.modified())
            .ok()
            .and_then(|modified| now.duration_since(modified).ok())
            .is_some_and(|age| age > STALE_TEMP_AGE);
        if stale {
            let _ = fs::remove_file(entry.path());
        }
    }
}

fn split(path: &Path) -> io::Result<(&Path, &str)> {
    let dir = path.parent().unwrap_or(Path::new("."));
    let name = path
        .file_name()
        .and_then(|n| n.to_str())
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "not a file path"))?;
    Ok((dir, name))
}

fn write_synced(path: &Path, contents: &[u8]) -> io::Result<()> {
    let mut file = OpenOptions::new().write(true).create_new(true).open(path)?;
    file.write_all(contents)?;
    file.sync_all()
}

/// Makes the rename durable. Directories cannot be opened for syncing everywhere (Windows);
/// there the rename is as durable as the file system makes it.
fn sync_dir(dir: &Path) {
    if let Ok(d) = File::open(dir) {
        let _ = d.sync_all();
    }
}
