//! Source instrumentation (DESIGN decision 1): probe calls inserted inline into the Java source
//! of the classes under test, on the tree-sitter tree and the Java model, with no IO.
//!
//! [`instrument`] rewrites the requested top-level types of one file so that every decision
//! reports its outcome and its branch distance through `ctgls.rt.Probe` (docs/protocol.md,
//! "Probe API"), statements report line coverage, method bodies their entry and the exceptions
//! that escape them, loop bodies their iterations, and creation expressions count
//! instantiations. The [`ProbeTable`] says what each
//! probe id means; [`Fallback`]s list every probe that measures less than its construct allows.
//! The rules are in docs/instrumentation.md.
//!
//! *Architecture invariant:* the instrumented text keeps every original line on its line
//! number. Insertions never contain line breaks and replacements keep the breaks they replace,
//! so javac's diagnostic lines and stack-trace lines are original lines.
//!
//! Module map: `edits` (insertions and their nesting), `types` (static types and constant
//! expressions as far as one file tells), `table` (probe table, sites, fallbacks), `decisions`
//! (atomic conditions), `switches`, `text_blocks` (text-block case constants on one line),
//! `statements` (lines, entries, loops, catches, enhanced fors, allocations).

mod decisions;
mod edits;
mod mutants;
mod seeds;
mod statements;
mod switches;
mod table;
mod text_blocks;
mod types;

use std::collections::{BTreeMap, HashMap, HashSet};

use tree_sitter::{Node, Tree};

use crate::branches::{Decision, DecisionKey, DecisionKind, Outcome};
use crate::model::{JavaModel, Member, TypeDecl};
use crate::text::{is_comment, named_children};

pub use table::{
    BranchProbe, Fallback, FallbackReason, GoalProbe, LoopProbe, MethodProbe, ProbeKind,
    ProbeLevel, ProbeTable, Site, SiteId,
};

pub use mutants::{MutantProbe, MutationOperator};

use edits::{Edits, Layer};
use types::Resolver;

/// The fully qualified probe class; user code may declare a class named `Probe`.
const PROBE: &str = "ctgls.rt.Probe";

/// How much the whole file is instrumented.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum InstrumentMode {
    /// Distance probes where the types allow, allocation counting.
    #[default]
    Full,
    /// Outcome-only probes for every decision, no allocation counting: the compile loop's last
    /// step before leaving the file uninstrumented.
    OutcomeOnly,
}

/// A site moved down its list of probe forms by the compile loop.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Downgrade {
    /// How many forms down: 1 = the next coarser form. Past the last form there is no probe.
    pub steps: u8,
    pub reason: FallbackReason,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct InstrumentOptions {
    /// Top-level types to instrument, by binary name or simple name (a nested type's binary name
    /// selects its top-level type); empty means every type of the file.
    pub types: Vec<String>,
    /// The file's path below its source root (`com/acme/A.java`), used in the registration key;
    /// by default derived from the package and the first type.
    pub path: Option<String>,
    pub mode: InstrumentMode,
    pub downgrades: BTreeMap<SiteId, Downgrade>,
    /// Also compile the file's mutants in, switched off (mutant schemata; docs/instrumentation.md,
    /// "Mutants"); the table lists them in [`ProbeTable::mutants`].
    pub mutants: bool,
    /// The Java language level the file is compiled at (`--release`, `-source`); `None`: the
    /// JDK's own. Below 8 a probe that would wrap a diamond (`new HashSet<>()`) is left out.
    pub java_level: Option<u32>,
}

/// The result of [`instrument`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Instrumented {
    /// The instrumented text: same lines as the original, plus a holder class appended to the
    /// line of the last type's closing brace. Equal to the original when nothing was
    /// instrumented (a file with syntax errors, no selected type).
    pub source: String,
    pub probes: ProbeTable,
    pub fallbacks: Vec<Fallback>,
    /// Every probe site with its range in `source`, for mapping compiler diagnostics back.
    pub sites: Vec<Site>,
}

impl Instrumented {
    /// The innermost site whose probe code contains the byte range `range` of `source`.
    pub fn site_at(&self, range: std::ops::Range<usize>) -> Option<&Site> {
        self.sites
            .iter()
            .filter(|s| s.output.start <= range.start && range.end <= s.output.end)
            .min_by_key(|s| s.output.end - s.output.start)
    }
}

