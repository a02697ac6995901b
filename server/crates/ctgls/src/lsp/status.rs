//! `ctgls/status` and the `ctgls.status` command: what the server is doing, per open class
//! what it found, and why generation cannot run when it cannot (`docs/lsp-extensions.md`).

use crate::lsp::protocol::{
    ClassStatus, ClasspathState, ClasspathStatus, Count, ResultsOrigin, RunningClass, ServerState,
    Status,
};
use crate::lsp::requests::Snapshot;
use crate::lsp::results::words::simple_name;
use crate::lsp::results::{ClassResults, Origin};
use crate::lsp::workspace::{primary_type, uri_path};

pub fn compute(snapshot: &Snapshot) -> Status {
    let running = snapshot.scheduler.running();
    let mut classes = Vec::new();
    let mut queued = Vec::new();
    let mut uris: Vec<_> = snapshot.scheduler.tracked().collect();
    uris.sort_by(|a, b| a.as_str().cmp(b.as_str()));
    for uri in uris {
        let (Some(schedule), Some(file)) = (snapshot.scheduler.file(uri), snapshot.files.get(uri))
        else {
            continue;
        };
        let shown = snapshot.shown.get(uri);
        let path = uri_path(uri);
        let Some(ty) = primary_type(file.model(), path.as_deref()) else {
            continue;
        };
        if schedule.queued(snapshot.config.trigger) {
            queued.push(ty.binary_name.clone());
        }
        let results = shown.and_then(|s| s.results.as_deref());
        let problem = if !file.model().problems.is_empty() {
            Some("the file has syntax errors: waiting for them to be fixed".to_string())
        } else {
            shown
                .and_then(|s| s.problem.as_ref())
                .map(|p| p.message.clone())
                .or_else(|| results.and_then(|r| r.unverified.clone()))
        };
        classes.push(ClassStatus {
            uri: uri.clone(),
            class: ty.binary_name.clone(),
            branches: results.map(|r| Count {
                covered: r.covered_goals(),
                total: r.decisions.iter().map(|d| d.outcomes.len()).sum(),
            }),
            lines: results.map(|r| Count {
                covered: r.lines.iter().filter(|l| l.covered).count(),
                total: r.lines.len(),
            }),
            tests: results.map(|r| r.tests.iter().filter(|t| t.name.is_some()).count()),
            runs: schedule.runs,
            origin: results.map(|r| match r.origin {
                Origin::Final => ResultsOrigin::Run,
                Origin::Interim => ResultsOrigin::Running,
                Origin::Stored => ResultsOrigin::Stored,
            }),
            problem,
        });
    }
    let notes = project_notes(snapshot.shown.values().filter_map(|s| s.results.as_deref()));
    let (state, message) = match (&snapshot.unavailable, running) {
        (Some(reason), _) => (ServerState::Unavailable, reason.clone()),
        (None, Some(r)) => {
            let progress = r
                .branches
                .map(|(c, t)| format!(" ({c}/{t} branches)"))
                .unwrap_or_default();
            (
                ServerState::Running,
                format!("{}: {}{progress}", simple_name(&r.class), r.phase),
            )
        }
        (None, None) if snapshot.workspace.folders.is_empty() && snapshot.files.is_empty() => {
            (ServerState::Idle, "no Java file open".to_string())
        }
        (None, None) => (ServerState::Idle, format!("{} classes open", classes.len())),
    };
    Status {
        state,
        message,
        running: running.map(|r| RunningClass {
            uri: r.uri.clone(),
            class: r.class.clone(),
            phase: r.phase.to_string(),
            branches: r.branches.map(|(covered, total)| Count { covered, total }),
            elapsed_ms: r.started.elapsed().as_millis() as u64,
        }),
        queued,
        classes,
        notes: notes.into_iter().map(String::from).collect(),
        workspace_folders: snapshot.workspace.folders.clone(),
        classpaths: snapshot
            .classpaths
            .iter()
            .map(|(root, c)| ClasspathStatus {
                root: root.clone(),
                tool: c.tool.to_string(),
                state: match c.state {
                    "resolved" => ClasspathState::Resolved,
                    "cached" => ClasspathState::Cached,
                    "fallback" => ClasspathState::Fallback,
                    _ => ClasspathState::Failed,
                },
                entries: c.entries,
                sibling_sources: c.sibling_sources,
                message: c.message.clone(),
            })
            .collect(),
        version: env!("CARGO_PKG_VERSION").to_string(),
    }
}

/// Notes about a project rather than a class (its Java levels), once however many classes'
/// results carry them, sorted.
fn project_notes<'a>(results: impl IntoIterator<Item = &'a ClassResults>) -> Vec<&'a str> {
    let mut notes: Vec<&str> = results
        .into_iter()
        .filter_map(|r| r.level_note.as_deref())
        .collect();
    notes.sort_unstable();
    notes.dedup();
    notes
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_project_note_shows_once_for_all_its_classes() {
        let model =
            javamodel::JavaModel::build("class A {}", &syntax::parse_java("class A {}", None));
        let with = |note: Option<&str>| {
            let mut results = ClassResults::interim(1, "p.A", &model, &Default::default());
            results.level_note = note.map(String::from);
            results
        };
        let levels = "The build declares Java 5; JDK 17's javac compiles Java 7 and newer.";
        let classes = [with(Some(levels)), with(None), with(Some(levels))];
        assert_eq!(project_notes(&classes), vec![levels]);
        assert!(project_notes(&[with(None)]).is_empty());
    }
}
