//! The ignore rules of the directories from the top of a walk down to the current one, matched
//! the way rg and fd (the `ignore` crate) match them.
//!
//! Every directory contributes four kinds of rules: the tool's own file (`.rgignore`,
//! `.fdignore`), `.ignore`, `.gitignore` and the repository's `.git/info/exclude`. For each
//! kind, the nearest directory with a matching rule decides (so a deeper `!pattern`
//! re-includes what a directory further up ignores, also above the workspace); between kinds,
//! the tool's file beats `.ignore`, which beats `.gitignore`, which beats `exclude`, which
//! beats the user's global git excludes. Git's rules count only inside a repository when the
//! tool requires one, and only up to (and including) the nearest repository root.

use ignore::Match;
use ignore::gitignore::{Gitignore, GitignoreBuilder};
use std::path::{Path, PathBuf};

/// Names of the ignore files every tool reads.
const IGNORE: &str = ".ignore";
const GITIGNORE: &str = ".gitignore";
/// The repository's exclude file, relative to the directory holding `.git`.
const EXCLUDE: &str = ".git/info/exclude";

/// Which list of a directory a rule file feeds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    Tool,
    Ignore,
    Git,
    Exclude,
}

impl Kind {
    /// The kind of the ignore file `name` for a tool whose own file is `tool_file`.
    pub(crate) fn of(name: &str, tool_file: &str) -> Option<Kind> {
        match name {
            n if n == tool_file => Some(Kind::Tool),
            IGNORE => Some(Kind::Ignore),
            GITIGNORE => Some(Kind::Git),
            EXCLUDE => Some(Kind::Exclude),
            _ => None,
        }
    }
}

/// The rules one directory adds. Its matchers are rooted at the empty path and are given
/// paths relative to the directory: the `ignore` crate strips a matcher's root with
/// `std::path` component comparisons on targets other than Unix (so inside a component),
/// which cost more than the glob matching itself.
#[derive(Debug, Default)]
pub(crate) struct Layer {
    /// The directory's path, as a prefix of the paths matched against the layer.
    dir: PathBuf,
    tool: Option<Gitignore>,
    ignore: Option<Gitignore>,
    git: Option<Gitignore>,
    exclude: Option<Gitignore>,
    /// Whether the directory is a repository root (only tracked when the tool requires one).
    pub(crate) has_git: bool,
}

impl Layer {
    /// A directory's layer from its rule files' contents, in any order.
    pub(crate) fn build<'a>(
        dir: &Path,
        files: impl IntoIterator<Item = (Kind, &'a str)>,
        has_git: bool,
    ) -> Layer {
        let mut layer = Layer {
            dir: dir.to_path_buf(),
            has_git,
            ..Layer::default()
        };
        for (kind, contents) in files {
            let from = match kind {
                Kind::Tool => "tool ignore file",
                Kind::Ignore => IGNORE,
                Kind::Git => GITIGNORE,
                Kind::Exclude => EXCLUDE,
            };
            if let Some(rules) = matcher(dir, Path::new(""), from, contents) {
                *layer.slot(kind) = Some(rules);
            }
        }
        layer
    }

    fn slot(&mut self, kind: Kind) -> &mut Option<Gitignore> {
        match kind {
            Kind::Tool => &mut self.tool,
            Kind::Ignore => &mut self.ignore,
            Kind::Git => &mut self.git,
            Kind::Exclude => &mut self.exclude,
        }
    }

    /// `path` relative to the layer's directory; `None` when it is not below it (never for
    /// the walk's paths, which extend their directories' paths). For UTF-8 paths a byte
    /// prefix ending at a separator, so no component parsing.
    fn relative<'p>(&self, path: &'p Path) -> Option<&'p Path> {
        let Some(full) = path.to_str() else {
            return path
                .strip_prefix(&self.dir)
                .ok()
                .filter(|p| !p.as_os_str().is_empty());
        };
        let dir = self.dir.as_os_str().as_encoded_bytes();
        let rest = full.as_bytes().strip_prefix(dir)?;
        let rest = match rest.split_first() {
            Some((b'/', rest)) => rest,
            _ if dir.ends_with(b"/") => rest,
            _ => return None,
        };
        let rel = full.get(full.len() - rest.len()..)?;
        (!rel.is_empty()).then(|| Path::new(rel))
    }

    /// Whether the layer changes anything (otherwise the walk leaves it out).
    pub(crate) fn is_empty(&self) -> bool {
        !self.has_git
            && self.tool.is_none()
            && self.ignore.is_none()
            && self.git.is_none()
            && self.exclude.is_none()
    }
}

