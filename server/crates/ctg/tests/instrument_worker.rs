//! Instrumented classes in the real worker: they compile (falling back site by site where a
//! probe does not), behave exactly like the originals on the same calls, and their traces
//! carry the right outcomes, distances, lines, method entries, loop counts and the exceptions
//! that left method bodies (with the lines that raised them).
//!
//! The subjects are javamodel's instrumentation fixtures (`Conditions`, `Switches`,
//! `Structures`, `Escapes`) and the small projects under `tests/fixtures/instrument`.

use std::path::{Path, PathBuf};
use std::time::Duration;

use ctg::compile::{
    compile_instrumented, compile_instrumented_with, CompileError, CompiledUnit, FileLevel,
};
use javamodel::instrument::{FallbackReason, ProbeKind, ProbeLevel, SiteId};
use javamodel::{DecisionKey, GoalKey, Outcome};
use jvm::*;

mod instrument_support;
use instrument_support::*;

fn fixture_sources() -> Vec<SourceFile> {
    instrument_fixtures(&["Conditions", "Switches", "Structures"])
}

fn project(name: &str) -> Vec<SourceFile> {
    let root: PathBuf = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/instrument");
    let mut out: Vec<SourceFile> = std::fs::read_dir(root.join(name))
        .unwrap()
        .filter_map(|e| Some(e.ok()?.path()))
        .map(|p| {
            let rel = format!("{name}/{}", p.file_name().unwrap().to_string_lossy());
            source(&rel, &p)
        })
        .collect();
    out.sort_by(|a, b| a.path.cmp(&b.path));
    out
}

const COND: &str = "instr.Conditions";
const SW: &str = "instr.Switches";
const STRUCT: &str = "instr.Structures";

fn conditions() -> Option<A> {
    Some(A::NewInt(COND, 3))
}

fn structures() -> Option<A> {
    Some(A::NewInts(STRUCT, vec![1, 2]))
}

