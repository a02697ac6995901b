//! Hostile code under test against the real JVM and sandbox: the supervisor stays up, the next
//! batch works, time is bounded, files outside the scratch directory are untouched, and no
//! worker process survives.

mod common;

use std::io::ErrorKind;
use std::net::TcpListener;
use std::os::unix::fs::PermissionsExt;
use std::os::unix::net::UnixListener;
use std::time::{Duration, Instant};

use common::*;
use jvm::*;

const HOSTILE: &str = "hostile.Hostile";

fn hostile_supervisor(config: WorkerConfig) -> (Supervisor, UnitId) {
    let mut sup = Supervisor::new(config).unwrap();
    let unit = compile_project(&mut sup, "hostile");
    (sup, unit)
}

fn one(class_method: &str, params: &[&str], args: Vec<Statement>) -> TestCase {
    let refs: Vec<usize> = (0..args.len()).collect();
    let mut statements = args;
    statements.push(call_static(HOSTILE, class_method, params, &refs));
    test(statements)
}

fn healthy(sup: &mut Supervisor, unit: UnitId) {
    let r = finished(
        sup.execute(unit, &[one("writeTemp", &[], vec![])], &options(5000))
            .unwrap(),
    );
    assert_eq!(r[0].status, TestStatus::Ok, "{:#?}", r[0]);
    assert_eq!(text_value(&r[0], 0), "scratch is writable");
}

fn sandboxed() -> bool {
    kernel_landlock_abi().is_some()
}

#[test]
fn sandbox_level_on_this_kernel() {
    let mut sup = supervisor();
    sup.start().unwrap();
    let report = sup.sandbox().unwrap();
    eprintln!("sandbox: {report}");
    // Where the kernel has seccomp and the filter knows the architecture, it must be in place:
    // the tests that check what it stops skip themselves without it.
    let kernel_seccomp = std::fs::read_to_string("/proc/self/status")
        .is_ok_and(|status| status.lines().any(|l| l.starts_with("Seccomp:")));
    if kernel_seccomp && cfg!(any(target_arch = "x86_64", target_arch = "aarch64")) {
        assert!(report.syscall_filter, "{report}");
    }
    if let Some(abi) = kernel_landlock_abi() {
        assert_eq!(report.landlock_abi, Some(abi));
        assert!(report.filesystem);
        assert_eq!(report.tcp, abi >= 4);
        assert_eq!(report.scoped, abi >= 6);
        let full =
            abi >= 6 && report.network_namespace != NetworkNamespace::None && report.syscall_filter;
        assert_eq!(report.level() == SandboxLevel::Full, full, "{report}");
        assert_eq!(report.warning().is_none(), full, "{report}");
    } else {
        assert!(report.warning().is_some());
    }
    let off = WorkerConfig {
        sandbox: SandboxPolicy::Off,
        ..config()
    };
    let mut sup = Supervisor::new(off).unwrap();
    sup.start().unwrap();
    assert_eq!(sup.sandbox().unwrap().level(), SandboxLevel::None);
}

#[test]
fn writes_and_deletes_outside_scratch_are_denied() {
    let (mut sup, unit) = hostile_supervisor(config());
    let outside = std::env::temp_dir().join(format!("ctgls-victim-{}", std::process::id()));
    std::fs::create_dir_all(&outside).unwrap();
    let victim = outside.join("precious.txt");
    std::fs::write(&victim, "original").unwrap();
    let fresh = outside.join("new.txt");
    let path = |p: &std::path::Path| string(&p.display().to_string());
    let tests = [
        one("writeFile", &["java.lang.String"], vec![path(&victim)]),
        one("deleteFile", &["java.lang.String"], vec![path(&victim)]),
        one("writeFile", &["java.lang.String"], vec![path(&fresh)]),
        one("writeTemp", &[], vec![]),
    ];
    let r = finished(sup.execute(unit, &tests, &options(5000)).unwrap());
    let scratch = sup.scratch_dir().unwrap();
    let mode = std::fs::metadata(&scratch).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o700, "the scratch directory is private");
    drop(sup);
    let content = std::fs::read_to_string(&victim);
    let fresh_exists = fresh.exists();
    std::fs::remove_dir_all(&outside).unwrap();
    if !sandboxed() {
        eprintln!("no Landlock on this kernel: write confinement not checked");
        return;
    }
    for t in &r[..3] {
        assert_eq!(t.status, TestStatus::Exception, "{t:#?}");
        let e = t.exception.as_ref().unwrap();
        assert!(
            e.type_name.contains("AccessDenied") || e.type_name.contains("FileSystemException"),
            "{e:?}"
        );
        assert!(e.declared, "IOException is declared");
    }
    assert_eq!(content.unwrap(), "original");
    assert!(!fresh_exists);
    assert_eq!(
        r[3].status,
        TestStatus::Ok,
        "scratch stays writable: {:#?}",
        r[3]
    );
    assert!(
        !scratch.exists(),
        "the scratch directory is removed with the worker"
    );
}

