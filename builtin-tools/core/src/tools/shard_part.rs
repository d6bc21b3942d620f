//! One shard's part of a sharded `grep`/`find` call: how a shard returns its part (under
//! `details.shard`) and how the merge reads the parts back.
//!
//! A module of its own, below both the tools and `shard`: the tools write and read
//! parts, and `shard` dispatches the merge to the tools, so the helpers cannot live in either
//! without a cycle.

use crate::args::{Args, as_count};
use crate::{ToolError, ToolOutput};
use serde::{Deserialize, Serialize};
use serde_json::Value;

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
