//! Literal values of primitive statements: the eight primitives and `String`.

use std::fmt;

use crate::types::{JavaType, PrimitiveKind};

/// The value of a primitive statement. Floats compare by bits, so `NaN == NaN` and a test case
/// equals its clone.
#[derive(Debug, Clone)]
pub enum PrimitiveValue {
    Boolean(bool),
    Byte(i8),
    Short(i16),
    /// A UTF-16 code unit that is not a surrogate (Rust's `char` cannot hold one).
    Char(char),
    Int(i32),
    Long(i64),
    Float(f32),
    Double(f64),
    String(String),
}

/// The kind of a literal: a primitive, or `String`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum LiteralKind {
    Primitive(PrimitiveKind),
    String,
}

impl LiteralKind {
    pub fn value_type(self) -> JavaType {
        match self {
            LiteralKind::Primitive(k) => JavaType::Primitive(k),
            LiteralKind::String => JavaType::string(),
        }
    }

    /// The literal kind that directly provides values of `ty`: primitives, their boxes and
    /// `String`.
    pub fn for_type(ty: &JavaType) -> Option<LiteralKind> {
        match ty {
            JavaType::Primitive(k) => Some(LiteralKind::Primitive(*k)),
            JavaType::Class { name, .. } if name == crate::types::STRING => {
                Some(LiteralKind::String)
            }
            JavaType::Class { name, .. } => {
                PrimitiveKind::unboxed(name).map(LiteralKind::Primitive)
            }
            _ => None,
        }
    }
}

impl PrimitiveValue {
    pub fn kind(&self) -> LiteralKind {
        use PrimitiveKind as K;
        match self {
            PrimitiveValue::Boolean(_) => LiteralKind::Primitive(K::Boolean),
            PrimitiveValue::Byte(_) => LiteralKind::Primitive(K::Byte),
            PrimitiveValue::Short(_) => LiteralKind::Primitive(K::Short),
            PrimitiveValue::Char(_) => LiteralKind::Primitive(K::Char),
            PrimitiveValue::Int(_) => LiteralKind::Primitive(K::Int),
            PrimitiveValue::Long(_) => LiteralKind::Primitive(K::Long),
            PrimitiveValue::Float(_) => LiteralKind::Primitive(K::Float),
            PrimitiveValue::Double(_) => LiteralKind::Primitive(K::Double),
            PrimitiveValue::String(_) => LiteralKind::String,
        }
    }

    pub fn value_type(&self) -> JavaType {
        self.kind().value_type()
    }

    /// The value as an integer, for integral kinds and `char`.
    pub fn as_integer(&self) -> Option<i64> {
        match self {
            PrimitiveValue::Byte(v) => Some(i64::from(*v)),
            PrimitiveValue::Short(v) => Some(i64::from(*v)),
            PrimitiveValue::Char(v) => Some(i64::from(u32::from(*v))),
            PrimitiveValue::Int(v) => Some(i64::from(*v)),
            PrimitiveValue::Long(v) => Some(*v),
            _ => None,
        }
    }
}

impl PartialEq for PrimitiveValue {
    fn eq(&self, other: &Self) -> bool {
        use PrimitiveValue::*;
        match (self, other) {
            (Boolean(a), Boolean(b)) => a == b,
            (Byte(a), Byte(b)) => a == b,
            (Short(a), Short(b)) => a == b,
            (Char(a), Char(b)) => a == b,
            (Int(a), Int(b)) => a == b,
            (Long(a), Long(b)) => a == b,
            (Float(a), Float(b)) => a.to_bits() == b.to_bits(),
            (Double(a), Double(b)) => a.to_bits() == b.to_bits(),
            (String(a), String(b)) => a == b,
            _ => false,
        }
    }
}

impl Eq for PrimitiveValue {}

impl fmt::Display for PrimitiveValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PrimitiveValue::Boolean(v) => write!(f, "{v}"),
            PrimitiveValue::Byte(v) => write!(f, "(byte) {v}"),
            PrimitiveValue::Short(v) => write!(f, "(short) {v}"),
            PrimitiveValue::Char(v) => write!(f, "{v:?}"),
            PrimitiveValue::Int(v) => write!(f, "{v}"),
            PrimitiveValue::Long(v) => write!(f, "{v}L"),
            PrimitiveValue::Float(v) => write!(f, "{v:?}F"),
            PrimitiveValue::Double(v) => write!(f, "{v:?}"),
            PrimitiveValue::String(v) => write!(f, "{v:?}"),
        }
    }
}
