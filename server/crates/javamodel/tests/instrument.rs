//! Instrumentation: snapshots of the instrumented source and the probe table of every fixture in
//! `tests/instrument/fixtures`, the line-structure invariant over every Java file of the
//! repository's fixtures, and the probe table, downgrades and options on small sources.
//! Refresh snapshots with `UPDATE_EXPECT=1 cargo test -p javamodel --test instrument`.

use std::collections::BTreeMap;
use std::fmt::Write;
use std::path::{Path, PathBuf};

use expect_test::expect_file;
use javamodel::instrument::{
    instrument, Downgrade, FallbackReason, GoalProbe, InstrumentMode, InstrumentOptions,
    Instrumented, ProbeKind, ProbeLevel, Site, SiteId,
};
use javamodel::{DecisionKey, GoalKey, JavaModel, Outcome};

fn fixtures_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/instrument/fixtures")
}

fn run(src: &str, options: &InstrumentOptions) -> Instrumented {
    let tree = syntax::parse_java(src, None);
    let model = JavaModel::build(src, &tree);
    instrument(src, &tree, &model, options)
}

/// The probe table and fallbacks, one line each.
fn dump(out: &Instrumented) -> String {
    let p = &out.probes;
    let mut s = String::new();
    let [branches, lines, methods, loops] = p.counts();
    writeln!(s, "key {}", p.key).unwrap();
    writeln!(s, "holder {}", p.holder).unwrap();
    writeln!(
        s,
        "counts branches={branches} lines={lines} methods={methods} loops={loops}"
    )
    .unwrap();
    writeln!(s, "branches").unwrap();
    for (id, b) in p.branches.iter().enumerate() {
        let side = |o: Option<Outcome>| o.map_or("-".to_string(), |o| o.to_string());
        writeln!(
            s,
            "  {id} L{} {} {} true={} false={} class_index={}",
            b.line,
            b.kind.as_str(),
            b.decision,
            side(b.on_true),
            side(b.on_false),
            b.class_index.map_or("-".to_string(), |i| i.to_string()),
        )
        .unwrap();
    }
    writeln!(s, "methods").unwrap();
    for (id, m) in p.methods.iter().enumerate() {
        let entry = m
            .entry_decision
            .as_ref()
            .map_or(String::new(), |d| format!(" entry={d}"));
        writeln!(s, "  {id} L{} {}{entry}", m.line, m.member).unwrap();
    }
    writeln!(s, "loops").unwrap();
    for (id, l) in p.loops.iter().enumerate() {
        let decision = l
            .decision
            .as_ref()
            .map_or("-".to_string(), |d| d.to_string());
        writeln!(s, "  {id} L{} {decision}", l.line).unwrap();
    }
    let lines: Vec<String> = p.lines.iter().map(|l| l.to_string()).collect();
    writeln!(s, "lines {}", lines.join(" ")).unwrap();
    writeln!(s, "fallbacks").unwrap();
    for f in &out.fallbacks {
        let outcome = f.outcome.map_or(String::new(), |o| format!(".{o}"));
        writeln!(
            s,
            "  L{} {}{outcome} {:?}: {}",
            f.line, f.site, f.level, f.reason
        )
        .unwrap();
    }
    s
}

fn check(name: &str) {
    let src = std::fs::read_to_string(fixtures_dir().join(format!("{name}.java"))).unwrap();
    let out = run(&src, &InstrumentOptions::default());
    assert_same_lines(&src, &out.source, name);
    expect_file![format!("instrument/snapshots/{name}.java.txt")].assert_eq(&out.source);
    expect_file![format!("instrument/snapshots/{name}.probes.txt")].assert_eq(&dump(&out));
}

#[test]
fn conditions() {
    check("Conditions");
}

#[test]
fn switches() {
    check("Switches");
}

#[test]
fn structures() {
    check("Structures");
}

#[test]
fn patterns21() {
    check("Patterns21");
}

#[test]
fn nesting() {
    check("Nesting");
}

#[test]
fn declarations() {
    check("Declarations");
}

#[test]
fn flow() {
    check("Flow");
}

