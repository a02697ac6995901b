//! `ctgls/status` and the `ctgls.status` command: what the server is doing, per open class
//! what it found, and why generation cannot run when it cannot (`docs/lsp-extensions.md`).

use serde_json::{json, Value};

use crate::lsp::results::{simple_name, ClassResults, Origin};
use crate::lsp::state::State;
use crate::lsp::workspace::{primary_type, uri_path};

pub fn compute(state: &State) -> Value {
    let unavailable = state.unavailable_reason();
    let running = state.running.as_ref().map(|r| {
        json!({
            "uri": r.uri.as_str(),
            "class": r.class,
            "phase": r.phase,
            "branches": r.branches.map(|(covered, total)| json!({ "covered": covered, "total": total })),
            "elapsedMs": r.started.elapsed().as_millis() as u64,
        })
    });
    let mut classes = Vec::new();
    let mut queued = Vec::new();
    let mut uris: Vec<_> = state.tracked.keys().collect();
    uris.sort_by(|a, b| a.as_str().cmp(b.as_str()));
    for uri in uris {
        let tracked = &state.tracked[uri];
        let Some(file) = state.files.get(uri) else {
            continue;
        };
        let path = uri_path(uri);
        let Some(ty) = primary_type(file.model(), path.as_deref()) else {
            continue;
        };
        if tracked.forced || !tracked.ready {
            queued.push(ty.binary_name.clone());
        }
        let results = tracked.results.as_ref();
        let branches = results.map(|r| {
            let total: usize = r.decisions.iter().map(|d| d.outcomes.len()).sum();
            json!({ "covered": r.covered_goals(), "total": total })
        });
        let lines = results.map(|r| {
            let covered = r.lines.iter().filter(|l| l.covered).count();
            json!({ "covered": covered, "total": r.lines.len() })
        });
        let problem = if !file.model().problems.is_empty() {
            Some("the file has syntax errors: waiting for them to be fixed".to_string())
        } else {
            tracked
                .problem
                .as_ref()
                .map(|p| p.message.clone())
                .or_else(|| results.and_then(|r| r.unverified.clone()))
        };
        classes.push(json!({
            "uri": uri.as_str(),
            "class": ty.binary_name,
            "branches": branches,
            "lines": lines,
            "tests": results.map(|r| r.tests.iter().filter(|t| t.name.is_some()).count()),
            "runs": tracked.runs,
            "origin": results.map(|r| match r.origin {
                Origin::Final => "run",
                Origin::Interim => "running",
                Origin::Stored => "stored",
            }),
            "problem": problem,
        }));
    }
    let notes = project_notes(state.tracked.values().filter_map(|t| t.results.as_deref()));
    let (state_name, message) = match (&unavailable, &state.running) {
        (Some(reason), _) => ("unavailable", reason.clone()),
        (None, Some(r)) => {
            let progress = r
                .branches
                .map(|(c, t)| format!(" ({c}/{t} branches)"))
                .unwrap_or_default();
            (
                "running",
                format!("{}: {}{progress}", simple_name(&r.class), r.phase),
            )
        }
        (None, None) if state.workspace.folders.is_empty() && state.files.is_empty() => {
            ("idle", "no Java file open".to_string())
        }
        (None, None) => ("idle", format!("{} classes open", classes.len())),
    };
    let classpaths: Vec<Value> = state
        .classpaths
        .iter()
        .map(|(root, c)| {
            json!({
                "root": root,
                "tool": c.tool,
                "state": c.state,
                "entries": c.entries,
                "siblingSources": c.sibling_sources,
                "message": c.message,
            })
        })
        .collect();
    json!({
        "state": state_name,
        "message": message,
        "running": running,
        "queued": queued,
        "classes": classes,
        "notes": notes,
        "workspaceFolders": state.workspace.folders,
        "classpaths": classpaths,
        "version": env!("CARGO_PKG_VERSION"),
    })
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
