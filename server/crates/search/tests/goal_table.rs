//! The static goal table built from real Java models: goals, dense ids, control-dependence
//! parents, roots and the lookups a trace mapper uses.

mod common;

use expect_test::{expect, Expect};
use javamodel::{DecisionKey, Outcome};
use search::{Criteria, Dependency, GoalId, GoalTable, StaticGoalKind};

fn render(table: &GoalTable) -> String {
    let mut out = String::new();
    for (index, goal) in table.goals().iter().enumerate() {
        let id = GoalId(index as u32);
        let deps: Vec<String> = goal
            .dependencies
            .iter()
            .map(|d| match d {
                Dependency::Entry(m) => format!("entry({})", short(&table.member(*m).key)),
                Dependency::Goal(g) => format!("G{}", g.0),
            })
            .collect();
        let name = match goal.kind {
            StaticGoalKind::Branch {
                decision, outcome, ..
            } => {
                let d = table.decision(decision);
                format!(
                    "{} {}/B{}.{} line {}",
                    d.kind.as_str(),
                    short(&d.key.member),
                    d.key.ordinal,
                    outcome,
                    d.line
                )
            }
            StaticGoalKind::Line { line } => format!("line {line}"),
            StaticGoalKind::Method { member } => {
                format!("method {}", short(&table.member(member).key))
            }
            StaticGoalKind::Coupled { pair } => format!("coupled {pair}"),
            StaticGoalKind::WeakMutation { mutant } => format!("mutant {mutant}"),
        };
        let root = if goal.root { " root" } else { "" };
        out.push_str(&format!("G{} {name}{root} <- {}\n", id.0, deps.join(" | ")));
    }
    out
}

/// `p.q.Outer$Inner#m(int)` -> `Outer$Inner#m(int)`.
fn short(key: &str) -> String {
    let (class, member) = key.split_once('#').unwrap_or((key, ""));
    format!("{}#{member}", class.rsplit('.').next().unwrap_or(class))
}

fn check(source: &str, class: &str, criteria: Criteria, expect: Expect) {
    expect.assert_eq(&render(&common::table(source, class, criteria)));
}

