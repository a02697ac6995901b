//! Building statements into a test case (EvoSuite's `TestFactory`): calls with their receivers
//! and parameters obtained by reuse, `null` or recursive generation, and the three kinds of
//! insertion of Fraser and Arcuri, "Whole Test Suites" III-E2. Every function here either completes, leaving the test case
//! well typed, or fails and leaves it as it was.

use std::collections::BTreeMap;
use std::sync::Arc;

use rand::distributions::{Distribution, WeightedIndex};
use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use rand::Rng;

use crate::callable::{Callable, CallableKind};
use crate::cluster::{default_method_args, Cluster, Generator};
use crate::config::Config;
use crate::jdk;
use crate::random_value::new_value;
use crate::signature::{self, CallContext};
use crate::statement::{Nullness, Statement, TestCase, VarRef};
use crate::types::{unify, JavaType, PrimitiveKind};
use crate::validate::declarable;
use crate::value::LiteralKind;

/// Generation could not complete (recursion limit, no generator, length limit).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Failed;

pub(crate) type Gen<T> = Result<T, Failed>;

/// Tries per value before giving up on generators of a type.
const GENERATOR_ATTEMPTS: usize = 3;

/// Share of literals among the values of a general type such as `Object` (the rest: arrays and
/// other concrete types). Ours; high enough that containers keyed by `Object` mostly see
/// `Integer`s and `String`s, whose equal values collide.
const GENERAL_LITERAL_SHARE: f64 = 0.5;

/// How many component types [`common_component`] chooses from.
const COMMON_COMPONENTS: usize = 6;

/// The component types of arrays made for general parameters: the primitive arrays code most
/// often takes apart (`int[]`, `char[]`, `byte[]`), and `String[]`, `Integer[]`, `Object[]` for
/// the reference-array paths (`instanceof Object[]`).
fn common_component(i: usize) -> JavaType {
    match i {
        0 => JavaType::Primitive(PrimitiveKind::Int),
        1 => JavaType::Primitive(PrimitiveKind::Char),
        2 => JavaType::Primitive(PrimitiveKind::Byte),
        3 => JavaType::string(),
        4 => JavaType::class(PrimitiveKind::Int.boxed()),
        _ => JavaType::object(),
    }
}

/// Probability of building a fresh receiver when the only reusable ones may be null.
const FRESH_RECEIVER_OVER_MAYBE_NULL: f64 = 0.5;

/// At most this many chaining calls configure a receiver built for a generator call
/// ([`Config::configuring_call`]).
pub const MAX_CONFIGURING_CALLS: usize = 3;

pub(crate) struct Factory<'a> {
    pub cluster: &'a Cluster,
    pub config: &'a Config,
    pub rng: &'a mut StdRng,
}

