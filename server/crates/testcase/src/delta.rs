//! Changing the value of a primitive statement (Fraser and Arcuri, "Whole Test Suites" III-E2 "Change"): numbers move by a
//! random delta in `±[1, Δ]` or flip their sign, within their type's bounds; strings get the
//! character deletions, replacements and insertions of EvoSuite's string mutation, each
//! character touched with probability `1/len`, with characters often taken from the source's
//! constants; with a small probability a fresh value is drawn.

use rand::rngs::StdRng;
use rand::Rng;

use crate::config::Config;
use crate::pool::ValuePools;
use crate::random_value::{bmp_char, new_value, printable_char, round_to};
use crate::value::PrimitiveValue;

/// Tries before a mutation gives up on changing the value.
const MAX_ATTEMPTS: usize = 32;

/// Share of the characters a string edit inserts or puts in place that come from the class's
/// source constants (ours).
const SOURCE_CHAR_SHARE: f64 = 0.5;

/// Probability of a sign flip in a numeric mutation (ours; Fraser and Arcuri, "Whole Test Suites" names only deltas).
const SIGN_FLIP: f64 = 0.1;

/// Mutates `value` in place, keeping its kind; returns whether it changed.
pub fn mutate_value(
    value: &mut PrimitiveValue,
    pools: &ValuePools,
    config: &Config,
    rng: &mut StdRng,
) -> bool {
    let before = value.clone();
    // Attempts: a string edit can leave the string as it was (each edit happens only with
    // some probability), rounding can keep a float.
    for _ in 0..MAX_ATTEMPTS {
        if rng.gen_bool(config.random_perturbation) {
            *value = new_value(value.kind(), pools, config, rng);
        } else {
            delta(value, pools, config, rng);
        }
        if *value != before {
            return true;
        }
    }
    false
}

fn delta(value: &mut PrimitiveValue, pools: &ValuePools, config: &Config, rng: &mut StdRng) {
    match value {
        PrimitiveValue::Boolean(b) => *b = !*b,
        PrimitiveValue::Byte(v) => {
            *v = integer_delta(
                i64::from(*v),
                i64::from(i8::MIN),
                i64::from(i8::MAX),
                config,
                rng,
            ) as i8
        }
        PrimitiveValue::Short(v) => {
            *v = integer_delta(
                i64::from(*v),
                i64::from(i16::MIN),
                i64::from(i16::MAX),
                config,
                rng,
            ) as i16
        }
        PrimitiveValue::Int(v) => {
            *v = integer_delta(
                i64::from(*v),
                i64::from(i32::MIN),
                i64::from(i32::MAX),
                config,
                rng,
            ) as i32
        }
        PrimitiveValue::Long(v) => *v = integer_delta(*v, i64::MIN, i64::MAX, config, rng),
        PrimitiveValue::Char(c) => {
            let code = i64::from(u32::from(*c));
            let step = nonzero_delta(config, rng);
            let mut next = (code + step).clamp(0, 0xffff);
            // Skip the surrogate block in the direction of the step.
            if (0xd800..=0xdfff).contains(&next) {
                next = if step > 0 { 0xe000 } else { 0xd7ff };
            }
            *c = char::from_u32(next as u32).unwrap_or(*c);
        }
        PrimitiveValue::Float(v) => {
            *v = float_delta(f64::from(*v), f64::from(f32::MAX), config, rng) as f32
        }
        PrimitiveValue::Double(v) => *v = float_delta(*v, f64::MAX, config, rng),
        PrimitiveValue::String(s) => *s = string_delta(s, pools, rng),
    }
}

fn nonzero_delta(config: &Config, rng: &mut StdRng) -> i64 {
    let max = config.max_delta.max(1);
    let d = rng.gen_range(1..=max);
    if rng.gen() {
        d
    } else {
        -d
    }
}

