//! What the printer knows about the types a test mentions, beyond the test case itself: the
//! no-arg methods of each class (to call observed getters on a variable's declared type with
//! the right return type), overloads (to cast arguments only where overload resolution could
//! pick another member), the type hierarchy (to cast to a parameter's type at the call site),
//! enums, inner classes, and parameter names from the source (for test names). Every query
//! answers "unknown" conservatively when a class was not described.

use std::collections::{BTreeMap, BTreeSet};

use crate::callable::{Callable, CallableKind};
use crate::cluster::{add_type_info, type_table};
use crate::description::{TypeDescription, TypeKind};
use crate::hierarchy::TypeTable;
use crate::signature::{bindings, CallContext};
use crate::types::{parse_type, JavaType, OBJECT};

#[derive(Debug, Clone)]
pub struct TypeFacts {
    classes: BTreeMap<String, ClassFacts>,
    /// (binary class name, member name or `<init>`, simple parameter types) → names.
    parameter_names: BTreeMap<(String, String, Vec<String>), Vec<String>>,
    /// The hierarchy of the described types and the JDK built-ins, in which a call's type
    /// variables are bound as the cluster bound them.
    table: TypeTable,
}

impl Default for TypeFacts {
    fn default() -> TypeFacts {
        TypeFacts {
            classes: BTreeMap::new(),
            parameter_names: BTreeMap::new(),
            table: type_table(&[], None),
        }
    }
}

#[derive(Debug, Clone)]
struct ClassFacts {
    kind: TypeKind,
    /// Whether the tests can name the class (`None`: not judged, the facts were not made for
    /// one package by [`TypeFacts::visible_from`]).
    nameable: Option<bool>,
    inner_class: bool,
    /// Public no-arg instance methods with a result, inherited ones included.
    no_arg_methods: BTreeMap<String, JavaType>,
    /// (member name or `<init>`, arity) pairs that have more than one public member.
    overloaded: BTreeSet<(String, usize)>,
}

/// What is known about a no-arg method on a class.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum MethodLookup {
    Returns(JavaType),
    /// The class is described and has no such public method.
    Absent,
    /// The class was not described.
    Unknown,
}

impl TypeFacts {
    pub fn new() -> TypeFacts {
        TypeFacts::default()
    }

    /// Facts from the reflection descriptions the test cluster was built from.
    pub fn from_descriptions(types: &[TypeDescription]) -> TypeFacts {
        let mut facts = TypeFacts::default();
        for t in types {
            facts.add_description(t);
        }
        facts
    }

    /// Facts from the descriptions as a test in the package of `under_test` sees them
    /// ([`crate::visible_from`]), knowing which of the types it can name.
    pub fn visible_from(types: &[TypeDescription], under_test: &str) -> TypeFacts {
        let mut facts = TypeFacts::from_descriptions(&crate::visible_from(types, under_test));
        for t in types {
            if let Some(c) = facts.classes.get_mut(&t.name) {
                c.nameable = Some(crate::access::nameable_from(t, under_test));
            }
        }
        facts
    }

    pub fn add_description(&mut self, t: &TypeDescription) {
        add_type_info(&mut self.table, t);
        let mut no_arg_methods = BTreeMap::new();
        let mut arities: BTreeMap<(String, usize), usize> = BTreeMap::new();
        for m in &t.methods {
            *arities.entry((m.name.clone(), m.params.len())).or_default() += 1;
            if m.params.is_empty() && !m.is_static && m.return_type != "void" {
                if let Some(ty) = result_type(&m.return_type, m.generic_return_type.as_deref()) {
                    no_arg_methods.insert(m.name.clone(), ty);
                }
            }
        }
        for c in &t.constructors {
            *arities
                .entry(("<init>".into(), c.params.len()))
                .or_default() += 1;
        }
        self.classes.insert(
            t.name.clone(),
            ClassFacts {
                kind: t.kind,
                nameable: None,
                inner_class: t.inner_class,
                no_arg_methods,
                overloaded: arities
                    .into_iter()
                    .filter(|(_, n)| *n > 1)
                    .map(|(k, _)| k)
                    .collect(),
            },
        );
    }

