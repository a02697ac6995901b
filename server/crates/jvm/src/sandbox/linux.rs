//! The sandbox on Linux: Landlock (writes only beneath the given directories, reads only beneath
//! them, the given readable paths and what the JVM and the C library need, no TCP bind/connect,
//! no signals or abstract unix sockets out of the domain), a private network and UTS namespace
//! (a neutral host name) where the kernel allows one, a seccomp filter (no unix sockets, no leaving the
//! process group: [`crate::seccomp`]) and `RLIMIT_FSIZE`. Everything is prepared in the parent;
//! the child, between fork and exec, only makes syscalls (no allocation), see
//! [`PreparedSandbox::apply_in_child`].

use std::ffi::CString;
use std::os::fd::{AsRawFd, OwnedFd};
use std::path::PathBuf;

use super::rlimit::file_size_limit;
use super::{
    NetworkNamespace, SandboxLevel, SandboxPaths, SandboxPlatform, SandboxPolicy, SandboxReport,
};
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
const HOST_REAL: u8 = 0;
const HOST_NEUTRAL: u8 = 1;
const READS_OPEN: u8 = 0;
const READS_CONFINED: u8 = 1;
/// How many status bytes a child that ran the whole of [`PreparedSandbox::apply_in_child`]
/// writes: a shorter status means it failed before.
pub(crate) const STATUS_LEN: usize = 5;

/// Landlock's rights to read a file and list a directory (`LANDLOCK_ACCESS_FS_READ_FILE`,
/// `_READ_DIR`) as the kernel numbers them, for the rule the child adds itself (see
/// `PreparedSandbox::proc_self_rule`).
const RAW_READ_RIGHTS: u64 = (1 << 2) | (1 << 3);
/// `LANDLOCK_RULE_PATH_BENEATH`.
const RULE_PATH_BENEATH: libc::c_int = 1;

/// `struct landlock_path_beneath_attr`, packed as the kernel declares it.
#[repr(C, packed)]
struct PathBeneathAttr {
    allowed_access: u64,
    parent_fd: i32,
}

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
    /// The host name of the UTS namespace.
    host_name: Vec<u8>,
    /// A second descriptor of the ruleset, for the rule on the child's own `/proc/<pid>`
    /// (which only the child can open) when reads are confined.
    proc_rule_fd: Option<OwnedFd>,
    /// Reads are confined: the ruleset handles them (and `proc_rule_fd` was there).
    proc_rule_fd_used: bool,
    proc_self: CString,
}

