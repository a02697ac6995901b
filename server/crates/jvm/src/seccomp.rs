//! The seccomp-bpf filter of the sandbox: what Landlock (up to ABI 7) and the network namespace
//! leave open. Code under test may not create unix sockets that could reach another process
//! (`socket(AF_UNIX, ...)` and datagram `socketpair`s fail with `EACCES`), because connecting to
//! a socket file (the Docker daemon, the user's D-Bus, whose `systemd-run --user` runs commands
//! outside the sandbox, an ssh agent) is not a write Landlock checks and the socket file is not
//! in the network namespace. A stream `socketpair(AF_UNIX, SOCK_STREAM)` stays allowed: the JDK
//! makes one at start (the descriptor NIO uses to close channels asynchronously), and a connected
//! stream socket can neither connect again nor send to an address (`EISCONN`). Nor may it leave the
//! worker's process group (`setsid`/`setpgid` fail with `EPERM`), because the supervisor kills
//! the group; nor set up an io_uring, whose socket operation would not pass through the filter.
//!
//! The program is a few classic BPF instructions written here (see [`program`]) rather than a
//! dependency: the seccomp crates either link libseccomp or build a general rule compiler for
//! what is five comparisons. It exists for x86_64 and little-endian aarch64 only: elsewhere
//! [`SyscallFilter::for_this_target`] gives none and the sandbox report says so.

use libc::sock_filter;

/// `AUDIT_ARCH_*` of `<linux/audit.h>`: the ELF machine with the 64-bit and little-endian bits.
const AUDIT_ARCH_64BIT: u32 = 0x8000_0000;
const AUDIT_ARCH_LE: u32 = 0x4000_0000;
const AUDIT_ARCH_X86_64: u32 = 62 | AUDIT_ARCH_64BIT | AUDIT_ARCH_LE;
const AUDIT_ARCH_AARCH64: u32 = 183 | AUDIT_ARCH_64BIT | AUDIT_ARCH_LE;
/// x86_64 numbers the x32 ABI's system calls with this bit set, under the x86_64 audit arch; no
/// system call of either architecture has a number this high otherwise.
const X32_SYSCALL_BIT: u32 = 0x4000_0000;

/// Offsets in `struct seccomp_data` (`nr: i32, arch: u32, instruction_pointer: u64,
/// args: [u64; 6]`); the first argument's low 32 bits come first on a little-endian machine.
const OFFSET_NR: u32 = 0;
const OFFSET_ARCH: u32 = 4;
const OFFSET_ARG0_LOW: u32 = 16;
const OFFSET_ARG1_LOW: u32 = 24;
/// The bits of `socket`'s and `socketpair`'s `type` argument that are the type, not flags.
const SOCK_TYPE_MASK: u32 = 0xf;

/// What the filter needs to know of one architecture.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Arch {
    audit_arch: u32,
    socket: u32,
    socketpair: u32,
    setsid: u32,
    setpgid: u32,
    io_uring_setup: u32,
}

/// From `arch/x86/entry/syscalls/syscall_64.tbl`.
pub(crate) const X86_64: Arch = Arch {
    audit_arch: AUDIT_ARCH_X86_64,
    socket: 41,
    socketpair: 53,
    setsid: 112,
    setpgid: 109,
    io_uring_setup: 425,
};

/// From `include/uapi/asm-generic/unistd.h`.
pub(crate) const AARCH64: Arch = Arch {
    audit_arch: AUDIT_ARCH_AARCH64,
    socket: 198,
    socketpair: 199,
    setsid: 157,
    setpgid: 154,
    io_uring_setup: 425,
};

/// The architecture this crate is built for, when the filter knows it.
fn this_target() -> Option<Arch> {
    if cfg!(target_arch = "x86_64") && cfg!(target_pointer_width = "64") {
        Some(X86_64)
    } else if cfg!(all(target_arch = "aarch64", target_endian = "little")) {
        Some(AARCH64)
    } else {
        None
    }
}

const fn load(offset: u32) -> sock_filter {
    sock_filter {
        code: (libc::BPF_LD | libc::BPF_W | libc::BPF_ABS) as u16,
        jt: 0,
        jf: 0,
        k: offset,
    }
}

/// Jumps `jt` instructions ahead when the accumulator equals `k`, else `jf` ahead.
const fn jump_if_equal(k: u32, jt: u8, jf: u8) -> sock_filter {
    sock_filter {
        code: (libc::BPF_JMP | libc::BPF_JEQ | libc::BPF_K) as u16,
        jt,
        jf,
        k,
    }
}

/// Jumps `jt` ahead when the accumulator is at least `k` (unsigned), else `jf` ahead.
const fn jump_if_at_least(k: u32, jt: u8, jf: u8) -> sock_filter {
    sock_filter {
        code: (libc::BPF_JMP | libc::BPF_JGE | libc::BPF_K) as u16,
        jt,
        jf,
        k,
    }
}

