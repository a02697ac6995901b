//! The Java constructs an audit found no executed test for, instrumented and run in the real
//! worker: lambdas and anonymous classes inside conditions, decisions in the arguments of
//! `this(...)`/`super(...)`, in field and static initialisers and initialiser blocks,
//! assertions, records, interface methods, text blocks, loops without braces or bodies, jumps,
//! mixed operand types, side effects and exceptions inside conditions, locks and `finally`.
//!
//! Each call runs against the original and the instrumented classes and must give the same
//! observable result; the traces must carry the outcomes and distances of what ran. The
//! subjects are javamodel's instrumentation fixtures `Nesting`, `Declarations` and `Flow`.

use ctg::compile::{compile_instrumented, CompiledUnit, FileLevel};
use javamodel::instrument::{FallbackReason, GoalProbe};
use javamodel::{DecisionKey, GoalKey, Outcome};
use jvm::*;

mod instrument_support;
use instrument_support::*;

const NEST: &str = "instr.Nesting";
const DECL: &str = "instr.Declarations";
const FLOW: &str = "instr.Flow";
const SPAN: &str = "instr.Declarations$Span";
const SHAPE: &str = "instr.Declarations$Shape";
const CHILD: &str = "instr.Declarations$Child";
const LEVEL: &str = "instr.Flow$Level";
const CLASSES: [&str; 3] = [NEST, DECL, FLOW];

fn sources() -> Vec<SourceFile> {
    instrument_fixtures(&["Nesting", "Declarations", "Flow"])
}

fn nesting() -> Option<A> {
    Some(A::NewInt(NEST, 3))
}

fn flow() -> Option<A> {
    Some(A::New(FLOW))
}

fn ints(values: &[i32]) -> A {
    A::List(values.iter().map(|v| A::I(*v)).collect())
}

/// Calls of `Declarations.asserted`, whose assertions pass, fail first, fail second and fail
/// third when assertions are enabled.
fn assertions() -> Vec<(String, Call)> {
    [5, -1, 200, 50]
        .into_iter()
        .map(|x| {
            let receiver = Some(A::NewInt(DECL, 1));
            let c = call(DECL, receiver, "asserted", &["int"], vec![A::I(x)]);
            (format!("asserted({x})"), c)
        })
        .collect()
}

