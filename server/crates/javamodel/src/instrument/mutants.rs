//! Mutants as schemata (Untch, Offutt and Harrold, "Mutation Analysis Using Mutant Schemata"):
//! every mutant of a file is compiled into its one instrumented class, off, behind a test of
//! its id in `ctgls.rt.Mutants`, so that running a mutant costs an execution, not a compile.
//! Only when [`super::InstrumentOptions::mutants`] is set.
//!
//! The operators are the usual ones of PIT and of EvoSuite (Fraser and Arcuri, "Achieving
//! Scalable Mutation-based Generation of Whole Test Suites", section 3): relational operator
//! replacement and negated conditions at the probed atomic conditions, arithmetic operator
//! replacement on `int`/`long` operands the file types with certainty, constants changed by one
//! (and to 0) where they are operands of those, calls whose result a statement discards removed,
//! and returned values replaced. The rules that keep javac's decisions unchanged are in
//! docs/instrumentation.md, "Mutants".

use tree_sitter::Node;

use super::edits::Layer;
use super::table::SiteId;
use super::types::{JType, Rank, Typed};
use super::{Instrumenter, SiteBuild};
use crate::branches::ComparisonOp;
use crate::text::{named_children, text, unparenthesize};

/// The runtime class of mutant schemata (fully qualified: user code may declare `Mutants`).
pub(super) const MUTANTS: &str = "ctgls.rt.Mutants";

/// A mutation operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum MutationOperator {
    /// A comparison operator replaced by another (not its negation).
    RelationalOperator,
    /// An atomic condition negated.
    NegatedCondition,
    /// `+ - *` replaced by another of `+ - * / %`.
    ArithmeticOperator,
    /// An integer constant changed: `c+1`, `c-1`, `0`.
    Constant,
    /// A call statement removed (its result, if any, was discarded).
    RemovedCall,
    /// A returned value replaced: `false`/`true`, `0`/`1`, `""`/`null`, `null`.
    ReturnValue,
}

impl MutationOperator {
    /// The short name used in reports (`ror`, `neg`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            MutationOperator::RelationalOperator => "ror",
            MutationOperator::NegatedCondition => "neg",
            MutationOperator::ArithmeticOperator => "aor",
            MutationOperator::Constant => "constant",
            MutationOperator::RemovedCall => "removed-call",
            MutationOperator::ReturnValue => "return-value",
        }
    }
}

/// One mutant of the file: `ctgls.rt.Mutants` switches it on by its local id (its index in
/// [`super::ProbeTable::mutants`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MutantProbe {
    /// [`crate::Member::key`] of the member whose code is mutated, when inside one.
    pub member: Option<String>,
    /// 1-based line of the mutated code.
    pub line: u32,
    /// Byte offset in the original source where the mutated code starts: which control-flow
    /// node of the member evaluates it, and so what reaching it depends on (the weak-mutation
    /// goals of the search).
    pub offset: usize,
    pub operator: MutationOperator,
    /// What the mutant changes, for people: "`<` replaced by `<=`".
    pub description: String,
}

fn op_token(op: ComparisonOp) -> &'static str {
    match op {
        ComparisonOp::Eq => "==",
        ComparisonOp::Ne => "!=",
        ComparisonOp::Lt => "<",
        ComparisonOp::Le => "<=",
        ComparisonOp::Gt => ">",
        ComparisonOp::Ge => ">=",
    }
}

/// The four replacements of a comparison operator `Mutants.ror` picks from, in its order: the
/// operators but `op` and its negation, ascending by `Probe`'s code (EQ, NE, LT, LE, GT, GE).
fn ror_replacements(op: ComparisonOp) -> Vec<ComparisonOp> {
    let negation = match op {
        ComparisonOp::Eq => ComparisonOp::Ne,
        ComparisonOp::Ne => ComparisonOp::Eq,
        ComparisonOp::Lt => ComparisonOp::Ge,
        ComparisonOp::Le => ComparisonOp::Gt,
        ComparisonOp::Gt => ComparisonOp::Le,
        ComparisonOp::Ge => ComparisonOp::Lt,
    };
    [
        ComparisonOp::Eq,
        ComparisonOp::Ne,
        ComparisonOp::Lt,
        ComparisonOp::Le,
        ComparisonOp::Gt,
        ComparisonOp::Ge,
    ]
    .into_iter()
    .filter(|o| *o != op && *o != negation)
    .collect()
}

