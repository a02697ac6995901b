//! The Java model: what a Java file declares (types, fields, members with signatures and
//! ranges), the branches of every member (the goals of test generation, with stable ids),
//! per-body control-flow graphs, post-dominators and control dependence between goals.
//!
//! Pure: no IO, no LSP, no serialisation. Input is source text plus its tree-sitter tree;
//! broken Java still gives a model for what parses, plus [`Problem`]s, and never panics.
//!
//! Module map: `model` (declarations), `branches` (decisions and goals), `cfg` (graph types),
//! `build` (tree walk), `lower` (code to CFG and decisions), `postdom`, `control_dependence`,
//! `naming` (binary names and indexes), `update` (incremental reuse), `problems`, `dump`,
//! `instrument` (probes inserted into the source for execution traces), `coupling` (coupled
//! branches between a caller and a callee class, for class-integration tests).

pub mod branches;
mod build;
pub mod cfg;
pub mod control_dependence;
pub mod coupling;
mod dump;
pub mod instrument;
pub mod literals;
mod lower;
mod model;
mod naming;
pub mod postdom;
mod problems;
mod text;
mod update;

pub use branches::{
    CfgLocation, ComparisonOp, ConditionShape, ControlDep, Decision, DecisionKey, DecisionKind,
    GoalKey, GoalRef, LogicalOp, Operand, Outcome, SwitchCase,
};
pub use cfg::{Cfg, CfgEdge, CfgNode, CfgNodeKind, CfgOrigin, EdgeLabel, NodeId};
pub use dump::dump;
pub use model::{
    Body, ByteEdit, EnumConstant, Field, ImportDecl, JavaModel, Member, MemberKind, Modifiers,
    Nesting, PackageDecl, Param, Problem, Span, TypeDecl, TypeKind,
};

impl JavaModel {
    /// Builds the model of `source`, whose tree-sitter-java tree is `tree`.
    pub fn build(source: &str, tree: &tree_sitter::Tree) -> JavaModel {
        build::build_model(source, tree, None)
    }

    /// The model of `source` after `edits` turned this model's source into it; `tree` is the
    /// tree of `source`. Members whose pieces no edit touched are reused with their spans
    /// shifted; touched members and everything spanning members (binary names, indexes) are
    /// rebuilt. The result equals `JavaModel::build(source, tree)`.
    pub fn update(&self, source: &str, tree: &tree_sitter::Tree, edits: &[ByteEdit]) -> JavaModel {
        let reuse = update::Reuse::new(self, edits);
        build::build_model(source, tree, Some(&reuse))
    }

    /// Every decision with its type and member, in source order of the types.
    pub fn decisions(&self) -> Vec<(&TypeDecl, &Member, &Decision)> {
        let mut out = Vec::new();
        for ty in self.all_types() {
            for member in &ty.members {
                if let Some(body) = &member.body {
                    for decision in &body.decisions {
                        out.push((ty, member, decision));
                    }
                }
            }
        }
        out
    }
}

impl Member {
    /// The stable key of one of this member's decisions.
    pub fn decision_key(&self, decision: &Decision) -> DecisionKey {
        DecisionKey {
            member: self.key.clone(),
            ordinal: decision.ordinal,
        }
    }
}
