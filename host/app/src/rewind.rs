//! `/rewind` on a session file: the points of the current branch the workspace and the
//! conversation can go back to (its user prompts and earlier rewinds), what going back would
//! change, and the rewind of the files. [`crate::App`] adds the conversation's move (as `/tree`
//! does); `pi rewind` uses these on the latest session of the directory without a model.

use crate::AppError;
use pi_session::checkpoints::{
    FileChange, Plan, REWIND_ENTRY, Recorder, RewindEntryData, RewindMode,
};
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

/// The user prompts and rewinds of the current branch, oldest first (`files`: the session
/// keeps checkpoints).
pub fn points(session: &SessionManager, files: bool) -> Vec<RewindPoint> {
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
}

/// The plan of a rewind of the files to `entry_id` (`None`: nothing recorded since).
pub fn plan(
    session: &SessionManager,
    recorder: &Recorder,
    entry_id: &str,
) -> Result<Option<Plan>, AppError> {
    let entry = session
        .entry(entry_id)
        .ok_or_else(|| AppError::EntryNotFound(entry_id.to_owned()))?;
    checkpoint_of(&entry.kind, &entry.id)
        .ok_or_else(|| AppError::NotARewindPoint(entry_id.to_owned()))?;
    match resolve(session, &recorder.checkpoints(), entry_id) {
        Resolved::At(checkpoint) => Ok(Some(recorder.plan(&checkpoint)?)),
        Resolved::NothingSince => Ok(None),
    }
}

/// What rewinding the files to `entry_id` would change, paths relative to `cwd`.
pub fn preview(
    session: &SessionManager,
    recorder: &Recorder,
    entry_id: &str,
) -> Result<RewindPreview, AppError> {
    let plan = plan(session, recorder, entry_id)?.unwrap_or_default();
    let cwd = PathBuf::from(session.cwd());
    Ok(RewindPreview {
        entry_id: entry_id.to_owned(),
        changes: plan.changes.iter().map(|c| shown(c, &cwd)).collect(),
        not_covered: plan.not_covered,
    })
}

/// Puts the files back as they were before `entry_id`; returns what it did and the checkpoint
/// holding the files as they were (`None`: nothing to put back).
fn restore_files(
    session: &SessionManager,
    recorder: &Recorder,
    entry_id: &str,
    overwrite_changed: bool,
    outcome: &mut RewindOutcome,
) -> Result<Option<String>, AppError> {
    let Some(plan) = plan(session, recorder, entry_id)?.filter(|p| !p.changes.is_empty()) else {
        return Ok(None);
    };
    let id = pi_session::session::ids::new_uuid_v7();
    let done = recorder.rewind(&plan, &id, overwrite_changed)?;
    let cwd = PathBuf::from(session.cwd());
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
    Ok(Some(id))
}

/// Where the conversation goes for a rewind to `entry_id`: a prompt's own entry (the leaf
/// moves before it, as `/tree` does), or for a rewind the leaf it left.
fn conversation_target(session: &SessionManager, entry_id: &str) -> Option<String> {
    match &session.entry(entry_id)?.kind {
        EntryKind::Custom { custom_type, data } if custom_type == REWIND_ENTRY => {
            rewind_data(data.as_ref())?.from
        }
        _ => Some(entry_id.to_owned()),
    }
}

/// Goes back to `entry_id` in `session`: the files through `recorder` (files changed outside
/// pi since pi last saw them only when `overwrite_changed`), the leaf as `/tree` moves it, or
/// both; then records the rewind (the entry keeps the leaf's move, pi's leaf being the last
/// entry, and rewinding to it undoes the rewind). The caller reloads its conversation.
pub fn rewind(
    session: &mut SessionManager,
    recorder: Option<&Recorder>,
    entry_id: &str,
    (mode, overwrite_changed): (RewindMode, bool),
) -> Result<RewindOutcome, AppError> {
    if session.entry(entry_id).is_none() {
        return Err(AppError::EntryNotFound(entry_id.to_owned()));
    }
    let from = session.leaf_id().map(str::to_owned);
    let target = conversation_target(session, entry_id);
    let mut outcome = outcome(mode);
    let checkpoint = match recorder {
        Some(recorder) if mode.restores_files() => {
            restore_files(session, recorder, entry_id, overwrite_changed, &mut outcome)?
        }
        None if mode.restores_files() => return Err(AppError::NoCheckpoints(NO_CHECKPOINTS)),
        _ => None,
    };
    if mode.moves_conversation()
        && let Some(target) = target
    {
        outcome.editor_text = move_leaf(session, &target)?;
    }
    if checkpoint.is_some() || mode.moves_conversation() {
        let data = RewindEntryData {
            checkpoint,
            target: entry_id.to_owned(),
            from,
            mode,
        };
        outcome.rewind_entry_id = Some(record(session, &data)?);
    }
    Ok(outcome)
}

/// Why a session keeps no checkpoints.
pub(crate) const NO_CHECKPOINTS: &str =
    " (the setting checkpoints is false, or the session is not saved)";

/// Moves the leaf for a rewind to `target`: before a user message (its text returned, for the
/// editor), onto any other entry.
fn move_leaf(session: &mut SessionManager, target: &str) -> Result<Option<String>, AppError> {
    let entry = session
        .entry(target)
        .ok_or_else(|| AppError::EntryNotFound(target.to_owned()))?;
    let text = match &entry.kind {
        EntryKind::Message(message) => message.as_user().map(|u| u.content.text()),
        _ => None,
    };
    let leaf = match text {
        Some(_) => entry.parent_id.clone(),
        None => Some(entry.id.clone()),
    };
    match leaf {
        Some(id) => session.branch(&id)?,
        None => session.reset_leaf(),
    }
    Ok(text)
}

/// Records the rewind in the session (rewinding to this entry undoes it); its id.
fn record(session: &mut SessionManager, data: &RewindEntryData) -> Result<String, AppError> {
    let value = serde_json::to_value(data).ok();
    Ok(session.append_custom(REWIND_ENTRY.to_owned(), value)?)
}

/// The empty outcome of a rewind in `mode`.
fn outcome(mode: RewindMode) -> RewindOutcome {
    RewindOutcome {
        mode,
        restored: Vec::new(),
        kept: Vec::new(),
        failed: Vec::new(),
        editor_text: None,
        rewind_entry_id: None,
    }
}

/// Where a rewind to an entry finds the files as they were.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Resolved {
    /// The journal's checkpoint of that id (the entry's own or a later one: nothing was
    /// recorded in between).
    At(String),
    /// Nothing was recorded since: the files are as they were.
    NothingSince,
}

/// The checkpoint an entry stands for: a user message its own id, a rewind the checkpoint it
/// recorded.
fn checkpoint_of(kind: &EntryKind, id: &str) -> Option<String> {
    match kind {
        EntryKind::Message(message) if message.as_user().is_some() => Some(id.to_owned()),
        EntryKind::Custom { custom_type, data } if custom_type == REWIND_ENTRY => {
            rewind_data(data.as_ref()).and_then(|d| d.checkpoint)
        }
        _ => None,
    }
}

fn rewind_data(data: Option<&serde_json::Value>) -> Option<RewindEntryData> {
    serde_json::from_value(data?.clone()).ok()
}

/// Where the files of entry `id` are found: its checkpoint, or the first one recorded after
/// it in the session file (a prompt that changed nothing has none of its own).
fn resolve(session: &SessionManager, recorded: &[String], id: &str) -> Resolved {
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
