//! The git branch for the footer, read from `.git/HEAD` (no `git` process: the footer is
//! redrawn while streaming). A worktree's `.git` file points at its real git dir.

use std::path::{Path, PathBuf};

/// The branch checked out in the repository holding `cwd`; a detached HEAD shows its short
/// commit id. `None` outside a repository.
pub fn branch(cwd: &Path) -> Option<String> {
    let head = std::fs::read_to_string(git_dir(cwd)?.join("HEAD")).ok()?;
    let head = head.trim();
    match head.strip_prefix("ref: ") {
        Some(reference) => Some(
            reference
                .strip_prefix("refs/heads/")
                .unwrap_or(reference)
                .to_owned(),
        ),
        None => head.get(..7).map(str::to_owned),
    }
}

fn git_dir(cwd: &Path) -> Option<PathBuf> {
    for dir in cwd.ancestors() {
        let dot_git = dir.join(".git");
        if dot_git.is_dir() {
            return Some(dot_git);
        }
        if dot_git.is_file() {
            let text = std::fs::read_to_string(&dot_git).ok()?;
            let target = text.trim().strip_prefix("gitdir:")?.trim();
            return Some(dir.join(target));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::branch;
    use std::path::Path;

    #[test]
    fn reads_the_branch_a_detached_head_and_a_worktree() {
        let root = std::env::temp_dir().join(format!("pi-tui-git-{}", std::process::id()));
        let nested = root.join("repo/src/deep");
        let _ = std::fs::create_dir_all(&nested);
        let _ = std::fs::create_dir_all(root.join("repo/.git"));
        let _ = std::fs::write(root.join("repo/.git/HEAD"), "ref: refs/heads/feature/x\n");
        assert_eq!(branch(&nested).as_deref(), Some("feature/x"));
        let _ = std::fs::write(root.join("repo/.git/HEAD"), "0123456789abcdef\n");
        assert_eq!(branch(&nested).as_deref(), Some("0123456"));
        let _ = std::fs::create_dir_all(root.join("wt"));
        let _ = std::fs::write(root.join("wt/.git"), "gitdir: ../repo/.git\n");
        assert_eq!(branch(&root.join("wt")).as_deref(), Some("0123456"));
        assert_eq!(branch(Path::new("/")), None);
        let _ = std::fs::remove_dir_all(&root);
    }
}