/// Calls covering every method of the fixtures with inputs on both sides of their branches.
fn battery() -> Vec<Call> {
    use A::*;
    let ints: &[&str] = &["int", "int"];
    let color = |n| Enum("instr.Switches$Color", n);
    let mut calls = vec![
        call(
            COND,
            conditions(),
            "compareInts",
            &["int", "char", "short", "byte"],
            vec![I(5), C('z'), H(0), B(0)],
        ),
        call(
            COND,
            conditions(),
            "compareInts",
            &["int", "char", "short", "byte"],
            vec![I(11), C('a'), H(0), B(0)],
        ),
        call(
            COND,
            conditions(),
            "compareInts",
            &["int", "char", "short", "byte"],
            vec![I(0), C('a'), H(0), B(0)],
        ),
        call(
            COND,
            conditions(),
            "compareInts",
            &["int", "char", "short", "byte"],
            vec![I(-5), C('b'), H(1), B(-1)],
        ),
        call(
            COND,
            conditions(),
            "mixLongAndInt",
            &["long", "int"],
            vec![J(1), I(2)],
        ),
        call(
            COND,
            conditions(),
            "mixLongAndInt",
            &["long", "int"],
            vec![J(10), I(3)],
        ),
        call(
            COND,
            conditions(),
            "mixLongAndInt",
            &["long", "int"],
            vec![J(1 << 40), I(-7)],
        ),
        call(
            COND,
            conditions(),
            "floats",
            &["float", "double", "int"],
            vec![F(1.5), D(0.5), I(1)],
        ),
        call(
            COND,
            conditions(),
            "floats",
            &["float", "double", "int"],
            vec![F(0.0), D(2.0), I(16_777_216)],
        ),
        call(
            COND,
            conditions(),
            "floats",
            &["float", "double", "int"],
            vec![F(f32::NAN), D(f64::NAN), I(3)],
        ),
        call(
            COND,
            conditions(),
            "boxes",
            &["java.lang.Integer", "java.lang.Integer", "int"],
            vec![I(1000), I(1000), I(5)],
        ),
        call(
            COND,
            conditions(),
            "boxes",
            &["java.lang.Integer", "java.lang.Integer", "int"],
            vec![I(5), I(5), I(5)],
        ),
        call(
            COND,
            conditions(),
            "boxes",
            &["java.lang.Integer", "java.lang.Integer", "int"],
            vec![I(7), I(9), I(1)],
        ),
        call(
            COND,
            conditions(),
            "boxes",
            &["java.lang.Integer", "java.lang.Integer", "int"],
            vec![Null("java.lang.Integer"), I(9), I(1)],
        ),
        call(
            COND,
            conditions(),
            "strings",
            &["java.lang.String", "java.lang.Object"],
            vec![S("yes"), Null("java.lang.Object")],
        ),
        call(
            COND,
            conditions(),
            "strings",
            &["java.lang.String", "java.lang.Object"],
            vec![S("no"), S("x")],
        ),
        call(
            COND,
            conditions(),
            "strings",
            &["java.lang.String", "java.lang.Object"],
            vec![S("abcd"), S("abcd")],
        ),
        call(
            COND,
            conditions(),
            "strings",
            &["java.lang.String", "java.lang.Object"],
            vec![S("ab"), I(4)],
        ),
        call(
            COND,
            conditions(),
            "strings",
            &["java.lang.String", "java.lang.Object"],
            vec![Null("java.lang.String"), S("x")],
        ),
        call(
            COND,
            conditions(),
            "strings",
            &["java.lang.String", "java.lang.Object"],
            vec![S("abcd"), Null("java.lang.Object")],
        ),
        call(
            COND,
            conditions(),
            "patterns",
            &["java.lang.Object"],
            vec![S("hello")],
        ),
        call(
            COND,
            conditions(),
            "patterns",
            &["java.lang.Object"],
            vec![S("a")],
        ),
        call(
            COND,
            conditions(),
            "patterns",
            &["java.lang.Object"],
            vec![I(5)],
        ),
        call(
            COND,
            conditions(),
            "patterns",
            &["java.lang.Object"],
            vec![I(-1)],
        ),
        call(
            COND,
            conditions(),
            "patterns",
            &["java.lang.Object"],
            vec![List(vec![])],
        ),
        call(
            COND,
            conditions(),
            "patterns",
            &["java.lang.Object"],
            vec![Null("java.lang.Object")],
        ),
        call(
            COND,
            conditions(),
            "sideEffects",
            &["int[]", "int"],
            vec![Ints(vec![1, 2, 0]), I(3)],
        ),
        call(
            COND,
            conditions(),
            "sideEffects",
            &["int[]", "int"],
            vec![Ints(vec![1, 1]), I(5)],
        ),
        call(
            COND,
            conditions(),
            "sideEffects",
            &["int[]", "int"],
            vec![Ints(vec![]), I(0)],
        ),
        call(
            COND,
            conditions(),
            "definiteAssignment",
            &["int"],
            vec![I(1)],
        ),
        call(
            COND,
            conditions(),
            "definiteAssignment",
            &["int"],
            vec![I(-11)],
        ),
        call(
            COND,
            conditions(),
            "definiteAssignment",
            &["int"],
            vec![I(-2)],
        ),
        call(COND, conditions(), "constants", &["int"], vec![I(0)]),
        call(COND, conditions(), "constants", &["int"], vec![I(11)]),
        call(COND, conditions(), "spin", &["boolean"], vec![Z(false)]),
        call(
            COND,
            conditions(),
            "booleans",
            &["boolean", "java.lang.Boolean", "boolean[]"],
            vec![Z(true), Z(true), Bools(vec![true])],
        ),
        call(
            COND,
            conditions(),
            "booleans",
            &["boolean", "java.lang.Boolean", "boolean[]"],
            vec![Z(false), Z(true), Bools(vec![true])],
        ),
        call(
            COND,
            conditions(),
            "booleans",
            &["boolean", "java.lang.Boolean", "boolean[]"],
            vec![Z(true), Null("java.lang.Boolean"), Bools(vec![])],
        ),
        call(
            COND,
            conditions(),
            "compareUnknown",
            &["java.util.List", "instr.Conditions"],
            vec![List(vec![S("a"), S("a")]), NewInt(COND, 2)],
        ),
        call(
            COND,
            conditions(),
            "compareUnknown",
            &["java.util.List", "instr.Conditions"],
            vec![List(vec![S("a"), S("b")]), NewInt(COND, 7)],
        ),
        call(COND, conditions(), "divide", ints, vec![I(7), I(2)]),
        call(COND, conditions(), "divide", ints, vec![I(1), I(0)]),
    ];
    for (a, b) in [(5, 1), (3, 2), (2, 2), (1, 3), (2, 3)] {
        calls.push(call(
            COND,
            conditions(),
            "nestedTernary",
            ints,
            vec![I(a), I(b)],
        ));
    }
    for x in [1, 2, 3, -4, 9] {
        calls.push(call(SW, Some(New(SW)), "colon", &["int"], vec![I(x)]));
    }
    for s in ["a", "b", "stop", "zz"] {
        calls.push(call(
            SW,
            Some(New(SW)),
            "strings",
            &["java.lang.String"],
            vec![S(s)],
        ));
    }
    calls.push(call(
        SW,
        Some(New(SW)),
        "strings",
        &["java.lang.String"],
        vec![Null("java.lang.String")],
    ));
    for c in ["RED", "GREEN", "BLUE"] {
        calls.push(call(
            SW,
            Some(New(SW)),
            "enums",
            &["instr.Switches$Color"],
            vec![color(c)],
        ));
        calls.push(call(
            SW,
            Some(New(SW)),
            "expression",
            &["instr.Switches$Color", "char"],
            vec![color(c), C('z')],
        ));
        calls.push(call(
            SW,
            Some(New(SW)),
            "names",
            &["instr.Switches$Color"],
            vec![color(c)],
        ));
    }
    calls.push(call(
        SW,
        Some(New(SW)),
        "enums",
        &["instr.Switches$Color"],
        vec![Null("instr.Switches$Color")],
    ));
    for (k, b) in [
        ('a', I(1)),
        ('b', I(2)),
        ('b', I(-1)),
        ('c', I(5)),
        ('a', Null("java.lang.Integer")),
    ] {
        calls.push(call(
            SW,
            Some(New(SW)),
            "chars",
            &["char", "java.lang.Integer"],
            vec![C(k), b],
        ));
    }
    for (a, b) in [(1, 1), (1, 2), (2, 0), (3, 0)] {
        calls.push(call(SW, Some(New(SW)), "nested", ints, vec![I(a), I(b)]));
    }
    for n in [0, 3, 5] {
        calls.push(call(STRUCT, structures(), "loops", &["int"], vec![I(n)]));
    }
    calls.extend([
        call(
            STRUCT,
            structures(),
            "firstNegative",
            &["java.util.List"],
            vec![List(vec![I(1), I(2), I(-3), I(4)])],
        ),
        call(
            STRUCT,
            structures(),
            "firstNegative",
            &["java.util.List"],
            vec![List(vec![])],
        ),
        call(
            STRUCT,
            structures(),
            "exceptions",
            &["java.lang.String"],
            vec![S("abc")],
        ),
        call(
            STRUCT,
            structures(),
            "exceptions",
            &["java.lang.String"],
            vec![S("x")],
        ),
        call(
            STRUCT,
            structures(),
            "exceptions",
            &["java.lang.String"],
            vec![Null("java.lang.String")],
        ),
        call(STRUCT, structures(), "lambdas", &["int"], vec![I(0)]),
        call(STRUCT, structures(), "lambdas", &["int"], vec![I(5)]),
        call(STRUCT, structures(), "lambdas", &["int"], vec![I(-1)]),
        call(
            STRUCT,
            structures(),
            "max",
            &["java.lang.Comparable", "java.lang.Comparable"],
            vec![S("a"), S("b")],
        ),
        call(STRUCT, structures(), "recurse", &["int"], vec![I(5)]),
        call(STRUCT, structures(), "infinite", &["int"], vec![I(0)]),
        call(
            "instr.Structures$Op",
            None,
            "of",
            &["java.lang.String"],
            vec![S("/")],
        ),
        call(
            "instr.Structures$Op",
            None,
            "of",
            &["java.lang.String"],
            vec![S("*")],
        ),
        call(
            "instr.Structures$Op",
            Some(Enum("instr.Structures$Op", "DIV")),
            "apply",
            ints,
            vec![I(7), I(2)],
        ),
        call(
            "instr.Structures$Op",
            Some(Enum("instr.Structures$Op", "DIV")),
            "apply",
            ints,
            vec![I(7), I(0)],
        ),
        call(
            "instr.Structures$Range",
            Some(A::New("instr.Structures")),
            "toString",
            &[],
            vec![],
        ),
    ]);
    // The last one is invalid on purpose (wrong receiver type): both sides must agree on it.
    calls
}