#[test]
fn reads_outside_the_project_the_jdk_and_scratch_are_refused() {
    let outside = std::env::temp_dir().join(format!("ctgls-secret-{}", std::process::id()));
    std::fs::create_dir_all(&outside).unwrap();
    let secret = outside.join("secret.txt");
    std::fs::write(&secret, "sk-live-hostile").unwrap();
    let project = std::env::temp_dir().join(format!("ctgls-readable-{}", std::process::id()));
    std::fs::create_dir_all(&project).unwrap();
    let resource = project.join("resource.txt");
    std::fs::write(&resource, "the project's own").unwrap();
    let (mut sup, unit) = hostile_supervisor(config());
    sup.confine_reads_to(vec![project.clone()]);
    let path = |p: &std::path::Path| string(&p.display().to_string());
    // Our own environment, through /proc: the developer's secrets, were it readable.
    let own_environ = format!("/proc/{}/environ", std::process::id());
    let read = |p: &str| one("readFile", &["java.lang.String"], vec![string(p)]);
    let tests = [
        read(&secret.display().to_string()),
        read("/etc/passwd"),
        read("/etc/hostname"),
        read(&own_environ),
        one("readFile", &["java.lang.String"], vec![path(&resource)]),
        read("/proc/self/status"),
        one("writeTemp", &[], vec![]),
    ];
    let r = finished(sup.execute(unit, &tests, &options(5000)).unwrap());
    let report = sup.sandbox().unwrap();
    drop(sup);
    std::fs::remove_dir_all(&outside).unwrap();
    std::fs::remove_dir_all(&project).unwrap();
    if !report.reads {
        eprintln!("reads are not confined here: not checked ({report})");
        return;
    }
    for t in &r[..4] {
        assert_eq!(t.status, TestStatus::Exception, "{t:#?}");
        let e = t.exception.as_ref().unwrap();
        // EACCES from open(2): what the refusal detection looks for, as for writes.
        assert!(
            e.type_name == "java.nio.file.AccessDeniedException"
                || e.message
                    .as_ref()
                    .and_then(JavaText::as_str)
                    .is_some_and(|m| m.contains("Permission denied")),
            "{e:?}"
        );
        assert!(e.declared, "IOException is declared");
    }
    assert_eq!(text_value(&r[4], 1), "the project's own", "{:#?}", r[4]);
    assert_eq!(
        r[5].status,
        TestStatus::Ok,
        "its own /proc entries: {:#?}",
        r[5]
    );
    assert_eq!(r[6].status, TestStatus::Ok, "scratch: {:#?}", r[6]);
}

