//! Lexical path folding, without touching the filesystem: the workspace view uses it to
//! refuse a path outside the workspace before anything reads it, the ignore-file reader to
//! fold the directories a worktree's `.git` file and `commondir` name.

use std::path::{Component, Path, PathBuf};

/// Folds `.` and `..` without touching the filesystem; `..` never climbs above the root.
pub(crate) fn normalize_lexically(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() && !path.is_absolute() {
                    out.push("..");
                }
                if out.as_os_str().is_empty() && path.is_absolute() {
                    out.push(Component::RootDir.as_os_str());
                }
            }
            other => out.push(other.as_os_str()),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lexical_normalisation_never_climbs_above_root() {
        assert_eq!(
            normalize_lexically(Path::new("/a/b/../../..")),
            PathBuf::from("/")
        );
        assert_eq!(
            normalize_lexically(Path::new("/a/./b/../c")),
            PathBuf::from("/a/c")
        );
    }
}
