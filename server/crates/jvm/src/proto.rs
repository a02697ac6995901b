//! The worker's wire format (docs/protocol.md): one JSON object per line in each direction.
//! This module and its `test_event` child are the only code that builds or reads JSON.

mod test_event;

use std::io::Write;

use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::{json, Map, Value};

use crate::model::*;

pub(crate) use test_event::execute_message;

/// Version of the request/response protocol; the worker reports its own in `hello`.
pub const PROTOCOL_VERSION: u64 = 1;

/// One request line and its id (the worker echoes the id in every message about it).
pub(crate) struct Request {
    pub(crate) id: u64,
    pub(crate) line: Vec<u8>,
}

impl Request {
    fn of(id: u64, v: &Value) -> Request {
        Request {
            id,
            line: serde_json::to_vec(v).expect("a JSON value always serialises"),
        }
    }
}

pub(crate) fn hello(id: u64) -> Request {
    Request::of(id, &json!({"id": id, "op": "hello"}))
}

pub(crate) fn shutdown(id: u64) -> Request {
    Request::of(id, &json!({"id": id, "op": "shutdown"}))
}

pub(crate) fn compile(
    id: u64,
    unit: UnitId,
    req: &CompileRequest,
    cache_file: Option<&std::path::Path>,
) -> Request {
    let sources: Vec<Value> = req
        .sources
        .iter()
        .map(|s| json!({"path": s.path, "text": s.text, "instrumented": s.instrumented}))
        .collect();
    let classpath: Vec<String> = req
        .classpath
        .iter()
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    let mut message = json!({"id": id, "op": "compile", "unit": unit.wire(),
                             "classpath": classpath, "options": req.options, "sources": sources});
    if let Some(roots) = &req.roots {
        message["roots"] = json!(roots);
    }
    if let Some(file) = cache_file {
        message["cacheFile"] = json!(file.to_string_lossy());
    }
    Request::of(id, &message)
}

pub(crate) fn save_compile_cache(id: u64, file: &std::path::Path) -> Request {
    Request::of(
        id,
        &json!({"id": id, "op": "saveCompileCache", "file": file.to_string_lossy()}),
    )
}

/// `None` when the worker had nothing new to save, else (files, bytes).
pub(crate) fn save_compile_cache_result(line: &str) -> Res<Option<(u64, u64)>> {
    let v = reply(line)?;
    let o = Obj::of(&v, "saveCompileCache")?;
    if !o.bool("saved") {
        return Ok(None);
    }
    Ok(Some((
        o.opt_u64("files").unwrap_or(0),
        o.opt_u64("bytes").unwrap_or(0),
    )))
}

pub(crate) fn describe(
    id: u64,
    unit: UnitId,
    classes: &[String],
    depth: u32,
    release: Option<u32>,
) -> Request {
    let mut request = json!({"id": id, "op": "describe", "unit": unit.wire(), "classes": classes,
                "depth": depth});
    if let Some(release) = release {
        request["release"] = json!(release);
    }
    Request::of(id, &request)
}

pub(crate) fn write_classes(id: u64, unit: UnitId, dir: &std::path::Path) -> Request {
    Request::of(
        id,
        &json!({"id": id, "op": "writeClasses", "unit": unit.wire(),
                "dir": dir.to_string_lossy()}),
    )
}

pub(crate) fn write_classes_result(line: &str) -> Res<u64> {
    let v = reply(line)?;
    Ok(Obj::of(&v, "writeClasses")?.opt_u64("written").unwrap_or(0))
}

