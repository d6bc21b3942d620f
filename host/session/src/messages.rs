//! The coding agent's message union (`AgentMessage`) and its conversion to model messages.
//!
//! A session stores pi-ai's three messages plus the coding agent's own roles (`bashExecution`,
//! `custom`, `branchSummary`, `compactionSummary`). Roles we do not know are kept as raw JSON so
//! a file written by a newer pi round-trips unchanged.

use pi_ai::{
    AssistantMessage, Message, TextContent, ToolResultMessage, UserBlock, UserContent, UserMessage,
};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};

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

/// Every message a session can hold.
#[derive(Debug, Clone, PartialEq)]
pub enum AgentMessage {
    User(UserMessage),
    Assistant(AssistantMessage),
    ToolResult(ToolResultMessage),
    BashExecution(BashExecutionMessage),
    Custom(CustomMessage),
    BranchSummary(BranchSummaryMessage),
    CompactionSummary(CompactionSummaryMessage),
    /// A role this version does not know (or a known role we could not read): kept verbatim.
    Unknown(Value),
}

/// Field names each known role uses; anything else on a stored message is kept aside so it can
/// be written back unchanged.
fn known_fields(role: &str) -> Option<&'static [&'static str]> {
    Some(match role {
        "user" => &["role", "content", "timestamp"],
        "assistant" => &[
            "role",
            "content",
            "api",
            "provider",
            "model",
            "responseModel",
            "responseId",
            "usage",
            "stopReason",
            "rawStopReason",
            "refusal",
            "errorMessage",
            "timestamp",
            "durationMs",
            "thinkingLevel",
        ],
        "toolResult" => &[
            "role",
            "toolCallId",
            "toolName",
            "content",
            "details",
            "isError",
            "timestamp",
            "durationMs",
        ],
        "bashExecution" => &[
            "role",
            "command",
            "output",
            "exitCode",
            "cancelled",
            "truncated",
            "fullOutputPath",
            "excludeFromContext",
            "timestamp",
        ],
        "custom" => &[
            "role",
            "customType",
            "content",
            "display",
            "details",
            "timestamp",
        ],
        "branchSummary" => &["role", "summary", "fromId", "timestamp"],
        "compactionSummary" => &["role", "summary", "tokensBefore", "timestamp"],
        _ => return None,
    })
}

impl AgentMessage {
    /// The `role` string pi writes for this message.
    pub fn role(&self) -> &str {
        match self {
            AgentMessage::User(_) => "user",
            AgentMessage::Assistant(_) => "assistant",
            AgentMessage::ToolResult(_) => "toolResult",
            AgentMessage::BashExecution(_) => "bashExecution",
            AgentMessage::Custom(_) => "custom",
            AgentMessage::BranchSummary(_) => "branchSummary",
            AgentMessage::CompactionSummary(_) => "compactionSummary",
            AgentMessage::Unknown(raw) => raw.get("role").and_then(Value::as_str).unwrap_or(""),
        }
    }

    /// Reads a stored message. Returns the message and the fields it carried that this version
    /// does not model (kept so they can be written back). A known role whose fields do not
    /// parse is kept as `Unknown`.
    pub fn from_json(value: Value) -> (AgentMessage, Map<String, Value>) {
        let (role, value, extra) = match split_known(value) {
            Ok(parts) => parts,
            Err(unknown) => return (AgentMessage::Unknown(unknown), Map::new()),
        };
        match parse_known(&role, &value) {
            Ok(message) => (message, extra),
            Err(err) => {
                tracing::warn!(role, %err, "stored message kept verbatim: fields did not parse");
                let Value::Object(mut map) = value else {
                    return (AgentMessage::Unknown(value), Map::new());
                };
                map.extend(extra);
                (AgentMessage::Unknown(Value::Object(map)), Map::new())
            }
        }
    }

    /// Like [`from_json`](Self::from_json) but moves the strings out of `value` instead of
    /// copying them (the session loader's fast path). `None` when a known role's fields do not
    /// parse: `value` is then gone and the caller reads its text again with `from_json`.
    pub fn from_json_owned(value: Value) -> Option<(AgentMessage, Map<String, Value>)> {
        match split_known(value) {
            Ok((role, value, extra)) => parse_known(&role, value).ok().map(|m| (m, extra)),
            Err(unknown) => Some((AgentMessage::Unknown(unknown), Map::new())),
        }
    }

