//! Test support: a toy individual (a sequence of calls with integer arguments), its operators,
//! and a fake executor that runs hand-written Rust mirrors of small Java classes. The goal table
//! always comes from the real Java model of the class, so decisions, control dependencies and
//! lines are the ones the real instrumentation would see; the mirrors record decisions with the
//! worker's branch-distance rules (docs/protocol.md, "Branch probes").

#![allow(dead_code)]

use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};
use std::time::Duration;

use javamodel::{DecisionKey, JavaModel};
use rand::rngs::StdRng;
use rand::Rng;
use search::{
    Criteria, ExecutionResult, ExecutionStatus, Executor, GoalTable, ManualClock, MemberId,
    ObservedException, TestCodeProxies, Variation,
};

pub fn model(source: &str) -> JavaModel {
    let tree = syntax::parse_java(source, None);
    JavaModel::build(source, &tree)
}

pub fn table(source: &str, class: &str, criteria: Criteria) -> GoalTable {
    GoalTable::for_class(&model(source), class, criteria).expect("the class is in the source")
}

/// 1-based line of the first line containing `marker` (a `// L:name` comment).
pub fn line_of(source: &str, marker: &str) -> u32 {
    let needle = format!("// L:{marker}");
    source
        .lines()
        .position(|l| l.contains(&needle))
        .map(|i| i as u32 + 1)
        .unwrap_or_else(|| panic!("no marker {needle}"))
}

/// [`line_of`], memoised: the toy programs ask for marker lines in their inner loops.
fn cached_line_of(source: &'static str, marker: &'static str) -> u32 {
    type Cache = Mutex<HashMap<(usize, &'static str), u32>>;
    static CACHE: OnceLock<Cache> = OnceLock::new();
    let cache = CACHE.get_or_init(Default::default);
    let key = (source.as_ptr() as usize, marker);
    if let Some(line) = cache.lock().unwrap().get(&key) {
        return *line;
    }
    let line = line_of(source, marker);
    cache.lock().unwrap().insert(key, line);
    line
}

/// One call of the class under test.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Call {
    pub method: usize,
    pub args: [i64; 2],
}

/// A toy test case: calls on one fresh instance.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ToyTest {
    pub calls: Vec<Call>,
}

/// Operators in the style of Fraser and Arcuri, "Whole Test Suites" III-E for test cases: random sampling by repeated
/// insertion up to a random length, and mutation by remove / change / insert, each with
/// probability 1/3, per-call probability 1/n.
#[derive(Debug, Clone)]
pub struct ToyVariation {
    pub methods: usize,
    pub max_len: usize,
    pub range: i64,
    /// Delta for changing an argument (EvoSuite's default is 20).
    pub delta: i64,
}

impl ToyVariation {
    pub fn new(methods: usize, range: i64) -> ToyVariation {
        ToyVariation {
            methods,
            max_len: 10,
            range,
            delta: 20,
        }
    }

    fn random_call(&self, rng: &mut StdRng) -> Call {
        Call {
            method: rng.gen_range(0..self.methods),
            args: [
                rng.gen_range(-self.range..=self.range),
                rng.gen_range(-self.range..=self.range),
            ],
        }
    }

    fn change(&self, call: &mut Call, rng: &mut StdRng) {
        let slot = rng.gen_range(0..3);
        if slot == 2 {
            call.method = rng.gen_range(0..self.methods);
            return;
        }
        let value = &mut call.args[slot];
        if rng.gen_bool(0.2) {
            *value = rng.gen_range(-self.range..=self.range);
        } else {
            let mut step = rng.gen_range(-self.delta..=self.delta);
            if step == 0 {
                step = 1;
            }
            *value += step;
        }
    }
}

impl Variation for ToyVariation {
    type Individual = ToyTest;

    fn random(&mut self, rng: &mut StdRng) -> ToyTest {
        let target = rng.gen_range(1..=self.max_len);
        let mut calls = Vec::new();
        while calls.len() < target {
            calls.push(self.random_call(rng));
        }
        ToyTest { calls }
    }

