//! The per-keystroke path on a large file: a single-character edit applied the way the server
//! applies a `didChange` (rope edit, tree-sitter `InputEdit` + incremental reparse, Java model
//! update of the touched member), and a full open of the same file.
//!
//! Run with `cargo bench -p ctgls --bench edit`; figures go in `docs/benchmarks.md`.

use std::fmt::Write as _;
use std::time::{Duration, Instant};

use ctgls::open_file::OpenFile;
use syntax::{PositionEncoding, TextChange, TextPosition, TextRange};

/// A deterministic Java file of about `lines` lines: one class with many methods, each with
/// ifs, loops, a switch, `&&`/`||` and a try/catch, so the model has branches and CFGs to build.
fn generated_java(lines: usize) -> String {
    let mut out = String::from("package bench.subject;\n\nimport java.util.List;\n\npublic class Large {\n    private int state;\n\n");
    let mut index = 0;
    while out.lines().count() < lines {
        let _ = write!(
            out,
            r#"    public int method{index}(int a, String s, List<Integer> xs) {{
        int total = 0;
        if (a > {index} && s != null || a == -1) {{
            total += a;
        }} else if (s.equals("k{index}")) {{
            total -= 1;
        }}
        for (int i = 0; i < a; i++) {{
            if (i % 3 == 0) {{
                continue;
            }}
            total += i;
        }}
        for (Integer x : xs) {{
            total += x == null ? 0 : x;
        }}
        switch (a % 4) {{
            case 0: total++; break;
            case 1: total--;
            case 2: total *= 2; break;
            default: total = -total;
        }}
        try {{
            total /= (a - {index});
        }} catch (ArithmeticException e) {{
            total = 0;
        }}
        while (total > 1000) {{
            total /= 2;
        }}
        state += total;
        return total;
    }}

"#
        );
        index += 1;
    }
    out.push_str("}\n");
    out
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    let rank = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[rank]
}

fn report(name: &str, mut samples: Vec<Duration>) {
    samples.sort();
    println!(
        "{name:<44} n={:<5} p50={:>9.3?} p99={:>9.3?} max={:>9.3?}",
        samples.len(),
        percentile(&samples, 0.50),
        percentile(&samples, 0.99),
        samples[samples.len() - 1]
    );
}

fn main() {
    let text = generated_java(5_000);
    let line_count = text.lines().count();
    println!("subject: {line_count} lines, {} bytes", text.len());

    let mut opens = Vec::new();
    for _ in 0..30 {
        let start = Instant::now();
        let file = OpenFile::open(&text, 1);
        opens.push(start.elapsed());
        assert!(!file.model().types.is_empty());
    }
    report("full open (rope + parse + model)", opens);

    // Type a character into a method in the middle of the file, then delete it again, so
    // every sample edits the same kind of place in a file of the same size. Each sample is
    // one `didChange` with one change, in UTF-16 positions as most clients send them.
    let target_line = text
        .lines()
        .enumerate()
        .skip(line_count / 2)
        .find(|(_, line)| line.trim_start().starts_with("total += i;"))
        .map(|(number, _)| number as u32)
        .expect("the generated file has loop bodies");
    let column = 20; // after `total += ` : inside an expression statement
    let mut file = OpenFile::open(&text, 1);
    let mut version = 1;
    let (inserts, deletes) = type_and_delete(&mut file, &mut version, target_line, column, 1_000);
    assert_eq!(
        file.document().text(),
        text,
        "inserts and deletes cancel out"
    );
    report("single-character insert (didChange path)", inserts);
    report("single-character delete (didChange path)", deletes);

    // The same typing while the file has a syntax error elsewhere in the method: a half-typed
    // `if (` before the statement, as while someone is writing a condition.
    let indent = text
        .lines()
        .nth(target_line as usize)
        .map(|line| line.len() - line.trim_start().len())
        .unwrap_or(0) as u32;
    version += 1;
    let open = TextPosition::new(target_line, indent);
    file.apply_changes(
        &[TextChange::replace(
            TextRange::new(open, open),
            "if (".to_owned(),
        )],
        version,
        PositionEncoding::Utf16,
    )
    .expect("valid change");
    assert!(file.document().tree().root_node().has_error());
    let (inserts, deletes) = type_and_delete(&mut file, &mut version, target_line, column + 4, 300);
    report("single-character insert, file with a syntax error", inserts);
    report("single-character delete, file with a syntax error", deletes);
}

/// `samples` times: type `7` at (`line`, `column`), then delete it, each one `didChange` with
/// one change in UTF-16 positions; the time of each insert and each delete.
fn type_and_delete(
    file: &mut OpenFile,
    version: &mut i32,
    line: u32,
    column: u32,
    samples: usize,
) -> (Vec<Duration>, Vec<Duration>) {
    let at = TextPosition::new(line, column);
    let end = TextPosition::new(line, column + 1);
    let mut inserts = Vec::with_capacity(samples);
    let mut deletes = Vec::with_capacity(samples);
    for _ in 0..samples {
        *version += 1;
        let insert = [TextChange::replace(TextRange::new(at, at), "7".to_owned())];
        let start = Instant::now();
        file.apply_changes(&insert, *version, PositionEncoding::Utf16)
            .expect("valid insert");
        inserts.push(start.elapsed());

        *version += 1;
        let delete = [TextChange::replace(TextRange::new(at, end), String::new())];
        let start = Instant::now();
        file.apply_changes(&delete, *version, PositionEncoding::Utf16)
            .expect("valid delete");
        deletes.push(start.elapsed());
    }
    (inserts, deletes)
}
