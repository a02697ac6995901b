//! Measures `JavaModel::update` after a one-character edit inside one method of a generated
//! 5,000-line class, against a full `build`. Run with `cargo bench -p javamodel --bench update`.

use std::time::{Duration, Instant};

use javamodel::{ByteEdit, JavaModel};

fn generated_class(methods: usize) -> String {
    let mut src = String::from(
        "package bench;\n\nimport java.util.List;\n\npublic class Big {\n    private int state;\n",
    );
    for i in 0..methods {
        src.push_str(&format!(
            "
    public int method{i}(int x, List<String> items) {{
        int total = 0;
        if (x > {i} && state != 0) {{
            total += x;
        }} else if (x < 0 || items.isEmpty()) {{
            return -1;
        }}
        for (String s : items) {{
            if (s.length() > 3) {{
                total++;
            }}
        }}
        while (total > 100) {{
            total /= 2;
        }}
        return total > 50 ? total : x;
    }}
"
        ));
    }
    src.push_str("}\n");
    src
}

fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

fn main() {
    let src = generated_class(280);
    let lines = src.lines().count();
    let tree = syntax::parse_java(&src, None);

    let mut build_times = Vec::new();
    let mut model = JavaModel::build(&src, &tree);
    for _ in 0..20 {
        let start = Instant::now();
        model = JavaModel::build(&src, &tree);
        build_times.push(start.elapsed());
    }

    // Insert one character inside method140's body.
    let at = src.find("public int method140(").expect("method") + 60;
    let mut edited = src.clone();
    edited.insert(at, ' ');
    let edits = [ByteEdit {
        start_byte: at,
        old_end_byte: at,
        new_end_byte: at + 1,
    }];
    let mut edited_tree = tree.clone();
    edited_tree.edit(&syntax::input_edit(&src, &edited, edits[0]));
    let edited_tree = syntax::parse_java(&edited, Some(&edited_tree));
    let mut update_times = Vec::new();
    for _ in 0..50 {
        let start = Instant::now();
        let updated = model.update(&edited, &edited_tree, &edits);
        update_times.push(start.elapsed());
        std::hint::black_box(updated);
    }
    println!(
        "{lines} lines, {} decisions: build median {:?}, one-character update median {:?}",
        model.decisions().len(),
        median(build_times),
        median(update_times)
    );
}
