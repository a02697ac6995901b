//! Branches, the goals of the search: decisions with outcomes, their stable keys, what
//! instrumentation needs to know about each condition, and the control dependencies between
//! goals.
//!
//! A *decision* is one point where execution chooses: an atomic condition (the operands of
//! `&&`, `||`, `!` and of a conditional expression used as a condition are decisions of their
//! own, as in bytecode), a switch, an enhanced-for's has-next test, a catch clause being
//! entered, or the entry of a branch-free method (Fraser and Arcuri, "Whole Test Suites", III-C). A *goal* is a decision
//! with one of its outcomes.

use std::fmt;

use crate::model::Span;

/// What a decision decides, named after the construct that owns the condition.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DecisionKind {
    If,
    While,
    DoWhile,
    /// The condition of a basic `for`; `for(;;)` has none.
    For,
    /// An enhanced `for`: `True` = another element, `False` = done.
    ForEach,
    /// A switch statement; one outcome per case label.
    Switch,
    /// A switch expression; one outcome per case label.
    SwitchExpression,
    /// The `when` guard of a pattern case label.
    SwitchGuard,
    /// The condition of a conditional expression `c ? a : b`.
    Ternary,
    /// A boolean computed as a value rather than for a jump: `return a < b;`,
    /// `boolean ok = x != null && y;`. javac compiles these to branches too. `instanceof` and
    /// boolean calls in value position are *not* decisions (no branch in bytecode) unless
    /// they are operands of `&&`, `||` or `!`.
    Value,
    /// A catch clause; its one outcome is "entered".
    Catch,
    /// The entry of a method or constructor whose own body has no other branch (catches do not
    /// count, as they are not branches in bytecode either).
    MethodEntry,
}

impl DecisionKind {
    pub fn as_str(self) -> &'static str {
        match self {
            DecisionKind::If => "if",
            DecisionKind::While => "while",
            DecisionKind::DoWhile => "do-while",
            DecisionKind::For => "for",
            DecisionKind::ForEach => "foreach",
            DecisionKind::Switch => "switch",
            DecisionKind::SwitchExpression => "switch-expr",
            DecisionKind::SwitchGuard => "guard",
            DecisionKind::Ternary => "ternary",
            DecisionKind::Value => "value",
            DecisionKind::Catch => "catch",
            DecisionKind::MethodEntry => "entry",
        }
    }
}

/// One outcome of a decision.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Outcome {
    True,
    False,
    /// The switch case label with this index in [`Decision::cases`].
    Case(u32),
    /// A catch clause or a method was entered.
    Entered,
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Outcome::True => f.write_str("T"),
            Outcome::False => f.write_str("F"),
            Outcome::Case(i) => write!(f, "C{i}"),
            Outcome::Entered => f.write_str("E"),
        }
    }
}

/// The short-circuit operator a decision is a direct operand of.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum LogicalOp {
    And,
    Or,
}

/// A goal `(decision, outcome)` inside one member, by ordinal.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct GoalRef {
    pub decision: u32,
    pub outcome: Outcome,
}

impl fmt::Display for GoalRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "B{}.{}", self.decision, self.outcome)
    }
}

/// What a goal (or a CFG node) is control dependent on. A goal is *covered-reachable* as soon
/// as one of its dependencies is covered (DynaMOSA activates it then); `Entry` means "the
/// member was entered", so a goal whose dependencies contain `Entry` is a root goal.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ControlDep {
    Entry,
    Goal(GoalRef),
}

impl fmt::Display for ControlDep {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ControlDep::Entry => f.write_str("entry"),
            ControlDep::Goal(goal) => goal.fmt(f),
        }
    }
}

/// An operand of a comparison, for branch-distance probes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Operand {
    pub span: Span,
    /// The tree-sitter node kind: `identifier`, `null_literal`, `decimal_integer_literal`,
    /// `method_invocation`, ...
    pub node_kind: &'static str,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ComparisonOp {
    Lt,
    Le,
    Gt,
    Ge,
    Eq,
    Ne,
}

impl ComparisonOp {
    pub(crate) fn from_token(token: &str) -> Option<ComparisonOp> {
        Some(match token {
            "<" => ComparisonOp::Lt,
            "<=" => ComparisonOp::Le,
            ">" => ComparisonOp::Gt,
            ">=" => ComparisonOp::Ge,
            "==" => ComparisonOp::Eq,
            "!=" => ComparisonOp::Ne,
            _ => return None,
        })
    }

    pub fn as_str(self) -> &'static str {
        match self {
            ComparisonOp::Lt => "<",
            ComparisonOp::Le => "<=",
            ComparisonOp::Gt => ">",
            ComparisonOp::Ge => ">=",
            ComparisonOp::Eq => "==",
            ComparisonOp::Ne => "!=",
        }
    }
}

/// The syntactic shape of a decision, as instrumentation needs it to pick a probe.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ConditionShape {
    /// `a < b`, `x == null`, ...
    Comparison {
        op: ComparisonOp,
        left: Operand,
        right: Operand,
    },
    /// `x instanceof T`, `x instanceof T t`, `x instanceof R(var a, var b)`.
    Instanceof {
        operand: Span,
        /// The tested type or record pattern, as written.
        pattern: String,
        /// The binding variable of a type pattern.
        binding: Option<String>,
        record_pattern: bool,
    },
    /// A boolean method call such as `s.equals(t)` or `isEmpty()`.
    Call {
        name: String,
        receiver: Option<Span>,
        arguments: Vec<Span>,
    },
    /// A boolean variable or field: `done`, `this.ready`, `a.b`.
    Variable,
    /// `true` or `false` literals (see [`Decision::constant`]).
    Literal,
    /// Any other boolean expression (`a & b`, `a ^ b`, array access, assignment, ...).
    Other {
        node_kind: &'static str,
    },
    /// The selector of a switch.
    Switch {
        selector: Span,
    },
    /// The iterated expression of an enhanced for.
    ForEach {
        iterable: Span,
    },
    /// The caught types of a catch clause, as written.
    Catch {
        types: Vec<String>,
        name: String,
    },
    MethodEntry,
}

