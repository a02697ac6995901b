//! Lowering of expressions: evaluation order, short-circuit conditions split into atomic
//! decisions, conditional expressions, booleans computed as values, lambdas and anonymous
//! classes met on the way.

use tree_sitter::Node;

use super::{BodyBuilder, Pending};
use crate::branches::{ComparisonOp, ConditionShape, DecisionKind, LogicalOp, Operand, Outcome};
use crate::model::Span;
use crate::text::{collapsed, named_children, text, unparenthesize};

/// The operator token of a binary or unary expression.
fn operator<'s>(src: &'s str, node: Node<'_>) -> &'s str {
    node.child_by_field_name("operator")
        .map(|op| text(src, op))
        .unwrap_or("")
}

impl<'a, 't> BodyBuilder<'a, 't> {
    /// Lowers an expression evaluated for its value.
    pub(super) fn lower_expr(&mut self, node: Node<'t>) {
        match node.kind() {
            "binary_expression" => {
                let op = operator(self.src(), node);
                if op == "&&" || op == "||" || ComparisonOp::from_token(op).is_some() {
                    self.lower_value_condition(node);
                } else {
                    self.lower_arithmetic_chain(node);
                }
            }
            "unary_expression" if operator(self.src(), node) == "!" => {
                self.lower_value_condition(node);
            }
            "ternary_expression" => {
                let (Some(condition), Some(consequence), Some(alternative)) = (
                    node.child_by_field_name("condition"),
                    node.child_by_field_name("consequence"),
                    node.child_by_field_name("alternative"),
                ) else {
                    return self.lower_operands(node);
                };
                let (on_true, on_false) = self.lower_cond(condition, DecisionKind::Ternary, None);
                self.flow.pending = on_true;
                self.lower_expr(consequence);
                let after_consequence = self.take_pending();
                self.flow.pending = on_false;
                self.lower_expr(alternative);
                self.flow.pending.extend(after_consequence);
            }
            "lambda_expression" => self.lower_lambda(node, None),
            _ => self.lower_operands(node),
        }
    }

