//! Settings: global `<agentDir>/settings.json` and project `<cwd>/.pi/settings.json`
//! (trusted projects only), each read into a typed [`Settings`] layer; the effective settings
//! are their merge (the project wins, objects merge, everything else replaces).
//!
//! Keys this version does not know are kept in each object's `extra`, and a value of the wrong
//! type is reported and kept aside, so a save writes both back unchanged. A file that does not
//! parse is reported (file, line, column) and never overwritten.

mod choices;
mod effective;
mod keys;
mod lenient;
mod merge;
mod table;

pub use choices::*;
pub use effective::{
    BranchSummarySettings, CompactionSettings, ProviderRetrySettings, RetrySettings,
};
pub use keys::*;
pub use lenient::Rejected;
pub use table::{Choice, SETTINGS_TABLE, SettingInfo, setting_info};

use crate::paths::write_atomic;
use lenient::{read_lenient, restore};
use merge::Merge;
use serde_json::{Map, Value};
use std::path::{Path, PathBuf};

/// Settings errors.
#[derive(Debug, thiserror::Error)]
pub enum SettingsError {
    #[error("{path}:{line}:{column}: invalid JSON: {message}")]
    Parse {
        path: PathBuf,
        line: usize,
        column: usize,
        message: String,
    },
    #[error("{path}: settings must be a JSON object")]
    NotAnObject { path: PathBuf },
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path} could not be read, so it was not overwritten: fix it first")]
    RefuseOverwrite { path: PathBuf },
    #[error("{path} is a link out of the project's .pi directory; it was not read")]
    LinkOut { path: PathBuf },
    #[error("{path}: {key}: {reason}; the value is kept in the file but not used")]
    WrongType {
        path: PathBuf,
        key: String,
        reason: String,
    },
}

/// The project's settings file, which must not be a link out of the project's `.pi`.
fn read_project_settings(path: &Path, cwd: &Path) -> Result<Map<String, Value>, SettingsError> {
    if crate::paths::leaves_tree(path, &cwd.join(".pi")) {
        return Err(SettingsError::LinkOut {
            path: path.to_path_buf(),
        });
    }
    read_settings_file(path)
}

/// Reads a settings file. Missing file = empty object.
pub fn read_settings_file(path: &Path) -> Result<Map<String, Value>, SettingsError> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Map::new()),
        Err(source) => {
            return Err(SettingsError::Io {
                path: path.to_path_buf(),
                source,
            });
        }
    };
    if text.trim().is_empty() {
        return Ok(Map::new());
    }
    match serde_json::from_str::<Value>(&text) {
        Ok(Value::Object(map)) => Ok(map),
        Ok(_) => Err(SettingsError::NotAnObject {
            path: path.to_path_buf(),
        }),
        Err(e) => Err(SettingsError::Parse {
            path: path.to_path_buf(),
            line: e.line(),
            column: e.column(),
            message: e.to_string(),
        }),
    }
}

/// The source an entry of the `packages` key names: pi writes a string, or an object with
/// `source` and filters.
pub fn package_entry_source(entry: &Value) -> Option<&str> {
    match entry {
        Value::String(source) => Some(source),
        Value::Object(object) => object.get("source").and_then(Value::as_str),
        _ => None,
    }
}

/// pi's settings migrations of old key names (applied in memory). pi's `websockets` →
/// `transport` is not among them: this pi speaks SSE only and reads neither key.
pub fn migrate_settings(map: &mut Map<String, Value>) {
    if let Some(mode) = map.shift_remove("queueMode") {
        map.entry("steeringMode").or_insert(mode);
    }
    if let Some(Value::Object(skills)) = map.get("skills").cloned() {
        map.shift_remove("skills");
        if let Some(enable) = skills.get("enableSkillCommands") {
            map.entry("enableSkillCommands").or_insert(enable.clone());
        }
        let dirs = skills
            .get("customDirectories")
            .cloned()
            .unwrap_or(Value::Array(Vec::new()));
        map.insert("skills".into(), dirs);
    }
    if let Some(Value::Object(retry)) = map.get_mut("retry")
        && let Some(delay) = retry.shift_remove("maxDelayMs")
    {
        let provider = retry
            .entry("provider")
            .or_insert_with(|| Value::Object(Map::new()));
        if let Value::Object(provider) = provider {
            provider.entry("maxRetryDelayMs").or_insert(delay);
        }
    }
}

/// One settings file read into its typed form.
#[derive(Debug, Clone, Default)]
struct Layer {
    settings: Settings,
    /// Values of the wrong type for their key: not used, written back as they were.
    rejected: Vec<Rejected>,
}

