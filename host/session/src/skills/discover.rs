//! Skill discovery across all sources, in loading order, with de-duplication and collisions.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use super::load::{ScanResult, load_skill_file, scan};
use super::{DiagnosticKind, Skill, SkillDiagnostic, SkillRegistry, SkillSource};

/// Where to look for skills. Paths are plain inputs: the caller decides trust and settings.
#[derive(Debug, Clone, Copy)]
pub struct SkillSearch<'a> {
    /// The agent directory (`~/.pi/agent`); its `skills/` folder is searched.
    pub agent_dir: &'a Path,
    /// The user's home, for `~/.agents/skills` and `~` in paths. `None` skips both.
    pub home_dir: Option<&'a Path>,
    /// The working directory; relative paths resolve against it.
    pub cwd: &'a Path,
    /// Whether the project is trusted; untrusted projects contribute no skills.
    pub project_trusted: bool,
    /// `--no-skills`: only `cli_paths` are loaded.
    pub no_skills: bool,
    /// Paths from the settings `skills` array, already resolved against their settings file.
    pub settings_paths: &'a [PathBuf],
    /// Skill directories (or single skills: a folder with `SKILL.md`, a `.md` file)
    /// contributed by packages and extensions.
    pub package_dirs: &'a [PathBuf],
    /// `--skill` values, as typed (`~` and relative paths allowed).
    pub cli_paths: &'a [String],
}

/// Loads every skill source in order: user directories, project directories (trusted only),
/// settings paths, package directories, then command-line paths. The first file to claim a name
/// wins; the same file reached twice (symlink, `..`) is registered once without a diagnostic.
pub fn discover(search: &SkillSearch<'_>) -> SkillRegistry {
    let mut registry = Registrar::default();
    if !search.no_skills {
        registry.add(scan(
            &search.agent_dir.join("skills"),
            SkillSource::User,
            true,
        ));
        if let Some(home) = search.home_dir {
            registry.add(scan(
                &home.join(".agents").join("skills"),
                SkillSource::User,
                false,
            ));
        }
        if search.project_trusted {
            for (dir, root_md) in project_dirs(search.cwd) {
                registry.add(confined(scan(&dir, SkillSource::Project, root_md), &dir));
            }
        }
        for path in search.settings_paths {
            registry.add(load_path(&resolve(path, search), SkillSource::Settings));
        }
        for path in search.package_dirs {
            registry.add(load_path(path, SkillSource::Package));
        }
    }
    for raw in search.cli_paths {
        registry.add(load_path(
            &resolve(Path::new(raw), search),
            SkillSource::Cli,
        ));
    }
    registry.finish()
}

/// `found` without the skills whose files are links out of the project folder `dir`, with a
/// warning for each.
fn confined(mut found: ScanResult, dir: &Path) -> ScanResult {
    let (out, kept): (Vec<Skill>, Vec<Skill>) = std::mem::take(&mut found.skills)
        .into_iter()
        .partition(|s| crate::paths::leaves_tree(&s.file_path, dir));
    found.skills = kept;
    found.diagnostics.extend(out.iter().map(|s| {
        SkillDiagnostic::warning(
            &s.file_path,
            "skill not loaded: it is a link out of the project",
        )
    }));
    found
}

/// `.pi/skills` of the working directory (root `.md` files allowed), then `.agents/skills` of
/// the working directory and each ancestor up to the git repository root (or the filesystem
/// root outside a repository).
fn project_dirs(cwd: &Path) -> Vec<(PathBuf, bool)> {
    let mut dirs = vec![(cwd.join(".pi").join("skills"), true)];
    for dir in cwd.ancestors() {
        dirs.push((dir.join(".agents").join("skills"), false));
        if dir.join(".git").exists() {
            break;
        }
    }
    dirs
}

/// An explicit path: a directory is scanned, a Markdown file is loaded as one skill.
fn load_path(path: &Path, source: SkillSource) -> ScanResult {
    let mut out = ScanResult::default();
    match std::fs::metadata(path) {
        Err(_) => out
            .diagnostics
            .push(SkillDiagnostic::warning(path, "skill path does not exist")),
        Ok(meta) if meta.is_dir() => out = scan(path, source, true),
        Ok(_) if path.extension().is_some_and(|e| e == "md") => {
            let (skill, diagnostics) = load_skill_file(path, source);
            out.skills.extend(skill);
            out.diagnostics = diagnostics;
        }
        Ok(_) => out.diagnostics.push(SkillDiagnostic::warning(
            path,
            "skill path is not a markdown file",
        )),
    }
    out
}

/// Expands `~` and makes a path absolute against the working directory.
fn resolve(path: &Path, search: &SkillSearch<'_>) -> PathBuf {
    let text = path.to_string_lossy();
    let expanded = match (search.home_dir, text.as_ref()) {
        (Some(home), "~") => home.to_path_buf(),
        (Some(home), t) if t.starts_with("~/") => home.join(&t[2..]),
        _ => path.to_path_buf(),
    };
    if expanded.is_absolute() {
        expanded
    } else {
        search.cwd.join(expanded)
    }
}

#[derive(Default)]
struct Registrar {
    skills: Vec<Skill>,
    warnings: Vec<SkillDiagnostic>,
    collisions: Vec<SkillDiagnostic>,
    seen_files: HashSet<PathBuf>,
}

impl Registrar {
    fn add(&mut self, found: ScanResult) {
        self.warnings.extend(found.diagnostics);
        for skill in found.skills {
            self.register(skill);
        }
    }

    fn register(&mut self, skill: Skill) {
        let real =
            std::fs::canonicalize(&skill.file_path).unwrap_or_else(|_| skill.file_path.clone());
        if !self.seen_files.insert(real) {
            tracing::debug!(path = %skill.file_path.display(), "skill file already registered");
            return;
        }
        if let Some(winner) = self.skills.iter().find(|s| s.name == skill.name) {
            self.collisions.push(SkillDiagnostic {
                kind: DiagnosticKind::Collision {
                    name: skill.name.clone(),
                    winner_path: winner.file_path.clone(),
                    loser_path: skill.file_path.clone(),
                },
                message: format!("name \"{}\" collision", skill.name),
                path: skill.file_path,
            });
            return;
        }
        self.skills.push(skill);
    }

    fn finish(mut self) -> SkillRegistry {
        self.warnings.append(&mut self.collisions);
        SkillRegistry {
            skills: self.skills,
            diagnostics: self.warnings,
        }
    }
}
