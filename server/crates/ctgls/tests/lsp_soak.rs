//! Soak test: a long, seeded random editing session against the real binary over stdio, on a
//! copy of the example project. Edits are incremental changes in the negotiated encoding
//! (single characters and chunks, non-ASCII and astral characters, CRLF and lone CR, edits that
//! break the syntax and the undo that repairs them, whole methods deleted), full-text
//! replacements, saves, closes and reopens, interleaved with every request the server serves,
//! at positions that include out-of-range ones.
//!
//! What must hold throughout: every request is answered (a result, or a JSON-RPC error where
//! one is allowed) within `support::TIMEOUT`; no handler panics (`internal error` in the log);
//! every published diagnostic names a version the client sent and lies inside that version's
//! text; once the server is quiet, the diagnostics shown for a file are for its current
//! version (or there are none); ranges in answers lie inside the current text; the server's
//! text, version and incrementally updated Java model equal the client's text and a model
//! built from scratch; and at the end the server shuts down with exit code 0 and leaves no
//! worker process behind.
//!
//! `soak_without_execution_*` run in the default suite, with execution disabled. With
//! `CTGLS_E2E=1`, `soak_with_generation` keeps generation on, so real JVM runs start and are
//! cancelled while the text changes under them. To reproduce or lengthen a run:
//! `CTGLS_SOAK_SEED=<seed> CTGLS_SOAK_STEPS=<n>` (the seed is printed at the start and in
//! every failure).

mod support;

use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::Path;
use std::time::{Duration, Instant};

use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use serde_json::{json, Value};
use support::{e2e_enabled, position, Project, TestServer};

fn env_u64(name: &str) -> Option<u64> {
    let text = std::env::var(name).ok()?;
    Some(
        text.parse()
            .unwrap_or_else(|_| panic!("{name}={text:?} is not a number")),
    )
}

/// Pieces of text that edits insert: characters of every UTF-8 length, line breaks of every
/// kind, and Java fragments that open or close constructs.
const PIECES: &[&str] = &[
    "a",
    "x",
    " ",
    ";",
    "{",
    "}",
    "(",
    ")",
    "\"",
    "'",
    "/",
    "*",
    "é",
    "中",
    "😀",
    "𝄞",
    "\n",
    "\r\n",
    "\r",
    "\t",
    "if (",
    "if (x > 0) {",
    "} else {",
    "return 0;",
    "int y = 1;\n",
    "/*",
    "*/",
    "// 😀\n",
    "switch (v) { case 1 -> 2; default -> 3; }",
    "for (int i = 0; i < n; i++) {",
    "while (true) { break; }",
    "x -> x + 1",
    "new Object() { int f() { return 1; } }",
    "\"é中😀\"",
    "public void m() {}\n",
    "class Inner { }\r\n",
    "@Override ",
    "throws Exception ",
    "catch (RuntimeException e) {",
    "try {",
    "¬",
    "\u{2028}",
    "\u{feff}",
];

/// A document as the client sees it.
struct ClientDoc {
    uri: String,
    /// The text the project started with, for repairs.
    original: String,
    text: String,
    version: i32,
    open: bool,
    /// Every text the client sent for this URI, by version (versions only grow).
    history: HashMap<i32, String>,
    /// Inverse batches of the edits made since the last open or full replacement.
    undo: Vec<Vec<Edit>>,
    /// The text sent with the last `didOpen` and every `contentChanges` since, in order: what
    /// a failure report needs to replay the session of this document.
    log: Vec<Value>,
}

/// One change of a batch, in byte offsets of the text at its turn.
#[derive(Clone, Debug)]
struct Edit {
    start: usize,
    end: usize,
    text: String,
}

/// What a diagnostics notification said last, per URI.
#[derive(Clone, Debug)]
struct Published {
    version: Option<i64>,
    count: usize,
}

struct Soak {
    rng: StdRng,
    seed: u64,
    step: usize,
    utf8: bool,
    generation: bool,
    server: TestServer,
    docs: Vec<ClientDoc>,
    /// Notifications of `server.notifications` already checked.
    checked: usize,
    last_published: HashMap<String, Published>,
    /// The last operations, printed when the test fails.
    trail: Vec<String>,
    /// Counters for the summary line.
    counts: HashMap<&'static str, usize>,
    _project: Project,
}

/// LSP lines of `text`: (start, end of content) byte offsets; lines end at "\r\n", "\n", "\r".
fn lines(text: &str) -> Vec<(usize, usize)> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut start = 0;
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'\n' => {
                out.push((start, i));
                start = i + 1;
            }
            b'\r' => {
                out.push((start, i));
                if bytes.get(i + 1) == Some(&b'\n') {
                    i += 1;
                }
                start = i + 1;
            }
            _ => {}
        }
        i += 1;
    }
    out.push((start, bytes.len()));
    out
}

