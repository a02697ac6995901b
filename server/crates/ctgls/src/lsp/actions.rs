//! Code actions: insert a generated test (covering a branch, reproducing an exception), write
//! the whole generated class, add `throws X`. Listed cheaply; the edit is computed by
//! `codeAction/resolve` (or at once for clients that cannot resolve edits).
//!
//! Tests come from whatever results are shown (a finished run's, the store's, or those kept
//! under a running search's interim coverage), and only tests whose called members are all
//! unchanged since their run are offered or inserted (`ClassResults::insertable`).

use std::collections::HashMap;
use std::ops::Range;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use syntax::{Document, PositionEncoding};
use tower_lsp_server::ls_types::{
    CodeAction, CodeActionKind, CreateFile, CreateFileOptions, Diagnostic, DocumentChangeOperation,
    DocumentChanges, NumberOrString, OneOf, OptionalVersionedTextDocumentIdentifier,
    Range as LspRange, ResourceOp, TextDocumentEdit, TextEdit, Uri, WorkspaceEdit,
};

use crate::lsp::diagnostics::{SOURCE, UNCOVERED_BRANCH, UNDECLARED_EXCEPTION};
use crate::lsp::results::{simple_name, ClassResults, Suite};
use crate::lsp::test_file;
use crate::lsp::to_proto;
use crate::lsp::view::View;
use crate::open_file::OpenFile;

/// The source action kind of "Generate tests for class X".
pub const GENERATE_TESTS_KIND: &str = "source.generateTests.ctgls";

/// What the client supports for edits.
#[derive(Debug, Clone, Copy, Default)]
pub struct EditSupport {
    pub document_changes: bool,
    pub create_files: bool,
}

/// Carried in `CodeAction::data` from the list to `codeAction/resolve`.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase", tag = "kind")]
pub enum ActionData {
    /// Insert the generated test `test` (an index into the run's tests).
    Test { uri: Uri, run: u64, test: usize },
    /// Write the whole generated test class.
    Suite { uri: Uri, run: u64 },
    /// Add the exception `exception` (an index into the run's exceptions) to the `throws`
    /// clause of the member the test called.
    Throws {
        uri: Uri,
        run: u64,
        exception: usize,
    },
}

pub struct ListInput<'a> {
    pub uri: &'a Uri,
    pub file: &'a OpenFile,
    pub results: &'a ClassResults,
    pub encoding: PositionEncoding,
    pub range: LspRange,
    pub diagnostics: &'a [Diagnostic],
    pub only: Option<&'a [CodeActionKind]>,
}

