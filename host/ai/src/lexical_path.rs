//! Paths folded by their words alone: `.` dropped and `..` taking off the part before it, the
//! disk never asked (the path may not exist yet, or its links are not to be followed).

use std::path::{Component, Path, PathBuf};

/// `path` with `.` and `..` folded lexically.
pub fn fold(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for part in path.components() {
        match part {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dots_fold_without_the_disk() {
        assert_eq!(fold(Path::new("/a/./b/../c")), PathBuf::from("/a/c"));
        assert_eq!(fold(Path::new("a/../../b")), PathBuf::from("b"));
        assert_eq!(fold(Path::new("/..")), PathBuf::from("/"));
    }
}
