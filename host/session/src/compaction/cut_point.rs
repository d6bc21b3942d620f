//! Choosing what to keep: walk back from the newest entry until
//! `keepRecentTokens` is reached, move forward to a valid cut (never a tool result), keep the
//! metadata entries right before it, and detect a cut inside a turn.

use super::file_ops::FileOps;
use super::tokens::{estimate_context_tokens, estimate_tokens};
use crate::messages::{AgentMessage, HostMessage};
use crate::session::context::entry_message;
use crate::session::{EntryKind, SessionEntry, build_session_context};
use crate::settings::CompactionSettings;
use pi_ai::Message;

/// The message an entry adds to the conversation compaction works on. The recorded system
/// prompt is prompt state, not conversation (pi 1.6 leaves it out of cut points and summaries
/// the same way).
fn conversation_message(entry: &SessionEntry) -> Option<AgentMessage> {
    entry_message(entry).filter(|m| !matches!(m.as_host(), Some(HostMessage::System(_))))
}

/// Where to cut a branch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CutPoint {
    /// Index of the first kept entry (after extending over adjacent metadata entries).
    pub first_kept_index: usize,
    /// The user message that started the turn the cut falls into (split turns only).
    pub turn_start_index: Option<usize>,
    pub is_split_turn: bool,
}

/// Everything the summary step needs.
#[derive(Debug, Clone, PartialEq)]
pub struct CompactionPreparation {
    pub first_kept_entry_id: String,
    /// Complete turns before the cut (history summary).
    pub messages_to_summarize: Vec<AgentMessage>,
    /// The cut-off first part of the turn the cut falls into (split turns).
    pub turn_prefix_messages: Vec<AgentMessage>,
    pub is_split_turn: bool,
    /// `T` of the branch's context before compaction.
    pub tokens_before: u64,
    /// The summary of the previous compaction, to be updated.
    pub previous_summary: Option<String>,
    pub file_ops: FileOps,
    pub settings: CompactionSettings,
}

/// Valid cut: before a user, assistant or host message that enters the context; never before a
/// tool result; never at a compaction entry.
fn is_valid_cut(entry: &SessionEntry) -> bool {
    if matches!(entry.kind, EntryKind::Compaction(_)) {
        return false;
    }
    conversation_message(entry).is_some_and(|m| m.as_tool_result().is_none())
}

/// A message that starts a turn: anything the user side adds (not assistant or tool result,
/// nor a role this version does not know).
fn is_turn_start(entry: &SessionEntry) -> bool {
    if matches!(entry.kind, EntryKind::Compaction(_)) {
        return false;
    }
    conversation_message(entry).is_some_and(|m| match &m {
        AgentMessage::Llm(llm) => matches!(**llm, Message::User(_)),
        AgentMessage::Host(host) => {
            !matches!(**host, HostMessage::System(_) | HostMessage::Unknown { .. })
        }
    })
}

fn entry_tokens(entry: &SessionEntry) -> u64 {
    if matches!(entry.kind, EntryKind::Compaction(_)) {
        return 0;
    }
    conversation_message(entry).map_or(0, |m| estimate_tokens(&m))
}

/// Finds the cut in `entries[start..end]` keeping about `keep_recent_tokens`.
pub fn find_cut_point(
    entries: &[SessionEntry],
    start: usize,
    end: usize,
    keep_recent_tokens: u64,
) -> CutPoint {
    let cuts: Vec<usize> = (start..end)
        .filter(|&i| is_valid_cut(&entries[i]))
        .collect();
    let Some(&first_cut) = cuts.first() else {
        return CutPoint {
            first_kept_index: start,
            turn_start_index: None,
            is_split_turn: false,
        };
    };
    let mut cut = first_cut;
    let mut total = 0;
    for i in (start..end).rev() {
        total += entry_tokens(&entries[i]);
        if total >= keep_recent_tokens && total > 0 {
            if let Some(&c) = cuts.iter().find(|&&c| c >= i) {
                cut = c;
            }
            break;
        }
    }
    let turn_start_index = if is_turn_start(&entries[cut]) {
        None
    } else {
        (start..=cut).rev().find(|&i| is_turn_start(&entries[i]))
    };
    CutPoint {
        first_kept_index: extend_over_metadata(entries, start, cut),
        turn_start_index,
        is_split_turn: turn_start_index.is_some(),
    }
}

/// Moves the cut back over entries that do not enter the context (model or thinking changes,
/// labels, extension state), stopping at a compaction or a visible message.
fn extend_over_metadata(entries: &[SessionEntry], start: usize, mut cut: usize) -> usize {
    while cut > start {
        let previous = &entries[cut - 1];
        if matches!(previous.kind, EntryKind::Compaction(_))
            || conversation_message(previous).is_some()
        {
            break;
        }
        cut -= 1;
    }
    cut
}

fn messages_of(entries: &[SessionEntry]) -> Vec<AgentMessage> {
    entries
        .iter()
        .filter(|e| !matches!(e.kind, EntryKind::Compaction(_)))
        .filter_map(conversation_message)
        .collect()
}

/// pi's `prepareCompaction` over a branch (root → leaf). `None` when the branch ends with a
/// compaction or nothing would be summarised.
pub fn prepare_compaction(
    path: &[SessionEntry],
    settings: &CompactionSettings,
) -> Option<CompactionPreparation> {
    if path
        .last()
        .is_some_and(|e| matches!(e.kind, EntryKind::Compaction(_)))
    {
        return None;
    }
    let previous = path
        .iter()
        .enumerate()
        .rev()
        .find_map(|(i, e)| match &e.kind {
            EntryKind::Compaction(c) => Some((i, c)),
            _ => None,
        });
    let start = match previous {
        Some((at, c)) => path[..at]
            .iter()
            .position(|e| e.id == c.first_kept_entry_id)
            .unwrap_or(at + 1),
        None => 0,
    };
    let refs: Vec<&SessionEntry> = path.iter().collect();
    let tokens_before = estimate_context_tokens(&build_session_context(&refs).messages).tokens;
    let cut = find_cut_point(path, start, path.len(), settings.keep_recent_tokens);
    let history_end = cut.turn_start_index.unwrap_or(cut.first_kept_index);
    let messages_to_summarize = messages_of(&path[start..history_end]);
    let turn_prefix_messages = match cut.turn_start_index {
        Some(turn) => messages_of(&path[turn..cut.first_kept_index]),
        None => Vec::new(),
    };
    if messages_to_summarize.is_empty() && turn_prefix_messages.is_empty() {
        return None;
    }
    let mut file_ops = FileOps::default();
    if let Some((_, c)) = previous
        && c.from_hook != Some(true)
    {
        file_ops.merge_details(c.details.as_ref());
    }
    file_ops.collect_from(&messages_to_summarize);
    file_ops.collect_from(&turn_prefix_messages);
    Some(CompactionPreparation {
        first_kept_entry_id: path.get(cut.first_kept_index)?.id.clone(),
        messages_to_summarize,
        turn_prefix_messages,
        is_split_turn: cut.is_split_turn,
        tokens_before,
        previous_summary: previous.map(|(_, c)| c.summary.clone()),
        file_ops,
        settings: *settings,
    })
}