/// Whether an LSP range lies inside `text`: lines exist, characters are within the line's
/// content (in the negotiated unit) and the start is not after the end.
fn range_inside(text: &str, range: &Value, utf8: bool) -> Result<(), String> {
    let lines = lines(text);
    let check = |p: &Value| -> Result<(usize, u64), String> {
        let line = p["line"].as_u64().ok_or("no line")? as usize;
        let character = p["character"].as_u64().ok_or("no character")?;
        let &(start, end) = lines
            .get(line)
            .ok_or_else(|| format!("line {line} of {}", lines.len()))?;
        let content = &text[start..end];
        let length = if utf8 {
            content.len()
        } else {
            content.encode_utf16().count()
        } as u64;
        if character > length {
            return Err(format!(
                "character {character} past the end ({length}) of line {line}"
            ));
        }
        Ok((line, character))
    };
    let start = check(&range["start"])?;
    let end = check(&range["end"])?;
    if start > end {
        return Err("start after end".into());
    }
    Ok(())
}

/// Every `range` object anywhere inside `value`, with where it was found.
fn ranges<'a>(value: &'a Value, path: String, out: &mut Vec<(String, &'a Value)>) {
    match value {
        Value::Object(map) => {
            for (key, inner) in map {
                if key == "range" && inner.get("start").is_some() {
                    out.push((path.clone(), inner));
                } else {
                    ranges(inner, format!("{path}.{key}"), out);
                }
            }
        }
        Value::Array(items) => {
            for (index, inner) in items.iter().enumerate() {
                ranges(inner, format!("{path}[{index}]"), out);
            }
        }
        _ => {}
    }
}

fn fresh_model(text: &str) -> String {
    let tree = syntax::parse_java(text, None);
    javamodel::dump(&javamodel::JavaModel::build(text, &tree))
}

impl Soak {
    fn start(name: &str, seed: u64, utf8: bool, generation: bool) -> Soak {
        let project = Project::copy("soak", name);
        let root = format!("file://{}", project.0.display());
        let settings = if generation {
            json!({ "budgetSeconds": 2, "idleDelayMs": 150 })
        } else {
            json!({ "executionEnabled": false, "idleDelayMs": 0 })
        };
        let encodings = if utf8 {
            json!(["utf-8", "utf-16"])
        } else {
            json!(["utf-16"])
        };
        let mut server = TestServer::start();
        let result = server.initialize(json!({
            "processId": null,
            "rootUri": root,
            "workspaceFolders": [{ "uri": root, "name": "bank" }],
            "initializationOptions": settings,
            "capabilities": {
                "general": { "positionEncodings": encodings },
                "window": { "workDoneProgress": true },
                "workspace": { "workspaceEdit": { "documentChanges": true, "resourceOperations": ["create"] },
                               "codeLens": { "refreshSupport": true } },
                "textDocument": { "codeAction": { "resolveSupport": { "properties": ["edit"] } } }
            }
        }));
        let expected = if utf8 { "utf-8" } else { "utf-16" };
        assert_eq!(result["capabilities"]["positionEncoding"], expected);

        let package = project.0.join("src/main/java/com/example/bank");
        let docs = ["Account", "Bank", "AmountParser"]
            .iter()
            .map(|class| {
                let path = package.join(format!("{class}.java"));
                let text = std::fs::read_to_string(&path).unwrap();
                ClientDoc {
                    uri: format!("file://{}", path.display()),
                    original: text.clone(),
                    text,
                    version: 0,
                    open: false,
                    history: HashMap::new(),
                    undo: Vec::new(),
                    log: Vec::new(),
                }
            })
            .collect();
        eprintln!("soak {name}: seed {seed}, utf8 {utf8}, generation {generation}");
        Soak {
            rng: StdRng::seed_from_u64(seed),
            seed,
            step: 0,
            utf8,
            generation,
            server,
            docs,
            checked: 0,
            last_published: HashMap::new(),
            trail: Vec::new(),
            counts: HashMap::new(),
            _project: project,
        }
    }

    fn note(&mut self, what: String) {
        if self.trail.len() == 40 {
            self.trail.remove(0);
        }
        self.trail.push(format!("step {}: {what}", self.step));
    }

    fn count(&mut self, what: &'static str) {
        *self.counts.entry(what).or_default() += 1;
    }

    /// Fails with the seed and the last operations.
    #[track_caller]
    fn fail(&self, message: String) -> ! {
        panic!(
            "{message}\nseed {} (CTGLS_SOAK_SEED={} reproduces), step {}, last operations:\n{}",
            self.seed,
            self.seed,
            self.step,
            self.trail.join("\n")
        );
    }

    /// A request that must succeed.
    fn ok(&mut self, method: &str, params: Value) -> Value {
        match self.server.request(method, params.clone()) {
            Ok(result) => result,
            Err(error) => self.fail(format!("{method} {params} failed: {error}")),
        }
    }

    /// A request that may be refused, but only with a proper JSON-RPC error.
    fn answered(&mut self, method: &str, params: Value) -> Result<Value, Value> {
        let answer = self.server.request(method, params.clone());
        if let Err(error) = &answer {
            if !error["code"].is_i64() || error["message"].as_str().is_none_or(str::is_empty) {
                self.fail(format!("{method} {params}: malformed error {error}"));
            }
        }
        answer
    }

    fn pick_doc(&mut self) -> usize {
        self.rng.gen_range(0..self.docs.len())
    }

    fn pick_open_doc(&mut self) -> Option<usize> {
        let open: Vec<usize> = (0..self.docs.len())
            .filter(|&i| self.docs[i].open)
            .collect();
        open.choose(&mut self.rng).copied()
    }

