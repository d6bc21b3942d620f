//! What the host knows of a tool before it runs: the model-facing definition plus what only the
//! host needs (label, system-prompt lines, scheduling). One type for built-in and extension
//! tools; it is also what the component cache stores, so start-up never instantiates a tool.

use serde::{Deserialize, Serialize};

/// A tool's description.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct ToolDescription {
    pub name: String,
    pub label: String,
    pub description: String,
    /// JSON schema of the arguments object.
    pub parameters: pi_ai::Schema,
    /// One line for the system prompt's "Available tools"; tools without one are not listed.
    pub prompt_snippet: Option<String>,
    /// Lines for the system prompt's "Guidelines".
    pub prompt_guidelines: Vec<String>,
    /// Forces the batch of tool calls it is in to run one after another.
    pub sequential: bool,
}