    fn mutate(&mut self, test: &mut ToyTest, rng: &mut StdRng) -> bool {
        let mut changed = false;
        if rng.gen_bool(1.0 / 3.0) && !test.calls.is_empty() {
            let p = 1.0 / test.calls.len() as f64;
            let before = test.calls.len();
            test.calls.retain(|_| !rng.gen_bool(p));
            changed |= test.calls.len() != before;
        }
        if rng.gen_bool(1.0 / 3.0) && !test.calls.is_empty() {
            let p = 1.0 / test.calls.len() as f64;
            for i in 0..test.calls.len() {
                if rng.gen_bool(p) {
                    let mut call = test.calls[i].clone();
                    self.change(&mut call, rng);
                    changed |= call != test.calls[i];
                    test.calls[i] = call;
                }
            }
        }
        if rng.gen_bool(1.0 / 3.0) {
            let mut p = 0.5;
            while test.calls.len() < self.max_len && rng.gen_bool(p) {
                let at = rng.gen_range(0..=test.calls.len());
                let call = self.random_call(rng);
                test.calls.insert(at, call);
                changed = true;
                p *= 0.5;
            }
        }
        changed
    }

    fn crossover(&mut self, a: &ToyTest, b: &ToyTest, rng: &mut StdRng) -> (ToyTest, ToyTest) {
        let alpha: f64 = rng.gen();
        let cut_a = (alpha * a.calls.len() as f64) as usize;
        let cut_b = (alpha * b.calls.len() as f64) as usize;
        let mut x: Vec<Call> = a.calls[..cut_a].to_vec();
        x.extend_from_slice(&b.calls[cut_b..]);
        let mut y: Vec<Call> = b.calls[..cut_b].to_vec();
        y.extend_from_slice(&a.calls[cut_a..]);
        x.truncate(self.max_len);
        y.truncate(self.max_len);
        (ToyTest { calls: x }, ToyTest { calls: y })
    }

    fn len(&self, test: &ToyTest) -> usize {
        test.calls.len()
    }

    /// Seeds calling a method the class no longer has are refused, like tests that no longer
    /// compile.
    fn accept_seed(&mut self, test: &ToyTest) -> bool {
        test.calls.iter().all(|c| c.method < self.methods)
    }

    fn test_code_proxies(&self, test: &ToyTest) -> TestCodeProxies {
        let calls = test.calls.len() as u64;
        TestCodeProxies {
            test_case_method_calls: calls,
            // One primitive statement per argument.
            test_case_statements: 2 * calls,
            test_length: 3 * calls,
        }
    }
}

/// Comparison operators of the worker's probes.
#[derive(Debug, Clone, Copy)]
pub enum Op {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

/// The worker's distances (k = 1) for `a op b`: (outcome, true distance, false distance).
pub fn compare(op: Op, a: i64, b: i64) -> (bool, f64, f64) {
    let (a, b) = (a as f64, b as f64);
    let k = 1.0;
    let outcome = match op {
        Op::Eq => a == b,
        Op::Ne => a != b,
        Op::Lt => a < b,
        Op::Le => a <= b,
        Op::Gt => a > b,
        Op::Ge => a >= b,
    };
    let other = if outcome {
        // Distance to false.
        match op {
            Op::Eq => k,
            Op::Ne => (a - b).abs(),
            Op::Lt => b - a,
            Op::Le => b - a + k,
            Op::Gt => a - b,
            Op::Ge => a - b + k,
        }
    } else {
        // Distance to true.
        match op {
            Op::Eq => (a - b).abs(),
            Op::Ne => k,
            Op::Lt => a - b + k,
            Op::Le => a - b,
            Op::Gt => b - a + k,
            Op::Ge => b - a,
        }
    };
    if outcome {
        (true, 0.0, other)
    } else {
        (false, other, 0.0)
    }
}

/// Records one test's trace as the instrumented class would.
pub struct Recorder<'t> {
    pub table: &'t GoalTable,
    pub result: ExecutionResult,
    member: Option<(MemberId, String)>,
    loop_budget: u64,
}

