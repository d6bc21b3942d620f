//! The journal of one session's checkpoints (`journal.ndjson`): the records in the order they
//! were made, one JSON object per line, appended and never rewritten.

use super::CheckpointError;
use super::blobs::{Blobs, sha256_hex};
use serde::{Deserialize, Serialize};
use std::io::Write;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

/// What one path was at one moment.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "camelCase")]
pub enum FileState {
    Absent,
    Dir,
    /// A regular file: its content's SHA-256 and its permission bits. `stored`: the content is
    /// in the blob store (the state before a change is; the state after one is only hashed).
    File {
        sha256: String,
        mode: u32,
        #[serde(default)]
        stored: bool,
    },
    Link {
        target: PathBuf,
    },
}

impl FileState {
    /// What `path` is now; its content kept in `blobs` when given.
    pub fn read(path: &Path, blobs: Option<&Blobs>) -> Result<FileState, CheckpointError> {
        let meta = match std::fs::symlink_metadata(path) {
            Ok(meta) => meta,
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
                return Ok(FileState::Absent);
            }
            Err(error) => return Err(CheckpointError::io("look at", path)(error)),
        };
        if meta.is_dir() {
            return Ok(FileState::Dir);
        }
        if meta.file_type().is_symlink() {
            let target = std::fs::read_link(path).map_err(CheckpointError::io("read", path))?;
            return Ok(FileState::Link { target });
        }
        let bytes = std::fs::read(path).map_err(CheckpointError::io("read", path))?;
        let sha256 = match blobs {
            Some(blobs) => blobs.put(&bytes)?,
            None => sha256_hex(&bytes),
        };
        Ok(FileState::File {
            sha256,
            mode: meta.permissions().mode() & 0o7777,
            stored: blobs.is_some(),
        })
    }

    /// Whether `self` and `other` hold the same thing (content and mode; stored or not).
    pub fn same_as(&self, other: &FileState) -> bool {
        match (self, other) {
            (
                FileState::File {
                    sha256: a, mode: m, ..
                },
                FileState::File {
                    sha256: b, mode: n, ..
                },
            ) => a == b && m == n,
            (a, b) => a == b,
        }
    }
}

/// One record of the journal.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum Record {
    /// Opens the records of a prompt (its user message's entry id) or of a rewind.
    Checkpoint { id: String },
    /// One path before (or after) a tool's write.
    File {
        path: PathBuf,
        state: FileState,
        after: bool,
    },
    /// The work tree of the git repository at `root` before (or after) a command: a tree in
    /// the private git directory.
    Tree {
        root: PathBuf,
        tree: String,
        after: bool,
    },
    /// A command whose changes no record holds, and why.
    Uncovered { tool: String, reason: String },
}

/// The checkpoint store of one session: the journal, the blobs and the private git directory.
#[derive(Debug, Clone)]
pub struct Journal {
    dir: PathBuf,
    blobs: Blobs,
}

impl Journal {
    /// The store of the session file `session_file` (nothing is created until a record is).
    pub fn for_session(session_file: &Path) -> Journal {
        Journal::at(super::dir_for(session_file))
    }

    pub fn at(dir: PathBuf) -> Journal {
        Journal {
            blobs: Blobs::new(dir.join("blobs")),
            dir,
        }
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    pub fn blobs(&self) -> &Blobs {
        &self.blobs
    }

    pub(crate) fn git_dir(&self) -> PathBuf {
        self.dir.join("git")
    }

    fn file(&self) -> PathBuf {
        self.dir.join("journal.ndjson")
    }

    /// Every record, in order. A line that does not parse (a crash in the middle of a write)
    /// is skipped with a warning: the records around it still hold.
    pub fn records(&self) -> Result<Vec<Record>, CheckpointError> {
        let path = self.file();
        let text = match std::fs::read_to_string(&path) {
            Ok(text) => text,
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(error) => return Err(CheckpointError::io("read", &path)(error)),
        };
        let mut records = Vec::new();
        for (index, line) in text.lines().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            match serde_json::from_str(line) {
                Ok(record) => records.push(record),
                Err(error) => {
                    tracing::warn!("skipping line {} of {}: {error}", index + 1, path.display())
                }
            }
        }
        Ok(records)
    }

    /// Appends `records` (one write).
    pub fn append(&self, records: &[Record]) -> Result<(), CheckpointError> {
        if records.is_empty() {
            return Ok(());
        }
        let path = self.file();
        std::fs::create_dir_all(&self.dir).map_err(CheckpointError::io("create", &self.dir))?;
        let mut text = String::new();
        for record in records {
            match serde_json::to_string(record) {
                Ok(line) => text.push_str(&line),
                Err(error) => {
                    tracing::warn!("cannot encode a checkpoint record: {error}");
                    continue;
                }
            }
            text.push('\n');
        }
        std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&path)
            .and_then(|mut file| file.write_all(text.as_bytes()))
            .map_err(CheckpointError::io("append to", &path))
    }

    /// Bytes the store takes on disk.
    pub fn size(&self) -> u64 {
        super::blobs::dir_size(&self.dir)
    }
}

/// Where the checkpoint `id` starts in `records`.
pub(crate) fn position(records: &[Record], id: &str) -> Option<usize> {
    records
        .iter()
        .position(|r| matches!(r, Record::Checkpoint { id: found } if found == id))
}
