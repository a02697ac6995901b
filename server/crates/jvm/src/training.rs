//! The training run that makes the worker's class data sharing archive ([`crate::cds`]): a worker
//! started with `-XX:ArchiveClassesAtExit` does what every job does first (compile an
//! instrumented class in memory, describe it, run a few tests with getters observed) on a small
//! class of ctgls's own, then shuts down, and the JVM writes the classes it loaded on the way
//! out. Classes of the compiled unit live in the worker's own class loaders and are never
//! archived; javac's, the JDK's and the worker's are.

use std::path::Path;
use std::time::Duration;

use crate::cds::{SharedArchives, Training};
use crate::config::WorkerConfig;
use crate::jdk::Jdk;
use crate::model::*;
use crate::sandbox::SandboxPolicy;
use crate::supervisor::Supervisor;

const COUNTER: &str = "package ctgls.training;
public class Counter {
    private int count;
    private final String name;
    public Counter(String name) { this.name = name; }
    public int add(int n) {
        if (n < 0) throw new IllegalArgumentException(\"negative: \" + n);
        for (int i = 0; i < n; i++) { count++; }
        return count;
    }
    public String getName() { return name; }
    public int getCount() { return count; }
    public static Counter named(String name) { return new Counter(name == null ? \"\" : name); }
}
";

/// `COUNTER` as the instrumenter writes it (probe calls as in `jvm/tests/fixtures/probe`).
const COUNTER_INSTRUMENTED: &str = "package ctgls.training;
import ctgls.rt.Probe;
public class Counter { private static final class P { static final int B = Probe.register(\"ctgls/training/Counter.java#t1\", 4, 14, 5, 1); }
    private int count;
    private final String name;
    public Counter(String name) { Probe.enter(P.B + 0); Probe.line(P.B + 5); this.name = name; }
    public int add(int n) { Probe.enter(P.B + 1);
        Probe.line(P.B + 7); if (Probe.cmpInt(P.B + 0, Probe.LT, n, 0)) throw Probe.alloc(new IllegalArgumentException(\"negative: \" + n));
        Probe.line(P.B + 8); for (int i = 0; Probe.cmpInt(P.B + 1, Probe.LT, i, n); i++) { Probe.loop(P.B + 0); count++; }
        Probe.line(P.B + 9); return count;
    }
    public String getName() { Probe.enter(P.B + 2); Probe.line(P.B + 11); return name; }
    public int getCount() { Probe.enter(P.B + 3); Probe.line(P.B + 12); return count; }
    public static Counter named(String name) { Probe.enter(P.B + 4); Probe.line(P.B + 13); return Probe.alloc(new Counter(Probe.isNull(P.B + 2, name) ? \"\" : name)); }
}
";

const CLASS: &str = "ctgls.training.Counter";

/// The archive's name: one per worker build, whose jar is the class path it was made with.
pub(crate) fn worker_key(worker_jar: &Path) -> String {
    SharedArchives::key("worker", &[worker_jar.to_path_buf()])
}

/// Makes the worker archive for `worker_jar` unless it exists (or is being made). The training
/// worker runs without a sandbox, so the JVM may write the archive into the cache: it runs only
/// the class above, never the user's code.
pub(crate) fn train_worker(
    config: &WorkerConfig,
    jdk: &Jdk,
    worker_jar: &Path,
    archives: &SharedArchives,
) -> Training {
    archives.make(
        &worker_key(worker_jar),
        &[worker_jar.to_path_buf()],
        |dump| {
            let mut training = config.clone();
            training.sandbox = SandboxPolicy::Off;
            training.class_data_sharing = false;
            training.extra_jvm_args.push(dump.to_string());
            let mut supervisor = Supervisor::with_worker(training, jdk.clone(), worker_jar);
            exercise(&mut supervisor).map_err(|e| format!("the training worker failed: {e}"))?;
            // The JVM writes the archive as it exits.
            if supervisor.shutdown_within(Duration::from_secs(60)) {
                Ok(())
            } else {
                Err("the training worker did not exit".into())
            }
        },
    )
}

fn exercise(s: &mut Supervisor) -> Result<(), crate::JvmError> {
    s.start()?;
    let compiled = s.compile(&CompileRequest {
        sources: vec![SourceFile {
            path: "ctgls/training/Counter.java".into(),
            text: COUNTER.into(),
            instrumented: Some(COUNTER_INSTRUMENTED.into()),
        }],
        ..CompileRequest::default()
    })?;
    let Some(unit) = compiled.unit else {
        return Err(crate::JvmError::Protocol(format!(
            "the training class did not compile: {:?}",
            compiled.diagnostics
        )));
    };
    s.describe(unit, &[CLASS.to_string()], 1)?;
    let call = |method: &str, params: &[&str], receiver, args: Vec<usize>| Statement::Call {
        class: CLASS.into(),
        method: method.into(),
        params: params.iter().map(|p| p.to_string()).collect(),
        receiver,
        args,
    };
    let tests: Vec<TestCase> = (0..40)
        .map(|k| TestCase {
            statements: vec![
                Statement::Value(Literal::String(format!("c{k}"))),
                call("named", &["java.lang.String"], None, vec![0]),
                Statement::Value(Literal::Int(k % 5 - 1)),
                call("add", &["int"], Some(1), vec![2]),
                call("getCount", &[], Some(1), vec![]),
            ],
        })
        .collect();
    for observe_getters in [false, true] {
        s.execute(
            unit,
            &tests,
            &ExecuteOptions {
                observe_getters,
                classes_under_test: vec![CLASS.into()],
                ..ExecuteOptions::default()
            },
        )?;
    }
    Ok(())
}