/// Instruments the selected top-level types of `source` (whose tree is `tree` and whose model is
/// `model`). Never fails: what cannot be probed is listed in [`Instrumented::fallbacks`].
pub fn instrument(
    source: &str,
    tree: &Tree,
    model: &JavaModel,
    options: &InstrumentOptions,
) -> Instrumented {
    let path = options.path.clone().unwrap_or_else(|| default_path(model));
    let holder = format!("$CtglsProbe_{:08x}", fnv1a(path.as_bytes()) as u32);
    let selected = selected_types(model, &options.types);
    let line_count = line_breaks(source) + 2;
    let untouched = || Instrumented {
        source: source.to_string(),
        probes: ProbeTable {
            key: path.clone(),
            holder: holder.clone(),
            line_count,
            ..ProbeTable::default()
        },
        fallbacks: Vec::new(),
        sites: Vec::new(),
    };
    if !model.problems.is_empty() || selected.is_empty() || model.text() != source {
        return untouched();
    }
    let root = tree.root_node();
    let type_nodes: Vec<Node<'_>> = named_children(root)
        .into_iter()
        .filter(|n| selected.iter().any(|t| t.span.start_byte == n.start_byte()))
        .collect();
    let Some(last_type_end) = named_children(root)
        .into_iter()
        .filter(|n| n.kind().ends_with("_declaration") && n.kind() != "package_declaration")
        .filter(|n| n.kind() != "import_declaration" && n.kind() != "module_declaration")
        .map(|n| n.end_byte())
        .max()
    else {
        return untouched();
    };

    let mut ins = Instrumenter::new(source, model, options, &selected, root, holder.clone());
    for node in type_nodes {
        ins.walk(node);
    }
    let marker = ins.sites.len();
    ins.edits
        .open(last_type_end, 0, Layer::Brace, String::new(), Some(marker));
    let site_count = ins.sites.len() + 1;
    let Instrumenter {
        edits,
        sites,
        table,
        fallbacks,
        ..
    } = ins;
    let rendered = edits.render(source, site_count);
    let holder_at = rendered.site_ranges[marker]
        .as_ref()
        .map_or(rendered.text.len(), |r| r.start);
    let key = format!("{path}#{:016x}", fnv1a(rendered.text.as_bytes()));
    let mut probes = table.finish(key, holder.clone(), line_count);
    let [branches, lines, methods, loops] = probes.counts();
    let mutant_field = if probes.mutants.is_empty() {
        String::new()
    } else {
        format!(
            " static final int M = {}.register(\"{}\", {});",
            mutants::MUTANTS,
            java_string(&probes.key),
            probes.mutants.len()
        )
    };
    let holder_text = format!(
        " final class {holder} {{ static final int B = {PROBE}.register(\"{}\", {branches}, {lines}, {methods}, {loops});{mutant_field} }}",
        java_string(&probes.key)
    );
    let mut text = rendered.text;
    text.insert_str(holder_at, &holder_text);
    let shift = |r: &std::ops::Range<usize>| {
        let move_by = |x: usize| {
            if x > holder_at {
                x + holder_text.len()
            } else {
                x
            }
        };
        move_by(r.start)..move_by(r.end)
    };
    let sites = sites
        .into_iter()
        .zip(rendered.site_ranges)
        .filter_map(|(site, range)| {
            let output = shift(&range?);
            Some(Site {
                id: site.id,
                member: site.member,
                lines: site.lines,
                output,
                form: site.form,
                maybe_constant: site.maybe_constant,
            })
        })
        .collect();
    probes.holder = holder;
    Instrumented {
        source: text,
        probes,
        fallbacks,
        sites,
    }
}

/// The top-level types to instrument.
fn selected_types<'m>(model: &'m JavaModel, names: &[String]) -> Vec<&'m TypeDecl> {
    model
        .types
        .iter()
        .filter(|t| t.kind != crate::model::TypeKind::Annotation)
        .filter(|t| {
            names.is_empty()
                || names.iter().any(|n| {
                    n == &t.name
                        || n == &t.binary_name
                        || n.strip_prefix(t.binary_name.as_str())
                            .is_some_and(|rest| rest.starts_with('$'))
                })
        })
        .collect()
}

fn default_path(model: &JavaModel) -> String {
    let dir = model
        .package
        .as_ref()
        .map(|p| format!("{}/", p.name.replace('.', "/")))
        .unwrap_or_default();
    let ty = model
        .types
        .iter()
        .find(|t| t.modifiers.has("public"))
        .or(model.types.first())
        .map_or("package-info", |t| t.name.as_str());
    format!("{dir}{ty}.java")
}

/// The number of line breaks (`\r\n`, `\n`, `\r`), as javac counts lines.
fn line_breaks(s: &str) -> u32 {
    let breaks = edits::line_breaks(s);
    (breaks.len() - breaks.matches("\r\n").count()) as u32
}