/// An exception escaping the call, or a loop running out of budget (a timeout).
pub enum Abrupt {
    Throw(&'static str),
    Timeout,
}

impl<'t> Recorder<'t> {
    pub fn new(table: &'t GoalTable) -> Recorder<'t> {
        Recorder {
            table,
            result: ExecutionResult::new(table, ExecutionStatus::Ok),
            member: None,
            loop_budget: 10_000,
        }
    }

    /// Enters a member, by its key's signature part (`m(int,int)`).
    pub fn enter(&mut self, signature: &str) {
        let key = format!("{}#{signature}", self.table.binary_name());
        let member = self
            .table
            .member_by_key(&key)
            .unwrap_or_else(|| panic!("no member {key}"));
        self.result.record_member_entry(self.table, member, 1);
        self.result.proxies.covered_method_calls += 1;
        self.member = Some((member, key));
    }

    fn decision(&self, ordinal: u32) -> search::DecisionId {
        let (_, key) = self.member.as_ref().expect("inside a member");
        self.table
            .decision_by_key(&DecisionKey {
                member: key.clone(),
                ordinal,
            })
            .unwrap_or_else(|| panic!("no decision {key}/B{ordinal}"))
    }

    /// Evaluates decision `ordinal` of the current member as `a op b`.
    pub fn cmp(&mut self, ordinal: u32, op: Op, a: i64, b: i64) -> bool {
        let decision = self.decision(ordinal);
        let (outcome, to_true, to_false) = compare(op, a, b);
        self.result
            .record_branch(self.table, decision, 1, to_true, to_false);
        outcome
    }

    /// A statement on the line marked `// L:name` in `source` ran.
    pub fn line(&mut self, source: &'static str, marker: &'static str) {
        self.result.record_line(cached_line_of(source, marker));
        self.result.proxies.covered_statements += 1;
    }

    /// One loop iteration; a timeout once the budget is spent.
    pub fn iterate(&mut self) -> Result<(), Abrupt> {
        self.result.proxies.executed_loops += 1;
        self.loop_budget = self.loop_budget.saturating_sub(1);
        if self.loop_budget == 0 {
            Err(Abrupt::Timeout)
        } else {
            Ok(())
        }
    }

    pub fn allocate(&mut self) {
        self.result.proxies.object_instantiations += 1;
    }

    pub fn current_member(&self) -> Option<MemberId> {
        self.member.as_ref().map(|(m, _)| *m)
    }
}

/// A Rust mirror of a Java class.
pub trait ToyProgram {
    fn source(&self) -> &'static str;
    fn class(&self) -> &'static str;
    fn methods(&self) -> usize;
    /// Runs `call` on the instance state `state`.
    fn call(&self, state: &mut [i64; 4], call: &Call, rec: &mut Recorder<'_>)
        -> Result<(), Abrupt>;
}

/// Runs toy tests: a fresh instance per test; a test stops at the first call that throws.
/// Advances the clock by `per_test` for every test it runs.
pub struct FakeExecutor<'t, P> {
    pub table: &'t GoalTable,
    pub program: P,
    pub clock: Option<ManualClock>,
    pub per_test: Duration,
    pub executed: u64,
    pub batches: Vec<usize>,
    /// Every test run, in order.
    pub log: Vec<ToyTest>,
}

impl<'t, P: ToyProgram> FakeExecutor<'t, P> {
    pub fn new(table: &'t GoalTable, program: P) -> FakeExecutor<'t, P> {
        FakeExecutor {
            table,
            program,
            clock: None,
            per_test: Duration::from_millis(1),
            executed: 0,
            batches: Vec::new(),
            log: Vec::new(),
        }
    }

    pub fn with_clock(mut self, clock: ManualClock, per_test: Duration) -> Self {
        self.clock = Some(clock);
        self.per_test = per_test;
        self
    }

    pub fn run_one(&self, test: &ToyTest) -> ExecutionResult {
        let mut rec = Recorder::new(self.table);
        let mut state = [0i64; 4];
        rec.allocate();
        for call in &test.calls {
            rec.result.executed_statements += 3;
            match self.program.call(&mut state, call, &mut rec) {
                Ok(()) => {}
                Err(Abrupt::Throw(type_name)) => {
                    let member = rec.current_member();
                    rec.result.record_exception(ObservedException {
                        member,
                        type_name: type_name.to_string(),
                        declared: false,
                        line: None,
                    });
                    break;
                }
                Err(Abrupt::Timeout) => {
                    rec.result.status = ExecutionStatus::Timeout;
                    break;
                }
            }
        }
        rec.result
    }
}

impl<P: ToyProgram> Executor<ToyTest> for FakeExecutor<'_, P> {
    fn execute(&mut self, batch: &[ToyTest]) -> Vec<ExecutionResult> {
        self.batches.push(batch.len());
        batch
            .iter()
            .map(|test| {
                self.executed += 1;
                self.log.push(test.clone());
                if let Some(clock) = &self.clock {
                    clock.advance(self.per_test);
                }
                self.run_one(test)
            })
            .collect()
    }
}

/// An easy class: shallow conditions, a loop, a switch, a stateful check, an undeclared
/// exception and a branch-free method.
pub struct Easy;

pub const EASY: &str = r#"package toy;

public class Easy {
    private int total;

