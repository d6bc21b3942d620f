//! Splitting one `grep`/`find` call between several instances of its component: the call's
//! side.
//!
//! The host runs `count` instances at once (pi-builtins'
//! `ToolContext::shards`, one per CPU by default), each walking its [`Shard`] of the
//! tree (see [`crate::walk::shard`] for how the tree is shared out). A sharded call returns
//! its part of the result (the lines of its matches, sorted, within the limits) under
//! `details.shard`; [`merge_shards`] (run by the host) combines the parts with the same code
//! the single-instance path ends with, so both give the same output.

use crate::args::{Args, as_count};
use crate::{ToolError, ToolOutput};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The host names the shard type here, next to [`merge_shards`]; it belongs to the walk it
/// shares out.
pub use crate::walk::shard::Shard;

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
