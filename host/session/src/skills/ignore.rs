//! Ignore rules for the skill scan: `.gitignore`, `.ignore` and `.fdignore` files.
//!
//! Each file's patterns apply relative to the directory that holds it, with gitignore's
//! syntax (`#` comments, `!` negation, a trailing `/` for directories only, a leading or inner
//! `/` anchoring the pattern, `*`, `?`, `**`, `[...]`, backslash escapes). The patterns are
//! compiled by the `ignore` crate (ripgrep's) into one automaton per file: packages ship these
//! files, so matching must stay linear in the path whatever the pattern, which a backtracking
//! matcher cannot promise (`a*a*a*…b` took exponential time). The last matching rule decides,
//! as in git; files read later (deeper directories, then `.ignore` after `.gitignore`) win.

use ignore::Match;
use ignore::gitignore::{Gitignore, GitignoreBuilder};
use std::path::Path;
use std::sync::Arc;

/// Names of the files whose patterns are honoured, in the order they are read.
pub const IGNORE_FILES: [&str; 3] = [".gitignore", ".ignore", ".fdignore"];

/// The rules collected from the directories visited so far, one compiled set per file.
#[derive(Debug, Clone, Default)]
pub struct IgnoreRules {
    files: Vec<Arc<Gitignore>>,
}

impl IgnoreRules {
    /// Returns a copy extended with the ignore files found in `dir`.
    pub fn with_dir(&self, dir: &Path) -> IgnoreRules {
        let mut next = self.clone();
        for name in IGNORE_FILES {
            if let Ok(text) = std::fs::read_to_string(dir.join(name)) {
                next.add_patterns(dir, &text);
            }
        }
        next
    }

    /// Adds the patterns of one ignore file that lives in `base`. A line that is not a valid
    /// pattern is skipped, as git skips it.
    pub fn add_patterns(&mut self, base: &Path, text: &str) {
        let mut builder = GitignoreBuilder::new(base);
        for line in text.lines() {
            if let Err(error) = builder.add_line(None, line) {
                tracing::debug!(base = %base.display(), line, %error, "skipping an ignore pattern");
            }
        }
        match builder.build() {
            Ok(rules) if rules.is_empty() => {}
            Ok(rules) => self.files.push(Arc::new(rules)),
            Err(error) => {
                tracing::debug!(base = %base.display(), %error, "skipping an ignore file");
            }
        }
    }

    /// Whether `path` (a file, or a directory when `is_dir`) is excluded.
    pub fn is_ignored(&self, path: &Path, is_dir: bool) -> bool {
        let mut ignored = false;
        for rules in &self.files {
            // Rules see only paths strictly inside their own directory.
            let inside = path
                .strip_prefix(rules.path())
                .is_ok_and(|rel| !rel.as_os_str().is_empty());
            if !inside {
                continue;
            }
            match rules.matched(path, is_dir) {
                Match::Ignore(_) => ignored = true,
                Match::Whitelist(_) => ignored = false,
                Match::None => {}
            }
        }
        ignored
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rules(text: &str) -> IgnoreRules {
        let mut r = IgnoreRules::default();
        r.add_patterns(Path::new("/r"), text);
        r
    }

    #[test]
    fn basename_anchored_negated_and_dir_only() {
        let r = rules("drafts\n/top.md\n*.tmp\n!keep.tmp\nbuild/\ndocs/**/old\n");
        assert!(r.is_ignored(Path::new("/r/a/drafts"), true));
        assert!(r.is_ignored(Path::new("/r/top.md"), false));
        assert!(!r.is_ignored(Path::new("/r/a/top.md"), false));
        assert!(r.is_ignored(Path::new("/r/x/y.tmp"), false));
        assert!(!r.is_ignored(Path::new("/r/keep.tmp"), false));
        assert!(r.is_ignored(Path::new("/r/build"), true));
        assert!(!r.is_ignored(Path::new("/r/build"), false));
        assert!(r.is_ignored(Path::new("/r/docs/a/b/old"), true));
        assert!(r.is_ignored(Path::new("/r/docs/old"), true));
        assert!(!r.is_ignored(Path::new("/other/drafts"), true));
    }

    #[test]
    fn classes() {
        let r = rules("skill[0-9]\n");
        assert!(r.is_ignored(Path::new("/r/skill3"), true));
        assert!(!r.is_ignored(Path::new("/r/skillx"), true));
    }
}