impl Factory<'_> {
    /// Runs `f` on `tc`; on failure, or when the result exceeds the length limit, restores
    /// `tc`. Returns whether `f` took effect.
    pub fn attempt(
        &mut self,
        tc: &mut TestCase,
        f: impl FnOnce(&mut Self, &mut TestCase) -> Gen<()>,
    ) -> bool {
        let snapshot = tc.clone();
        match f(self, tc) {
            Ok(()) if tc.len() <= self.config.max_length => true,
            _ => {
                *tc = snapshot;
                false
            }
        }
    }

    /// Like [`Factory::attempt`] inside a generation that inserts at `*pos`.
    fn locally<T>(
        &mut self,
        tc: &mut TestCase,
        pos: &mut usize,
        f: impl FnOnce(&mut Self, &mut TestCase, &mut usize) -> Gen<T>,
    ) -> Gen<T> {
        let snapshot = tc.clone();
        let start = *pos;
        let r = f(self, tc, pos);
        if r.is_err() {
            *tc = snapshot;
            *pos = start;
        }
        r
    }

    fn insert_at(&mut self, tc: &mut TestCase, pos: &mut usize, s: Statement) -> Gen<VarRef> {
        if tc.len() >= self.config.max_length {
            return Err(Failed);
        }
        let v = tc.insert(*pos, s);
        *pos += 1;
        Ok(v)
    }

    // ------------------------------------------------------------------ insertion (III-E2)

    /// One insertion: when the class reads its environment, with
    /// [`crate::environment::ENVIRONMENT_INSERTION`] console input or a system property;
    /// else with probability 1/3 each, a call of a test target at a random position,
    /// a call on an existing object, or an existing value used as a parameter of a test target.
    /// The latter two fall back to the first when the test case has no fitting value.
    pub fn insert_random(&mut self, tc: &mut TestCase) -> bool {
        if !self.cluster.environment().is_empty()
            && self.rng.gen_bool(crate::environment::ENVIRONMENT_INSERTION)
        {
            if let Some(done) = self.insert_environment(tc) {
                return done;
            }
        }
        let kind = self.rng.gen_range(0..3);
        let done = match kind {
            1 => self.insert_call_on_object(tc),
            2 => self.insert_value_as_parameter(tc),
            _ => None,
        };
        match done {
            Some(ok) => ok,
            None => self.insert_target_call(tc),
        }
    }

    /// A call of a random test target at a random position.
    pub fn insert_target_call(&mut self, tc: &mut TestCase) -> bool {
        let targets = self.cluster.target_indexes();
        if targets.is_empty() {
            return false;
        }
        let callable = self
            .cluster
            .callable(targets[self.rng.gen_range(0..targets.len())])
            .clone();
        let mut pos = self.rng.gen_range(0..=tc.len());
        self.attempt(tc, |f, tc| {
            f.call(tc, &mut pos, &callable, None, None, 0).map(|_| ())
        })
    }

    /// A call of `callable` at a random position, with its receiver and arguments made as
    /// for any target call (class-integration tests insert a covering method this way).
    pub fn insert_call_of(&mut self, tc: &mut TestCase, callable: &Arc<Callable>) -> bool {
        let mut pos = self.rng.gen_range(0..=tc.len());
        self.attempt(tc, |f, tc| {
            f.call(tc, &mut pos, callable, None, None, 0).map(|_| ())
        })
    }

    /// A call on a random existing object, placed after it; `None` when no object has calls.
    pub fn insert_call_on_object(&mut self, tc: &mut TestCase) -> Option<bool> {
        let mut objects: Vec<usize> = (0..tc.len())
            .filter(|&i| {
                let s = &tc.statements()[i];
                s.nullness() != Nullness::Null
                    && s.value_type().is_some_and(|t| t.class_name().is_some())
            })
            .collect();
        objects.shuffle(self.rng);
        for k in objects {
            let ty = tc.statements()[k].value_type()?;
            let calls = self.cluster.calls_on(&ty);
            if calls.is_empty() {
                continue;
            }
            let callable = calls[self.rng.gen_range(0..calls.len())].clone();
            let mut pos = self.rng.gen_range(k + 1..=tc.len());
            return Some(self.attempt(tc, |f, tc| {
                f.call(tc, &mut pos, &callable, Some(VarRef(k)), None, 0)
                    .map(|_| ())
            }));
        }
        None
    }

    /// A call of a test target that takes a random existing value as one of its parameters,
    /// placed after it; `None` when no value fits any target parameter.
    pub fn insert_value_as_parameter(&mut self, tc: &mut TestCase) -> Option<bool> {
        let mut values: Vec<usize> = (0..tc.len())
            .filter(|&i| tc.statements()[i].defines_value())
            .collect();
        values.shuffle(self.rng);
        for k in values {
            let s = &tc.statements()[k];
            let ty = s.value_type()?;
            let nullness = s.nullness();
            let mut slots = Vec::new();
            for &t in self.cluster.target_indexes() {
                let callable = self.cluster.callable(t);
                let Some(sig) = self.cluster.default_signature(callable) else {
                    continue;
                };
                for (j, p) in sig.params.iter().enumerate() {
                    if self.fits(&ty, nullness, p) {
                        slots.push((t, j));
                    }
                }
            }
            if slots.is_empty() {
                continue;
            }
            let (t, j) = slots[self.rng.gen_range(0..slots.len())];
            let callable = self.cluster.callable(t).clone();
            let mut pos = self.rng.gen_range(k + 1..=tc.len());
            return Some(self.attempt(tc, |f, tc| {
                f.call(tc, &mut pos, &callable, None, Some((j, VarRef(k))), 0)
                    .map(|_| ())
            }));
        }
        None
    }

    /// A value of declared type `ty` and certainty `nullness` may be passed as `param`.
    pub fn fits(&self, ty: &JavaType, nullness: Nullness, param: &JavaType) -> bool {
        self.cluster.is_assignable(ty, param)
            && (!param.is_primitive() || nullness == Nullness::NonNull)
    }

    // ------------------------------------------------------------------ calls

    /// Inserts a call of `callable` at `*pos` with its receiver (given, reused or built) and
    /// its arguments (obtained; `fixed` pins one argument to an existing value).
    pub fn call(
        &mut self,
        tc: &mut TestCase,
        pos: &mut usize,
        callable: &Arc<Callable>,
        receiver: Option<VarRef>,
        fixed: Option<(usize, VarRef)>,
        depth: usize,
    ) -> Gen<VarRef> {
        let s = self.call_statement(tc, pos, callable, receiver, fixed, None, depth)?;
        self.insert_at(tc, pos, s)
    }

    /// The statement calling `callable`, after inserting what it needs at `*pos`. With `want`,
    /// type variables are bound so that the result fits `want` (or it fails).
    #[allow(clippy::too_many_arguments)]
    fn call_statement(
        &mut self,
        tc: &mut TestCase,
        pos: &mut usize,
        callable: &Arc<Callable>,
        receiver: Option<VarRef>,
        fixed: Option<(usize, VarRef)>,
        want: Option<&JavaType>,
        depth: usize,
    ) -> Gen<Statement> {
        let table = self.cluster.table();
        let mut receiver_var = None;
        let (sig, class_args, method_args) = if callable.is_constructor() {
            let instance = match want {
                Some(w) => self.instance_for(&callable.owner, w).ok_or(Failed)?,
                None => self.cluster.default_instance(&callable.owner),
            };
            let sig = self
                .cluster
                .signature(callable, CallContext::Constructor(&instance), &[])
                .ok_or(Failed)?;
            (sig, instance.type_args().to_vec(), Vec::new())
        } else {
            let method_args = match want {
                Some(w) => self.method_args_for(callable, w),
                None => default_method_args(self.cluster, callable),
            };
            let sig = if callable.needs_receiver() {
                let r = match receiver {
                    Some(r) => r,
                    None => {
                        let typed = want.and_then(|w| self.receiver_for(callable, w));
                        let before = *pos;
                        let r = self.obtain_receiver(tc, pos, &callable.owner, typed, depth)?;
                        // A receiver built here, for a call that produces a wanted value.
                        if want.is_some() && r.0 >= before {
                            self.configure(tc, pos, r, depth);
                        }
                        r
                    }
                };
                receiver_var = Some(r);
                let rt = tc.statement(r).value_type().ok_or(Failed)?;
                self.cluster
                    .signature(callable, CallContext::Receiver(&rt), &method_args)
            } else {
                self.cluster
                    .signature(callable, CallContext::Static, &method_args)
            }
            .ok_or(Failed)?;
            (sig, Vec::new(), method_args)
        };
        if let (Some(w), Some(r)) = (want, &sig.returns) {
            if !table.is_assignable(r, w) {
                return Err(Failed);
            }
        }
        let mut args = Vec::with_capacity(sig.params.len());
        for (j, p) in sig.params.iter().enumerate() {
            let v = match fixed {
                Some((k, v)) if k == j => {
                    let s = tc.statement(v);
                    let t = s.value_type().ok_or(Failed)?;
                    if !self.fits(&t, s.nullness(), p) {
                        return Err(Failed);
                    }
                    v
                }
                _ => self.obtain(tc, pos, p, false, depth + 1)?,
            };
            args.push(v);
        }
        Ok(match &callable.kind {
            CallableKind::Constructor => {
                let instance = JavaType::generic(&callable.owner, class_args.clone());
                Statement::Constructor {
                    callable: callable.clone(),
                    type_args: class_args,
                    args,
                    ty: instance,
                }
            }
            CallableKind::Method { .. } => Statement::Method {
                callable: callable.clone(),
                receiver: receiver_var,
                type_args: method_args,
                args,
                ty: sig.returns,
            },
            CallableKind::FieldRead { .. } => Statement::FieldRead {
                callable: callable.clone(),
                receiver: receiver_var,
                ty: sig.returns.ok_or(Failed)?,
            },
            CallableKind::FieldWrite { .. } => Statement::FieldWrite {
                callable: callable.clone(),
                receiver: receiver_var,
                value: *args.first().ok_or(Failed)?,
            },
        })
    }

    /// Calls chaining methods of `r`'s type (methods returning that type, a builder's setters)
    /// on `r`, each further one with [`Config::configuring_call`], at most
    /// [`MAX_CONFIGURING_CALLS`]: a builder whose `build()` is about to give a wanted object
    /// gets some of its settings first. Failed calls leave `tc` as it was.
    fn configure(&mut self, tc: &mut TestCase, pos: &mut usize, r: VarRef, depth: usize) {
        if self.config.configuring_call <= 0.0 {
            return;
        }
        let Some(rt) = tc.statement(r).value_type() else {
            return;
        };
        let Some(name) = rt.class_name() else {
            return;
        };
        let chaining: Vec<Arc<Callable>> = self
            .cluster
            .calls_on(&rt)
            .into_iter()
            .filter(|c| {
                matches!(c.kind, CallableKind::Method { .. })
                    && c.needs_receiver()
                    && c.erased_return
                        .as_ref()
                        .and_then(|t| t.class_name())
                        .is_some_and(|n| n == name)
            })
            .collect();
        if chaining.is_empty() {
            return;
        }
        for _ in 0..MAX_CONFIGURING_CALLS {
            if !self.rng.gen_bool(self.config.configuring_call) {
                break;
            }
            let c = chaining[self.rng.gen_range(0..chaining.len())].clone();
            let _ = self.locally(tc, pos, |f, tc, pos| {
                f.call(tc, pos, &c, Some(r), None, depth + 1)
            });
        }
    }

    /// An instance type of `class` that fits `want`: type arguments bound by seeing `class`
    /// as `want`'s class, the rest chosen from bounds.
    fn instance_for(&self, class: &str, want: &JavaType) -> Option<JavaType> {
        let table = self.cluster.table();
        let Some(info) = table.get(class) else {
            return Some(JavaType::class(class)).filter(|t| table.is_assignable(t, want));
        };
        let mut bindings = BTreeMap::new();
        if !info.type_params.is_empty() {
            let pattern = JavaType::generic(
                class,
                info.type_params
                    .iter()
                    .map(|p| JavaType::Var(p.name.clone()))
                    .collect(),
            );
            if let Some(w) = want.class_name() {
                if let Some(view) = table.view_as(&pattern, w) {
                    unify(&view, want, &mut bindings);
                }
            }
        }
        let args = signature::choose_type_args(table, &info.type_params, &mut bindings);
        let instance = JavaType::generic(class, args);
        table.is_assignable(&instance, want).then_some(instance)
    }

    /// Method type arguments that make `callable`'s declared result fit `want`, where the
    /// result mentions them; the others chosen from bounds.
    fn method_args_for(&self, callable: &Callable, want: &JavaType) -> Vec<JavaType> {
        let table = self.cluster.table();
        let mut bindings = BTreeMap::new();
        if let (Some(r), Some(w)) = (&callable.returns, want.class_name()) {
            if let Some(view) = table.view_as(r, w) {
                let mut all = BTreeMap::new();
                if unify(&view, want, &mut all) {
                    for p in &callable.type_params {
                        if let Some(t) = all.get(&p.name).filter(|t| t.is_ground()) {
                            bindings.insert(p.name.clone(), t.clone());
                        }
                    }
                }
            }
        }
        signature::choose_type_args(table, &callable.type_params, &mut bindings)
    }

    /// The receiver type that makes `callable`'s result fit `want`: the owner's type variables
    /// the result mentions, bound by `want` (an `ArrayList<String>` for an `Iterator<String>`
    /// from `iterator()`), the others chosen from bounds. `None` when the owner is not generic
    /// or `want` binds none of them: any receiver of the owner will do.
    fn receiver_for(&self, callable: &Callable, want: &JavaType) -> Option<JavaType> {
        let table = self.cluster.table();
        let info = table.get(&callable.owner)?;
        if info.type_params.is_empty() {
            return None;
        }
        let view = table.view_as(callable.returns.as_ref()?, want.class_name()?)?;
        let mut all = BTreeMap::new();
        if !unify(&view, want, &mut all) {
            return None;
        }
        let mut bindings: BTreeMap<String, JavaType> = info
            .type_params
            .iter()
            .filter_map(|p| {
                let bound = all.get(&p.name).filter(|t| t.is_ground())?;
                Some((p.name.clone(), bound.clone()))
            })
            .collect();
        if bindings.is_empty() {
            return None;
        }
        let args = signature::choose_type_args(table, &info.type_params, &mut bindings);
        Some(JavaType::generic(&callable.owner, args))
    }

    // ------------------------------------------------------------------ values

    /// A receiver for a member of `owner`: an existing object when there is one (as EvoSuite
    /// does; objects certain to be non-null first), else a new one. With `typed`, the receiver
    /// must be of that instance of `owner` (see [`Self::receiver_for`]).
    fn obtain_receiver(
        &mut self,
        tc: &mut TestCase,
        pos: &mut usize,
        owner: &str,
        typed: Option<JavaType>,
        depth: usize,
    ) -> Gen<VarRef> {
        let table = self.cluster.table();
        let candidates: Vec<(usize, Nullness)> = (0..*pos)
            .filter_map(|i| {
                let s = &tc.statements()[i];
                let t = s.value_type()?;
                let fits = match &typed {
                    Some(typed) => table.is_assignable(&t, typed),
                    None => table.view_as(&t, owner).is_some(),
                };
                (s.nullness() != Nullness::Null && fits).then_some((i, s.nullness()))
            })
            .collect();
        let non_null: Vec<usize> = candidates
            .iter()
            .filter(|(_, n)| *n == Nullness::NonNull)
            .map(|(i, _)| *i)
            .collect();
        if !non_null.is_empty() {
            return Ok(VarRef(non_null[self.rng.gen_range(0..non_null.len())]));
        }
        if !candidates.is_empty() && !self.rng.gen_bool(FRESH_RECEIVER_OVER_MAYBE_NULL) {
            return Ok(VarRef(
                candidates[self.rng.gen_range(0..candidates.len())].0,
            ));
        }
        let want = typed.unwrap_or_else(|| self.cluster.default_instance(owner));
        match self.generate(tc, pos, &want, depth + 1) {
            Ok(v) => Ok(v),
            Err(Failed) if !candidates.is_empty() => Ok(VarRef(
                candidates[self.rng.gen_range(0..candidates.len())].0,
            )),
            Err(Failed) => Err(Failed),
        }
    }

    /// A value for a parameter of type `want` before `*pos`: an existing value (with the reuse
    /// probability), `null` (with the null probability, reference types only), or a new one.
    /// With `fresh`, existing values are not reused unless nothing else works.
    pub fn obtain(
        &mut self,
        tc: &mut TestCase,
        pos: &mut usize,
        want: &JavaType,
        fresh: bool,
        depth: usize,
    ) -> Gen<VarRef> {
        if depth > self.config.max_recursion {
            return Err(Failed);
        }
        let candidates: Vec<usize> = (0..*pos)
            .filter(|&i| {
                let s = &tc.statements()[i];
                s.value_type()
                    .is_some_and(|t| self.fits(&t, s.nullness(), want))
            })
            .collect();
        let reuse = if LiteralKind::for_type(want).is_some() {
            self.config.primitive_reuse
        } else {
            self.config.object_reuse
        };
        if !fresh && !candidates.is_empty() && self.rng.gen_bool(reuse) {
            return Ok(VarRef(candidates[self.rng.gen_range(0..candidates.len())]));
        }
        let nullable = !want.is_primitive();
        if nullable && self.rng.gen_bool(self.config.null_probability) {
            return self.insert_at(tc, pos, Statement::Null(want.clone()));
        }
        match self.generate(tc, pos, want, depth) {
            Ok(v) => Ok(v),
            // EvoSuite passes null when no object can be built for a parameter.
            Err(Failed) if nullable => self.insert_at(tc, pos, Statement::Null(want.clone())),
            Err(Failed) if !candidates.is_empty() => {
                Ok(VarRef(candidates[self.rng.gen_range(0..candidates.len())]))
            }
            Err(Failed) => Err(Failed),
        }
    }

    /// A new value assignable to `want`, built at `*pos`.
    pub fn generate(
        &mut self,
        tc: &mut TestCase,
        pos: &mut usize,
        want: &JavaType,
        depth: usize,
    ) -> Gen<VarRef> {
        if depth > self.config.max_recursion {
            return Err(Failed);
        }
        self.locally(tc, pos, |f, tc, pos| f.generate_inner(tc, pos, want, depth))
    }

    fn generate_inner(
        &mut self,
        tc: &mut TestCase,
        pos: &mut usize,
        want: &JavaType,
        depth: usize,
    ) -> Gen<VarRef> {
        if let JavaType::Array(component) = want {
            return self.array(tc, pos, component, depth);
        }
        if let Some(file) = self.maybe_input_file(tc, pos, want) {
            return file;
        }
        if let Some(kind) = LiteralKind::for_type(want) {
            return self.literal(tc, pos, kind);
        }
        if want
            .class_name()
            .is_some_and(|n| jdk::TOO_GENERAL.contains(&n))
        {
            return self.general_value(tc, pos, want, depth);
        }
        if let Some(v) = self.seeded_object(tc, pos, want) {
            return Ok(v);
        }
        let s = self.generator_statement(tc, pos, want, None, depth)?;
        let is_container = matches!(
            &s,
            Statement::Constructor { callable, .. } if jdk::is_fillable_container(&callable.owner)
        );
        let v = self.insert_at(tc, pos, s)?;
        if is_container {
            self.fill_container(tc, pos, v, depth);
        }
        Ok(v)
    }

    /// With the seeded-object probability, and only when the seeded pool has objects of
    /// `want`'s class: one of them, its statements copied in at `*pos` (Campos et al.,
    /// "Continuous Test Generation", section 3.2). `None` leaves `tc` as it was.
    fn seeded_object(
        &mut self,
        tc: &mut TestCase,
        pos: &mut usize,
        want: &JavaType,
    ) -> Option<VarRef> {
        let pool = self.cluster.seeded_objects(want.class_name()?);
        if pool.is_empty() || !self.rng.gen_bool(self.config.seeded_object_probability) {
            return None;
        }
        let seeded = pool[self.rng.gen_range(0..pool.len())].clone();
        let start = *pos;
        let spliced = self.locally(tc, pos, |f, tc, pos| {
            for s in seeded.statements.statements() {
                let mut s = s.clone();
                s.for_each_ref_mut(|_, r| r.0 += start);
                f.insert_at(tc, pos, s)?;
            }
            Ok(VarRef(start + seeded.object.0))
        });
        spliced.ok()
    }

    fn literal(&mut self, tc: &mut TestCase, pos: &mut usize, kind: LiteralKind) -> Gen<VarRef> {
        let v = new_value(kind, self.cluster.pools(), self.config, self.rng);
        self.insert_at(tc, pos, Statement::Primitive(v))
    }

    /// A value of a type too general to have generators of its own (`Object`, `Serializable`,
    /// `CharSequence`, ...; [`jdk::TOO_GENERAL`]): with [`GENERAL_LITERAL_SHARE`] an `int` or a
    /// `String` that fits (Fraser and Arcuri, "Whole Test Suites" IV-A), else, in equal parts, an array of a common
    /// component type (when arrays fit: `Object`, `Cloneable`, `Serializable`) or a value of a
    /// concrete type the cluster can build. Options that do not apply are left out and the
    /// others keep their proportions.
    ///
    /// Deviation: Fraser and Arcuri, "Whole Test Suites" only gives `Object` `Integer`s (for containers). Code that takes an
    /// `Object` and inspects it at run time (`Array.getLength(o)`, `instanceof`, `equals` of
    /// another instance) cannot be covered by literals alone; EvoSuite's implementation also
    /// draws `Object` values from classes of its cluster (its `CastClassManager`).
    fn general_value(
        &mut self,
        tc: &mut TestCase,
        pos: &mut usize,
        want: &JavaType,
        depth: usize,
    ) -> Gen<VarRef> {
        let table = self.cluster.table();
        let literals: Vec<LiteralKind> = [
            LiteralKind::Primitive(PrimitiveKind::Int),
            LiteralKind::String,
        ]
        .into_iter()
        .filter(|k| table.is_assignable(&k.value_type(), want))
        .collect();
        let arrays = table.is_assignable(&JavaType::array_of(JavaType::object()), want);
        let concrete = self.cluster.concrete_types_for(want);
        let other_share = (1.0 - GENERAL_LITERAL_SHARE) / 2.0;
        let weights = [
            if literals.is_empty() {
                0.0
            } else {
                GENERAL_LITERAL_SHARE
            },
            if arrays { other_share } else { 0.0 },
            if concrete.is_empty() {
                0.0
            } else {
                other_share
            },
        ];
        // Zero weights are never chosen; all zero is an error.
        let choice = WeightedIndex::new(weights)
            .map_err(|_| Failed)?
            .sample(self.rng);
        match choice {
            0 => {
                let kind = literals[self.rng.gen_range(0..literals.len())];
                self.literal(tc, pos, kind)
            }
            1 => {
                let component = common_component(self.rng.gen_range(0..COMMON_COMPONENTS));
                self.array(tc, pos, &component, depth)
            }
            _ => {
                let ty = concrete[self.rng.gen_range(0..concrete.len())].clone();
                self.generate(tc, pos, &ty, depth + 1)
            }
        }
    }

    /// A statement producing a value assignable to `want` from one of its generators (not
    /// `exclude`), with its needs inserted at `*pos`.
    pub fn generator_statement(
        &mut self,
        tc: &mut TestCase,
        pos: &mut usize,
        want: &JavaType,
        exclude: Option<&Callable>,
        depth: usize,
    ) -> Gen<Statement> {
        let name = want.class_name().ok_or(Failed)?;
        let mut gens: Vec<Generator> = self
            .cluster
            .generators_for(name)
            .iter()
            .filter(|g| match (g, exclude) {
                (Generator::Callable(i), Some(e)) => **self.cluster.callable(*i) != *e,
                _ => true,
            })
            .cloned()
            .collect();
        gens.shuffle(self.rng);
        for g in gens.into_iter().take(GENERATOR_ATTEMPTS) {
            let r = self.locally(tc, pos, |f, tc, pos| match &g {
                Generator::EnumConstants(e) => {
                    let ty = JavaType::class(e);
                    let info = f.cluster.type_info(e).ok_or(Failed)?;
                    if !f.cluster.is_assignable(&ty, want) || info.enum_constants.is_empty() {
                        return Err(Failed);
                    }
                    let name =
                        info.enum_constants[f.rng.gen_range(0..info.enum_constants.len())].clone();
                    Ok(Statement::EnumConstant { ty, name })
                }
                Generator::Callable(i) => {
                    let callable = f.cluster.callable(*i).clone();
                    f.call_statement(tc, pos, &callable, None, None, Some(want), depth)
                }
            });
            if r.is_ok() {
                return r;
            }
        }
        Err(Failed)
    }

    /// `new component[n]` and a stored element for each index.
    fn array(
        &mut self,
        tc: &mut TestCase,
        pos: &mut usize,
        component: &JavaType,
        depth: usize,
    ) -> Gen<VarRef> {
        // Each element takes at least two statements; stay within the length limit.
        let room = self.config.max_length.saturating_sub(tc.len() + 1) / 2;
        let max = (self.config.max_array_length as usize).min(room) as u32;
        let length = self.rng.gen_range(0..=max);
        let array = self.insert_at(
            tc,
            pos,
            Statement::ArrayNew {
                component: component.clone(),
                length,
            },
        )?;
        for index in 0..length {
            let value = self.obtain(tc, pos, component, false, depth + 1)?;
            self.insert_at(
                tc,
                pos,
                Statement::ArrayStore {
                    array,
                    index,
                    value,
                },
            )?;
        }
        Ok(array)
    }

    /// A few `add`/`put` calls on a new container, so that it need not stay empty (Fraser and Arcuri, "Whole Test Suites"
    /// IV-A fills containers with `Integer`s; here with values of the element type).
    fn fill_container(
        &mut self,
        tc: &mut TestCase,
        pos: &mut usize,
        container: VarRef,
        depth: usize,
    ) {
        let Some(ty) = tc.statement(container).value_type() else {
            return;
        };
        let fills: Vec<Arc<Callable>> = self
            .cluster
            .calls_on(&ty)
            .into_iter()
            .filter(|c| c.owner == jdk::COLLECTION || c.owner == jdk::MAP)
            .collect();
        if fills.is_empty() {
            return;
        }
        let n = self.rng.gen_range(0..=self.config.max_container_elements);
        for _ in 0..n {
            let callable = fills[self.rng.gen_range(0..fills.len())].clone();
            let r = self.locally(tc, pos, |f, tc, pos| {
                f.call(tc, pos, &callable, Some(container), None, depth + 1)
            });
            if r.is_err() {
                break;
            }
        }
    }

    /// Whether a value produced as `produced` may be declared as `declared`.
    pub fn declarable(&self, produced: &JavaType, declared: &JavaType) -> bool {
        declarable(self.cluster, produced, declared)
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use rand::SeedableRng;

    use super::*;
    use crate::cluster::SeededObject;
    use crate::test_fixtures::{builder_cluster, general_cluster};
    use crate::validate::check_well_typed;

    /// The declared types of the values generated for `want` over many seeds (one value per
    /// seed, in a test case of its own), each test case checked to be well typed.
    fn generated_types(want: &JavaType) -> Vec<JavaType> {
        let c = general_cluster();
        let config = Config {
            null_probability: 0.0,
            ..Config::default()
        };
        (0..300)
            .filter_map(|seed| {
                let mut rng = StdRng::seed_from_u64(seed);
                let mut f = Factory {
                    cluster: &c,
                    config: &config,
                    rng: &mut rng,
                };
                let mut tc = TestCase::new();
                let mut pos = 0;
                let v = f.generate(&mut tc, &mut pos, want, 0).ok()?;
                assert_eq!(check_well_typed(&tc, &c), Ok(()), "{tc}");
                assert!(c.is_assignable(&tc.statement(v).value_type()?, want));
                tc.statement(v).value_type()
            })
            .collect()
    }

    /// A wanted object that only a builder's `build()` gives: the builder built for the call
    /// gets chaining setter calls first, with the configured probability, never with 0.
    #[test]
    fn builders_are_configured_before_they_build() {
        let c = builder_cluster();
        let settings = JavaType::class("k.Settings");
        let build = |config: &Config, seed: u64| {
            let mut rng = StdRng::seed_from_u64(seed);
            let mut f = Factory {
                cluster: &c,
                config,
                rng: &mut rng,
            };
            let mut tc = TestCase::new();
            let mut pos = 0;
            let v = f.generate(&mut tc, &mut pos, &settings, 0).unwrap();
            assert_eq!(check_well_typed(&tc, &c), Ok(()), "{tc}");
            (tc, v)
        };
        // The setter calls on the builder that come before its `build()`.
        let setters = |tc: &TestCase, v: VarRef| {
            let Statement::Method {
                callable,
                receiver: Some(builder),
                ..
            } = tc.statement(v)
            else {
                panic!("{tc}: not built by a call on a builder");
            };
            assert_eq!(callable.name(), "build", "{tc}");
            tc.statements()[..v.0]
                .iter()
                .filter(|s| {
                    matches!(s, Statement::Method { callable, receiver: Some(r), .. }
                        if *r == *builder && callable.name() != "build")
                })
                .count()
        };
        let config = Config {
            null_probability: 0.0,
            ..Config::default()
        };
        let configured: Vec<usize> = (0..40)
            .map(|seed| {
                let (tc, v) = build(&config, seed);
                setters(&tc, v)
            })
            .collect();
        assert!(configured.iter().all(|n| *n <= MAX_CONFIGURING_CALLS));
        // Each further call with probability 0.5: about half the builders get at least one.
        let with = configured.iter().filter(|n| **n > 0).count();
        assert!((10..=30).contains(&with), "{configured:?}");
        let off = Config {
            configuring_call: 0.0,
            ..config
        };
        assert!((0..40).all(|seed| {
            let (tc, v) = build(&off, seed);
            setters(&tc, v) == 0
        }));
    }

    /// Section 3.2 of Campos et al.'s "Continuous Test Generation": with probability 1 a
    /// wanted object of a seeded class is the seeded one, its statements copied in order and
    /// its references moved to where they land; with no seeded object of the class nothing
    /// changes (and no random number is drawn).
    #[test]
    fn seeded_objects_are_spliced_in() {
        let mut c = general_cluster();
        let holder = JavaType::class("g.Holder");
        let build = |c: &Cluster, config: &Config, seed: u64| {
            let mut rng = StdRng::seed_from_u64(seed);
            let mut f = Factory {
                cluster: c,
                config,
                rng: &mut rng,
            };
            let mut tc = TestCase::new();
            let mut pos = 0;
            f.generate(
                &mut tc,
                &mut pos,
                &JavaType::Primitive(PrimitiveKind::Int),
                0,
            )
            .unwrap();
            let v = f.generate(&mut tc, &mut pos, &holder, 0).ok()?;
            Some((tc, v))
        };
        let config = Config::default();
        let (seed_test, seed_var) = (0..50)
            .find_map(|seed| build(&c, &config, seed).filter(|(tc, _)| tc.len() > 2))
            .expect("some seed builds a Holder from parts");
        let unseeded: Vec<_> = (0..20).map(|seed| build(&c, &config, seed)).collect();
        assert!(c.add_seeded_object(SeededObject {
            statements: seed_test.clone(),
            object: seed_var,
        }));
        let always = Config {
            seeded_object_probability: 1.0,
            ..Config::default()
        };
        let (tc, v) = build(&c, &always, 7).unwrap();
        assert_eq!(check_well_typed(&tc, &c), Ok(()), "{tc}");
        // The seed's statements after the first one, each reference moved by that one.
        let moved_back: Vec<Statement> = tc.statements()[1..]
            .iter()
            .map(|s| {
                let mut s = s.clone();
                s.for_each_ref_mut(|_, r| r.0 -= 1);
                s
            })
            .collect();
        assert_eq!(moved_back, seed_test.statements(), "{tc}");
        assert_eq!(v.0, 1 + seed_var.0);
        // Another class wanted: the pool is not consulted.
        let mut other = general_cluster();
        assert!(!other.add_seeded_object(SeededObject {
            statements: TestCase::new(),
            object: VarRef(0),
        }));
        let same: Vec<_> = (0..20).map(|seed| build(&other, &config, seed)).collect();
        assert_eq!(same, unseeded);
    }

    #[test]
    fn object_values_are_literals_arrays_and_other_concrete_types() {
        let types = generated_types(&JavaType::object());
        let share = |p: &dyn Fn(&JavaType) -> bool| {
            types.iter().filter(|t| p(t)).count() as f64 / types.len() as f64
        };
        let literal = share(&|t| LiteralKind::for_type(t).is_some());
        let array = share(&|t| matches!(t, JavaType::Array(_)));
        let holder = share(&|t| t.is_class("g.Holder"));
        assert!((0.4..0.6).contains(&literal), "{literal}");
        assert!((0.15..0.35).contains(&array), "{array}");
        // The concrete types are `g.Holder` and the built-in containers and builders.
        assert!(holder > 0.0 && literal + array + holder < 1.0, "{holder}");
        let components: BTreeSet<String> = types
            .iter()
            .filter_map(|t| match t {
                JavaType::Array(c) => Some(c.to_string()),
                _ => None,
            })
            .collect();
        for c in ["int", "char", "java.lang.String", "java.lang.Object"] {
            assert!(components.contains(c), "{components:?}");
        }
    }

    #[test]
    fn cloneable_values_are_arrays_or_cloneable_classes_never_literals() {
        let types = generated_types(&JavaType::class("java.lang.Cloneable"));
        assert!(types.len() > 250, "{}", types.len());
        assert!(types.iter().any(|t| matches!(t, JavaType::Array(_))));
        assert!(types.iter().any(|t| t.is_class(jdk::ARRAY_LIST)));
        assert!(!types.iter().any(|t| LiteralKind::for_type(t).is_some()));
    }

    #[test]
    fn char_sequences_include_the_mutable_builders_but_no_arrays() {
        let types = generated_types(&JavaType::class("java.lang.CharSequence"));
        assert!(types.iter().any(|t| t.is_class(jdk::STRING_BUILDER)));
        assert!(types.iter().any(|t| t.is_class(jdk::STRING_BUFFER)));
        assert!(types.iter().any(|t| *t == JavaType::string()));
        assert!(!types.iter().any(|t| matches!(t, JavaType::Array(_))));
    }

    #[test]
    fn the_same_seed_gives_the_same_general_values() {
        let c = general_cluster();
        let config = Config::default();
        let run = |seed| {
            let mut rng = StdRng::seed_from_u64(seed);
            let mut f = Factory {
                cluster: &c,
                config: &config,
                rng: &mut rng,
            };
            let mut tc = TestCase::new();
            for _ in 0..5 {
                let mut pos = tc.len();
                let _ = f.generate(&mut tc, &mut pos, &JavaType::object(), 0);
            }
            tc
        };
        assert_eq!(run(4), run(4));
    }
}
