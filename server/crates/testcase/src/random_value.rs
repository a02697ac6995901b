//! New primitive and string values: from the pools (source constants, observed values) with
//! the configured probabilities, else at random from a small range, the type's boundary values
//! or its full range.

use rand::rngs::StdRng;
use rand::Rng;

use crate::config::Config;
use crate::pool::ValuePools;
use crate::types::PrimitiveKind;
use crate::value::{LiteralKind, PrimitiveValue};

/// Of the values not taken from a pool: this share is drawn from the small range
/// (`[-max_int, max_int]`, printable ASCII), which is what EvoSuite draws from; the rest is
/// split evenly between the type's boundary values and its full range (ours: boundaries decide
/// overflow branches, and the full range is otherwise unreachable).
const SMALL_RANGE_SHARE: f64 = 0.7;

/// A new value of `kind`.
pub fn new_value(
    kind: LiteralKind,
    pools: &ValuePools,
    config: &Config,
    rng: &mut StdRng,
) -> PrimitiveValue {
    if rng.gen_bool(config.pool_probability) {
        let dynamic = rng.gen_bool(config.observed_probability);
        // The run-time side is split between compared and observed values; no draw is made
        // while nothing was compared, so runs without dynamic seeds stay as they were.
        let seeding = config.compared_share > 0.0;
        let compared = dynamic
            && seeding
            && !pools.compared.candidates(kind).is_empty()
            && rng.gen_bool(config.compared_share);
        let from_tests = !dynamic
            && config.test_constant_share > 0.0
            && !pools.tests.candidates(kind).is_empty()
            && rng.gen_bool(config.test_constant_share);
        if from_tests {
            if let Some(v) = pools.tests.pick(kind, rng) {
                return v;
            }
        }
        let order = if compared {
            [&pools.compared, &pools.observed, &pools.constants]
        } else if dynamic {
            [&pools.observed, &pools.compared, &pools.constants]
        } else {
            [&pools.constants, &pools.observed, &pools.compared]
        };
        // An empty pool of the chosen kind falls back to the others, then to random values.
        let usable =
            |p: &&&crate::pool::ConstantPool| seeding || !std::ptr::eq(**p, &pools.compared);
        if let Some(v) = order.iter().filter(usable).find_map(|p| p.pick(kind, rng)) {
            return v;
        }
    }
    random_value(kind, config, rng)
}

#[derive(Clone, Copy)]
enum Range {
    Small,
    Boundary,
    Full,
}

fn range(rng: &mut StdRng) -> Range {
    let r: f64 = rng.gen();
    if r < SMALL_RANGE_SHARE {
        Range::Small
    } else if r < (1.0 + SMALL_RANGE_SHARE) / 2.0 {
        Range::Boundary
    } else {
        Range::Full
    }
}

/// A value of `kind` not taken from a pool.
pub fn random_value(kind: LiteralKind, config: &Config, rng: &mut StdRng) -> PrimitiveValue {
    use PrimitiveKind as K;
    let range = range(rng);
    match kind {
        LiteralKind::Primitive(K::Boolean) => PrimitiveValue::Boolean(rng.gen()),
        LiteralKind::Primitive(K::Byte) => {
            PrimitiveValue::Byte(
                integer(range, i64::from(i8::MIN), i64::from(i8::MAX), config, rng) as i8,
            )
        }
        LiteralKind::Primitive(K::Short) => PrimitiveValue::Short(integer(
            range,
            i64::from(i16::MIN),
            i64::from(i16::MAX),
            config,
            rng,
        ) as i16),
        LiteralKind::Primitive(K::Int) => PrimitiveValue::Int(integer(
            range,
            i64::from(i32::MIN),
            i64::from(i32::MAX),
            config,
            rng,
        ) as i32),
        LiteralKind::Primitive(K::Long) => {
            PrimitiveValue::Long(integer(range, i64::MIN, i64::MAX, config, rng))
        }
        LiteralKind::Primitive(K::Char) => PrimitiveValue::Char(random_char(range, rng)),
        LiteralKind::Primitive(K::Float) => {
            let v = floating(range, config, rng);
            let v = if v.is_finite() && v.abs() > f64::from(f32::MAX) {
                f64::from(f32::MAX).copysign(v)
            } else {
                v
            };
            PrimitiveValue::Float(v as f32)
        }
        LiteralKind::Primitive(K::Double) => PrimitiveValue::Double(floating(range, config, rng)),
        LiteralKind::String => PrimitiveValue::String(random_string(range, config, rng)),
    }
}

