//! Where the file tools may read and write: the path policy.
//!
//! By default (as pi) `read`, `ls`, `find` and `grep` read any path the user can, and `write`
//! and `edit` change files inside the workspace and the writable roots only (`--add-dir`,
//! `tools.writableRoots`, pi's temp dir). `tools.pathScope` narrows reading to the workspace
//! or widens writing to everywhere. The same policy decides, in the host, which directories a
//! tool's component gets preopened (so a component physically reaches no more than the policy
//! allows) and, in the tool, whether a resolved path is allowed, with a message naming the
//! setting or flag that would allow it. The check is lexical (after `.`/`..` are folded);
//! links are the preopens' business: WASI follows none out of a preopened directory.

use crate::ToolError;
use crate::paths::normalize_lexically;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// `tools.pathScope`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PathScope {
    /// Reading and writing inside the workspace and the writable roots only (plus what is
    /// always readable: skills, package resources, bash's saved outputs).
    Workspace,
    /// Reading anywhere; writing inside the workspace and the writable roots.
    #[default]
    Default,
    /// Reading and writing anywhere the user can.
    Anywhere,
}

impl PathScope {
    /// The setting's value as written in settings.json.
    pub fn as_str(self) -> &'static str {
        match self {
            PathScope::Workspace => "workspace",
            PathScope::Default => "default",
            PathScope::Anywhere => "anywhere",
        }
    }

    /// Parses a settings value; `None` for anything else.
    pub fn parse(value: &str) -> Option<Self> {
        match value {
            "workspace" => Some(PathScope::Workspace),
            "default" => Some(PathScope::Default),
            "anywhere" => Some(PathScope::Anywhere),
            _ => None,
        }
    }
}

/// What a tool wants to do with a path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PathAccess {
    /// `read`, `ls`, `find`, `grep`.
    Read,
    /// `write`, `edit`.
    Write,
}

/// The policy of one session, besides its workspace root.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PathPolicy {
    #[serde(default)]
    pub scope: PathScope,
    /// Directories `write` and `edit` may change besides the workspace (absolute).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub writable_roots: Vec<PathBuf>,
    /// Directories always readable whatever the scope (absolute): skills, package resources,
    /// the temp dir of bash's saved outputs.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub readable_roots: Vec<PathBuf>,
}

impl PathPolicy {
    /// A policy whose roots are folded lexically (`.`/`..`, as the tools fold the paths they
    /// check) and listed once each; relative roots are taken against `cwd`.
    pub fn new(
        scope: PathScope,
        writable_roots: impl IntoIterator<Item = PathBuf>,
        readable_roots: impl IntoIterator<Item = PathBuf>,
        cwd: &Path,
    ) -> Self {
        let fold = |dirs: &mut dyn Iterator<Item = PathBuf>| {
            let mut out: Vec<PathBuf> = Vec::new();
            for dir in dirs.map(|d| normalize_lexically(&cwd.join(d))) {
                if !out.contains(&dir) {
                    out.push(dir);
                }
            }
            out
        };
        PathPolicy {
            scope,
            writable_roots: fold(&mut writable_roots.into_iter()),
            readable_roots: fold(&mut readable_roots.into_iter()),
        }
    }

    /// The directories a tool with `access` may touch in workspace `root`, the broadest
    /// first-level choice: `/` alone when the scope lets it anywhere.
    pub fn roots(&self, root: &Path, access: PathAccess) -> Vec<PathBuf> {
        let anywhere = match access {
            PathAccess::Read => self.scope != PathScope::Workspace,
            PathAccess::Write => self.scope == PathScope::Anywhere,
        };
        if anywhere {
            return vec![PathBuf::from("/")];
        }
        let mut roots = vec![root.to_path_buf()];
        roots.extend(self.writable_roots.iter().cloned());
        if access == PathAccess::Read {
            roots.extend(self.readable_roots.iter().cloned());
        }
        let mut unique: Vec<PathBuf> = Vec::with_capacity(roots.len());
        for dir in roots {
            if !unique.contains(&dir) {
                unique.push(dir);
            }
        }
        unique
    }