#[test]
fn escapes() {
    check("Escapes");
}

#[test]
fn every_fixture_has_a_snapshot_test() {
    let mut names: Vec<String> = std::fs::read_dir(fixtures_dir())
        .unwrap()
        .filter_map(|e| {
            let name = e.ok()?.file_name().into_string().ok()?;
            name.strip_suffix(".java").map(str::to_string)
        })
        .collect();
    names.sort();
    assert_eq!(
        names,
        [
            "Conditions",
            "Declarations",
            "Escapes",
            "Flow",
            "Nesting",
            "Patterns21",
            "Structures",
            "Switches"
        ]
    );
}

// ---------------------------------------------------------------------------- line structure

/// The lines of `s` as javac counts them (`\r\n`, `\n`, `\r`).
fn java_lines(s: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let bytes = s.as_bytes();
    let mut start = 0;
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'\r' | b'\n' => {
                out.push(&s[start..i]);
                if bytes[i] == b'\r' && bytes.get(i + 1) == Some(&b'\n') {
                    i += 1;
                }
                start = i + 1;
            }
            _ => {}
        }
        i += 1;
    }
    out.push(&s[start..]);
    out
}

fn words(line: &str) -> Vec<&str> {
    line.split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '$'))
        .filter(|w| !w.is_empty())
        .collect()
}

/// Every original line is on the same line number, with its words in order (the probes add
/// words; only the tokens a rewrite replaces may go).
fn assert_same_lines(original: &str, instrumented: &str, name: &str) {
    let (a, b) = (java_lines(original), java_lines(instrumented));
    assert_eq!(a.len(), b.len(), "{name}: line count changed");
    for (n, (line, out)) in a.iter().zip(&b).enumerate() {
        let mut have = words(out).into_iter();
        for word in words(line) {
            if matches!(word, "null" | "instanceof" | "equals") {
                continue;
            }
            assert!(
                have.any(|w| w == word),
                "{name}:{}: `{word}` missing or out of order\n  original:     {line}\n  instrumented: {out}",
                n + 1
            );
        }
    }
}

fn java_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.filter_map(Result::ok) {
        let path = entry.path();
        if path.is_dir() {
            java_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "java") {
            out.push(path);
        }
    }
}

#[test]
fn every_repository_fixture_keeps_its_lines() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../..");
    let mut files = Vec::new();
    for dir in [
        "server/crates/javamodel/tests",
        "server/crates/jvm/tests/fixtures",
        "tests/projects",
    ] {
        java_files(&root.join(dir), &mut files);
    }
    assert!(files.len() > 10, "found the fixtures: {files:?}");
    for file in files {
        let src = std::fs::read_to_string(&file).unwrap();
        let out = run(&src, &InstrumentOptions::default());
        assert_same_lines(&src, &out.source, &file.display().to_string());
    }
}

#[test]
fn crlf_and_multiline_conditions_keep_their_lines() {
    let src = "class T {\r\n  boolean f(Object x, int a, int b) {\r\n    return x\r\n        == null || a\n < b;\r\n  }\r\n}\r\n";
    let out = run(src, &InstrumentOptions::default());
    assert_same_lines(src, &out.source, "crlf");
    assert!(out.source.contains("isNull("), "{}", out.source);
    assert!(out.source.contains("cmpInt("), "{}", out.source);
}

// ---------------------------------------------------------------------------- table and sites

