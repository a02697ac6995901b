//! The static goal table of one class under test: every coverage goal the search aims at, with
//! dense ids, the control-dependence parents DynaMOSA activates goals through, and the lookups
//! a caller needs to turn probe ids of an execution trace into table ids.
//!
//! Built once per class from the Java model; never changes during a search. Exception goals are
//! not here: they are discovered while executing (see `exception_goals`).

use std::collections::{BTreeMap, BTreeSet};

use javamodel::instrument::{MutantProbe, MutationOperator};
use javamodel::{
    CfgNodeKind, ControlDep, DecisionKey, DecisionKind, JavaModel, Member, MemberKind, Outcome,
    TypeDecl,
};

/// Dense id of a goal: static goals of the table first (branches, then lines, then methods, then
/// weak-mutation goals), exception goals after them in the order they were first observed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct GoalId(pub u32);

impl GoalId {
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// Dense id of a decision of the class under test.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct DecisionId(pub u32);

impl DecisionId {
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// Dense id of a member (method, constructor, initializer) of the class under test.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct MemberId(pub u32);

impl MemberId {
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// A coverage criterion; every goal belongs to exactly one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Criterion {
    Branch,
    Line,
    Method,
    Exception,
    /// Coupled branches between a caller and a callee class (Derakhshanfar et al., "Generating
    /// Class-Level Integration Tests Using Call Site Information"): only in a table built by
    /// [`GoalTable::for_integration`], see `coupled_goals`.
    Coupled,
    /// Weak mutation (Fraser and Arcuri, "Achieving Scalable Mutation-based Generation of Whole
    /// Test Suites", section 3.2): a goal per mutant of the class, covered by a test that
    /// reaches the mutated code and makes the mutated expression's value differ from the
    /// original's there. Only in a table built with the file's mutants
    /// ([`GoalTable::for_class_with_probes`]).
    WeakMutation,
}

impl Criterion {
    pub const ALL: [Criterion; 6] = [
        Criterion::Branch,
        Criterion::Line,
        Criterion::Method,
        Criterion::Exception,
        Criterion::Coupled,
        Criterion::WeakMutation,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Criterion::Branch => "branch",
            Criterion::Line => "line",
            Criterion::Method => "method",
            Criterion::Exception => "exception",
            Criterion::Coupled => "coupled",
            Criterion::WeakMutation => "weak-mutation",
        }
    }
}

/// Which criteria the search optimises. Branch coverage is always on: it is the backbone through
/// which DynaMOSA activates the goals of every other criterion (the enhanced control-dependence
/// graph of multi-criteria DynaMOSA, Grano et al., "Testing with Fewer Resources" section 2), and without branch goals as targets a
/// line nested under an uncovered branch could never be activated.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Criteria {
    pub line: bool,
    pub method: bool,
    pub exception: bool,
    /// Weak mutation: the job then compiles the class with its mutants (mutant schemata) and
    /// the table gets a goal per mutant.
    pub weak_mutation: bool,
}

impl Criteria {
    pub fn branch_only() -> Criteria {
        Criteria {
            line: false,
            method: false,
            exception: false,
            weak_mutation: false,
        }
    }

    /// Every criterion a class's table can have.
    pub fn all() -> Criteria {
        Criteria {
            line: true,
            method: true,
            exception: true,
            weak_mutation: true,
        }
    }

    pub fn includes(self, criterion: Criterion) -> bool {
        match criterion {
            Criterion::Branch => true,
            Criterion::Line => self.line,
            Criterion::Method => self.method,
            Criterion::Exception => self.exception,
            Criterion::WeakMutation => self.weak_mutation,
            // Present exactly when the table was built for integration (it has such goals).
            Criterion::Coupled => false,
        }
    }

    /// The enabled criteria in [`Criterion::ALL`] order.
    pub fn enabled(self) -> impl Iterator<Item = Criterion> {
        Criterion::ALL
            .into_iter()
            .filter(move |c| self.includes(*c))
    }
}

