//! The session's side of checkpoints: the entry a run that changed files leaves, and the
//! rewind of the files and the conversation to a user prompt (`/rewind`).

use super::{AgentSession, lock};
use pi_session::checkpoints::{CHECKPOINT_ENTRY, REWIND_ENTRY, Recorder, RewindEntryData};
use pi_session::session::{EntryKind, SessionManager};
use std::sync::Arc;

/// Where a rewind to an entry finds the files as they were.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Resolved {
    /// The journal's checkpoint of that id (the entry's own or a later one: nothing was
    /// recorded in between).
    At(String),
    /// Nothing was recorded since: the files are as they were.
    NothingSince,
}

impl AgentSession {
    /// The session's checkpoint recorder, pointed at the current session file.
    pub(crate) fn checkpoints(&self) -> Option<&Arc<Recorder>> {
        let recorder = self.inner.checkpoints.as_ref()?;
        recorder.set_session(lock(&self.inner.session).session_file());
        Some(recorder)
    }

    /// At the end of a run that changed files: the entry that says which prompt's records
    /// they are (pi skips custom entries).
    pub(super) fn record_checkpoint(&self) {
        let Some(data) = self.inner.checkpoints.as_ref().and_then(|r| r.finish_run()) else {
            return;
        };
        let mut session = lock(&self.inner.session);
        let written = serde_json::to_value(&data)
            .map_err(|e| e.to_string())
            .and_then(|value| {
                session
                    .append_custom(CHECKPOINT_ENTRY.to_owned(), Some(value))
                    .map_err(|e| e.to_string())
            });
        if let Err(error) = written {
            tracing::warn!("checkpoint entry not saved: {error}");
        }
    }
}

/// The checkpoint an entry stands for: a user message its own id, a rewind the checkpoint it
/// recorded.
pub(crate) fn checkpoint_of(kind: &EntryKind, id: &str) -> Option<String> {
    match kind {
        EntryKind::Message(message) if message.as_user().is_some() => Some(id.to_owned()),
        EntryKind::Custom { custom_type, data } if custom_type == REWIND_ENTRY => {
            rewind_data(data.as_ref()).map(|d| d.checkpoint)
        }
        _ => None,
    }
}

pub(crate) fn rewind_data(data: Option<&serde_json::Value>) -> Option<RewindEntryData> {
    serde_json::from_value(data?.clone()).ok()
}

/// Where the files of entry `id` are found: its checkpoint, or the first one recorded after
/// it in the session file (a prompt that changed nothing has none of its own).
pub(crate) fn resolve(session: &SessionManager, recorded: &[String], id: &str) -> Resolved {
    let mut after = false;
    for entry in session.entries() {
        if entry.id == id {
            after = true;
        }
        if !after {
            continue;
        }
        if let Some(checkpoint) = checkpoint_of(&entry.kind, &entry.id)
            && recorded.contains(&checkpoint)
        {
            return Resolved::At(checkpoint);
        }
    }
    Resolved::NothingSince
}