const SMALL: &str = "package p;
class A {
    int f(int x, long y, Integer i, Integer j) {
        if (x > 10 && y != x) {
            return 1;
        }
        for (int k = 0; k < x; k++) {
            x--;
        }
        return i == j ? 2 : 3;
    }
    String g() { return \"g\"; }
}
";

fn key(member: &str, ordinal: u32) -> DecisionKey {
    DecisionKey {
        member: member.to_string(),
        ordinal,
    }
}

#[test]
fn probe_table_maps_goals_to_branch_ids_and_entries() {
    let out = run(SMALL, &InstrumentOptions::default());
    let p = &out.probes;
    assert_eq!(p.key.split('#').next(), Some("p/A.java"));
    let f = "p.A#f(int,long,Integer,Integer)";
    // `x > 10`: int comparison; `y != x`: long; `k < x`: int; `i == j`: two Integers compare
    // references.
    let kinds: Vec<ProbeKind> = p.branches.iter().map(|b| b.kind).collect();
    assert_eq!(
        kinds,
        [
            ProbeKind::CmpInt,
            ProbeKind::CmpLong,
            ProbeKind::CmpInt,
            ProbeKind::CmpRef
        ]
    );
    let goal = |ordinal, outcome| GoalKey {
        decision: key(f, ordinal),
        outcome,
    };
    assert_eq!(
        p.goal_probes(&goal(0, Outcome::True)),
        [GoalProbe::BranchTrue(0)]
    );
    assert_eq!(
        p.goal_probes(&goal(0, Outcome::False)),
        [GoalProbe::BranchFalse(0)]
    );
    assert_eq!(
        p.goal_probes(&goal(3, Outcome::False)),
        [GoalProbe::BranchFalse(3)]
    );
    assert_eq!(p.branches_of(&key(f, 2)), [2]);
    // `g` has no branch: its goal is its entry.
    let g = p.method_of("p.A#g()").expect("g has an enter probe");
    let entry = GoalKey {
        decision: key("p.A#g()", 0),
        outcome: Outcome::Entered,
    };
    assert_eq!(p.goal_probes(&entry), [GoalProbe::MethodEntered(g)]);
    assert_eq!(p.loops.len(), 1);
    assert_eq!(p.loops[0].decision, Some(key(f, 2)));
    assert_eq!(p.loops[0].line, 7);
    assert!(p.has_line(4) && p.has_line(8) && p.has_line(12) && !p.has_line(3));
    assert_eq!(p.counts(), [4, 15, 2, 1]);
    assert!(out.fallbacks.is_empty(), "{:?}", out.fallbacks);
    let holder = format!(
        "}} final class {} {{ static final int B = ctgls.rt.Probe.register(\"{}\", 4, 15, 2, 1); }}\n",
        p.holder, p.key
    );
    assert!(out.source.ends_with(&holder), "{}", out.source);
}

#[test]
fn sites_locate_probe_code_in_the_output() {
    let out = run(SMALL, &InstrumentOptions::default());
    let at = out.source.find("cmpLong(").unwrap();
    let site = out
        .site_at(at..at + 3)
        .expect("a site covers the probe call");
    assert_eq!(
        site.id,
        SiteId::Decision(key("p.A#f(int,long,Integer,Integer)", 1))
    );
    assert_eq!(site.form, "cmpLong");
    assert_eq!(site.lines, (4, 4));
    assert!(out.source[site.output.clone()].starts_with("ctgls.rt.Probe.cmpLong("));
    assert!(out.source[site.output.clone()].ends_with(", x)"));
}

#[test]
fn downgrades_walk_the_ladder_and_are_recorded() {
    let f = "p.A#f(int,long,Integer,Integer)";
    let site = SiteId::Decision(key(f, 1));
    let mut options = InstrumentOptions::default();
    let why = FallbackReason::CompileError("incompatible types".into());
    options.downgrades.insert(
        site.clone(),
        Downgrade {
            steps: 1,
            reason: why.clone(),
        },
    );
    let out = run(SMALL, &options);
    // `y != x` has certain types: cmpLong, then the outcome-only branch.
    assert!(out.source.contains(".branch($CtglsProbe"), "{}", out.source);
    assert_eq!(out.probes.branches[1].kind, ProbeKind::Branch);
    assert_eq!(out.fallbacks.len(), 1);
    assert_eq!(out.fallbacks[0].site, site);
    assert_eq!(out.fallbacks[0].level, ProbeLevel::OutcomeOnly);
    assert_eq!(out.fallbacks[0].reason, why);

    options.downgrades.get_mut(&site).unwrap().steps = 2;
    let out = run(SMALL, &options);
    assert_eq!(
        out.probes.branches.len(),
        3,
        "no probe for the site any more"
    );
    assert!(out.probes.branches_of(&key(f, 1)).is_empty());
    assert_eq!(out.fallbacks[0].level, ProbeLevel::None);
    assert!(out.source.contains("&& y != x)"), "{}", out.source);
}

#[test]
fn unknown_operand_types_climb_the_numeric_ladder() {
    let src = "class T { boolean f(java.util.List<Long> xs) { return xs.get(0) < xs.get(1); } }";
    let site = SiteId::Decision(key("T#f(java.util.List)", 0));
    let kind = |steps: u8, message: &str| {
        let mut options = InstrumentOptions::default();
        if steps > 0 {
            options.downgrades.insert(
                site.clone(),
                Downgrade {
                    steps,
                    reason: FallbackReason::CompileError(message.into()),
                },
            );
        }
        run(src, &options).probes.branches.first().map(|b| b.kind)
    };
    let lossy = "incompatible types: possible lossy conversion from double to float";
    assert_eq!(kind(0, ""), Some(ProbeKind::CmpInt));
    assert_eq!(
        kind(1, "incompatible types: Long cannot be converted to int"),
        Some(ProbeKind::CmpLong)
    );
    assert_eq!(
        kind(2, "incompatible types: Double cannot be converted to long"),
        Some(ProbeKind::CmpFloat)
    );
    assert_eq!(kind(3, lossy), Some(ProbeKind::CmpDouble));
    assert_eq!(kind(4, lossy), Some(ProbeKind::Branch));
    assert_eq!(kind(5, lossy), None);
    // cmpFloat and cmpDouble round integral operands: they need javac to have named a
    // floating-point operand, else the site goes outcome-only.
    assert_eq!(kind(2, "cannot find symbol"), Some(ProbeKind::Branch));
    assert_eq!(
        kind(3, "incompatible types: float cannot be converted"),
        Some(ProbeKind::Branch)
    );
}

#[test]
fn outcome_only_mode_keeps_outcomes_and_drops_distances_and_allocations() {
    let options = InstrumentOptions {
        mode: InstrumentMode::OutcomeOnly,
        ..InstrumentOptions::default()
    };
    let src = "class T { Object f(int x, String s) { if (x > 1 || s.equals(\"a\")) return new Object(); return null; } }";
    let out = run(src, &options);
    assert!(out
        .probes
        .branches
        .iter()
        .all(|b| b.kind == ProbeKind::Branch));
    assert!(!out.source.contains("alloc("));
    let reasons: Vec<&FallbackReason> = out.fallbacks.iter().map(|f| &f.reason).collect();
    assert_eq!(
        reasons,
        [
            &FallbackReason::FileOutcomeOnly,
            &FallbackReason::FileOutcomeOnly
        ]
    );
}

#[test]
fn only_the_requested_types_are_instrumented() {
    let src = "package q;\nclass A { int f(int x) { return x > 0 ? 1 : 2; } }\nclass B { int g(int x) { return x > 0 ? 1 : 2; } }\n";
    let options = InstrumentOptions {
        types: vec!["q.B".to_string()],
        ..InstrumentOptions::default()
    };
    let out = run(src, &options);
    let lines: Vec<&str> = out.source.lines().collect();
    assert_eq!(
        lines[1],
        "class A { int f(int x) { return x > 0 ? 1 : 2; } }"
    );
    assert!(lines[2].contains("cmpInt("), "{}", lines[2]);
    assert!(out.probes.branches.iter().all(|b| b.class == "q.B"));
    // The holder follows the last type, whichever is instrumented.
    assert!(
        lines[2].contains("} final class $CtglsProbe_"),
        "{}",
        lines[2]
    );
}

#[test]
fn broken_or_empty_files_are_returned_unchanged() {
    for src in [
        "class T { void f( { if (x > 1) } }",
        "package p;\n",
        "module m {}\n",
    ] {
        let out = run(src, &InstrumentOptions::default());
        assert_eq!(out.source, src);
        assert!(out.probes.branches.is_empty() && out.sites.is_empty());
    }
}

#[test]
fn the_key_follows_the_text_and_the_holder_the_path() {
    let a = run(SMALL, &InstrumentOptions::default());
    let b = run(
        &SMALL.replace("x > 10", "x > 11"),
        &InstrumentOptions::default(),
    );
    assert_ne!(a.probes.key, b.probes.key);
    assert_eq!(a.probes.holder, b.probes.holder);
    let elsewhere = run(
        SMALL,
        &InstrumentOptions {
            path: Some("other/A.java".into()),
            ..InstrumentOptions::default()
        },
    );
    assert_ne!(a.probes.holder, elsewhere.probes.holder);
    assert!(elsewhere.probes.key.starts_with("other/A.java#"));
}

#[test]
fn constants_and_constant_variables_stay_unwrapped() {
    let src = "class T {
    static final boolean DEBUG = false;
    static final int N = DEBUG ? 1 : 2;
    final int m = Other.LIMIT > 3 ? 1 : 0;
    int f(int x) {
        final int local = N > 1 ? 5 : 6;
        while (!DEBUG) { if (x++ > local) break; }
        while (Other.RUNNING) { x--; }
        switch (x) { case N: return 1; case local: return 2; }
        return x;
    }
}";
    let out = run(src, &InstrumentOptions::default());
    let mut reasons: BTreeMap<String, usize> = BTreeMap::new();
    for f in &out.fallbacks {
        *reasons.entry(f.reason.to_string()).or_default() += 1;
    }
    assert_eq!(
        reasons,
        BTreeMap::from([
            ("constant condition".to_string(), 3),
            ("possibly constant".to_string(), 2),
        ]),
        "{:#?}",
        out.fallbacks
    );
    assert!(out.source.contains("case N: "), "{}", out.source);
    assert!(out.source.contains("while (!DEBUG)"), "{}", out.source);
    assert!(
        out.source.contains("while (Other.RUNNING)"),
        "{}",
        out.source
    );
    assert!(out.source.contains("cmpInt($CtglsProbe"), "{}", out.source);
}