    /// The message as pi stores it (with `role`), followed by `extra` fields.
    pub fn to_json(&self, extra: &Map<String, Value>) -> Value {
        let body = match self {
            AgentMessage::User(m) => serde_json::to_value(m),
            AgentMessage::Assistant(m) => serde_json::to_value(m),
            AgentMessage::ToolResult(m) => serde_json::to_value(m),
            AgentMessage::BashExecution(m) => serde_json::to_value(m),
            AgentMessage::Custom(m) => serde_json::to_value(m),
            AgentMessage::BranchSummary(m) => serde_json::to_value(m),
            AgentMessage::CompactionSummary(m) => serde_json::to_value(m),
            AgentMessage::Unknown(raw) => return with_extra(raw.clone(), extra),
        };
        let mut out = Map::new();
        out.insert("role".into(), Value::String(self.role().to_owned()));
        if let Ok(Value::Object(fields)) = body {
            out.extend(fields);
        }
        with_extra(Value::Object(out), extra)
    }

    /// The pi-ai message this stands for, if it is one of the three model roles.
    pub fn as_llm(&self) -> Option<Message> {
        match self {
            AgentMessage::User(m) => Some(Message::User(m.clone())),
            AgentMessage::Assistant(m) => Some(Message::from(m.clone())),
            AgentMessage::ToolResult(m) => Some(Message::ToolResult(m.clone())),
            _ => None,
        }
    }

    /// Milliseconds timestamp of the message (0 when unknown).
    pub fn timestamp(&self) -> i64 {
        match self {
            AgentMessage::User(m) => m.timestamp,
            AgentMessage::Assistant(m) => m.timestamp,
            AgentMessage::ToolResult(m) => m.timestamp,
            AgentMessage::BashExecution(m) => m.timestamp,
            AgentMessage::Custom(m) => m.timestamp,
            AgentMessage::BranchSummary(m) => m.timestamp,
            AgentMessage::CompactionSummary(m) => m.timestamp,
            AgentMessage::Unknown(raw) => raw.get("timestamp").and_then(Value::as_i64).unwrap_or(0),
        }
    }
}

impl From<Message> for AgentMessage {
    fn from(message: Message) -> Self {
        match message {
            Message::User(m) => AgentMessage::User(m),
            Message::Assistant(m) => AgentMessage::Assistant(*m),
            Message::ToolResult(m) => AgentMessage::ToolResult(m),
        }
    }
}

/// Splits a stored message into its role, the fields its type models, and the rest. `Err` for
/// a role this version does not know.
fn split_known(value: Value) -> Result<(String, Value, Map<String, Value>), Value> {
    let Value::Object(mut map) = value else {
        return Err(value);
    };
    let role = map
        .get("role")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_owned();
    let Some(known) = known_fields(&role) else {
        return Err(Value::Object(map));
    };
    let mut extra = Map::new();
    if map.keys().any(|k| !known.contains(&k.as_str())) {
        let unknown_keys: Vec<String> = map
            .keys()
            .filter(|k| !known.contains(&k.as_str()))
            .cloned()
            .collect();
        for key in unknown_keys {
            if let Some(v) = map.shift_remove(&key) {
                extra.insert(key, v);
            }
        }
    }
    if role == "assistant"
        && let Some(Value::Object(usage)) = map.get_mut("usage")
        && let Some(unknown) = unknown_usage_fields(usage)
    {
        extra.insert("usage".into(), Value::Object(unknown));
    }
    // pi treats a null content of the three model roles as an empty list.
    if matches!(role.as_str(), "user" | "assistant" | "toolResult")
        && map.get("content").is_none_or(Value::is_null)
    {
        map.insert("content".into(), Value::Array(Vec::new()));
    }
    Ok((role, Value::Object(map), extra))
}

pub(crate) fn parse_known<'de, D: Deserializer<'de>>(
    role: &str,
    value: D,
) -> Result<AgentMessage, D::Error> {
    Ok(match role {
        "user" => AgentMessage::User(UserMessage::deserialize(value)?),
        "assistant" => AgentMessage::Assistant(AssistantMessage::deserialize(value)?),
        "toolResult" => AgentMessage::ToolResult(ToolResultMessage::deserialize(value)?),
        "bashExecution" => AgentMessage::BashExecution(BashExecutionMessage::deserialize(value)?),
        "custom" => AgentMessage::Custom(CustomMessage::deserialize(value)?),
        "branchSummary" => AgentMessage::BranchSummary(BranchSummaryMessage::deserialize(value)?),
        _ => AgentMessage::CompactionSummary(CompactionSummaryMessage::deserialize(value)?),
    })
}

