//! The JSON form of a [`ClassRecord`] (format `ctgls-store`, version [`FORMAT_VERSION`]), and
//! the conversions between it and the plain records. Pure: text in, values out. The serde
//! structs are private to this module; the core crates derive nothing (STYLE habit 1).
//!
//! Types are written in their source-like form with binary names (`JavaType`'s display) and
//! read back by `type_text`; a callable lists the type variables its types mention, since a
//! bare name is otherwise read as a class in the default package.
//! Floating-point values are strings (Rust's shortest round-trip form, `NaN`, `inf`, `-inf`, or
//! `bits:0x…` for a NaN with a payload) so that every value reads back bit for bit. Callables
//! sit in one table per record, keyed by their display form (`b.Account.deposit(long)`, with
//! ` #2` appended when two differ only in details the display leaves out); statements name them
//! by that key. Readers ignore fields they do not know, so fields can be added within a
//! version.
//!
//! The JUnit class of the run (`junit_class`) is written as an array of lines so that a diff
//! of the record shows the tests that changed, not one long string.
//!
//! Invariant: a decoded test case only refers to earlier statements, and every index into the
//! record's tests (a JUnit method's test, an exception's test) is in bounds, so code that
//! indexes a loaded record cannot go out of bounds.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use testcase::{
    Callable, CallableKind, JavaType, PrimitiveValue, Statement, TestCase, TypeParameter, VarRef,
    WildcardBound,
};

use super::assertion_format::AssertionDto;
use super::record::{
    ClassRecord, Coverage, HistoryEntry, RunInfo, StoredMethod, StoredSuite, StoredTest,
    UndeclaredException,
};
use super::type_text::parse_type;
use crate::project::JUnitVersion;

/// The `format` field of every record file.
pub const FORMAT_NAME: &str = "ctgls-store";

/// The version this build writes and reads. Bumped only for changes older readers would
/// misread; added fields do not need a bump.
pub const FORMAT_VERSION: u64 = 1;

/// Why a text is not a record this build can read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FormatError {
    /// Not JSON, truncated, not a store record, or inconsistent (a dangling reference, a type
    /// that does not parse).
    #[error("{0}")]
    Corrupt(String),
    /// A record of another format version: newer than this build, or unknown.
    #[error("format version {found} is not supported (this ctgls reads version {FORMAT_VERSION})")]
    UnsupportedVersion { found: u64 },
    /// The record could not be written as JSON.
    #[error("cannot write the record: {0}")]
    Encode(String),
}

/// The record as the JSON text of a record file (pretty-printed, ending in a newline).
pub fn encode_record(record: &ClassRecord) -> Result<String, FormatError> {
    let dto = RecordDto::from_record(record);
    let mut text =
        serde_json::to_string_pretty(&dto).map_err(|e| FormatError::Encode(e.to_string()))?;
    text.push('\n');
    Ok(text)
}

/// Reads a record file's text.
pub fn decode_record(text: &str) -> Result<ClassRecord, FormatError> {
    let header: HeaderDto = serde_json::from_str(text).map_err(corrupt_json)?;
    if header.format != FORMAT_NAME {
        return Err(FormatError::Corrupt(format!(
            "format is '{}', not '{FORMAT_NAME}'",
            header.format
        )));
    }
    if header.version != FORMAT_VERSION {
        return Err(FormatError::UnsupportedVersion {
            found: header.version,
        });
    }
    let dto: RecordDto = serde_json::from_str(text).map_err(corrupt_json)?;
    dto.into_record().map_err(FormatError::Corrupt)
}

fn corrupt_json(e: serde_json::Error) -> FormatError {
    FormatError::Corrupt(format!("invalid JSON: {e}"))
}

// ---------------------------------------------------------------------------------- schema

/// What is read first, to tell a newer or foreign file from a broken one.
#[derive(Deserialize)]
struct HeaderDto {
    format: String,
    version: u64,
}

#[derive(Serialize, Deserialize)]
struct RecordDto {
    format: String,
    version: u64,
    class: String,
    callables: BTreeMap<String, CallableDto>,
    tests: Vec<TestDto>,
    /// Added within version 1: records of older writers have none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    junit_class: Option<SuiteDto>,
    coverage: CoverageDto,
    history: Vec<HistoryDto>,
}

#[derive(Serialize, Deserialize)]
struct SuiteDto {
    junit: u8,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    unverified: Option<String>,
    methods: Vec<MethodDto>,
    /// The class's source split at `\n`; joined with `\n` it is the source, byte for byte.
    source: Vec<String>,
}