    /// A byte offset that an LSP position can name: a character boundary, not between the
    /// `\r` and `\n` of a CRLF.
    fn offset_in(&mut self, text: &str) -> usize {
        let mut offset = self.rng.gen_range(0..=text.len());
        while !addressable(text, offset) {
            offset -= 1;
        }
        offset
    }

    fn position(&self, text: &str, offset: usize) -> Value {
        position(text, offset, self.utf8)
    }

    /// Sends a `didChange` that the server must apply, and logs it.
    fn send_change(&mut self, index: usize, params: Value) {
        self.docs[index].log.push(params["contentChanges"].clone());
        self.server.notify("textDocument/didChange", params);
    }

    // ---- operations --------------------------------------------------------------------------

    fn open(&mut self, index: usize) {
        let doc = &mut self.docs[index];
        doc.version += 1;
        doc.open = true;
        doc.undo.clear();
        doc.history.insert(doc.version, doc.text.clone());
        doc.log = vec![json!(doc.text)];
        let params = json!({ "textDocument": {
            "uri": doc.uri, "languageId": "java", "version": doc.version, "text": doc.text } });
        let what = format!("didOpen {} v{}", short(&doc.uri), doc.version);
        self.server.notify("textDocument/didOpen", params);
        self.note(what);
        self.count("didOpen");
    }

    fn close(&mut self, index: usize) {
        let doc = &mut self.docs[index];
        doc.open = false;
        let params = json!({ "textDocument": { "uri": doc.uri } });
        let what = format!("didClose {}", short(&doc.uri));
        self.server.notify("textDocument/didClose", params);
        self.note(what);
        self.count("didClose");
    }

    /// Sends `edits` as one `didChange` and applies them to the client's text.
    fn change(&mut self, index: usize, edits: Vec<Edit>, record_undo: bool) {
        let utf8 = self.utf8;
        let doc = &mut self.docs[index];
        let mut changes = Vec::new();
        let mut inverse = Vec::new();
        for edit in &edits {
            changes.push(json!({
                "range": {
                    "start": position(&doc.text, edit.start, utf8),
                    "end": position(&doc.text, edit.end, utf8),
                },
                "text": edit.text,
            }));
            inverse.push(Edit {
                start: edit.start,
                end: edit.start + edit.text.len(),
                text: doc.text[edit.start..edit.end].to_owned(),
            });
            doc.text.replace_range(edit.start..edit.end, &edit.text);
        }
        inverse.reverse();
        if record_undo {
            doc.undo.push(inverse);
        }
        doc.version += 1;
        doc.history.insert(doc.version, doc.text.clone());
        let params = json!({
            "textDocument": { "uri": doc.uri, "version": doc.version },
            "contentChanges": changes,
        });
        let what = format!(
            "didChange {} v{}: {:?}",
            short(&doc.uri),
            doc.version,
            edits
                .iter()
                .map(|e| (e.start, e.end, truncate(&e.text)))
                .collect::<Vec<_>>()
        );
        self.send_change(index, params);
        self.note(what);
        self.count("didChange");
    }

    /// One random edit of the current text (which `apply` then changes).
    fn random_edit(&mut self, text: &str) -> Edit {
        let kind = self.rng.gen_range(0..100);
        let start = self.offset_in(text);
        let piece = |rng: &mut StdRng| PIECES.choose(rng).unwrap().to_string();
        match kind {
            // Typing: one piece at a point.
            0..=44 => Edit {
                start,
                end: start,
                text: piece(&mut self.rng),
            },
            // Backspace over one to three characters.
            45..=64 => {
                let mut end = start;
                for _ in 0..self.rng.gen_range(1..=3) {
                    end = next_addressable(text, end);
                }
                Edit {
                    start,
                    end,
                    text: String::new(),
                }
            }
            // A chunk deleted or replaced.
            65..=79 => {
                let length = self.rng.gen_range(1..200);
                let mut end = (start + length).min(text.len());
                while !addressable(text, end) {
                    end += 1;
                }
                let text = if self.rng.gen_bool(0.5) {
                    String::new()
                } else {
                    piece(&mut self.rng)
                };
                Edit { start, end, text }
            }
            // A whole method deleted (or a random line when there is none).
            80..=89 => match method_range(text, &mut self.rng) {
                Some((start, end)) => Edit {
                    start,
                    end,
                    text: String::new(),
                },
                None => Edit {
                    start,
                    end: next_addressable(text, start),
                    text: String::new(),
                },
            },
            // A line pasted from elsewhere in the file.
            _ => {
                let lines = lines(text);
                let (from, to) = *lines.choose(&mut self.rng).unwrap();
                Edit {
                    start,
                    end: start,
                    text: format!("{}\n", &text[from..to]),
                }
            }
        }
    }

    fn edit(&mut self, index: usize) {
        let batch = self.rng.gen_range(1..=3);
        let mut text = self.docs[index].text.clone();
        let mut edits = Vec::new();
        for _ in 0..batch {
            let edit = self.random_edit(&text);
            text.replace_range(edit.start..edit.end, &edit.text);
            edits.push(edit);
        }
        self.change(index, edits, true);
    }

