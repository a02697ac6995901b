//! Random test cases from real test clusters, run in the real worker: the JVM checks that every
//! statement the operators generate is well typed (the worker reports `Invalid` for unknown
//! members, arguments that do not fit, bad references and literals out of range).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::time::Duration;

use ctg::cluster::{
    build_cluster, describe_for_cluster, observed_values, to_worker_test, DEFAULT_DESCRIBE_DEPTH,
};
use jvm::{
    CompileRequest, ExecuteOptions, ExecutionOutcome, SourceFile, Supervisor, TestResult,
    TestStatus, UnitId, WorkerConfig,
};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use testcase::{
    check_well_typed, CallContext, Cluster, ConstantPool, JavaType, Nullness, Statement, TestCase,
    VarRef, Variation,
};

fn supervisor() -> Supervisor {
    // The worker cache the jvm crate's tests use: whoever comes first builds it.
    Supervisor::new(WorkerConfig {
        cache_dir: Some(std::env::temp_dir().join("ctgls-jvm-tests-cache")),
        heap_mb: 128,
        ..WorkerConfig::default()
    })
    .expect("JDK 11+ and a buildable worker")
}

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../..")
}

/// Every `.java` file under `root`, with paths relative to it.
fn sources(root: &Path) -> Vec<SourceFile> {
    let mut out = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "java") {
                out.push(SourceFile {
                    path: path
                        .strip_prefix(root)
                        .unwrap()
                        .to_string_lossy()
                        .into_owned(),
                    text: std::fs::read_to_string(&path).unwrap(),
                    instrumented: None,
                });
            }
        }
    }
    out.sort_by(|a, b| a.path.cmp(&b.path));
    out
}

fn compile(sup: &mut Supervisor, sources: &[SourceFile]) -> UnitId {
    let result = sup
        .compile(&CompileRequest {
            sources: sources.to_vec(),
            ..CompileRequest::default()
        })
        .unwrap();
    result
        .unit
        .unwrap_or_else(|| panic!("fixtures must compile: {:#?}", result.diagnostics))
}

/// The literals of `class`'s declaration, as the cluster's constant pool.
fn constants(sources: &[SourceFile], class: &str) -> ConstantPool {
    let top_level = class.split('$').next().unwrap();
    let path = format!("{}.java", top_level.replace('.', "/"));
    let file = sources.iter().find(|s| s.path == path).unwrap();
    let tree = syntax::parse_java(&file.text, None);
    let model = javamodel::JavaModel::build(&file.text, &tree);
    let decl = model.type_by_binary_name(class).unwrap();
    ConstantPool::from_type(&file.text, &tree, decl)
}

fn cluster_of(sup: &mut Supervisor, unit: UnitId, sources: &[SourceFile], class: &str) -> Cluster {
    let described = describe_for_cluster(sup, unit, class, DEFAULT_DESCRIBE_DEPTH, None).unwrap();
    build_cluster(&described, class, constants(sources, class), None)
        .unwrap_or_else(|e| panic!("{e}"))
}

/// Random test cases, mutants and offspring, each checked by the validator first.
fn generate(cluster: &Cluster, seed: u64, n: usize) -> Vec<TestCase> {
    let variation = Variation::default();
    let mut rng = StdRng::seed_from_u64(seed);
    let mut out: Vec<TestCase> = Vec::new();
    while out.len() < n {
        let tc = match rng.gen_range(0..3) {
            0 if out.len() >= 2 => {
                let a = &out[rng.gen_range(0..out.len())];
                let b = &out[rng.gen_range(0..out.len())];
                variation.crossover(a, b, &mut rng).0
            }
            1 if !out.is_empty() => {
                let mut t = out[rng.gen_range(0..out.len())].clone();
                for _ in 0..3 {
                    variation.mutate(&mut t, cluster, &mut rng);
                }
                t
            }
            _ => variation.random_test(cluster, &mut rng),
        };
        if let Err(e) = check_well_typed(&tc, cluster) {
            panic!("{e}\n{tc}");
        }
        if !tc.is_empty() {
            out.push(tc);
        }
    }
    out
}

#[derive(Debug, Default)]
struct Summary {
    tests: usize,
    /// Statements generated, and how many of them the JVM executed in some round.
    statements: usize,
    executed: usize,
    /// Statements never run because a value they need came from a statement that threw (or
    /// was called on a receiver that turned out null).
    dependents_of_throws: usize,
    null_receivers: usize,
    /// Targets whose call ran (completed or threw).
    called: BTreeSet<String>,
}

