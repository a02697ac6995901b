//! The sandbox on Unix systems other than Linux (macOS first): only `RLIMIT_FSIZE`, set between
//! fork and exec, besides the process group the caller gives the child. Nothing confines writes,
//! the network, unix sockets or signals, so the report always has nothing in force and
//! [`SandboxPolicy::Required`] is refused (before any process starts: see
//! [`super::SandboxPlatform::can_sandbox_fully`]; a child that got this far anyway stops before
//! exec).

use super::rlimit::file_size_limit;
use super::{SandboxPaths, SandboxPolicy, SandboxReport};

/// The child writes no status here: there is nothing to measure.
pub(crate) const STATUS_LEN: usize = 0;

/// Everything the child needs, built before fork.
pub(crate) struct PreparedSandbox {
    /// `RLIMIT_FSIZE` to set, soft and hard (never above the hard limit in force).
    file_size_limit: Option<libc::rlimit>,
    /// Fail before exec: a [`super::SandboxLevel::Full`] sandbox was required.
    refuse: bool,
}

impl PreparedSandbox {
    /// The file size bound of `policy`; `paths` has no effect, since nothing confines reads,
    /// writes or the host name.
    pub(crate) fn new(
        policy: SandboxPolicy,
        _paths: &SandboxPaths,
        max_file_bytes: u64,
    ) -> Result<Self, String> {
        Ok(PreparedSandbox {
            file_size_limit: (policy != SandboxPolicy::Off)
                .then(|| file_size_limit(max_file_bytes)),
            refuse: false,
        })
    }

    /// Runs in the forked child before exec: one syscall, no allocation.
    pub(crate) fn apply_in_child(&mut self, _status_fd: i32) -> std::io::Result<()> {
        if self.refuse {
            return Err(std::io::Error::from_raw_os_error(libc::EPERM));
        }
        if let Some(limit) = &self.file_size_limit {
            // SAFETY: setrlimit reads the prepared struct.
            if unsafe { libc::setrlimit(libc::RLIMIT_FSIZE, limit) } != 0 {
                return Err(std::io::Error::last_os_error());
            }
        }
        Ok(())
    }

    /// Makes [`PreparedSandbox::apply_in_child`] fail, so the program is never executed: no
    /// sandbox here is [`super::SandboxLevel::Full`].
    pub(crate) fn require_full(&mut self) {
        self.refuse = true;
    }

    pub(crate) fn abi(&self) -> Option<u32> {
        None
    }
}

/// What is in force in a child: nothing but the file size bound, which the report does not
/// count.
pub(crate) fn report(_kernel_abi: Option<u32>, _status: &[u8]) -> SandboxReport {
    SandboxReport::OFF
}