#[test]
fn pattern_bindings_keep_their_scope() {
    let src = "class T {
    int f(Object o) {
        if (!(o instanceof String s)) { return 0; }
        return s.length() > 2 && o instanceof CharSequence c && c.length() > 0 ? 1 : 2;
    }
}";
    let out = run(src, &InstrumentOptions::default());
    assert!(
        out.source
            .contains("if (!(ctgls.rt.Probe.instOfOperand($CtglsProbe_"),
        "{}",
        out.source
    );
    assert!(out
        .source
        .contains(", o, String.class) instanceof String s))"));
    assert!(out
        .source
        .contains(", o, CharSequence.class) instanceof CharSequence c &&"));
    assert!(out.fallbacks.is_empty(), "{:?}", out.fallbacks);
}

#[test]
fn text_block_case_labels_are_listed_by_value_or_fall_back_recorded() {
    let src = "class T {\n  int f(String s) {\n    switch (s) {\n      case \"\"\"\n        a\\t\n          b\n        \"\"\": return 1;\n      case \"c\": return 2;\n      default: return 0;\n    }\n  }\n  int g(String s) {\n    switch (s) {\n      case \"\"\"\n        \\u0041\"\"\": return 1;\n      default: return 0;\n    }\n  }\n}\n";
    let out = run(src, &InstrumentOptions::default());
    assert_same_lines(src, &out.source, "text blocks");
    let kinds = |member: &str| {
        let ids = out.probes.branches_of(&key(member, 0));
        let kinds: Vec<ProbeKind> = ids
            .iter()
            .map(|&id| out.probes.branches[id as usize].kind)
            .collect();
        kinds
    };
    assert_eq!(kinds("T#f(String)"), [ProbeKind::SwitchString; 3]);
    assert!(
        out.source.contains(r#", s, "a\t\n  b\n", "c"))"#),
        "{}",
        out.source
    );
    assert_eq!(kinds("T#g(String)"), [ProbeKind::CaseTaken; 2]);
    let fallbacks: Vec<(&str, &FallbackReason)> = out
        .fallbacks
        .iter()
        .map(|f| (f.decision().unwrap().member.as_str(), &f.reason))
        .collect();
    assert_eq!(
        fallbacks,
        [("T#g(String)", &FallbackReason::UntypedCaseConstants)]
    );
}

#[test]
fn switch_selector_kinds_are_tried_in_turn() {
    // `Character.UNASSIGNED` is qualified: an int constant before Java 21, so `switchInt`
    // first; the unresolved `RED` is taken for an enum constant first.
    let src = "class T {
    int f(int cp, Object color) {
        switch (Character.getType(cp)) { case Character.UNASSIGNED: return 1; default: return 0; }
    }
    int g(Color c) {
        switch (c) { case RED: return 1; }
        return 0;
    }
}";
    let forms = |member: &str, steps: u8| {
        let site = SiteId::Decision(key(member, 0));
        let mut options = InstrumentOptions::default();
        if steps > 0 {
            let reason = FallbackReason::CompileError("incompatible types".into());
            options
                .downgrades
                .insert(site.clone(), Downgrade { steps, reason });
        }
        let out = run(src, &options);
        let form = out.sites.iter().find(|s| s.id == site).map(|s| s.form);
        let fallback = out
            .fallbacks
            .iter()
            .find(|f| f.site == site)
            .map(|f| f.level);
        (form, fallback)
    };
    let f = "T#f(int,Object)";
    assert_eq!(forms(f, 0), (Some("switchInt"), None));
    assert_eq!(forms(f, 1), (Some("switchString"), None));
    assert_eq!(forms(f, 2), (Some("switchEnum"), None));
    assert_eq!(forms(f, 3), (Some("case"), Some(ProbeLevel::OutcomeOnly)));
    assert_eq!(forms(f, 4), (None, Some(ProbeLevel::None)));
    let g = "T#g(Color)";
    assert_eq!(forms(g, 0), (Some("switchEnum"), None));
    assert_eq!(forms(g, 1), (Some("switchInt"), None));
    assert_eq!(forms(g, 3), (Some("case"), Some(ProbeLevel::OutcomeOnly)));
    let out = run(src, &InstrumentOptions::default());
    assert!(out
        .source
        .contains("switch (ctgls.rt.Probe.switchEnum($CtglsProbe_"));
    assert!(
        out.source.contains(", c, \"RED\")) { case RED: "),
        "{}",
        out.source
    );
}

