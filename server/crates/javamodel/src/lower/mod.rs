//! Lowering of a member's code (body, or initializer pieces) into control-flow graphs and
//! decisions; lambda bodies become further CFGs of the same member. This file owns the builder
//! state, jumps (`break`, `continue`, `return`, `yield`, `throw`) through their enclosing
//! constructs, and the final numbering and analysis.
//!
//! Recursion follows the syntax tree's nesting, except along the chains that generated code
//! makes long (`a + b + ...`, `a && b && ...`, `else if`), which are walked iteratively; code
//! nested thousands of levels deep in other ways needs a thread with a larger stack.
//!
//! Lambda bodies belong to the enclosing member: their decisions are numbered with the
//! member's, and a lambda body's root goals depend on what the node creating the lambda
//! depends on (the body cannot run before the lambda exists). Local and anonymous classes are
//! not part of the flow; they become types of their own (see `build`).

mod expressions;
mod statements;
mod switch;

use tree_sitter::Node;

use crate::branches::{
    CfgLocation, ConditionShape, ControlDep, Decision, DecisionKind, LogicalOp, Outcome,
};
use crate::build::Env;
use crate::cfg::{Cfg, CfgEdge, CfgNode, CfgNodeKind, CfgOrigin, EdgeLabel, NodeId, ENTRY, EXIT};
use crate::control_dependence::{self, CatchBody};
use crate::model::{Body, MemberKind, Span, TypeDecl};
use crate::text::named_children;

/// A dangling edge: it will lead from `from` to the next node created.
#[derive(Debug, Clone, Copy)]
struct Pending {
    from: NodeId,
    label: EdgeLabel,
}

impl Pending {
    fn flow(from: NodeId) -> Pending {
        Pending {
            from,
            label: EdgeLabel::Flow,
        }
    }

