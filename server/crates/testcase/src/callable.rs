//! Constructors, methods and field accesses of the test cluster, with their generic signatures
//! as declared (type variables unresolved) and the erased parameter types that pick the
//! overload at run time.

use std::fmt;

use crate::description::{
    ConstructorDescription, FieldDescription, MethodDescription, ParamDescription,
};
use crate::types::{parse_type, parse_type_parameter, JavaType, TypeParameter, TypeParseError};

#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum CallableKind {
    Constructor,
    Method {
        name: String,
        is_static: bool,
    },
    /// Reading a public field: no parameters, returns the field's type.
    FieldRead {
        name: String,
        is_static: bool,
    },
    /// Writing a public non-final field: one parameter (the value), returns nothing.
    FieldWrite {
        name: String,
        is_static: bool,
    },
}

/// One way to call into a class. A statement holds it by `Arc`, so a test case stays readable
/// (and printable) without the cluster it came from.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Callable {
    /// The class the statement names (the worker's `class`): the described class, which for an
    /// inherited method is a subclass of `declaring_class`.
    pub owner: String,
    pub declaring_class: String,
    pub kind: CallableKind,
    /// Erased parameter types (`getTypeName()` form); they pick the overload.
    pub erased_params: Vec<String>,
    /// Declared parameter types; may mention type variables and wildcards.
    pub params: Vec<JavaType>,
    /// Declared result type; `None` for void methods, field writes and constructors (whose
    /// value is an instance of `owner`).
    pub returns: Option<JavaType>,
    /// Erased result type, used when the declared one cannot be resolved to a ground type.
    pub erased_return: Option<JavaType>,
    /// The method's own type parameters.
    pub type_params: Vec<TypeParameter>,
    pub exceptions: Vec<String>,
    pub varargs: bool,
}

impl Callable {
    pub fn name(&self) -> &str {
        match &self.kind {
            CallableKind::Constructor => "<init>",
            CallableKind::Method { name, .. }
            | CallableKind::FieldRead { name, .. }
            | CallableKind::FieldWrite { name, .. } => name,
        }
    }

    pub fn is_static(&self) -> bool {
        match &self.kind {
            CallableKind::Constructor => false,
            CallableKind::Method { is_static, .. }
            | CallableKind::FieldRead { is_static, .. }
            | CallableKind::FieldWrite { is_static, .. } => *is_static,
        }
    }

    /// Instance methods and instance field accesses need an object to work on.
    pub fn needs_receiver(&self) -> bool {
        !matches!(self.kind, CallableKind::Constructor) && !self.is_static()
    }

    pub fn is_constructor(&self) -> bool {
        matches!(self.kind, CallableKind::Constructor)
    }

    /// Whether the statement defines a value.
    pub fn produces_value(&self) -> bool {
        self.is_constructor() || self.returns.is_some()
    }

    pub(crate) fn constructor(
        owner: &str,
        d: &ConstructorDescription,
        is_var: &dyn Fn(&str) -> bool,
    ) -> Result<Callable, TypeParseError> {
        let type_params = type_params(&d.type_parameters, is_var)?;
        let (erased_params, params) = params(&d.params, is_var)?;
        Ok(Callable {
            owner: owner.to_string(),
            declaring_class: owner.to_string(),
            kind: CallableKind::Constructor,
            erased_params,
            params,
            returns: None,
            erased_return: None,
            type_params,
            exceptions: d.exceptions.clone(),
            varargs: d.varargs,
        })
    }

    pub(crate) fn method(
        owner: &str,
        d: &MethodDescription,
        is_var: &dyn Fn(&str) -> bool,
    ) -> Result<Callable, TypeParseError> {
        let type_params = type_params(&d.type_parameters, is_var)?;
        let (erased_params, params) = params(&d.params, is_var)?;
        let (returns, erased_return) = if d.return_type == "void" {
            (None, None)
        } else {
            let erased = parse_type(&d.return_type, &|_| false)?;
            let generic = match &d.generic_return_type {
                Some(g) => parse_type(g, is_var)?,
                None => erased.clone(),
            };
            (Some(generic), Some(erased))
        };
        Ok(Callable {
            owner: owner.to_string(),
            declaring_class: d.declaring_class.clone(),
            kind: CallableKind::Method {
                name: d.name.clone(),
                is_static: d.is_static,
            },
            erased_params,
            params,
            returns,
            erased_return,
            type_params,
            exceptions: d.exceptions.clone(),
            varargs: d.varargs,
        })
    }

    /// The read and, for a non-final field, the write of a field.
    pub(crate) fn field(
        owner: &str,
        d: &FieldDescription,
        is_var: &dyn Fn(&str) -> bool,
    ) -> Result<Vec<Callable>, TypeParseError> {
        let erased = parse_type(&d.type_name, &|_| false)?;
        let generic = match &d.generic_type {
            Some(g) => parse_type(g, is_var)?,
            None => erased.clone(),
        };
        let read = Callable {
            owner: owner.to_string(),
            declaring_class: d.declaring_class.clone(),
            kind: CallableKind::FieldRead {
                name: d.name.clone(),
                is_static: d.is_static,
            },
            erased_params: Vec::new(),
            params: Vec::new(),
            returns: Some(generic.clone()),
            erased_return: Some(erased.clone()),
            type_params: Vec::new(),
            exceptions: Vec::new(),
            varargs: false,
        };
        let mut out = vec![read];
        if !d.is_final {
            out.push(Callable {
                owner: owner.to_string(),
                declaring_class: d.declaring_class.clone(),
                kind: CallableKind::FieldWrite {
                    name: d.name.clone(),
                    is_static: d.is_static,
                },
                erased_params: vec![d.type_name.clone()],
                params: vec![generic],
                returns: None,
                erased_return: None,
                type_params: Vec::new(),
                exceptions: Vec::new(),
                varargs: false,
            });
        }
        Ok(out)
    }
}

impl fmt::Display for Callable {
    /// `com.acme.A.withdraw(long)`, `com.acme.A.<init>(java.lang.String)`, `com.acme.A.owner=`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.kind {
            CallableKind::FieldRead { name, .. } => write!(f, "{}.{name}", self.owner),
            CallableKind::FieldWrite { name, .. } => write!(f, "{}.{name}=", self.owner),
            _ => write!(
                f,
                "{}.{}({})",
                self.owner,
                self.name(),
                self.erased_params.join(", ")
            ),
        }
    }
}

fn type_params(
    decls: &[String],
    is_var: &dyn Fn(&str) -> bool,
) -> Result<Vec<TypeParameter>, TypeParseError> {
    decls
        .iter()
        .map(|d| parse_type_parameter(d, is_var))
        .collect()
}

fn params(
    ps: &[ParamDescription],
    is_var: &dyn Fn(&str) -> bool,
) -> Result<(Vec<String>, Vec<JavaType>), TypeParseError> {
    let mut erased = Vec::with_capacity(ps.len());
    let mut generic = Vec::with_capacity(ps.len());
    for p in ps {
        // The erased name must parse too: it is what the statement sends.
        parse_type(&p.type_name, &|_| false)?;
        erased.push(p.type_name.clone());
        generic.push(parse_type(&p.generic, is_var)?);
    }
    Ok((erased, generic))
}