#[test]
fn outcome_only_switch_cases_that_cannot_be_told_apart_are_recorded() {
    let src = "class T {
    int colon(int x) {
        int r = 0;
        switch (x) {
            case 1:
            case 2:
                r = 10;
            case 3:
                r += 1;
                break;
            case -4:
                return -4;
        }
        return r;
    }
}";
    let options = InstrumentOptions {
        mode: InstrumentMode::OutcomeOnly,
        ..InstrumentOptions::default()
    };
    let out = run(src, &options);
    let ambiguous: Vec<Option<Outcome>> = out
        .fallbacks
        .iter()
        .filter(|f| f.reason == FallbackReason::AmbiguousCase)
        .map(|f| f.outcome)
        .collect();
    // Only label `1` reaches the point between `case 1:` and `case 2:`; the code after
    // `case 2:` and after `case 3:` is also reached by falling through.
    assert_eq!(ambiguous, [Some(Outcome::Case(1)), Some(Outcome::Case(2))]);
    let cases: Vec<Option<Outcome>> = out.probes.branches.iter().map(|b| b.on_true).collect();
    assert_eq!(
        cases,
        [
            Some(Outcome::Case(0)),
            Some(Outcome::Case(3)),
            Some(Outcome::Case(4))
        ]
    );
    assert!(out
        .source
        .contains("case 1:ctgls.rt.Probe.branch($CtglsProbe_"));
    // The implicit default became an explicit first label that records itself and leaves.
    assert!(
        out.source
            .contains("switch (x) {default: ctgls.rt.Probe.branch($CtglsProbe_"),
        "{}",
        out.source
    );
    assert!(out.source.contains(", true); break; \n"), "{}", out.source);
    assert!(out
        .source
        .contains("case -4:ctgls.rt.Probe.branch($CtglsProbe_"));
}

