//! The walk's side of splitting one `grep`/`find` call between several instances of its
//! component (the call's side, parts and their merge, is the tools' `shard` module).
//!
//! A component has no threads, so the host can run `count` instances of it at once, each with
//! its [`Shard`] in the call envelope. Every instance walks the same tree with the same ignore
//! rules but keeps only its share of it:
//!
//! - entries above [`SHARD_DEPTH`] (the search root's own entries) are walked by every
//!   instance (so each sees every ignore file on the way down) but reported by one;
//! - an entry at [`SHARD_DEPTH`] belongs, with everything below it, to exactly one instance,
//!   chosen by a hash of its path relative to the search root.
//!
//! Splitting one level below the root balances the usual layout (a few top-level directories,
//! one of them holding most of the tree) far better than splitting the root's entries.

use super::Entry;
use serde::{Deserialize, Serialize};
use std::path::Path;

/// The depth (below the search root) at which subtrees are handed out to instances.
pub const SHARD_DEPTH: usize = 2;

/// Instance `index` of `count` working on one call.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Shard {
    pub index: usize,
    pub count: usize,
}

impl Shard {
    /// The `count` shards of one call.
    pub fn all(count: usize) -> impl Iterator<Item = Shard> {
        (0..count).map(move |index| Shard { index, count })
    }

    /// Whether the entry at `rel` (relative to the search root) is this instance's.
    fn owns(&self, rel: &Path) -> bool {
        if self.count <= 1 {
            return true;
        }
        // FNV-1a: stable across instances and builds (std's hasher is randomly keyed).
        let hash = rel
            .as_os_str()
            .as_encoded_bytes()
            .iter()
            .fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
                (h ^ u64::from(*b)).wrapping_mul(0x0100_0000_01b3)
            });
        usize::try_from(hash % self.count as u64).unwrap_or(0) == self.index
    }
}

/// Whether the walk enters or yields the entry at `rel` (relative to the search root) at
/// `depth`: only subtrees at [`SHARD_DEPTH`] are split.
pub(crate) fn walks(shard: Option<Shard>, depth: usize, rel: &Path) -> bool {
    match shard {
        Some(shard) if depth == SHARD_DEPTH => shard.owns(rel),
        _ => true,
    }
}

/// Whether the entry at `rel` (already walked) is reported by this instance: shallow entries,
/// seen by every instance, by only one of them.
fn reports(shard: Option<Shard>, depth: usize, rel: &Path) -> bool {
    match shard {
        Some(shard) if depth < SHARD_DEPTH => {
            depth == 0 && shard.index == 0 || depth > 0 && shard.owns(rel)
        }
        _ => true,
    }
}

/// [`reports`] for an entry of a walk from `root` (free when the call is not split).
pub(crate) fn reports_entry(shard: Option<Shard>, root: &Path, entry: &Entry<'_>) -> bool {
    // Deep entries are reported by whoever walks them: no path to compare (component by
    // component with `std::path` inside a component) for most of the tree.
    shard.is_none_or(|shard| {
        entry.depth >= SHARD_DEPTH || {
            let rel = entry.path.strip_prefix(root).unwrap_or(entry.path);
            reports(Some(shard), entry.depth, rel)
        }
    })
}