impl Layer {
    /// A layer from a file's object (old keys migrated); the wrong-typed values are reported
    /// against `path`.
    fn read(mut object: Map<String, Value>, path: &Path, errors: &mut Vec<SettingsError>) -> Self {
        migrate_settings(&mut object);
        let (settings, rejected) = read_lenient::<Settings>(object);
        errors.extend(rejected.iter().map(|r| SettingsError::WrongType {
            path: path.to_path_buf(),
            key: r.key(),
            reason: r.reason.clone(),
        }));
        Layer { settings, rejected }
    }

    /// The layer as the file would hold it.
    fn to_json(&self) -> Map<String, Value> {
        let mut object = match serde_json::to_value(&self.settings) {
            Ok(Value::Object(object)) => object,
            _ => Map::new(),
        };
        restore(&mut object, &self.rejected);
        object
    }
}

/// The effective settings and the files they came from.
#[derive(Debug)]
pub struct SettingsManager {
    global_path: PathBuf,
    project_path: Option<PathBuf>,
    global: Layer,
    project: Layer,
    effective: Settings,
    /// Top-level keys of the global layer changed since the last save.
    modified: Vec<String>,
    global_unreadable: bool,
    errors: Vec<SettingsError>,
}

/// The manager reads as its effective settings (`settings.compaction()`).
impl std::ops::Deref for SettingsManager {
    type Target = Settings;

    fn deref(&self) -> &Settings {
        &self.effective
    }
}

impl SettingsManager {
    /// Loads the global file and, when `project_trusted`, the project file. Errors are
    /// collected in [`errors`](Self::errors) (pi shows them as warnings): a file that does not
    /// parse counts as empty, a wrong-typed value as unset.
    pub fn load(agent_dir: &Path, cwd: &Path, project_trusted: bool) -> Self {
        let global_path = agent_dir.join("settings.json");
        let project_path = cwd.join(".pi").join("settings.json");
        let mut errors = Vec::new();
        let mut global_unreadable = false;
        let global = read_settings_file(&global_path).unwrap_or_else(|e| {
            global_unreadable = true;
            errors.push(e);
            Map::new()
        });
        let global = Layer::read(global, &global_path, &mut errors);
        let project = if project_trusted {
            let object = read_project_settings(&project_path, cwd).unwrap_or_else(|e| {
                errors.push(e);
                Map::new()
            });
            Layer::read(object, &project_path, &mut errors)
        } else {
            Layer::default()
        };
        let mut manager = SettingsManager {
            global_path,
            project_path: project_trusted.then_some(project_path),
            global,
            project,
            effective: Settings::default(),
            modified: Vec::new(),
            global_unreadable,
            errors,
        };
        manager.remerge();
        manager
    }

    /// Settings from values (tests, `--no-settings` style callers). Nothing is saved.
    pub fn from_values(global: Value, project: Value) -> Self {
        let mut errors = Vec::new();
        let mut layer = |v: Value| match v {
            Value::Object(object) => Layer::read(object, Path::new(""), &mut errors),
            _ => Layer::default(),
        };
        let (global, project) = (layer(global), layer(project));
        let mut manager = SettingsManager {
            global_path: PathBuf::new(),
            project_path: None,
            global,
            project,
            effective: Settings::default(),
            modified: Vec::new(),
            global_unreadable: false,
            errors,
        };
        manager.remerge();
        manager
    }

    /// The same settings, read-only: a copy whose [`update`](Self::update) saves nothing (what a
    /// child run reads; it must never write the user's files).
    pub fn snapshot(&self) -> Self {
        SettingsManager {
            global_path: PathBuf::new(),
            project_path: None,
            global: self.global.clone(),
            project: self.project.clone(),
            effective: self.effective.clone(),
            modified: Vec::new(),
            global_unreadable: self.global_unreadable,
            errors: Vec::new(),
        }
    }

    fn remerge(&mut self) {
        let mut effective = self.global.settings.clone();
        effective.merge(&self.project.settings);
        self.effective = effective;
    }

    /// The effective settings (global merged with the project's).
    pub fn effective(&self) -> &Settings {
        &self.effective
    }

    /// The global file's settings.
    pub fn global(&self) -> &Settings {
        &self.global.settings
    }

    /// The project file's settings (empty when the project is not trusted).
    pub fn project(&self) -> &Settings {
        &self.project.settings
    }

    /// Drops `keys` from the project file's settings (the global values apply again) and
    /// returns those the project had set.
    pub fn drop_project_keys(&mut self, keys: &[&str]) -> Vec<String> {
        let mut object = self.project.to_json();
        let dropped: Vec<String> = keys
            .iter()
            .filter(|key| object.shift_remove(**key).is_some())
            .map(|key| (*key).to_owned())
            .collect();
        if !dropped.is_empty() {
            let mut ignored = Vec::new();
            self.project = Layer::read(object, Path::new(""), &mut ignored);
            self.remerge();
        }
        dropped
    }

