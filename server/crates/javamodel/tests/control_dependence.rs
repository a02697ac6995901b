//! Focused control-dependence facts on small methods: each test states which goals a decision
//! depends on, written `B<ordinal>[source] <- deps`.

mod common;

use javamodel::{ControlDep, JavaModel};

/// The decisions of the only method `m` in `class T { <body> }`, one line each.
fn decisions(body: &str) -> Vec<String> {
    let model: JavaModel = common::build_class_body(body);
    let (_, member) = model
        .all_types()
        .into_iter()
        .find_map(|t| t.members.iter().find(|m| m.name == "m").map(|m| (t, m)))
        .expect("a method m");
    let text = model.text();
    member
        .body
        .as_ref()
        .expect("m has a body")
        .decisions
        .iter()
        .map(|d| {
            let source = &text[d.span.start_byte..d.span.end_byte];
            let deps = if d.constant.is_some() {
                "constant".to_string()
            } else if !d.reachable {
                "unreachable".to_string()
            } else {
                d.control_deps
                    .iter()
                    .map(ControlDep::to_string)
                    .collect::<Vec<_>>()
                    .join(" | ")
            };
            format!("B{}[{source}] <- {deps}", d.ordinal)
        })
        .collect()
}

#[test]
fn right_operand_of_and_depends_on_left_true() {
    assert_eq!(
        decisions("void m(boolean a, boolean b) { if (a && b) { x(); } else { y(); } }"),
        ["B0[a] <- entry", "B1[b] <- B0.T"]
    );
}

#[test]
fn right_operand_of_or_depends_on_left_false() {
    assert_eq!(
        decisions("void m(boolean a, boolean b) { if (a || b) x(); }"),
        ["B0[a] <- entry", "B1[b] <- B0.F"]
    );
}

#[test]
fn negation_keeps_operand_polarity() {
    // The then-branch runs when `a` is false, so `c` depends on B0.F.
    assert_eq!(
        decisions("void m(boolean a, boolean c) { if (!a) { if (c) x(); } }"),
        ["B0[a] <- entry", "B1[c] <- B0.F"]
    );
}

#[test]
fn code_after_an_early_return_depends_on_not_returning() {
    assert_eq!(
        decisions("int m(int x, int y) { if (x > 0) return 1; if (y > 0) return 2; return 3; }"),
        ["B0[x > 0] <- entry", "B1[y > 0] <- B0.F"]
    );
}

#[test]
fn code_after_an_if_without_return_is_a_root() {
    assert_eq!(
        decisions("void m(int x, int y) { if (x > 0) x++; if (y > 0) y++; }"),
        ["B0[x > 0] <- entry", "B1[y > 0] <- entry"]
    );
}

#[test]
fn loop_condition_depends_on_entry_and_its_own_true_outcome() {
    assert_eq!(
        decisions("void m(int n) { while (n > 0) { if (n % 2 == 0) n--; n--; } }"),
        ["B0[n > 0] <- entry | B0.T", "B1[n % 2 == 0] <- B0.T"]
    );
}

#[test]
fn do_while_body_runs_once_unconditionally() {
    assert_eq!(
        decisions("void m(int n) { do { if (n == 3) n++; n--; } while (n > 0); }"),
        ["B0[n == 3] <- entry | B1.T", "B1[n > 0] <- entry | B1.T"]
    );
}

#[test]
fn break_out_of_infinite_loop() {
    // `for (;;)` has no decision; the loop repeats only when the exit test fails. The code
    // after the loop post-dominates the loop (it is the only way out), so by FOW it depends on
    // entry alone, not on the `break`.
    assert_eq!(
        decisions(
            "int m(int n) { for (;;) { if (n > 9) break; n++; } if (n == 12) return 1; return 0; }"
        ),
        ["B0[n > 9] <- entry | B0.F", "B1[n == 12] <- entry"]
    );
}

