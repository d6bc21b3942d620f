//! `<agentDir>/mcp-auth.json`: the OAuth state of HTTP servers, keyed as pi 1.6 keys it (server
//! namespace and URL, `mcp__<server>|<url>`, or the URL alone as older versions wrote it).
//! The file is 0600, changed under the lock `auth.json` uses, and replaced atomically.

use crate::naming::mcp_namespace;
use serde_json::{Map, Value};
use std::io::Write;
use std::path::{Path, PathBuf};

/// `<agentDir>/mcp-auth.json`.
pub fn credentials_path(agent_dir: &Path) -> PathBuf {
    agent_dir.join("mcp-auth.json")
}

/// The key of a server's state and the legacy key (the URL alone); the URL as a URL parser
/// writes it back (`https://Host` → `https://host/`).
pub fn credential_keys(server: &str, url: &str) -> (String, String) {
    let url = url::Url::parse(url).map_or_else(|_| url.to_owned(), |u| u.to_string());
    (format!("{}|{url}", mcp_namespace(server)), url)
}

/// Removes the stored state of server `server` at `url`; whether there was any.
pub fn remove_credentials(agent_dir: &Path, server: &str, url: &str) -> std::io::Result<bool> {
    let path = credentials_path(agent_dir);
    let _lock = pi_ai::file_lock::FileLock::acquire(&path)?;
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(false),
        Err(error) => return Err(error),
    };
    let mut states: Map<String, Value> = if text.trim().is_empty() {
        Map::new()
    } else {
        serde_json::from_str::<Value>(&text)?
            .as_object()
            .cloned()
            .unwrap_or_default()
    };
    let (key, legacy) = credential_keys(server, url);
    if states.shift_remove(&key).is_none() && states.shift_remove(&legacy).is_none() {
        return Ok(false);
    }
    let mut bytes = serde_json::to_vec_pretty(&Value::Object(states))?;
    bytes.push(b'\n');
    write_private(&path, &bytes)?;
    Ok(true)
}

/// Replaces `path` with `bytes` through a 0600 temporary file beside it.
fn write_private(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    let mut file = tempfile::NamedTempFile::new_in(dir)?;
    file.write_all(bytes)?;
    file.as_file().sync_all()?;
    file.persist(path).map_err(|error| error.error)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use serde_json::json;

    #[test]
    fn removing_takes_the_servers_key_or_the_legacy_one_and_keeps_the_rest() {
        let dir = tempfile::tempdir().unwrap();
        assert!(!remove_credentials(dir.path(), "docs", "https://d.example/mcp").unwrap());
        let states = json!({
            "mcp__my_docs|https://d.example/mcp": {"tokens": {}},
            "https://old.example/": {"tokens": {}},
            "other": 1
        });
        std::fs::write(credentials_path(dir.path()), states.to_string()).unwrap();
        assert!(remove_credentials(dir.path(), "my-docs", "https://d.example/mcp").unwrap());
        assert!(!remove_credentials(dir.path(), "my-docs", "https://d.example/mcp").unwrap());
        assert!(remove_credentials(dir.path(), "x", "https://OLD.example").unwrap());
        let text = std::fs::read_to_string(credentials_path(dir.path())).unwrap();
        assert_eq!(
            serde_json::from_str::<Value>(&text).unwrap(),
            json!({"other": 1})
        );
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(credentials_path(dir.path()))
                .unwrap()
                .permissions()
                .mode();
            assert_eq!(mode & 0o777, 0o600);
        }
    }
}
