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

/// The thinking level and model a branch last recorded (what start-up needs of a branch,
/// without its messages).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct BranchSettings {
    /// The last `thinking_level_change` on the path, if there is one.
    pub thinking_level: Option<String>,
    /// The later of the last `model_change` and the last assistant message's model.
    pub model: Option<ModelRef>,
}

/// Which entries of a path give the context's messages, and the branch's settings.
struct Plan {
    settings: BranchSettings,
    /// Positions in the path, in context order.
    selected: Vec<usize>,
}

fn plan(path: &[&SessionEntry]) -> Plan {
    let mut settings = BranchSettings::default();
    let mut compaction_at = None;
    for (i, entry) in path.iter().enumerate() {
        match &entry.kind {
            EntryKind::ThinkingLevelChange {
                thinking_level: level,
            } => {
                settings.thinking_level = Some(level.clone());
            }
            EntryKind::ModelChange { provider, model_id } => {
                settings.model = Some(ModelRef {
                    provider: provider.clone(),
                    model_id: model_id.clone(),
                });
            }
            EntryKind::Message(AgentMessage::Assistant(a)) => {
                settings.model = Some(ModelRef {
                    provider: a.provider.clone(),
                    model_id: a.model.clone(),
                });
            }
            EntryKind::Compaction(_) => compaction_at = Some(i),
            _ => {}
        }
    }
    let selected = match compaction_at {
        None => (0..path.len()).collect(),
        Some(at) => {
            let first_kept = match &path[at].kind {
                EntryKind::Compaction(c) => c.first_kept_entry_id.as_str(),
                _ => "",
            };
            // Kept entries start at firstKeptEntryId; if it is not on the path, none are kept.
            let kept = path[..at]
                .iter()
                .position(|e| e.id == first_kept)
                .map_or(at..at, |start| start..at);
            std::iter::once(at)
                .chain(kept)
                .chain(at + 1..path.len())
                .collect()
        }
    };
    Plan { settings, selected }
}

/// The settings of `path` (root → leaf entries).
pub fn branch_settings(path: &[&SessionEntry]) -> BranchSettings {
    plan(path).settings
}

fn edited(message: AgentMessage, edit: Option<Option<&Value>>) -> Option<AgentMessage> {
    match edit {
        None => Some(message),
        Some(None) => None,
        Some(Some(content)) => Some(replaced(message, content)),
    }
}

fn context_of(settings: BranchSettings, messages: Vec<AgentMessage>) -> SessionContext {
    SessionContext {
        messages,
        thinking_level: settings.thinking_level.unwrap_or_else(|| "off".to_owned()),
        model: settings.model,
    }
}

/// Builds the context of `path` (root → leaf entries, as from `get_branch`).
pub fn build_session_context(path: &[&SessionEntry]) -> SessionContext {
    let edits = context_edits(path);
    let Plan { settings, selected } = plan(path);
    let messages = selected
        .into_iter()
        .filter_map(|i| {
            let entry = path[i];
            let edit = edits.get(entry.id.as_str()).copied();
            edited(entry_message(entry)?, edit)
        })
        .collect();
    context_of(settings, messages)
}

/// Builds the context of `path`, moving each message out of its entry (no copy of the
/// conversation is made; the entries are consumed).
pub fn build_session_context_owned(path: Vec<SessionEntry>) -> SessionContext {
    let refs: Vec<&SessionEntry> = path.iter().collect();
    let Plan { settings, selected } = plan(&refs);
    let edits: HashMap<String, Option<Value>> = context_edits(&refs)
        .into_iter()
        .map(|(id, edit)| (id.to_owned(), edit.cloned()))
        .collect();
    drop(refs);
    let mut entries = path;
    let messages = selected
        .into_iter()
        .filter_map(|i| {
            // Taken in place: a copy of the entries wrapped in `Option` would hold them twice.
            let entry = std::mem::replace(entries.get_mut(i)?, SessionEntry::taken());
            let edit = edits.get(entry.id.as_str()).map(Option::as_ref);
            edited(into_entry_message(entry)?, edit)
        })
        .collect();
    context_of(settings, messages)
}

/// The message an entry contributes to the context, if any.
pub fn entry_message(entry: &SessionEntry) -> Option<AgentMessage> {
    match &entry.kind {
        EntryKind::Message(message) => Some(message.clone()),
        EntryKind::CustomMessage(_) | EntryKind::BranchSummary(_) | EntryKind::Compaction(_) => {
            into_entry_message(entry.clone())
        }
        _ => None,
    }
}

/// The message an entry contributes to the context, moved out of it.
pub fn into_entry_message(entry: SessionEntry) -> Option<AgentMessage> {
    let timestamp = || parse_iso_ms(&entry.timestamp).unwrap_or(0);
    match entry.kind {
        EntryKind::Message(message) => Some(message),
        EntryKind::CustomMessage(c) => Some(AgentMessage::Custom(CustomMessage {
            custom_type: c.custom_type,
            content: c.content,
            display: c.display,
            details: c.details,
            timestamp: timestamp(),
        })),
        EntryKind::BranchSummary(b) if !b.summary.is_empty() => {
            Some(AgentMessage::BranchSummary(BranchSummaryMessage {
                summary: b.summary,
                from_id: b.from_id,
                timestamp: timestamp(),
            }))
        }
        EntryKind::Compaction(c) => {
            Some(AgentMessage::CompactionSummary(CompactionSummaryMessage {
                summary: c.summary,
                tokens_before: c.tokens_before,
                timestamp: timestamp(),
            }))
        }
        _ => None,
    }
}
