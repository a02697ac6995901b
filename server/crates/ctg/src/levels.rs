//! The Java levels ctgls compiles a project and its generated tests at: the levels the build
//! declares (`project::JavaLevels`) where the user's JDK supports them, else the closest it
//! does, and the one note that tells the user so. The tests are written for the declared test
//! level (the printer's `TestClassSpec::level`), whatever level they are compiled at.

use jvm::Jdk;

use crate::project::{parse_java_version, JUnitVersion, JavaLevels, ProjectLayout};
use crate::verify::{supported_releases, SupportedReleases};

/// JUnit 5 is a Java 8 library: below 8 javac cannot resolve its assertions' overloads (they
/// take `java.util.function.Supplier`s), so a project's JUnit 5 tests compile at 8 at least,
/// as the project's own build must.
pub const JUNIT5_MINIMUM: u32 = 8;

/// javac's options that take the language level as their next argument (`--release=N` is the
/// one-argument form).
const LANGUAGE_LEVEL_OPTIONS: [&str; 3] = ["--release", "-source", "--source"];

/// The language level javac's `options` choose (`--release 7`, `--release=7`, `-source 1.7`,
/// `--source 7`); `None` when they choose none (the JDK's own). The last one counts, as in javac.
pub fn java_level(options: &[String]) -> Option<u32> {
    let mut level = None;
    let mut options = options.iter();
    while let Some(option) = options.next() {
        let value = if LANGUAGE_LEVEL_OPTIONS.contains(&option.as_str()) {
            options.next().map(String::as_str)
        } else {
            option.strip_prefix("--release=")
        };
        if let Some(value) = value {
            level = parse_java_version(value).or(level);
        }
    }
    level
}

/// The levels of one project on one JDK.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CompileLevels {
    pub declared: JavaLevels,
    pub supported: SupportedReleases,
    /// `--release` of the project's own code (the worker's compile and verification's);
    /// `None`: the JDK's own level (the build declares nothing).
    pub main: Option<u32>,
    /// `--release` of the generated tests.
    pub test: Option<u32>,
    /// The Java level the tests are written for: the declared test level.
    pub written: Option<u32>,
    /// What differs from the build, said once per project: `None` when nothing does.
    pub note: Option<String>,
}

impl CompileLevels {
    /// The levels `layout`'s build declares, on `jdk`, for tests of `junit`.
    pub fn of(layout: &ProjectLayout, jdk: &Jdk, junit: JUnitVersion) -> CompileLevels {
        CompileLevels::plan(
            layout.java_levels(),
            supported_releases(jdk),
            jdk.version.feature,
            junit,
        )
    }

    /// The rule, pure: each declared level clamped to what javac supports; JUnit 5 tests at
    /// [`JUNIT5_MINIMUM`] at least.
    pub fn plan(
        declared: JavaLevels,
        supported: SupportedReleases,
        jdk_feature: u32,
        junit: JUnitVersion,
    ) -> CompileLevels {
        let main = declared.main.map(|level| supported.closest(level));
        let mut test = declared.test.map(|level| supported.closest(level));
        let mut notes = Vec::new();
        let sides = [
            ("main code", declared.main, main),
            ("tests", declared.test, test),
        ];
        let changed = |raise: bool| -> String {
            let sides: Vec<(&str, u32)> = sides
                .iter()
                .filter_map(|&(side, wanted, got)| {
                    let (wanted, got) = (wanted?, got?);
                    (if raise { got > wanted } else { got < wanted }).then_some((side, wanted))
                })
                .collect();
            match sides.as_slice() {
                [] => String::new(),
                [(_, a), (_, b)] if a == b => format!("Java {a}"),
                _ => sides
                    .iter()
                    .map(|(side, wanted)| format!("Java {wanted} for its {side}"))
                    .collect::<Vec<_>>()
                    .join(" and "),
            }
        };
        let (raised, lowered) = (changed(true), changed(false));
        if !raised.is_empty() {
            notes.push(format!(
                "the build declares {}; JDK {jdk_feature}'s javac compiles Java {} and newer, so \
                 ctgls compiles at Java {} (the tests are still written for Java {})",
                raised,
                supported.oldest,
                supported.oldest,
                declared
                    .test
                    .map_or_else(|| "the JDK's level".into(), |t| t.to_string()),
            ));
        }
        if !lowered.is_empty() {
            notes.push(format!(
                "the build declares {}, newer than JDK {jdk_feature}: ctgls compiles at Java \
                 {}; run ctgls with a newer JDK to compile as the build does",
                lowered, supported.newest,
            ));
        }
        if junit == JUnitVersion::Five {
            if let Some(level) = test.filter(|&level| level < JUNIT5_MINIMUM) {
                let at = supported.closest(JUNIT5_MINIMUM);
                notes.push(format!(
                    "JUnit 5 needs Java {JUNIT5_MINIMUM}: the tests are compiled at Java {at}, \
                     not {level}"
                ));
                test = Some(at);
            }
        }
        CompileLevels {
            declared,
            supported,
            main,
            test,
            written: declared.test,
            note: (!notes.is_empty()).then(|| {
                let mut note = notes.join("; ");
                note.replace_range(..1, &note[..1].to_uppercase());
                note + "."
            }),
        }
    }

