//! Where a scope keeps its packages: the user scope in the agent dir (`~/.pi/agent`), the
//! project scope (`-l`) in `<cwd>/.pi`. Each has a `settings.json` whose `packages` key lists the
//! sources (pi's shape: a string or an object with `source`), a lock file and a `packages/` dir.

use crate::PackageError;
use pi_ext_host::lockfile::LOCK_FILE;
use pi_session::settings::package_entry_source;
use serde_json::Value;
use std::path::{Component, Path, PathBuf};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ScopeKind {
    User,
    Project,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Scope {
    pub kind: ScopeKind,
    /// The agent dir, or the project's `.pi`.
    pub dir: PathBuf,
}

impl Scope {
    pub fn user(agent_dir: &Path) -> Scope {
        Scope {
            kind: ScopeKind::User,
            dir: agent_dir.to_owned(),
        }
    }

    pub fn project(cwd: &Path) -> Scope {
        Scope {
            kind: ScopeKind::Project,
            dir: cwd.join(".pi"),
        }
    }

    pub fn name(&self) -> &'static str {
        match self.kind {
            ScopeKind::User => "user",
            ScopeKind::Project => "project",
        }
    }

    pub fn settings_file(&self) -> PathBuf {
        self.dir.join("settings.json")
    }

    pub fn lock_file(&self) -> PathBuf {
        self.dir.join(LOCK_FILE)
    }

    pub fn packages_dir(&self) -> PathBuf {
        self.dir.join("packages")
    }

    /// Where fetches happen before they are moved into place (same file system).
    pub fn staging_dir(&self) -> PathBuf {
        self.packages_dir().join(".staging")
    }

    /// A local folder as the settings record it: relative to the settings file's directory,
    /// as pi does, so a project that moves keeps working.
    pub fn record_local(&self, dir: &Path) -> String {
        let base = std::fs::canonicalize(&self.dir).unwrap_or_else(|_| self.dir.clone());
        relative(&base, dir).to_string_lossy().into_owned()
    }

    /// Adds `source` to the `packages` key of the scope's settings (once).
    pub fn add_to_settings(&self, source: &str) -> Result<(), PackageError> {
        self.edit_packages(|packages| {
            if !packages
                .iter()
                .any(|p| package_entry_source(p) == Some(source))
            {
                packages.push(Value::String(source.to_owned()));
            }
        })
    }

    /// The sources the settings list in object form (`{"source": …, "skills": […]…}`): their
    /// resources are filtered at load.
    pub fn filtered_sources(&self) -> Vec<String> {
        let settings =
            pi_session::settings::read_settings_file(&self.settings_file()).unwrap_or_default();
        settings
            .get("packages")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter(|entry| entry.is_object())
            .filter_map(package_entry_source)
            .map(str::to_owned)
            .collect()
    }

    /// Takes `source` out of the `packages` key.
    pub fn remove_from_settings(&self, source: &str) -> Result<(), PackageError> {
        self.edit_packages(|packages| packages.retain(|p| package_entry_source(p) != Some(source)))
    }

    /// Read-modify-writes the `packages` array under the settings file's lock (the one
    /// `SettingsManager::save` takes), keeping every other key as it is.
    fn edit_packages(&self, edit: impl FnOnce(&mut Vec<Value>)) -> Result<(), PackageError> {
        let path = self.settings_file();
        let settings_error = |e: &dyn std::fmt::Display| PackageError::Settings(e.to_string());
        let _guard = pi_ai::file_lock::FileLock::acquire(&path).map_err(|e| settings_error(&e))?;
        let mut map =
            pi_session::settings::read_settings_file(&path).map_err(|e| settings_error(&e))?;
        let mut packages = match map.get("packages") {
            Some(Value::Array(list)) => list.clone(),
            Some(_) => {
                return Err(PackageError::Settings(format!(
                    "{}: `packages` is not a list; fix it first",
                    path.display()
                )));
            }
            None => Vec::new(),
        };
        edit(&mut packages);
        map.insert("packages".into(), Value::Array(packages));
        let mut text =
            serde_json::to_string_pretty(&Value::Object(map)).map_err(|e| settings_error(&e))?;
        text.push('\n');
        pi_session::paths::write_atomic(&path, text.as_bytes()).map_err(|e| PackageError::Io {
            path: path.clone(),
            source: e,
        })
    }
}

/// `to` relative to `from` (both absolute): `../../x/p`.
fn relative(from: &Path, to: &Path) -> PathBuf {
    let from: Vec<Component> = from.components().collect();
    let to_parts: Vec<Component> = to.components().collect();
    let common = from
        .iter()
        .zip(&to_parts)
        .take_while(|(a, b)| a == b)
        .count();
    let mut out = PathBuf::new();
    for _ in common..from.len() {
        out.push("..");
    }
    for part in &to_parts[common..] {
        out.push(part);
    }
    if out.as_os_str().is_empty() {
        out.push(".");
    }
    out
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn local_folders_are_recorded_relative_to_the_settings_dir() {
        let r = |from: &str, to: &str| relative(Path::new(from), Path::new(to));
        assert_eq!(
            r("/home/u/.pi/agent", "/home/u/x/p"),
            Path::new("../../x/p")
        );
        assert_eq!(r("/w/.pi", "/w/.pi/ext"), Path::new("ext"));
        assert_eq!(r("/w", "/w"), Path::new("."));
    }

    #[test]
    fn packages_entries_are_added_once_and_removed_keeping_other_keys() {
        let dir = tempfile::tempdir().unwrap();
        let scope = Scope::user(dir.path());
        std::fs::write(
            scope.settings_file(),
            r#"{"theme": "light", "packages": [{"source": "npm:other", "skills": []}]}"#,
        )
        .unwrap();
        scope.add_to_settings("git:example.com/a/b").unwrap();
        scope.add_to_settings("git:example.com/a/b").unwrap();
        scope.remove_from_settings("npm:other").unwrap();
        let saved: Value =
            serde_json::from_str(&std::fs::read_to_string(scope.settings_file()).unwrap()).unwrap();
        assert_eq!(saved["theme"], "light");
        assert_eq!(
            saved["packages"],
            serde_json::json!(["git:example.com/a/b"])
        );
    }
}
