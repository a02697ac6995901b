//! The clock shift of perturbed verification runs without a runtime library in the tests: a
//! small preload library of ours (`preload/clockshift.c`, compiled by the crate's `build.rs`
//! with the C compiler Rust's linker needs) that interposes the C library's wall-clock calls
//! (`clock_gettime` for `CLOCK_REALTIME` and friends, `gettimeofday`, `time`, `timespec_get`)
//! and adds [`OFFSET_ENV`] seconds. It is embedded in the binary and written once into ctgls's
//! cache directory, from where a JUnit JVM loads it with `LD_PRELOAD`.
//!
//! A C file rather than a Rust `cdylib`: cargo cannot embed another crate's `cdylib` in this
//! one without unstable artifact dependencies or a nested cargo build, and a Rust library would
//! bring a second standard library into the JVM's process; 80 lines of C need only the C
//! compiler that is already there wherever Rust links on Linux.
//!
//! Linux only. macOS refuses `DYLD_INSERT_LIBRARIES` to SIP-protected binaries and the JDK's
//! `java` is often signed with the hardened runtime, and Windows has no preloading: there
//! [`clock_shift_library`] is `None` and the perturbed runs shift no clock.

use std::path::{Path, PathBuf};

/// The environment variable the library reads: seconds to add to the wall clock (signed).
pub const OFFSET_ENV: &str = "CTGLS_CLOCK_OFFSET_SECONDS";

/// The compiled library; empty where `build.rs` could not compile it (no C compiler, another
/// target OS).
const LIBRARY: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/libctgls-clockshift.so"));

/// The clock-shift library under `cache` (written there now when it is not there yet), or
/// `None` where there is none for this platform or it cannot be written.
pub fn clock_shift_library(cache: &Path) -> Option<PathBuf> {
    if LIBRARY.is_empty() || !cfg!(target_os = "linux") {
        return None;
    }
    let dir = cache
        .join("preload")
        .join(format!("{:016x}", fnv1a(LIBRARY)));
    let path = dir.join("libctgls-clockshift.so");
    if std::fs::read(&path).is_ok_and(|bytes| bytes == LIBRARY) {
        return Some(path);
    }
    std::fs::create_dir_all(&dir).ok()?;
    // Written whole under another name and renamed, so a JVM of a concurrent run never loads
    // half a library.
    let partial = dir.join(format!(".partial-{}", std::process::id()));
    std::fs::write(&partial, LIBRARY).ok()?;
    std::fs::rename(&partial, &path).ok()?;
    Some(path)
}

/// The environment that shifts the wall clock of a process by `offset_seconds` with `library`.
pub fn clock_shift_environment(library: &Path, offset_seconds: i64) -> Vec<(String, String)> {
    vec![
        ("LD_PRELOAD".into(), library.display().to_string()),
        (OFFSET_ENV.into(), offset_seconds.to_string()),
    ]
}

/// FNV-1a, a hash that stays the same across Rust releases (the directory name must).
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |hash, byte| {
        (hash ^ u64::from(*byte)).wrapping_mul(0x0100_0000_01b3)
    })
}
