//! `RLIMIT_FSIZE`, the part of the sandbox every Unix system has: no file code under test
//! writes grows beyond the configured size.

/// `RLIMIT_FSIZE` of `max_bytes`, lowered to the hard limit in force.
pub(super) fn file_size_limit(max_bytes: u64) -> libc::rlimit {
    let mut current = libc::rlimit {
        rlim_cur: libc::RLIM_INFINITY,
        rlim_max: libc::RLIM_INFINITY,
    };
    // SAFETY: getrlimit fills the struct; on failure it stays unlimited.
    unsafe { libc::getrlimit(libc::RLIMIT_FSIZE, &mut current) };
    let bytes = max_bytes.min(current.rlim_max);
    libc::rlimit {
        rlim_cur: bytes,
        rlim_max: bytes,
    }
}
