//! Lowering of statements: blocks, loops, `if`, labels, jumps, `try`/`catch`/`finally` (with
//! resources), `synchronized`, and local class declarations (which the flow skips).

use tree_sitter::Node;

use super::{BodyBuilder, Ctx, Jump, Pending};
use crate::branches::{ConditionShape, DecisionKind, Outcome};
use crate::cfg::{CfgNodeKind, EdgeLabel, NodeId};
use crate::control_dependence::CatchBody;
use crate::model::Span;
use crate::text::{children_by_field, collapsed, first_named_of_kind, named_children, text, token};

/// The span from `node`'s start to the end of its `)` token (`while (x)`, `catch (E e)`),
/// or the first token when there is none.
fn head_span(node: Node<'_>) -> Span {
    match token(node, ")") {
        Some(close) => Span::cover(node, close),
        None => node.child(0).map_or(Span::of(node), Span::of),
    }
}

fn keyword_span(node: Node<'_>) -> Span {
    node.child(0).map_or(Span::of(node), Span::of)
}

impl<'a, 't> BodyBuilder<'a, 't> {
    pub(super) fn lower_stmt(&mut self, node: Node<'t>) {
        self.lower_stmt_labeled(node, None);
    }

    /// `label` is the label directly on this statement, which `continue label` may target if
    /// it is a loop.
    fn lower_stmt_labeled(&mut self, node: Node<'t>, label: Option<String>) {
        let span = Some(Span::of(node));
        match node.kind() {
            "block" | "constructor_body" => {
                for child in named_children(node) {
                    self.lower_stmt(child);
                }
            }
            "local_variable_declaration" => {
                for declarator in children_by_field(node, "declarator") {
                    if let Some(value) = declarator.child_by_field_name("value") {
                        self.lower_expr(value);
                    }
                }
                self.add_node(CfgNodeKind::Statement, span);
            }
            "expression_statement" | "explicit_constructor_invocation" => {
                self.lower_operands(node);
                self.add_node(CfgNodeKind::Statement, span);
            }
            "if_statement" => self.lower_if(node),
            "while_statement" => self.lower_while(node, label),
            "do_statement" => self.lower_do(node, label),
            "for_statement" => self.lower_for(node, label),
            "enhanced_for_statement" => self.lower_enhanced_for(node, label),
            "labeled_statement" => self.lower_labeled(node),
            "switch_expression" => self.lower_switch(node, false),
            "return_statement" => {
                self.lower_operands(node);
                self.add_node(CfgNodeKind::Statement, span);
                self.jump(Jump::Return);
            }
            "throw_statement" => {
                self.lower_operands(node);
                self.add_node(CfgNodeKind::Statement, span);
                self.jump(Jump::Throw);
            }
            "yield_statement" => {
                self.lower_operands(node);
                self.add_node(CfgNodeKind::Statement, span);
                self.jump(Jump::Yield);
            }
            "break_statement" | "continue_statement" => {
                let target = first_named_of_kind(node, "identifier")
                    .map(|l| text(self.src(), l).to_string());
                self.add_node(CfgNodeKind::Statement, span);
                self.jump(if node.kind() == "break_statement" {
                    Jump::Break(target)
                } else {
                    Jump::Continue(target)
                });
            }
            "try_statement" | "try_with_resources_statement" => self.lower_try(node),
            "synchronized_statement" => {
                let lock = first_named_of_kind(node, "parenthesized_expression");
                if let Some(lock) = lock {
                    self.lower_expr(lock);
                }
                self.add_node(CfgNodeKind::Statement, Some(head_span(node)));
                if let Some(body) = node.child_by_field_name("body") {
                    self.lower_stmt(body);
                }
            }
            // Assertions are disabled by default; their conditions are not goals.
            "assert_statement" => {
                self.add_node(CfgNodeKind::Statement, span);
                self.scan_opaque(node);
            }
            "class_declaration"
            | "interface_declaration"
            | "enum_declaration"
            | "record_declaration"
            | "annotation_type_declaration" => self.local_type(node, node.start_byte()),
            "ERROR" => {
                self.add_node(CfgNodeKind::Statement, span);
                self.scan_opaque(node);
            }
            // Other nodes in statement position (error recovery can put expressions here).
            _ => {
                self.lower_expr(node);
                self.add_node(CfgNodeKind::Statement, span);
            }
        }
    }

    /// An `if` and its `else if` chain, iteratively: generated code can chain thousands.
    fn lower_if(&mut self, node: Node<'t>) {
        let mut after = Vec::new();
        let mut current = Some(node);
        while let Some(node) = current.take() {
            let (on_true, on_false) = match node.child_by_field_name("condition") {
                Some(condition) => self.lower_cond(condition, DecisionKind::If, None),
                None => (self.take_pending(), Vec::new()),
            };
            self.flow.pending = on_true;
            if let Some(consequence) = node.child_by_field_name("consequence") {
                self.lower_stmt(consequence);
            }
            after.extend(self.take_pending());
            self.flow.pending = on_false;
            match node.child_by_field_name("alternative") {
                Some(alternative) if alternative.kind() == "if_statement" => {
                    current = Some(alternative);
                }
                Some(alternative) => self.lower_stmt(alternative),
                None => {}
            }
        }
        self.flow.pending.extend(after);
    }