#[test]
fn labeled_continue_repeats_the_outer_loop() {
    // Both ways out of the inner loop (its exit, `continue outer`) reach `i++`, which thus
    // post-dominates the inner loop: the outer condition depends on its own true outcome only.
    assert_eq!(
        decisions(
            "void m(int[][] g) { outer: for (int i = 0; i < g.length; i++) { \
             for (int j = 0; j < 3; j++) { if (g[i][j] < 0) continue outer; } } }"
        ),
        [
            "B0[i < g.length] <- entry | B0.T",
            "B1[j < 3] <- B0.T | B2.F",
            "B2[g[i][j] < 0] <- B1.T",
        ]
    );
    // With a `break outer` as well, leaving the inner loop no longer implies `i++`.
    assert_eq!(
        decisions(
            "void m(int[][] g) { outer: for (int i = 0; i < g.length; i++) { \
             for (int j = 0; j < 3; j++) { if (g[i][j] < 0) continue outer; \
             if (g[i][j] > 9) break outer; } } }"
        ),
        [
            "B0[i < g.length] <- entry | B1.F | B2.T",
            "B1[j < 3] <- B0.T | B3.F",
            "B2[g[i][j] < 0] <- B1.T",
            "B3[g[i][j] > 9] <- B2.F",
        ]
    );
}

#[test]
fn fall_through_depends_on_both_labels() {
    assert_eq!(
        decisions(
            "void m(int k, boolean b) { switch (k) { case 1: k++; case 2: if (b) k--; break; default: } }"
        ),
        ["B0[switch (k)] <- entry", "B1[b] <- B0.C0 | B0.C1"]
    );
}

#[test]
fn failing_guard_resumes_matching() {
    assert_eq!(
        decisions(
            "int m(Object o) { return switch (o) { case String s when s.isEmpty() -> 0; default -> 1; }; }"
        ),
        ["B0[switch (o)] <- entry | B1.F", "B1[s.isEmpty()] <- B0.C0"]
    );
}

#[test]
fn catch_is_entered_from_the_try_and_from_throws() {
    assert_eq!(
        decisions(
            "void m(boolean a, boolean b) { try { if (a) throw new RuntimeException(); x(); } \
             catch (RuntimeException e) { if (b) y(); } }"
        ),
        [
            "B0[a] <- entry",
            "B1[catch (RuntimeException e)] <- entry | B0.T",
            "B2[b] <- B1.E",
        ]
    );
}

#[test]
fn finally_runs_on_every_path() {
    assert_eq!(
        decisions(
            "int m(boolean a, boolean b) { try { if (a) return 1; } finally { if (b) z(); } return 0; }"
        ),
        ["B0[a] <- entry", "B1[b] <- entry"]
    );
}

#[test]
fn lambda_body_depends_on_where_the_lambda_is_created() {
    assert_eq!(
        decisions(
            "void m(boolean c) { if (c) { Runnable r = () -> { if (d()) x(); }; r.run(); } }"
        ),
        ["B0[c] <- entry", "B1[d()] <- B0.T"]
    );
}

#[test]
fn ternary_operands_depend_on_the_condition() {
    assert_eq!(
        decisions("int m(int a, int b) { return a > 0 ? (b > 0 ? 1 : 2) : 3; }"),
        ["B0[a > 0] <- entry", "B1[b > 0] <- B0.T"]
    );
}

#[test]
fn constant_conditions_are_not_goals_and_dead_code_is_unreachable() {
    assert_eq!(
        decisions(
            "void m(int x) { if (false) { if (x > 0) x++; } while (true) { if (x < 0) break; } }"
        ),
        [
            "B0[false] <- constant",
            "B1[x > 0] <- unreachable",
            "B2[true] <- constant",
            "B3[x < 0] <- entry | B3.F",
        ]
    );
}

#[test]
fn branch_free_method_has_an_entry_goal() {
    assert_eq!(
        decisions("int m(int x) { return x + 1; }"),
        ["B0[m] <- entry"]
    );
    // A lambda's branches do not make the method itself branchy.
    assert_eq!(
        decisions("Runnable m() { return () -> { if (f()) g(); }; }"),
        ["B0[m] <- entry", "B1[f()] <- entry"]
    );
}

#[test]
fn for_each_has_next_and_done() {
    assert_eq!(
        decisions(
            "int m(int[] xs) { int s = 0; for (int x : xs) { if (x > 0) s += x; } return s; }"
        ),
        ["B0[for (int x : xs)] <- entry | B0.T", "B1[x > 0] <- B0.T"]
    );
}