fn integer_delta(v: i64, min: i64, max: i64, config: &Config, rng: &mut StdRng) -> i64 {
    if rng.gen_bool(SIGN_FLIP) {
        // `-MIN` does not exist: it saturates to MAX.
        return v.checked_neg().unwrap_or(max).clamp(min, max);
    }
    // A step past a bound goes the other way, so the value always moves.
    let d = nonzero_delta(config, rng);
    let moved = v.saturating_add(d).clamp(min, max);
    if moved == v {
        v.saturating_sub(d).clamp(min, max)
    } else {
        moved
    }
}

fn float_delta(v: f64, max: f64, config: &Config, rng: &mut StdRng) -> f64 {
    if !v.is_finite() {
        // NaN and infinities have no neighbourhood: restart from a small value.
        return rng.gen_range(-(config.max_delta as f64)..=config.max_delta as f64);
    }
    let r: f64 = rng.gen();
    if r < SIGN_FLIP {
        -v
    } else if r < 0.4 {
        // EvoSuite also mutates the precision of floating values.
        round_to(v, rng.gen_range(0..=7))
    } else {
        let d = config.max_delta.max(1) as f64;
        (v + rng.gen_range(-d..=d)).clamp(-max, max)
    }
}

/// Each of deletion, replacement and insertion is applied with probability 1/3; deletion and
/// replacement touch each character with probability `1/len`, insertion adds a character with
/// probability 1/2, a second with 1/4, and so on. So most edits are small steps: one character
/// deleted, replaced or inserted.
fn string_delta(s: &str, pools: &ValuePools, rng: &mut StdRng) -> String {
    let mut chars: Vec<char> = s.chars().collect();
    if rng.gen_bool(1.0 / 3.0) && !chars.is_empty() {
        let p = 1.0 / chars.len() as f64;
        chars.retain(|_| !rng.gen_bool(p));
    }
    if rng.gen_bool(1.0 / 3.0) && !chars.is_empty() {
        let p = 1.0 / chars.len() as f64;
        for c in chars.iter_mut() {
            if rng.gen_bool(p) {
                *c = edit_char(pools, rng);
            }
        }
    }
    if rng.gen_bool(1.0 / 3.0) {
        let mut alpha = 0.5;
        while rng.gen_bool(alpha) {
            let at = rng.gen_range(0..=chars.len());
            chars.insert(at, edit_char(pools, rng));
            alpha *= 0.5;
        }
    }
    chars.into_iter().collect()
}

