//! Accepting a changed behaviour (pure): the stored class's assertions, and the same
//! assertions in the generated test file the user has, rewritten to what the class does now.

use super::compare::BehaviourChange;
use crate::store::StoredSuite;

/// What accepting changes gives.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Accepted {
    /// The stored class with the new assertions (for `Store::replace_suite`).
    pub suite: StoredSuite,
    /// Edits of the test file's text that was given, in its lines: empty when no file was
    /// given or it holds none of the changed assertions.
    pub file_edits: Vec<LineEdit>,
    /// How many changes were accepted.
    pub accepted: usize,
}

/// Lines `first_line..end_line` (0-based, end exclusive) replaced by `text` (lines joined
/// with `\n`, no final newline).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LineEdit {
    pub first_line: u32,
    pub end_line: u32,
    pub text: String,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AcceptError {
    #[error(
        "no assertion can state the new behaviour (the test now throws elsewhere, or no \
         longer throws): the next run writes new tests for it"
    )]
    NothingToAccept,
}

/// Rewrites the assertions of `changes` (those with a replacement) in `suite` and in
/// `test_file`, the text of the generated test file, when given. An assertion is found in the
/// file inside the method of its test, by its text with indentation ignored.
pub fn accept(
    suite: &StoredSuite,
    changes: &[BehaviourChange],
    test_file: Option<&str>,
) -> Result<Accepted, AcceptError> {
    let mut accepting: Vec<&BehaviourChange> =
        changes.iter().filter(|c| c.replacement.is_some()).collect();
    if accepting.is_empty() {
        return Err(AcceptError::NothingToAccept);
    }
    // Bottom up, so that earlier lines keep their numbers while later ones change.
    accepting.sort_by_key(|c| std::cmp::Reverse(c.assertion.first_line));
    accepting.dedup_by_key(|c| c.assertion.first_line);

    let mut suite = suite.clone();
    let mut lines: Vec<String> = suite.source.split('\n').map(str::to_string).collect();
    for change in &accepting {
        let replacement = change.replacement.as_deref().unwrap_or_default();
        let new: Vec<String> = replacement.split('\n').map(str::to_string).collect();
        let first = change.assertion.first_line as usize - 1;
        let last = (change.assertion.last_line as usize).min(lines.len());
        let delta = new.len() as i64 - (last - first) as i64;
        lines.splice(first..last, new);
        for method in &mut suite.methods {
            for assertion in &mut method.assertions {
                if assertion.first_line == change.assertion.first_line {
                    assertion.last_line = (assertion.first_line as i64
                        + replacement.split('\n').count() as i64
                        - 1) as u32;
                    if let super::Now::Value(value) = &change.now {
                        assertion.expected = value.clone();
                    }
                } else if assertion.first_line > change.assertion.last_line {
                    assertion.first_line = (assertion.first_line as i64 + delta) as u32;
                    assertion.last_line = (assertion.last_line as i64 + delta) as u32;
                }
            }
        }
    }
    suite.source = lines.join("\n");

    let file_edits = match test_file {
        Some(text) => {
            let file: Vec<&str> = text.split('\n').collect();
            let mut edits: Vec<LineEdit> = accepting
                .iter()
                .filter_map(|change| file_edit(&file, change))
                .collect();
            edits.sort_by_key(|e| e.first_line);
            edits.dedup_by_key(|e| e.first_line);
            edits
        }
        None => Vec::new(),
    };
    Ok(Accepted {
        suite,
        file_edits,
        accepted: accepting.len(),
    })
}