/// `tc` without statement `i` and everything that depends on it, with the original index of
/// each remaining statement.
fn without(tc: &TestCase, origin: &[usize], i: usize) -> (TestCase, Vec<usize>) {
    let mut dead = BTreeSet::from([i]);
    for (j, s) in tc.statements().iter().enumerate().skip(i + 1) {
        if s.refs().iter().any(|(_, r)| dead.contains(&r.index())) {
            dead.insert(j);
        }
    }
    let mut new_index = Vec::new();
    let mut kept = Vec::new();
    let mut kept_origin = Vec::new();
    for (j, s) in tc.statements().iter().enumerate() {
        new_index.push(kept.len());
        if !dead.contains(&j) {
            let mut s = s.clone();
            s.for_each_ref_mut(|_, r| *r = VarRef(new_index[r.index()]));
            kept.push(s);
            kept_origin.push(origin[j]);
        }
    }
    (TestCase::from_statements(kept), kept_origin)
}

/// Runs `tests` and fails on any `Invalid` statement, except a call on a receiver that turned
/// out null at run time (a method result: the types allow it, Java would throw an NPE). A test
/// stops at its first exception, which would leave the rest unchecked: the throwing statement
/// and its dependents are removed and the rest runs again, for a few rounds.
fn run(sup: &mut Supervisor, unit: UnitId, cluster: &Cluster, tests: &[TestCase]) -> Summary {
    let options = ExecuteOptions {
        timeout_per_test: Duration::from_secs(2),
        ..ExecuteOptions::default()
    };
    let targets: BTreeSet<String> = cluster.targets().map(|t| t.to_string()).collect();
    let mut summary = Summary::default();
    let mut executed: Vec<Vec<bool>> = tests.iter().map(|t| vec![false; t.len()]).collect();
    summary.tests = tests.len();
    summary.statements = tests.iter().map(TestCase::len).sum();
    let mut pending: Vec<(usize, TestCase, Vec<usize>)> = tests
        .iter()
        .enumerate()
        .map(|(k, t)| (k, t.clone(), (0..t.len()).collect()))
        .collect();
    for _round in 0..ROUNDS {
        let mut next = Vec::new();
        for batch in pending.chunks(40) {
            let worker_tests: Vec<jvm::TestCase> =
                batch.iter().map(|(_, t, _)| to_worker_test(t)).collect();
            let results = match sup.execute(unit, &worker_tests, &options).unwrap() {
                ExecutionOutcome::Finished(r) => r,
                other => panic!("batch did not finish: {other:?}"),
            };
            for ((k, tc, origin), result) in batch.iter().zip(&results) {
                check_result(tc, result, &mut summary);
                let ran = match result.status {
                    TestStatus::Ok => tc.len(),
                    _ => result.failed_at.map_or(0, |i| i + 1),
                };
                for (j, s) in tc.statements()[..ran].iter().enumerate() {
                    executed[*k][origin[j]] = true;
                    if let Some(c) = s.callable() {
                        if targets.contains(&c.to_string()) {
                            summary.called.insert(c.to_string());
                        }
                    }
                }
                // `check_result` let only run-time nulls through as `Invalid`: an NPE in Java.
                if let (
                    TestStatus::Exception
                    | TestStatus::Timeout
                    | TestStatus::StackOverflow
                    | TestStatus::Invalid,
                    Some(i),
                ) = (result.status, result.failed_at)
                {
                    let (rest, rest_origin) = without(tc, origin, i);
                    summary.dependents_of_throws += tc.len() - rest.len() - 1;
                    if i < rest.len() {
                        next.push((*k, rest, rest_origin));
                    }
                }
            }
        }
        pending = next;
        if pending.is_empty() {
            break;
        }
    }
    assert!(
        pending.is_empty(),
        "{} tests still throwing after {ROUNDS} rounds",
        pending.len()
    );
    summary.executed = executed.iter().flatten().filter(|e| **e).count();
    summary
}

/// Re-runs of a test after removing the statement that threw: enough for every statement.
const ROUNDS: usize = 81;

fn check_result(tc: &TestCase, result: &TestResult, summary: &mut Summary) {
    match result.status {
        TestStatus::Ok => {}
        TestStatus::Invalid => {
            let i = result
                .failed_at
                .expect("invalid tests name their statement");
            let message = result.message.clone().unwrap_or_default();
            let receiver = match &tc.statements()[i] {
                Statement::Method { receiver, .. }
                | Statement::FieldRead { receiver, .. }
                | Statement::FieldWrite { receiver, .. } => *receiver,
                _ => None,
            };
            let null_at_run_time = message.contains("null receiver")
                && receiver.is_some_and(|r| tc.statement(r).nullness() == Nullness::MaybeNull);
            assert!(
                null_at_run_time,
                "statement {i} is invalid: {message}\n{tc}\n{:#?}",
                to_worker_test(tc).statements[i]
            );
            summary.null_receivers += 1;
        }
        TestStatus::Exception | TestStatus::Timeout | TestStatus::StackOverflow => {}
        other => panic!("unexpected status {other:?}\n{tc}"),
    }
}