/// Calls on both sides of the fixtures' decisions, each with a label unique in the battery.
fn battery() -> Vec<(String, Call)> {
    use A::*;
    let mut calls: Vec<(String, Call)> = Vec::new();
    let mut add = |label: String, call: Call| {
        assert!(calls.iter().all(|(l, _)| *l != label), "{label} twice");
        calls.push((label, call));
    };
    let list_int: &[&str] = &["java.util.List", "int"];
    for (xs, k) in [
        (vec![1, 5], 4),
        (vec![1, 2], 5),
        (vec![-2, 3], 9),
        (vec![3], 9),
        (vec![-1, 3], 9),
    ] {
        let label = format!("lambdaInCondition({xs:?}, {k})");
        add(
            label,
            call(
                NEST,
                nesting(),
                "lambdaInCondition",
                list_int,
                vec![ints(&xs), I(k)],
            ),
        );
    }
    for xs in [vec!["a", "b"], vec!["a"], vec![""]] {
        let strings = List(xs.iter().map(|x| S(x)).collect());
        add(
            format!("switchInLambdaInCondition({xs:?})"),
            call(
                NEST,
                nesting(),
                "switchInLambdaInCondition",
                &["java.util.List"],
                vec![strings],
            ),
        );
    }
    for v in [4, 8, 5, 2] {
        add(
            format!("anonymousInCondition({v})"),
            call(
                NEST,
                nesting(),
                "anonymousInCondition",
                &["int"],
                vec![I(v)],
            ),
        );
    }
    for (xs, flip) in [
        (vec![1, -5, 7], true),
        (vec![1, -5, 7], false),
        (vec![], false),
    ] {
        add(
            format!("ternaryInLambda({xs:?}, {flip})"),
            call(
                NEST,
                nesting(),
                "ternaryInLambda",
                &["java.util.List", "boolean"],
                vec![ints(&xs), Z(flip)],
            ),
        );
    }
    for (a, b) in [(5, 1), (3, 2), (1, 3), (1, 1), (-1, -20), (0, -5)] {
        add(
            format!("nestedTernaries({a}, {b})"),
            call(
                NEST,
                nesting(),
                "nestedTernaries",
                &["int", "int", "int[]"],
                vec![I(a), I(b), Ints(vec![10, 20, 30])],
            ),
        );
    }
    for n in [10, 0, -3] {
        add(
            format!("fib({n})"),
            call(NEST, None, "fib", &["int"], vec![I(n)]),
        );
    }
    for n in [5, 4, 10, 1] {
        add(
            format!("fibAbove({n})"),
            call(NEST, nesting(), "fibAbove", &["int"], vec![I(n)]),
        );
    }
    for (s, n) in [
        ("a", 1),
        ("a", -1),
        ("b", -4),
        ("b", 20),
        ("", 11),
        ("a", 15),
    ] {
        add(
            format!("switchOperands({s:?}, {n})"),
            call(
                NEST,
                nesting(),
                "switchOperands",
                &["java.lang.String", "int"],
                vec![S(s), I(n)],
            ),
        );
    }
    add(
        "switchOperands(null, 1)".into(),
        call(
            NEST,
            nesting(),
            "switchOperands",
            &["java.lang.String", "int"],
            vec![Null("java.lang.String"), I(1)],
        ),
    );
    for k in [0, 4, -3] {
        add(
            format!("yieldNested({k})"),
            call(NEST, nesting(), "yieldNested", &["int"], vec![I(k)]),
        );
    }

    let describe = |label: String, receiver: A| {
        (
            label,
            call(DECL, Some(receiver), "describe", &[], Vec::new()),
        )
    };
    let mut constructed = Vec::new();
    for size in [5, -5, 0] {
        constructed.push(describe(
            format!("new Declarations({size})"),
            NewInt(DECL, size),
        ));
    }
    let text_int: &'static [&'static str] = &["java.lang.String", "int"];
    for (text, fallback) in [(S("abc"), 1), (Null("java.lang.String"), -2), (S(""), 0)] {
        constructed.push(describe(
            format!("new Declarations({text:?}, {fallback})"),
            NewWith(DECL, text_int, vec![text, I(fallback)]),
        ));
    }
    for kind in ['a', 'b', 'z', 'c'] {
        constructed.push(describe(
            format!("new Declarations({kind:?})"),
            NewWith(DECL, &["char"], vec![C(kind)]),
        ));
    }
    for flag in [true, false] {
        constructed.push(describe(
            format!("new Declarations({flag})"),
            NewWith(DECL, &["boolean"], vec![Z(flag)]),
        ));
    }
    for seed in [500, -1] {
        constructed.push(describe(
            format!("new Declarations({seed}L)"),
            NewWith(DECL, &["long"], vec![J(seed)]),
        ));
    }
    for (label, c) in constructed {
        add(label, c);
    }
    for (label, c) in assertions() {
        add(label, c);
    }
    for s in ["hello", "a", "b", "c\t\n", "c\n", "", "zzz"] {
        add(
            format!("textBlocks({s:?})"),
            call(
                DECL,
                Some(NewInt(DECL, 1)),
                "textBlocks",
                &["java.lang.String"],
                vec![S(s)],
            ),
        );
    }
    for s in ["A", "a"] {
        add(
            format!("escapedBlock({s:?})"),
            call(
                DECL,
                Some(NewInt(DECL, 1)),
                "escapedBlock",
                &["java.lang.String"],
                vec![S(s)],
            ),
        );
    }
    for x in [1, 7, -3, 3] {
        add(
            format!("new Child({x})"),
            call(CHILD, Some(NewInt(CHILD, x)), "value", &[], Vec::new()),
        );
    }
    let span_of = |a, b| call(SPAN, None, "of", &["int", "int"], vec![I(a), I(b)]);
    let new_span = |a, b| NewWith(SPAN, &["int", "int"], vec![I(a), I(b)]);
    add("Span.of(3, 3)".into(), span_of(3, 3));
    add("Span.of(6, 2)".into(), span_of(6, 2));
    for (lo, hi, x) in [(5, 2, 4), (-4, 2, -1), (1, 9, 9)] {
        add(
            format!("new Span({lo}, {hi}).contains({x})"),
            call(
                SPAN,
                Some(new_span(lo, hi)),
                "contains",
                &["int"],
                vec![I(x)],
            ),
        );
    }
    add(
        "Span.of(-4, 2).lo()".into(),
        call(
            SPAN,
            Some(Returned(Box::new(span_of(-4, 2)))),
            "lo",
            &[],
            Vec::new(),
        ),
    );
    let shape_of = |n| call(SHAPE, None, "of", &["int"], vec![I(n)]);
    add("Shape.of(-1)".into(), shape_of(-1));
    for n in [4, 0, 200] {
        add(
            format!("Shape.of({n}).polygon()"),
            call(
                SHAPE,
                Some(Returned(Box::new(shape_of(n)))),
                "polygon",
                &[],
                Vec::new(),
            ),
        );
    }

    for (xs, n) in [
        (vec![], 3),
        (vec![1, -2, 3], 5),
        (vec![4, 5], 1),
        (vec![20, 30], 2),
        (vec![], 0),
    ] {
        add(
            format!("unbracedLoops({xs:?}, {n})"),
            call(
                FLOW,
                flow(),
                "unbracedLoops",
                list_int,
                vec![ints(&xs), I(n)],
            ),
        );
    }
    for n in [0, 5, -1] {
        add(
            format!("emptyBodies({n})"),
            call(FLOW, flow(), "emptyBodies", &["int"], vec![I(n)]),
        );
    }
    for n in [5, 1] {
        add(
            format!("unbracedBodies({n})"),
            call(FLOW, flow(), "unbracedBodies", &["int"], vec![I(n)]),
        );
    }
    for n in [0, 5] {
        add(
            format!("doContinue({n})"),
            call(FLOW, flow(), "doContinue", &["int"], vec![I(n)]),
        );
    }
    for grid in [
        vec![vec![1, 2], vec![3]],
        vec![vec![1, -1, 5], vec![0, 9], vec![7]],
        vec![],
    ] {
        let rows = List(grid.iter().map(|row| ints(row)).collect());
        add(
            format!("labeled({grid:?})"),
            call(FLOW, flow(), "labeled", &["java.util.List"], vec![rows]),
        );
    }
    for s in ["ab", "zq", "bx", ""] {
        add(
            format!("switchInLoop({s:?})"),
            call(
                FLOW,
                flow(),
                "switchInLoop",
                &["java.lang.String"],
                vec![S(s)],
            ),
        );
    }
    for level in ["LOW", "MID", "HIGH"] {
        add(
            format!("levels({level})"),
            call(FLOW, flow(), "levels", &[LEVEL], vec![Enum(LEVEL, level)]),
        );
    }
    add(
        "levels(null)".into(),
        call(FLOW, flow(), "levels", &[LEVEL], vec![Null(LEVEL)]),
    );
    let small: &[&str] = &["char", "byte", "short", "long", "float", "double"];
    for (c, b, s, l, f, d) in [
        ('z', -5, 300, 1i64 << 40, 0.1f32, 0.5),
        ('a', 97, 0, 5, 2.0, 1.0),
        ('c', 0, -1, -3, f32::NAN, f64::NAN),
    ] {
        add(
            format!("smallTypes({c:?}, {b}, {s}, {l}, {f}, {d})"),
            call(
                FLOW,
                flow(),
                "smallTypes",
                small,
                vec![C(c), B(b), H(s), J(l), F(f), D(d)],
            ),
        );
    }
    for x in [4, 0, 20] {
        add(
            format!("compound({x})"),
            call(FLOW, flow(), "compound", &["int"], vec![I(x)]),
        );
    }
    for (label, o) in [
        ("[1, 2, 3]", ints(&[1, 2, 3])),
        ("[1]", ints(&[1])),
        ("{}", NewWith("java.util.HashMap", &[], Vec::new())),
        ("\"s\"", S("s")),
        ("null", Null("java.lang.Object")),
    ] {
        add(
            format!("generics({label})"),
            call(FLOW, flow(), "generics", &["java.lang.Object"], vec![o]),
        );
    }
    for (a, b) in [(1, 2), (2, 1), (0, 5), (1, 1), (1, 200)] {
        add(
            format!("chain({a}, {b})"),
            call(FLOW, flow(), "chain", &["int", "int"], vec![I(a), I(b)]),
        );
    }
    for (s, b) in [
        (S("abc"), I(5)),
        (S("abc"), Null("java.lang.Integer")),
        (S(""), Null("java.lang.Integer")),
        (S("7"), I(2)),
        (S("2"), I(2)),
        (Null("java.lang.String"), I(1)),
    ] {
        add(
            format!("throwsMidway({s:?}, {b:?})"),
            call(
                FLOW,
                flow(),
                "throwsMidway",
                &["java.lang.String", "java.lang.Integer"],
                vec![s, b],
            ),
        );
    }
    for v in [5, -1, 500] {
        add(
            format!("synced({v})"),
            call(FLOW, flow(), "synced", &["int"], vec![I(v)]),
        );
    }
    for v in [1, 3, -10, 0] {
        add(
            format!("tryAll({v})"),
            call(FLOW, flow(), "tryAll", &["int"], vec![I(v)]),
        );
    }
    calls
}

