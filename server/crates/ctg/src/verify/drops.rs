//! What a round's failures cost the suite: javac's errors and the JUnit runs' failures become
//! suppressed assertions (with the comment saying why) and dropped tests, by the rules of
//! `verify.rs`'s module documentation and docs/emission.md.

use super::*;

/// What a failing test loses in a round.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum FailureDrops {
    /// Only its failing assertion, where that is all that failed.
    Assertions,
    /// The whole test: rounds must end (`WHOLE_TESTS_FROM_ROUND`).
    WholeTests,
    /// The whole test: the deadline leaves no time for a round that saves the rest of it.
    WholeTestsAtDeadline,
}

/// Drops what javac rejected: the assertion on an error's line, else its test.
pub(super) fn drop_uncompilable(
    printed: &PrintedClass,
    errors: &[JavacError],
    source_path: &Path,
    suppressions: &mut Suppressions,
    dropped: &mut Vec<Dropped>,
) -> Result<(), VerifyError> {
    let mut outside = Vec::new();
    for e in errors {
        let in_test_file = e
            .file
            .as_ref()
            .is_some_and(|f| f.file_name() == source_path.file_name());
        let located = e
            .line
            .filter(|_| in_test_file)
            .and_then(|l| printed.locate(l));
        match located {
            Some((test, Some(a))) if a.kind != AssertionKind::Throws => {
                if suppressions.assertions.insert(a.id, None).is_none() {
                    dropped.push(Dropped {
                        test: test.name.clone(),
                        assertion: Some(a.subject.clone()),
                        reason: DropReason::DoesNotCompile {
                            message: e.message.clone(),
                        },
                    });
                }
            }
            Some((test, _)) => {
                if suppressions
                    .tests
                    .insert(test.index, e.message.clone())
                    .is_none()
                {
                    dropped.push(Dropped {
                        test: test.name.clone(),
                        assertion: None,
                        reason: DropReason::DoesNotCompile {
                            message: e.message.clone(),
                        },
                    });
                }
            }
            None => outside.push(e.clone()),
        }
    }
    if !outside.is_empty() {
        return Err(VerifyError::TestClassDoesNotCompile {
            errors: outside,
            test_source: printed.source.clone(),
        });
    }
    Ok(())
}