    public int classify(int a, int b) {
        if (a > 10) { // L:classify_if
            if (b < a) { // L:classify_inner
                return 1; // L:ret1
            }
            return 2; // L:ret2
        }
        return 3; // L:ret3
    }

    public void add(int x, int y) {
        total += x; // L:add
    }

    public boolean rich(int x, int y) {
        return total > 50; // L:rich
    }

    public int sum(int n, int y) {
        int s = 0; // L:sum_init
        for (int i = 0; i < n; i++) { // L:sum_loop
            s += i; // L:sum_body
        }
        return s; // L:sum_ret
    }

    public int kind(int x, int y) {
        switch (x) { // L:switch
            case 1: return 10; // L:case1
            case 2: return 20; // L:case2
            default: return 0; // L:default
        }
    }

    public int divide(int a, int b) {
        return a / b; // L:divide
    }
}
"#;

impl ToyProgram for Easy {
    fn source(&self) -> &'static str {
        EASY
    }

    fn class(&self) -> &'static str {
        "toy.Easy"
    }

    fn methods(&self) -> usize {
        6
    }

    fn call(
        &self,
        state: &mut [i64; 4],
        call: &Call,
        rec: &mut Recorder<'_>,
    ) -> Result<(), Abrupt> {
        let [a, b] = call.args;
        let src = EASY;
        match call.method {
            0 => {
                rec.enter("classify(int,int)");
                rec.line(src, "classify_if");
                if rec.cmp(0, Op::Gt, a, 10) {
                    rec.line(src, "classify_inner");
                    if rec.cmp(1, Op::Lt, b, a) {
                        rec.line(src, "ret1");
                    } else {
                        rec.line(src, "ret2");
                    }
                } else {
                    rec.line(src, "ret3");
                }
            }
            1 => {
                rec.enter("add(int,int)");
                rec.line(src, "add");
                state[0] += a;
            }
            2 => {
                rec.enter("rich(int,int)");
                rec.line(src, "rich");
                rec.cmp(0, Op::Gt, state[0], 50);
            }
            3 => {
                rec.enter("sum(int,int)");
                rec.line(src, "sum_init");
                let mut i = 0;
                loop {
                    rec.line(src, "sum_loop");
                    if !rec.cmp(0, Op::Lt, i, a) {
                        break;
                    }
                    rec.iterate()?;
                    rec.line(src, "sum_body");
                    i += 1;
                }
                rec.line(src, "sum_ret");
            }
            4 => {
                rec.enter("kind(int,int)");
                rec.line(src, "switch");
                let table = rec.table;
                let decision = table
                    .decision_by_key(&DecisionKey {
                        member: "toy.Easy#kind(int,int)".into(),
                        ordinal: 0,
                    })
                    .expect("the switch");
                rec.result.record_decision(table, decision, 1);
                let cases = [1i64, 2];
                let mut matched = false;
                for (i, case) in cases.iter().enumerate() {
                    let distance = (a - case).abs() as f64;
                    rec.result.record_distance(
                        table,
                        decision,
                        javamodel::Outcome::Case(i as u32),
                        distance,
                    );
                    matched |= distance == 0.0;
                }
                rec.result.record_distance(
                    table,
                    decision,
                    javamodel::Outcome::Case(2),
                    if matched { 1.0 } else { 0.0 },
                );
                let marker = match a {
                    1 => "case1",
                    2 => "case2",
                    _ => "default",
                };
                rec.line(src, marker);
            }
            5 => {
                rec.enter("divide(int,int)");
                rec.line(src, "divide");
                if b == 0 {
                    return Err(Abrupt::Throw("java.lang.ArithmeticException"));
                }
            }
            _ => {}
        }
        Ok(())
    }
}