/// A battery's results after instrumentation, and the instrumented unit.
struct Run {
    labels: Vec<String>,
    after: Vec<TestResult>,
    compiled: CompiledUnit,
}

impl Run {
    fn index(&self, label: &str) -> usize {
        self.labels
            .iter()
            .position(|l| l == label)
            .unwrap_or_else(|| panic!("no call {label} in the battery"))
    }

    fn result(&self, label: &str) -> &TestResult {
        &self.after[self.index(label)]
    }

    fn file(&self, class: &str) -> &ctg::compile::InstrumentedFile {
        let path = format!("{}.java", class.replace('.', "/"));
        self.compiled.files.iter().find(|f| f.path == path).unwrap()
    }

    fn trace(&self, label: &str, class: &str) -> FileTrace {
        let key = &self.file(class).probes.key;
        let result = self.result(label);
        result
            .trace
            .files
            .iter()
            .find(|f| &f.key == key)
            .cloned()
            .unwrap_or_else(|| panic!("{label}: no trace of {class} in {:#?}", result.trace))
    }

    /// The first probe of decision `member/B<ordinal>` in the trace of the call `label`, if it
    /// ran.
    fn branch(&self, label: &str, class: &str, member: &str, ordinal: u32) -> Option<BranchTrace> {
        let key = DecisionKey {
            member: member.into(),
            ordinal,
        };
        let ids = self.file(class).probes.branches_of(&key);
        let id = *ids.first().unwrap_or_else(|| panic!("{key} has no probe"));
        self.trace(label, class)
            .branches
            .into_iter()
            .find(|b| b.id == id)
    }