/// Records what one run says: failed assertions are suppressed (with a comment), failed tests
/// and tests that changed the JVM's defaults dropped; `failed` collects the tests that did not
/// pass. `perturbed` gives, for a perturbed run, the perturbation a test's failure is put down
/// to (`None` for the plain runs).
#[allow(clippy::too_many_arguments)]
pub(super) fn apply_run(
    printed: &PrintedClass,
    report: &RunReport,
    round: u32,
    drops: FailureDrops,
    perturbed: &dyn Fn(&str) -> Option<PerturbationKind>,
    suppressions: &mut Suppressions,
    dropped: &mut Vec<Dropped>,
    failed: &mut BTreeSet<usize>,
) -> Result<(), VerifyError> {
    let order = report.order;
    let by_name = |name: &str| printed.tests.iter().find(|t| t.name == name);
    // A perturbed run's failure names its perturbation, whatever kind of failure it is.
    let reason = |test: &str, plain: DropReason| match perturbed(test) {
        Some(kind) => DropReason::Perturbed {
            round,
            kind,
            message: match &plain {
                DropReason::Failed { message, .. } => message.clone(),
                DropReason::TimedOut { .. } => "timed out".into(),
                DropReason::NotRun { .. } => "not run".into(),
                DropReason::DeadlinePassed { message, .. } => message.clone(),
                other => format!("{other:?}"),
            },
        },
        None => plain,
    };
    for (name, what) in &report.state_changes {
        let Some(test) = by_name(name) else { continue };
        failed.insert(test.index);
        drop_test(
            suppressions,
            dropped,
            test.index,
            &test.name,
            DropReason::ChangesGlobalState {
                round,
                order,
                what: what.clone(),
            },
        );
    }
    let mut assertion_drops = Vec::new();
    for f in &report.failures {
        let Some(test) = by_name(&f.test) else {
            return Err(VerifyError::Launcher {
                message: format!(
                    "a failure outside the generated tests: {} {}",
                    f.exception, f.message
                ),
            });
        };
        failed.insert(test.index);
        let assertion = f
            .line
            .and_then(|l| printed.locate(l))
            .filter(|(t, _)| t.index == test.index)
            .and_then(|(_, a)| a);
        let droppable = assertion.filter(|a| {
            a.kind != AssertionKind::Throws && (f.assertion_error || !a.runs_statement)
        });
        match droppable {
            Some(a) if drops == FailureDrops::Assertions => assertion_drops.push((test, a, f)),
            Some(a) if drops == FailureDrops::WholeTestsAtDeadline => drop_test(
                suppressions,
                dropped,
                test.index,
                &test.name,
                reason(
                    &test.name,
                    DropReason::DeadlinePassed {
                        round,
                        order,
                        assertion: a.subject.clone(),
                        message: f.message.clone(),
                    },
                ),
            ),
            _ => drop_test(
                suppressions,
                dropped,
                test.index,
                &test.name,
                reason(
                    &test.name,
                    DropReason::Failed {
                        round,
                        order,
                        message: format!("{}: {}", f.exception, f.message),
                    },
                ),
            ),
        }
    }
    for (test, a, f) in assertion_drops {
        if suppressions.tests.contains_key(&test.index)
            || suppressions.assertions.contains_key(&a.id)
        {
            continue;
        }
        let (note, reason) = match perturbed(&test.name) {
            Some(kind) => (
                kind.note(),
                DropReason::Perturbed {
                    round,
                    kind,
                    message: f.message.clone(),
                },
            ),
            None => {
                let cause = Instability::classify(&a.subject, &f.message);
                (
                    cause.note(),
                    DropReason::Unstable {
                        round,
                        order,
                        message: f.message.clone(),
                        cause,
                    },
                )
            }
        };
        suppressions.assertions.insert(a.id, Some(note.to_string()));
        dropped.push(Dropped {
            test: test.name.clone(),
            assertion: Some(a.subject.clone()),
            reason,
        });
    }
    if let Some(running) = &report.timed_out {
        // The test that hung: named by the runner, else the first one the run did not finish
        // in its order.
        let hung = running.clone().or_else(|| {
            let mut names: Vec<&str> = printed.tests.iter().map(|t| t.name.as_str()).collect();
            names.sort();
            if order == RunOrder::Reverse {
                names.reverse();
            }
            names
                .into_iter()
                .find(|n| !report.executed.iter().any(|e| e == n))
                .map(String::from)
        });
        let Some(test) = hung.as_deref().and_then(by_name) else {
            return Err(VerifyError::TimedOut {
                what: format!("JUnit run {round} ({order:?})"),
                after: report.duration,
            });
        };
        failed.insert(test.index);
        drop_test(
            suppressions,
            dropped,
            test.index,
            &test.name,
            reason(&test.name, DropReason::TimedOut { round, order }),
        );
        return Ok(());
    }
    for test in &printed.tests {
        if !report.executed.contains(&test.name) {
            failed.insert(test.index);
            drop_test(
                suppressions,
                dropped,
                test.index,
                &test.name,
                reason(&test.name, DropReason::NotRun { round, order }),
            );
        }
    }
    Ok(())
}

fn drop_test(
    suppressions: &mut Suppressions,
    dropped: &mut Vec<Dropped>,
    index: usize,
    name: &str,
    reason: DropReason,
) {
    if suppressions
        .tests
        .insert(index, format!("{reason:?}"))
        .is_none()
    {
        dropped.push(Dropped {
            test: name.to_string(),
            assertion: None,
            reason,
        });
    }
}