impl Default for Criteria {
    /// Branch, line, method and exception, as the defaults of multi-criteria DynaMOSA (Grano et
    /// al., "Testing with Fewer Resources" evaluates seven criteria). Weak mutation, EvoSuite's
    /// default set's fifth, is left out: with the same executions it killed more mutants on
    /// small classes but cost branch coverage on larger real ones (java-diff-utils'
    /// `DiffRowGenerator`, commons-csv's `CSVParser`) and made more tests (docs/benchmarks.md,
    /// "Weak mutation as a criterion").
    fn default() -> Criteria {
        Criteria {
            weak_mutation: false,
            ..Criteria::all()
        }
    }
}

/// What a goal's activation and approach level depend on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Dependency {
    /// The member was entered.
    Entry(MemberId),
    /// A branch goal was covered.
    Goal(GoalId),
}

/// What one static goal asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum StaticGoalKind {
    /// A decision takes one of its outcomes (an `if` true or false, a switch case, a catch
    /// entered, a branch-free method entered).
    Branch {
        decision: DecisionId,
        outcome: Outcome,
        /// Index of `outcome` in [`DecisionInfo::outcomes`].
        outcome_index: u32,
    },
    /// A statement on this (1-based) source line of the class's file runs.
    Line { line: u32 },
    /// The member is entered. EvoSuite's method criterion asks for a direct call from the
    /// test; here any entry counts, since the trace records entries, not call sites.
    Method { member: MemberId },
    /// A coupled branch: index into [`GoalTable::coupled`].
    Coupled { pair: u32 },
    /// A mutant weakly killed: index into [`GoalTable::mutants`].
    WeakMutation { mutant: u32 },
}

impl StaticGoalKind {
    pub fn criterion(&self) -> Criterion {
        match self {
            StaticGoalKind::Branch { .. } => Criterion::Branch,
            StaticGoalKind::Line { .. } => Criterion::Line,
            StaticGoalKind::Method { .. } => Criterion::Method,
            StaticGoalKind::Coupled { .. } => Criterion::Coupled,
            StaticGoalKind::WeakMutation { .. } => Criterion::WeakMutation,
        }
    }
}

/// One static goal with its control-dependence parents.
#[derive(Debug, Clone, PartialEq)]
pub struct StaticGoal {
    pub kind: StaticGoalKind,
    /// The goal can be reached once any one of these holds. Sorted. Empty for goals that cannot
    /// be reached (dead code) and for method goals, which are roots of their own.
    pub dependencies: Vec<Dependency>,
    /// Active from the start under DynaMOSA: depends on a member entry, or is a method goal.
    pub root: bool,
}

/// A decision of the class under test.
#[derive(Debug, Clone, PartialEq)]
pub struct DecisionInfo {
    pub key: DecisionKey,
    /// Binary name of the declaring type.
    pub binary_name: String,
    /// [`javamodel::Decision::class_index`]: the instrumenter's compact per-class index.
    pub class_index: Option<u32>,
    pub member: MemberId,
    pub kind: DecisionKind,
    /// 1-based line of the condition.
    pub line: u32,
    pub outcomes: Vec<Outcome>,
    /// The goal of `outcomes[0]`; the others follow densely.
    pub first_goal: GoalId,
    pub dependencies: Vec<Dependency>,
}

impl DecisionInfo {
    pub fn goal(&self, outcome_index: usize) -> GoalId {
        GoalId(self.first_goal.0 + outcome_index as u32)
    }

    pub fn outcome_index(&self, outcome: Outcome) -> Option<usize> {
        self.outcomes.iter().position(|o| *o == outcome)
    }

    /// A decision whose one outcome is "entered" (a catch clause or a branch-free method).
    pub fn is_entry_like(&self) -> bool {
        self.outcomes == [Outcome::Entered]
    }
}