/// The actions at a range, without edits.
pub fn list(input: &ListInput) -> Vec<CodeAction> {
    let results = input.results;
    let mut out: Vec<CodeAction> = Vec::new();
    let run = results.run;
    let uri = input.uri.clone();
    let view = View::new(input.file, results, input.encoding);
    let named = |test: Option<usize>| -> Option<usize> {
        test.filter(|&i| results.insertable(i, |m| view.live(m)))
    };
    for diagnostic in input.diagnostics {
        if diagnostic.source.as_deref() != Some(SOURCE) {
            continue;
        }
        let code = match &diagnostic.code {
            Some(NumberOrString::String(code)) => code.as_str(),
            _ => continue,
        };
        let data = diagnostic.data.clone().unwrap_or(Value::Null);
        match code {
            UNCOVERED_BRANCH => {
                let Some(goal) = data.get("goal").and_then(Value::as_str) else {
                    continue;
                };
                let Some((decision, outcome)) = results.decisions.iter().find_map(|d| {
                    d.outcomes
                        .iter()
                        .find(|o| format!("{}.{}", d.key, o.outcome) == goal)
                        .map(|o| (d, o))
                }) else {
                    continue;
                };
                if let Some(test) = named(outcome.covered_by) {
                    out.push(action(
                        "Insert test covering this branch".into(),
                        CodeActionKind::QUICKFIX,
                        Some(diagnostic.clone()),
                        ActionData::Test {
                            uri: uri.clone(),
                            run,
                            test,
                        },
                    ));
                } else if let Some((other, test)) = decision
                    .outcomes
                    .iter()
                    .find_map(|o| named(o.covered_by).map(|t| (o, t)))
                {
                    out.push(action(
                        format!(
                            "Insert the closest test (it takes the {} branch; edit its inputs)",
                            other.label
                        ),
                        CodeActionKind::QUICKFIX,
                        Some(diagnostic.clone()),
                        ActionData::Test {
                            uri: uri.clone(),
                            run,
                            test,
                        },
                    ));
                }
            }
            UNDECLARED_EXCEPTION => {
                let exception_type = data.get("exception").and_then(Value::as_str);
                let member = data.get("member").and_then(Value::as_str);
                let Some(index) = results.exceptions.iter().position(|e| {
                    Some(e.type_name.as_str()) == exception_type
                        && Some(e.called.as_str()) == member
                }) else {
                    continue;
                };
                let exception = &results.exceptions[index];
                let simple = simple_name(&exception.type_name).to_string();
                if let Some(test) = named(exception.test) {
                    out.push(action(
                        format!("Insert test reproducing {simple}"),
                        CodeActionKind::QUICKFIX,
                        Some(diagnostic.clone()),
                        ActionData::Test {
                            uri: uri.clone(),
                            run,
                            test,
                        },
                    ));
                }
                if exception.checked {
                    out.push(action(
                        format!("Add `throws {simple}` to the method signature"),
                        CodeActionKind::QUICKFIX,
                        Some(diagnostic.clone()),
                        ActionData::Throws {
                            uri: uri.clone(),
                            run,
                            exception: index,
                        },
                    ));
                }
            }
            _ => {}
        }
    }

    // Covered branches under the cursor: their tests.
    if out.is_empty() {
        let index = input.file.document().line_index();
        let start = index
            .offset(
                crate::lsp::from_proto::position(input.range.start),
                input.encoding,
            )
            .ok();
        let end = index
            .offset(
                crate::lsp::from_proto::position(input.range.end),
                input.encoding,
            )
            .ok();
        if let (Some(start), Some(end)) = (start, end) {
            for decision in &results.decisions {
                let Some(current) = view.decision(decision) else {
                    continue;
                };
                let overlaps = current.span.start_byte <= end && start <= current.span.end_byte;
                if !overlaps {
                    continue;
                }
                for outcome in &decision.outcomes {
                    if let Some(test) = named(outcome.covered_by) {
                        out.push(action(
                            format!(
                                "Insert test covering the {} branch of `{}`",
                                outcome.label, decision.condition
                            ),
                            CodeActionKind::QUICKFIX,
                            None,
                            ActionData::Test {
                                uri: uri.clone(),
                                run,
                                test,
                            },
                        ));
                    }
                }
            }
        }
    }

    let any_test = (0..results.tests.len()).any(|i| named(Some(i)).is_some());
    if results.suite.is_some() && any_test {
        out.push(action(
            format!("Generate tests for class {}", simple_name(&results.class)),
            CodeActionKind::new(GENERATE_TESTS_KIND),
            None,
            ActionData::Suite { uri, run },
        ));
    }
    if let Some(only) = input.only {
        out.retain(|a| {
            let kind = a.kind.as_ref().map_or("", |k| k.as_str());
            only.iter()
                .any(|o| kind == o.as_str() || kind.starts_with(&format!("{}.", o.as_str())))
        });
    }
    out
}

fn action(
    title: String,
    kind: CodeActionKind,
    diagnostic: Option<Diagnostic>,
    data: ActionData,
) -> CodeAction {
    CodeAction {
        title,
        kind: Some(kind),
        diagnostics: diagnostic.map(|d| vec![d]),
        data: serde_json::to_value(data).ok(),
        ..CodeAction::default()
    }
}

/// The generated test class file as the editor or the disk has it now.
pub struct TestFileNow {
    pub uri: Uri,
    /// Text and, when open in the editor, its version.
    pub existing: Option<(String, Option<i32>)>,
}

