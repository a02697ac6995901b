//! Value pools for primitive statements: the constants found in the class's source (EvoSuite's
//! static constant pool), the constants of the project's existing tests of the class
//! ([`ValuePools::tests`]), values observed at run time (what statements and getters returned,
//! fed through [`crate::Cluster::add_observed`]) and values the code under test compared its
//! data with at run time (EvoSuite's dynamic pool, fed through [`crate::Cluster::add_compared`]).

use std::collections::{HashSet, VecDeque};

use rand::rngs::StdRng;
use rand::Rng;

use crate::types::PrimitiveKind;
use crate::value::{LiteralKind, PrimitiveValue};

/// Values kept per kind in the observed pool: EvoSuite's `dynamic_pool_size` and Pynguin's
/// `max_dynamic_pool_size` default to 50.
pub const OBSERVED_POOL_CAPACITY: usize = 50;

/// Distinct literal values by kind, in insertion order. With a capacity, the oldest value of a
/// kind is dropped when a new one does not fit.
#[derive(Debug, Clone, Default)]
pub struct ConstantPool {
    integers: VecDeque<i64>,
    floats: VecDeque<f64>,
    chars: VecDeque<char>,
    strings: VecDeque<String>,
    capacity: Option<usize>,
    seen: HashSet<Key>,
}

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum Key {
    Integer(i64),
    Float(u64),
    Char(char),
    String(String),
}

impl ConstantPool {
    pub fn new() -> ConstantPool {
        ConstantPool::default()
    }

    /// A pool that keeps at most `capacity` values of each kind.
    pub fn bounded(capacity: usize) -> ConstantPool {
        ConstantPool {
            capacity: Some(capacity.max(1)),
            ..ConstantPool::default()
        }
    }

    /// Adds a value; booleans are not pooled (there are two).
    pub fn add(&mut self, value: PrimitiveValue) {
        let key = match &value {
            PrimitiveValue::Boolean(_) => return,
            PrimitiveValue::Char(c) => Key::Char(*c),
            PrimitiveValue::Float(f) => Key::Float(f64::from(*f).to_bits()),
            PrimitiveValue::Double(d) => Key::Float(d.to_bits()),
            PrimitiveValue::String(s) => Key::String(s.clone()),
            other => Key::Integer(other.as_integer().unwrap_or_default()),
        };
        if !self.seen.insert(key.clone()) {
            return;
        }
        let capacity = self.capacity;
        let evicted = match value {
            PrimitiveValue::Boolean(_) => None,
            PrimitiveValue::Char(c) => push(&mut self.chars, c, capacity).map(Key::Char),
            PrimitiveValue::Float(f) => {
                push(&mut self.floats, f64::from(f), capacity).map(|v| Key::Float(v.to_bits()))
            }
            PrimitiveValue::Double(d) => {
                push(&mut self.floats, d, capacity).map(|v| Key::Float(v.to_bits()))
            }
            PrimitiveValue::String(s) => push(&mut self.strings, s, capacity).map(Key::String),
            other => push(
                &mut self.integers,
                other.as_integer().unwrap_or_default(),
                capacity,
            )
            .map(Key::Integer),
        };
        if let Some(k) = evicted {
            self.seen.remove(&k);
        }
    }

