//! `ctgls generate` without `--class`: from the project's sources and `.ctgls/` history to the
//! plan the runner executes (`ctgproject` does the deciding; this module gathers its inputs
//! and says on stderr what it decided).

use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

use ctg::project::ProjectLayout;
use ctg::store::{RerunDecision, RerunReason, Store};
use ctgproject::allocation::{self, BudgetSettings, Candidate, Share, Strategy};
use ctgproject::changed;
use ctgproject::discover::{self, ClassFilter};
use ctgproject::order;
use ctgproject::pairs::{self, ModelledClass, PairChoice, PairRun};
use ctgproject::run::{self, Limits, Planned};
use ctgproject::shard;

use crate::cli::generate_args::GenerateArgs;
use crate::cli::report_json::{IntegrationFacts, ProjectFacts};

/// What project mode runs, and the facts for the report.
pub struct ProjectPlan {
    pub plan: Vec<Planned>,
    /// Time no class was given (handed on at run time), the most a class gets (the paper's
    /// `b`) and the least it keeps when overruns are taken back (its `z`).
    pub limits: Limits,
    /// The project classes each class takes as input: their stored tests seed its search.
    pub uses: BTreeMap<String, BTreeSet<String>>,
    /// Class-integration runs (`--integration`), after the unit runs, most coupled first.
    pub pairs: Vec<PairRun>,
    pub facts: ProjectFacts,
}