    fn outcome(from: NodeId, outcome: Outcome) -> Pending {
        Pending {
            from,
            label: EdgeLabel::Outcome(outcome),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Jump {
    Break(Option<String>),
    Continue(Option<String>),
    Return,
    Yield,
    Throw,
}

/// An enclosing construct that a jump may target or pass through.
#[derive(Debug)]
enum Ctx {
    Loop {
        label: Option<String>,
        breaks: Vec<Pending>,
        continues: Vec<Pending>,
    },
    Switch {
        breaks: Vec<Pending>,
    },
    SwitchExpr {
        yields: Vec<Pending>,
    },
    Labeled {
        label: String,
        breaks: Vec<Pending>,
    },
    /// Inside a try body that has catches: a `throw` may land in any of them.
    TryCatch {
        catches: Vec<NodeId>,
    },
    /// Inside a try body or catch with a finally: every jump goes through the finally first.
    TryFinally {
        entries: Vec<Pending>,
        continuations: Vec<Jump>,
    },
}

/// The graph under construction for one body.
struct Flow {
    index: u32,
    cfg: Cfg,
    pending: Vec<Pending>,
    ctx: Vec<Ctx>,
    catch_bodies: Vec<CatchBody>,
}

struct LambdaJob<'t> {
    node: Node<'t>,
    parent: u32,
    creation: NodeId,
    order_prefix: Vec<usize>,
}

struct BodyBuilder<'a, 't> {
    env: &'a Env<'a>,
    /// Decisions in creation order; `ordinal` is the creation index until `finish` sorts them.
    decisions: Vec<Decision>,
    cfgs: Vec<Cfg>,
    catch_bodies: Vec<Vec<CatchBody>>,
    flow: Flow,
    lambda_jobs: Vec<LambdaJob<'t>>,
    local_types: Vec<TypeDecl>,
    /// Prefix of the javac attribution-order key for local classes found now.
    order_prefix: Vec<usize>,
}

/// Lowers the code of one member. `pieces` are the member's code nodes: a method or
/// constructor body, or the initializer pieces of `<clinit>` / `<instinit>` (variable
/// declarators, static initializers, instance initializer blocks, enum constant argument
/// lists). `entry_span` is the range of a method-entry goal (the member's name).
pub(crate) fn lower_member<'t>(
    env: &Env<'_>,
    kind: MemberKind,
    pieces: &[Node<'t>],
    entry_span: Span,
) -> (Body, Vec<TypeDecl>) {
    let mut b = BodyBuilder {
        env,
        decisions: Vec::new(),
        cfgs: Vec::new(),
        catch_bodies: Vec::new(),
        flow: Flow::new(0, CfgOrigin::Member),
        lambda_jobs: Vec::new(),
        local_types: Vec::new(),
        order_prefix: Vec::new(),
    };
    for &piece in pieces {
        b.lower_piece(piece);
    }
    b.close_flow();
    let mut job_index = 0;
    while job_index < b.lambda_jobs.len() {
        let job = &b.lambda_jobs[job_index];
        let (node, parent, creation) = (job.node, job.parent, job.creation);
        b.order_prefix = job.order_prefix.clone();
        let origin = CfgOrigin::Lambda {
            span: Span::of(node),
            parent,
            creation_node: creation,
        };
        b.flow = Flow::new(job_index as u32 + 1, origin);
        b.lower_lambda_body(node);
        b.close_flow();
        job_index += 1;
    }
    b.finish(kind, entry_span)
}

impl Flow {
    fn new(index: u32, origin: CfgOrigin) -> Flow {
        let node = |kind| CfgNode {
            kind,
            span: None,
            reachable: false,
            control_deps: Vec::new(),
        };
        Flow {
            index,
            cfg: Cfg {
                origin,
                nodes: vec![node(CfgNodeKind::Entry), node(CfgNodeKind::Exit)],
                edges: Vec::new(),
                ipdom: Vec::new(),
            },
            pending: vec![Pending::flow(ENTRY)],
            ctx: Vec::new(),
            catch_bodies: Vec::new(),
        }
    }
}

impl<'a, 't> BodyBuilder<'a, 't> {
    fn src(&self) -> &'a str {
        self.env.src
    }

    fn lower_piece(&mut self, piece: Node<'t>) {
        match piece.kind() {
            // A field: `name = value`.
            "variable_declarator" => {
                if let Some(value) = piece.child_by_field_name("value") {
                    self.lower_expr(value);
                }
                self.add_node(CfgNodeKind::Statement, Some(Span::of(piece)));
            }
            "static_initializer" => {
                for block in named_children(piece) {
                    self.lower_stmt(block);
                }
            }
            // Enum constant arguments.
            "argument_list" => {
                self.lower_expr(piece);
                self.add_node(CfgNodeKind::Statement, Some(Span::of(piece)));
            }
            // Method and lambda blocks, constructor bodies, instance initializers.
            _ => self.lower_stmt(piece),
        }
    }

    fn lower_lambda_body(&mut self, lambda: Node<'t>) {
        let Some(body) = lambda.child_by_field_name("body") else {
            return;
        };
        if body.kind() == "block" {
            self.lower_stmt(body);
        } else {
            self.lower_expr(body);
            self.add_node(CfgNodeKind::Statement, Some(Span::of(body)));
        }
    }

    /// Ends the current body: what is still pending flows to the exit.
    fn close_flow(&mut self) {
        let pending = std::mem::take(&mut self.flow.pending);
        self.connect(pending, EXIT);
        let flow = std::mem::replace(&mut self.flow, Flow::new(u32::MAX, CfgOrigin::Member));
        self.cfgs.push(flow.cfg);
        self.catch_bodies.push(flow.catch_bodies);
    }

    /// Creates a node that the pending edges lead to; it becomes the only pending source.
    fn add_node(&mut self, kind: CfgNodeKind, span: Option<Span>) -> NodeId {
        let id = self.new_node(kind, span);
        let pending = std::mem::take(&mut self.flow.pending);
        self.connect(pending, id);
        self.flow.pending = vec![Pending::flow(id)];
        id
    }

    /// Creates a node without predecessors.
    fn new_node(&mut self, kind: CfgNodeKind, span: Option<Span>) -> NodeId {
        let id = self.flow.cfg.nodes.len() as NodeId;
        self.flow.cfg.nodes.push(CfgNode {
            kind,
            span,
            reachable: false,
            control_deps: Vec::new(),
        });
        id
    }

    fn add_edge(&mut self, from: NodeId, to: NodeId, label: EdgeLabel) {
        self.flow.cfg.edges.push(CfgEdge { from, to, label });
    }

    fn connect(&mut self, pending: Vec<Pending>, to: NodeId) {
        for p in pending {
            self.add_edge(p.from, to, p.label);
        }
    }

    fn take_pending(&mut self) -> Vec<Pending> {
        std::mem::take(&mut self.flow.pending)
    }

    /// Records a decision (not yet in the CFG); returns its creation index.
    fn new_decision(
        &mut self,
        kind: DecisionKind,
        span: Span,
        shape: ConditionShape,
        operand_of: Option<LogicalOp>,
        outcomes: Vec<Outcome>,
    ) -> u32 {
        let id = self.decisions.len() as u32;
        self.decisions.push(Decision {
            ordinal: id,
            class_index: None,
            kind,
            operand_of,
            span,
            shape,
            constant: None,
            outcomes,
            cases: Vec::new(),
            location: None,
            control_deps: Vec::new(),
            reachable: false,
        });
        id
    }

    /// Adds a decision node for decision `id` after the pending edges.
    fn add_decision_node(&mut self, id: u32) -> NodeId {
        let span = self.decisions[id as usize].span;
        let node = self.add_node(CfgNodeKind::Decision(id), Some(span));
        self.decisions[id as usize].location = Some(CfgLocation {
            cfg: self.flow.index,
            node,
        });
        self.flow.pending.clear();
        node
    }

    /// Sends the pending edges along `jump`, through every finally on the way. Afterwards
    /// nothing is pending: the code after a jump is unreachable.
    fn jump(&mut self, jump: Jump) {
        let pending = self.take_pending();
        for i in (0..self.flow.ctx.len()).rev() {
            match &mut self.flow.ctx[i] {
                Ctx::TryFinally {
                    entries,
                    continuations,
                } => {
                    entries.extend(pending);
                    if !continuations.contains(&jump) {
                        continuations.push(jump);
                    }
                    return;
                }
                Ctx::TryCatch { catches } => {
                    if jump == Jump::Throw {
                        let catches = catches.clone();
                        for p in &pending {
                            for &c in &catches {
                                self.add_edge(p.from, c, EdgeLabel::Exception);
                            }
                        }
                    }
                }
                Ctx::Loop {
                    label,
                    breaks,
                    continues,
                } => match &jump {
                    Jump::Break(None) => {
                        breaks.extend(pending);
                        return;
                    }
                    Jump::Continue(None) => {
                        continues.extend(pending);
                        return;
                    }
                    Jump::Continue(Some(l)) if label.as_deref() == Some(l.as_str()) => {
                        continues.extend(pending);
                        return;
                    }
                    _ => {}
                },
                Ctx::Switch { breaks } => {
                    if jump == Jump::Break(None) {
                        breaks.extend(pending);
                        return;
                    }
                }
                Ctx::SwitchExpr { yields } => {
                    if jump == Jump::Yield {
                        yields.extend(pending);
                        return;
                    }
                }
                Ctx::Labeled { label, breaks } => {
                    if let Jump::Break(Some(l)) = &jump {
                        if l == label {
                            breaks.extend(pending);
                            return;
                        }
                    }
                }
            }
        }
        // `return`, an uncaught `throw`, or a jump whose target is missing (broken code).
        self.connect(pending, EXIT);
    }

    /// Queues a lambda body for lowering and adds the node that creates the lambda.
    /// `deferred_until` is the end of the argument list when the lambda is a call argument:
    /// javac attributes such lambdas after the call's other arguments, which matters for the
    /// numbering of anonymous classes inside.
    fn lower_lambda(&mut self, lambda: Node<'t>, deferred_until: Option<usize>) {
        let cfg_index = self.lambda_jobs.len() as u32 + 1;
        let creation = self.add_node(CfgNodeKind::Lambda(cfg_index), Some(Span::of(lambda)));
        let mut order_prefix = self.order_prefix.clone();
        order_prefix.extend(deferred_until);
        self.lambda_jobs.push(LambdaJob {
            node: lambda,
            parent: self.flow.index,
            creation,
            order_prefix,
        });
    }

    /// Builds a local or anonymous class found in the code. `order_at` is where javac
    /// attributes it (the class body for anonymous classes).
    fn local_type(&mut self, node: Node<'t>, order_at: usize) {
        let mut order_key = self.order_prefix.clone();
        order_key.push(order_at);
        if let Some(ty) = crate::build::local_type(self.env, node, order_key) {
            self.local_types.push(ty);
        }
    }

    /// Adds the method-entry goal, numbers decisions in pre-order and computes control
    /// dependence for every CFG.
    fn finish(mut self, kind: MemberKind, entry_span: Span) -> (Body, Vec<TypeDecl>) {
        let takes_entry_goal = matches!(
            kind,
            MemberKind::Method | MemberKind::Constructor | MemberKind::CompactConstructor
        );
        let branch_free = !self.decisions.iter().any(|d| {
            d.constant.is_none()
                && d.kind != DecisionKind::Catch
                && d.location.is_some_and(|l| l.cfg == 0)
        });
        if takes_entry_goal && branch_free {
            let span = entry_span;
            let id = self.new_decision(
                DecisionKind::MethodEntry,
                span,
                ConditionShape::MethodEntry,
                None,
                vec![Outcome::Entered],
            );
            self.decisions[id as usize].location = Some(CfgLocation {
                cfg: 0,
                node: ENTRY,
            });
        }

        // Pre-order: outer syntax nodes start no later and end no earlier than inner ones.
        let mut order: Vec<u32> = (0..self.decisions.len() as u32).collect();
        order.sort_by_key(|&i| {
            let d = &self.decisions[i as usize];
            (d.span.start_byte, std::cmp::Reverse(d.span.end_byte), i)
        });
        let mut new_of_old = vec![0u32; order.len()];
        for (new, &old) in order.iter().enumerate() {
            new_of_old[old as usize] = new as u32;
        }
        let mut old_decisions: Vec<Option<Decision>> = std::mem::take(&mut self.decisions)
            .into_iter()
            .map(Some)
            .collect();
        let mut decisions: Vec<Decision> = order
            .iter()
            .map(|&old| old_decisions[old as usize].take().expect("each index once"))
            .collect();
        for (i, d) in decisions.iter_mut().enumerate() {
            d.ordinal = i as u32;
        }
        for cfg in &mut self.cfgs {
            for node in &mut cfg.nodes {
                if let CfgNodeKind::Decision(old) = node.kind {
                    node.kind = CfgNodeKind::Decision(new_of_old[old as usize]);
                }
            }
        }
        for bodies in &mut self.catch_bodies {
            for body in bodies {
                body.decision = new_of_old[body.decision as usize];
            }
        }

        for index in 0..self.cfgs.len() {
            let (entry_deps, entry_reachable) = match self.cfgs[index].origin {
                CfgOrigin::Member => (vec![ControlDep::Entry], true),
                CfgOrigin::Lambda {
                    parent,
                    creation_node,
                    ..
                } => {
                    let node = &self.cfgs[parent as usize].nodes[creation_node as usize];
                    (node.control_deps.clone(), node.reachable)
                }
            };
            control_dependence::analyse(
                &mut self.cfgs[index],
                &entry_deps,
                entry_reachable,
                &self.catch_bodies[index],
            );
        }
        for d in &mut decisions {
            if let Some(location) = d.location {
                let node = &self.cfgs[location.cfg as usize].nodes[location.node as usize];
                d.control_deps = node.control_deps.clone();
                d.reachable = node.reachable;
            }
        }
        (
            Body {
                decisions,
                cfgs: self.cfgs,
            },
            self.local_types,
        )
    }
}
