//! Atomic conditions: the probe form for each (a ladder of forms the compile loop walks down
//! when one does not compile) and its rewrite.
//!
//! Each rewrite replaces only the atomic condition, in place, so `&&`, `||`, `!` and `?:` stay
//! Java's own: short-circuiting, definite assignment (JLS 16) and pattern-binding scope (JLS
//! 6.3.1) are those of the original. Operands become arguments of one static call, evaluated
//! once, left to right, as the operator evaluated them.

use tree_sitter::Node;

use super::edits::Layer;
use super::table::{BranchProbe, FallbackReason, ProbeKind, ProbeLevel, SiteId};
use super::types::{Const, Rank, Typed};
use super::{DecisionRef, InstrumentMode, Instrumenter, SiteBuild, PROBE};
use crate::branches::{ComparisonOp, DecisionKind, Outcome};
use crate::text::{named_children, signature_type, text};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum CmpMethod {
    Int,
    Long,
    Float,
    Double,
    Bool,
    Ref,
}

impl CmpMethod {
    fn of_rank(rank: Rank) -> CmpMethod {
        match rank {
            Rank::Int => CmpMethod::Int,
            Rank::Long => CmpMethod::Long,
            Rank::Float => CmpMethod::Float,
            Rank::Double => CmpMethod::Double,
        }
    }

    fn kind(self) -> ProbeKind {
        match self {
            CmpMethod::Int => ProbeKind::CmpInt,
            CmpMethod::Long => ProbeKind::CmpLong,
            CmpMethod::Float => ProbeKind::CmpFloat,
            CmpMethod::Double => ProbeKind::CmpDouble,
            CmpMethod::Bool => ProbeKind::CmpBool,
            CmpMethod::Ref => ProbeKind::CmpRef,
        }
    }
}

/// A way to probe one atomic condition.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Form {
    Cmp(CmpMethod, ComparisonOp),
    IsNull,
    /// `instOf(id, x, T.class)` for a plain `instanceof`.
    InstOf,
    /// `instOfOperand(id, x, T.class) instanceof <pattern>`: keeps the pattern's bindings.
    InstOfOperand,
    StrEquals,
    Branch,
}

impl Form {
    fn kind(self) -> ProbeKind {
        match self {
            Form::Cmp(m, _) => m.kind(),
            Form::IsNull => ProbeKind::IsNull,
            Form::InstOf | Form::InstOfOperand => ProbeKind::InstOf,
            Form::StrEquals => ProbeKind::StrEquals,
            Form::Branch => ProbeKind::Branch,
        }
    }

    /// Whether the form is outcome-only (allowed in [`InstrumentMode::OutcomeOnly`]).
    fn outcome_only(self) -> bool {
        !self.kind().measures_distance()
    }
}

/// The forms to try for one condition, best first, and why even the best one is coarse.
struct Plan {
    forms: Vec<Form>,
    reason: Option<FallbackReason>,
    maybe_constant: bool,
}

fn op_name(op: ComparisonOp) -> &'static str {
    match op {
        ComparisonOp::Eq => "EQ",
        ComparisonOp::Ne => "NE",
        ComparisonOp::Lt => "LT",
        ComparisonOp::Le => "LE",
        ComparisonOp::Gt => "GT",
        ComparisonOp::Ge => "GE",
    }
}

/// The numeric probes from `start` up: each compiles only when both operands convert to its
/// parameter type, and then it is exactly the type binary numeric promotion (JLS 5.6) picks,
/// since every narrower one failed. `cmpLong` is exact for any integral types; `cmpFloat` and
/// `cmpDouble` are only tried once the narrower ones failed to compile.
fn numeric_ladder(start: Rank, exact: bool, op: ComparisonOp) -> Vec<Form> {
    let ranks = [Rank::Int, Rank::Long, Rank::Float, Rank::Double];
    let mut forms: Vec<Form> = ranks
        .into_iter()
        .filter(|r| *r >= start)
        .take(if exact { 1 } else { 4 })
        .map(|r| Form::Cmp(CmpMethod::of_rank(r), op))
        .collect();
    forms.push(Form::Branch);
    forms
}

