//! What the probes of one instrumented file mean: the probe table the search maps traces
//! through, the sites the compile loop maps diagnostics to, and the record of every probe that
//! measures less than it could (a fallback).

use std::collections::HashMap;
use std::fmt;
use std::ops::Range;

use crate::branches::{DecisionKey, GoalKey, Outcome};

/// Which probe method a branch id is recorded by.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ProbeKind {
    CmpInt,
    CmpLong,
    CmpFloat,
    CmpDouble,
    CmpBool,
    CmpRef,
    IsNull,
    /// `instOf` (plain `instanceof`) or `instOfOperand` (a pattern `instanceof`).
    InstOf,
    StrEquals,
    /// One case constant of `switchInt`, or its "no constant matched" branch.
    SwitchInt,
    SwitchString,
    SwitchEnum,
    /// `branch(id, condition)`: outcome only, the other outcome at distance 1.
    Branch,
    /// `branch(id, true)` at the start of a switch arm or in a guard: the case was taken.
    CaseTaken,
    /// `branch(id, true)` at the start of an enhanced for's body, `forExit(id)` after it.
    ForEach,
    /// `branch(id, true)` at the start of a catch block.
    CatchEntered,
}

impl ProbeKind {
    /// Whether the distance to the other outcome is a measure (not just 1).
    pub fn measures_distance(self) -> bool {
        matches!(
            self,
            ProbeKind::CmpInt
                | ProbeKind::CmpLong
                | ProbeKind::CmpFloat
                | ProbeKind::CmpDouble
                | ProbeKind::StrEquals
                | ProbeKind::SwitchInt
                | ProbeKind::SwitchString
        )
    }

    pub fn as_str(self) -> &'static str {
        match self {
            ProbeKind::CmpInt => "cmpInt",
            ProbeKind::CmpLong => "cmpLong",
            ProbeKind::CmpFloat => "cmpFloat",
            ProbeKind::CmpDouble => "cmpDouble",
            ProbeKind::CmpBool => "cmpBool",
            ProbeKind::CmpRef => "cmpRef",
            ProbeKind::IsNull => "isNull",
            ProbeKind::InstOf => "instOf",
            ProbeKind::StrEquals => "strEquals",
            ProbeKind::SwitchInt => "switchInt",
            ProbeKind::SwitchString => "switchString",
            ProbeKind::SwitchEnum => "switchEnum",
            ProbeKind::Branch => "branch",
            ProbeKind::CaseTaken => "case",
            ProbeKind::ForEach => "forEach",
            ProbeKind::CatchEntered => "catch",
        }
    }
}

/// One branch id of the file.
///
/// The trace gives per id a minimal true-distance and false-distance (0 = taken). The goal
/// `(decision, on_true)` is at the true-distance and `(decision, on_false)` at the
/// false-distance, when present. A switch case constant's false side is no goal (other labels
/// are), and the "no constant matched" branch of a switch without a default label has none.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BranchProbe {
    pub decision: DecisionKey,
    /// Binary name of the class declaring the decision's member.
    pub class: String,
    /// [`crate::Decision::class_index`] at instrumentation time.
    pub class_index: Option<u32>,
    pub on_true: Option<Outcome>,
    pub on_false: Option<Outcome>,
    pub kind: ProbeKind,
    /// 1-based source line of the probed code.
    pub line: u32,
}

/// One method id: a method, constructor or compact constructor body with an `enter` probe, an
/// escape wrapper (`escaped(id, e)`), or both.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MethodProbe {
    /// [`crate::Member::key`].
    pub member: String,
    /// The member's method-entry decision (branch-free members only): its goal
    /// [`Outcome::Entered`] is covered when this method id has hits. `None` when the `enter`
    /// probe was dropped.
    pub entry_decision: Option<DecisionKey>,
    pub line: u32,
    /// The body reports its entries (`enter`).
    pub has_enter: bool,
    /// The body reports the exceptions that leave it (`escaped`).
    pub has_escape: bool,
}

/// One loop id: a `loop(id)` call at the start of a loop body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoopProbe {
    pub member: Option<String>,
    /// The loop's condition or has-next decision; `None` for `for (;;)` and constant conditions.
    pub decision: Option<DecisionKey>,
    /// 1-based line of the loop keyword.
    pub line: u32,
}

