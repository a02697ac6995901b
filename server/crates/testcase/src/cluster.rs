//! The test cluster (Fraser and Arcuri, "Whole Test Suites", section III-B): the class under test's constructors, methods
//! and fields a test in its package can use (the test targets; `access` decides), and for
//! every type they need, the ways to obtain a
//! value of it (generators), built from reflection descriptions plus JDK built-ins. Types that
//! cannot be obtained are reported with a reason.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::sync::Arc;

use crate::callable::{Callable, CallableKind};
use crate::description::{MissingType, TypeDescription, TypeKind};
use crate::environment::EnvironmentInputs;
use crate::hierarchy::{TypeInfo, TypeTable};
use crate::jdk;
use crate::pool::{ConstantPool, ValuePools};
use crate::signature::{self, CallContext, Signature};
use crate::statement::{TestCase, VarRef};
use crate::types::{parse_type, parse_type_parameter, JavaType, PrimitiveKind, OBJECT};
use crate::value::{LiteralKind, PrimitiveValue};

/// A way to obtain a value of some type.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Generator {
    /// A constructor, a method returning the type, or a field of it (index into the cluster).
    Callable(usize),
    /// The constants of this enum.
    EnumConstants(String),
}

/// A type the cluster needs but cannot build.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Unreachable {
    pub type_name: String,
    pub reason: String,
}

/// A member of the class under test a test could use but cannot call, with the reason.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SkippedTarget {
    pub member: String,
    pub reason: String,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ClusterError {
    /// The class under test was not among the descriptions.
    NotDescribed { class: String, reason: String },
    /// No test target can be called: no constructor, no static member, and no way to obtain
    /// an instance.
    NothingInstantiable { class: String, reason: String },
}

impl fmt::Display for ClusterError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ClusterError::NotDescribed { class, reason } => {
                write!(f, "{class} could not be described ({reason})")
            }
            ClusterError::NothingInstantiable { class, reason } => {
                write!(f, "nothing instantiable in {class} ({reason})")
            }
        }
    }
}

impl std::error::Error for ClusterError {}

/// The test cluster of one class under test. Immutable except for the observed-value pool.
#[derive(Debug, Clone)]
pub struct Cluster {
    under_test: String,
    table: TypeTable,
    callables: Vec<Arc<Callable>>,
    index: BTreeMap<Arc<Callable>, usize>,
    /// Usable test targets (indexes into `callables`).
    targets: Vec<usize>,
    /// Calls on an object, by the raw name of the class they are listed under.
    modifiers: BTreeMap<String, Vec<usize>>,
    /// Generators by the raw name of a type they produce a value of (or of a subtype).
    generators: BTreeMap<String, Vec<Generator>>,
    /// Raw names of types some generator chain can build.
    constructible: BTreeSet<String>,
    /// The constructible classes, enums and records other than the literal-supplied and the
    /// too general ones, sorted: the concrete types a parameter of a general type (`Object`,
    /// `CharSequence`, ...) may get besides literals.
    concrete: Vec<String>,
    pools: ValuePools,
    /// What of its environment the class reads, so what tests may set up.
    environment: EnvironmentInputs,
    unreachable: Vec<Unreachable>,
    skipped_targets: Vec<SkippedTarget>,
    /// Objects built by other classes' tests, by the raw name of their type (Campos et al.,
    /// "Continuous Test Generation", section 3.2's seeded pool).
    seeded_objects: BTreeMap<String, Vec<Arc<SeededObject>>>,
}

/// An object built by a test of another class: the statements that build it and bring it
/// into the state that test left it in, and the variable holding it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SeededObject {
    pub statements: TestCase,
    pub object: VarRef,
}

impl Cluster {
    /// Builds the cluster of `under_test` from the descriptions of it and of the types its
    /// members mention (and their project subclasses), `missing` types reflection could not
    /// load, and the constants of its source.
    pub fn build(
        under_test: &str,
        types: &[TypeDescription],
        missing: &[MissingType],
        constants: ConstantPool,
    ) -> Result<Cluster, ClusterError> {
        Cluster::build_at(under_test, types, missing, constants, None)
    }

