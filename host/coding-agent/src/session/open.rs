//! Finding session files: newest first, by id prefix, local before global.

use super::SessionError;
use super::file::read_header;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

/// pi's rule for `--session <arg>`: a path if it contains a separator or ends in `.jsonl`,
/// otherwise a session-id prefix.
pub fn is_session_path(arg: &str) -> bool {
    arg.contains('/') || arg.contains('\\') || arg.ends_with(".jsonl")
}

/// The `.jsonl` files directly in `dir`, newest modification first.
pub fn list_session_files(dir: &Path) -> Vec<(PathBuf, SystemTime)> {
    let Ok(read) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut files: Vec<(PathBuf, SystemTime)> = read
        .filter_map(Result::ok)
        .filter(|e| e.path().extension().is_some_and(|x| x == "jsonl"))
        .filter_map(|e| {
            let meta = e.metadata().ok()?;
            meta.is_file()
                .then(|| (e.path(), meta.modified().unwrap_or(SystemTime::UNIX_EPOCH)))
        })
        .collect();
    files.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| b.0.cmp(&a.0)));
    files
}

/// A session found by id.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FoundSession {
    pub path: PathBuf,
    pub id: String,
    /// The header's working directory.
    pub cwd: String,
    /// Found in the current project's folder (else elsewhere under `sessions/`: pi offers to
    /// fork it into the current project).
    pub local: bool,
}

fn matches_in(dir: &Path, prefix: &str, local: bool) -> Vec<FoundSession> {
    list_session_files(dir)
        .into_iter()
        .filter_map(|(path, _)| {
            let header = read_header(&path)?;
            if !header.id.starts_with(prefix) {
                return None;
            }
            Some(FoundSession {
                path,
                id: header.id,
                cwd: header.cwd,
                local,
            })
        })
        .collect()
}

fn pick(prefix: &str, mut found: Vec<FoundSession>) -> Result<Option<FoundSession>, SessionError> {
    if let Some(pos) = found.iter().position(|f| f.id == prefix) {
        return Ok(Some(found.swap_remove(pos)));
    }
    match found.len() {
        0 => Ok(None),
        1 => Ok(found.pop()),
        count => Err(SessionError::Ambiguous {
            prefix: prefix.to_owned(),
            count,
        }),
    }
}

/// Finds the session whose id starts with `prefix`: in `local_dir` first, then in every
/// folder under `sessions_root`.
pub fn find_session_by_id(
    prefix: &str,
    local_dir: &Path,
    sessions_root: &Path,
) -> Result<FoundSession, SessionError> {
    if prefix.is_empty() {
        return Err(SessionError::NotFound(prefix.to_owned()));
    }
    if let Some(found) = pick(prefix, matches_in(local_dir, prefix, true))? {
        return Ok(found);
    }
    let mut global = Vec::new();
    if let Ok(read) = std::fs::read_dir(sessions_root) {
        for dir in read.filter_map(Result::ok).map(|e| e.path()) {
            if dir.is_dir() && dir != local_dir {
                global.extend(matches_in(&dir, prefix, false));
            }
        }
    }
    pick(prefix, global)?.ok_or_else(|| SessionError::NotFound(prefix.to_owned()))
}