/// Where the numeric ladder starts: the largest certain rank. An uncertain rank only counts up
/// to `long`, whose probe is exact for every integral type; a guessed `float` or `double` could
/// round an int or long operand.
fn ladder_start(l: Typed, r: Typed) -> (Rank, bool) {
    let rank_of = |t: Typed| match t.rank() {
        Some(rank) if t.certain => Some(rank),
        Some(rank) => Some(rank.min(Rank::Long)),
        None => None,
    };
    let start = [rank_of(l), rank_of(r)]
        .into_iter()
        .flatten()
        .max()
        .unwrap_or(Rank::Int);
    let exact = l.certain && r.certain && l.rank().is_some() && r.rank().is_some();
    (start, exact)
}

/// `==` / `!=`: numeric when either operand is a primitive number (JLS 15.21.1), boolean when
/// either is a primitive boolean, a reference comparison when both are references (so
/// `Integer == Integer` compares identities). Unknown otherwise.
fn equality_forms(l: Typed, r: Typed, op: ComparisonOp) -> Plan {
    let plan = |forms| Plan {
        forms,
        reason: None,
        maybe_constant: false,
    };
    if l.is_primitive_numeric() || r.is_primitive_numeric() {
        let (start, exact) = ladder_start(l, r);
        return plan(numeric_ladder(start, exact, op));
    }
    if l.is_primitive_boolean() || r.is_primitive_boolean() {
        return plan(vec![Form::Cmp(CmpMethod::Bool, op), Form::Branch]);
    }
    if (l.is_reference() && r.is_reference()) || l.is_unboxable_never() || r.is_unboxable_never() {
        return plan(vec![Form::Cmp(CmpMethod::Ref, op), Form::Branch]);
    }
    Plan {
        forms: vec![Form::Branch],
        reason: Some(FallbackReason::UnknownOperandTypes),
        maybe_constant: false,
    }
}

impl<'s, 'm, 't> Instrumenter<'s, 'm, 't> {
    /// Probes one atomic condition (`node` is the condition itself).
    pub(super) fn decision(&mut self, node: Node<'t>, d: DecisionRef<'m>) {
        if d.decision.constant.is_some() || d.decision.outcomes.is_empty() {
            return;
        }
        let site = SiteId::Decision(d.key());
        let line = Self::line_of(node);
        if self.skip_unreachable(&site, line, d) {
            return;
        }
        let plan = match self.plan(node, d) {
            Ok(plan) => plan,
            Err(reason) => {
                self.fallback(site, None, line, ProbeLevel::None, reason);
                return;
            }
        };
        let full_first = plan.forms[0];
        let mut forms = plan.forms;
        if self.options.mode == InstrumentMode::OutcomeOnly {
            forms.retain(|f| f.outcome_only());
            if forms.is_empty() {
                forms.push(Form::Branch);
            }
        }
        let down = self.downgrade(&site);
        let steps = down.map_or(0, |d| d.steps as usize);
        let Some(&form) = forms.get(steps) else {
            let reason = down.map_or(FallbackReason::FileOutcomeOnly, |d| d.reason.clone());
            self.fallback(site, None, line, ProbeLevel::None, reason);
            return;
        };
        // `cmpFloat` and `cmpDouble` round integral operands, so they are only climbed to when
        // javac said a floating-point operand did not fit the narrower probe; any other error
        // (one that belonged elsewhere) leads to the outcome-only form instead.
        let form = match (form, down.map(|d| &d.reason)) {
            (
                Form::Cmp(CmpMethod::Float | CmpMethod::Double, _),
                Some(FallbackReason::CompileError(m)),
            ) if steps > 0 && !floating_point_mismatch(form, m) => Form::Branch,
            _ => form,
        };
        if form == Form::Branch && full_first != Form::Branch {
            let reason = match down {
                Some(d) if steps > 0 => d.reason.clone(),
                _ => FallbackReason::FileOutcomeOnly,
            };
            self.fallback(site.clone(), None, line, ProbeLevel::OutcomeOnly, reason);
        } else if let (true, Some(reason)) = (steps == 0, plan.reason) {
            self.fallback(site.clone(), None, line, ProbeLevel::OutcomeOnly, reason);
        }
        let index = self.add_site(SiteBuild {
            id: site,
            member: Some(d.member.key.clone()),
            lines: Self::lines_of(node),
            form: form.kind().as_str(),
            maybe_constant: plan.maybe_constant,
        });
        let id = self.new_branch(BranchProbe {
            decision: d.key(),
            class: d.ty.binary_name.clone(),
            class_index: d.decision.class_index,
            on_true: Some(Outcome::True),
            on_false: Some(Outcome::False),
            kind: form.kind(),
            line,
        });
        if form != Form::InstOfOperand {
            self.negation_mutant(node, index);
        }
        self.emit(node, form, id, index);
    }

