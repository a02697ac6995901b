//! The test-case representation (Fraser and Arcuri, "Whole Test Suites", section III-B): a sequence of statements, each
//! defining at most one typed variable; arguments, receivers and stored values refer to earlier
//! statements by index.
//!
//! Deviation: there is no separate assignment statement. EvoSuite's `AssignmentStatement`
//! writes a value into a field or an array slot, which [`Statement::FieldWrite`] and
//! [`Statement::ArrayStore`] do; a plain copy into a variable of a supertype is expressed by a
//! statement's declared type instead, and the worker has no statement that only copies.
//!
//! Invariant of every test case the operators produce: it is well typed against its cluster
//! (see [`crate::check_well_typed`]). Every statement carries its variable's declared type, so a
//! test case can be recombined and printed without the cluster.

use std::collections::BTreeSet;
use std::sync::Arc;

use crate::callable::Callable;
use crate::types::JavaType;
use crate::value::PrimitiveValue;

/// The variable defined by an earlier statement: its index in the test case.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct VarRef(pub usize);

impl VarRef {
    pub fn index(self) -> usize {
        self.0
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Statement {
    /// `int v = 5;`, `String v = "a";`
    Primitive(PrimitiveValue),
    /// `Foo v = null;` of a reference type.
    Null(JavaType),
    /// `Color v = Color.RED;`
    EnumConstant { ty: JavaType, name: String },
    /// `ty v = new Owner<type_args>(args);`
    Constructor {
        callable: Arc<Callable>,
        /// The owner's type arguments (empty when it is not generic).
        type_args: Vec<JavaType>,
        args: Vec<VarRef>,
        /// The variable's declared type: the constructed type or a supertype of it.
        ty: JavaType,
    },
    /// `ty v = receiver.method<type_args>(args);` or a static call (`receiver: None`).
    Method {
        callable: Arc<Callable>,
        receiver: Option<VarRef>,
        /// The method's own type arguments.
        type_args: Vec<JavaType>,
        args: Vec<VarRef>,
        /// `None` for a void method; else the result's type or a supertype of it.
        ty: Option<JavaType>,
    },
    /// `ty v = receiver.field;` or a static field.
    FieldRead {
        callable: Arc<Callable>,
        receiver: Option<VarRef>,
        ty: JavaType,
    },
    /// `receiver.field = value;` (defines no variable).
    FieldWrite {
        callable: Arc<Callable>,
        receiver: Option<VarRef>,
        value: VarRef,
    },
    /// `component[] v = new component[length];`
    ArrayNew { component: JavaType, length: u32 },
    /// `array[index] = value;` (defines no variable). `array` is an [`Statement::ArrayNew`]
    /// longer than `index`.
    ArrayStore {
        array: VarRef,
        index: u32,
        value: VarRef,
    },
    /// `System.setIn(new ByteArrayInputStream(<text's bytes>))` (defines no variable): the
    /// console input of the rest of the test (Arcuri et al., "Environment Dependencies",
    /// 3.3.1). The printed test puts the
    /// console back afterwards; `text` is ASCII ([`crate::environment::is_input_text`]).
    ConsoleInput { text: String },
    /// `System.setProperty(key, value)` (defines no variable); the printed test puts the
    /// system properties back afterwards.
    SystemProperty { key: String, value: String },
    /// The path of a file in the test's temporary directory, as `ty` (`String`, `java.io.File`
    /// or `java.nio.file.Path`): a file named `name` holding `content`, or no file at all when
    /// `content` is `None`.
    InputFile {
        name: String,
        content: Option<String>,
        ty: JavaType,
    },
}

/// How certain it is that a variable is not null, from its statement alone. Ordered from most
/// to least useful: a value may replace another of the same type when it is not less certain.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Nullness {
    /// Literals, constants, new objects and arrays, primitive results.
    NonNull,
    /// A reference returned by a method or read from a field.
    MaybeNull,
    /// The `null` literal.
    Null,
}

/// The role of a reference to an earlier variable.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Use {
    /// The object a method is called or a field is accessed on.
    Receiver,
    /// An argument, a value written to a field, or an element stored into an array.
    Value,
    /// The array of an [`Statement::ArrayStore`] at this index.
    ArrayTarget { index: u32 },
}

