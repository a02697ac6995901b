//! Probes around statements: `line` before every executed statement, `enter` at the start of
//! method and constructor bodies and the wrapper that reports exceptions escaping them, `loop`
//! at the start of loop bodies, the has-next outcomes of enhanced fors, catch clauses being
//! entered, and `alloc` around creation expressions.
//!
//! A statement that is the body of an `if`, `else` or loop without braces is wrapped in a
//! block first, so a probe can precede it. A block changes neither definite assignment nor
//! reachability, and `else if` chains are left unwrapped (no line probe for the `else if`).

use tree_sitter::Node;

use super::edits::Layer;
use super::table::{
    BranchProbe, FallbackReason, LoopProbe, MethodProbe, ProbeKind, ProbeLevel, SiteId,
};
use super::{DecisionRef, InstrumentMode, Instrumenter, SiteBuild, PROBE};

/// The catch parameter of the wrapper that reports escaping exceptions: a name no user code in
/// its scope (the catch block the instrumenter writes) can mean.
const ESCAPING: &str = "$ctglsEscaping";
use crate::branches::{DecisionKind, Outcome};
use crate::model::MemberKind;
use crate::text::{named_children, text};

/// Statements that execute something (declarations of local classes and blocks do not; an
/// explicit constructor invocation must stay first in its body).
fn executable(kind: &str) -> bool {
    matches!(
        kind,
        "expression_statement"
            | "local_variable_declaration"
            | "if_statement"
            | "while_statement"
            | "for_statement"
            | "enhanced_for_statement"
            | "do_statement"
            | "labeled_statement"
            | "return_statement"
            | "throw_statement"
            | "break_statement"
            | "continue_statement"
            | "yield_statement"
            | "switch_expression"
            | "try_statement"
            | "try_with_resources_statement"
            | "synchronized_statement"
            | "assert_statement"
    )
}

/// Whether `node` is the body of an `if`, `else` or loop (a statement without its own block).
pub(super) fn is_body_position(node: Node<'_>) -> bool {
    let Some(parent) = node.parent() else {
        return false;
    };
    match parent.kind() {
        "if_statement" => {
            parent.child_by_field_name("consequence") == Some(node)
                || parent.child_by_field_name("alternative") == Some(node)
        }
        "while_statement" | "for_statement" | "enhanced_for_statement" | "do_statement" => {
            parent.child_by_field_name("body") == Some(node)
        }
        _ => false,
    }
}

/// Whether a switch is used as a statement.
pub(super) fn is_statement_position(node: Node<'_>) -> bool {
    node.parent().is_some_and(|p| {
        matches!(
            p.kind(),
            "block" | "constructor_body" | "switch_block_statement_group" | "labeled_statement"
        )
    }) || is_body_position(node)
}

impl<'s, 'm, 't> Instrumenter<'s, 'm, 't> {
    /// Wraps `node` in a block (it is the body of an `if`, `else` or loop).
    fn wrap(&mut self, node: Node<'t>) {
        let len = node.end_byte() - node.start_byte();
        self.edits
            .open(node.start_byte(), len, Layer::Brace, "{ ".into(), None);
        self.edits
            .close(node.end_byte(), len, Layer::Brace, " }".into(), None);
    }

    /// The offset just inside a body, and the length the probes there wrap.
    pub(super) fn body_entry(body: Node<'_>) -> (usize, usize) {
        let len = body.end_byte() - body.start_byte();
        if matches!(body.kind(), "block" | "switch_block") {
            (body.start_byte() + 1, len)
        } else {
            (body.start_byte(), len)
        }
    }

    pub(super) fn if_bodies(&mut self, node: Node<'t>) {
        if let Some(consequence) = node.child_by_field_name("consequence") {
            if consequence.kind() != "block" {
                self.wrap(consequence);
            }
        }
        if let Some(alternative) = node.child_by_field_name("alternative") {
            if !matches!(alternative.kind(), "block" | "if_statement") {
                self.wrap(alternative);
            }
        }
    }

    pub(super) fn statement_probes(&mut self, node: Node<'t>) {
        let kind = node.kind();
        if !executable(kind) {
            return;
        }
        let in_container = node.parent().is_some_and(|p| {
            matches!(
                p.kind(),
                "block" | "constructor_body" | "switch_block_statement_group"
            )
        });
        let else_if = kind == "if_statement"
            && node.parent().is_some_and(|p| {
                p.kind() == "if_statement" && p.child_by_field_name("alternative") == Some(node)
            });
        if !(in_container || is_body_position(node)) || else_if {
            return;
        }
        self.line_probe(node);
        match kind {
            "break_statement" => self.break_probe(node),
            "expression_statement" => self.removed_call_mutant(node),
            "return_statement" => self.return_mutant(node),
            _ => {}
        }
    }

