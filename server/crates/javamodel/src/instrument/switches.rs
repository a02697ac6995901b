//! Switches: a typed selector probe (`switchInt`, `switchString`, `switchEnum`) that records
//! every case constant with its distance and returns the selector, so the case labels stay
//! untouched constants; or, for pattern switches and when the typed probe does not compile,
//! outcome-only probes where each case's code starts. Also the arms of switch rules, which
//! become blocks so a line probe can precede them.

use tree_sitter::Node;

use super::edits::Layer;
use super::statements::is_statement_position;
use super::table::{BranchProbe, FallbackReason, ProbeKind, ProbeLevel, SiteId};
use super::text_blocks;
use super::types::{Const, DeclKind, JType, Prim};
use super::{DecisionRef, InstrumentMode, Instrumenter, SiteBuild, PROBE};
use crate::branches::{DecisionKind, Outcome};
use crate::text::{children, named_children, text, unparenthesize};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum SwitchKind {
    Int,
    String,
    Enum,
}

impl SwitchKind {
    fn probe(self) -> (&'static str, ProbeKind) {
        match self {
            SwitchKind::Int => ("switchInt", ProbeKind::SwitchInt),
            SwitchKind::String => ("switchString", ProbeKind::SwitchString),
            SwitchKind::Enum => ("switchEnum", ProbeKind::SwitchEnum),
        }
    }
}

/// One case label of the switch, in source order.
struct Label<'t> {
    node: Node<'t>,
    /// The `switch_rule` or `switch_block_statement_group` holding it.
    group: Node<'t>,
}

/// A typed probe: the kind and, per case constant, its text for the probe call and the case
/// label index it belongs to.
struct Typed {
    kind: SwitchKind,
    constants: Vec<(String, u32)>,
}