#[derive(Serialize, Deserialize)]
struct MethodDto {
    name: String,
    test: usize,
    goals: Vec<String>,
    /// Added within version 1: records of older writers have none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    assertions: Vec<AssertionDto>,
}

#[derive(Serialize, Deserialize)]
struct TestDto {
    covers: Vec<String>,
    statements: Vec<StatementDto>,
}

#[derive(Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
enum StatementDto {
    Primitive(ValueDto),
    Null(String),
    EnumConstant {
        #[serde(rename = "type")]
        ty: String,
        name: String,
    },
    Constructor {
        callable: String,
        type_args: Vec<String>,
        args: Vec<usize>,
        #[serde(rename = "type")]
        ty: String,
    },
    Method {
        callable: String,
        receiver: Option<usize>,
        type_args: Vec<String>,
        args: Vec<usize>,
        #[serde(rename = "type")]
        ty: Option<String>,
    },
    FieldRead {
        callable: String,
        receiver: Option<usize>,
        #[serde(rename = "type")]
        ty: String,
    },
    FieldWrite {
        callable: String,
        receiver: Option<usize>,
        value: usize,
    },
    ArrayNew {
        component: String,
        length: u32,
    },
    ArrayStore {
        array: usize,
        index: u32,
        value: usize,
    },
    ConsoleInput {
        text: String,
    },
    SystemProperty {
        key: String,
        value: String,
    },
    InputFile {
        name: String,
        content: Option<String>,
        #[serde(rename = "type")]
        ty: String,
    },
}

#[derive(Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
enum ValueDto {
    Boolean(bool),
    Byte(i8),
    Short(i16),
    Char(char),
    Int(i32),
    Long(i64),
    Float(String),
    Double(String),
    String(String),
}

#[derive(Serialize, Deserialize)]
struct CallableDto {
    owner: String,
    declaring_class: String,
    #[serde(flatten)]
    kind: KindDto,
    erased_params: Vec<String>,
    params: Vec<String>,
    returns: Option<String>,
    erased_return: Option<String>,
    type_params: Vec<TypeParamDto>,
    /// Names that are type variables in `params`, `returns` and `type_params`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    type_vars: Vec<String>,
    exceptions: Vec<String>,
    varargs: bool,
}

#[derive(Serialize, Deserialize)]
struct TypeParamDto {
    name: String,
    bounds: Vec<String>,
}

#[derive(Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
enum KindDto {
    Constructor,
    Method {
        name: String,
        #[serde(rename = "static")]
        is_static: bool,
    },
    FieldRead {
        name: String,
        #[serde(rename = "static")]
        is_static: bool,
    },
    FieldWrite {
        name: String,
        #[serde(rename = "static")]
        is_static: bool,
    },
}

#[derive(Serialize, Deserialize)]
struct CoverageDto {
    goals: BTreeMap<String, bool>,
    covered_lines: Vec<u32>,
    uncovered_lines: Vec<u32>,
    undeclared_exceptions: Vec<ExceptionDto>,
}

#[derive(Serialize, Deserialize)]
struct ExceptionDto {
    member: String,
    exception: String,
    line: Option<u32>,
    // The next three were added within version 1; older records lack them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    message: Option<String>,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    checked: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    test: Option<usize>,
}

#[derive(Serialize, Deserialize)]
struct HistoryDto {
    timestamp_ms: u64,
    source_hash: String,
    budget_ms: u64,
    algorithm: String,
    seed: u64,
    executions: u64,
    covered_goals: u64,
    total_goals: u64,
    improved: bool,
}

// ------------------------------------------------------------------------- record → JSON

impl RecordDto {
    fn from_record(r: &ClassRecord) -> RecordDto {
        let mut callables = CallableTable::default();
        let tests = r
            .tests
            .iter()
            .map(|t| TestDto {
                covers: t.covers.iter().cloned().collect(),
                statements: t
                    .test
                    .statements()
                    .iter()
                    .map(|s| statement_dto(s, &mut callables))
                    .collect(),
            })
            .collect();
        RecordDto {
            format: FORMAT_NAME.to_string(),
            version: FORMAT_VERSION,
            class: r.class.clone(),
            callables: callables.by_key,
            tests,
            junit_class: r.suite.as_ref().map(suite_dto),
            coverage: coverage_dto(&r.coverage),
            history: r.history.iter().map(history_dto).collect(),
        }
    }
}

