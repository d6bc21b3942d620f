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

/// What a session picker shows about one file (pi's `SessionInfo`).
#[derive(Debug, Clone, PartialEq)]
pub struct SessionInfo {
    pub path: PathBuf,
    pub id: String,
    pub cwd: String,
    /// Latest `session_info` name (an empty name clears it).
    pub name: Option<String>,
    pub parent_session_path: Option<String>,
    /// Header timestamp (ISO).
    pub created: String,
    /// Milliseconds: the newest user/assistant message, else the header time, else the mtime.
    pub modified: i64,
    pub message_count: usize,
    /// The first user text, or `(no messages)`.
    pub first_message: String,
    /// Every user and assistant text, for search.
    pub all_messages_text: String,
}

fn user_text(content: &pi_ai::UserContent) -> String {
    content
        .to_blocks()
        .iter()
        .filter_map(|b| match b {
            pi_ai::UserBlock::Text(t) => Some(t.text.as_str()),
            _ => None,
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// Summarises one session file (loading it fully, as pi does).
pub fn session_info(path: &Path) -> Result<SessionInfo, SessionError> {
    use super::entry::EntryKind;
    use pi_ai::Message;
    let loaded = super::file::load(path)?;
    let mtime = std::fs::metadata(path)
        .and_then(|m| m.modified())
        .ok()
        .and_then(|t| t.duration_since(SystemTime::UNIX_EPOCH).ok())
        .map_or(0, |d| d.as_millis() as i64);
    let mut info = SessionInfo {
        path: path.to_path_buf(),
        id: loaded.header.id.clone(),
        cwd: loaded.header.cwd.clone(),
        name: None,
        parent_session_path: loaded.header.parent_session.clone(),
        created: loaded.header.timestamp.clone(),
        modified: 0,
        message_count: 0,
        first_message: String::new(),
        all_messages_text: String::new(),
    };
    let mut texts = Vec::new();
    for entry in &loaded.entries {
        match &entry.kind {
            EntryKind::SessionInfo { name } => {
                info.name = name.clone().filter(|n| !n.is_empty());
            }
            EntryKind::Message(message) => {
                info.message_count += 1;
                let text = match message.as_llm() {
                    Some(Message::User(u)) => user_text(&u.content),
                    Some(Message::Assistant(a)) => a.text(),
                    _ => continue,
                };
                info.modified = info.modified.max(message.timestamp());
                if info.first_message.is_empty() && message.as_user().is_some() {
                    info.first_message = text.clone();
                }
                texts.push(text);
            }
            _ => {}
        }
    }
    if info.modified == 0 {
        info.modified = super::ids::parse_iso_ms(&info.created).unwrap_or(mtime);
    }
    if info.first_message.is_empty() {
        info.first_message = "(no messages)".into();
    }
    info.all_messages_text = texts.join(" ");
    Ok(info)
}

/// Every readable session in `dir`, most recently modified first.
pub fn list_sessions(dir: &Path) -> Vec<SessionInfo> {
    let mut infos: Vec<SessionInfo> = list_session_files(dir)
        .into_iter()
        .filter_map(|(path, _)| session_info(&path).ok())
        .collect();
    infos.sort_by_key(|info| std::cmp::Reverse(info.modified));
    infos
}
