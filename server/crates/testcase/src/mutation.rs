//! Mutation of a test case (Fraser and Arcuri, "Whole Test Suites" III-E2): remove, change and insert, each applied with
//! probability 1/3, in that order. Removal repairs the statements that used a removed value;
//! change alters primitive values by deltas and replaces calls or their parameters; insertion
//! adds statements with probabilities `σ'`, `σ'^2`, ...

use std::collections::BTreeSet;

use rand::Rng;

use crate::callable::CallableKind;
use crate::delta::mutate_value;
use crate::factory::{Factory, Failed, Gen};
use crate::signature::CallContext;
use crate::statement::{can_replace, Statement, TestCase, Use, VarRef};
use crate::types::{JavaType, PrimitiveKind};
use crate::value::LiteralKind;

/// Tries to give an emptied test case one statement (an insertion fails when the call it
/// drew cannot be built within the length limit).
const REFILL_ATTEMPTS: usize = 10;

impl Factory<'_> {
    /// Mutates `tc`; returns whether it changed. An emptied test case gets one insertion: in a
    /// suite the paper would drop it, a single-test-case search has nothing to drop it from.
    pub fn mutate(&mut self, tc: &mut TestCase) -> bool {
        let before = tc.clone();
        if self.rng.gen_bool(1.0 / 3.0) {
            self.mutate_remove(tc);
        }
        if self.rng.gen_bool(1.0 / 3.0) {
            self.mutate_change(tc);
        }
        if self.rng.gen_bool(1.0 / 3.0) {
            self.mutate_insert(tc);
        }
        for _ in 0..REFILL_ATTEMPTS {
            if !tc.is_empty() || self.insert_target_call(tc) {
                break;
            }
        }
        *tc != before
    }

    /// Each statement is removed with probability `1/n`, last to first (EvoSuite's order, so
    /// that repairs of later statements are settled before earlier removals).
    pub fn mutate_remove(&mut self, tc: &mut TestCase) -> bool {
        let n = tc.len();
        if n == 0 {
            return false;
        }
        let p = 1.0 / n as f64;
        let mut changed = false;
        for i in (0..n).rev() {
            if i < tc.len() && self.rng.gen_bool(p) {
                self.remove_with_repair(tc, i);
                changed = true;
            }
        }
        changed
    }

    /// Removes statement `i`. Every later reference to a removed value is redirected to
    /// another earlier value of the same declared type that is not less certain to be
    /// non-null; a statement with a reference that cannot be redirected is removed in turn.
    pub fn remove_with_repair(&mut self, tc: &mut TestCase, i: usize) {
        let mut removed = BTreeSet::from([i]);
        for j in i + 1..tc.len() {
            let refs = tc.statements()[j].refs();
            let mut replacement: Vec<Option<VarRef>> = Vec::with_capacity(refs.len());
            let mut dead = false;
            for (use_, r) in &refs {
                if !removed.contains(&r.0) {
                    replacement.push(None);
                    continue;
                }
                let original = &tc.statements()[r.0];
                let candidates: Vec<usize> = (0..j)
                    .filter(|k| {
                        !removed.contains(k) && can_replace(original, &tc.statements()[*k], *use_)
                    })
                    .collect();
                if candidates.is_empty() {
                    dead = true;
                    break;
                }
                replacement.push(Some(VarRef(
                    candidates[self.rng.gen_range(0..candidates.len())],
                )));
            }
            if dead {
                removed.insert(j);
                continue;
            }
            let mut k = 0;
            tc.statement_mut(j).for_each_ref_mut(|_, r| {
                if let Some(new) = replacement[k] {
                    *r = new;
                }
                k += 1;
            });
        }
        tc.remove_all(&removed);
    }

    /// Each statement is changed with probability `1/n`.
    pub fn mutate_change(&mut self, tc: &mut TestCase) -> bool {
        let n = tc.len();
        if n == 0 {
            return false;
        }
        let p = 1.0 / n as f64;
        let mut changed = false;
        let mut i = 0;
        while i < tc.len() {
            if self.rng.gen_bool(p) {
                let before = tc.len();
                changed |= self.change_statement(tc, i);
                // Statements inserted for the change come before the changed one.
                i += tc.len().saturating_sub(before);
            }
            i += 1;
        }
        changed
    }

    /// Changes statement `i`: a primitive value by a delta, an enum constant to another, an
    /// array's length; a call, with probability `change_parameter`, in one of its parameters,
    /// else replaced by another generator of its declared type (EvoSuite's order).
    pub fn change_statement(&mut self, tc: &mut TestCase, i: usize) -> bool {
        let s = tc.statements()[i].clone();
        match s {
            Statement::Primitive(mut v) => {
                let changed = mutate_value(&mut v, self.cluster.pools(), self.config, self.rng);
                tc.replace(i, Statement::Primitive(v));
                changed
            }
            Statement::EnumConstant { ty, name } => {
                let Some(info) = ty.class_name().and_then(|n| self.cluster.type_info(n)) else {
                    return false;
                };
                let others: Vec<&String> =
                    info.enum_constants.iter().filter(|c| **c != name).collect();
                if others.is_empty() {
                    return false;
                }
                let name = others[self.rng.gen_range(0..others.len())].clone();
                tc.replace(i, Statement::EnumConstant { ty, name });
                true
            }
            Statement::ArrayNew { component, length } => {
                let needed = tc.statements()[i + 1..]
                    .iter()
                    .filter_map(|s| match s {
                        Statement::ArrayStore { array, index, .. } if array.0 == i => {
                            Some(index + 1)
                        }
                        _ => None,
                    })
                    .max()
                    .unwrap_or(0);
                let max = self.config.max_array_length.max(needed);
                let new = self.rng.gen_range(needed..=max);
                tc.replace(
                    i,
                    Statement::ArrayNew {
                        component,
                        length: new,
                    },
                );
                new != length
            }
            Statement::Null(_) => self.replace_call(tc, i),
            Statement::ConsoleInput { .. }
            | Statement::SystemProperty { .. }
            | Statement::InputFile { .. } => self.change_environment(tc, i),
            Statement::ArrayStore { .. } | Statement::FieldWrite { .. } => {
                self.change_parameter(tc, i)
            }
            Statement::Constructor { .. }
            | Statement::Method { .. }
            | Statement::FieldRead { .. } => {
                if self.rng.gen_bool(self.config.change_parameter) || !s.defines_value() {
                    self.change_parameter(tc, i)
                } else {
                    self.replace_call(tc, i)
                }
            }
        }
    }

    /// Replaces the value of statement `i` by a new one of its declared type from another
    /// generator (the declared type stays, so every use stays well typed). A `null` may also
    /// become a literal or an enum constant of exactly its type.
    ///
    /// Deviation: Fraser and Arcuri, "Whole Test Suites" picks a call whose parameters are satisfiable with the existing
    /// values; like EvoSuite's implementation, parameters without a fitting value are built
    /// and inserted before the statement, so more calls qualify.
    fn replace_call(&mut self, tc: &mut TestCase, i: usize) -> bool {
        let old = tc.statements()[i].clone();
        let Some(declared) = old.value_type() else {
            return false;
        };
        if let (Statement::Null(_), JavaType::Array(component)) = (&old, &declared) {
            // A null array becomes an array of default elements; stores can be inserted later.
            let length = self.rng.gen_range(0..=self.config.max_array_length);
            tc.replace(
                i,
                Statement::ArrayNew {
                    component: (**component).clone(),
                    length,
                },
            );
            return true;
        }
        if declared.is_primitive() || matches!(declared, JavaType::Array(_)) {
            return false;
        }
        let exclude = old.callable().cloned();
        self.attempt(tc, |f, tc| {
            let mut pos = i;
            // The old statement moves along as needs are inserted before it.
            let new = f.replacement(tc, &mut pos, &old, &declared, exclude.as_deref())?;
            tc.replace(pos, new);
            Ok(())
        })
    }

    fn replacement(
        &mut self,
        tc: &mut TestCase,
        pos: &mut usize,
        old: &Statement,
        declared: &JavaType,
        exclude: Option<&crate::callable::Callable>,
    ) -> Gen<Statement> {
        if matches!(old, Statement::Null(_)) {
            if let Some(kind) = LiteralKind::for_type(declared) {
                let v = crate::random_value::new_value(
                    kind,
                    self.cluster.pools(),
                    self.config,
                    self.rng,
                );
                return Ok(Statement::Primitive(v));
            }
        }
        let mut new = self.generator_statement(tc, pos, declared, exclude, 0)?;
        match &new {
            Statement::EnumConstant { ty, .. } if ty == declared => {}
            Statement::Constructor { .. }
            | Statement::Method { .. }
            | Statement::FieldRead { .. } => {
                let produced = new.value_type().ok_or(Failed)?;
                if !self.declarable(&produced, declared) {
                    return Err(Failed);
                }
                new.set_declared_type(declared.clone());
            }
            _ => return Err(Failed),
        }
        // Uses that unbox the value rely on it being certain to be non-null.
        if new.nullness() > old.nullness() && self.unboxed_anywhere(tc, *pos) {
            return Err(Failed);
        }
        Ok(new)
    }

    /// Whether a later statement passes the value at `index` into a primitive parameter or
    /// stores it into a primitive array.
    fn unboxed_anywhere(&self, tc: &TestCase, index: usize) -> bool {
        let r = VarRef(index);
        let primitive = |t: &str| PrimitiveKind::from_name(t).is_some();
        tc.statements()[index + 1..].iter().any(|s| match s {
            Statement::ArrayStore { array, value, .. } => {
                *value == r
                    && matches!(
                        tc.statement(*array).value_type(),
                        Some(JavaType::Array(c)) if c.is_primitive()
                    )
            }
            Statement::Constructor { callable, args, .. }
            | Statement::Method { callable, args, .. } => args
                .iter()
                .zip(&callable.erased_params)
                .any(|(a, p)| *a == r && primitive(p)),
            Statement::FieldWrite {
                callable, value, ..
            } => *value == r && callable.erased_params.first().is_some_and(|p| primitive(p)),
            _ => false,
        })
    }

    /// Changes one reference of statement `i`: the receiver to another object of the same
    /// declared type, an argument (or stored value) to another fitting value, `null` or a new
    /// one, an array store's index.
    fn change_parameter(&mut self, tc: &mut TestCase, i: usize) -> bool {
        let s = tc.statements()[i].clone();
        let refs = s.refs();
        if refs.is_empty() {
            return false;
        }
        let slot = self.rng.gen_range(0..refs.len());
        let (use_, current) = refs[slot];
        match use_ {
            Use::Receiver => {
                let original = tc.statement(current).clone();
                let candidates: Vec<usize> = (0..i)
                    .filter(|&k| {
                        k != current.0 && can_replace(&original, &tc.statements()[k], Use::Receiver)
                    })
                    .collect();
                if candidates.is_empty() {
                    return false;
                }
                let new = VarRef(candidates[self.rng.gen_range(0..candidates.len())]);
                set_ref(tc, i, slot, new);
                true
            }
            Use::ArrayTarget { .. } => {
                let Statement::ArrayStore {
                    array,
                    index,
                    value,
                } = s
                else {
                    return false;
                };
                let Statement::ArrayNew { length, .. } = tc.statement(array) else {
                    return false;
                };
                let new_index = self.rng.gen_range(0..*length);
                tc.replace(
                    i,
                    Statement::ArrayStore {
                        array,
                        index: new_index,
                        value,
                    },
                );
                new_index != index
            }
            Use::Value => {
                let Some(expected) = self.expected_type(tc, &s, slot) else {
                    return false;
                };
                self.attempt(tc, |f, tc| {
                    let mut pos = i;
                    let fresh = f.rng.gen_bool(0.5);
                    let v = f.obtain(tc, &mut pos, &expected, fresh, 0)?;
                    // `pos` is where statement `i` is now.
                    set_ref(tc, pos, slot, v);
                    if tc.statements()[pos] == s && pos == i {
                        return Err(Failed);
                    }
                    Ok(())
                })
            }
        }
    }

    /// The type the reference in `slot` of `s` must fit.
    fn expected_type(&self, tc: &TestCase, s: &Statement, slot: usize) -> Option<JavaType> {
        match s {
            Statement::ArrayStore { array, .. } => match tc.statement(*array) {
                Statement::ArrayNew { component, .. } => Some(component.clone()),
                _ => None,
            },
            Statement::Constructor {
                callable,
                type_args,
                ..
            } => {
                let instance = JavaType::generic(&callable.owner, type_args.clone());
                let sig =
                    self.cluster
                        .signature(callable, CallContext::Constructor(&instance), &[])?;
                sig.params.get(slot).cloned()
            }
            Statement::Method {
                callable,
                receiver,
                type_args,
                ..
            } => {
                let sig = self.call_signature(tc, callable, *receiver, type_args)?;
                let offset = usize::from(receiver.is_some());
                sig.params.get(slot.checked_sub(offset)?).cloned()
            }
            Statement::FieldWrite {
                callable, receiver, ..
            } => {
                let sig = self.call_signature(tc, callable, *receiver, &[])?;
                sig.params.first().cloned()
            }
            _ => None,
        }
    }

    fn call_signature(
        &self,
        tc: &TestCase,
        callable: &crate::callable::Callable,
        receiver: Option<VarRef>,
        type_args: &[JavaType],
    ) -> Option<crate::signature::Signature> {
        match receiver {
            Some(r) => {
                let t = tc.statement(r).value_type()?;
                self.cluster
                    .signature(callable, CallContext::Receiver(&t), type_args)
            }
            None => {
                debug_assert!(!matches!(callable.kind, CallableKind::Constructor));
                self.cluster
                    .signature(callable, CallContext::Static, type_args)
            }
        }
    }

    /// Insertions while `rng < σ'^i` (`i` = 1, 2, ...) and the test case is shorter than `L`.
    pub fn mutate_insert(&mut self, tc: &mut TestCase) -> bool {
        let mut changed = false;
        let mut p = self.config.statement_insertion;
        while tc.len() < self.config.max_length && self.rng.gen_bool(p.clamp(0.0, 1.0)) {
            changed |= self.insert_random(tc);
            p *= self.config.statement_insertion;
        }
        changed
    }
}