impl ConditionShape {
    /// A short tag for dumps.
    pub fn tag(&self) -> String {
        match self {
            ConditionShape::Comparison { op, left, right } => {
                let null = |o: &Operand| o.node_kind == "null_literal";
                if (null(left) || null(right)) && matches!(op, ComparisonOp::Eq | ComparisonOp::Ne)
                {
                    format!("null{}", op.as_str())
                } else {
                    format!("cmp{}", op.as_str())
                }
            }
            ConditionShape::Instanceof {
                record_pattern,
                binding,
                ..
            } => {
                if *record_pattern {
                    "instanceof-record".to_string()
                } else if binding.is_some() {
                    "instanceof-pattern".to_string()
                } else {
                    "instanceof".to_string()
                }
            }
            ConditionShape::Call { name, .. } => format!("call:{name}"),
            ConditionShape::Variable => "var".to_string(),
            ConditionShape::Literal => "literal".to_string(),
            ConditionShape::Other { node_kind } => format!("other:{node_kind}"),
            ConditionShape::Switch { .. } => "selector".to_string(),
            ConditionShape::ForEach { .. } => "iterator".to_string(),
            ConditionShape::Catch { .. } => "handler".to_string(),
            ConditionShape::MethodEntry => "method".to_string(),
        }
    }
}

/// One case label of a switch, or its implicit default.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SwitchCase {
    /// The label as written (whitespace collapsed), `default` for the implicit default.
    pub label: String,
    /// `None` for the implicit default.
    pub span: Option<Span>,
    pub is_default: bool,
    /// Whether the label has a `when` guard (the guard's conditions are decisions of kind
    /// [`DecisionKind::SwitchGuard`]).
    pub guarded: bool,
}

/// Where a decision sits in its member's control-flow graphs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct CfgLocation {
    /// Index into [`crate::model::Body::cfgs`].
    pub cfg: u32,
    /// The node in that CFG whose out-edges are the outcomes (the entry node for
    /// [`DecisionKind::MethodEntry`]).
    pub node: u32,
}

/// A decision: the unit instrumentation probes and the search aims at.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Decision {
    /// Pre-order position within the member; with the member key, the stable id.
    pub ordinal: u32,
    /// Compact index among the instrumentable decisions of the declaring class, in member
    /// order; `None` for constant conditions. Not stable across edits of other members.
    pub class_index: Option<u32>,
    pub kind: DecisionKind,
    /// The `&&` / `||` this decision is a direct operand of.
    pub operand_of: Option<LogicalOp>,
    /// For atomic conditions the condition itself (parentheses and `!` stripped); for switches
    /// `switch (selector)`; for enhanced fors the header up to `)`; for catches `catch (...)`;
    /// for method entry the method name.
    pub span: Span,
    pub shape: ConditionShape,
    /// `Some(value)` when the condition is the literal `true` or `false` (after stripping
    /// parentheses and `!`). Such decisions have no outcomes and must not be instrumented:
    /// wrapping them would change Java's reachability analysis. Named constants
    /// (`static final boolean DEBUG`) are not recognised: that needs other members.
    pub constant: Option<bool>,
    /// The goals of this decision; empty for constants.
    pub outcomes: Vec<Outcome>,
    /// Switch case labels, indexed by [`Outcome::Case`]; empty for other decisions.
    pub cases: Vec<SwitchCase>,
    /// `None` for constant conditions, which are not in the CFG.
    pub location: Option<CfgLocation>,
    /// What every goal of this decision is control dependent on (all outcomes of a decision
    /// share its node's dependencies). Sorted. Empty only for unreachable decisions.
    pub control_deps: Vec<ControlDep>,
    /// Whether the decision's node is reachable from the member entry in the CFG.
    pub reachable: bool,
}

impl Decision {
    pub fn goals(&self) -> impl Iterator<Item = GoalRef> + '_ {
        self.outcomes.iter().map(move |&outcome| GoalRef {
            decision: self.ordinal,
            outcome,
        })
    }

    /// Whether the goals of this decision are active from the start (DynaMOSA's roots).
    pub fn is_root(&self) -> bool {
        self.control_deps.contains(&ControlDep::Entry)
    }

    /// How people name `outcome` of this decision: `true`, `false`, `case 3`, `default`,
    /// `catch`, `entry` (the editor's hover and the reports say it the same way).
    pub fn outcome_label(&self, outcome: Outcome) -> String {
        match outcome {
            Outcome::True => "true".into(),
            Outcome::False => "false".into(),
            Outcome::Case(index) => match self.cases.get(index as usize) {
                Some(case) if case.is_default => "default".into(),
                Some(case) => format!("case {}", case.label.trim_start_matches("case ")),
                None => format!("case #{index}"),
            },
            Outcome::Entered => match self.kind {
                DecisionKind::Catch => "catch".into(),
                _ => "entry".into(),
            },
        }
    }
}

/// The stable id of a decision: the member key and the decision's ordinal.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct DecisionKey {
    /// [`crate::model::Member::key`], e.g. `com.x.Account#withdraw(int)`.
    pub member: String,
    pub ordinal: u32,
}

impl fmt::Display for DecisionKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/B{}", self.member, self.ordinal)
    }
}

/// The stable id of a goal.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct GoalKey {
    pub decision: DecisionKey,
    pub outcome: Outcome,
}

impl fmt::Display for GoalKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}", self.decision, self.outcome)
    }
}
