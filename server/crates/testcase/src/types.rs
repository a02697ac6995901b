//! Java types as the test cluster sees them: primitives, classes with type arguments, arrays,
//! and, only inside member signatures, type variables and wildcards. Parses the
//! `Class.getTypeName()` / `Type.getTypeName()` strings the worker reports; substitution and
//! unification of type variables.

use std::collections::BTreeMap;
use std::fmt;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum PrimitiveKind {
    Boolean,
    Byte,
    Short,
    Char,
    Int,
    Long,
    Float,
    Double,
}

impl PrimitiveKind {
    pub const ALL: [PrimitiveKind; 8] = [
        PrimitiveKind::Boolean,
        PrimitiveKind::Byte,
        PrimitiveKind::Short,
        PrimitiveKind::Char,
        PrimitiveKind::Int,
        PrimitiveKind::Long,
        PrimitiveKind::Float,
        PrimitiveKind::Double,
    ];

    pub fn name(self) -> &'static str {
        match self {
            PrimitiveKind::Boolean => "boolean",
            PrimitiveKind::Byte => "byte",
            PrimitiveKind::Short => "short",
            PrimitiveKind::Char => "char",
            PrimitiveKind::Int => "int",
            PrimitiveKind::Long => "long",
            PrimitiveKind::Float => "float",
            PrimitiveKind::Double => "double",
        }
    }

    pub fn from_name(name: &str) -> Option<PrimitiveKind> {
        PrimitiveKind::ALL.into_iter().find(|k| k.name() == name)
    }

    /// The binary name of the box class.
    pub fn boxed(self) -> &'static str {
        match self {
            PrimitiveKind::Boolean => "java.lang.Boolean",
            PrimitiveKind::Byte => "java.lang.Byte",
            PrimitiveKind::Short => "java.lang.Short",
            PrimitiveKind::Char => "java.lang.Character",
            PrimitiveKind::Int => "java.lang.Integer",
            PrimitiveKind::Long => "java.lang.Long",
            PrimitiveKind::Float => "java.lang.Float",
            PrimitiveKind::Double => "java.lang.Double",
        }
    }

    /// The primitive whose box is `class`.
    pub fn unboxed(class: &str) -> Option<PrimitiveKind> {
        PrimitiveKind::ALL.into_iter().find(|k| k.boxed() == class)
    }

    /// Identity or widening primitive conversion (JLS 5.1.2), as allowed in an invocation
    /// context and by `Method.invoke`.
    pub fn widens_to(self, to: PrimitiveKind) -> bool {
        use PrimitiveKind::*;
        if self == to {
            return true;
        }
        match self {
            Boolean | Double => false,
            Byte => matches!(to, Short | Int | Long | Float | Double),
            Short | Char => matches!(to, Int | Long | Float | Double),
            Int => matches!(to, Long | Float | Double),
            Long => matches!(to, Float | Double),
            Float => to == Double,
        }
    }
}

/// A Java type. Test cases only hold *ground* types (no [`JavaType::Var`], no
/// [`JavaType::Wildcard`]); member signatures in the cluster may hold both.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum JavaType {
    Primitive(PrimitiveKind),
    /// A class or interface by binary name (`com.acme.Outer$Inner`) with its type arguments;
    /// empty arguments mean a non-generic type, or a raw use of a generic one.
    Class {
        name: String,
        args: Vec<JavaType>,
    },
    Array(Box<JavaType>),
    /// A type variable, by name.
    Var(String),
    /// `?` (no bound), `? extends B`, `? super B`.
    Wildcard(Option<WildcardBound>),
}

#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum WildcardBound {
    Extends(Box<JavaType>),
    Super(Box<JavaType>),
}

pub const OBJECT: &str = "java.lang.Object";
pub const STRING: &str = "java.lang.String";

impl JavaType {
    pub fn class(name: &str) -> JavaType {
        JavaType::Class {
            name: name.to_string(),
            args: Vec::new(),
        }
    }

    pub fn generic(name: &str, args: Vec<JavaType>) -> JavaType {
        JavaType::Class {
            name: name.to_string(),
            args,
        }
    }

    pub fn object() -> JavaType {
        JavaType::class(OBJECT)
    }

    pub fn string() -> JavaType {
        JavaType::class(STRING)
    }

    pub fn array_of(component: JavaType) -> JavaType {
        JavaType::Array(Box::new(component))
    }

    pub fn is_primitive(&self) -> bool {
        matches!(self, JavaType::Primitive(_))
    }

    /// The class name of a class type.
    pub fn class_name(&self) -> Option<&str> {
        match self {
            JavaType::Class { name, .. } => Some(name),
            _ => None,
        }
    }