/// Callables by display key, each distinct callable once.
#[derive(Default)]
struct CallableTable {
    by_key: BTreeMap<String, CallableDto>,
    keys: BTreeMap<Callable, String>,
}

impl CallableTable {
    fn key(&mut self, c: &Callable) -> String {
        if let Some(k) = self.keys.get(c) {
            return k.clone();
        }
        let base = c.to_string();
        let mut key = base.clone();
        let mut n = 2;
        while self.by_key.contains_key(&key) {
            key = format!("{base} #{n}");
            n += 1;
        }
        self.by_key.insert(key.clone(), callable_dto(c));
        self.keys.insert(c.clone(), key.clone());
        key
    }
}

fn statement_dto(s: &Statement, table: &mut CallableTable) -> StatementDto {
    let idx = |v: &VarRef| v.index();
    let types = |ts: &[JavaType]| ts.iter().map(JavaType::to_string).collect();
    match s {
        Statement::Primitive(v) => StatementDto::Primitive(value_dto(v)),
        Statement::Null(t) => StatementDto::Null(t.to_string()),
        Statement::EnumConstant { ty, name } => StatementDto::EnumConstant {
            ty: ty.to_string(),
            name: name.clone(),
        },
        Statement::Constructor {
            callable,
            type_args,
            args,
            ty,
        } => StatementDto::Constructor {
            callable: table.key(callable),
            type_args: types(type_args),
            args: args.iter().map(idx).collect(),
            ty: ty.to_string(),
        },
        Statement::Method {
            callable,
            receiver,
            type_args,
            args,
            ty,
        } => StatementDto::Method {
            callable: table.key(callable),
            receiver: receiver.as_ref().map(idx),
            type_args: types(type_args),
            args: args.iter().map(idx).collect(),
            ty: ty.as_ref().map(JavaType::to_string),
        },
        Statement::FieldRead {
            callable,
            receiver,
            ty,
        } => StatementDto::FieldRead {
            callable: table.key(callable),
            receiver: receiver.as_ref().map(idx),
            ty: ty.to_string(),
        },
        Statement::FieldWrite {
            callable,
            receiver,
            value,
        } => StatementDto::FieldWrite {
            callable: table.key(callable),
            receiver: receiver.as_ref().map(idx),
            value: value.index(),
        },
        Statement::ArrayNew { component, length } => StatementDto::ArrayNew {
            component: component.to_string(),
            length: *length,
        },
        Statement::ArrayStore {
            array,
            index,
            value,
        } => StatementDto::ArrayStore {
            array: array.index(),
            index: *index,
            value: value.index(),
        },
        Statement::ConsoleInput { text } => StatementDto::ConsoleInput { text: text.clone() },
        Statement::SystemProperty { key, value } => StatementDto::SystemProperty {
            key: key.clone(),
            value: value.clone(),
        },
        Statement::InputFile { name, content, ty } => StatementDto::InputFile {
            name: name.clone(),
            content: content.clone(),
            ty: ty.to_string(),
        },
    }
}

fn value_dto(v: &PrimitiveValue) -> ValueDto {
    match v {
        PrimitiveValue::Boolean(b) => ValueDto::Boolean(*b),
        PrimitiveValue::Byte(b) => ValueDto::Byte(*b),
        PrimitiveValue::Short(s) => ValueDto::Short(*s),
        PrimitiveValue::Char(c) => ValueDto::Char(*c),
        PrimitiveValue::Int(i) => ValueDto::Int(*i),
        PrimitiveValue::Long(l) => ValueDto::Long(*l),
        PrimitiveValue::Float(f) => ValueDto::Float(float_text(
            f.is_nan() && f.to_bits() != f32::NAN.to_bits(),
            u64::from(f.to_bits()),
            format!("{f:?}"),
        )),
        PrimitiveValue::Double(d) => ValueDto::Double(float_text(
            d.is_nan() && d.to_bits() != f64::NAN.to_bits(),
            d.to_bits(),
            format!("{d:?}"),
        )),
        PrimitiveValue::String(s) => ValueDto::String(s.clone()),
    }
}

/// Rust's `{:?}` form reads back exactly, except for the payload of a NaN.
fn float_text(odd_nan: bool, bits: u64, debug: String) -> String {
    if odd_nan {
        format!("bits:{bits:#x}")
    } else {
        debug
    }
}

