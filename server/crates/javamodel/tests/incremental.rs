//! Incremental update: `update` after edits must equal `build` from scratch, and editing one
//! member must not change the stable ids of the others.

mod common;

use javamodel::{dump, ByteEdit, JavaModel};
use syntax::tree_sitter::Tree;

/// A document that is edited like an editor does: text, incremental tree, model.
struct Doc {
    text: String,
    tree: Tree,
    model: JavaModel,
}

impl Doc {
    fn new(text: &str) -> Doc {
        let tree = syntax::parse_java(text, None);
        let model = JavaModel::build(text, &tree);
        Doc {
            text: text.to_string(),
            tree,
            model,
        }
    }

    /// Applies replacements in order (each in the coordinates left by the previous ones), then
    /// updates the model once with all of them and checks it against a build from scratch.
    fn edit(&mut self, replacements: &[(usize, usize, &str)]) {
        let mut edits = Vec::new();
        for &(start, end, insert) in replacements {
            let edit = ByteEdit {
                start_byte: start,
                old_end_byte: end,
                new_end_byte: start + insert.len(),
            };
            let before = self.text.clone();
            self.text.replace_range(start..end, insert);
            self.tree
                .edit(&syntax::input_edit(&before, &self.text, edit));
            edits.push(edit);
        }
        self.tree = syntax::parse_java(&self.text, Some(&self.tree));
        let updated = self.model.update(&self.text, &self.tree, &edits);
        let fresh = JavaModel::build(&self.text, &self.tree);
        assert_eq!(
            dump(&updated),
            dump(&fresh),
            "update differs from build after {replacements:?}"
        );
        assert!(
            updated == fresh,
            "models differ beyond the dump after {replacements:?}"
        );
        self.model = updated;
    }
}

/// A small deterministic generator, so failures reproduce.
struct Lcg(u64);

impl Lcg {
    fn next(&mut self, bound: usize) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((self.0 >> 33) as usize) % bound.max(1)
    }
}

const INSERTS: &[&str] = &[
    " ",
    "x",
    "\n",
    "if (q) { r(); }",
    "}",
    "{",
    "0",
    "/* c */",
    "a && b",
    "é",
    // Line ends of every kind: a lone '\r' ends a line (and a `//` comment) too.
    "\r",
    "\r\n",
    "// c\r",
];

#[test]
fn update_equals_build_after_single_edits_in_every_fixture() {
    for (name, _) in common::FIXTURES {
        let mut doc = Doc::new(&common::fixture(name));
        let mut rng = Lcg(name.len() as u64 * 7919);
        for _ in 0..60 {
            let len = doc.text.len();
            let mut start = rng.next(len + 1);
            while !doc.text.is_char_boundary(start) {
                start -= 1;
            }
            let mut end = (start + rng.next(4)).min(len);
            while !doc.text.is_char_boundary(end) {
                end += 1;
            }
            let insert = if rng.next(3) == 0 {
                ""
            } else {
                INSERTS[rng.next(INSERTS.len())]
            };
            doc.edit(&[(start, end, insert)]);
        }
    }
}

#[test]
fn update_equals_build_after_multi_edit_batches() {
    for (name, _) in common::FIXTURES {
        let mut doc = Doc::new(&common::fixture(name));
        let mut rng = Lcg(17 + name.len() as u64);
        for _ in 0..20 {
            let mut batch: Vec<(usize, usize, &str)> = Vec::new();
            let mut text_len = doc.text.len();
            let mut scratch = doc.text.clone();
            for _ in 0..3 {
                let mut start = rng.next(text_len + 1);
                while !scratch.is_char_boundary(start) {
                    start -= 1;
                }
                let mut end = (start + rng.next(3)).min(text_len);
                while !scratch.is_char_boundary(end) {
                    end += 1;
                }
                let insert = INSERTS[rng.next(INSERTS.len())];
                scratch.replace_range(start..end, insert);
                text_len = scratch.len();
                batch.push((start, end, insert));
            }
            doc.edit(&batch);
        }
    }
}

#[test]
fn typing_a_statement_char_by_char_keeps_update_equal_to_build() {
    let src = common::fixture("Account");
    let at = src.find("balance -= amount;").expect("anchor");
    let mut doc = Doc::new(&src);
    let typed = "if (amount % 2 == 0 && amount > 10) { amount--; }\n        ";
    for (i, c) in typed.char_indices() {
        let mut buf = [0u8; 4];
        doc.edit(&[(at + i, at + i, c.encode_utf8(&mut buf))]);
    }
    // And delete it again, one character at a time from the end.
    for i in (0..typed.len()).rev() {
        doc.edit(&[(at + i, at + i + 1, "")]);
    }
    assert_eq!(doc.text, src);
}

/// (member key, ordinal, kind, dependencies) of every decision outside `except`.
fn ids_outside(model: &JavaModel, except: &str) -> Vec<String> {
    model
        .decisions()
        .into_iter()
        .filter(|(_, member, _)| member.key != except)
        .map(|(_, member, d)| {
            format!(
                "{} {:?} {:?}",
                member.decision_key(d),
                d.kind,
                d.control_deps
            )
        })
        .collect()
}

#[test]
fn editing_one_method_keeps_branch_ids_of_the_others() {
    let src = common::fixture("Account");
    let mut doc = Doc::new(&src);
    let withdraw = "com.example.bank.Account#withdraw(int)";
    let before = ids_outside(&doc.model, withdraw);
    let before_withdraw = doc
        .model
        .member_by_key(withdraw)
        .and_then(|(_, m)| m.body.as_ref())
        .map(|b| b.decisions.len());

    // Add two branches at the top of withdraw.
    let at = src.find("if (amount <= 0)").expect("anchor");
    doc.edit(&[(
        at,
        at,
        "if (amount == 7 || amount == 8) { log.clear(); }\n        ",
    )]);

    assert_eq!(ids_outside(&doc.model, withdraw), before);
    let after_withdraw = doc
        .model
        .member_by_key(withdraw)
        .and_then(|(_, m)| m.body.as_ref())
        .map(|b| b.decisions.len());
    assert_eq!(after_withdraw, before_withdraw.map(|n| n + 2));
}