/// Written straight to bytes: the search sends thousands of statements a second, and building
/// a `Value` tree first cost more than the worker's parsing of it.
pub(crate) fn execute(id: u64, unit: UnitId, tests: &[TestCase], opts: &ExecuteOptions) -> Request {
    let mut w = Json(Vec::with_capacity(256 + tests.len() * 640));
    let timeout = u64::try_from(opts.timeout_per_test.as_millis())
        .unwrap_or(u64::MAX)
        .max(1);
    w.raw("{\"id\":");
    w.num(id);
    w.raw(",\"op\":\"execute\",\"unit\":");
    w.str(&unit.wire());
    w.raw(",\"timeoutMs\":");
    w.num(timeout);
    w.raw(",\"observe\":");
    w.bool(opts.observe_getters);
    if let Some(package) = &opts.test_package {
        w.raw(",\"testPackage\":");
        w.str(package);
    }
    if let Some(release) = opts.release {
        w.raw(",\"release\":");
        w.num(u64::from(release));
    }
    w.raw(",\"maxGetters\":");
    w.num(opts.max_getters);
    w.raw(",\"outputLimit\":");
    w.num(opts.output_limit);
    w.raw(",\"classesUnderTest\":");
    w.strs(&opts.classes_under_test);
    w.raw(",\"freshLoaders\":");
    w.bool(opts.fresh_loader_per_test);
    if let Some(mutant) = &opts.mutant {
        w.raw(",\"mutant\":{\"key\":");
        w.str(&mutant.key);
        w.raw(",\"id\":");
        w.num(u64::from(mutant.id));
        w.raw("}");
    }
    w.raw(",\"tests\":[");
    for (k, t) in tests.iter().enumerate() {
        if k > 0 {
            w.raw(",");
        }
        w.raw("{\"statements\":[");
        for (j, s) in t.statements.iter().enumerate() {
            if j > 0 {
                w.raw(",");
            }
            statement(&mut w, s);
        }
        w.raw("]}");
    }
    w.raw("]}");
    Request { id, line: w.0 }
}

/// A minimal JSON writer for the execute request; strings and floats go through serde_json.
struct Json(Vec<u8>);

impl Json {
    fn raw(&mut self, s: &str) {
        self.0.extend_from_slice(s.as_bytes());
    }
    fn str(&mut self, s: &str) {
        serde_json::to_writer(&mut self.0, s).expect("writing to a Vec");
    }
    fn num(&mut self, n: impl std::fmt::Display) {
        write!(self.0, "{n}").expect("writing to a Vec");
    }
    fn bool(&mut self, b: bool) {
        self.raw(if b { "true" } else { "false" });
    }
    fn strs(&mut self, v: &[String]) {
        self.raw("[");
        for (k, s) in v.iter().enumerate() {
            if k > 0 {
                self.raw(",");
            }
            self.str(s);
        }
        self.raw("]");
    }
    fn refs(&mut self, v: &[ValueRef]) {
        self.raw("[");
        for (k, r) in v.iter().enumerate() {
            if k > 0 {
                self.raw(",");
            }
            self.index(*r);
        }
        self.raw("]");
    }
    fn index(&mut self, r: ValueRef) {
        self.num(r);
    }
    fn receiver(&mut self, r: Option<ValueRef>) {
        match r {
            Some(r) => self.index(r),
            None => self.raw("null"),
        }
    }
    /// Finite floats as numbers; NaN and the infinities as the strings Java prints.
    fn float(&mut self, d: f64) {
        if d.is_finite() {
            serde_json::to_writer(&mut self.0, &d).expect("writing to a Vec");
        } else if d.is_nan() {
            self.raw("\"NaN\"");
        } else if d > 0.0 {
            self.raw("\"Infinity\"");
        } else {
            self.raw("\"-Infinity\"");
        }
    }
    /// `"kind":<kind>` and the fields every member statement has.
    fn member(&mut self, kind: &str, class: &str) {
        self.raw("{\"kind\":\"");
        self.raw(kind);
        self.raw("\",\"class\":");
        self.str(class);
    }
}