fn callable_dto(c: &Callable) -> CallableDto {
    let kind = match &c.kind {
        CallableKind::Constructor => KindDto::Constructor,
        CallableKind::Method { name, is_static } => KindDto::Method {
            name: name.clone(),
            is_static: *is_static,
        },
        CallableKind::FieldRead { name, is_static } => KindDto::FieldRead {
            name: name.clone(),
            is_static: *is_static,
        },
        CallableKind::FieldWrite { name, is_static } => KindDto::FieldWrite {
            name: name.clone(),
            is_static: *is_static,
        },
    };
    let mut vars = BTreeSet::new();
    for t in c.params.iter().chain(&c.returns).chain(&c.erased_return) {
        collect_vars(t, &mut vars);
    }
    for p in &c.type_params {
        vars.insert(p.name.clone());
        p.bounds.iter().for_each(|b| collect_vars(b, &mut vars));
    }
    CallableDto {
        owner: c.owner.clone(),
        declaring_class: c.declaring_class.clone(),
        kind,
        erased_params: c.erased_params.clone(),
        params: c.params.iter().map(JavaType::to_string).collect(),
        returns: c.returns.as_ref().map(JavaType::to_string),
        erased_return: c.erased_return.as_ref().map(JavaType::to_string),
        type_params: c
            .type_params
            .iter()
            .map(|p| TypeParamDto {
                name: p.name.clone(),
                bounds: p.bounds.iter().map(JavaType::to_string).collect(),
            })
            .collect(),
        type_vars: vars.into_iter().collect(),
        exceptions: c.exceptions.clone(),
        varargs: c.varargs,
    }
}

fn collect_vars(t: &JavaType, out: &mut BTreeSet<String>) {
    match t {
        JavaType::Primitive(_) | JavaType::Wildcard(None) => {}
        JavaType::Class { args, .. } => args.iter().for_each(|a| collect_vars(a, out)),
        JavaType::Array(c) => collect_vars(c, out),
        JavaType::Var(v) => {
            out.insert(v.clone());
        }
        JavaType::Wildcard(Some(WildcardBound::Extends(b) | WildcardBound::Super(b))) => {
            collect_vars(b, out)
        }
    }
}

fn suite_dto(s: &StoredSuite) -> SuiteDto {
    SuiteDto {
        junit: match s.junit {
            JUnitVersion::Four => 4,
            JUnitVersion::Five => 5,
        },
        unverified: s.unverified.clone(),
        methods: s
            .methods
            .iter()
            .map(|m| MethodDto {
                name: m.name.clone(),
                test: m.test,
                goals: m.goals.iter().cloned().collect(),
                assertions: m.assertions.iter().map(AssertionDto::from_stored).collect(),
            })
            .collect(),
        source: s.source.split('\n').map(str::to_string).collect(),
    }
}

fn coverage_dto(c: &Coverage) -> CoverageDto {
    CoverageDto {
        goals: c.goals.clone(),
        covered_lines: c.covered_lines.iter().copied().collect(),
        uncovered_lines: c.uncovered_lines.iter().copied().collect(),
        undeclared_exceptions: c
            .undeclared_exceptions
            .iter()
            .map(|e| ExceptionDto {
                member: e.member.clone(),
                exception: e.exception.clone(),
                line: e.line,
                message: e.message.clone(),
                checked: e.checked,
                test: e.test,
            })
            .collect(),
    }
}

fn history_dto(e: &HistoryEntry) -> HistoryDto {
    HistoryDto {
        timestamp_ms: e.run.timestamp_ms,
        source_hash: e.run.source_hash.clone(),
        budget_ms: e.run.budget_ms,
        algorithm: e.run.algorithm.clone(),
        seed: e.run.seed,
        executions: e.run.executions,
        covered_goals: e.covered_goals,
        total_goals: e.total_goals,
        improved: e.improved,
    }
}

// ------------------------------------------------------------------------- JSON → record

impl RecordDto {
    fn into_record(self) -> Result<ClassRecord, String> {
        let mut callables = BTreeMap::new();
        for (key, dto) in self.callables {
            let c = callable_from(dto).map_err(|e| format!("callable '{key}': {e}"))?;
            callables.insert(key, Arc::new(c));
        }
        let tests = self
            .tests
            .into_iter()
            .enumerate()
            .map(|(i, t)| test_from(t, &callables).map_err(|e| format!("test {i}: {e}")))
            .collect::<Result<Vec<_>, _>>()?;
        let test_index = |what: String, i: usize| {
            if i < tests.len() {
                Ok(i)
            } else {
                Err(format!(
                    "{what} refers to test {i}; there are {}",
                    tests.len()
                ))
            }
        };
        let suite = self
            .junit_class
            .map(|s| suite_from(s, &test_index))
            .transpose()?;
        let coverage = coverage_from(self.coverage, &test_index)?;
        Ok(ClassRecord {
            class: self.class,
            tests,
            suite,
            coverage,
            history: self.history.into_iter().map(history_from).collect(),
        })
    }
}