/// A member of the class under test that has a body.
#[derive(Debug, Clone, PartialEq)]
pub struct MemberInfo {
    /// [`javamodel::Member::key`], e.g. `com.x.Account#withdraw(long)`.
    pub key: String,
    pub binary_name: String,
    pub kind: MemberKind,
    /// 1-based line of the declaration.
    pub line: u32,
    /// Counted by the method criterion and by the whole-suite fitness's `|M|`: methods and
    /// constructors, not initializer blocks (they run whenever the class is used).
    pub is_method: bool,
    /// The [`DecisionKind::MethodEntry`] decision of a branch-free member.
    pub entry_decision: Option<DecisionId>,
    /// The method goal, when the method criterion is on.
    pub method_goal: Option<GoalId>,
}

/// A mutant of the class under test that is a weak-mutation goal.
#[derive(Debug, Clone, PartialEq)]
pub struct MutantInfo {
    /// Its local id in the instrumented file (`ProbeTable::mutants`), as traces name it.
    pub local_id: u32,
    pub member: MemberId,
    /// 1-based line of the mutated code.
    pub line: u32,
    pub operator: MutationOperator,
    pub description: String,
    pub goal: GoalId,
}

/// The static goals of one class (with its member, local and anonymous classes, which share its
/// source file and are instrumented with it, as EvoSuite does).
#[derive(Debug, Clone)]
pub struct GoalTable {
    binary_name: String,
    criteria: Criteria,
    members: Vec<MemberInfo>,
    decisions: Vec<DecisionInfo>,
    goals: Vec<StaticGoal>,
    /// Per goal, the goals whose dependencies contain it. Sorted.
    children: Vec<Vec<GoalId>>,
    branch_goal_count: usize,
    by_decision_key: BTreeMap<DecisionKey, DecisionId>,
    by_class_index: BTreeMap<(String, u32), DecisionId>,
    by_member_key: BTreeMap<String, MemberId>,
    by_line: BTreeMap<u32, GoalId>,
    /// The weak-mutation goals' mutants, in goal order.
    mutants: Vec<MutantInfo>,
    /// Local mutant id -> index in `mutants`.
    by_mutant: BTreeMap<u32, u32>,
    /// The coupled branches of an integration table, indexed by `StaticGoalKind::Coupled`.
    pub(crate) coupled: Vec<crate::coupled_goals::CoupledGoal>,
}

impl GoalTable {
    /// The table of the class `binary_name` in `model` and its nested classes, with the goals of
    /// `criteria`. `None` when the model has no such class.
    ///
    /// Line goals are derived from the model: the first line of every statement, condition,
    /// loop keyword and `try` in the control-flow graphs. That approximates where
    /// instrumentation puts line probes; when the instrumenter's list of probed lines is at
    /// hand, [`GoalTable::for_class_with_lines`] uses it instead.
    pub fn for_class(
        model: &JavaModel,
        binary_name: &str,
        criteria: Criteria,
    ) -> Option<GoalTable> {
        GoalTable::build(model, binary_name, criteria, None, &[])
    }

    /// Like [`GoalTable::for_class`], with one line goal per line of `probed_lines` (1-based; the
    /// instrumenter's probe table lists them) inside the class's declaration, so that every
    /// line goal is one a probe can cover. A line's control dependencies are those of the
    /// control-flow nodes starting on it; a probed line without any (which the model does not
    /// see as code) never becomes a DynaMOSA target, though a test may still cover it.
    pub fn for_class_with_lines(
        model: &JavaModel,
        binary_name: &str,
        criteria: Criteria,
        probed_lines: &[u32],
    ) -> Option<GoalTable> {
        GoalTable::build(model, binary_name, criteria, Some(probed_lines), &[])
    }

    /// Like [`GoalTable::for_class_with_lines`], with a weak-mutation goal per mutant of
    /// `mutants` (the instrumenter's `ProbeTable::mutants`, indexed by local id) inside a member
    /// of the class, when `criteria.weak_mutation` is on. A mutant's goal depends on what the
    /// control-flow node evaluating its code depends on, so DynaMOSA activates it as a nested
    /// branch of that node: once a branch it is control dependent on is covered.
    pub fn for_class_with_probes(
        model: &JavaModel,
        binary_name: &str,
        criteria: Criteria,
        probed_lines: &[u32],
        mutants: &[MutantProbe],
    ) -> Option<GoalTable> {
        GoalTable::build(model, binary_name, criteria, Some(probed_lines), mutants)
    }

