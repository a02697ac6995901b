//! The JSON form of a stored test method's assertions (`junit_class.methods[].assertions`,
//! added within format version 1): what each assertion of the verified class expects, so that
//! the regression guard can tell which no longer holds without compiling the class.

use serde::{Deserialize, Serialize};
use testcase::junit::AssertionKind;

use super::record::StoredAssertion;

#[derive(Serialize, Deserialize)]
pub(super) struct AssertionDto {
    /// First and last 1-based line in the class's source.
    lines: [u32; 2],
    kind: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    subject: String,
    expected: String,
}

impl AssertionDto {
    pub(super) fn from_stored(a: &StoredAssertion) -> AssertionDto {
        AssertionDto {
            lines: [a.first_line, a.last_line],
            kind: kind_name(a.kind).to_string(),
            subject: a.subject.clone(),
            expected: a.expected.clone(),
        }
    }

    pub(super) fn into_stored(self, method: &str) -> Result<StoredAssertion, String> {
        let kind = match self.kind.as_str() {
            "value" => AssertionKind::Value,
            "state" => AssertionKind::State,
            "message" => AssertionKind::ExceptionMessage,
            "throws" => AssertionKind::Throws,
            other => {
                return Err(format!(
                    "junit_class: method {method}: unknown assertion kind {other:?}"
                ))
            }
        };
        let [first_line, last_line] = self.lines;
        if first_line == 0 || last_line < first_line {
            return Err(format!(
                "junit_class: method {method}: assertion lines {first_line}-{last_line}"
            ));
        }
        Ok(StoredAssertion {
            first_line,
            last_line,
            kind,
            subject: self.subject,
            expected: self.expected,
        })
    }
}

fn kind_name(kind: AssertionKind) -> &'static str {
    match kind {
        AssertionKind::Value => "value",
        AssertionKind::State => "state",
        AssertionKind::ExceptionMessage => "message",
        AssertionKind::Throws => "throws",
    }
}
