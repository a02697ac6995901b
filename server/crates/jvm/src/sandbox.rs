//! The OS sandbox of the worker and of every other process that runs code under test (see
//! [`crate::command`]), and what each platform gets:
//!
//! - Linux (`sandbox/linux.rs`): Landlock (writes only beneath the given directories, reads
//!   only beneath them, the given readable paths and what the JVM needs, no TCP bind/connect,
//!   no signals or abstract unix sockets out of the domain), a private network and UTS
//!   namespace (a neutral host name) where the kernel allows one, a seccomp filter (no unix sockets, no leaving the
//!   process group: `seccomp.rs`) and `RLIMIT_FSIZE`. Everything is prepared in the parent;
//!   the child, between fork and exec, only makes syscalls (no allocation).
//! - Other Unix systems, macOS first (`sandbox/posix.rs`): the process group and
//!   `RLIMIT_FSIZE` only.
//! - Windows: nothing (the process is killed alone, see [`crate::command`]).
//!
//! This module is the platform-independent part: the policy, the report of what is in force
//! and the warning that names what is missing.

use std::fmt;
use std::path::Path;

use crate::error::JvmError;

#[cfg(target_os = "linux")]
mod linux;
#[cfg(all(unix, not(target_os = "linux")))]
mod posix;
#[cfg(unix)]
mod rlimit;

#[cfg(target_os = "linux")]
pub use linux::kernel_landlock_abi;
#[cfg(target_os = "linux")]
pub(crate) use linux::{report, PreparedSandbox, STATUS_LEN};
#[cfg(all(unix, not(target_os = "linux")))]
pub(crate) use posix::{report, PreparedSandbox, STATUS_LEN};

/// The Landlock ABI of the running kernel: never any outside Linux.
#[cfg(not(target_os = "linux"))]
pub fn kernel_landlock_abi() -> Option<u32> {
    None
}

/// Where a sandboxed process may write and read, and the host name it sees. Only Linux's
/// sandbox reads it (macOS and other Unix systems take it and apply nothing; Windows has no
/// sandbox to give it to).
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
pub(crate) struct SandboxPaths<'a> {
    /// Directories beneath which it may create, change, delete and read files.
    pub writable: &'a [&'a Path],
    /// Files and directories it may read (the JDK, the class path, the project's sources),
    /// besides the system's libraries and what the JVM reads of the kernel.
    pub readable: &'a [&'a Path],
    /// The host name of its UTS namespace.
    pub host_name: &'a str,
    /// Whether reads are confined (`readable` applies). False only for emission's alternate
    /// observation, whose values are compared, never written (see [`crate::Identity`]).
    pub confine_reads: bool,
}

/// How hard to try.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SandboxPolicy {
    /// No sandbox (for debugging only).
    Off,
    /// Use what the kernel offers; report the effective level.
    BestEffort,
    /// Refuse to run unless every part of the sandbox is in force ([`SandboxLevel::Full`]), so
    /// always outside Linux.
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
///
/// Invariant: only a report of [`SandboxPlatform::Linux`] has any part in force (elsewhere no
/// code sets one), and [`SandboxReport::level`] is [`SandboxLevel::Full`] only on Linux whatever
/// the fields say.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SandboxReport {
    /// Where it was measured.
    pub platform: SandboxPlatform,
    /// Landlock ABI version of the running kernel, if it has Landlock enabled.
    pub landlock_abi: Option<u32>,
    /// Writes outside the scratch directory are denied.
    pub filesystem: bool,
    /// Reads outside the scratch directory, the JDK, the class path, the project's sources
    /// and the system's libraries are denied (`EACCES`, an `AccessDeniedException` in Java).
    pub reads: bool,
    /// The process has a UTS namespace of its own with a neutral host name, not the host's.
    pub host_name: bool,
    /// TCP bind and connect are denied by Landlock (ABI 4+).
    pub tcp: bool,
    /// Signals and abstract unix sockets cannot leave the sandbox (Landlock ABI 6+).
    pub scoped: bool,
    pub network_namespace: NetworkNamespace,
    /// The seccomp filter is in force: no unix sockets at all (so none reaches a daemon's socket
    /// file) and no `setsid`/`setpgid` (so every process stays in the group the supervisor
    /// kills). Missing on a kernel without seccomp and on architectures the filter does not know.
    pub syscall_filter: bool,
}

/// A summary for the editor's status line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SandboxLevel {
    /// Every part is in force: file-system writes confined, a private network namespace,
    /// signals scoped, and the seccomp filter.
    Full,
    /// Something is in force, but not all of the above; [`SandboxReport::warning`] names what
    /// is missing.
    Partial,
    None,
}

