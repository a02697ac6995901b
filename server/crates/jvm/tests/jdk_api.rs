//! The JDK API at the tests' release, against the real worker: `describe` and the getters
//! `execute` observes offer only the JDK members javac's `--release N` knows, so a Java 8
//! project's tests are never given `List.of` (9) or `Optional.isEmpty` (11) by a worker that
//! runs on a newer JDK.

mod common;

use common::*;
use jvm::*;

/// A Java 8 project's class whose members mention the JDK types tests build values of.
const BASKET: &str = "package fruit;\n\
    import java.util.*;\n\
    public class Basket {\n    \
        public int count(List<Integer> items) { return items.size(); }\n    \
        public int keys(Map<String, Integer> index) { return index.size(); }\n    \
        public String label(Optional<String> name, String fallback) { return name.orElse(fallback); }\n    \
        public static Optional<String> none() { return Optional.empty(); }\n\
    }\n";

fn compiled(sup: &mut Supervisor) -> UnitId {
    let result = sup
        .compile(&CompileRequest {
            sources: vec![source("fruit/Basket.java", BASKET)],
            options: vec!["--release".into(), "8".into()],
            ..CompileRequest::default()
        })
        .unwrap();
    result
        .unit
        .unwrap_or_else(|| panic!("{:#?}", result.diagnostics))
}

/// `class`'s static methods and instance methods, as `name/arity`.
fn members(d: &DescribeResult, class: &str) -> Vec<String> {
    let c = d
        .classes
        .iter()
        .find(|c| c.name == class)
        .unwrap_or_else(|| panic!("{class} not described: {:?}", d.missing));
    c.methods
        .iter()
        .map(|m| format!("{}/{}", m.name, m.params.len()))
        .collect()
}

#[test]
fn describe_offers_the_jdk_members_of_the_release_the_tests_compile_at() {
    let mut sup = supervisor();
    let running = sup.start().unwrap().java_feature;
    let unit = compiled(&mut sup);
    let at = |sup: &mut Supervisor, release: Option<u32>| {
        // `String` is a leaf, never expanded from a mention: asked for by name.
        sup.describe_at(
            unit,
            &["fruit.Basket".into(), "java.lang.String".into()],
            1,
            release,
        )
        .unwrap()
    };

    let java8 = at(&mut sup, Some(8));
    let (list, map, optional, string) = (
        members(&java8, "java.util.List"),
        members(&java8, "java.util.Map"),
        members(&java8, "java.util.Optional"),
        members(&java8, "java.lang.String"),
    );
    for (newer, found) in [
        ("of/0", &list),
        ("of/1", &list),
        ("copyOf/1", &list),
        ("of/0", &map),
        ("ofEntries/1", &map),
        ("isEmpty/0", &optional),
        ("or/1", &optional),
        ("stream/0", &optional),
        ("repeat/1", &string),
        ("isBlank/0", &string),
        ("strip/0", &string),
    ] {
        assert!(
            !found.contains(&newer.to_string()),
            "{newer} at Java 8: {found:?}"
        );
    }
    // What Java 8 has stays, inherited members included.
    for (old, found) in [
        ("add/1", &list),
        ("isEmpty/0", &list),
        ("forEach/1", &list),
        ("put/2", &map),
        ("getOrDefault/2", &map),
        ("of/1", &optional),
        ("empty/0", &optional),
        ("isPresent/0", &optional),
        ("isEmpty/0", &string),
        ("valueOf/1", &string),
    ] {
        assert!(
            found.contains(&old.to_string()),
            "{old} missing at Java 8: {found:?}"
        );
    }
    // The project's own members are not judged against the JDK.
    assert_eq!(
        members(&java8, "fruit.Basket"),
        ["count/1", "keys/1", "label/2", "none/0"]
    );

    // At the worker's own release, and with none given, the JDK's whole API.
    for release in [Some(running), None] {
        let d = at(&mut sup, release);
        assert!(members(&d, "java.util.List").contains(&"of/0".to_string()));
        assert!(members(&d, "java.util.Map").contains(&"of/0".to_string()));
        assert!(members(&d, "java.util.Optional").contains(&"isEmpty/0".to_string()));
        assert!(members(&d, "java.lang.String").contains(&"repeat/1".to_string()));
    }
}

#[test]
fn a_jdk_class_the_release_lacks_is_missing() {
    let mut sup = supervisor();
    let unit = compiled(&mut sup);
    let d = sup
        .describe_at(
            unit,
            &["java.lang.Record".into(), "java.util.Optional".into()],
            0,
            Some(8),
        )
        .unwrap();
    let described: Vec<&str> = d.classes.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(described, ["java.util.Optional"]);
    assert_eq!(d.missing.len(), 1, "{:?}", d.missing);
    assert_eq!(d.missing[0].0, "java.lang.Record");
    assert!(d.missing[0].1.contains("Java 8"), "{:?}", d.missing);
}

#[test]
fn getters_the_release_lacks_are_not_observed() {
    let mut sup = supervisor();
    let unit = compiled(&mut sup);
    let t = test(vec![call_static("fruit.Basket", "none", &[], &[])]);
    let getters = |sup: &mut Supervisor, release: Option<u32>| -> Vec<String> {
        let opts = ExecuteOptions {
            observe_getters: true,
            release,
            ..options(2000)
        };
        let r = finished(sup.execute(unit, std::slice::from_ref(&t), &opts).unwrap());
        assert_eq!(r[0].status, TestStatus::Ok, "{:#?}", r[0]);
        value(&r[0], 0)
            .getters
            .iter()
            .map(|g| g.name.clone())
            .collect()
    };
    assert_eq!(getters(&mut sup, Some(8)), ["isPresent"]);
    assert_eq!(getters(&mut sup, None), ["isEmpty", "isPresent"]);
}
