//! Single-point crossover of two test cases (Fraser and Arcuri, "Whole Test Suites" IV-B, after Tonella): the offspring are
//! the first part of one parent followed by the second part of the other, cut at the same
//! relative position `α`. The appended statements' references are repaired one statement at a
//! time: a value from the other parent's unused prefix is replaced by an existing value of the
//! same type, else the statements that produced it are copied along.

use rand::rngs::StdRng;
use rand::Rng;

use crate::statement::{can_replace, Statement, TestCase, Use, VarRef};

/// The two offspring of `a` and `b`, each at most `max_length` long.
pub fn crossover(
    a: &TestCase,
    b: &TestCase,
    max_length: usize,
    rng: &mut StdRng,
) -> (TestCase, TestCase) {
    let alpha: f64 = rng.gen();
    let cut_a = ((alpha * a.len() as f64).floor() as usize).min(a.len());
    let cut_b = ((alpha * b.len() as f64).floor() as usize).min(b.len());
    let first = splice(a, cut_a, b, cut_b, max_length, rng);
    let second = splice(b, cut_b, a, cut_a, max_length, rng);
    (first, second)
}

/// `head[..cut_head]` followed by `tail[cut_tail..]`, repaired. Over-long offspring lose their
/// last statements: references only point backwards, so cutting the end keeps them valid.
fn splice(
    head: &TestCase,
    cut_head: usize,
    tail: &TestCase,
    cut_tail: usize,
    max_length: usize,
    rng: &mut StdRng,
) -> TestCase {
    let mut out = TestCase::from_statements(head.statements()[..cut_head].to_vec());
    let mut copied: Vec<Option<usize>> = vec![None; tail.len()];
    for j in cut_tail..tail.len() {
        append(&mut out, tail, cut_tail, j, &mut copied, rng);
        if out.len() >= max_length {
            break;
        }
    }
    out.truncate(max_length);
    out
}

/// Appends (a repaired copy of) `tail[j]` to `out`, first copying the producers of values it
/// needs from the unused prefix of `tail` when `out` has no replacement. Returns its index.
fn append(
    out: &mut TestCase,
    tail: &TestCase,
    cut_tail: usize,
    j: usize,
    copied: &mut Vec<Option<usize>>,
    rng: &mut StdRng,
) -> usize {
    if let Some(k) = copied[j] {
        return k;
    }
    let mut statement: Statement = tail.statements()[j].clone();
    let refs = statement.refs();
    let mut resolved = Vec::with_capacity(refs.len());
    for (use_, r) in refs {
        resolved.push(resolve(out, tail, cut_tail, r, use_, copied, rng));
    }
    let mut k = 0;
    statement.for_each_ref_mut(|_, r| {
        *r = VarRef(resolved[k]);
        k += 1;
    });
    let index = out.push(statement).index();
    copied[j] = Some(index);
    index
}

fn resolve(
    out: &mut TestCase,
    tail: &TestCase,
    cut_tail: usize,
    r: VarRef,
    use_: Use,
    copied: &mut Vec<Option<usize>>,
    rng: &mut StdRng,
) -> usize {
    if let Some(k) = copied[r.0] {
        return k;
    }
    if r.0 < cut_tail {
        let original = tail.statement(r);
        let candidates: Vec<usize> = (0..out.len())
            .filter(|&k| can_replace(original, &out.statements()[k], use_))
            .collect();
        if !candidates.is_empty() {
            return candidates[rng.gen_range(0..candidates.len())];
        }
    }
    // A producer from the unused prefix (suffix statements are appended in order, so their
    // copies already exist).
    append(out, tail, cut_tail, r.0, copied, rng)
}

#[cfg(test)]
mod tests {
    use rand::SeedableRng;

    use super::*;
    use crate::test_fixtures::*;
    use crate::validate::check_well_typed;

    #[test]
    fn appended_statements_reuse_values_of_the_same_type() {
        let c = bank_cluster();
        let head = TestCase::from_statements(vec![string("a"), long(1), new_account(&c, 0, 1)]);
        let tail = TestCase::from_statements(vec![
            string("b"),
            long(2),
            new_account(&c, 0, 1),
            deposit(&c, 2, 1),
        ]);
        let mut rng = StdRng::seed_from_u64(1);
        let child = splice(&head, 3, &tail, 3, 80, &mut rng);
        assert_eq!(
            child,
            TestCase::from_statements(vec![
                string("a"),
                long(1),
                new_account(&c, 0, 1),
                deposit(&c, 2, 1),
            ])
        );
    }

    #[test]
    fn producers_are_copied_when_no_value_fits() {
        let c = bank_cluster();
        let head = TestCase::from_statements(vec![string("a")]);
        let tail = TestCase::from_statements(vec![
            string("b"),
            long(2),
            new_account(&c, 0, 1),
            deposit(&c, 2, 1),
        ]);
        let mut rng = StdRng::seed_from_u64(1);
        let child = splice(&head, 1, &tail, 3, 80, &mut rng);
        // The account's producer comes along; its String argument is the head's.
        assert_eq!(
            child,
            TestCase::from_statements(vec![
                string("a"),
                long(2),
                new_account(&c, 0, 1),
                deposit(&c, 2, 1),
            ])
        );
        assert_eq!(check_well_typed(&child, &c), Ok(()));
        let short = splice(&head, 1, &tail, 3, 2, &mut rng);
        assert_eq!(short.len(), 2);
    }
}