    /// Whether `path` (absolute, lexically normalised) may be used for `access` in workspace
    /// `root`; the refusal names what would allow it.
    pub fn check(&self, root: &Path, path: &Path, access: PathAccess) -> Result<(), ToolError> {
        let roots = self.roots(root, access);
        if roots.iter().any(|dir| path.starts_with(dir)) {
            return Ok(());
        }
        let listed = roots
            .iter()
            .map(|d| d.display().to_string())
            .collect::<Vec<_>>()
            .join(", ");
        Err(ToolError::new(match access {
            PathAccess::Read => format!(
                "Access denied: {} is outside the workspace and the directories pi may read \
                 ({listed}). The setting tools.pathScope is \"workspace\"; set it to \"default\" \
                 to let read, ls, find and grep read anywhere, or add the directory with \
                 --add-dir <dir> or the setting tools.writableRoots.",
                path.display()
            ),
            PathAccess::Write => format!(
                "Access denied: {} is outside the workspace and the directories pi may write \
                 ({listed}). Allow it with --add-dir <dir> or the setting tools.writableRoots, \
                 or set tools.pathScope to \"anywhere\".",
                path.display()
            ),
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn policy(scope: PathScope) -> PathPolicy {
        PathPolicy {
            scope,
            writable_roots: vec!["/extra".into()],
            readable_roots: vec!["/skills".into()],
        }
    }

    #[test]
    fn default_reads_anywhere_and_writes_in_the_roots() {
        let p = policy(PathScope::Default);
        let root = Path::new("/ws");
        assert!(
            p.check(root, Path::new("/etc/passwd"), PathAccess::Read)
                .is_ok()
        );
        assert!(p.check(root, Path::new("/ws/a"), PathAccess::Write).is_ok());
        assert!(
            p.check(root, Path::new("/extra/a"), PathAccess::Write)
                .is_ok()
        );
        let err = p
            .check(root, Path::new("/skills/a"), PathAccess::Write)
            .unwrap_err();
        assert!(err.message.contains("--add-dir"), "{}", err.message);
        assert!(
            err.message.contains("tools.writableRoots"),
            "{}",
            err.message
        );
        assert!(p.check(root, Path::new("/wsx"), PathAccess::Write).is_err());
        assert_eq!(p.roots(root, PathAccess::Read), [PathBuf::from("/")]);
        assert_eq!(
            p.roots(root, PathAccess::Write),
            [PathBuf::from("/ws"), PathBuf::from("/extra")]
        );
    }

    #[test]
    fn workspace_scope_reads_only_the_roots_and_says_which_setting() {
        let p = policy(PathScope::Workspace);
        let root = Path::new("/ws");
        for ok in ["/ws/a", "/extra/b", "/skills/s/SKILL.md"] {
            assert!(
                p.check(root, Path::new(ok), PathAccess::Read).is_ok(),
                "{ok}"
            );
        }
        let err = p
            .check(root, Path::new("/etc/passwd"), PathAccess::Read)
            .unwrap_err();
        assert!(err.message.contains("tools.pathScope"), "{}", err.message);
    }

    #[test]
    fn new_folds_and_dedups_the_roots() {
        let p = PathPolicy::new(
            PathScope::Default,
            ["a/../b".into(), "/w/b".into(), "/x/./y".into()],
            ["/s/".into()],
            Path::new("/w"),
        );
        assert_eq!(
            p.writable_roots,
            [PathBuf::from("/w/b"), PathBuf::from("/x/y")]
        );
        assert_eq!(p.readable_roots, [PathBuf::from("/s")]);
    }

    #[test]
    fn anywhere_writes_everywhere() {
        let p = policy(PathScope::Anywhere);
        assert!(
            p.check(Path::new("/ws"), Path::new("/etc/x"), PathAccess::Write)
                .is_ok()
        );
        assert_eq!(
            p.roots(Path::new("/ws"), PathAccess::Write),
            [PathBuf::from("/")]
        );
        for scope in ["workspace", "default", "anywhere"] {
            assert_eq!(PathScope::parse(scope).map(PathScope::as_str), Some(scope));
        }
        assert_eq!(PathScope::parse("everywhere"), None);
    }
}
