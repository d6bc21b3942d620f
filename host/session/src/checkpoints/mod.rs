//! Checkpoints: what pi needs to put the workspace back as it was before a prompt, and the
//! rewind that does it.
//!
//! Two kinds of record, kept in a journal beside the session file (`<session>.checkpoints/`):
//! - the state of one path before a tool's write changes it (and after the call), its content
//!   in a content-addressed blob store ([`blobs`]): the extension host reports every path a
//!   component's `wasi:filesystem` call changes, so any tool written in any language is
//!   covered, the built-in `write` and `edit` among them;
//! - a snapshot of a git work tree (tracked and untracked files, not ignored ones) before and
//!   after a command runs (`bash`, MCP servers' tools), written with git plumbing into a private
//!   git directory ([`git`]) that borrows the repository's objects but never touches its index,
//!   refs, stash or HEAD. Outside git, or past a size cap, the journal says "not covered".
//!
//! A `checkpoint` record opens the records made for one user prompt (or one rewind); a rewind
//! to it ([`plan`], [`restore`]) takes for each path the first state recorded after it.

pub mod blobs;
mod git;
mod journal;
mod plan;
mod recorder;
mod restore;
#[cfg(test)]
mod tests;

pub use journal::{FileState, Journal, Record};
pub use plan::{ChangeKind, FileChange, Plan};
pub use recorder::{Recorder, SNAPSHOT_CAP};
pub use restore::Restored;

use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// The `customType` of the entry a run that recorded file states appends (pi skips it).
pub const CHECKPOINT_ENTRY: &str = "pi-checkpoint";
/// The `customType` of the entry a rewind appends; its data holds the rewind's own checkpoint,
/// so that the rewind can be rewound.
pub const REWIND_ENTRY: &str = "pi-rewind";

/// Where the checkpoints of the session file `session_file` are kept: beside it, named after it.
pub fn dir_for(session_file: &Path) -> PathBuf {
    let stem = session_file
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "session".to_owned());
    session_file.with_file_name(format!("{stem}.checkpoints"))
}

/// What a rewind puts back.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum RewindMode {
    /// The files and the conversation.
    All,
    /// The files; the conversation stays where it is.
    Files,
    /// The conversation (pi's `/tree` navigation); the files stay as they are.
    Conversation,
}

impl RewindMode {
    pub fn restores_files(self) -> bool {
        matches!(self, RewindMode::All | RewindMode::Files)
    }

    pub fn moves_conversation(self) -> bool {
        matches!(self, RewindMode::All | RewindMode::Conversation)
    }
}

/// The data of a [`REWIND_ENTRY`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RewindEntryData {
    /// The checkpoint holding the files as they were before the rewind (`None`: the rewind
    /// put no file back).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub checkpoint: Option<String>,
    /// The entry rewound to.
    pub target: String,
    /// The leaf before the rewind (where rewinding the rewind's conversation goes back to).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from: Option<String>,
    pub mode: RewindMode,
}

/// The data of a [`CHECKPOINT_ENTRY`]: which prompt the run's records belong to.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CheckpointEntryData {
    /// The user message whose run changed files.
    pub checkpoint: String,
    /// How many paths the run's tools changed (by their own writes).
    pub files: usize,
    /// How many commands ran with a snapshot before them.
    pub commands: usize,
}

/// Errors of the checkpoint store.
#[derive(Debug, thiserror::Error)]
pub enum CheckpointError {
    #[error("cannot {action} {}: {source}", path.display())]
    Io {
        action: &'static str,
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("git {command} failed: {message}")]
    Git { command: String, message: String },
    #[error("the checkpoint journal {} has a bad line {line}: {message}", path.display())]
    Journal {
        path: PathBuf,
        line: usize,
        message: String,
    },
    #[error("no checkpoint {0}")]
    Unknown(String),
    #[error("the blob {0} of a checkpoint is missing")]
    MissingBlob(String),
}

impl CheckpointError {
    pub(crate) fn io(
        action: &'static str,
        path: &Path,
    ) -> impl FnOnce(std::io::Error) -> Self + use<> {
        let path = path.to_path_buf();
        move |source| CheckpointError::Io {
            action,
            path,
            source,
        }
    }
}
