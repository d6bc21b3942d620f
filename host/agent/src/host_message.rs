//! `HostMessage`: the message roles the layers above the loop own (the coding agent's `!`
//! commands, extension messages, summaries and the recorded system prompt). The loop carries
//! them without interpreting them; `convert_to_llm` (the coding agent's) decides what the model
//! sees of each. A role this version does not know is kept as `Unknown` so a file written by a
//! newer pi is written back unchanged.

use pi_ai::UserContent;
use serde::de::{Error as _, MapAccess, Visitor};
use serde::ser::SerializeMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};
use std::fmt;

/// A command the user ran with `!` / `!!`, and its output.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BashExecutionMessage {
    pub command: String,
    #[serde(default)]
    pub output: String,
    /// `None` when the process did not exit normally (pi's `undefined`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exit_code: Option<i64>,
    #[serde(default)]
    pub cancelled: bool,
    #[serde(default)]
    pub truncated: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub full_output_path: Option<String>,
    /// `!!` commands: shown to the user, never sent to the model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exclude_from_context: Option<bool>,
    #[serde(default)]
    pub timestamp: i64,
}

/// A message sent by an extension.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CustomMessage {
    pub custom_type: String,
    pub content: UserContent,
    #[serde(default)]
    pub display: bool,
    /// Extension-only data; never sent to the model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub details: Option<Value>,
    #[serde(default)]
    pub timestamp: i64,
}

/// The summary of a branch the conversation came back from.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BranchSummaryMessage {
    pub summary: String,
    pub from_id: String,
    #[serde(default)]
    pub timestamp: i64,
}

/// The summary that replaces compacted history.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CompactionSummaryMessage {
    pub summary: String,
    #[serde(default)]
    pub tokens_before: u64,
    #[serde(default)]
    pub timestamp: i64,
}

/// A tool the system prompt declares (pi 1.6's `toolsAdded` item).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DeclaredTool {
    pub name: String,
    #[serde(default)]
    pub description: String,
    /// The tool's JSON schema, as sent to providers.
    #[serde(default)]
    pub parameters: Value,
}

/// A tool the system prompt no longer declares (pi 1.6's `toolsRemoved` item).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RemovedTool {
    pub name: String,
}

/// Named system-prompt sections in order; `None` deletes a section a former message set.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct PromptSections(pub Vec<(String, Option<String>)>);

impl PromptSections {
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl Serialize for PromptSections {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.0.len()))?;
        for (name, text) in &self.0 {
            map.serialize_entry(name, text)?;
        }
        map.end()
    }
}

impl<'de> Deserialize<'de> for PromptSections {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Sections;
        impl<'de> Visitor<'de> for Sections {
            type Value = PromptSections;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a map of section names to text or null")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<PromptSections, A::Error> {
                let mut sections = Vec::new();
                while let Some(entry) = map.next_entry::<String, Option<String>>()? {
                    sections.push(entry);
                }
                Ok(PromptSections(sections))
            }
        }
        deserializer.deserialize_map(Sections)
    }
}

/// pi 1.6's recorded system prompt (`role: "system"`): the first request's full prompt and
/// tools, then patches when either changes. Never sent to the model as a message and never
/// shown as a chat message; replaying them gives the prompt and tools in force.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SystemMessage {
    #[serde(default)]
    pub content: String,
    #[serde(default, skip_serializing_if = "PromptSections::is_empty")]
    pub sections: PromptSections,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tools_added: Vec<DeclaredTool>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tools_removed: Vec<RemovedTool>,
    #[serde(default)]
    pub timestamp: i64,
}

/// A message of a role the loop does not send as it is.
#[derive(Debug, Clone, PartialEq)]
pub enum HostMessage {
    BashExecution(BashExecutionMessage),
    Custom(CustomMessage),
    BranchSummary(BranchSummaryMessage),
    CompactionSummary(CompactionSummaryMessage),
    System(SystemMessage),
    /// A role this version does not know, or a known one whose fields did not parse: every
    /// field but `role`, in its original order (`role` is empty when the message had none).
    Unknown {
        role: String,
        fields: Map<String, Value>,
    },
}