fn test_from(
    t: TestDto,
    callables: &BTreeMap<String, Arc<Callable>>,
) -> Result<StoredTest, String> {
    let statements = t
        .statements
        .into_iter()
        .enumerate()
        .map(|(i, s)| statement_from(s, i, callables).map_err(|e| format!("statement {i}: {e}")))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(StoredTest {
        test: TestCase::from_statements(statements),
        covers: t.covers.into_iter().collect(),
    })
}

fn statement_from(
    s: StatementDto,
    position: usize,
    callables: &BTreeMap<String, Arc<Callable>>,
) -> Result<Statement, String> {
    let var = |i: usize| {
        if i < position {
            Ok(VarRef(i))
        } else {
            Err(format!("refers to statement {i}, which is not earlier"))
        }
    };
    let vars = |is: Vec<usize>| is.into_iter().map(var).collect::<Result<Vec<_>, _>>();
    let opt_var = |i: Option<usize>| i.map(var).transpose();
    let callable = |key: String| {
        callables
            .get(&key)
            .cloned()
            .ok_or_else(|| format!("unknown callable '{key}'"))
    };
    let types = |ts: Vec<String>| {
        ts.iter()
            .map(|t| ground_type(t))
            .collect::<Result<Vec<_>, _>>()
    };
    Ok(match s {
        StatementDto::Primitive(v) => Statement::Primitive(value_from(v)?),
        StatementDto::Null(t) => Statement::Null(ground_type(&t)?),
        StatementDto::EnumConstant { ty, name } => Statement::EnumConstant {
            ty: ground_type(&ty)?,
            name,
        },
        StatementDto::Constructor {
            callable: c,
            type_args,
            args,
            ty,
        } => Statement::Constructor {
            callable: callable(c)?,
            type_args: types(type_args)?,
            args: vars(args)?,
            ty: ground_type(&ty)?,
        },
        StatementDto::Method {
            callable: c,
            receiver,
            type_args,
            args,
            ty,
        } => Statement::Method {
            callable: callable(c)?,
            receiver: opt_var(receiver)?,
            type_args: types(type_args)?,
            args: vars(args)?,
            ty: ty.as_deref().map(ground_type).transpose()?,
        },
        StatementDto::FieldRead {
            callable: c,
            receiver,
            ty,
        } => Statement::FieldRead {
            callable: callable(c)?,
            receiver: opt_var(receiver)?,
            ty: ground_type(&ty)?,
        },
        StatementDto::FieldWrite {
            callable: c,
            receiver,
            value,
        } => Statement::FieldWrite {
            callable: callable(c)?,
            receiver: opt_var(receiver)?,
            value: var(value)?,
        },
        StatementDto::ArrayNew { component, length } => Statement::ArrayNew {
            component: ground_type(&component)?,
            length,
        },
        StatementDto::ArrayStore {
            array,
            index,
            value,
        } => Statement::ArrayStore {
            array: var(array)?,
            index,
            value: var(value)?,
        },
        StatementDto::ConsoleInput { text } => Statement::ConsoleInput { text },
        StatementDto::SystemProperty { key, value } => Statement::SystemProperty { key, value },
        StatementDto::InputFile { name, content, ty } => Statement::InputFile {
            name,
            content,
            ty: ground_type(&ty)?,
        },
    })
}

fn value_from(v: ValueDto) -> Result<PrimitiveValue, String> {
    Ok(match v {
        ValueDto::Boolean(b) => PrimitiveValue::Boolean(b),
        ValueDto::Byte(b) => PrimitiveValue::Byte(b),
        ValueDto::Short(s) => PrimitiveValue::Short(s),
        ValueDto::Char(c) => PrimitiveValue::Char(c),
        ValueDto::Int(i) => PrimitiveValue::Int(i),
        ValueDto::Long(l) => PrimitiveValue::Long(l),
        ValueDto::Float(s) => PrimitiveValue::Float(match bits_of(&s)? {
            Some(bits) => f32::from_bits(
                u32::try_from(bits).map_err(|_| format!("float bits {s} do not fit 32 bits"))?,
            ),
            None => s.parse().map_err(|_| format!("'{s}' is not a float"))?,
        }),
        ValueDto::Double(s) => PrimitiveValue::Double(match bits_of(&s)? {
            Some(bits) => f64::from_bits(bits),
            None => s.parse().map_err(|_| format!("'{s}' is not a double"))?,
        }),
        ValueDto::String(s) => PrimitiveValue::String(s),
    })
}

