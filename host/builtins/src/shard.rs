//! Sharding: a `grep` or `find` call shared out between several instances of its component
//! (a component has no threads), each walking its share of the tree, and their parts merged
//! into the result one instance would give (`pi_builtin_tools::tools::shard`). Here: when a
//! call is worth it, and how it runs.

use pi_agent::{ToolError, ToolOutput};
use pi_builtin_tools::tools::shard::merge_shards;
use pi_ext_host::ComponentTool;
use serde_json::Value;
use std::path::{Path, PathBuf};
use tokio_util::sync::CancellationToken;

/// Entries in a search root's first two levels from which a call is sharded by default. Below
/// that the walk takes about as long as starting a second instance, and sharding only adds an
/// instance's memory (`builtin-tools/README.md` has the figures).
pub(crate) const MIN_ENTRIES: usize = 256;

/// Whether `root`'s own entries and those of its subdirectories number at least `min`. Stops
/// listing as soon as they do; links are not followed; unreadable directories count as empty.
pub(crate) fn has_entries(root: &Path, min: usize) -> bool {
    if min == 0 {
        return true;
    }
    let mut seen = 0;
    let mut subdirs: Vec<PathBuf> = Vec::new();
    let mut count = |dir: &Path, mut subdirs: Option<&mut Vec<PathBuf>>| {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return false;
        };
        for entry in entries.flatten() {
            seen += 1;
            if seen >= min {
                return true;
            }
            if let Some(list) = subdirs.as_deref_mut()
                && entry.file_type().is_ok_and(|t| t.is_dir())
            {
                list.push(entry.path());
            }
        }
        false
    };
    if count(root, Some(&mut subdirs)) {
        return true;
    }
    subdirs.iter().any(|dir| count(dir, None))
}

/// Whether a call's search root holds enough to share out: a small tree is walked before a
/// second instance is even ready, and each instance costs its own memory. Only the entries of
/// the root's first two levels count (where the split happens), and only where the path
/// policy lets the tool read; the component still decides what the path may be.
pub(crate) fn worth_sharding(
    cwd: &Path,
    home: Option<PathBuf>,
    policy: pi_builtin_tools::PathPolicy,
    args: &Value,
    min_entries: usize,
) -> bool {
    let path = args.get("path").and_then(Value::as_str).unwrap_or(".");
    let root = pi_builtin_tools::Workspace::at(cwd)
        .map(|w| w.with_home(home.unwrap_or_default()).with_policy(policy))
        .and_then(|w| w.resolve(path));
    root.is_ok_and(|root| has_entries(&root, min_entries))
}

/// Runs one call as one instance per envelope (each carrying its `Shard`) at once, and
/// merges their parts. Neither tool reports progress, so no update callback is passed on.
pub(crate) async fn run_sharded(
    inner: &ComponentTool,
    tool: &str,
    call_id: &str,
    args: &Value,
    envelopes: Vec<Value>,
    cancel: CancellationToken,
) -> Result<ToolOutput, ToolError> {
    let runs = envelopes
        .iter()
        .map(|envelope| inner.run(call_id, envelope, cancel.clone(), None));
    let mut parts = Vec::with_capacity(envelopes.len());
    // Every shard validates the same arguments, so the first failure is the call's.
    for result in futures::future::join_all(runs).await {
        parts.push(result?.details);
    }
    let output = merge_shards(tool, args, parts).map_err(|e| ToolError::new(e.message))?;
    let mut merged = ToolOutput::text(output.joined_text());
    merged.details = output.details;
    Ok(merged)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_two_levels_and_stops_at_the_minimum() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::write(root.join("a"), "").unwrap();
        std::fs::create_dir_all(root.join("d/e/f")).unwrap();
        for i in 0..3 {
            std::fs::write(root.join("d").join(i.to_string()), "").unwrap();
            // Third level: not counted.
            std::fs::write(root.join("d/e").join(i.to_string()), "").unwrap();
        }
        // a, d, d/e, d/0..2 = 6 entries in two levels.
        assert!(has_entries(root, 6));
        assert!(!has_entries(root, 7));
        assert!(!has_entries(&root.join("missing"), 1));
    }
}
