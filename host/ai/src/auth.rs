//! Credentials: the environment-variable table, `auth.json` storage ([`AuthStorage`]), the
//! resolution order of an API key, and pi's config-value syntax (`!cmd`, `$VAR`).
//!
//! Resolution order: explicit key > stored credential > environment > models.json
//! `apiKey`. A stored credential owns its provider: when it is unusable the answer is an error,
//! never a quiet fallback to a different key from the environment.

use crate::file_lock::FileLock;
use crate::sync::lock;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Environment variables that may hold `provider`'s API key, in lookup order.
pub fn env_var_names(provider: &str) -> &'static [&'static str] {
    match provider {
        "anthropic" => &["ANTHROPIC_OAUTH_TOKEN", "ANTHROPIC_API_KEY"],
        "openai" => &["OPENAI_API_KEY"],
        "google" => &["GEMINI_API_KEY"],
        "google-vertex" => &["GOOGLE_CLOUD_API_KEY"],
        "azure" | "azure-openai-responses" => &["AZURE_OPENAI_API_KEY"],
        "github-copilot" => &["COPILOT_GITHUB_TOKEN"],
        "xai" => &["XAI_API_KEY"],
        "groq" => &["GROQ_API_KEY"],
        "cerebras" => &["CEREBRAS_API_KEY"],
        "openrouter" => &["OPENROUTER_API_KEY"],
        "vercel-ai-gateway" => &["AI_GATEWAY_API_KEY"],
        "zai" => &["ZAI_API_KEY"],
        "zai-coding-cn" => &["ZAI_CODING_CN_API_KEY"],
        "mistral" => &["MISTRAL_API_KEY"],
        "minimax" => &["MINIMAX_API_KEY"],
        "minimax-cn" => &["MINIMAX_CN_API_KEY"],
        "moonshotai" | "moonshotai-cn" => &["MOONSHOT_API_KEY"],
        "huggingface" => &["HF_TOKEN"],
        "fireworks" => &["FIREWORKS_API_KEY"],
        "together" => &["TOGETHER_API_KEY"],
        "baseten" => &["BASETEN_API_KEY"],
        "opencode" | "opencode-go" => &["OPENCODE_API_KEY"],
        "kimi-coding" => &["KIMI_API_KEY"],
        "deepseek" => &["DEEPSEEK_API_KEY"],
        "nvidia" => &["NVIDIA_API_KEY"],
        "ant-ling" => &["ANT_LING_API_KEY"],
        "cloudflare-workers-ai" | "cloudflare-ai-gateway" => &["CLOUDFLARE_API_KEY"],
        "xiaomi" => &["XIAOMI_API_KEY"],
        "xiaomi-token-plan-cn" => &["XIAOMI_TOKEN_PLAN_CN_API_KEY"],
        "xiaomi-token-plan-ams" => &["XIAOMI_TOKEN_PLAN_AMS_API_KEY"],
        "xiaomi-token-plan-sgp" => &["XIAOMI_TOKEN_PLAN_SGP_API_KEY"],
        "qwen-token-plan" => &["QWEN_TOKEN_PLAN_TEAM_API_KEY", "QWEN_TOKEN_PLAN_API_KEY"],
        "qwen-token-plan-cn" => &[
            "QWEN_TOKEN_PLAN_TEAM_CN_API_KEY",
            "QWEN_TOKEN_PLAN_CN_API_KEY",
        ],
        "qwen-token-plan-individual" => &[
            "QWEN_TOKEN_PLAN_INDIVIDUAL_API_KEY",
            "QWEN_TOKEN_PLAN_API_KEY",
        ],
        "qwen-token-plan-individual-cn" => &[
            "QWEN_TOKEN_PLAN_INDIVIDUAL_CN_API_KEY",
            "QWEN_TOKEN_PLAN_CN_API_KEY",
        ],
        "meta" => &["META_API_KEY"],
        "radius" => &["RADIUS_API_KEY"],
        _ => &[],
    }
}

