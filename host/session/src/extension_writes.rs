//! Files an extension wrote that the next session puts into its system prompt: rule files
//! (`AGENTS.md`, `CLAUDE.md`, …), `SYSTEM.md` / `APPEND_SYSTEM.md`, skills and prompt templates.
//!
//! A write-granted extension may write such a file as part of its work, and the next run would
//! then follow instructions that no person wrote or saw. pi still loads the file (the user may
//! have asked for it), but the first session that does says so, naming the file and the package.
//! The record (`<agentDir>/extension-writes.json`, out of every extension's reach) keeps each
//! such path with the package that last wrote it until that notice was given once.

use pi_ai::file_lock::FileLock;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The record's file name in the agent directory.
pub const RECORD_FILE: &str = "extension-writes.json";

/// Rule and system-prompt file names (besides [`crate::context_files::CONTEXT_FILE_NAMES`]).
const PROMPT_FILE_NAMES: [&str; 3] = ["SYSTEM.md", "APPEND_SYSTEM.md", "SKILL.md"];

/// Whether a file at `path` can reach a system prompt or a prompt template: a rule file by its
/// name, or a Markdown file in a `skills` or `prompts` folder.
pub fn feeds_prompt(path: &Path) -> bool {
    let Some(name) = path.file_name().and_then(|n| n.to_str()) else {
        return false;
    };
    if crate::context_files::CONTEXT_FILE_NAMES.contains(&name) || PROMPT_FILE_NAMES.contains(&name)
    {
        return true;
    }
    name.ends_with(".md")
        && path.ancestors().skip(1).any(|dir| {
            dir.file_name()
                .is_some_and(|n| n == "skills" || n == "prompts")
        })
}

type Record = BTreeMap<PathBuf, String>;

fn read(path: &Path) -> Record {
    std::fs::read_to_string(path)
        .ok()
        .and_then(|text| serde_json::from_str(&text).ok())
        .unwrap_or_default()
}

fn write(path: &Path, record: &Record) -> std::io::Result<()> {
    let mut text = serde_json::to_string_pretty(record).map_err(std::io::Error::other)?;
    text.push('\n');
    crate::paths::write_atomic(path, text.as_bytes())
}

/// Remembers that `package` (`name@version`) wrote `file`.
pub fn record(agent_dir: &Path, file: &Path, package: &str) -> std::io::Result<()> {
    let path = agent_dir.join(RECORD_FILE);
    let _guard = FileLock::acquire(&path)?;
    let mut record = read(&path);
    record.insert(file.to_path_buf(), package.to_owned());
    write(&path, &record)
}

/// The notices for the files of `loaded` (what this session's prompt and templates were built
/// from) that an extension wrote: one warning line each, naming the file and the package. Each
/// is given once: it leaves the record.
pub fn notices(agent_dir: &Path, loaded: &[PathBuf]) -> Vec<String> {
    let path = agent_dir.join(RECORD_FILE);
    if !path.exists() {
        return Vec::new();
    }
    let Ok(_guard) = FileLock::acquire(&path) else {
        return Vec::new();
    };
    let mut record = read(&path);
    let canonical = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
    let loaded: Vec<PathBuf> = loaded.iter().map(|p| canonical(p)).collect();
    let mut out = Vec::new();
    record.retain(|file, package| {
        if !loaded.contains(&canonical(file)) {
            return true;
        }
        out.push(format!(
            "Warning: {} was written by extension {package} in an earlier session and is part \
             of this session's prompt; check it if you did not ask for it.",
            file.display()
        ));
        false
    });
    if !out.is_empty()
        && let Err(error) = write(&path, &record)
    {
        tracing::warn!("cannot update {}: {error}", path.display());
    }
    out
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn rule_files_skills_and_templates_feed_the_prompt_other_files_do_not() {
        for path in [
            "/p/AGENTS.md",
            "/p/CLAUDE.md",
            "/p/.pi/SYSTEM.md",
            "/p/.pi/APPEND_SYSTEM.md",
            "/p/.pi/skills/x/SKILL.md",
            "/p/.pi/skills/notes.md",
            "/p/.pi/prompts/review.md",
        ] {
            assert!(feeds_prompt(Path::new(path)), "{path}");
        }
        for path in [
            "/p/README.md",
            "/p/src/main.rs",
            "/p/skills.md",
            "/p/skills/x.txt",
        ] {
            assert!(!feeds_prompt(Path::new(path)), "{path}");
        }
    }

    #[test]
    fn a_written_file_is_named_once_when_a_session_loads_it() {
        let tmp = tempfile::tempdir().unwrap();
        let agent = tmp.path().join("agent");
        let rules = tmp.path().join("AGENTS.md");
        let other = tmp.path().join("other/AGENTS.md");
        std::fs::write(&rules, "do things").unwrap();
        record(&agent, &rules, "writer@1.0.0").unwrap();
        record(&agent, &other, "writer@1.0.0").unwrap();
        assert!(notices(&agent, &[]).is_empty());
        let shown = notices(&agent, std::slice::from_ref(&rules));
        assert_eq!(shown.len(), 1);
        assert!(shown[0].contains("AGENTS.md") && shown[0].contains("writer@1.0.0"));
        assert!(notices(&agent, std::slice::from_ref(&rules)).is_empty());
        // The file no session loaded yet stays recorded.
        assert_eq!(read(&agent.join(RECORD_FILE)).len(), 1);
    }
}