/// The operating system a [`SandboxReport`] was measured on, which bounds what can be in force.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SandboxPlatform {
    /// Landlock, a network namespace and the seccomp filter, as far as the kernel offers them.
    Linux,
    /// The worker's own process group and `RLIMIT_FSIZE`; nothing confines writes, the network,
    /// unix sockets or signals.
    MacOs,
    /// Another Unix system: what macOS gets.
    OtherUnix,
    /// No sandbox and no process group: a killed worker leaves the processes it started.
    Windows,
}

impl SandboxPlatform {
    /// The platform this crate was built for.
    pub const CURRENT: SandboxPlatform = if cfg!(target_os = "linux") {
        SandboxPlatform::Linux
    } else if cfg!(target_os = "macos") {
        SandboxPlatform::MacOs
    } else if cfg!(windows) {
        SandboxPlatform::Windows
    } else {
        SandboxPlatform::OtherUnix
    };

    /// What users call it, for messages.
    pub fn name(self) -> &'static str {
        match self {
            SandboxPlatform::Linux => "Linux",
            SandboxPlatform::MacOs => "macOS",
            SandboxPlatform::OtherUnix => "this system",
            SandboxPlatform::Windows => "Windows",
        }
    }

    /// Whether a [`SandboxLevel::Full`] sandbox can exist here at all.
    pub fn can_sandbox_fully(self) -> bool {
        self == SandboxPlatform::Linux
    }
}

impl SandboxReport {
    /// No sandbox at all: [`SandboxPolicy::Off`], and everything outside Linux.
    pub const OFF: SandboxReport = SandboxReport {
        platform: SandboxPlatform::CURRENT,
        landlock_abi: None,
        filesystem: false,
        reads: false,
        host_name: false,
        tcp: false,
        scoped: false,
        network_namespace: NetworkNamespace::None,
        syscall_filter: false,
    };

    /// TCP connections cannot leave the sandbox (Landlock's TCP rule or a network namespace).
    pub fn network_isolated(&self) -> bool {
        self.tcp || self.network_namespace != NetworkNamespace::None
    }

    /// Full when nothing is missing (on Linux only), None when nothing is in force.
    pub fn level(&self) -> SandboxLevel {
        let anything =
            self.filesystem || self.network_isolated() || self.scoped || self.syscall_filter;
        if self.platform.can_sandbox_fully() && self.gaps().is_empty() {
            SandboxLevel::Full
        } else if anything {
            SandboxLevel::Partial
        } else {
            SandboxLevel::None
        }
    }

    /// What code under test can do that a [`SandboxLevel::Full`] sandbox stops, and why.
    fn gaps(&self) -> Vec<&'static str> {
        let mut gaps = Vec::new();
        if !self.filesystem {
            gaps.push("code under test can write anywhere the user can (no Landlock)");
        }
        if !self.reads {
            gaps.push(
                "code under test can read every file the user can, and what it read can end up \
                 asserted in written tests (reads are confined with Landlock only)",
            );
        }
        if !self.host_name {
            gaps.push("code under test sees the host's name (no UTS namespace)");
        }
        match (self.network_namespace, self.tcp) {
            (NetworkNamespace::None, false) => {
                gaps.push("code under test can use the network (no network namespace)")
            }
            (NetworkNamespace::None, true) => gaps.push(
                "code under test can use UDP and every network protocol but TCP \
                 (no network namespace, and Landlock denies only TCP)",
            ),
            _ => {}
        }
        if !self.scoped {
            gaps.push(
                "code under test can send signals to the user's processes outside the sandbox \
                 (needs Landlock ABI 6)",
            );
        }
        if !self.syscall_filter {
            gaps.push(
                "code under test can connect to unix sockets (a Docker daemon, the user's D-Bus, \
                 an ssh agent) and leave the worker's process group (no seccomp filter on this \
                 kernel or architecture)",
            );
        }
        gaps
    }

    /// A user-visible warning naming every missing part when the sandbox is weaker than
    /// [`SandboxLevel::Full`]. Outside Linux it names the platform and what code under test can
    /// do there.
    pub fn warning(&self) -> Option<String> {
        if !self.platform.can_sandbox_fully() {
            return Some(format!(
                "{}: {}",
                unsandboxed(self.platform),
                platform_gaps(self.platform)
            ));
        }
        let gaps = self.gaps();
        (!gaps.is_empty()).then(|| format!("weak sandbox: {}", gaps.join("; ")))
    }
}

/// Refuses [`SandboxPolicy::Required`] before anything starts where no sandbox can be
/// [`SandboxLevel::Full`] (everywhere but Linux).
pub(crate) fn refuse_where_impossible(policy: SandboxPolicy) -> Result<(), JvmError> {
    refuse_on(SandboxPlatform::CURRENT, policy)
}

fn refuse_on(platform: SandboxPlatform, policy: SandboxPolicy) -> Result<(), JvmError> {
    if policy == SandboxPolicy::Required && !platform.can_sandbox_fully() {
        return Err(JvmError::SandboxUnavailable(unsandboxed(platform)));
    }
    Ok(())
}