/// The first non-empty environment variable holding `provider`'s key.
pub fn env_api_key(provider: &str) -> Option<String> {
    env_var_names(provider)
        .iter()
        .filter_map(|name| std::env::var(name).ok())
        .find(|value| !value.trim().is_empty())
}

/// Why a credential could not be read, stored or resolved.
#[derive(Debug, thiserror::Error)]
pub enum AuthError {
    #[error("cannot read {}: {source}", path.display())]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{}:{line}:{column}: invalid JSON: {message} (the file was left unchanged)", path.display())]
    Parse {
        path: PathBuf,
        line: usize,
        column: usize,
        message: String,
    },
    #[error("{}: expected a JSON object of credentials keyed by provider", path.display())]
    NotAnObject { path: PathBuf },
    #[error("the stored credential for \"{provider}\" is invalid: {message}")]
    BadCredential { provider: String, message: String },
    #[error("cannot write {}: {source}", path.display())]
    Write {
        path: PathBuf,
        source: std::io::Error,
    },
    /// The stored OAuth access token is past its expiry. OAuth flows (login, refresh) belong
    /// to a later issue, so the user is told to log in again; never a silent env fallback.
    #[error("the OAuth login for \"{provider}\" has expired: log in again (/login {provider})")]
    OAuthExpired { provider: String },
    #[error("the stored API key for \"{provider}\" resolves to nothing (an unset variable?)")]
    EmptyStoredKey { provider: String },
    #[error("cannot run command `{command}`: {source}")]
    CommandSpawn {
        command: String,
        source: std::io::Error,
    },
    #[error("command `{command}` failed ({status}){}", stderr_suffix(stderr))]
    CommandFailed {
        command: String,
        status: String,
        stderr: String,
    },
    #[error("command `{command}` did not finish within {} s", timeout.as_secs())]
    CommandTimeout { command: String, timeout: Duration },
}

fn stderr_suffix(stderr: &str) -> String {
    if stderr.trim().is_empty() {
        String::new()
    } else {
        format!(": {}", stderr.trim())
    }
}

/// One `auth.json` entry. Fields pi (or a newer pi) writes that we do not model are kept in
/// `extra` so that reading and writing a credential does not lose them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type")]
pub enum Credential {
    #[serde(rename = "api_key")]
    ApiKey {
        key: String,
        #[serde(flatten)]
        extra: Map<String, Value>,
    },
    #[serde(rename = "oauth")]
    OAuth {
        access: String,
        refresh: String,
        /// Expiry of `access`, milliseconds since the Unix epoch.
        expires: i64,
        #[serde(flatten)]
        extra: Map<String, Value>,
    },
}

impl Credential {
    pub fn api_key(key: impl Into<String>) -> Self {
        Credential::ApiKey {
            key: key.into(),
            extra: Map::new(),
        }
    }
}

/// Credentials by provider id: `auth.json` on disk, or memory only (tests, SDK use).
///
/// The file is kept with mode 0600. Every change re-reads the file under a lock
/// (`auth.json.lock`) and replaces it atomically (temporary file + rename), so a concurrent pi
/// process's entries survive and a crash never leaves a half-written file. A file that does not
/// parse is never overwritten: the change fails with the parse error instead.
pub struct AuthStorage {
    path: Option<PathBuf>,
    /// Each change is one insert, remove or swap, so a poisoned lock still guards a whole map.
    entries: Mutex<Map<String, Value>>,
}

impl AuthStorage {
    /// Storage backed by `path`. A missing file is an empty store (created on first write).
    pub fn open(path: impl Into<PathBuf>) -> Result<Self, AuthError> {
        let path = path.into();
        let entries = read_auth_file(&path)?;
        Ok(AuthStorage {
            path: Some(path),
            entries: Mutex::new(entries),
        })
    }

    /// Storage that lives only in memory.
    pub fn in_memory() -> Self {
        AuthStorage {
            path: None,
            entries: Mutex::new(Map::new()),
        }
    }

    /// The backing file, if any.
    pub fn path(&self) -> Option<&Path> {
        self.path.as_deref()
    }