    fn undo(&mut self, index: usize) {
        match self.docs[index].undo.pop() {
            Some(inverse) => {
                self.change(index, inverse, false);
                self.count("undo");
            }
            None => self.edit(index),
        }
    }

    fn replace_all(&mut self, index: usize) {
        let doc = &mut self.docs[index];
        let text = match self.rng.gen_range(0..4) {
            0 => doc.original.replace('\n', "\r\n"),
            1 => format!("// 😀 prepended\n{}", doc.original),
            2 => doc.text.chars().rev().collect(),
            _ => doc.original.clone(),
        };
        doc.text = text.clone();
        doc.version += 1;
        doc.undo.clear();
        doc.history.insert(doc.version, text.clone());
        let params = json!({
            "textDocument": { "uri": doc.uri, "version": doc.version },
            "contentChanges": [{ "text": text }],
        });
        let what = format!(
            "didChange {} v{}: full text {}",
            short(&doc.uri),
            doc.version,
            truncate(&text)
        );
        self.send_change(index, params);
        self.note(what);
        self.count("full replace");
    }

    /// A change the server must drop with a warning, leaving the text as it is: a line past
    /// the end, or (UTF-16) a position between the two halves of a surrogate pair. The
    /// version is not spent: the server keeps the old one.
    fn invalid_change(&mut self, index: usize) {
        let doc = &self.docs[index];
        let line_count = lines(&doc.text).len();
        let mut bad = json!({ "line": line_count + self.rng.gen_range(1..5), "character": 0 });
        if !self.utf8 {
            if let Some(astral) = doc.text.char_indices().find(|(_, c)| c.len_utf16() == 2) {
                if self.rng.gen_bool(0.5) {
                    bad = position(&doc.text, astral.0, false);
                    bad["character"] = json!(bad["character"].as_u64().unwrap() + 1);
                }
            }
        }
        // At the very end, so that it moves no position the bad change names.
        let valid = position(&doc.text, doc.text.len(), self.utf8);
        let params = json!({
            "textDocument": { "uri": doc.uri, "version": doc.version + 1 },
            "contentChanges": [
                { "range": { "start": valid, "end": valid }, "text": "lost " },
                { "range": { "start": bad, "end": bad }, "text": "x" },
            ],
        });
        let what = format!("invalid didChange {} at {bad}", short(&doc.uri));
        self.server.notify("textDocument/didChange", params);
        self.note(what);
        self.count("invalid change");
        self.server
            .wait_for_message("window/logMessage", "dropped didChange");
    }

    /// A change whose character is past the end of its line: LSP says it means the end of the
    /// line's content.
    fn clamped_change(&mut self, index: usize) {
        let doc = &self.docs[index];
        let all = lines(&doc.text);
        let line = self.rng.gen_range(0..all.len());
        let (_, end) = all[line];
        let past = json!({ "line": line, "character": 10_000 + self.rng.gen_range(0..100) });
        let version = doc.version + 1;
        let params = json!({
            "textDocument": { "uri": doc.uri, "version": version },
            "contentChanges": [{ "range": { "start": past, "end": past }, "text": "/*end*/" }],
        });
        let what = format!("clamped didChange {} v{version} at {past}", short(&doc.uri));
        let doc = &mut self.docs[index];
        doc.text.insert_str(end, "/*end*/");
        doc.version = version;
        doc.undo.push(vec![Edit {
            start: end,
            end: end + "/*end*/".len(),
            text: String::new(),
        }]);
        doc.history.insert(version, doc.text.clone());
        self.send_change(index, params);
        self.note(what);
        self.count("clamped change");
    }

    /// A position to ask about: usually inside the text, sometimes past a line's end, past
    /// the last line, or inside a surrogate pair.
    fn query_position(&mut self, text: &str) -> Value {
        match self.rng.gen_range(0..10) {
            0 => {
                json!({ "line": lines(text).len() + self.rng.gen_range(0..3), "character": self.rng.gen_range(0..5) })
            }
            1 => json!({ "line": self.rng.gen_range(0..lines(text).len()), "character": 100_000 }),
            2 if !self.utf8 => match text.char_indices().find(|(_, c)| c.len_utf16() == 2) {
                Some((offset, _)) => {
                    let mut inside = position(text, offset, false);
                    inside["character"] = json!(inside["character"].as_u64().unwrap() + 1);
                    inside
                }
                None => json!({ "line": 0, "character": 0 }),
            },
            3 => json!({ "line": u32::MAX, "character": u32::MAX }),
            _ => {
                let offset = self.offset_in(text);
                self.position(text, offset)
            }
        }
    }

    fn hover(&mut self, index: usize) {
        let text = self.docs[index].text.clone();
        let at = self.query_position(&text);
        let uri = self.docs[index].uri.clone();
        self.note(format!("hover {} {at}", short(&uri)));
        let hover = self.ok(
            "textDocument/hover",
            json!({ "textDocument": { "uri": uri }, "position": at }),
        );
        if !hover.is_null() && !hover["contents"]["value"].is_string() {
            self.fail(format!("hover without Markdown: {hover}"));
        }
        self.count("hover");
    }

