//! `/rewind` as the App's command: [`crate::rewind`] on the session, then the agent's
//! conversation reloaded from the branch it left.

use super::{App, AppError};
use crate::rewind::{NO_CHECKPOINTS, RewindOutcome, RewindPoint, RewindPreview};
use pi_ai::lock;
use pi_session::checkpoints::RewindMode;

impl App {
    /// The user prompts and rewinds of the current branch, oldest first.
    pub fn rewind_points(&self) -> Vec<RewindPoint> {
        let files = self.session.checkpoints().is_some();
        self.session
            .with_session(|session| crate::rewind::points(session, files))
    }

    /// What rewinding the files to `entry_id` would change.
    pub fn rewind_preview(&self, entry_id: &str) -> Result<RewindPreview, AppError> {
        let recorder = self
            .session
            .checkpoints()
            .ok_or(AppError::NoCheckpoints(NO_CHECKPOINTS))?;
        self.session
            .with_session(|session| crate::rewind::preview(session, recorder, entry_id))
    }

    /// Goes back to `entry_id`: the files (files changed outside pi since pi last saw them
    /// only when `overwrite_changed`), the conversation (as `/tree` does), or both.
    pub fn rewind(
        &self,
        entry_id: &str,
        mode: RewindMode,
        overwrite_changed: bool,
    ) -> Result<RewindOutcome, AppError> {
        self.ensure_idle()?;
        let recorder = self.session.checkpoints().map(AsRef::as_ref);
        let outcome = self.session.with_session_mut(|session| {
            crate::rewind::rewind(session, recorder, entry_id, (mode, overwrite_changed))
        })?;
        if mode.moves_conversation() {
            let messages = self
                .session
                .with_session(|s| s.build_session_context().messages);
            self.session.agent().replace_messages(messages);
            *lock(&self.shared.last_assistant) = None;
        }
        self.shared.report_entries(&self.session);
        Ok(outcome)
    }
}
