//! Worker benchmark: cold start + first compile, statement executions per second, and the
//! overhead against calling the same methods from compiled Java: directly, through
//! `Method.invoke` in one reused class loader, and with a fresh class loader per test.
//!
//! Run: `cargo bench -p jvm --bench execution` (figures go to docs/benchmarks.md). Profiling:
//! `CTGLS_BENCH_ONLY=account CTGLS_BENCH_ROUNDS=200 CTGLS_BENCH_JVM_ARGS=-XX:StartFlightRecording=filename=/tmp/w.jfr`.
//! `CTGLS_BENCH_ONLY=cold`: only the cold start, with and without the start-up archive.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use jvm::*;

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

fn sources(project: &str) -> Vec<SourceFile> {
    let root = fixtures().join(project);
    let mut out = Vec::new();
    let mut stack = vec![root.clone()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            if p.is_dir() {
                stack.push(p);
            } else if name.ends_with(".java") && !name.ends_with(".instrumented.java") {
                let instrumented = p.with_file_name(name.replace(".java", ".instrumented.java"));
                out.push(SourceFile {
                    path: p
                        .strip_prefix(&root)
                        .unwrap()
                        .to_string_lossy()
                        .into_owned(),
                    text: std::fs::read_to_string(&p).unwrap(),
                    instrumented: std::fs::read_to_string(instrumented).ok(),
                });
            }
        }
    }
    out
}

fn call(
    class: &str,
    method: &str,
    params: &[&str],
    receiver: Option<usize>,
    args: &[usize],
) -> Statement {
    Statement::Call {
        class: class.into(),
        method: method.into(),
        params: params.iter().map(|s| s.to_string()).collect(),
        receiver,
        args: args.to_vec(),
    }
}

/// Nine statements on a simple class, the same sequence the direct Java driver runs.
fn account_test(k: i32) -> TestCase {
    let a = "bank.Account";
    TestCase {
        statements: vec![
            Statement::Value(Literal::Int(150 + k % 7)),
            Statement::New {
                class: a.into(),
                params: vec!["int".into()],
                args: vec![0],
            },
            Statement::Value(Literal::Int(30)),
            call(a, "withdraw", &["int"], Some(1), &[2]),
            call(a, "deposit", &["int"], Some(1), &[2]),
            call(a, "getLevel", &[], Some(1), &[]),
            Statement::Value(Literal::String("ann".into())),
            call(a, "open", &["java.lang.String"], None, &[6]),
            call(a, "createdCount", &[], None, &[]),
        ],
    }
}

/// A random test case of `Account` (seed `k`): an account, then 1 to 13 statements drawn from
/// its API with random arguments, each call on a random earlier account; a test may end early
/// at an exception (`withdraw` beyond the balance, `share(0)`), as random tests do.
fn random_account_test(k: i32) -> TestCase {
    use rand::rngs::StdRng;
    use rand::{Rng, SeedableRng};
    let a = "bank.Account";
    let mut rng = StdRng::seed_from_u64(k as u64);
    let mut statements = vec![
        Statement::Value(Literal::Int(rng.gen_range(0..300))),
        Statement::New {
            class: a.into(),
            params: vec!["int".into()],
            args: vec![0],
        },
    ];
    let mut ints = vec![0];
    let mut accounts = vec![1];
    let mut strings: Vec<usize> = Vec::new();
    for _ in 0..rng.gen_range(1..14) {
        let next = statements.len();
        let account = accounts[rng.gen_range(0..accounts.len())];
        let int = ints[rng.gen_range(0..ints.len())];
        let statement = match rng.gen_range(0..10) {
            0 => {
                ints.push(next);
                Statement::Value(Literal::Int(rng.gen_range(-50..300)))
            }
            1 => {
                strings.push(next);
                let names = ["ann", "bob", ""];
                Statement::Value(Literal::String(names[rng.gen_range(0..3)].into()))
            }
            2 if !strings.is_empty() => {
                accounts.push(next);
                let owner = strings[rng.gen_range(0..strings.len())];
                call(a, "open", &["java.lang.String"], None, &[owner])
            }
            2 | 3 => call(a, "deposit", &["int"], Some(account), &[int]),
            4 => {
                ints.push(next);
                call(a, "withdraw", &["int"], Some(account), &[int])
            }
            5 => {
                ints.push(next);
                call(a, "getBalance", &[], Some(account), &[])
            }
            6 => call(a, "isEmpty", &[], Some(account), &[]),
            7 => call(a, "getLevel", &[], Some(account), &[]),
            8 => {
                ints.push(next);
                call(a, "share", &["int"], Some(account), &[int])
            }
            _ => {
                ints.push(next);
                call(a, "createdCount", &[], None, &[])
            }
        };
        statements.push(statement);
    }
    TestCase { statements }
}

