//! The run history and Campos et al.'s "Continuous Test Generation" re-run rule (section 4.1): a class whose coverage did not
//! improve over its last three runs is not re-run until it changes.

mod store_fixtures;

use ctg::store::*;
use store_fixtures::*;

/// The history after runs of `(source hash, covered, total)`, one after the other.
fn history_of(runs: &[(&str, usize, usize)]) -> Vec<HistoryEntry> {
    let mut history = Vec::new();
    for (i, &(hash, covered, total)) in runs.iter().enumerate() {
        let run = finished_run(ACCOUNT, i as u64, hash, vec![], coverage(covered, total));
        history = record_after(&history, &run).history;
    }
    history
}

fn improved(history: &[HistoryEntry]) -> Vec<bool> {
    history.iter().map(|e| e.improved).collect()
}

#[test]
fn three_runs_without_improvement_stop_an_unchanged_class() {
    let mut runs = vec![("h1", 5, 10), ("h1", 6, 10), ("h1", 6, 10), ("h1", 6, 10)];
    let history = history_of(&runs);
    assert_eq!(improved(&history), [true, true, false, false]);
    assert_eq!(
        rerun_decision(&history, "h1"),
        RerunDecision::Yes(RerunReason::MayImprove)
    );

    runs.push(("h1", 5, 10));
    let history = history_of(&runs);
    assert_eq!(improved(&history), [true, true, false, false, false]);
    let decision = rerun_decision(&history, "h1");
    assert_eq!(decision, RerunDecision::No(SkipReason::NoImprovement));
    assert!(!decision.should_run());
    assert_eq!(
        SkipReason::NoImprovement.to_string(),
        "no improvement in the last 3 runs"
    );

    // Until it changes.
    assert_eq!(
        rerun_decision(&history, "h2"),
        RerunDecision::Yes(RerunReason::SourceChanged)
    );
}

#[test]
fn an_improvement_among_the_last_three_runs_keeps_the_class_running() {
    let history = history_of(&[
        ("h1", 5, 10),
        ("h1", 5, 10),
        ("h1", 5, 10),
        ("h1", 7, 10),
        ("h1", 7, 10),
        ("h1", 7, 10),
    ]);
    assert_eq!(improved(&history), [true, false, false, true, false, false]);
    assert!(rerun_decision(&history, "h1").should_run());
}

#[test]
fn the_first_run_on_a_changed_source_is_an_improvement_and_restarts_the_count() {
    let history = history_of(&[
        ("h1", 5, 10),
        ("h1", 5, 10),
        ("h1", 5, 10),
        ("h1", 5, 10),
        ("h2", 2, 10),
        ("h2", 2, 10),
        ("h2", 2, 10),
    ]);
    assert_eq!(
        improved(&history),
        [true, false, false, false, true, false, false]
    );
    assert_eq!(
        rerun_decision(&history, "h2"),
        RerunDecision::Yes(RerunReason::MayImprove)
    );
    // Stale runs on an older source never count against the current one.
    let back_to_h1 = history_of(&[
        ("h1", 5, 10),
        ("h1", 5, 10),
        ("h1", 5, 10),
        ("h1", 5, 10),
        ("h2", 5, 10),
        ("h1", 5, 10),
    ]);
    assert!(improved(&back_to_h1)[5]);
    assert!(rerun_decision(&back_to_h1, "h1").should_run());
}

#[test]
fn improvement_compares_coverage_fractions_exactly() {
    // 1/3 then 2/6 is no improvement; 2/6 then 3/8 (0.375 > 0.333...) is one.
    let history = history_of(&[("h1", 1, 3), ("h1", 2, 6), ("h1", 3, 8)]);
    assert_eq!(improved(&history), [true, false, true]);
    assert_eq!(history[2].covered_goals, 3);
    assert_eq!(history[2].total_goals, 8);
    assert_eq!(history[2].coverage(), 0.375);
}

#[test]
fn a_fully_covered_class_is_not_rerun_until_it_changes() {
    let history = history_of(&[("h1", 4, 10), ("h1", 10, 10)]);
    assert_eq!(
        rerun_decision(&history, "h1"),
        RerunDecision::No(SkipReason::FullyCovered)
    );
    assert_eq!(
        rerun_decision(&history, "h2"),
        RerunDecision::Yes(RerunReason::SourceChanged)
    );
    // A run that recorded no goals at all says nothing about coverage.
    let no_goals = history_of(&[("h1", 0, 0)]);
    assert!(rerun_decision(&no_goals, "h1").should_run());
}

#[test]
fn a_class_never_run_is_run() {
    assert_eq!(
        rerun_decision(&[], "h1"),
        RerunDecision::Yes(RerunReason::NeverRun)
    );
}

#[test]
fn the_history_keeps_the_latest_runs() {
    let runs: Vec<(&str, usize, usize)> = (0..HISTORY_LIMIT + 7).map(|_| ("h1", 1, 2)).collect();
    let history = history_of(&runs);
    assert_eq!(history.len(), HISTORY_LIMIT);
    assert_eq!(history[0].run.timestamp_ms, 7);
    assert_eq!(
        history.last().unwrap().run.timestamp_ms,
        (HISTORY_LIMIT + 6) as u64
    );
}

#[test]
fn the_store_applies_the_rule_to_its_saved_history() {
    let ws = Workspace::new("history");
    let store = Store::open(ws.path());
    assert_eq!(
        store.should_rerun(ACCOUNT, "h1"),
        RerunDecision::Yes(RerunReason::NeverRun)
    );
    for t in 0..4 {
        let run = finished_run(ACCOUNT, 100 + t, "h1", vec![], coverage(3, 10));
        let saved = store.save_run(&run).unwrap();
        assert_eq!(saved.record.history.len() as u64, t + 1);
        assert_eq!(saved.record.last_run().unwrap().improved, t == 0);
    }
    assert_eq!(
        store.should_rerun(ACCOUNT, "h1"),
        RerunDecision::No(SkipReason::NoImprovement)
    );
    assert_eq!(
        store.should_rerun(ACCOUNT, "h1-edited"),
        RerunDecision::Yes(RerunReason::SourceChanged)
    );
    let history = store.history(ACCOUNT).unwrap();
    let timestamps: Vec<u64> = history.iter().map(|e| e.run.timestamp_ms).collect();
    assert_eq!(timestamps, [100, 101, 102, 103]);
    assert_eq!(history[0].run, run_info(100, "h1"));
}
