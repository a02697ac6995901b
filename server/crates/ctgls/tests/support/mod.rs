//! A small LSP client for end-to-end tests. It starts the real `ctgls` binary, speaks
//! JSON-RPC with `Content-Length` framing over its stdin/stdout, answers the server's requests
//! and records everything the server wrote, so that tests can assert that stdout carried
//! nothing but well-framed JSON-RPC.

// Each test binary includes this module and uses a different part of it.
#![allow(dead_code)]

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

pub mod scratch;
#[allow(unused_imports)]
pub use scratch::{e2e_enabled, Scratch};

/// Copies a directory tree (test fixtures into scratch directories).
pub fn copy_dir(from: &std::path::Path, to: &std::path::Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let path = entry.unwrap().path();
        let target = to.join(path.file_name().unwrap());
        if path.is_dir() {
            copy_dir(&path, &target);
        } else {
            std::fs::copy(&path, &target).unwrap();
        }
    }
}

/// Runs `ctgls generate --project <project> <args> --report <project>/report.json` and returns
/// its output and the report (`Value::Null` when none was written).
pub fn generate_with_report(
    project: &std::path::Path,
    args: &[&str],
) -> (std::process::Output, Value) {
    let report_path = project.join("report.json");
    let output = Command::new(env!("CARGO_BIN_EXE_ctgls"))
        .arg("generate")
        .arg("--project")
        .arg(project)
        .args(args)
        .arg("--report")
        .arg(&report_path)
        .env_remove("CTGLS_LOG")
        .output()
        .expect("the ctgls binary runs");
    let report = std::fs::read_to_string(&report_path)
        .ok()
        .and_then(|text| serde_json::from_str(&text).ok())
        .unwrap_or(Value::Null);
    (output, report)
}

/// A copy of the example project (`tests/projects/bank`, sources and a bare `pom.xml`) in a
/// scratch directory, removed on drop.
pub struct Project(pub std::path::PathBuf);

impl Project {
    /// `prefix` names the test file, `name` the test, in the scratch directory's name.
    pub fn copy(prefix: &str, name: &str) -> Project {
        Project::copy_of("bank", prefix, name)
    }

