//! How many workers run at once (`--jobs N`, default: the machine's cores), bounded by memory:
//! each worker is a JVM (its heap and metaspace bounds plus what a JVM needs besides: code
//! cache, thread stacks, class data), and while its class's tests are verified, javac and the
//! two JUnit JVMs (forward and reversed) run beside it. A worker is counted at that peak, and
//! the workers together may take three quarters of the memory available when the run starts,
//! leaving the rest to the machine.

/// Memory a JVM takes beyond its heap and metaspace bounds (measured RSS of an idle worker
/// is about 120 MB on JDK 17; twice that for a busy one).
pub const JVM_OVERHEAD_MB: u64 = 256;

/// javac and the two JUnit JVMs of a verification round, each near its default small heap.
pub const VERIFICATION_MB: u64 = 3 * 256;

/// The peak memory of one worker with the given JVM bounds.
pub fn per_worker_mb(heap_mb: u32, metaspace_mb: u32) -> u64 {
    u64::from(heap_mb) + u64::from(metaspace_mb) + JVM_OVERHEAD_MB + VERIFICATION_MB
}

/// The workers to start: `requested` (else `cores`), at most as many as fit in three quarters
/// of `available_mb` (when known), at most `classes`, at least one. The second value says why
/// fewer than asked run, when they do.
pub fn workers(
    requested: Option<usize>,
    cores: usize,
    available_mb: Option<u64>,
    per_worker_mb: u64,
    classes: usize,
) -> (usize, Option<String>) {
    let wanted = requested.unwrap_or(cores).max(1);
    let mut jobs = wanted.min(classes.max(1));
    let mut note = None;
    if let Some(available) = available_mb {
        let fit = usize::try_from(available * 3 / 4 / per_worker_mb.max(1)).unwrap_or(usize::MAX);
        if fit < jobs {
            jobs = fit.max(1);
            note = Some(format!(
                "{jobs} of {wanted} jobs: each needs about {per_worker_mb} MB (worker JVM and \
                 verification) and {available} MB are available"
            ));
        }
    }
    (jobs, note)
}

/// `MemAvailable` of `/proc/meminfo`, in MB (Linux; `None` elsewhere).
pub fn available_memory_mb() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb / 1024)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounded_by_memory_classes_and_at_least_one() {
        // Defaults: 512 MB heap, 256 MB metaspace: 512 + 256 + 256 + 768 = 1792 MB a worker.
        let per = per_worker_mb(512, 256);
        assert_eq!(per, 1792);
        assert_eq!(workers(None, 2, Some(24_000), per, 10), (2, None));
        assert_eq!(workers(Some(8), 2, None, per, 3), (3, None));
        // 4000 MB available: 3000 usable, one worker fits.
        let (jobs, note) = workers(Some(4), 2, Some(4000), per, 10);
        assert_eq!(jobs, 1);
        assert!(note.unwrap().contains("1792 MB"));
        assert_eq!(workers(Some(4), 2, Some(10), per, 10).0, 1);
    }
}