/// The rules of the ignore file `from` in `root`, matched against paths relative to
/// `anchor` (the empty path: paths are given relative to `root`); `None` when it has none.
pub(crate) fn matcher(root: &Path, anchor: &Path, from: &str, contents: &str) -> Option<Gitignore> {
    let from = root.join(from);
    let mut builder = GitignoreBuilder::new(anchor);
    for line in contents.lines() {
        // A bad pattern is skipped, as git and rg do.
        let _ = builder.add_line(Some(from.clone()), line);
    }
    match builder.build() {
        Ok(rules) => Some(rules).filter(|r| !r.is_empty()),
        Err(e) => {
            tracing::debug!(root = %root.display(), "ignore rules: {e}");
            None
        }
    }
}

/// The layers of the directories from the top of the walk down to the current one.
pub(crate) struct Rules {
    /// Top (farthest) first.
    layers: Vec<Layer>,
    /// The user's global git excludes (lowest precedence).
    global: Option<Gitignore>,
    require_git: bool,
}

impl Rules {
    pub(crate) fn new(require_git: bool, global: Option<Gitignore>) -> Self {
        Rules {
            layers: Vec::new(),
            global,
            require_git,
        }
    }

    /// Adds a directory's layer below the current ones; returns whether it was kept (and must
    /// be popped when the walk leaves the directory).
    pub(crate) fn push(&mut self, layer: Layer) -> bool {
        if layer.is_empty() {
            return false;
        }
        self.layers.push(layer);
        true
    }

    pub(crate) fn pop(&mut self) {
        self.layers.pop();
    }

    /// Whether the rules ignore `path` (absolute, below every layer's directory).
    pub(crate) fn ignores(&self, path: &Path, is_dir: bool) -> bool {
        let any_git = !self.require_git || self.layers.iter().any(|l| l.has_git);
        let (mut tool, mut ignore, mut git, mut exclude) =
            (Match::None, Match::None, Match::None, Match::None);
        let mut saw_git = false;
        for layer in self.layers.iter().rev() {
            let Some(rel) = layer.relative(path) else {
                continue;
            };
            nearest(&mut tool, &layer.tool, rel, is_dir);
            nearest(&mut ignore, &layer.ignore, rel, is_dir);
            if any_git && !saw_git {
                nearest(&mut git, &layer.git, rel, is_dir);
                nearest(&mut exclude, &layer.exclude, rel, is_dir);
            }
            saw_git |= layer.has_git;
        }
        let global = match &self.global {
            Some(rules) if any_git => rules.matched(path, is_dir).map(|_| ()),
            _ => Match::None,
        };
        tool.or(ignore).or(git).or(exclude).or(global).is_ignore()
    }
}

/// Records the match of `rules` unless a nearer directory already decided.
fn nearest(found: &mut Match<()>, rules: &Option<Gitignore>, path: &Path, is_dir: bool) {
    if found.is_none()
        && let Some(rules) = rules
    {
        *found = rules.matched(path, is_dir).map(|_| ());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn layer(dir: &str, gitignore: &str) -> Layer {
        Layer::build(Path::new(dir), [(Kind::Git, gitignore)], false)
    }

    #[test]
    fn paths_are_matched_relative_to_their_layer() {
        let top = layer("/w/a", "");
        assert_eq!(top.relative(Path::new("/w/a/b/c")), Some(Path::new("b/c")));
        assert_eq!(top.relative(Path::new("/w/ab/c")), None);
        assert_eq!(top.relative(Path::new("/w/a")), None);
        let root = layer("/", "");
        assert_eq!(root.relative(Path::new("/w")), Some(Path::new("w")));
        #[cfg(unix)]
        {
            use std::os::unix::ffi::OsStrExt;
            let odd = Path::new(std::ffi::OsStr::from_bytes(b"/w/a/\xff/c"));
            let rel = top.relative(odd).unwrap();
            assert_eq!(rel.as_os_str().as_bytes(), b"\xff/c");
        }
    }

    #[test]
    fn anchored_and_nested_patterns_hold_below_the_layer() {
        let mut rules = Rules::new(false, None);
        rules.push(layer("/w", "/top\nsub/deep\n*.log\n"));
        assert!(rules.ignores(Path::new("/w/top"), false));
        assert!(!rules.ignores(Path::new("/w/x/top"), false));
        assert!(rules.ignores(Path::new("/w/sub/deep"), true));
        assert!(!rules.ignores(Path::new("/w/x/sub/deep"), true));
        assert!(rules.ignores(Path::new("/w/x/y/z.log"), false));
        // A deeper layer re-includes what the one above ignores.
        rules.push(layer("/w/x", "!keep.log\n"));
        assert!(!rules.ignores(Path::new("/w/x/keep.log"), false));
        assert!(rules.ignores(Path::new("/w/x/other.log"), false));
    }
}
