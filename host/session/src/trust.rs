//! Project trust (`<agentDir>/trust.json`): whether project-local settings and resources of a
//! folder may be used. A decision saved for a folder applies to its subfolders too; the
//! nearest saved ancestor wins.
//!
//! The file maps absolute folder paths to a decision. We read `true`/`false`, the strings
//! `"trusted"`/`"yes"`/`"always"` and `"untrusted"`/`"no"`/`"never"`, and objects with a
//! `trusted` boolean; we write booleans. Unknown entries are kept on save.

use crate::paths::write_atomic;
use crate::settings::DefaultProjectTrust;
use serde_json::{Map, Value};
use std::path::{Path, PathBuf};

/// The outcome for one run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TrustDecision {
    Trusted,
    Untrusted,
    /// No saved decision and the default is `ask`: an interactive UI should ask; anything else
    /// treats this as untrusted.
    Ask,
}

impl TrustDecision {
    pub fn is_trusted(self) -> bool {
        self == TrustDecision::Trusted
    }
}

/// Errors of the trust store.
#[derive(Debug, thiserror::Error)]
pub enum TrustError {
    #[error("{path}:{line}:{column}: invalid JSON: {message}")]
    Parse {
        path: PathBuf,
        line: usize,
        column: usize,
        message: String,
    },
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
}

/// The saved decisions.
#[derive(Debug, Clone, Default)]
pub struct TrustStore {
    path: PathBuf,
    entries: Map<String, Value>,
}

fn decision_of(value: &Value) -> Option<bool> {
    match value {
        Value::Bool(b) => Some(*b),
        Value::String(s) => match s.as_str() {
            "trusted" | "yes" | "always" | "trust" => Some(true),
            "untrusted" | "no" | "never" | "deny" => Some(false),
            _ => None,
        },
        Value::Object(o) => o.get("trusted").and_then(Value::as_bool),
        _ => None,
    }
}

impl TrustStore {
    /// Reads `<agent_dir>/trust.json` (missing = no decisions).
    pub fn load(agent_dir: &Path) -> Result<Self, TrustError> {
        let path = agent_dir.join("trust.json");
        let entries = match std::fs::read_to_string(&path) {
            Ok(text) if text.trim().is_empty() => Map::new(),
            Ok(text) => match serde_json::from_str::<Value>(&text) {
                Ok(Value::Object(map)) => map,
                Ok(_) => Map::new(),
                Err(e) => {
                    return Err(TrustError::Parse {
                        path,
                        line: e.line(),
                        column: e.column(),
                        message: e.to_string(),
                    });
                }
            },
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Map::new(),
            Err(source) => return Err(TrustError::Io { path, source }),
        };
        Ok(TrustStore { path, entries })
    }

    /// The saved decision for `cwd` or its nearest ancestor that has one.
    pub fn decision_for(&self, cwd: &Path) -> Option<bool> {
        let cwd = normalize(cwd);
        cwd.ancestors().find_map(|dir| {
            let key = dir.to_string_lossy();
            self.entries.get(key.as_ref()).and_then(decision_of)
        })
    }

    /// Saves a decision for `cwd` (atomically).
    pub fn set(&mut self, cwd: &Path, trusted: bool) -> Result<(), TrustError> {
        let key = normalize(cwd).to_string_lossy().into_owned();
        self.entries.insert(key, Value::Bool(trusted));
        let mut text = serde_json::to_string_pretty(&Value::Object(self.entries.clone()))
            .unwrap_or_else(|_| "{}".into());
        text.push('\n');
        write_atomic(&self.path, text.as_bytes()).map_err(|source| TrustError::Io {
            path: self.path.clone(),
            source,
        })
    }
}

fn normalize(path: &Path) -> PathBuf {
    std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())
}

/// Resolves trust for this run: `--approve` (`Some(true)`) / `--no-approve` (`Some(false)`)
/// win, then a saved decision, then `defaultProjectTrust` (`always` → trusted, `never` →
/// untrusted, `ask` → [`TrustDecision::Ask`]).
pub fn resolve_trust(
    cwd: &Path,
    approve: Option<bool>,
    store: &TrustStore,
    default: DefaultProjectTrust,
) -> TrustDecision {
    let to_decision = |t: bool| {
        if t {
            TrustDecision::Trusted
        } else {
            TrustDecision::Untrusted
        }
    };
    if let Some(flag) = approve {
        return to_decision(flag);
    }
    if let Some(saved) = store.decision_for(cwd) {
        return to_decision(saved);
    }
    match default {
        DefaultProjectTrust::Always => TrustDecision::Trusted,
        DefaultProjectTrust::Never => TrustDecision::Untrusted,
        DefaultProjectTrust::Ask => TrustDecision::Ask,
    }
}