/// A harder class: every method guards its goals with a threshold, then an equality between
/// the two arguments, then a modular condition, so most goals need a gradient to reach.
pub struct Hard;

pub const HARD: &str = r#"package toy;

public class Hard {
    public int a(int x, int y) {
        if (x > 300) {
            if (y == x + 17) {
                if (x % 7 == 3) {
                    return 1;
                }
                return 2;
            }
            return 3;
        }
        return 4;
    }

    public int b(int x, int y) {
        if (x < -300) {
            if (y == 2 * x + 5) {
                if ((x + y) % 5 == 0) {
                    return 1;
                }
                return 2;
            }
            return 3;
        }
        return 4;
    }

    public int c(int x, int y) {
        if (y > 400) {
            if (x == y - 123) {
                if (x + y > 1100) {
                    return 1;
                }
                return 2;
            }
            return 3;
        }
        return 4;
    }

    public int d(int x, int y) {
        if (x == 777) {
            if (y == -x) {
                return 1;
            }
            return 2;
        }
        return 3;
    }

    public int e(int x, int y) {
        if (x == 3 * y) {
            if (y > 200) {
                if (x - y == 500) {
                    return 1;
                }
                return 2;
            }
            return 3;
        }
        return 4;
    }

    public int f(int x, int y) {
        if (x + y == 1000) {
            if (x - y == 200) {
                return 1;
            }
            return 2;
        }
        return 3;
    }

    public int g(int x, int y) {
        if (x < -700) {
            if (y < x) {
                if (y == x - 50) {
                    return 1;
                }
                return 2;
            }
            return 3;
        }
        return 4;
    }

    public int h(int x, int y) {
        if (y == -404) {
            if (x > y) {
                if (x == 999) {
                    return 1;
                }
                return 2;
            }
            return 3;
        }
        return 4;
    }
}
"#;

impl ToyProgram for Hard {
    fn source(&self) -> &'static str {
        HARD
    }

    fn class(&self) -> &'static str {
        "toy.Hard"
    }

    fn methods(&self) -> usize {
        8
    }

    fn call(
        &self,
        _state: &mut [i64; 4],
        call: &Call,
        rec: &mut Recorder<'_>,
    ) -> Result<(), Abrupt> {
        let [x, y] = call.args;
        match call.method {
            0 => {
                rec.enter("a(int,int)");
                if rec.cmp(0, Op::Gt, x, 300) && rec.cmp(1, Op::Eq, y, x + 17) {
                    // Java's % truncates, like Rust's.
                    rec.cmp(2, Op::Eq, x % 7, 3);
                }
            }
            1 => {
                rec.enter("b(int,int)");
                if rec.cmp(0, Op::Lt, x, -300) && rec.cmp(1, Op::Eq, y, 2 * x + 5) {
                    rec.cmp(2, Op::Eq, (x + y) % 5, 0);
                }
            }
            2 => {
                rec.enter("c(int,int)");
                if rec.cmp(0, Op::Gt, y, 400) && rec.cmp(1, Op::Eq, x, y - 123) {
                    rec.cmp(2, Op::Gt, x + y, 1100);
                }
            }
            3 => {
                rec.enter("d(int,int)");
                if rec.cmp(0, Op::Eq, x, 777) {
                    rec.cmp(1, Op::Eq, y, -x);
                }
            }
            4 => {
                rec.enter("e(int,int)");
                if rec.cmp(0, Op::Eq, x, 3 * y) && rec.cmp(1, Op::Gt, y, 200) {
                    rec.cmp(2, Op::Eq, x - y, 500);
                }
            }
            5 => {
                rec.enter("f(int,int)");
                if rec.cmp(0, Op::Eq, x + y, 1000) {
                    rec.cmp(1, Op::Eq, x - y, 200);
                }
            }
            6 => {
                rec.enter("g(int,int)");
                if rec.cmp(0, Op::Lt, x, -700) && rec.cmp(1, Op::Lt, y, x) {
                    rec.cmp(2, Op::Eq, y, x - 50);
                }
            }
            7 => {
                rec.enter("h(int,int)");
                if rec.cmp(0, Op::Eq, y, -404) && rec.cmp(1, Op::Gt, x, y) {
                    rec.cmp(2, Op::Eq, x, 999);
                }
            }
            _ => {}
        }
        Ok(())
    }
}
