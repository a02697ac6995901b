//! File names of class records: readable, and safe for any class name on any file system.
//!
//! `com.x.Outer$Inner` becomes `com.x.Outer$Inner-<16 hex digits>.json`. The readable part keeps
//! ASCII letters, digits, `.`, `_`, `-` and `$` and replaces everything else (non-ASCII
//! letters, separators, a leading dot) with `_`, cut to [`READABLE_LIMIT`] bytes; the hex digits are the
//! 64-bit FNV-1a hash of the exact class name, so names that differ only in letter case
//! (which collide on case-insensitive file systems), in characters replaced by `_`, or past
//! the cut still get distinct files. The record itself names its class, and reading checks it.

/// Bytes of the class name kept readable in the file name (file names are limited to 255).
pub const READABLE_LIMIT: usize = 100;

/// The record file name of `class`.
pub fn record_file_name(class: &str) -> String {
    let readable: String = class
        .chars()
        .enumerate()
        .map(|(i, c)| match c {
            // A leading dot would hide the file.
            '.' if i == 0 => '_',
            c if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-' | '$') => c,
            _ => '_',
        })
        .take(READABLE_LIMIT)
        .collect();
    format!("{readable}-{:016x}.json", fnv1a64(class.as_bytes()))
}

/// FNV-1a, 64 bits: tiny, and fixed forever (file names must not change between releases,
/// which rules out `std`'s `DefaultHasher`).
pub fn fnv1a64(bytes: &[u8]) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        hash ^= u64::from(b);
        hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
    }
    hash
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fnv1a64_matches_the_reference_vectors() {
        assert_eq!(fnv1a64(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a64(b"a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(fnv1a64(b"foobar"), 0x8594_4171_f739_67e8);
    }
}