#[test]
fn code_under_test_sees_a_neutral_identity_and_no_variable_of_ours() {
    // SAFETY: set before this test starts a worker; no other thread reads this variable.
    unsafe { std::env::set_var("CTGLS_HOSTILE_SECRET", "sk-live-hostile-env") };
    let identity = |sup: &mut Supervisor, unit| {
        let r = finished(
            sup.execute(
                unit,
                &[one(
                    "identity",
                    &["java.lang.String"],
                    vec![string("CTGLS_HOSTILE_SECRET")],
                )],
                &options(5000),
            )
            .unwrap(),
        );
        assert_eq!(r[0].status, TestStatus::Ok, "{:#?}", r[0]);
        text_value(&r[0], 1)
    };
    let (mut sup, unit) = hostile_supervisor(config());
    let primary = identity(&mut sup, unit);
    let report = sup.sandbox().unwrap();
    let scratch = sup.scratch_dir().unwrap();
    let primary_pid = sup.worker_pid().unwrap();
    sup.set_identity(Identity::Alternate);
    let alternate = identity(&mut sup, unit);
    let alternate_scratch = sup.scratch_dir().unwrap();
    let alternate_pid = sup.worker_pid().unwrap();
    assert_ne!(
        alternate_pid, primary_pid,
        "each identity has its own worker"
    );
    // Back and forth: each identity's worker was parked, not replaced, and shows its own
    // identity still.
    let starts = sup.starts();
    sup.set_identity(Identity::Primary);
    assert_eq!(identity(&mut sup, unit), primary);
    assert_eq!(sup.worker_pid(), Some(primary_pid));
    sup.set_identity(Identity::Alternate);
    assert_eq!(identity(&mut sup, unit), alternate);
    assert_eq!(sup.worker_pid(), Some(alternate_pid));
    assert_eq!(sup.starts(), starts, "no worker started again");
    // A change of what code under test may read replaces both.
    sup.confine_reads_to(vec![std::env::temp_dir()]);
    assert_eq!(sup.worker_pid(), None);
    sup.set_identity(Identity::Primary);
    assert_eq!(sup.worker_pid(), None, "the parked worker was dropped too");
    assert!(identity(&mut sup, unit).starts_with("user|"));
    assert_ne!(sup.worker_pid(), Some(primary_pid));
    let fields: Vec<&str> = primary.split('|').collect();
    assert_eq!(fields[0], "user", "{primary}");
    assert_eq!(fields[1], scratch.join("home").display().to_string());
    assert_eq!(fields[2], scratch.join("tmp").display().to_string());
    assert_eq!(fields[4], fields[1], "HOME is user.home");
    assert_eq!(fields[5], "user");
    assert_eq!(
        fields[6], "null",
        "our variables do not reach code under test"
    );
    if report.host_name {
        assert_eq!(fields[3], "localhost", "{report}");
    }
    let fields: Vec<&str> = alternate.split('|').collect();
    assert_eq!(fields[0], "tester", "{alternate}");
    assert_eq!(
        fields[1],
        alternate_scratch
            .join("home-alternate")
            .display()
            .to_string()
    );
    assert_eq!(fields[6], "ctgls-alternate-ctgls_hostile_secret");
    if report.host_name {
        assert!(fields[3].starts_with("ctgls-alternate-host"), "{alternate}");
    }
    for seen in [&primary, &alternate] {
        assert!(!seen.contains("sk-live"), "{seen}");
    }
    // Passed through on request, with its value for the primary identity only.
    let passing = WorkerConfig {
        pass_environment: vec!["CTGLS_HOSTILE_*".into()],
        ..config()
    };
    let (mut sup, unit) = hostile_supervisor(passing);
    assert!(identity(&mut sup, unit).ends_with("|sk-live-hostile-env"));
    sup.set_identity(Identity::Alternate);
    assert!(identity(&mut sup, unit).ends_with("|ctgls-alternate-ctgls_hostile_secret"));
}

#[test]
fn network_connections_are_refused() {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let port = listener.local_addr().unwrap().port();
    let (mut sup, unit) = hostile_supervisor(config());
    let r = finished(
        sup.execute(
            unit,
            &[one("connect", &["int"], vec![int(i32::from(port))])],
            &options(5000),
        )
        .unwrap(),
    );
    let report = sup.sandbox().unwrap();
    if !report.network_isolated() {
        eprintln!("no network isolation here: {report}");
        return;
    }
    assert_eq!(r[0].status, TestStatus::Exception, "{:#?}", r[0]);
    assert!(r[0]
        .exception
        .as_ref()
        .unwrap()
        .type_name
        .contains("Exception"));
    assert!(listener.accept().is_err(), "the listener saw no connection");
    healthy(&mut sup, unit);
}

