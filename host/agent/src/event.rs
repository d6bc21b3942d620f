//! `AgentEvent`: progress of a run, in pi's names and JSON shapes (it is part of pi's public
//! `--mode json` output).
//!
//! `message_update` carries the partial assistant message rebuilt by the loop with
//! `pi_ai::apply_event`, and the pi-ai stream event. That event is the delta form (no `partial`
//! snapshot inside it): pi's own JSON mode drops `assistantMessageEvent.partial` too, and
//! copying the message into every delta would make long answers quadratic twice over. The
//! cumulative message is an [`Arc`]; since the `Agent` state keeps the latest one as its
//! streaming message, the loop copies the partial once per delta (pi's `{...partial}`).

use crate::host_message::WithRole;
use crate::message::AgentMessage;
use crate::queue::QueuedMessages;
use crate::tool::ToolOutput;
use pi_ai::{AssistantMessage, AssistantMessageEvent, ToolResultMessage};
use serde::{Serialize, Serializer};
use serde_json::Value;
use std::sync::Arc;

/// Receives every event of a run, in order (the loop and the tool runner send through it).
pub type Emit = Arc<dyn Fn(AgentEvent) + Send + Sync>;

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum AgentEvent {
    AgentStart,
    /// `messages`: the messages this run added, in order.
    AgentEnd {
        messages: Vec<AgentMessage>,
    },
    TurnStart,
    #[serde(rename_all = "camelCase")]
    TurnEnd {
        message: AgentMessage,
        #[serde(serialize_with = "serialize_tool_results")]
        tool_results: Vec<ToolResultMessage>,
    },
    MessageStart {
        message: AgentMessage,
    },
    #[serde(rename_all = "camelCase")]
    MessageUpdate {
        #[serde(serialize_with = "serialize_assistant")]
        message: Arc<AssistantMessage>,
        assistant_message_event: AssistantMessageEvent,
    },
    MessageEnd {
        message: AgentMessage,
    },
    #[serde(rename_all = "camelCase")]
    ToolExecutionStart {
        tool_call_id: String,
        tool_name: String,
        args: Value,
    },
    #[serde(rename_all = "camelCase")]
    ToolExecutionUpdate {
        tool_call_id: String,
        tool_name: String,
        args: Value,
        partial_result: ToolOutput,
    },
    #[serde(rename_all = "camelCase")]
    ToolExecutionEnd {
        tool_call_id: String,
        tool_name: String,
        result: ToolOutput,
        is_error: bool,
        /// How long the tool ran (pi 1.6); `None` for a call answered without running.
        #[serde(skip_serializing_if = "Option::is_none")]
        duration_ms: Option<u64>,
    },
    /// The steering or follow-up queue changed: a message was queued, queued messages are
    /// being delivered (sent just before their `message_start`), or the queues were cleared.
    /// Carries everything still queued, oldest first.
    #[serde(rename_all = "camelCase")]
    QueueChanged {
        steering: Vec<AgentMessage>,
        follow_up: Vec<AgentMessage>,
    },
}

impl From<QueuedMessages> for AgentEvent {
    fn from(queued: QueuedMessages) -> Self {
        AgentEvent::QueueChanged {
            steering: queued.steering,
            follow_up: queued.follow_up,
        }
    }
}

impl AgentEvent {
    /// pi's `type` string.
    pub fn kind(&self) -> &'static str {
        match self {
            AgentEvent::AgentStart => "agent_start",
            AgentEvent::AgentEnd { .. } => "agent_end",
            AgentEvent::TurnStart => "turn_start",
            AgentEvent::TurnEnd { .. } => "turn_end",
            AgentEvent::MessageStart { .. } => "message_start",
            AgentEvent::MessageUpdate { .. } => "message_update",
            AgentEvent::MessageEnd { .. } => "message_end",
            AgentEvent::ToolExecutionStart { .. } => "tool_execution_start",
            AgentEvent::ToolExecutionUpdate { .. } => "tool_execution_update",
            AgentEvent::ToolExecutionEnd { .. } => "tool_execution_end",
            AgentEvent::QueueChanged { .. } => "queue_changed",
        }
    }
}

fn serialize_assistant<S: Serializer>(
    message: &Arc<AssistantMessage>,
    s: S,
) -> Result<S::Ok, S::Error> {
    WithRole {
        role: "assistant",
        message: message.as_ref(),
    }
    .serialize(s)
}

fn serialize_tool_results<S: Serializer>(
    results: &[ToolResultMessage],
    s: S,
) -> Result<S::Ok, S::Error> {
    s.collect_seq(results.iter().map(|message| WithRole {
        role: "toolResult",
        message,
    }))
}
