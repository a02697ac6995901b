//! Typed decoding of the lines of an `execute` request (docs/protocol.md), one `test` event per
//! test: in one pass from the line into wire structs that borrow from it, then into
//! [`TestResult`], without a `serde_json::Value` tree (building, walking and dropping one cost
//! the supervisor more than twice as much, `docs/benchmarks.md`).
//!
//! `null` counts as absent and a missing field takes its default; fields the reader does not
//! know are skipped (the versioning rule); the values whose JSON type varies on the wire
//! (observed values, `"NaN"`/`"Infinity"` floats, distances, hit counts that overflowed) are
//! [`Scalar`]s, judged as `serde_json::Value` would judge them. A field of another JSON type than
//! the protocol gives it is a protocol error. Java strings that must arrive exactly (observed
//! values, exception messages) are a JSON string or, when they are not valid Unicode, the array
//! of their UTF-16 code units (docs/protocol.md, "Strings"); both decode to a [`JavaText`].

use std::borrow::Cow;
use std::fmt;
use std::time::Duration;

use serde::de::{Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;
use serde_json::value::RawValue;

use super::{invalid_json, Envelope, ErrorEntry, Message, Res};
use crate::model::*;
use javatext::JavaText;

/// Sorts a line of an `execute` request as [`super::message`] does and, when it is a `test`
/// event, decodes its result onto `results`.
pub(crate) fn execute_message(
    line: &str,
    request: u64,
    results: &mut Vec<TestResult>,
) -> Res<Message> {
    let mut line: ExecuteLine<'_> = serde_json::from_str(line).map_err(invalid_json)?;
    let envelope = Envelope {
        id: line.id,
        event: line.event,
        ok: line.ok,
        error: line.error.take(),
    };
    let message = envelope.sort(request)?;
    if let Message::Event = message {
        results.push(line.into_result()?);
    }
    Ok(message)
}

/// A line of an `execute` request: a `test` event, or the final reply or a rejection, which
/// leave the event's fields absent (`index`, and the final reply's own fields, are skipped).
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct ExecuteLine<'a> {
    // The envelope's fields, as in `Envelope`, which serde cannot flatten into this struct
    // without buffering the whole line first.
    #[serde(borrow)]
    id: Option<&'a RawValue>,
    #[serde(default, deserialize_with = "super::present")]
    event: bool,
    ok: Option<bool>,
    error: Option<ErrorEntry>,

    /// A [`Scalar`] so that a status of another JSON type is reported like a missing one.
    #[serde(borrow)]
    status: Option<Scalar<'a>>,
    failed_at: Option<u64>,
    #[serde(borrow)]
    statements: Option<Vec<StatementEntry<'a>>>,
    exception: Option<ExceptionEntry>,
    message: Option<String>,
    exit_status: Option<i64>,
    exit_attempted: Option<i64>,
    #[serde(borrow)]
    trace: Option<TraceEntry<'a>>,
    stdout: Option<String>,
    stderr: Option<String>,
    output_truncated: Option<bool>,
    duration_micros: Option<u64>,
    leaked_threads: Option<u64>,
    processes_killed: Option<u64>,
    fresh_loader: Option<bool>,
    loader_dropped: Option<String>,
    environment: Option<Vec<EnvironmentEntry>>,
}

impl ExecuteLine<'_> {
    fn into_result(self) -> Res<TestResult> {
        let Some(Scalar::Text(status)) = self.status else {
            return Err("missing string field 'status'".into());
        };
        let status = match &*status {
            "ok" => TestStatus::Ok,
            "exception" => TestStatus::Exception,
            "invalid" => TestStatus::Invalid,
            "timeout" => TestStatus::Timeout,
            "systemExit" => TestStatus::SystemExit,
            "stackOverflow" => TestStatus::StackOverflow,
            "outOfMemory" => TestStatus::OutOfMemory,
            other => return Err(format!("unknown test status '{other}'")),
        };
        let statements = self
            .statements
            .unwrap_or_default()
            .into_iter()
            .map(StatementEntry::into_result)
            .collect::<Res<Vec<_>>>()?;
        Ok(TestResult {
            status,
            failed_at: self.failed_at.map(|n| n as usize),
            statements,
            exception: self.exception.map(ExceptionEntry::into_exception),
            message: self.message,
            exit_status: self.exit_status.map(|n| n as i32),
            exit_attempted: self.exit_attempted.map(|n| n as i32),
            trace: self.trace.map(TraceEntry::into_trace).unwrap_or_default(),
            stdout: self.stdout.unwrap_or_default(),
            stderr: self.stderr.unwrap_or_default(),
            output_truncated: self.output_truncated.unwrap_or(false),
            duration: Duration::from_micros(self.duration_micros.unwrap_or(0)),
            leaked_threads: self.leaked_threads.unwrap_or(0) as u32,
            processes_killed: self.processes_killed.unwrap_or(0) as u32,
            // Workers before this field always used a fresh loader.
            fresh_loader: self.fresh_loader.unwrap_or(true),
            loader_dropped: self.loader_dropped,
            environment: self
                .environment
                .unwrap_or_default()
                .into_iter()
                .map(EnvironmentEntry::into_need)
                .collect(),
        })
    }
}

/// One entry of a test's `environment` (docs/protocol.md, "Environment").
#[derive(Deserialize)]
struct EnvironmentEntry {
    kind: Option<String>,
    action: Option<String>,
    target: Option<String>,
    refused: Option<bool>,
    detail: Option<String>,
    file: Option<String>,
    line: Option<u64>,
}