#[test]
fn system_exit_is_contained_with_and_without_the_guard() {
    let (mut sup, unit) = hostile_supervisor(config());
    let exit_blocking = sup.start().unwrap().exit_blocking;
    let outcome = sup
        .execute(
            unit,
            &[
                one("exit", &["int"], vec![int(3)]),
                one("writeTemp", &[], vec![]),
            ],
            &options(5000),
        )
        .unwrap();
    if exit_blocking {
        let r = finished(outcome);
        assert_eq!(r[0].status, TestStatus::SystemExit);
        assert_eq!(r[0].exit_status, Some(3));
        assert_eq!(r[1].status, TestStatus::Ok);
    } else {
        // Java 18+: the exit really ends the worker.
        assert!(matches!(
            outcome,
            ExecutionOutcome::Crashed {
                reason: CrashReason {
                    exit: ExitKind::Code(3),
                    ..
                },
                ..
            }
        ));
    }
    healthy(&mut sup, unit);

    let unguarded = WorkerConfig {
        block_system_exit: false,
        ..config()
    };
    let (mut sup, unit) = hostile_supervisor(unguarded);
    let pid = sup.start().unwrap().pid;
    let outcome = sup
        .execute(
            unit,
            &[
                one("writeTemp", &[], vec![]),
                one("exit", &["int"], vec![int(3)]),
            ],
            &options(5000),
        )
        .unwrap();
    match outcome {
        ExecutionOutcome::Crashed { reason, completed } => {
            assert_eq!(reason.exit, ExitKind::Code(3));
            assert_eq!(completed.len(), 1, "the test before the exit is reported");
        }
        other => panic!("expected Crashed, got {other:#?}"),
    }
    assert!(group_gone(pid));
    healthy(&mut sup, unit);
}

#[test]
fn runtime_halt_and_kill_crash_the_worker_and_the_next_batch_runs() {
    let (mut sup, unit) = hostile_supervisor(config());
    let info = sup.start().unwrap();
    // With the exit guard, halt is blocked like exit.
    let outcome = sup
        .execute(
            unit,
            &[one("halt", &["int"], vec![int(42)])],
            &options(5000),
        )
        .unwrap();
    if info.exit_blocking {
        assert_eq!(finished(outcome)[0].status, TestStatus::SystemExit);
    }
    // SIGKILL cannot be blocked by anything in the JVM.
    let pid = sup.start().unwrap().pid;
    let outcome = sup
        .execute(unit, &[one("killSelf", &[], vec![])], &options(5000))
        .unwrap();
    assert!(
        matches!(
            outcome,
            ExecutionOutcome::Crashed {
                reason: CrashReason {
                    exit: ExitKind::Signal(9),
                    ..
                },
                ..
            }
        ),
        "{outcome:#?}"
    );
    assert!(group_gone(pid));
    healthy(&mut sup, unit);

    let unguarded = WorkerConfig {
        block_system_exit: false,
        ..config()
    };
    let (mut sup, unit) = hostile_supervisor(unguarded);
    let pid = sup.start().unwrap().pid;
    let outcome = sup
        .execute(
            unit,
            &[one("halt", &["int"], vec![int(42)])],
            &options(5000),
        )
        .unwrap();
    assert!(
        matches!(
            outcome,
            ExecutionOutcome::Crashed {
                reason: CrashReason {
                    exit: ExitKind::Code(42),
                    ..
                },
                ..
            }
        ),
        "{outcome:#?}"
    );
    assert!(group_gone(pid));
    healthy(&mut sup, unit);
    assert_eq!(sup.starts(), 2);
}

#[test]
fn endless_loops_time_out_with_and_without_probes() {
    let (mut sup, unit) = hostile_supervisor(config());
    sup.start().unwrap();
    let started = Instant::now();
    let r = finished(
        sup.execute(
            unit,
            &[
                one("spinWithProbe", &[], vec![]),
                one("spin", &[], vec![]),
                one("writeTemp", &[], vec![]),
            ],
            &options(300),
        )
        .unwrap(),
    );
    let elapsed = started.elapsed();
    assert_eq!(r[0].status, TestStatus::Timeout);
    assert_eq!(r[0].failed_at, Some(0));
    assert!(
        r[0].trace.proxies.loop_iterations > 0,
        "the probe loop counted iterations"
    );
    assert_eq!(r[1].status, TestStatus::Timeout);
    assert_eq!(r[2].status, TestStatus::Ok);
    assert!(elapsed < Duration::from_secs(10), "took {elapsed:?}");
    healthy(&mut sup, unit);
}

