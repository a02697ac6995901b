//! Nondeterministic inputs: the lines of a class that read something a test does not control
//! (the clock, an unseeded random generator, UUIDs, environment variables, the machine's
//! properties, default time zone, locale or charset, the console, files named by an absolute
//! path, the network), found in the syntax tree, and calls of the class's own methods that
//! reach such a line. A value computed from one differs between runs or machines, so emission
//! never asserts it (docs/emission.md, "Nondeterministic inputs"); `link` says which left-out
//! assertions each line explains. One model for the CLI's report and the editor's
//! `nondeterministic-input` diagnostics.
//!
//! The detection is syntactic (no type resolution): a call is recognised by its receiver's
//! simple name and its method name (`Instant.now()`, `java.util.UUID.randomUUID()`), a
//! creation by its type's simple name, so a project class named `Instant` with a `now` method
//! is a false positive and a `Random` held in a field is found where it is created, not where
//! it is used.

pub mod link;

use std::collections::{BTreeMap, BTreeSet};
use std::ops::Range;

use javamodel::{JavaModel, Member, MemberKind, TypeDecl};
use syntax::tree_sitter::{Node, Tree};

/// What a line reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum InputKind {
    Clock,
    Random,
    Uuid,
    Environment,
    SystemProperty,
    /// The host's name or address, processors, memory.
    Machine,
    TimeZone,
    Locale,
    Charset,
    Console,
    File,
    Network,
}

impl InputKind {
    /// The name used in the report and in diagnostics' data.
    pub fn as_str(self) -> &'static str {
        match self {
            InputKind::Clock => "clock",
            InputKind::Random => "random",
            InputKind::Uuid => "uuid",
            InputKind::Environment => "environment",
            InputKind::SystemProperty => "system-property",
            InputKind::Machine => "machine",
            InputKind::TimeZone => "time-zone",
            InputKind::Locale => "locale",
            InputKind::Charset => "charset",
            InputKind::Console => "console",
            InputKind::File => "file",
            InputKind::Network => "network",
        }
    }

    /// Why a value computed from it is never asserted, for messages and hover.
    pub fn why(self) -> &'static str {
        match self {
            InputKind::Clock => "it differs from run to run and day to day",
            InputKind::Random | InputKind::Uuid => "it differs from run to run",
            InputKind::Environment | InputKind::SystemProperty | InputKind::Machine => {
                "it differs on another machine, and could be a secret"
            }
            InputKind::TimeZone | InputKind::Locale | InputKind::Charset => {
                "it differs on a machine set up for another country"
            }
            InputKind::Console => "a test supplies no console input",
            InputKind::File => "the file differs on another machine",
            InputKind::Network => "the network differs from run to run and machine to machine",
        }
    }
}

/// One nondeterministic input of a class: a call that reads one (direct) or a call of the
/// class's own method that reaches one (`through`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NondeterministicInput {
    pub kind: InputKind,
    /// What it reads: `the clock (System.currentTimeMillis())`, `the environment variable
    /// "HOME"`; for a call through a helper, what the helper reads.
    pub what: String,
    /// The call's bytes in the source.
    pub bytes: Range<usize>,
    /// 1-based line of the call's start.
    pub line: u32,
    /// 1-based line of the statement that holds the call (where the instrumentation's line
    /// probe sits), or `None` when the call is outside any statement of a body (a field's
    /// initializer).
    pub statement_line: Option<u32>,
    /// The key of the member that holds the call (`a.B#m(int)`, `a.B#<instinit>`).
    pub member: Option<String>,
    /// For a call of the class's own method: its name and the line of the direct input it
    /// reaches (the first, when several).
    pub through: Option<(String, u32)>,
}

/// System properties whose values come from the machine or the user.
const MACHINE_PROPERTIES: &[&str] = &[
    "user.name",
    "user.home",
    "user.dir",
    "user.timezone",
    "user.language",
    "user.country",
    "file.encoding",
    "java.io.tmpdir",
    "os.name",
    "os.version",
    "os.arch",
    "java.home",
    "java.version",
    "java.class.path",
    "line.separator",
];

/// `Files` methods that read a file or what the file system holds.
const FILE_READS: &[&str] = &[
    "readString",
    "readAllBytes",
    "readAllLines",
    "lines",
    "newBufferedReader",
    "newInputStream",
    "exists",
    "size",
    "list",
    "walk",
    "getLastModifiedTime",
];