impl EnvironmentEntry {
    /// An entry of a kind, or without a field, this reader does not know is still a need, so
    /// that the test is not written either way.
    fn into_need(self) -> EnvironmentNeed {
        let kind = match self.kind.as_deref() {
            Some("network") => EnvironmentKind::Network,
            Some("process") => EnvironmentKind::Process,
            _ => EnvironmentKind::File,
        };
        EnvironmentNeed {
            kind,
            action: self.action.unwrap_or_else(|| "uses".into()),
            target: self.target.unwrap_or_else(|| "something".into()),
            refused: self.refused.unwrap_or(false),
            detail: self.detail,
            file: self.file,
            line: self.line.and_then(|l| u32::try_from(l).ok()),
        }
    }
}

#[derive(Deserialize)]
struct StatementEntry<'a> {
    void: Option<bool>,
    #[serde(borrow)]
    value: Option<ObservationEntry<'a>>,
}

impl StatementEntry<'_> {
    fn into_result(self) -> Res<StatementResult> {
        if self.void == Some(true) {
            return Ok(StatementResult::Void);
        }
        let value = self.value.ok_or("statement result without value")?;
        Ok(StatementResult::Value(value.into_observation()?))
    }
}

#[derive(Deserialize)]
struct ObservationEntry<'a> {
    #[serde(rename = "type")]
    type_name: Option<String>,
    null: Option<bool>,
    #[serde(borrow)]
    value: Option<Scalar<'a>>,
    #[serde(rename = "enum")]
    enum_constant: Option<String>,
    length: Option<u64>,
    truncated: Option<bool>,
    #[serde(borrow)]
    getters: Option<Vec<GetterEntry<'a>>>,
}

impl ObservationEntry<'_> {
    fn into_observation(self) -> Res<Observation> {
        let getters = self
            .getters
            .unwrap_or_default()
            .into_iter()
            .map(GetterEntry::into_getter)
            .collect::<Res<Vec<_>>>()?;
        let type_name = self.type_name;
        Ok(Observation {
            value: self
                .value
                .and_then(|v| v.into_observed_as(type_name.as_deref())),
            type_name,
            is_null: self.null.unwrap_or(false),
            enum_constant: self.enum_constant,
            length: self.length,
            truncated: self.truncated.unwrap_or(false),
            getters,
        })
    }
}

#[derive(Deserialize)]
struct GetterEntry<'a> {
    name: Option<String>,
    threw: Option<String>,
    null: Option<bool>,
    #[serde(rename = "enum")]
    enum_constant: Option<String>,
    #[serde(borrow)]
    value: Option<Scalar<'a>>,
}

impl GetterEntry<'_> {
    fn into_getter(self) -> Res<GetterObservation> {
        let outcome = if let Some(t) = self.threw {
            GetterOutcome::Threw(t)
        } else if self.null == Some(true) {
            GetterOutcome::Null
        } else if let Some(e) = self.enum_constant {
            GetterOutcome::Enum(e)
        } else {
            // Getter values carry no type on the wire; NaN/Infinity arrive as text.
            let raw = self.value.ok_or("getter without value")?;
            GetterOutcome::Value(raw.into_observed().ok_or("bad getter value")?)
        };
        Ok(GetterObservation {
            name: self.name.ok_or("missing string field 'name'")?,
            outcome,
        })
    }
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct ExceptionEntry {
    #[serde(rename = "type")]
    type_name: Option<String>,
    message: Option<TextEntry>,
    declared: Option<bool>,
    checked: Option<bool>,
    frame: Option<FrameEntry>,
    cause: Option<String>,
    by_statement: Option<bool>,
}

impl ExceptionEntry {
    fn into_exception(self) -> ThrownException {
        ThrownException {
            type_name: self.type_name.unwrap_or_default(),
            message: self.message.map(|m| m.0),
            declared: self.declared.unwrap_or(false),
            checked: self.checked.unwrap_or(false),
            frame: self.frame.map(|f| StackFrame {
                class: f.class.unwrap_or_default(),
                method: f.method.unwrap_or_default(),
                file: f.file,
                line: f.line.map(|n| n as u32),
            }),
            cause: self.cause,
            by_statement: self.by_statement.unwrap_or(false),
        }
    }
}

#[derive(Deserialize)]
struct FrameEntry {
    class: Option<String>,
    method: Option<String>,
    file: Option<String>,
    line: Option<u64>,
}

#[derive(Deserialize)]
struct TraceEntry<'a> {
    #[serde(borrow)]
    files: Option<Vec<FileEntry<'a>>>,
    proxies: Option<ProxiesEntry>,
}

impl TraceEntry<'_> {
    fn into_trace(self) -> ExecutionTrace {
        let files = self
            .files
            .unwrap_or_default()
            .into_iter()
            .map(|f| FileTrace {
                key: f.key.unwrap_or_default(),
                branches: f
                    .branches
                    .unwrap_or_default()
                    .iter()
                    .filter_map(|row| {
                        let (id, hits) = row.id_and_hits()?;
                        Some(BranchTrace {
                            id,
                            hits,
                            true_distance: row.distance(2),
                            false_distance: row.distance(3),
                        })
                    })
                    .collect(),
                lines: pairs(f.lines),
                methods: pairs(f.methods),
                loops: pairs(f.loops),
                escapes: f
                    .escapes
                    .unwrap_or_default()
                    .into_iter()
                    .filter_map(EscapeEntry::into_escape)
                    .collect(),
                seeds: f
                    .seeds
                    .unwrap_or_default()
                    .into_iter()
                    .filter_map(Scalar::into_observed)
                    .filter(|v| !matches!(v, ObservedValue::Bool(_)))
                    .collect(),
                mutants: f
                    .mutants
                    .unwrap_or_default()
                    .iter()
                    .filter_map(Row::id_and_distance)
                    .collect(),
            })
            .collect();
        let proxies = self
            .proxies
            .map(|p| PerformanceProxies {
                loop_iterations: p.loop_iterations.unwrap_or(0),
                method_calls: p.method_calls.unwrap_or(0),
                instantiations: p.instantiations.unwrap_or(0),
                statements: p.statements.unwrap_or(0),
            })
            .unwrap_or_default();
        ExecutionTrace { files, proxies }
    }
}

