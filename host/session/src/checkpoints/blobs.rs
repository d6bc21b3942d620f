//! The content-addressed store of file contents: one file per distinct content, named by its
//! SHA-256, so a file written a hundred times with the same content is kept once.

use super::CheckpointError;
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};

/// The blobs of one session's checkpoints.
#[derive(Debug, Clone)]
pub struct Blobs {
    dir: PathBuf,
}

impl Blobs {
    pub fn new(dir: PathBuf) -> Self {
        Blobs { dir }
    }

    /// Where the content `sha256` is kept.
    pub(crate) fn path(&self, sha256: &str) -> PathBuf {
        let (head, rest) = sha256.split_at(sha256.len().min(2));
        self.dir.join(head).join(rest)
    }

    /// Keeps `bytes`; returns their SHA-256 (hex).
    pub fn put(&self, bytes: &[u8]) -> Result<String, CheckpointError> {
        let sha = sha256_hex(bytes);
        let path = self.path(&sha);
        if path.exists() {
            return Ok(sha);
        }
        crate::paths::write_atomic_unsynced(&path, bytes)
            .map_err(CheckpointError::io("write the blob", &path))?;
        Ok(sha)
    }

    /// The content kept under `sha256`.
    pub fn get(&self, sha256: &str) -> Result<Vec<u8>, CheckpointError> {
        let path = self.path(sha256);
        std::fs::read(&path).map_err(|error| match error.kind() {
            std::io::ErrorKind::NotFound => CheckpointError::MissingBlob(sha256.to_owned()),
            _ => CheckpointError::Io {
                action: "read the blob",
                path,
                source: error,
            },
        })
    }

    /// Bytes used on disk by the blobs.
    pub fn size(&self) -> u64 {
        dir_size(&self.dir)
    }
}

/// The SHA-256 of `bytes` in lowercase hex.
pub fn sha256_hex(bytes: &[u8]) -> String {
    hex(&Sha256::digest(bytes))
}

fn hex(bytes: &[u8]) -> String {
    use std::fmt::Write;
    bytes.iter().fold(String::with_capacity(64), |mut out, b| {
        let _ = write!(out, "{b:02x}");
        out
    })
}

/// The total size of the files under `dir` (0 when it cannot be read).
pub fn dir_size(dir: &Path) -> u64 {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return 0;
    };
    entries
        .flatten()
        .map(|entry| match entry.file_type() {
            Ok(kind) if kind.is_dir() => dir_size(&entry.path()),
            Ok(_) => entry.metadata().map_or(0, |m| m.len()),
            Err(_) => 0,
        })
        .sum()
}