const fn and(k: u32) -> sock_filter {
    sock_filter {
        code: (libc::BPF_ALU | libc::BPF_AND | libc::BPF_K) as u16,
        jt: 0,
        jf: 0,
        k,
    }
}

const fn ret(action: u32) -> sock_filter {
    sock_filter {
        code: (libc::BPF_RET | libc::BPF_K) as u16,
        jt: 0,
        jf: 0,
        k: action,
    }
}

const ALLOW: u32 = libc::SECCOMP_RET_ALLOW;
const KILL_PROCESS: u32 = libc::SECCOMP_RET_KILL_PROCESS;
const DENY_EPERM: u32 = libc::SECCOMP_RET_ERRNO | libc::EPERM as u32;
const DENY_EACCES: u32 = libc::SECCOMP_RET_ERRNO | libc::EACCES as u32;

/// The filter for `arch`. Jump offsets count the instructions skipped, so each comment names
/// its targets.
pub(crate) fn program(arch: Arch) -> Vec<sock_filter> {
    vec![
        // 0: A system call of another ABI (i386 through `int 0x80`, whose `socketcall`
        //    multiplexes socket() under other numbers) kills the process: nothing in the sandbox
        //    is built for one, and a program whose every call failed could not even exit.
        load(OFFSET_ARCH),
        jump_if_equal(arch.audit_arch, 1, 0), // 1: -> 3, else -> 2
        ret(KILL_PROCESS),                    // 2
        load(OFFSET_NR),                      // 3
        // 4: x32 system calls (same audit arch, numbers with the x32 bit) are refused as a
        //    whole, so their socket() cannot slip past the numbers below.
        jump_if_at_least(X32_SYSCALL_BIT, 13, 0), // -> 18, else -> 5
        jump_if_equal(arch.socket, 5, 0),         // 5: -> 11
        jump_if_equal(arch.socketpair, 6, 0),     // 6: -> 13
        jump_if_equal(arch.setsid, 10, 0),        // 7: -> 18
        jump_if_equal(arch.setpgid, 9, 0),        // 8: -> 18
        jump_if_equal(arch.io_uring_setup, 8, 0), // 9: -> 18
        ret(ALLOW),                               // 10
        // 11: socket(domain, type, protocol): the kernel reads `domain` as an int, so its low
        //     32 bits decide.
        load(OFFSET_ARG0_LOW),
        jump_if_equal(libc::AF_UNIX as u32, 7, 6), // 12: -> 20, else -> 19
        // 13: socketpair(domain, type, protocol, sv): a unix pair only of stream sockets.
        load(OFFSET_ARG0_LOW),
        jump_if_equal(libc::AF_UNIX as u32, 0, 4), // 14: -> 15, else -> 19
        load(OFFSET_ARG1_LOW),                     // 15
        and(SOCK_TYPE_MASK),                       // 16: drop SOCK_NONBLOCK and SOCK_CLOEXEC
        jump_if_equal(libc::SOCK_STREAM as u32, 1, 2), // 17: -> 19, else -> 20
        ret(DENY_EPERM),                           // 18
        ret(ALLOW),                                // 19
        ret(DENY_EACCES),                          // 20
    ]
}

/// A filter prepared before fork, installed in the child between fork and exec.
pub(crate) struct SyscallFilter {
    program: Vec<sock_filter>,
}

impl SyscallFilter {
    /// The filter of the architecture this crate was built for, or `None` where it has none.
    pub(crate) fn for_this_target() -> Option<SyscallFilter> {
        this_target().map(|arch| SyscallFilter {
            program: program(arch),
        })
    }

