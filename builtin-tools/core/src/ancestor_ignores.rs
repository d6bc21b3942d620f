//! Ignore files above the workspace, for `grep` and `find` running as components.
//!
//! rg and fd respect the ignore files of every directory between the searched directory and
//! its git repository root. A component only has the workspace preopened, so it can neither
//! read those files nor see the `.git` that makes a `.gitignore` count. The host therefore
//! reads them ([`AncestorIgnores::read`]) and sends them with the call (the invocation
//! context); the walk ([`crate::walk`]) puts their rules above the workspace's own, so a
//! `!pattern` in the workspace re-includes what they ignore. Natively nothing is sent: the
//! tools read them with [`AncestorIgnores::read`] themselves.

use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// Names of the ignore files read in each ancestor, lowest precedence first (as the `ignore`
/// crate ranks them: `.ignore` over `.gitignore`, a tool's own file over both).
const NAMES: [&str; 4] = [".gitignore", ".ignore", ".rgignore", ".fdignore"];
/// The repository's own exclude file, below every ignore file in precedence.
const EXCLUDE: &str = ".git/info/exclude";

/// One ignore file of a directory above the workspace.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AncestorIgnoreFile {
    /// The directory its rules are anchored at (absolute host path).
    pub dir: PathBuf,
    /// Its name inside `dir` (`.gitignore`, `.ignore`, ...).
    pub name: String,
    pub contents: String,
}

/// The ignore files between the workspace (excluded) and its git repository root (included).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AncestorIgnores {
    /// The directory holding `.git`, above the workspace.
    pub repo_root: PathBuf,
    /// Nearest directory first; within a directory, lowest precedence first.
    pub files: Vec<AncestorIgnoreFile>,
}

impl AncestorIgnores {
    /// Reads the ignore files from the parent of `workspace` up to its git repository root.
    /// `None` when the workspace is itself a repository root or lies in no repository: then
    /// nothing above it is read (rg and fd would not apply those `.gitignore` files either).
    pub fn read(workspace: &Path) -> Option<Self> {
        if workspace.join(".git").exists() {
            return None;
        }
        let repo_root = workspace
            .ancestors()
            .skip(1)
            .find(|dir| dir.join(".git").exists())?;
        let mut files = Vec::new();
        for dir in workspace.ancestors().skip(1) {
            let names = if dir == repo_root {
                std::iter::once(EXCLUDE).chain(NAMES).collect()
            } else {
                NAMES.to_vec()
            };
            for name in names {
                if let Ok(contents) = std::fs::read_to_string(dir.join(name)) {
                    files.push(AncestorIgnoreFile {
                        dir: dir.to_path_buf(),
                        name: name.to_owned(),
                        contents,
                    });
                }
            }
            if dir == repo_root {
                break;
            }
        }
        Some(AncestorIgnores {
            repo_root: repo_root.to_path_buf(),
            files,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(path: &Path, text: &str) {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    #[test]
    fn reads_up_to_the_repository_root_only() {
        let tmp = tempfile::tempdir().unwrap();
        let top = tmp.path().canonicalize().unwrap();
        write(&top.join(".gitignore"), "above-the-repo\n");
        let repo = top.join("repo");
        std::fs::create_dir_all(repo.join(".git/info")).unwrap();
        write(&repo.join(".git/info/exclude"), "excluded\n");
        write(&repo.join(".gitignore"), "*.log\n");
        write(&repo.join("a/.ignore"), "*.tmp\n");
        write(&repo.join("a/.rgignore"), "*.rg\n");
        let ws = repo.join("a/ws");
        write(&ws.join(".gitignore"), "the workspace reads its own\n");
        let found = AncestorIgnores::read(&ws).unwrap();
        assert_eq!(found.repo_root, repo);
        let names: Vec<(PathBuf, &str)> = found
            .files
            .iter()
            .map(|f| (f.dir.clone(), f.name.as_str()))
            .collect();
        assert_eq!(
            names,
            [
                (repo.join("a"), ".ignore"),
                (repo.join("a"), ".rgignore"),
                (repo.clone(), EXCLUDE),
                (repo.clone(), ".gitignore"),
            ]
        );
        assert_eq!(found.files[3].contents, "*.log\n");
        // The repository root itself as workspace, or no repository: nothing above is read.
        assert_eq!(AncestorIgnores::read(&repo), None);
        let loose = top.join("loose/ws");
        std::fs::create_dir_all(&loose).unwrap();
        assert_eq!(AncestorIgnores::read(&loose), None);
    }
}