/// How one goal is read from a trace.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GoalProbe {
    /// The true-distance of a branch id.
    BranchTrue(u32),
    /// The false-distance of a branch id.
    BranchFalse(u32),
    /// Covered when the method id has hits (distance 1 otherwise).
    MethodEntered(u32),
}

/// The meaning of every probe id of one instrumented file (see "Probe API" in
/// docs/protocol.md). Ids are local: the runtime adds the file's base.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ProbeTable {
    /// The `register` key: `<path>#<hash of the instrumented text>`.
    pub key: String,
    /// The holder class (top level, same package) whose `B` is the file's base.
    pub holder: String,
    /// Indexed by local branch id.
    pub branches: Vec<BranchProbe>,
    /// Line ids are 1-based line numbers; `register` is told `line_count` (last line + 1).
    pub line_count: u32,
    /// Lines with at least one `line` probe, ascending.
    pub lines: Vec<u32>,
    /// Indexed by local method id.
    pub methods: Vec<MethodProbe>,
    /// Indexed by local loop id.
    pub loops: Vec<LoopProbe>,
    /// Indexed by local mutant id; empty unless instrumented with mutants
    /// ([`super::InstrumentOptions::mutants`]).
    pub mutants: Vec<super::MutantProbe>,
    pub(crate) by_decision: HashMap<DecisionKey, Vec<u32>>,
    pub(crate) method_by_member: HashMap<String, u32>,
}

impl ProbeTable {
    pub fn branch(&self, id: u32) -> Option<&BranchProbe> {
        self.branches.get(id as usize)
    }

    /// The branch ids probing `decision`, ascending.
    pub fn branches_of(&self, decision: &DecisionKey) -> &[u32] {
        self.by_decision.get(decision).map_or(&[], Vec::as_slice)
    }

    pub fn method(&self, id: u32) -> Option<&MethodProbe> {
        self.methods.get(id as usize)
    }

    /// The method id of a member key.
    pub fn method_of(&self, member: &str) -> Option<u32> {
        self.method_by_member.get(member).copied()
    }

    pub fn loop_probe(&self, id: u32) -> Option<&LoopProbe> {
        self.loops.get(id as usize)
    }

    pub fn has_line(&self, line: u32) -> bool {
        self.lines.binary_search(&line).is_ok()
    }

    /// Where the distance of `goal` is read: the minimum over the listed probes. Empty when the
    /// goal has no probe (see the file's fallbacks).
    pub fn goal_probes(&self, goal: &GoalKey) -> Vec<GoalProbe> {
        let mut out = Vec::new();
        for &id in self.branches_of(&goal.decision) {
            let probe = &self.branches[id as usize];
            if probe.on_true == Some(goal.outcome) {
                out.push(GoalProbe::BranchTrue(id));
            }
            if probe.on_false == Some(goal.outcome) {
                out.push(GoalProbe::BranchFalse(id));
            }
        }
        if goal.outcome == Outcome::Entered {
            for (id, method) in self.methods.iter().enumerate() {
                if method.entry_decision.as_ref() == Some(&goal.decision) {
                    out.push(GoalProbe::MethodEntered(id as u32));
                }
            }
        }
        out
    }

    /// The counts `register` is called with: branches, lines, methods, loops.
    pub fn counts(&self) -> [u32; 4] {
        [
            self.branches.len() as u32,
            self.line_count,
            self.methods.len() as u32,
            self.loops.len() as u32,
        ]
    }
}

/// What a probe site is. Stable across re-instrumentation of the same text, so the compile loop
/// can name the sites it downgrades.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum SiteId {
    Decision(DecisionKey),
    /// `alloc(...)` around the creation expression starting at this byte.
    Alloc(usize),
    /// `line(...)` before the statement starting at this byte.
    Line(usize),
    /// `enter(...)` in the body starting at this byte.
    Enter(usize),
    /// `loop(...)` in the body starting at this byte.
    Loop(usize),
    /// The `try { ... } catch` wrapper reporting exceptions that escape the body starting at
    /// this byte.
    Escape(usize),
    /// `seed(...)` around the operands of the comparing `String` call starting at this byte.
    Seed(usize),
    /// A mutant that has a site of its own (a removed call, a replaced return value, an
    /// arithmetic replacement) at the node starting at this byte.
    Mutant(usize),
}

