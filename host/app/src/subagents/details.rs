//! What the `subagent` tool reports: its `details` while it runs (`tool_execution_update`) and
//! when it is done (the tool result), one [`ChildResult`] per child. Serialized in the shape
//! pi's `subagent` example uses (`mode`, `results`, `isError`), plus the child's id, session
//! file and current tool, so a face can draw a live row per child.

use serde::{Deserialize, Serialize};

/// Which form the call used.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum SubagentForm {
    #[default]
    Single,
    Parallel,
    Chain,
}

/// Where a child is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum ChildStatus {
    /// Waiting for a free slot (parallel) or for the step before (chain).
    #[default]
    Pending,
    Running,
    Completed,
    Failed,
    Aborted,
}

impl ChildStatus {
    pub fn is_done(self) -> bool {
        matches!(
            self,
            ChildStatus::Completed | ChildStatus::Failed | ChildStatus::Aborted
        )
    }

    pub fn is_failure(self) -> bool {
        matches!(self, ChildStatus::Failed | ChildStatus::Aborted)
    }
}

/// A child's tokens and cost so far (pi's example's `usage`).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct ChildUsage {
    pub input: u64,
    pub output: u64,
    pub cache_read: u64,
    pub cache_write: u64,
    pub cost: f64,
    pub turns: u32,
}

impl std::ops::AddAssign for ChildUsage {
    fn add_assign(&mut self, other: ChildUsage) {
        self.input += other.input;
        self.output += other.output;
        self.cache_read += other.cache_read;
        self.cache_write += other.cache_write;
        self.cost += other.cost;
        self.turns += other.turns;
    }
}

impl ChildUsage {
    pub fn tokens(&self) -> u64 {
        self.input + self.output + self.cache_read + self.cache_write
    }
}

/// One child: what it was asked, where it is, what it cost and (when done) its answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct ChildResult {
    /// The child's session id (also in its `subagent` events).
    pub id: String,
    pub agent: String,
    /// `user`, `project`, `package <name>` or `unknown`.
    pub agent_source: String,
    pub task: String,
    pub status: ChildStatus,
    /// `provider/id`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// The tool the child is running now.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub current_tool: Option<String>,
    pub usage: ChildUsage,
    /// The child's final answer (bounded), or what it said last.
    #[serde(default)]
    pub output: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error_message: Option<String>,
    /// The child's session file (`None` for a session kept in memory).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_file: Option<String>,
    /// The step of a chain (from 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub step: Option<u32>,
}

/// The `subagent` tool's `details`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct SubagentDetails {
    pub mode: SubagentForm,
    pub results: Vec<ChildResult>,
    pub is_error: bool,
}

impl SubagentDetails {
    /// The details of a `subagent` result or update (`None` when they are not).
    pub fn from_value(value: &serde_json::Value) -> Option<SubagentDetails> {
        serde_json::from_value(value.clone()).ok()
    }

    /// What all children cost together.
    pub fn total_usage(&self) -> ChildUsage {
        self.results
            .iter()
            .fold(ChildUsage::default(), |mut sum, r| {
                sum.input += r.usage.input;
                sum.output += r.usage.output;
                sum.cache_read += r.usage.cache_read;
                sum.cache_write += r.usage.cache_write;
                sum.cost += r.usage.cost;
                sum.turns += r.usage.turns;
                sum
            })
    }
}