/// Checks a run: every target was called, and every generated statement ran, except those
/// that needed the value of a statement that threw (most of them did run).
fn assert_checked(class: &str, cluster: &Cluster, summary: &Summary) {
    eprintln!("{class}: {summary:?}");
    let targets: BTreeSet<String> = cluster.targets().map(|t| t.to_string()).collect();
    assert_eq!(summary.called, targets, "{class}: targets never called");
    assert_eq!(
        summary.executed + summary.dependents_of_throws,
        summary.statements,
        "{class}: statements neither run nor excused"
    );
    assert!(
        summary.executed * 3 >= summary.statements * 2,
        "{class}: only {} of {} statements ran",
        summary.executed,
        summary.statements
    );
}

#[test]
fn fixture_clusters_generate_tests_the_jvm_accepts() {
    let root = repo_root().join("server/crates/ctg/tests/fixtures/cluster");
    let sources = sources(&root);
    let mut sup = supervisor();
    let unit = compile(&mut sup, &sources);
    for (i, class) in [
        "cluster.Point",
        "cluster.Greeter",
        "cluster.Level",
        "cluster.Money",
        "cluster.Box",
        "cluster.Counter",
        "cluster.Formatter",
        "cluster.UpperFormatter",
        "cluster.Outer",
        "cluster.Outer$Inner",
        "cluster.Tag",
    ]
    .into_iter()
    .enumerate()
    {
        let cluster = cluster_of(&mut sup, unit, &sources, class);
        assert!(
            cluster.unreachable().is_empty(),
            "{class}: {:?}",
            cluster.unreachable()
        );
        let tests = generate(&cluster, i as u64, 80);
        let summary = run(&mut sup, unit, &cluster, &tests);
        assert_checked(class, &cluster, &summary);
    }
}

#[test]
fn bank_example_generates_tests_the_jvm_accepts() {
    let root = repo_root().join("tests/projects/bank/src/main/java");
    let sources = sources(&root);
    let mut sup = supervisor();
    let unit = compile(&mut sup, &sources);
    for (i, class) in [
        "com.example.bank.Account",
        "com.example.bank.Bank",
        "com.example.bank.AmountParser",
    ]
    .into_iter()
    .enumerate()
    {
        let cluster = cluster_of(&mut sup, unit, &sources, class);
        let tests = generate(&cluster, 100 + i as u64, 100);
        let summary = run(&mut sup, unit, &cluster, &tests);
        assert_checked(class, &cluster, &summary);
    }
}

#[test]
fn describe_results_become_clusters_with_reasons() {
    let root = repo_root().join("server/crates/ctg/tests/fixtures/cluster");
    let sources = sources(&root);
    let mut sup = supervisor();
    let unit = compile(&mut sup, &sources);
    let described = describe_for_cluster(
        &mut sup,
        unit,
        "cluster.Greeter",
        DEFAULT_DESCRIBE_DEPTH,
        None,
    )
    .unwrap();
    assert!(described
        .classes
        .iter()
        .any(|c| c.name == "cluster.UpperFormatter"));
    let cluster = build_cluster(&described, "cluster.Greeter", ConstantPool::new(), None).unwrap();
    assert!(cluster.can_build(&JavaType::class("cluster.Formatter")));
    assert!(cluster.can_build(&JavaType::class("cluster.Money")));

    // The worker reports implemented interfaces with their type arguments: on a `Tag`, the
    // default method `Named<T>.label(T)` takes an `Integer` (a raw `Named` would have let any
    // argument through, and javac would reject the emitted call).
    let tag = cluster_of(&mut sup, unit, &sources, "cluster.Tag");
    assert!(
        tag.skipped_targets().is_empty(),
        "{:?}",
        tag.skipped_targets()
    );
    let label = tag
        .targets()
        .find(|t| t.name() == "label")
        .expect("label is a target");
    let receiver = JavaType::class("cluster.Tag");
    let signature = tag
        .signature(label, CallContext::Receiver(&receiver), &[])
        .unwrap();
    assert_eq!(signature.params, vec![JavaType::class("java.lang.Integer")]);

    let err = build_cluster(
        &describe_for_cluster(&mut sup, unit, "cluster.Orphan", 1, None).unwrap(),
        "cluster.Orphan",
        ConstantPool::new(),
        None,
    )
    .unwrap_err();
    assert_eq!(
        err.to_string(),
        "nothing instantiable in cluster.Orphan (cluster.Orphan is an abstract class with no \
         accessible subclass in the project)"
    );
}