#[derive(Deserialize)]
struct FileEntry<'a> {
    key: Option<String>,
    #[serde(borrow)]
    branches: Option<Vec<Row<'a>>>,
    #[serde(borrow)]
    lines: Option<Vec<Row<'a>>>,
    #[serde(borrow)]
    methods: Option<Vec<Row<'a>>>,
    #[serde(borrow)]
    loops: Option<Vec<Row<'a>>>,
    escapes: Option<Vec<EscapeEntry>>,
    #[serde(borrow)]
    seeds: Option<Vec<Scalar<'a>>>,
    #[serde(borrow)]
    mutants: Option<Vec<Row<'a>>>,
}

/// `{"method", "type", "supertypes", "line", "hits"}`, a later addition to the trace's files.
#[derive(Deserialize)]
struct EscapeEntry {
    method: Option<u64>,
    #[serde(rename = "type")]
    type_name: Option<String>,
    supertypes: Option<Vec<String>>,
    line: Option<u64>,
    hits: Option<u64>,
}

impl EscapeEntry {
    /// An entry without a method id or a type names nothing the model can hold: skipped, as
    /// trace rows without an id are.
    fn into_escape(self) -> Option<EscapeTrace> {
        Some(EscapeTrace {
            method: u32::try_from(self.method?).ok()?,
            type_name: self.type_name?,
            supertypes: self.supertypes.unwrap_or_default(),
            line: self
                .line
                .and_then(|l| u32::try_from(l).ok())
                .filter(|&l| l > 0),
            hits: self.hits.unwrap_or(1),
        })
    }
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct ProxiesEntry {
    loop_iterations: Option<u64>,
    method_calls: Option<u64>,
    instantiations: Option<u64>,
    statements: Option<u64>,
}

fn pairs(rows: Option<Vec<Row<'_>>>) -> Vec<(u32, u64)> {
    rows.unwrap_or_default()
        .iter()
        .filter_map(Row::id_and_hits)
        .collect()
}

/// A trace row, `[localId, hits]` or, for branches, `[localId, hits, trueDistance,
/// falseDistance]`; its first four elements. A row whose id or hit count is not a non-negative
/// integer (a hit count is a Java `int`, which can overflow) is skipped, and a distance that is
/// not a number (an unreached outcome's `"Infinity"`) is `f64::MAX`.
struct Row<'a>([Option<Scalar<'a>>; 4]);

impl Row<'_> {
    fn id_and_hits(&self) -> Option<(u32, u64)> {
        let [id, hits, ..] = &self.0;
        Some((id.as_ref()?.as_u64()? as u32, hits.as_ref()?.as_u64()?))
    }

    /// A mutant row `[localId, infectionDistance]`; a negative distance is no distance.
    fn id_and_distance(&self) -> Option<(u32, f64)> {
        let id = u32::try_from(self.0[0].as_ref()?.as_u64()?).ok()?;
        let distance = self.distance(1);
        (distance >= 0.0).then_some((id, distance))
    }

    fn distance(&self, k: usize) -> f64 {
        self.0[k]
            .as_ref()
            .and_then(Scalar::as_f64)
            .unwrap_or(f64::MAX)
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for Row<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct RowVisitor;
        impl<'de> Visitor<'de> for RowVisitor {
            type Value = Row<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a trace row (an array)")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Row<'de>, A::Error> {
                let mut row = Row([None, None, None, None]);
                for slot in &mut row.0 {
                    match seq.next_element::<Option<Scalar<'de>>>()? {
                        Some(element) => *slot = element,
                        None => return Ok(row),
                    }
                }
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                Ok(row)
            }
        }
        d.deserialize_seq(RowVisitor)
    }
}

/// A value whose JSON type varies on the wire, kept as `serde_json::Value` would keep it but
/// without allocating: numbers split as `serde_json::Number` splits them, strings borrowed from
/// the line unless they hold escapes.
#[derive(Debug)]
enum Scalar<'a> {
    Bool(bool),
    /// A non-negative integer.
    Unsigned(u64),
    /// A negative integer.
    Negative(i64),
    /// A number with a fraction or an exponent.
    Float(f64),
    Text(Cow<'a, str>),
    /// An array of numbers that can be UTF-16 code units: a Java string that is not valid
    /// Unicode.
    Utf16(Vec<u16>),
    /// `null`, an object or another array: no value the model keeps.
    Other,
}

impl Scalar<'_> {
    fn as_u64(&self) -> Option<u64> {
        match self {
            Scalar::Unsigned(n) => Some(*n),
            _ => None,
        }
    }

    fn as_f64(&self) -> Option<f64> {
        match self {
            Scalar::Unsigned(n) => Some(*n as f64),
            Scalar::Negative(n) => Some(*n as f64),
            Scalar::Float(f) => Some(*f),
            _ => None,
        }
    }

    /// `Integer` only for integers that fit an `i64`; other numbers are `Float`.
    fn into_observed(self) -> Option<ObservedValue> {
        Some(match self {
            Scalar::Bool(b) => ObservedValue::Bool(b),
            Scalar::Unsigned(n) => match i64::try_from(n) {
                Ok(i) => ObservedValue::Integer(i),
                Err(_) => ObservedValue::Float(n as f64),
            },
            Scalar::Negative(n) => ObservedValue::Integer(n),
            Scalar::Float(f) => ObservedValue::Float(f),
            Scalar::Text(s) => ObservedValue::Text(JavaText::from(s.into_owned())),
            Scalar::Utf16(units) => ObservedValue::Text(JavaText::from_utf16(units)),
            Scalar::Other => return None,
        })
    }

    /// Values of float types travel as numbers, or as the strings "NaN", "Infinity" and
    /// "-Infinity", which Rust parses as Java prints them.
    fn into_observed_as(self, type_name: Option<&str>) -> Option<ObservedValue> {
        let is_float = matches!(
            type_name,
            Some("float" | "double" | "java.lang.Float" | "java.lang.Double")
        );
        match self {
            Scalar::Text(s) if is_float => s.parse::<f64>().ok().map(ObservedValue::Float),
            n @ (Scalar::Unsigned(_) | Scalar::Negative(_) | Scalar::Float(_)) if is_float => {
                n.as_f64().map(ObservedValue::Float)
            }
            other => other.into_observed(),
        }
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for Scalar<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(ScalarVisitor)
    }
}