/// Arithmetic operators in `Mutants`' order (ADD, SUB, MUL, DIV, REM).
const ARITHMETIC: [(&str, &str); 5] = [
    ("+", "ADD"),
    ("-", "SUB"),
    ("*", "MUL"),
    ("/", "DIV"),
    ("%", "REM"),
];

/// An integer literal's value as javac reads it (`0xFFFFFFFF` is the `int` -1), for the
/// description of its constant mutants.
fn integer_value(literal: &str) -> Option<i128> {
    crate::literals::integer_literal(literal, false).map(|l| i128::from(l.value()))
}

impl<'s, 'm, 't> Instrumenter<'s, 'm, 't> {
    fn mutants_on(&self) -> bool {
        self.options.mutants
    }

    /// `Holder.M + first`: the global id of local mutant `first`.
    fn mutant_base(&self, first: u32) -> String {
        format!("{}.M + {first}", self.holder)
    }

    /// Adds mutants with consecutive local ids; returns the first.
    fn new_mutants(
        &mut self,
        node: Node<'_>,
        operator: MutationOperator,
        descriptions: Vec<String>,
    ) -> u32 {
        let first = self.table.mutants.len() as u32;
        let member = self.member_at(node).map(|(_, m)| m.key.clone());
        let line = Self::line_of(node);
        for description in descriptions {
            self.table.mutants.push(super::MutantProbe {
                member: member.clone(),
                line,
                offset: node.start_byte(),
                operator,
                description,
            });
        }
        first
    }

    /// A site of its own for a mutant whose code javac may reject (a removed call, a replaced
    /// return value, an arithmetic replacement): `None` when the compile loop dropped it. A
    /// dropped mutant is simply not there; it is no fallback of a probe.
    fn mutant_site(&mut self, node: Node<'_>) -> Option<usize> {
        let id = SiteId::Mutant(node.start_byte());
        if self.downgrade(&id).is_some() {
            return None;
        }
        let member = self.member_at(node).map(|(_, m)| m.key.clone());
        Some(self.add_site(SiteBuild {
            id,
            member,
            lines: Self::lines_of(node),
            form: "mutant",
            maybe_constant: false,
        }))
    }

    /// The negated-condition mutant of a probed atomic condition: the probe call (or, for a
    /// pattern `instanceof`, nothing: `neg(...)` would end the binding's scope) wrapped in
    /// `Mutants.neg(id, ...)`. Must be called before the probe's own edits, so that it opens
    /// outside them; it is part of the decision's site (it cannot fail where the probe compiles).
    pub(super) fn negation_mutant(&mut self, node: Node<'t>, site: usize) {
        if !self.mutants_on() {
            return;
        }
        let condition = crate::text::collapse_ws(text(self.src, node));
        let first = self.new_mutants(
            node,
            MutationOperator::NegatedCondition,
            vec![format!("`{condition}` negated")],
        );
        let len = node.end_byte() - node.start_byte();
        let open = format!("{MUTANTS}.neg({}, ", self.mutant_base(first));
        self.edits
            .open(node.start_byte(), len, Layer::Decision, open, Some(site));
        self.edits.close(
            node.end_byte(),
            len,
            Layer::Decision,
            ")".into(),
            Some(site),
        );
    }

    /// The operator argument of a numeric comparison probe: `Probe.LT`, or with mutants on
    /// `Mutants.ror(id, Probe.LT)`, whose four mutants replace it.
    pub(super) fn comparison_operator(
        &mut self,
        node: Node<'t>,
        op: ComparisonOp,
        numeric: bool,
        probe_op: String,
    ) -> String {
        if !self.mutants_on() || !numeric {
            return probe_op;
        }
        let from = op_token(op);
        let descriptions = ror_replacements(op)
            .into_iter()
            .map(|r| format!("`{from}` replaced by `{}`", op_token(r)))
            .collect();
        let first = self.new_mutants(node, MutationOperator::RelationalOperator, descriptions);
        format!("{MUTANTS}.ror({}, {probe_op})", self.mutant_base(first))
    }

