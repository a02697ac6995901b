//! Warm start (Campos et al., "Continuous Test Generation" section 4.2): stored tests re-validated against the class as it is
//! now. A test that still fits is kept (equal to the original when nothing changed); one whose
//! callables went away or no longer fit is dropped with the reason.

mod store_fixtures;

use ctg::store::*;
use rand::rngs::StdRng;
use rand::SeedableRng;
use store_fixtures::*;
use testcase::{Cluster, TestCase, TypeDescription, Variation};

/// deposit, withdraw, parse, every kind, box: indexes 0 to 4.
fn archive(c: &Cluster) -> Vec<StoredTest> {
    vec![
        stored(deposit_test(c), &["d"]),
        stored(withdraw_test(c), &["w"]),
        stored(parse_test(c), &["p"]),
        stored(every_kind_test(c), &["e"]),
        stored(box_test(c, box_constructor(c)), &["b"]),
    ]
}

fn kept_all_but(stored: &[StoredTest], seeds: &Seeds, dropped: &[usize]) {
    let expected: Vec<&TestCase> = stored
        .iter()
        .enumerate()
        .filter(|(i, _)| !dropped.contains(i))
        .map(|(_, s)| &s.test)
        .collect();
    let kept: Vec<&TestCase> = seeds.tests.iter().collect();
    assert_eq!(kept, expected);
    let dropped_now: Vec<usize> = seeds.dropped.iter().map(|d| d.test).collect();
    assert_eq!(dropped_now, dropped);
}

fn revalidate_after(edit: impl FnOnce(&mut Vec<TypeDescription>)) -> (Vec<StoredTest>, Seeds) {
    let stored = archive(&account_cluster());
    let seeds = revalidate(&stored, &edited_account_cluster(edit));
    (stored, seeds)
}

#[test]
fn an_unchanged_class_keeps_every_test_equal_to_the_original() {
    let c = account_cluster();
    let mut stored = archive(&c);
    let variation = Variation::default();
    for seed in 0..200 {
        let mut rng = StdRng::seed_from_u64(seed);
        stored.push(store_fixtures::stored(
            variation.random_test(&c, &mut rng),
            &[],
        ));
    }
    // A cluster built again from the same descriptions: equal callables, other allocations.
    let seeds = revalidate(&stored, &account_cluster());
    assert!(seeds.dropped.is_empty(), "{:?}", seeds.dropped);
    kept_all_but(&stored, &seeds, &[]);
    assert_eq!(seeds.summary(), "kept 205 of 205 earlier tests");
}

#[test]
fn a_removed_method_drops_only_the_tests_that_call_it() {
    let (stored, seeds) = revalidate_after(|types| {
        account_mut(types).methods.retain(|m| m.name != "withdraw");
    });
    kept_all_but(&stored, &seeds, &[1]);
    assert_eq!(
        seeds.dropped[0].reason,
        DropReason::Unresolved("com.x.Account.withdraw(long)".into())
    );
    assert_eq!(
        seeds.dropped[0].to_string(),
        "test 1: com.x.Account.withdraw(long) is not in the cluster any more"
    );
}

#[test]
fn a_changed_parameter_type_drops_the_tests_that_call_it() {
    let (stored, seeds) = revalidate_after(|types| {
        let withdraw = account_mut(types)
            .methods
            .iter_mut()
            .find(|m| m.name == "withdraw")
            .unwrap();
        withdraw.params = vec![p("int")];
    });
    kept_all_but(&stored, &seeds, &[1]);
    assert_eq!(
        seeds.dropped[0].reason,
        DropReason::Unresolved("com.x.Account.withdraw(long)".into())
    );
}

#[test]
fn changes_the_call_site_does_not_see_keep_the_test_with_the_current_callable() {
    let (stored, seeds) = revalidate_after(|types| {
        // Pulled up into a new superclass, and now declaring a checked exception.
        let account = account_mut(types);
        account.superclass = Some("com.x.Base".into());
        let deposit = account
            .methods
            .iter_mut()
            .find(|m| m.name == "deposit")
            .unwrap();
        deposit.declaring_class = "com.x.Base".into();
        deposit.exceptions = vec!["java.io.IOException".into()];
        let mut base = ty("com.x.Base", testcase::TypeKind::AbstractClass);
        base.methods = vec![deposit.clone()];
        base.subclasses = vec![ACCOUNT.into()];
        types.push(base);
    });
    assert!(seeds.dropped.is_empty(), "{:?}", seeds.dropped);
    assert_ne!(seeds.tests[0], stored[0].test);
    let callable = seeds.tests[0].statements()[4].callable().unwrap();
    assert_eq!(callable.declaring_class, "com.x.Base");
    assert_eq!(callable.exceptions, ["java.io.IOException"]);
    assert_eq!(
        seeds.tests[1..],
        stored[1..]
            .iter()
            .map(|s| s.test.clone())
            .collect::<Vec<_>>()[..]
    );
}