    /// [`Cluster::build`] for tests compiled at Java `release` (`None`: the worker's JDK's):
    /// the JDK built-ins the cluster adds itself are those of that release, as the described
    /// JDK members already are.
    pub fn build_at(
        under_test: &str,
        types: &[TypeDescription],
        missing: &[MissingType],
        constants: ConstantPool,
        release: Option<u32>,
    ) -> Result<Cluster, ClusterError> {
        // Members a test in the class's package cannot reach are neither targets nor generators.
        let visible = crate::access::visible_from(types, under_test);
        let types = visible.as_slice();
        let Some(cut) = types.iter().find(|t| t.name == under_test) else {
            let reason = missing
                .iter()
                .find(|m| m.name == under_test)
                .map(|m| m.reason.clone())
                .unwrap_or_else(|| "not among the described types".to_string());
            return Err(ClusterError::NotDescribed {
                class: under_test.to_string(),
                reason,
            });
        };

        let table = type_table(types, release);
        let mut cluster = Cluster {
            under_test: under_test.to_string(),
            table,
            callables: Vec::new(),
            index: BTreeMap::new(),
            targets: Vec::new(),
            modifiers: BTreeMap::new(),
            generators: BTreeMap::new(),
            constructible: BTreeSet::new(),
            concrete: Vec::new(),
            pools: ValuePools::new(constants),
            environment: EnvironmentInputs::default(),
            unreachable: Vec::new(),
            skipped_targets: Vec::new(),
            seeded_objects: BTreeMap::new(),
        };
        for c in jdk::builtin_generators_at(release) {
            let i = cluster.add_callable(c);
            cluster.index_generator(i);
        }
        for c in jdk::builtin_modifiers() {
            let i = cluster.add_callable(c);
            let owner = cluster.callables[i].owner.clone();
            cluster.modifiers.entry(owner).or_default().push(i);
        }
        for d in types {
            for c in callables_of(d, &cluster.table) {
                let i = cluster.add_callable(c);
                cluster.classify(i, d);
            }
        }
        for info in cluster.table.iter() {
            if info.kind == TypeKind::Enum && !info.enum_constants.is_empty() {
                let name = info.name.clone();
                for n in cluster.table.raw_supertypes(&name) {
                    if !jdk::TOO_GENERAL.contains(&n.as_str()) {
                        cluster
                            .generators
                            .entry(n)
                            .or_default()
                            .push(Generator::EnumConstants(name.clone()));
                    }
                }
            }
        }
        cluster.compute_constructible();
        cluster.concrete = cluster.concrete_types();

        let cut_kind = cut.kind;
        let cut_constructible = cluster.constructible.contains(under_test);
        let mut usable = Vec::new();
        let mut skipped = Vec::new();
        let mut unusable_instance = false;
        for (i, c) in cluster.callables.iter().enumerate() {
            if c.owner != under_test || !cluster.is_target(c, cut_kind) {
                continue;
            }
            if c.needs_receiver() && !cut_constructible {
                unusable_instance = true;
                continue;
            }
            if cluster.default_signature(c).is_none() {
                skipped.push(SkippedTarget {
                    member: c.to_string(),
                    reason: "its signature mentions type variables reflection did not resolve"
                        .to_string(),
                });
                continue;
            }
            usable.push(i);
        }
        if usable.is_empty() {
            let reason = if unusable_instance || cut_kind != TypeKind::Class {
                cluster.why_unreachable(under_test, missing)
            } else {
                "no constructor, method or field a test in its package can use".to_string()
            };
            return Err(ClusterError::NothingInstantiable {
                class: under_test.to_string(),
                reason,
            });
        }
        cluster.targets = usable;
        cluster.skipped_targets = skipped;

        let mut unreachable = BTreeSet::new();
        if unusable_instance {
            unreachable.insert(Unreachable {
                type_name: under_test.to_string(),
                reason: cluster.why_unreachable(under_test, missing),
            });
        }
        for &t in &cluster.targets {
            for p in &cluster.callables[t].erased_params {
                let Ok(ty) = parse_type(p, &|_| false) else {
                    continue;
                };
                if let Some(name) = ty.class_name() {
                    if !cluster.can_build(&ty) {
                        unreachable.insert(Unreachable {
                            type_name: name.to_string(),
                            reason: cluster.why_unreachable(name, missing),
                        });
                    }
                }
            }
        }
        cluster.unreachable = unreachable.into_iter().collect();
        Ok(cluster)
    }

    fn add_callable(&mut self, c: Callable) -> usize {
        let c = Arc::new(c);
        if let Some(&i) = self.index.get(&c) {
            return i;
        }
        let i = self.callables.len();
        self.index.insert(c.clone(), i);
        self.callables.push(c);
        i
    }