    pub fn len(&self) -> usize {
        self.integers.len() + self.floats.len() + self.chars.len() + self.strings.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Every pooled value that is a valid literal of `kind`: integers that fit, integers and
    /// floats for floating kinds, chars and integers in char range for `char`.
    pub fn candidates(&self, kind: LiteralKind) -> Vec<PrimitiveValue> {
        use PrimitiveKind as K;
        // Chars count as integers too: in bytecode, which EvoSuite's pool reads, they are.
        let ints = self
            .integers
            .iter()
            .copied()
            .chain(self.chars.iter().map(|c| i64::from(u32::from(*c))));
        match kind {
            LiteralKind::String => self
                .strings
                .iter()
                .cloned()
                .map(PrimitiveValue::String)
                .collect(),
            LiteralKind::Primitive(K::Boolean) => Vec::new(),
            LiteralKind::Primitive(K::Byte) => ints
                .filter_map(|v| i8::try_from(v).ok().map(PrimitiveValue::Byte))
                .collect(),
            LiteralKind::Primitive(K::Short) => ints
                .filter_map(|v| i16::try_from(v).ok().map(PrimitiveValue::Short))
                .collect(),
            LiteralKind::Primitive(K::Int) => ints
                .filter_map(|v| i32::try_from(v).ok().map(PrimitiveValue::Int))
                .collect(),
            LiteralKind::Primitive(K::Long) => ints.map(PrimitiveValue::Long).collect(),
            LiteralKind::Primitive(K::Char) => self
                .chars
                .iter()
                .copied()
                .chain(self.integers.iter().copied().filter_map(|v| {
                    u16::try_from(v)
                        .ok()
                        .and_then(|u| char::from_u32(u32::from(u)))
                }))
                .map(PrimitiveValue::Char)
                .collect(),
            LiteralKind::Primitive(K::Float) => self
                .floats
                .iter()
                .copied()
                .filter(|f| !f.is_finite() || f.abs() <= f64::from(f32::MAX))
                .chain(ints.map(|v| v as f64))
                .map(|f| PrimitiveValue::Float(f as f32))
                .collect(),
            LiteralKind::Primitive(K::Double) => self
                .floats
                .iter()
                .copied()
                .chain(ints.map(|v| v as f64))
                .map(PrimitiveValue::Double)
                .collect(),
        }
    }

    /// A pool of the first `per_kind` distinct values of each kind of `values`, in order of
    /// first appearance; later values of a full kind are left out (unlike [`Self::bounded`],
    /// which keeps the most recent).
    pub fn first_of(values: impl IntoIterator<Item = PrimitiveValue>, per_kind: usize) -> Self {
        let mut pool = ConstantPool::new();
        for value in values {
            let filled = match &value {
                PrimitiveValue::Boolean(_) => continue,
                PrimitiveValue::Char(_) => pool.chars.len(),
                PrimitiveValue::Float(_) | PrimitiveValue::Double(_) => pool.floats.len(),
                PrimitiveValue::String(_) => pool.strings.len(),
                _ => pool.integers.len(),
            };
            if filled < per_kind {
                pool.add(value);
            }
        }
        pool
    }

    /// A uniformly chosen candidate of `kind`, if there is one.
    pub fn pick(&self, kind: LiteralKind, rng: &mut StdRng) -> Option<PrimitiveValue> {
        let mut candidates = self.candidates(kind);
        if candidates.is_empty() {
            return None;
        }
        let i = rng.gen_range(0..candidates.len());
        Some(candidates.swap_remove(i))
    }
}

impl ConstantPool {
    /// A character of the pool's text: a `char` constant, or a character of a string constant,
    /// each constant equally likely. `None` when there is no such character.
    pub fn pick_text_char(&self, rng: &mut StdRng) -> Option<char> {
        let texts = self.chars.len() + self.strings.len();
        if texts == 0 {
            return None;
        }
        let i = rng.gen_range(0..texts);
        if let Some(c) = self.chars.get(i) {
            return Some(*c);
        }
        let s = &self.strings[i - self.chars.len()];
        let n = s.chars().count();
        // An empty string constant has no character: the caller falls back to random ones.
        (n > 0).then(|| s.chars().nth(rng.gen_range(0..n)).unwrap_or_default())
    }
}

fn push<T>(queue: &mut VecDeque<T>, value: T, capacity: Option<usize>) -> Option<T> {
    queue.push_back(value);
    match capacity {
        Some(c) if queue.len() > c => queue.pop_front(),
        _ => None,
    }
}

/// The pools a primitive value may come from.
#[derive(Debug, Clone)]
pub struct ValuePools {
    /// Literals of the class under test's source.
    pub constants: ConstantPool,
    /// Values statements and getters returned at run time (bounded, most recent kept).
    pub observed: ConstantPool,
    /// Dynamic seeds: values the instrumented code compared its data with at run time (the
    /// other side of a `String.equals`, `startsWith`, ...; the worker seeds no numbers yet,
    /// see docs/protocol.md), which Rojas, Fraser and Arcuri's "Seeding strategies in search-based unit
    /// test generation" calls dynamic seeding. Bounded like the observed pool. Kept apart from
    /// it (EvoSuite has one dynamic pool) because the getters of every object would otherwise
    /// push a compared key out of a 50-value pool before a test draws it.
    pub compared: ConstantPool,
    /// Literals of the project's existing (hand-written) tests of the class: the documents,
    /// records and keys a parser or a map needs, which random strings almost never form.
    /// Campos, Arcuri, Fraser and Abreu's "Continuous Test Generation" section 3.2 seeds the
    /// search from earlier knowledge of the project; this seeds it from the developer's tests.
    /// Drawn with [`crate::Config::test_constant_share`] of the static draws.
    pub tests: ConstantPool,
}

impl ValuePools {
    pub fn new(constants: ConstantPool) -> ValuePools {
        ValuePools {
            constants,
            observed: ConstantPool::bounded(OBSERVED_POOL_CAPACITY),
            compared: ConstantPool::bounded(OBSERVED_POOL_CAPACITY),
            tests: ConstantPool::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    #[test]
    fn candidates_respect_the_target_range() {
        let mut pool = ConstantPool::new();
        pool.add(PrimitiveValue::Long(300));
        pool.add(PrimitiveValue::Int(-5));
        pool.add(PrimitiveValue::Int(-5));
        pool.add(PrimitiveValue::Long(1 << 40));
        pool.add(PrimitiveValue::String("EUR".into()));
        pool.add(PrimitiveValue::Char('.'));
        assert_eq!(pool.len(), 5);
        let bytes = pool.candidates(LiteralKind::Primitive(PrimitiveKind::Byte));
        assert_eq!(
            bytes,
            vec![PrimitiveValue::Byte(-5), PrimitiveValue::Byte(46)]
        );
        let ints = pool.candidates(LiteralKind::Primitive(PrimitiveKind::Int));
        assert_eq!(
            ints,
            vec![
                PrimitiveValue::Int(300),
                PrimitiveValue::Int(-5),
                PrimitiveValue::Int(46)
            ]
        );
        let chars = pool.candidates(LiteralKind::Primitive(PrimitiveKind::Char));
        assert_eq!(
            chars,
            vec![PrimitiveValue::Char('.'), PrimitiveValue::Char('\u{12c}')]
        );
        assert_eq!(
            pool.candidates(LiteralKind::String),
            vec![PrimitiveValue::String("EUR".into())]
        );
        let mut rng = StdRng::seed_from_u64(1);
        assert_eq!(
            pool.pick(LiteralKind::Primitive(PrimitiveKind::Boolean), &mut rng),
            None
        );
    }

    #[test]
    fn first_of_keeps_the_first_values_of_each_kind() {
        let values = ["a", "b", "a", "c"]
            .map(|s| PrimitiveValue::String(s.into()))
            .into_iter()
            .chain([1, 2, 3].map(PrimitiveValue::Int))
            .chain([PrimitiveValue::Boolean(true)]);
        let pool = ConstantPool::first_of(values, 2);
        assert_eq!(
            pool.candidates(LiteralKind::String),
            vec![
                PrimitiveValue::String("a".into()),
                PrimitiveValue::String("b".into())
            ]
        );
        assert_eq!(
            pool.candidates(LiteralKind::Primitive(PrimitiveKind::Int)),
            vec![PrimitiveValue::Int(1), PrimitiveValue::Int(2)]
        );
    }

    #[test]
    fn a_bounded_pool_keeps_the_most_recent_values() {
        let mut pool = ConstantPool::bounded(2);
        for v in 0..5 {
            pool.add(PrimitiveValue::Int(v));
        }
        pool.add(PrimitiveValue::Int(4));
        assert_eq!(
            pool.candidates(LiteralKind::Primitive(PrimitiveKind::Long)),
            vec![PrimitiveValue::Long(3), PrimitiveValue::Long(4)]
        );
        // An evicted value can come back.
        pool.add(PrimitiveValue::Int(0));
        assert_eq!(
            pool.candidates(LiteralKind::Primitive(PrimitiveKind::Long)),
            vec![PrimitiveValue::Long(4), PrimitiveValue::Long(0)]
        );
    }
}