fn fnv1a(bytes: &[u8]) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        hash ^= u64::from(b);
        hash = hash.wrapping_mul(0x0100_0000_01b3);
    }
    hash
}

fn java_string(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 || (c as u32) > 0x7e => {
                let mut buf = [0u16; 2];
                for unit in c.encode_utf16(&mut buf) {
                    out.push_str(&format!("\\u{unit:04x}"));
                }
            }
            c => out.push(c),
        }
    }
    out
}

/// A decision with where it is declared.
#[derive(Clone, Copy)]
struct DecisionRef<'m> {
    ty: &'m TypeDecl,
    member: &'m Member,
    decision: &'m Decision,
}

impl DecisionRef<'_> {
    fn key(&self) -> DecisionKey {
        self.member.decision_key(self.decision)
    }
}

/// A site as it is being built; `Site` once its output range is known.
struct SiteBuild {
    id: SiteId,
    member: Option<String>,
    lines: (u32, u32),
    form: &'static str,
    maybe_constant: bool,
}

#[derive(Default)]
struct TableBuilder {
    branches: Vec<BranchProbe>,
    lines: HashSet<u32>,
    methods: Vec<MethodProbe>,
    loops: Vec<LoopProbe>,
    mutants: Vec<MutantProbe>,
}

impl TableBuilder {
    fn finish(self, key: String, holder: String, line_count: u32) -> ProbeTable {
        let mut by_decision: HashMap<DecisionKey, Vec<u32>> = HashMap::new();
        for (id, b) in self.branches.iter().enumerate() {
            by_decision
                .entry(b.decision.clone())
                .or_default()
                .push(id as u32);
        }
        let method_by_member = self
            .methods
            .iter()
            .enumerate()
            .map(|(id, m)| (m.member.clone(), id as u32))
            .collect();
        let mut lines: Vec<u32> = self.lines.into_iter().collect();
        lines.sort_unstable();
        ProbeTable {
            key,
            holder,
            branches: self.branches,
            line_count,
            lines,
            methods: self.methods,
            loops: self.loops,
            mutants: self.mutants,
            by_decision,
            method_by_member,
        }
    }
}

pub(crate) struct Instrumenter<'s, 'm, 't> {
    src: &'s str,
    options: &'m InstrumentOptions,
    res: Resolver<'s, 't>,
    edits: Edits,
    holder: String,
    table: TableBuilder,
    fallbacks: Vec<Fallback>,
    sites: Vec<SiteBuild>,
    /// Atomic conditions by their span.
    atomic: HashMap<(usize, usize), DecisionRef<'m>>,
    /// Switches, enhanced fors and catch clauses by the start of their node.
    headed: HashMap<(usize, DecisionKind), DecisionRef<'m>>,
    /// Method-entry decisions by the start of their member's declaration.
    entries: HashMap<usize, DecisionRef<'m>>,
    /// Members by the start of each of their pieces, with the piece's end.
    pieces: Vec<(usize, usize, &'m TypeDecl, &'m Member)>,
    /// Enhanced fors with a has-next probe, by node start: their branch id.
    foreach_ids: HashMap<usize, u32>,
}

