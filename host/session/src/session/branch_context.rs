//! The context of a branch built from the index: only the entries it needs are parsed (from
//! the latest compaction's first kept entry on, the last assistant reply for the model, the
//! small entries), each message is read on a worker thread, and nothing parsed for it is kept.

use super::context::{self, Plan, SessionContext};
use super::entry::SessionEntry;
use super::index::{self, Slot};
use crate::messages::AgentMessage;
use std::collections::HashMap;
use std::fs::File;

/// The context of `path` (root → leaf).
pub(super) fn build(source: Option<&File>, path: &[&Slot]) -> SessionContext {
    let needed = needed_slots(path);
    let last_assistant = needed.iter().rposition(|s| s.assistant);
    // What planning reads beyond the small entries (parsed at load): the last assistant reply
    // and entries of types this version does not know (pi 1.x's `context_edit`).
    let read: HashMap<usize, SessionEntry> = needed
        .iter()
        .enumerate()
        .filter(|(i, s)| {
            s.entry.get().is_none()
                && (Some(*i) == last_assistant
                    || !matches!(s.entry_type.as_ref(), "message" | "custom"))
        })
        .filter_map(|(i, s)| Some((i, index::materialise(source?, s)?)))
        .collect();
    let (needed, read) = (&needed, &read);
    let entry_at = move |i: usize| -> Option<&SessionEntry> {
        needed[i].entry.get().map(|e| &**e).or_else(|| read.get(&i))
    };
    let Plan { settings, selected } = context::plan(needed.len(), entry_at, |i| &*needed[i].id);
    let edits = context::context_edits((0..needed.len()).filter_map(entry_at));
    let message_at = |&i: &usize| -> Option<AgentMessage> {
        let slot = needed[i];
        let message = match entry_at(i) {
            Some(entry) => context::entry_message(entry)?,
            None if slot.entry_type == "message" => {
                context::into_entry_message(index::materialise_for_context(source?, slot)?)?
            }
            None => return None,
        };
        context::edited(message, edits.get(&*slot.id).copied())
    };
    let messages = index::par_filter_map(&selected, message_at);
    context::context_of(settings, messages)
}

/// The slots of `path` the context can need: every small entry (they set the model and the
/// thinking level; types this version does not know may edit the context), the last assistant
/// reply, and everything from the latest compaction's first kept entry on.
fn needed_slots<'a>(path: &[&'a Slot]) -> Vec<&'a Slot> {
    let compaction = path.iter().rposition(|s| s.entry_type == "compaction");
    let start = compaction.map_or(0, |at| {
        let first_kept = match path[at].entry.get().map(|e| &e.kind) {
            Some(super::entry::EntryKind::Compaction(c)) => c.first_kept_entry_id.as_str(),
            _ => "",
        };
        path[..at]
            .iter()
            .position(|s| *s.id == *first_kept)
            .unwrap_or(at)
    });
    let last_assistant = path.iter().rposition(|s| s.assistant);
    path.iter()
        .enumerate()
        .filter(|(i, s)| {
            *i >= start
                || !matches!(s.entry_type.as_ref(), "message" | "custom")
                || Some(*i) == last_assistant
        })
        .map(|(_, s)| *s)
        .collect()
}