fn integer(range: Range, min: i64, max: i64, config: &Config, rng: &mut StdRng) -> i64 {
    match range {
        Range::Small => {
            let bound = config.max_int.clamp(1, max);
            rng.gen_range(-bound..=bound).clamp(min, max)
        }
        Range::Boundary => {
            let candidates = [min, min + 1, -1, 0, 1, max - 1, max];
            candidates[rng.gen_range(0..candidates.len())]
        }
        Range::Full => rng.gen_range(min..=max),
    }
}

fn floating(range: Range, config: &Config, rng: &mut StdRng) -> f64 {
    match range {
        Range::Small => {
            let bound = config.max_int.max(1) as f64;
            let v: f64 = rng.gen_range(-bound..=bound);
            // Mostly short decimals, as a developer would write them.
            let decimals = rng.gen_range(0..=3);
            round_to(v, decimals)
        }
        Range::Boundary => {
            let candidates = [
                0.0,
                -0.0,
                1.0,
                -1.0,
                f64::MIN_POSITIVE,
                f64::EPSILON,
                f64::MAX,
                f64::MIN,
                f64::NAN,
                f64::INFINITY,
                f64::NEG_INFINITY,
            ];
            candidates[rng.gen_range(0..candidates.len())]
        }
        Range::Full => loop {
            let v = f64::from_bits(rng.gen());
            if v.is_finite() {
                break v;
            }
        },
    }
}

pub(crate) fn round_to(v: f64, decimals: i32) -> f64 {
    let scale = 10f64.powi(decimals);
    let r = (v * scale).round() / scale;
    if r.is_finite() {
        r
    } else {
        v
    }
}

/// Printable ASCII.
pub(crate) fn printable_char(rng: &mut StdRng) -> char {
    char::from(rng.gen_range(0x20u8..=0x7e))
}

/// Any UTF-16 code unit that is not a surrogate.
pub(crate) fn bmp_char(rng: &mut StdRng) -> char {
    loop {
        if let Some(c) = char::from_u32(rng.gen_range(0..=0xffff)) {
            break c;
        }
    }
}

fn random_char(range: Range, rng: &mut StdRng) -> char {
    match range {
        Range::Small => printable_char(rng),
        Range::Boundary => {
            let candidates = [
                '\0', ' ', '0', '9', 'A', 'Z', 'a', 'z', '\u{7f}', '\u{ffff}',
            ];
            candidates[rng.gen_range(0..candidates.len())]
        }
        Range::Full => bmp_char(rng),
    }
}

