//! The sandbox on Linux: Landlock (writes only beneath the given directories, no TCP
//! bind/connect, no signals or abstract unix sockets out of the domain), a private network
//! namespace where the kernel allows one, a seccomp filter (no unix sockets, no leaving the
//! process group: [`crate::seccomp`]) and `RLIMIT_FSIZE`. Everything is prepared in the parent;
//! the child, between fork and exec, only makes syscalls (no allocation), see
//! [`PreparedSandbox::apply_in_child`].

use std::ffi::CString;
use std::path::Path;

use super::rlimit::file_size_limit;
use super::{NetworkNamespace, SandboxLevel, SandboxPlatform, SandboxPolicy, SandboxReport};
use crate::seccomp::SyscallFilter;
use landlock::{
    path_beneath_rules, Access, AccessFs, AccessNet, CompatLevel, Compatible, RulesetAttr,
    RulesetCreated, RulesetCreatedAttr, RulesetStatus, Scope, ABI,
};

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
const FILTER_NOT: u8 = 0;
const FILTER_ON: u8 = 1;
/// How many status bytes a child that ran the whole of [`PreparedSandbox::apply_in_child`]
/// writes: a shorter status means it failed before.
pub(crate) const STATUS_LEN: usize = 3;

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
    filter: Option<SyscallFilter>,
    /// `RLIMIT_FSIZE` to set, soft and hard (never above the hard limit in force, which an
    /// unprivileged process cannot raise).
    file_size_limit: Option<libc::rlimit>,
    /// Fail before exec unless the sandbox came out [`SandboxLevel::Full`].
    require_full: bool,
}

impl PreparedSandbox {
    /// A sandbox in which writes are allowed only beneath the `writable` directories (and on
    /// /dev/null), to files of at most `max_file_bytes`.
    pub(crate) fn new(
        policy: SandboxPolicy,
        writable: &[&Path],
        max_file_bytes: u64,
    ) -> Result<Self, String> {
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
            filter: None,
            file_size_limit: None,
            require_full: false,
        };
        if policy != SandboxPolicy::Off {
            p.file_size_limit = Some(file_size_limit(max_file_bytes));
            if p.abi.is_some() {
                p.ruleset = Some(landlock_ruleset(writable).map_err(|e| e.to_string())?);
            }
            p.filter = SyscallFilter::for_this_target();
        }
        Ok(p)
    }

    /// Runs in the forked child before exec: syscalls only, no allocation, no locks. The
    /// seccomp filter comes last, after the process group (set by `Command` before its
    /// `pre_exec` hooks), the namespaces and Landlock, which its own rules would otherwise deny
    /// or which need system calls it refuses; it binds the program exec'd next and everything
    /// that starts.
    pub(crate) fn apply_in_child(&mut self, status_fd: i32) -> std::io::Result<()> {
        if let Some(limit) = &self.file_size_limit {
            // SAFETY: setrlimit reads the prepared struct.
            if unsafe { libc::setrlimit(libc::RLIMIT_FSIZE, limit) } != 0 {
                return Err(std::io::Error::last_os_error());
            }
        }
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
        let mut filter = FILTER_NOT;
        if failure.is_none() {
            if let Some(f) = &self.filter {
                // A kernel without seccomp leaves the filter out; the report says so.
                if f.install_in_child().is_ok() {
                    filter = FILTER_ON;
                }
            }
        }
        let bytes: [u8; STATUS_LEN] = [net, ll, filter];
        // SAFETY: writing the status bytes from the stack to a pipe.
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
    let filter = status.get(2).copied().unwrap_or(FILTER_NOT);
    let enforced = ll == LL_FULL || ll == LL_PARTIAL;
    let abi = kernel_abi.unwrap_or(0);
    SandboxReport {
        platform: SandboxPlatform::Linux,
        landlock_abi: kernel_abi,
        filesystem: enforced,
        tcp: enforced && abi >= 4,
        scoped: enforced && abi >= 6,
        network_namespace: match net {
            NET_PRIVATE => NetworkNamespace::Private,
            NET_USER => NetworkNamespace::PrivateInUserNamespace,
            _ => NetworkNamespace::None,
        },
        syscall_filter: filter == FILTER_ON,
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

    const FULL: SandboxReport = crate::sandbox::EVERY_PART;

    fn partial_naming(report: SandboxReport, gap: &str) {
        assert_eq!(report.level(), SandboxLevel::Partial, "{report}");
        let warning = report.warning().unwrap();
        assert!(warning.contains(gap), "{warning}");
        assert_eq!(warning.matches("; ").count(), 0, "one gap only: {warning}");
    }

    #[test]
    fn full_needs_every_part() {
        assert_eq!(FULL.level(), SandboxLevel::Full);
        assert_eq!(FULL.warning(), None);
        let user_namespace = SandboxReport {
            network_namespace: NetworkNamespace::PrivateInUserNamespace,
            ..FULL
        };
        assert_eq!(user_namespace.level(), SandboxLevel::Full);
        // The namespace covers TCP when Landlock's TCP rule is missing (ABI 6 without it cannot
        // happen, but the namespace alone is what Full needs).
        assert_eq!(
            SandboxReport { tcp: false, ..FULL }.level(),
            SandboxLevel::Full
        );
    }

    #[test]
    fn without_a_network_namespace_udp_stays_open() {
        partial_naming(
            SandboxReport {
                network_namespace: NetworkNamespace::None,
                ..FULL
            },
            "UDP",
        );
        partial_naming(
            SandboxReport {
                network_namespace: NetworkNamespace::None,
                tcp: false,
                ..FULL
            },
            "can use the network",
        );
    }

    #[test]
    fn below_landlock_abi_6_signals_are_not_scoped() {
        partial_naming(
            SandboxReport {
                landlock_abi: Some(5),
                scoped: false,
                ..FULL
            },
            "signals",
        );
        // From the status bytes: the same kernel answer gives the same report.
        let abi5 = report(Some(5), &[NET_PRIVATE, LL_PARTIAL, FILTER_ON]);
        assert!(abi5.filesystem && abi5.tcp && !abi5.scoped, "{abi5}");
        partial_naming(abi5, "signals");
        assert_eq!(
            report(Some(7), &[NET_PRIVATE, LL_FULL, FILTER_ON]).level(),
            SandboxLevel::Full
        );
    }

    #[test]
    fn without_the_seccomp_filter_unix_sockets_are_open() {
        partial_naming(
            SandboxReport {
                syscall_filter: false,
                ..FULL
            },
            "unix sockets",
        );
        partial_naming(
            report(Some(7), &[NET_PRIVATE, LL_FULL, FILTER_NOT]),
            "process group",
        );
    }

    #[test]
    fn without_landlock_writes_are_open_and_nothing_at_all_is_none() {
        let no_landlock = report(None, &[NET_USER, LL_NOT, FILTER_ON]);
        assert_eq!(no_landlock.level(), SandboxLevel::Partial);
        let warning = no_landlock.warning().unwrap();
        assert!(warning.contains("write anywhere"), "{warning}");
        assert!(warning.contains("signals"), "{warning}");
        assert!(!warning.contains("network"), "{warning}");
        assert_eq!(SandboxReport::OFF.level(), SandboxLevel::None);
        assert_eq!(
            SandboxReport::OFF.warning().unwrap().matches("; ").count(),
            3
        );
        // A child that failed before writing its status reports nothing in force.
        assert_eq!(report(Some(7), &[]).level(), SandboxLevel::None);
    }
}
