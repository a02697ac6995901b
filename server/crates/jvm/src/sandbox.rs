//! The OS sandbox of the worker and of every other process that runs code under test (see
//! [`crate::command`]): Landlock (writes only beneath the given directories, no TCP bind/connect,
//! no signals or abstract unix sockets out of the domain) plus a private network namespace where
//! the kernel allows one. Everything is prepared in the parent; the child, between fork and exec,
//! only makes syscalls (no allocation), see [`PreparedSandbox::apply_in_child`].

use std::ffi::CString;
use std::fmt;
use std::path::Path;

use landlock::{
    path_beneath_rules, Access, AccessFs, AccessNet, CompatLevel, Compatible, RulesetAttr,
    RulesetCreated, RulesetCreatedAttr, RulesetStatus, Scope, ABI,
};

/// How hard to try.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SandboxPolicy {
    /// No sandbox (for debugging only).
    Off,
    /// Use what the kernel offers; report the effective level.
    BestEffort,
    /// Refuse to run unless both the file-system and the network restriction are in force.
    Required,
}

/// Network isolation by namespace.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NetworkNamespace {
    None,
    /// `unshare(CLONE_NEWNET)` with privileges (e.g. running as root).
    Private,
    /// `unshare(CLONE_NEWUSER | CLONE_NEWNET)` as an unprivileged user.
    PrivateInUserNamespace,
}

/// The sandbox in force for a running worker, as measured when it was started.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SandboxReport {
    /// Landlock ABI version of the running kernel, if it has Landlock enabled.
    pub landlock_abi: Option<u32>,
    /// Writes outside the scratch directory are denied.
    pub filesystem: bool,
    /// TCP bind and connect are denied by Landlock (ABI 4+).
    pub tcp: bool,
    /// Signals and abstract unix sockets cannot leave the sandbox (Landlock ABI 6+).
    pub scoped: bool,
    pub network_namespace: NetworkNamespace,
}

/// A summary for the editor's status line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SandboxLevel {
    /// File-system writes confined and network cut off.
    Full,
    /// Something is in force, but not all of the above.
    Partial,
    None,
}

impl SandboxReport {
    pub(crate) const OFF: SandboxReport = SandboxReport {
        landlock_abi: None,
        filesystem: false,
        tcp: false,
        scoped: false,
        network_namespace: NetworkNamespace::None,
    };

    pub fn network_isolated(&self) -> bool {
        self.tcp || self.network_namespace != NetworkNamespace::None
    }

    pub fn level(&self) -> SandboxLevel {
        match (self.filesystem, self.network_isolated()) {
            (true, true) => SandboxLevel::Full,
            (false, false) => SandboxLevel::None,
            _ => SandboxLevel::Partial,
        }
    }

    /// A user-visible warning when the sandbox is weaker than [`SandboxLevel::Full`].
    pub fn warning(&self) -> Option<String> {
        let mut missing = Vec::new();
        if !self.filesystem {
            missing.push("code under test can write anywhere the user can (no Landlock)");
        }
        if !self.network_isolated() {
            missing.push("code under test can use the network");
        }
        (!missing.is_empty()).then(|| format!("weak sandbox: {}", missing.join("; ")))
    }
}

impl fmt::Display for SandboxReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.landlock_abi {
            Some(abi) => write!(f, "landlock ABI {abi}")?,
            None => write!(f, "no landlock")?,
        }
        write!(
            f,
            " (fs writes confined: {}, tcp denied: {}, scoped: {}), network namespace: {:?}",
            self.filesystem, self.tcp, self.scoped, self.network_namespace
        )
    }
}

/// The Landlock ABI of the running kernel (`landlock_create_ruleset` with the VERSION flag).
pub fn kernel_landlock_abi() -> Option<u32> {
    const LANDLOCK_CREATE_RULESET_VERSION: libc::c_uint = 1;
    // SAFETY: the version query takes no pointer and returns a number or -1.
    let v = unsafe {
        libc::syscall(
            libc::SYS_landlock_create_ruleset,
            std::ptr::null::<libc::c_void>(),
            0usize,
            LANDLOCK_CREATE_RULESET_VERSION,
        )
    };
    (v > 0).then_some(v as u32)
}

/// Status bytes the child writes to the parent before exec.
const NET_NONE: u8 = 0;
const NET_PRIVATE: u8 = 1;
const NET_USER: u8 = 2;
const LL_NOT: u8 = 0;
const LL_PARTIAL: u8 = 1;
const LL_FULL: u8 = 2;
const LL_FAILED: u8 = 3;

/// Everything the child needs, built before fork.
pub(crate) struct PreparedSandbox {
    ruleset: Option<RulesetCreated>,
    netns: bool,
    setgroups_path: CString,
    uid_map_path: CString,
    gid_map_path: CString,
    uid_map: Vec<u8>,
    gid_map: Vec<u8>,
    abi: Option<u32>,
    /// Fail before exec unless the sandbox came out [`SandboxLevel::Full`].
    require_full: bool,
}