/// Types whose static `now()` reads the clock.
const NOW_TYPES: &[&str] = &[
    "Instant",
    "LocalDate",
    "LocalDateTime",
    "LocalTime",
    "ZonedDateTime",
    "OffsetDateTime",
    "OffsetTime",
    "Year",
    "YearMonth",
    "MonthDay",
    "HijrahDate",
    "JapaneseDate",
    "MinguoDate",
    "ThaiBuddhistDate",
];

/// Every nondeterministic input of the file `text` (its tree and model), in source order: the
/// direct ones, then per call of the file's own methods that reach one, that call.
pub fn find(text: &str, tree: &Tree, model: &JavaModel) -> Vec<NondeterministicInput> {
    let mut direct = Vec::new();
    let mut calls = Vec::new();
    let mut stack = vec![tree.root_node()];
    while let Some(node) = stack.pop() {
        if let Some((kind, what)) = classify(node, text) {
            direct.push(input(node, kind, what, model));
        } else if let Some(call) = own_call(node, text) {
            calls.push(call);
        }
        let mut cursor = node.walk();
        for child in node.children(&mut cursor) {
            stack.push(child);
        }
    }
    direct.sort_by_key(|i| i.bytes.start);
    let through = through_helpers(&direct, &calls, model);
    let mut all = direct;
    all.extend(through);
    all.sort_by_key(|i| i.bytes.start);
    // `this.stamp() + stamp()`: one input per line and thing read is enough.
    let mut seen = BTreeSet::new();
    all.retain(|i| seen.insert((i.line, i.kind, i.what.clone(), i.through.clone())));
    all
}

fn input(node: Node, kind: InputKind, what: String, model: &JavaModel) -> NondeterministicInput {
    NondeterministicInput {
        kind,
        what,
        bytes: node.start_byte()..node.end_byte(),
        line: node.start_position().row as u32 + 1,
        statement_line: statement_of(node).map(|s| s.start_position().row as u32 + 1),
        member: member_at(model, node.start_byte()).map(|m| m.key.clone()),
        through: None,
    }
}

impl NondeterministicInput {
    /// The sentence shown to the developer: `reads the clock (System.currentTimeMillis())`,
    /// `reads the clock (Instant.now()) through now() (line 12)`.
    pub fn describe(&self) -> String {
        match &self.through {
            None => format!("reads {}", self.what),
            Some((helper, line)) => format!("reads {} through {helper}() (line {line})", self.what),
        }
    }
}

/// The statement of a body that holds `node`: the node whose parent is a block, a switch
/// group or a constructor body (where the instrumentation puts line probes).
fn statement_of(node: Node) -> Option<Node> {
    let mut current = node;
    while let Some(parent) = current.parent() {
        if matches!(
            parent.kind(),
            "block" | "constructor_body" | "switch_block_statement_group" | "switch_rule"
        ) {
            return Some(current);
        }
        if matches!(parent.kind(), "class_body" | "field_declaration") {
            return None;
        }
        current = parent;
    }
    None
}

/// The innermost member (of any type of the file, local and anonymous ones included) whose
/// pieces hold `byte`.
fn member_at(model: &JavaModel, byte: usize) -> Option<&Member> {
    fn in_type(ty: &TypeDecl, byte: usize) -> Option<&Member> {
        if !ty.span.contains_byte(byte) {
            return None;
        }
        for nested in &ty.nested_types {
            if let Some(m) = in_type(nested, byte) {
                return Some(m);
            }
        }
        for member in &ty.members {
            if member.pieces.iter().any(|p| p.contains_byte(byte)) {
                for local in &member.local_types {
                    if let Some(m) = in_type(local, byte) {
                        return Some(m);
                    }
                }
                return Some(member);
            }
        }
        None
    }
    model.types.iter().find_map(|ty| in_type(ty, byte))
}

fn source<'t>(node: Node, text: &'t str) -> &'t str {
    text.get(node.start_byte()..node.end_byte()).unwrap_or("")
}

fn arguments(call: Node) -> Vec<Node> {
    let Some(arguments) = call.child_by_field_name("arguments") else {
        return Vec::new();
    };
    let mut cursor = arguments.walk();
    let out: Vec<Node> = arguments.named_children(&mut cursor).collect();
    out
}