/// Sets the `slot`-th reference (in [`Statement::refs`] order) of statement `i`.
fn set_ref(tc: &mut TestCase, i: usize, slot: usize, new: VarRef) {
    let mut k = 0;
    tc.statement_mut(i).for_each_ref_mut(|_, r| {
        if k == slot {
            *r = new;
        }
        k += 1;
    });
}

#[cfg(test)]
mod tests {
    use rand::rngs::StdRng;
    use rand::SeedableRng;

    use super::*;
    use crate::config::Config;
    use crate::test_fixtures::*;
    use crate::validate::check_well_typed;

    #[test]
    fn removal_redirects_uses_to_another_value_of_the_same_type() {
        let c = bank_cluster();
        let config = Config::default();
        let mut rng = StdRng::seed_from_u64(1);
        let mut f = Factory {
            cluster: &c,
            config: &config,
            rng: &mut rng,
        };
        let mut tc = TestCase::from_statements(vec![
            string("a"),
            long(5),
            new_account(&c, 0, 1),
            new_account(&c, 0, 1),
            deposit(&c, 2, 1),
        ]);
        f.remove_with_repair(&mut tc, 2);
        assert_eq!(
            tc,
            TestCase::from_statements(vec![
                string("a"),
                long(5),
                new_account(&c, 0, 1),
                deposit(&c, 2, 1),
            ])
        );
    }

