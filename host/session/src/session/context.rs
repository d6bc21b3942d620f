//! pi's `buildSessionContext`: the messages, thinking level and model of one branch.

use super::entry::{EntryKind, SessionEntry};
use super::ids::parse_iso_ms;
use crate::messages::{
    AgentMessage, BranchSummaryMessage, CompactionSummaryMessage, CustomMessage,
};

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

/// Builds the context of `path` (root → leaf entries, as from `get_branch`).
pub fn build_session_context(path: &[&SessionEntry]) -> SessionContext {
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
