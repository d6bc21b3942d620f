//! Settings: global `<agentDir>/settings.json` deep-merged with project `<cwd>/.pi/settings.json`
//! (trusted projects only; the project wins, objects merge, everything else replaces).
//!
//! Files are kept as JSON so keys this version does not know survive a save. A file that does
//! not parse is reported (file, line, column) and never overwritten.

use crate::paths::write_atomic;
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
}

/// `compaction.*`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CompactionSettings {
    /// Default true.
    pub enabled: bool,
    /// Default 16384.
    pub reserve_tokens: u64,
    /// Default 20000.
    pub keep_recent_tokens: u64,
}

/// `retry.provider.*` (HTTP-level retry).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProviderRetrySettings {
    /// `None`: the SDK default.
    pub timeout_ms: Option<u64>,
    /// Default 0.
    pub max_retries: u64,
    /// Cap on a server-requested delay; default 60000, 0 disables.
    pub max_retry_delay_ms: u64,
}

/// `retry.*` (agent-level retry).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RetrySettings {
    /// Default true.
    pub enabled: bool,
    /// Default 3.
    pub max_retries: u64,
    /// Default 2000; delay = base · 2^(attempt−1).
    pub base_delay_ms: u64,
    pub provider: ProviderRetrySettings,
}

/// `branchSummary.*`. pi's `skipPrompt` is not read: this pi never asks "Summarize branch?",
/// the tree's Enter and Alt+Enter choose per navigation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BranchSummarySettings {
    /// Default 16384.
    pub reserve_tokens: u64,
}

/// `defaultProjectTrust` (global only).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DefaultProjectTrust {
    Ask,
    Always,
    Never,
}