    /// Constant mutants of the integer literal operands of `node` (a probed numeric comparison
    /// or an arithmetic mutant site, so never a constant expression): `Mutants.cstInt(id, n, c)`.
    pub(super) fn operand_constants(&mut self, node: Node<'t>, site: Option<usize>) {
        if !self.mutants_on() {
            return;
        }
        for side in ["left", "right"] {
            let Some(operand) = node.child_by_field_name(side) else {
                continue;
            };
            let operand = unparenthesize(operand);
            let literal = match operand.kind() {
                "decimal_integer_literal"
                | "hex_integer_literal"
                | "octal_integer_literal"
                | "binary_integer_literal" => operand,
                _ => continue,
            };
            let written = text(self.src, literal);
            let Some(value) = integer_value(written) else {
                continue;
            };
            let long = written.ends_with(['l', 'L']);
            let mut descriptions = vec![
                format!("`{written}` replaced by `{}`", value + 1),
                format!("`{written}` replaced by `{}`", value - 1),
            ];
            if !(-1..=1).contains(&value) {
                descriptions.push(format!("`{written}` replaced by `0`"));
            }
            let n = descriptions.len();
            let first = self.new_mutants(literal, MutationOperator::Constant, descriptions);
            let name = if long { "cstLong" } else { "cstInt" };
            let len = literal.end_byte() - literal.start_byte();
            let open = format!("{MUTANTS}.{name}({}, {n}, ", self.mutant_base(first));
            self.edits
                .open(literal.start_byte(), len, Layer::Alloc, open, site);
            self.edits
                .close(literal.end_byte(), len, Layer::Alloc, ")".into(), site);
        }
    }

    /// Arithmetic operator replacement of `a + b`, `a - b`, `a * b` whose operands the file
    /// types with certainty as `int`-like or `long` (so never a String concatenation) and which
    /// is not a constant expression: `Mutants.aorInt(id, Mutants.ADD, a, b)`. `/` and `%` are
    /// not mutated: done by the runtime, their ArithmeticException would be thrown in
    /// `ctgls.rt.Mutants`, not in the class under test, in the original run too.
    pub(super) fn arithmetic_mutant(&mut self, node: Node<'t>) {
        if !self.mutants_on() || self.member_at(node).is_none() {
            return;
        }
        let Some(operator) = node.child_by_field_name("operator") else {
            return;
        };
        let token = text(self.src, operator);
        let Some(code) = ARITHMETIC[..3].iter().position(|(t, _)| *t == token) else {
            return;
        };
        let (Some(left), Some(right)) = (
            node.child_by_field_name("left"),
            node.child_by_field_name("right"),
        ) else {
            return;
        };
        let integral = |t: Typed| {
            t.certain
                && matches!(t.ty, JType::Prim(_) | JType::Boxed(_))
                && matches!(t.rank(), Some(Rank::Int | Rank::Long))
        };
        let (l, r) = (self.res.type_of(left), self.res.type_of(right));
        if !integral(l) || !integral(r) {
            return;
        }
        if self.res.const_status(node) != super::types::Const::No {
            return;
        }
        let Some(site) = self.mutant_site(node) else {
            return;
        };
        let long = l.rank() == Some(Rank::Long) || r.rank() == Some(Rank::Long);
        let descriptions = (0..5)
            .filter(|k| *k != code)
            .map(|k| format!("`{token}` replaced by `{}`", ARITHMETIC[k].0))
            .collect();
        let first = self.new_mutants(node, MutationOperator::ArithmeticOperator, descriptions);
        let name = if long { "aorLong" } else { "aorInt" };
        let len = node.end_byte() - node.start_byte();
        let open = format!(
            "{MUTANTS}.{name}({}, {MUTANTS}.{}, ",
            self.mutant_base(first),
            ARITHMETIC[code].1
        );
        self.edits
            .open(node.start_byte(), len, Layer::Alloc, open, Some(site));
        self.edits
            .replace(self.src, operator.byte_range(), ",", Some(site));
        self.edits
            .close(node.end_byte(), len, Layer::Alloc, ")".into(), Some(site));
        self.operand_constants(node, Some(site));
    }

