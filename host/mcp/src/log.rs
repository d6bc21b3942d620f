//! `<agentDir>/mcp.log`: one line per server connect, failure, stop and stderr line, rotated
//! to `mcp.log.1` past 5 MB. A small writer of its own (not `tracing`'s global subscriber),
//! so the lines land there whatever the application does with `tracing`.

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{SystemTime, UNIX_EPOCH};

/// The log is rotated once it grows past this.
pub const MAX_LOG_BYTES: u64 = 5 * 1024 * 1024;

/// The MCP log of one run. Writing never fails the caller: a log that cannot be written is
/// reported once through `tracing` and then skipped.
pub struct McpLog {
    path: Option<PathBuf>,
    state: Mutex<LogState>,
}

#[derive(Default)]
struct LogState {
    file: Option<File>,
    size: u64,
    broken: bool,
}

impl McpLog {
    /// The log in `agent_dir`; `None` writes nowhere (no agent dir, as in unit tests).
    pub fn new(agent_dir: Option<&Path>) -> Self {
        McpLog {
            path: agent_dir.map(|dir| dir.join("mcp.log")),
            state: Mutex::new(LogState::default()),
        }
    }

    /// Appends `[<unix seconds.millis>] [<server>] <message>` (newlines in `message` flattened).
    pub fn line(&self, server: &str, message: &str) {
        let Some(path) = &self.path else { return };
        let Ok(mut state) = self.state.lock() else {
            return;
        };
        if state.broken {
            return;
        }
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap_or_default();
        let text = format!(
            "[{}.{:03}] [{server}] {}\n",
            now.as_secs(),
            now.subsec_millis(),
            message.replace(['\n', '\r'], " ")
        );
        if let Err(error) = write_line(path, &mut state, text.as_bytes()) {
            tracing::warn!(path = %path.display(), %error, "cannot write the MCP log");
            state.broken = true;
        }
    }
}

fn write_line(path: &Path, state: &mut LogState, bytes: &[u8]) -> std::io::Result<()> {
    if state.file.is_none() {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir)?;
        }
        let file = OpenOptions::new().create(true).append(true).open(path)?;
        state.size = file.metadata()?.len();
        state.file = Some(file);
    }
    if state.size + bytes.len() as u64 > MAX_LOG_BYTES && state.size > 0 {
        state.file = None;
        let mut rotated = path.as_os_str().to_owned();
        rotated.push(".1");
        std::fs::rename(path, PathBuf::from(rotated))?;
        state.file = Some(OpenOptions::new().create(true).append(true).open(path)?);
        state.size = 0;
    }
    if let Some(file) = state.file.as_mut() {
        file.write_all(bytes)?;
        state.size += bytes.len() as u64;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_appended_and_rotated_past_the_limit() {
        let dir = tempfile::tempdir().unwrap();
        let log = McpLog::new(Some(dir.path()));
        log.line("srv", "connected\nok");
        let text = std::fs::read_to_string(dir.path().join("mcp.log")).unwrap();
        assert!(text.ends_with("] [srv] connected ok\n"), "{text}");
        let big = "x".repeat(1024 * 1024);
        for _ in 0..6 {
            log.line("srv", &big);
        }
        let rotated = std::fs::metadata(dir.path().join("mcp.log.1"))
            .unwrap()
            .len();
        let current = std::fs::metadata(dir.path().join("mcp.log")).unwrap().len();
        assert!(
            rotated <= MAX_LOG_BYTES && rotated > 4 * 1024 * 1024,
            "{rotated}"
        );
        assert!(current < 2 * 1024 * 1024 + 100, "{current}");
    }
}
