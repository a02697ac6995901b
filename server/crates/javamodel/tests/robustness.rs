//! Broken input never panics: every truncated prefix of every fixture goes through `build`,
//! `update` and `dump`, and update still equals build.

mod common;

use javamodel::{dump, ByteEdit, JavaModel};

const STEP: usize = 7;

fn floor_boundary(text: &str, mut at: usize) -> usize {
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

#[test]
fn truncated_prefixes_of_every_fixture() {
    for (name, _) in common::FIXTURES {
        let full = common::fixture(name);
        let full_tree = syntax::parse_java(&full, None);
        let full_model = JavaModel::build(&full, &full_tree);
        let mut previous: Option<(usize, JavaModel)> = None;
        let mut cut = 0;
        while cut <= full.len() {
            let end = floor_boundary(&full, cut);
            let prefix = &full[..end];
            let tree = syntax::parse_java(prefix, None);
            let built = JavaModel::build(prefix, &tree);
            let _ = dump(&built);

            // Growing: the previous prefix plus the new bytes.
            if let Some((previous_end, previous_model)) = &previous {
                let grown = previous_model.update(
                    prefix,
                    &tree,
                    &[ByteEdit {
                        start_byte: *previous_end,
                        old_end_byte: *previous_end,
                        new_end_byte: end,
                    }],
                );
                assert!(grown == built, "{name}: growing to {end} bytes");
            }
            // Shrinking: the whole file cut back to the prefix.
            let shrunk = full_model.update(
                prefix,
                &tree,
                &[ByteEdit {
                    start_byte: end,
                    old_end_byte: full.len(),
                    new_end_byte: end,
                }],
            );
            assert!(shrunk == built, "{name}: cutting to {end} bytes");

            previous = Some((end, built));
            cut += STEP;
        }
    }
}

#[test]
fn garbage_and_odd_inputs() {
    let inputs = [
        "",
        "}",
        "{{{{",
        "class",
        "class A { void m() { switch",
        "class A { void m() { try { } finally",
        "class A { void m() { for (;;) { break nowhere; continue; } yield 1; } }",
        "class A { int m() { return switch (x) { default -> { yield } }; } }",
        "class A { A() { this(); super(); } { return; } static { throw null; } }",
        "enum E { A { }, B( { } }",
        "record R(int... ) { R { } }",
        "@interface X { int v() default ; }",
        "class A { void m() { x -> { if (y) } } }",
        "class A { void m() { label: label: while (true) continue label; } }",
        "void orphan() { if (a) b(); }",
        "class 𝔘 { void ü(String ß) { if (ß == \"ö\") { } } }",
        "\u{0}\u{1}class\u{7f} A {}",
    ];
    for input in inputs {
        let tree = syntax::parse_java(input, None);
        let model = JavaModel::build(input, &tree);
        let _ = dump(&model);
    }
}

/// Generated code chains thousands of terms; lowering must not recurse once per term. Runs on
/// the default 2 MiB test-thread stack.
#[test]
fn long_chains_do_not_overflow_the_stack() {
    let concat = (0..20_000)
        .map(|i| format!("\"s{i}\""))
        .collect::<Vec<_>>()
        .join(" + ");
    let conjunction = (0..5_000)
        .map(|i| format!("x > {i}"))
        .collect::<Vec<_>>()
        .join(" && ");
    let mut else_ifs = String::from("if (x == 0) { x = 1; }");
    for i in 1..5_000 {
        else_ifs.push_str(&format!(" else if (x == {i}) {{ x = {}; }}", i + 1));
    }
    let src = format!(
        "class G {{\n String s = {concat};\n boolean b(int x) {{ return {conjunction}; }}\n \
         void c(int x) {{ {else_ifs} }}\n int broken = {concat} +;\n}}\n"
    );
    let tree = syntax::parse_java(&src, None);
    let model = JavaModel::build(&src, &tree);
    let decisions = model.decisions();
    assert_eq!(decisions.len(), 5_000 + 5_000);
    assert!(!model.problems.is_empty());
    let _ = dump(&model);
}
