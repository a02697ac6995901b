//! What a test needs of its environment, against the real worker and sandbox
//! (docs/protocol.md, "Environment"): files written outside the temporary directory (absolute or
//! relative, by java.io and NIO, with the refusal swallowed or not, told by a return value
//! only), connections, look-ups, listening sockets and processes; and nothing for a temporary
//! file or plain computation. With the security manager the worker sees every attempt; without
//! it, the refusals by their exceptions.

mod common;

use std::path::PathBuf;

use common::*;
use jvm::*;

const ENV: &str = "env.Env";

fn call(method: &str, params: &[&str], args: Vec<Statement>) -> TestCase {
    let refs: Vec<usize> = (0..args.len()).collect();
    let mut statements = args;
    statements.push(call_static(ENV, method, params, &refs));
    test(statements)
}

const STRING: &[&str] = &["java.lang.String"];
const HOST_PORT: &[&str] = &["java.lang.String", "int"];

/// A directory outside the worker's scratch directory, which the tests must leave empty.
struct Outside(PathBuf);

impl Outside {
    fn new(name: &str) -> Outside {
        let dir = std::env::temp_dir().join(format!("ctgls-env-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Outside(dir)
    }

    fn path(&self, name: &str) -> String {
        self.0.join(name).display().to_string()
    }

    fn is_empty(&self) -> bool {
        std::fs::read_dir(&self.0).unwrap().next().is_none()
    }
}

impl Drop for Outside {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn described(r: &TestResult) -> Vec<String> {
    r.environment
        .iter()
        .map(EnvironmentNeed::describe)
        .collect()
}

fn need<'r>(r: &'r TestResult, text: &str) -> &'r EnvironmentNeed {
    r.environment
        .iter()
        .find(|n| n.describe() == text)
        .unwrap_or_else(|| panic!("no need {text:?} in {:#?}", r.environment))
}

fn sandboxed(sup: &Supervisor) -> bool {
    sup.sandbox().is_some_and(|s| s.filesystem)
}

fn network_isolated(sup: &Supervisor) -> bool {
    sup.sandbox().is_some_and(|s| s.network_isolated())
}

#[test]
fn with_the_security_manager_every_attempt_is_seen_caught_or_not() {
    let mut sup = supervisor();
    let info = sup.start().unwrap();
    let unit = compile_project(&mut sup, "environment");
    let outside = Outside::new("guarded");
    let tests = [
        call("write", STRING, vec![string(&outside.path("a.txt"))]),
        call("writeCaught", STRING, vec![string(&outside.path("b.txt"))]),
        call("writeNio", STRING, vec![string(&outside.path("c.txt"))]),
        call("mkdir", STRING, vec![string(&outside.path("d"))]),
        call("write", STRING, vec![string("relative.txt")]),
        call("connect", HOST_PORT, vec![string("127.0.0.1"), int(9)]),
        call(
            "connectCaught",
            HOST_PORT,
            vec![string("10.1.2.3"), int(80)],
        ),
        call("listen", &[], vec![]),
        call("startCaught", STRING, vec![string("true")]),
        call("temp", &[], vec![]),
        call("add", &["int", "int"], vec![int(1), int(2)]),
    ];
    let r = finished(sup.execute(unit, &tests, &options(5000)).unwrap());
    let (sandboxed, isolated) = (sandboxed(&sup), network_isolated(&sup));
    if !info.exit_blocking {
        eprintln!("this JDK installs no security manager: only refusals are seen");
        return;
    }
    let a = need(&r[0], &format!("writes {}", outside.path("a.txt")));
    assert_eq!(a.kind, EnvironmentKind::File);
    // The exception the test ends with names the refusal.
    assert_eq!(a.refused, sandboxed, "{a:?}");
    if sandboxed {
        let detail = a.detail.as_deref().unwrap();
        assert!(detail.contains("Permission denied"), "{detail}");
    }
    // Env.java is not instrumented here, so no line is known (ctg/tests/environment.rs).
    assert_eq!(a.line, None, "{a:?}");
    // Swallowed by code that is not instrumented: the check saw it all the same.
    need(&r[1], &format!("writes {}", outside.path("b.txt")));
    need(&r[2], &format!("writes {}", outside.path("c.txt")));
    // A refusal told by `false` alone.
    need(&r[3], &format!("writes {}", outside.path("d")));
    // Allowed in the scratch directory, the user's project when run there.
    let relative = need(
        &r[4],
        "writes relative.txt (relative to the working directory)",
    );
    assert!(!relative.refused);
    assert_eq!(r[4].status, TestStatus::Ok, "{:#?}", r[4]);
    let connect = need(&r[5], "connects to 127.0.0.1:9");
    assert_eq!(connect.kind, EnvironmentKind::Network);
    assert_eq!(connect.refused, isolated, "{connect:?}");
    assert_eq!(
        r[5].environment.len(),
        1,
        "one need: {:?}",
        described(&r[5])
    );
    need(&r[6], "connects to 10.1.2.3:80");
    need(&r[7], "listens on a free port");
    let start = need(&r[8], "starts true");
    assert_eq!(start.kind, EnvironmentKind::Process);
    assert!(r[9].environment.is_empty(), "{:?}", described(&r[9]));
    assert_eq!(text_value(&r[9], 0), "deleted");
    assert!(r[10].environment.is_empty(), "{:?}", described(&r[10]));
    drop(sup);
    if sandboxed {
        assert!(
            outside.is_empty(),
            "nothing is written outside the scratch dir"
        );
    }
}

#[test]
fn without_the_security_manager_refusals_are_seen_by_their_exceptions() {
    let config = WorkerConfig {
        block_system_exit: false,
        ..config()
    };
    let mut sup = Supervisor::new(config).unwrap();
    let info = sup.start().unwrap();
    let unit = compile_project(&mut sup, "environment");
    let outside = Outside::new("bare");
    let tests = [
        call("write", STRING, vec![string(&outside.path("a.txt"))]),
        call("writeNio", STRING, vec![string(&outside.path("c.txt"))]),
        call("connect", HOST_PORT, vec![string("127.0.0.1"), int(9)]),
        call("connect", HOST_PORT, vec![string("example.com"), int(443)]),
        call("start", STRING, vec![string("/nonexistent/ctgls-program")]),
        call("temp", &[], vec![]),
        call("writeCaught", STRING, vec![string(&outside.path("b.txt"))]),
    ];
    let r = finished(sup.execute(unit, &tests, &options(5000)).unwrap());
    assert!(!info.exit_blocking);
    if sandboxed(&sup) {
        let a = need(&r[0], &format!("writes {}", outside.path("a.txt")));
        assert!(a.refused);
        let c = need(&r[1], &format!("accesses {}", outside.path("c.txt")));
        assert!(c
            .detail
            .as_deref()
            .unwrap()
            .contains("AccessDeniedException"));
    }
    if network_isolated(&sup) {
        // The exception does not name the address.
        let connect = need(&r[2], "connects to a network address");
        assert_eq!(connect.kind, EnvironmentKind::Network, "{connect:?}");
        assert!(connect.refused);
        let lookup = need(&r[3], "resolves example.com");
        assert!(lookup.refused);
    }
    let start = need(&r[4], "starts /nonexistent/ctgls-program");
    assert_eq!(start.kind, EnvironmentKind::Process);
    assert!(r[5].environment.is_empty(), "{:?}", described(&r[5]));
    // What the JDK alone cannot show: a refusal swallowed by code that is not instrumented
    // (instrumented code reports what its catch clauses catch, ctg/tests/environment.rs).
    assert!(r[6].environment.is_empty(), "{:?}", described(&r[6]));
    drop(sup);
    assert!(outside.is_empty());
}
