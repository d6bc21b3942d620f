//! `auth.json`: credentials by provider id ([`AuthStorage`]), in pi's format, with the
//! entries and fields we do not model kept as they are.

use crate::auth_error::AuthError;
use crate::file_lock::FileLock;
use crate::sync::lock;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

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
    /// Serialises [`AuthStorage::update`] inside this process (the file lock does so across
    /// processes; memory-only storage has only this one).
    updating: tokio::sync::Mutex<()>,
}

/// The store held for a read-modify-write that awaits in between (an OAuth refresh): the
/// entries as re-read under the lock, and the lock itself until this is dropped.
pub struct AuthUpdate<'a> {
    storage: &'a AuthStorage,
    entries: Map<String, Value>,
    _file_lock: Option<FileLock>,
    _guard: tokio::sync::MutexGuard<'a, ()>,
}

impl AuthUpdate<'_> {
    /// The credential of `provider` as the file has it now.
    pub fn get(&self, provider: &str) -> Result<Option<Credential>, AuthError> {
        parse_entry(provider, self.entries.get(provider))
    }

    /// Stores `credential` (written to disk at once, before the caller uses it).
    pub fn set(&mut self, provider: &str, credential: &Credential) -> Result<(), AuthError> {
        self.entries
            .insert(provider.to_owned(), credential_value(provider, credential)?);
        if let Some(path) = &self.storage.path {
            write_auth_file(path, &self.entries)?;
        }
        *lock(&self.storage.entries) = self.entries.clone();
        Ok(())
    }
}

fn parse_entry(provider: &str, value: Option<&Value>) -> Result<Option<Credential>, AuthError> {
    let Some(value) = value.cloned() else {
        return Ok(None);
    };
    serde_json::from_value(value)
        .map(Some)
        .map_err(|e| AuthError::BadCredential {
            provider: provider.to_owned(),
            message: e.to_string(),
        })
}

fn credential_value(provider: &str, credential: &Credential) -> Result<Value, AuthError> {
    serde_json::to_value(credential).map_err(|e| AuthError::BadCredential {
        provider: provider.to_owned(),
        message: e.to_string(),
    })
}

impl AuthStorage {
    /// Storage backed by `path`. A missing file is an empty store (created on first write).
    pub fn open(path: impl Into<PathBuf>) -> Result<Self, AuthError> {
        let path = path.into();
        let entries = read_auth_file(&path)?;
        Ok(AuthStorage {
            path: Some(path),
            entries: Mutex::new(entries),
            updating: tokio::sync::Mutex::new(()),
        })
    }

    /// Storage that lives only in memory.
    pub fn in_memory() -> Self {
        AuthStorage {
            path: None,
            entries: Mutex::new(Map::new()),
            updating: tokio::sync::Mutex::new(()),
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
        let value = lock(&self.entries).get(provider).cloned();
        parse_entry(provider, value.as_ref())
    }

    /// Takes the store's lock (this process's, then the file's, waiting off the async
    /// threads) and re-reads the file, for a change that awaits something in between.
    pub async fn update(&self) -> Result<AuthUpdate<'_>, AuthError> {
        let guard = self.updating.lock().await;
        let Some(path) = self.path.clone() else {
            return Ok(AuthUpdate {
                storage: self,
                entries: lock(&self.entries).clone(),
                _file_lock: None,
                _guard: guard,
            });
        };
        let locked = tokio::task::spawn_blocking(move || {
            let file_lock = FileLock::acquire(&path).map_err(|source| AuthError::Write {
                path: crate::file_lock::lock_path(&path),
                source,
            })?;
            let entries = read_auth_file(&path)?;
            Ok::<_, AuthError>((file_lock, entries))
        })
        .await
        .map_err(|e| AuthError::Write {
            path: self.path.clone().unwrap_or_default(),
            source: std::io::Error::other(e),
        })??;
        let (file_lock, entries) = locked;
        *lock(&self.entries) = entries.clone();
        Ok(AuthUpdate {
            storage: self,
            entries,
            _file_lock: Some(file_lock),
            _guard: guard,
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
        let value = credential_value(provider, credential)?;
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