/// Takes the fields of a stored `usage` (and its `cost`) that [`pi_ai::Usage`] does not model
/// out of it (newer pi versions add some, e.g. `cacheWrite1h`), so a rewrite keeps them.
fn unknown_usage_fields(usage: &mut Map<String, Value>) -> Option<Map<String, Value>> {
    const USAGE: [&str; 7] = [
        "input",
        "output",
        "cacheRead",
        "cacheWrite",
        "totalTokens",
        "cost",
        "reasoning",
    ];
    const COST: [&str; 5] = ["input", "output", "cacheRead", "cacheWrite", "total"];
    let take = |map: &mut Map<String, Value>, known: &[&str]| -> Map<String, Value> {
        let keys: Vec<String> = map
            .keys()
            .filter(|k| !known.contains(&k.as_str()))
            .cloned()
            .collect();
        keys.into_iter()
            .filter_map(|k| map.shift_remove(&k).map(|v| (k, v)))
            .collect()
    };
    let mut unknown = take(usage, &USAGE);
    if let Some(Value::Object(cost)) = usage.get_mut("cost") {
        let cost_unknown = take(cost, &COST);
        if !cost_unknown.is_empty() {
            unknown.insert("cost".into(), Value::Object(cost_unknown));
        }
    }
    (!unknown.is_empty()).then_some(unknown)
}

/// `value` with the `extra` fields it lacks, at any depth (an extra object merges into the
/// object of the same name).
fn with_extra(value: Value, extra: &Map<String, Value>) -> Value {
    match value {
        Value::Object(mut map) if !extra.is_empty() => {
            merge_missing(&mut map, extra);
            Value::Object(map)
        }
        other => other,
    }
}

fn merge_missing(map: &mut Map<String, Value>, extra: &Map<String, Value>) {
    for (k, v) in extra {
        match (map.get_mut(k), v) {
            (Some(Value::Object(inner)), Value::Object(more)) => merge_missing(inner, more),
            (Some(_), _) => {}
            (None, _) => {
                map.insert(k.clone(), v.clone());
            }
        }
    }
}

impl Serialize for AgentMessage {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.to_json(&Map::new()).serialize(serializer)
    }
}

/// Note: fields this version does not model are dropped here; session entries keep them.
impl<'de> Deserialize<'de> for AgentMessage {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Ok(AgentMessage::from_json(Value::deserialize(deserializer)?).0)
    }
}

/// Text pi shows the model for a compaction summary.
pub fn compaction_summary_text(summary: &str) -> String {
    format!(
        "The conversation history before this point was compacted into the following summary:\n\n<summary>\n{summary}\n</summary>"
    )
}

/// Text pi shows the model for a branch summary.
pub fn branch_summary_text(summary: &str) -> String {
    format!(
        "The following is a summary of a branch that this conversation came back from:\n\n<summary>\n{summary}</summary>"
    )
}

/// Text pi shows the model for a user `!` command.
pub fn bash_execution_text(bash: &BashExecutionMessage) -> String {
    let mut text = format!("Ran `{}`\n", bash.command);
    if bash.output.is_empty() {
        text.push_str("(no output)");
    } else {
        text.push_str(&format!("```\n{}\n```", bash.output));
    }
    if bash.cancelled {
        text.push_str("\n\n(command cancelled)");
    } else if let Some(code) = bash.exit_code.filter(|c| *c != 0) {
        text.push_str(&format!("\n\nCommand exited with code {code}"));
    }
    if bash.truncated
        && let Some(path) = &bash.full_output_path
    {
        text.push_str(&format!("\n\n[Output truncated. Full output: {path}]"));
    }
    text
}

fn user_text(text: String, timestamp: i64) -> Message {
    Message::User(UserMessage {
        content: UserContent::Blocks(vec![UserBlock::Text(TextContent {
            text,
            text_signature: None,
        })]),
        timestamp,
    })
}

/// pi's `convertToLlm`: the messages as the model sees them. Stored messages are not changed.
pub fn convert_to_llm(messages: &[AgentMessage]) -> Vec<Message> {
    messages.iter().filter_map(convert_one).collect()
}

fn convert_one(message: &AgentMessage) -> Option<Message> {
    match message {
        AgentMessage::User(_) | AgentMessage::Assistant(_) | AgentMessage::ToolResult(_) => {
            message.as_llm()
        }
        AgentMessage::BashExecution(bash) => {
            if bash.exclude_from_context == Some(true) {
                return None;
            }
            Some(user_text(bash_execution_text(bash), bash.timestamp))
        }
        AgentMessage::Custom(custom) => Some(Message::User(UserMessage {
            content: UserContent::Blocks(custom.content.to_blocks()),
            timestamp: custom.timestamp,
        })),
        AgentMessage::BranchSummary(b) => {
            Some(user_text(branch_summary_text(&b.summary), b.timestamp))
        }
        AgentMessage::CompactionSummary(c) => {
            Some(user_text(compaction_summary_text(&c.summary), c.timestamp))
        }
        AgentMessage::Unknown(_) => None,
    }
}
