//! What a project's emissions cost on this machine, kept between sessions: the scales and the
//! expected rounds of [`EmissionCosts`], in ctgls's cache directory (never in the project's
//! `.ctgls/` store, which teams share between machines). Without it every `ctgls generate`
//! would start from the reference costs and reserve too little on a slow machine or project,
//! and overrun the user's budget on every run.
//!
//! The reference costs themselves stay in the code: a newer ctgls with other references reads
//! the old scales as corrections of the new references, which only moves the first estimate.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::{EmissionCosts, MAX_SCALE, MIN_SCALE};
use crate::store::{fnv1a64, write_atomic};

/// The format's version; a file of another version is ignored. Version 2 has the mutation
/// analysis's part apart: version 1's worker scale included it, and would overstate it now.
const VERSION: u32 = 2;

/// Upper bound on a saved number of rounds: verification stops after a few rounds anyway, and
/// a corrupted file must not make the next reserve absurd.
const MAX_ROUNDS: f64 = 8.0;

#[derive(Debug, Serialize, Deserialize, PartialEq)]
struct Saved {
    version: u32,
    worker: f64,
    mutation: f64,
    javac: f64,
    junit: f64,
    perturbed: f64,
    javac_rounds: f64,
    junit_rounds: f64,
    perturbed_rounds: f64,
}

/// Where the costs of the project at `root` are kept under the cache directory `cache_dir`:
/// one file per project, named after its canonical path.
pub fn costs_path(cache_dir: &Path, root: &Path) -> PathBuf {
    let root = root.canonicalize().unwrap_or_else(|_| root.to_path_buf());
    let hash = fnv1a64(root.as_os_str().as_encoded_bytes());
    cache_dir.join("costs").join(format!("{hash:016x}.json"))
}

/// The costs saved at `path` applied to the reference costs, or `None` when there is no file
/// or it cannot be used (unreadable, another version, numbers out of range): then the session
/// starts from the references, as a first session does.
pub fn load(path: &Path) -> Option<EmissionCosts> {
    let text = std::fs::read_to_string(path).ok()?;
    let saved: Saved = match serde_json::from_str(&text) {
        Ok(saved) => saved,
        Err(error) => {
            tracing::debug!(
                "ignoring the saved emission costs {}: {error}",
                path.display()
            );
            return None;
        }
    };
    let scale = |s: f64| (MIN_SCALE..=MAX_SCALE).contains(&s).then_some(s);
    let rounds = |r: f64| (0.0..=MAX_ROUNDS).contains(&r).then_some(r);
    if saved.version != VERSION {
        return None;
    }
    let mut costs = EmissionCosts::default();
    costs.worker.scale = scale(saved.worker)?;
    costs.mutation.scale = scale(saved.mutation)?;
    costs.javac.scale = scale(saved.javac)?;
    costs.junit.scale = scale(saved.junit)?;
    costs.perturbed.scale = scale(saved.perturbed)?;
    costs.javac_rounds = rounds(saved.javac_rounds)?;
    costs.junit_rounds = rounds(saved.junit_rounds)?;
    costs.perturbed_rounds = rounds(saved.perturbed_rounds)?;
    Some(costs)
}

/// Saves `costs` at `path` atomically. A failure is logged and otherwise ignored: the costs are
/// an estimate, and the next session learns them again.
pub fn save(path: &Path, costs: &EmissionCosts) {
    let saved = Saved {
        version: VERSION,
        worker: costs.worker.scale,
        mutation: costs.mutation.scale,
        javac: costs.javac.scale,
        junit: costs.junit.scale,
        perturbed: costs.perturbed.scale,
        javac_rounds: costs.javac_rounds,
        junit_rounds: costs.junit_rounds,
        perturbed_rounds: costs.perturbed_rounds,
    };
    let text = serde_json::to_string_pretty(&saved).expect("plain numbers serialise");
    if let Err(error) = write_atomic(path, text.as_bytes()) {
        tracing::debug!("cannot save the emission costs: {error}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("ctgls-budget-saved-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        dir
    }

    #[test]
    fn saved_costs_come_back_as_they_were() {
        let dir = scratch("round-trip");
        let path = costs_path(&dir, Path::new("/some/project"));
        assert!(load(&path).is_none(), "nothing saved yet");
        let mut costs = EmissionCosts::default();
        costs.worker.scale = 2.5;
        costs.mutation.scale = 1.75;
        costs.javac.scale = 0.5;
        costs.junit.scale = 3.0;
        costs.perturbed.scale = 4.0;
        costs.javac_rounds = 2.0;
        costs.junit_rounds = 1.5;
        costs.perturbed_rounds = 1.25;
        save(&path, &costs);
        assert_eq!(load(&path), Some(costs));
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn each_project_has_its_own_file() {
        let dir = Path::new("/cache");
        assert_ne!(
            costs_path(dir, Path::new("/a/project")),
            costs_path(dir, Path::new("/another/project"))
        );
        assert!(costs_path(dir, Path::new("/a/project")).starts_with("/cache/costs"));
    }

    #[test]
    fn unusable_files_are_ignored() {
        let dir = scratch("unusable");
        std::fs::create_dir_all(&dir).expect("scratch");
        let path = dir.join("costs.json");
        let mut good = serde_json::json!({
            "version": VERSION, "worker": 1.0, "mutation": 1.0, "javac": 1.0, "junit": 1.0,
            "perturbed": 1.0, "javac_rounds": 1.0, "junit_rounds": 1.0, "perturbed_rounds": 1.0
        });
        std::fs::write(&path, good.to_string()).expect("write");
        assert!(load(&path).is_some(), "the reference file is usable");
        for (key, value) in [
            ("version", serde_json::json!(VERSION + 1)),
            // Version 1's worker scale included the mutation analysis.
            ("version", serde_json::json!(1)),
            ("worker", serde_json::json!(1000.0)),
            ("mutation", serde_json::json!(0.0)),
            ("javac_rounds", serde_json::json!(-1.0)),
            ("junit", serde_json::json!("fast")),
        ] {
            let saved = good[key].clone();
            good[key] = value;
            std::fs::write(&path, good.to_string()).expect("write");
            assert!(load(&path).is_none(), "{key} = {}", good[key]);
            good[key] = saved;
        }
        std::fs::write(&path, "not json").expect("write");
        assert!(load(&path).is_none());
        let _ = std::fs::remove_dir_all(&dir);
    }
}