    /// The worker's javac options for the project's code: `--release <main>`, unless the
    /// user's own options already choose a level.
    pub fn javac_options(&self, user: &[String]) -> Vec<String> {
        let mut options = user.to_vec();
        let chosen = user.iter().any(|o| {
            LANGUAGE_LEVEL_OPTIONS.contains(&o.as_str())
                || matches!(o.as_str(), "-target" | "--target")
                || o.starts_with("--release=")
        });
        if let (Some(main), false) = (self.main, chosen) {
            options.push("--release".into());
            options.push(main.to_string());
        }
        options
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_language_level_is_read_from_javacs_options() {
        let level = |options: &[&str]| {
            java_level(&options.iter().map(|o| o.to_string()).collect::<Vec<_>>())
        };
        assert_eq!(level(&[]), None);
        assert_eq!(level(&["-g", "--release", "7"]), Some(7));
        assert_eq!(level(&["--release=11"]), Some(11));
        assert_eq!(level(&["-source", "1.7", "-target", "1.7"]), Some(7));
        assert_eq!(level(&["--source", "8"]), Some(8));
        assert_eq!(
            level(&["--release", "17", "-source", "1.6"]),
            Some(6),
            "the last counts"
        );
        assert_eq!(level(&["-encoding", "UTF-8"]), None);
    }

    const JDK17: SupportedReleases = SupportedReleases {
        oldest: 7,
        newest: 17,
    };
    const JDK21: SupportedReleases = SupportedReleases {
        oldest: 8,
        newest: 21,
    };

    fn declared(main: u32, test: u32) -> JavaLevels {
        JavaLevels {
            main: Some(main),
            test: Some(test),
        }
    }

    #[test]
    fn supported_levels_are_kept_and_say_nothing() {
        let levels = CompileLevels::plan(declared(11, 17), JDK17, 17, JUnitVersion::Five);
        assert_eq!(
            (levels.main, levels.test, levels.written),
            (Some(11), Some(17), Some(17))
        );
        assert_eq!(levels.note, None);
        let none = CompileLevels::plan(JavaLevels::default(), JDK17, 17, JUnitVersion::Four);
        assert_eq!(
            (none.main, none.test, none.written, none.note),
            (None, None, None, None)
        );
    }

    #[test]
    fn levels_below_the_jdk_are_raised_to_its_oldest() {
        let levels = CompileLevels::plan(declared(5, 5), JDK17, 17, JUnitVersion::Four);
        assert_eq!(
            (levels.main, levels.test, levels.written),
            (Some(7), Some(7), Some(5))
        );
        assert_eq!(
            levels.note.as_deref(),
            Some(
                "The build declares Java 5; JDK 17's javac compiles Java 7 and newer, so ctgls compiles at Java 7 (the tests are \
                 still written for Java 5)."
            )
        );
        // JDK 21 dropped 7.
        let levels = CompileLevels::plan(declared(7, 7), JDK21, 21, JUnitVersion::Four);
        assert_eq!(
            (levels.main, levels.test, levels.written),
            (Some(8), Some(8), Some(7))
        );
    }

    #[test]
    fn junit5_tests_compile_at_8_at_least() {
        let levels = CompileLevels::plan(declared(7, 7), JDK17, 17, JUnitVersion::Five);
        assert_eq!(
            (levels.main, levels.test, levels.written),
            (Some(7), Some(8), Some(7))
        );
        assert_eq!(
            levels.note.as_deref(),
            Some("JUnit 5 needs Java 8: the tests are compiled at Java 8, not 7.")
        );
    }

    #[test]
    fn levels_newer_than_the_jdk_are_lowered_to_its_own() {
        let levels = CompileLevels::plan(declared(21, 21), JDK17, 17, JUnitVersion::Five);
        assert_eq!((levels.main, levels.test), (Some(17), Some(17)));
        assert!(levels.note.unwrap().contains("newer than JDK 17"));
    }

    #[test]
    fn the_worker_gets_the_main_release_unless_the_user_chose_one() {
        let levels = CompileLevels::plan(declared(5, 8), JDK17, 17, JUnitVersion::Four);
        assert_eq!(levels.javac_options(&[]), ["--release", "7"]);
        let user = ["-source".to_string(), "8".to_string()];
        assert_eq!(levels.javac_options(&user), user);
    }
}