    /// Whether a test in the class under test's package can name the described type `class`.
    fn nameable(&self, class: &str) -> bool {
        self.table.get(class).is_some_and(|t| {
            t.access == crate::description::Access::Public
                || (t.access != crate::description::Access::Private
                    && crate::access::package_of(class)
                        == crate::access::package_of(&self.under_test))
        })
    }

    fn is_project(&self, class: &str) -> bool {
        self.table.get(class).is_some_and(|t| t.project)
    }

    /// A project class, or an undescribed one outside the JDK's packages (an interface the
    /// class under test implements is not described, and its default methods are under test).
    fn maybe_project(&self, class: &str) -> bool {
        match self.table.get(class) {
            Some(t) => t.project,
            None => !["java.", "javax.", "jdk.", "sun.", "com.sun."]
                .iter()
                .any(|p| class.starts_with(p)),
        }
    }

    /// Sorts a described callable into generators and calls on objects.
    fn classify(&mut self, i: usize, owner: &TypeDescription) {
        let c = self.callables[i].clone();
        let own_member = owner.project && (self.is_project(&c.declaring_class));
        if c.needs_receiver() && own_member {
            self.modifiers.entry(c.owner.clone()).or_default().push(i);
        }
        // `build` removed the members of types the test cannot name; a described JDK type the
        // test can name is as good a source of values as a project type.
        let accessible = crate::access::nameable_from(owner, &self.under_test);
        let generator = match &c.kind {
            CallableKind::Constructor => accessible && owner.kind.is_instantiable(),
            CallableKind::Method { is_static, .. } | CallableKind::FieldRead { is_static, .. } => {
                accessible && (*is_static || own_member)
            }
            CallableKind::FieldWrite { .. } => false,
        };
        if generator {
            self.index_generator(i);
        }
    }

    fn index_generator(&mut self, i: usize) {
        let c = &self.callables[i];
        let produced = if c.is_constructor() {
            JavaType::class(&c.owner)
        } else {
            match &c.erased_return {
                Some(t) => t.clone(),
                None => return,
            }
        };
        // Primitives, boxes and strings come from literals; arrays are built element-wise.
        let Some(name) = produced.class_name() else {
            return;
        };
        if LiteralKind::for_type(&produced).is_some() {
            return;
        }
        for n in self.table.raw_supertypes(name) {
            if !jdk::TOO_GENERAL.contains(&n.as_str()) {
                self.generators
                    .entry(n)
                    .or_default()
                    .push(Generator::Callable(i));
            }
        }
    }

    fn is_target(&self, c: &Callable, cut_kind: TypeKind) -> bool {
        match &c.kind {
            CallableKind::Constructor => cut_kind.is_instantiable(),
            // Inherited JDK methods (Enum.compareTo, ...) are not under test.
            CallableKind::Method { .. } => {
                c.declaring_class == self.under_test || self.maybe_project(&c.declaring_class)
            }
            CallableKind::FieldRead { .. } | CallableKind::FieldWrite { .. } => true,
        }
    }

