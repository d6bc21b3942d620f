//! Ignore rules for the skill scan: `.gitignore`, `.ignore` and `.fdignore` files.
//!
//! Each file's patterns apply relative to the directory that holds it. The subset of the
//! gitignore syntax handled here: `#` comments, `!` negation, a trailing `/` for directories
//! only, a leading or inner `/` to anchor the pattern to its directory, and the globs `*`, `?`,
//! `**` and `[...]`. The last matching rule decides, as in git.

use std::path::{Path, PathBuf};

/// Names of the files whose patterns are honoured, in the order they are read.
pub const IGNORE_FILES: [&str; 3] = [".gitignore", ".ignore", ".fdignore"];

#[derive(Debug, Clone)]
struct Rule {
    base: PathBuf,
    glob: String,
    negated: bool,
    dir_only: bool,
    anchored: bool,
}

/// The rules collected from the directories visited so far.
#[derive(Debug, Clone, Default)]
pub struct IgnoreRules {
    rules: Vec<Rule>,
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

    /// Adds the patterns of one ignore file that lives in `base`.
    pub fn add_patterns(&mut self, base: &Path, text: &str) {
        for line in text.lines() {
            if let Some(rule) = parse_rule(base, line) {
                self.rules.push(rule);
            }
        }
    }

    /// Whether `path` (a file, or a directory when `is_dir`) is excluded.
    pub fn is_ignored(&self, path: &Path, is_dir: bool) -> bool {
        let mut ignored = false;
        for rule in &self.rules {
            if rule.dir_only && !is_dir {
                continue;
            }
            let Ok(rel) = path.strip_prefix(&rule.base) else {
                continue;
            };
            let rel = rel.to_string_lossy().replace('\\', "/");
            if rel.is_empty() {
                continue;
            }
            let target = if rule.anchored {
                rel.as_str()
            } else {
                rel.rsplit('/').next().unwrap_or(&rel)
            };
            if glob_match(rule.glob.as_bytes(), target.as_bytes()) {
                ignored = !rule.negated;
            }
        }
        ignored
    }
}

fn parse_rule(base: &Path, line: &str) -> Option<Rule> {
    let line = line.trim_end();
    if line.is_empty() || line.starts_with('#') {
        return None;
    }
    let (negated, line) = match line.strip_prefix('!') {
        Some(rest) => (true, rest),
        None => (false, line.strip_prefix('\\').unwrap_or(line)),
    };
    let (dir_only, line) = match line.strip_suffix('/') {
        Some(rest) => (true, rest),
        None => (false, line),
    };
    let anchored = line.contains('/');
    let glob = line.strip_prefix('/').unwrap_or(line).to_string();
    if glob.is_empty() {
        return None;
    }
    Some(Rule {
        base: base.to_path_buf(),
        glob,
        negated,
        dir_only,
        anchored,
    })
}

/// Glob match where `*` and `?` stay within one path segment and `**` crosses segments.
fn glob_match(pattern: &[u8], text: &[u8]) -> bool {
    match pattern.first() {
        None => text.is_empty(),
        Some(b'*') if pattern.get(1) == Some(&b'*') => {
            let mut rest = &pattern[2..];
            if rest.first() == Some(&b'/') {
                // `**/x` also matches `x` at the top.
                rest = &rest[1..];
            }
            (0..=text.len()).any(|i| glob_match(rest, &text[i..]))
        }
        Some(b'*') => {
            let rest = &pattern[1..];
            for i in 0..=text.len() {
                if glob_match(rest, &text[i..]) {
                    return true;
                }
                if text.get(i) == Some(&b'/') {
                    break;
                }
            }
            false
        }
        Some(b'?') => {
            matches!(text.first(), Some(c) if *c != b'/') && glob_match(&pattern[1..], &text[1..])
        }
        Some(b'[') => match_class(pattern, text),
        Some(c) => text.first() == Some(c) && glob_match(&pattern[1..], &text[1..]),
    }
}

fn match_class(pattern: &[u8], text: &[u8]) -> bool {
    let Some(end) = pattern
        .iter()
        .skip(1)
        .position(|c| *c == b']')
        .map(|p| p + 1)
    else {
        return text.first() == Some(&b'[') && glob_match(&pattern[1..], &text[1..]);
    };
    let Some(&c) = text.first() else {
        return false;
    };
    let mut class = &pattern[1..end];
    let negate = matches!(class.first(), Some(b'!') | Some(b'^'));
    if negate {
        class = &class[1..];
    }
    let mut hit = false;
    let mut i = 0;
    while i < class.len() {
        if i + 2 < class.len() && class[i + 1] == b'-' {
            hit |= class[i] <= c && c <= class[i + 2];
            i += 3;
        } else {
            hit |= class[i] == c;
            i += 1;
        }
    }
    hit != negate && c != b'/' && glob_match(&pattern[end + 1..], &text[1..])
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