#[test]
fn locals_of_earlier_switch_groups_shadow_fields() {
    let src = "class T {
    Integer v = 1000;
    boolean f(int k, Integer w) {
        switch (k) {
            case 1:
                int v = 5;
                break;
            default:
                v = k;
                return v == w;
        }
        return v == w;
    }
}";
    let out = run(src, &InstrumentOptions::default());
    let kinds: Vec<ProbeKind> = out.probes.branches.iter().map(|b| b.kind).collect();
    // In the switch, `v` is the local int: numeric. After it, the Integer field: identity.
    assert_eq!(
        kinds,
        [
            ProbeKind::SwitchInt,
            ProbeKind::SwitchInt,
            ProbeKind::CmpInt,
            ProbeKind::CmpRef
        ]
    );
}

// ---------------------------------------------------------------------------- escape wrappers

const CONSTRUCTORS: &str = "package p;
class C extends Base {
    private final int x;
    C() { this(1); }
    C(int x) {
        super(x);
        this.x = x;
    }
    C(long y) {super((int) y); x = 0;}
    abstract static class Gone { abstract void f(); }
    native void g();
}
";

#[test]
fn bodies_are_wrapped_after_the_explicit_constructor_invocation() {
    // `{}` has nothing to wrap: the wrapper is one insertion (closings at an offset would come
    // out before its openings).
    let empty = run("class E { void f() {} }", &InstrumentOptions::default());
    assert!(
        empty
            .source
            .contains("void f() {ctgls.rt.Probe.enter($CtglsProbe_")
            && empty
                .source
                .contains("try { } catch (java.lang.Throwable $ctglsEscaping) {"),
        "{}",
        empty.source
    );
    let out = run(CONSTRUCTORS, &InstrumentOptions::default());
    let catch = |id: u32| {
        format!(
            " }} catch (java.lang.Throwable $ctglsEscaping) {{ ctgls.rt.Probe.escaped({}.B + {id}, $ctglsEscaping); throw $ctglsEscaping; }}",
            out.probes.holder
        )
    };
    let enter = |id: u32| format!("ctgls.rt.Probe.enter({}.B + {id}); ", out.probes.holder);
    let lines: Vec<&str> = out.source.lines().collect();
    assert_eq!(
        lines[3],
        format!("    C() {{ this(1);{}try {{  {}}}", enter(0), catch(0))
    );
    assert_eq!(lines[5], format!("        super(x);{}try {{ ", enter(1)));
    assert_eq!(lines[7], format!("    {}}}", catch(1)));
    assert!(
        lines[8].starts_with(&format!(
            "    C(long y) {{super((int) y);{}try {{ ",
            enter(2)
        )),
        "{}",
        lines[8]
    );
    assert!(
        lines[8].ends_with(&format!("x = 0;{}}}", catch(2))),
        "{}",
        lines[8]
    );
    // Bodiless methods have no id.
    let members: Vec<&str> = out
        .probes
        .methods
        .iter()
        .map(|m| m.member.as_str())
        .collect();
    assert_eq!(
        members,
        ["p.C#<init>()", "p.C#<init>(int)", "p.C#<init>(long)"]
    );
    assert!(out
        .probes
        .methods
        .iter()
        .all(|m| m.has_enter && m.has_escape));
    let escapes: Vec<&Site> = out
        .sites
        .iter()
        .filter(|s| matches!(s.id, SiteId::Escape(_)))
        .collect();
    assert_eq!(escapes.len(), 3);
    // A site is the catch clause alone, never the body it wraps.
    for site in escapes {
        assert_eq!(site.form, "escape");
        assert!(
            out.source[site.output.clone()].starts_with(" } catch (java.lang.Throwable"),
            "{:?}",
            &out.source[site.output.clone()]
        );
    }
}