    fn build(
        model: &JavaModel,
        binary_name: &str,
        criteria: Criteria,
        probed_lines: Option<&[u32]>,
        mutants: &[MutantProbe],
    ) -> Option<GoalTable> {
        let root = model.type_by_binary_name(binary_name)?;
        let nested_prefix = format!("{binary_name}$");
        let types: Vec<&TypeDecl> = model
            .all_types()
            .into_iter()
            .filter(|t| t.binary_name == binary_name || t.binary_name.starts_with(&nested_prefix))
            .collect();
        let lines = probed_lines.map(|lines| {
            let first = root.span.start.row as u32 + 1;
            let last = root.span.end.row as u32 + 1;
            lines
                .iter()
                .copied()
                .filter(|l| (first..=last).contains(l))
                .collect::<BTreeSet<u32>>()
        });
        let builder = Builder {
            mutants: if criteria.weak_mutation {
                mutants.to_vec()
            } else {
                Vec::new()
            },
            ..Builder::default()
        };
        Some(builder.build(binary_name, criteria, &types, lines))
    }

    /// The class this table was built for.
    pub fn binary_name(&self) -> &str {
        &self.binary_name
    }

    pub fn criteria(&self) -> Criteria {
        self.criteria
    }

    pub fn goals(&self) -> &[StaticGoal] {
        &self.goals
    }

    pub fn goal(&self, id: GoalId) -> Option<&StaticGoal> {
        self.goals.get(id.index())
    }

    pub fn goal_count(&self) -> usize {
        self.goals.len()
    }

    /// Branch goals are `GoalId(0) .. GoalId(branch_goal_count)`.
    pub fn branch_goal_count(&self) -> usize {
        self.branch_goal_count
    }

    pub fn decisions(&self) -> &[DecisionInfo] {
        &self.decisions
    }

    pub fn decision(&self, id: DecisionId) -> &DecisionInfo {
        &self.decisions[id.index()]
    }

    pub fn members(&self) -> &[MemberInfo] {
        &self.members
    }

    pub fn member(&self, id: MemberId) -> &MemberInfo {
        &self.members[id.index()]
    }

    /// Appends a goal that nothing depends on (the coupled goals of `coupled_goals`).
    pub(crate) fn push_goal(&mut self, goal: StaticGoal) {
        self.goals.push(goal);
        self.children.push(Vec::new());
    }

    /// The goals that depend on `goal` (DynaMOSA activates them once `goal` is covered).
    pub fn children(&self, goal: GoalId) -> &[GoalId] {
        self.children
            .get(goal.index())
            .map(Vec::as_slice)
            .unwrap_or(&[])
    }

    /// Looks a decision up by its stable key.
    pub fn decision_by_key(&self, key: &DecisionKey) -> Option<DecisionId> {
        self.by_decision_key.get(key).copied()
    }

    /// Looks a decision up by its declaring type and [`javamodel::Decision::class_index`], the
    /// numbering instrumentation uses for probe ids.
    pub fn decision_by_class_index(
        &self,
        binary_name: &str,
        class_index: u32,
    ) -> Option<DecisionId> {
        self.by_class_index
            .get(&(binary_name.to_string(), class_index))
            .copied()
    }

    /// Looks a member up by [`javamodel::Member::key`].
    pub fn member_by_key(&self, key: &str) -> Option<MemberId> {
        self.by_member_key.get(key).copied()
    }

    /// The line goal of a 1-based source line, when the line criterion is on and the line holds a
    /// statement or a condition.
    pub fn line_goal(&self, line: u32) -> Option<GoalId> {
        self.by_line.get(&line).copied()
    }

    /// The weak-mutation goals' mutants, in goal order.
    pub fn mutants(&self) -> &[MutantInfo] {
        &self.mutants
    }

    /// The index in [`GoalTable::mutants`] of the mutant with local id `local_id`, when it is a
    /// goal.
    pub fn mutant_by_local_id(&self, local_id: u32) -> Option<u32> {
        self.by_mutant.get(&local_id).copied()
    }