fn statement(w: &mut Json, s: &Statement) {
    match s {
        Statement::Value(lit) => {
            w.raw("{\"kind\":\"value\",\"type\":\"");
            w.raw(literal_type(lit));
            w.raw("\",\"value\":");
            match lit {
                Literal::Boolean(b) => w.bool(*b),
                Literal::Byte(n) => w.num(*n),
                Literal::Short(n) => w.num(*n),
                Literal::Char(c) => w.num(u32::from(*c)),
                Literal::Int(n) => w.num(*n),
                Literal::Long(n) => w.num(*n),
                Literal::Float(f) => w.float(f64::from(*f)),
                Literal::Double(d) => w.float(*d),
                Literal::String(s) => w.str(s),
            }
            w.raw("}");
        }
        Statement::Null { type_name } => {
            w.raw("{\"kind\":\"null\",\"type\":");
            w.str(type_name);
            w.raw("}");
        }
        Statement::EnumConstant { type_name, name } => {
            w.raw("{\"kind\":\"enum\",\"type\":");
            w.str(type_name);
            w.raw(",\"name\":");
            w.str(name);
            w.raw("}");
        }
        Statement::New {
            class,
            params,
            args,
        } => {
            w.member("new", class);
            w.raw(",\"params\":");
            w.strs(params);
            w.raw(",\"args\":");
            w.refs(args);
            w.raw("}");
        }
        Statement::Call {
            class,
            method,
            params,
            receiver,
            args,
        } => {
            w.member("call", class);
            w.raw(",\"method\":");
            w.str(method);
            w.raw(",\"params\":");
            w.strs(params);
            w.raw(",\"receiver\":");
            w.receiver(*receiver);
            w.raw(",\"args\":");
            w.refs(args);
            w.raw("}");
        }
        Statement::GetField {
            class,
            field,
            receiver,
        } => {
            w.member("getField", class);
            w.raw(",\"field\":");
            w.str(field);
            w.raw(",\"receiver\":");
            w.receiver(*receiver);
            w.raw("}");
        }
        Statement::SetField {
            class,
            field,
            receiver,
            value,
        } => {
            w.member("setField", class);
            w.raw(",\"field\":");
            w.str(field);
            w.raw(",\"receiver\":");
            w.receiver(*receiver);
            w.raw(",\"value\":");
            w.index(*value);
            w.raw("}");
        }
        Statement::NewArray { component, length } => {
            w.raw("{\"kind\":\"newArray\",\"type\":");
            w.str(component);
            w.raw(",\"length\":");
            w.num(*length);
            w.raw("}");
        }
        Statement::SetElement {
            array,
            index,
            value,
        } => {
            w.raw("{\"kind\":\"setElement\",\"array\":");
            w.index(*array);
            w.raw(",\"index\":");
            w.num(*index);
            w.raw(",\"value\":");
            w.index(*value);
            w.raw("}");
        }
        Statement::GetElement { array, index } => {
            w.raw("{\"kind\":\"getElement\",\"array\":");
            w.index(*array);
            w.raw(",\"index\":");
            w.num(*index);
            w.raw("}");
        }
        Statement::ConsoleInput { text } => {
            w.raw("{\"kind\":\"consoleInput\",\"text\":");
            w.str(text);
            w.raw("}");
        }
        Statement::SystemProperty { key, value } => {
            w.raw("{\"kind\":\"systemProperty\",\"key\":");
            w.str(key);
            w.raw(",\"value\":");
            w.str(value);
            w.raw("}");
        }
        Statement::InputFile {
            name,
            content,
            type_name,
        } => {
            w.raw("{\"kind\":\"inputFile\",\"name\":");
            w.str(name);
            w.raw(",\"content\":");
            match content {
                Some(c) => w.str(c),
                None => w.raw("null"),
            }
            w.raw(",\"type\":");
            w.str(type_name);
            w.raw("}");
        }
    }
}

fn literal_type(lit: &Literal) -> &'static str {
    match lit {
        Literal::Boolean(_) => "boolean",
        Literal::Byte(_) => "byte",
        Literal::Short(_) => "short",
        Literal::Char(_) => "char",
        Literal::Int(_) => "int",
        Literal::Long(_) => "long",
        Literal::Float(_) => "float",
        Literal::Double(_) => "double",
        Literal::String(_) => "java.lang.String",
    }
}

// ---------------------------------------------------------------------------- messages