    pub fn type_args(&self) -> &[JavaType] {
        match self {
            JavaType::Class { args, .. } => args,
            _ => &[],
        }
    }

    pub fn is_class(&self, class: &str) -> bool {
        self.class_name() == Some(class)
    }

    /// No type variables and no wildcards anywhere.
    pub fn is_ground(&self) -> bool {
        match self {
            JavaType::Primitive(_) => true,
            JavaType::Class { args, .. } => args.iter().all(JavaType::is_ground),
            JavaType::Array(c) => c.is_ground(),
            JavaType::Var(_) | JavaType::Wildcard(_) => false,
        }
    }

    pub fn mentions_type_variable(&self) -> bool {
        match self {
            JavaType::Primitive(_) | JavaType::Wildcard(None) => false,
            JavaType::Class { args, .. } => args.iter().any(JavaType::mentions_type_variable),
            JavaType::Array(c) => c.mentions_type_variable(),
            JavaType::Var(_) => true,
            JavaType::Wildcard(Some(WildcardBound::Extends(b) | WildcardBound::Super(b))) => {
                b.mentions_type_variable()
            }
        }
    }

    pub fn contains_wildcard(&self) -> bool {
        match self {
            JavaType::Primitive(_) | JavaType::Var(_) => false,
            JavaType::Class { args, .. } => args.iter().any(JavaType::contains_wildcard),
            JavaType::Array(c) => c.contains_wildcard(),
            JavaType::Wildcard(_) => true,
        }
    }

    /// The erasure as `Class.getTypeName()` names it: `int`, `java.util.List`, `int[][]`.
    /// Type variables and wildcards erase to `java.lang.Object` here; callers that know a
    /// variable's bound erase it themselves.
    pub fn erased_name(&self) -> String {
        match self {
            JavaType::Primitive(k) => k.name().to_string(),
            JavaType::Class { name, .. } => name.clone(),
            JavaType::Array(c) => format!("{}[]", c.erased_name()),
            JavaType::Var(_) | JavaType::Wildcard(_) => OBJECT.to_string(),
        }
    }

    /// The same type without type arguments at any level.
    pub fn erased(&self) -> JavaType {
        match self {
            JavaType::Primitive(_) => self.clone(),
            JavaType::Class { name, .. } => JavaType::class(name),
            JavaType::Array(c) => JavaType::array_of(c.erased()),
            JavaType::Var(_) | JavaType::Wildcard(_) => JavaType::object(),
        }
    }

    /// Replaces type variables for which `binding` answers; others stay.
    pub fn substitute(&self, binding: &dyn Fn(&str) -> Option<JavaType>) -> JavaType {
        match self {
            JavaType::Primitive(_) => self.clone(),
            JavaType::Class { name, args } => JavaType::Class {
                name: name.clone(),
                args: args.iter().map(|a| a.substitute(binding)).collect(),
            },
            JavaType::Array(c) => JavaType::array_of(c.substitute(binding)),
            JavaType::Var(v) => binding(v).unwrap_or_else(|| self.clone()),
            JavaType::Wildcard(None) => self.clone(),
            JavaType::Wildcard(Some(WildcardBound::Extends(b))) => JavaType::Wildcard(Some(
                WildcardBound::Extends(Box::new(b.substitute(binding))),
            )),
            JavaType::Wildcard(Some(WildcardBound::Super(b))) => {
                JavaType::Wildcard(Some(WildcardBound::Super(Box::new(b.substitute(binding)))))
            }
        }
    }

    pub fn substitute_map(&self, map: &BTreeMap<String, JavaType>) -> JavaType {
        self.substitute(&|v| map.get(v).cloned())
    }
}

impl fmt::Display for JavaType {
    /// Source-like form with binary names: `java.util.Map<java.lang.String, int[]>`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            JavaType::Primitive(k) => f.write_str(k.name()),
            JavaType::Class { name, args } => {
                f.write_str(name)?;
                if !args.is_empty() {
                    f.write_str("<")?;
                    for (i, a) in args.iter().enumerate() {
                        if i > 0 {
                            f.write_str(", ")?;
                        }
                        write!(f, "{a}")?;
                    }
                    f.write_str(">")?;
                }
                Ok(())
            }
            JavaType::Array(c) => write!(f, "{c}[]"),
            JavaType::Var(v) => f.write_str(v),
            JavaType::Wildcard(None) => f.write_str("?"),
            JavaType::Wildcard(Some(WildcardBound::Extends(b))) => write!(f, "? extends {b}"),
            JavaType::Wildcard(Some(WildcardBound::Super(b))) => write!(f, "? super {b}"),
        }
    }
}