    /// (hits, true distance, false distance) of the decision `member/B<ordinal>` in the call
    /// `label`, which must have run.
    fn hit(&self, label: &str, class: &str, member: &str, ordinal: u32) -> (u64, f64, f64) {
        let b = self
            .branch(label, class, member, ordinal)
            .unwrap_or_else(|| panic!("{label}: {member}/B{ordinal} did not run"));
        (b.hits, b.true_distance, b.false_distance)
    }

    /// The smallest distance to case `case` of the switch `member/B<ordinal>` in the call
    /// `label`.
    fn case_distance(
        &self,
        label: &str,
        class: &str,
        member: &str,
        ordinal: u32,
        case: u32,
    ) -> f64 {
        let probes = self.file(class).probes.goal_probes(&GoalKey {
            decision: DecisionKey {
                member: member.into(),
                ordinal,
            },
            outcome: Outcome::Case(case),
        });
        assert!(
            !probes.is_empty(),
            "{member}/B{ordinal} case {case} has no probe"
        );
        let trace = self.trace(label, class);
        probes
            .iter()
            .map(|p| match p {
                GoalProbe::BranchTrue(id) => trace
                    .branches
                    .iter()
                    .find(|b| b.id == *id)
                    .map_or(f64::INFINITY, |b| b.true_distance),
                other => panic!("unexpected {other:?}"),
            })
            .fold(f64::INFINITY, f64::min)
    }

    /// Entries of `member` in the call `label`.
    fn entries(&self, label: &str, class: &str, member: &str) -> u64 {
        let id = self.file(class).probes.method_of(member).unwrap();
        let trace = self.trace(label, class);
        trace
            .methods
            .iter()
            .find(|(m, _)| *m == id)
            .map_or(0, |(_, n)| *n)
    }

    /// Iterations of the only loop on the line of the fixture that contains `snippet`, in the
    /// call `label`.
    fn iterations(&self, label: &str, class: &str, snippet: &str) -> u64 {
        let line = line_of(class, snippet);
        let loops = &self.file(class).probes.loops;
        let on_line: Vec<usize> = (0..loops.len())
            .filter(|&i| loops[i].line == line)
            .collect();
        let [id] = on_line[..] else {
            panic!("loops on line {line}: {on_line:?}");
        };
        let trace = self.trace(label, class);
        trace
            .loops
            .iter()
            .find(|(l, _)| *l as usize == id)
            .map_or(0, |(_, n)| *n)
    }

    /// What the call `label` returned, as the worker observed it.
    fn value(&self, label: &str) -> Option<ObservedValue> {
        match self.result(label).statements.last() {
            Some(StatementResult::Value(o)) => o.value.clone(),
            other => panic!("{label}: {other:?}"),
        }
    }

    /// The exception the call `label` threw: type and message.
    fn thrown(&self, label: &str) -> (String, Option<String>) {
        let e = self
            .result(label)
            .exception
            .as_ref()
            .unwrap_or_else(|| panic!("{label} threw nothing"));
        let message = e.message.as_ref().map(|m| m.to_string_lossy().into_owned());
        (e.type_name.clone(), message)
    }
}

/// The 1-based line of the fixture declaring `class` that contains `snippet`, which must be on
/// one line only.
fn line_of(class: &str, snippet: &str) -> u32 {
    let path = format!("{}.java", class.replace('.', "/"));
    let source = sources().into_iter().find(|s| s.path == path).unwrap();
    let lines: Vec<usize> = source
        .text
        .lines()
        .enumerate()
        .filter(|(_, l)| l.contains(snippet))
        .map(|(i, _)| i + 1)
        .collect();
    let [line] = lines[..] else {
        panic!("`{snippet}` is on lines {lines:?} of {path}");
    };
    line as u32
}

/// Runs `calls` on the original and the instrumented fixtures (compiled by the compile loop)
/// in `sup`, and requires equal observable results; no call may be invalid.
fn run(sup: &mut Supervisor, calls: Vec<(String, Call)>) -> Run {
    let original = sup.compile(&request(sources())).expect("compile request");
    let original = original
        .unit
        .unwrap_or_else(|| panic!("{:#?}", original.diagnostics));
    let classes: Vec<String> = CLASSES.iter().map(|c| c.to_string()).collect();
    let compiled = compile_instrumented(sup, &request(sources()), &classes)
        .expect("instrumented fixtures compile");
    let (labels, calls): (Vec<String>, Vec<Call>) = calls.into_iter().unzip();
    let tests: Vec<TestCase> = calls.iter().map(test_case).collect();
    let opts = options(&CLASSES);
    let before = finished(sup.execute(original, &tests, &opts).unwrap());
    let after = finished(sup.execute(compiled.unit, &tests, &opts).unwrap());
    for ((label, a), b) in labels.iter().zip(&before).zip(&after) {
        assert_eq!(observable(a), observable(b), "{label}");
        assert_ne!(a.status, TestStatus::Invalid, "{label}: {:?}", a.message);
        // The originals report no probes; the instrumented classes always do.
        assert!(a.trace.files.is_empty(), "{label}");
        assert!(!b.trace.files.is_empty(), "{label}");
    }
    Run {
        labels,
        after,
        compiled,
    }
}