/// The host roles this version reads into typed messages.
pub const HOST_ROLES: [&str; 5] = [
    "bashExecution",
    "custom",
    "branchSummary",
    "compactionSummary",
    "system",
];

impl HostMessage {
    /// The `role` string pi writes for this message.
    pub fn role(&self) -> &str {
        match self {
            HostMessage::BashExecution(_) => "bashExecution",
            HostMessage::Custom(_) => "custom",
            HostMessage::BranchSummary(_) => "branchSummary",
            HostMessage::CompactionSummary(_) => "compactionSummary",
            HostMessage::System(_) => "system",
            HostMessage::Unknown { role, .. } => role,
        }
    }

    /// Milliseconds timestamp (0 when an unknown message has none).
    pub fn timestamp(&self) -> i64 {
        match self {
            HostMessage::BashExecution(m) => m.timestamp,
            HostMessage::Custom(m) => m.timestamp,
            HostMessage::BranchSummary(m) => m.timestamp,
            HostMessage::CompactionSummary(m) => m.timestamp,
            HostMessage::System(m) => m.timestamp,
            HostMessage::Unknown { fields, .. } => fields
                .get("timestamp")
                .and_then(|t| t.as_i64().or_else(|| t.as_f64().map(|f| f as i64)))
                .unwrap_or(0),
        }
    }

    /// Reads the fields of a message of `role` (without `role`). A known role whose fields do
    /// not fit its type is kept as `Unknown`, so nothing of it is lost.
    pub fn from_fields(role: String, fields: Map<String, Value>) -> HostMessage {
        let value = Value::Object(fields);
        let typed = match role.as_str() {
            "bashExecution" => BashExecutionMessage::deserialize(&value).map(Self::BashExecution),
            "custom" => CustomMessage::deserialize(&value).map(Self::Custom),
            "branchSummary" => BranchSummaryMessage::deserialize(&value).map(Self::BranchSummary),
            "compactionSummary" => {
                CompactionSummaryMessage::deserialize(&value).map(Self::CompactionSummary)
            }
            "system" => SystemMessage::deserialize(&value).map(Self::System),
            _ => return Self::unknown(role, value),
        };
        typed.unwrap_or_else(|err| {
            tracing::warn!(role, %err, "message kept verbatim: its fields did not parse");
            Self::unknown(role, value)
        })
    }

    fn unknown(role: String, value: Value) -> HostMessage {
        let Value::Object(fields) = value else {
            return HostMessage::Unknown {
                role,
                fields: Map::new(),
            };
        };
        HostMessage::Unknown { role, fields }
    }
}

impl Serialize for HostMessage {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            HostMessage::BashExecution(m) => with_role(serializer, "bashExecution", m),
            HostMessage::Custom(m) => with_role(serializer, "custom", m),
            HostMessage::BranchSummary(m) => with_role(serializer, "branchSummary", m),
            HostMessage::CompactionSummary(m) => with_role(serializer, "compactionSummary", m),
            HostMessage::System(m) => with_role(serializer, "system", m),
            HostMessage::Unknown { role, fields } => {
                let mut map = serializer.serialize_map(None)?;
                if !role.is_empty() {
                    map.serialize_entry("role", role)?;
                }
                for (key, value) in fields {
                    if key != "role" {
                        map.serialize_entry(key, value)?;
                    }
                }
                map.end()
            }
        }
    }
}

fn with_role<S: Serializer, T: Serialize>(
    serializer: S,
    role: &'static str,
    message: &T,
) -> Result<S::Ok, S::Error> {
    WithRole { role, message }.serialize(serializer)
}

impl<'de> Deserialize<'de> for HostMessage {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let Value::Object(mut fields) = Value::deserialize(deserializer)? else {
            return Err(D::Error::custom("message is not an object"));
        };
        let role = match fields.shift_remove("role") {
            Some(Value::String(role)) => role,
            _ => String::new(),
        };
        Ok(HostMessage::from_fields(role, fields))
    }
}

/// Serializes a typed message with its `role` first, without cloning it into a [`Message`].
#[derive(Serialize)]
pub(crate) struct WithRole<'a, T: Serialize> {
    pub role: &'static str,
    #[serde(flatten)]
    pub message: &'a T,
}
