//! End to end on the bank example (`tests/projects/bank`): test cases run in the real worker,
//! the observations become a JUnit class, javac and the real JUnit 5 and JUnit 4 launchers
//! verify it (twice, in both orders), it is written into a project, and JaCoCo measures it on
//! the original classes.
//!
//! Refresh the expected sources with `UPDATE_EXPECT=1`.

mod verify_support;

use ctg::emit::{observe, test_class_name, write_for_class, Written};
use ctg::verify::jacoco::{measure, LineStatus};
use ctg::verify::{verify_and_stabilise, JUnitSetup, RunOrder, VerifiedSuite, VerifyOptions};
use rand::rngs::StdRng;
use rand::SeedableRng;
use testcase::junit::{ExecutedTest, JUnit, TestClassSpec};
use testcase::{Cluster, PrimitiveValue, Statement, TestCase, VarRef, Variation};
use verify_support::*;

const ACCOUNT: &str = "com.example.bank.Account";
const BANK: &str = "com.example.bank.Bank";
const PARSER: &str = "com.example.bank.AmountParser";

/// Builds a test case statement by statement.
#[derive(Default)]
struct Builder {
    statements: Vec<Statement>,
}

impl Builder {
    fn push(&mut self, s: Statement) -> VarRef {
        self.statements.push(s);
        VarRef(self.statements.len() - 1)
    }

    fn string(&mut self, s: &str) -> VarRef {
        self.push(Statement::Primitive(PrimitiveValue::String(s.into())))
    }

    fn long(&mut self, v: i64) -> VarRef {
        self.push(Statement::Primitive(PrimitiveValue::Long(v)))
    }

    fn int(&mut self, v: i32) -> VarRef {
        self.push(Statement::Primitive(PrimitiveValue::Int(v)))
    }

    fn account(&mut self, c: &Cluster, owner: Option<&str>, limit: i64) -> VarRef {
        let owner = match owner {
            Some(o) => self.string(o),
            None => self.push(Statement::Null(testcase::JavaType::string())),
        };
        let limit = self.long(limit);
        let callable = target(c, "com.example.bank.Account.<init>(java.lang.String, long)");
        self.push(Statement::Constructor {
            ty: testcase::JavaType::class(&callable.owner),
            callable,
            type_args: vec![],
            args: vec![owner, limit],
        })
    }

    fn call(&mut self, c: &Cluster, display: &str, receiver: VarRef, args: &[VarRef]) -> VarRef {
        let callable = target(c, display);
        self.push(Statement::Method {
            ty: callable.returns.clone(),
            callable,
            receiver: Some(receiver),
            type_args: vec![],
            args: args.to_vec(),
        })
    }

    fn build(self) -> TestCase {
        TestCase::from_statements(self.statements)
    }
}

/// Account tests chosen to cover every line and branch of `Account`.
fn account_tests(c: &Cluster) -> Vec<TestCase> {
    const DEPOSIT: &str = "com.example.bank.Account.deposit(long)";
    const WITHDRAW: &str = "com.example.bank.Account.withdraw(long)";
    const INTEREST: &str = "com.example.bank.Account.interest(int)";
    let mut tests = Vec::new();
    let mut simple = |owner: Option<&str>, limit: i64, calls: &[(&str, i64)]| {
        let mut b = Builder::default();
        let account = b.account(c, owner, limit);
        for (method, arg) in calls {
            let arg = if method.ends_with("(int)") {
                b.int(*arg as i32)
            } else {
                b.long(*arg)
            };
            b.call(c, method, account, &[arg]);
        }
        tests.push(b.build());
    };
    simple(Some("Alice"), 100, &[(DEPOSIT, 50), (WITHDRAW, 30)]);
    simple(Some("Bob"), 0, &[(WITHDRAW, -1)]);
    simple(Some("Carol"), 0, &[(WITHDRAW, 10)]);
    simple(Some("Dave"), 0, &[(INTEREST, 5)]);
    simple(Some("Eve"), 0, &[(DEPOSIT, 10), (INTEREST, 0)]);
    simple(Some("Frank"), 0, &[(DEPOSIT, 100), (INTEREST, 10)]);
    simple(Some(""), 0, &[]);
    simple(None, 0, &[]);
    simple(Some("Gina"), -1, &[]);
    simple(Some("Hal"), 50, &[(DEPOSIT, 0)]);
    simple(Some("Ivy"), 50, &[(WITHDRAW, 20)]);
    tests
}

/// Random test cases of a class's cluster, as the search starts with.
fn random_tests(c: &Cluster, seed: u64, n: usize) -> Vec<TestCase> {
    let variation = Variation::default();
    let mut rng = StdRng::seed_from_u64(seed);
    (0..n)
        .map(|_| variation.random_test(c, &mut rng))
        .filter(|t| !t.is_empty())
        .collect()
}

fn executed(subject: &mut Subject, tests: &[TestCase]) -> Vec<ExecutedTest> {
    let results = observe(&mut subject.sup, subject.unit, tests, &execute_options()).unwrap();
    results.into_iter().filter_map(Result::ok).collect()
}