/// What the supervisor must know of every worker message: whom it answers and whether it is an
/// event, a final reply or a rejection (docs/protocol.md, "Order"). `message` reads only these
/// fields and skips the rest of the line; `test_event` reads them in the same pass as the
/// event's own fields, which share the top level with them.
#[derive(Deserialize)]
struct Envelope<'a> {
    #[serde(borrow)]
    id: Option<&'a RawValue>,
    /// The field is there at all, even as `null`.
    #[serde(default, deserialize_with = "present")]
    event: bool,
    ok: Option<bool>,
    error: Option<ErrorEntry>,
}

#[derive(Deserialize, Default)]
struct ErrorEntry {
    kind: Option<String>,
    message: Option<String>,
}

fn present<'de, D: serde::Deserializer<'de>>(d: D) -> Result<bool, D::Error> {
    serde::de::IgnoredAny::deserialize(d).map(|_| true)
}

/// A worker message about the request being waited for.
pub(crate) enum Message {
    /// `{"id", "event", ...}`: the line goes to the request's event decoder.
    Event,
    /// `{"id", "ok": true, ...}`: the line goes to the request's reply decoder.
    Reply,
    /// `{"id", "ok": false, "error": {"kind", "message"}}`, or any other final message.
    Rejected { kind: String, message: String },
}

/// A line from the worker as text. Lines are UTF-8 (docs/protocol.md, "Framing"); checking a
/// whole line once is cheaper than serde_json checking every string of it, as it does when it
/// reads bytes, and it also covers the strings that decoders skip.
pub(crate) fn text(line: Vec<u8>) -> Res<String> {
    String::from_utf8(line).map_err(|e| format!("invalid JSON from the worker: {e}"))
}

/// Sorts a line from the worker; a line that is no JSON object or answers another request is a
/// protocol error.
pub(crate) fn message(line: &str, request: u64) -> Res<Message> {
    let e: Envelope<'_> = serde_json::from_str(line).map_err(invalid_json)?;
    e.sort(request)
}

fn invalid_json(e: serde_json::Error) -> String {
    format!("invalid JSON from the worker: {e}")
}

impl Envelope<'_> {
    fn sort(self, request: u64) -> Res<Message> {
        // The text of a JSON number parses as a u64 exactly when `Value::as_u64` would give one.
        if self.id.and_then(|id| id.get().parse::<u64>().ok()) != Some(request) {
            return Err(format!(
                "reply for request {} while waiting for {request}",
                self.id.map_or("(no id)", RawValue::get)
            ));
        }
        Ok(if self.event {
            Message::Event
        } else if self.ok == Some(true) {
            Message::Reply
        } else {
            let error = self.error.unwrap_or_default();
            Message::Rejected {
                kind: error.kind.unwrap_or_default(),
                message: error.message.unwrap_or_default(),
            }
        })
    }
}

// ---------------------------------------------------------------------------- replies

/// A final reply as a `Value`: replies come once per request, so only the lines of `execute`,
/// one per test, are decoded typed (`test_event`).
fn reply(line: &str) -> Res<Value> {
    serde_json::from_str(line).map_err(invalid_json)
}

/// The final reply of `execute`: why the worker asks to be replaced, if it does.
pub(crate) fn execute_restart(line: &str) -> Res<Option<String>> {
    let v = reply(line)?;
    Ok(Obj::of(&v, "execute")?.opt_str("restart"))
}

/// A field-access helper that turns shape errors into protocol errors.
struct Obj<'a>(&'a Map<String, Value>);

/// A decoding result; the error becomes a `JvmError::Protocol`.
pub(crate) type Res<T> = Result<T, String>;

impl<'a> Obj<'a> {
    fn of(v: &'a Value, what: &str) -> Res<Obj<'a>> {
        v.as_object()
            .map(Obj)
            .ok_or_else(|| format!("{what}: expected an object"))
    }
    fn get(&self, k: &str) -> Option<&'a Value> {
        self.0.get(k).filter(|v| !v.is_null())
    }
    fn str(&self, k: &str) -> Res<String> {
        self.opt_str(k)
            .ok_or_else(|| format!("missing string field '{k}'"))
    }
    fn opt_str(&self, k: &str) -> Option<String> {
        self.get(k).and_then(Value::as_str).map(str::to_string)
    }
    fn u64(&self, k: &str) -> Res<u64> {
        self.opt_u64(k)
            .ok_or_else(|| format!("missing number field '{k}'"))
    }
    fn opt_u64(&self, k: &str) -> Option<u64> {
        self.get(k).and_then(Value::as_u64)
    }
    fn bool(&self, k: &str) -> bool {
        self.get(k).and_then(Value::as_bool).unwrap_or(false)
    }
    fn arr(&self, k: &str) -> &'a [Value] {
        self.get(k)
            .and_then(Value::as_array)
            .map(Vec::as_slice)
            .unwrap_or(&[])
    }
    fn strings(&self, k: &str) -> Vec<String> {
        self.arr(k)
            .iter()
            .filter_map(|v| v.as_str().map(str::to_string))
            .collect()
    }
}