    /// The forms for `node`, or why it gets no probe at all.
    fn plan(&self, node: Node<'t>, d: DecisionRef<'m>) -> Result<Plan, FallbackReason> {
        let res = &self.res;
        if res.const_status(node) == Const::Yes {
            return Err(if d.decision.kind == DecisionKind::SwitchGuard {
                FallbackReason::ConstantGuard
            } else {
                FallbackReason::ConstantCondition
            });
        }
        if let Some(init) = res.constant_variable_initializer(node) {
            match res.const_status(init) {
                Const::Yes => return Err(FallbackReason::ConstantCondition),
                Const::Maybe { .. } => return Err(FallbackReason::PossiblyConstant),
                Const::No => {}
            }
        }
        let mut maybe_constant = false;
        if let Const::Maybe { constant_like } = res.const_status(full_condition(self.src, node)) {
            let is_loop = matches!(
                d.decision.kind,
                DecisionKind::While | DecisionKind::DoWhile | DecisionKind::For
            );
            // A loop whose condition is a constant `true` decides reachability; names in
            // constant style are taken to be constants, others are tried and the compile loop
            // turns them off if javac then reports a flow error.
            if is_loop && constant_like {
                return Err(FallbackReason::PossiblyConstant);
            }
            maybe_constant = true;
        }
        let mut plan = self.shape_forms(node)?;
        plan.maybe_constant = maybe_constant;
        Ok(plan)
    }

    fn shape_forms(&self, node: Node<'t>) -> Result<Plan, FallbackReason> {
        let plan = |forms| Plan {
            forms,
            reason: None,
            maybe_constant: false,
        };
        match node.kind() {
            "binary_expression" => {
                let op = node
                    .child_by_field_name("operator")
                    .and_then(|o| ComparisonOp::from_token(text(self.src, o)));
                let (Some(op), Some(left), Some(right)) = (
                    op,
                    node.child_by_field_name("left"),
                    node.child_by_field_name("right"),
                ) else {
                    return Ok(plan(vec![Form::Branch]));
                };
                let is_null = |n: Node<'_>| crate::text::unparenthesize(n).kind() == "null_literal";
                if matches!(op, ComparisonOp::Eq | ComparisonOp::Ne)
                    && (is_null(left) || is_null(right))
                {
                    return Ok(plan(match op {
                        ComparisonOp::Eq => vec![Form::IsNull, Form::Branch],
                        _ => vec![Form::Cmp(CmpMethod::Ref, op), Form::Branch],
                    }));
                }
                let (l, r) = (self.res.type_of(left), self.res.type_of(right));
                Ok(match op {
                    ComparisonOp::Eq | ComparisonOp::Ne => equality_forms(l, r, op),
                    _ => {
                        let (start, exact) = ladder_start(l, r);
                        plan(numeric_ladder(start, exact, op))
                    }
                })
            }
            "instanceof_expression" => {
                if let Some(pattern) = node.child_by_field_name("pattern") {
                    if !record_pattern_is_type_test(self.src, pattern) {
                        return Err(FallbackReason::RecordPattern);
                    }
                    return Ok(plan(vec![Form::InstOfOperand]));
                }
                if node.child_by_field_name("name").is_some() {
                    // `branch(id, x instanceof T t)` would end the binding's scope at the
                    // call's parenthesis, so there is no coarser form.
                    return Ok(plan(vec![Form::InstOfOperand]));
                }
                Ok(plan(vec![Form::InstOf, Form::Branch]))
            }
            "method_invocation" if self.is_equals_call(node) => {
                let receiver = node.child_by_field_name("object").expect("checked");
                let t = self.res.type_of(receiver);
                Ok(plan(if t.certain && t.ty != super::types::JType::String {
                    vec![Form::Branch]
                } else {
                    vec![Form::StrEquals, Form::Branch]
                }))
            }
            _ => Ok(plan(vec![Form::Branch])),
        }
    }

