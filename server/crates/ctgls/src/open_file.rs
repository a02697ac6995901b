//! An open Java file: its document (rope + incremental tree) and the Java model kept up to
//! date with it after every batch of edits. This is the whole per-keystroke path of the
//! server, so the edit benchmark drives exactly this type.

use std::sync::Arc;

use javamodel::JavaModel;
use syntax::{Document, EditError, PositionEncoding, TextChange};

/// Invariant: `model` is the model of `document`'s current text (equal to
/// `JavaModel::build(document.text(), document.tree())`).
#[derive(Clone)]
pub struct OpenFile {
    document: Document,
    model: Arc<JavaModel>,
}

impl std::fmt::Debug for OpenFile {
    /// The document's version and length; the model is too large for a log line.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OpenFile")
            .field("document", &self.document)
            .finish_non_exhaustive()
    }
}

impl OpenFile {
    pub fn open(text: &str, version: i32) -> OpenFile {
        let document = Document::new(text, version);
        let model = Arc::new(JavaModel::build(text, document.tree()));
        OpenFile { document, model }
    }

    /// Applies a batch of changes to the document and brings the model up to date,
    /// rebuilding only the members the changes touched. On an invalid change nothing changes.
    pub fn apply_changes(
        &mut self,
        changes: &[TextChange],
        version: i32,
        encoding: PositionEncoding,
    ) -> Result<(), EditError> {
        let edits = self.document.apply_changes(changes, version, encoding)?;
        let text = self.document.text();
        self.model = Arc::new(self.model.update(&text, self.document.tree(), &edits));
        Ok(())
    }

    pub fn document(&self) -> &Document {
        &self.document
    }

    /// The model, shared cheaply with readers working on a snapshot.
    pub fn model(&self) -> &Arc<JavaModel> {
        &self.model
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use syntax::{TextPosition, TextRange};

    const SOURCE: &str = "class A {\n    int f(int x) {\n        if (x > 0) { return 1; }\n        return 0;\n    }\n    int g(String s) {\n        return s.isEmpty() ? 1 : 2;\n    }\n}\n";

    fn change(line: u32, from: u32, to: u32, text: &str) -> TextChange {
        TextChange::replace(
            TextRange::new(TextPosition::new(line, from), TextPosition::new(line, to)),
            text,
        )
    }

    fn assert_model_is_fresh(file: &OpenFile) {
        let text = file.document().text();
        let fresh = JavaModel::build(&text, &syntax::parse_java(&text, None));
        assert_eq!(javamodel::dump(file.model()), javamodel::dump(&fresh));
    }

    #[test]
    fn the_model_follows_every_batch_of_edits() {
        let mut file = OpenFile::open(SOURCE, 1);
        let batches = [
            vec![change(2, 16, 17, ">=")],
            vec![change(6, 15, 15, "!"), change(2, 12, 12, "😀 ")],
            vec![change(5, 4, 5, "")],
            vec![TextChange::full("class B { void h() {} }")],
        ];
        for (index, batch) in batches.iter().enumerate() {
            file.apply_changes(batch, index as i32 + 2, PositionEncoding::Utf16)
                .expect("valid batch");
            assert_model_is_fresh(&file);
        }
        assert_eq!(file.model().types[0].binary_name, "B");
    }

    #[test]
    fn an_invalid_batch_changes_neither_document_nor_model() {
        let mut file = OpenFile::open(SOURCE, 1);
        let before = javamodel::dump(file.model());
        let batch = [change(2, 16, 17, ">="), change(99, 0, 0, "x")];
        assert!(file
            .apply_changes(&batch, 2, PositionEncoding::Utf16)
            .is_err());
        assert_eq!(file.document().text(), SOURCE);
        assert_eq!(file.document().version(), 1);
        assert_eq!(javamodel::dump(file.model()), before);
    }
}
