//! `/rewind` as the App's command: the files through [`crate::rewind`], the conversation as
//! `/tree` moves it.

use super::{App, AppError};
use crate::NavigateOptions;
use crate::rewind::{RewindOutcome, RewindPoint, RewindPreview};
use pi_session::checkpoints::{RewindEntryData, RewindMode};

impl App {
    /// The user prompts and rewinds of the current branch, oldest first.
    pub fn rewind_points(&self) -> Vec<RewindPoint> {
        let files = self.session.checkpoints().is_some();
        self.session
            .with_session(|session| crate::rewind::points(session, files))
    }

    /// What rewinding the files to `entry_id` would change.
    pub fn rewind_preview(&self, entry_id: &str) -> Result<RewindPreview, AppError> {
        let recorder = self.session.checkpoints().ok_or(NO_CHECKPOINTS)?;
        self.session
            .with_session(|session| crate::rewind::preview(session, recorder, entry_id))
    }

    /// Goes back to `entry_id`: the files (files changed outside pi since pi last saw them
    /// only when `overwrite_changed`), the conversation (as `/tree` does), or both.
    pub async fn rewind(
        &self,
        entry_id: &str,
        mode: RewindMode,
        overwrite_changed: bool,
    ) -> Result<RewindOutcome, AppError> {
        self.ensure_idle()?;
        let (target, from) = self.session.with_session(|s| {
            if s.entry(entry_id).is_none() {
                return Err(AppError::EntryNotFound(entry_id.to_owned()));
            }
            let target = crate::rewind::conversation_target(s, entry_id);
            Ok((target, s.leaf_id().map(str::to_owned)))
        })?;
        let mut outcome = crate::rewind::outcome(mode);
        let mut checkpoint = None;
        if mode.restores_files() {
            let recorder = self.session.checkpoints().ok_or(NO_CHECKPOINTS)?;
            checkpoint = self.session.with_session(|s| {
                crate::rewind::restore_files(s, recorder, entry_id, overwrite_changed, &mut outcome)
            })?;
        }
        if mode.moves_conversation()
            && let Some(target) = target
        {
            let result = self
                .navigate_tree(&target, NavigateOptions::default())
                .await?;
            outcome.editor_text = result.editor_text;
        }
        // The entry keeps the move (pi's leaf is the last entry) and makes it undoable.
        if checkpoint.is_some() || mode.moves_conversation() {
            let data = RewindEntryData {
                checkpoint,
                target: entry_id.to_owned(),
                from,
                mode,
            };
            let id = self
                .session
                .with_session_mut(|s| crate::rewind::record(s, &data))?;
            self.shared.report_entries(&self.session);
            outcome.rewind_entry_id = Some(id);
        }
        Ok(outcome)
    }
}

const NO_CHECKPOINTS: AppError =
    AppError::NoCheckpoints(" (the setting checkpoints is false, or the session is not saved)");
