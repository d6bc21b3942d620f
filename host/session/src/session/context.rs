//! pi's `buildSessionContext`: the messages, thinking level and model of one branch.

use super::entry::{EntryKind, SessionEntry};
use super::ids::parse_iso_ms;
use crate::messages::{
    AgentMessage, BranchSummaryMessage, CompactionSummaryMessage, CustomMessage, HostMessage,
};
use pi_ai::{AssistantBlock, Message, TextContent, UserBlock, UserContent};
use serde_json::Value;
use std::collections::HashMap;
use std::sync::Arc;

/// The model a branch last used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModelRef {
    pub provider: String,
    pub model_id: String,
}

/// What a branch gives the agent when it is opened: its messages, thinking level and model.
#[derive(Debug, Clone, PartialEq)]
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
pub(super) fn context_edits<'a>(
    path: impl IntoIterator<Item = &'a SessionEntry>,
) -> HashMap<&'a str, Option<&'a Value>> {
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
        AgentMessage::Llm(llm) => {
            AgentMessage::from(replaced_model(Arc::unwrap_or_clone(llm), content, blocks))
        }
        AgentMessage::Host(host) => match *host {
            HostMessage::Custom(mut custom) => {
                if let Ok(content) = serde_json::from_value::<UserContent>(content.clone()) {
                    custom.content = content;
                }
                AgentMessage::from(custom)
            }
            other => AgentMessage::from(other),
        },
    }
}

fn replaced_model(
    message: Message,
    content: &Value,
    blocks: impl Fn() -> Option<Vec<UserBlock>>,
) -> Message {
    match message {
        Message::User(mut user) => {
            if let Ok(content) = serde_json::from_value::<UserContent>(content.clone()) {
                user.content = content;
            }
            Message::User(user)
        }
        Message::ToolResult(mut result) => {
            if let Some(blocks) = blocks() {
                result.content = blocks;
            }
            Message::ToolResult(result)
        }
        Message::Assistant(mut assistant) => {
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
            Message::Assistant(assistant)
        }
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
pub(super) struct Plan {
    pub settings: BranchSettings,
    /// Positions in the path, in context order.
    pub selected: Vec<usize>,
}

/// Plans a path of `len` entries: `entry(i)` is the entry at `i` when it is at hand and `id(i)`
/// its id. A model message that is not at hand counts for nothing but its place: of the
/// messages only the last assistant reply sets anything (its model), so a caller that reads
/// the branch lazily needs to hand over that one and the small entries.
pub(super) fn plan<'a>(
    len: usize,
    entry: impl Fn(usize) -> Option<&'a SessionEntry>,
    id: impl Fn(usize) -> &'a str,
) -> Plan {
    let mut settings = BranchSettings::default();
    let mut compaction_at = None;
    for i in 0..len {
        match entry(i).map(|e| &e.kind) {
            Some(EntryKind::ThinkingLevelChange {
                thinking_level: level,
            }) => {
                settings.thinking_level = Some(level.clone());
            }
            Some(EntryKind::ModelChange { provider, model_id }) => {
                settings.model = Some(ModelRef {
                    provider: provider.clone(),
                    model_id: model_id.clone(),
                });
            }
            Some(EntryKind::Message(message)) if message.as_assistant().is_some() => {
                if let Some(a) = message.as_assistant() {
                    settings.model = Some(ModelRef {
                        provider: a.provider.clone(),
                        model_id: a.model.clone(),
                    });
                }
            }
            Some(EntryKind::Compaction(c)) => compaction_at = Some((i, c)),
            _ => {}
        }
    }
    let selected = match compaction_at {
        None => (0..len).collect(),
        Some((at, compaction)) => {
            // Kept entries start at firstKeptEntryId; if it is not on the path, none are kept.
            let first_kept = compaction.first_kept_entry_id.as_str();
            let kept = (0..at)
                .position(|i| id(i) == first_kept)
                .map_or(at..at, |start| start..at);
            std::iter::once(at).chain(kept).chain(at + 1..len).collect()
        }
    };
    Plan { settings, selected }
}

fn plan_of(path: &[&SessionEntry]) -> Plan {
    plan(path.len(), |i| Some(path[i]), |i| path[i].id.as_str())
}

/// The settings of `path` (root → leaf entries).
pub fn branch_settings(path: &[&SessionEntry]) -> BranchSettings {
    plan_of(path).settings
}

/// `message` as the branch's `context_edit` for it leaves it (`edit`: the one there is).
pub(super) fn edited(message: AgentMessage, edit: Option<Option<&Value>>) -> Option<AgentMessage> {
    match edit {
        None => Some(message),
        Some(None) => None,
        Some(Some(content)) => Some(replaced(message, content)),
    }
}

pub(super) fn context_of(settings: BranchSettings, messages: Vec<AgentMessage>) -> SessionContext {
    SessionContext {
        messages,
        thinking_level: settings.thinking_level.unwrap_or_else(|| "off".to_owned()),
        model: settings.model,
    }
}

/// Builds the context of `path` (root → leaf entries, as from `get_branch`).
pub fn build_session_context(path: &[&SessionEntry]) -> SessionContext {
    let edits = context_edits(path.iter().copied());
    let Plan { settings, selected } = plan_of(path);
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
        EntryKind::CustomMessage(c) => Some(AgentMessage::from(CustomMessage {
            custom_type: c.custom_type,
            content: c.content,
            display: c.display,
            details: c.details,
            timestamp: timestamp(),
        })),
        EntryKind::BranchSummary(b) if !b.summary.is_empty() => {
            Some(AgentMessage::from(BranchSummaryMessage {
                summary: b.summary,
                from_id: b.from_id,
                timestamp: timestamp(),
            }))
        }
        EntryKind::Compaction(c) => Some(AgentMessage::from(CompactionSummaryMessage {
            summary: c.summary,
            tokens_before: c.tokens_before,
            timestamp: timestamp(),
        })),
        _ => None,
    }
}
