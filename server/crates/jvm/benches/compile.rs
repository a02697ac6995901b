//! Compile benchmark on real classes: a worker's cold start and first compile of a class's
//! closure, without and with the compile cache on disk, and a warm worker's compile after an
//! edit that keeps the class's interface (a comment, standing for an edit inside a body) and
//! after one that changes it (a new public method: the files mentioning the class are compiled
//! again too).
//!
//! Needs the Debian subjects (`bash tests/bench/fetch-subjects.sh lang3 collections`, or
//! `CTGLS_SUBJECTS`); run `cargo bench -p jvm --bench compile`. Figures go to
//! docs/benchmarks.md. `CTGLS_BENCH_ROUNDS` sets the rounds per figure (default 3).

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use jvm::*;

/// (subject, class) pairs measured.
const CLASSES: &[(&str, &str)] = &[
    ("lang3", "org.apache.commons.lang3.CharUtils"),
    ("lang3", "org.apache.commons.lang3.StringUtils"),
    ("collections", "org.apache.commons.collections4.map.LRUMap"),
];

fn subjects() -> PathBuf {
    std::env::var_os("CTGLS_SUBJECTS")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../target/subjects"))
}

fn sources(src: &Path) -> Vec<SourceFile> {
    let mut out = Vec::new();
    let mut stack = vec![src.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "java") {
                out.push(SourceFile {
                    path: p.strip_prefix(src).unwrap().to_string_lossy().into_owned(),
                    text: std::fs::read_to_string(&p).unwrap(),
                    instrumented: None,
                });
            }
        }
    }
    out.sort_by(|a, b| a.path.cmp(&b.path));
    out
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn secs(d: Duration) -> String {
    format!("{:.2} s", d.as_secs_f64())
}

fn config(compile_cache: bool) -> WorkerConfig {
    WorkerConfig {
        compile_cache,
        ..WorkerConfig::default()
    }
}

fn compile(sup: &mut Supervisor, sources: &[SourceFile], root: &str) -> (Duration, CompileResult) {
    let request = CompileRequest {
        sources: sources.to_vec(),
        roots: Some(vec![root.to_string()]),
        ..CompileRequest::default()
    };
    let started = Instant::now();
    let result = sup.compile(&request).expect("compile request");
    let took = started.elapsed();
    assert!(result.unit.is_some(), "{:#?}", result.diagnostics);
    (took, result)
}

/// A new worker: (start, first compile, the compile's result).
fn cold(
    sources: &[SourceFile],
    root: &str,
    cache_of: Option<&Path>,
) -> (Duration, Duration, CompileResult) {
    let mut sup = Supervisor::new(config(cache_of.is_some())).expect("a JDK");
    if let Some(project) = cache_of {
        sup.use_compile_cache_of(project);
    }
    let started = Instant::now();
    sup.start().expect("worker start");
    let start = started.elapsed();
    let (took, result) = compile(&mut sup, sources, root);
    (start, took, result)
}

fn main() {
    let rounds: usize = std::env::var("CTGLS_BENCH_ROUNDS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(3)
        .max(1);
    let subjects = subjects();
    for (subject, class) in CLASSES {
        let src = subjects.join(subject).join("src");
        if !src.is_dir() {
            println!("{subject}: not fetched ({}), skipped", src.display());
            continue;
        }
        let sources = sources(&src);
        let root = format!("{}.java", class.replace('.', "/"));
        let simple = class.rsplit('.').next().unwrap();

        let mut starts = Vec::new();
        let mut firsts = Vec::new();
        let mut closure = 0;
        for _ in 0..rounds {
            let (start, first, result) = cold(&sources, &root, None);
            closure = result.files.len();
            starts.push(start);
            firsts.push(first);
        }

        // One worker saves the cache; new workers start from it.
        let project = std::env::temp_dir().join(format!(
            "ctgls-compile-bench-{}-{simple}",
            std::process::id()
        ));
        std::fs::create_dir_all(&project).unwrap();
        let mut saver = Supervisor::new(config(true)).expect("a JDK");
        saver.use_compile_cache_of(&project);
        compile(&mut saver, &sources, &root);
        saver.save_compile_cache().expect("cache saved");
        drop(saver);
        let mut cached_starts = Vec::new();
        let mut cached_firsts = Vec::new();
        for _ in 0..rounds {
            let (start, first, result) = cold(&sources, &root, Some(&project));
            assert_eq!(result.compiled_files, 0, "{result:?}");
            cached_starts.push(start);
            cached_firsts.push(first);
        }
        if let Some(file) = Supervisor::new(config(true)).ok().and_then(|mut s| {
            s.use_compile_cache_of(&project);
            s.compile_cache_file().map(Path::to_path_buf)
        }) {
            let _ = std::fs::remove_file(file);
        }
        let _ = std::fs::remove_dir_all(&project);

        // A warm worker: edits of the class, each measured against the previous text.
        let mut warm = Supervisor::new(config(false)).expect("a JDK");
        compile(&mut warm, &sources, &root);
        let index = sources.iter().position(|s| s.path == root).unwrap();
        let original = sources[index].text.clone();
        let mut edited = sources.clone();
        let mut body = Vec::new();
        let mut body_files = 0;
        let mut interface = Vec::new();
        let mut interface_files = 0;
        for n in 0..rounds {
            edited[index].text = format!("{original}\n// edit {n}\n");
            let (took, result) = compile(&mut warm, &edited, &root);
            body.push(took);
            body_files = result.compiled_files;
        }
        for n in 0..rounds {
            let last = original.rfind('}').unwrap();
            edited[index].text = format!(
                "{}    public static int ctglsBench{n}() {{ return {n}; }}\n{}",
                &original[..last],
                &original[last..]
            );
            let (took, result) = compile(&mut warm, &edited, &root);
            interface.push(took);
            interface_files = result.compiled_files;
        }

        println!(
            "{subject} {simple} (closure of {closure} files), median of {rounds}:\n  \
             cold: start {} + first compile {}\n  \
             cold, from the compile cache on disk: start {} + first compile {} (files compiled: 0)\n  \
             warm, an edit keeping the interface: {} (files compiled: {body_files})\n  \
             warm, an edit changing the interface: {} (files compiled: {interface_files})",
            secs(median(starts)),
            secs(median(firsts)),
            secs(median(cached_starts)),
            secs(median(cached_firsts)),
            secs(median(body)),
            secs(median(interface)),
        );
    }
}