    fn push_loop(&mut self, label: Option<String>) {
        self.flow.ctx.push(Ctx::Loop {
            label,
            breaks: Vec::new(),
            continues: Vec::new(),
        });
    }

    /// Pops the loop context; returns its (breaks, continues).
    fn pop_loop(&mut self) -> (Vec<Pending>, Vec<Pending>) {
        match self.flow.ctx.pop() {
            Some(Ctx::Loop {
                breaks, continues, ..
            }) => (breaks, continues),
            _ => unreachable!("loop contexts are pushed and popped in pairs"),
        }
    }

    fn lower_while(&mut self, node: Node<'t>, label: Option<String>) {
        let head = self.add_node(CfgNodeKind::LoopHead, Some(keyword_span(node)));
        let (on_true, on_false) = match node.child_by_field_name("condition") {
            Some(condition) => self.lower_cond(condition, DecisionKind::While, None),
            None => (self.take_pending(), Vec::new()),
        };
        self.flow.pending = on_true;
        self.push_loop(label);
        if let Some(body) = node.child_by_field_name("body") {
            self.lower_stmt(body);
        }
        let (breaks, continues) = self.pop_loop();
        let mut back = self.take_pending();
        back.extend(continues);
        self.connect(back, head);
        self.flow.pending = on_false;
        self.flow.pending.extend(breaks);
    }

    fn lower_do(&mut self, node: Node<'t>, label: Option<String>) {
        let head = self.add_node(CfgNodeKind::LoopHead, Some(keyword_span(node)));
        self.push_loop(label);
        if let Some(body) = node.child_by_field_name("body") {
            self.lower_stmt(body);
        }
        let (breaks, continues) = self.pop_loop();
        self.flow.pending.extend(continues);
        let (on_true, on_false) = match node.child_by_field_name("condition") {
            Some(condition) => self.lower_cond(condition, DecisionKind::DoWhile, None),
            None => (Vec::new(), self.take_pending()),
        };
        self.connect(on_true, head);
        self.flow.pending = on_false;
        self.flow.pending.extend(breaks);
    }

    fn lower_for(&mut self, node: Node<'t>, label: Option<String>) {
        for init in children_by_field(node, "init") {
            if init.kind() == "local_variable_declaration" {
                self.lower_stmt(init);
            } else {
                self.lower_expr(init);
                self.add_node(CfgNodeKind::Statement, Some(Span::of(init)));
            }
        }
        let head = self.add_node(CfgNodeKind::LoopHead, Some(keyword_span(node)));
        // `for (;;)` has no decision: the body follows the head unconditionally.
        let (on_true, on_false) = match node.child_by_field_name("condition") {
            Some(condition) => self.lower_cond(condition, DecisionKind::For, None),
            None => (self.take_pending(), Vec::new()),
        };
        self.flow.pending = on_true;
        self.push_loop(label);
        if let Some(body) = node.child_by_field_name("body") {
            self.lower_stmt(body);
        }
        let (breaks, continues) = self.pop_loop();
        self.flow.pending.extend(continues);
        let updates = children_by_field(node, "update");
        if let (Some(first), Some(last)) = (updates.first(), updates.last()) {
            self.add_node(CfgNodeKind::ForUpdate, Some(Span::cover(*first, *last)));
            for update in &updates {
                self.lower_expr(*update);
            }
        }
        let back = self.take_pending();
        self.connect(back, head);
        self.flow.pending = on_false;
        self.flow.pending.extend(breaks);
    }

    fn lower_enhanced_for(&mut self, node: Node<'t>, label: Option<String>) {
        let iterable = node.child_by_field_name("value");
        if let Some(iterable) = iterable {
            self.lower_expr(iterable);
        }
        let span = head_span(node);
        let id = self.new_decision(
            DecisionKind::ForEach,
            span,
            ConditionShape::ForEach {
                iterable: iterable.map_or(span, Span::of),
            },
            None,
            vec![Outcome::True, Outcome::False],
        );
        // The has-next decision is the loop head.
        let head = self.add_decision_node(id);
        self.flow.pending = vec![Pending::outcome(head, Outcome::True)];
        self.push_loop(label);
        if let Some(body) = node.child_by_field_name("body") {
            self.lower_stmt(body);
        }
        let (breaks, continues) = self.pop_loop();
        let mut back = self.take_pending();
        back.extend(continues);
        self.connect(back, head);
        self.flow.pending = vec![Pending::outcome(head, Outcome::False)];
        self.flow.pending.extend(breaks);
    }

