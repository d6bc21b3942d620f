//! Reading skill files: directory scan, front matter, validation.

use std::path::{Path, PathBuf};

use super::{
    IgnoreRules, MAX_COMPATIBILITY_LENGTH, MAX_DESCRIPTION_LENGTH, MAX_NAME_LENGTH, Skill,
    SkillDiagnostic, SkillSource,
};
use crate::frontmatter::{self, Frontmatter, FrontmatterValue};

/// The file that makes a directory a skill.
pub const SKILL_FILE: &str = "SKILL.md";

/// Skills and warnings found under one directory.
#[derive(Debug, Default)]
pub struct ScanResult {
    pub skills: Vec<Skill>,
    pub diagnostics: Vec<SkillDiagnostic>,
}

/// Scans `dir` for skills.
///
/// A directory holding `SKILL.md` is a skill: that file is loaded and nothing below it. Otherwise
/// the scan recurses into subdirectories, skipping hidden entries, `node_modules` and paths
/// excluded by ignore files; when `root_md_files` is set, the `.md` files directly in `dir` are
/// skills too. Entries are visited in name order so the result does not depend on the
/// filesystem. A missing directory yields nothing.
pub fn scan(dir: &Path, source: SkillSource, root_md_files: bool) -> ScanResult {
    let mut out = ScanResult::default();
    scan_into(
        dir,
        source,
        root_md_files,
        &IgnoreRules::default(),
        &mut out,
    );
    out
}

fn scan_into(
    dir: &Path,
    source: SkillSource,
    root_md_files: bool,
    parent_rules: &IgnoreRules,
    out: &mut ScanResult,
) {
    let skill_file = dir.join(SKILL_FILE);
    if skill_file.is_file() {
        push_loaded(load_skill_file(&skill_file, source), out);
        return;
    }
    let rules = parent_rules.with_dir(dir);
    for (path, is_dir) in sorted_entries(dir) {
        if rules.is_ignored(&path, is_dir) {
            continue;
        }
        if is_dir {
            scan_into(&path, source, false, &rules, out);
        } else if root_md_files && path.extension().is_some_and(|e| e == "md") {
            push_loaded(load_skill_file(&path, source), out);
        }
    }
}

fn push_loaded(loaded: (Option<Skill>, Vec<SkillDiagnostic>), out: &mut ScanResult) {
    out.diagnostics.extend(loaded.1);
    out.skills.extend(loaded.0);
}

/// Visible entries of `dir` with whether each is a directory (symlinks followed, broken ones
/// dropped), sorted by name.
fn sorted_entries(dir: &Path) -> Vec<(PathBuf, bool)> {
    let Ok(read) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut entries: Vec<(PathBuf, bool)> = read
        .filter_map(Result::ok)
        .filter(|e| {
            let name = e.file_name();
            let name = name.to_string_lossy();
            !name.starts_with('.') && name != "node_modules"
        })
        .filter_map(|e| {
            let path = e.path();
            let meta = std::fs::metadata(&path).ok()?;
            Some((path, meta.is_dir()))
        })
        .collect();
    entries.sort();
    entries
}

/// Loads one skill file. Returns the skill (unless it must be skipped) and its warnings.
///
/// Skipped: unreadable file, invalid front matter, missing or blank description. Name problems
/// only warn. The name defaults to the parent directory's name for `SKILL.md` and to the file
/// stem for other Markdown files.
pub fn load_skill_file(path: &Path, source: SkillSource) -> (Option<Skill>, Vec<SkillDiagnostic>) {
    let warn = |message: String| SkillDiagnostic::warning(path, message);
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(err) => return (None, vec![warn(format!("cannot read skill file: {err}"))]),
    };
    let document = match frontmatter::parse_document(&text) {
        Ok(doc) => doc,
        Err(err) => return (None, vec![warn(format!("invalid front matter: {err}"))]),
    };
    let fm = &document.frontmatter;
    let base_dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
    let is_skill_file = path.file_name().is_some_and(|n| n == SKILL_FILE);
    let dir_name = base_dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let default_name = if is_skill_file {
        dir_name.clone()
    } else {
        path.file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default()
    };
    let name = fm
        .get_str("name")
        .map(str::trim)
        .filter(|n| !n.is_empty())
        .map(str::to_string);
    let name = name.unwrap_or(default_name);

    let mut messages = description_problems(fm);
    if is_skill_file && name != dir_name {
        messages.push(format!(
            "name \"{name}\" does not match parent directory \"{dir_name}\""
        ));
    }
    messages.extend(name_problems(&name));
    messages.extend(compatibility_problems(fm));
    let diagnostics: Vec<SkillDiagnostic> = messages.into_iter().map(warn).collect();

    let Some(description) = fm.get_str("description").filter(|d| !d.trim().is_empty()) else {
        return (None, diagnostics);
    };
    let skill = Skill {
        name,
        description: description.to_string(),
        file_path: path.to_path_buf(),
        base_dir,
        source,
        disable_model_invocation: fm.is_true("disable-model-invocation"),
    };
    (Some(skill), diagnostics)
}

fn description_problems(fm: &Frontmatter) -> Vec<String> {
    match fm.get("description") {
        Some(FrontmatterValue::String(d)) if !d.trim().is_empty() => {
            let len = d.chars().count();
            if len > MAX_DESCRIPTION_LENGTH {
                vec![format!(
                    "description exceeds {MAX_DESCRIPTION_LENGTH} characters ({len})"
                )]
            } else {
                Vec::new()
            }
        }
        _ => vec!["description is required".to_string()],
    }
}

/// Name rules of the Agent Skills standard: at most 64 characters of `a-z`, `0-9` and single
/// inner hyphens.
pub fn name_problems(name: &str) -> Vec<String> {
    let mut problems = Vec::new();
    let len = name.chars().count();
    if len > MAX_NAME_LENGTH {
        problems.push(format!("name exceeds {MAX_NAME_LENGTH} characters ({len})"));
    }
    if !name
        .chars()
        .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
    {
        problems.push(
            "name contains invalid characters (must be lowercase a-z, 0-9, hyphens only)"
                .to_string(),
        );
    }
    if name.starts_with('-') || name.ends_with('-') {
        problems.push("name must not start or end with a hyphen".to_string());
    }
    if name.contains("--") {
        problems.push("name must not contain consecutive hyphens".to_string());
    }
    problems
}

fn compatibility_problems(fm: &Frontmatter) -> Vec<String> {
    match fm.get_str("compatibility") {
        Some(c) if c.chars().count() > MAX_COMPATIBILITY_LENGTH => {
            let len = c.chars().count();
            vec![format!(
                "compatibility exceeds {MAX_COMPATIBILITY_LENGTH} characters ({len})"
            )]
        }
        _ => Vec::new(),
    }
}
