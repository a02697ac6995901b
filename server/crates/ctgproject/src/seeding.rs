//! Section 3.2 of Campos et al., "Continuous Test Generation" for one class: the objects that
//! the stored tests of the classes it uses built (those generated earlier in this run, or in
//! an earlier one) join its seeded pool. Its own stored tests still warm-start it as before
//! (section 4.2, `ctg::pipeline`).

use ctg::job::ObjectSeedSource;
use ctg::store::Store;

/// The seeded objects of `used` classes' stored tests, resolved against the cluster of the
/// class being generated.
pub fn objects_of(store: &Store, used: Vec<String>) -> Option<ObjectSeedSource> {
    if used.is_empty() {
        return None;
    }
    let store = store.clone();
    Some(ObjectSeedSource::new(move |cluster| {
        used.iter()
            .flat_map(|class| store.load_object_seeds(class, cluster))
            .collect()
    }))
}