    /// Parameter names of the methods and constructors a source file declares.
    pub fn add_parameter_names(&mut self, model: &javamodel::JavaModel) {
        for ty in model.all_types() {
            let mut has_canonical = false;
            for member in &ty.members {
                let name = match member.kind {
                    javamodel::MemberKind::Method => member.name.clone(),
                    javamodel::MemberKind::Constructor
                    | javamodel::MemberKind::CompactConstructor => {
                        has_canonical |= member.kind == javamodel::MemberKind::CompactConstructor;
                        "<init>".into()
                    }
                    _ => continue,
                };
                let params = if member.kind == javamodel::MemberKind::CompactConstructor {
                    &ty.record_components
                } else {
                    &member.params
                };
                let types: Vec<String> = params.iter().map(|p| simple(&p.signature_type)).collect();
                let names = params.iter().map(|p| p.name.clone()).collect();
                self.parameter_names
                    .insert((ty.binary_name.clone(), name, types), names);
            }
            if !ty.record_components.is_empty() && !has_canonical {
                let types = ty
                    .record_components
                    .iter()
                    .map(|p| simple(&p.signature_type))
                    .collect();
                let names = ty
                    .record_components
                    .iter()
                    .map(|p| p.name.clone())
                    .collect();
                self.parameter_names
                    .entry((ty.binary_name.clone(), "<init>".into(), types))
                    .or_insert(names);
            }
        }
    }

    /// Records parameter names by hand: `types` are the parameter types as written or as
    /// binary names (only their simple names count).
    pub fn set_parameter_names(
        &mut self,
        class: &str,
        member: &str,
        types: &[&str],
        names: &[&str],
    ) {
        self.parameter_names.insert(
            (
                class.to_string(),
                member.to_string(),
                types.iter().map(|t| simple(t)).collect(),
            ),
            names.iter().map(|n| n.to_string()).collect(),
        );
    }

    /// The source names of `callable`'s parameters, when the source declaring it was read.
    pub(crate) fn parameter_names(&self, callable: &Callable) -> Option<Vec<String>> {
        let types: Vec<String> = callable.erased_params.iter().map(|t| simple(t)).collect();
        let member = callable.name().to_string();
        for class in [&callable.declaring_class, &callable.owner] {
            if let Some(names) =
                self.parameter_names
                    .get(&(class.clone(), member.clone(), types.clone()))
            {
                return Some(names.clone());
            }
        }
        // A constructor of an inner class takes the outer instance first; the source does not
        // list it.
        if self.takes_outer_instance(callable) {
            let key = (callable.owner.clone(), member, types[1..].to_vec());
            if let Some(names) = self.parameter_names.get(&key) {
                let mut all = vec!["outer".to_string()];
                all.extend(names.iter().cloned());
                return Some(all);
            }
        }
        None
    }

    /// Whether a call of `callable` could resolve to another member of the same name and
    /// arity; true when the owner was not described.
    pub(crate) fn may_be_overloaded(&self, callable: &Callable) -> bool {
        let member = match &callable.kind {
            CallableKind::Constructor => "<init>".to_string(),
            CallableKind::Method { name, .. } => name.clone(),
            CallableKind::FieldRead { .. } | CallableKind::FieldWrite { .. } => return false,
        };
        match self.classes.get(&callable.owner) {
            Some(c) => c
                .overloaded
                .contains(&(member, callable.erased_params.len())),
            None => true,
        }
    }

    /// The declared type of each parameter of `callable` at a call site: type variables
    /// replaced by their arguments there (class variables from the instance or the receiver,
    /// the method's own from `method_args`), wildcards kept, so a cast to it selects this
    /// member as javac sees it. `None` for a parameter that mentions a variable whose argument
    /// is unknown: the class is not known, or a parameterized receiver is seen through a raw
    /// supertype (reflection reports implemented interfaces raw).
    pub(crate) fn params_at(
        &self,
        callable: &Callable,
        context: CallContext<'_>,
        method_args: &[JavaType],
    ) -> Vec<Option<JavaType>> {
        let raw_view = match context {
            CallContext::Receiver(receiver) => {
                !receiver.type_args().is_empty()
                    && self
                        .table
                        .view_as(receiver, &callable.declaring_class)
                        .is_some_and(|view| view.type_args().is_empty())
            }
            _ => false,
        };
        let bound = (!raw_view)
            .then(|| bindings(&self.table, callable, context, method_args))
            .flatten();
        callable
            .params
            .iter()
            .map(|p| {
                if p.is_ground() {
                    return Some(p.clone());
                }
                let t = p.substitute_map(bound.as_ref()?);
                (!t.mentions_type_variable()).then_some(t)
            })
            .collect()
    }