#[test]
fn easy_class_branch_line_and_method_goals() {
    check(
        common::EASY,
        "toy.Easy",
        Criteria::all(),
        expect![[r#"
            G0 if Easy#classify(int,int)/B0.T line 7 root <- entry(Easy#classify(int,int))
            G1 if Easy#classify(int,int)/B0.F line 7 root <- entry(Easy#classify(int,int))
            G2 if Easy#classify(int,int)/B1.T line 8 <- G0
            G3 if Easy#classify(int,int)/B1.F line 8 <- G0
            G4 entry Easy#add(int,int)/B0.E line 16 root <- entry(Easy#add(int,int))
            G5 value Easy#rich(int,int)/B0.T line 21 root <- entry(Easy#rich(int,int))
            G6 value Easy#rich(int,int)/B0.F line 21 root <- entry(Easy#rich(int,int))
            G7 for Easy#sum(int,int)/B0.T line 26 root <- entry(Easy#sum(int,int)) | G7
            G8 for Easy#sum(int,int)/B0.F line 26 root <- entry(Easy#sum(int,int)) | G7
            G9 switch Easy#kind(int,int)/B0.C0 line 33 root <- entry(Easy#kind(int,int))
            G10 switch Easy#kind(int,int)/B0.C1 line 33 root <- entry(Easy#kind(int,int))
            G11 switch Easy#kind(int,int)/B0.C2 line 33 root <- entry(Easy#kind(int,int))
            G12 entry Easy#divide(int,int)/B0.E line 40 root <- entry(Easy#divide(int,int))
            G13 line 7 root <- entry(Easy#classify(int,int))
            G14 line 8 <- G0
            G15 line 9 <- G2
            G16 line 11 <- G3
            G17 line 13 <- G1
            G18 line 17 root <- entry(Easy#add(int,int))
            G19 line 21 root <- entry(Easy#rich(int,int))
            G20 line 25 root <- entry(Easy#sum(int,int))
            G21 line 26 root <- entry(Easy#sum(int,int)) | G7
            G22 line 27 <- G7
            G23 line 29 root <- entry(Easy#sum(int,int))
            G24 line 33 root <- entry(Easy#kind(int,int))
            G25 line 34 <- G9
            G26 line 35 <- G10
            G27 line 36 <- G11
            G28 line 41 root <- entry(Easy#divide(int,int))
            G29 method Easy#classify(int,int) root <- 
            G30 method Easy#add(int,int) root <- 
            G31 method Easy#rich(int,int) root <- 
            G32 method Easy#sum(int,int) root <- 
            G33 method Easy#kind(int,int) root <- 
            G34 method Easy#divide(int,int) root <- 
        "#]],
    );
}

#[test]
fn markers_name_the_lines_of_the_line_goals() {
    let table = common::table(common::EASY, "toy.Easy", Criteria::all());
    for marker in [
        "classify_if",
        "classify_inner",
        "ret1",
        "ret2",
        "ret3",
        "add",
        "rich",
        "sum_init",
        "sum_loop",
        "sum_body",
        "sum_ret",
        "switch",
        "case1",
        "case2",
        "default",
        "divide",
    ] {
        let line = common::line_of(common::EASY, marker);
        assert!(table.line_goal(line).is_some(), "{marker} at line {line}");
    }
    assert_eq!(
        table.goals_of(search::Criterion::Line).count(),
        16,
        "one line goal per marker"
    );
}

#[test]
fn nested_and_anonymous_classes_belong_to_the_table_and_other_classes_do_not() {
    let source = r#"package p;
class Outer {
    int f(int x) { if (x > 0) { return 1; } return 0; }
    static class Inner {
        int g(int y) { return y == 3 ? 1 : 2; }
    }
    Runnable r() {
        return new Runnable() { public void run() { if (Math.random() > 0.5) { System.out.println(); } } };
    }
}
class Other {
    int h(int z) { if (z < 0) { return -1; } return 1; }
}
"#;
    let table = common::table(source, "p.Outer", Criteria::branch_only());
    let members: Vec<&str> = table.members().iter().map(|m| m.key.as_str()).collect();
    assert_eq!(
        members,
        [
            "p.Outer#f(int)",
            "p.Outer#r()",
            "p.Outer$Inner#g(int)",
            "p.Outer$1#run()"
        ]
    );
    assert!(table.member_by_key("p.Other#h(int)").is_none());
    // Instrumentation numbers decisions per class; each class starts at 0.
    let inner = table.decision_by_class_index("p.Outer$Inner", 0).unwrap();
    assert_eq!(table.decision(inner).key.member, "p.Outer$Inner#g(int)");
    let anonymous = table.decision_by_class_index("p.Outer$1", 0).unwrap();
    assert_eq!(table.decision(anonymous).key.member, "p.Outer$1#run()");
    assert!(table.decision_by_class_index("p.Other", 0).is_none());
    assert!(GoalTable::for_class(&common::model(source), "p.Missing", Criteria::all()).is_none());
}

#[test]
fn catch_clauses_and_constant_conditions() {
    let source = r#"package p;
class C {
    int m(String s) {
        try {
            if (s.isEmpty()) {
                return 0;
            }
            return Integer.parseInt(s);
        } catch (NumberFormatException e) {
            while (true) {
                if (s.length() > 3) {
                    return -1;
                }
                s = s + "x";
            }
        }
    }
}
"#;
    let table = common::table(source, "p.C", Criteria::branch_only());
    let rendered = render(&table);
    expect![[r#"
        G0 if C#m(String)/B0.T line 5 root <- entry(C#m(String))
        G1 if C#m(String)/B0.F line 5 root <- entry(C#m(String))
        G2 catch C#m(String)/B1.E line 9 root <- entry(C#m(String))
        G3 if C#m(String)/B3.T line 11 <- G2 | G4
        G4 if C#m(String)/B3.F line 11 <- G2 | G4
    "#]]
    .assert_eq(&rendered);
    // `while (true)` (B2) has no goals and no table entry.
    assert!(table
        .decision_by_key(&DecisionKey {
            member: "p.C#m(String)".into(),
            ordinal: 2
        })
        .is_none());
    let catch = table.decision(search::DecisionId(1));
    assert_eq!(catch.outcomes, [Outcome::Entered]);
}

const LINES: &str = r#"package p;
class L {
    int m(int a, int b) {
        if (a > 0 &&
            b > 0) {
            return 1;
        } else if (a < -5) {
            return 2;
        }
        do {
            a++;
        } while (a < 0);
        return 0;
    }
}
class Other { void x() { int y = 1; } }
"#;

#[test]
fn line_goals_from_the_model_or_from_the_probed_lines() {
    let model = common::model(LINES);
    let lines_of = |table: &GoalTable| -> Vec<u32> {
        table
            .goals()
            .iter()
            .filter_map(|g| match g.kind {
                StaticGoalKind::Line { line } => Some(line),
                _ => None,
            })
            .collect()
    };
    let derived = GoalTable::for_class(&model, "p.L", Criteria::all()).unwrap();
    // Every statement, condition operand and loop keyword starts a line.
    assert_eq!(lines_of(&derived), [4, 5, 6, 7, 8, 10, 11, 12, 13]);

    // The instrumenter probes statements: not the second operand's line, not `else if`, not the
    // `while` of a do-while; line 16 belongs to another class and is left out.
    let probed = [4, 6, 8, 10, 11, 13, 16];
    let table = GoalTable::for_class_with_lines(&model, "p.L", Criteria::all(), &probed).unwrap();
    assert_eq!(lines_of(&table), [4, 6, 8, 10, 11, 13]);
    let rendered: Vec<String> = render(&table)
        .lines()
        .filter(|l| l.contains(" line ") && !l.contains("/B"))
        .map(str::to_string)
        .collect();
    expect![[r#"
        G8 line 4 root <- entry(L#m(int,int))
        G9 line 6 <- G2
        G10 line 8 <- G4
        G11 line 10 <- G5 | G6
        G12 line 11 <- G5 | G6
        G13 line 13 <- G5
    "#]]
    .assert_eq(&(rendered.join("\n") + "\n"));
    // Branch goals do not depend on the line set.
    assert_eq!(table.branch_goal_count(), derived.branch_goal_count());
}