    /// Installs the filter on the calling thread, for good: it is inherited by every process
    /// forked after and kept across exec. Sets `no_new_privs` first, which an unprivileged
    /// process needs for seccomp (Landlock has set it already when it is in force).
    ///
    /// Async-signal-safe (two system calls on prepared memory), for use between fork and exec.
    pub(crate) fn install_in_child(&self) -> std::io::Result<()> {
        let fprog = libc::sock_fprog {
            len: self.program.len() as u16,
            filter: self.program.as_ptr().cast_mut(),
        };
        // SAFETY: prctl and seccomp read only the prepared program, which outlives the calls;
        // the kernel copies it.
        unsafe {
            if libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            if libc::syscall(
                libc::SYS_seccomp,
                libc::SECCOMP_SET_MODE_FILTER,
                0,
                &fprog as *const libc::sock_fprog,
            ) != 0
            {
                return Err(std::io::Error::last_os_error());
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs `program` on one system call the way the kernel does (only the instructions
    /// [`program`] uses); returns the action.
    fn run(program: &[sock_filter], arch: u32, nr: u32, args: [u64; 2]) -> u32 {
        let word = |offset: u32| match offset {
            OFFSET_NR => nr,
            OFFSET_ARCH => arch,
            OFFSET_ARG0_LOW => args[0] as u32,
            OFFSET_ARG1_LOW => args[1] as u32,
            other => panic!("load from offset {other}"),
        };
        let mut pc = 0usize;
        let mut acc = 0u32;
        loop {
            let i = program[pc];
            let code = u32::from(i.code);
            if code == libc::BPF_LD | libc::BPF_W | libc::BPF_ABS {
                acc = word(i.k);
                pc += 1;
            } else if code == libc::BPF_ALU | libc::BPF_AND | libc::BPF_K {
                acc &= i.k;
                pc += 1;
            } else if code == libc::BPF_RET | libc::BPF_K {
                return i.k;
            } else {
                let taken = if code == libc::BPF_JMP | libc::BPF_JEQ | libc::BPF_K {
                    acc == i.k
                } else if code == libc::BPF_JMP | libc::BPF_JGE | libc::BPF_K {
                    acc >= i.k
                } else {
                    panic!("unexpected instruction {code:#x}");
                };
                pc += 1 + usize::from(if taken { i.jt } else { i.jf });
            }
        }
    }

    fn check(arch: Arch) {
        let p = program(arch);
        let a = arch.audit_arch;
        let unix = libc::AF_UNIX as u64;
        let inet = libc::AF_INET as u64;
        let stream = libc::SOCK_STREAM as u64;
        let dgram = libc::SOCK_DGRAM as u64;
        let flags = (libc::SOCK_CLOEXEC | libc::SOCK_NONBLOCK) as u64;
        assert_eq!(run(&p, a, arch.socket, [unix, stream]), DENY_EACCES);
        assert_eq!(run(&p, a, arch.socket, [unix, dgram | flags]), DENY_EACCES);
        // Garbage in the upper half does not hide AF_UNIX: the kernel ignores it too.
        assert_eq!(
            run(&p, a, arch.socket, [(7 << 32) | unix, stream]),
            DENY_EACCES
        );
        assert_eq!(run(&p, a, arch.socket, [inet, stream]), ALLOW);
        // A stream pair cannot reach anyone else; a datagram one could send to a socket file.
        assert_eq!(run(&p, a, arch.socketpair, [unix, stream]), ALLOW);
        assert_eq!(run(&p, a, arch.socketpair, [unix, stream | flags]), ALLOW);
        assert_eq!(run(&p, a, arch.socketpair, [unix, dgram]), DENY_EACCES);
        assert_eq!(
            run(&p, a, arch.socketpair, [unix, dgram | flags]),
            DENY_EACCES
        );
        let seqpacket = libc::SOCK_SEQPACKET as u64;
        assert_eq!(run(&p, a, arch.socketpair, [unix, seqpacket]), DENY_EACCES);
        assert_eq!(run(&p, a, arch.socketpair, [inet, dgram]), ALLOW);
        assert_eq!(run(&p, a, arch.setsid, [0, 0]), DENY_EPERM);
        assert_eq!(run(&p, a, arch.setpgid, [0, 0]), DENY_EPERM);
        assert_eq!(run(&p, a, arch.io_uring_setup, [0, 0]), DENY_EPERM);
        // Everything else passes, `unix` in the first argument or not.
        let listed = [arch.socket, arch.socketpair, arch.setsid, arch.setpgid];
        for nr in [0, 1, 2, 57, 59, 60, 62, 231, 435] {
            if !listed.contains(&nr) {
                assert_eq!(run(&p, a, nr, [unix, dgram]), ALLOW, "system call {nr}");
            }
        }
        // Another ABI of the same machine is not let through under other numbers.
        assert_eq!(
            run(&p, 3 | AUDIT_ARCH_LE, arch.socket, [unix, stream]),
            KILL_PROCESS
        );
        assert_eq!(run(&p, 3 | AUDIT_ARCH_LE, 0, [0, 0]), KILL_PROCESS);
        let x32_socket = X32_SYSCALL_BIT | arch.socket;
        assert_eq!(run(&p, a, x32_socket, [unix, stream]), DENY_EPERM);
        assert_eq!(run(&p, a, X32_SYSCALL_BIT, [0, 0]), DENY_EPERM);
    }

    #[test]
    fn the_program_denies_unix_sockets_and_leaving_the_group_and_allows_the_rest() {
        check(X86_64);
        check(AARCH64);
    }

    #[test]
    fn the_tables_match_this_target() {
        let Some(arch) = this_target() else {
            return;
        };
        assert_eq!(arch.socket, libc::SYS_socket as u32);
        assert_eq!(arch.socketpair, libc::SYS_socketpair as u32);
        assert_eq!(arch.setsid, libc::SYS_setsid as u32);
        assert_eq!(arch.setpgid, libc::SYS_setpgid as u32);
        assert_eq!(arch.io_uring_setup, libc::SYS_io_uring_setup as u32);
    }
}
