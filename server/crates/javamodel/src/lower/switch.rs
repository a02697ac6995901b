//! Lowering of switch statements and switch expressions: one decision per switch with an
//! outcome per case label, colon-form fall-through, arrow-form rules, `yield`, guarded pattern
//! labels and the implicit default.

use tree_sitter::Node;

use super::{BodyBuilder, Ctx, Pending};
use crate::branches::{ConditionShape, DecisionKind, Outcome, SwitchCase};
use crate::cfg::{CfgNodeKind, NodeId};
use crate::model::Span;
use crate::text::{children, collapsed, named_children};

impl<'a, 't> BodyBuilder<'a, 't> {
    /// `is_expression`: a switch expression (yields a value) rather than a statement.
    ///
    /// A switch statement without `default` gets an implicit default outcome (no label
    /// matched), unless it uses patterns or `case null`: such switches must be exhaustive, as
    /// must switch expressions, and their only unmatched path throws `MatchException`, which
    /// is not a goal.
    pub(super) fn lower_switch(&mut self, node: Node<'t>, is_expression: bool) {
        let condition = node.child_by_field_name("condition");
        if let Some(condition) = condition {
            self.lower_expr(condition);
        }
        let head = match condition {
            Some(condition) => Span::cover(node, condition),
            None => Span::of(node),
        };
        let kind = if is_expression {
            DecisionKind::SwitchExpression
        } else {
            DecisionKind::Switch
        };
        let shape = ConditionShape::Switch {
            selector: condition.map_or(head, Span::of),
        };
        let id = self.new_decision(kind, head, shape, None, Vec::new());
        let switch_node = self.add_decision_node(id);

        self.flow.ctx.push(if is_expression {
            Ctx::SwitchExpr { yields: Vec::new() }
        } else {
            Ctx::Switch { breaks: Vec::new() }
        });
        let mut cases: Vec<SwitchCase> = Vec::new();
        let mut after: Vec<Pending> = Vec::new();
        let mut uses_patterns = false;
        let groups = node
            .child_by_field_name("body")
            .map(named_children)
            .unwrap_or_default();
        for group in groups {
            match group.kind() {
                // `case A: case B: statements` — falls through to the next group.
                "switch_block_statement_group" => {
                    let mut entry = self.take_pending();
                    let mut statements = Vec::new();
                    for child in named_children(group) {
                        if child.kind() == "switch_label" {
                            let edges =
                                self.case_label(child, switch_node, &mut cases, &mut uses_patterns);
                            entry.extend(edges);
                        } else {
                            statements.push(child);
                        }
                    }
                    self.flow.pending = entry;
                    for statement in statements {
                        self.lower_stmt(statement);
                    }
                }
                // `case A -> arm` — never falls through.
                "switch_rule" => {
                    after.extend(self.take_pending());
                    let mut entry = Vec::new();
                    let mut arm = None;
                    for child in named_children(group) {
                        if child.kind() == "switch_label" {
                            let edges =
                                self.case_label(child, switch_node, &mut cases, &mut uses_patterns);
                            entry.extend(edges);
                        } else {
                            arm = Some(child);
                        }
                    }
                    self.flow.pending = entry;
                    match arm {
                        Some(arm) if is_expression && arm.kind() == "expression_statement" => {
                            // The arm's value is the switch's value.
                            self.lower_operands(arm);
                            self.add_node(CfgNodeKind::Statement, Some(Span::of(arm)));
                        }
                        Some(arm) => self.lower_stmt(arm),
                        None => {}
                    }
                    after.extend(self.take_pending());
                }
                "ERROR" => self.scan_opaque(group),
                _ => {}
            }
        }
        after.extend(self.take_pending());
        let has_default = cases.iter().any(|c| c.is_default);
        if !has_default && !is_expression && !uses_patterns {
            let index = cases.len() as u32;
            cases.push(SwitchCase {
                label: "default".to_string(),
                span: None,
                is_default: true,
                guarded: false,
            });
            after.push(Pending::outcome(switch_node, Outcome::Case(index)));
        }
        match self.flow.ctx.pop() {
            Some(Ctx::Switch { breaks }) => after.extend(breaks),
            Some(Ctx::SwitchExpr { yields }) => after.extend(yields),
            _ => unreachable!("switch contexts are pushed and popped in pairs"),
        }
        self.flow.pending = after;
        let decision = &mut self.decisions[id as usize];
        decision.outcomes = (0..cases.len() as u32).map(Outcome::Case).collect();
        decision.cases = cases;
    }

    /// Adds a case label; returns the edges into its statements. A guard's conditions are
    /// decisions; when the guard fails, matching resumes at the switch.
    fn case_label(
        &mut self,
        label: Node<'t>,
        switch_node: NodeId,
        cases: &mut Vec<SwitchCase>,
        uses_patterns: &mut bool,
    ) -> Vec<Pending> {
        let index = cases.len() as u32;
        let is_default = children(label)
            .iter()
            .any(|c| !c.is_named() && c.kind() == "default");
        let parts = named_children(label);
        *uses_patterns |= parts
            .iter()
            .any(|c| matches!(c.kind(), "pattern" | "null_literal" | "record_pattern"));
        let guard = parts.iter().copied().find(|c| c.kind() == "guard");
        cases.push(SwitchCase {
            label: collapsed(self.src(), label),
            span: Some(Span::of(label)),
            is_default,
            guarded: guard.is_some(),
        });
        let matched = Pending::outcome(switch_node, Outcome::Case(index));
        let guard_condition = guard.and_then(|g| named_children(g).into_iter().next());
        match guard_condition {
            Some(condition) => {
                self.flow.pending = vec![matched];
                let (on_true, on_false) =
                    self.lower_cond(condition, DecisionKind::SwitchGuard, None);
                self.connect(on_false, switch_node);
                on_true
            }
            None => vec![matched],
        }
    }
}
