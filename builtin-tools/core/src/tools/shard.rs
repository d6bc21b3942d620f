//! Splitting one `grep`/`find` call between several instances of its component: the call's
//! side.
//!
<<<<<<< HEAD
//! A component has no threads, so the host can run `count` instances of it at once, each with
//! its [`Shard`] in the call envelope (pi-builtins's `ToolContext::search_instances`,
//! one per CPU by default). Every instance walks the same tree with the same ignore rules but
//! keeps only its share of it:
//!
//! - entries above [`SPLIT_DEPTH`] (the search root's own entries) are walked by every
//!   instance (so each sees every ignore file on the way down) but reported by one;
//! - an entry at [`SPLIT_DEPTH`] belongs, with everything below it, to exactly one instance,
//!   chosen by a hash of its path relative to the search root.
//!
//! Splitting one level below the root balances the usual layout (a few top-level directories,
//! one of them holding most of the tree) far better than splitting the root's entries.
//!
//! A sharded call returns its part of the result (the lines of its matches, sorted, within
//! the limits) under `details.shard`; [`merge_shards`] (run by the host) combines the parts
//! with the same code the single-instance path ends with, so both give the same output.
=======
//! The host runs `count` instances at once (pi-builtin-tools-embed's
//! `ToolContext::search_instances`, one per CPU by default), each walking its [`Shard`] of the
//! tree (see [`crate::walk::split`] for how the tree is shared out). A sharded call returns
//! its part of the result (the lines of its matches, sorted, within the limits) under
//! `details.shard`; [`merge_shards`] (run by the host) combines the parts with the same code
//! the single-instance path ends with, so both give the same output.
>>>>>>> lower

use crate::args::{Args, as_count};
use crate::{ToolError, ToolOutput};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The host names the shard type here, next to [`merge_shards`] and [`splits`]; it belongs to
/// the walk it splits.
pub use crate::walk::split::Shard;

/// The key under `details` that carries a sharded call's part of the result.
pub const SHARD_KEY: &str = "shard";

/// The output of a sharded call: its part, for the host to merge.
pub(crate) fn part_output(part: impl Serialize) -> Result<ToolOutput, ToolError> {
    let part = serde_json::to_value(part)
        .map_err(|e| ToolError::new(format!("cannot encode a shard result: {e}")))?;
    Ok(ToolOutput::text("", serde_json::json!({ SHARD_KEY: part })))
}

/// The parts the shards of a call returned (the `details` of their outputs).
pub(crate) fn parts_of<T: for<'de> Deserialize<'de>>(
    parts: Vec<Value>,
) -> Result<Vec<T>, ToolError> {
    parts.into_iter().map(part_of).collect()
}

/// The part a sharded call returned (`details` of its output).
fn part_of<T: for<'de> Deserialize<'de>>(details: Value) -> Result<T, ToolError> {
    match details {
        Value::Object(mut map) => map.remove(SHARD_KEY),
        _ => None,
    }
    .ok_or_else(|| ToolError::new("a shard returned no partial result"))
    .and_then(|part| {
        serde_json::from_value(part)
            .map_err(|e| ToolError::new(format!("invalid shard result: {e}")))
    })
}

/// The `limit` argument of `tool` (its default when absent).
pub(crate) fn limit_arg(
    tool: &'static str,
    args: &Value,
    default: usize,
) -> Result<usize, ToolError> {
    let args = Args::new(tool, args)?;
    Ok(args.opt_number("limit")?.map_or(default, as_count))
}

/// Combines the parts the shards of one call returned (the `details` of their outputs, in
/// shard order) into the call's result. `args` are the call's arguments.
pub fn merge_shards(tool: &str, args: &Value, parts: Vec<Value>) -> Result<ToolOutput, ToolError> {
    match tool {
        "grep" => super::grep::merge(args, parts),
        "find" => super::find::merge(args, parts),
        _ => Err(ToolError::new(format!("{tool} cannot be split"))),
    }
}

/// Whether calls of `tool` may be split between instances.
pub fn splits(tool: &str) -> bool {
    matches!(tool, "grep" | "find")
}