#[test]
fn a_dropped_escape_wrapper_is_recorded_and_leaves_the_enter_probe() {
    let plain = run(SMALL, &InstrumentOptions::default());
    let g_body = SMALL.find("{ return \"g\"; }").unwrap();
    let mut options = InstrumentOptions::default();
    let why = FallbackReason::CompileError("unreported exception".into());
    options.downgrades.insert(
        SiteId::Escape(g_body),
        Downgrade {
            steps: 1,
            reason: why.clone(),
        },
    );
    let out = run(SMALL, &options);
    assert!(
        out.source
            .contains("String g() {ctgls.rt.Probe.enter($CtglsProbe_"),
        "{}",
        out.source
    );
    assert!(
        out.source.contains("return \"g\"; }\n"),
        "no wrapper around g: {}",
        out.source
    );
    assert_eq!(out.source.matches("escaped(").count(), 1, "f keeps its own");
    assert_eq!(out.fallbacks.len(), 1);
    assert_eq!(out.fallbacks[0].site, SiteId::Escape(g_body));
    assert_eq!(out.fallbacks[0].level, ProbeLevel::None);
    assert_eq!(out.fallbacks[0].reason, why);
    assert_eq!(out.fallbacks[0].line, 12);
    // The method keeps its id and its entry goal.
    let g = out.probes.method_of("p.A#g()").unwrap();
    assert_eq!(Some(g), plain.probes.method_of("p.A#g()"));
    let probe = out.probes.method(g).unwrap();
    assert!(probe.has_enter && !probe.has_escape);
    assert_eq!(probe.entry_decision, Some(key("p.A#g()", 0)));

    // With the enter probe dropped as well, the method has no id any more.
    options.downgrades.insert(
        SiteId::Enter(g_body),
        Downgrade {
            steps: 1,
            reason: why.clone(),
        },
    );
    let out = run(SMALL, &options);
    assert_eq!(out.probes.method_of("p.A#g()"), None);
    let g_line = out.source.lines().nth(11).unwrap();
    assert!(
        g_line.starts_with("    String g() { ctgls.rt.Probe.line("),
        "{g_line}"
    );
    assert!(g_line.ends_with("return \"g\"; }"), "{g_line}");
    // Only the escape wrapper dropped: the id stays, without an entry goal.
    options.downgrades.remove(&SiteId::Escape(g_body));
    let out = run(SMALL, &options);
    let probe = out
        .probes
        .method(out.probes.method_of("p.A#g()").unwrap())
        .unwrap();
    assert!(!probe.has_enter && probe.has_escape);
    assert_eq!(probe.entry_decision, None);
    let entry = GoalKey {
        decision: key("p.A#g()", 0),
        outcome: Outcome::Entered,
    };
    assert!(out.probes.goal_probes(&entry).is_empty());
}