#[test]
fn a_method_that_became_static_makes_its_tests_ill_typed() {
    let (stored, seeds) = revalidate_after(|types| {
        let deposit = account_mut(types)
            .methods
            .iter_mut()
            .find(|m| m.name == "deposit")
            .unwrap();
        deposit.is_static = true;
    });
    kept_all_but(&stored, &seeds, &[0]);
    let DropReason::IllTyped(why) = &seeds.dropped[0].reason else {
        panic!("{:?}", seeds.dropped[0]);
    };
    assert!(
        why.contains("statement 4") && why.contains("static"),
        "{why}"
    );
}

#[test]
fn a_removed_enum_constant_makes_its_tests_ill_typed() {
    let (stored, seeds) = revalidate_after(|types| {
        let level = types.iter_mut().find(|t| t.name == LEVEL).unwrap();
        level.enum_constants.retain(|c| c != "GOLD");
    });
    kept_all_but(&stored, &seeds, &[3]);
    let DropReason::IllTyped(why) = &seeds.dropped[0].reason else {
        panic!("{:?}", seeds.dropped[0]);
    };
    assert!(
        why.contains("com.x.Level.GOLD is not an enum constant"),
        "{why}"
    );
}

#[test]
fn a_changed_dependency_drops_the_tests_that_build_it() {
    let (stored, seeds) = revalidate_after(|types| {
        let boxed = types.iter_mut().find(|t| t.name == BOX).unwrap();
        boxed.constructors[0].params.push(p("int"));
    });
    kept_all_but(&stored, &seeds, &[4]);
    assert_eq!(
        seeds.dropped[0].reason,
        DropReason::Unresolved("com.x.Box.<init>(java.lang.Object)".into())
    );
}

#[test]
fn the_store_gives_the_seeds_of_its_record() {
    let ws = Workspace::new("seeds");
    let store = Store::open(ws.path());
    let c = account_cluster();
    assert!(store.load_seeds(ACCOUNT, &c).tests.is_empty());
    let run = finished_run(
        ACCOUNT,
        1,
        "h1",
        vec![
            stored(deposit_test(&c), &[]),
            stored(withdraw_test(&c), &[]),
        ],
        coverage(1, 2),
    );
    store.save_run(&run).unwrap();

    let without_withdraw = edited_account_cluster(|types| {
        account_mut(types).methods.retain(|m| m.name != "withdraw");
    });
    let seeds = store.load_seeds(ACCOUNT, &without_withdraw);
    assert!(seeds.problem.is_none());
    assert_eq!(seeds.tests, vec![deposit_test(&c)]);
    assert_eq!(
        seeds.summary(),
        "kept 1 of 2 earlier tests (1 dropped; first: test 1: com.x.Account.withdraw(long) is \
         not in the cluster any more)"
    );
}

/// Campos et al., "Continuous Test Generation", section 3.2: the accounts the stored tests
/// built, with the calls that brought them into their state, for another class's seeded pool;
/// a call that class's cluster does not know is left out, the account stays.
#[test]
fn object_seeds_slice_the_objects_a_class_built() {
    let c = account_cluster();
    let stored = vec![
        stored(deposit_test(&c), &["d"]),
        stored(parse_test(&c), &["p"]),
        stored(deposit_test(&c), &["d again"]),
    ];
    let seeds = object_seeds(&stored, "com.x.Account", &c);
    // `Account.parse("12")` builds no account; the same account twice is offered once.
    assert_eq!(seeds.len(), 1, "{seeds:?}");
    assert_eq!(seeds[0].statements, deposit_test(&c));
    assert_eq!(seeds[0].object.0, 2);

    let without_deposit = edited_account_cluster(|types| {
        account_mut(types).methods.retain(|m| m.name != "deposit");
    });
    let seeds = object_seeds(&stored, "com.x.Account", &without_deposit);
    let first = seeds[0].statements.statements();
    assert_eq!(first.len(), 4, "{:?}", seeds[0]);
    assert!(first
        .iter()
        .all(|s| s.callable().is_none_or(|c| c.name() != "deposit")));
    assert!(object_seeds(&stored, "com.x.Other", &c).is_empty());
}
