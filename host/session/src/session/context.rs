//! pi's `buildSessionContext`: the messages, thinking level and model of one branch.

use super::entry::{EntryKind, SessionEntry};
use super::ids::parse_iso_ms;
use crate::messages::{
    AgentMessage, BranchSummaryMessage, CompactionSummaryMessage, CustomMessage,
};
use pi_ai::{AssistantBlock, TextContent, UserBlock, UserContent};
use serde_json::Value;
use std::collections::HashMap;

/// The model a branch last used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModelRef {
    pub provider: String,
    pub model_id: String,
}

/// What a branch gives the agent when it is opened.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct SessionContext {
    pub messages: Vec<AgentMessage>,
    /// The last `thinking_level_change` on the path, else `"off"`.
    pub thinking_level: String,
    /// The later of the last `model_change` and the last assistant message's model.
    pub model: Option<ModelRef>,
}

/// What pi 1.x's `context_edit` entries on `path` say, by target id (the latest edit on the
/// branch wins): `None` hides the target from the model context (a failed attempt), `Some`
/// replaces its content. The raw history stays as it is.
fn context_edits<'a>(path: &[&'a SessionEntry]) -> HashMap<&'a str, Option<&'a Value>> {
    let mut edits = HashMap::new();
    for entry in path {
        if let EntryKind::Unknown { entry_type } = &entry.kind
            && entry_type == "context_edit"
            && let Some(target) = entry.extra.get("targetId").and_then(Value::as_str)
        {
            let replacement = entry
                .extra
                .get("replacement")
                .and_then(|r| r.get("content"));
            edits.insert(target, replacement);
        }
    }
    edits
}

/// `message` with its content replaced by a `context_edit` replacement (a string becomes one
/// text block where the role takes blocks). One that does not fit the role is ignored.
fn replaced(message: AgentMessage, content: &Value) -> AgentMessage {
    let blocks = || -> Option<Vec<UserBlock>> {
        match content {
            Value::String(text) => Some(vec![UserBlock::Text(TextContent {
                text: text.clone(),
                text_signature: None,
            })]),
            other => serde_json::from_value(other.clone()).ok(),
        }
    };
    match message {
        AgentMessage::User(mut user) => {
            if let Ok(content) = serde_json::from_value::<UserContent>(content.clone()) {
                user.content = content;
            }
            AgentMessage::User(user)
        }
        AgentMessage::ToolResult(mut result) => {
            if let Some(blocks) = blocks() {
                result.content = blocks;
            }
            AgentMessage::ToolResult(result)
        }
        AgentMessage::Assistant(mut assistant) => {
            let content = match content {
                Value::String(text) => Some(vec![AssistantBlock::Text(TextContent {
                    text: text.clone(),
                    text_signature: None,
                })]),
                other => serde_json::from_value(other.clone()).ok(),
            };
            if let Some(content) = content {
                assistant.content = content;
            }
            AgentMessage::Assistant(assistant)
        }
        AgentMessage::Custom(mut custom) => {
            if let Ok(content) = serde_json::from_value::<UserContent>(content.clone()) {
                custom.content = content;
            }
            AgentMessage::Custom(custom)
        }
        other => other,
    }
}

/// Builds the context of `path` (root → leaf entries, as from `get_branch`).
pub fn build_session_context(path: &[&SessionEntry]) -> SessionContext {
    let edits = context_edits(path);
    let entry_message = |entry: &SessionEntry| -> Option<AgentMessage> {
        let message = entry_message(entry)?;
        match edits.get(entry.id.as_str()) {
            None => Some(message),
            Some(None) => None,
            Some(Some(content)) => Some(replaced(message, content)),
        }
    };
    let mut thinking_level = "off".to_owned();
    let mut model = None;
    let mut compaction_at = None;
    for (i, entry) in path.iter().enumerate() {
        match &entry.kind {
            EntryKind::ThinkingLevelChange {
                thinking_level: level,
            } => {
                thinking_level = level.clone();
            }
            EntryKind::ModelChange { provider, model_id } => {
                model = Some(ModelRef {
                    provider: provider.clone(),
                    model_id: model_id.clone(),
                });
            }
            EntryKind::Message(AgentMessage::Assistant(a)) => {
                model = Some(ModelRef {
                    provider: a.provider.clone(),
                    model_id: a.model.clone(),
                });
            }
            EntryKind::Compaction(_) => compaction_at = Some(i),
            _ => {}
        }
    }
    let mut messages = Vec::new();
    match compaction_at {
        None => messages.extend(path.iter().filter_map(|e| entry_message(e))),
        Some(at) => {
            let compaction = path[at];
            if let Some(m) = entry_message(compaction) {
                messages.push(m);
            }
            let first_kept = match &compaction.kind {
                EntryKind::Compaction(c) => c.first_kept_entry_id.as_str(),
                _ => "",
            };
            // Kept entries start at firstKeptEntryId; if it is not on the path, none are kept.
            if let Some(start) = path[..at].iter().position(|e| e.id == first_kept) {
                messages.extend(path[start..at].iter().filter_map(|e| entry_message(e)));
            }
            messages.extend(path[at + 1..].iter().filter_map(|e| entry_message(e)));
        }
    }
    SessionContext {
        messages,
        thinking_level,
        model,
    }
}

/// The message an entry contributes to the context, if any.
pub fn entry_message(entry: &SessionEntry) -> Option<AgentMessage> {
    let timestamp = || parse_iso_ms(&entry.timestamp).unwrap_or(0);
    match &entry.kind {
        EntryKind::Message(message) => Some(message.clone()),
        EntryKind::CustomMessage(c) => Some(AgentMessage::Custom(CustomMessage {
            custom_type: c.custom_type.clone(),
            content: c.content.clone(),
            display: c.display,
            details: c.details.clone(),
            timestamp: timestamp(),
        })),
        EntryKind::BranchSummary(b) if !b.summary.is_empty() => {
            Some(AgentMessage::BranchSummary(BranchSummaryMessage {
                summary: b.summary.clone(),
                from_id: b.from_id.clone(),
                timestamp: timestamp(),
            }))
        }
        EntryKind::Compaction(c) => {
            Some(AgentMessage::CompactionSummary(CompactionSummaryMessage {
                summary: c.summary.clone(),
                tokens_before: c.tokens_before,
                timestamp: timestamp(),
            }))
        }
        _ => None,
    }
}