/// A character for a replacement or an insertion: with [`SOURCE_CHAR_SHARE`] one of the
/// class's `char` constants or a character of its string constants, else mostly printable
/// ASCII.
///
/// Deviation: EvoSuite's string mutation draws random characters only. A condition such as
/// `s.charAt(0) == ';'` is then hit with probability about 1/95 per replacement; the source
/// usually mentions the character it compares with.
fn edit_char(pools: &ValuePools, rng: &mut StdRng) -> char {
    if rng.gen_bool(SOURCE_CHAR_SHARE) {
        if let Some(c) = pools.constants.pick_text_char(rng) {
            return c;
        }
    }
    if rng.gen_bool(0.9) {
        printable_char(rng)
    } else {
        bmp_char(rng)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pool::ConstantPool;
    use rand::SeedableRng;

    #[test]
    fn integer_deltas_are_small_and_stay_in_bounds() {
        let pools = ValuePools::new(ConstantPool::new());
        let config = Config {
            random_perturbation: 0.0,
            ..Config::default()
        };
        let mut rng = StdRng::seed_from_u64(1);
        for _ in 0..2000 {
            let mut v = PrimitiveValue::Int(100);
            assert!(mutate_value(&mut v, &pools, &config, &mut rng));
            let PrimitiveValue::Int(x) = v else { panic!() };
            assert!(x == -100 || (80..=120).contains(&x), "{x}");

            let mut b = PrimitiveValue::Byte(i8::MAX);
            mutate_value(&mut b, &pools, &config, &mut rng);
            assert!(matches!(b, PrimitiveValue::Byte(_)));

            let mut c = PrimitiveValue::Char('\u{d7fe}');
            mutate_value(&mut c, &pools, &config, &mut rng);
            assert!(matches!(c, PrimitiveValue::Char(_)));

            let mut m = PrimitiveValue::Long(i64::MIN);
            assert!(mutate_value(&mut m, &pools, &config, &mut rng));
        }
    }

    #[test]
    fn string_mutations_edit_few_characters() {
        let pools = ValuePools::new(ConstantPool::new());
        let config = Config {
            random_perturbation: 0.0,
            ..Config::default()
        };
        let mut rng = StdRng::seed_from_u64(2);
        let original = "abcdefghijklmnopqrst";
        let mut total_distance = 0;
        for _ in 0..500 {
            let mut v = PrimitiveValue::String(original.into());
            assert!(mutate_value(&mut v, &pools, &config, &mut rng));
            let PrimitiveValue::String(s) = v else {
                panic!()
            };
            let len_diff = (s.chars().count() as i64 - 20).abs();
            total_distance += len_diff;
        }
        // About one character deleted or inserted per mutation on average, never many.
        assert!(total_distance < 1500, "{total_distance}");
    }

    /// The characters of `after` that are not in `before` (a multiset difference).
    fn new_chars(before: &str, after: &str) -> Vec<char> {
        let mut left: Vec<char> = before.chars().collect();
        after
            .chars()
            .filter(|c| match left.iter().position(|l| l == c) {
                Some(i) => {
                    left.swap_remove(i);
                    false
                }
                None => true,
            })
            .collect()
    }

    #[test]
    fn string_edits_often_use_characters_of_the_source_constants() {
        let mut constants = ConstantPool::new();
        constants.add(PrimitiveValue::Char(';'));
        constants.add(PrimitiveValue::String("#".into()));
        let pools = ValuePools::new(constants);
        let config = Config {
            random_perturbation: 0.0,
            ..Config::default()
        };
        let mut rng = StdRng::seed_from_u64(5);
        let (mut from_source, mut added) = (0, 0);
        let mut single_steps = 0;
        for _ in 0..1000 {
            let mut v = PrimitiveValue::String("abcd".into());
            assert!(mutate_value(&mut v, &pools, &config, &mut rng));
            let PrimitiveValue::String(s) = v else {
                panic!()
            };
            let new = new_chars("abcd", &s);
            added += new.len();
            from_source += new.iter().filter(|c| **c == ';' || **c == '#').count();
            let len = s.chars().count();
            if new.len() <= 1 && (3..=5).contains(&len) {
                single_steps += 1;
            }
        }
        // Half of the new characters come from the constants; a random printable one is `;`
        // or `#` with probability 2/95.
        let share = from_source as f64 / added as f64;
        assert!((0.4..0.65).contains(&share), "{share}");
        // Most mutations are one small step: a character inserted, deleted or replaced (the
        // rest touch two or three characters).
        assert!(single_steps > 500, "{single_steps}");
    }

    #[test]
    fn without_text_constants_edits_use_random_characters() {
        let mut constants = ConstantPool::new();
        constants.add(PrimitiveValue::Int(7));
        constants.add(PrimitiveValue::String(String::new()));
        let pools = ValuePools::new(constants);
        let config = Config {
            random_perturbation: 0.0,
            ..Config::default()
        };
        let mut rng = StdRng::seed_from_u64(6);
        let mut distinct = std::collections::BTreeSet::new();
        for _ in 0..300 {
            let mut v = PrimitiveValue::String("abcd".into());
            assert!(mutate_value(&mut v, &pools, &config, &mut rng));
            let PrimitiveValue::String(s) = v else {
                panic!()
            };
            distinct.extend(new_chars("abcd", &s));
        }
        assert!(distinct.len() > 30, "{distinct:?}");
    }
}