/// The last two runs passed, by name and then in reverse, and ran exactly the kept tests.
fn assert_passed_twice_in_both_orders(suite: &VerifiedSuite) {
    let runs = &suite.runs[suite.runs.len() - 2..];
    let mut names = suite.kept.clone();
    names.sort();
    assert_eq!(runs[0].order, RunOrder::Forward);
    assert_eq!(runs[1].order, RunOrder::Reverse);
    assert!(runs.iter().all(|r| r.passed()), "{runs:#?}");
    assert_eq!(runs[0].executed, names);
    names.reverse();
    assert_eq!(runs[1].executed, names);
}

fn spec(class: &str, junit: JUnit, subject: &Subject, tests: Vec<ExecutedTest>) -> TestClassSpec {
    let mut spec = TestClassSpec::new(class, &test_class_name(class), junit);
    spec.tests = tests;
    spec.facts = subject.facts.clone();
    spec
}

/// Account's hand-picked tests: verified without drops, written, and JaCoCo finds every line
/// and branch of `Account` covered and nothing of `Bank` (which they never touch).
fn account_suite_is_verified_written_and_covers_account(junit: JUnit, subject: &mut Subject) {
    let cluster = subject.cluster(ACCOUNT);
    let tests = account_tests(&cluster);
    let executed = executed(subject, &tests);
    assert_eq!(
        executed.len(),
        tests.len(),
        "every hand-picked test is printable"
    );
    let spec = spec(ACCOUNT, junit, subject, executed);
    let setup = JUnitSetup::locate(junit, &[]).expect("JUnit installed (tests/run.sh)");
    let suite = verify_and_stabilise(&spec, &bank_project(), &setup, &VerifyOptions::default())
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(suite.dropped.is_empty(), "{:#?}", suite.dropped);
    assert_eq!(suite.kept.len(), tests.len());
    assert_eq!(suite.rounds, 1);
    assert_passed_twice_in_both_orders(&suite);
    let expected = match junit {
        JUnit::Five => "AccountGeneratedTest.junit5.java",
        JUnit::Four => "AccountGeneratedTest.junit4.java",
    };
    assert_matches_fixture(&suite.source, expected);

    let project = TempProject::new();
    let (path, written) = write_for_class(&project.layout, ACCOUNT, &suite.source).unwrap();
    assert_eq!(written, Written::Created);
    assert!(path.ends_with("src/test/java/com/example/bank/AccountGeneratedTest.java"));
    let on_disk = std::fs::read_to_string(&path).unwrap();
    assert_eq!(on_disk, suite.source);

    let measured = measure(
        &on_disk,
        "com.example.bank.AccountGeneratedTest",
        &bank_project(),
        &setup,
        &["com.example.bank.*"],
        &VerifyOptions::default(),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert!(measured.run.passed(), "{:#?}", measured.run);
    let account = &measured.coverage.classes[ACCOUNT];
    // Account.java has 24 lines of code and 16 branches (8 two-way decisions); the tests were
    // picked to reach all of them, and the state assertions call every getter.
    assert_eq!(account.lines.covered, 24, "{account:?}");
    assert_eq!(account.lines.missed, 0, "{account:?}");
    assert_eq!(account.branches.covered, 16, "{account:?}");
    assert_eq!(account.branches.missed, 0, "{account:?}");
    assert_eq!(account.methods.covered, 7, "{account:?}");
    assert_eq!(account.methods.missed, 0, "{account:?}");
    let bank = &measured.coverage.classes[BANK];
    assert_eq!(bank.lines.covered, 0, "{bank:?}");
}

/// Random tests of `class`: verified (whatever is unstable dropped), and JaCoCo counts as
/// covered at least every method of `class` the kept tests call, plus its constructor.
fn random_suite_is_verified_and_covers_what_it_calls(
    class: &str,
    seed: u64,
    junit: JUnit,
    subject: &mut Subject,
) {
    let cluster = subject.cluster(class);
    let tests = random_tests(&cluster, seed, 12);
    let executed = executed(subject, &tests);
    assert!(
        executed.len() >= 6,
        "{} printable of {}",
        executed.len(),
        tests.len()
    );
    let spec = spec(class, junit, subject, executed);
    let setup = JUnitSetup::locate(junit, &[]).expect("JUnit installed (tests/run.sh)");
    let suite = verify_and_stabilise(&spec, &bank_project(), &setup, &VerifyOptions::default())
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(!suite.kept.is_empty(), "{:#?}", suite.dropped);
    assert_passed_twice_in_both_orders(&suite);

    let simple = class.rsplit('.').next().unwrap();
    let measured = measure(
        &suite.source,
        &format!("com.example.bank.{simple}GeneratedTest"),
        &bank_project(),
        &setup,
        &["com.example.bank.*"],
        &VerifyOptions::default(),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert!(measured.run.passed(), "{:#?}", measured.run);
    let coverage = &measured.coverage.classes[class];
    let called: std::collections::BTreeSet<&str> = [
        "open",
        "find",
        "transfer",
        "size",
        "totalBalance",
        "parseCents",
        "format",
    ]
    .into_iter()
    .filter(|m| suite.source.contains(&format!(".{m}(")))
    .collect();
    assert!(!called.is_empty(), "{}", suite.source);
    assert!(
        coverage.methods.covered as usize >= called.len(),
        "{class}: {coverage:?} for calls of {called:?}\n{}",
        suite.source
    );
    assert!(coverage.lines.covered >= 3, "{coverage:?}");
    assert!(!coverage.lines_with(LineStatus::Fully).is_empty());
}

#[test]
fn bank_suites_under_junit5() {
    let mut subject = Subject::bank();
    account_suite_is_verified_written_and_covers_account(JUnit::Five, &mut subject);
    random_suite_is_verified_and_covers_what_it_calls(BANK, 21, JUnit::Five, &mut subject);
}

#[test]
fn bank_suites_under_junit4() {
    let mut subject = Subject::bank();
    account_suite_is_verified_written_and_covers_account(JUnit::Four, &mut subject);
    random_suite_is_verified_and_covers_what_it_calls(PARSER, 5, JUnit::Four, &mut subject);
}

/// The start-up archives of verification: made once by `train_archives`, then mapped by every
/// JUnit 5 run verification starts (its class-loading log says where each class came
/// from) and by `javac`.
#[test]
fn verification_jvms_map_the_archives_made_for_them() {
    let mut subject = Subject::bank();
    let jdk = subject.sup.jdk().clone();
    let base = std::env::temp_dir().join(format!("ctgls-verify-archives-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&base);
    let archives = jvm::SharedArchives::new(&base.join("cache"), &jdk);
    if !archives.enabled() {
        eprintln!(
            "skipped: JDK {} makes no dynamic archives",
            jdk.version.full
        );
        return;
    }
    let setup = JUnitSetup::locate(JUnit::Five, &[]).expect("JUnit installed (tests/run.sh)");
    std::fs::create_dir_all(base.join("scratch")).unwrap();
    let options = VerifyOptions {
        jdk: Some(jdk.clone()),
        archives: archives.clone(),
        harness_cache: Some(base.join("cache")),
        scratch_parent: Some(base.join("scratch")),
        keep_scratch: true,
        // Relative: the launcher's working directory is its run directory, where it may write.
        jvm_args: vec!["-Xlog:class+load=info:file=classload.log".into()],
        ..VerifyOptions::default()
    };
    let trained = ctg::verify::train_archives(&setup, &options).unwrap();
    let names: Vec<&str> = trained.iter().map(|(name, _)| name.as_str()).collect();
    assert_eq!(names.len(), 2, "{trained:?}");
    assert_eq!(names[0], "javac");
    assert!(names[1].starts_with("junit5-"), "{trained:?}");
    assert!(
        trained.iter().all(|(_, t)| *t == jvm::Training::Made),
        "{trained:?}"
    );
    assert!(
        ctg::verify::train_archives(&setup, &options)
            .unwrap()
            .is_empty(),
        "nothing left to make"
    );

    let cluster = subject.cluster(ACCOUNT);
    let tests = account_tests(&cluster);
    let executed = executed(&mut subject, &tests);
    let spec = spec(ACCOUNT, JUnit::Five, &subject, executed);
    let suite = verify_and_stabilise(&spec, &bank_project(), &setup, &options)
        .unwrap_or_else(|e| panic!("{e}"));
    assert_passed_twice_in_both_orders(&suite);
    let logs = files_where(&base.join("scratch"), |p| p.ends_with("classload.log"));
    // Forward and reverse, then the three perturbed runs (whose working directory is another).
    assert_eq!(logs.len(), 5, "one per launcher run: {logs:?}");
    for log in logs {
        let text = std::fs::read_to_string(&log).unwrap();
        // ctgls's runner (from the harness jar) and the JUnit Platform Launcher it drives.
        for class in [
            "ctgls.verify.JUnit5Runner",
            "org.junit.platform.launcher.core.LauncherFactory",
        ] {
            assert!(
                text.contains(&format!("{class} source: shared objects file (top)")),
                "{}: {}",
                log.display(),
                text.lines()
                    .find(|l| l.contains(class))
                    .unwrap_or("not loaded")
            );
        }
    }

    // javac maps its own archive.
    let log = base.join("javac-classload.log");
    let mut javac = std::process::Command::new(&jdk.javac);
    javac.args(archives.jvm_args("javac").iter().map(|o| format!("-J{o}")));
    let status = javac
        .arg(format!("-J-Xlog:class+load=info:file={}", log.display()))
        .arg("-version")
        .status()
        .unwrap();
    assert!(status.success());
    let text = std::fs::read_to_string(&log).unwrap();
    assert!(
        text.contains("com.sun.tools.javac.Main source: shared objects file (top)"),
        "{}",
        text.lines()
            .find(|l| l.contains("javac.Main"))
            .unwrap_or("no javac")
    );
    let _ = std::fs::remove_dir_all(&base);
}