fn simple(name: &str) -> &str {
    name.rsplit('.').next().unwrap_or(name)
}

/// What `node` reads, if it is a call or creation that reads a nondeterministic input.
fn classify(node: Node, text: &str) -> Option<(InputKind, String)> {
    use InputKind as K;
    let call_text = || {
        source(node, text)
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
    };
    match node.kind() {
        "method_invocation" => {
            let name = source(node.child_by_field_name("name")?, text);
            let object = node
                .child_by_field_name("object")
                .map(|o| source(o, text))
                .unwrap_or("");
            let args = arguments(node);
            let first = args.first().map(|a| source(*a, text));
            let called = |what: &str| format!("{what} ({})", call_text());
            match (simple(object), name) {
                ("System", "currentTimeMillis" | "nanoTime") => {
                    Some((K::Clock, called("the clock")))
                }
                (ty, "now") if NOW_TYPES.contains(&ty) && takes_no_clock(&args, text) => {
                    Some((K::Clock, called("the clock")))
                }
                ("Calendar", "getInstance") => Some((K::Clock, called("the clock"))),
                ("Clock", "systemUTC" | "systemDefaultZone" | "system") => {
                    Some((K::Clock, called("the clock")))
                }
                ("Math" | "StrictMath", "random") => Some((K::Random, called("a random number"))),
                ("ThreadLocalRandom", "current") => {
                    Some((K::Random, called("an unseeded random generator")))
                }
                ("Collections", "shuffle") if args.len() == 1 => {
                    Some((K::Random, called("an unseeded random order")))
                }
                ("UUID", "randomUUID") => Some((K::Uuid, called("a random UUID"))),
                ("System", "getenv") => Some((
                    K::Environment,
                    match first {
                        Some(arg) => format!("the environment variable {arg}"),
                        None => "the whole environment".to_string(),
                    },
                )),
                ("System", "getProperty") => {
                    let key = first.unwrap_or("");
                    MACHINE_PROPERTIES
                        .contains(&key.trim_matches('"'))
                        .then(|| (K::SystemProperty, format!("the system property {key}")))
                }
                ("System", "getProperties") => {
                    Some((K::SystemProperty, "every system property".to_string()))
                }
                ("System", "lineSeparator") => Some((
                    K::SystemProperty,
                    "the machine's line separator (System.lineSeparator())".to_string(),
                )),
                ("InetAddress", "getLocalHost") => {
                    Some((K::Machine, "the host's name and address".into()))
                }
                (_, "availableProcessors" | "freeMemory" | "totalMemory" | "maxMemory")
                    if object.contains("Runtime") =>
                {
                    Some((K::Machine, called("the machine's resources")))
                }
                ("TimeZone", "getDefault") | ("ZoneId", "systemDefault") => {
                    Some((K::TimeZone, called("the default time zone")))
                }
                ("Locale", "getDefault") => Some((K::Locale, called("the default locale"))),
                ("Charset", "defaultCharset") => Some((K::Charset, called("the default charset"))),
                ("System", "console") => Some((K::Console, called("the console"))),
                ("Files", method) if FILE_READS.contains(&method) => {
                    absolute_path(*args.first()?, text).map(|p| (K::File, format!("the file {p}")))
                }
                ("HttpClient", "newHttpClient") => Some((K::Network, called("the network"))),
                (_, "openStream" | "openConnection") if args.is_empty() => {
                    Some((K::Network, called("the network")))
                }
                _ => None,
            }
        }
        "object_creation_expression" => {
            let ty = source(node.child_by_field_name("type")?, text);
            let args = arguments(node);
            let first = args.first().map(|a| source(*a, text));
            let created = |what: &str| format!("{what} ({})", call_text());
            match simple(ty) {
                "Random" | "SplittableRandom" if args.is_empty() => {
                    Some((K::Random, created("an unseeded random generator")))
                }
                "SecureRandom" => Some((K::Random, created("an unseeded random generator"))),
                "Date" | "GregorianCalendar" if args.is_empty() => {
                    Some((K::Clock, created("the clock")))
                }
                "Scanner" | "InputStreamReader" | "BufferedInputStream"
                    if first == Some("System.in") =>
                {
                    Some((K::Console, "the console (System.in)".to_string()))
                }
                "FileReader" | "FileInputStream" | "Scanner" | "RandomAccessFile" => {
                    let path = absolute_path(*args.first()?, text)?;
                    Some((K::File, format!("the file {path}")))
                }
                "Socket" | "ServerSocket" | "DatagramSocket" => {
                    Some((K::Network, created("the network")))
                }
                _ => None,
            }
        }
        _ => None,
    }
}