/// Binds the type variables of `pattern` so that it equals `target`. Variables already bound
/// must agree. Wildcards in the pattern match anything. Returns false on a mismatch; bindings
/// made before the mismatch are left in place (callers work on a copy).
pub fn unify(
    pattern: &JavaType,
    target: &JavaType,
    bindings: &mut BTreeMap<String, JavaType>,
) -> bool {
    match (pattern, target) {
        (JavaType::Var(v), _) => match bindings.get(v) {
            Some(bound) => bound == target,
            None => {
                bindings.insert(v.clone(), target.clone());
                true
            }
        },
        (JavaType::Wildcard(_), _) => true,
        (JavaType::Primitive(a), JavaType::Primitive(b)) => a == b,
        (JavaType::Array(a), JavaType::Array(b)) => unify(a, b, bindings),
        (JavaType::Class { name: n1, args: a1 }, JavaType::Class { name: n2, args: a2 }) => {
            if n1 != n2 {
                return false;
            }
            if a1.is_empty() || a2.is_empty() {
                // A raw side: nothing to bind, and raw types unify with any instantiation.
                return true;
            }
            a1.len() == a2.len() && a1.iter().zip(a2).all(|(p, t)| unify(p, t, bindings))
        }
        _ => false,
    }
}

/// A type the worker's names did not describe in a form we understand.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TypeParseError {
    pub text: String,
    pub message: String,
}

impl fmt::Display for TypeParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "cannot read type '{}': {}", self.text, self.message)
    }
}

impl std::error::Error for TypeParseError {}

/// Parses a `getTypeName()` string. `is_var` says which bare names are type variables in
/// scope (reflection prints a variable as its bare name, as it does a class in the default
/// package). A parameterized member type `Outer<A>$Inner<B>` keeps only the inner arguments:
/// the test cluster never relies on outer instances' type arguments.
pub fn parse_type(text: &str, is_var: &dyn Fn(&str) -> bool) -> Result<JavaType, TypeParseError> {
    let mut p = Parser {
        s: text.as_bytes(),
        pos: 0,
        is_var,
    };
    let t = p.ty().map_err(|message| TypeParseError {
        text: text.to_string(),
        message,
    })?;
    p.skip_ws();
    if p.pos != p.s.len() {
        return Err(TypeParseError {
            text: text.to_string(),
            message: format!("unexpected text at byte {}", p.pos),
        });
    }
    Ok(t)
}

/// Parses a type parameter declaration as the worker prints it: `T`, `T extends A & B<T>`.
pub fn parse_type_parameter(
    text: &str,
    is_var: &dyn Fn(&str) -> bool,
) -> Result<TypeParameter, TypeParseError> {
    let text = text.trim();
    let (name, bounds) = match text.split_once(" extends ") {
        Some((n, b)) => (n.trim(), Some(b)),
        None => (text, None),
    };
    let mut out = TypeParameter {
        name: name.to_string(),
        bounds: Vec::new(),
    };
    if let Some(bounds) = bounds {
        for part in split_top_level(bounds, '&') {
            out.bounds.push(parse_type(part.trim(), is_var)?);
        }
    }
    Ok(out)
}

/// A declared type variable with its bounds (empty: `java.lang.Object`).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TypeParameter {
    pub name: String,
    pub bounds: Vec<JavaType>,
}

fn split_top_level(s: &str, sep: char) -> Vec<&str> {
    let mut out = Vec::new();
    let mut depth = 0i32;
    let mut start = 0;
    for (i, c) in s.char_indices() {
        match c {
            '<' => depth += 1,
            '>' => depth -= 1,
            c if c == sep && depth == 0 => {
                out.push(&s[start..i]);
                start = i + c.len_utf8();
            }
            _ => {}
        }
    }
    out.push(&s[start..]);
    out
}

struct Parser<'a> {
    s: &'a [u8],
    pos: usize,
    is_var: &'a dyn Fn(&str) -> bool,
}