    /// A statement that is a method call, removed: `if (!Mutants.on(id)) call();`. The `if`
    /// can complete normally exactly when the call can, so reachability is unchanged; a call
    /// that assigns a variable later read (`f(x = 1);`) makes javac reject the site, which then
    /// falls back (drops the mutant).
    pub(super) fn removed_call_mutant(&mut self, statement: Node<'t>) {
        if !self.mutants_on() || self.member_at(statement).is_none() {
            return;
        }
        let Some(call) = named_children(statement).into_iter().next() else {
            return;
        };
        if call.kind() != "method_invocation" {
            return;
        }
        let Some(name) = call.child_by_field_name("name") else {
            return;
        };
        let Some(site) = self.mutant_site(statement) else {
            return;
        };
        let name = text(self.src, name).to_string();
        let first = self.new_mutants(
            statement,
            MutationOperator::RemovedCall,
            vec![format!("call to `{name}(…)` removed")],
        );
        let len = statement.end_byte() - statement.start_byte();
        let open = format!("if (!{MUTANTS}.on({})) ", self.mutant_base(first));
        self.edits
            .open(statement.start_byte(), len, Layer::Yield, open, Some(site));
    }

    /// The returned value of `return e;` in a method (not a lambda) replaced: `return
    /// Mutants.retInt(id, e);`. The helper is chosen by the declared return type; `byte`,
    /// `short` and `char` methods are left alone (an `int` result would not convert back).
    pub(super) fn return_mutant(&mut self, statement: Node<'t>) {
        if !self.mutants_on() {
            return;
        }
        let Some(value) = named_children(statement).into_iter().next() else {
            return;
        };
        if unparenthesize(value).kind() == "null_literal" {
            return;
        }
        // The nearest enclosing function must be a method declaration.
        let mut up = statement.parent();
        let method = loop {
            match up {
                Some(n) if n.kind() == "method_declaration" => break n,
                Some(n)
                    if matches!(
                        n.kind(),
                        "lambda_expression"
                            | "constructor_declaration"
                            | "compact_constructor_declaration"
                            | "class_body"
                    ) =>
                {
                    return
                }
                Some(n) => up = n.parent(),
                None => return,
            }
        };
        let Some(ty) = method.child_by_field_name("type") else {
            return;
        };
        if method.child_by_field_name("dimensions").is_some() {
            return;
        }
        let ty = crate::text::signature_type(self.src, ty);
        let (helper, description) = match ty.as_str() {
            "void" | "byte" | "short" | "char" => return,
            "boolean" => ("retBool", "returned value negated"),
            "int" | "long" | "float" | "double" => (
                match ty.as_str() {
                    "int" => "retInt",
                    "long" => "retLong",
                    "float" => "retFloat",
                    _ => "retDouble",
                },
                "returned value replaced by 0 (by 1 when it was 0)",
            ),
            "String" | "java.lang.String" => (
                "retString",
                "returned value replaced by \"\" (by null when it was empty)",
            ),
            _ => ("retRef", "returned value replaced by null"),
        };
        let Some(site) = self.mutant_site(value) else {
            return;
        };
        let first = self.new_mutants(
            value,
            MutationOperator::ReturnValue,
            vec![description.to_string()],
        );
        let len = value.end_byte() - value.start_byte();
        let open = format!("{MUTANTS}.{helper}({}, ", self.mutant_base(first));
        self.edits
            .open(value.start_byte(), len, Layer::Decision, open, Some(site));
        self.edits.close(
            value.end_byte(),
            len,
            Layer::Decision,
            ")".into(),
            Some(site),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ror_replacements_leave_out_the_operator_and_its_negation() {
        let r = ror_replacements(ComparisonOp::Lt);
        assert_eq!(
            r,
            vec![
                ComparisonOp::Eq,
                ComparisonOp::Ne,
                ComparisonOp::Le,
                ComparisonOp::Gt
            ]
        );
        assert_eq!(ror_replacements(ComparisonOp::Eq).len(), 4);
    }

    #[test]
    fn integer_literals_decode_in_every_radix() {
        assert_eq!(integer_value("42"), Some(42));
        assert_eq!(integer_value("0x1F"), Some(31));
        assert_eq!(integer_value("0b101"), Some(5));
        assert_eq!(integer_value("017"), Some(15));
        assert_eq!(integer_value("1_000L"), Some(1000));
        assert_eq!(integer_value("0"), Some(0));
    }
}