    /// Re-reads the file (another process may have logged in or refreshed a token).
    pub fn reload(&self) -> Result<(), AuthError> {
        if let Some(path) = &self.path {
            let fresh = read_auth_file(path)?;
            *lock(&self.entries) = fresh;
        }
        Ok(())
    }

    /// The credential stored for `provider`.
    pub fn get(&self, provider: &str) -> Result<Option<Credential>, AuthError> {
        let Some(value) = lock(&self.entries).get(provider).cloned() else {
            return Ok(None);
        };
        serde_json::from_value(value)
            .map(Some)
            .map_err(|e| AuthError::BadCredential {
                provider: provider.to_owned(),
                message: e.to_string(),
            })
    }

    /// Whether anything is stored for `provider`.
    pub fn has(&self, provider: &str) -> bool {
        lock(&self.entries).contains_key(provider)
    }

    /// Providers with a stored entry, in file order.
    pub fn providers(&self) -> Vec<String> {
        lock(&self.entries).keys().cloned().collect()
    }

    /// Stores (replaces) the credential of `provider`.
    pub fn set(&self, provider: &str, credential: &Credential) -> Result<(), AuthError> {
        let value = serde_json::to_value(credential).map_err(|e| AuthError::BadCredential {
            provider: provider.to_owned(),
            message: e.to_string(),
        })?;
        self.modify(|entries| {
            entries.insert(provider.to_owned(), value);
        })
    }

    /// Deletes the credential of `provider` (logout). Returns whether one existed.
    pub fn remove(&self, provider: &str) -> Result<bool, AuthError> {
        let mut existed = false;
        self.modify(|entries| existed = entries.remove(provider).is_some())?;
        Ok(existed)
    }

    fn modify(&self, change: impl FnOnce(&mut Map<String, Value>)) -> Result<(), AuthError> {
        let Some(path) = &self.path else {
            change(&mut lock(&self.entries));
            return Ok(());
        };
        let _lock = FileLock::acquire(path).map_err(|source| AuthError::Write {
            path: crate::file_lock::lock_path(path),
            source,
        })?;
        let mut entries = read_auth_file(path)?;
        change(&mut entries);
        write_auth_file(path, &entries)?;
        *lock(&self.entries) = entries;
        Ok(())
    }
}

fn read_auth_file(path: &Path) -> Result<Map<String, Value>, AuthError> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Map::new()),
        Err(source) => {
            return Err(AuthError::Read {
                path: path.to_owned(),
                source,
            });
        }
    };
    if text.trim().is_empty() {
        return Ok(Map::new());
    }
    match serde_json::from_str::<Value>(&text) {
        Ok(Value::Object(entries)) => Ok(entries),
        Ok(_) => Err(AuthError::NotAnObject {
            path: path.to_owned(),
        }),
        Err(e) => Err(AuthError::Parse {
            path: path.to_owned(),
            line: e.line(),
            column: e.column(),
            message: e.to_string(),
        }),
    }
}

