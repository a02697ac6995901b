//! Compiles ctgls's clock-shift preload library (`src/verify/preload/clockshift.c`) with the C
//! compiler that linking Rust on Linux already needs (`$CC`, else `cc`), into `OUT_DIR`, where
//! `verify::preload` embeds it. No C compiler, another target OS, or a failed compile leave an
//! empty file: verification then runs without the clock shift and says so.

use std::path::PathBuf;
use std::process::Command;

fn main() {
    let source = "src/verify/preload/clockshift.c";
    println!("cargo:rerun-if-changed={source}");
    println!("cargo:rerun-if-env-changed=CC");
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    let library = out.join("libctgls-clockshift.so");
    let linux = std::env::var("CARGO_CFG_TARGET_OS").as_deref() == Ok("linux");
    let same_target = std::env::var("TARGET").ok() == std::env::var("HOST").ok();
    let compiled = linux && same_target && compile(source, &library);
    if !compiled {
        if linux {
            println!(
                "cargo:warning=ctgls: could not compile {source}; verification will run without \
                 the clock shift"
            );
        }
        std::fs::write(&library, b"").expect("writing to OUT_DIR");
    }
}

/// `cc -shared -fPIC`, with `-ldl` for C libraries older than glibc 2.34 (where `dlsym` lives
/// in libdl), else without it.
fn compile(source: &str, library: &PathBuf) -> bool {
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".into());
    let attempt = |extra: &[&str]| {
        Command::new(&cc)
            .args(["-shared", "-fPIC", "-O2", "-o"])
            .arg(library)
            .arg(source)
            .args(extra)
            .status()
            .is_ok_and(|status| status.success())
    };
    attempt(&["-ldl"]) || attempt(&[])
}
