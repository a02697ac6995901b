//! The environment statements in the real worker (docs/protocol.md, "execute"): console input,
//! system properties and input files are set up before the code under test reads them, and
//! are gone for the next test of the batch.

mod common;

use common::*;
use jvm::*;

const READER: &str = r#"
package env;

import java.io.BufferedReader;
import java.io.File;
import java.io.InputStreamReader;
import java.nio.file.Files;
import java.nio.file.Path;

public class Reader {
    public static String line() throws Exception {
        String l = new BufferedReader(new InputStreamReader(System.in)).readLine();
        return l == null ? "<none>" : l;
    }
    public static String mode() { return System.getProperty("env.mode", "<unset>"); }
    public static String content(String name) throws Exception {
        File f = new File(name);
        return f.exists() ? new String(Files.readAllBytes(f.toPath()), "UTF-8") : "<missing>";
    }
    public static long size(File f) { return f.length(); }
    public static boolean exists(Path p) { return Files.exists(p); }
}
"#;

fn console(text: &str) -> Statement {
    Statement::ConsoleInput { text: text.into() }
}

fn file(name: &str, content: Option<&str>, type_name: &str) -> Statement {
    Statement::InputFile {
        name: name.into(),
        content: content.map(str::to_string),
        type_name: type_name.into(),
    }
}

fn reader_unit(sup: &mut Supervisor) -> UnitId {
    sup.compile(&CompileRequest {
        sources: vec![source("env/Reader.java", READER)],
        ..CompileRequest::default()
    })
    .unwrap()
    .unit
    .expect("compiles")
}

#[test]
fn console_input_properties_and_files_reach_the_code_and_are_gone_for_the_next_test() {
    let mut sup = supervisor();
    let unit = reader_unit(&mut sup);
    let reader = "env.Reader";
    let string = "java.lang.String";
    let set_up = test(vec![
        console("first\nsecond\n"),
        call_static(reader, "line", &[], &[]),
        Statement::SystemProperty {
            key: "env.mode".into(),
            value: "fast".into(),
        },
        call_static(reader, "mode", &[], &[]),
        file("in.txt", Some("1\n2\n"), string),
        call_static(reader, "content", &[string], &[4]),
        file("in.txt", None, string),
        file("none.txt", None, string),
        call_static(reader, "content", &[string], &[7]),
        file("data.bin", Some("abc"), "java.io.File"),
        call_static(reader, "size", &["java.io.File"], &[9]),
        file("p", Some(""), "java.nio.file.Path"),
        call_static(reader, "exists", &["java.nio.file.Path"], &[11]),
    ]);
    let after = test(vec![
        call_static(reader, "line", &[], &[]),
        call_static(reader, "mode", &[], &[]),
    ]);
    let rs = finished(sup.execute(unit, &[set_up, after], &options(5000)).unwrap());
    let r = &rs[0];
    assert_eq!(r.status, TestStatus::Ok, "{r:#?}");
    assert_eq!(text_value(r, 1), "first");
    assert_eq!(text_value(r, 3), "fast");
    assert_eq!(text_value(r, 5), "1\n2\n");
    // A path without content names no file; the same name as an earlier file names it.
    assert!(text_value(r, 6).ends_with("in.txt"));
    assert_eq!(text_value(r, 8), "<missing>");
    assert_eq!(int_value(r, 10), 3);
    assert!(matches!(
        value(r, 12).value,
        Some(ObservedValue::Bool(true))
    ));
    assert!(r.environment.is_empty(), "{:?}", r.environment);
    let path = text_value(r, 4);
    assert!(
        !std::path::Path::new(&path).exists(),
        "{path} outlived its test"
    );

    let next = &rs[1];
    assert_eq!(next.status, TestStatus::Ok, "{next:#?}");
    assert_eq!(text_value(next, 0), "<none>");
    assert_eq!(text_value(next, 1), "<unset>");
}

#[test]
fn a_file_name_that_leaves_the_directory_is_an_invalid_test() {
    let mut sup = supervisor();
    let unit = reader_unit(&mut sup);
    let t = test(vec![file("../escape.txt", Some("x"), "java.lang.String")]);
    let r = &finished(sup.execute(unit, &[t], &options(2000)).unwrap())[0];
    assert_eq!(r.status, TestStatus::Invalid, "{r:#?}");
}