/// Whether any label has a case constant (not only `default`).
fn has_constants(labels: &[Label<'_>]) -> bool {
    labels
        .iter()
        .any(|l| named_children(l.node).iter().any(|c| c.kind() != "guard"))
}

fn is_text_block(src: &str, value: Node<'_>) -> bool {
    let value = unparenthesize(value);
    value.kind() == "string_literal" && text(src, value).starts_with("\"\"\"")
}

fn int_like(t: JType) -> bool {
    matches!(
        t,
        JType::Prim(Prim::Byte | Prim::Short | Prim::Char | Prim::Int)
            | JType::Boxed(Prim::Byte | Prim::Short | Prim::Char | Prim::Int)
    )
}

impl<'s, 'm, 't> Instrumenter<'s, 'm, 't> {
    pub(super) fn switch_probes(&mut self, node: Node<'t>) {
        let Some(&d) = self.headed.get(&(node.start_byte(), DecisionKind::Switch)) else {
            return;
        };
        let site = SiteId::Decision(d.key());
        let line = Self::line_of(node);
        if self.skip_unreachable(&site, line, d) {
            return;
        }
        let (Some(selector), Some(body)) = (
            node.child_by_field_name("condition")
                .and_then(|c| named_children(c).into_iter().next()),
            node.child_by_field_name("body"),
        ) else {
            return;
        };
        let mut labels = Vec::new();
        for group in named_children(body) {
            for label in named_children(group)
                .into_iter()
                .filter(|c| c.kind() == "switch_label")
            {
                labels.push(Label { node: label, group });
            }
        }
        let implicit_default = d.decision.cases.iter().any(|c| c.span.is_none());
        if labels.len() + usize::from(implicit_default) != d.decision.cases.len() {
            self.fallback(
                site,
                None,
                line,
                ProbeLevel::None,
                FallbackReason::AmbiguousCase,
            );
            return;
        }
        let patterns = labels.iter().any(|l| {
            named_children(l.node)
                .iter()
                .any(|c| matches!(c.kind(), "pattern" | "record_pattern" | "null_literal"))
        });
        let mut typed = if patterns {
            Vec::new()
        } else {
            self.typed_switch(selector, &labels)
        };
        // Case constants that no typed probe can list (a comment inside one, a text block the
        // decoder refuses, a type this file does not tell) leave only the case probes.
        let untyped_constants = typed.is_empty() && !patterns && has_constants(&labels);
        if !typed.is_empty() && self.options.mode == InstrumentMode::OutcomeOnly {
            typed.clear();
            let reason = FallbackReason::FileOutcomeOnly;
            self.fallback(site.clone(), None, line, ProbeLevel::OutcomeOnly, reason);
        }
        let down = self.downgrade(&site);
        let steps = down.map_or(0, |d| d.steps as usize);
        if steps > typed.len() {
            let reason = down.map_or(FallbackReason::FileOutcomeOnly, |d| d.reason.clone());
            self.fallback(site, None, line, ProbeLevel::None, reason);
            return;
        }
        let chosen = (steps < typed.len()).then(|| typed.swap_remove(steps));
        let index = self.add_site(SiteBuild {
            id: site.clone(),
            member: Some(d.member.key.clone()),
            lines: Self::lines_of(node),
            form: match &chosen {
                Some(t) => t.kind.probe().0,
                None => ProbeKind::CaseTaken.as_str(),
            },
            maybe_constant: false,
        });
        match chosen {
            Some(typed) => self.emit_typed(d, selector, typed, index, line),
            None => {
                if steps > 0 {
                    let reason = down.map_or(FallbackReason::FileOutcomeOnly, |d| d.reason.clone());
                    self.fallback(site, None, line, ProbeLevel::OutcomeOnly, reason);
                } else if untyped_constants && self.options.mode == InstrumentMode::Full {
                    let reason = FallbackReason::UntypedCaseConstants;
                    self.fallback(site, None, line, ProbeLevel::OutcomeOnly, reason);
                }
                let statement = is_statement_position(node);
                self.emit_arms(d, body, &labels, implicit_default && statement, index);
            }
        }
    }

    /// The typed probes to try for a switch, best first: the kind the selector or a constant
    /// says for certain, else the guess from the constants (an unresolved simple name is taken
    /// for an enum constant, a qualified one for an int constant) followed by the other kinds
    /// those constants can form. Constants must be copyable into the probe call (one line, no
    /// comments).
    fn typed_switch(&self, selector: Node<'t>, labels: &[Label<'t>]) -> Vec<Typed> {
        let st = self.res.type_of(selector);
        let mut certain: Option<SwitchKind> = None;
        if st.certain {
            if int_like(st.ty) {
                certain = Some(SwitchKind::Int);
            } else if st.ty == JType::String {
                certain = Some(SwitchKind::String);
            }
        }
        let mut guesses: Vec<SwitchKind> = Vec::new();
        let mut values = Vec::new();
        for (index, label) in labels.iter().enumerate() {
            for value in named_children(label.node)
                .into_iter()
                .filter(|c| c.kind() != "guard")
            {
                let Some((kind, sure)) = self.constant_kind(value) else {
                    return Vec::new();
                };
                if sure {
                    match certain {
                        Some(k) if k != kind => return Vec::new(),
                        _ => certain = Some(kind),
                    }
                } else if !guesses.contains(&kind) {
                    guesses.push(kind);
                }
                values.push((value, index as u32));
            }
        }
        if values.is_empty() {
            return Vec::new();
        }
        let mut kinds = match certain {
            Some(c) => vec![c],
            None => {
                let mut kinds = guesses;
                for k in [SwitchKind::Int, SwitchKind::String, SwitchKind::Enum] {
                    if !kinds.contains(&k) {
                        kinds.push(k);
                    }
                }
                kinds
            }
        };
        // Enum constants are names; a literal constant rules them out (and a certain kind
        // would have been found).
        if values
            .iter()
            .any(|(v, _)| !matches!(unparenthesize(*v).kind(), "identifier" | "field_access"))
        {
            kinds.retain(|k| *k != SwitchKind::Enum);
        }
        kinds
            .into_iter()
            .filter_map(|kind| self.typed_constants(kind, &values))
            .collect()
    }

    fn typed_constants(&self, kind: SwitchKind, values: &[(Node<'t>, u32)]) -> Option<Typed> {
        let mut constants = Vec::new();
        for &(value, case) in values {
            let t = match kind {
                SwitchKind::Enum => {
                    let value = unparenthesize(value);
                    let name = match value.kind() {
                        "field_access" => value.child_by_field_name("field")?,
                        _ => value,
                    };
                    format!("\"{}\"", text(self.src, name))
                }
                // A text block spans lines: its value goes into the probe call as a one-line
                // literal.
                _ if is_text_block(self.src, value) => {
                    let raw = text(self.src, unparenthesize(value));
                    text_blocks::string_literal(&text_blocks::text_block_value(raw)?)
                }
                _ => text(self.src, value).to_string(),
            };
            if t.contains(['\n', '\r']) || t.contains("//") || t.contains("/*") {
                return None;
            }
            constants.push((t, case));
        }
        Some(Typed { kind, constants })
    }

    /// What a case constant says about the selector type, and whether that is certain.
    fn constant_kind(&self, value: Node<'t>) -> Option<(SwitchKind, bool)> {
        let value = unparenthesize(value);
        match value.kind() {
            "string_literal" => Some((SwitchKind::String, true)),
            "identifier" => match self.res.resolve(value) {
                Some(decl) if decl.kind == DeclKind::EnumConstant => {
                    Some((SwitchKind::Enum, false))
                }
                Some(_) => {
                    let t = self.res.type_of(value);
                    if int_like(t.ty) {
                        Some((SwitchKind::Int, t.certain))
                    } else if t.ty == JType::String {
                        Some((SwitchKind::String, t.certain))
                    } else {
                        None
                    }
                }
                // Enum constants are resolved in the selector's enum, not in scope.
                None => Some((SwitchKind::Enum, false)),
            },
            "field_access" => {
                let t = self.res.type_of(value);
                if int_like(t.ty) {
                    Some((SwitchKind::Int, t.certain))
                } else if t.ty == JType::String {
                    Some((SwitchKind::String, t.certain))
                } else {
                    // Before Java 21 enum labels cannot be qualified: `Type.NAME` is most
                    // likely an int constant.
                    Some((SwitchKind::Int, false))
                }
            }
            _ => {
                let t = self.res.type_of(value);
                if self.res.const_status(value) != Const::Yes || !t.certain {
                    return None;
                }
                if int_like(t.ty) {
                    Some((SwitchKind::Int, true))
                } else if t.ty == JType::String {
                    Some((SwitchKind::String, true))
                } else {
                    None
                }
            }
        }
    }

    fn emit_typed(
        &mut self,
        d: DecisionRef<'m>,
        selector: Node<'t>,
        typed: Typed,
        site: usize,
        line: u32,
    ) {
        let (name, kind) = typed.kind.probe();
        let mut first = None;
        for &(_, case) in &typed.constants {
            let id = self.new_branch(BranchProbe {
                decision: d.key(),
                class: d.ty.binary_name.clone(),
                class_index: d.decision.class_index,
                on_true: Some(Outcome::Case(case)),
                on_false: None,
                kind,
                line,
            });
            first.get_or_insert(id);
        }
        let default = d
            .decision
            .cases
            .iter()
            .position(|c| c.is_default)
            .map(|i| Outcome::Case(i as u32));
        let no_match = self.new_branch(BranchProbe {
            decision: d.key(),
            class: d.ty.binary_name.clone(),
            class_index: d.decision.class_index,
            on_true: default,
            on_false: None,
            kind,
            line,
        });
        let first = first.unwrap_or(no_match);
        let len = selector.end_byte() - selector.start_byte();
        let open = format!("{PROBE}.{name}({}, ", self.base(first));
        let constants: Vec<&str> = typed.constants.iter().map(|(t, _)| t.as_str()).collect();
        let close = format!(", {})", constants.join(", "));
        self.edits.open(
            selector.start_byte(),
            len,
            Layer::Decision,
            open,
            Some(site),
        );
        self.edits
            .close(selector.end_byte(), len, Layer::Decision, close, Some(site));
    }

    /// Outcome-only: `branch(id, true)` where a case's code starts (or in its guard). A colon
    /// group reached by fall-through, or shared by several labels, cannot tell its labels
    /// apart: those get no probe and a fallback. The implicit default of a switch statement
    /// becomes an explicit first `default` that records itself and leaves the switch.
    fn emit_arms(
        &mut self,
        d: DecisionRef<'m>,
        body: Node<'t>,
        labels: &[Label<'t>],
        implicit_default: bool,
        site: usize,
    ) {
        let key = d.key();
        let line_of_switch = Self::line_of(body);
        let mut previous_group: Option<Node<'t>> = None;
        for (index, label) in labels.iter().enumerate() {
            let case = Outcome::Case(index as u32);
            let line = Self::line_of(label.node);
            let new_id = |this: &mut Self| {
                this.new_branch(BranchProbe {
                    decision: key.clone(),
                    class: d.ty.binary_name.clone(),
                    class_index: d.decision.class_index,
                    on_true: Some(case),
                    on_false: None,
                    kind: ProbeKind::CaseTaken,
                    line,
                })
            };
            let guard = named_children(label.node)
                .into_iter()
                .find(|c| c.kind() == "guard")
                .and_then(|g| named_children(g).into_iter().next());
            if let Some(guard) = guard {
                if self.res.const_status(guard) == Const::Yes {
                    self.fallback(
                        SiteId::Decision(key.clone()),
                        Some(case),
                        line,
                        ProbeLevel::None,
                        FallbackReason::ConstantGuard,
                    );
                    continue;
                }
                // The case matched when its guard is evaluated; `&&` keeps the guard's
                // bindings (JLS 6.3.1) and its definite-assignment rules.
                let id = new_id(self);
                let len = guard.end_byte() - guard.start_byte();
                let open = format!("{PROBE}.branch({}, true) && (", self.base(id));
                self.edits
                    .open(guard.start_byte(), len, Layer::Decision, open, Some(site));
                self.edits.close(
                    guard.end_byte(),
                    len,
                    Layer::Decision,
                    ")".into(),
                    Some(site),
                );
                continue;
            }
            let (at, len) = if label.group.kind() == "switch_rule" {
                let Some(arm) = named_children(label.group)
                    .into_iter()
                    .rfind(|c| c.kind() != "switch_label")
                else {
                    continue;
                };
                Self::body_entry(arm)
            } else {
                let shared = named_children(label.group)
                    .iter()
                    .filter(|c| c.kind() == "switch_label")
                    .count()
                    > 1;
                let first_of_group = previous_group != Some(label.group);
                let falls_into = first_of_group
                    && previous_group.is_some_and(|p| {
                        !named_children(p).last().is_some_and(|s| {
                            matches!(
                                s.kind(),
                                "break_statement"
                                    | "continue_statement"
                                    | "return_statement"
                                    | "throw_statement"
                                    | "yield_statement"
                            )
                        })
                    });
                previous_group = Some(label.group);
                if shared || falls_into {
                    self.fallback(
                        SiteId::Decision(key.clone()),
                        Some(case),
                        line,
                        ProbeLevel::None,
                        FallbackReason::AmbiguousCase,
                    );
                    continue;
                }
                // Just after the label's `:`.
                let Some(colon) = children(label.group).into_iter().find(|c| {
                    !c.is_named() && c.kind() == ":" && c.start_byte() >= label.node.end_byte()
                }) else {
                    continue;
                };
                (colon.end_byte(), label.group.end_byte() - colon.end_byte())
            };
            let id = new_id(self);
            let text = format!("{PROBE}.branch({}, true); ", self.base(id));
            self.edits.open(at, len, Layer::BodyEntry, text, Some(site));
        }
        if implicit_default {
            let index = labels.len() as u32;
            let id = self.new_branch(BranchProbe {
                decision: key.clone(),
                class: d.ty.binary_name.clone(),
                class_index: d.decision.class_index,
                on_true: Some(Outcome::Case(index)),
                on_false: None,
                kind: ProbeKind::CaseTaken,
                line: line_of_switch,
            });
            let rules = named_children(body)
                .iter()
                .any(|g| g.kind() == "switch_rule");
            let probe = format!("{PROBE}.branch({}, true);", self.base(id));
            let text = if rules {
                format!("default -> {probe} ")
            } else {
                format!("default: {probe} break; ")
            };
            let (at, len) = Self::body_entry(body);
            self.edits.open(at, len, Layer::BodyEntry, text, Some(site));
        }
    }

    /// A switch rule's arm that is an expression or `throw` becomes a block, so that a line
    /// probe can precede it; in a switch expression the value is yielded.
    pub(super) fn switch_arm(&mut self, rule: Node<'t>) {
        let Some(arm) = named_children(rule)
            .into_iter()
            .rfind(|c| c.kind() != "switch_label")
        else {
            return;
        };
        if arm.kind() == "block" {
            return;
        }
        let len = arm.end_byte() - arm.start_byte();
        self.edits
            .open(arm.start_byte(), len, Layer::Brace, "{ ".into(), None);
        self.edits
            .close(arm.end_byte(), len, Layer::Brace, " }".into(), None);
        self.line_probe(arm);
        let switch = rule.parent().and_then(|b| b.parent());
        if arm.kind() == "expression_statement" && switch.is_some_and(|s| !is_statement_position(s))
        {
            self.edits
                .open(arm.start_byte(), len, Layer::Yield, "yield ".into(), None);
        }
    }
}