    /// Fixpoint: a type can be built when a generator of it needs no receiver, or a receiver
    /// of a type that can be built. Reference arguments never block: `null` fits them.
    fn compute_constructible(&mut self) {
        loop {
            let mut changed = false;
            for (name, gens) in &self.generators {
                if self.constructible.contains(name) {
                    continue;
                }
                let ok = gens.iter().any(|g| match g {
                    Generator::EnumConstants(_) => true,
                    Generator::Callable(i) => {
                        let c = &self.callables[*i];
                        !c.needs_receiver() || self.constructible.contains(&c.owner)
                    }
                });
                if ok {
                    self.constructible.insert(name.clone());
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
    }

    /// The constructible types for [`Cluster::concrete_types_for`]. Interfaces and abstract
    /// classes are left out: their generators produce one of the concrete types listed anyway,
    /// and listing a type once keeps the choice among them even.
    fn concrete_types(&self) -> Vec<String> {
        self.constructible
            .iter()
            .filter(|name| {
                !jdk::TOO_GENERAL.contains(&name.as_str())
                    && !jdk::IN_MEMORY_IO_TYPES.contains(&name.as_str())
                    && PrimitiveKind::unboxed(name).is_none()
                    && name.as_str() != crate::types::STRING
                    && self.table.get(name).is_some_and(|t| {
                        matches!(t.kind, TypeKind::Class | TypeKind::Record | TypeKind::Enum)
                    })
            })
            .cloned()
            .collect()
    }

    /// Whether some value of `ty` other than `null` can be obtained.
    pub fn can_build(&self, ty: &JavaType) -> bool {
        match ty {
            JavaType::Primitive(_) | JavaType::Array(_) => true,
            JavaType::Class { name, .. } => {
                literal_supplied(&self.table, ty) || self.constructible.contains(name)
            }
            _ => false,
        }
    }

    fn why_unreachable(&self, name: &str, missing: &[MissingType]) -> String {
        if let Some(m) = missing.iter().find(|m| m.name == name) {
            return format!("{name} could not be loaded: {}", m.reason);
        }
        let Some(info) = self.table.get(name) else {
            return format!("{name} was not described");
        };
        if self.generators.get(name).is_some_and(|g| !g.is_empty()) {
            return format!(
                "{name} is only returned by instance members of types that cannot be built"
            );
        }
        match info.kind {
            TypeKind::Interface => {
                format!("{name} is an interface with no implementation in the project")
            }
            TypeKind::AbstractClass => {
                format!("{name} is an abstract class with no accessible subclass in the project")
            }
            TypeKind::Enum => format!("{name} is an enum without constants"),
            TypeKind::Annotation => format!("{name} is an annotation type"),
            TypeKind::Class | TypeKind::Record if !self.nameable(name) => format!(
                "{name} is not accessible from package {}",
                display_package(crate::access::package_of(&self.under_test))
            ),
            TypeKind::Class | TypeKind::Record => format!(
                "{name} has no accessible constructor, static factory or static field of its type"
            ),
        }
    }

    // ------------------------------------------------------------------ public queries

    pub fn under_test(&self) -> &str {
        &self.under_test
    }

    /// The callable test targets: the constructors, methods and fields of the class under test
    /// that a test in its package can use and that can be called (instance members only when an instance can be obtained).
    pub fn targets(&self) -> impl Iterator<Item = &Arc<Callable>> {
        self.targets.iter().map(|&i| &self.callables[i])
    }

    /// Whether the built-in JDK values (an `ArrayList`, `HashSet`, `HashMap`, `StringBuilder`,
    /// `StringBuffer`, `Optional` or one of the in-memory readers, writers and streams of
    /// [`jdk::BUILTIN_VALUE_TYPES`]) are values of `type_name` (a raw name), whatever the
    /// project offers.
    pub fn has_builtin_values(&self, type_name: &str) -> bool {
        jdk::BUILTIN_VALUE_TYPES
            .iter()
            // A built-in the tests' release lacks (`Optional` before 8) is not in the table.
            .filter(|b| self.table.contains(b))
            .any(|b| self.table.raw_supertypes(b).iter().any(|n| n == type_name))
    }

    /// Types the targets need that cannot be built (only `null` fits them), with reasons.
    pub fn unreachable(&self) -> &[Unreachable] {
        &self.unreachable
    }

    /// Usable members of the class under test left out of the targets, with reasons.
    pub fn skipped_targets(&self) -> &[SkippedTarget] {
        &self.skipped_targets
    }

    /// Records a value seen at run time, for the observed pool.
    pub fn add_observed(&mut self, value: PrimitiveValue) {
        self.pools.observed.add(value);
    }

    /// Records a value the code under test compared its data with at run time, for the
    /// compared pool (dynamic seeding).
    pub fn add_compared(&mut self, value: PrimitiveValue) {
        self.pools.compared.add(value);
    }

    /// Adds an object to the seeded pool; one that is not well typed against this cluster,
    /// or whose variable holds no object, is refused (`false`).
    pub fn add_seeded_object(&mut self, seeded: SeededObject) -> bool {
        let Some(ty) = seeded
            .statements
            .statements()
            .get(seeded.object.0)
            .and_then(|s| s.value_type())
        else {
            return false;
        };
        let Some(name) = ty.class_name().map(str::to_string) else {
            return false;
        };
        if crate::validate::check_well_typed(&seeded.statements, self).is_err() {
            return false;
        }
        self.seeded_objects
            .entry(name)
            .or_default()
            .push(Arc::new(seeded));
        true
    }

    /// The seeded objects of exactly the class `name` (raw name).
    pub fn seeded_objects(&self, name: &str) -> &[Arc<SeededObject>] {
        self.seeded_objects.get(name).map_or(&[], Vec::as_slice)
    }

    /// What of its environment the class reads (nothing until [`Cluster::set_environment`]).
    pub fn environment(&self) -> &EnvironmentInputs {
        &self.environment
    }

    /// Lets tests set up what `environment` names (console input, input files, properties).
    pub fn set_environment(&mut self, environment: EnvironmentInputs) {
        self.environment = environment;
    }

    /// Gives the search the literals of the project's existing tests of the class.
    pub fn set_test_constants(&mut self, constants: ConstantPool) {
        self.pools.tests = constants;
    }

    pub fn pools(&self) -> &ValuePools {
        &self.pools
    }

    pub fn type_info(&self, name: &str) -> Option<&TypeInfo> {
        self.table.get(name)
    }

    pub fn is_assignable(&self, from: &JavaType, to: &JavaType) -> bool {
        self.table.is_assignable(from, to)
    }

    /// Whether `callable` is one of this cluster's (by value).
    pub fn knows(&self, callable: &Callable) -> bool {
        self.index
            .get(callable)
            .is_some_and(|&i| *self.callables[i] == *callable)
    }

    /// `callable`'s parameter and result types at a call site.
    pub fn signature(
        &self,
        callable: &Callable,
        context: CallContext<'_>,
        method_args: &[JavaType],
    ) -> Option<Signature> {
        signature::resolve(&self.table, callable, context, method_args)
    }

    // ------------------------------------------------------------------ crate queries

    pub(crate) fn table(&self) -> &TypeTable {
        &self.table
    }

    pub(crate) fn callable(&self, i: usize) -> &Arc<Callable> {
        &self.callables[i]
    }

    pub(crate) fn target_indexes(&self) -> &[usize] {
        &self.targets
    }

    /// The concrete types the cluster can build whose default instance fits the general type
    /// `want` (see [`jdk::TOO_GENERAL`]), in a fixed order.
    pub(crate) fn concrete_types_for(&self, want: &JavaType) -> Vec<JavaType> {
        self.concrete
            .iter()
            .map(|name| self.default_instance(name))
            .filter(|t| self.table.is_assignable(t, want))
            .collect()
    }

    pub(crate) fn generators_for(&self, raw: &str) -> &[Generator] {
        self.generators.get(raw).map(Vec::as_slice).unwrap_or(&[])
    }

    /// The calls that can be made on an object of static type `ty`, most specific owner first,
    /// one per member.
    pub(crate) fn calls_on(&self, ty: &JavaType) -> Vec<Arc<Callable>> {
        let Some(name) = ty.class_name() else {
            return Vec::new();
        };
        let mut seen = BTreeSet::new();
        let mut out = Vec::new();
        for owner in self.table.raw_supertypes(name) {
            for &i in self.modifiers.get(&owner).map(Vec::as_slice).unwrap_or(&[]) {
                let c = &self.callables[i];
                let key = (c.kind.clone(), c.erased_params.clone());
                if seen.contains(&key) {
                    continue;
                }
                if self
                    .signature(c, CallContext::Receiver(ty), &default_method_args(self, c))
                    .is_some()
                {
                    seen.insert(key);
                    out.push(c.clone());
                }
            }
        }
        out
    }

    /// The signature of `callable` on a default instance of its owner, with default method
    /// type arguments.
    pub(crate) fn default_signature(&self, callable: &Callable) -> Option<Signature> {
        let method_args = default_method_args(self, callable);
        if callable.is_constructor() {
            let instance = self.default_instance(&callable.owner);
            self.signature(callable, CallContext::Constructor(&instance), &[])
        } else if callable.needs_receiver() {
            let receiver = self.default_instance(&callable.owner);
            self.signature(callable, CallContext::Receiver(&receiver), &method_args)
        } else {
            self.signature(callable, CallContext::Static, &method_args)
        }
    }

    /// `name` with type arguments chosen for its type parameters.
    pub(crate) fn default_instance(&self, name: &str) -> JavaType {
        match self.table.get(name) {
            Some(info) if !info.type_params.is_empty() => {
                let mut bindings = BTreeMap::new();
                let args =
                    signature::choose_type_args(&self.table, &info.type_params, &mut bindings);
                JavaType::generic(name, args)
            }
            _ => JavaType::class(name),
        }
    }
}

/// Type arguments for a method's own type parameters, chosen from their bounds.
pub(crate) fn default_method_args(cluster: &Cluster, c: &Callable) -> Vec<JavaType> {
    let mut bindings = BTreeMap::new();
    signature::choose_type_args(cluster.table(), &c.type_params, &mut bindings)
}

/// Types whose values come straight from literals: primitives, boxes, `String`, and the
/// general types an `Integer` or a `String` fits (`Object`, `Number`, `CharSequence`, ...).
pub(crate) fn literal_supplied(table: &TypeTable, ty: &JavaType) -> bool {
    LiteralKind::for_type(ty).is_some()
        || [JavaType::Primitive(PrimitiveKind::Int), JavaType::string()]
            .iter()
            .any(|l| table.is_assignable(l, ty))
}

/// Adds a described type to `table`, unless it is a built-in (see [`type_table`]).
pub(crate) fn add_type_info(table: &mut TypeTable, d: &TypeDescription) {
    if jdk::builtin_types().iter().any(|b| b.name == d.name) {
        return;
    }
    if let Some(info) = type_info(d) {
        table.insert(info);
    }
}

/// The hierarchy of the described types and the JDK built-ins.
pub(crate) fn type_table(types: &[TypeDescription], release: Option<u32>) -> TypeTable {
    let mut table = TypeTable::default();
    for d in types {
        if let Some(info) = type_info(d) {
            table.insert(info);
        }
    }
    // The built-ins override descriptions of the same JDK types, so that the hierarchy of the
    // containers the cluster builds does not depend on what reflection reported of them.
    for info in jdk::builtin_types_at(release) {
        table.insert(info);
    }
    table
}

fn type_info(d: &TypeDescription) -> Option<TypeInfo> {
    let own_vars: Vec<String> = d
        .type_parameters
        .iter()
        .map(|p| p.split(" extends ").next().unwrap_or(p).trim().to_string())
        .collect();
    let is_var = |n: &str| own_vars.iter().any(|v| v == n);
    let type_params = d
        .type_parameters
        .iter()
        .map(|p| parse_type_parameter(p, &is_var))
        .collect::<Result<Vec<_>, _>>()
        .ok()?;
    // A generic form that does not parse still gives the raw supertype.
    let supertype = |s: &String| {
        parse_type(s, &is_var)
            .or_else(|_| parse_type(s.split('<').next().unwrap_or(s), &|_| false))
            .ok()
    };
    let mut supertypes = Vec::new();
    if let Some(t) = d.superclass.as_ref().and_then(supertype) {
        if !t.is_class(OBJECT) {
            supertypes.push(t);
        }
    }
    supertypes.extend(d.interfaces.iter().filter_map(supertype));
    Some(TypeInfo {
        name: d.name.clone(),
        kind: d.kind,
        project: d.project,
        is_public: d.is_public,
        access: d.access,
        inner_class: d.inner_class,
        type_params,
        supertypes,
        enum_constants: d.enum_constants.clone(),
    })
}

/// The callables a description lists, skipping members whose types do not parse.
fn callables_of(d: &TypeDescription, table: &TypeTable) -> Vec<Callable> {
    if d.kind == TypeKind::Annotation {
        return Vec::new();
    }
    let class_vars = |class: &str| -> Option<Vec<String>> {
        table
            .get(class)
            .map(|t| t.type_params.iter().map(|p| p.name.clone()).collect())
    };
    let scope = |declaring: &str, method_vars: &[String]| {
        let known = class_vars(declaring);
        let method_vars: Vec<String> = method_vars
            .iter()
            .map(|p| p.split(" extends ").next().unwrap_or(p).trim().to_string())
            .collect();
        move |n: &str| {
            method_vars.iter().any(|v| v == n)
                || match &known {
                    Some(vars) => vars.iter().any(|v| v == n),
                    // An undescribed declaring class: a bare unknown name is a variable.
                    None => !n.contains('.') && !table.contains(n),
                }
        }
    };
    let mut out = Vec::new();
    for k in &d.constructors {
        let is_var = scope(&d.name, &k.type_parameters);
        if let Ok(c) = Callable::constructor(&d.name, k, &is_var) {
            out.push(c);
        }
    }
    for m in &d.methods {
        let is_var = scope(&m.declaring_class, &m.type_parameters);
        if let Ok(c) = Callable::method(&d.name, m, &is_var) {
            out.push(c);
        }
    }
    for f in &d.fields {
        let is_var = scope(&f.declaring_class, &[]);
        if let Ok(cs) = Callable::field(&d.name, f, &is_var) {
            out.extend(cs);
        }
    }
    out
}

/// A package for messages: `the unnamed package` for `""`.
fn display_package(package: &str) -> &str {
    if package.is_empty() {
        "the unnamed package"
    } else {
        package
    }
}