    /// Whether `class` was described, so that its overloads are known.
    pub(crate) fn describes(&self, class: &str) -> bool {
        self.classes.contains_key(class)
    }

    /// The public no-arg instance method `name` of `class` and its result type.
    pub(crate) fn no_arg_method(&self, class: &str, name: &str) -> MethodLookup {
        if class == OBJECT {
            // Getters are never taken from Object (the worker skips its methods).
            return MethodLookup::Absent;
        }
        match self.classes.get(class) {
            Some(c) => match c.no_arg_methods.get(name) {
                Some(ty) => MethodLookup::Returns(ty.clone()),
                None => MethodLookup::Absent,
            },
            None => MethodLookup::Unknown,
        }
    }

    /// Whether a test can name `class`: `None` when it was not described or the facts were not
    /// made for a package.
    pub(crate) fn nameable(&self, class: &str) -> Option<bool> {
        self.classes.get(class).and_then(|c| c.nameable)
    }

    pub(crate) fn is_enum(&self, class: &str) -> Option<bool> {
        self.classes.get(class).map(|c| c.kind == TypeKind::Enum)
    }

    /// Whether `callable` is a constructor of an inner class, called as `outer.new Inner(..)`.
    /// For a class that was not described: a nested class whose first constructor parameter
    /// is its enclosing class, which is what reflection shows for inner classes.
    pub(crate) fn takes_outer_instance(&self, callable: &Callable) -> bool {
        if !callable.is_constructor() {
            return false;
        }
        if let Some(c) = self.classes.get(&callable.owner) {
            return c.inner_class && !callable.erased_params.is_empty();
        }
        match (
            callable.owner.rsplit_once('$'),
            callable.erased_params.first(),
        ) {
            (Some((outer, _)), Some(first)) => first == outer,
            _ => false,
        }
    }
}

/// The result type of a no-arg method: the generic form when it is ground, else the erasure.
fn result_type(erased: &str, generic: Option<&str>) -> Option<JavaType> {
    if let Some(g) = generic {
        if let Ok(t) = parse_type(g, &|name| !name.contains('.')) {
            if t.is_ground() {
                return Some(t);
            }
        }
    }
    parse_type(erased, &|_| false).ok()
}

/// The simple name of a type as written or as a binary name: `java.util.Map<K, V>` → `Map`,
/// `a.Outer$Inner` → `Inner`, `String...` → `String[]`.
fn simple(text: &str) -> String {
    let mut plain = String::new();
    let mut depth = 0i32;
    for c in text.chars() {
        match c {
            '<' => depth += 1,
            '>' => depth -= 1,
            _ if depth == 0 => plain.push(c),
            _ => {}
        }
    }
    let plain = plain.trim();
    let (mut base, mut dims) = match plain.strip_suffix("...") {
        Some(b) => (b.trim_end(), 1),
        None => (plain, 0),
    };
    while let Some(b) = base.strip_suffix("[]") {
        base = b.trim_end();
        dims += 1;
    }
    let name = base.rsplit(['.', '$']).next().unwrap_or(base);
    format!("{name}{}", "[]".repeat(dims))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn simple_names_match_between_source_and_reflection() {
        assert_eq!(simple("java.util.Map<K, V>"), "Map");
        assert_eq!(simple("a.Outer$Inner"), "Inner");
        assert_eq!(simple("Outer.Inner"), "Inner");
        assert_eq!(simple("String..."), "String[]");
        assert_eq!(simple("int[][]"), "int[][]");
        assert_eq!(simple("java.lang.String[]"), "String[]");
    }
}