    /// Files that could not be read, and values of the wrong type.
    pub fn errors(&self) -> &[SettingsError] {
        &self.errors
    }

    pub fn global_path(&self) -> &Path {
        &self.global_path
    }

    /// The project file, when the project is trusted.
    pub fn project_path(&self) -> Option<&Path> {
        self.project_path.as_deref()
    }

    /// Changes the global settings and saves the keys that changed (atomically, under the
    /// file's lock). The change applies in memory even when the save fails; settings made with
    /// [`from_values`](Self::from_values) have no file and are not saved.
    pub fn update(&mut self, change: impl FnOnce(&mut Settings)) -> Result<(), SettingsError> {
        let before = self.global.to_json();
        change(&mut self.global.settings);
        let after = self.global.to_json();
        for key in before.keys().chain(after.keys()) {
            if before.get(key) != after.get(key) && !self.modified.contains(key) {
                self.modified.push(key.clone());
            }
        }
        self.remerge();
        if self.global_path.as_os_str().is_empty() || self.modified.is_empty() {
            return Ok(());
        }
        self.save()
    }

    /// Writes the modified keys to the global file. The file is read again under the lock, so
    /// keys another pi changed meanwhile (and keys this version does not know) are kept.
    fn save(&mut self) -> Result<(), SettingsError> {
        let refuse = || SettingsError::RefuseOverwrite {
            path: self.global_path.clone(),
        };
        if self.global_unreadable {
            return Err(refuse());
        }
        let _lock = pi_ai::file_lock::FileLock::acquire(&self.global_path).map_err(|source| {
            SettingsError::Io {
                path: pi_ai::file_lock::lock_path(&self.global_path),
                source,
            }
        })?;
        let mut on_disk = read_settings_file(&self.global_path).map_err(|_| refuse())?;
        let ours = self.global.to_json();
        for key in &self.modified {
            match ours.get(key) {
                Some(value) => {
                    on_disk.insert(key.clone(), value.clone());
                }
                None => {
                    on_disk.shift_remove(key);
                }
            }
        }
        let mut text = serde_json::to_string_pretty(&on_disk).unwrap_or_else(|_| "{}".into());
        text.push('\n');
        write_atomic(&self.global_path, text.as_bytes()).map_err(|source| SettingsError::Io {
            path: self.global_path.clone(),
            source,
        })?;
        let mut ignored = Vec::new();
        self.global = Layer::read(on_disk, &self.global_path, &mut ignored);
        self.modified.clear();
        self.remerge();
        Ok(())
    }

    /// The paths a resource list names (`extensions`, `skills`, `prompts`, `themes`), as pi
    /// resolves them: `~` expanded, a relative path against the folder of the file the list
    /// comes from (`<agentDir>` for the global file, `<cwd>/.pi` for the project's; a project
    /// list replaces the global one whole, so each list has one origin).
    pub fn resource_paths(&self, key: &str) -> Vec<PathBuf> {
        let from_project = self.project.settings.resource_list(key).is_some();
        let file = match (&self.project_path, from_project) {
            (Some(project), true) => project.as_path(),
            _ => self.global_path.as_path(),
        };
        let base = file.parent().unwrap_or(Path::new(""));
        self.effective
            .resource_list(key)
            .into_iter()
            .flatten()
            .map(|entry| base.join(crate::paths::expand_tilde(entry)))
            .collect()
    }

    /// `httpProxy` from the **global** file only, as in pi (a project cannot send the
    /// requests, and the keys in them, through a proxy of its choosing). Blank = unset.
    pub fn http_proxy(&self) -> Option<String> {
        self.global
            .settings
            .http_proxy
            .as_deref()
            .map(str::trim)
            .filter(|p| !p.is_empty())
            .map(str::to_owned)
    }

    /// What `httpProxy` means for the commands pi starts: pi sets `HTTP_PROXY` and
    /// `HTTPS_PROXY` for its whole process, so its shell commands inherit them.
    pub fn http_proxy_env(&self) -> Vec<(String, String)> {
        self.http_proxy()
            .map(|proxy| {
                ["HTTP_PROXY", "HTTPS_PROXY"]
                    .map(|name| (name.to_owned(), proxy.clone()))
                    .to_vec()
            })
            .unwrap_or_default()
    }

    /// `defaultProjectTrust` from the **global** file only (a project cannot trust itself).
    pub fn default_project_trust(&self) -> DefaultProjectTrust {
        self.global
            .settings
            .default_project_trust
            .unwrap_or(DefaultProjectTrust::Ask)
    }
}