struct ScalarVisitor;

impl<'de> Visitor<'de> for ScalarVisitor {
    type Value = Scalar<'de>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_bool<E>(self, b: bool) -> Result<Scalar<'de>, E> {
        Ok(Scalar::Bool(b))
    }
    fn visit_i64<E>(self, n: i64) -> Result<Scalar<'de>, E> {
        Ok(match u64::try_from(n) {
            Ok(u) => Scalar::Unsigned(u),
            Err(_) => Scalar::Negative(n),
        })
    }
    fn visit_u64<E>(self, n: u64) -> Result<Scalar<'de>, E> {
        Ok(Scalar::Unsigned(n))
    }
    fn visit_f64<E>(self, f: f64) -> Result<Scalar<'de>, E> {
        Ok(Scalar::Float(f))
    }
    fn visit_borrowed_str<E>(self, s: &'de str) -> Result<Scalar<'de>, E> {
        Ok(Scalar::Text(Cow::Borrowed(s)))
    }
    fn visit_str<E>(self, s: &str) -> Result<Scalar<'de>, E> {
        Ok(Scalar::Text(Cow::Owned(s.to_owned())))
    }
    fn visit_string<E>(self, s: String) -> Result<Scalar<'de>, E> {
        Ok(Scalar::Text(Cow::Owned(s)))
    }
    fn visit_unit<E>(self) -> Result<Scalar<'de>, E> {
        Ok(Scalar::Other)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Scalar<'de>, A::Error> {
        Ok(match code_units(seq)? {
            Some(units) => Scalar::Utf16(units),
            None => Scalar::Other,
        })
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Scalar<'de>, A::Error> {
        while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok(Scalar::Other)
    }
}

/// The elements of an array as UTF-16 code units; `None` when one is not a number from 0 to
/// 65535. The whole array is read either way.
fn code_units<'de, A: SeqAccess<'de>>(mut seq: A) -> Result<Option<Vec<u16>>, A::Error> {
    let mut units = Some(Vec::with_capacity(seq.size_hint().unwrap_or(0)));
    while let Some(element) = seq.next_element::<Scalar<'de>>()? {
        let unit = element.as_u64().and_then(|n| u16::try_from(n).ok());
        match (&mut units, unit) {
            (Some(units), Some(unit)) => units.push(unit),
            _ => units = None,
        }
    }
    Ok(units)
}

/// A Java string that must arrive exactly: a JSON string, or the array of its code units.
struct TextEntry(JavaText);