pub(crate) fn worker_info(line: &str) -> Res<WorkerInfo> {
    let v = reply(line)?;
    let o = Obj::of(&v, "hello")?;
    Ok(WorkerInfo {
        protocol: o.u64("protocol")?,
        java_version: o.str("java")?,
        java_feature: o.u64("javaFeature")? as u32,
        exit_blocking: o.bool("exitBlocking"),
        pid: o.u64("pid")? as u32,
    })
}

pub(crate) fn compile_result(line: &str, unit: UnitId) -> Res<CompileResult> {
    let v = reply(line)?;
    let o = Obj::of(&v, "compile")?;
    let success = o.bool("success");
    let diagnostics = o
        .arr("diagnostics")
        .iter()
        .map(|d| {
            let d = Obj::of(d, "diagnostic")?;
            Ok(Diagnostic {
                kind: match d.str("kind")?.as_str() {
                    "ERROR" => DiagnosticKind::Error,
                    "WARNING" => DiagnosticKind::Warning,
                    "MANDATORY_WARNING" => DiagnosticKind::MandatoryWarning,
                    "NOTE" => DiagnosticKind::Note,
                    _ => DiagnosticKind::Other,
                },
                message: d.opt_str("message").unwrap_or_default(),
                file: d.opt_str("file"),
                line: d.opt_u64("line").map(|n| n as u32),
                column: d.opt_u64("column").map(|n| n as u32),
                start: d.opt_u64("start"),
                end: d.opt_u64("end"),
                code: d.opt_str("code"),
                instrumented: d.bool("instrumented"),
            })
        })
        .collect::<Res<Vec<_>>>()?;
    Ok(CompileResult {
        unit: success.then_some(unit),
        diagnostics,
        classes: o.strings("classes"),
        files: o.strings("files"),
        compiled_files: o.opt_u64("compiledFiles").unwrap_or(0) as u32,
        reused_files: o.opt_u64("reusedFiles").unwrap_or(0) as u32,
        cache_loaded_files: o.opt_u64("cacheLoadedFiles").unwrap_or(0) as u32,
        cache_error: o.opt_str("cacheError"),
    })
}

pub(crate) fn describe_result(line: &str) -> Res<DescribeResult> {
    let v = reply(line)?;
    let o = Obj::of(&v, "describe")?;
    let classes = o
        .arr("classes")
        .iter()
        .map(class_info)
        .collect::<Res<Vec<_>>>()?;
    let missing = o
        .arr("missing")
        .iter()
        .filter_map(|m| {
            let m = Obj::of(m, "missing").ok()?;
            Some((m.opt_str("name")?, m.opt_str("message").unwrap_or_default()))
        })
        .collect();
    Ok(DescribeResult { classes, missing })
}

fn params(o: &Obj<'_>) -> Res<Vec<Param>> {
    o.arr("params")
        .iter()
        .map(|p| {
            let p = Obj::of(p, "param")?;
            let type_name = p.str("type")?;
            Ok(Param {
                generic: p.opt_str("generic").unwrap_or_else(|| type_name.clone()),
                type_name,
            })
        })
        .collect()
}

