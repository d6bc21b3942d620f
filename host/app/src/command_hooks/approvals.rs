//! Which commands of a project's hooks the user approved: the exact command texts, per
//! project, in `<agentDir>/trust-hooks.json` next to the project's trust records
//! (`trust.json`, `trust-code.json`). An approval covers one command text; a command that
//! changes is a new command, and the approvals of commands the project no longer has are
//! dropped.

use pi_ai::file_lock::FileLock;
use serde_json::{Map, Value};
use std::collections::BTreeSet;
use std::path::Path;

/// The file the approvals are kept in.
pub const APPROVALS_FILE: &str = "trust-hooks.json";

fn read_all(path: &Path) -> Map<String, Value> {
    std::fs::read_to_string(path)
        .ok()
        .and_then(|text| serde_json::from_str::<Map<String, Value>>(&text).ok())
        .unwrap_or_default()
}

/// The approved commands of the project in `cwd`.
pub fn approved(agent_dir: &Path, cwd: &Path) -> BTreeSet<String> {
    read_all(&agent_dir.join(APPROVALS_FILE))
        .get(&crate::project_code::key(cwd))
        .and_then(Value::as_array)
        .map(|commands| {
            commands
                .iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default()
}

/// Records `approve` as approved for the project in `cwd`, keeping the earlier approvals of
/// the commands it still has (`current`) and dropping the rest.
pub fn record(
    agent_dir: &Path,
    cwd: &Path,
    approve: &[String],
    current: &[String],
) -> Result<(), String> {
    let path = agent_dir.join(APPROVALS_FILE);
    let _guard = FileLock::acquire(&path).map_err(|e| e.to_string())?;
    let mut all = read_all(&path);
    let key = crate::project_code::key(cwd);
    let before: BTreeSet<String> = all
        .get(&key)
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .map(str::to_owned)
        .collect();
    let kept = before.into_iter().filter(|c| current.contains(c));
    let commands: BTreeSet<String> = kept.chain(approve.iter().cloned()).collect();
    if commands.is_empty() {
        all.shift_remove(&key);
    } else {
        all.insert(key, commands.into_iter().map(Value::String).collect());
    }
    let mut text = serde_json::to_string_pretty(&Value::Object(all)).map_err(|e| e.to_string())?;
    text.push('\n');
    pi_session::paths::write_atomic(&path, text.as_bytes())
        .map_err(|e| format!("{}: {e}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_approval_covers_the_exact_command_and_is_dropped_when_it_changes() {
        let tmp = tempfile::tempdir().unwrap();
        let (agent, cwd) = (tmp.path().join("agent"), tmp.path().join("proj"));
        std::fs::create_dir_all(&agent).unwrap();
        std::fs::create_dir_all(&cwd).unwrap();
        assert!(approved(&agent, &cwd).is_empty());
        let (a, b) = ("./a.sh".to_owned(), "./b.sh".to_owned());
        record(
            &agent,
            &cwd,
            std::slice::from_ref(&a),
            &[a.clone(), b.clone()],
        )
        .unwrap();
        assert_eq!(approved(&agent, &cwd), BTreeSet::from([a.clone()]));
        record(
            &agent,
            &cwd,
            std::slice::from_ref(&b),
            &[a.clone(), b.clone()],
        )
        .unwrap();
        assert_eq!(
            approved(&agent, &cwd),
            BTreeSet::from([a.clone(), b.clone()])
        );
        // `a.sh` became `a2.sh`: its approval goes.
        let a2 = "./a2.sh".to_owned();
        record(&agent, &cwd, &[], &[a2.clone(), b.clone()]).unwrap();
        assert_eq!(approved(&agent, &cwd), BTreeSet::from([b.clone()]));
        // Another project has none.
        assert!(approved(&agent, tmp.path()).is_empty());
    }
}
