//! `/rewind`: the points of the current branch the workspace and the conversation can go back
//! to (its user prompts and earlier rewinds), what going back would change, and the rewind.

use super::{App, AppError};
use crate::NavigateOptions;
use crate::agent_session::checkpoints::{Resolved, checkpoint_of, resolve, rewind_data};
use pi_session::checkpoints::{FileChange, REWIND_ENTRY, RewindEntryData, RewindMode};
use pi_session::session::{EntryKind, SessionManager};
use serde::Serialize;
use std::path::{Path, PathBuf};

/// What a rewind point is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum RewindPointKind {
    /// A user prompt: going back puts the files and the conversation as they were before it.
    Prompt,
    /// An earlier rewind: going back undoes it.
    Rewind,
}

/// A point of the current branch `/rewind` offers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RewindPoint {
    pub entry_id: String,
    pub kind: RewindPointKind,
    /// The prompt's text (a rewind: the text of the prompt it went back to).
    pub text: String,
    pub timestamp: String,
    /// Whether the files can be put back (the session keeps checkpoints).
    pub files: bool,
}

/// What rewinding the files to a point would change.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RewindPreview {
    pub entry_id: String,
    /// Paths changed since, with what happened to them (paths inside the working directory
    /// relative to it).
    pub changes: Vec<FileChange>,
    /// Changes no checkpoint holds, one line each.
    pub not_covered: Vec<String>,
}

/// A path a rewind could not put back.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RewindFailure {
    pub path: PathBuf,
    pub error: String,
}

/// What a rewind did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RewindOutcome {
    pub mode: RewindMode,
    /// The paths put back.
    pub restored: Vec<FileChange>,
    /// Paths changed outside pi, left as they are (not overwritten).
    pub kept: Vec<PathBuf>,
    pub failed: Vec<RewindFailure>,
    /// The prompt's text for the editor, when the conversation went back before it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub editor_text: Option<String>,
    /// The entry recording the rewind (rewinding to it undoes the rewind).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rewind_entry_id: Option<String>,
}

impl App {
    /// The user prompts and rewinds of the current branch, oldest first.
    pub fn rewind_points(&self) -> Vec<RewindPoint> {
        let files = self.session.checkpoints().is_some();
        self.session.with_session(|session| {
            session
                .get_branch(None)
                .into_iter()
                .filter_map(|entry| {
                    let (kind, text) = point_of(session, &entry.kind)?;
                    Some(RewindPoint {
                        entry_id: entry.id.clone(),
                        kind,
                        text,
                        timestamp: entry.timestamp.clone(),
                        files,
                    })
                })
                .collect()
        })
    }

