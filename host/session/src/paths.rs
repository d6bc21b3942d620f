//! Where pi keeps its files: the agent dir, the per-project session folders, and the session
//! file names. Names match pi's exactly so both tools find each other's sessions.

use std::io::Write;
use std::path::{Path, PathBuf};

/// Environment variable that overrides the agent dir.
pub const ENV_AGENT_DIR: &str = "PI_CODING_AGENT_DIR";
/// Environment variable that overrides the session dir.
pub const ENV_SESSION_DIR: &str = "PI_CODING_AGENT_SESSION_DIR";

/// The user's home directory (`$HOME`, else `%USERPROFILE%`).
/// Whether `path`, with its links resolved, lies outside `root` (resolved too). For files a
/// project holds: anything that could write the project (an extension with a write grant, a
/// cloned repository) could plant a link that makes pi read a file from elsewhere into the
/// system prompt. A path that does not resolve does not leave.
pub fn leaves_tree(path: &Path, root: &Path) -> bool {
    let (Ok(real), Ok(real_root)) = (std::fs::canonicalize(path), std::fs::canonicalize(root))
    else {
        return false;
    };
    !real.starts_with(real_root)
}

pub fn home_dir() -> Option<PathBuf> {
    std::env::var_os("HOME")
        .or_else(|| std::env::var_os("USERPROFILE"))
        .filter(|h| !h.is_empty())
        .map(PathBuf::from)
}

/// Expands a leading `~` (alone or followed by a separator) to the home directory.
pub fn expand_tilde(path: &str) -> PathBuf {
    if let Some(home) = home_dir() {
        if path == "~" {
            return home;
        }
        if let Some(rest) = path.strip_prefix("~/").or_else(|| path.strip_prefix("~\\")) {
            return home.join(rest);
        }
    }
    PathBuf::from(path)
}

/// `path` for showing: under the home directory as `~` or `~/rest` (the inverse of
/// [`expand_tilde`]).
pub fn tilde(path: &Path) -> String {
    match home_dir().and_then(|home| path.strip_prefix(home).ok()) {
        Some(rest) if rest.as_os_str().is_empty() => "~".to_owned(),
        Some(rest) => format!("~/{}", rest.display()),
        None => path.display().to_string(),
    }
}

/// `~/.pi/agent`, or `$PI_CODING_AGENT_DIR` when set.
pub fn agent_dir() -> PathBuf {
    agent_dir_from(std::env::var(ENV_AGENT_DIR).ok().as_deref())
}

/// The agent dir given an explicit override value (empty = unset).
pub fn agent_dir_from(override_dir: Option<&str>) -> PathBuf {
    match override_dir.filter(|d| !d.is_empty()) {
        Some(dir) => expand_tilde(dir),
        None => home_dir()
            .unwrap_or_else(|| PathBuf::from("."))
            .join(".pi")
            .join("agent"),
    }
}

/// `<agentDir>/sessions`.
pub fn sessions_root(agent_dir: &Path) -> PathBuf {
    agent_dir.join("sessions")
}

/// pi's folder name for a working directory: one leading `/` or `\` dropped, then every `/`,
/// `\` and `:` replaced by `-`, wrapped in `--`. `/home/u/proj` → `--home-u-proj--`.
pub fn encode_cwd(cwd: &Path) -> String {
    let text = cwd.to_string_lossy();
    let trimmed = text
        .strip_prefix('/')
        .or_else(|| text.strip_prefix('\\'))
        .unwrap_or(&text);
    let encoded: String = trimmed
        .chars()
        .map(|c| {
            if matches!(c, '/' | '\\' | ':') {
                '-'
            } else {
                c
            }
        })
        .collect();
    format!("--{encoded}--")
}

/// The default session folder for `cwd`: `<agentDir>/sessions/--<enc>--`.
pub fn default_session_dir(agent_dir: &Path, cwd: &Path) -> PathBuf {
    sessions_root(agent_dir).join(encode_cwd(cwd))
}

/// Where sessions for `cwd` live, and whether it is a custom (shared) dir.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionDir {
    pub path: PathBuf,
    /// A custom dir may hold sessions of several projects: filter by the header's `cwd`.
    pub custom: bool,
}

/// Session dir precedence: `--session-dir` > `$PI_CODING_AGENT_SESSION_DIR` > settings
/// `sessionDir` > the per-cwd default.
pub fn resolve_session_dir(
    cli: Option<&str>,
    env: Option<&str>,
    setting: Option<&str>,
    agent_dir: &Path,
    cwd: &Path,
) -> SessionDir {
    let chosen = [cli, env, setting]
        .into_iter()
        .flatten()
        .find(|d| !d.trim().is_empty());
    match chosen {
        Some(dir) => {
            let path = expand_tilde(dir);
            let path = if path.is_absolute() {
                path
            } else {
                cwd.join(path)
            };
            SessionDir { path, custom: true }
        }
        None => SessionDir {
            path: default_session_dir(agent_dir, cwd),
            custom: false,
        },
    }
}

/// Same as [`resolve_session_dir`], reading the environment variable itself.
pub fn session_dir_for(
    cli: Option<&str>,
    setting: Option<&str>,
    agent_dir: &Path,
    cwd: &Path,
) -> SessionDir {
    let env = std::env::var(ENV_SESSION_DIR).ok();
    resolve_session_dir(cli, env.as_deref(), setting, agent_dir, cwd)
}

/// `<ISO timestamp with ':' and '.' replaced by '-'>_<sessionId>.jsonl`.
pub fn session_file_name(iso_timestamp: &str, session_id: &str) -> String {
    let stamp: String = iso_timestamp
        .chars()
        .map(|c| if matches!(c, ':' | '.') { '-' } else { c })
        .collect();
    format!("{stamp}_{session_id}.jsonl")
}

/// Writes `bytes` to `path` so that readers see either the old or the new file, never a part:
/// a temp file in the same folder, synced, then renamed over the target.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    write_through_temp(path, bytes, true)
}

/// As [`write_atomic`] without waiting for the disk: for copies pi can lose in a crash
/// (checkpoint blobs), where a sync per write would cost more than the write.
pub fn write_atomic_unsynced(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    write_through_temp(path, bytes, false)
}

fn write_through_temp(path: &Path, bytes: &[u8], sync: bool) -> std::io::Result<()> {
    let dir = path.parent().filter(|p| !p.as_os_str().is_empty());
    if let Some(dir) = dir {
        std::fs::create_dir_all(dir)?;
    }
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "file".into());
    let tmp_name = format!(
        ".{name}.{}.{:08x}.tmp",
        std::process::id(),
        fastrand::u32(..)
    );
    let tmp = match dir {
        Some(dir) => dir.join(tmp_name),
        None => PathBuf::from(tmp_name),
    };
    let result = (|| {
        let mut file = std::fs::File::create(&tmp)?;
        file.write_all(bytes)?;
        if sync {
            file.sync_all()?;
        }
        std::fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}