    /// `receiver.equals(argument)` with one argument and no type arguments.
    fn is_equals_call(&self, node: Node<'t>) -> bool {
        node.child_by_field_name("name")
            .is_some_and(|n| text(self.src, n) == "equals")
            && node
                .child_by_field_name("object")
                .is_some_and(|o| o.kind() != "super")
            && node.child_by_field_name("type_arguments").is_none()
            && node
                .child_by_field_name("arguments")
                .is_some_and(|a| named_children(a).len() == 1)
    }

    fn emit(&mut self, node: Node<'t>, form: Form, id: u32, site: usize) {
        let base = self.base(id);
        let len = node.end_byte() - node.start_byte();
        let site = Some(site);
        match form {
            Form::Cmp(method, op) => {
                let name = match method {
                    CmpMethod::Int => "cmpInt",
                    CmpMethod::Long => "cmpLong",
                    CmpMethod::Float => "cmpFloat",
                    CmpMethod::Double => "cmpDouble",
                    CmpMethod::Bool => "cmpBool",
                    CmpMethod::Ref => "cmpRef",
                };
                let operator = node.child_by_field_name("operator").expect("a comparison");
                let numeric = !matches!(method, CmpMethod::Bool | CmpMethod::Ref);
                let op_text = format!("{PROBE}.{}", op_name(op));
                let op_text = self.comparison_operator(node, op, numeric, op_text);
                let open = format!("{PROBE}.{name}({base}, {op_text}, ");
                if numeric {
                    self.operand_constants(node, site);
                }
                self.edits
                    .open(node.start_byte(), len, Layer::Decision, open, site);
                self.edits
                    .replace(self.src, operator.byte_range(), ",", site);
                self.edits
                    .close(node.end_byte(), len, Layer::Decision, ")".into(), site);
            }
            Form::IsNull => {
                let left = node.child_by_field_name("left").expect("a comparison");
                let right = node.child_by_field_name("right").expect("a comparison");
                let open = format!("{PROBE}.isNull({base}, ");
                if crate::text::unparenthesize(right).kind() == "null_literal" {
                    self.edits
                        .open(node.start_byte(), len, Layer::Decision, open, site);
                    self.edits
                        .replace(self.src, left.end_byte()..node.end_byte(), ")", site);
                } else {
                    self.edits.replace(
                        self.src,
                        node.start_byte()..right.start_byte(),
                        &open,
                        site,
                    );
                    self.edits
                        .close(node.end_byte(), len, Layer::Decision, ")".into(), site);
                }
            }
            Form::InstOf => {
                let left = node.child_by_field_name("left").expect("an instanceof");
                let class = self.class_literal(node);
                let open = format!("{PROBE}.instOf({base}, ");
                self.edits
                    .open(node.start_byte(), len, Layer::Decision, open, site);
                self.edits.replace(
                    self.src,
                    left.end_byte()..node.end_byte(),
                    &format!(", {class})"),
                    site,
                );
            }
            Form::InstOfOperand => {
                let left = node.child_by_field_name("left").expect("an instanceof");
                let class = self.class_literal(node);
                let wrapped = left.end_byte() - left.start_byte();
                let open = format!("{PROBE}.instOfOperand({base}, ");
                self.edits
                    .open(left.start_byte(), wrapped, Layer::Decision, open, site);
                self.edits.close(
                    left.end_byte(),
                    wrapped,
                    Layer::Decision,
                    format!(", {class})"),
                    site,
                );
            }
            Form::StrEquals => {
                let receiver = node.child_by_field_name("object").expect("a call");
                let arguments = node.child_by_field_name("arguments").expect("a call");
                let open = format!("{PROBE}.strEquals({base}, ");
                self.edits
                    .open(node.start_byte(), len, Layer::Decision, open, site);
                // `.equals(` becomes `, `; the argument list's `)` closes the probe call.
                self.edits.replace(
                    self.src,
                    receiver.end_byte()..arguments.start_byte() + 1,
                    ", ",
                    site,
                );
            }
            Form::Branch => {
                let open = format!("{PROBE}.branch({base}, ");
                self.edits
                    .open(node.start_byte(), len, Layer::Decision, open, site);
                self.edits
                    .close(node.end_byte(), len, Layer::Decision, ")".into(), site);
            }
        }
    }