/// Why nothing is in force on a platform other than Linux.
fn unsandboxed(platform: SandboxPlatform) -> String {
    format!(
        "no sandbox on {} (Landlock, seccomp and network namespaces are Linux-only)",
        platform.name()
    )
}

/// What code under test can do on a platform other than Linux, where no part of the sandbox
/// exists.
fn platform_gaps(platform: SandboxPlatform) -> &'static str {
    match platform {
        SandboxPlatform::Windows => {
            "code under test can read and write anywhere the user can, files of any size, use the network, \
             connect to local sockets (a Docker daemon, an ssh agent) and end the user's other \
             processes, and the processes it starts may outlive the worker (no process group on \
             Windows)"
        }
        _ => {
            "code under test can read and write anywhere the user can, use the network, connect to unix \
             sockets (a Docker daemon, an ssh agent), send signals to the user's other processes \
             and leave the worker's process group; only the size of each file it writes is \
             bounded"
        }
    }
}

impl fmt::Display for SandboxReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if !self.platform.can_sandbox_fully() {
            return f.write_str(&unsandboxed(self.platform));
        }
        match self.landlock_abi {
            Some(abi) => write!(f, "landlock ABI {abi}")?,
            None => write!(f, "no landlock")?,
        }
        write!(
            f,
            " (fs writes confined: {}, reads confined: {}, tcp denied: {}, scoped: {}), network \
             namespace: {:?}, host name hidden: {}, syscall filter: {}",
            self.filesystem,
            self.reads,
            self.tcp,
            self.scoped,
            self.network_namespace,
            self.host_name,
            self.syscall_filter
        )
    }
}

/// A Linux report with every part of the sandbox in place, for the tests of the level rules.
#[cfg(test)]
pub(crate) const EVERY_PART: SandboxReport = SandboxReport {
    platform: SandboxPlatform::Linux,
    landlock_abi: Some(7),
    filesystem: true,
    reads: true,
    host_name: true,
    tcp: true,
    scoped: true,
    network_namespace: NetworkNamespace::Private,
    syscall_filter: true,
};

#[cfg(test)]
mod tests {
    use super::*;

    const ELSEWHERE: [SandboxPlatform; 3] = [
        SandboxPlatform::MacOs,
        SandboxPlatform::OtherUnix,
        SandboxPlatform::Windows,
    ];

    fn unsandboxed_on(platform: SandboxPlatform) -> SandboxReport {
        SandboxReport {
            platform,
            ..SandboxReport::OFF
        }
    }

    #[test]
    fn without_landlock_seccomp_or_a_namespace_the_level_is_none_outside_linux() {
        for platform in ELSEWHERE {
            assert_eq!(unsandboxed_on(platform).level(), SandboxLevel::None);
        }
    }

    #[test]
    fn full_is_a_linux_level_only() {
        let every_part = EVERY_PART;
        assert_eq!(every_part.level(), SandboxLevel::Full);
        for platform in ELSEWHERE {
            let claimed = SandboxReport {
                platform,
                ..every_part
            };
            assert_eq!(claimed.level(), SandboxLevel::Partial, "{platform:?}");
            assert!(claimed.warning().is_some(), "{platform:?}");
        }
    }

    #[test]
    fn the_warning_names_the_platform_and_what_code_under_test_can_do() {
        let mac = unsandboxed_on(SandboxPlatform::MacOs).warning().unwrap();
        for part in [
            "no sandbox on macOS",
            "Linux-only",
            "write anywhere",
            "network",
            "unix sockets",
            "signals",
            "process group",
            "size of each file",
        ] {
            assert!(mac.contains(part), "{part:?} in {mac}");
        }
        let windows = unsandboxed_on(SandboxPlatform::Windows).warning().unwrap();
        for part in [
            "no sandbox on Windows",
            "write anywhere",
            "files of any size",
            "network",
            "outlive the worker",
        ] {
            assert!(windows.contains(part), "{part:?} in {windows}");
        }
        assert_eq!(
            unsandboxed_on(SandboxPlatform::MacOs).to_string(),
            "no sandbox on macOS (Landlock, seccomp and network namespaces are Linux-only)"
        );
    }

    #[test]
    fn required_is_refused_before_anything_starts_outside_linux() {
        for platform in ELSEWHERE {
            match refuse_on(platform, SandboxPolicy::Required) {
                Err(e @ JvmError::SandboxUnavailable(_)) => {
                    let message = e.to_string();
                    assert!(message.contains(platform.name()), "{message}");
                }
                other => panic!("{platform:?}: {other:?}"),
            }
            assert!(refuse_on(platform, SandboxPolicy::BestEffort).is_ok());
            assert!(refuse_on(platform, SandboxPolicy::Off).is_ok());
        }
        // On Linux the child measures what is in force and `Required` decides then.
        assert!(refuse_on(SandboxPlatform::Linux, SandboxPolicy::Required).is_ok());
    }
}