    /// The static goals of one criterion.
    pub fn goals_of(&self, criterion: Criterion) -> impl Iterator<Item = GoalId> + '_ {
        self.goals
            .iter()
            .enumerate()
            .filter(move |(_, g)| g.kind.criterion() == criterion)
            .map(|(i, _)| GoalId(i as u32))
    }

    /// A human-readable name of a static goal, e.g. `com.x.A#m(int)/B1.T`, `line 12`,
    /// `method com.x.A#m(int)`.
    pub fn describe(&self, id: GoalId) -> Option<String> {
        let goal = self.goal(id)?;
        Some(match goal.kind {
            StaticGoalKind::Branch {
                decision, outcome, ..
            } => format!("{}.{}", self.decision(decision).key, outcome),
            StaticGoalKind::Line { line } => format!("line {line}"),
            StaticGoalKind::Method { member } => format!("method {}", self.member(member).key),
            StaticGoalKind::Coupled { pair } => self.describe_coupled(pair as usize),
            StaticGoalKind::WeakMutation { mutant } => {
                let m = &self.mutants[mutant as usize];
                format!(
                    "mutant {} ({}) line {}: {}",
                    m.local_id,
                    m.operator.as_str(),
                    m.line,
                    m.description
                )
            }
        })
    }
}

#[derive(Default)]
pub(crate) struct Builder {
    members: Vec<MemberInfo>,
    decisions: Vec<DecisionInfo>,
    goals: Vec<StaticGoal>,
    /// Model-level dependencies per decision, resolved once all decisions have goal ids.
    raw_decision_deps: Vec<Vec<ControlDep>>,
    /// Line -> (member, model-level dependencies) of every reachable control-flow node starting
    /// on it.
    raw_lines: BTreeMap<u32, Vec<(MemberId, Vec<ControlDep>)>>,
    /// Lines that start a statement, condition, loop keyword or `try`: the line goals when the
    /// caller gives no probed lines.
    code_lines: BTreeSet<u32>,
    /// The mutants to make weak-mutation goals of (empty unless the criterion is on).
    mutants: Vec<MutantProbe>,
    /// Every reachable control-flow node with a span: member, byte range, model-level
    /// dependencies. Where a mutant's code is evaluated.
    nodes: Vec<(MemberId, std::ops::Range<usize>, Vec<ControlDep>)>,
}

