//! What the fallback loop learned, kept for the rest of the process: per instrumented file, the
//! downgrades and escalations javac's rejections led to, keyed by everything the rounds depend
//! on (every source's path and text, the class path, javac's options, the roots, the file and
//! its instrumented types, whether mutants are compiled in). A later compile of the same key
//! starts from the state that compiled, so javac's rejected rounds (and the check that the
//! original compiles) are not paid again: a run compiles its class instrumented up to three
//! times (the job, then emission's mutation analysis and its slimming), and on json-simple's
//! `JsonObject` each compile with a rejected probe cost about 2 s of a 10 s budget.
//!
//! Only the starting state is recalled: should javac reject it anyway (it cannot, for the same
//! inputs, short of a worker fault), the loop goes on from there as from any round.

use std::collections::hash_map::DefaultHasher;
use std::collections::{BTreeMap, HashMap};
use std::hash::{Hash, Hasher};
use std::sync::Mutex;

use javamodel::instrument::{Downgrade, SiteId};
use jvm::CompileRequest;

use super::{FileJob, FileLevel};

/// Entries kept before the memo starts again: enough for the classes of a long editing session,
/// small enough not to matter (an entry is a few downgrades).
const CAPACITY: usize = 512;

/// A file's state when its compile succeeded.
#[derive(Debug, Clone)]
struct Learned {
    downgrades: BTreeMap<SiteId, Downgrade>,
    level: FileLevel,
    constants_off: bool,
    escalation: Option<String>,
}

static MEMO: Mutex<Option<HashMap<u64, Learned>>> = Mutex::new(None);

/// The hash of what a request's rounds depend on besides the instrumented file's own options.
pub(super) fn context(request: &CompileRequest) -> u64 {
    let mut hasher = DefaultHasher::new();
    for source in &request.sources {
        source.path.hash(&mut hasher);
        source.text.hash(&mut hasher);
    }
    request.classpath.hash(&mut hasher);
    request.options.hash(&mut hasher);
    request.roots.hash(&mut hasher);
    hasher.finish()
}

fn key(context: u64, job: &FileJob, mutants: bool) -> u64 {
    let mut hasher = DefaultHasher::new();
    context.hash(&mut hasher);
    job.index.hash(&mut hasher);
    job.options.types.hash(&mut hasher);
    mutants.hash(&mut hasher);
    hasher.finish()
}

/// Starts each of `jobs` from its learned state; true when every job had one (the original
/// sources compiled then, so the loop need not check them again).
pub(super) fn recall(context: u64, jobs: &mut [FileJob]) -> bool {
    let memo = MEMO.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    let Some(memo) = memo.as_ref() else {
        return false;
    };
    let mut all = !jobs.is_empty();
    for job in jobs.iter_mut() {
        // A compile with mutants that has no state of its own starts from the file's state
        // without them: the probes javac rejected there it rejects with mutants too (a
        // mutant's own rejection then costs one round). Not the other way: a mutant's
        // rejection must not cost the search's compile a probe.
        let mutants = job.options.mutants;
        let learned = memo.get(&key(context, job, mutants)).or_else(|| {
            mutants
                .then(|| memo.get(&key(context, job, false)))
                .flatten()
        });
        match learned {
            Some(learned) => {
                job.options.downgrades = learned.downgrades.clone();
                job.level = learned.level;
                job.constants_off = learned.constants_off;
                job.escalation = learned.escalation.clone();
            }
            None => all = false,
        }
    }
    all
}

/// Keeps the state with which `jobs` compiled.
pub(super) fn remember(context: u64, jobs: &[FileJob]) {
    let mut memo = MEMO.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    let memo = memo.get_or_insert_with(HashMap::new);
    if memo.len() + jobs.len() > CAPACITY {
        memo.clear();
    }
    for job in jobs {
        memo.insert(
            key(context, job, job.options.mutants),
            Learned {
                downgrades: job.options.downgrades.clone(),
                level: job.level,
                constants_off: job.constants_off,
                escalation: job.escalation.clone(),
            },
        );
    }
}