impl PreparedSandbox {
    /// A sandbox in which writes are allowed only beneath the writable directories of `paths`
    /// (and on /dev/null), to files of at most `max_file_bytes`, and reads only beneath them,
    /// its readable paths and [`system_readable`].
    pub(crate) fn new(
        policy: SandboxPolicy,
        paths: &SandboxPaths,
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
            host_name: paths.host_name.as_bytes().to_vec(),
            proc_rule_fd: None,
            proc_rule_fd_used: false,
            proc_self: CString::from(c"/proc/self"),
        };
        if policy != SandboxPolicy::Off {
            p.file_size_limit = Some(file_size_limit(max_file_bytes));
            if p.abi.is_some() {
                let ruleset = landlock_ruleset(paths).map_err(|e| e.to_string())?;
                if paths.confine_reads {
                    p.proc_rule_fd = ruleset.try_clone().map_err(|e| e.to_string())?.into();
                }
                p.ruleset = Some(ruleset);
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
        let mut host = HOST_REAL;
        if self.netns {
            // SAFETY: plain syscalls on prepared, NUL-terminated paths and buffers.
            unsafe {
                let uts = libc::CLONE_NEWUTS;
                let user = libc::CLONE_NEWUSER;
                let netns = libc::CLONE_NEWNET;
                if libc::unshare(netns | uts) == 0 {
                    net = NET_PRIVATE;
                    host = self.set_host_name();
                } else if libc::unshare(netns) == 0 {
                    net = NET_PRIVATE;
                } else if libc::unshare(user | netns | uts) == 0 {
                    self.map_ids();
                    net = NET_USER;
                    host = self.set_host_name();
                } else if libc::unshare(user | netns) == 0 {
                    self.map_ids();
                    net = NET_USER;
                }
            }
        }
        self.proc_rule_fd_used = self.proc_rule_fd.is_some();
        if let Some(fd) = self.proc_rule_fd.take() {
            // Before the ruleset is enforced. Should it fail, the JVM reads less of itself and
            // falls back (to sysconf for the processors, to no container limits).
            self.proc_self_rule(&fd);
        }
        let reads = if self.ruleset.is_some() && self.proc_rule_fd_used {
            READS_CONFINED
        } else {
            READS_OPEN
        };
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
        let bytes: [u8; STATUS_LEN] = [net, ll, filter, host, reads];
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

    /// Maps our own ids in a new user namespace, so files keep their owners inside it.
    ///
    /// # Safety
    /// Async-signal-safe: writes prepared buffers to prepared paths.
    unsafe fn map_ids(&self) {
        write_file(&self.setgroups_path, b"deny");
        write_file(&self.uid_map_path, &self.uid_map);
        write_file(&self.gid_map_path, &self.gid_map);
    }

    /// Allows reading the child's own `/proc/<pid>` (the JVM reads its maps, limits, mount
    /// points and control groups there; the worker its children), which only the child can
    /// name: `/proc/self` opened by the parent would be the parent's. Other processes' entries
    /// stay closed: their environment would show the developer's variables (the kernel's
    /// ptrace check did not stop a sandboxed JVM from reading them).
    fn proc_self_rule(&self, ruleset: &OwnedFd) {
        // SAFETY: open/syscall/close on a prepared, NUL-terminated path and a stack struct.
        unsafe {
            let dir = libc::open(
                self.proc_self.as_ptr(),
                libc::O_PATH | libc::O_DIRECTORY | libc::O_CLOEXEC,
            );
            if dir < 0 {
                return;
            }
            let attr = PathBeneathAttr {
                allowed_access: RAW_READ_RIGHTS,
                parent_fd: dir,
            };
            libc::syscall(
                libc::SYS_landlock_add_rule,
                ruleset.as_raw_fd(),
                RULE_PATH_BENEATH,
                &attr as *const PathBeneathAttr,
                0u32,
            );
            libc::close(dir);
        }
    }

    /// Sets the neutral host name in the new UTS namespace.
    fn set_host_name(&self) -> u8 {
        // SAFETY: sethostname reads the prepared buffer.
        let r = unsafe { libc::sethostname(self.host_name.as_ptr().cast(), self.host_name.len()) };
        if r == 0 {
            HOST_NEUTRAL
        } else {
            HOST_REAL
        }
    }
}

/// Interprets the status bytes the child wrote before exec.
pub(crate) fn report(kernel_abi: Option<u32>, status: &[u8]) -> SandboxReport {
    let net = status.first().copied().unwrap_or(NET_NONE);
    let ll = status.get(1).copied().unwrap_or(LL_NOT);
    let filter = status.get(2).copied().unwrap_or(FILTER_NOT);
    let host = status.get(3).copied().unwrap_or(HOST_REAL);
    let reads = status.get(4).copied().unwrap_or(READS_OPEN);
    let enforced = ll == LL_FULL || ll == LL_PARTIAL;
    let abi = kernel_abi.unwrap_or(0);
    SandboxReport {
        platform: SandboxPlatform::Linux,
        landlock_abi: kernel_abi,
        filesystem: enforced,
        reads: enforced && reads == READS_CONFINED,
        host_name: host == HOST_NEUTRAL,
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

/// Handles every write right known to ABI 6 and allows them only beneath the writable
/// directories (and on /dev/null); handles reading and executing files and listing directories
/// and allows them beneath the writable directories, the readable paths and
/// [`system_readable`]. TCP bind/connect are handled
/// with no rule allowing them. Best effort: older kernels enforce the subset they know.
/// Paths that do not exist get no rule.
fn landlock_ruleset(paths: &SandboxPaths) -> Result<RulesetCreated, landlock::RulesetError> {
    let abi = ABI::V6;
    let write = AccessFs::from_write(abi);
    if !paths.confine_reads {
        return landlock::Ruleset::default()
            .set_compatibility(CompatLevel::BestEffort)
            .handle_access(write)?
            .handle_access(AccessNet::from_all(abi))?
            .scope(Scope::AbstractUnixSocket | Scope::Signal)?
            .create()?
            .add_rules(path_beneath_rules(paths.writable, write))?
            .add_rules(path_beneath_rules(["/dev/null"], write));
    }
    let read = AccessFs::from_read(abi);
    let existing =
        |list: Vec<PathBuf>| -> Vec<PathBuf> { list.into_iter().filter(|p| p.exists()).collect() };
    let writable = existing(paths.writable.iter().map(|p| p.to_path_buf()).collect());
    let mut readable: Vec<PathBuf> = paths.readable.iter().map(|p| p.to_path_buf()).collect();
    readable.extend(system_readable());
    let readable = existing(readable);
    landlock::Ruleset::default()
        .set_compatibility(CompatLevel::BestEffort)
        .handle_access(write | read)?
        .handle_access(AccessNet::from_all(abi))?
        .scope(Scope::AbstractUnixSocket | Scope::Signal)?
        .create()?
        .add_rules(path_beneath_rules(&writable, write | read))?
        .add_rules(path_beneath_rules(["/dev/null"], write | read))?
        .add_rules(path_beneath_rules(&readable, read))?
        // Listing /proc (process ids only): `ProcessHandle.allProcesses()` and `descendants()`
        // fail outright when they cannot, and find what the child's own entries show.
        .add_rules(path_beneath_rules(["/proc"], AccessFs::ReadDir))
}

/// What every JVM (and the programs javac or a test starts) reads besides the JDK, the class
/// path and its own directories, and nothing of the user's: the system's programs, libraries,
/// locales and time zones (`/usr`, `/lib*`, `/bin`, `/sbin`), the dynamic loader's cache, the
/// JDK's configuration that Debian keeps in `/etc/java-*` (and its CA certificates), the time
/// zone and the name service switch (without the databases it names: not `/etc/passwd`,
/// `/etc/hosts`, `/etc/hostname`), the kernel's processor, memory and control group figures
/// the JVM sizes itself by, and the random and null devices. Not the user's home, `/tmp`,
/// `/etc` at large or the host's identity.
///
/// Of `/proc`, the kernel's figures here, the process's own entries (a rule the child adds,
/// see `PreparedSandbox::proc_self_rule`) and the list of process ids (`landlock_ruleset`):
/// not other processes' entries, whose `environ` holds the developer's variables.
pub(crate) fn system_readable() -> Vec<PathBuf> {
    let mut paths: Vec<PathBuf> = [
        "/usr",
        "/lib",
        "/lib64",
        "/lib32",
        "/libx32",
        "/bin",
        "/sbin",
        "/etc/ld.so.cache",
        "/etc/ld.so.conf",
        "/etc/ld.so.conf.d",
        "/etc/ld.so.preload",
        "/etc/ssl/certs/java",
        "/etc/localtime",
        "/etc/timezone",
        "/etc/nsswitch.conf",
        "/proc/stat",
        "/proc/meminfo",
        "/proc/cpuinfo",
        "/proc/cgroups",
        "/proc/sys",
        "/sys/fs/cgroup",
        "/sys/devices/system/cpu",
        "/sys/devices/system/node",
        "/sys/kernel/mm",
        "/dev/urandom",
        "/dev/random",
        "/dev/zero",
    ]
    .iter()
    .map(PathBuf::from)
    .collect();
    // Debian's JDKs link their `conf` and `lib/security` files into /etc/java-<n>-openjdk.
    if let Ok(entries) = std::fs::read_dir("/etc") {
        for entry in entries.flatten() {
            if entry.file_name().to_string_lossy().starts_with("java") {
                paths.push(entry.path());
            }
        }
    }
    paths
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
        let abi5 = report(
            Some(5),
            &[
                NET_PRIVATE,
                LL_PARTIAL,
                FILTER_ON,
                HOST_NEUTRAL,
                READS_CONFINED,
            ],
        );
        assert!(abi5.filesystem && abi5.tcp && !abi5.scoped, "{abi5}");
        partial_naming(abi5, "signals");
        assert_eq!(
            report(
                Some(7),
                &[
                    NET_PRIVATE,
                    LL_FULL,
                    FILTER_ON,
                    HOST_NEUTRAL,
                    READS_CONFINED
                ]
            )
            .level(),
            SandboxLevel::Full
        );
    }

    #[test]
    fn reads_and_the_host_name_are_parts_of_a_full_sandbox() {
        partial_naming(
            SandboxReport {
                reads: false,
                ..FULL
            },
            "read every file",
        );
        partial_naming(
            report(
                Some(7),
                &[NET_PRIVATE, LL_FULL, FILTER_ON, HOST_REAL, READS_CONFINED],
            ),
            "host's name",
        );
        // Reads are confined only where Landlock is enforced.
        let no_landlock = report(
            None,
            &[NET_PRIVATE, LL_NOT, FILTER_ON, HOST_NEUTRAL, READS_CONFINED],
        );
        assert!(!no_landlock.reads && no_landlock.host_name, "{no_landlock}");
    }

    #[test]
    fn the_system_paths_leave_out_the_users_files_and_the_hosts_identity() {
        let paths = system_readable();
        for private in [
            "/home",
            "/root",
            "/tmp",
            "/etc",
            "/etc/passwd",
            "/etc/hostname",
            "/etc/hosts",
        ] {
            assert!(
                !paths.iter().any(|p| p == std::path::Path::new(private)),
                "{private}"
            );
        }
        assert!(paths
            .iter()
            .all(|p| !p.starts_with("/home") && !p.starts_with("/root")));
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
            report(
                Some(7),
                &[
                    NET_PRIVATE,
                    LL_FULL,
                    FILTER_NOT,
                    HOST_NEUTRAL,
                    READS_CONFINED,
                ],
            ),
            "process group",
        );
    }

    #[test]
    fn without_landlock_writes_are_open_and_nothing_at_all_is_none() {
        let no_landlock = report(
            None,
            &[NET_USER, LL_NOT, FILTER_ON, HOST_NEUTRAL, READS_CONFINED],
        );
        assert_eq!(no_landlock.level(), SandboxLevel::Partial);
        let warning = no_landlock.warning().unwrap();
        assert!(warning.contains("write anywhere"), "{warning}");
        assert!(warning.contains("signals"), "{warning}");
        assert!(!warning.contains("network"), "{warning}");
        assert_eq!(SandboxReport::OFF.level(), SandboxLevel::None);
        assert!(warning.contains("read every file"), "{warning}");
        assert_eq!(
            SandboxReport::OFF.warning().unwrap().matches("; ").count(),
            5
        );
        // A child that failed before writing its status reports nothing in force.
        assert_eq!(report(Some(7), &[]).level(), SandboxLevel::None);
    }
}