/// The edit that inserts test `test` (or the whole class when `None`). `insertable` says which
/// tests fit the current text (`ClassResults::insertable`); the whole class brings only those.
pub fn test_edit(
    results: &ClassResults,
    suite: &Suite,
    test: Option<usize>,
    insertable: &dyn Fn(usize) -> bool,
    file: &TestFileNow,
    support: EditSupport,
    encoding: PositionEncoding,
) -> Result<WorkspaceEdit, String> {
    let chosen: Vec<(String, String)> = match test {
        Some(index) => {
            let info = results
                .tests
                .get(index)
                .ok_or_else(|| "the test is gone; ask for code actions again".to_string())?;
            let (Some(name), Some(source)) = (&info.name, &info.source) else {
                return Err("this test did not pass verification".into());
            };
            if !insertable(index) {
                return Err(
                    "the test calls code edited since it was generated; it comes back with the \
                     next run"
                        .into(),
                );
            }
            vec![(name.clone(), source.clone())]
        }
        None => results
            .tests
            .iter()
            .enumerate()
            .filter(|&(i, _)| insertable(i))
            .filter_map(|(_, t)| Some((t.name.clone()?, t.source.clone()?)))
            .collect(),
    };
    let mut chosen = chosen;
    chosen.sort_by_key(|(name, _)| suite.source.find(&format!(" {name}(")));
    if chosen.is_empty() {
        return Err("no generated test fits the code as it is now; wait for the next run".into());
    }
    // The class as verified, without the tests that do not fit the current text.
    let methods = test_file::method_names(&suite.source);
    let keep: Vec<&str> = chosen.iter().map(|(n, _)| n.as_str()).collect();
    let whole = test.is_none() && methods.iter().all(|m| keep.contains(&m.as_str()));
    let class_text = if whole {
        suite.source.clone()
    } else {
        test_file::keep_only(&suite.source, &keep)
    };
    match &file.existing {
        None => Ok(create_with_text(&file.uri, class_text, support)),
        Some((existing, version)) => {
            let ours = existing.starts_with("// Generated by ctgls");
            let edits: Vec<(Range<usize>, String)> = if test.is_none() && ours {
                vec![(0..existing.len(), class_text)]
            } else {
                test_file::insertion_edits(existing, &chosen, &test_file::imports(&suite.source))
                    .ok_or_else(|| {
                        format!("{} has no class to insert the test into", file.uri.as_str())
                    })?
            };
            let document = Document::new(existing, version.unwrap_or(0));
            let index = document.line_index();
            let text_edits = edits
                .into_iter()
                .map(|(range, text)| {
                    index
                        .text_range(range, encoding)
                        .map(|r| TextEdit::new(to_proto::range(r), text))
                        .map_err(|e| e.to_string())
                })
                .collect::<Result<Vec<_>, _>>()?;
            Ok(edit_document(&file.uri, *version, text_edits, support))
        }
    }
}

fn create_with_text(uri: &Uri, text: String, support: EditSupport) -> WorkspaceEdit {
    let insert = TextEdit::new(LspRange::default(), text);
    if support.document_changes && support.create_files {
        WorkspaceEdit {
            document_changes: Some(DocumentChanges::Operations(vec![
                DocumentChangeOperation::Op(ResourceOp::Create(CreateFile {
                    uri: uri.clone(),
                    options: Some(CreateFileOptions {
                        overwrite: Some(false),
                        ignore_if_exists: Some(true),
                    }),
                    annotation_id: None,
                })),
                DocumentChangeOperation::Edit(TextDocumentEdit {
                    text_document: OptionalVersionedTextDocumentIdentifier {
                        uri: uri.clone(),
                        version: None,
                    },
                    edits: vec![OneOf::Left(insert)],
                }),
            ])),
            ..WorkspaceEdit::default()
        }
    } else {
        // Clients that cannot create files get plain text edits on the new file's URI (most
        // open an unsaved buffer for it).
        WorkspaceEdit {
            changes: Some(HashMap::from([(uri.clone(), vec![insert])])),
            ..WorkspaceEdit::default()
        }
    }
}

pub fn edit_document(
    uri: &Uri,
    version: Option<i32>,
    edits: Vec<TextEdit>,
    support: EditSupport,
) -> WorkspaceEdit {
    if support.document_changes {
        WorkspaceEdit {
            document_changes: Some(DocumentChanges::Edits(vec![TextDocumentEdit {
                text_document: OptionalVersionedTextDocumentIdentifier {
                    uri: uri.clone(),
                    version,
                },
                edits: edits.into_iter().map(OneOf::Left).collect(),
            }])),
            ..WorkspaceEdit::default()
        }
    } else {
        WorkspaceEdit {
            changes: Some(HashMap::from([(uri.clone(), edits)])),
            ..WorkspaceEdit::default()
        }
    }
}

