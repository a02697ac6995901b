//! The type hierarchy the cluster knows (described types plus JDK built-ins): supertypes with
//! type arguments, "`A` seen as a `B`", and Java's assignability in an invocation context
//! (identity, widening, boxing/unboxing, subtyping with invariant type arguments).

use std::collections::{BTreeMap, BTreeSet};

use crate::description::TypeKind;
use crate::types::{JavaType, PrimitiveKind, TypeParameter, OBJECT};

/// What the hierarchy needs to know about one class or interface.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TypeInfo {
    pub name: String,
    pub kind: TypeKind,
    pub project: bool,
    pub is_public: bool,
    /// Effective access of the type (`description::Access`).
    pub access: crate::description::Access,
    pub inner_class: bool,
    pub type_params: Vec<TypeParameter>,
    /// Direct supertypes in terms of this type's own variables; raw where reflection gave no
    /// generic form. `java.lang.Object` is implied.
    pub supertypes: Vec<JavaType>,
    pub enum_constants: Vec<String>,
}

#[derive(Debug, Clone, Default)]
pub struct TypeTable {
    types: BTreeMap<String, TypeInfo>,
}

/// Types every array is assignable to.
const ARRAY_SUPERTYPES: [&str; 3] = [OBJECT, "java.lang.Cloneable", "java.io.Serializable"];

impl TypeTable {
    pub fn get(&self, name: &str) -> Option<&TypeInfo> {
        self.types.get(name)
    }

    pub fn insert(&mut self, info: TypeInfo) {
        self.types.insert(info.name.clone(), info);
    }

    pub fn contains(&self, name: &str) -> bool {
        self.types.contains_key(name)
    }

    pub fn iter(&self) -> impl Iterator<Item = &TypeInfo> {
        self.types.values()
    }

    /// `ty` seen as an instance of class `target`, with the type arguments it has there
    /// (`ArrayList<E>` as `java.util.Collection` is `Collection<E>`). `None` when `ty` is not a
    /// subtype. The arguments are empty when the path goes through a raw supertype.
    pub fn view_as(&self, ty: &JavaType, target: &str) -> Option<JavaType> {
        match ty {
            JavaType::Class { .. } => {
                let mut seen = BTreeSet::new();
                self.view_class(ty, target, &mut seen)
                    .or_else(|| (target == OBJECT).then(JavaType::object))
            }
            JavaType::Array(_) => ARRAY_SUPERTYPES
                .contains(&target)
                .then(|| JavaType::class(target)),
            _ => None,
        }
    }

    fn view_class(
        &self,
        ty: &JavaType,
        target: &str,
        seen: &mut BTreeSet<String>,
    ) -> Option<JavaType> {
        let JavaType::Class { name, args } = ty else {
            return None;
        };
        if name == target {
            return Some(ty.clone());
        }
        if !seen.insert(name.clone()) {
            return None;
        }
        let info = self.types.get(name)?;
        let raw = !info.type_params.is_empty()
            && (args.is_empty() || args.len() != info.type_params.len());
        for sup in &info.supertypes {
            let sup = if raw {
                sup.erased()
            } else {
                sup.substitute(&|v| {
                    info.type_params
                        .iter()
                        .position(|p| p.name == v)
                        .map(|i| args[i].clone())
                })
            };
            if let Some(v) = self.view_class(&sup, target, seen) {
                return Some(v);
            }
        }
        None
    }

    /// The raw names of `name` and all its known supertypes, `name` first, `Object` last.
    pub fn raw_supertypes(&self, name: &str) -> Vec<String> {
        let mut out = vec![name.to_string()];
        let mut i = 0;
        while i < out.len() {
            if let Some(info) = self.types.get(&out[i]) {
                for sup in &info.supertypes {
                    if let Some(n) = sup.class_name() {
                        if !out.iter().any(|o| o == n) {
                            out.push(n.to_string());
                        }
                    }
                }
            }
            i += 1;
        }
        out.retain(|n| n != OBJECT);
        out.push(OBJECT.to_string());
        out
    }

