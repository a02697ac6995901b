//! Dynamic seeding (Rojas, Fraser and Arcuri, "Seeding strategies in search-based unit test
//! generation"): the receiver and argument of a `String` comparison that is not a decision of
//! its own (`s.startsWith(p)`, `s.indexOf(t)`, ...) are wrapped in `Probe.seed(B, ...)`, which
//! returns its argument unchanged and records a string as a value the test's inputs were
//! compared with, for the file whose holder base `B` is. `String.equals` needs no wrap: its
//! decision probe (`strEquals`) records both sides.
//!
//! EvoSuite replaces these calls in bytecode by helpers that also give a distance; here they
//! only seed: a `startsWith` in a condition is still an outcome-only decision, but the prefix it
//! compared with reaches the value pool, which is what makes the outcome reachable.

use tree_sitter::Node;

use super::edits::Layer;
use super::table::SiteId;
use super::types::JType;
use super::{InstrumentMode, Instrumenter, PROBE};
use crate::text::{named_children, text};

/// `String` methods that compare the receiver with their first argument.
const COMPARING_METHODS: &[&str] = &[
    "equalsIgnoreCase",
    "startsWith",
    "endsWith",
    "contains",
    "indexOf",
    "lastIndexOf",
    "matches",
    "compareTo",
    "compareToIgnoreCase",
    "contentEquals",
];

impl<'s, 'm, 't> Instrumenter<'s, 'm, 't> {
    /// `Probe.seed(receiver).m(Probe.seed(argument), ...)` for a comparing `String` method;
    /// string literals are left alone (the source's constants are pooled already). The argument
    /// is wrapped whatever the file says of its type (an identity changes no overload choice),
    /// except a char given to `indexOf`.
    pub(super) fn seed_probes(&mut self, node: Node<'t>) {
        if self.options.mode == InstrumentMode::OutcomeOnly {
            return;
        }
        let (Some(name), Some(receiver), Some(arguments)) = (
            node.child_by_field_name("name"),
            node.child_by_field_name("object"),
            node.child_by_field_name("arguments"),
        ) else {
            return;
        };
        if !COMPARING_METHODS.contains(&text(self.src, name))
            || node.child_by_field_name("type_arguments").is_some()
            || receiver.kind() == "super"
        {
            return;
        }
        // A call's result is never a type name, so wrapping it is safe whatever it returns
        // (`seed` is an identity of the operand's type); other receivers must be `String`s.
        let receiver_string = self.res.type_of(receiver).ty == JType::String;
        if !receiver_string && receiver.kind() != "method_invocation" {
            return;
        }
        let mut operands = Vec::new();
        if receiver.kind() != "string_literal" {
            operands.push(receiver);
        }
        if let Some(first) = named_children(arguments).into_iter().next() {
            // `indexOf` and `lastIndexOf` also take a char as an int, which `seed` would box.
            let by_char = matches!(text(self.src, name), "indexOf" | "lastIndexOf")
                && self.res.type_of(first).ty != JType::String;
            if first.kind() != "string_literal" && !by_char {
                operands.push(first);
            }
        }
        if operands.is_empty() {
            return;
        }
        let Some(site) = self.simple_site(SiteId::Seed(node.start_byte()), node, "seed") else {
            return;
        };
        for operand in operands {
            let len = operand.end_byte() - operand.start_byte();
            self.edits.open(
                operand.start_byte(),
                len,
                Layer::Seed,
                format!("{PROBE}.seed({}.B, ", self.holder),
                Some(site),
            );
            self.edits
                .close(operand.end_byte(), len, Layer::Seed, ")".into(), Some(site));
        }
    }
}