fn compile_fixtures(sup: &mut Supervisor) -> (UnitId, CompiledUnit) {
    let original = sup
        .compile(&request(fixture_sources()))
        .expect("compile request");
    let original = original
        .unit
        .unwrap_or_else(|| panic!("{:#?}", original.diagnostics));
    let compiled = compile_instrumented(
        sup,
        &request(fixture_sources()),
        &[COND.into(), SW.into(), STRUCT.into()],
    )
    .expect("instrumented fixtures compile");
    (original, compiled)
}

#[test]
fn instrumented_fixtures_behave_like_the_originals_and_trace_what_ran() {
    let mut sup = supervisor();
    let (original, compiled) = compile_fixtures(&mut sup);
    // The fixtures need no fallback round: every probe compiles as first chosen.
    assert_eq!(
        compiled.rounds,
        1,
        "{:#?}",
        compiled.fallbacks().collect::<Vec<_>>()
    );
    assert!(compiled.files.iter().all(|f| f.level == FileLevel::Full));

    let calls = battery();
    let tests: Vec<TestCase> = calls.iter().map(test_case).collect();
    let opts = options(&[COND, SW, STRUCT]);
    let before = finished(sup.execute(original, &tests, &opts).unwrap());
    let after = finished(sup.execute(compiled.unit, &tests, &opts).unwrap());
    let mut exceptions = 0;
    for ((call, a), b) in calls.iter().zip(&before).zip(&after) {
        assert_eq!(observable(a), observable(b), "{call:?}");
        exceptions += usize::from(a.status == TestStatus::Exception);
        // The originals report no probes; the instrumented classes always do.
        assert!(a.trace.files.is_empty(), "{call:?}");
        if a.status != TestStatus::Invalid {
            assert!(!b.trace.files.is_empty(), "{call:?}");
        }
    }
    assert!(
        exceptions >= 8,
        "the battery throws in several places ({exceptions})"
    );

    let trace_of = |index: usize, file: &str| {
        let key = &compiled
            .files
            .iter()
            .find(|f| f.path == file)
            .unwrap()
            .probes
            .key;
        after[index]
            .trace
            .files
            .iter()
            .find(|f| &f.key == key)
            .cloned()
            .unwrap_or_else(|| panic!("no trace of {file} in {:#?}", after[index].trace))
    };
    let table = |file: &str| {
        &compiled
            .files
            .iter()
            .find(|f| f.path == file)
            .unwrap()
            .probes
    };
    let branch = |index: usize, file: &str, member: &str, ordinal: u32, nth: usize| {
        let id = table(file).branches_of(&DecisionKey {
            member: member.into(),
            ordinal,
        })[nth];
        trace_of(index, file)
            .branches
            .into_iter()
            .find(|b| b.id == id)
            .unwrap_or_else(|| panic!("branch {member}/B{ordinal} not reached"))
    };

    // compareInts(5, 'z', 0, 0): `x > 10` false, 10 - 5 + 1 from true; `c == 'a'` false, 25
    // from true ('z' - 'a').
    let m = "instr.Conditions#compareInts(int,char,short,byte)";
    let b = branch(0, "instr/Conditions.java", m, 0, 0);
    assert_eq!((b.hits, b.true_distance, b.false_distance), (1, 6.0, 0.0));
    let b = branch(0, "instr/Conditions.java", m, 1, 0);
    assert_eq!((b.true_distance, b.false_distance), (25.0, 0.0));
    let t = trace_of(0, "instr/Conditions.java");
    let lines: Vec<u32> = t.lines.iter().map(|(l, _)| *l).collect();
    assert_eq!(
        lines,
        [20, 21, 25, 28, 31],
        "constructor, then compareInts to its last return"
    );
    let method = table("instr/Conditions.java").method_of(m).unwrap();
    assert_eq!(
        t.methods.iter().find(|(id, _)| *id == method),
        Some(&(method, 1))
    );
    // Both constructors ran: `Conditions(int)` delegates to the private one.
    assert_eq!(t.methods.len(), 3);
    assert_eq!(after[0].trace.proxies.method_calls, 3);
    assert_eq!(after[0].trace.proxies.statements, 5);

    // floats(0, 2.0, 16777216): `i == 16777217f` is true in float arithmetic.
    let m = "instr.Conditions#floats(float,double,int)";
    let b = branch(8, "instr/Conditions.java", m, 2, 0);
    assert_eq!(b.false_distance, 1.0);
    assert_eq!(b.true_distance, 0.0);
    assert_eq!(
        table("instr/Conditions.java").branch(b.id).unwrap().kind,
        ProbeKind::CmpFloat
    );

    // strings("ab", 4): "ab".equals("yes") is 3 edits away.
    let m = "instr.Conditions#strings(String,Object)";
    let b = branch(17, "instr/Conditions.java", m, 0, 0);
    assert_eq!((b.true_distance, b.false_distance), (3.0, 0.0));

    // sideEffects([1, 2, 0], 3): the while loop ran twice.
    let t = trace_of(26, "instr/Conditions.java");
    let loop_id = table("instr/Conditions.java")
        .loops
        .iter()
        .position(|l| l.line == 87)
        .unwrap() as u32;
    assert_eq!(t.loops, [(loop_id, 2)]);
    assert_eq!(after[26].trace.proxies.loop_iterations, 2);

    // An undeclared exception is reported at its original line, as without probes.
    let frame = |r: &TestResult| r.exception.as_ref().unwrap().frame.clone().unwrap();
    let divide = calls
        .iter()
        .position(|c| c.method == "divide" && matches!(c.args[1], A::I(0)))
        .unwrap();
    assert_eq!(frame(&after[divide]).line, Some(170));
    assert_eq!(frame(&before[divide]), frame(&after[divide]));
    let div = calls
        .iter()
        .position(|c| c.method == "apply" && matches!(c.args[1], A::I(0)))
        .unwrap();
    assert_eq!(frame(&after[div]).line, Some(148));
    assert_eq!(frame(&after[div]).class, "instr.Structures$Op$2");

    // colon(9): no case constant matched, the default label did.
    let index = calls
        .iter()
        .position(|c| c.method == "colon" && matches!(c.args[0], A::I(9)))
        .unwrap();
    let file = "instr/Switches.java";
    let colon = "instr.Switches#colon(int)";
    let goal = |outcome| GoalKey {
        decision: DecisionKey {
            member: colon.into(),
            ordinal: 0,
        },
        outcome,
    };
    let probes = table(file).goal_probes(&goal(Outcome::Case(0)));
    let t = trace_of(index, file);
    let distance = |probes: &[javamodel::instrument::GoalProbe]| {
        probes
            .iter()
            .map(|p| match p {
                javamodel::instrument::GoalProbe::BranchTrue(id) => {
                    t.branches
                        .iter()
                        .find(|b| b.id == *id)
                        .unwrap()
                        .true_distance
                }
                other => panic!("unexpected {other:?}"),
            })
            .fold(f64::INFINITY, f64::min)
    };
    assert_eq!(distance(&probes), 8.0, "`case ONE:` is |9 - 1| away");
    assert_eq!(
        distance(&table(file).goal_probes(&goal(Outcome::Case(3)))),
        13.0
    );
    assert_eq!(
        distance(&table(file).goal_probes(&goal(Outcome::Case(4)))),
        0.0
    );

    // firstNegative: has-next true then a break (not has-next false); an empty list: false.
    let m = "instr.Structures#firstNegative(List)";
    let index = calls
        .iter()
        .position(|c| c.method == "firstNegative")
        .unwrap();
    let b = branch(index, "instr/Structures.java", m, 0, 0);
    assert_eq!((b.true_distance, b.false_distance), (0.0, 1.0));
    let b = branch(index + 1, "instr/Structures.java", m, 0, 0);
    assert_eq!((b.true_distance, b.false_distance), (1.0, 0.0));

    // exceptions("x"): the catch clause was entered; instantiations were counted.
    let index = calls
        .iter()
        .position(|c| c.method == "exceptions" && matches!(c.args[0], A::S("x")))
        .unwrap();
    let m = "instr.Structures#exceptions(String)";
    let catch = table("instr/Structures.java").goal_probes(&GoalKey {
        decision: DecisionKey {
            member: m.into(),
            ordinal: 1,
        },
        outcome: Outcome::Entered,
    });
    assert_eq!(catch.len(), 1);
    let b = branch(index, "instr/Structures.java", m, 1, 0);
    assert_eq!(b.true_distance, 0.0);
    assert!(
        after[index].trace.proxies.instantiations >= 2,
        "{:?}",
        after[index].trace.proxies
    );
}

