//! The JVM executor's mapping of worker results on hand-written test cases: switch cases and
//! distances, exceptions recorded against the member the test called with the throwing line,
//! a null receiver as the test's own `NullPointerException` (no member), statements javac
//! would reject as crashed runs.

use std::path::Path;
use std::time::Duration;

use ctg::cluster::{build_cluster, describe_for_cluster, DEFAULT_DESCRIBE_DEPTH};
use ctg::compile::compile_instrumented;
use ctg::job::{JvmExecutor, TraceMapper};
use javamodel::{DecisionKey, JavaModel, Outcome};
use jvm::{CompileRequest, ExecuteOptions, SourceFile, Supervisor, WorkerConfig};
use search::{Criteria, ExecutionStatus, GoalTable};
use testcase::{
    Callable, Cluster, ConstantPool, JavaType, PrimitiveValue, Statement, TestCase, VarRef,
};

const CLASS: &str = "job.Words";

fn supervisor() -> Supervisor {
    Supervisor::new(WorkerConfig {
        cache_dir: Some(std::env::temp_dir().join("ctgls-jvm-tests-cache")),
        heap_mb: 128,
        ..WorkerConfig::default()
    })
    .expect("JDK 11+ and a buildable worker")
}

fn words_source() -> SourceFile {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/job/subjects/src/job/Words.java");
    SourceFile {
        path: "job/Words.java".into(),
        text: std::fs::read_to_string(path).unwrap(),
        instrumented: None,
    }
}

fn target<'c>(cluster: &'c Cluster, name: &str) -> &'c std::sync::Arc<Callable> {
    cluster
        .targets()
        .find(|c| c.name() == name)
        .unwrap_or_else(|| panic!("no target {name}"))
}

fn string(s: &str) -> Statement {
    Statement::Primitive(PrimitiveValue::String(s.into()))
}

fn call(callable: &std::sync::Arc<Callable>, receiver: usize, args: &[usize]) -> Statement {
    Statement::Method {
        callable: callable.clone(),
        receiver: Some(VarRef(receiver)),
        type_args: Vec::new(),
        args: args.iter().map(|a| VarRef(*a)).collect(),
        ty: callable.returns.clone(),
    }
}

#[test]
fn worker_results_map_onto_goals() {
    let mut sup = supervisor();
    let source = words_source();
    let compiled = compile_instrumented(
        &mut sup,
        &CompileRequest {
            sources: vec![source.clone()],
            ..CompileRequest::default()
        },
        &[CLASS.to_string()],
    )
    .unwrap();
    let tree = syntax::parse_java(&source.text, None);
    let model = JavaModel::build(&source.text, &tree);
    let probes = &compiled.files[0].probes;
    let table =
        GoalTable::for_class_with_lines(&model, CLASS, Criteria::all(), &probes.lines).unwrap();
    let described =
        describe_for_cluster(&mut sup, compiled.unit, CLASS, DEFAULT_DESCRIBE_DEPTH, None).unwrap();
    let cluster = build_cluster(&described, CLASS, ConstantPool::new(), None).unwrap();
    let new_words = || Statement::Constructor {
        callable: target(&cluster, "<init>").clone(),
        type_args: Vec::new(),
        args: Vec::new(),
        ty: JavaType::class(CLASS),
    };
    let command = target(&cluster, "command");
    let greeting = target(&cluster, "isGreeting");

    let tests = vec![
        // 0: a switch case taken, the others at their edit distances.
        TestCase::from_statements(vec![new_words(), string("stop"), call(command, 0, &[1])]),
        // 1: null inside the class under test: thrown by `text.equals` on line 26.
        TestCase::from_statements(vec![
            new_words(),
            Statement::Null(JavaType::string()),
            call(greeting, 0, &[1]),
        ]),
        // 2: a call on a null receiver: the statement itself throws, as in Java.
        TestCase::from_statements(vec![
            Statement::Null(JavaType::class(CLASS)),
            string("hi"),
            call(greeting, 0, &[1]),
        ]),
        // 3: an argument of the wrong type: our mistake, not the code's.
        TestCase::from_statements(vec![
            new_words(),
            Statement::Primitive(PrimitiveValue::Int(3)),
            call(greeting, 0, &[1]),
        ]),
    ];
    let mapper = TraceMapper::new(&table, probes);
    let options = ExecuteOptions {
        timeout_per_test: Duration::from_secs(2),
        classes_under_test: vec![CLASS.to_string()],
        ..ExecuteOptions::default()
    };
    let mut executor = JvmExecutor::new(&mut sup, compiled.unit, options, &mapper);
    let runs = executor.run(&tests, false);

    let switch = table
        .decision_by_key(&DecisionKey {
            member: "job.Words#command(String)".into(),
            ordinal: 1,
        })
        .unwrap();
    let info = table.decision(switch);
    assert_eq!(info.outcomes.len(), 4, "three cases and default");
    let case = |outcome| info.goal(info.outcome_index(outcome).unwrap());
    let stop = &runs[0].result;
    assert_eq!(stop.status, ExecutionStatus::Ok);
    assert_eq!(stop.decision_hits(switch), 1);
    assert_eq!(stop.branch_distance(case(Outcome::Case(1))), 0.0);
    // Levenshtein distances: "stop" -> "start" 3, -> "pause" 5; default was not taken.
    assert_eq!(stop.branch_distance(case(Outcome::Case(0))), 3.0);
    assert_eq!(stop.branch_distance(case(Outcome::Case(2))), 5.0);
    assert!(stop.branch_distance(case(Outcome::Case(3))) > 0.0);
    assert_eq!(stop.executed_statements, 3);
    let command_member = table.member_by_key("job.Words#command(String)").unwrap();
    assert_eq!(stop.member_entries(command_member), 1);
    assert!(stop.line_covered(17));
    assert!(stop.proxies.covered_statements > 0);

    let inside = &runs[1].result;
    assert_eq!(inside.status, ExecutionStatus::Ok);
    assert_eq!(inside.exceptions.len(), 1);
    let e = &inside.exceptions[0];
    assert_eq!(e.type_name, "java.lang.NullPointerException");
    assert_eq!(
        e.member,
        table.member_by_key("job.Words#isGreeting(String)")
    );
    assert_eq!(e.line, Some(26));
    assert!(!e.declared);

    let receiver = &runs[2].result;
    assert_eq!(receiver.status, ExecutionStatus::Ok);
    assert_eq!(receiver.exceptions.len(), 1);
    assert_eq!(
        receiver.exceptions[0].type_name,
        "java.lang.NullPointerException"
    );
    assert_eq!(
        receiver.exceptions[0].member, None,
        "not the class's exception"
    );
    assert_eq!(receiver.executed_statements, 3);

    let wrong = &runs[3].result;
    assert_eq!(wrong.status, ExecutionStatus::Crashed);
    assert!(wrong.exceptions.is_empty());
    assert_eq!(executor.stats().invalid, 1);
    assert_eq!(executor.stats().executions, 4);
    assert_eq!(
        executor.stats().statements,
        3 + 3 + 3 + 2,
        "the invalid statement did not run"
    );
    // The closest distance to "pause" over all runs.
    assert_eq!(
        executor.closest_distances()[case(Outcome::Case(2)).index()],
        5.0
    );
}
