//! Project rules: the `AGENTS.md`-style files added to the system prompt.

use std::path::{Path, PathBuf};

/// Candidate names in one directory, in order; the first that exists is the only one loaded.
pub const CONTEXT_FILE_NAMES: [&str; 5] = [
    "AGENTS.override.md",
    "AGENTS.md",
    "AGENTS.MD",
    "CLAUDE.md",
    "CLAUDE.MD",
];

/// One loaded rule file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ContextFile {
    pub path: PathBuf,
    /// The raw file content.
    pub content: String,
}

/// The rule file of `dir`, if any: the first existing name of [`CONTEXT_FILE_NAMES`].
pub fn find_in_dir(dir: &Path) -> Option<PathBuf> {
    CONTEXT_FILE_NAMES
        .iter()
        .map(|name| dir.join(name))
        .find(|p| p.is_file())
}

/// Loads the rule files: the global agent directory first, then every directory from the
/// filesystem root down to `cwd`. A file reached twice (the agent directory is an ancestor) is
/// loaded once. Inside a linked git worktree nested in its main repository, a main-repository
/// file that the worktree has its own copy of is skipped. Unreadable files are skipped with a
/// warning.
pub fn load_context_files(agent_dir: &Path, cwd: &Path) -> Vec<ContextFile> {
    let mut dirs: Vec<PathBuf> = vec![agent_dir.to_path_buf()];
    let mut ancestors: Vec<PathBuf> = cwd.ancestors().map(Path::to_path_buf).collect();
    ancestors.reverse();
    let shadowed = WorktreeShadow::detect(cwd);
    dirs.extend(
        ancestors
            .into_iter()
            .filter(|d| !shadowed.as_ref().is_some_and(|s| s.hides(d))),
    );

    let mut seen: Vec<PathBuf> = Vec::new();
    let mut files = Vec::new();
    for dir in dirs {
        let Some(path) = find_in_dir(&dir) else {
            continue;
        };
        // The agent directory is the user's own (often linked to a dotfiles repository);
        // a project's rule file must not be a link out of its directory.
        if dir != agent_dir && crate::paths::leaves_tree(&path, &dir) {
            tracing::warn!(path = %path.display(), "context file not loaded: it is a link out of its directory");
            continue;
        }
        let real = std::fs::canonicalize(&path).unwrap_or_else(|_| path.clone());
        if seen.contains(&real) {
            continue;
        }
        seen.push(real);
        match std::fs::read_to_string(&path) {
            Ok(content) => files.push(ContextFile { path, content }),
            Err(err) => tracing::warn!(path = %path.display(), %err, "cannot read context file"),
        }
    }
    files
}

/// A linked worktree `worktree` that lives inside the tree of its main repository `main`.
struct WorktreeShadow {
    main: PathBuf,
    worktree: PathBuf,
}

impl WorktreeShadow {
    /// Finds the worktree holding `cwd` (its `.git` is a file pointing at
    /// `<main>/.git/worktrees/<name>`) when it is nested inside the main repository.
    fn detect(cwd: &Path) -> Option<WorktreeShadow> {
        let worktree = cwd.ancestors().find(|d| d.join(".git").exists())?;
        let text = std::fs::read_to_string(worktree.join(".git")).ok()?;
        let gitdir = PathBuf::from(text.trim().strip_prefix("gitdir:")?.trim());
        let gitdir = if gitdir.is_absolute() {
            gitdir
        } else {
            worktree.join(gitdir)
        };
        // <main>/.git/worktrees/<name>
        let dot_git = gitdir
            .parent()
            .filter(|p| p.ends_with("worktrees"))?
            .parent()?;
        let main = dot_git.parent()?;
        let nested = worktree.starts_with(main) && worktree != main;
        nested.then(|| WorktreeShadow {
            main: main.to_path_buf(),
            worktree: worktree.to_path_buf(),
        })
    }

    /// Whether `dir` (in the main repository, above the worktree) has its rules shadowed by the
    /// same relative directory inside the worktree.
    fn hides(&self, dir: &Path) -> bool {
        let Ok(rel) = dir.strip_prefix(&self.main) else {
            return false;
        };
        if dir.starts_with(&self.worktree) {
            return false;
        }
        find_in_dir(&self.worktree.join(rel)).is_some()
    }
}