#[test]
fn observed_values_reach_the_pool() {
    let root = repo_root().join("tests/projects/bank/src/main/java");
    let sources = sources(&root);
    let mut sup = supervisor();
    let unit = compile(&mut sup, &sources);
    let mut cluster = cluster_of(&mut sup, unit, &sources, "com.example.bank.AmountParser");
    let tests = generate(&cluster, 7, 20);
    let worker_tests: Vec<jvm::TestCase> = tests.iter().map(to_worker_test).collect();
    let ExecutionOutcome::Finished(results) = sup
        .execute(unit, &worker_tests, &ExecuteOptions::default())
        .unwrap()
    else {
        panic!("batch did not finish");
    };
    let before = cluster.pools().observed.len();
    let values: Vec<_> = results.iter().flat_map(observed_values).collect();
    assert!(!values.is_empty());
    for v in values {
        cluster.add_observed(v);
    }
    assert!(cluster.pools().observed.len() > before);
}

/// A parameter whose type argument is a project type (`List<Fruit>`) gets lists that hold
/// Fruits: describe follows type arguments to project types, and the factory fills containers
/// with values of their element type. Fails without the worker following type arguments
/// (`Fruit` is then not described, so nothing builds one).
#[test]
fn a_list_of_a_project_type_is_filled_with_values_of_that_type() {
    let sources = vec![
        SourceFile {
            path: "basket/Basket.java".into(),
            text: "package basket;\npublic class Basket {\n    \
                   public static int weigh(java.util.List<Fruit> fruits) {\n        \
                   int total = 0;\n        \
                   for (Fruit f : fruits) { total += f.weight(); }\n        \
                   return total;\n    }\n}\n"
                .into(),
            instrumented: None,
        },
        SourceFile {
            path: "basket/Fruit.java".into(),
            text: "package basket;\npublic class Fruit {\n    private final int weight;\n    \
                   public Fruit(int weight) { this.weight = weight; }\n    \
                   public int weight() { return weight; }\n}\n"
                .into(),
            instrumented: None,
        },
    ];
    let mut sup = supervisor();
    let unit = compile(&mut sup, &sources);
    let cluster = cluster_of(&mut sup, unit, &sources, "basket.Basket");
    let fruit = JavaType::class("basket.Fruit");
    assert!(cluster.can_build(&fruit));
    let tests = generate(&cluster, 11, 60);
    let adds_a_fruit = |tc: &TestCase| {
        tc.statements().iter().any(|s| match s {
            Statement::Method { callable, args, .. } => {
                callable.name() == "add"
                    && args
                        .iter()
                        .any(|a| tc.statement(*a).value_type().as_ref() == Some(&fruit))
            }
            _ => false,
        })
    };
    assert!(
        tests.iter().any(adds_a_fruit),
        "no list got a Fruit in {} tests",
        tests.len()
    );
    let summary = run(&mut sup, unit, &cluster, &tests);
    assert_checked("basket.Basket", &cluster, &summary);
}

/// The parser fixture (`tests/fixtures/job/access`): the class under test's package-private and
/// protected members, its package's package-private classes and its package-private static
/// nested class are in the cluster, as reflection in the real worker reports them; what its
/// superclass in another package declares protected or package-private, the private nested
/// class, the package-private class of the other package, and the members naming them are not.
#[test]
fn package_private_and_protected_members_of_the_package_are_in_the_cluster() {
    let root = repo_root().join("server/crates/ctg/tests/fixtures/job/access/src");
    let sources = sources(&root);
    let mut sup = supervisor();
    let unit = compile(&mut sup, &sources);
    let cluster = cluster_of(&mut sup, unit, &sources, "text.Parser");
    let mut targets: Vec<String> = cluster.targets().map(|t| t.to_string()).collect();
    targets.sort();
    expect_test::expect![[r#"
        [
            "text.Parser.<init>(java.lang.String)",
            "text.Parser.accept(char)",
            "text.Parser.atEnd()",
            "text.Parser.count(text.Rule)",
            "text.Parser.covers(text.Parser$Span)",
            "text.Parser.getPosition()",
            "text.Parser.limit()",
            "text.Parser.matches(text.Token)",
            "text.Parser.number()",
            "text.Parser.of(java.lang.String)",
            "text.Parser.parseSum(java.lang.String)",
            "text.Parser.sum()",
        ]
    "#]]
    .assert_debug_eq(&targets);
    for reachable in ["text.Token", "text.Parser$Span", "text.Rule"] {
        assert!(
            cluster.can_build(&JavaType::class(reachable)),
            "{reachable} can be built"
        );
    }
    for unreachable in ["text.Parser$Cache", "text.base.Hidden"] {
        assert!(
            !cluster.can_build(&JavaType::class(unreachable)),
            "{unreachable} cannot be built"
        );
    }

    // Random tests of this cluster are well typed in the worker, which calls the package-private
    // members by reflection.
    let tests = generate(&cluster, 11, 60);
    let summary = run(&mut sup, unit, &cluster, &tests);
    assert_checked("text.Parser", &cluster, &summary);
}