impl<'s, 'm, 't> Instrumenter<'s, 'm, 't> {
    fn new(
        src: &'s str,
        model: &'m JavaModel,
        options: &'m InstrumentOptions,
        selected: &[&'m TypeDecl],
        root: Node<'t>,
        holder: String,
    ) -> Self {
        let mut atomic = HashMap::new();
        let mut headed = HashMap::new();
        let mut entries = HashMap::new();
        let mut pieces = Vec::new();
        let inside = |start: usize| {
            selected
                .iter()
                .any(|t| t.span.start_byte <= start && start < t.span.end_byte)
        };
        for ty in model.all_types() {
            if !inside(ty.span.start_byte) {
                continue;
            }
            for member in &ty.members {
                for piece in &member.pieces {
                    pieces.push((piece.start_byte, piece.end_byte, ty, member));
                }
                let Some(body) = &member.body else { continue };
                for decision in &body.decisions {
                    let r = DecisionRef {
                        ty,
                        member,
                        decision,
                    };
                    match decision.kind {
                        DecisionKind::Switch
                        | DecisionKind::SwitchExpression
                        | DecisionKind::ForEach
                        | DecisionKind::Catch => {
                            let kind = match decision.kind {
                                DecisionKind::SwitchExpression => DecisionKind::Switch,
                                k => k,
                            };
                            headed.insert((decision.span.start_byte, kind), r);
                        }
                        DecisionKind::MethodEntry => {
                            entries.insert(member.span.start_byte, r);
                        }
                        _ => {
                            atomic.insert((decision.span.start_byte, decision.span.end_byte), r);
                        }
                    }
                }
            }
        }
        Instrumenter {
            src,
            options,
            res: Resolver::new(src, root),
            edits: Edits::default(),
            holder,
            table: TableBuilder::default(),
            fallbacks: Vec::new(),
            sites: Vec::new(),
            atomic,
            headed,
            entries,
            pieces,
            foreach_ids: HashMap::new(),
        }
    }

    /// Pre-order over `root`, iteratively: generated code nests deeply.
    fn walk(&mut self, root: Node<'t>) {
        let mut stack = vec![root];
        while let Some(node) = stack.pop() {
            self.visit(node);
            let mut cursor = node.walk();
            let children: Vec<Node<'t>> = node
                .named_children(&mut cursor)
                .filter(|c| !is_comment(*c))
                .collect();
            stack.extend(children.into_iter().rev());
        }
    }

    fn visit(&mut self, node: Node<'t>) {
        match node.kind() {
            "method_declaration"
            | "constructor_declaration"
            | "compact_constructor_declaration" => self.method_probes(node),
            "while_statement" | "for_statement" | "do_statement" | "enhanced_for_statement" => {
                self.loop_probes(node)
            }
            "if_statement" => self.if_bodies(node),
            "catch_clause" => self.catch_probe(node),
            "switch_expression" => self.switch_probes(node),
            "switch_rule" => self.switch_arm(node),
            "object_creation_expression" | "array_creation_expression" => self.alloc_probe(node),
            "method_invocation" => self.seed_probes(node),
            "binary_expression" => self.arithmetic_mutant(node),
            _ => {}
        }
        self.statement_probes(node);
        // The outermost node with the decision's span is the condition.
        if let Some(d) = self.atomic.remove(&(node.start_byte(), node.end_byte())) {
            self.decision(node, d);
        }
    }

    // ------------------------------------------------------------------ helpers

    fn base(&self, id: u32) -> String {
        format!("{}.B + {id}", self.holder)
    }

    fn line_of(node: Node<'_>) -> u32 {
        node.start_position().row as u32 + 1
    }

    fn lines_of(node: Node<'_>) -> (u32, u32) {
        (
            node.start_position().row as u32 + 1,
            node.end_position().row as u32 + 1,
        )
    }

    /// The innermost member whose code contains `node`.
    fn member_at(&self, node: Node<'_>) -> Option<(&'m TypeDecl, &'m Member)> {
        self.pieces
            .iter()
            .filter(|(start, end, _, _)| *start <= node.start_byte() && node.end_byte() <= *end)
            .min_by_key(|(start, end, _, _)| end - start)
            .map(|&(_, _, ty, member)| (ty, member))
    }

    /// How many forms down the compile loop moved a site, and why.
    fn downgrade(&self, id: &SiteId) -> Option<&'m Downgrade> {
        self.options.downgrades.get(id)
    }

    fn add_site(&mut self, site: SiteBuild) -> usize {
        self.sites.push(site);
        self.sites.len() - 1
    }

    fn fallback(
        &mut self,
        site: SiteId,
        outcome: Option<Outcome>,
        line: u32,
        level: ProbeLevel,
        reason: FallbackReason,
    ) {
        self.fallbacks.push(Fallback {
            site,
            outcome,
            line,
            level,
            reason,
        });
    }

    /// Records the fallback of a decision the model marks unreachable (javac would reject a
    /// probe there, and no test can reach it): `true` when it is.
    fn skip_unreachable(&mut self, site: &SiteId, line: u32, d: DecisionRef<'_>) -> bool {
        if d.decision.reachable {
            return false;
        }
        let reason = FallbackReason::Unreachable;
        self.fallback(site.clone(), None, line, ProbeLevel::None, reason);
        true
    }

    /// A probe site that has a single form (line, enter, loop, alloc): `false` when the compile
    /// loop dropped it.
    fn simple_site(&mut self, id: SiteId, node: Node<'_>, form: &'static str) -> Option<usize> {
        if let Some(down) = self.downgrade(&id) {
            let line = Self::line_of(node);
            let reason = down.reason.clone();
            self.fallback(id, None, line, ProbeLevel::None, reason);
            return None;
        }
        let member = self.member_at(node).map(|(_, m)| m.key.clone());
        Some(self.add_site(SiteBuild {
            id,
            member,
            lines: Self::lines_of(node),
            form,
            maybe_constant: false,
        }))
    }

    fn new_branch(&mut self, probe: BranchProbe) -> u32 {
        self.table.branches.push(probe);
        self.table.branches.len() as u32 - 1
    }
}