    /// `a + b + c + ...` (any operator without a decision): evaluated left to right. Walks
    /// the left spine iteratively, because generated code can chain thousands of terms and
    /// recursion that deep would overflow the stack.
    fn lower_arithmetic_chain(&mut self, node: Node<'t>) {
        let src = self.src();
        let is_plain = |n: Node<'_>| {
            if n.kind() != "binary_expression" {
                return false;
            }
            let op = operator(src, n);
            !(op == "&&" || op == "||" || ComparisonOp::from_token(op).is_some())
        };
        let mut rights = Vec::new();
        let mut current = node;
        while is_plain(current) {
            let (Some(left), Some(right)) = (
                current.child_by_field_name("left"),
                current.child_by_field_name("right"),
            ) else {
                break;
            };
            rights.push(right);
            current = left;
        }
        if current == node {
            return self.lower_operands(node);
        }
        self.lower_expr(current);
        for right in rights.into_iter().rev() {
            self.lower_expr(right);
        }
    }

    /// A boolean operator used for its value (`return a < b;`, `ok = x && y;`): javac
    /// compiles it to jumps, so its atomic conditions are decisions of kind `Value`.
    fn lower_value_condition(&mut self, node: Node<'t>) {
        let (on_true, on_false) = self.lower_cond(node, DecisionKind::Value, None);
        self.flow.pending = on_true;
        self.flow.pending.extend(on_false);
    }

    /// Lowers the sub-expressions of `node` in evaluation order; `node` itself makes no
    /// decision.
    pub(super) fn lower_operands(&mut self, node: Node<'t>) {
        match node.kind() {
            "switch_expression" => self.lower_switch(node, true),
            "method_invocation" => {
                let arguments = node.child_by_field_name("arguments");
                // The receiver runs first, but javac attributes the arguments first: classes
                // in the receiver are numbered after those in the arguments.
                if let Some(object) = node.child_by_field_name("object") {
                    self.order_prefix
                        .push(arguments.map_or(node.end_byte(), |a| a.end_byte()));
                    self.lower_expr(object);
                    self.order_prefix.pop();
                }
                if let Some(arguments) = arguments {
                    self.lower_expr(arguments);
                }
            }
            "object_creation_expression" => {
                let mut class_body = None;
                for child in named_children(node) {
                    if child.kind() == "class_body" {
                        class_body = Some(child);
                    } else {
                        self.lower_expr(child);
                    }
                }
                if let Some(body) = class_body {
                    self.local_type(node, body.start_byte());
                }
            }
            "argument_list" => {
                let end = node.end_byte();
                for argument in named_children(node) {
                    let inner = unparenthesize(argument);
                    if inner.kind() == "lambda_expression" {
                        self.lower_lambda(inner, Some(end));
                    } else {
                        self.lower_expr(argument);
                    }
                }
            }
            "class_body" => {}
            "ERROR" => self.scan_opaque(node),
            _ => {
                for child in named_children(node) {
                    self.lower_expr(child);
                }
            }
        }
    }

    /// Lowers a condition; returns the pending edges taken when it is true and when it is
    /// false. Each atomic condition becomes a decision of `kind`.
    pub(super) fn lower_cond(
        &mut self,
        node: Node<'t>,
        kind: DecisionKind,
        operand_of: Option<LogicalOp>,
    ) -> (Vec<Pending>, Vec<Pending>) {
        match node.kind() {
            "parenthesized_expression" => {
                if let Some(inner) = named_children(node).into_iter().next() {
                    return self.lower_cond(inner, kind, operand_of);
                }
            }
            "unary_expression" if operator(self.src(), node) == "!" => {
                if let Some(operand) = node.child_by_field_name("operand") {
                    let (on_true, on_false) = self.lower_cond(operand, kind, operand_of);
                    return (on_false, on_true);
                }
            }
            "binary_expression" => {
                let op = operator(self.src(), node);
                let logical = match op {
                    "&&" => Some(LogicalOp::And),
                    "||" => Some(LogicalOp::Or),
                    _ => None,
                };
                if let Some(logical) = logical {
                    if let Some(result) = self.lower_logical_chain(node, op, logical, kind) {
                        return result;
                    }
                }
            }
            "ternary_expression" => {
                if let (Some(condition), Some(consequence), Some(alternative)) = (
                    node.child_by_field_name("condition"),
                    node.child_by_field_name("consequence"),
                    node.child_by_field_name("alternative"),
                ) {
                    let (c_true, c_false) = self.lower_cond(condition, DecisionKind::Ternary, None);
                    self.flow.pending = c_true;
                    let (mut on_true, mut on_false) = self.lower_cond(consequence, kind, None);
                    self.flow.pending = c_false;
                    let (alt_true, alt_false) = self.lower_cond(alternative, kind, None);
                    on_true.extend(alt_true);
                    on_false.extend(alt_false);
                    return (on_true, on_false);
                }
            }
            "true" | "false" => {
                let value = node.kind() == "true";
                let id = self.new_decision(
                    kind,
                    Span::of(node),
                    ConditionShape::Literal,
                    operand_of,
                    Vec::new(),
                );
                self.decisions[id as usize].constant = Some(value);
                let pending = self.take_pending();
                return if value {
                    (pending, Vec::new())
                } else {
                    (Vec::new(), pending)
                };
            }
            _ => {}
        }
        // An atomic condition: evaluate its operands, then decide.
        self.lower_operands(node);
        let shape = self.shape(node);
        let id = self.new_decision(
            kind,
            Span::of(node),
            shape,
            operand_of,
            vec![Outcome::True, Outcome::False],
        );
        let decision = self.add_decision_node(id);
        (
            vec![Pending::outcome(decision, Outcome::True)],
            vec![Pending::outcome(decision, Outcome::False)],
        )
    }

    /// `a && b && c` (one operator, left-nested): the left spine is walked iteratively so
    /// that long chains cannot overflow the stack. `a && b`: `b` runs when `a` is true, and the
    /// whole is false when either is. `a || b`: `b` runs when `a` is false.
    fn lower_logical_chain(
        &mut self,
        node: Node<'t>,
        op: &str,
        logical: LogicalOp,
        kind: DecisionKind,
    ) -> Option<(Vec<Pending>, Vec<Pending>)> {
        let src = self.src();
        let mut rights = Vec::new();
        let mut current = node;
        while current.kind() == "binary_expression" && operator(src, current) == op {
            let left = current.child_by_field_name("left")?;
            let right = current.child_by_field_name("right")?;
            rights.push(right);
            current = left;
        }
        let (mut on_true, mut on_false) = self.lower_cond(current, kind, Some(logical));
        for right in rights.into_iter().rev() {
            match logical {
                LogicalOp::And => {
                    self.flow.pending = on_true;
                    let (right_true, right_false) = self.lower_cond(right, kind, Some(logical));
                    on_false.extend(right_false);
                    on_true = right_true;
                }
                LogicalOp::Or => {
                    self.flow.pending = on_false;
                    let (right_true, right_false) = self.lower_cond(right, kind, Some(logical));
                    on_true.extend(right_true);
                    on_false = right_false;
                }
            }
        }
        Some((on_true, on_false))
    }

    fn shape(&self, node: Node<'t>) -> ConditionShape {
        let src = self.src();
        match node.kind() {
            "binary_expression" => {
                let op = ComparisonOp::from_token(operator(src, node));
                let left = node.child_by_field_name("left");
                let right = node.child_by_field_name("right");
                if let (Some(op), Some(left), Some(right)) = (op, left, right) {
                    let operand = |n: Node<'_>| {
                        let n = unparenthesize(n);
                        Operand {
                            span: Span::of(n),
                            node_kind: n.kind(),
                        }
                    };
                    return ConditionShape::Comparison {
                        op,
                        left: operand(left),
                        right: operand(right),
                    };
                }
                ConditionShape::Other {
                    node_kind: node.kind(),
                }
            }
            "instanceof_expression" => {
                let operand = node
                    .child_by_field_name("left")
                    .map_or(Span::of(node), Span::of);
                let binding = node
                    .child_by_field_name("name")
                    .map(|n| text(src, n).to_string());
                let (pattern, record_pattern) = match node.child_by_field_name("pattern") {
                    Some(p) => (collapsed(src, p), true),
                    None => (
                        node.child_by_field_name("right")
                            .map(|t| collapsed(src, t))
                            .unwrap_or_default(),
                        false,
                    ),
                };
                ConditionShape::Instanceof {
                    operand,
                    pattern,
                    binding,
                    record_pattern,
                }
            }
            "method_invocation" => ConditionShape::Call {
                name: node
                    .child_by_field_name("name")
                    .map(|n| text(src, n).to_string())
                    .unwrap_or_default(),
                receiver: node.child_by_field_name("object").map(Span::of),
                arguments: node
                    .child_by_field_name("arguments")
                    .map(|a| named_children(a).into_iter().map(Span::of).collect())
                    .unwrap_or_default(),
            },
            "identifier" | "field_access" => ConditionShape::Variable,
            kind => ConditionShape::Other { node_kind: kind },
        }
    }

    /// Code the flow does not model (an `assert`, a syntax error): only lambdas and classes
    /// inside are collected, so they still get CFGs and types. Iterative, in source order.
    pub(super) fn scan_opaque(&mut self, node: Node<'t>) {
        let mut stack: Vec<Node<'t>> = named_children(node).into_iter().rev().collect();
        while let Some(child) = stack.pop() {
            match child.kind() {
                "lambda_expression" => self.lower_lambda(child, None),
                "object_creation_expression" => {
                    let parts = named_children(child);
                    if let Some(body) = parts.iter().find(|p| p.kind() == "class_body") {
                        self.local_type(child, body.start_byte());
                    }
                    stack.extend(parts.into_iter().filter(|p| p.kind() != "class_body").rev());
                }
                "class_declaration"
                | "interface_declaration"
                | "enum_declaration"
                | "record_declaration"
                | "annotation_type_declaration" => {
                    self.local_type(child, child.start_byte());
                }
                _ => stack.extend(named_children(child).into_iter().rev()),
            }
        }
    }
}