    /// Checks that every range in an answer lies inside the current text of `index`.
    fn check_ranges(&self, index: usize, what: &str, answer: &Value) {
        let doc = &self.docs[index];
        let mut found = Vec::new();
        ranges(answer, String::new(), &mut found);
        for (path, range) in found {
            if let Err(error) = range_inside(&doc.text, range, self.utf8) {
                self.fail(format!(
                    "{what} of {} v{}: range {range} at {path}: {error}\n{answer}",
                    short(&doc.uri),
                    doc.version
                ));
            }
        }
    }

    fn code_lens(&mut self, index: usize) {
        let uri = self.docs[index].uri.clone();
        self.note(format!("codeLens {}", short(&uri)));
        let lenses = self.ok(
            "textDocument/codeLens",
            json!({ "textDocument": { "uri": uri } }),
        );
        if self.docs[index].open {
            self.check_ranges(index, "codeLens", &lenses);
        } else if lenses.as_array().is_some_and(|l| !l.is_empty()) {
            self.fail(format!("code lenses for a closed file: {lenses}"));
        }
        self.count("codeLens");
    }

    fn code_actions(&mut self, index: usize) {
        let text = self.docs[index].text.clone();
        let start = self.query_position(&text);
        let end = if self.rng.gen_bool(0.8) {
            let offset = self.offset_in(&text);
            self.position(&text, offset)
        } else {
            start.clone()
        };
        let uri = self.docs[index].uri.clone();
        let diagnostics = self
            .last_diagnostics(&uri)
            .unwrap_or_else(|| Value::Array(Vec::new()));
        let only = match self.rng.gen_range(0..3) {
            0 => Value::Null,
            1 => json!(["source"]),
            _ => json!(["quickfix"]),
        };
        self.note(format!(
            "codeAction {} {start}..{end} only {only}",
            short(&uri)
        ));
        let actions = self.ok(
            "textDocument/codeAction",
            json!({
                "textDocument": { "uri": uri },
                "range": { "start": start, "end": end },
                "context": { "diagnostics": diagnostics, "only": only },
            }),
        );
        self.count("codeAction");
        let offered = actions.as_array().cloned().unwrap_or_default();
        for action in offered.iter().take(2) {
            self.note(format!("codeAction/resolve {}", action["title"]));
            match self.answered("codeAction/resolve", action.clone()) {
                Ok(resolved) => {
                    self.count("resolved");
                    self.check_resolved(index, &resolved);
                }
                Err(_) => self.count("resolve refused"),
            }
        }
    }

    /// Edits of a resolved action that target an open document must name its current version
    /// and lie inside its text.
    fn check_resolved(&self, index: usize, resolved: &Value) {
        for change in resolved["edit"]["documentChanges"]
            .as_array()
            .into_iter()
            .flatten()
        {
            let uri = &change["textDocument"]["uri"];
            let Some(target) = self.docs.iter().position(|d| d.open && *uri == d.uri) else {
                continue;
            };
            let doc = &self.docs[target];
            if change["textDocument"]["version"] != json!(doc.version) {
                self.fail(format!(
                    "a resolved edit of {} names version {}, the document is at {}",
                    short(&doc.uri),
                    change["textDocument"]["version"],
                    doc.version
                ));
            }
            self.check_ranges(target, "codeAction/resolve", &change["edits"]);
        }
        let _ = index;
    }

    fn bogus_resolve(&mut self) {
        let uri = self.docs[0].uri.clone();
        let data = match self.rng.gen_range(0..3) {
            0 => json!(null),
            1 => json!({ "kind": "test", "uri": uri, "run": 999_999, "test": 7 }),
            _ => json!({ "garbage": [1, 2, 3] }),
        };
        self.note(format!("codeAction/resolve of a made-up action {data}"));
        let answer = self.answered(
            "codeAction/resolve",
            json!({ "title": "made up", "data": data }),
        );
        if answer.is_ok() {
            self.fail(format!("a made-up action was resolved: {answer:?}"));
        }
        self.count("bogus resolve");
    }

    fn coverage(&mut self) {
        let which = self.rng.gen_range(0..=self.docs.len());
        let params = match self.docs.get(which) {
            Some(doc) => json!({ "textDocument": { "uri": doc.uri } }),
            None => json!({}),
        };
        self.note(format!("ctgls/coverage {params}"));
        let coverage = self.ok("ctgls/coverage", params);
        for file in coverage["files"].as_array().into_iter().flatten() {
            let Some(index) = self.docs.iter().position(|d| file["uri"] == d.uri) else {
                self.fail(format!("coverage of an unknown file: {file}"));
            };
            if !self.docs[index].open {
                self.fail(format!("coverage of a closed file: {file}"));
            }
            self.check_ranges(index, "ctgls/coverage", file);
        }
        self.count("coverage");
    }

    fn command(&mut self) {
        let which = self.pick_doc();
        let uri = self.docs[which].uri.clone();
        let (command, arguments) = match self.rng.gen_range(0..5) {
            0 => ("ctgls.generate", json!([{ "uri": uri }])),
            1 => ("ctgls.cancel", json!([])),
            2 => ("ctgls.unknown", json!([])),
            3 => ("ctgls.generate", json!([{ "uri": "not a uri" }])),
            _ => ("ctgls.status", json!([])),
        };
        self.note(format!("executeCommand {command} {arguments}"));
        let answer = self.answered(
            "workspace/executeCommand",
            json!({ "command": command, "arguments": arguments }),
        );
        match command {
            "ctgls.status" | "ctgls.cancel" if answer.is_err() => {
                self.fail(format!("{command} failed: {answer:?}"))
            }
            "ctgls.unknown" if answer.is_ok() => {
                self.fail(format!("an unknown command succeeded: {answer:?}"))
            }
            _ => {}
        }
        self.count("command");
    }

