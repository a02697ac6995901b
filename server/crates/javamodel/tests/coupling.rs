//! Snapshot tests of coupled branches (Derakhshanfar et al., "Generating Class-Level Integration
//! Tests Using Call Site Information", section 3.1) for the paper's cases: a plain call, calls
//! through a field, a parameter and locals, a caller in another package, and the super- and
//! subclass cases of section 3.1.5, and a callee whose overloads share their arity. Refresh with
//! `UPDATE_EXPECT=1 cargo test -p javamodel --test coupling`, then read the diff.

use expect_test::expect_file;
use javamodel::coupling::{couple, dump_coupling, CallerBranch};
use javamodel::JavaModel;

fn model(name: &str) -> JavaModel {
    let path = format!(
        "{}/tests/coupling/fixtures/{name}.java",
        env!("CARGO_MANIFEST_DIR")
    );
    let source = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let tree = syntax::parse_java(&source, None);
    JavaModel::build(&source, &tree)
}

fn check(caller: &str, callee: &str) -> javamodel::coupling::Coupling {
    let coupling = couple(&model(caller), caller, &model(callee), callee).unwrap();
    expect_file![format!("coupling/snapshots/{caller}-{callee}.txt")]
        .assert_eq(&dump_coupling(&coupling));
    coupling
}

#[test]
fn person_calls_car_plainly_through_a_field_a_parameter_and_locals() {
    let coupling = check("Person", "Car");
    // Definition 3.1 on the paper's example: `car.refuel(5)` runs only under `!lazy`, the
    // false outcome of the decision `lazy`,, and `car.drive(km)` whenever `driveToHome` runs (its entry, our deviation).
    let refuel = coupling
        .sites
        .iter()
        .find(|s| s.callee_name == "refuel" && s.caller_member.contains("addEnergy"))
        .unwrap();
    assert_eq!(refuel.caller_branches.len(), 1);
    assert!(
        matches!(&refuel.caller_branches[0], CallerBranch::Goal(g) if g.to_string().ends_with("addEnergy()/B0.F"))
    );
    let drive = coupling
        .sites
        .iter()
        .find(|s| s.callee_name == "drive" && s.caller_member.contains("driveToHome"))
        .unwrap();
    assert!(
        matches!(&drive.caller_branches[..], [CallerBranch::Entry(m)] if m.ends_with("driveToHome(int)"))
    );
    // Definition 3.2: drive's own branches and those of `consume`, which drive calls.
    assert!(drive
        .callee_branches
        .iter()
        .any(|g| g.to_string().contains("consume(int)")));
    // Definition 3.3: the product per site.
    assert_eq!(
        coupling.pairs().len(),
        coupling
            .pairs()
            .iter()
            .collect::<std::collections::BTreeSet<_>>()
            .len()
    );
    assert!(coupling
        .covering_methods
        .iter()
        .all(|m| !m.contains("plain")));
}

#[test]
fn caller_in_another_package_through_an_import() {
    check("Elsewhere", "Car");
}

#[test]
fn subclass_caller_calls_what_it_inherits() {
    let coupling = check("GreenPerson", "Person");
    // `driveToHome` is inherited and not redefined; `addEnergy` is redefined, so the call
    // `super.addEnergy()` is the only way to Person's version.
    assert!(coupling
        .sites
        .iter()
        .any(|s| s.callee_name == "driveToHome"));
    assert!(coupling.sites.iter().all(|s| s.callee_name != "recharge"));
    // Through `driveToHome`, `addEnergy()` runs GreenPerson's version: Person's is not a
    // target of that site (section 3.1.5).
    let drive = coupling
        .sites
        .iter()
        .find(|s| s.callee_name == "driveToHome")
        .unwrap();
    assert!(drive
        .callee_branches
        .iter()
        .all(|g| !g.to_string().contains("addEnergy")));
}

#[test]
fn superclass_caller_calls_what_the_subclass_redefines() {
    let coupling = check("Person", "GreenPerson");
    // Section 3.2.5: tests are generated for the subclass through inherited, not redefined
    // methods of the superclass.
    assert_eq!(coupling.test_class, "com.example.garage.GreenPerson");
    assert!(coupling
        .covering_methods
        .iter()
        .all(|m| !m.contains("addEnergy")));
    assert!(coupling
        .covering_methods
        .iter()
        .any(|m| m.ends_with("driveToHome(int)")));
}

#[test]
fn overloads_are_told_apart_by_the_argument_types() {
    let coupling = check("Till", "Printer");
    let targets = |member: &str, line: usize| -> Vec<String> {
        let site = coupling
            .sites
            .iter()
            .find(|s| s.caller_member.contains(member) && s.span.start.row + 1 == line)
            .unwrap_or_else(|| panic!("no site on line {line}"));
        site.targets
            .iter()
            .map(|t| t.rsplit('#').next().unwrap().to_string())
            .collect()
    };
    assert_eq!(targets("literals", 13), ["print(long)"]);
    assert_eq!(targets("literals", 15), ["print(int)"]);
    assert_eq!(targets("literals", 17), ["print(String)"]);
    assert_eq!(
        targets("declared", 23),
        ["print(int)"],
        "short widens to int"
    );
    assert_eq!(targets("declared", 26), ["print(Car)"]);
    // Phase 1 before boxing: an Integer goes to print(Object), not to print(int).
    assert_eq!(targets("conversions", 32), ["print(Object)"]);
    assert_eq!(targets("conversions", 37), ["print(String,Object[])"]);
    assert_eq!(targets("make", 48), ["<init>(String)"]);
    // A call on a List says nothing of its result's type: every overload of arity 1.
    let unknown = coupling
        .sites
        .iter()
        .find(|s| s.caller_member.contains("unknown"))
        .unwrap();
    assert!(unknown.by_arity);
    assert_eq!(unknown.targets.len(), 6);
    // Each site's callee branches are only those of the overloads it runs.
    let long = coupling
        .sites
        .iter()
        .find(|s| s.targets.len() == 1 && s.targets[0].ends_with("print(long)"))
        .unwrap();
    assert!(long
        .callee_branches
        .iter()
        .all(|g| g.to_string().contains("print(long)")));
}

#[test]
fn unknown_type_is_an_error_naming_what_the_file_declares() {
    let error = couple(&model("Person"), "Nobody", &model("Car"), "Car").unwrap_err();
    assert!(error.contains("com.example.garage.Person"), "{error}");
}