/// Deep merge: objects merge key by key (recursively), any other value in `over` replaces.
pub fn deep_merge(base: &mut Value, over: &Value) {
    match (base, over) {
        (Value::Object(base), Value::Object(over)) => {
            for (key, value) in over {
                match base.get_mut(key) {
                    Some(existing) if existing.is_object() && value.is_object() => {
                        deep_merge(existing, value)
                    }
                    _ => {
                        base.insert(key.clone(), value.clone());
                    }
                }
            }
        }
        (base, over) => *base = over.clone(),
    }
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

/// The effective settings and the files they came from.
#[derive(Debug)]
pub struct SettingsManager {
    global_path: PathBuf,
    project_path: Option<PathBuf>,
    global: Map<String, Value>,
    project: Map<String, Value>,
    merged: Value,
    /// Top-level keys changed through `set`, written on `save`.
    modified: Vec<String>,
    global_unreadable: bool,
    errors: Vec<SettingsError>,
}

impl SettingsManager {
    /// Loads the global file and, when `project_trusted`, the project file. Parse errors are
    /// collected in [`errors`](Self::errors) (pi shows them as warnings) and that file counts as
    /// empty.
    pub fn load(agent_dir: &Path, cwd: &Path, project_trusted: bool) -> Self {
        let global_path = agent_dir.join("settings.json");
        let project_path = cwd.join(".pi").join("settings.json");
        let mut errors = Vec::new();
        let mut global_unreadable = false;
        let mut global = read_settings_file(&global_path).unwrap_or_else(|e| {
            global_unreadable = true;
            errors.push(e);
            Map::new()
        });
        let mut project = if project_trusted {
            read_project_settings(&project_path, cwd).unwrap_or_else(|e| {
                errors.push(e);
                Map::new()
            })
        } else {
            Map::new()
        };
        migrate_settings(&mut global);
        migrate_settings(&mut project);
        let mut manager = SettingsManager {
            global_path,
            project_path: project_trusted.then_some(project_path),
            global,
            project,
            merged: Value::Null,
            modified: Vec::new(),
            global_unreadable,
            errors,
        };
        manager.remerge();
        manager
    }

    /// Settings from values (tests, `--no-settings` style callers). Nothing is saved.
    pub fn from_values(global: Value, project: Value) -> Self {
        let as_map = |v: Value| {
            let mut map = match v {
                Value::Object(m) => m,
                _ => Map::new(),
            };
            migrate_settings(&mut map);
            map
        };
        let mut manager = SettingsManager {
            global_path: PathBuf::new(),
            project_path: None,
            global: as_map(global),
            project: as_map(project),
            merged: Value::Null,
            modified: Vec::new(),
            global_unreadable: false,
            errors: Vec::new(),
        };
        manager.remerge();
        manager
    }

    fn remerge(&mut self) {
        let mut merged = Value::Object(self.global.clone());
        deep_merge(&mut merged, &Value::Object(self.project.clone()));
        self.merged = merged;
    }

    /// Drops `keys` from the project file's settings (the global values apply again) and
    /// returns those the project had set.
    pub fn drop_project_keys(&mut self, keys: &[&str]) -> Vec<String> {
        let dropped: Vec<String> = keys
            .iter()
            .filter(|key| self.project.remove(**key).is_some())
            .map(|key| (*key).to_owned())
            .collect();
        if !dropped.is_empty() {
            self.remerge();
        }
        dropped
    }

    /// Files that could not be read.
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

    /// The merged settings as JSON.
    pub fn merged(&self) -> &Value {
        &self.merged
    }

    /// A merged value by dotted path (`"retry.provider.maxRetries"`).
    pub fn get(&self, path: &str) -> Option<&Value> {
        path.split('.')
            .try_fold(&self.merged, |value, key| value.get(key))
    }

    fn get_bool(&self, path: &str, default: bool) -> bool {
        self.get(path).and_then(Value::as_bool).unwrap_or(default)
    }

    fn get_u64(&self, path: &str, default: u64) -> u64 {
        self.get(path).and_then(as_u64).unwrap_or(default)
    }

    fn get_str(&self, path: &str) -> Option<String> {
        self.get(path).and_then(Value::as_str).map(str::to_owned)
    }

    fn get_strings(&self, path: &str) -> Vec<String> {
        self.get(path)
            .and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .filter_map(Value::as_str)
                    .map(str::to_owned)
                    .collect()
            })
            .unwrap_or_default()
    }

    /// Sets a global setting by dotted path (in memory; call [`save`](Self::save)).
    pub fn set(&mut self, path: &str, value: Value) {
        let keys: Vec<&str> = path.split('.').collect();
        set_path(&mut self.global, &keys, value);
        if let Some(top) = keys.first()
            && !self.modified.iter().any(|m| m == top)
        {
            self.modified.push((*top).to_owned());
        }
        self.remerge();
    }

    /// Writes the modified keys to the global file, atomically and under the file's lock. The
    /// file is read again under the lock, so keys another pi changed meanwhile (and keys this
    /// version does not know) are kept.
    pub fn save(&mut self) -> Result<(), SettingsError> {
        if self.global_unreadable {
            return Err(SettingsError::RefuseOverwrite {
                path: self.global_path.clone(),
            });
        }
        let _lock = pi_ai::file_lock::FileLock::acquire(&self.global_path).map_err(|source| {
            SettingsError::Io {
                path: pi_ai::file_lock::lock_path(&self.global_path),
                source,
            }
        })?;
        let mut on_disk = match read_settings_file(&self.global_path) {
            Ok(map) => map,
            Err(_) => {
                return Err(SettingsError::RefuseOverwrite {
                    path: self.global_path.clone(),
                });
            }
        };
        for key in &self.modified {
            match self.global.get(key) {
                Some(value) => {
                    on_disk.insert(key.clone(), value.clone());
                }
                None => {
                    on_disk.shift_remove(key);
                }
            }
        }
        let mut text = serde_json::to_string_pretty(&Value::Object(on_disk.clone()))
            .unwrap_or_else(|_| "{}".into());
        text.push('\n');
        write_atomic(&self.global_path, text.as_bytes()).map_err(|source| SettingsError::Io {
            path: self.global_path.clone(),
            source,
        })?;
        self.global = on_disk;
        self.modified.clear();
        self.remerge();
        Ok(())
    }

    pub fn compaction(&self) -> CompactionSettings {
        CompactionSettings {
            enabled: self.get_bool("compaction.enabled", true),
            reserve_tokens: self.get_u64("compaction.reserveTokens", 16384),
            keep_recent_tokens: self.get_u64("compaction.keepRecentTokens", 20000),
        }
    }

    pub fn branch_summary(&self) -> BranchSummarySettings {
        BranchSummarySettings {
            reserve_tokens: self.get_u64("branchSummary.reserveTokens", 16384),
        }
    }

    pub fn retry(&self) -> RetrySettings {
        RetrySettings {
            enabled: self.get_bool("retry.enabled", true),
            max_retries: self.get_u64("retry.maxRetries", 3),
            base_delay_ms: self.get_u64("retry.baseDelayMs", 2000),
            provider: ProviderRetrySettings {
                timeout_ms: self.get("retry.provider.timeoutMs").and_then(as_u64),
                max_retries: self.get_u64("retry.provider.maxRetries", 0),
                max_retry_delay_ms: self.get_u64("retry.provider.maxRetryDelayMs", 60000),
            },
        }
    }

    pub fn default_provider(&self) -> Option<String> {
        self.get_str("defaultProvider")
    }

    pub fn default_model(&self) -> Option<String> {
        self.get_str("defaultModel")
    }

    /// `defaultThinkingLevel` if it names a known level.
    pub fn default_thinking_level(&self) -> Option<pi_ai::ThinkingLevel> {
        self.get_str("defaultThinkingLevel")
            .and_then(|l| pi_ai::ThinkingLevel::parse(&l))
    }

    /// `sessionDir` (`~` is expanded by the path resolver).
    pub fn session_dir(&self) -> Option<String> {
        self.get_str("sessionDir")
    }

    /// `enabledModels` patterns (same format as `--models`).
    pub fn enabled_models(&self) -> Vec<String> {
        self.get_strings("enabledModels")
    }

    /// `steeringMode`: `all` or `one-at-a-time` (default).
    pub fn steering_mode(&self) -> String {
        self.get_str("steeringMode")
            .unwrap_or_else(|| "one-at-a-time".into())
    }

    /// `followUpMode`: `all` or `one-at-a-time` (default).
    pub fn follow_up_mode(&self) -> String {
        self.get_str("followUpMode")
            .unwrap_or_else(|| "one-at-a-time".into())
    }

    /// `httpIdleTimeoutMs`: default 300000; 0 or `"disabled"` disables (→ `None`).
    pub fn http_idle_timeout_ms(&self) -> Option<u64> {
        match self.get("httpIdleTimeoutMs") {
            Some(Value::String(s)) if s == "disabled" => None,
            Some(v) => as_u64(v).filter(|ms| *ms > 0),
            None => Some(300_000),
        }
    }

    pub fn hide_thinking_block(&self) -> bool {
        self.get_bool("hideThinkingBlock", false)
    }

    pub fn quiet_startup(&self) -> bool {
        self.get_bool("quietStartup", false)
    }

    /// `tuiMode`: `fullscreen` (the default) or `regular`.
    pub fn tui_mode(&self) -> Option<String> {
        self.get_str("tuiMode")
    }

    /// `doubleEscapeAction`: `tree` (the default), `fork` or `none`.
    pub fn double_escape_action(&self) -> String {
        self.get_str("doubleEscapeAction")
            .unwrap_or_else(|| "tree".into())
    }

    /// `externalEditor`: the command Ctrl+G runs (else `$VISUAL`, `$EDITOR`).
    pub fn external_editor(&self) -> Option<String> {
        self.get_str("externalEditor")
            .filter(|e| !e.trim().is_empty())
    }

    /// `autocompleteMaxVisible`: default 5, clamped to 3–20.
    pub fn autocomplete_max_visible(&self) -> usize {
        let n = self
            .get("autocompleteMaxVisible")
            .and_then(Value::as_u64)
            .unwrap_or(5);
        n.clamp(3, 20) as usize
    }

    /// `theme`: default `dark`.
    pub fn theme(&self) -> String {
        self.get_str("theme").unwrap_or_else(|| "dark".into())
    }

    pub fn shell_path(&self) -> Option<String> {
        self.get_str("shellPath")
    }

    pub fn shell_command_prefix(&self) -> Option<String> {
        self.get_str("shellCommandPrefix")
    }

    /// `images.autoResize`: default true.
    pub fn images_auto_resize(&self) -> bool {
        self.get_bool("images.autoResize", true)
    }

    /// `images.blockImages`: default false.
    pub fn images_block(&self) -> bool {
        self.get_bool("images.blockImages", false)
    }

    /// `terminal.showImages`: default true.
    pub fn terminal_show_images(&self) -> bool {
        self.get_bool("terminal.showImages", true)
    }

    /// `probeLocalServers`: with no credentials, look for local OpenAI-compatible servers on
    /// loopback at start. Default true.
    pub fn probe_local_servers(&self) -> bool {
        self.get_bool("probeLocalServers", true)
    }

    /// `enableSkillCommands`: default true.
    pub fn enable_skill_commands(&self) -> bool {
        self.get_bool("enableSkillCommands", true)
    }

    /// `tools.pathScope`: where the file tools may go (`workspace`, `default`, `anywhere`);
    /// `None` when unset. Checked by start-up.
    pub fn tools_path_scope(&self) -> Option<String> {
        self.get_str("tools.pathScope")
    }

    /// `tools.writableRoots`: directories `write` and `edit` may change besides the workspace.
    pub fn tools_writable_roots(&self) -> Vec<String> {
        self.get_strings("tools.writableRoots")
    }

    /// `tools.sandbox`: the shell sandbox of `bash` (`off`, `read-only`, `workspace-write`);
    /// `None` when unset (off). Checked by start-up.
    pub fn tools_sandbox(&self) -> Option<String> {
        self.get_str("tools.sandbox")
    }

    /// `tools.sandboxNetwork`: whether sandboxed commands may open TCP connections; default
    /// true.
    pub fn tools_sandbox_network(&self) -> bool {
        self.get_bool("tools.sandboxNetwork", true)
    }

    /// The paths a resource list names (`extensions`, `skills`, `prompts`, `themes`), as pi
    /// resolves them: `~` expanded, a relative path against the folder of the file the list
    /// comes from (`<agentDir>` for the global file, `<cwd>/.pi` for the project's; a project
    /// list replaces the global one whole, so each list has one origin).
    pub fn resource_paths(&self, key: &str) -> Vec<PathBuf> {
        let from_project = self.project.contains_key(key);
        let file = match (&self.project_path, from_project) {
            (Some(project), true) => project.as_path(),
            _ => self.global_path.as_path(),
        };
        let base = file.parent().unwrap_or(Path::new(""));
        self.get_strings(key)
            .iter()
            .map(|entry| base.join(crate::paths::expand_tilde(entry)))
            .collect()
    }

    /// `httpProxy` from the **global** file only, as in pi (a project cannot send the
    /// requests, and the keys in them, through a proxy of its choosing). Blank = unset.
    pub fn http_proxy(&self) -> Option<String> {
        self.global
            .get("httpProxy")
            .and_then(Value::as_str)
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
        match self
            .global
            .get("defaultProjectTrust")
            .and_then(Value::as_str)
        {
            Some("always") => DefaultProjectTrust::Always,
            Some("never") => DefaultProjectTrust::Never,
            _ => DefaultProjectTrust::Ask,
        }
    }
}

fn as_u64(value: &Value) -> Option<u64> {
    value
        .as_u64()
        .or_else(|| value.as_f64().filter(|f| *f >= 0.0).map(|f| f as u64))
}

fn set_path(map: &mut Map<String, Value>, keys: &[&str], value: Value) {
    match keys {
        [] => {}
        [last] => {
            map.insert((*last).to_owned(), value);
        }
        [first, rest @ ..] => {
            let slot = map
                .entry((*first).to_owned())
                .or_insert_with(|| Value::Object(Map::new()));
            if !slot.is_object() {
                *slot = Value::Object(Map::new());
            }
            if let Value::Object(inner) = slot {
                set_path(inner, rest, value);
            }
        }
    }
}