/// `now()` and `now(zone)` read the system clock; `now(clock)` reads the clock it is given.
fn takes_no_clock(args: &[Node], text: &str) -> bool {
    match args {
        [] => true,
        [arg] => {
            let arg = source(*arg, text);
            arg.contains("Zone") || arg.contains("zone")
        }
        _ => false,
    }
}

/// The absolute path a file-reading call is given as a literal: `"/etc/hostname"`,
/// `Paths.get("/etc/hostname")`, `new File("/etc/hostname")`, `Path.of("C:\\...")`.
fn absolute_path(argument: Node, text: &str) -> Option<String> {
    let literal = match argument.kind() {
        "string_literal" => argument,
        "method_invocation" | "object_creation_expression" => {
            let inner = *arguments(argument).first()?;
            (inner.kind() == "string_literal").then_some(inner)?
        }
        _ => return None,
    };
    let value = source(literal, text).trim_matches('"');
    let absolute = value.starts_with('/')
        || value.starts_with('~')
        || value.get(1..3).is_some_and(|s| s == ":\\" || s == ":/");
    absolute.then(|| value.to_string())
}

/// A call of one of the file's own methods: unqualified or on `this`.
struct OwnCall<'t> {
    node: Node<'t>,
    name: String,
    arity: usize,
}

fn own_call<'t>(node: Node<'t>, text: &str) -> Option<OwnCall<'t>> {
    if node.kind() != "method_invocation" {
        return None;
    }
    let object = node.child_by_field_name("object").map(|o| source(o, text));
    if !matches!(object, None | Some("this")) {
        return None;
    }
    Some(OwnCall {
        node,
        name: source(node.child_by_field_name("name")?, text).to_string(),
        arity: arguments(node).len(),
    })
}

/// The calls of the file's own methods that reach a direct input, directly or through other
/// such calls (a fixpoint over the file's call graph, matched by name and arity: no overload
/// resolution, so two overloads of one arity count as one method).
fn through_helpers(
    direct: &[NondeterministicInput],
    calls: &[OwnCall],
    model: &JavaModel,
) -> Vec<NondeterministicInput> {
    // Per method (name, arity), the first direct input it reaches: (input index).
    let mut reaches: BTreeMap<(String, usize), usize> = BTreeMap::new();
    let methods: Vec<&Member> = model
        .all_types()
        .into_iter()
        .flat_map(|ty| &ty.members)
        .filter(|m| m.kind == MemberKind::Method)
        .collect();
    let method_of = |key: &str| methods.iter().find(|m| m.key == key).copied();
    for (index, input) in direct.iter().enumerate() {
        if let Some(m) = input.member.as_deref().and_then(method_of) {
            reaches
                .entry((m.name.clone(), m.params.len()))
                .or_insert(index);
        }
    }
    let declared: BTreeSet<(String, usize)> = methods
        .iter()
        .map(|m| (m.name.clone(), m.params.len()))
        .collect();
    let caller_of = |call: &OwnCall| -> Option<(String, usize)> {
        let m = method_of(&member_at(model, call.node.start_byte())?.key)?;
        Some((m.name.clone(), m.params.len()))
    };
    loop {
        let mut changed = false;
        for call in calls {
            let callee = (call.name.clone(), call.arity);
            let Some(&index) = reaches.get(&callee) else {
                continue;
            };
            if let Some(caller) = caller_of(call) {
                if let std::collections::btree_map::Entry::Vacant(entry) = reaches.entry(caller) {
                    entry.insert(index);
                    changed = true;
                }
            }
        }
        if !changed {
            break;
        }
    }
    calls
        .iter()
        .filter(|call| declared.contains(&(call.name.clone(), call.arity)))
        .filter_map(|call| {
            let index = *reaches.get(&(call.name.clone(), call.arity))?;
            let target = &direct[index];
            let mut through = input(call.node, target.kind, target.what.clone(), model);
            through.through = Some((call.name.clone(), target.line));
            Some(through)
        })
        .collect()
}

#[cfg(test)]
mod tests;
