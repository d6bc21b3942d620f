//! When a `grep`/`find` call is worth splitting between instances of its component.

use std::path::{Path, PathBuf};

/// Entries in a search root's first two levels from which a call is split by default. Below
/// that the walk takes about as long as starting a second instance (~0.3 ms) and the split
/// only adds an instance's memory (peak RSS of pi's ten-tool-call benchmark: +1 MB).
pub(crate) const MIN_ENTRIES: usize = 256;

/// Whether `root`'s own entries and those of its subdirectories number at least `min`. Stops
/// listing as soon as they do; links are not followed; unreadable directories count as empty.
pub(crate) fn has_entries(root: &Path, min: usize) -> bool {
    if min == 0 {
        return true;
    }
    let mut seen = 0;
    let mut subdirs: Vec<PathBuf> = Vec::new();
    let mut count = |dir: &Path, mut subdirs: Option<&mut Vec<PathBuf>>| {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return false;
        };
        for entry in entries.flatten() {
            seen += 1;
            if seen >= min {
                return true;
            }
            if let Some(list) = subdirs.as_deref_mut()
                && entry.file_type().is_ok_and(|t| t.is_dir())
            {
                list.push(entry.path());
            }
        }
        false
    };
    if count(root, Some(&mut subdirs)) {
        return true;
    }
    subdirs.iter().any(|dir| count(dir, None))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_two_levels_and_stops_at_the_minimum() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::write(root.join("a"), "").unwrap();
        std::fs::create_dir_all(root.join("d/e/f")).unwrap();
        for i in 0..3 {
            std::fs::write(root.join("d").join(i.to_string()), "").unwrap();
            // Third level: not counted.
            std::fs::write(root.join("d/e").join(i.to_string()), "").unwrap();
        }
        // a, d, d/e, d/0..2 = 6 entries in two levels.
        assert!(has_entries(root, 6));
        assert!(!has_entries(root, 7));
        assert!(!has_entries(&root.join("missing"), 1));
    }
}