fn bits_of(s: &str) -> Result<Option<u64>, String> {
    let Some(hex) = s.strip_prefix("bits:") else {
        return Ok(None);
    };
    let digits = hex.strip_prefix("0x").unwrap_or(hex);
    u64::from_str_radix(digits, 16)
        .map(Some)
        .map_err(|_| format!("'{s}' is not a bit pattern"))
}

/// Test cases hold ground types only: no name is a type variable.
fn ground_type(text: &str) -> Result<JavaType, String> {
    parse_type(text, &|_| false)
}

fn callable_from(d: CallableDto) -> Result<Callable, String> {
    let vars: BTreeSet<&str> = d.type_vars.iter().map(String::as_str).collect();
    let is_var = |n: &str| vars.contains(n);
    let ty = |t: &str| parse_type(t, &is_var);
    let kind = match d.kind {
        KindDto::Constructor => CallableKind::Constructor,
        KindDto::Method { name, is_static } => CallableKind::Method { name, is_static },
        KindDto::FieldRead { name, is_static } => CallableKind::FieldRead { name, is_static },
        KindDto::FieldWrite { name, is_static } => CallableKind::FieldWrite { name, is_static },
    };
    Ok(Callable {
        owner: d.owner,
        declaring_class: d.declaring_class,
        kind,
        erased_params: d.erased_params,
        params: d.params.iter().map(|p| ty(p)).collect::<Result<_, _>>()?,
        returns: d.returns.as_deref().map(ty).transpose()?,
        erased_return: d.erased_return.as_deref().map(ty).transpose()?,
        type_params: d
            .type_params
            .iter()
            .map(|p| {
                Ok(TypeParameter {
                    name: p.name.clone(),
                    bounds: p
                        .bounds
                        .iter()
                        .map(|b| ty(b))
                        .collect::<Result<_, String>>()?,
                })
            })
            .collect::<Result<_, String>>()?,
        exceptions: d.exceptions,
        varargs: d.varargs,
    })
}

type TestIndex<'a> = dyn Fn(String, usize) -> Result<usize, String> + 'a;

fn suite_from(s: SuiteDto, test_index: &TestIndex) -> Result<StoredSuite, String> {
    let junit = match s.junit {
        4 => JUnitVersion::Four,
        5 => JUnitVersion::Five,
        other => return Err(format!("junit_class: JUnit {other} is not 4 or 5")),
    };
    let methods = s
        .methods
        .into_iter()
        .map(|m| {
            Ok(StoredMethod {
                test: test_index(format!("junit_class: method {}", m.name), m.test)?,
                assertions: m
                    .assertions
                    .into_iter()
                    .map(|a| a.into_stored(&m.name))
                    .collect::<Result<Vec<_>, String>>()?,
                name: m.name,
                goals: m.goals.into_iter().collect(),
            })
        })
        .collect::<Result<Vec<_>, String>>()?;
    Ok(StoredSuite {
        junit,
        source: s.source.join("\n"),
        methods,
        unverified: s.unverified,
    })
}

fn coverage_from(c: CoverageDto, test_index: &TestIndex) -> Result<Coverage, String> {
    Ok(Coverage {
        goals: c.goals,
        covered_lines: c.covered_lines.into_iter().collect(),
        uncovered_lines: c.uncovered_lines.into_iter().collect(),
        undeclared_exceptions: c
            .undeclared_exceptions
            .into_iter()
            .map(|e| {
                Ok(UndeclaredException {
                    test: e
                        .test
                        .map(|i| test_index(format!("exception {}", e.exception), i))
                        .transpose()?,
                    member: e.member,
                    exception: e.exception,
                    line: e.line,
                    message: e.message,
                    checked: e.checked,
                })
            })
            .collect::<Result<_, String>>()?,
    })
}

fn history_from(h: HistoryDto) -> HistoryEntry {
    HistoryEntry {
        run: RunInfo {
            timestamp_ms: h.timestamp_ms,
            source_hash: h.source_hash,
            budget_ms: h.budget_ms,
            algorithm: h.algorithm,
            seed: h.seed,
            executions: h.executions,
        },
        covered_goals: h.covered_goals,
        total_goals: h.total_goals,
        improved: h.improved,
    }
}
