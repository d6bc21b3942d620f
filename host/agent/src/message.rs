//! `AgentMessage`: what the Runtime's message list holds. The three model-call messages plus
//! message kinds owned by the layers above (bash executions, extension messages, summaries),
//! which the loop carries without interpreting them.

use pi_ai::{AssistantMessage, Message, ToolResultMessage, UserMessage};
use serde::de::Error as _;
use serde::ser::SerializeMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};
use std::sync::Arc;

/// One entry of the Runtime's message list. Serializes flat, as pi does: the message object
/// with its `role`; deserializes by `role`.
#[derive(Debug, Clone, PartialEq)]
pub enum AgentMessage {
    /// `user`, `assistant` or `toolResult`: sent to the model as they are. Shared: the loop's
    /// copy of the history and each request hold the very messages the agent's state holds,
    /// so a long history is in memory once.
    Llm(Arc<Message>),
    /// Any other role (`bashExecution`, `custom`, `branchSummary`, `compactionSummary`, …).
    /// Boxed: such messages are few, and inline they would make every entry of a long
    /// history six times the size of the shared pointer.
    Host(Box<HostMessage>),
}

/// A message of a role the loop does not know. `fields` holds everything but `role` and
/// `timestamp`, in their original order.
#[derive(Debug, Clone, PartialEq)]
pub struct HostMessage {
    pub role: String,
    pub timestamp: i64,
    pub fields: Map<String, Value>,
}

impl HostMessage {
    pub fn new(role: impl Into<String>, fields: Map<String, Value>) -> Self {
        HostMessage {
            role: role.into(),
            timestamp: pi_ai::now_ms(),
            fields,
        }
    }
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
            AgentMessage::Host(host) => &host.role,
        }
    }

    pub fn timestamp(&self) -> i64 {
        match self {
            AgentMessage::Llm(message) => match &**message {
                Message::User(m) => m.timestamp,
                Message::Assistant(m) => m.timestamp,
                Message::ToolResult(m) => m.timestamp,
            },
            AgentMessage::Host(host) => host.timestamp,
        }
    }

    pub fn as_llm(&self) -> Option<&Message> {
        match self {
            AgentMessage::Llm(message) => Some(message),
            AgentMessage::Host(_) => None,
        }
    }

    pub fn as_assistant(&self) -> Option<&AssistantMessage> {
        match self.as_llm()? {
            Message::Assistant(m) => Some(m),
            _ => None,
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

impl Serialize for AgentMessage {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            AgentMessage::Llm(message) => message.serialize(serializer),
            AgentMessage::Host(host) => host.serialize(serializer),
        }
    }
}

impl Serialize for HostMessage {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.fields.len() + 2))?;
        map.serialize_entry("role", &self.role)?;
        for (key, value) in &self.fields {
            if key != "role" && key != "timestamp" {
                map.serialize_entry(key, value)?;
            }
        }
        map.serialize_entry("timestamp", &self.timestamp)?;
        map.end()
    }
}

impl<'de> Deserialize<'de> for AgentMessage {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = Value::deserialize(deserializer)?;
        let role = value
            .get("role")
            .and_then(Value::as_str)
            .ok_or_else(|| D::Error::custom("message without a string `role`"))?
            .to_owned();
        if LLM_ROLES.contains(&role.as_str()) {
            return Message::deserialize(value)
                .map(AgentMessage::from)
                .map_err(D::Error::custom);
        }
        let Value::Object(mut fields) = value else {
            return Err(D::Error::custom("message is not an object"));
        };
        fields.shift_remove("role");
        let timestamp = fields
            .shift_remove("timestamp")
            .and_then(|t| t.as_i64().or_else(|| t.as_f64().map(|f| f as i64)))
            .unwrap_or(0);
        Ok(AgentMessage::from(HostMessage {
            role,
            timestamp,
            fields,
        }))
    }
}

/// Serializes a typed message with its `role` first, without cloning it into a [`Message`].
#[derive(Serialize)]
pub(crate) struct WithRole<'a, T: Serialize> {
    pub role: &'static str,
    #[serde(flatten)]
    pub message: &'a T,
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
