//! The session's side of checkpoints: its recorder, and the entry a run that changed files
//! leaves.

use super::{AgentSession, lock};
use pi_session::checkpoints::{CHECKPOINT_ENTRY, Recorder};
use std::sync::Arc;

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