impl Statement {
    /// The declared type of the variable this statement defines; `None` when it defines none.
    pub fn value_type(&self) -> Option<JavaType> {
        match self {
            Statement::Primitive(v) => Some(v.value_type()),
            Statement::Null(t) => Some(t.clone()),
            Statement::EnumConstant { ty, .. } => Some(ty.clone()),
            Statement::Constructor { ty, .. } => Some(ty.clone()),
            Statement::Method { ty, .. } => ty.clone(),
            Statement::FieldRead { ty, .. } => Some(ty.clone()),
            Statement::FieldWrite { .. } | Statement::ArrayStore { .. } => None,
            Statement::ArrayNew { component, .. } => Some(JavaType::array_of(component.clone())),
            Statement::ConsoleInput { .. } | Statement::SystemProperty { .. } => None,
            Statement::InputFile { ty, .. } => Some(ty.clone()),
        }
    }

    pub fn defines_value(&self) -> bool {
        match self {
            Statement::Method { ty, .. } => ty.is_some(),
            Statement::FieldWrite { .. }
            | Statement::ArrayStore { .. }
            | Statement::ConsoleInput { .. }
            | Statement::SystemProperty { .. } => false,
            _ => true,
        }
    }

    pub fn nullness(&self) -> Nullness {
        match self {
            Statement::Null(_) => Nullness::Null,
            Statement::Method { ty: Some(t), .. } | Statement::FieldRead { ty: t, .. }
                if !t.is_primitive() =>
            {
                Nullness::MaybeNull
            }
            _ => Nullness::NonNull,
        }
    }

    pub fn callable(&self) -> Option<&Arc<Callable>> {
        match self {
            Statement::Constructor { callable, .. }
            | Statement::Method { callable, .. }
            | Statement::FieldRead { callable, .. }
            | Statement::FieldWrite { callable, .. } => Some(callable),
            _ => None,
        }
    }

    /// The references of this statement with their roles, receiver first.
    pub fn refs(&self) -> Vec<(Use, VarRef)> {
        let mut out = Vec::new();
        match self {
            Statement::Constructor { args, .. } => {
                out.extend(args.iter().map(|a| (Use::Value, *a)));
            }
            Statement::Method { receiver, args, .. } => {
                out.extend(receiver.iter().map(|r| (Use::Receiver, *r)));
                out.extend(args.iter().map(|a| (Use::Value, *a)));
            }
            Statement::FieldRead { receiver, .. } => {
                out.extend(receiver.iter().map(|r| (Use::Receiver, *r)));
            }
            Statement::FieldWrite {
                receiver, value, ..
            } => {
                out.extend(receiver.iter().map(|r| (Use::Receiver, *r)));
                out.push((Use::Value, *value));
            }
            Statement::ArrayStore {
                array,
                index,
                value,
            } => {
                out.push((Use::ArrayTarget { index: *index }, *array));
                out.push((Use::Value, *value));
            }
            Statement::Primitive(_)
            | Statement::Null(_)
            | Statement::EnumConstant { .. }
            | Statement::ArrayNew { .. }
            | Statement::ConsoleInput { .. }
            | Statement::SystemProperty { .. }
            | Statement::InputFile { .. } => {}
        }
        out
    }

    /// Visits the references mutably, in the order of [`Statement::refs`].
    pub fn for_each_ref_mut(&mut self, mut f: impl FnMut(Use, &mut VarRef)) {
        match self {
            Statement::Constructor { args, .. } => {
                args.iter_mut().for_each(|a| f(Use::Value, a));
            }
            Statement::Method { receiver, args, .. } => {
                if let Some(r) = receiver {
                    f(Use::Receiver, r);
                }
                args.iter_mut().for_each(|a| f(Use::Value, a));
            }
            Statement::FieldRead { receiver, .. } => {
                if let Some(r) = receiver {
                    f(Use::Receiver, r);
                }
            }
            Statement::FieldWrite {
                receiver, value, ..
            } => {
                if let Some(r) = receiver {
                    f(Use::Receiver, r);
                }
                f(Use::Value, value);
            }
            Statement::ArrayStore {
                array,
                index,
                value,
            } => {
                f(Use::ArrayTarget { index: *index }, array);
                f(Use::Value, value);
            }
            Statement::Primitive(_)
            | Statement::Null(_)
            | Statement::EnumConstant { .. }
            | Statement::ArrayNew { .. }
            | Statement::ConsoleInput { .. }
            | Statement::SystemProperty { .. }
            | Statement::InputFile { .. } => {}
        }
    }

