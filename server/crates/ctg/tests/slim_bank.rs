//! Dropping the statements no kept assertion and no covered goal needs (`ctg::slim`), on the
//! bank example with the real worker: a second account whose assertions were not kept goes
//! when the first account's test covers what it covered, and stays where it alone reaches a
//! branch; the slimmed suite prints the same kept assertions, and javac and the real JUnit 5
//! verify it in both orders. A snapshot of the slimmed method.

mod verify_support;

use std::time::Duration;

use ctg::emit::{observe, test_class_name};
use ctg::slim::slim_suite;
use ctg::verify::{verify_and_stabilise_from, JUnitSetup, VerifyOptions};
use expect_test::expect;
use jvm::CompileRequest;
use testcase::junit::{print_class, JUnit, Suppressions, TestClassSpec};
use testcase::{Cluster, JavaType, PrimitiveValue, Statement, TestCase, VarRef};
use verify_support::*;

const ACCOUNT: &str = "com.example.bank.Account";

/// `new Account(owner, 0)`, then `calls` on it, appended to `statements`; the account's index.
fn account(
    c: &Cluster,
    statements: &mut Vec<Statement>,
    owner: &str,
    calls: &[(&str, i64)],
) -> usize {
    statements.push(Statement::Primitive(PrimitiveValue::String(owner.into())));
    statements.push(Statement::Primitive(PrimitiveValue::Long(0)));
    let new = target(c, "com.example.bank.Account.<init>(java.lang.String, long)");
    let at = statements.len();
    statements.push(Statement::Constructor {
        ty: JavaType::class(&new.owner),
        callable: new,
        type_args: vec![],
        args: vec![VarRef(at - 2), VarRef(at - 1)],
    });
    for (method, arg) in calls {
        statements.push(Statement::Primitive(PrimitiveValue::Long(*arg)));
        let callable = target(c, method);
        statements.push(Statement::Method {
            ty: callable.returns.clone(),
            callable,
            receiver: Some(VarRef(at)),
            type_args: vec![],
            args: vec![VarRef(statements.len() - 1)],
        });
    }
    at
}

#[test]
fn statements_no_kept_assertion_or_goal_needs_go() {
    const DEPOSIT: &str = "com.example.bank.Account.deposit(long)";
    const WITHDRAW: &str = "com.example.bank.Account.withdraw(long)";
    let mut subject = Subject::bank();
    let cluster = subject.cluster(ACCOUNT);
    // Test 0: Bob's account is a bystander; Alice's deposit is the behaviour kept.
    let mut first = Vec::new();
    account(&cluster, &mut first, "Bob", &[]);
    account(&cluster, &mut first, "Alice", &[(DEPOSIT, 50)]);
    // Test 1: Carol's account is the one asserted on, but Dan's refused withdrawal is the only
    // run of `withdraw`'s overdraft branch.
    let mut second = Vec::new();
    account(&cluster, &mut second, "Carol", &[(DEPOSIT, 5)]);
    account(&cluster, &mut second, "Dan", &[(WITHDRAW, 10)]);
    let tests = vec![
        TestCase::from_statements(first),
        TestCase::from_statements(second),
    ];
    let executed: Vec<_> = observe(&mut subject.sup, subject.unit, &tests, &execute_options())
        .unwrap()
        .into_iter()
        .map(Result::unwrap)
        .collect();
    let mut spec = TestClassSpec::new(ACCOUNT, &test_class_name(ACCOUNT), JUnit::Five);
    spec.tests = executed;
    spec.facts = subject.facts.clone();
    // The assertions a selection would have left out: those on Bob's and Dan's accounts.
    let all = print_class(&spec, &Suppressions::default());
    let mut suppressions = Suppressions::default();
    for test in &all.tests {
        for a in &test.assertions {
            let bystander = (test.index == 0 && a.subject.starts_with("account0"))
                || (test.index == 1 && a.subject.starts_with("account1"));
            if bystander {
                suppressions.assertions.insert(a.id, None);
            }
        }
    }
    let request = CompileRequest {
        sources: subject.sources.clone(),
        ..CompileRequest::default()
    };
    let slimmed = slim_suite(
        &mut subject.sup,
        &request,
        &spec,
        &suppressions,
        None,
        &execute_options(),
        Duration::from_secs(10),
    )
    .expect("Bob's account goes");
    assert_eq!(
        slimmed.tests.keys().copied().collect::<Vec<_>>(),
        vec![0],
        "Dan's withdrawal alone covers a branch: the second test stays whole"
    );
    assert_eq!(slimmed.tests[&0].removal.removed, vec![0, 1, 2]);

    let before = print_class(&spec, &suppressions);
    let after = print_class(&slimmed.spec, &slimmed.suppressions);
    let kept = |printed: &testcase::junit::PrintedClass, test: usize| -> Vec<String> {
        printed.tests[test]
            .assertions
            .iter()
            .map(|a| format!("{} {}", a.subject, a.expected))
            .collect()
    };
    // The same checks, of the variable that is now `account0`.
    assert_eq!(
        kept(&after, 0),
        kept(&before, 0)
            .iter()
            .map(|a| a.replace("account1", "account0"))
            .collect::<Vec<_>>()
    );
    assert_eq!(kept(&after, 1), kept(&before, 1));
    let method: String = after
        .source
        .lines()
        .skip_while(|l| !l.contains("void "))
        .take_while(|l| *l != "    }")
        .map(|l| format!("{}\n", l.strip_prefix("    ").unwrap_or(l)))
        .collect();
    expect![[r#"
            void deposit() {
                Account account0 = new Account("Alice", 0L);
                account0.deposit(50L);
                assertEquals(50L, account0.getBalance());
                assertEquals("Alice", account0.getOwner());
                assertFalse(account0.isOverdrawn());
    "#]]
    .assert_eq(&method);

    let setup = JUnitSetup::locate(JUnit::Five, &[]).expect("JUnit installed (tests/run.sh)");
    let suite = verify_and_stabilise_from(
        &slimmed.spec,
        slimmed.suppressions.clone(),
        &bank_project(),
        &setup,
        &VerifyOptions::default(),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert!(suite.dropped.is_empty(), "{:#?}", suite.dropped);
    assert_eq!(suite.kept.len(), 2);
    assert!(suite.runs.iter().rev().take(2).all(|r| r.passed()));
}