fn write_auth_file(path: &Path, entries: &Map<String, Value>) -> Result<(), AuthError> {
    let write_error = |source| AuthError::Write {
        path: path.to_owned(),
        source,
    };
    let mut text =
        serde_json::to_string_pretty(entries).map_err(|e| write_error(std::io::Error::other(e)))?;
    text.push('\n');
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(write_error)?;
    }
    let tmp = sibling(path, &format!(".tmp.{}", std::process::id()));
    let result = (|| {
        let mut file = private_file(&tmp)?;
        file.write_all(text.as_bytes())?;
        file.sync_all()?;
        std::fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result.map_err(write_error)
}

/// `path` with `suffix` appended to its file name.
fn sibling(path: &Path, suffix: &str) -> PathBuf {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(suffix);
    path.with_file_name(name)
}

/// Creates (truncating) a file readable only by its owner.
fn private_file(path: &Path) -> std::io::Result<std::fs::File> {
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    options.open(path)
}

/// The API key (or OAuth access token) to use for `provider`, by pi's precedence:
/// `explicit` > stored credential > environment variable > models.json `apiKey`
/// (`models_json_key`, raw, resolved here with [`resolve_config_value`]).
///
/// `Ok(None)` means no credential anywhere. A stored credential that cannot be used is an error:
/// it owns its provider, so the environment is not consulted behind the user's back.
pub fn resolve_api_key(
    provider: &str,
    explicit: Option<&str>,
    storage: &AuthStorage,
    models_json_key: Option<&str>,
) -> Result<Option<String>, AuthError> {
    resolve_with(
        provider,
        explicit,
        storage,
        &|| env_api_key(provider),
        models_json_key,
        crate::types::now_ms(),
    )
}

/// [`resolve_api_key`] with the environment and the clock passed in (tests cannot safely set
/// process environment variables).
fn resolve_with(
    provider: &str,
    explicit: Option<&str>,
    storage: &AuthStorage,
    env_key: &dyn Fn() -> Option<String>,
    models_json_key: Option<&str>,
    now_ms: i64,
) -> Result<Option<String>, AuthError> {
    if let Some(key) = explicit.map(str::trim).filter(|k| !k.is_empty()) {
        return Ok(Some(key.to_owned()));
    }
    if let Some(credential) = storage.get(provider)? {
        return stored_key(provider, &credential, now_ms).map(Some);
    }
    if let Some(key) = env_key() {
        return Ok(Some(key));
    }
    match models_json_key {
        Some(raw) => resolve_config_value(raw),
        None => Ok(None),
    }
}

/// The key a stored credential yields at time `now_ms`.
fn stored_key(provider: &str, credential: &Credential, now_ms: i64) -> Result<String, AuthError> {
    match credential {
        Credential::ApiKey { key, .. } => {
            resolve_config_value(key)?.ok_or_else(|| AuthError::EmptyStoredKey {
                provider: provider.to_owned(),
            })
        }
        // Seam for OAuth refresh: when `expires - now` falls inside the refresh
        // window (5 min), lock the store, re-read, call the provider's refresh, save, then use the
        // new token. Until refresh exists an expired token must send the user to /login.
        Credential::OAuth {
            access, expires, ..
        } => {
            if *expires <= now_ms {
                Err(AuthError::OAuthExpired {
                    provider: provider.to_owned(),
                })
            } else {
                Ok(access.clone())
            }
        }
    }
}

/// Longest a `!command` value may run.
const COMMAND_TIMEOUT: Duration = Duration::from_secs(10);

/// Resolves a config value (models.json `apiKey`/`headers`, stored keys) the way pi does:
/// - `!command` runs the command in a shell and yields its trimmed standard output;
/// - `$VAR` and `${VAR}` are replaced by environment variables (an unset one leaves the whole
///   value unresolved: `Ok(None)`);
/// - `$$` stands for `$` and `$!` for `!`;
/// - anything else is literal.
///
/// An empty result is `Ok(None)`. A failing command is an error carrying its stderr.
pub fn resolve_config_value(raw: &str) -> Result<Option<String>, AuthError> {
    let value = match raw.strip_prefix('!') {
        Some(command) => Some(run_command(command.trim())?),
        None => interpolate(raw, &|name| std::env::var(name).ok()),
    };
    Ok(value.filter(|v| !v.is_empty()))
}

/// `$VAR` / `${VAR}` / `$$` / `$!` expansion; `None` when a variable is unset.
fn interpolate(raw: &str, lookup: &dyn Fn(&str) -> Option<String>) -> Option<String> {
    let mut out = String::with_capacity(raw.len());
    let mut rest = raw;
    while let Some(at) = rest.find('$') {
        out.push_str(&rest[..at]);
        let after = &rest[at + 1..];
        let (replacement, consumed) = expand_dollar(after, lookup)?;
        out.push_str(&replacement);
        rest = &after[consumed..];
    }
    out.push_str(rest);
    Some(out)
}

/// Expands what follows one `$`: returns the text and how many bytes after the `$` it used.
fn expand_dollar(after: &str, lookup: &dyn Fn(&str) -> Option<String>) -> Option<(String, usize)> {
    let is_name_start = |c: char| c == '_' || c.is_ascii_alphabetic();
    let name_len = |s: &str| {
        s.char_indices()
            .find(|&(_, c)| !(c == '_' || c.is_ascii_alphanumeric()))
            .map_or(s.len(), |(i, _)| i)
    };
    match after.chars().next() {
        Some('$') => Some(("$".to_owned(), 1)),
        Some('!') => Some(("!".to_owned(), 1)),
        Some('{') => {
            let inner = &after[1..];
            match inner.find('}') {
                Some(end) if end > 0 && name_len(&inner[..end]) == end => {
                    Some((lookup(&inner[..end])?, end + 2))
                }
                // Not a well-formed `${NAME}`: keep the `$` literally.
                _ => Some(("$".to_owned(), 0)),
            }
        }
        Some(c) if is_name_start(c) => {
            let len = name_len(after);
            Some((lookup(&after[..len])?, len))
        }
        _ => Some(("$".to_owned(), 0)),
    }
}

fn shell(command: &str) -> Command {
    #[cfg(windows)]
    {
        let mut cmd = Command::new("cmd");
        cmd.args(["/C", command]);
        cmd
    }
    #[cfg(not(windows))]
    {
        let mut cmd = Command::new("sh");
        cmd.args(["-c", command]);
        cmd
    }
}

/// Runs `command` in a shell and returns its trimmed stdout.
fn run_command(command: &str) -> Result<String, AuthError> {
    let mut child = shell(command)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|source| AuthError::CommandSpawn {
            command: command.to_owned(),
            source,
        })?;
    // Pipes are drained on threads so a chatty command cannot block on a full pipe.
    let stdout = drain(child.stdout.take());
    let stderr = drain(child.stderr.take());
    let deadline = Instant::now() + COMMAND_TIMEOUT;
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if Instant::now() >= deadline => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(AuthError::CommandTimeout {
                    command: command.to_owned(),
                    timeout: COMMAND_TIMEOUT,
                });
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(5)),
            Err(source) => {
                return Err(AuthError::CommandSpawn {
                    command: command.to_owned(),
                    source,
                });
            }
        }
    };
    let stdout = stdout.join().unwrap_or_default();
    let stderr = stderr.join().unwrap_or_default();
    if !status.success() {
        return Err(AuthError::CommandFailed {
            command: command.to_owned(),
            status: status.to_string(),
            stderr,
        });
    }
    Ok(stdout.trim().to_owned())
}