fn random_string(range: Range, config: &Config, rng: &mut StdRng) -> String {
    match range {
        Range::Boundary => String::new(),
        Range::Small | Range::Full => {
            let len = rng.gen_range(0..=config.string_length);
            (0..len)
                .map(|_| match range {
                    Range::Small => printable_char(rng),
                    _ => bmp_char(rng),
                })
                .collect()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pool::ConstantPool;
    use rand::SeedableRng;

    #[test]
    fn pooled_constants_are_used_about_as_often_as_configured() {
        let mut constants = ConstantPool::new();
        constants.add(PrimitiveValue::Int(424242));
        let pools = ValuePools::new(constants);
        let config = Config::default();
        let mut rng = StdRng::seed_from_u64(7);
        let n = 4000;
        let hits = (0..n)
            .filter(|_| {
                new_value(
                    LiteralKind::Primitive(PrimitiveKind::Int),
                    &pools,
                    &config,
                    &mut rng,
                ) == PrimitiveValue::Int(424242)
            })
            .count();
        // Pool probability 0.5; an empty observed pool falls back to the constants.
        let share = hits as f64 / n as f64;
        assert!((0.45..0.55).contains(&share), "{share}");
    }

    #[test]
    fn observed_values_are_preferred_with_their_probability() {
        let mut pools = ValuePools::new(ConstantPool::new());
        pools
            .constants
            .add(PrimitiveValue::String("constant".into()));
        pools
            .observed
            .add(PrimitiveValue::String("observed".into()));
        let config = Config::default();
        let mut rng = StdRng::seed_from_u64(9);
        let n = 6000;
        let observed = (0..n)
            .filter(|_| {
                new_value(LiteralKind::String, &pools, &config, &mut rng)
                    == PrimitiveValue::String("observed".into())
            })
            .count();
        let share = observed as f64 / n as f64;
        let expected = config.pool_probability * config.observed_probability;
        assert!((share - expected).abs() < 0.03, "{share} vs {expected}");
    }

    #[test]
    fn compared_values_take_their_share_of_the_run_time_draws() {
        let mut pools = ValuePools::new(ConstantPool::new());
        pools
            .observed
            .add(PrimitiveValue::String("observed".into()));
        pools
            .compared
            .add(PrimitiveValue::String("compared".into()));
        let config = Config::default();
        let mut rng = StdRng::seed_from_u64(9);
        let n = 6000;
        let mut compared = 0;
        let mut observed = 0;
        for _ in 0..n {
            match new_value(LiteralKind::String, &pools, &config, &mut rng) {
                PrimitiveValue::String(s) if s == "compared" => compared += 1,
                PrimitiveValue::String(s) if s == "observed" => observed += 1,
                _ => {}
            }
        }
        let dynamic = config.pool_probability * config.observed_probability;
        // The constants are empty: their draws fall back to the observed pool first.
        let expected_compared = dynamic * config.compared_share;
        let expected_observed = config.pool_probability - expected_compared;
        let (c, o) = (compared as f64 / n as f64, observed as f64 / n as f64);
        assert!((c - expected_compared).abs() < 0.03, "{c}");
        assert!((o - expected_observed).abs() < 0.03, "{o}");
        // An integer kind has no compared candidate: no draw is spent on the compared pool.
        let ints = new_value(
            LiteralKind::Primitive(PrimitiveKind::Int),
            &pools,
            &config,
            &mut rng,
        );
        assert!(matches!(ints, PrimitiveValue::Int(_)));
        // Switched off, the compared pool gives nothing, not even as a fallback.
        let off = Config {
            compared_share: 0.0,
            ..Config::default()
        };
        assert!(
            (0..2000).all(|_| new_value(LiteralKind::String, &pools, &off, &mut rng)
                != PrimitiveValue::String("compared".into()))
        );
    }

    #[test]
    fn literals_of_the_existing_tests_take_their_share_of_the_static_draws() {
        let mut pools = ValuePools::new(ConstantPool::new());
        pools.constants.add(PrimitiveValue::String("own".into()));
        let document = "{\"k\":[1,2]}";
        pools.tests = ConstantPool::first_of([PrimitiveValue::String(document.into())], 10);
        let config = Config::default();
        let mut rng = StdRng::seed_from_u64(5);
        let n = 6000;
        let mut from_tests = 0;
        let mut own = 0;
        for _ in 0..n {
            match new_value(LiteralKind::String, &pools, &config, &mut rng) {
                PrimitiveValue::String(s) if s == document => from_tests += 1,
                PrimitiveValue::String(s) if s == "own" => own += 1,
                _ => {}
            }
        }
        let fixed = config.pool_probability * (1.0 - config.observed_probability);
        let expected = fixed * config.test_constant_share;
        let (t, o) = (from_tests as f64 / n as f64, own as f64 / n as f64);
        assert!((t - expected).abs() < 0.03, "{t} vs {expected}");
        // The class's own literals keep priority: the rest of the static draws, and the
        // fallback of the run-time draws (both run-time pools are empty).
        assert!(o > t, "{o} vs {t}");
        // A kind the tests have no literal of spends no draw on them; switched off, the
        // tests' pool gives nothing.
        assert!(matches!(
            new_value(
                LiteralKind::Primitive(PrimitiveKind::Int),
                &pools,
                &config,
                &mut rng
            ),
            PrimitiveValue::Int(_)
        ));
        let off = Config {
            test_constant_share: 0.0,
            ..Config::default()
        };
        assert!(
            (0..2000).all(|_| new_value(LiteralKind::String, &pools, &off, &mut rng)
                != PrimitiveValue::String(document.into()))
        );
    }

    #[test]
    fn random_values_cover_small_boundary_and_full_ranges() {
        let config = Config::default();
        let mut rng = StdRng::seed_from_u64(3);
        let values: Vec<i32> = (0..2000)
            .map(|_| {
                match random_value(
                    LiteralKind::Primitive(PrimitiveKind::Int),
                    &config,
                    &mut rng,
                ) {
                    PrimitiveValue::Int(v) => v,
                    other => panic!("{other:?}"),
                }
            })
            .collect();
        assert!(values.iter().filter(|v| v.unsigned_abs() <= 2048).count() > 1300);
        assert!(values.contains(&i32::MAX) && values.contains(&i32::MIN));
        assert!(values
            .iter()
            .any(|v| v.unsigned_abs() > 1 << 20 && *v != i32::MAX && *v != i32::MIN));
        for _ in 0..500 {
            if let PrimitiveValue::String(s) = random_value(LiteralKind::String, &config, &mut rng)
            {
                assert!(s.chars().count() <= config.string_length);
            }
            match random_value(
                LiteralKind::Primitive(PrimitiveKind::Byte),
                &config,
                &mut rng,
            ) {
                PrimitiveValue::Byte(_) => {}
                other => panic!("{other:?}"),
            }
        }
    }
}
