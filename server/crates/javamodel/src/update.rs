//! Incremental update: which members of the previous model an edit left alone, and moving
//! their spans to where the new tree has them. The tree walk (`build`) asks this table before
//! lowering a member; everything that depends on more than one member is recomputed anyway
//! (`naming`), so an updated model equals one built from scratch.
//!
//! A member is reused when (1) no edit touched any of its pieces (an edit that merely abuts a
//! piece counts as touching it), (2) the new tree has a member of the same kind whose pieces
//! are exactly the old pieces moved by the edits, and (3) neither the old nor the new pieces
//! contain syntax errors (error recovery depends on context). Its spans are then shifted per
//! piece: bytes by the piece's offset, rows by the piece's row offset, and columns only on the
//! piece's first row, since the text inside the piece is unchanged.

use std::cell::Cell;
use std::collections::HashMap;

use tree_sitter::{Node, Point};

use crate::branches::ConditionShape;
use crate::cfg::CfgOrigin;
use crate::model::{Body, ByteEdit, JavaModel, Member, MemberKind, Param, Span, TypeDecl};

type Key = (MemberKind, Vec<(usize, usize)>);

/// The members of the previous model that may be reused, keyed by their pieces' new ranges.
pub(crate) struct Reuse<'a> {
    by_new_range: HashMap<Key, &'a Member>,
    /// How many members were reused; lets tests check that reuse happens at all.
    hits: Cell<usize>,
}