#[test]
fn an_infinite_loop_ends_at_the_deadline() {
    let mut sup = supervisor();
    let (_, compiled) = compile_fixtures(&mut sup);
    let calls = [
        call(STRUCT, structures(), "infinite", &["int"], vec![A::I(1)]),
        call(COND, conditions(), "spin", &["boolean"], vec![A::Z(true)]),
    ];
    let tests: Vec<TestCase> = calls.iter().map(test_case).collect();
    let mut opts = options(&[COND, STRUCT]);
    opts.timeout_per_test = Duration::from_millis(300);
    let results = finished(sup.execute(compiled.unit, &tests, &opts).unwrap());
    for (call, r) in calls.iter().zip(&results) {
        assert_eq!(r.status, TestStatus::Timeout, "{call:?}");
        // The probes threw at the deadline: no thread had to be stopped.
        assert!(
            r.duration < Duration::from_millis(1000),
            "{call:?}: {:?}",
            r.duration
        );
        assert_eq!(r.leaked_threads, 0);
    }
}

#[test]
fn probes_that_do_not_compile_fall_back_site_by_site() {
    let mut sup = supervisor();
    let compiled = compile_instrumented(
        &mut sup,
        &request(project("fb")),
        &["fb.Ladder".into(), "fb.Spin".into()],
    )
    .expect("the project compiles");
    let ladder = compiled
        .files
        .iter()
        .find(|f| f.path == "fb/Ladder.java")
        .unwrap();
    let spin = compiled
        .files
        .iter()
        .find(|f| f.path == "fb/Spin.java")
        .unwrap();
    assert!(
        compiled.rounds >= 4,
        "cmpInt, cmpLong, cmpFloat failed first ({})",
        compiled.rounds
    );

    // `xs.get(0) < xs.get(1)` on Doubles climbed to cmpDouble: full distance, no fallback.
    let pick = |ordinal| DecisionKey {
        member: "fb.Ladder#pick(List,List,String)".into(),
        ordinal,
    };
    let kind = |key: &DecisionKey| {
        ladder
            .probes
            .branches_of(key)
            .first()
            .map(|&id| ladder.probes.branches[id as usize].kind)
    };
    assert_eq!(kind(&pick(0)), Some(ProbeKind::CmpDouble));
    // `os.get(0).equals(s)` is no String equality: outcome-only, and recorded.
    assert_eq!(kind(&pick(1)), Some(ProbeKind::Branch));
    assert_eq!(ladder.fallbacks.len(), 1, "{:#?}", ladder.fallbacks);
    let f = &ladder.fallbacks[0];
    assert_eq!(f.site, SiteId::Decision(pick(1)));
    assert_eq!(f.level, ProbeLevel::OutcomeOnly);
    assert!(
        matches!(&f.reason, FallbackReason::CompileError(m) if m.contains("String")),
        "{f:?}"
    );

    // `while (forever)` on an inherited constant: the wrapped loop made javac report a missing
    // return at the method's end, which no site explains; the member's possibly-constant
    // condition lost its probe and the rest stayed.
    assert_eq!(spin.level, FileLevel::Full);
    let run = |ordinal| DecisionKey {
        member: "fb.Spin#run(int)".into(),
        ordinal,
    };
    assert!(spin.probes.branches_of(&run(0)).is_empty());
    assert_eq!(spin.probes.branches_of(&run(1)).len(), 1);
    assert_eq!(spin.fallbacks.len(), 1, "{:#?}", spin.fallbacks);
    assert_eq!(spin.fallbacks[0].site, SiteId::Decision(run(0)));
    assert_eq!(spin.fallbacks[0].level, ProbeLevel::None);

    // The same compile again in this process starts from the state that compiled: one round,
    // the same probes and fallbacks (emission compiles the class again twice).
    let again = compile_instrumented(
        &mut sup,
        &request(project("fb")),
        &["fb.Ladder".into(), "fb.Spin".into()],
    )
    .expect("the project compiles");
    assert_eq!(again.rounds, 1, "javac's rejected rounds are not run again");
    assert_eq!(again.files, compiled.files);
    sup.release(again.unit);
    // With mutants, from the same state: the probes javac rejected stay fallen back, and no
    // probe round is paid again.
    let mutated = compile_instrumented_with(
        &mut sup,
        &request(project("fb")),
        &["fb.Ladder".into(), "fb.Spin".into()],
        true,
    )
    .expect("the project compiles with its mutants");
    assert!(
        mutated.rounds < compiled.rounds,
        "{} rounds with mutants after {} without",
        mutated.rounds,
        compiled.rounds
    );
    for file in &compiled.files {
        let with = mutated.files.iter().find(|f| f.path == file.path).unwrap();
        assert_eq!(with.fallbacks, file.fallbacks, "{}", file.path);
        assert!(!with.probes.mutants.is_empty(), "{}", file.path);
    }
    sup.release(mutated.unit);
    // Another text is another key: the loop runs from the start.
    let mut edited = project("fb");
    for source in &mut edited {
        source.text.push_str("\n// edited\n");
    }
    let fresh = compile_instrumented(
        &mut sup,
        &request(edited),
        &["fb.Ladder".into(), "fb.Spin".into()],
    )
    .expect("the project compiles");
    assert_eq!(fresh.rounds, compiled.rounds);
    sup.release(fresh.unit);

    // The fallen-back classes still run like the originals.
    let tests = vec![
        test_case(&call(
            "fb.Spin",
            Some(A::New("fb.Spin")),
            "run",
            &["int"],
            vec![A::I(0)],
        )),
        test_case(&call(
            "fb.Ladder",
            Some(A::New("fb.Ladder")),
            "pick",
            &["java.util.List", "java.util.List", "java.lang.String"],
            vec![
                A::List(vec![A::D(1.5), A::D(2.5)]),
                A::List(vec![A::S("s")]),
                A::S("s"),
            ],
        )),
        test_case(&call(
            "fb.Ladder",
            Some(A::New("fb.Ladder")),
            "pick",
            &["java.util.List", "java.util.List", "java.lang.String"],
            vec![
                A::List(vec![A::D(2.5), A::D(2.0)]),
                A::List(vec![A::S("s")]),
                A::S("s"),
            ],
        )),
    ];
    let results = finished(
        sup.execute(compiled.unit, &tests, &options(&["fb.Spin", "fb.Ladder"]))
            .unwrap(),
    );
    let values: Vec<String> = results
        .iter()
        .map(|r| format!("{:?}", r.statements.last()))
        .collect();
    assert!(values[0].contains("Integer(4)"), "{values:?}");
    assert!(values[1].contains("Integer(1)"), "{values:?}");
    assert!(values[2].contains("Integer(2)"), "{values:?}");
    // 2.5 < 2.0 is 0.5 + 1 from true.
    let b = &results[2]
        .trace
        .files
        .iter()
        .find(|f| f.key == ladder.probes.key)
        .unwrap()
        .branches;
    let id = ladder.probes.branches_of(&pick(0))[0];
    assert_eq!(b.iter().find(|x| x.id == id).unwrap().true_distance, 1.5);
}