fn int(v: i32) -> Option<ObservedValue> {
    Some(ObservedValue::Integer(v.into()))
}

#[test]
fn nested_and_declared_decisions_behave_like_the_originals_and_report_what_ran() {
    let mut sup = supervisor();
    let run = run(&mut sup, battery());
    // Every probe compiled as first chosen; the one fallback is a text-block case label with a
    // Unicode escape, which the instrumenter does not decode.
    assert_eq!(run.compiled.rounds, 1);
    assert!(run
        .compiled
        .files
        .iter()
        .all(|f| f.level == FileLevel::Full));
    let fallbacks: Vec<_> = run.compiled.fallbacks().collect();
    assert_eq!(fallbacks.len(), 1, "{fallbacks:#?}");
    assert_eq!(
        fallbacks[0].decision().map(|d| d.member.as_str()),
        Some("instr.Declarations#escapedBlock(String)")
    );
    assert_eq!(fallbacks[0].reason, FallbackReason::UntypedCaseConstants);
    assert_eq!(run.value("escapedBlock(\"A\")"), int(1));

    // Lambdas and an anonymous class inside conditions report their own decisions.
    let m = "instr.Nesting#lambdaInCondition(List,int)";
    let label = "lambdaInCondition([1, 5], 4)";
    assert_eq!(run.hit(label, NEST, m, 0), (1, 0.0, 1.0), "anyMatch");
    assert_eq!(
        run.hit(label, NEST, m, 1),
        (2, 0.0, 0.0),
        "x > k for 1 and 5"
    );
    let label = "lambdaInCondition([-2, 3], 9)";
    assert_eq!(run.hit(label, NEST, m, 3), (1, 0.0, 2.0), "x < 0 for -2");
    assert_eq!(run.hit(label, NEST, m, 4), (1, 0.0, 1.0), "-2 % 2 == 0");
    let m = "instr.Nesting#switchInLambdaInCondition(List)";
    let label = "switchInLambdaInCondition([\"a\", \"b\"])";
    assert_eq!(
        run.case_distance(label, NEST, m, 1, 1),
        0.0,
        "\"b\" in the lambda"
    );
    assert_eq!(
        run.hit(label, NEST, m, 2),
        (1, 5.0, 0.0),
        "1 > 5 in its arm"
    );
    assert_eq!(run.hit(label, NEST, m, 0), (1, 0.0, 1.0), "the sum 3 > 2");
    assert_eq!(run.value("switchInLambdaInCondition([\"\"])"), int(1));
    let label = "anonymousInCondition(8)";
    let test = "instr.Nesting$1#test(int)";
    assert_eq!(run.hit(label, NEST, test, 0), (1, 0.0, 5.0), "8 > 3");
    assert_eq!(run.entries(label, NEST, test), 1);
    let m = "instr.Nesting#anonymousInCondition(int)";
    assert_eq!(run.hit(label, NEST, m, 1), (1, 1.0, 0.0), "8 != 8");
    // The lambda chosen by a ternary ran once per element and once for `map(op)`.
    let m = "instr.Nesting#ternaryInLambda(List,boolean)";
    assert_eq!(
        run.hit("ternaryInLambda([1, -5, 7], false)", NEST, m, 1).0,
        6
    );
    // Nested ternaries in an array index and in arguments.
    let m = "instr.Nesting#nestedTernaries(int,int,int[])";
    assert_eq!(
        run.hit("nestedTernaries(-1, -20)", NEST, m, 5),
        (1, 0.0, 10.0)
    );
    assert_eq!(run.hit("nestedTernaries(1, 3)", NEST, m, 2), (1, 0.0, 1.0));
    // A recursive method's probes count every call; a condition calling probed methods
    // reports theirs too.
    assert_eq!(
        run.hit("fib(10)", NEST, "instr.Nesting#fib(int)", 0),
        (177, 0.0, 0.0)
    );
    assert_eq!(run.entries("fib(10)", NEST, "instr.Nesting#fib(int)"), 177);
    assert_eq!(run.value("fib(10)"), int(55));
    assert_eq!(
        run.hit("fibAbove(10)", NEST, "instr.Nesting#isSmall(int)", 0),
        (1, 25.0, 0.0),
        "fib(9) = 34 is 25 from < 10"
    );
    // Switch expressions as a condition, as arguments and as a comparison operand.
    let m = "instr.Nesting#switchOperands(String,int)";
    let label = "switchOperands(\"a\", -1)";
    assert_eq!(run.case_distance(label, NEST, m, 6, 1), 0.0, "-1 % 3 is -1");
    assert_eq!(run.case_distance(label, NEST, m, 6, 0), 1.0);
    assert_eq!(run.hit(label, NEST, m, 0), (1, 1.0, 0.0));
    assert_eq!(
        run.hit("switchOperands(\"\", 11)", NEST, m, 7),
        (1, 0.0, 50.0)
    );
    assert_eq!(run.value("switchOperands(\"\", 11)"), int(1002));
    // A `yield` inside nested blocks and a loop.
    assert_eq!(run.value("yieldNested(-3)"), int(4));
    assert_eq!(
        run.iterations("yieldNested(-3)", NEST, "for (int i = 0; ; i++)"),
        5
    );

    // Decisions in `this(...)` and `super(...)` arguments ran before the delegated
    // constructor, and field and static initialisers report theirs.
    let label = "new Declarations(-5)";
    let m = "instr.Declarations#<init>(int)";
    assert_eq!(run.hit(label, DECL, m, 0), (1, 6.0, 0.0), "-5 > 0");
    assert_eq!(
        run.hit(label, DECL, "instr.Declarations#<instinit>", 0),
        (1, 0.0, 5.0)
    );
    assert_eq!(
        run.hit(label, DECL, "instr.Declarations#<instinit>", 2).0,
        4
    );
    assert_eq!(
        run.hit(label, DECL, "instr.Declarations#<clinit>", 0),
        (1, 0.0, 1.0)
    );
    assert_eq!(
        run.value(label),
        Some(ObservedValue::Text("wide big 503 3".into()))
    );
    let label = "new Declarations(Null(\"java.lang.String\"), -2)";
    let m = "instr.Declarations#<init>(String,int)";
    assert_eq!(run.hit(label, DECL, m, 0), (1, 1.0, 0.0), "text != null");
    assert_eq!(run.hit(label, DECL, m, 2), (1, 3.0, 0.0), "-2 > 0");
    assert_eq!(
        run.hit(label, DECL, m, 4),
        (1, 0.0, 2.0),
        "-2 < 0 in the lambda"
    );
    let m = "instr.Declarations#<init>(char)";
    let label = "new Declarations('z')";
    assert_eq!(run.case_distance(label, DECL, m, 0, 2), 0.0, "default");
    assert_eq!(run.case_distance(label, DECL, m, 0, 0), 25.0, "'z' - 'a'");
    let label = "new Declarations(false)";
    let m = "instr.Declarations#<init>(boolean)";
    assert_eq!(
        run.hit(label, DECL, m, 0),
        (1, 1.0, 0.0),
        "flag in the lambda"
    );
    assert_eq!(
        run.value(label),
        Some(ObservedValue::Text("wide big 802 3".into()))
    );
    let pick = "instr.Declarations$1#pick()";
    assert_eq!(
        run.hit("new Declarations(500L)", DECL, pick, 0),
        (1, 0.0, 400.0)
    );
    let label = "new Child(7)";
    let child = "instr.Declarations$Child#<init>(int)";
    assert_eq!(run.hit(label, DECL, child, 0), (1, 0.0, 7.0), "7 > 0");
    assert_eq!(run.hit(label, DECL, child, 1), (1, 6.0, 0.0), "7 == 1");
    assert_eq!(run.hit(label, DECL, child, 2), (1, 0.0, 2.0), "7 > 5");
    let base = "instr.Declarations$Base#<init>(int,Object)";
    assert_eq!(
        run.hit(label, DECL, base, 0),
        (1, 1.0, 0.0),
        "tag is \"big\""
    );
    assert_eq!(run.entries(label, DECL, base), 1);
    assert_eq!(run.value(label), int(8));
    assert!(run.branch("new Child(1)", DECL, child, 2).is_none());

    // Text blocks: in a condition, and as case labels of switches on strings.
    let m = "instr.Declarations#textBlocks(String)";
    assert_eq!(run.hit("textBlocks(\"hello\")", DECL, m, 0), (1, 0.0, 1.0));
    assert_eq!(run.case_distance("textBlocks(\"a\")", DECL, m, 1, 0), 0.0);
    assert_eq!(run.case_distance("textBlocks(\"b\")", DECL, m, 1, 0), 1.0);
    assert_eq!(
        run.case_distance("textBlocks(\"c\\t\\n\")", DECL, m, 2, 0),
        0.0
    );
    assert_eq!(
        run.case_distance("textBlocks(\"c\\n\")", DECL, m, 2, 0),
        1.0
    );
    assert_eq!(run.value("textBlocks(\"c\\t\\n\")"), int(4));

    // Records and interface methods.
    let span = |m: &str| format!("instr.Declarations$Span#{m}");
    let label = "new Span(5, 2).contains(4)";
    assert_eq!(
        run.hit(label, DECL, &span("<init>(int,int)"), 0),
        (1, 0.0, 3.0)
    );
    assert_eq!(run.value(label), Some(ObservedValue::Bool(true)));
    let label = "Span.of(-4, 2).lo()";
    assert_eq!(run.hit(label, DECL, &span("lo()"), 0), (1, 0.0, 4.0));
    assert_eq!(run.hit(label, DECL, &span("of(int,int)"), 0), (1, 6.0, 0.0));
    assert_eq!(run.value(label), int(0));
    let label = "Shape.of(4).polygon()";
    let shape = |m: &str| format!("instr.Declarations$Shape#{m}");
    assert_eq!(run.hit(label, DECL, &shape("polygon()"), 0), (1, 0.0, 2.0));
    assert_eq!(
        run.hit(label, DECL, &shape("of(int)"), 1).0,
        2,
        "sides() twice"
    );
    assert_eq!(
        run.hit(label, DECL, &shape("<clinit>"), 0),
        (1, 0.0, 50.0),
        "the interface's field"
    );
    assert_eq!(
        run.thrown("Shape.of(-1)"),
        (
            "java.lang.IllegalArgumentException".into(),
            Some("negative".into())
        )
    );

    // Loops without braces or bodies.
    let m = "instr.Flow#unbracedLoops(List,int)";
    let label = "unbracedLoops([4, 5], 1)";
    assert_eq!(
        run.hit(label, FLOW, m, 12),
        (6, 0.0, 0.0),
        "inner for-each, twice"
    );
    assert_eq!(run.value(label), int(90003));
    let label = "emptyBodies(5)";
    for (snippet, iterations) in [
        ("while (i++ < n);", 5),
        ("for (; j * j < n; j++);", 3),
        ("for (; m++ < n;);", 5),
        ("do ; while (--k > 0);", 5),
        ("for (int x : new int[] {n, n}) ;", 2),
    ] {
        assert_eq!(
            run.iterations(label, FLOW, snippet),
            iterations,
            "{snippet}"
        );
    }
    assert_eq!(run.value(label), int(6360));
    let label = "unbracedBodies(5)";
    assert_eq!(run.iterations(label, FLOW, "do d++; while (d < n);"), 5);
    assert_eq!(run.iterations(label, FLOW, "for (; m > 0; m--);"), 5);
    assert_eq!(run.iterations(label, FLOW, "while (m < 3) m++;"), 3);
    assert_eq!(run.value(label), int(503));
    assert_eq!(run.value("unbracedBodies(1)"), int(103));
    // Jumps: `continue` in a do-while, labeled `continue` and `break` out of nested loops, a
    // `break` out of a switch inside a for-each (which does not leave the loop).
    let m = "instr.Flow#doContinue(int)";
    assert_eq!(run.hit("doContinue(5)", FLOW, m, 1), (5, 0.0, 0.0));
    assert_eq!(run.iterations("doContinue(5)", FLOW, "do {"), 5);
    let m = "instr.Flow#labeled(List)";
    let broken = "labeled([[1, -1, 5], [0, 9], [7]])";
    assert_eq!(run.hit(broken, FLOW, m, 0), (2, 0.0, 1.0), "break rows");
    assert_eq!(run.hit(broken, FLOW, m, 1), (3, 0.0, 1.0), "continue rows");
    assert_eq!(run.hit("labeled([[1, 2], [3]])", FLOW, m, 0), (3, 0.0, 0.0));
    let m = "instr.Flow#switchInLoop(String)";
    assert_eq!(run.hit("switchInLoop(\"zq\")", FLOW, m, 2), (3, 0.0, 0.0));
    assert_eq!(run.hit("switchInLoop(\"bx\")", FLOW, m, 0), (2, 0.0, 1.0));
    assert_eq!(run.value("switchInLoop(\"zq\")"), int(601));
    // An enum switch without `default` and with a missing constant.
    let m = "instr.Flow#levels(Level)";
    assert_eq!(run.case_distance("levels(HIGH)", FLOW, m, 0, 2), 0.0);
    assert_eq!(run.case_distance("levels(HIGH)", FLOW, m, 0, 0), 1.0);

    // Mixed operand types, side effects and exceptions inside conditions.
    let m = "instr.Flow#smallTypes(char,byte,short,long,float,double)";
    let label = "smallTypes('z', -5, 300, 1099511627776, 0.1, 0.5)";
    assert_eq!(
        run.hit(label, FLOW, m, 3),
        (1, 184.0, 0.0),
        "'z' + -5 > 300"
    );
    assert_eq!(run.hit(label, FLOW, m, 4), (1, 0.0, 1_097_364_144_129.0));
    let (hits, to_true, to_false) = run.hit(label, FLOW, m, 7);
    assert_eq!((hits, to_false), (1, 0.0), "0.1f == 0.1 is false in double");
    assert!(to_true > 0.0 && to_true < 1e-8, "{to_true}");
    let m = "instr.Flow#compound(int)";
    assert_eq!(
        run.hit("compound(4)", FLOW, m, 0),
        (1, 0.0, 1.0),
        "(x += 2) > 5"
    );
    assert_eq!(run.hit("compound(4)", FLOW, m, 2), (1, 1.0, 0.0), "++x > 8");
    assert_eq!(
        run.hit("compound(4)", FLOW, m, 3),
        (1, 0.0, 1.0),
        "--x == x--"
    );
    let m = "instr.Flow#generics(Object)";
    assert_eq!(run.hit("generics({})", FLOW, m, 3), (1, 0.0, 1.0));
    assert_eq!(run.hit("generics([1, 2, 3])", FLOW, m, 1), (1, 0.0, 1.0));
    let m = "instr.Flow#chain(int,int)";
    for ordinal in 0..10 {
        assert_eq!(run.hit("chain(2, 1)", FLOW, m, ordinal).0, 1, "B{ordinal}");
    }
    assert_eq!(run.hit("chain(2, 1)", FLOW, m, 9), (1, 2.0, 0.0), "2 < 1");
    assert_eq!(run.value("chain(2, 1)"), int(-4));
    assert!(run.branch("chain(0, 5)", FLOW, m, 2).is_none());
    let m = "instr.Flow#throwsMidway(String,Integer)";
    let label = "throwsMidway(S(\"abc\"), Null(\"java.lang.Integer\"))";
    assert_eq!(run.hit(label, FLOW, m, 0), (1, 0.0, 3.0));
    assert!(
        run.branch(label, FLOW, m, 1).is_none(),
        "unboxing null threw"
    );
    let frame = run.result(label).exception.as_ref().unwrap().frame.clone();
    assert_eq!(frame.and_then(|f| f.line), Some(line_of(FLOW, "box > 3")));

    // Locks and `finally`.
    assert_eq!(
        run.iterations("synced(500)", FLOW, "while (state > 100)"),
        3
    );
    let m = "instr.Flow#tryAll(int)";
    assert_eq!(run.hit("tryAll(1)", FLOW, m, 2).1, 0.0, "catch entered");
    assert_eq!(
        run.hit("tryAll(1)", FLOW, m, 7),
        (1, 0.0, 1.0),
        "r < 0 in finally"
    );
    assert_eq!(run.value("tryAll(1)"), int(-100));
    assert_eq!(run.hit("tryAll(-10)", FLOW, m, 5).1, 0.0);
    assert_eq!(run.value("tryAll(-10)"), int(-200));
}