impl PreparedSandbox {
    /// A sandbox in which writes are allowed only beneath the `writable` directories (and on
    /// /dev/null).
    pub(crate) fn new(policy: SandboxPolicy, writable: &[&Path]) -> Result<Self, String> {
        // SAFETY: getuid/getgid cannot fail.
        let (uid, gid) = unsafe { (libc::getuid(), libc::getgid()) };
        let mut p = PreparedSandbox {
            ruleset: None,
            netns: policy != SandboxPolicy::Off,
            setgroups_path: CString::from(c"/proc/self/setgroups"),
            uid_map_path: CString::from(c"/proc/self/uid_map"),
            gid_map_path: CString::from(c"/proc/self/gid_map"),
            uid_map: format!("{uid} {uid} 1\n").into_bytes(),
            gid_map: format!("{gid} {gid} 1\n").into_bytes(),
            abi: kernel_landlock_abi(),
            require_full: false,
        };
        if policy != SandboxPolicy::Off && p.abi.is_some() {
            p.ruleset = Some(landlock_ruleset(writable).map_err(|e| e.to_string())?);
        }
        Ok(p)
    }

    /// Runs in the forked child before exec: syscalls only, no allocation, no locks.
    pub(crate) fn apply_in_child(&mut self, status_fd: i32) -> std::io::Result<()> {
        let mut net = NET_NONE;
        if self.netns {
            // SAFETY: plain syscalls on prepared, NUL-terminated paths and buffers.
            unsafe {
                if libc::unshare(libc::CLONE_NEWNET) == 0 {
                    net = NET_PRIVATE;
                } else if libc::unshare(libc::CLONE_NEWUSER | libc::CLONE_NEWNET) == 0 {
                    // Map our own ids so files keep their owners inside the namespace.
                    write_file(&self.setgroups_path, b"deny");
                    write_file(&self.uid_map_path, &self.uid_map);
                    write_file(&self.gid_map_path, &self.gid_map);
                    net = NET_USER;
                }
            }
        }
        let mut ll = LL_NOT;
        let mut failure = None;
        if let Some(rs) = self.ruleset.take() {
            ll = match rs.restrict_self() {
                Ok(s) => match s.ruleset {
                    RulesetStatus::FullyEnforced => LL_FULL,
                    RulesetStatus::PartiallyEnforced => LL_PARTIAL,
                    RulesetStatus::NotEnforced => LL_NOT,
                },
                Err(_) => {
                    failure = Some(std::io::Error::last_os_error());
                    LL_FAILED
                }
            };
        }
        let bytes = [net, ll];
        // SAFETY: writing two bytes from the stack to a pipe.
        unsafe { libc::write(status_fd, bytes.as_ptr().cast(), bytes.len()) };
        if let Some(e) = failure {
            return Err(e);
        }
        // `report` builds a plain value on the stack: still no allocation.
        if self.require_full && report(self.abi, &bytes).level() != SandboxLevel::Full {
            return Err(std::io::Error::from_raw_os_error(libc::EPERM));
        }
        Ok(())
    }

    /// Makes [`PreparedSandbox::apply_in_child`] fail, so the program is never executed, when
    /// the sandbox in force is weaker than [`SandboxLevel::Full`].
    pub(crate) fn require_full(&mut self) {
        self.require_full = true;
    }

    pub(crate) fn abi(&self) -> Option<u32> {
        self.abi
    }
}

/// Interprets the status bytes the child wrote before exec.
pub(crate) fn report(kernel_abi: Option<u32>, status: &[u8]) -> SandboxReport {
    let net = status.first().copied().unwrap_or(NET_NONE);
    let ll = status.get(1).copied().unwrap_or(LL_NOT);
    let enforced = ll == LL_FULL || ll == LL_PARTIAL;
    let abi = kernel_abi.unwrap_or(0);
    SandboxReport {
        landlock_abi: kernel_abi,
        filesystem: enforced,
        tcp: enforced && abi >= 4,
        scoped: enforced && abi >= 6,
        network_namespace: match net {
            NET_PRIVATE => NetworkNamespace::Private,
            NET_USER => NetworkNamespace::PrivateInUserNamespace,
            _ => NetworkNamespace::None,
        },
    }
}

/// # Safety
/// Async-signal-safe: open/write/close on a prepared path.
unsafe fn write_file(path: &CString, data: &[u8]) {
    let fd = libc::open(path.as_ptr(), libc::O_WRONLY | libc::O_CLOEXEC);
    if fd >= 0 {
        libc::write(fd, data.as_ptr().cast(), data.len());
        libc::close(fd);
    }
}

/// Handles every write right known to ABI 6 and allows them only beneath the `writable`
/// directories (and on /dev/null); reads and execution stay unrestricted. TCP bind/connect are
/// handled with no rule allowing them. Best effort: older kernels enforce the subset they know.
fn landlock_ruleset(writable: &[&Path]) -> Result<RulesetCreated, landlock::RulesetError> {
    let abi = ABI::V6;
    let write = AccessFs::from_write(abi);
    landlock::Ruleset::default()
        .set_compatibility(CompatLevel::BestEffort)
        .handle_access(write)?
        .handle_access(AccessNet::from_all(abi))?
        .scope(Scope::AbstractUnixSocket | Scope::Signal)?
        .create()?
        .add_rules(path_beneath_rules(writable, write))?
        .add_rules(path_beneath_rules(["/dev/null"], write))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_and_warnings() {
        let full = SandboxReport {
            landlock_abi: Some(6),
            filesystem: true,
            tcp: true,
            scoped: true,
            network_namespace: NetworkNamespace::None,
        };
        assert_eq!(full.level(), SandboxLevel::Full);
        assert_eq!(full.warning(), None);
        let fs_only = SandboxReport {
            tcp: false,
            scoped: false,
            landlock_abi: Some(3),
            ..full
        };
        assert_eq!(fs_only.level(), SandboxLevel::Partial);
        assert!(fs_only.warning().unwrap().contains("network"));
        assert_eq!(SandboxReport::OFF.level(), SandboxLevel::None);
    }
}
