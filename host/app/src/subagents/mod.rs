//! Subagents: child agents with their own context, tools, model and permission mode, run
//! in-process on the same typed layer as the session that starts them.
//!
//! - `definitions`: the agent definitions (markdown with frontmatter, pi's `subagent` example
//!   format) from the user's agent dir, trusted projects and extension packages.
//! - `details`: what the `subagent` tool reports while it runs and when it is done (its
//!   `details`), the typed form the faces draw from.
//! - `tool`: the built-in `subagent` tool (single, parallel and chain forms).
//! - `child`: one child run: its session file, tools, model and mode, its events relayed to
//!   the parent's stream wrapped as `subagent`.

mod child;
pub mod definitions;
pub mod details;
mod runtime;
mod tool;

pub use definitions::{AgentDefinition, AgentDefinitions, AgentSearch, AgentSource, DEFAULT_TOOLS};
pub use details::{ChildResult, ChildStatus, ChildUsage, SubagentDetails, SubagentForm};
pub use runtime::Subagents;
pub use tool::{MAX_TASKS, SubagentTool};

/// The tool's name.
pub const TOOL_NAME: &str = "subagent";
