//! Splitting one `grep`/`find` call between several instances of its component: the call's
//! side.
//!
//! The host runs `count` instances at once (pi-builtins'
//! `ToolContext::shards`, one per CPU by default), each walking its [`Shard`] of the
//! tree (see [`crate::walk::shard`] for how the tree is shared out). A sharded call returns
//! its part of the result (the lines of its matches, sorted, within the limits) under
//! `details.shard`; [`merge_shards`] (run by the host) combines the parts with the same code
//! the single-instance path ends with, so both give the same output.

use crate::{ToolError, ToolOutput};
use serde_json::Value;

/// The host names the shard type here, next to [`merge_shards`]; it belongs to the walk it
/// shares out.
pub use crate::walk::shard::Shard;

/// The key under `details` that carries a sharded call's part of the result.
pub use super::shard_part::SHARD_KEY;

/// Combines the parts the shards of one call returned (the `details` of their outputs, in
/// shard order) into the call's result. `args` are the call's arguments.
pub fn merge_shards(tool: &str, args: &Value, parts: Vec<Value>) -> Result<ToolOutput, ToolError> {
    match tool {
        "grep" => super::grep::merge(args, parts),
        "find" => super::find::merge(args, parts),
        _ => Err(ToolError::new(format!("{tool} cannot be split"))),
    }
}