    fn lower_labeled(&mut self, node: Node<'t>) {
        let parts = named_children(node);
        let label = parts
            .iter()
            .find(|c| c.kind() == "identifier")
            .map(|l| text(self.src(), *l).to_string())
            .unwrap_or_default();
        let Some(statement) = parts.iter().rev().find(|c| c.kind() != "identifier") else {
            return;
        };
        self.flow.ctx.push(Ctx::Labeled {
            label: label.clone(),
            breaks: Vec::new(),
        });
        self.lower_stmt_labeled(*statement, Some(label));
        if let Some(Ctx::Labeled { breaks, .. }) = self.flow.ctx.pop() {
            self.flow.pending.extend(breaks);
        }
    }

    fn lower_try(&mut self, node: Node<'t>) {
        let try_node = self.add_node(CfgNodeKind::Try, Some(keyword_span(node)));
        let parts = named_children(node);
        let clauses: Vec<Node<'t>> = parts
            .iter()
            .copied()
            .filter(|c| c.kind() == "catch_clause")
            .collect();
        let finally = parts.iter().copied().find(|c| c.kind() == "finally_clause");

        let mut catches: Vec<(u32, NodeId)> = Vec::new();
        for clause in &clauses {
            let span = head_span(*clause);
            let parameter = first_named_of_kind(*clause, "catch_formal_parameter");
            let types = parameter
                .and_then(|p| first_named_of_kind(p, "catch_type"))
                .map(|t| {
                    named_children(t)
                        .into_iter()
                        .map(|ty| collapsed(self.src(), ty))
                        .collect()
                })
                .unwrap_or_default();
            let name = parameter
                .and_then(|p| p.child_by_field_name("name"))
                .map(|n| text(self.src(), n).to_string())
                .unwrap_or_default();
            let id = self.new_decision(
                DecisionKind::Catch,
                span,
                ConditionShape::Catch { types, name },
                None,
                vec![Outcome::Entered],
            );
            let catch_node = self.new_node(CfgNodeKind::Decision(id), Some(span));
            self.decisions[id as usize].location = Some(crate::branches::CfgLocation {
                cfg: self.flow.index,
                node: catch_node,
            });
            // Any statement of the body (or a resource) may throw.
            self.add_edge(try_node, catch_node, EdgeLabel::Exception);
            catches.push((id, catch_node));
        }
        if finally.is_some() {
            self.flow.ctx.push(Ctx::TryFinally {
                entries: vec![Pending {
                    from: try_node,
                    label: EdgeLabel::Exception,
                }],
                continuations: vec![Jump::Throw],
            });
        }
        if !catches.is_empty() {
            self.flow.ctx.push(Ctx::TryCatch {
                catches: catches.iter().map(|&(_, n)| n).collect(),
            });
        }

        if let Some(resources) = node.child_by_field_name("resources") {
            for resource in named_children(resources) {
                if let Some(value) = resource.child_by_field_name("value") {
                    self.lower_expr(value);
                }
                self.add_node(CfgNodeKind::Statement, Some(Span::of(resource)));
            }
        }
        if let Some(body) = node.child_by_field_name("body") {
            self.lower_stmt(body);
        }
        let mut normal = self.take_pending();
        if !catches.is_empty() {
            self.flow.ctx.pop();
        }
        for (clause, &(decision, catch_node)) in clauses.iter().zip(&catches) {
            let first = self.flow.cfg.nodes.len() as u32;
            self.flow.pending = vec![Pending::outcome(catch_node, Outcome::Entered)];
            if let Some(body) = clause.child_by_field_name("body") {
                self.lower_stmt(body);
            }
            normal.extend(self.take_pending());
            let end = self.flow.cfg.nodes.len() as u32;
            self.flow.catch_bodies.push(CatchBody {
                catch_node,
                decision,
                nodes: first..end,
            });
        }

        let Some(finally) = finally else {
            self.flow.pending = normal;
            return;
        };
        let Some(Ctx::TryFinally {
            entries,
            continuations,
        }) = self.flow.ctx.pop()
        else {
            unreachable!("the finally context is the innermost one left")
        };
        let completes_normally = !normal.is_empty();
        self.flow.pending = normal;
        self.flow.pending.extend(entries);
        self.add_node(CfgNodeKind::FinallyEntry, Some(keyword_span(finally)));
        if let Some(block) = first_named_of_kind(finally, "block") {
            self.lower_stmt(block);
        }
        let finally_exit = self.add_node(CfgNodeKind::FinallyExit, None);
        for jump in continuations {
            self.flow.pending = vec![Pending::flow(finally_exit)];
            self.jump(jump);
        }
        self.flow.pending = if completes_normally {
            vec![Pending::flow(finally_exit)]
        } else {
            Vec::new()
        };
    }
}