/// The edits that add `throws <exception>` to `member`'s declaration (and its import), in
/// byte ranges of the file's current text.
pub fn throws_edits(
    file: &OpenFile,
    member_key: &str,
    exception: &str,
) -> Result<Vec<(Range<usize>, String)>, String> {
    let model = file.model();
    let (_, member) = model
        .member_by_key(member_key)
        .ok_or_else(|| format!("{member_key} is no longer in the file"))?;
    let tree = file.document().tree();
    let mut node = tree
        .root_node()
        .descendant_for_byte_range(member.span.start_byte, member.span.start_byte)
        .ok_or("the declaration was not found")?;
    while !matches!(
        node.kind(),
        "method_declaration" | "constructor_declaration"
    ) || node.start_byte() != member.span.start_byte
    {
        node = node.parent().ok_or("the declaration was not found")?;
    }
    let text = model.text();
    let qualified = exception.replace('$', ".");
    let simple = simple_name(exception).to_string();
    let mut cursor = node.walk();
    let throws = node.children(&mut cursor).find(|c| c.kind() == "throws");
    let mut edits = Vec::new();
    match throws {
        Some(throws) => {
            let existing = &text[throws.byte_range()];
            if existing
                .trim_start_matches("throws")
                .split(',')
                .any(|t| t.trim() == simple || t.trim() == qualified)
            {
                return Err(format!("{simple} is already declared"));
            }
            edits.push((throws.end_byte()..throws.end_byte(), format!(", {simple}")));
        }
        None => {
            let after = node
                .child_by_field_name("dimensions")
                .or_else(|| node.child_by_field_name("parameters"))
                .ok_or("the declaration has no parameter list")?;
            edits.push((
                after.end_byte()..after.end_byte(),
                format!(" throws {simple}"),
            ));
        }
    }
    // An import, unless the name is visible already.
    let package = qualified.rsplit_once('.').map_or("", |(p, _)| p);
    let own_package = model.package.as_ref().map_or("", |p| p.name.as_str());
    let imported = model
        .imports
        .iter()
        .any(|i| !i.is_static && (i.path == qualified || (i.on_demand && i.path == package)));
    if package != "java.lang" && package != own_package && !imported && !package.is_empty() {
        let at = model
            .imports
            .last()
            .map(|i| (i.span.end_byte, format!("\nimport {qualified};")))
            .or_else(|| {
                model
                    .package
                    .as_ref()
                    .map(|p| (p.span.end_byte, format!("\n\nimport {qualified};")))
            })
            .unwrap_or((0, format!("import {qualified};\n\n")));
        edits.insert(0, (at.0..at.0, at.1));
    }
    Ok(edits)
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use super::*;
    use crate::lsp::results::TestInfo;

    fn open(text: &str) -> OpenFile {
        OpenFile::open(text, 1)
    }

    const SUITE: &str = "// Generated by ctgls 0.1.0. Regenerating replaces this file; do not edit.\npackage p;\n\nimport org.junit.jupiter.api.Test;\n\nclass AGeneratedTest {\n\n    @Test\n    void one() {\n        new A().one();\n    }\n\n    @Test\n    void two() {\n        new A().two();\n    }\n}\n";

    /// Results with the suite above and its two tests.
    fn results() -> ClassResults {
        let model =
            javamodel::JavaModel::build("class A {}", &syntax::parse_java("class A {}", None));
        let mut results = ClassResults::interim(7, "p.A", &model, &BTreeSet::new());
        let methods = crate::lsp::results::test_methods(SUITE);
        results.tests = ["one", "two"]
            .iter()
            .map(|name| TestInfo {
                name: Some(name.to_string()),
                source: methods.get(*name).cloned(),
                calls: String::new(),
                goals: BTreeSet::new(),
                members: BTreeSet::new(),
            })
            .collect();
        results.suite = Some(Suite {
            source: SUITE.into(),
            junit: ctg::project::JUnitVersion::Five,
            path: "/p/src/test/java/p/AGeneratedTest.java".into(),
            unverified: None,
        });
        results
    }

    fn new_file() -> TestFileNow {
        TestFileNow {
            uri: "file:///p/src/test/java/p/AGeneratedTest.java"
                .parse()
                .unwrap(),
            existing: None,
        }
    }

    #[test]
    fn results_whose_tests_could_not_be_verified_offer_no_test() {
        let mut results = results();
        assert!(results.insertable(0, |_| true));
        results.unverified = Some("tests could not be verified: JUnit could not run".into());
        assert!(!results.insertable(0, |_| true));
        assert!(!results.insertable(1, |_| true));
    }

    #[test]
    fn a_missing_test_file_is_created_with_the_one_test() {
        let results = results();
        let suite = results.suite.as_ref().unwrap();
        let full = EditSupport {
            document_changes: true,
            create_files: true,
        };
        let edit = test_edit(
            &results,
            suite,
            Some(1),
            &|_| true,
            &new_file(),
            full,
            PositionEncoding::Utf16,
        )
        .unwrap();
        let Some(DocumentChanges::Operations(ops)) = &edit.document_changes else {
            panic!("{edit:?}");
        };
        assert!(matches!(
            &ops[0],
            DocumentChangeOperation::Op(ResourceOp::Create(_))
        ));
        let DocumentChangeOperation::Edit(text) = &ops[1] else {
            panic!("{ops:?}");
        };
        let OneOf::Left(insert) = &text.edits[0] else {
            panic!()
        };
        assert!(insert.new_text.contains("void two()") && !insert.new_text.contains("void one()"));

        // A client that cannot create files gets a plain edit on the new file's URI.
        let plain = test_edit(
            &results,
            suite,
            Some(1),
            &|_| true,
            &new_file(),
            EditSupport::default(),
            PositionEncoding::Utf16,
        )
        .unwrap();
        assert!(plain.document_changes.is_none());
        let changes = plain.changes.unwrap();
        assert_eq!(changes[&new_file().uri][0].new_text, insert.new_text);
    }

    #[test]
    fn the_whole_class_replaces_a_file_ctgls_wrote_and_joins_one_it_did_not() {
        let results = results();
        let suite = results.suite.as_ref().unwrap();
        let ours = TestFileNow {
            existing: Some((
                "// Generated by ctgls 0.0.9\nclass Old {}\n".into(),
                Some(3),
            )),
            ..new_file()
        };
        let support = EditSupport {
            document_changes: true,
            create_files: false,
        };
        let edit = test_edit(
            &results,
            suite,
            None,
            &|_| true,
            &ours,
            support,
            PositionEncoding::Utf16,
        )
        .unwrap();
        let Some(DocumentChanges::Edits(edits)) = &edit.document_changes else {
            panic!("{edit:?}");
        };
        assert_eq!(edits[0].text_document.version, Some(3));
        let OneOf::Left(replace) = &edits[0].edits[0] else {
            panic!()
        };
        assert_eq!(replace.new_text, SUITE);
        assert_eq!(replace.range.end.line, 2, "the whole old text");

        let theirs = TestFileNow {
            existing: Some((
                "package p;\n\nclass AGeneratedTest {\n    void one() {}\n}\n".into(),
                None,
            )),
            ..new_file()
        };
        let edit = test_edit(
            &results,
            suite,
            None,
            &|_| true,
            &theirs,
            support,
            PositionEncoding::Utf16,
        )
        .unwrap();
        let Some(DocumentChanges::Edits(edits)) = &edit.document_changes else {
            panic!("{edit:?}");
        };
        let texts: Vec<&str> = edits[0]
            .edits
            .iter()
            .map(|e| match e {
                OneOf::Left(e) => e.new_text.as_str(),
                OneOf::Right(e) => e.text_edit.new_text.as_str(),
            })
            .collect();
        assert!(
            texts[0].contains("import org.junit.jupiter.api.Test;"),
            "{texts:?}"
        );
        assert!(
            texts[1].contains("void one2()") && texts[1].contains("void two()"),
            "{texts:?}"
        );
    }

    /// Titles of the actions with the cursor on `line` (0-based), and the list.
    fn titles_at(file: &OpenFile, results: &ClassResults, line: u32) -> Vec<String> {
        let uri: Uri = "file:///p/src/main/java/p/A.java".parse().unwrap();
        let position = tower_lsp_server::ls_types::Position::new(line, 8);
        list(&ListInput {
            uri: &uri,
            file,
            results,
            encoding: PositionEncoding::Utf16,
            range: LspRange::new(position, position),
            diagnostics: &[],
            only: None,
        })
        .into_iter()
        .map(|a| a.title)
        .collect()
    }

    /// The text a `CreateFile` edit gives the new file.
    fn created_text(edit: &WorkspaceEdit) -> String {
        let Some(DocumentChanges::Operations(ops)) = &edit.document_changes else {
            panic!("{edit:?}");
        };
        let DocumentChangeOperation::Edit(text) = &ops[1] else {
            panic!("{ops:?}");
        };
        let OneOf::Left(insert) = &text.edits[0] else {
            panic!()
        };
        insert.new_text.clone()
    }

    #[test]
    fn stored_tests_are_offered_while_the_members_they_call_are_unchanged() {
        use crate::lsp::results::fixture::{stored_fixture, STORED_CLASS};
        let file = open(STORED_CLASS);
        let results = stored_fixture(file.model());
        // The cursor on f's `if`: its stored test, and the whole class.
        let titles = titles_at(&file, &results, 4);
        assert_eq!(
            titles,
            [
                "Insert test covering the true branch of `x > 0`",
                "Generate tests for class A"
            ]
        );
        let full = EditSupport {
            document_changes: true,
            create_files: true,
        };
        let whole = |file: &OpenFile| {
            let view = View::new(file, &results, PositionEncoding::Utf16);
            test_edit(
                &results,
                results.suite.as_ref().unwrap(),
                None,
                &|i| results.insertable(i, |m| view.live(m)),
                &new_file(),
                full,
                PositionEncoding::Utf16,
            )
        };
        let text = created_text(&whole(&file).unwrap());
        assert!(
            text.contains("void fOne()") && text.contains("void gNine()"),
            "{text}"
        );

        // g edited: f's test still fits; the class comes without g's test.
        let g_edited = open(&STORED_CLASS.replace("x > 5", "x > 6"));
        assert_eq!(titles_at(&g_edited, &results, 4), titles);
        let text = created_text(&whole(&g_edited).unwrap());
        assert!(
            text.contains("void fOne()") && !text.contains("void gNine()"),
            "{text}"
        );
        // Asked for g's test all the same (a list made before the edit): refused.
        let view = View::new(&g_edited, &results, PositionEncoding::Utf16);
        let refused = test_edit(
            &results,
            results.suite.as_ref().unwrap(),
            Some(1),
            &|i| results.insertable(i, |m| view.live(m)),
            &new_file(),
            full,
            PositionEncoding::Utf16,
        );
        assert!(refused.is_err(), "{refused:?}");

        // The constructor edited: every test calls it, so nothing is offered.
        let constructor_edited = open(&STORED_CLASS.replace("A() {}", "A() { int unused = 0; }"));
        assert_eq!(
            titles_at(&constructor_edited, &results, 4),
            Vec::<String>::new()
        );
        assert!(whole(&constructor_edited).is_err());
    }

    #[test]
    fn throws_is_added_after_the_parameters_with_an_import() {
        let text =
            "package p;\n\nimport java.util.List;\n\nclass A {\n    void read(int n) {\n    }\n}\n";
        let file = open(text);
        let edits = throws_edits(&file, "p.A#read(int)", "java.io.IOException").unwrap();
        assert_eq!(
            test_file::apply(text, &edits),
            "package p;\n\nimport java.util.List;\nimport java.io.IOException;\n\nclass A {\n    void read(int n) throws IOException {\n    }\n}\n"
        );
    }

    #[test]
    fn throws_extends_an_existing_clause() {
        let text = "package p;\nclass A {\n    A(int n) throws java.io.IOException {}\n}\n";
        let file = open(text);
        let edits = throws_edits(&file, "p.A#<init>(int)", "p.CheckedThing").unwrap();
        assert_eq!(
            test_file::apply(text, &edits),
            "package p;\nclass A {\n    A(int n) throws java.io.IOException, CheckedThing {}\n}\n"
        );
        assert!(throws_edits(&file, "p.A#<init>(int)", "java.io.IOException").is_err());
    }
}