    #[test]
    fn removal_removes_what_cannot_be_redirected_in_turn() {
        let c = bank_cluster();
        let config = Config::default();
        let mut rng = StdRng::seed_from_u64(1);
        let mut f = Factory {
            cluster: &c,
            config: &config,
            rng: &mut rng,
        };
        let mut tc = TestCase::from_statements(vec![
            string("a"),
            long(5),
            new_account(&c, 0, 1),
            string("b"),
            deposit(&c, 2, 1),
        ]);
        // The only long: the account and the deposit go too; "b" stays.
        f.remove_with_repair(&mut tc, 1);
        assert_eq!(
            tc,
            TestCase::from_statements(vec![string("a"), string("b")])
        );
        assert_eq!(check_well_typed(&tc, &c), Ok(()));
    }

    #[test]
    fn a_changed_call_keeps_its_declared_type_and_position_for_its_uses() {
        let c = bank_cluster();
        let config = Config {
            change_parameter: 0.0,
            ..Config::default()
        };
        let mut changed = 0;
        for seed in 0..20 {
            let mut rng = StdRng::seed_from_u64(seed);
            let mut f = Factory {
                cluster: &c,
                config: &config,
                rng: &mut rng,
            };
            let mut tc = TestCase::from_statements(vec![
                string("a"),
                long(5),
                new_account(&c, 0, 1),
                deposit(&c, 2, 1),
            ]);
            if f.change_statement(&mut tc, 2) {
                changed += 1;
                // The constructor was replaced by `bank.open(..)`, built before it.
                let last = tc.statements().last().unwrap();
                let Statement::Method { receiver, .. } = last else {
                    panic!("{tc}");
                };
                let account = tc.statement(receiver.unwrap());
                assert_eq!(account.value_type(), Some(JavaType::class("b.Account")));
                assert_eq!(account.callable().unwrap().name(), "open");
                assert_eq!(check_well_typed(&tc, &c), Ok(()));
            }
        }
        assert!(changed > 10, "{changed}");
    }
}
