//! Any command under the worker's sandbox ([`spawn_sandboxed`]): writes outside the writable
//! directories, TCP connections, unix sockets and files beyond the size bound are refused,
//! execution can be switched off, and nothing the command started outlives it or leaves its
//! process group. Uses `sh` and `perl`, so it needs no JVM.

mod common;

use std::io::ErrorKind;
use std::net::TcpListener;
use std::os::unix::net::{UnixDatagram, UnixListener};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use common::{group_gone, sleepers_gone};
use jvm::*;

/// A fresh directory under the system temp dir, removed on drop.
struct TempDir(PathBuf);

impl TempDir {
    fn new(what: &str) -> TempDir {
        static NEXT: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
        let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let dir =
            std::env::temp_dir().join(format!("ctgls-sandboxed-{what}-{}-{n}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        TempDir(dir)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn sh(script: &str) -> Command {
    let mut command = Command::new("sh");
    command.args(["-c", script]);
    command
}

fn wait(child: &mut SandboxedChild) -> std::process::ExitStatus {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status;
        }
        assert!(Instant::now() < deadline, "the command did not end");
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// Runs `script` with `writable` writable; victim files live in `outside`.
fn vandalise(policy: SandboxPolicy, writable: &Path, outside: &Path) -> SandboxReport {
    let victim = outside.join("precious.txt");
    std::fs::write(&victim, "original").unwrap();
    let script = format!(
        "echo changed > '{victim}'; rm -f '{victim}'; echo new > '{fresh}'; echo ok > '{inside}'",
        victim = victim.display(),
        fresh = outside.join("new.txt").display(),
        inside = writable.join("inside.txt").display(),
    );
    let mut child = spawn_sandboxed(sh(&script), policy, &[writable]).unwrap();
    wait(&mut child);
    child.sandbox()
}

#[test]
fn writes_outside_the_writable_directories_are_denied() {
    let (writable, outside) = (TempDir::new("writable"), TempDir::new("outside"));
    let report = vandalise(SandboxPolicy::BestEffort, &writable.0, &outside.0);
    eprintln!("sandbox: {report}");
    let victim = std::fs::read_to_string(outside.0.join("precious.txt"));
    let inside = std::fs::read_to_string(writable.0.join("inside.txt"));
    assert_eq!(
        inside.unwrap(),
        "ok\n",
        "the writable directory stays writable"
    );
    if kernel_landlock_abi().is_none() {
        assert!(report.warning().is_some());
        eprintln!("no Landlock on this kernel: write confinement not checked");
        return;
    }
    assert!(report.filesystem, "{report}");
    assert_eq!(report.level(), SandboxLevel::Full, "{report}");
    assert_eq!(victim.unwrap(), "original");
    assert!(!outside.0.join("new.txt").exists());
}

#[test]
fn without_the_sandbox_the_same_script_does_write_outside() {
    let (writable, outside) = (TempDir::new("writable"), TempDir::new("outside"));
    let report = vandalise(SandboxPolicy::Off, &writable.0, &outside.0);
    assert_eq!(report.level(), SandboxLevel::None);
    assert!(report.warning().is_some());
    assert!(!outside.0.join("precious.txt").exists(), "deleted");
    assert_eq!(
        std::fs::read_to_string(outside.0.join("new.txt")).unwrap(),
        "new\n"
    );
}

#[test]
fn tcp_connections_are_refused() {
    if !Path::new("/bin/bash").exists() {
        eprintln!("no bash (for /dev/tcp): not checked");
        return;
    }
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let port = listener.local_addr().unwrap().port();
    let dir = TempDir::new("net");
    let mut command = Command::new("/bin/bash");
    command.args([
        "-c",
        &format!("exec 3<>/dev/tcp/127.0.0.1/{port} && echo connected"),
    ]);
    let mut child = spawn_sandboxed(command, SandboxPolicy::BestEffort, &[&dir.0]).unwrap();
    let status = wait(&mut child);
    let report = child.sandbox();
    if !report.network_isolated() {
        eprintln!("no network isolation here: {report}");
        return;
    }
    assert!(!status.success(), "the connection failed");
    assert!(listener.accept().is_err(), "the listener saw no connection");
}

/// A `perl` that connects to the unix socket given as its argument and exits with 0 when it
/// could (perl's socket modules are part of every perl installation).
fn connect_unix(socket: &Path) -> Command {
    let mut command = Command::new("perl");
    command.args([
        "-MIO::Socket::UNIX",
        "-e",
        "IO::Socket::UNIX->new(Type => SOCK_STREAM(), Peer => $ARGV[0]) or die \"$!\\n\"; print \"connected\\n\"",
    ]);
    command.arg(socket);
    command
}

fn have_perl() -> bool {
    Command::new("perl")
        .args(["-e", "1"])
        .status()
        .is_ok_and(|s| s.success())
}

#[test]
fn pathname_unix_sockets_cannot_be_reached() {
    if !have_perl() {
        eprintln!("no perl: not checked");
        return;
    }
    // The socket lives outside the writable directory, as the Docker socket or the user's bus.
    let (writable, outside) = (TempDir::new("unix"), TempDir::new("unix-outside"));
    let path = outside.0.join("daemon.sock");
    let listener = UnixListener::bind(&path).unwrap();
    listener.set_nonblocking(true).unwrap();

    // The control: without the sandbox the same command connects.
    let mut control =
        spawn_sandboxed(connect_unix(&path), SandboxPolicy::Off, &[&writable.0]).unwrap();
    assert!(wait(&mut control).success(), "the control connects");
    assert!(listener.accept().is_ok(), "the control was seen");

    let mut child = spawn_sandboxed(
        connect_unix(&path),
        SandboxPolicy::BestEffort,
        &[&writable.0],
    )
    .unwrap();
    let status = wait(&mut child);
    let report = child.sandbox();
    eprintln!("sandbox: {report}");
    if !report.syscall_filter {
        eprintln!("no seccomp filter here: not checked");
        return;
    }
    assert!(!status.success(), "the connection failed");
    assert_eq!(
        listener.accept().map(|_| ()).unwrap_err().kind(),
        ErrorKind::WouldBlock,
        "the listener saw no connection"
    );

    // A datagram socket from socketpair could still send to a socket file (journald's, syslog's):
    // only stream pairs, which the JDK needs, are allowed.
    let datagrams = outside.0.join("log.sock");
    let log = UnixDatagram::bind(&datagrams).unwrap();
    log.set_nonblocking(true).unwrap();
    let send = |policy| {
        let mut pair = Command::new("perl");
        pair.args([
            "-MSocket",
            "-e",
            "socketpair(my $a, my $b, AF_UNIX, SOCK_DGRAM, 0) or die \"$!\\n\"; \
             send($a, \"x\", 0, pack_sockaddr_un($ARGV[0])) or die \"$!\\n\"",
        ]);
        pair.arg(&datagrams);
        let mut child = spawn_sandboxed(pair, policy, &[&writable.0]).unwrap();
        wait(&mut child).success()
    };
    assert!(send(SandboxPolicy::Off), "the control sends");
    assert!(
        log.recv(&mut [0; 8]).is_ok(),
        "the control's datagram arrived"
    );
    assert!(
        !send(SandboxPolicy::BestEffort),
        "the sandboxed send failed"
    );
    assert_eq!(
        log.recv(&mut [0; 8]).unwrap_err().kind(),
        ErrorKind::WouldBlock,
        "no datagram arrived"
    );
    let mut stream_pair = Command::new("perl");
    stream_pair.args([
        "-MSocket",
        "-e",
        "socketpair(my $a, my $b, AF_UNIX, SOCK_STREAM, 0) or die \"$!\\n\"",
    ]);
    let mut child =
        spawn_sandboxed(stream_pair, SandboxPolicy::BestEffort, &[&writable.0]).unwrap();
    assert!(wait(&mut child).success(), "a stream pair is allowed");
}

#[test]
fn processes_cannot_leave_the_process_group() {
    let dir = TempDir::new("setsid");
    // A duration no other process uses, so the sleepers can be found in /proc.
    let seconds = format!("300.{}", std::process::id());
    let script = format!(
        "setsid sleep {seconds} & perl -MPOSIX -e 'POSIX::setpgid(0, 0) or exit 3; exec(\"sleep\", \"{seconds}\")' & sleep 0.2; exit 0"
    );
    let mut child = spawn_sandboxed(sh(&script), SandboxPolicy::BestEffort, &[&dir.0]).unwrap();
    let group = child.id();
    wait(&mut child);
    let report = child.sandbox();
    let gone = group_gone(group) && sleepers_gone(&seconds);
    if !report.syscall_filter {
        eprintln!("no seccomp filter here: not checked");
        return;
    }
    assert!(gone, "a process left the group and outlived the command");
}

#[test]
fn processes_the_command_started_die_with_it() {
    let dir = TempDir::new("group");
    let pid_file = dir.0.join("sleeper.pid");
    let script = format!("sleep 300 & echo $! > '{}'; exit 0", pid_file.display());
    let mut child = spawn_sandboxed(sh(&script), SandboxPolicy::BestEffort, &[&dir.0]).unwrap();
    let group = child.id();
    let status = wait(&mut child);
    assert!(status.success());
    let sleeper: u32 = std::fs::read_to_string(&pid_file)
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    assert!(sleeper != group);
    assert!(group_gone(group), "the background sleep was killed");

    // A command still running when its handle goes is killed with its group.
    let mut hung = spawn_sandboxed(
        sh("sleep 300 & sleep 300"),
        SandboxPolicy::BestEffort,
        &[&dir.0],
    )
    .unwrap();
    let group = hung.id();
    assert!(hung.try_wait().unwrap().is_none());
    drop(hung);
    assert!(group_gone(group));
}

#[test]
fn files_cannot_grow_beyond_the_size_bound() {
    let dir = TempDir::new("fsize");
    let limits = ExecutionLimits {
        max_file_mb: 1,
        ..ExecutionLimits::default()
    };
    let script = format!(
        "cd '{}' || exit 1; head -c 3145728 /dev/zero > big; echo $? > status",
        dir.0.display()
    );
    let run = |limits: &ExecutionLimits| {
        let _ = std::fs::remove_file(dir.0.join("big"));
        let mut child = limits.spawn(sh(&script), &[&dir.0]).unwrap();
        wait(&mut child);
        let size = std::fs::metadata(dir.0.join("big")).unwrap().len();
        let status = std::fs::read_to_string(dir.0.join("status")).unwrap();
        (size, status.trim().parse::<i32>().unwrap())
    };
    // The control: without the sandbox there is no bound.
    let off = ExecutionLimits {
        sandbox: SandboxPolicy::Off,
        ..limits.clone()
    };
    assert_eq!(run(&off), (3 << 20, 0));
    // SIGXFSZ ends `head` (128 + 25) when it writes past the bound.
    assert_eq!(run(&limits), (1 << 20, 128 + SIGXFSZ));
}

/// SIGXFSZ's number on Linux (x86_64 and aarch64 alike).
const SIGXFSZ: i32 = 25;

#[test]
fn limits_come_from_the_worker_config_and_can_switch_execution_off() {
    let config = WorkerConfig {
        heap_mb: 300,
        stack_kb: 1024,
        metaspace_mb: 128,
        max_file_mb: 64,
        sandbox: SandboxPolicy::Required,
        ..WorkerConfig::default()
    };
    let limits = config.execution_limits();
    assert_eq!(limits.sandbox, SandboxPolicy::Required);
    assert_eq!(limits.max_file_mb, 64);
    assert_eq!(
        limits.jvm_memory_args(),
        ["-Xmx300m", "-Xss1024k", "-XX:MaxMetaspaceSize=128m"]
    );
    let dir = TempDir::new("off");
    let marker = dir.0.join("ran");
    let off = ExecutionLimits {
        execution_enabled: false,
        ..limits.clone()
    };
    let refused = off.spawn(sh(&format!("touch '{}'", marker.display())), &[&dir.0]);
    assert!(matches!(refused, Err(JvmError::ExecutionDisabled)));
    assert!(!marker.exists());

    // Required: runs only under the full sandbox, else it refuses before exec.
    match limits.spawn(sh(&format!("touch '{}'", marker.display())), &[&dir.0]) {
        Ok(mut child) => {
            assert_eq!(child.sandbox().level(), SandboxLevel::Full);
            assert!(wait(&mut child).success());
            assert!(marker.exists());
        }
        Err(JvmError::SandboxUnavailable(report)) => {
            eprintln!("refused on this system: {report}");
            assert!(!marker.exists(), "the command never ran");
        }
        Err(other) => panic!("{other}"),
    }
}