fn triangle_test(k: i32) -> TestCase {
    TestCase {
        statements: vec![
            Statement::Value(Literal::Int(3 + k % 5)),
            Statement::Value(Literal::Int(4)),
            Statement::Value(Literal::Int(5 - k % 2)),
            call(
                "probe.Triangle",
                "classify",
                &["int", "int", "int"],
                None,
                &[0, 1, 2],
            ),
        ],
    }
}

/// Eight statements on a class whose methods do some work (scans of a 40-character text, a
/// Levenshtein distance): the same sequence as the direct Java driver's `text` modes.
fn words_test(k: i32) -> TestCase {
    let w = "text.Words";
    let s = "java.lang.String";
    TestCase {
        statements: vec![
            Statement::Value(Literal::String(format!(
                "the quick brown fox {} jumps over the lazy dog",
                k % 7
            ))),
            Statement::New {
                class: w.into(),
                params: vec![s.into()],
                args: vec![0],
            },
            call(w, "count", &[], Some(1), &[]),
            call(w, "capitalized", &[], Some(1), &[]),
            call(w, "isPalindrome", &[], Some(1), &[]),
            call(w, "longest", &[], Some(1), &[]),
            Statement::Value(Literal::String("kitten sitting on the mat".into())),
            call(w, "distance", &[s, s], None, &[0, 6]),
        ],
    }
}

/// `CTGLS_BENCH_JVM_ARGS` (whitespace-separated) adds JVM options to the worker, e.g. a
/// profiler's `-XX:StartFlightRecording=filename=/tmp/w.jfr`; the sandbox is then off, since a
/// profiler writes outside the worker's scratch directory.
fn config(cache: &Path, quick_start: bool) -> WorkerConfig {
    let extra: Vec<String> = std::env::var("CTGLS_BENCH_JVM_ARGS")
        .unwrap_or_default()
        .split_whitespace()
        .map(str::to_owned)
        .collect();
    WorkerConfig {
        cache_dir: Some(cache.into()),
        quick_start,
        sandbox: if extra.is_empty() {
            SandboxPolicy::BestEffort
        } else {
            SandboxPolicy::Off
        },
        extra_jvm_args: extra,
        ..WorkerConfig::default()
    }
}

/// CPU time used so far by all threads of process `pid` (Linux `schedstat`), or 0 elsewhere.
fn cpu_ns(pid: u32) -> u64 {
    let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
        return 0;
    };
    tasks
        .filter_map(Result::ok)
        .filter_map(|t| std::fs::read_to_string(t.path().join("schedstat")).ok())
        .filter_map(|s| s.split_whitespace().next()?.parse::<u64>().ok())
        .sum()
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