/// Dynamic seeding: the operands of comparing `String` calls are wrapped in `Probe.seed`, string
/// literals and chars given to `indexOf` are not, and a static call on a type is left alone.
#[test]
fn comparing_string_calls_seed_their_operands() {
    let src = "package p;\nclass S {\n  static String key() { return \"k\"; }\n  int f(String s, String t, char c) {\n    if (s.startsWith(t)) return 1;\n    boolean a = \"lit\".equalsIgnoreCase(s);\n    int i = s.indexOf(c) + s.indexOf(t);\n    boolean m = key().endsWith(s.substring(1));\n    boolean n = Character.isDigit(c);\n    return i;\n  }\n}\n";
    let out = run(src, &InstrumentOptions::default());
    // The holder's base names the file the seeds belong to.
    let source = out
        .source
        .replace(&format!("{}.B, ", out.probes.holder), "B, ");
    for expected in [
        "Probe.seed(B, s).startsWith(ctgls.rt.Probe.seed(B, t))",
        "\"lit\".equalsIgnoreCase(ctgls.rt.Probe.seed(B, s))",
        "Probe.seed(B, s).indexOf(c)",
        "Probe.seed(B, s).indexOf(ctgls.rt.Probe.seed(B, t))",
        "Probe.seed(B, key()).endsWith(ctgls.rt.Probe.seed(B, s.substring(1)))",
        "Character.isDigit(c)",
    ] {
        assert!(source.contains(expected), "{expected}\n{source}");
    }
    assert_eq!(out.source.lines().count(), src.lines().count());
    let seeds = out
        .sites
        .iter()
        .filter(|s| matches!(s.id, SiteId::Seed(_)))
        .count();
    assert_eq!(seeds, 5);
}