    /// `line(L)` before `node`, where L is its first line.
    pub(super) fn line_probe(&mut self, node: Node<'t>) {
        let Some(site) = self.simple_site(SiteId::Line(node.start_byte()), node, "line") else {
            return;
        };
        let line = Self::line_of(node);
        self.table.lines.insert(line);
        let len = node.end_byte() - node.start_byte();
        let text = format!("{PROBE}.line({}); ", self.base(line));
        self.edits
            .open(node.start_byte(), len, Layer::Line, text, Some(site));
    }

    /// The probes of a method, constructor or compact constructor body: `enter(m)` where it
    /// starts, and the body wrapped in `try { ... } catch (java.lang.Throwable e) {
    /// escaped(m, e); throw e; }` so that every exception leaving it is recorded. Both go after
    /// an explicit `this(...)`/`super(...)`, which must stay the body's first statement (and
    /// which records its own escapes, in the constructor it calls).
    ///
    /// The wrapper keeps the body's meaning: the catch parameter is effectively final, so the
    /// rethrow throws exactly the checked exceptions the body can throw (JLS 11.2.2), which the
    /// method already declares; the catch block cannot complete normally, so the try statement
    /// completes normally exactly when the body does, and every variable definitely assigned
    /// after the body (a blank final field at the end of a constructor) is after the try too
    /// (JLS 16.2.15); no code follows the try, so nothing reads a variable the body assigned.
    /// The parameter's name starts with `$ctgls`, and its scope is the catch block alone, which
    /// holds no user code.
    pub(super) fn method_probes(&mut self, declaration: Node<'t>) {
        let Some(body) = declaration.child_by_field_name("body") else {
            return;
        };
        let member = self
            .pieces
            .iter()
            .find(|(start, _, _, m)| {
                *start == declaration.start_byte()
                    && matches!(
                        m.kind,
                        MemberKind::Method
                            | MemberKind::Constructor
                            | MemberKind::CompactConstructor
                    )
            })
            .map(|&(_, _, _, m)| m);
        let Some(member) = member else { return };
        let entry = self.entries.get(&declaration.start_byte()).copied();
        let enter_site = self.simple_site(SiteId::Enter(body.start_byte()), declaration, "enter");
        if enter_site.is_none() {
            if let Some(d) = entry {
                let line = Self::line_of(declaration);
                self.fallback(
                    SiteId::Decision(d.key()),
                    None,
                    line,
                    ProbeLevel::None,
                    FallbackReason::CompileError("enter probe dropped".into()),
                );
            }
        }
        let escape_site =
            self.simple_site(SiteId::Escape(body.start_byte()), declaration, "escape");
        if enter_site.is_none() && escape_site.is_none() {
            return;
        }
        let invocation = named_children(body)
            .into_iter()
            .find(|c| c.kind() == "explicit_constructor_invocation");
        // After `this(...)` / `super(...)`, which must stay the first statement.
        let enter_at = invocation
            .filter(|c| named_children(body).first() == Some(c))
            .map_or(body.start_byte() + 1, |c| c.end_byte());
        // A body whose invocation is not its first statement (Java 22+'s statements before
        // `super(...)`) is wrapped after the invocation: a try cannot hold it.
        let try_at = invocation.map_or(body.start_byte() + 1, |c| c.end_byte());
        let id = self.table.methods.len() as u32;
        self.table.methods.push(MethodProbe {
            member: member.key.clone(),
            entry_decision: enter_site.and(entry).map(|d| d.key()),
            line: Self::line_of(declaration),
            has_enter: enter_site.is_some(),
            has_escape: escape_site.is_some(),
        });
        let len = body.end_byte() - body.start_byte();
        if let Some(site) = enter_site {
            let text = format!("{PROBE}.enter({}); ", self.base(id));
            self.edits
                .open(enter_at, len, Layer::BodyEntry, text, Some(site));
        }
        if let Some(site) = escape_site {
            // The closing insertion alone is the site: an error the wrapper causes is javac's
            // about the catch clause, and the site must not contain the body's own code, whose
            // errors belong to the sites inside it or escalate the member.
            let base = self.base(id);
            let catch = format!(
                " }} catch (java.lang.Throwable {ESCAPING}) {{ {PROBE}.escaped({base}, {ESCAPING}); throw {ESCAPING}; }}"
            );
            let end = body.end_byte() - 1;
            if try_at == end {
                // Nothing to wrap (`{}`, `{ super(); }` without spaces): closings at an offset
                // come out before its openings, so the wrapper is one insertion.
                let text = format!("try {{{catch} ");
                self.edits
                    .open(try_at, len, Layer::BodyEntry, text, Some(site));
            } else {
                self.edits
                    .open(try_at, len, Layer::BodyEntry, "try { ".into(), None);
                self.edits
                    .close(end, len, Layer::BodyEntry, catch, Some(site));
            }
        }
    }