fn cold_start(quick_start: bool) {
    let cache = std::env::temp_dir().join(format!("ctgls-bench-cache-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&cache);
    let t = Instant::now();
    let mut sup = Supervisor::new(config(&cache, quick_start)).unwrap();
    let build = t.elapsed();
    let t = Instant::now();
    let training = format!("{:?}", sup.prepare_worker_archive());
    let archive = t.elapsed();
    drop(sup);
    // Warm cache from here on: what every start after the first one costs, with and without
    // the class data sharing archive made above.
    for class_data_sharing in [false, true] {
        let mut runs = Vec::new();
        for _ in 0..3 {
            let t = Instant::now();
            let mut sup = Supervisor::new(WorkerConfig {
                class_data_sharing,
                ..config(&cache, quick_start)
            })
            .unwrap();
            assert_eq!(sup.uses_worker_archive(), class_data_sharing, "{training}");
            sup.start().unwrap();
            let started = t.elapsed();
            let r = sup
                .compile(&CompileRequest {
                    sources: sources("bank"),
                    ..Default::default()
                })
                .unwrap();
            assert!(r.unit.is_some());
            let compiled = t.elapsed();
            let out = sup
                .execute(
                    r.unit.unwrap(),
                    &[account_test(0)],
                    &ExecuteOptions::default(),
                )
                .unwrap();
            assert!(matches!(out, ExecutionOutcome::Finished(_)));
            runs.push((
                started,
                compiled - started,
                t.elapsed() - compiled,
                t.elapsed(),
            ));
        }
        runs.sort_by_key(|r| r.3);
        let (start, compile, first_exec, total) = runs[1];
        println!(
            "cold start (TieredStopAtLevel=1: {quick_start}, class data sharing: {class_data_sharing}): \
             worker build {:.0} ms and archive {:.0} ms (once per ctgls version and JDK); \
             JVM start + hello {:.0} ms; first compile (4 files) {:.0} ms; first execute {:.0} ms; \
             start + first compile + first execute {:.0} ms (median of 3)",
            ms(build), ms(archive), ms(start), ms(compile), ms(first_exec), ms(total)
        );
    }
    let _ = std::fs::remove_dir_all(&cache);
}

/// How a throughput run executes: JIT setting, getter observation, loader isolation.
#[derive(Clone, Copy)]
struct Mode {
    quick_start: bool,
    observe: bool,
    fresh_loaders: bool,
}

const DEFAULT: Mode = Mode {
    quick_start: true,
    observe: false,
    fresh_loaders: false,
};

fn throughput(label: &str, project: &str, make: fn(i32) -> TestCase, mode: Mode) -> f64 {
    let Mode {
        quick_start,
        observe,
        fresh_loaders,
    } = mode;
    let cache = std::env::temp_dir().join("ctgls-bench-cache-shared");
    let mut sup = Supervisor::new(config(&cache, quick_start)).unwrap();
    let r = sup
        .compile(&CompileRequest {
            sources: sources(project),
            ..Default::default()
        })
        .unwrap();
    let unit = r.unit.unwrap_or_else(|| panic!("{:#?}", r.diagnostics));
    let tests: Vec<TestCase> = (0..200).map(make).collect();
    let statements: usize = tests.iter().map(|t| t.statements.len()).sum();
    let opts = ExecuteOptions {
        observe_getters: observe,
        fresh_loader_per_test: fresh_loaders,
        ..ExecuteOptions::default()
    };
    for _ in 0..3 {
        sup.execute(unit, &tests, &opts).unwrap();
    }
    // The median of several rounds: other processes share the machine.
    let mut rounds = Vec::new();
    let mut reused = 0;
    let worker = sup.worker_pid().unwrap();
    let (worker_cpu, bench_cpu) = (cpu_ns(worker), cpu_ns(std::process::id()));
    for _ in 0..timed_rounds() {
        let t = Instant::now();
        match sup.execute(unit, &tests, &opts).unwrap() {
            ExecutionOutcome::Finished(r) => {
                assert!(r.iter().all(|r| r.status != TestStatus::Invalid));
                reused += r.iter().filter(|r| !r.fresh_loader).count();
            }
            other => panic!("{other:?}"),
        }
        rounds.push(t.elapsed());
    }
    let tests_run = (rounds.len() * tests.len()) as f64;
    let worker_cpu_us = (cpu_ns(worker) - worker_cpu) as f64 / 1000.0 / tests_run;
    let bench_cpu_us = (cpu_ns(std::process::id()) - bench_cpu) as f64 / 1000.0 / tests_run;
    rounds.sort();
    let elapsed = rounds[rounds.len() / 2];
    let per_test_us = elapsed.as_secs_f64() * 1e6 / tests.len() as f64;
    let stmts_per_s = statements as f64 / elapsed.as_secs_f64();
    println!(
        "{label} (TieredStopAtLevel=1: {quick_start}, getters: {observe}, fresh loader per test: \
         {fresh_loaders}): {stmts_per_s:.0} statements/s, {:.0} tests/s, {per_test_us:.0} us/test \
         ({reused} of {} tests reused a loader; CPU per test: worker {worker_cpu_us:.0} us, \
         supervisor {bench_cpu_us:.0} us)",
        1e6 / per_test_us,
        rounds.len() * tests.len()
    );
    per_test_us
}

/// Timed rounds per throughput run: `CTGLS_BENCH_ROUNDS`, default 7 (more for profiling).
fn timed_rounds() -> usize {
    std::env::var("CTGLS_BENCH_ROUNDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(7)
}

const DRIVER: &str = r#"
import java.net.URL;
import java.net.URLClassLoader;
import java.lang.reflect.Method;

public class Driver {
    static final int BATCH = 200;
    static long sink;

    public static void main(String[] args) throws Exception {
        int n = Integer.parseInt(args[0]);
        String mode = args[1];
        URL classes = new java.io.File(args[2]).toURI().toURL();
        run(n, mode, classes);
        long t = System.nanoTime();
        run(n, mode, classes);
        System.out.println((System.nanoTime() - t) / n);
    }

    static void run(int n, String mode, URL classes) throws Exception {
        // The reflective floor: one loader for every test, methods looked up once.
        URLClassLoader shared = new URLClassLoader(new URL[] {classes}, ClassLoader.getPlatformClassLoader());
        if (mode.equals("compiled")) {
            // The floor of compiling test cases to bytecode: each batch of tests is a new class
            // (its tests differ from the last batch's), defined in a fresh loader over the shared
            // one, verified, initialised, and each test method runs once.
            byte[] bytes = java.nio.file.Files.readAllBytes(
                    java.nio.file.Path.of(new java.io.File(classes.toURI()).getParent(), "batch", "bank", "Batch.class"));
            shared.loadClass("bank.Account");
            for (int k = 0; k < n; k += BATCH) {
                ClassLoader l = new ClassLoader(shared) {
                    final Class<?> batch = defineClass("bank.Batch", bytes, 0, bytes.length);
                };
                Class<?> c = Class.forName("bank.Batch", true, l);
                sink += (Integer) c.getMethod("runAll").invoke(null);
            }
            return;
        }
        if (mode.endsWith("-words")) {
            Class<?> wc = shared.loadClass("text.Words");
            java.lang.reflect.Constructor<?> makeWords = wc.getConstructor(String.class);
            Method count = wc.getMethod("count");
            Method capitalized = wc.getMethod("capitalized");
            Method palindrome = wc.getMethod("isPalindrome");
            Method longest = wc.getMethod("longest");
            Method distance = wc.getMethod("distance", String.class, String.class);
            for (int k = 0; k < n; k++) {
                String phrase = "the quick brown fox " + (k % 7) + " jumps over the lazy dog";
                String other = "kitten sitting on the mat";
                if (mode.equals("reflective-words")) {
                    Object w = makeWords.newInstance(phrase);
                    sink += (Integer) count.invoke(w);
                    sink += capitalized.invoke(w).hashCode();
                    sink += ((Boolean) palindrome.invoke(w)) ? 1 : 0;
                    sink += longest.invoke(w).hashCode();
                    sink += (Integer) distance.invoke(null, phrase, other);
                } else {
                    text.Words w = new text.Words(phrase);
                    sink += w.count();
                    sink += w.capitalized().hashCode();
                    sink += w.isPalindrome() ? 1 : 0;
                    sink += w.longest().hashCode();
                    sink += text.Words.distance(phrase, other);
                }
            }
            return;
        }
        Class<?> sc = shared.loadClass("bank.Account");
        java.lang.reflect.Constructor<?> make = sc.getConstructor(int.class);
        Method withdraw = sc.getMethod("withdraw", int.class);
        Method deposit = sc.getMethod("deposit", int.class);
        Method level = sc.getMethod("getLevel");
        Method open = sc.getMethod("open", String.class);
        Method created = sc.getMethod("createdCount");
        for (int k = 0; k < n; k++) {
            if (mode.equals("reflective")) {
                Object a = make.newInstance(150 + k % 7);
                sink += (Integer) withdraw.invoke(a, 30);
                deposit.invoke(a, 30);
                sink += level.invoke(a).hashCode() & 1;
                Object b = open.invoke(null, "ann");
                sink += (Integer) created.invoke(null);
            } else if (mode.equals("plain")) {
                bank.Account a = new bank.Account(150 + k % 7);
                try {
                    sink += a.withdraw(30);
                } catch (bank.InsufficientFundsException e) {
                    sink++;
                }
                a.deposit(30);
                sink += a.getLevel().ordinal();
                sink += bank.Account.open("ann").getBalance();
                sink += bank.Account.createdCount();
            } else {
                // The old isolation: a fresh loader per test, calls by reflection.
                URLClassLoader l = new URLClassLoader(new URL[] {classes}, ClassLoader.getPlatformClassLoader());
                Class<?> c = l.loadClass("bank.Account");
                Object a = c.getConstructor(int.class).newInstance(150 + k % 7);
                sink += (Integer) c.getMethod("withdraw", int.class).invoke(a, 30);
                c.getMethod("deposit", int.class).invoke(a, 30);
                sink += c.getMethod("getLevel").invoke(a).hashCode() & 1;
                Object b = c.getMethod("open", String.class).invoke(null, "ann");
                sink += (Integer) c.getMethod("createdCount").invoke(null);
                l.close();
            }
        }
    }
}
"#;

/// `account_test` compiled to Java, as a code generator that turns test cases into bytecode
/// would: one method per test, every statement's value in a local, the statement index kept so
/// that a thrown exception can be attributed, and a `runAll` that runs each test once. No trace
/// is snapshotted and nothing crosses a process boundary, so this is a lower bound.
fn compiled_batch(n: usize) -> String {
    let mut s = String::from(
        "package bank;\npublic final class Batch {\n    static long sink;\n    static int stmt;\n    \
         static Throwable thrown;\n",
    );
    for k in 0..n {
        s.push_str(&format!(
            "    static void t{k}() throws Throwable {{\n        stmt = 0; int v0 = {};\n        \
             stmt = 1; Account v1 = new Account(v0);\n        stmt = 2; int v2 = 30;\n        \
             stmt = 3; int v3 = v1.withdraw(v2); sink += v3;\n        stmt = 4; v1.deposit(v2);\n        \
             stmt = 5; Level v5 = v1.getLevel(); sink += v5.ordinal();\n        \
             stmt = 6; String v6 = \"ann\";\n        stmt = 7; Account v7 = Account.open(v6);\n        \
             stmt = 8; int v8 = Account.createdCount(); sink += v8;\n    }}\n",
            150 + k % 7
        ));
    }
    s.push_str("    public static int runAll() {\n        int failed = 0;\n");
    for k in 0..n {
        s.push_str(&format!(
            "        try {{ t{k}(); }} catch (Throwable e) {{ thrown = e; failed++; }}\n"
        ));
    }
    s.push_str("        return failed;\n    }\n}\n");
    s
}

/// Nanoseconds per test when the same calls run from compiled Java.
fn direct(mode: &str) -> f64 {
    let jdk = Jdk::locate(None).unwrap();
    let dir = std::env::temp_dir().join(format!("ctgls-bench-direct-{}", std::process::id()));
    let src = dir.join("src");
    std::fs::create_dir_all(src.join("bank")).unwrap();
    std::fs::create_dir_all(src.join("text")).unwrap();
    let mut files = Vec::new();
    for s in sources("bank").into_iter().chain(sources("text")) {
        let p = src.join(&s.path);
        std::fs::write(&p, s.text).unwrap();
        files.push(p);
    }
    std::fs::write(src.join("Driver.java"), DRIVER).unwrap();
    files.push(src.join("Driver.java"));
    let classes = dir.join("classes");
    let ok = Command::new(&jdk.javac)
        .arg("-d")
        .arg(&classes)
        .args(&files)
        .status()
        .unwrap();
    assert!(ok.success());
    // The batch class of "compiled" mode goes to its own directory, so that the shared loader
    // cannot find it and every batch defines it anew.
    let batch_src = dir.join("Batch.java");
    std::fs::write(&batch_src, compiled_batch(200)).unwrap();
    let ok = Command::new(&jdk.javac)
        .arg("-cp")
        .arg(&classes)
        .arg("-d")
        .arg(dir.join("batch"))
        .arg(&batch_src)
        .status()
        .unwrap();
    assert!(ok.success());
    let out = Command::new(&jdk.java)
        .args(["-XX:+UseSerialGC", "-cp"])
        .arg(&classes)
        .args(["Driver", "20000", mode])
        .arg(&classes)
        .output()
        .unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    String::from_utf8_lossy(&out.stdout).trim().parse().unwrap()
}

fn main() {
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    println!("sandbox: {:?}", {
        let cache = std::env::temp_dir().join("ctgls-bench-cache-shared");
        let mut s = Supervisor::new(config(&cache, true)).unwrap();
        s.start().unwrap();
        s.sandbox().map(|r| r.to_string())
    });
    let account = "Account, 9 statements/test";
    match std::env::var("CTGLS_BENCH_ONLY").as_deref() {
        // One throughput run, e.g. under a profiler (`CTGLS_BENCH_JVM_ARGS`).
        Ok("account") => {
            throughput(account, "bank", account_test, DEFAULT);
            return;
        }
        Ok("cold") => {
            cold_start(true);
            return;
        }
        _ => {}
    }
    cold_start(true);
    cold_start(false);
    let worker_us = throughput(account, "bank", account_test, DEFAULT);
    let fresh_us = throughput(
        account,
        "bank",
        account_test,
        Mode {
            fresh_loaders: true,
            ..DEFAULT
        },
    );
    throughput(
        account,
        "bank",
        account_test,
        Mode {
            quick_start: false,
            ..DEFAULT
        },
    );
    throughput(
        account,
        "bank",
        account_test,
        Mode {
            observe: true,
            ..DEFAULT
        },
    );
    throughput(
        "Account, random test cases (3 to 15 statements, seeded)",
        "bank",
        random_account_test,
        DEFAULT,
    );
    let triangle = "Triangle (instrumented), 4 statements/test";
    throughput(triangle, "probe", triangle_test, DEFAULT);
    throughput(
        triangle,
        "probe",
        triangle_test,
        Mode {
            fresh_loaders: true,
            ..DEFAULT
        },
    );
    let words = "Words, 8 statements/test";
    let words_us = throughput(words, "text", words_test, DEFAULT);
    let words_plain_ns = direct("plain-words");
    let words_reflective_ns = direct("reflective-words");
    println!(
        "direct Java, Words: {:.2} us/test plain calls, {:.2} us/test through Method.invoke; \
         overhead of the worker: {:.0}x vs plain calls, {:.1}x vs Method.invoke",
        words_plain_ns / 1000.0,
        words_reflective_ns / 1000.0,
        words_us * 1000.0 / words_plain_ns,
        words_us * 1000.0 / words_reflective_ns
    );
    let plain_ns = direct("plain");
    let reflective_ns = direct("reflective");
    let isolated_ns = direct("isolated");
    let compiled_ns = direct("compiled");
    println!(
        "direct Java: {:.2} us/test plain calls, {:.2} us/test through Method.invoke in one reused \
         loader, {:.1} us/test with a fresh class loader + reflection per test, {:.1} us/test as \
         test cases compiled to bytecode (a new class per 200 tests, each test run once: {:.0}x \
         plain calls)",
        plain_ns / 1000.0,
        reflective_ns / 1000.0,
        isolated_ns / 1000.0,
        compiled_ns / 1000.0,
        compiled_ns / plain_ns
    );
    println!(
        "overhead of the worker: {:.0}x vs plain calls, {:.0}x vs Method.invoke in a reused loader; \
         {:.2}x vs a fresh loader + reflection per test in-process (worker with fresh loaders: {:.2}x)",
        worker_us * 1000.0 / plain_ns,
        worker_us * 1000.0 / reflective_ns,
        worker_us * 1000.0 / isolated_ns,
        fresh_us * 1000.0 / isolated_ns
    );
}