fn class_info(v: &Value) -> Res<ClassInfo> {
    let o = Obj::of(v, "class")?;
    let constructors = o
        .arr("constructors")
        .iter()
        .map(|c| {
            let c = Obj::of(c, "constructor")?;
            Ok(ConstructorInfo {
                params: params(&c)?,
                exceptions: c.strings("exceptions"),
                varargs: c.bool("varargs"),
                modifiers: c.strings("modifiers"),
                type_parameters: c.strings("typeParameters"),
            })
        })
        .collect::<Res<Vec<_>>>()?;
    let methods = o
        .arr("methods")
        .iter()
        .map(|m| {
            let m = Obj::of(m, "method")?;
            Ok(MethodInfo {
                name: m.str("name")?,
                declaring_class: m.str("declaringClass")?,
                is_static: m.bool("static"),
                return_type: m.str("returnType")?,
                generic_return_type: m.opt_str("genericReturnType"),
                factory: m.bool("factory"),
                params: params(&m)?,
                exceptions: m.strings("exceptions"),
                varargs: m.bool("varargs"),
                modifiers: m.strings("modifiers"),
                type_parameters: m.strings("typeParameters"),
            })
        })
        .collect::<Res<Vec<_>>>()?;
    let fields = o
        .arr("fields")
        .iter()
        .map(|f| {
            let f = Obj::of(f, "field")?;
            Ok(FieldInfo {
                name: f.str("name")?,
                declaring_class: f.str("declaringClass")?,
                type_name: f.str("type")?,
                generic_type: f.opt_str("genericType"),
                is_static: f.bool("static"),
                is_final: f.bool("final"),
                modifiers: f.strings("modifiers"),
            })
        })
        .collect::<Res<Vec<_>>>()?;
    let record_components = o
        .arr("recordComponents")
        .iter()
        .map(|r| {
            let r = Obj::of(r, "record component")?;
            Ok(RecordComponent {
                name: r.str("name")?,
                type_name: r.str("type")?,
                generic_type: r.str("genericType")?,
            })
        })
        .collect::<Res<Vec<_>>>()?;
    let name = o.str("name")?;
    let is_public = o.bool("public");
    Ok(ClassInfo {
        package: o
            .opt_str("package")
            .unwrap_or_else(|| name.rsplit_once('.').map_or("", |(p, _)| p).to_string()),
        access: o
            .opt_str("access")
            .unwrap_or_else(|| if is_public { "public" } else { "package" }.to_string()),
        name,
        kind: match o.str("kind")?.as_str() {
            "interface" => TypeKind::Interface,
            "enum" => TypeKind::Enum,
            "record" => TypeKind::Record,
            "annotation" => TypeKind::Annotation,
            _ => TypeKind::Class,
        },
        modifiers: o.strings("modifiers"),
        project: o.bool("project"),
        is_public,
        is_abstract: o.bool("abstract"),
        inner_class: o.bool("innerClass"),
        declaring_class: o.opt_str("declaringClass"),
        superclass: o.opt_str("superclass"),
        generic_superclass: o.opt_str("genericSuperclass"),
        interfaces: o.strings("interfaces"),
        generic_interfaces: o.strings("genericInterfaces"),
        type_parameters: o.strings("typeParameters"),
        constructors,
        methods,
        fields,
        enum_constants: o.strings("enumConstants"),
        record_components,
        permitted_subclasses: o.strings("permittedSubclasses"),
        subclasses: o.strings("subclasses"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statements_refer_to_earlier_values_by_index() {
        let t = TestCase {
            statements: vec![
                Statement::Value(Literal::Int(3)),
                Statement::New {
                    class: "p.A".into(),
                    params: vec!["int".into()],
                    args: vec![0],
                },
                Statement::Call {
                    class: "p.A".into(),
                    method: "m".into(),
                    params: vec![],
                    receiver: Some(1),
                    args: vec![],
                },
                Statement::Value(Literal::Double(f64::NAN)),
            ],
        };
        let r = execute(7, UnitId(2), &[t], &ExecuteOptions::default());
        let v: Value = serde_json::from_slice(&r.line).unwrap();
        assert_eq!(
            (r.id, &v["id"], &v["op"]),
            (7, &json!(7), &json!("execute"))
        );
        let s = &v["tests"][0]["statements"];
        assert_eq!(s[0], json!({"kind": "value", "type": "int", "value": 3}));
        assert_eq!(s[1]["args"], json!([0]));
        assert_eq!(s[2]["receiver"], json!(1));
        assert_eq!(s[3]["value"], json!("NaN"));
        assert_eq!(v["unit"], json!("u2"));
    }

    #[test]
    fn every_statement_kind_is_written_as_documented() {
        let s = |kind: Statement| {
            let r = execute(
                1,
                UnitId(1),
                &[TestCase {
                    statements: vec![kind],
                }],
                &ExecuteOptions::default(),
            );
            let v: Value = serde_json::from_slice(&r.line).unwrap();
            v["tests"][0]["statements"][0].clone()
        };
        let strings = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(
            s(Statement::Value(Literal::String("a\"\u{e9}".into()))),
            json!({"kind": "value", "type": "java.lang.String", "value": "a\"\u{e9}"})
        );
        assert_eq!(
            s(Statement::Value(Literal::Char('x'))),
            json!({"kind": "value", "type": "char", "value": 120})
        );
        assert_eq!(
            s(Statement::Value(Literal::Float(-f32::INFINITY))),
            json!({"kind": "value", "type": "float", "value": "-Infinity"})
        );
        assert_eq!(
            s(Statement::Value(Literal::Double(0.5))),
            json!({"kind": "value", "type": "double", "value": 0.5})
        );
        assert_eq!(
            s(Statement::Null {
                type_name: "p.A".into()
            }),
            json!({"kind": "null", "type": "p.A"})
        );
        assert_eq!(
            s(Statement::EnumConstant {
                type_name: "p.E".into(),
                name: "X".into()
            }),
            json!({"kind": "enum", "type": "p.E", "name": "X"})
        );
        assert_eq!(
            s(Statement::New {
                class: "p.A".into(),
                params: strings(&["int", "p.B"]),
                args: vec![0, 1]
            }),
            json!({"kind": "new", "class": "p.A", "params": ["int", "p.B"], "args": [0, 1]})
        );
        assert_eq!(
            s(Statement::Call {
                class: "p.A".into(),
                method: "m".into(),
                params: vec![],
                receiver: None,
                args: vec![]
            }),
            json!({"kind": "call", "class": "p.A", "method": "m", "params": [], "receiver": null,
                   "args": []})
        );
        assert_eq!(
            s(Statement::GetField {
                class: "p.A".into(),
                field: "f".into(),
                receiver: Some(2)
            }),
            json!({"kind": "getField", "class": "p.A", "field": "f", "receiver": 2})
        );
        assert_eq!(
            s(Statement::SetField {
                class: "p.A".into(),
                field: "f".into(),
                receiver: None,
                value: 3
            }),
            json!({"kind": "setField", "class": "p.A", "field": "f", "receiver": null, "value": 3})
        );
        assert_eq!(
            s(Statement::NewArray {
                component: "int".into(),
                length: 4
            }),
            json!({"kind": "newArray", "type": "int", "length": 4})
        );
        assert_eq!(
            s(Statement::SetElement {
                array: 0,
                index: 1,
                value: 2
            }),
            json!({"kind": "setElement", "array": 0, "index": 1, "value": 2})
        );
        assert_eq!(
            s(Statement::GetElement { array: 0, index: 1 }),
            json!({"kind": "getElement", "array": 0, "index": 1})
        );
        assert_eq!(
            s(Statement::ConsoleInput {
                text: "1\n\"x\"\n".into()
            }),
            json!({"kind": "consoleInput", "text": "1\n\"x\"\n"})
        );
        assert_eq!(
            s(Statement::SystemProperty {
                key: "a.mode".into(),
                value: "on".into()
            }),
            json!({"kind": "systemProperty", "key": "a.mode", "value": "on"})
        );
        assert_eq!(
            s(Statement::InputFile {
                name: "in.txt".into(),
                content: Some("1\n".into()),
                type_name: "java.io.File".into()
            }),
            json!({"kind": "inputFile", "name": "in.txt", "content": "1\n", "type": "java.io.File"})
        );
        assert_eq!(
            s(Statement::InputFile {
                name: "in.txt".into(),
                content: None,
                type_name: "java.lang.String".into()
            }),
            json!({"kind": "inputFile", "name": "in.txt", "content": null, "type": "java.lang.String"})
        );
        let opts = ExecuteOptions {
            classes_under_test: strings(&["p.A"]),
            fresh_loader_per_test: true,
            ..ExecuteOptions::default()
        };
        let v: Value = serde_json::from_slice(&execute(3, UnitId(4), &[], &opts).line).unwrap();
        assert_eq!(
            v,
            json!({"id": 3, "op": "execute", "unit": "u4", "timeoutMs": 1000, "observe": false,
                   "maxGetters": 16, "outputLimit": 16384, "classesUnderTest": ["p.A"],
                   "freshLoaders": true, "tests": []})
        );
        let opts = ExecuteOptions {
            mutant: Some(ActiveMutant {
                key: "p/A.java#00ff".into(),
                id: 7,
            }),
            ..ExecuteOptions::default()
        };
        let v: Value = serde_json::from_slice(&execute(3, UnitId(4), &[], &opts).line).unwrap();
        assert_eq!(v["mutant"], json!({"key": "p/A.java#00ff", "id": 7}));
    }

    fn sorted(line: &str) -> Res<&'static str> {
        message(line, 7).map(|m| match m {
            Message::Event => "event",
            Message::Reply => "reply",
            Message::Rejected { .. } => "rejected",
        })
    }

    #[test]
    fn messages_are_sorted_by_their_envelope_alone() {
        assert_eq!(
            sorted(r#"{"id":7,"event":"test","status":"ok"}"#),
            Ok("event")
        );
        // The field being there makes an event, whatever it holds.
        assert_eq!(sorted(r#"{"id":7,"event":null}"#), Ok("event"));
        assert_eq!(
            sorted(r#"{"id":7,"ok":true,"executed":2,"restart":null}"#),
            Ok("reply")
        );
        // Fields the supervisor does not know are skipped, whatever their shape.
        assert_eq!(
            sorted(r#"{"later":{"a":[1,"\u00e9",{"b":null}]},"ok":true,"id":7}"#),
            Ok("reply")
        );
        assert_eq!(sorted(r#"{"id":7}"#), Ok("rejected"));
        assert_eq!(sorted(r#"{"id":7,"ok":false}"#), Ok("rejected"));
        let Ok(Message::Rejected { kind, message }) = message(
            r#"{"id":7,"ok":false,"error":{"kind":"unknownUnit","message":"u3 \"gone\""}}"#,
            7,
        ) else {
            panic!("not a rejection");
        };
        assert_eq!(
            (kind.as_str(), message.as_str()),
            ("unknownUnit", "u3 \"gone\"")
        );
    }

    #[test]
    fn a_message_for_another_request_or_no_json_is_a_protocol_error() {
        assert_eq!(
            sorted(r#"{"id":6,"ok":true}"#),
            Err("reply for request 6 while waiting for 7".into())
        );
        assert_eq!(
            sorted(r#"{"id":"7","ok":true}"#),
            Err(r#"reply for request "7" while waiting for 7"#.into())
        );
        for no_id in [r#"{"ok":true}"#, r#"{"id":null,"event":"test"}"#] {
            assert_eq!(
                sorted(no_id),
                Err("reply for request (no id) while waiting for 7".into())
            );
        }
        for other_number in ["7.0", "7e0", "-7", "18446744073709551623"] {
            assert!(sorted(&format!(r#"{{"id":{other_number},"ok":true}}"#)).is_err());
        }
        for broken in ["", r#"{"id":7"#, "[7]", r#"{"id":7,"ok":true} x"#] {
            let e = sorted(broken).unwrap_err();
            assert!(
                e.starts_with("invalid JSON from the worker"),
                "{broken}: {e}"
            );
        }
        let e = text(b"{\"id\":7,\"ok\":true,\"s\":\"\xff\"}".to_vec()).unwrap_err();
        assert!(e.starts_with("invalid JSON from the worker"), "{e}");
    }
}