#[test]
fn a_project_that_does_not_compile_fails_with_the_original_diagnostics() {
    let mut sup = supervisor();
    let err = compile_instrumented(
        &mut sup,
        &request(project("broken")),
        &["broken.Broken".into()],
    )
    .expect_err("the original does not compile");
    let CompileError::DoesNotCompile { diagnostics } = err else {
        panic!("expected DoesNotCompile, got {err:?}");
    };
    let error = diagnostics
        .iter()
        .find(|d| d.kind == DiagnosticKind::Error)
        .expect("an error");
    assert_eq!(error.file.as_deref(), Some("broken/Broken.java"));
    assert_eq!((error.line, error.column), (Some(6), Some(20)));
    assert!(!error.instrumented);

    let err = compile_instrumented(&mut sup, &request(project("fb")), &["fb.Nowhere".into()])
        .expect_err("no such class");
    assert!(matches!(err, CompileError::UnknownClass(c) if c == "fb.Nowhere"));
}

#[test]
fn outcome_only_instrumentation_behaves_like_the_original_too() {
    // The last step before a file is left uninstrumented: every switch gets case probes
    // (with an explicit first `default` for the implicit one), every condition `branch`.
    let mut sup = supervisor();
    let original = sup
        .compile(&request(fixture_sources()))
        .unwrap()
        .unit
        .unwrap();
    let mut sources = fixture_sources();
    let tables = instrument_outcome_only(&mut sources);
    let result = sup.compile(&request(sources)).unwrap();
    let unit = result
        .unit
        .unwrap_or_else(|| panic!("{:#?}", result.diagnostics));
    let calls = battery();
    let tests: Vec<TestCase> = calls.iter().map(test_case).collect();
    let opts = options(&[COND, SW, STRUCT]);
    let before = finished(sup.execute(original, &tests, &opts).unwrap());
    let after = finished(sup.execute(unit, &tests, &opts).unwrap());
    for ((call, a), b) in calls.iter().zip(&before).zip(&after) {
        assert_eq!(observable(a), observable(b), "{call:?}");
    }
    // enums(BLUE) took the implicit default of `switch (c) { case RED: … case GREEN: … }`.
    let index = calls
        .iter()
        .position(|c| c.method == "enums" && matches!(c.args[0], A::Enum(_, "BLUE")))
        .unwrap();
    let switches = &tables[1];
    let default = switches.goal_probes(&GoalKey {
        decision: DecisionKey {
            member: "instr.Switches#enums(Color)".into(),
            ordinal: 0,
        },
        outcome: Outcome::Case(2),
    });
    let [javamodel::instrument::GoalProbe::BranchTrue(id)] = default[..] else {
        panic!("one probe for the implicit default: {default:?}");
    };
    let trace = after[index]
        .trace
        .files
        .iter()
        .find(|f| f.key == switches.key)
        .unwrap();
    let hit = trace.branches.iter().find(|b| b.id == id).unwrap();
    assert_eq!(hit.true_distance, 0.0);
}