    /// Whether a value of static type `from` may be passed where `to` is expected (JLS 5.3,
    /// without unchecked conversion: a raw type is not assignable to a parameterized one).
    /// Both must be ground.
    pub fn is_assignable(&self, from: &JavaType, to: &JavaType) -> bool {
        if from == to {
            return from.is_ground();
        }
        match (from, to) {
            (JavaType::Primitive(a), JavaType::Primitive(b)) => a.widens_to(*b),
            (JavaType::Primitive(a), JavaType::Class { .. }) => {
                self.is_assignable(&JavaType::class(a.boxed()), to)
            }
            (JavaType::Class { name, .. }, JavaType::Primitive(b)) => {
                PrimitiveKind::unboxed(name).is_some_and(|k| k.widens_to(*b))
            }
            (JavaType::Class { .. }, JavaType::Class { name, args }) => {
                if !from.is_ground() || !to.is_ground() {
                    return false;
                }
                if name == OBJECT && args.is_empty() {
                    return true;
                }
                match self.view_as(from, name) {
                    None => false,
                    Some(view) => args.is_empty() || view.type_args() == args.as_slice(),
                }
            }
            (JavaType::Array(a), JavaType::Array(b)) => match (&**a, &**b) {
                (JavaType::Primitive(x), JavaType::Primitive(y)) => x == y,
                (JavaType::Primitive(_), _) | (_, JavaType::Primitive(_)) => false,
                _ => self.is_assignable(a, b),
            },
            (JavaType::Array(c), JavaType::Class { name, args }) => {
                c.is_ground() && args.is_empty() && ARRAY_SUPERTYPES.contains(&name.as_str())
            }
            _ => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::jdk;

    fn table() -> TypeTable {
        let mut t = TypeTable::default();
        for info in jdk::builtin_types() {
            t.insert(info);
        }
        t
    }

    fn list(of: JavaType) -> JavaType {
        JavaType::generic("java.util.List", vec![of])
    }

    fn array_list(of: JavaType) -> JavaType {
        JavaType::generic("java.util.ArrayList", vec![of])
    }

    #[test]
    fn generic_supertypes_carry_arguments() {
        let t = table();
        let view = t
            .view_as(&array_list(JavaType::string()), "java.lang.Iterable")
            .unwrap();
        assert_eq!(view.to_string(), "java.lang.Iterable<java.lang.String>");
        let with_var = t
            .view_as(
                &array_list(JavaType::Var("E".into())),
                "java.util.Collection",
            )
            .unwrap();
        assert_eq!(with_var.to_string(), "java.util.Collection<E>");
        assert_eq!(
            t.view_as(&JavaType::class("java.util.ArrayList"), "java.util.List"),
            Some(JavaType::class("java.util.List"))
        );
        assert_eq!(t.view_as(&JavaType::string(), "java.util.List"), None);
    }

    #[test]
    fn assignability_is_invariant_in_type_arguments() {
        let t = table();
        let int = JavaType::class("java.lang.Integer");
        assert!(t.is_assignable(&array_list(int.clone()), &list(int.clone())));
        assert!(!t.is_assignable(&array_list(JavaType::string()), &list(int.clone())));
        assert!(t.is_assignable(&array_list(int.clone()), &JavaType::class("java.util.List")));
        assert!(!t.is_assignable(&JavaType::class("java.util.ArrayList"), &list(int)));
        assert!(t.is_assignable(&list(JavaType::string()), &JavaType::object()));
    }

    #[test]
    fn boxing_unboxing_and_widening() {
        let t = table();
        let int = JavaType::Primitive(PrimitiveKind::Int);
        let long = JavaType::Primitive(PrimitiveKind::Long);
        assert!(t.is_assignable(&int, &long));
        assert!(t.is_assignable(&int, &JavaType::class("java.lang.Integer")));
        assert!(t.is_assignable(&int, &JavaType::class("java.lang.Number")));
        assert!(t.is_assignable(&int, &JavaType::object()));
        assert!(t.is_assignable(
            &int,
            &JavaType::generic(
                "java.lang.Comparable",
                vec![JavaType::class("java.lang.Integer")]
            )
        ));
        assert!(!t.is_assignable(&int, &JavaType::class("java.lang.Long")));
        assert!(t.is_assignable(&JavaType::class("java.lang.Integer"), &long));
        assert!(!t.is_assignable(&long, &int));
        assert!(t.is_assignable(
            &JavaType::string(),
            &JavaType::class("java.lang.CharSequence")
        ));
    }

    #[test]
    fn arrays_are_covariant_for_references_only() {
        let t = table();
        let strings = JavaType::array_of(JavaType::string());
        let objects = JavaType::array_of(JavaType::object());
        let ints = JavaType::array_of(JavaType::Primitive(PrimitiveKind::Int));
        let longs = JavaType::array_of(JavaType::Primitive(PrimitiveKind::Long));
        assert!(t.is_assignable(&strings, &objects));
        assert!(!t.is_assignable(&objects, &strings));
        assert!(!t.is_assignable(&ints, &longs));
        assert!(!t.is_assignable(&ints, &objects));
        assert!(t.is_assignable(&ints, &JavaType::object()));
    }
}
