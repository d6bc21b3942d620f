//! `AgentMessage`: what the Runtime's message list holds, and the one message type of the
//! whole host (the session file, the application and the UI use it too). The three model-call
//! messages plus the message kinds owned by the layers above ([`HostMessage`]: bash executions,
//! extension messages, summaries, the recorded system prompt), which the loop carries without
//! interpreting them.

use crate::host_message::{
    BashExecutionMessage, BranchSummaryMessage, CompactionSummaryMessage, CustomMessage,
    HostMessage, SystemMessage,
};
use pi_ai::{AssistantMessage, Message, ToolResultMessage, UserMessage};
use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;
use std::sync::Arc;

/// One entry of the Runtime's message list. Serializes flat, as pi does: the message object
/// with its `role`; deserializes by `role`.
#[derive(Debug, Clone, PartialEq)]
pub enum AgentMessage {
    /// `user`, `assistant` or `toolResult`: sent to the model as they are. Shared: the loop's
    /// copy of the history and each request hold the very messages the agent's state holds,
    /// so a long history is in memory once.
    Llm(Arc<Message>),
    /// Any other role (`bashExecution`, `custom`, `branchSummary`, `compactionSummary`,
    /// `system`, or one this version does not know). Boxed: such messages are few, and inline
    /// they would make every entry of a long history many times the size of the pointer.
    Host(Box<HostMessage>),
}

const LLM_ROLES: [&str; 3] = ["user", "assistant", "toolResult"];

impl AgentMessage {
    /// A user message with plain string content, as pi stores a typed prompt.
    pub fn user_text(text: impl Into<String>) -> Self {
        AgentMessage::from(Message::User(UserMessage::text(text)))
    }

    pub fn role(&self) -> &str {
        match self {
            AgentMessage::Llm(message) => match &**message {
                Message::User(_) => "user",
                Message::Assistant(_) => "assistant",
                Message::ToolResult(_) => "toolResult",
            },
            AgentMessage::Host(host) => host.role(),
        }
    }

    pub fn timestamp(&self) -> i64 {
        match self {
            AgentMessage::Llm(message) => match &**message {
                Message::User(m) => m.timestamp,
                Message::Assistant(m) => m.timestamp,
                Message::ToolResult(m) => m.timestamp,
            },
            AgentMessage::Host(host) => host.timestamp(),
        }
    }

    pub fn as_llm(&self) -> Option<&Message> {
        match self {
            AgentMessage::Llm(message) => Some(message),
            AgentMessage::Host(_) => None,
        }
    }

    pub fn as_host(&self) -> Option<&HostMessage> {
        match self {
            AgentMessage::Host(host) => Some(host),
            AgentMessage::Llm(_) => None,
        }
    }

    pub fn as_user(&self) -> Option<&UserMessage> {
        match self.as_llm()? {
            Message::User(m) => Some(m),
            _ => None,
        }
    }

    pub fn as_assistant(&self) -> Option<&AssistantMessage> {
        match self.as_llm()? {
            Message::Assistant(m) => Some(m),
            _ => None,
        }
    }

    /// The assistant reply this is, to change (copied first if the message is shared).
    pub fn as_assistant_mut(&mut self) -> Option<&mut AssistantMessage> {
        match self {
            AgentMessage::Llm(message) => match Arc::make_mut(message) {
                Message::Assistant(m) => Some(m),
                _ => None,
            },
            AgentMessage::Host(_) => None,
        }
    }

    pub fn as_tool_result(&self) -> Option<&ToolResultMessage> {
        match self.as_llm()? {
            Message::ToolResult(m) => Some(m),
            _ => None,
        }
    }
}

impl From<Message> for AgentMessage {
    fn from(message: Message) -> Self {
        AgentMessage::Llm(Arc::new(message))
    }
}

impl From<Arc<Message>> for AgentMessage {
    fn from(message: Arc<Message>) -> Self {
        AgentMessage::Llm(message)
    }
}

impl From<UserMessage> for AgentMessage {
    fn from(message: UserMessage) -> Self {
        AgentMessage::from(Message::User(message))
    }
}

impl From<AssistantMessage> for AgentMessage {
    fn from(message: AssistantMessage) -> Self {
        AgentMessage::from(Message::from(message))
    }
}

impl From<ToolResultMessage> for AgentMessage {
    fn from(message: ToolResultMessage) -> Self {
        AgentMessage::from(Message::ToolResult(message))
    }
}

impl From<HostMessage> for AgentMessage {
    fn from(message: HostMessage) -> Self {
        AgentMessage::Host(Box::new(message))
    }
}

macro_rules! from_host {
    ($($variant:ident($ty:ty)),*) => {$(
        impl From<$ty> for AgentMessage {
            fn from(message: $ty) -> Self {
                AgentMessage::from(HostMessage::$variant(message))
            }
        }
    )*};
}

from_host!(
    BashExecution(BashExecutionMessage),
    Custom(CustomMessage),
    BranchSummary(BranchSummaryMessage),
    CompactionSummary(CompactionSummaryMessage),
    System(SystemMessage)
);

impl Serialize for AgentMessage {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            AgentMessage::Llm(message) => message.serialize(serializer),
            AgentMessage::Host(host) => host.serialize(serializer),
        }
    }
}

impl<'de> Deserialize<'de> for AgentMessage {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = Value::deserialize(deserializer)?;
        let role = value.get("role").and_then(Value::as_str);
        if role.is_some_and(|role| LLM_ROLES.contains(&role)) {
            return Message::deserialize(value)
                .map(AgentMessage::from)
                .map_err(D::Error::custom);
        }
        HostMessage::deserialize(value)
            .map(AgentMessage::from)
            .map_err(D::Error::custom)
    }
}

/// The default `convert_to_llm`: keeps the three model roles, drops everything else.
pub fn default_convert_to_llm(messages: &[AgentMessage]) -> Vec<Arc<Message>> {
    messages
        .iter()
        .filter_map(|m| match m {
            AgentMessage::Llm(message) => Some(message.clone()),
            AgentMessage::Host(_) => None,
        })
        .collect()
}