    pub(super) fn loop_probes(&mut self, node: Node<'t>) {
        let Some(body) = node.child_by_field_name("body") else {
            return;
        };
        if body.kind() != "block" {
            self.wrap(body);
        }
        let (at, len) = Self::body_entry(body);
        if let Some(site) = self.simple_site(SiteId::Loop(body.start_byte()), node, "loop") {
            let decision = if node.kind() == "enhanced_for_statement" {
                self.headed
                    .get(&(node.start_byte(), DecisionKind::ForEach))
                    .map(|d| d.key())
            } else {
                node.child_by_field_name("condition").and_then(|c| {
                    self.atomic
                        .iter()
                        .filter(|((s, e), _)| c.start_byte() <= *s && *e <= c.end_byte())
                        .min_by_key(|((s, _), _)| *s)
                        .map(|(_, d)| d.key())
                })
            };
            let id = self.table.loops.len() as u32;
            self.table.loops.push(LoopProbe {
                member: self.member_at(node).map(|(_, m)| m.key.clone()),
                decision,
                line: Self::line_of(node),
            });
            let text = format!("{PROBE}.loop({}); ", self.base(id));
            self.edits.open(at, len, Layer::BodyEntry, text, Some(site));
        }
        if node.kind() == "enhanced_for_statement" {
            self.foreach_probes(node, at, len);
        }
    }

    /// The has-next decision of an enhanced for: `branch(id, true)` when the body starts,
    /// `forExit(id)` on the statement after the loop (the has-next-false outcome), and
    /// `forBreak(id)` before each `break` that leaves the loop, so that a break is not
    /// mistaken for running out of elements.
    fn foreach_probes(&mut self, node: Node<'t>, at: usize, len: usize) {
        let Some(&d) = self.headed.get(&(node.start_byte(), DecisionKind::ForEach)) else {
            return;
        };
        let Some((index, id)) = self.single_outcome_probe(
            node,
            d,
            ProbeKind::ForEach,
            Outcome::True,
            Some(Outcome::False),
        ) else {
            return;
        };
        let base = self.base(id);
        self.edits.open(
            at,
            len,
            Layer::BodyEntry,
            format!("{PROBE}.branch({base}, true); "),
            Some(index),
        );
        // Labels belong to the loop: the exit probe goes after the outermost one.
        let mut outer = node;
        while let Some(parent) = outer.parent().filter(|p| p.kind() == "labeled_statement") {
            outer = parent;
        }
        let outer_len = outer.end_byte() - outer.start_byte();
        self.edits.close(
            outer.end_byte(),
            outer_len,
            Layer::Line,
            format!(" {PROBE}.forExit({base});"),
            Some(index),
        );
        self.foreach_ids.insert(node.start_byte(), id);
    }

    /// `forBreak` before a `break` that leaves a probed enhanced for.
    fn break_probe(&mut self, node: Node<'t>) {
        let label = named_children(node)
            .into_iter()
            .find(|c| c.kind() == "identifier")
            .map(|l| text(self.src, l));
        let mut current = node.parent();
        let target = loop {
            let Some(n) = current else { return };
            match n.kind() {
                "lambda_expression"
                | "class_body"
                | "method_declaration"
                | "constructor_declaration" => return,
                "while_statement"
                | "do_statement"
                | "for_statement"
                | "enhanced_for_statement"
                | "switch_expression"
                    if label.is_none() =>
                {
                    break n;
                }
                "labeled_statement" => {
                    let parts = named_children(n);
                    if label.is_some() && parts.first().map(|l| text(self.src, *l)) == label {
                        let mut statement = parts.last().copied();
                        while let Some(s) = statement.filter(|s| s.kind() == "labeled_statement") {
                            statement = named_children(s).last().copied();
                        }
                        match statement {
                            Some(s) => break s,
                            None => return,
                        }
                    }
                }
                _ => {}
            }
            current = n.parent();
        };
        let Some(&id) = self.foreach_ids.get(&target.start_byte()) else {
            return;
        };
        let len = node.end_byte() - node.start_byte();
        let text = format!("{PROBE}.forBreak({}); ", self.base(id));
        self.edits
            .open(node.start_byte(), len, Layer::Line, text, None);
    }