impl Builder {
    pub(crate) fn build(
        mut self,
        binary_name: &str,
        criteria: Criteria,
        types: &[&TypeDecl],
        probed_lines: Option<BTreeSet<u32>>,
    ) -> GoalTable {
        for ty in types {
            for member in &ty.members {
                if member.body.is_some() {
                    self.add_member(ty, member);
                }
            }
        }
        let branch_goal_count = self.goals.len();

        let mut by_decision_key = BTreeMap::new();
        let mut by_class_index = BTreeMap::new();
        for (index, decision) in self.decisions.iter().enumerate() {
            let id = DecisionId(index as u32);
            by_decision_key.insert(decision.key.clone(), id);
            if let Some(class_index) = decision.class_index {
                by_class_index.insert((decision.binary_name.clone(), class_index), id);
            }
        }
        let by_member_key: BTreeMap<String, MemberId> = self
            .members
            .iter()
            .enumerate()
            .map(|(i, m)| (m.key.clone(), MemberId(i as u32)))
            .collect();

        // Resolve decision dependencies now that every decision has goal ids.
        for index in 0..self.decisions.len() {
            let member = self.decisions[index].member;
            let deps = resolve(
                &self.raw_decision_deps[index],
                member,
                &self.members,
                &self.decisions,
                &by_decision_key,
            );
            let root = deps.iter().any(|d| matches!(d, Dependency::Entry(_)));
            let decision = &mut self.decisions[index];
            decision.dependencies = deps.clone();
            for outcome_index in 0..decision.outcomes.len() {
                let goal = &mut self.goals[decision.goal(outcome_index).index()];
                goal.dependencies = deps.clone();
                goal.root = root;
            }
        }

        let mut by_line = BTreeMap::new();
        if criteria.line {
            let lines = probed_lines.unwrap_or_else(|| std::mem::take(&mut self.code_lines));
            for line in lines {
                let mut deps = Vec::new();
                for (member, raw) in self.raw_lines.get(&line).into_iter().flatten() {
                    deps.extend(resolve(
                        raw,
                        *member,
                        &self.members,
                        &self.decisions,
                        &by_decision_key,
                    ));
                }
                deps.sort();
                deps.dedup();
                let root = deps.iter().any(|d| matches!(d, Dependency::Entry(_)));
                by_line.insert(line, GoalId(self.goals.len() as u32));
                self.goals.push(StaticGoal {
                    kind: StaticGoalKind::Line { line },
                    dependencies: deps,
                    root,
                });
            }
        }
        if criteria.method {
            for index in 0..self.members.len() {
                if self.members[index].is_method {
                    self.members[index].method_goal = Some(GoalId(self.goals.len() as u32));
                    self.goals.push(StaticGoal {
                        kind: StaticGoalKind::Method {
                            member: MemberId(index as u32),
                        },
                        dependencies: Vec::new(),
                        root: true,
                    });
                }
            }
        }

        let (mutants, by_mutant) = self.add_mutants(&by_member_key, &by_decision_key);

        let mut children = vec![Vec::new(); self.goals.len()];
        for (index, goal) in self.goals.iter().enumerate() {
            for dep in &goal.dependencies {
                if let Dependency::Goal(parent) = dep {
                    children[parent.index()].push(GoalId(index as u32));
                }
            }
        }
        for list in &mut children {
            list.sort();
            list.dedup();
        }

        GoalTable {
            binary_name: binary_name.to_string(),
            criteria,
            members: self.members,
            decisions: self.decisions,
            goals: self.goals,
            children,
            branch_goal_count,
            by_decision_key,
            by_class_index,
            by_member_key,
            by_line,
            mutants,
            by_mutant,
            coupled: Vec::new(),
        }
    }

    /// A weak-mutation goal per mutant inside a member of the table. Its dependencies are those
    /// of the innermost reachable control-flow node whose span holds the mutated code (a
    /// condition's decision, a statement), else those of the nodes on its line; a mutant in
    /// unreachable code gets none and never becomes a target.
    fn add_mutants(
        &mut self,
        by_member_key: &BTreeMap<String, MemberId>,
        by_decision_key: &BTreeMap<DecisionKey, DecisionId>,
    ) -> (Vec<MutantInfo>, BTreeMap<u32, u32>) {
        let mut infos = Vec::new();
        let mut by_mutant = BTreeMap::new();
        for (local_id, mutant) in std::mem::take(&mut self.mutants).into_iter().enumerate() {
            let Some(member) = mutant
                .member
                .as_ref()
                .and_then(|key| by_member_key.get(key))
                .copied()
            else {
                continue;
            };
            let innermost = self
                .nodes
                .iter()
                .filter(|(m, span, _)| *m == member && span.contains(&mutant.offset))
                .min_by_key(|(_, span, _)| span.len());
            let raw: Vec<ControlDep> = match innermost {
                Some((_, _, deps)) => deps.clone(),
                None => self
                    .raw_lines
                    .get(&mutant.line)
                    .into_iter()
                    .flatten()
                    .filter(|(m, _)| *m == member)
                    .flat_map(|(_, deps)| deps.iter().cloned())
                    .collect(),
            };
            let deps = resolve(
                &raw,
                member,
                &self.members,
                &self.decisions,
                by_decision_key,
            );
            let root = deps.iter().any(|d| matches!(d, Dependency::Entry(_)));
            let goal = GoalId(self.goals.len() as u32);
            by_mutant.insert(local_id as u32, infos.len() as u32);
            self.goals.push(StaticGoal {
                kind: StaticGoalKind::WeakMutation {
                    mutant: infos.len() as u32,
                },
                dependencies: deps,
                root,
            });
            infos.push(MutantInfo {
                local_id: local_id as u32,
                member,
                line: mutant.line,
                operator: mutant.operator,
                description: mutant.description,
                goal,
            });
        }
        (infos, by_mutant)
    }