    /// `T.class` for the tested type of an `instanceof` (erased: no type arguments or
    /// annotations, which a class literal cannot have and `isInstance` does not check).
    fn class_literal(&self, node: Node<'t>) -> String {
        let ty = match node.child_by_field_name("pattern") {
            Some(pattern) => named_children(pattern)
                .into_iter()
                .find(|c| c.kind() != "record_pattern_body"),
            None => node.child_by_field_name("right"),
        };
        let name = ty.map_or_else(|| "Object".to_string(), |t| signature_type(self.src, t));
        format!("{name}.class")
    }
}

/// Whether javac's `message` says an operand is floating-point (`possible lossy conversion from
/// double to long`, `Double cannot be converted to float`), which justifies climbing to `form`.
fn floating_point_mismatch(form: Form, message: &str) -> bool {
    let m = message.to_ascii_lowercase();
    match form {
        Form::Cmp(CmpMethod::Float, _) => m.contains("float") || m.contains("double"),
        Form::Cmp(CmpMethod::Double, _) => m.contains("double"),
        _ => true,
    }
}

/// The whole condition an atomic condition is part of: up through parentheses, `!`, `&&`, `||`
/// and the branches of a conditional used as a condition.
fn full_condition<'t>(src: &str, node: Node<'t>) -> Node<'t> {
    let mut current = node;
    while let Some(parent) = current.parent() {
        let through = match parent.kind() {
            "parenthesized_expression" => !matches!(
                parent.parent().map(|p| p.kind()),
                Some("if_statement" | "while_statement" | "do_statement" | "switch_expression")
            ),
            "unary_expression" => parent
                .child_by_field_name("operator")
                .is_some_and(|o| text(src, o) == "!"),
            "binary_expression" => parent
                .child_by_field_name("operator")
                .is_some_and(|o| matches!(text(src, o), "&&" | "||")),
            "ternary_expression" => parent.child_by_field_name("condition") != Some(current),
            _ => false,
        };
        if !through {
            break;
        }
        current = parent;
    }
    current
}

/// A record pattern whose components are all `var x` or `_`: it matches exactly the non-null
/// instances of the record type.
fn record_pattern_is_type_test(src: &str, pattern: Node<'_>) -> bool {
    let Some(body) = named_children(pattern)
        .into_iter()
        .find(|c| c.kind() == "record_pattern_body")
    else {
        return false;
    };
    named_children(body)
        .into_iter()
        .all(|component| match component.kind() {
            "record_pattern_component" => named_children(component).first().is_some_and(|first| {
                first.kind() == "underscore_pattern" || text(src, *first) == "var"
            }),
            _ => false,
        })
}