    /// Registers the site and branch probe of a decision whose probe reports one outcome where
    /// it is placed (a for-each body entered, a catch entered), with `on_false` for the outcome
    /// the other probes of the decision report. `None`, with the fallback recorded, when the
    /// model marks the decision unreachable or the compile loop dropped the site.
    fn single_outcome_probe(
        &mut self,
        node: Node<'t>,
        d: DecisionRef<'m>,
        kind: ProbeKind,
        on_true: Outcome,
        on_false: Option<Outcome>,
    ) -> Option<(usize, u32)> {
        let site = SiteId::Decision(d.key());
        let line = Self::line_of(node);
        if self.skip_unreachable(&site, line, d) {
            return None;
        }
        if let Some(down) = self.downgrade(&site) {
            let reason = down.reason.clone();
            self.fallback(site, None, line, ProbeLevel::None, reason);
            return None;
        }
        let index = self.add_site(SiteBuild {
            id: site,
            member: Some(d.member.key.clone()),
            lines: Self::lines_of(node),
            form: kind.as_str(),
            maybe_constant: false,
        });
        let id = self.new_branch(BranchProbe {
            decision: d.key(),
            class: d.ty.binary_name.clone(),
            class_index: d.decision.class_index,
            on_true: Some(on_true),
            on_false,
            kind,
            line,
        });
        Some((index, id))
    }

    pub(super) fn catch_probe(&mut self, node: Node<'t>) {
        let Some(&d) = self.headed.get(&(node.start_byte(), DecisionKind::Catch)) else {
            return;
        };
        let Some(body) = node.child_by_field_name("body") else {
            return;
        };
        let Some((index, id)) =
            self.single_outcome_probe(node, d, ProbeKind::CatchEntered, Outcome::Entered, None)
        else {
            return;
        };
        let (at, len) = Self::body_entry(body);
        // `caught` also shows the worker a refusal of the sandbox the clause swallows
        // (docs/instrumentation.md, "Catch clauses"); an unnamed parameter (`_`, Java 22)
        // cannot be passed, and its clause reports being entered only.
        let parameter = named_children(node)
            .into_iter()
            .find(|c| c.kind() == "catch_formal_parameter")
            .and_then(|p| p.child_by_field_name("name"))
            .map(|n| text(self.src, n))
            .filter(|name| *name != "_");
        let text = match parameter {
            Some(name) => format!("{PROBE}.caught({}, {name}); ", self.base(id)),
            None => format!("{PROBE}.branch({}, true); ", self.base(id)),
        };
        self.edits
            .open(at, len, Layer::BodyEntry, text, Some(index));
    }

    /// `alloc(new C(...))`, `alloc(new T[n])`: counts instantiations (proxy I4).
    pub(super) fn alloc_probe(&mut self, node: Node<'t>) {
        if self.options.mode == InstrumentMode::OutcomeOnly {
            return;
        }
        // Before Java 8 the target type does not reach into a method's argument: in
        // `Set<JsonKey> s = alloc(new HashSet<>())` the diamond infers `HashSet<Object>` and
        // javac rejects the line. The compile loop would drop the probe after a rejected round
        // (a javac run of a second or more, in every run of every Java 7 project's class with
        // a diamond: json-simple's `JsonObject`), so it is not written at all. Instantiation
        // counts are a search proxy, not a goal: nothing is reported missing.
        if self.options.java_level.is_some_and(|level| level < 8) && is_diamond(node, self.src) {
            return;
        }
        let Some(site) = self.simple_site(SiteId::Alloc(node.start_byte()), node, "alloc") else {
            return;
        };
        let len = node.end_byte() - node.start_byte();
        self.edits.open(
            node.start_byte(),
            len,
            Layer::Alloc,
            format!("{PROBE}.alloc("),
            Some(site),
        );
        self.edits
            .close(node.end_byte(), len, Layer::Alloc, ")".into(), Some(site));
    }
}

/// Whether `node` is a class instance creation with a diamond (`new C<>(...)`, `new a.B<>()`).
fn is_diamond(node: Node<'_>, src: &str) -> bool {
    node.kind() == "object_creation_expression"
        && node.child_by_field_name("type").is_some_and(|ty| {
            text(src, ty)
                .replace(char::is_whitespace, "")
                .ends_with("<>")
        })
}