    /// A copy of the example project `tests/projects/<fixture>` (its `src/main` and a bare
    /// `pom.xml`).
    pub fn copy_of(fixture: &str, prefix: &str, name: &str) -> Project {
        let dir =
            std::env::temp_dir().join(format!("ctgls-{prefix}-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let from = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join(format!("../../../tests/projects/{fixture}/src/main"));
        copy_dir(&from, &dir.join("src/main"));
        std::fs::write(dir.join("pom.xml"), "<project/>\n").unwrap();
        Project(dir)
    }

    pub fn file(&self, class: &str) -> std::path::PathBuf {
        self.0
            .join(format!("src/main/java/com/example/bank/{class}.java"))
    }

    pub fn uri(&self, class: &str) -> String {
        format!("file://{}", self.file(class).display())
    }

    pub fn test_file(&self, class: &str) -> std::path::PathBuf {
        self.0.join(format!(
            "src/test/java/com/example/bank/{class}GeneratedTest.java"
        ))
    }
}

impl Drop for Project {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// How long to wait for any single answer from the server.
pub const TIMEOUT: Duration = Duration::from_secs(20);

/// What the stdout reader thread saw.
enum Incoming {
    Message(Value),
    /// Stdout was closed at a message boundary.
    End,
}

pub struct TestServer {
    child: Child,
    stdin: Option<ChildStdin>,
    incoming: Receiver<Incoming>,
    stdout_closed: bool,
    next_id: i64,
    /// Server notifications not yet taken by `wait_for_notification`.
    pending_notifications: Vec<Value>,
    /// Every notification the server sent, in order.
    pub notifications: Vec<Value>,
    /// Every request the server sent, as (method, params), in order.
    pub server_requests: Vec<(String, Value)>,
    /// What `workspace/configuration` answers for each requested item.
    pub configuration: Value,
    protocol_errors: Arc<Mutex<Vec<String>>>,
    stderr: Arc<Mutex<String>>,
}

impl TestServer {
    /// Starts `ctgls lsp` with debug logging on stderr.
    pub fn start() -> Self {
        Self::start_with_args(&["lsp"])
    }

    pub fn start_with_args(args: &[&str]) -> Self {
        Self::start_with_env(args, &[])
    }

    /// `ctgls <args>` with `env` added to its environment. `CTGLS_BENCH_BIN` names another
    /// binary (a release build, for the benchmarks in docs/benchmarks.md) than cargo's.
    pub fn start_with_env(args: &[&str], env: &[(&str, &str)]) -> Self {
        let binary = std::env::var_os("CTGLS_BENCH_BIN")
            .map(std::path::PathBuf::from)
            .unwrap_or_else(|| env!("CARGO_BIN_EXE_ctgls").into());
        let mut child = Command::new(binary)
            .args(args)
            .env("CTGLS_LOG", "debug")
            .envs(env.iter().copied())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("the ctgls binary starts");
        let stdin = child.stdin.take();
        let stdout = child.stdout.take().expect("stdout is piped");
        let stderr = child.stderr.take().expect("stderr is piped");

        let protocol_errors = Arc::new(Mutex::new(Vec::new()));
        let (sender, incoming) = mpsc::channel();
        let errors = protocol_errors.clone();
        thread::spawn(move || read_messages(BufReader::new(stdout), &sender, &errors));

        let stderr_text = Arc::new(Mutex::new(String::new()));
        let sink = stderr_text.clone();
        thread::spawn(move || {
            let mut lines = BufReader::new(stderr);
            let mut line = String::new();
            while matches!(lines.read_line(&mut line), Ok(n) if n > 0) {
                sink.lock().unwrap().push_str(&line);
                line.clear();
            }
        });

        Self {
            child,
            stdin,
            incoming,
            stdout_closed: false,
            next_id: 1,
            pending_notifications: Vec::new(),
            notifications: Vec::new(),
            server_requests: Vec::new(),
            configuration: Value::Null,
            protocol_errors,
            stderr: stderr_text,
        }
    }

    /// `initialize` with `params`, then `initialized`. Returns the initialize result.
    pub fn initialize(&mut self, params: Value) -> Value {
        let result = self
            .request("initialize", params)
            .unwrap_or_else(|error| panic!("initialize failed: {error}"));
        self.notify("initialized", json!({}));
        result
    }

    /// `initialize` for `project` as the root and only workspace folder (named `bank`), with
    /// `settings` as `initializationOptions`, then `initialized`.
    pub fn initialize_project(&mut self, project: &Project, settings: Value, capabilities: Value) {
        let root = format!("file://{}", project.0.display());
        self.initialize(json!({
            "processId": null,
            "rootUri": root,
            "workspaceFolders": [{ "uri": root, "name": "bank" }],
            "initializationOptions": settings,
            "capabilities": capabilities,
        }));
    }

    /// Opens `project`'s class `class` (a simple name under `com/example/bank`, as
    /// `Project::file` has it) with its text on disk, version 1; its URI.
    pub fn open_class(&mut self, project: &Project, class: &str) -> String {
        let uri = project.uri(class);
        let text = std::fs::read_to_string(project.file(class)).unwrap();
        self.notify(
            "textDocument/didOpen",
            json!({ "textDocument": { "uri": uri, "languageId": "java", "version": 1, "text": text } }),
        );
        uri
    }

    /// Sends a request and waits for its response, answering server requests and collecting
    /// notifications meanwhile. `Err` holds a JSON-RPC error object.
    pub fn request(&mut self, method: &str, params: Value) -> Result<Value, Value> {
        let id = self.next_id;
        self.next_id += 1;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        let deadline = Instant::now() + TIMEOUT;
        loop {
            let message = self.receive(deadline, &format!("the response to {method}"));
            if message.get("method").is_none() && message["id"] == json!(id) {
                return match message.get("error") {
                    Some(error) => Err(error.clone()),
                    None => Ok(message.get("result").cloned().unwrap_or(Value::Null)),
                };
            }
            self.dispatch(message);
        }
    }

    pub fn notify(&mut self, method: &str, params: Value) {
        self.send(&json!({"jsonrpc": "2.0", "method": method, "params": params}));
    }

    /// Waits for a notification with `method` whose params satisfy `matches`, and removes it
    /// from the pending ones.
    pub fn wait_for_notification(
        &mut self,
        method: &str,
        matches: impl Fn(&Value) -> bool,
    ) -> Value {
        self.wait_for_notification_within(method, TIMEOUT, matches)
    }

    /// `wait_for_notification` with a deadline of its own (generation runs take seconds).
    pub fn wait_for_notification_within(
        &mut self,
        method: &str,
        timeout: Duration,
        matches: impl Fn(&Value) -> bool,
    ) -> Value {
        let found = |n: &Value| n["method"] == method && matches(&n["params"]);
        let deadline = Instant::now() + timeout;
        loop {
            if let Some(index) = self.pending_notifications.iter().position(found) {
                return self.pending_notifications.remove(index)["params"].clone();
            }
            let message = self.receive(deadline, &format!("a {method} notification"));
            self.dispatch(message);
        }
    }

    /// Receives and files whatever the server sends during `duration` (answering its
    /// requests), without waiting for anything in particular.
    pub fn pump_for(&mut self, duration: Duration) {
        let deadline = Instant::now() + duration;
        while !self.stdout_closed {
            let timeout = deadline.saturating_duration_since(Instant::now());
            match self.incoming.recv_timeout(timeout) {
                Ok(Incoming::Message(message)) => self.dispatch(message),
                Ok(Incoming::End) | Err(RecvTimeoutError::Disconnected) => {
                    self.stdout_closed = true;
                }
                Err(RecvTimeoutError::Timeout) => return,
            }
        }
    }

    /// Drops the notifications received so far, so that the next wait sees only newer ones.
    pub fn forget_notifications(&mut self) {
        self.pending_notifications.clear();
    }

    /// Waits for a `window/logMessage` or `window/showMessage` whose text contains `needle`.
    pub fn wait_for_message(&mut self, method: &str, needle: &str) -> Value {
        self.wait_for_notification(method, |params| {
            params["message"]
                .as_str()
                .is_some_and(|message| message.contains(needle))
        })
    }

    /// Retries the request until `done` accepts its result: for state that the server updates
    /// in the background, such as configuration pulled from the client.
    pub fn poll_request(
        &mut self,
        method: &str,
        params: Value,
        done: impl Fn(&Value) -> bool,
    ) -> Value {
        let deadline = Instant::now() + TIMEOUT;
        loop {
            let result = self
                .request(method, params.clone())
                .unwrap_or_else(|error| panic!("{method} failed: {error}"));
            if done(&result) {
                return result;
            }
            assert!(
                Instant::now() < deadline,
                "{method} never gave the expected result; last: {result}\n{}",
                self.stderr()
            );
            thread::sleep(Duration::from_millis(20));
        }
    }

    /// `shutdown`, then `exit`; waits for the process and checks that stdout was closed at a
    /// message boundary with nothing but JSON-RPC on it.
    pub fn shutdown_and_exit(mut self) -> ExitStatus {
        let result = self.request("shutdown", Value::Null);
        assert_eq!(result, Ok(Value::Null), "shutdown answers null");
        self.exit()
    }

    /// `exit` (with or without a `shutdown` before); waits for the process to end.
    pub fn exit(mut self) -> ExitStatus {
        self.notify("exit", Value::Null);
        let deadline = Instant::now() + TIMEOUT;
        while let Some(message) = self.next_message(deadline, "stdout to close after exit") {
            self.dispatch(message);
        }
        let status = self.wait_for_exit(deadline);
        self.assert_clean_protocol();
        status
    }

    pub fn assert_clean_protocol(&self) {
        let errors = self.protocol_errors.lock().unwrap();
        assert!(
            errors.is_empty(),
            "stdout carried something other than JSON-RPC: {errors:?}\n{}",
            self.stderr()
        );
    }

    /// The server's process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// The server's child processes (JVM workers), from `/proc`.
    pub fn children(&self) -> Vec<u32> {
        let pid = self.child.id();
        let mut out = Vec::new();
        if let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) {
            for task in tasks.flatten() {
                if let Ok(text) = std::fs::read_to_string(task.path().join("children")) {
                    out.extend(
                        text.split_whitespace()
                            .filter_map(|p| p.parse::<u32>().ok()),
                    );
                }
            }
        }
        out
    }

    /// What the server wrote to stderr so far.
    pub fn stderr(&self) -> String {
        self.stderr.lock().unwrap().clone()
    }

    fn wait_for_exit(&mut self, deadline: Instant) -> ExitStatus {
        loop {
            if let Some(status) = self.child.try_wait().expect("try_wait works") {
                return status;
            }
            assert!(
                Instant::now() < deadline,
                "the server did not exit\n{}",
                self.stderr()
            );
            thread::sleep(Duration::from_millis(10));
        }
    }

    fn send(&mut self, message: &Value) {
        let body = serde_json::to_string(message).unwrap();
        let stdin = self.stdin.as_mut().expect("stdin is open");
        write!(stdin, "Content-Length: {}\r\n\r\n{body}", body.len())
            .and_then(|()| stdin.flush())
            .unwrap_or_else(|error| panic!("cannot write to the server: {error}"));
    }

    /// The next message, or `None` once stdout is closed.
    fn next_message(&mut self, deadline: Instant, waiting_for: &str) -> Option<Value> {
        if self.stdout_closed {
            return None;
        }
        let timeout = deadline.saturating_duration_since(Instant::now());
        match self.incoming.recv_timeout(timeout) {
            Ok(Incoming::Message(message)) => Some(message),
            Ok(Incoming::End) | Err(RecvTimeoutError::Disconnected) => {
                self.stdout_closed = true;
                None
            }
            Err(RecvTimeoutError::Timeout) => {
                panic!("timed out waiting for {waiting_for}\n{}", self.stderr())
            }
        }
    }

    fn receive(&mut self, deadline: Instant, waiting_for: &str) -> Value {
        match self.next_message(deadline, waiting_for) {
            Some(message) => message,
            None => {
                self.assert_clean_protocol();
                panic!(
                    "the server closed stdout while waiting for {waiting_for}\n{}",
                    self.stderr()
                )
            }
        }
    }

    /// Files a notification, or answers a server request.
    fn dispatch(&mut self, message: Value) {
        let Some(method) = message["method"].as_str().map(str::to_owned) else {
            panic!("a response to no request of ours: {message}");
        };
        let params = message.get("params").cloned().unwrap_or(Value::Null);
        match message.get("id") {
            None => {
                self.notifications.push(message.clone());
                self.pending_notifications.push(message);
            }
            Some(id) => {
                let result = match method.as_str() {
                    "workspace/configuration" => {
                        let items = params["items"].as_array().map_or(0, Vec::len);
                        Value::Array(vec![self.configuration.clone(); items])
                    }
                    _ => Value::Null,
                };
                let id = id.clone();
                self.server_requests.push((method, params));
                self.send(&json!({"jsonrpc": "2.0", "id": id, "result": result}));
            }
        }
    }
}

impl Drop for TestServer {
    fn drop(&mut self) {
        // Closing stdin first lets a healthy server end on its own; a stuck one is killed.
        self.stdin.take();
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
        if thread::panicking() {
            eprintln!("--- ctgls stderr ---\n{}", self.stderr());
        }
    }
}

/// Reads framed messages until stdout closes, recording anything that is not a well-framed
/// JSON-RPC 2.0 message.
fn read_messages(
    mut stdout: impl BufRead,
    sender: &mpsc::Sender<Incoming>,
    errors: &Mutex<Vec<String>>,
) {
    let error = |message: String| errors.lock().unwrap().push(message);
    loop {
        let mut content_length = None;
        let mut at_boundary = true;
        loop {
            let mut line = Vec::new();
            match stdout.read_until(b'\n', &mut line) {
                Ok(0) if at_boundary => {
                    let _ = sender.send(Incoming::End);
                    return;
                }
                Ok(0) => {
                    error("stdout ended inside a header".into());
                    let _ = sender.send(Incoming::End);
                    return;
                }
                Ok(_) => {}
                Err(e) => {
                    error(format!("cannot read stdout: {e}"));
                    let _ = sender.send(Incoming::End);
                    return;
                }
            }
            at_boundary = false;
            let Some(header) = line.strip_suffix(b"\r\n") else {
                error(format!(
                    "header line not ended by CRLF: {:?}",
                    String::from_utf8_lossy(&line)
                ));
                continue;
            };
            if header.is_empty() {
                break;
            }
            let header = String::from_utf8_lossy(header);
            match header.split_once(": ") {
                Some((name, value)) if name.eq_ignore_ascii_case("Content-Length") => {
                    content_length = value.trim().parse::<usize>().ok();
                    if content_length.is_none() {
                        error(format!("bad Content-Length: {header:?}"));
                    }
                }
                Some((name, _)) if name.eq_ignore_ascii_case("Content-Type") => {}
                _ => error(format!("unexpected header line: {header:?}")),
            }
        }
        let Some(length) = content_length else {
            error("message without Content-Length".into());
            continue;
        };
        let mut body = vec![0; length];
        if let Err(e) = stdout.read_exact(&mut body) {
            error(format!("stdout ended inside a body: {e}"));
            let _ = sender.send(Incoming::End);
            return;
        }
        match serde_json::from_slice::<Value>(&body) {
            Ok(message) if message["jsonrpc"] == "2.0" => {
                if sender.send(Incoming::Message(message)).is_err() {
                    return;
                }
            }
            Ok(message) => error(format!("not JSON-RPC 2.0: {message}")),
            Err(e) => error(format!(
                "body is not JSON ({e}): {:?}",
                String::from_utf8_lossy(&body)
            )),
        }
    }
}

/// The LSP position of byte `offset` in `text`, with `character` in UTF-8 or UTF-16 units
/// (`utf8` selects). Lines end at "\r\n", "\n" or "\r". Independent of the server's code.
pub fn position(text: &str, offset: usize, utf8: bool) -> Value {
    let before = &text[..offset];
    let mut line = 0;
    let mut line_start = 0;
    let bytes = before.as_bytes();
    for (i, &b) in bytes.iter().enumerate() {
        let is_break = b == b'\n' || (b == b'\r' && text.as_bytes().get(i + 1) != Some(&b'\n'));
        if is_break {
            line += 1;
            line_start = i + 1;
        }
    }
    let in_line = &before[line_start..];
    let character = if utf8 {
        in_line.len()
    } else {
        in_line.encode_utf16().count()
    };
    json!({"line": line, "character": character})
}