// ---------------------------------------------------------------------------- escaping exceptions

const ESC: &str = "instr.Escapes";

fn escapes_receiver() -> Option<A> {
    Some(A::NewInt(ESC, 2))
}

/// An escape as the tests compare it: member, exception type, raising line, hits.
type Escaped = (String, String, Option<u32>, u64);

/// The escapes of `result` in `file`'s trace, with member keys for method ids.
fn escapes(compiled: &CompiledUnit, file: &str, result: &TestResult) -> Vec<Escaped> {
    let probes = &compiled
        .files
        .iter()
        .find(|f| f.path == file)
        .unwrap()
        .probes;
    result
        .trace
        .files
        .iter()
        .filter(|f| f.key == probes.key)
        .flat_map(|f| &f.escapes)
        .map(|e| {
            let member = probes.method(e.method).unwrap().member.clone();
            (member, e.type_name.clone(), e.line, e.hits)
        })
        .collect()
}

fn escaped(member: &str, type_name: &str, line: Option<u32>, hits: u64) -> Escaped {
    (
        format!("instr.Escapes{member}"),
        type_name.to_string(),
        line,
        hits,
    )
}

#[test]
fn exceptions_that_leave_methods_are_recorded_with_the_line_that_raised_them() {
    use A::*;
    let mut sup = supervisor();
    let sources = instrument_fixtures(&["Escapes"]);
    let original = sup
        .compile(&request(sources.clone()))
        .unwrap()
        .unit
        .unwrap();
    let compiled = compile_instrumented(&mut sup, &request(sources), &[ESC.into()])
        .expect("the escape wrappers compile");
    assert_eq!(
        compiled.rounds,
        1,
        "{:#?}",
        compiled.fallbacks().collect::<Vec<_>>()
    );
    let s: &[&str] = &["java.lang.String"];
    let e = |method, params, args| call(ESC, escapes_receiver(), method, params, args);
    let calls = vec![
        // A private helper throws, its caller catches: only the helper's body was left.
        e("parseOr", &["java.lang.String", "int"], vec![S(""), I(7)]),
        // The JDK raises it: the line is the class's line that called Integer.parseInt.
        e("parseOr", &["java.lang.String", "int"], vec![S("x"), I(7)]),
        // Thrown at depth 5 of a recursion: one record, six bodies left, the throw's line.
        e("countdown", &["int"], vec![I(5)]),
        // Out of the class: the test's statement throws it too.
        e("charAt", &["java.lang.String", "int"], vec![S("ab"), I(5)]),
        // A constructor throws after super(...). The one delegating to it through this(...) is
        // left too, but from its invocation, which stays outside its wrapper (it must come
        // first): only the constructor that threw reports it.
        e("label", &[], vec![]),
        // A checked exception through a method that declares it, caught by the class...
        e("readOrZero", s, vec![S("/etc")]),
        // ... and out of the class.
        e("read", s, vec![S("/etc")]),
        // Made outside the class: no frame of the file raised it.
        call(
            ESC,
            None,
            "rethrow",
            &["java.lang.Exception"],
            vec![NewWith(
                "java.io.IOException",
                s,
                vec![S("made by the test")],
            )],
        ),
        // A method of an anonymous class, through an interface's default method.
        e("viaAnonymous", &["int"], vec![I(-1)]),
        // A lambda's body is not wrapped: caught in the method that called it, nothing left.
        e("viaLambda", &["int"], vec![I(0)]),
        e("viaLocal", &["int"], vec![I(10)]),
        // A record's compact constructor.
        e("pairSum", &["int", "int"], vec![I(3), I(1)]),
        // `Mode.valueOf` is the enum's synthetic method: the file's top frame, on the line
        // javac gives it, the enum's declaration.
        e("cost", s, vec![S("NONE")]),
        e("share", &["int"], vec![I(0)]),
        // Nothing escapes these.
        e("parseOr", &["java.lang.String", "int"], vec![S("12"), I(7)]),
        e("fill", &["java.util.List", "int"], vec![List(vec![]), I(5)]),
    ];
    // `label()` on `new Escapes(-1)`: the receiver's constructor throws.
    let mut calls = calls;
    calls[4].receiver = Some(NewInt(ESC, -1));
    let tests: Vec<TestCase> = calls.iter().map(test_case).collect();
    let opts = options(&[ESC]);
    let before = finished(sup.execute(original, &tests, &opts).unwrap());
    let after = finished(sup.execute(compiled.unit, &tests, &opts).unwrap());
    for ((call, a), b) in calls.iter().zip(&before).zip(&after) {
        assert_eq!(observable(a), observable(b), "{call:?}");
    }
    let file = "instr/Escapes.java";
    let got: Vec<Vec<Escaped>> = after.iter().map(|r| escapes(&compiled, file, r)).collect();
    let nfe = "java.lang.NumberFormatException";
    let iae = "java.lang.IllegalArgumentException";
    let io = "java.io.IOException";
    let arithmetic = "java.lang.ArithmeticException";
    let expected: Vec<Vec<Escaped>> = vec![
        vec![escaped("#parse(String)", nfe, Some(44), 1)],
        vec![escaped("#parse(String)", nfe, Some(46), 1)],
        vec![escaped(
            "#down(int)",
            "java.lang.IllegalStateException",
            Some(59),
            6,
        )],
        vec![escaped(
            "#charAt(String,int)",
            "java.lang.StringIndexOutOfBoundsException",
            Some(65),
            1,
        )],
        vec![escaped("#<init>(int,String)", iae, Some(24), 1)],
        vec![
            escaped("#read(String)", io, Some(74), 1),
            escaped("#open(String)", io, Some(74), 1),
        ],
        vec![
            escaped("#read(String)", io, Some(74), 1),
            escaped("#open(String)", io, Some(74), 1),
        ],
        vec![escaped("#rethrow(E)", io, None, 1)],
        vec![
            escaped("$1#next()", arithmetic, Some(121), 1),
            escaped("$Source#twice()", arithmetic, Some(121), 1),
        ],
        vec![],
        vec![
            escaped("#viaLocal(int)", iae, Some(146), 1),
            escaped("$1Checker#check()", iae, Some(146), 1),
        ],
        vec![
            escaped("#pairSum(int,int)", iae, Some(195), 1),
            escaped("$Pair#<init>(int,int)", iae, Some(195), 1),
        ],
        vec![escaped("#cost(String)", iae, Some(179), 1)],
        vec![escaped("#share(int)", arithmetic, Some(110), 1)],
        vec![],
        vec![],
    ];
    for ((call, got), expected) in calls.iter().zip(&got).zip(&expected) {
        assert_eq!(got, expected, "{call:?}");
    }
    // The statement saw the same exception leave the class.
    assert_eq!(after[3].status, TestStatus::Exception);
    assert_eq!(after[6].exception.as_ref().map(|e| e.declared), Some(true));
    // Supertypes travel with the type, nearest first.
    let read = &after[6].trace.files[0].escapes[0];
    assert_eq!(
        read.supertypes,
        ["java.lang.Exception", "java.lang.Throwable"]
    );
    // The original classes report nothing.
    assert!(before.iter().all(|r| r.trace.files.is_empty()));

    // A Throwable's stack trace is read once, however many bodies it leaves (`deep` recurses
    // 20 times): the only difference the wrappers make that a class can see, when it counts
    // the calls of its own `getStackTrace` (the original reads it 0 times).
    let counted = e("tracesRead", &["int"], vec![I(20)]);
    let results = finished(
        sup.execute(compiled.unit, &[test_case(&counted)], &opts)
            .unwrap(),
    );
    assert_eq!(
        format!("{:?}", results[0].statements.last()),
        format!("{:?}", Some(StatementResult::Value(int_observation(1)))),
    );
    assert_eq!(
        escapes(&compiled, file, &results[0]),
        [escaped(
            "#deep(int)",
            "instr.Escapes$Counted",
            Some(227),
            21
        )]
    );
}