    /// Whether this statement sets up the test's environment (console, system properties,
    /// files) rather than running code.
    pub fn is_environment(&self) -> bool {
        matches!(
            self,
            Statement::ConsoleInput { .. }
                | Statement::SystemProperty { .. }
                | Statement::InputFile { .. }
        )
    }

    /// Sets the declared type of a statement that has an explicit one.
    pub(crate) fn set_declared_type(&mut self, new: JavaType) {
        match self {
            Statement::Constructor { ty, .. } | Statement::FieldRead { ty, .. } => *ty = new,
            Statement::Method { ty: Some(t), .. } => *t = new,
            _ => {}
        }
    }
}

/// Whether `candidate` (a statement of the same test case) may take the place of `original`
/// in a reference with role `use_`, without the cluster: same declared type, not less certain
/// to be non-null, and for an array target an array long enough.
pub(crate) fn can_replace(original: &Statement, candidate: &Statement, use_: Use) -> bool {
    if !candidate.defines_value()
        || candidate.value_type() != original.value_type()
        || candidate.nullness() > original.nullness()
    {
        return false;
    }
    match use_ {
        Use::ArrayTarget { index } => {
            matches!(candidate, Statement::ArrayNew { length, .. } if index < *length)
        }
        Use::Receiver => candidate.nullness() != Nullness::Null,
        Use::Value => true,
    }
}

/// A test case: a sequence of statements (Fraser and Arcuri, "Whole Test Suites", section III-B).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TestCase {
    statements: Vec<Statement>,
}

impl TestCase {
    pub fn new() -> TestCase {
        TestCase::default()
    }

    /// A test case from statements as given; [`crate::check_well_typed`] says whether it is
    /// well typed.
    pub fn from_statements(statements: Vec<Statement>) -> TestCase {
        TestCase { statements }
    }

    /// The number of statements: the length in Fraser and Arcuri's "Whole Test Suites" sense.
    pub fn len(&self) -> usize {
        self.statements.len()
    }

    pub fn is_empty(&self) -> bool {
        self.statements.is_empty()
    }

    pub fn statements(&self) -> &[Statement] {
        &self.statements
    }

    pub fn statement(&self, var: VarRef) -> &Statement {
        &self.statements[var.0]
    }

    pub fn into_statements(self) -> Vec<Statement> {
        self.statements
    }

    pub(crate) fn statement_mut(&mut self, index: usize) -> &mut Statement {
        &mut self.statements[index]
    }

    pub(crate) fn push(&mut self, statement: Statement) -> VarRef {
        self.statements.push(statement);
        VarRef(self.statements.len() - 1)
    }

    /// Inserts `statement` at `pos`; references to `pos` and later move along.
    pub(crate) fn insert(&mut self, pos: usize, statement: Statement) -> VarRef {
        for s in &mut self.statements[pos..] {
            s.for_each_ref_mut(|_, r| {
                if r.0 >= pos {
                    r.0 += 1;
                }
            });
        }
        self.statements.insert(pos, statement);
        VarRef(pos)
    }

    pub(crate) fn replace(&mut self, index: usize, statement: Statement) {
        self.statements[index] = statement;
    }

    /// Removes the statements at `indices`. No remaining statement may refer to one of them;
    /// references to later statements are renumbered.
    pub(crate) fn remove_all(&mut self, indices: &BTreeSet<usize>) {
        if indices.is_empty() {
            return;
        }
        let mut new_index = Vec::with_capacity(self.statements.len());
        let mut next = 0;
        for i in 0..self.statements.len() {
            new_index.push(next);
            if !indices.contains(&i) {
                next += 1;
            }
        }
        let old = std::mem::take(&mut self.statements);
        for (i, mut s) in old.into_iter().enumerate() {
            if indices.contains(&i) {
                continue;
            }
            s.for_each_ref_mut(|_, r| {
                debug_assert!(!indices.contains(&r.0), "reference to a removed statement");
                r.0 = new_index[r.0];
            });
            self.statements.push(s);
        }
    }

    /// Keeps the first `len` statements (references only point backwards, so the rest stay
    /// valid).
    pub(crate) fn truncate(&mut self, len: usize) {
        self.statements.truncate(len);
    }
}
