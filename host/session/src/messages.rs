//! The coding agent's messages as a session stores them, and their conversion to model
//! messages.
//!
//! The message type is pi-agent's [`AgentMessage`]: pi-ai's three model messages (shared by
//! `Arc`) plus the coding agent's own roles ([`HostMessage`]: `bashExecution`, `custom`,
//! `branchSummary`, `compactionSummary`, `system`). This module reads and writes them as a
//! session file holds them: fields this version does not model are kept aside so a file
//! written by a newer pi round-trips unchanged, and roles it does not know stay `Unknown`.

pub use pi_agent::{
    AgentMessage, BashExecutionMessage, BranchSummaryMessage, CompactionSummaryMessage,
    CustomMessage, DeclaredTool, HostMessage, PromptSections, RemovedTool, SystemMessage,
};
use pi_ai::{
    AssistantMessage, Message, TextContent, ToolResultMessage, UserBlock, UserContent, UserMessage,
};
use serde::{Deserialize, Deserializer};
use serde_json::{Map, Value};
use std::sync::Arc;

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
            "diagnostics",
            "deferred",
            "endTurn",
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
        "system" => &[
            "role",
            "content",
            "sections",
            "toolsAdded",
            "toolsRemoved",
            "timestamp",
        ],
        _ => return None,
    })
}

/// Reads a stored message. Returns the message and the fields it carried that this version
/// does not model (kept so they can be written back). A known role whose fields do not parse
/// is kept as `Unknown`.
pub fn from_json(value: Value) -> (AgentMessage, Map<String, Value>) {
    let (role, value, extra) = match split_known(value) {
        Ok(parts) => parts,
        Err(unknown) => return (unknown_message(unknown), Map::new()),
    };
    match parse_known(&role, &value) {
        Ok(message) => (message, extra),
        Err(err) => {
            tracing::warn!(role, %err, "stored message kept verbatim: fields did not parse");
            let Value::Object(mut map) = value else {
                return (unknown_message(value), Map::new());
            };
            map.extend(extra);
            (unknown_message(Value::Object(map)), Map::new())
        }
    }
}

/// Like [`from_json`] but moves the strings out of `value` instead of copying them (the
/// session loader's fast path). `None` when a known role's fields do not parse: `value` is
/// then gone and the caller reads its text again with `from_json`.
pub fn from_json_owned(value: Value) -> Option<(AgentMessage, Map<String, Value>)> {
    match split_known(value) {
        Ok((role, value, extra)) => parse_known(&role, value).ok().map(|m| (m, extra)),
        Err(unknown) => Some((unknown_message(unknown), Map::new())),
    }
}

/// The message as pi stores it (with `role`), followed by `extra` fields.
pub fn to_json(message: &AgentMessage, extra: &Map<String, Value>) -> Value {
    let value = serde_json::to_value(message).unwrap_or(Value::Null);
    with_extra(value, extra)
}

/// A message of a role this version does not know, kept whole. (A stored message that is not
/// even an object has nothing to keep but its absence.)
fn unknown_message(value: Value) -> AgentMessage {
    let Value::Object(mut fields) = value else {
        tracing::warn!("stored message is not an object: dropped");
        return AgentMessage::from(HostMessage::Unknown {
            role: String::new(),
            fields: Map::new(),
        });
    };
    let role = match fields.shift_remove("role") {
        Some(Value::String(role)) => role,
        Some(other) => {
            fields.insert("role".into(), other);
            String::new()
        }
        None => String::new(),
    };
    AgentMessage::from(HostMessage::Unknown { role, fields })
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
        "user" => AgentMessage::from(UserMessage::deserialize(value)?),
        "assistant" => AgentMessage::from(AssistantMessage::deserialize(value)?),
        "toolResult" => AgentMessage::from(ToolResultMessage::deserialize(value)?),
        "bashExecution" => AgentMessage::from(BashExecutionMessage::deserialize(value)?),
        "custom" => AgentMessage::from(CustomMessage::deserialize(value)?),
        "branchSummary" => AgentMessage::from(BranchSummaryMessage::deserialize(value)?),
        "system" => AgentMessage::from(SystemMessage::deserialize(value)?),
        _ => AgentMessage::from(CompactionSummaryMessage::deserialize(value)?),
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

/// pi's `convertToLlm`: the messages as the model sees them. The model roles are shared, not
/// copied (a copy of the whole history per request was the cost otherwise); host roles become
/// user messages, except the recorded system prompt (sent as the request's system prompt,
/// never as a message) and roles this version does not know. Stored messages are not changed.
pub fn convert_to_llm(messages: &[AgentMessage]) -> Vec<Arc<Message>> {
    messages
        .iter()
        .filter_map(|message| match message {
            AgentMessage::Llm(llm) => Some(llm.clone()),
            AgentMessage::Host(host) => convert_host(host).map(Arc::new),
        })
        .collect()
}

fn convert_host(message: &HostMessage) -> Option<Message> {
    match message {
        HostMessage::BashExecution(bash) => {
            if bash.exclude_from_context == Some(true) {
                return None;
            }
            Some(user_text(bash_execution_text(bash), bash.timestamp))
        }
        HostMessage::Custom(custom) => Some(Message::User(UserMessage {
            content: UserContent::Blocks(custom.content.to_blocks()),
            timestamp: custom.timestamp,
        })),
        HostMessage::BranchSummary(b) => {
            Some(user_text(branch_summary_text(&b.summary), b.timestamp))
        }
        HostMessage::CompactionSummary(c) => {
            Some(user_text(compaction_summary_text(&c.summary), c.timestamp))
        }
        HostMessage::System(_) | HostMessage::Unknown { .. } => None,
    }
}

/// Shown to the model where `images.blockImages` took an image out.
pub const BLOCKED_IMAGE: &str =
    "(image omitted: images are blocked by the images.blockImages setting)";

/// `messages` with every image of user messages and tool results replaced by a note
/// (`images.blockImages`): nothing of an image reaches any provider.
pub fn block_images(messages: Vec<Arc<Message>>) -> Vec<Arc<Message>> {
    let is_image = |block: &UserBlock| matches!(block, UserBlock::Image(_));
    let has_image = |message: &Message| match message {
        Message::User(user) => {
            matches!(&user.content, UserContent::Blocks(blocks) if blocks.iter().any(is_image))
        }
        Message::ToolResult(result) => result.content.iter().any(is_image),
        Message::Assistant(_) => false,
    };
    let strip = |blocks: Vec<UserBlock>| -> Vec<UserBlock> {
        blocks
            .into_iter()
            .map(|block| match block {
                UserBlock::Image(_) => UserBlock::Text(TextContent {
                    text: BLOCKED_IMAGE.to_owned(),
                    text_signature: None,
                }),
                text => text,
            })
            .collect()
    };
    // Only the messages that carry an image are copied; the rest stay shared.
    messages
        .into_iter()
        .map(|message| {
            if !has_image(&message) {
                return message;
            }
            Arc::new(match Arc::unwrap_or_clone(message) {
                Message::User(mut user) => {
                    if let UserContent::Blocks(blocks) = user.content {
                        user.content = UserContent::Blocks(strip(blocks));
                    }
                    Message::User(user)
                }
                Message::ToolResult(mut result) => {
                    result.content = strip(result.content);
                    Message::ToolResult(result)
                }
                assistant => assistant,
            })
        })
        .collect()
}