impl<'a> Reuse<'a> {
    pub(crate) fn new(old: &'a JavaModel, edits: &[ByteEdit]) -> Reuse<'a> {
        let mut reuse = Reuse {
            by_new_range: HashMap::new(),
            hits: Cell::new(0),
        };
        for ty in &old.types {
            reuse.add_type(ty, edits);
        }
        reuse
    }

    fn add_type(&mut self, ty: &'a TypeDecl, edits: &[ByteEdit]) {
        for nested in &ty.nested_types {
            self.add_type(nested, edits);
        }
        for member in &ty.members {
            for local in &member.local_types {
                self.add_type(local, edits);
            }
            if member.had_error {
                continue;
            }
            let moved: Option<Vec<(usize, usize)>> = member
                .pieces
                .iter()
                .map(|p| map_range(p.start_byte, p.end_byte, edits))
                .collect();
            if let Some(moved) = moved {
                self.by_new_range.insert((member.kind, moved), member);
            }
        }
    }

    /// The old member whose pieces are now `nodes`, moved into place; `None` if it must be
    /// rebuilt.
    pub(crate) fn reuse(&self, kind: MemberKind, nodes: &[Node<'_>]) -> Option<Member> {
        if nodes.iter().any(|n| n.has_error()) {
            return None;
        }
        let key: Key = (
            kind,
            nodes
                .iter()
                .map(|n| (n.start_byte(), n.end_byte()))
                .collect(),
        );
        let old = self.by_new_range.get(&key)?;
        let shifter = Shifter {
            pieces: old
                .pieces
                .iter()
                .zip(nodes)
                .map(|(old, new)| PieceShift {
                    old_start: old.start_byte,
                    old_end: old.end_byte,
                    old_point: old.start,
                    new_start: new.start_byte(),
                    new_point: new.start_position(),
                })
                .collect(),
        };
        let mut member = (*old).clone();
        if !shifter.is_identity() {
            member.relocate(&shifter);
        }
        self.hits.set(self.hits.get() + 1);
        Some(member)
    }
}

/// Maps the old range `start..=end` through the edits, or `None` if an edit touches it.
fn map_range(mut start: usize, mut end: usize, edits: &[ByteEdit]) -> Option<(usize, usize)> {
    for edit in edits {
        if edit.start_byte <= end && edit.old_end_byte >= start {
            return None;
        }
        if edit.old_end_byte < start {
            let shift = |b: usize| (b + edit.new_end_byte).checked_sub(edit.old_end_byte);
            start = shift(start)?;
            end = shift(end)?;
        }
    }
    Some((start, end))
}

struct PieceShift {
    old_start: usize,
    old_end: usize,
    old_point: Point,
    new_start: usize,
    new_point: Point,
}

struct Shifter {
    pieces: Vec<PieceShift>,
}

impl Shifter {
    fn is_identity(&self) -> bool {
        self.pieces
            .iter()
            .all(|p| p.old_start == p.new_start && p.old_point == p.new_point)
    }

    /// The piece containing old byte `byte`.
    fn piece(&self, byte: usize) -> &PieceShift {
        self.pieces
            .iter()
            .find(|p| p.old_start <= byte && byte <= p.old_end)
            .or_else(|| self.pieces.iter().rev().find(|p| p.old_start <= byte))
            .unwrap_or(&self.pieces[0])
    }

    // Positions of a reused member lie inside its pieces, so the subtractions below cannot
    // go negative; saturating keeps a violated invariant from panicking.
    fn byte(&self, byte: usize) -> usize {
        let p = self.piece(byte);
        (byte + p.new_start).saturating_sub(p.old_start)
    }

    fn point(&self, byte: usize, point: Point) -> Point {
        let p = self.piece(byte);
        Point {
            row: (point.row + p.new_point.row).saturating_sub(p.old_point.row),
            column: if point.row == p.old_point.row {
                (point.column + p.new_point.column).saturating_sub(p.old_point.column)
            } else {
                point.column
            },
        }
    }

    fn span(&self, span: &mut Span) {
        span.start = self.point(span.start_byte, span.start);
        span.end = self.point(span.end_byte, span.end);
        span.start_byte = self.byte(span.start_byte);
        span.end_byte = self.byte(span.end_byte);
    }
}

/// Moves every span (and byte offset) of a reused part of the model.
trait Relocate {
    fn relocate(&mut self, s: &Shifter);
}

impl Relocate for Span {
    fn relocate(&mut self, s: &Shifter) {
        s.span(self);
    }
}

impl<T: Relocate> Relocate for Option<T> {
    fn relocate(&mut self, s: &Shifter) {
        if let Some(inner) = self {
            inner.relocate(s);
        }
    }
}

impl<T: Relocate> Relocate for Vec<T> {
    fn relocate(&mut self, s: &Shifter) {
        for item in self {
            item.relocate(s);
        }
    }
}

impl Relocate for Param {
    fn relocate(&mut self, s: &Shifter) {
        self.span.relocate(s);
    }
}

impl Relocate for Member {
    fn relocate(&mut self, s: &Shifter) {
        self.span.relocate(s);
        self.name_span.relocate(s);
        self.pieces.relocate(s);
        self.params.relocate(s);
        self.body.relocate(s);
        self.local_types.relocate(s);
    }
}

impl Relocate for Body {
    fn relocate(&mut self, s: &Shifter) {
        for d in &mut self.decisions {
            d.span.relocate(s);
            for case in &mut d.cases {
                case.span.relocate(s);
            }
            match &mut d.shape {
                ConditionShape::Comparison { left, right, .. } => {
                    left.span.relocate(s);
                    right.span.relocate(s);
                }
                ConditionShape::Instanceof { operand, .. } => operand.relocate(s),
                ConditionShape::Call {
                    receiver,
                    arguments,
                    ..
                } => {
                    receiver.relocate(s);
                    arguments.relocate(s);
                }
                ConditionShape::Switch { selector } => selector.relocate(s),
                ConditionShape::ForEach { iterable } => iterable.relocate(s),
                ConditionShape::Variable
                | ConditionShape::Literal
                | ConditionShape::Other { .. }
                | ConditionShape::Catch { .. }
                | ConditionShape::MethodEntry => {}
            }
        }
        for cfg in &mut self.cfgs {
            if let CfgOrigin::Lambda { span, .. } = &mut cfg.origin {
                span.relocate(s);
            }
            for node in &mut cfg.nodes {
                node.span.relocate(s);
            }
        }
    }
}

impl Relocate for TypeDecl {
    fn relocate(&mut self, s: &Shifter) {
        self.span.relocate(s);
        self.name_span.relocate(s);
        self.record_components.relocate(s);
        for constant in &mut self.enum_constants {
            constant.span.relocate(s);
        }
        for field in &mut self.fields {
            field.span.relocate(s);
        }
        self.members.relocate(s);
        self.nested_types.relocate(s);
        for byte in &mut self.order_key {
            *byte = s.byte(*byte);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_edited_member_is_rebuilt() {
        let old_src = "class A {\n  int a(int x) { return x > 0 ? 1 : 2; }\n  int b(int y) { if (y < 0) { return 1; } return 0; }\n  static int s = 1 > 0 ? 1 : 0;\n  int c() { return 3; }\n}\n";
        let old_tree = syntax::parse_java(old_src, None);
        let old = JavaModel::build(old_src, &old_tree);
        // Insert a space inside b's body.
        let at = old_src.find("return 1;").unwrap();
        let mut new_src = old_src.to_string();
        new_src.insert(at, ' ');
        let new_tree = syntax::parse_java(&new_src, None);
        let edits = [ByteEdit {
            start_byte: at,
            old_end_byte: at,
            new_end_byte: at + 1,
        }];
        let reuse = Reuse::new(&old, &edits);
        let updated = crate::build::build_model(&new_src, &new_tree, Some(&reuse));
        // a, <clinit> and c are reused; b is rebuilt.
        assert_eq!(reuse.hits.get(), 3);
        assert_eq!(updated, JavaModel::build(&new_src, &new_tree));
    }

    fn edit(start: usize, old_end: usize, new_end: usize) -> ByteEdit {
        ByteEdit {
            start_byte: start,
            old_end_byte: old_end,
            new_end_byte: new_end,
        }
    }

    #[test]
    fn ranges_move_past_edits_before_them_and_die_when_touched() {
        // Insert 3 bytes at 5: a range at 10..20 moves to 13..23.
        assert_eq!(map_range(10, 20, &[edit(5, 5, 8)]), Some((13, 23)));
        // Delete 2 bytes at 30: the range before is unchanged.
        assert_eq!(map_range(10, 20, &[edit(30, 32, 30)]), Some((10, 20)));
        // Touching the boundary counts as touching.
        assert_eq!(map_range(10, 20, &[edit(20, 20, 21)]), None);
        assert_eq!(map_range(10, 20, &[edit(7, 10, 7)]), None);
        // Edits apply in sequence, each in the coordinates left by the previous one.
        assert_eq!(
            map_range(10, 20, &[edit(0, 0, 5), edit(0, 2, 0)]),
            Some((13, 23))
        );
        assert_eq!(map_range(10, 20, &[edit(0, 0, 5), edit(24, 24, 25)]), None);
    }
}
