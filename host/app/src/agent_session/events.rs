//! The session's events: the agent's own (`AgentEvent`) plus the session layer's, with pi's
//! names and JSON shapes; those pi prints are the `--mode json` and RPC output.

use pi_agent::{AgentEvent, AgentMessage};
use pi_ai::Model;
use pi_session::compaction::CompactionReason;
use pi_session::session::SessionEntry;
use pi_session::settings::Settings;
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
    /// The estimated size of the context the compaction leaves (pi 1.6).
    pub estimated_tokens_after: u64,
    /// What the summary request cost (pi 1.6); `None` when no request was made. Boxed, so
    /// `compaction_end` stays the size of the other session events.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub usage: Option<Box<pi_ai::Usage>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub details: Option<Value>,
}

/// Which summary a retried request belongs to (`summarization_retry_attempt_start`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(tag = "source", rename_all = "camelCase")]
pub enum SummarizationSource {
    Compaction { reason: CompactionReason },
    BranchSummary,
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
    /// `aborted`: the user aborted this run (pi 1.6).
    AgentSettled {
        aborted: bool,
    },
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
    /// A retry of a summary request starts, after its wait.
    SummarizationRetryAttemptStart {
        #[serde(flatten)]
        source: SummarizationSource,
    },
    /// A summary request that was retried is done (answered, failed or cancelled).
    SummarizationRetryFinished,
    /// The thinking level was changed.
    ThinkingLevelChanged {
        level: String,
    },
    /// The queued steering and follow-up messages changed (queued, delivered or cleared).
    #[serde(rename_all = "camelCase")]
    QueueUpdate {
        steering: Vec<String>,
        follow_up: Vec<String>,
    },
    /// The session was (re)named.
    SessionInfoChanged {
        name: String,
    },
    /// An entry was appended to the session file. Not part of the JSON/RPC wire: pi prints it
    /// only for entries extensions append, and pi's own entries have their own events.
    #[serde(skip)]
    EntryAppended {
        entry: Box<SessionEntry>,
    },
    /// A chunk of a user shell command's output (RPC only), with the id of the RPC `bash`
    /// command that started it.
    BashExecutionUpdate {
        #[serde(skip_serializing_if = "Option::is_none")]
        id: Option<String>,
        delta: String,
    },
    /// The model was switched (not part of the JSON/RPC wire: pi reports it in responses).
    #[serde(skip)]
    ModelChanged {
        model: Box<Model>,
    },
    /// The settings were changed (`App::update_settings`); the effective settings now. Not
    /// part of the JSON/RPC wire: pi prints nothing for it.
    #[serde(skip)]
    SettingsChanged {
        settings: Box<Settings>,
    },
    /// An extension asks the user something or tells them something (pi's
    /// `extension_ui_request`; on the wire in RPC mode only). A dialog waits for
    /// [`App::respond_ui`](crate::App::respond_ui) with the same `id`.
    ExtensionUiRequest {
        id: String,
        #[serde(flatten)]
        request: super::UiRequest,
        /// The extension's `name@version`.
        #[serde(skip)]
        from: String,
    },
    /// An extension wants the user's attention: the terminal UI sends the terminal's
    /// notification sequence. Not part of the wire.
    #[serde(skip)]
    Attention {
        from: String,
        title: String,
        text: String,
    },
    /// An event of a child agent the `subagent` tool runs, nested: the parent's tool call,
    /// the child's session id and its agent's name around the child's own event.
    #[serde(rename_all = "camelCase")]
    Subagent {
        tool_call_id: String,
        id: String,
        agent: String,
        event: Box<AgentSessionEvent>,
    },
}

impl AgentSessionEvent {
    /// Whether pi writes this event in JSON mode (`rpc`: in RPC mode). The others exist for
    /// faces that draw the session themselves.
    pub fn is_wire(&self, rpc: bool) -> bool {
        match self {
            AgentSessionEvent::Agent(_) => true,
            AgentSessionEvent::Session(event) => match event {
                SessionEvent::EntryAppended { .. }
                | SessionEvent::ModelChanged { .. }
                | SessionEvent::SettingsChanged { .. }
                | SessionEvent::Attention { .. } => false,
                SessionEvent::BashExecutionUpdate { .. }
                | SessionEvent::ExtensionUiRequest { .. } => rpc,
                SessionEvent::Subagent { event, .. } => event.is_wire(rpc),
                _ => true,
            },
        }
    }

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
            SessionEvent::AgentSettled { .. } => "agent_settled",
            SessionEvent::CompactionStart { .. } => "compaction_start",
            SessionEvent::CompactionEnd { .. } => "compaction_end",
            SessionEvent::AutoRetryStart { .. } => "auto_retry_start",
            SessionEvent::AutoRetryEnd { .. } => "auto_retry_end",
            SessionEvent::SummarizationRetryScheduled { .. } => "summarization_retry_scheduled",
            SessionEvent::SummarizationRetryAttemptStart { .. } => {
                "summarization_retry_attempt_start"
            }
            SessionEvent::SummarizationRetryFinished => "summarization_retry_finished",
            SessionEvent::ThinkingLevelChanged { .. } => "thinking_level_changed",
            SessionEvent::QueueUpdate { .. } => "queue_update",
            SessionEvent::SessionInfoChanged { .. } => "session_info_changed",
            SessionEvent::EntryAppended { .. } => "entry_appended",
            SessionEvent::BashExecutionUpdate { .. } => "bash_execution_update",
            SessionEvent::ModelChanged { .. } => "model_changed",
            SessionEvent::SettingsChanged { .. } => "settings_changed",
            SessionEvent::ExtensionUiRequest { .. } => "extension_ui_request",
            SessionEvent::Attention { .. } => "attention",
            SessionEvent::Subagent { .. } => "subagent",
        }
    }
}

impl From<SessionEvent> for AgentSessionEvent {
    fn from(event: SessionEvent) -> Self {
        AgentSessionEvent::Session(event)
    }
}