#[test]
fn assertion_conditions_run_once_when_enabled_and_not_at_all_when_disabled() {
    // `asserted` returns how often `bump()` ran: it is called in the second assertion's
    // condition, and again in its message when that assertion fails.
    let mut sup = supervisor();
    let off = run(&mut sup, assertions());
    for label in [
        "asserted(5)",
        "asserted(-1)",
        "asserted(200)",
        "asserted(50)",
    ] {
        assert_eq!(off.value(label), int(0), "{label}");
    }
    let mut sup = supervisor_with(vec!["-ea:instr...".into()]);
    let on = run(&mut sup, assertions());
    assert_eq!(on.value("asserted(5)"), int(1));
    let error = |message: &str| {
        (
            "java.lang.AssertionError".to_string(),
            Some(message.to_string()),
        )
    };
    assert_eq!(on.thrown("asserted(-1)"), error("x must be positive"));
    assert_eq!(on.thrown("asserted(200)"), error("2"));
    assert_eq!(on.thrown("asserted(50)"), error("fifty!"));
    // The assertions' statements are counted either way.
    for run in [&off, &on] {
        let lines = run.trace("asserted(5)", DECL).lines;
        assert!(
            ["assert x > 0", "assert bump()", "assert x != 50"]
                .iter()
                .all(|s| lines.iter().any(|(n, _)| *n == line_of(DECL, s))),
            "{lines:?}"
        );
    }
}

#[test]
fn outcome_only_instrumentation_of_these_constructs_behaves_like_the_original_too() {
    let mut sup = supervisor();
    let original = sup.compile(&request(sources())).unwrap().unit.unwrap();
    let mut instrumented = sources();
    instrument_outcome_only(&mut instrumented);
    let result = sup.compile(&request(instrumented)).unwrap();
    let unit = result
        .unit
        .unwrap_or_else(|| panic!("{:#?}", result.diagnostics));
    let (labels, calls): (Vec<String>, Vec<Call>) = battery().into_iter().unzip();
    let tests: Vec<TestCase> = calls.iter().map(test_case).collect();
    let opts = options(&CLASSES);
    let before = finished(sup.execute(original, &tests, &opts).unwrap());
    let after = finished(sup.execute(unit, &tests, &opts).unwrap());
    for ((label, a), b) in labels.iter().zip(&before).zip(&after) {
        assert_eq!(observable(a), observable(b), "{label}");
    }
}