impl<'de> Deserialize<'de> for TextEntry {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct TextVisitor;
        impl<'de> Visitor<'de> for TextVisitor {
            type Value = TextEntry;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a string or an array of UTF-16 code units")
            }
            fn visit_str<E>(self, s: &str) -> Result<TextEntry, E> {
                Ok(TextEntry(JavaText::from(s)))
            }
            fn visit_string<E>(self, s: String) -> Result<TextEntry, E> {
                Ok(TextEntry(JavaText::from(s)))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<TextEntry, A::Error> {
                match code_units(seq)? {
                    Some(units) => Ok(TextEntry(JavaText::from_utf16(units))),
                    None => Err(serde::de::Error::custom(
                        "an array whose elements are not all UTF-16 code units",
                    )),
                }
            }
        }
        d.deserialize_any(TextVisitor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Decodes `fields`, a JSON object, as the fields of a `test` event of request 1.
    fn test_result(fields: &str) -> Res<TestResult> {
        let fields = fields.strip_prefix('{').expect("an object");
        let line = format!(r#"{{"id":1,"event":"test",{fields}"#);
        let mut results = Vec::new();
        match execute_message(&line, 1, &mut results)? {
            Message::Event => Ok(results.pop().expect("a result")),
            _ => panic!("{line} is no event"),
        }
    }

    fn decode(line: &str) -> TestResult {
        test_result(line).unwrap_or_else(|e| panic!("{line}: {e}"))
    }

    fn error(line: &str) -> String {
        test_result(line).expect_err(line)
    }

    /// The value observed for one statement whose observation is `{"type", "value"}`.
    fn observed(type_name: &str, value: &str) -> Option<ObservedValue> {
        let line = format!(
            r#"{{"status":"ok","statements":[{{"value":{{"type":"{type_name}","null":false,"value":{value}}}}}]}}"#
        );
        match decode(&line).statements.pop() {
            Some(StatementResult::Value(o)) => o.value,
            other => panic!("{other:?}"),
        }
    }

    /// The outcome of the one getter in `getter`.
    fn getter(getter: &str) -> Res<GetterOutcome> {
        let line = format!(
            r#"{{"status":"ok","statements":[{{"value":{{"type":"p.A","null":false,"getters":[{getter}]}}}}]}}"#
        );
        let mut r = test_result(&line)?;
        match r.statements.pop() {
            Some(StatementResult::Value(mut o)) => Ok(o.getters.pop().expect("a getter").outcome),
            other => panic!("{other:?}"),
        }
    }

    fn observation(type_name: &str) -> Observation {
        Observation {
            type_name: Some(type_name.into()),
            is_null: false,
            value: None,
            enum_constant: None,
            length: None,
            truncated: false,
            getters: Vec::new(),
        }
    }

    /// What an event with nothing but a status decodes to.
    fn defaults(status: TestStatus) -> TestResult {
        TestResult {
            status,
            failed_at: None,
            statements: Vec::new(),
            exception: None,
            message: None,
            exit_status: None,
            exit_attempted: None,
            trace: ExecutionTrace::default(),
            stdout: String::new(),
            stderr: String::new(),
            output_truncated: false,
            duration: Duration::ZERO,
            leaked_threads: 0,
            processes_killed: 0,
            // Workers before the field always used a fresh loader.
            fresh_loader: true,
            loader_dropped: None,
            environment: Vec::new(),
        }
    }

    #[test]
    fn an_event_decodes_field_by_field() {
        let line = r#"{"status":"exception","failedAt":2,
            "statements":[{"value":{"type":"int","null":false,"value":150}},
                          {"value":{"type":"bank.Account","null":false,"getters":[
                              {"name":"getBalance","value":150},{"name":"getLevel","enum":"GOLD"},
                              {"name":"getOwner","null":true},{"name":"size","threw":"java.lang.IllegalStateException"}]}}],
            "exception":{"type":"java.lang.ArithmeticException","message":"/ by zero","declared":false,
                         "checked":false,"frame":{"class":"bank.Account","method":"div","file":"Account.java","line":7},
                         "cause":"java.lang.Error","byStatement":false},
            "message":null,"exitStatus":null,"exitAttempted":3,
            "trace":{"files":[{"key":"bank/Account.java#1f3a","branches":[[0,1,3.0,0.0],[2,4,0.0,"Infinity"]],
                               "lines":[[5,1],[6,2]],"methods":[[0,1]],"loops":[[0,3]],
                               "escapes":[{"method":0,"type":"java.lang.ArithmeticException",
                                           "supertypes":["java.lang.RuntimeException","java.lang.Exception",
                                                         "java.lang.Throwable"],"line":7,"hits":2},
                                          {"method":1,"type":"p.Odd","supertypes":["java.lang.Throwable"],
                                           "line":null,"hits":1}],
                               "seeds":["EUR",[55357],1970,-1,2.5],
                               "mutants":[[0,0.0],[3,2.5],[4,"Infinity"],[-1,0.0]]}],
                     "proxies":{"loopIterations":3,"methodCalls":1,"instantiations":1,"statements":9}},
            "stdout":"out\n","stderr":"err","outputTruncated":true,"durationMicros":830,"leakedThreads":1,
            "processesKilled":2,"freshLoader":false,"loaderDropped":"the test ended with exception",
            "environment":[{"kind":"file","action":"writes","target":"/home/x/out.txt","refused":true,
                            "detail":"java.io.FileNotFoundException: /home/x/out.txt (Permission denied)",
                            "file":"bank/Account.java#1f3a","line":12},
                           {"kind":"teleport","target":null,"line":null}],"index":0}"#;
        let getters = vec![
            GetterObservation {
                name: "getBalance".into(),
                outcome: GetterOutcome::Value(ObservedValue::Integer(150)),
            },
            GetterObservation {
                name: "getLevel".into(),
                outcome: GetterOutcome::Enum("GOLD".into()),
            },
            GetterObservation {
                name: "getOwner".into(),
                outcome: GetterOutcome::Null,
            },
            GetterObservation {
                name: "size".into(),
                outcome: GetterOutcome::Threw("java.lang.IllegalStateException".into()),
            },
        ];
        let expected = TestResult {
            failed_at: Some(2),
            statements: vec![
                StatementResult::Value(Observation {
                    value: Some(ObservedValue::Integer(150)),
                    ..observation("int")
                }),
                StatementResult::Value(Observation {
                    getters,
                    ..observation("bank.Account")
                }),
            ],
            exception: Some(ThrownException {
                type_name: "java.lang.ArithmeticException".into(),
                message: Some("/ by zero".into()),
                declared: false,
                checked: false,
                frame: Some(StackFrame {
                    class: "bank.Account".into(),
                    method: "div".into(),
                    file: Some("Account.java".into()),
                    line: Some(7),
                }),
                cause: Some("java.lang.Error".into()),
                by_statement: false,
            }),
            exit_attempted: Some(3),
            trace: ExecutionTrace {
                files: vec![FileTrace {
                    key: "bank/Account.java#1f3a".into(),
                    branches: vec![
                        BranchTrace {
                            id: 0,
                            hits: 1,
                            true_distance: 3.0,
                            false_distance: 0.0,
                        },
                        // An outcome never reached keeps the probe's infinite distance, which
                        // the wire spells as a string and the model as f64::MAX.
                        BranchTrace {
                            id: 2,
                            hits: 4,
                            true_distance: 0.0,
                            false_distance: f64::MAX,
                        },
                    ],
                    lines: vec![(5, 1), (6, 2)],
                    methods: vec![(0, 1)],
                    loops: vec![(0, 3)],
                    escapes: vec![
                        EscapeTrace {
                            method: 0,
                            type_name: "java.lang.ArithmeticException".into(),
                            supertypes: vec![
                                "java.lang.RuntimeException".into(),
                                "java.lang.Exception".into(),
                                "java.lang.Throwable".into(),
                            ],
                            line: Some(7),
                            hits: 2,
                        },
                        // No frame of the file was on its stack trace.
                        EscapeTrace {
                            method: 1,
                            type_name: "p.Odd".into(),
                            supertypes: vec!["java.lang.Throwable".into()],
                            line: None,
                            hits: 1,
                        },
                    ],
                    seeds: vec![
                        ObservedValue::Text("EUR".into()),
                        ObservedValue::Text(JavaText::from_utf16(vec![55357])),
                        ObservedValue::Integer(1970),
                        ObservedValue::Integer(-1),
                        ObservedValue::Float(2.5),
                    ],
                    // An unreached mutant is never sent; a row that says so anyway is
                    // as far as can be, and a row without an id is skipped.
                    mutants: vec![(0, 0.0), (3, 2.5), (4, f64::MAX)],
                }],
                proxies: PerformanceProxies {
                    loop_iterations: 3,
                    method_calls: 1,
                    instantiations: 1,
                    statements: 9,
                },
            },
            stdout: "out\n".into(),
            stderr: "err".into(),
            output_truncated: true,
            duration: Duration::from_micros(830),
            leaked_threads: 1,
            processes_killed: 2,
            fresh_loader: false,
            loader_dropped: Some("the test ended with exception".into()),
            environment: vec![
                EnvironmentNeed {
                    kind: EnvironmentKind::File,
                    action: "writes".into(),
                    target: "/home/x/out.txt".into(),
                    refused: true,
                    detail: Some(
                        "java.io.FileNotFoundException: /home/x/out.txt (Permission denied)".into(),
                    ),
                    file: Some("bank/Account.java#1f3a".into()),
                    line: Some(12),
                },
                // A kind this reader does not know still keeps the test from being written.
                EnvironmentNeed {
                    kind: EnvironmentKind::File,
                    action: "uses".into(),
                    target: "something".into(),
                    refused: false,
                    detail: None,
                    file: None,
                    line: None,
                },
            ],
            ..defaults(TestStatus::Exception)
        };
        assert_eq!(decode(line), expected);
    }

    #[test]
    fn every_status_is_known_and_void_statements_have_no_value() {
        for (wire, status) in [
            ("ok", TestStatus::Ok),
            ("exception", TestStatus::Exception),
            ("invalid", TestStatus::Invalid),
            ("timeout", TestStatus::Timeout),
            ("systemExit", TestStatus::SystemExit),
            ("stackOverflow", TestStatus::StackOverflow),
            ("outOfMemory", TestStatus::OutOfMemory),
        ] {
            assert_eq!(decode(&format!(r#"{{"status":"{wire}"}}"#)).status, status);
        }
        let r = decode(r#"{"status":"ok","statements":[{"void":true},{"void":true,"value":{}}]}"#);
        assert_eq!(r.statements, [StatementResult::Void, StatementResult::Void]);
        let r = decode(r#"{"status":"ok","statements":[{"void":false,"value":{"null":true}}]}"#);
        let null = Observation {
            type_name: None,
            is_null: true,
            ..observation("")
        };
        assert_eq!(r.statements, [StatementResult::Value(null)]);
    }

    #[test]
    fn missing_and_null_fields_take_the_defaults() {
        assert_eq!(decode(r#"{"status":"ok"}"#), defaults(TestStatus::Ok));
        let all_null = r#"{"status":"timeout","failedAt":null,"statements":null,"exception":null,
            "message":null,"exitStatus":null,"exitAttempted":null,"trace":null,"stdout":null,
            "stderr":null,"outputTruncated":null,"durationMicros":null,"leakedThreads":null,
            "processesKilled":null,"freshLoader":null,"loaderDropped":null}"#;
        assert_eq!(decode(all_null), defaults(TestStatus::Timeout));
        assert!(!decode(r#"{"status":"ok","freshLoader":false}"#).fresh_loader);
        let r = decode(r#"{"status":"exception","exception":{"frame":{}},"trace":{"files":[{}]}}"#);
        let exception = ThrownException {
            type_name: String::new(),
            message: None,
            declared: false,
            checked: false,
            frame: Some(StackFrame {
                class: String::new(),
                method: String::new(),
                file: None,
                line: None,
            }),
            cause: None,
            by_statement: false,
        };
        assert_eq!(r.exception, Some(exception));
        assert_eq!(r.trace.files, [FileTrace::default()]);
        assert_eq!(r.trace.proxies, PerformanceProxies::default());
    }

    #[test]
    fn fields_the_reader_does_not_know_are_ignored_at_every_level() {
        let known = r#"{"status":"ok","statements":[{"value":{"type":"p.A","null":false,
            "getters":[{"name":"g","value":1}]}}],"exception":{"type":"E","frame":{"line":3}},
            "trace":{"files":[{"key":"k","lines":[[1,2]],"escapes":[{"method":0,"type":"E"}]}],
            "proxies":{"statements":4}}}"#;
        let extended = r#"{"later":{"x":[1,{"y":null}]},"status":"ok","statements":[{"new":[],
            "value":{"type":"p.A","null":false,"hash":"\u00e9","getters":[{"name":"g","value":1,
            "ms":0.5}]}}],"exception":{"type":"E","suppressed":["F"],"frame":{"line":3,"module":
            "m"}},"trace":{"files":[{"key":"k","lines":[[1,2]],"switches":[[0,1]],"escapes":[{
            "method":0,"type":"E","cause":{"type":"F"},"frames":[1,2]}]}],"proxies":{
            "statements":4,"allocatedBytes":18446744073709551615},"version":2}}"#;
        assert_eq!(decode(extended), decode(known));
    }

    #[test]
    fn float_observations_decode_special_values() {
        let float = |v: Option<ObservedValue>| match v {
            Some(ObservedValue::Float(f)) => f,
            other => panic!("{other:?}"),
        };
        assert!(float(observed("double", r#""NaN""#)).is_nan());
        assert_eq!(float(observed("float", r#""Infinity""#)), f64::INFINITY);
        assert_eq!(
            float(observed("java.lang.Double", r#""-Infinity""#)),
            f64::NEG_INFINITY
        );
        assert_eq!(float(observed("java.lang.Float", "0.5")), 0.5);
        // An integral float is still a float.
        assert_eq!(float(observed("double", "3")), 3.0);
        assert_eq!(float(observed("double", "-3")), -3.0);
        assert_eq!(float(observed("double", "1.0E10")), 1e10);
        assert_eq!(observed("double", r#""not a number""#), None);
        // Only float types read text as a number.
        assert_eq!(
            observed("java.lang.String", r#""NaN""#),
            Some(ObservedValue::Text("NaN".into()))
        );
        // Getter values carry no type, so their NaN stays text.
        assert_eq!(
            getter(r#"{"name":"g","value":"NaN"}"#),
            Ok(GetterOutcome::Value(ObservedValue::Text("NaN".into())))
        );
    }

    #[test]
    fn integers_stay_integers_only_when_no_float_was_written() {
        assert_eq!(observed("int", "4"), Some(ObservedValue::Integer(4)));
        assert_eq!(
            observed("long", "-9223372036854775808"),
            Some(ObservedValue::Integer(i64::MIN))
        );
        assert_eq!(
            observed("long", "9223372036854775807"),
            Some(ObservedValue::Integer(i64::MAX))
        );
        // Beyond i64 a number is kept as the nearest float, as serde_json's Number gives it.
        assert_eq!(
            observed("long", "18446744073709551615"),
            Some(ObservedValue::Float(18446744073709551615u64 as f64))
        );
        assert_eq!(observed("int", "1.0"), Some(ObservedValue::Float(1.0)));
        assert_eq!(observed("int", "1e2"), Some(ObservedValue::Float(100.0)));
        assert_eq!(observed("boolean", "true"), Some(ObservedValue::Bool(true)));
        assert_eq!(
            observed("double", "false"),
            Some(ObservedValue::Bool(false))
        );
        // Arrays and objects are no values; `null` is none either.
        assert_eq!(observed("p.A", "[1,[2]]"), None);
        assert_eq!(observed("p.A", r#"{"a":{"b":1}}"#), None);
        assert_eq!(observed("int", "null"), None);
    }

    #[test]
    fn big_numbers_decode_whole() {
        let r = decode(
            r#"{"status":"ok","durationMicros":18446744073709551615,"trace":{"files":[{"key":"k",
            "branches":[[4294967295,18446744073709551615,1e300,5]],"lines":[[1,18446744073709551615]]}],
            "proxies":{"loopIterations":18446744073709551615,"methodCalls":0,"instantiations":0,
            "statements":9007199254740993}}}"#,
        );
        assert_eq!(r.duration, Duration::from_micros(u64::MAX));
        let file = &r.trace.files[0];
        assert_eq!(
            file.branches,
            [BranchTrace {
                id: u32::MAX,
                hits: u64::MAX,
                true_distance: 1e300,
                false_distance: 5.0,
            }]
        );
        assert_eq!(file.lines, [(1, u64::MAX)]);
        assert_eq!(r.trace.proxies.loop_iterations, u64::MAX);
        // Above 2^53, where an f64 would round.
        assert_eq!(r.trace.proxies.statements, 9007199254740993);
    }

    #[test]
    fn trace_rows_that_cannot_be_counts_are_skipped() {
        // A hit count is a Java int, which wraps to negative after 2^31 hits.
        let r = decode(
            r#"{"status":"ok","trace":{"files":[{"branches":[[0,-5,1,2],[1.0,1,1,1],[2,3],[3],[],
            [4,5,6,7,8,9],[5,6,null,"NaN"],[6,1,"x",{}]],"lines":[[1,2,3],[-1,2],[2,-3],[3,null],[4,"5"]]}]}}"#,
        );
        let branch = |id, hits| BranchTrace {
            id,
            hits,
            true_distance: f64::MAX,
            false_distance: f64::MAX,
        };
        let file = &r.trace.files[0];
        assert_eq!(
            file.branches,
            [
                branch(2, 3),
                BranchTrace {
                    true_distance: 6.0,
                    false_distance: 7.0,
                    ..branch(4, 5)
                },
                branch(5, 6),
                branch(6, 1),
            ]
        );
        assert_eq!(file.lines, [(1, 2)]);
    }

    #[test]
    fn escapes_without_method_or_type_are_skipped_and_missing_fields_take_defaults() {
        let r = decode(
            r#"{"status":"ok","trace":{"files":[{"escapes":[{"type":"E"},{"method":1},
            {"method":4294967296,"type":"E"},{"method":2,"type":"E","line":0},{"method":3,
            "type":"E","supertypes":null,"line":null,"hits":null}]},{"escapes":null}]}}"#,
        );
        let escape = |method| EscapeTrace {
            method,
            type_name: "E".into(),
            supertypes: Vec::new(),
            line: None,
            // A record exists because the exception escaped at least once.
            hits: 1,
        };
        assert_eq!(r.trace.files[0].escapes, [escape(2), escape(3)]);
        assert_eq!(r.trace.files[1].escapes, []);
    }

    #[test]
    fn strings_with_escapes_and_non_ascii_decode_whole() {
        // The worker escapes every non-ASCII character; raw UTF-8 is valid JSON too.
        let r = decode(
            r#"{"status":"o\u006b","statements":[{"value":{"type":"java.lang.String","null":false,
            "value":"a\"\\\/\b\f\n\r\t\u00e9\ud83d\ude00 é"}},{"value":{"type":"p.\u00c4","null":false,
            "enum":"\u00c9T\u00c9"}}],"stdout":"line\u2028\u0000","message":"caf\u00e9","loaderDropped":"\u4e2d"}"#,
        );
        assert_eq!(r.status, TestStatus::Ok);
        let [StatementResult::Value(text), StatementResult::Value(constant)] = &r.statements[..]
        else {
            panic!("{:?}", r.statements);
        };
        assert_eq!(
            text.value,
            Some(ObservedValue::Text("a\"\\/\u{8}\u{c}\n\r\té😀 é".into()))
        );
        assert_eq!(constant.type_name.as_deref(), Some("p.Ä"));
        assert_eq!(constant.enum_constant.as_deref(), Some("ÉTÉ"));
        assert_eq!(r.stdout, "line\u{2028}\0");
        assert_eq!(r.message.as_deref(), Some("café"));
        assert_eq!(r.loader_dropped.as_deref(), Some("中"));
    }

    #[test]
    fn text_that_is_not_unicode_arrives_as_its_code_units() {
        let lone = |units: &[u16]| Some(ObservedValue::Text(JavaText::from_utf16(units.to_vec())));
        // A lone high surrogate as a char, and a String cut through a surrogate pair.
        assert_eq!(observed("char", "[55357]"), lone(&[0xd83d]));
        assert_eq!(
            observed("java.lang.String", "[97,98,55357]"),
            lone(&[0x61, 0x62, 0xd83d])
        );
        assert_eq!(
            getter(r#"{"name":"getName","value":[56832,120]}"#),
            Ok(GetterOutcome::Value(lone(&[0xde00, 0x78]).unwrap()))
        );
        // Code units that happen to be valid Unicode are the same text as the string form.
        assert_eq!(
            observed("java.lang.String", "[97,55357,56832]"),
            observed("java.lang.String", r#""a\ud83d\ude00""#)
        );
        assert_eq!(
            observed("java.lang.String", "[]"),
            Some(ObservedValue::Text("".into()))
        );
        let r = decode(
            r#"{"status":"exception","exception":{"type":"java.lang.IllegalStateException",
            "message":[98,32,56832]}}"#,
        );
        let message = r.exception.and_then(|e| e.message);
        assert_eq!(
            message,
            Some(JavaText::from_utf16(vec![0x62, 0x20, 0xde00]))
        );
        let r = decode(r#"{"status":"exception","exception":{"message":"plain"}}"#);
        assert_eq!(r.exception.and_then(|e| e.message), Some("plain".into()));
    }

    #[test]
    fn getter_outcomes_are_read_in_order_of_precedence() {
        assert_eq!(
            getter(r#"{"name":"g","threw":"E","null":true,"value":1}"#),
            Ok(GetterOutcome::Threw("E".into()))
        );
        assert_eq!(
            getter(r#"{"name":"g","null":true,"enum":"X"}"#),
            Ok(GetterOutcome::Null)
        );
        assert_eq!(
            getter(r#"{"name":"g","null":false,"enum":"X","value":1}"#),
            Ok(GetterOutcome::Enum("X".into()))
        );
        assert_eq!(
            getter(r#"{"name":"g","value":-2}"#),
            Ok(GetterOutcome::Value(ObservedValue::Integer(-2)))
        );
    }

    #[test]
    fn what_the_model_cannot_hold_is_a_protocol_error() {
        assert_eq!(error(r#"{"failedAt":1}"#), "missing string field 'status'");
        assert_eq!(error(r#"{"status":null}"#), "missing string field 'status'");
        assert_eq!(error(r#"{"status":1}"#), "missing string field 'status'");
        assert_eq!(error(r#"{"status":"lost"}"#), "unknown test status 'lost'");
        assert_eq!(
            error(r#"{"status":"ok","statements":[{"void":false}]}"#),
            "statement result without value"
        );
        assert_eq!(
            error(r#"{"status":"ok","statements":[{"value":null}]}"#),
            "statement result without value"
        );
        assert_eq!(
            getter(r#"{"name":"g","value":null}"#),
            Err("getter without value".into())
        );
        // An array is text only when every element is a UTF-16 code unit.
        for not_text in [r#"[65536]"#, r#"[1,-1]"#, r#"[1,"a"]"#, r#"{"a":1}"#] {
            assert_eq!(
                getter(&format!(r#"{{"name":"g","value":{not_text}}}"#)),
                Err("bad getter value".into())
            );
        }
        assert_eq!(
            getter(r#"{"value":1}"#),
            Err("missing string field 'name'".into())
        );
        // A field of another JSON type than the protocol's, or broken JSON, is reported as
        // serde_json found it.
        for malformed in [
            r#"{"status":"ok","stdout":5}"#,
            r#"{"status":"ok","failedAt":-1}"#,
            r#"{"status":"ok","statements":{}}"#,
            r#"{"status":"ok","statements":[1]}"#,
            r#"{"status":"ok","exception":"E"}"#,
            r#"{"status":"ok","exception":{"message":5}}"#,
            r#"{"status":"ok","exception":{"message":[55357,65536]}}"#,
            r#"{"status":"ok","trace":{"files":[{"lines":[{"id":1}]}]}}"#,
            r#"{"status":"ok","trace":{"files":[{"escapes":[[0,"E",3,1]]}]}}"#,
            r#"{"status":"ok","trace":{"files":[{"escapes":[{"method":0,"type":"E","hits":-1}]}]}}"#,
            r#"{"status":"ok""#,
            r#"{"status":"ok"} {}"#,
        ] {
            assert!(
                error(malformed).starts_with("invalid JSON from the worker: "),
                "{malformed}: {}",
                error(malformed)
            );
        }
    }

    #[test]
    fn the_other_lines_of_an_execute_request_are_sorted_in_the_same_pass() {
        let read = |line: &str| {
            let mut results = Vec::new();
            let message = execute_message(line, 5, &mut results)?;
            assert!(results.is_empty(), "{line}");
            Ok::<_, String>(message)
        };
        assert!(matches!(
            read(r#"{"id":5,"ok":true,"executed":2,"restart":null}"#),
            Ok(Message::Reply)
        ));
        let Ok(Message::Rejected { kind, message }) =
            read(r#"{"id":5,"ok":false,"error":{"kind":"unknownUnit","message":"u3"}}"#)
        else {
            panic!("not a rejection");
        };
        assert_eq!((kind.as_str(), message.as_str()), ("unknownUnit", "u3"));
        // The envelope is checked before the event is decoded.
        assert_eq!(
            read(r#"{"id":4,"event":"test","status":"lost"}"#).err(),
            Some("reply for request 4 while waiting for 5".into())
        );
        assert_eq!(
            read(r#"{"event":"test","status":"ok"}"#).err(),
            Some("reply for request (no id) while waiting for 5".into())
        );
    }
}
