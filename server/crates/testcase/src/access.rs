//! What a generated test can reach (JLS 6.6). The test class sits in the package of the class
//! under test, so it can name public types and the package-private and protected types of that
//! package, and call public members and the package-private and protected members declared in
//! that package. Everything else stays out: private members and types, package-private and
//! protected members declared in other packages (a test is not a subclass, so JLS 6.6.2 never
//! lets it use an inherited protected member of another package), package-private types of
//! other packages, and members whose signatures name a type the test cannot name.
//!
//! The worker reports facts (modifiers, declaring classes, effective type access); the decision
//! is made here, once, for the cluster and for the printer's facts alike, so that what the
//! search calls is what the emitted test can compile.

use std::collections::BTreeMap;

use crate::description::{Access, TypeDescription};

/// The package of a binary class name: `a.b` for `a.b.C$D`, `""` for the unnamed package.
pub fn package_of(binary_name: &str) -> &str {
    binary_name.rsplit_once('.').map_or("", |(p, _)| p)
}

/// Whether a member or type of `access`, declared in a class of `declared_in` (a package), can
/// be used by a test in `package`.
fn allows(access: Access, declared_in: &str, package: &str) -> bool {
    match access {
        Access::Public => true,
        Access::Protected | Access::Package => declared_in == package,
        Access::Private => false,
    }
}

/// The descriptions as a test in the package of `under_test` sees them: types it cannot name
/// keep their place in the hierarchy (a value of such a type can still be held as one of its
/// public supertypes) but lose their members, and members it cannot reach are removed. Types
/// that were not described (JDK types the worker did not expand) are taken as nameable, as the
/// cluster always took them.
pub fn visible_from(types: &[TypeDescription], under_test: &str) -> Vec<TypeDescription> {
    let package = package_of(under_test);
    let nameable: BTreeMap<&str, bool> = types
        .iter()
        .map(|t| {
            let ok = allows(t.access, package_of(&t.name), package);
            (t.name.as_str(), ok)
        })
        .collect();
    let names_ok = |texts: &mut dyn Iterator<Item = &str>| {
        let mut ok = true;
        for text in texts {
            ok &= class_names(text).all(|n| nameable.get(n).copied().unwrap_or(true));
        }
        ok
    };
    types
        .iter()
        .map(|t| {
            let mut t = t.clone();
            if !nameable[t.name.as_str()] {
                t.constructors.clear();
                t.methods.clear();
                t.fields.clear();
                t.enum_constants.clear();
                return t;
            }
            let own_package = package_of(&t.name).to_string();
            t.constructors.retain(|k| {
                allows(k.access, &own_package, package)
                    && names_ok(&mut k.params.iter().flat_map(|p| [&*p.type_name, &*p.generic]))
            });
            t.methods.retain(|m| {
                allows(m.access, package_of(&m.declaring_class), package)
                    && names_ok(
                        &mut m
                            .params
                            .iter()
                            .flat_map(|p| [&*p.type_name, &*p.generic])
                            .chain([&*m.return_type])
                            .chain(m.generic_return_type.as_deref())
                            .chain(m.type_parameters.iter().map(String::as_str)),
                    )
            });
            t.fields.retain(|f| {
                allows(f.access, package_of(&f.declaring_class), package)
                    && names_ok(&mut [&*f.type_name].into_iter().chain(f.generic_type.as_deref()))
            });
            t
        })
        .collect()
}

/// Whether a test in the package of `under_test` can name `ty` (a described type).
pub(crate) fn nameable_from(ty: &TypeDescription, under_test: &str) -> bool {
    allows(ty.access, package_of(&ty.name), package_of(under_test))
}

/// The names a type text mentions (`java.util.Map<K, ? extends p.V[]>...` → `java.util.Map`,
/// `K`, `extends`, `p.V`): class names, and type variables and keywords, which are never the
/// binary name of a described type (a class of the unnamed package has no dot either, so
/// names are not told apart by their form).
fn class_names(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '$' || c == '.'))
        .map(|n| n.trim_matches('.'))
        .filter(|n| !n.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packages_come_from_binary_names() {
        assert_eq!(package_of("a.b.C$D"), "a.b");
        assert_eq!(package_of("C"), "");
    }

    #[test]
    fn class_names_are_the_words_of_a_type() {
        let names: Vec<&str> = class_names("java.util.Map<K, ? extends p.Outer$In[]>...").collect();
        assert_eq!(names, ["java.util.Map", "K", "extends", "p.Outer$In"]);
    }

    #[test]
    fn protected_and_package_access_is_by_the_declaring_package() {
        for a in [Access::Protected, Access::Package] {
            assert!(allows(a, "p", "p"));
            assert!(!allows(a, "q", "p"));
        }
        assert!(allows(Access::Public, "q", "p"));
        assert!(!allows(Access::Private, "p", "p"));
    }
}
