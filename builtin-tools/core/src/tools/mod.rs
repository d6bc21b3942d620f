//! The seven built-in tools, one module each, plus the helpers they share.

pub mod bash;
pub mod edit;
mod edit_diff;
mod edit_match;
pub mod find;
pub mod grep;
pub mod image;
pub mod ls;
pub mod read;
mod search;
pub mod shard;
mod shard_part;
pub mod write;

use crate::ToolError;
use std::io;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};

/// pi's message when a call is cancelled before or while it runs.
pub(crate) const ABORTED: &str = "Operation aborted";

pub(crate) fn check_cancel(cancel: &AtomicBool) -> Result<(), ToolError> {
    if cancel.load(Ordering::SeqCst) {
        Err(ToolError::new(ABORTED))
    } else {
        Ok(())
    }
}

/// Node's error code for an I/O error (pi's messages quote these codes).
pub(crate) fn error_code(err: &io::Error) -> &'static str {
    match err.kind() {
        io::ErrorKind::NotFound => "ENOENT",
        io::ErrorKind::PermissionDenied => "EACCES",
        io::ErrorKind::IsADirectory => "EISDIR",
        io::ErrorKind::NotADirectory => "ENOTDIR",
        io::ErrorKind::AlreadyExists => "EEXIST",
        io::ErrorKind::StorageFull => "ENOSPC",
        io::ErrorKind::ReadOnlyFilesystem => "EROFS",
        _ => "EIO",
    }
}

/// A Node-style file error message: `ENOENT: no such file or directory, open '/p'`.
pub(crate) fn fs_error(op: &str, path: &Path, err: &io::Error) -> ToolError {
    let what = match err.kind() {
        io::ErrorKind::NotFound => "no such file or directory".to_string(),
        io::ErrorKind::PermissionDenied => "permission denied".to_string(),
        io::ErrorKind::IsADirectory => "illegal operation on a directory".to_string(),
        io::ErrorKind::NotADirectory => "not a directory".to_string(),
        _ => err.to_string(),
    };
    ToolError::new(format!(
        "{}: {what}, {op} '{}'",
        error_code(err),
        path.display()
    ))
}