    fn add_member(&mut self, ty: &TypeDecl, member: &Member) {
        let Some(body) = &member.body else {
            return;
        };
        let member_id = MemberId(self.members.len() as u32);
        let is_method = matches!(
            member.kind,
            MemberKind::Method | MemberKind::Constructor | MemberKind::CompactConstructor
        );
        let mut entry_decision = None;
        for decision in &body.decisions {
            if decision.outcomes.is_empty() {
                // Constant conditions have no goals and are not instrumented.
                continue;
            }
            let id = DecisionId(self.decisions.len() as u32);
            if decision.kind == DecisionKind::MethodEntry {
                entry_decision = Some(id);
            }
            let first_goal = GoalId(self.goals.len() as u32);
            for (outcome_index, outcome) in decision.outcomes.iter().enumerate() {
                self.goals.push(StaticGoal {
                    kind: StaticGoalKind::Branch {
                        decision: id,
                        outcome: *outcome,
                        outcome_index: outcome_index as u32,
                    },
                    dependencies: Vec::new(),
                    root: false,
                });
            }
            self.decisions.push(DecisionInfo {
                key: member.decision_key(decision),
                binary_name: ty.binary_name.clone(),
                class_index: decision.class_index,
                member: member_id,
                kind: decision.kind,
                line: decision.span.start.row as u32 + 1,
                outcomes: decision.outcomes.clone(),
                first_goal,
                dependencies: Vec::new(),
            });
            self.raw_decision_deps.push(decision.control_deps.clone());
        }
        for cfg in &body.cfgs {
            for node in &cfg.nodes {
                let Some(span) = node.span else {
                    continue;
                };
                let code = match node.kind {
                    CfgNodeKind::Statement | CfgNodeKind::LoopHead | CfgNodeKind::Try => true,
                    CfgNodeKind::Decision(ordinal) => body
                        .decisions
                        .get(ordinal as usize)
                        .is_some_and(|d| d.kind != DecisionKind::MethodEntry),
                    CfgNodeKind::Entry | CfgNodeKind::Exit => continue,
                    _ => false,
                };
                let line = span.start.row as u32 + 1;
                if code {
                    // Dead code is still a line to cover; it simply never becomes active.
                    self.code_lines.insert(line);
                }
                if node.reachable {
                    self.raw_lines
                        .entry(line)
                        .or_default()
                        .push((member_id, node.control_deps.clone()));
                    if !self.mutants.is_empty() {
                        self.nodes.push((
                            member_id,
                            span.start_byte..span.end_byte,
                            node.control_deps.clone(),
                        ));
                    }
                }
            }
        }
        self.members.push(MemberInfo {
            key: member.key.clone(),
            binary_name: ty.binary_name.clone(),
            kind: member.kind,
            line: member.span.start.row as u32 + 1,
            is_method,
            entry_decision,
            method_goal: None,
        });
    }
}

/// Maps model-level control dependencies of a goal or node in `member` to table dependencies.
fn resolve(
    raw: &[ControlDep],
    member: MemberId,
    members: &[MemberInfo],
    decisions: &[DecisionInfo],
    by_key: &BTreeMap<DecisionKey, DecisionId>,
) -> Vec<Dependency> {
    let member_key = &members[member.index()].key;
    let mut out: Vec<Dependency> = raw
        .iter()
        .filter_map(|dep| match dep {
            ControlDep::Entry => Some(Dependency::Entry(member)),
            ControlDep::Goal(goal) => {
                let key = DecisionKey {
                    member: member_key.clone(),
                    ordinal: goal.decision,
                };
                let decision = &decisions[by_key.get(&key)?.index()];
                let index = decision.outcome_index(goal.outcome)?;
                Some(Dependency::Goal(decision.goal(index)))
            }
        })
        .collect();
    out.sort();
    out.dedup();
    out
}