    fn save(&mut self, index: usize) {
        let uri = self.docs[index].uri.clone();
        self.note(format!("didSave {}", short(&uri)));
        self.server.notify(
            "textDocument/didSave",
            json!({ "textDocument": { "uri": uri } }),
        );
        self.count("didSave");
    }

    // ---- checks ------------------------------------------------------------------------------

    fn last_diagnostics(&self, uri: &str) -> Option<Value> {
        self.server
            .notifications
            .iter()
            .rev()
            .find(|n| n["method"] == "textDocument/publishDiagnostics" && n["params"]["uri"] == uri)
            .map(|n| n["params"]["diagnostics"].clone())
    }

    /// Checks every notification received since the last call.
    fn check_notifications(&mut self) {
        let new: Vec<Value> = self.server.notifications[self.checked..].to_vec();
        self.checked = self.server.notifications.len();
        // Only `invalid_change` waits for a notification, right after causing it.
        self.server.forget_notifications();
        for notification in new {
            let params = &notification["params"];
            match notification["method"].as_str().unwrap_or_default() {
                "textDocument/publishDiagnostics" => self.check_published(params),
                "window/logMessage" | "window/showMessage" => {
                    let message = params["message"].as_str().unwrap_or_default();
                    if params["type"] == 1 || message.contains("internal error") {
                        self.fail(format!("the server reported an error: {message}"));
                    }
                }
                _ => {}
            }
        }
    }

    fn check_published(&mut self, params: &Value) {
        let uri = params["uri"].as_str().unwrap_or_default().to_owned();
        let Some(doc) = self.docs.iter().find(|d| d.uri == uri) else {
            self.fail(format!("diagnostics for an unknown file: {params}"));
        };
        let count = params["diagnostics"].as_array().map_or(0, Vec::len);
        let version = params["version"].as_i64();
        match version {
            None if count > 0 => {
                self.fail(format!("diagnostics without a version: {params}"));
            }
            None => {}
            Some(version) => {
                let Some(text) = doc.history.get(&(version as i32)) else {
                    self.fail(format!(
                        "diagnostics for version {version}, which was never sent: {params}"
                    ));
                };
                let mut found = Vec::new();
                ranges(&params["diagnostics"], String::new(), &mut found);
                for (path, range) in found {
                    if let Err(error) = range_inside(text, range, self.utf8) {
                        self.fail(format!(
                            "diagnostic {path} of {} v{version} out of its text: {range}: {error}",
                            short(&uri)
                        ));
                    }
                }
            }
        }
        self.last_published
            .insert(uri, Published { version, count });
    }

    /// A checkpoint: the server's text, version and model equal the client's, and once it is
    /// quiet, the diagnostics it shows are for the current text.
    fn checkpoint(&mut self) {
        for index in 0..self.docs.len() {
            let uri = self.docs[index].uri.clone();
            let seen = self.ok("ctgls/debugDocument", json!({ "uri": uri }));
            let doc = &self.docs[index];
            if !doc.open {
                if !seen.is_null() {
                    self.fail(format!("{} is closed but the server has it", short(&uri)));
                }
                continue;
            }
            if seen["text"] != doc.text.as_str() {
                let server_text = seen["text"].as_str().unwrap_or_default();
                self.fail(format!(
                    "the server's text of {} differs from the client's at byte {}:\nserver: {server_text:?}\nclient: {:?}",
                    short(&uri),
                    first_difference(server_text, &doc.text),
                    doc.text
                ));
            }
            if seen["version"] != json!(doc.version) {
                self.fail(format!(
                    "the server has {} at version {}, the client at {}",
                    short(&uri),
                    seen["version"],
                    doc.version
                ));
            }
            let fresh = fresh_model(&doc.text);
            if seen["model"] != fresh.as_str() {
                let model = seen["model"].as_str().unwrap_or_default();
                let replay = std::env::temp_dir().join(format!("ctgls-soak-{}.json", self.seed));
                std::fs::write(&replay, Value::Array(doc.log.clone()).to_string()).unwrap();
                self.fail(format!(
                    "the incremental model of {} differs from a fresh build:\n{}\ntext: {:?}\n\
                     the opened text and every change since: {}",
                    short(&uri),
                    line_diff(model, &fresh),
                    doc.text,
                    replay.display()
                ));
            }
        }
        self.count("checkpoint");
        self.check_notifications();
        self.check_diagnostics_current();
    }