fn drain(pipe: Option<impl Read + Send + 'static>) -> std::thread::JoinHandle<String> {
    std::thread::spawn(move || {
        let mut bytes = Vec::new();
        if let Some(mut pipe) = pipe {
            let _ = pipe.read_to_end(&mut bytes);
        }
        String::from_utf8_lossy(&bytes).into_owned()
    })
}

/// Request headers from three layers, later layers winning: the model's configured headers,
/// the headers authentication produced, then headers passed explicitly for this call.
/// Header names compare case-insensitively, so `authorization` replaces `Authorization`.
pub fn merge_headers(
    model_headers: Option<&BTreeMap<String, String>>,
    auth_headers: &BTreeMap<String, String>,
    explicit: &BTreeMap<String, String>,
) -> BTreeMap<String, String> {
    let layers = model_headers.into_iter().chain([auth_headers, explicit]);
    merge_header_layers(layers.flatten().map(|(k, v)| (k.clone(), v.clone())))
        .into_iter()
        .collect()
}

/// Applies headers in order; a later one replaces an earlier one of the same name, compared
/// without case (HTTP clients append duplicates rather than replace them).
pub fn merge_header_layers(
    headers: impl IntoIterator<Item = (String, String)>,
) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    for (name, value) in headers {
        out.retain(|(existing, _)| !existing.eq_ignore_ascii_case(&name));
        out.push((name, value));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(name: &str) -> Option<String> {
        match name {
            "HOME_KEY" => Some("abc".to_owned()),
            "EMPTY" => Some(String::new()),
            _ => None,
        }
    }

    #[test]
    fn interpolation_rules() {
        let cases: &[(&str, Option<&str>)] = &[
            ("plain-key", Some("plain-key")),
            ("$HOME_KEY", Some("abc")),
            ("${HOME_KEY}", Some("abc")),
            ("pre-${HOME_KEY}-post", Some("pre-abc-post")),
            ("$HOME_KEY.x", Some("abc.x")),
            ("$$HOME_KEY", Some("$HOME_KEY")),
            ("$!cmd", Some("!cmd")),
            ("cost $5", Some("cost $5")),
            ("${not closed", Some("${not closed")),
            ("trailing $", Some("trailing $")),
            ("$EMPTY", Some("")),
            ("$MISSING_VAR", None),
            ("a ${MISSING_VAR} b", None),
        ];
        for (raw, expected) in cases {
            assert_eq!(interpolate(raw, &env).as_deref(), *expected, "{raw}");
        }
    }

    #[test]
    fn expired_oauth_is_an_error_and_valid_oauth_yields_access() {
        let credential = Credential::OAuth {
            access: "tok".into(),
            refresh: "ref".into(),
            expires: 1_000,
            extra: Map::new(),
        };
        assert_eq!(stored_key("anthropic", &credential, 999).unwrap(), "tok");
        let err = stored_key("anthropic", &credential, 1_000).unwrap_err();
        assert!(matches!(err, AuthError::OAuthExpired { .. }));
        assert!(err.to_string().contains("log in again"));
    }

    fn oauth(expires: i64) -> Credential {
        Credential::OAuth {
            access: "access-token".into(),
            refresh: "refresh-token".into(),
            expires,
            extra: Map::new(),
        }
    }

    #[test]
    fn precedence_explicit_then_stored_then_env_then_models_json() {
        let env = || Some("from-env".to_owned());
        let no_env = || None;
        let store = AuthStorage::in_memory();
        let resolve = |explicit, env: &dyn Fn() -> Option<String>, models_json| {
            resolve_with("openai", explicit, &store, env, models_json, 0).unwrap()
        };
        assert_eq!(resolve(None, &no_env, None), None);
        assert_eq!(
            resolve(None, &no_env, Some("from-json")).as_deref(),
            Some("from-json")
        );
        assert_eq!(
            resolve(None, &env, Some("from-json")).as_deref(),
            Some("from-env")
        );
        store.set("openai", &Credential::api_key("stored")).unwrap();
        assert_eq!(
            resolve(None, &env, Some("from-json")).as_deref(),
            Some("stored")
        );
        assert_eq!(
            resolve(Some("explicit"), &env, Some("x")).as_deref(),
            Some("explicit")
        );
        assert_eq!(resolve(Some("  "), &env, None).as_deref(), Some("stored"));
    }

    #[test]
    fn expired_stored_oauth_never_falls_back_to_the_environment() {
        let store = AuthStorage::in_memory();
        store.set("anthropic", &oauth(1_000)).unwrap();
        let env = || Some("from-env".to_owned());
        let err = resolve_with("anthropic", None, &store, &env, Some("json"), 2_000).unwrap_err();
        assert!(matches!(err, AuthError::OAuthExpired { ref provider } if provider == "anthropic"));
        let ok = resolve_with("anthropic", None, &store, &env, None, 500).unwrap();
        assert_eq!(ok.as_deref(), Some("access-token"));
        // An explicit key still wins over the broken stored credential.
        let explicit = resolve_with("anthropic", Some("k"), &store, &env, None, 2_000).unwrap();
        assert_eq!(explicit.as_deref(), Some("k"));
    }

    #[test]
    fn stored_key_that_resolves_to_nothing_is_an_error() {
        let store = AuthStorage::in_memory();
        store
            .set(
                "openai",
                &Credential::api_key("$PI_TEST_SURELY_UNSET_VAR_42"),
            )
            .unwrap();
        let env = || Some("from-env".to_owned());
        let err = resolve_with("openai", None, &store, &env, None, 0).unwrap_err();
        assert!(matches!(err, AuthError::EmptyStoredKey { .. }));
    }
}