impl fmt::Display for SiteId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SiteId::Decision(key) => key.fmt(f),
            SiteId::Alloc(at) => write!(f, "alloc@{at}"),
            SiteId::Line(at) => write!(f, "line@{at}"),
            SiteId::Enter(at) => write!(f, "enter@{at}"),
            SiteId::Loop(at) => write!(f, "loop@{at}"),
            SiteId::Escape(at) => write!(f, "escape@{at}"),
            SiteId::Seed(at) => write!(f, "seed@{at}"),
            SiteId::Mutant(at) => write!(f, "mutant@{at}"),
        }
    }
}

/// A place where probes were inserted, for mapping compiler diagnostics back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Site {
    pub id: SiteId,
    /// The member containing the site, when it is inside one.
    pub member: Option<String>,
    /// 1-based first and last original line the site's code spans.
    pub lines: (u32, u32),
    /// Byte range of the site's probe code (with what it wraps) in the instrumented text.
    pub output: Range<usize>,
    /// The probe form used, e.g. `cmpInt`, `branch`, `alloc`.
    pub form: &'static str,
    /// A condition that may be a constant expression (names this file cannot resolve) and
    /// decides reachability or definite assignment if it is: the compile loop turns such
    /// probes off when javac reports a flow error it cannot attribute to one site.
    pub maybe_constant: bool,
}

/// What a downgraded or missing probe measures now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProbeLevel {
    /// Outcomes only: the other outcome is at distance 1.
    OutcomeOnly,
    /// No probe: the goal (or counter) is not observed.
    None,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FallbackReason {
    /// The operand types could not be told from this file (e.g. `a.get() == b.get()`).
    UnknownOperandTypes,
    /// The condition is a constant expression; javac folds it, so it is not a branch.
    ConstantCondition,
    /// It may be a constant expression whose constancy matters (a loop condition, the
    /// initializer of a constant variable); left unwrapped.
    PossiblyConstant,
    /// The model marks the decision unreachable.
    Unreachable,
    /// A record pattern with nested type tests: its outcome is not one `isInstance`.
    RecordPattern,
    /// A switch case label that shares its statements with other labels or can be reached by
    /// fall-through; the outcome-only switch probe cannot tell it apart.
    AmbiguousCase,
    /// A guard that is a constant expression (its label counts as unguarded).
    ConstantGuard,
    /// The probe did not compile: javac's message.
    CompileError(String),
    /// The whole file fell back to outcome-only probes.
    FileOutcomeOnly,
    /// A switch on constants whose constants no typed switch probe can list (a comment inside
    /// one, a text block the instrumenter does not decode, a type the file does not tell): case
    /// probes instead.
    UntypedCaseConstants,
}

impl fmt::Display for FallbackReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FallbackReason::UnknownOperandTypes => f.write_str("unknown operand types"),
            FallbackReason::ConstantCondition => f.write_str("constant condition"),
            FallbackReason::PossiblyConstant => f.write_str("possibly constant"),
            FallbackReason::Unreachable => f.write_str("unreachable"),
            FallbackReason::RecordPattern => f.write_str("record pattern"),
            FallbackReason::AmbiguousCase => f.write_str("ambiguous case"),
            FallbackReason::ConstantGuard => f.write_str("constant guard"),
            FallbackReason::CompileError(message) => write!(f, "compile error: {message}"),
            FallbackReason::FileOutcomeOnly => f.write_str("file outcome-only"),
            FallbackReason::UntypedCaseConstants => f.write_str("untyped case constants"),
        }
    }
}

/// A probe that measures less than the construct allows, and why. Nothing is dropped silently:
/// every decision without a full probe has one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fallback {
    pub site: SiteId,
    /// For a switch case that has no probe of its own.
    pub outcome: Option<Outcome>,
    /// 1-based line.
    pub line: u32,
    pub level: ProbeLevel,
    pub reason: FallbackReason,
}

impl Fallback {
    pub fn decision(&self) -> Option<&DecisionKey> {
        match &self.site {
            SiteId::Decision(key) => Some(key),
            _ => None,
        }
    }
}
