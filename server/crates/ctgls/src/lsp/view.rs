//! A class's results placed on the text the editor has now: which members are unchanged since
//! the run (their results are shown, moved with the text) and where things are.

use std::cell::RefCell;
use std::collections::HashMap;

use javamodel::{Decision, Member, Span};
use syntax::PositionEncoding;
use tower_lsp_server::ls_types::Range;

use crate::lsp::results::{ClassResults, DecisionResult};
use crate::lsp::to_proto;
use crate::open_file::OpenFile;

pub struct View<'a> {
    pub file: &'a OpenFile,
    pub results: &'a ClassResults,
    pub encoding: PositionEncoding,
    live: RefCell<HashMap<String, bool>>,
    /// Every member of the current text by key.
    members: HashMap<&'a str, &'a Member>,
}

impl<'a> View<'a> {
    pub fn new(file: &'a OpenFile, results: &'a ClassResults, encoding: PositionEncoding) -> Self {
        let members = file
            .model()
            .all_types()
            .into_iter()
            .flat_map(|ty| ty.members.iter())
            .map(|m| (m.key.as_str(), m))
            .collect();
        View {
            file,
            results,
            encoding,
            live: RefCell::new(HashMap::new()),
            members,
        }
    }

    /// The member has the text it had in the run.
    pub fn live(&self, member: &str) -> bool {
        if let Some(&live) = self.live.borrow().get(member) {
            return live;
        }
        let current = self.members.get(member).copied();
        let live = self
            .results
            .is_live_as(member, current, self.file.model().text());
        self.live.borrow_mut().insert(member.to_string(), live);
        live
    }

    pub fn member(&self, key: &str) -> Option<&'a Member> {
        self.members.get(key).copied()
    }

    /// The decision as it is now, when its member is unchanged.
    pub fn decision(&self, decision: &DecisionResult) -> Option<&'a Decision> {
        if !self.live(&decision.key.member) {
            return None;
        }
        self.member(&decision.key.member)?
            .body
            .as_ref()?
            .decisions
            .get(decision.key.ordinal as usize)
    }

    /// The current 0-based row of a line kept as (member, offset), when the member is unchanged.
    pub fn row(&self, member: &str, offset: u32) -> Option<u32> {
        if !self.live(member) {
            return None;
        }
        Some(self.member(member)?.span.start.row as u32 + offset)
    }

    pub fn span_range(&self, span: &Span) -> Option<Range> {
        self.byte_range(span.start_byte, span.end_byte)
    }

    pub fn byte_range(&self, start: usize, end: usize) -> Option<Range> {
        let document = self.file.document();
        document
            .line_index()
            .text_range(start..end, self.encoding)
            .ok()
            .map(to_proto::range)
    }

    /// A line's content without its leading and trailing blanks.
    pub fn line_range(&self, row: u32) -> Option<Range> {
        line_range(self.file, row, self.encoding)
    }
}

/// A line's content without its leading and trailing blanks.
pub fn line_range(file: &OpenFile, row: u32, encoding: PositionEncoding) -> Option<Range> {
    let document = file.document();
    let index = document.line_index();
    let content = index.line_content(row)?;
    let text = document.rope().byte_slice(content.clone()).to_string();
    let lead = text.len() - text.trim_start().len();
    let trail = text.len() - text.trim_end().len();
    let (start, end) = if text.trim().is_empty() {
        (content.start, content.end)
    } else {
        (content.start + lead, content.end - trail)
    };
    index
        .text_range(start..end, encoding)
        .ok()
        .map(to_proto::range)
}