/// The edit of `file` that replaces `change`'s assertion inside its test method.
fn file_edit(file: &[&str], change: &BehaviourChange) -> Option<LineEdit> {
    let declaration = format!(" {}(", change.method);
    let start = file
        .iter()
        .position(|l| l.contains(&declaration) && l.contains("void"))?;
    let stored: Vec<&str> = change.stored_text.split('\n').map(str::trim).collect();
    let method_indent = indentation(file[start]);
    let mut at = start;
    while at + stored.len() <= file.len() {
        // The method ends at the first line that closes it at its own indentation.
        if at > start && file[at].trim() == "}" && indentation(file[at]) == method_indent {
            return None;
        }
        let matches = stored
            .iter()
            .enumerate()
            .all(|(k, line)| file[at + k].trim() == *line);
        if matches {
            let indent_file = indentation(file[at]);
            let replacement = change.replacement.as_deref()?;
            let indent_new = indentation(replacement.split('\n').next().unwrap_or(""));
            let text = replacement
                .split('\n')
                .map(|l| match l.strip_prefix(indent_new) {
                    Some(rest) => format!("{indent_file}{rest}"),
                    None => l.to_string(),
                })
                .collect::<Vec<_>>()
                .join("\n");
            return Some(LineEdit {
                first_line: at as u32,
                end_line: (at + stored.len()) as u32,
                text,
            });
        }
        at += 1;
    }
    None
}

fn indentation(line: &str) -> &str {
    &line[..line.len() - line.trim_start().len()]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::regression::{CalledMember, Now};
    use crate::store::{StoredAssertion, StoredMethod};
    use testcase::junit::AssertionKind;

    const SOURCE: &str = "class AccountGeneratedTest {\n\n    @Test\n    void depositAddsToBalance() {\n        Account account0 = new Account();\n        account0.deposit(100L);\n        assertEquals(100L, account0.getBalanceCents());\n    }\n}\n";

    fn change() -> BehaviourChange {
        let assertion = StoredAssertion {
            first_line: 7,
            last_line: 7,
            kind: AssertionKind::State,
            subject: "account0.getBalanceCents()".into(),
            expected: "100L".into(),
        };
        BehaviourChange {
            method: "depositAddsToBalance".into(),
            stored_text: "        assertEquals(100L, account0.getBalanceCents());".into(),
            assertion,
            now: Now::Value("101L".into()),
            replacement: Some("        assertEquals(101L, account0.getBalanceCents());".into()),
            action: "deposit(100)".into(),
            called: vec![CalledMember {
                name: "deposit".into(),
                erased_params: vec!["long".into()],
            }],
            message: String::new(),
        }
    }

    fn suite() -> StoredSuite {
        StoredSuite {
            junit: crate::project::JUnitVersion::Five,
            source: SOURCE.into(),
            methods: vec![StoredMethod {
                name: "depositAddsToBalance".into(),
                test: 0,
                goals: Default::default(),
                assertions: vec![change().assertion],
            }],
            unverified: None,
        }
    }

    #[test]
    fn accepting_rewrites_the_stored_class_and_the_file_in_place() {
        // The file the user has: the method inserted into a class of their own, indented
        // with tabs.
        let file = "class AccountGeneratedTest {\n\t@Test\n\tvoid depositAddsToBalance() {\n\t\tAccount account0 = new Account();\n\t\taccount0.deposit(100L);\n\t\tassertEquals(100L, account0.getBalanceCents());\n\t}\n}\n";
        let accepted = accept(&suite(), &[change()], Some(file)).unwrap();
        assert_eq!(accepted.accepted, 1);
        assert_eq!(
            accepted.suite.source,
            SOURCE.replace("assertEquals(100L", "assertEquals(101L")
        );
        assert_eq!(accepted.suite.methods[0].assertions[0].expected, "101L");
        assert_eq!(
            accepted.file_edits,
            vec![LineEdit {
                first_line: 5,
                end_line: 6,
                text: "\t\tassertEquals(101L, account0.getBalanceCents());".into(),
            }]
        );
    }

    #[test]
    fn a_test_that_now_throws_cannot_be_accepted_by_an_assertion() {
        let mut throws = change();
        throws.now = Now::Throws("IllegalStateException".into());
        throws.replacement = None;
        assert_eq!(
            accept(&suite(), &[throws], None),
            Err(AcceptError::NothingToAccept)
        );
    }
}
