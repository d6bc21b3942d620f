//! The session's events: the agent's own (`AgentEvent`) plus the session layer's, with pi's
//! names and JSON shapes. They are part of `--mode json` output.

use crate::compaction::CompactionReason;
use pi_agent::{AgentEvent, AgentMessage};
use serde::Serialize;
use serde_json::Value;

/// Everything a session reports, in order.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum AgentSessionEvent {
    /// An event of the agent loop (every one except `agent_end`, which the session re-emits
    /// with `willRetry` once it has decided).
    Agent(AgentEvent),
    Session(SessionEvent),
}

/// What `compaction_end` reports on success.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CompactionResult {
    pub summary: String,
    pub first_kept_entry_id: String,
    pub tokens_before: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub details: Option<Value>,
}

/// The session layer's own events.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum SessionEvent {
    /// The run's new messages; `willRetry` when the session starts another run at once.
    #[serde(rename_all = "camelCase")]
    AgentEnd {
        messages: Vec<AgentMessage>,
        will_retry: bool,
    },
    /// The session is idle: retries, recovery and compaction after the run are done.
    AgentSettled,
    CompactionStart {
        reason: CompactionReason,
    },
    #[serde(rename_all = "camelCase")]
    CompactionEnd {
        reason: CompactionReason,
        #[serde(skip_serializing_if = "Option::is_none")]
        result: Option<CompactionResult>,
        aborted: bool,
        will_retry: bool,
        #[serde(skip_serializing_if = "Option::is_none")]
        error_message: Option<String>,
    },
    #[serde(rename_all = "camelCase")]
    AutoRetryStart {
        attempt: u32,
        max_attempts: u32,
        delay_ms: u64,
        error_message: String,
    },
    #[serde(rename_all = "camelCase")]
    AutoRetryEnd {
        success: bool,
        attempt: u32,
        #[serde(skip_serializing_if = "Option::is_none")]
        final_error: Option<String>,
    },
    /// A summary request failed transiently and will be retried.
    #[serde(rename_all = "camelCase")]
    SummarizationRetryScheduled {
        attempt: u32,
        max_attempts: u32,
        delay_ms: u64,
        error_message: String,
    },
    /// The thinking level was changed.
    ThinkingLevelChanged {
        level: String,
    },
}

impl AgentSessionEvent {
    /// pi's `type` string.
    pub fn kind(&self) -> &'static str {
        match self {
            AgentSessionEvent::Agent(event) => event.kind(),
            AgentSessionEvent::Session(event) => event.kind(),
        }
    }
}

impl SessionEvent {
    /// pi's `type` string.
    pub fn kind(&self) -> &'static str {
        match self {
            SessionEvent::AgentEnd { .. } => "agent_end",
            SessionEvent::AgentSettled => "agent_settled",
            SessionEvent::CompactionStart { .. } => "compaction_start",
            SessionEvent::CompactionEnd { .. } => "compaction_end",
            SessionEvent::AutoRetryStart { .. } => "auto_retry_start",
            SessionEvent::AutoRetryEnd { .. } => "auto_retry_end",
            SessionEvent::SummarizationRetryScheduled { .. } => "summarization_retry_scheduled",
            SessionEvent::ThinkingLevelChanged { .. } => "thinking_level_changed",
        }
    }
}

impl From<SessionEvent> for AgentSessionEvent {
    fn from(event: SessionEvent) -> Self {
        AgentSessionEvent::Session(event)
    }
}