    /// For every open file, the last diagnostics published are for its current version, or
    /// there are none. Diagnostics travel beside responses, so the server gets a moment.
    fn check_diagnostics_current(&mut self) {
        let deadline = Instant::now() + Duration::from_secs(2);
        loop {
            let stale: Vec<String> = self
                .docs
                .iter()
                .filter(|d| d.open)
                .filter_map(|d| {
                    let published = self.last_published.get(&d.uri)?;
                    let current = published.version == Some(i64::from(d.version));
                    (!current && published.count > 0).then(|| {
                        format!(
                            "{}: {} diagnostics for version {:?}, the document is at {}",
                            short(&d.uri),
                            published.count,
                            published.version,
                            d.version
                        )
                    })
                })
                .collect();
            if stale.is_empty() {
                return;
            }
            if Instant::now() > deadline {
                self.fail(format!("stale diagnostics: {}", stale.join("; ")));
            }
            self.server.pump_for(Duration::from_millis(50));
            self.check_notifications();
        }
    }

    // ---- the session -------------------------------------------------------------------------

    fn run(&mut self, steps: usize) {
        for index in 0..self.docs.len() {
            self.open(index);
        }
        self.checkpoint();
        let started = Instant::now();
        for step in 1..=steps {
            self.step = step;
            self.one_step();
            if step % 25 == 0 || self.rng.gen_bool(0.02) {
                self.checkpoint();
            } else {
                self.check_notifications();
            }
        }
        // Repair everything and let it settle.
        for index in 0..self.docs.len() {
            if !self.docs[index].open {
                self.open(index);
            }
            let original = self.docs[index].original.clone();
            if self.docs[index].text != original {
                let doc = &mut self.docs[index];
                doc.text = original.clone();
                doc.version += 1;
                doc.history.insert(doc.version, original.clone());
                let params = json!({
                    "textDocument": { "uri": doc.uri, "version": doc.version },
                    "contentChanges": [{ "text": original }],
                });
                self.send_change(index, params);
            }
        }
        self.checkpoint();
        let mut summary: Vec<_> = self.counts.iter().collect();
        summary.sort();
        let mut line = String::new();
        for (what, count) in summary {
            let _ = write!(line, "{what} {count}, ");
        }
        eprintln!(
            "soak seed {}: {steps} steps in {:.1?}: {line}",
            self.seed,
            started.elapsed()
        );
    }

    fn one_step(&mut self) {
        let roll = self.rng.gen_range(0..100);
        let Some(index) = self.pick_open_doc() else {
            let index = self.pick_doc();
            self.open(index);
            return;
        };
        match roll {
            0..=39 => self.edit(index),
            40..=47 => self.undo(index),
            48..=49 => self.replace_all(index),
            50 => self.invalid_change(index),
            51 => self.clamped_change(index),
            52..=61 => self.hover(index),
            62..=65 => self.code_lens(index),
            66..=71 => self.code_actions(index),
            72 => self.bogus_resolve(),
            73..=75 => self.coverage(),
            76..=78 => self.command(),
            79..=81 => self.save(index),
            82 => {
                self.close(index);
                // Requests about a closed file answer with nothing.
                if self.rng.gen_bool(0.5) {
                    self.hover(index);
                    self.code_lens(index);
                }
            }
            83 => {
                // Reopened without a close: the server replaces the text (and says so).
                let doc = &mut self.docs[index];
                doc.text = doc.original.clone();
                self.open(index);
            }
            84 => {
                // A change to a closed file is ignored (and reported).
                let closed = (0..self.docs.len()).find(|&i| !self.docs[i].open);
                match closed {
                    Some(closed) => {
                        let doc = &self.docs[closed];
                        let params = json!({
                            "textDocument": { "uri": doc.uri, "version": doc.version + 100 },
                            "contentChanges": [{ "text": "class Lost {}" }],
                        });
                        self.note(format!("didChange of closed {}", short(&doc.uri)));
                        self.server.notify("textDocument/didChange", params);
                    }
                    None => self.edit(index),
                }
            }
            85 if self.generation => self.settle(index),
            86..=89 if self.generation => {
                // Pause, so that idle timers fire and runs start before the next edit.
                let pause = self.rng.gen_range(50..600);
                self.note(format!("pause {pause} ms"));
                self.server.pump_for(Duration::from_millis(pause));
            }
            _ => {
                let closed = (0..self.docs.len()).find(|&i| !self.docs[i].open);
                match closed {
                    Some(closed) => self.open(closed),
                    None => self.edit(index),
                }
            }
        }
    }

    /// Generation on: repairs every open file (a run compiles the whole project from the
    /// editor's buffers), saves one and lets its run finish (or give up after a while), so that
    /// later edits meet results and runs to cancel.
    fn settle(&mut self, index: usize) {
        for each in 0..self.docs.len() {
            let original = self.docs[each].original.clone();
            if !self.docs[each].open || self.docs[each].text == original {
                continue;
            }
            let doc = &mut self.docs[each];
            doc.text = original.clone();
            doc.version += 1;
            doc.undo.clear();
            doc.history.insert(doc.version, original.clone());
            let params = json!({
                "textDocument": { "uri": doc.uri, "version": doc.version },
                "contentChanges": [{ "text": original }],
            });
            self.send_change(each, params);
        }
        self.save(index);
        self.note(format!("settle {}", short(&self.docs[index].uri)));
        let seen = self.server.notifications.len();
        let deadline = Instant::now() + Duration::from_secs(20);
        while Instant::now() < deadline {
            self.server.pump_for(Duration::from_millis(200));
            let ended = self.server.notifications[seen..].iter().any(|n| {
                n["method"] == "$/progress"
                    && n["params"]["value"]["kind"] == "end"
                    && n["params"]["value"]["message"]
                        .as_str()
                        .is_some_and(|m| m.contains("branches"))
            });
            if ended {
                break;
            }
        }
        self.count("settle");
    }