/// Plans the run of `args` over `layout`'s classes for `jobs` workers.
pub fn plan(
    args: &GenerateArgs,
    layout: &ProjectLayout,
    store: &Store,
    jobs: usize,
) -> Result<ProjectPlan, String> {
    let mode = &args.project_mode;
    let (mut classes, problems) = discover::discover(
        &layout.source_roots,
        std::slice::from_ref(&layout.test_root),
        &ctg::pipeline::source_hash,
    );
    for problem in problems {
        eprintln!("ctgls: warning: {problem}");
    }
    // Every class of the project, before the filters: a class's stored tests can seed the
    // classes that use it even when it does not run this time.
    let everything: BTreeSet<String> = classes.iter().map(|c| c.name.clone()).collect();
    let filter = ClassFilter {
        packages: mode.packages.clone(),
        include: mode.include.clone(),
    };
    classes.retain(|c| filter.keeps(&c.name));
    let changed_files = match &mode.changed_since {
        Some(reference) => Some(changed::changed_files(&layout.root, reference)?),
        None => None,
    };
    let before_changes = classes.len();
    if let Some(files) = &changed_files {
        classes.retain(|c| files.contains(&changed::canonical(&c.file)));
    }
    // Nothing changed is not an error (a CI run on a commit that touched no class).
    if before_changes == 0 {
        return Err(format!(
            "no testable class in {} matches (source roots: {})",
            layout.root.display(),
            layout
                .source_roots
                .iter()
                .map(|r| r.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }

    // Section 4.1: changed (or new) classes, and the history's verdict on unchanged ones.
    let candidates: Vec<Candidate> = classes
        .iter()
        .map(|c| {
            let decision = store.should_rerun(&c.name, &c.source_hash);
            let changed = changed_files.is_some()
                || matches!(
                    decision,
                    RerunDecision::Yes(RerunReason::SourceChanged | RerunReason::NeverRun)
                );
            Candidate {
                class: c.name.clone(),
                branches: c.branches,
                changed,
                skip: match decision {
                    RerunDecision::No(reason) if changed_files.is_none() => {
                        Some(reason.to_string())
                    }
                    _ => None,
                },
            }
        })
        .collect();
    let runnable = candidates.iter().filter(|c| c.skip.is_none()).count();
    let total = mode
        .total_budget
        .unwrap_or_else(|| args.budget * u32::try_from(runnable).unwrap_or(u32::MAX));
    let average = if runnable == 0 {
        args.budget
    } else {
        total / u32::try_from(runnable).unwrap_or(u32::MAX)
    };
    let minimum = mode.min_budget.unwrap_or(average / 3);
    // `z ≤ b`: with k workers the run lasts total / k.
    let maximum = (total / u32::try_from(jobs.max(1)).unwrap_or(1)).max(minimum);
    // `--integration`: the pairs get their share first (what they do not use stays with the
    // classes), each at least the classes' minimum.
    let pair_choice = match mode.integration {
        Some(integration) => {
            let models = models_of(&classes);
            let modelled: Vec<ModelledClass<'_>> = classes
                .iter()
                .zip(&models)
                .filter_map(|(class, model)| {
                    Some(ModelledClass {
                        name: &class.name,
                        model: model.as_ref()?,
                        branches: class.branches,
                    })
                })
                .collect();
            pairs::choose(
                &pairs::candidates(&modelled),
                total.mul_f64(integration.share),
                minimum,
                integration.max_pairs,
            )
        }
        None => PairChoice::default(),
    };
    let unit_total = total.saturating_sub(pair_choice.total());
    let allocation = allocation::allocate(
        &candidates,
        &BudgetSettings {
            total: unit_total,
            minimum,
            maximum,
            strategy: mode.allocation,
            changed_factor: allocation::CHANGED_FACTOR,
        },
    );
    let mut skipped: Vec<(String, String)> = allocation
        .shares
        .iter()
        .filter_map(|(class, share)| match share {
            Share::Skip(why) => Some((class.clone(), why.clone())),
            Share::Run(_) => None,
        })
        .collect();
    let mut budgets: Vec<(String, Duration)> = allocation
        .runs()
        .map(|(class, budget)| (class.to_string(), budget))
        .collect();
    let mut unallocated = allocation.unallocated;
    let mut pair_runs = pair_choice.runs.clone();
    if let Some(shard) = mode.shard {
        let mine: BTreeSet<String> = shard::select(&budgets, shard).into_iter().collect();
        budgets.retain(|(class, _)| mine.contains(class));
        // Pairs are shared out between the shards like classes, by their labels.
        let labelled: Vec<(String, Duration)> = pair_runs
            .iter()
            .map(|p| (pairs::label(&p.caller, &p.callee), p.budget))
            .collect();
        let mine: BTreeSet<String> = shard::select(&labelled, shard).into_iter().collect();
        pair_runs.retain(|p| mine.contains(&pairs::label(&p.caller, &p.callee)));
        unallocated /= u32::try_from(shard.count).unwrap_or(1);
        // The classes the allocation skipped are reported once, by the first shard.
        if shard.index != 1 {
            skipped.clear();
        }
    }

    // Section 3.2: the classes a class takes as input come first.
    let uses: BTreeMap<String, BTreeSet<String>> = classes
        .iter()
        .map(|c| (c.name.clone(), c.uses.clone()))
        .collect();
    let order = order::dependency_order(&uses);
    let prerequisites = order.prerequisites(&uses);
    let budget_map: BTreeMap<String, Duration> = budgets.into_iter().collect();
    let plan = run::plan(&order.classes, &budget_map, &prerequisites);
    if !args.quiet {
        let strategy = match mode.allocation {
            Strategy::Branches => "by branches",
            Strategy::Equal => "equally",
        };
        eprintln!(
            "ctgls: {} of {} classes, {:.0}s shared {strategy} (at least {:.1}s, at most {:.1}s \
             a class), {jobs} at once{}",
            plan.len(),
            classes.len(),
            total.as_secs_f64(),
            minimum.as_secs_f64(),
            maximum.as_secs_f64(),
            mode.shard
                .map(|s| format!(", shard {s}"))
                .unwrap_or_default()
        );
        for (class, why) in &skipped {
            eprintln!("ctgls: skipping {class}: {why}");
        }
        for cycle in &order.cycles {
            eprintln!(
                "ctgls: note: {} use each other; they run in name order",
                cycle.join(", ")
            );
        }
        if mode.integration.is_some() {
            eprintln!(
                "ctgls: integration tests of {} pairs, {:.0}s of the total",
                pair_runs.len(),
                pair_choice.total().as_secs_f64()
            );
            for (caller, callee, why) in &pair_choice.left_out {
                eprintln!("ctgls: no integration tests of {caller} -> {callee}: {why}");
            }
        }
    }
    Ok(ProjectPlan {
        facts: ProjectFacts {
            allocation: match mode.allocation {
                Strategy::Branches => "branches",
                Strategy::Equal => "equal",
            },
            total_budget: total,
            jobs,
            shard: mode.shard.map(|s| s.to_string()),
            order: plan.iter().map(|p| p.class.clone()).collect(),
            cycles: order.cycles,
            skipped,
            wall: Duration::ZERO,
            integration: mode.integration.map(|_| IntegrationFacts {
                total: pair_choice.total(),
                pairs: pair_runs
                    .iter()
                    .map(|p| (p.caller.clone(), p.callee.clone(), p.coupled_branches))
                    .collect(),
                left_out: pair_choice.left_out.clone(),
            }),
        },
        plan,
        pairs: pair_runs,
        limits: Limits {
            unallocated,
            maximum,
            minimum,
        },
        uses: uses
            .iter()
            .map(|(class, used)| {
                let known = used.iter().filter(|u| everything.contains(*u)).cloned();
                (class.clone(), known.collect())
            })
            .collect(),
    })
}

/// The models of `classes` (read again: discovery keeps only what the allocation needs); a
/// file that cannot be read now has no model and no pair.
fn models_of(classes: &[discover::ProjectClass]) -> Vec<Option<javamodel::JavaModel>> {
    classes
        .iter()
        .map(|class| {
            let text = std::fs::read_to_string(&class.file).ok()?;
            let tree = syntax::parse_java(&text, None);
            Some(javamodel::JavaModel::build(&text, &tree))
        })
        .collect()
}