    /// What rewinding the files to `entry_id` would change.
    pub fn rewind_preview(&self, entry_id: &str) -> Result<RewindPreview, AppError> {
        let plan = self.plan(entry_id)?.unwrap_or_default();
        let cwd = self.cwd();
        Ok(RewindPreview {
            entry_id: entry_id.to_owned(),
            changes: plan.changes.iter().map(|c| shown(c, &cwd)).collect(),
            not_covered: plan.not_covered,
        })
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
        let (kind, from) = self.session.with_session(|s| {
            let entry = s
                .entry(entry_id)
                .ok_or_else(|| AppError::EntryNotFound(entry_id.to_owned()))?;
            let (kind, _) = point_of(s, &entry.kind)
                .ok_or_else(|| AppError::NotARewindPoint(entry_id.to_owned()))?;
            Ok::<_, AppError>((kind, s.leaf_id().map(str::to_owned)))
        })?;
        let mut outcome = RewindOutcome {
            mode,
            restored: Vec::new(),
            kept: Vec::new(),
            failed: Vec::new(),
            editor_text: None,
            rewind_entry_id: None,
        };
        let mut checkpoint = None;
        if mode.restores_files() {
            let recorder = self.session.checkpoints().ok_or(AppError::NoCheckpoints(
                " (checkpoints: false, or --no-session)",
            ))?;
            if let Some(plan) = self.plan(entry_id)?
                && !plan.changes.is_empty()
            {
                let id = pi_session::session::ids::new_uuid_v7();
                let done = recorder.rewind(&plan, &id, overwrite_changed)?;
                let cwd = self.cwd();
                outcome.restored = done.restored.iter().map(|c| shown(c, &cwd)).collect();
                outcome.kept = done.kept.iter().map(|p| relative(p, &cwd)).collect();
                outcome.failed = done
                    .failed
                    .into_iter()
                    .map(|(path, error)| RewindFailure {
                        path: relative(&path, &cwd),
                        error,
                    })
                    .collect();
                checkpoint = Some(id);
            }
        }
        if mode.moves_conversation() {
            let target = match kind {
                RewindPointKind::Prompt => Some(entry_id.to_owned()),
                RewindPointKind::Rewind => self.session.with_session(|s| {
                    s.entry(entry_id)
                        .and_then(|e| match &e.kind {
                            EntryKind::Custom { data, .. } => rewind_data(data.as_ref()),
                            _ => None,
                        })
                        .and_then(|data| data.from)
                }),
            };
            if let Some(target) = target {
                let result = self
                    .navigate_tree(&target, NavigateOptions::default())
                    .await?;
                outcome.editor_text = result.editor_text;
            }
        }
        if let Some(checkpoint) = checkpoint {
            let data = RewindEntryData {
                checkpoint,
                target: entry_id.to_owned(),
                from,
                mode,
            };
            let value = serde_json::to_value(&data).ok();
            let id = self
                .session
                .with_session_mut(|s| s.append_custom(REWIND_ENTRY.to_owned(), value))?;
            self.shared.report_entries(&self.session);
            outcome.rewind_entry_id = Some(id);
        }
        Ok(outcome)
    }

    /// The plan of a rewind of the files to `entry_id` (`None`: nothing recorded since).
    fn plan(&self, entry_id: &str) -> Result<Option<pi_session::checkpoints::Plan>, AppError> {
        let recorder = self
            .session
            .checkpoints()
            .ok_or(AppError::NoCheckpoints(""))?;
        let recorded = recorder.checkpoints();
        let resolved = self.session.with_session(|s| {
            let entry = s
                .entry(entry_id)
                .ok_or_else(|| AppError::EntryNotFound(entry_id.to_owned()))?;
            checkpoint_of(&entry.kind, &entry.id)
                .ok_or_else(|| AppError::NotARewindPoint(entry_id.to_owned()))?;
            Ok::<_, AppError>(resolve(s, &recorded, entry_id))
        })?;
        match resolved {
            Resolved::At(checkpoint) => Ok(Some(recorder.plan(&checkpoint)?)),
            Resolved::NothingSince => Ok(None),
        }
    }

    fn cwd(&self) -> PathBuf {
        self.session.with_session(|s| PathBuf::from(s.cwd()))
    }
}

/// What `kind` is as a rewind point, with the text shown for it.
fn point_of(session: &SessionManager, kind: &EntryKind) -> Option<(RewindPointKind, String)> {
    match kind {
        EntryKind::Message(message) => message
            .as_user()
            .map(|user| (RewindPointKind::Prompt, user.content.text())),
        EntryKind::Custom { custom_type, data } if custom_type == REWIND_ENTRY => {
            let data = rewind_data(data.as_ref())?;
            let text = session
                .entry(&data.target)
                .and_then(|e| match &e.kind {
                    EntryKind::Message(m) => m.as_user().map(|u| u.content.text()),
                    _ => None,
                })
                .unwrap_or_default();
            Some((RewindPointKind::Rewind, text))
        }
        _ => None,
    }
}

fn shown(change: &FileChange, cwd: &Path) -> FileChange {
    FileChange {
        path: relative(&change.path, cwd),
        ..change.clone()
    }
}

/// `path` relative to `cwd` when it is inside it.
fn relative(path: &Path, cwd: &Path) -> PathBuf {
    path.strip_prefix(cwd)
        .map(Path::to_path_buf)
        .unwrap_or_else(|_| path.to_path_buf())
}