    /// How many runs ended with results and how many were cancelled, from `$/progress`.
    fn runs(&self) -> (usize, usize) {
        let ends: Vec<&str> = self
            .server
            .notifications
            .iter()
            .filter(|n| n["method"] == "$/progress" && n["params"]["value"]["kind"] == "end")
            .map(|n| n["params"]["value"]["message"].as_str().unwrap_or_default())
            .collect();
        let finished = ends.iter().filter(|m| m.contains("branches")).count();
        let cancelled = ends.iter().filter(|m| m.contains("cancelled")).count();
        (finished, cancelled)
    }

    /// Shuts down and checks that the server and its JVM workers are gone.
    fn finish(self) {
        let workers = self.server.children();
        let status = self.server.shutdown_and_exit();
        assert_eq!(status.code(), Some(0), "exit status after shutdown");
        for pid in workers {
            let deadline = Instant::now() + Duration::from_secs(5);
            loop {
                let gone = !Path::new(&format!("/proc/{pid}")).exists()
                    || std::fs::read_to_string(format!("/proc/{pid}/stat"))
                        .is_ok_and(|stat| stat.contains(") Z "));
                if gone {
                    break;
                }
                assert!(
                    Instant::now() < deadline,
                    "worker {pid} outlived the server"
                );
                std::thread::sleep(Duration::from_millis(50));
            }
        }
    }
}

fn addressable(text: &str, offset: usize) -> bool {
    text.is_char_boundary(offset)
        && !(offset > 0
            && offset < text.len()
            && text.as_bytes()[offset - 1] == b'\r'
            && text.as_bytes()[offset] == b'\n')
}

fn next_addressable(text: &str, offset: usize) -> usize {
    let mut next = (offset + 1).min(text.len());
    while !addressable(text, next) {
        next += 1;
    }
    next
}

/// The byte range of a whole method: from the start of a line that declares one (ends with
/// `{` and has a `(`) to the end of the line that closes it at the same indentation.
fn method_range(text: &str, rng: &mut StdRng) -> Option<(usize, usize)> {
    let all = lines(text);
    let starts: Vec<usize> = (0..all.len())
        .filter(|&i| {
            let line = &text[all[i].0..all[i].1];
            line.trim_end().ends_with('{') && line.contains('(') && line.starts_with("    ")
        })
        .collect();
    let &first = starts.choose(rng)?;
    let line = &text[all[first].0..all[first].1];
    let indent = &line[..line.len() - line.trim_start().len()];
    let close = format!("{indent}}}");
    let last = (first + 1..all.len()).find(|&i| text[all[i].0..all[i].1] == close)?;
    let end = all.get(last + 1).map_or(text.len(), |next| next.0);
    Some((all[first].0, end))
}

fn short(uri: &str) -> &str {
    uri.rsplit('/').next().unwrap_or(uri)
}

fn truncate(text: &str) -> String {
    let head: String = text.chars().take(40).collect();
    if head.len() < text.len() {
        format!("{head:?}…")
    } else {
        format!("{head:?}")
    }
}

fn first_difference(a: &str, b: &str) -> usize {
    a.bytes()
        .zip(b.bytes())
        .position(|(x, y)| x != y)
        .unwrap_or(a.len().min(b.len()))
}

/// The first lines where two dumps differ, for failure messages.
fn line_diff(server: &str, fresh: &str) -> String {
    let mut out = String::new();
    for (number, (a, b)) in server.lines().zip(fresh.lines()).enumerate() {
        if a != b {
            let _ = writeln!(out, "line {number}:\n  server: {a}\n  fresh:  {b}");
            if out.len() > 2000 {
                break;
            }
        }
    }
    let (a, b) = (server.lines().count(), fresh.lines().count());
    if a != b {
        let _ = writeln!(out, "{a} lines from the server, {b} from a fresh build");
    }
    out
}

fn seed_or(default: u64) -> u64 {
    env_u64("CTGLS_SOAK_SEED").unwrap_or(default)
}

fn steps_or(default: usize) -> usize {
    env_u64("CTGLS_SOAK_STEPS").map_or(default, |steps| steps as usize)
}

#[test]
fn soak_without_execution_utf16() {
    let mut soak = Soak::start("utf16", seed_or(0x5eed_0016), false, false);
    soak.run(steps_or(1500));
    soak.finish();
}

#[test]
fn soak_without_execution_utf8() {
    let mut soak = Soak::start("utf8", seed_or(0x5eed_0008), true, false);
    soak.run(steps_or(1500));
    soak.finish();
}

#[test]
fn soak_with_generation() {
    if !e2e_enabled() {
        return;
    }
    let mut soak = Soak::start("generation", seed_or(0x5eed_e2e0), false, true);
    soak.run(steps_or(500));
    let (finished, cancelled) = soak.runs();
    eprintln!("runs: {finished} finished with results, {cancelled} cancelled");
    assert!(
        finished > 0 && cancelled > 0,
        "the session let runs finish and cancelled others ({finished} finished, {cancelled} cancelled)"
    );
    soak.finish();
}