fn int_observation(value: i64) -> Observation {
    Observation {
        type_name: Some("int".into()),
        is_null: false,
        value: Some(ObservedValue::Integer(value)),
        enum_constant: None,
        length: None,
        truncated: false,
        getters: Vec::new(),
    }
}

#[test]
fn the_workers_own_throwables_are_not_recorded_as_escapes() {
    let mut sup = supervisor();
    let exit_blocking = sup.start().unwrap().exit_blocking;
    let compiled = compile_instrumented(
        &mut sup,
        &request(instrument_fixtures(&["Escapes"])),
        &[ESC.into()],
    )
    .unwrap();
    let file = "instr/Escapes.java";
    // The deadline's DeadlineExceeded leaves spin(int), and every body on its way out.
    let spin = call(ESC, escapes_receiver(), "spin", &["int"], vec![A::I(0)]);
    let mut opts = options(&[ESC]);
    opts.timeout_per_test = Duration::from_millis(300);
    let results = finished(
        sup.execute(compiled.unit, &[test_case(&spin)], &opts)
            .unwrap(),
    );
    assert_eq!(results[0].status, TestStatus::Timeout);
    let method = |r: &TestResult| r.trace.files.iter().flat_map(|f| &f.methods).count();
    assert!(method(&results[0]) > 0, "spin was entered and traced");
    assert_eq!(escapes(&compiled, file, &results[0]), []);
    // A blocked System.exit leaves quit(int) as the worker's exception.
    if exit_blocking {
        let quit = call(ESC, escapes_receiver(), "quit", &["int"], vec![A::I(3)]);
        let results = finished(
            sup.execute(compiled.unit, &[test_case(&quit)], &options(&[ESC]))
                .unwrap(),
        );
        assert_eq!(results[0].status, TestStatus::SystemExit);
        assert_eq!(escapes(&compiled, file, &results[0]), []);
    }
}