impl Parser<'_> {
    fn skip_ws(&mut self) {
        while self.pos < self.s.len() && self.s[self.pos] == b' ' {
            self.pos += 1;
        }
    }

    fn peek(&self) -> Option<u8> {
        self.s.get(self.pos).copied()
    }

    fn eat(&mut self, token: &str) -> bool {
        if self.s[self.pos..].starts_with(token.as_bytes()) {
            self.pos += token.len();
            true
        } else {
            false
        }
    }

    fn name(&mut self) -> Result<String, String> {
        let start = self.pos;
        while let Some(c) = self.peek() {
            if c.is_ascii_alphanumeric() || c == b'_' || c == b'.' || c == b'$' || c >= 0x80 {
                self.pos += 1;
            } else {
                break;
            }
        }
        if start == self.pos {
            return Err(format!("expected a name at byte {start}"));
        }
        String::from_utf8(self.s[start..self.pos].to_vec()).map_err(|e| e.to_string())
    }

    fn ty(&mut self) -> Result<JavaType, String> {
        self.skip_ws();
        if self.eat("?") {
            self.skip_ws();
            let bound = if self.eat("extends ") {
                Some(WildcardBound::Extends(Box::new(self.ty()?)))
            } else if self.eat("super ") {
                Some(WildcardBound::Super(Box::new(self.ty()?)))
            } else {
                None
            };
            return Ok(JavaType::Wildcard(bound));
        }
        let mut name = self.name()?;
        let mut args = Vec::new();
        loop {
            if self.peek() == Some(b'<') {
                self.pos += 1;
                args = self.args()?;
            }
            // `Outer<A>$Inner`: continue the binary name, drop the owner's arguments.
            if self.peek() == Some(b'$') && !args.is_empty() {
                self.pos += 1;
                let rest = self.name()?;
                name = format!("{name}${rest}");
                args = Vec::new();
                continue;
            }
            break;
        }
        let mut t = if let Some(k) = PrimitiveKind::from_name(&name) {
            JavaType::Primitive(k)
        } else if args.is_empty() && (self.is_var)(&name) {
            JavaType::Var(name)
        } else {
            JavaType::Class { name, args }
        };
        while self.eat("[]") {
            t = JavaType::array_of(t);
        }
        Ok(t)
    }

    fn args(&mut self) -> Result<Vec<JavaType>, String> {
        let mut out = Vec::new();
        loop {
            out.push(self.ty()?);
            self.skip_ws();
            match self.peek() {
                Some(b',') => self.pos += 1,
                Some(b'>') => {
                    self.pos += 1;
                    return Ok(out);
                }
                _ => return Err(format!("expected ',' or '>' at byte {}", self.pos)),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(s: &str) -> JavaType {
        parse_type(s, &|n| n.len() == 1).unwrap()
    }

    #[test]
    fn parses_reflection_names() {
        assert_eq!(parse("int"), JavaType::Primitive(PrimitiveKind::Int));
        assert_eq!(
            parse("int[][]"),
            JavaType::array_of(JavaType::array_of(JavaType::Primitive(PrimitiveKind::Int)))
        );
        assert_eq!(parse("T"), JavaType::Var("T".into()));
        let map = parse("java.util.Map<K, java.util.List<? extends shapes.Shape>>");
        assert_eq!(
            map.to_string(),
            "java.util.Map<K, java.util.List<? extends shapes.Shape>>"
        );
        assert_eq!(
            parse("a.Outer<T>$Inner<java.lang.String>"),
            JavaType::generic("a.Outer$Inner", vec![JavaType::string()])
        );
        assert_eq!(parse("a.Outer$Inner").erased_name(), "a.Outer$Inner");
        assert_eq!(
            parse("java.util.List<java.lang.String>[]").erased_name(),
            "java.util.List[]"
        );
        assert_eq!(parse("? super T").to_string(), "? super T");
        assert!(parse_type("java.util.List<", &|_| false).is_err());
        assert!(parse_type("a b", &|_| false).is_err());
    }

    #[test]
    fn parses_type_parameters_with_intersection_bounds() {
        let tp = parse_type_parameter(
            "T extends java.lang.Comparable<T> & java.io.Serializable",
            &|n| n == "T",
        )
        .unwrap();
        assert_eq!(tp.name, "T");
        assert_eq!(tp.bounds.len(), 2);
        assert_eq!(tp.bounds[0].to_string(), "java.lang.Comparable<T>");
    }

    #[test]
    fn widening_follows_the_jls() {
        use PrimitiveKind::*;
        assert!(Char.widens_to(Int));
        assert!(!Char.widens_to(Short));
        assert!(!Byte.widens_to(Char));
        assert!(Long.widens_to(Float));
        assert!(!Double.widens_to(Float));
        assert!(!Boolean.widens_to(Int));
    }

    #[test]
    fn unification_binds_variables_and_rejects_conflicts() {
        let mut b = BTreeMap::new();
        let pattern = parse("java.util.Map<K, java.util.List<K>>");
        let target = parse("java.util.Map<java.lang.String, java.util.List<java.lang.String>>");
        assert!(unify(&pattern, &target, &mut b));
        assert_eq!(b["K"], JavaType::string());
        let mut b = BTreeMap::new();
        let conflicting =
            parse("java.util.Map<java.lang.String, java.util.List<java.lang.Integer>>");
        assert!(!unify(&pattern, &conflicting, &mut b));
    }
}