#[test]
fn unbounded_recursion_and_allocation_are_reported() {
    let config = WorkerConfig {
        heap_mb: 64,
        ..config()
    };
    let (mut sup, unit) = hostile_supervisor(config);
    let pid = sup.start().unwrap().pid;
    let r = finished(
        sup.execute(
            unit,
            &[
                one("recurse", &["int"], vec![int(0)]),
                one("hoard", &[], vec![]),
                one("writeTemp", &[], vec![]),
            ],
            &options(10_000),
        )
        .unwrap(),
    );
    assert_eq!(r[0].status, TestStatus::StackOverflow);
    assert_eq!(r[1].status, TestStatus::OutOfMemory);
    assert_eq!(r[2].status, TestStatus::Ok);
    assert_eq!(sup.worker_pid(), Some(pid), "recovered without a restart");
}

#[test]
fn threads_that_never_stop_are_stopped_or_the_worker_is_replaced() {
    let (mut sup, unit) = hostile_supervisor(config());
    let first = sup.start().unwrap().pid;
    let started = Instant::now();
    let r = finished(
        sup.execute(
            unit,
            &[
                one("spawnSleepers", &["int"], vec![int(3)]),
                one("spawnStubborn", &[], vec![]),
                one("writeTemp", &[], vec![]),
            ],
            &options(2000),
        )
        .unwrap(),
    );
    assert!(started.elapsed() < Duration::from_secs(15));
    assert_eq!(r.len(), 3);
    assert_eq!(r[0].status, TestStatus::Ok);
    assert_eq!(r[1].status, TestStatus::Ok);
    assert!(
        r[1].leaked_threads > 0,
        "a thread that swallows ThreadDeath survives: {:#?}",
        r[1]
    );
    // The third test ran in a fresh worker; the old one and its threads are gone.
    assert_eq!(r[2].status, TestStatus::Ok);
    assert_ne!(sup.worker_pid(), Some(first));
    assert!(
        group_gone(first),
        "the worker with the stubborn thread was killed"
    );
    let second = sup.worker_pid().unwrap();
    drop(sup);
    assert!(group_gone(second));
}

#[test]
fn a_hung_worker_is_killed_at_the_batch_deadline() {
    // No slack: the worker's own escalation (expire, interrupt, stop) outlasts the deadline.
    let config = WorkerConfig {
        test_slack: Duration::ZERO,
        ..config()
    };
    let (mut sup, unit) = hostile_supervisor(config);
    let pid = sup.start().unwrap().pid;
    let started = Instant::now();
    let outcome = sup
        .execute(unit, &[one("spin", &[], vec![])], &options(300))
        .unwrap();
    assert!(
        matches!(outcome, ExecutionOutcome::Timeout { .. }),
        "{outcome:#?}"
    );
    assert!(started.elapsed() < Duration::from_secs(3));
    assert!(group_gone(pid));
    healthy(&mut sup, unit);
}

#[test]
fn signals_cannot_leave_the_sandbox() {
    let (mut sup, unit) = hostile_supervisor(config());
    sup.start().unwrap();
    if !sup.sandbox().unwrap().scoped {
        eprintln!("no Landlock scopes here: not checked");
        return;
    }
    let mut bystander = std::process::Command::new("sleep")
        .arg("30")
        .spawn()
        .unwrap();
    let pid = i64::from(bystander.id());
    let r = finished(
        sup.execute(
            unit,
            &[test(vec![
                Statement::Value(Literal::Long(pid)),
                call_static(HOSTILE, "signal", &["long"], &[0]),
            ])],
            &options(5000),
        )
        .unwrap(),
    );
    std::thread::sleep(Duration::from_millis(200));
    let still_running = bystander.try_wait().unwrap().is_none();
    let _ = bystander.kill();
    let _ = bystander.wait();
    assert!(
        still_running,
        "the sandboxed worker killed a process outside it: {:#?}",
        r[0]
    );
}

