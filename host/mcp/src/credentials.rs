//! `<agentDir>/mcp-auth.json`: the OAuth state of HTTP servers, keyed as pi 1.6 keys it (server
//! namespace and URL, `mcp__<server>|<url>`, or the URL alone as older versions wrote it).
//! The file is 0600, changed under the lock `auth.json` uses, and replaced atomically. A
//! server's state ([`ServerAuthState`]) has pi 1.6's fields, so either program reads the other's.

use crate::naming::mcp_namespace;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::io::Write;
use std::path::{Path, PathBuf};

/// One server's OAuth state in `mcp-auth.json`, as pi 1.6 writes it; fields this build does
/// not use are kept.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ServerAuthState {
    /// The server URL the state belongs to; state for another URL is ignored.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server_url: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tokens: Option<Tokens>,
    /// When the access token expires (ms since the epoch).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tokens_expire_at: Option<i64>,
    /// The registered (or configured) client.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_information: Option<ClientInformation>,
    /// The PKCE verifier of a sign-in under way.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code_verifier: Option<String>,
    /// The `state` of a sign-in under way.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub oauth_state: Option<String>,
    #[serde(flatten)]
    pub other: Map<String, Value>,
}

/// An OAuth token response (RFC 6749 §5.1).
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct Tokens {
    pub access_token: String,
    #[serde(default)]
    pub token_type: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expires_in: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scope: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refresh_token: Option<String>,
    #[serde(flatten)]
    pub other: Map<String, Value>,
}

/// A client registration response (RFC 7591 §3.2.1), or a configured client.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct ClientInformation {
    pub client_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_secret: Option<String>,
    #[serde(default)]
    pub redirect_uris: Vec<String>,
    #[serde(flatten)]
    pub other: Map<String, Value>,
}

/// The stored state of one server (name and URL) in `<agentDir>/mcp-auth.json`.
#[derive(Debug, Clone)]
pub struct ServerCredentials {
    path: PathBuf,
    key: String,
    legacy: String,
    /// The URL as stored in `serverUrl`.
    url: String,
}

impl ServerCredentials {
    pub fn new(agent_dir: &Path, server: &str, url: &str) -> Self {
        let (key, legacy) = credential_keys(server, url);
        ServerCredentials {
            path: credentials_path(agent_dir),
            url: legacy.clone(),
            key,
            legacy,
        }
    }

    /// The server's state (empty when none is stored for this URL). A state only stored
    /// under the legacy key is read too; the next write moves it.
    pub fn load(&self) -> std::io::Result<ServerAuthState> {
        let states = read_states(&self.path)?;
        Ok(self.own(&states))
    }

    /// Changes the server's state under the file's lock and writes the file back.
    pub fn update<T>(&self, change: impl FnOnce(&mut ServerAuthState) -> T) -> std::io::Result<T> {
        let _lock = pi_ai::file_lock::FileLock::acquire(&self.path)?;
        let mut states = read_states(&self.path)?;
        let mut state = self.own(&states);
        let result = change(&mut state);
        states.shift_remove(&self.legacy);
        states.insert(self.key.clone(), serde_json::to_value(&state)?);
        let mut bytes = serde_json::to_vec_pretty(&Value::Object(states))?;
        bytes.push(b'\n');
        write_private(&self.path, &bytes)?;
        Ok(result)
    }

    /// The lock file a refresh holds, so two pi processes never spend one refresh token twice.
    pub fn refresh_lock_path(&self) -> PathBuf {
        use sha2::Digest;
        let digest = sha2::Sha256::digest(self.key.as_bytes());
        let hash: String = digest.iter().take(8).map(|b| format!("{b:02x}")).collect();
        self.path.with_file_name(format!("mcp-auth-refresh-{hash}"))
    }

    fn own(&self, states: &Map<String, Value>) -> ServerAuthState {
        let stored = states.get(&self.key).or_else(|| states.get(&self.legacy));
        let state = stored
            .and_then(|v| serde_json::from_value::<ServerAuthState>(v.clone()).ok())
            .filter(|s| s.server_url.as_deref() == Some(self.url.as_str()));
        state.unwrap_or_else(|| ServerAuthState {
            server_url: Some(self.url.clone()),
            ..ServerAuthState::default()
        })
    }
}

/// Every server's state; a missing or empty file is none.
fn read_states(path: &Path) -> std::io::Result<Map<String, Value>> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(Map::new()),
        Err(error) => return Err(error),
    };
    if text.trim().is_empty() {
        return Ok(Map::new());
    }
    Ok(serde_json::from_str::<Value>(&text)?
        .as_object()
        .cloned()
        .unwrap_or_default())
}

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
    if !path.exists() {
        return Ok(false);
    }
    let mut states = read_states(&path)?;
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
    std::fs::create_dir_all(dir)?;
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
    fn server_state_is_keyed_by_name_and_url_and_ignored_for_another_url() {
        let dir = tempfile::tempdir().unwrap();
        let docs = ServerCredentials::new(dir.path(), "docs", "https://d.example/mcp");
        assert!(docs.load().unwrap().tokens.is_none());
        docs.update(|state| {
            state.tokens = Some(Tokens {
                access_token: "a1".into(),
                ..Tokens::default()
            });
        })
        .unwrap();
        let text = std::fs::read_to_string(credentials_path(dir.path())).unwrap();
        let stored: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(
            stored["mcp__docs|https://d.example/mcp"]["serverUrl"],
            "https://d.example/mcp"
        );
        assert_eq!(docs.load().unwrap().tokens.unwrap().access_token, "a1");
        let other_url = ServerCredentials::new(dir.path(), "docs", "https://e.example/mcp");
        assert!(other_url.load().unwrap().tokens.is_none());
        let other_name = ServerCredentials::new(dir.path(), "wiki", "https://d.example/mcp");
        assert!(other_name.load().unwrap().tokens.is_none());
    }

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