/// A directory outside every scratch directory, removed on drop.
struct Outside(std::path::PathBuf);

impl Outside {
    fn new(what: &str) -> Outside {
        let dir = std::env::temp_dir().join(format!("ctgls-outside-{what}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Outside(dir)
    }
}

impl Drop for Outside {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn connect_unix(path: &std::path::Path) -> TestCase {
    one(
        "connectUnix",
        &["java.lang.String"],
        vec![string(&path.display().to_string())],
    )
}

fn shell(script: &str) -> TestCase {
    one("shell", &["java.lang.String"], vec![string(script)])
}

#[test]
fn unix_sockets_cannot_be_reached_from_the_worker_or_what_it_starts() {
    // A socket file outside the scratch directory, as the Docker socket or the user's bus.
    let outside = Outside::new("unix");
    let path = outside.0.join("daemon.sock");
    let listener = UnixListener::bind(&path).unwrap();
    listener.set_nonblocking(true).unwrap();
    let perl_connects = format!(
        "perl -MIO::Socket::UNIX -e 'IO::Socket::UNIX->new(Type => SOCK_STREAM(), Peer => \"{}\") or exit 3'",
        path.display()
    );
    let tests = [connect_unix(&path), shell(&perl_connects)];

    // The control: without the sandbox both connect (where Java has unix sockets and perl is
    // installed).
    let off = WorkerConfig {
        sandbox: SandboxPolicy::Off,
        ..config()
    };
    let (mut sup, unit) = hostile_supervisor(off);
    if sup.start().unwrap().java_feature < 16 {
        eprintln!("no unix sockets in Java before 16: not checked");
        return;
    }
    let control = finished(sup.execute(unit, &tests, &options(5000)).unwrap());
    drop(sup);
    assert_eq!(control[0].status, TestStatus::Ok, "{:#?}", control[0]);
    assert!(listener.accept().is_ok(), "the control connected");
    let perl = control[1].status == TestStatus::Ok && int_value(&control[1], 1) == 0;
    if perl {
        assert!(listener.accept().is_ok(), "perl's control connected");
    }

    let (mut sup, unit) = hostile_supervisor(config());
    let r = finished(sup.execute(unit, &tests, &options(5000)).unwrap());
    let report = sup.sandbox().unwrap();
    if !report.syscall_filter {
        eprintln!("no seccomp filter here: not checked ({report})");
        return;
    }
    assert_eq!(r[0].status, TestStatus::Exception, "{:#?}", r[0]);
    // The filter's EACCES: Java makes a BindException of it.
    let e = r[0].exception.as_ref().unwrap();
    assert_eq!(
        e.message.as_ref().and_then(JavaText::as_str),
        Some("Permission denied"),
        "{e:?}"
    );
    if perl {
        assert_eq!(r[1].status, TestStatus::Ok, "{:#?}", r[1]);
        assert_ne!(int_value(&r[1], 1), 0, "perl in the sandbox connected");
    }
    assert_eq!(
        listener.accept().map(|_| ()).unwrap_err().kind(),
        ErrorKind::WouldBlock,
        "the listener saw no connection"
    );
    healthy(&mut sup, unit);
}

#[test]
fn processes_a_test_starts_cannot_leave_the_worker_group() {
    // A duration no other process uses, so the sleepers can be found in /proc.
    let seconds = format!("400.{}", std::process::id());
    let (mut sup, unit) = hostile_supervisor(config());
    let pid = sup.start().unwrap().pid;
    // `setsid` makes a session (and group) of its own; sh then exits, so the sleeper is nobody's
    // descendant but init's.
    let r = finished(
        sup.execute(
            unit,
            &[shell(&format!("setsid sleep {seconds} & sleep 0.2"))],
            &options(5000),
        )
        .unwrap(),
    );
    assert_eq!(r[0].status, TestStatus::Ok, "{:#?}", r[0]);
    let report = sup.sandbox().unwrap();
    healthy(&mut sup, unit);
    drop(sup);
    let gone = group_gone(pid) && sleepers_gone(&seconds);
    if !report.syscall_filter {
        eprintln!("no seccomp filter here: not checked ({report})");
        return;
    }
    assert!(gone, "a process left the worker's group and outlived it");
}

#[test]
fn a_file_beyond_the_size_bound_is_an_io_exception_not_a_dead_worker() {
    let config = WorkerConfig {
        max_file_mb: 4,
        ..config()
    };
    let (mut sup, unit) = hostile_supervisor(config);
    let pid = sup.start().unwrap().pid;
    let started = Instant::now();
    let r = finished(
        sup.execute(
            unit,
            &[
                one("writeBig", &["int"], vec![int(3)]),
                one("writeBig", &["int"], vec![int(16)]),
            ],
            &options(10_000),
        )
        .unwrap(),
    );
    assert!(started.elapsed() < Duration::from_secs(10));
    assert_eq!(r[0].status, TestStatus::Ok, "below the bound: {:#?}", r[0]);
    let sizes: Vec<u64> = std::fs::read_dir(sup.temp_dir().unwrap())
        .unwrap()
        .filter_map(Result::ok)
        .filter(|e| e.file_name().to_string_lossy().starts_with("big"))
        .map(|e| e.metadata().unwrap().len())
        .collect();
    assert_eq!(sup.worker_pid(), Some(pid), "the worker survived the write");
    assert_eq!(r[1].status, TestStatus::Exception, "{:#?}", r[1]);
    let e = r[1].exception.as_ref().unwrap();
    assert_eq!(e.type_name, "java.io.IOException", "{e:?}");
    assert_eq!(
        e.message.as_ref().and_then(JavaText::as_str),
        Some("File too large"),
        "{e:?}"
    );
    let mut sizes = sizes;
    sizes.sort_unstable();
    assert_eq!(
        sizes,
        [3 << 20, 4 << 20],
        "the big file stopped at the bound"
    );
    healthy(&mut sup, unit);
    drop(sup);
    assert!(group_gone(pid));
}

#[test]
fn processes_a_test_leaves_running_are_killed_after_it() {
    // With the SecurityManager (Java 11-17), which sees every exec, and without it.
    for guard in [true, false] {
        // A duration no other process uses, so the sleepers can be found in /proc.
        let seconds = format!("300.{}{}", std::process::id(), u8::from(guard));
        let config = WorkerConfig {
            block_system_exit: guard,
            ..config()
        };
        let (mut sup, unit) = hostile_supervisor(config);
        let info = sup.start().unwrap();
        let sleeper = || {
            one(
                "startSleeper",
                &["java.lang.String"],
                vec![string(&seconds)],
            )
        };
        let tests: Vec<TestCase> = (0..20).map(|_| sleeper()).collect();
        let started = Instant::now();
        let r = finished(sup.execute(unit, &tests, &options(5000)).unwrap());
        assert!(started.elapsed() < Duration::from_secs(20));
        let running: Vec<i64> = r.iter().map(|t| int_value(t, 1)).collect();
        let killed: u32 = r.iter().map(|t| t.processes_killed).sum();
        // Counted while the worker still runs, before anything kills its group.
        let none_after = sleepers_gone(&seconds);
        eprintln!(
            "guard {}: running {running:?} in {:?}",
            info.exit_blocking,
            started.elapsed()
        );
        // Its own and, without the exit guard, at most the one before it (which the worker finds
        // only once its reaper thread has taken it up); one more on a loaded machine, where a
        // killed sleeper may still await its reaper. Without the kill they would reach 20.
        assert!(
            running.iter().all(|&n| (1..=3).contains(&n)),
            "sleepers alive during the batch: {running:?}"
        );
        assert!(none_after, "a sleeper outlived the batch");
        assert_eq!(killed, 20, "every sleeper was killed and reported");
        assert_eq!(sup.worker_pid(), Some(info.pid), "no restart was needed");
        healthy(&mut sup, unit);
        drop(sup);
        assert!(group_gone(info.pid));
    }
}
