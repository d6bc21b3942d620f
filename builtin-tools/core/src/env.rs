//! The environment the tools run in: the workspace and its path policy (where the tools may
//! read and write), the session cwd, the process runner for `bash`, and where temp files go.

use crate::ToolError;
use crate::ancestor_ignores::{self, AncestorIgnores, GitExcludes};
use crate::paths::normalize_lexically;
use crate::policy::{PathAccess, PathPolicy};
use crate::process::ProcessRunner;
use crate::walk::shard::Shard;
use crate::walk::{DirSource, StdSource};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The session's workspace and working directory inside it, and where beyond it the tools
/// may read and write (pi's defaults unless [`Workspace::with_policy`] says otherwise).
#[derive(Debug, Clone)]
pub struct Workspace {
    root: PathBuf,
    cwd: PathBuf,
    home: Option<PathBuf>,
    policy: PathPolicy,
}

impl Workspace {
    /// `root` and `cwd` must be absolute; `cwd` must lie inside `root`.
    pub fn new(root: impl AsRef<Path>, cwd: impl AsRef<Path>) -> Result<Self, ToolError> {
        let root = normalize_lexically(root.as_ref());
        let cwd = normalize_lexically(cwd.as_ref());
        if !root.is_absolute() || !cwd.is_absolute() {
            return Err(ToolError::new(
                "Workspace root and cwd must be absolute paths",
            ));
        }
        if !cwd.starts_with(&root) {
            return Err(ToolError::new(format!(
                "Working directory {} is outside the workspace {}",
                cwd.display(),
                root.display()
            )));
        }
        Ok(Workspace {
            root,
            cwd,
            home: None,
            policy: PathPolicy::default(),
        })
    }

    /// A workspace whose root is its cwd.
    pub fn at(dir: impl AsRef<Path>) -> Result<Self, ToolError> {
        Self::new(dir.as_ref(), dir.as_ref())
    }

    /// Sets the directory `~` expands to.
    pub fn with_home(mut self, home: impl AsRef<Path>) -> Self {
        self.home = Some(normalize_lexically(home.as_ref()));
        self
    }

    /// Replaces the path policy.
    pub fn with_policy(mut self, policy: PathPolicy) -> Self {
        self.policy = policy;
        self
    }

    pub fn policy(&self) -> &PathPolicy {
        &self.policy
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    pub fn cwd(&self) -> &Path {
        &self.cwd
    }

    /// What `~` expands to, if anything.
    pub fn home(&self) -> Option<&Path> {
        self.home.as_deref()
    }

    /// Resolves a path the model gave for reading (see [`Workspace::resolve_for`]).
    pub fn resolve(&self, user_path: &str) -> Result<PathBuf, ToolError> {
        self.resolve_for(user_path, PathAccess::Read)
    }

    /// Resolves a path the model gave against the cwd the way pi does (leading `@` stripped,
    /// `~` expanded, unicode spaces normalised), folds `.`/`..` lexically and refuses, before
    /// anything touches the filesystem, a result the policy does not allow for `access`.
    pub fn resolve_for(&self, user_path: &str, access: PathAccess) -> Result<PathBuf, ToolError> {
        let cleaned = normalize_unicode_spaces(user_path.strip_prefix('@').unwrap_or(user_path));
        let expanded = self.expand_home(&cleaned);
        let joined = if expanded.is_absolute() {
            expanded
        } else {
            self.cwd.join(expanded)
        };
        let resolved = normalize_lexically(&joined);
        self.policy.check(&self.root, &resolved, access)?;
        Ok(resolved)
    }

    fn expand_home(&self, path: &str) -> PathBuf {
        match (&self.home, path) {
            (Some(home), "~") => home.clone(),
            (Some(home), p) if p.starts_with("~/") => home.join(&p[2..]),
            _ => PathBuf::from(path),
        }
    }
}

/// Replaces the unicode space characters models sometimes emit with a plain space.
fn normalize_unicode_spaces(path: &str) -> String {
    path.chars()
        .map(|c| match c {
            '\u{00A0}' | '\u{2000}'..='\u{200A}' | '\u{202F}' | '\u{205F}' | '\u{3000}' => ' ',
            other => other,
        })
        .collect()
}

/// Which shell `bash` runs commands with.
#[derive(Debug, Clone)]
pub struct ShellConfig {
    /// Shell executable; invoked as `<path> -c <command>`.
    pub path: String,
    /// Text prepended to every command, followed by a newline (pi's `shellCommandPrefix`).
    pub command_prefix: Option<String>,
}

impl Default for ShellConfig {
    fn default() -> Self {
        let path = if Path::new("/bin/bash").exists() {
            "/bin/bash"
        } else {
            "sh"
        };
        ShellConfig {
            path: path.to_string(),
            command_prefix: None,
        }
    }
}

/// Everything a tool may use outside pure computation.
#[derive(Clone)]
pub struct ToolEnv {
    pub workspace: Workspace,
    /// Runs `bash` commands; `None` makes `bash` fail with a clear message.
    pub runner: Option<Arc<dyn ProcessRunner>>,
    pub shell: ShellConfig,
    /// Environment of spawned commands (the host adds pi's `PI_*` variables here).
    pub command_env: Vec<(String, String)>,
    /// Where `bash` saves full outputs that were truncated.
    pub temp_dir: PathBuf,
    /// Whether the current model accepts images (otherwise `read` adds pi's note).
    pub model_supports_images: bool,
    /// Whether `read` shrinks large images (pi's `autoResizeImages`, default on).
    pub auto_resize_images: bool,
    /// Ignore files above the workspace that `grep` and `find` apply (sent by the host to a
    /// component, which cannot read them; natively `None`, the walker reads them itself).
    pub ancestor_ignores: Option<Arc<AncestorIgnores>>,
    /// Git's exclude files outside the workspace (the user's global excludes, a worktree
    /// root's `info/exclude`) for `grep` and `find`: sent by the host to a component; natively
    /// `None`, read from the workspace's home and `command_env` on each call.
    pub git_excludes: Option<Arc<GitExcludes>>,
    /// `grep`/`find` only: the part of the walk this call does when the host splits it
    /// between instances (see [`crate::walk::shard`]).
    pub shard: Option<Shard>,
    /// Where `grep` and `find` list directories and read files (`std::fs` when none; a
    /// component lists through the host).
    pub dirs: Option<Arc<dyn DirSource>>,
}

impl ToolEnv {
    /// An environment with no process runner, the system temp dir and image support on.
    pub fn new(workspace: Workspace) -> Self {
        ToolEnv {
            workspace,
            runner: None,
            shell: ShellConfig::default(),
            command_env: Vec::new(),
            temp_dir: default_temp_dir(),
            model_supports_images: true,
            auto_resize_images: true,
            ancestor_ignores: None,
            git_excludes: None,
            shard: None,
            dirs: None,
        }
    }

    /// The native environment: std::process runner and the current process environment.
    #[cfg(all(unix, feature = "native"))]
    pub fn native(workspace: Workspace) -> Self {
        let workspace = match std::env::var_os("HOME") {
            Some(home) if !home.is_empty() => workspace.with_home(home),
            _ => workspace,
        };
        let mut env = Self::new(workspace);
        env.runner = Some(Arc::new(crate::native::NativeRunner));
        env.command_env = std::env::vars().collect();
        env
    }

    pub fn with_runner(mut self, runner: Arc<dyn ProcessRunner>) -> Self {
        self.runner = Some(runner);
        self
    }

    pub fn with_temp_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.temp_dir = dir.into();
        self
    }

    /// A path the model gave, for reading.
    pub fn resolve(&self, user_path: &str) -> Result<PathBuf, ToolError> {
        self.workspace.resolve(user_path)
    }

    /// A path the model gave, for writing.
    pub fn resolve_writable(&self, user_path: &str) -> Result<PathBuf, ToolError> {
        self.workspace.resolve_for(user_path, PathAccess::Write)
    }

    /// Where walks list directories and read files.
    pub fn dir_source(&self) -> Arc<dyn DirSource> {
        self.dirs.clone().unwrap_or_else(|| Arc::new(StdSource))
    }

    /// The ignore files above the workspace: those the host sent, or natively those found
    /// on disk (a component cannot read above its workspace).
    pub fn ancestor_ignores(&self) -> Option<Arc<AncestorIgnores>> {
        if self.ancestor_ignores.is_some() || cfg!(target_family = "wasm") {
            return self.ancestor_ignores.clone();
        }
        AncestorIgnores::read(self.workspace.root()).map(Arc::new)
    }

    /// Git's exclude files outside the workspace: those the host sent, or natively those on
    /// disk, the global one looked up from the workspace's home and `command_env` (a component
    /// can read neither).
    pub fn git_excludes(&self) -> Option<Arc<GitExcludes>> {
        if self.git_excludes.is_some() || cfg!(target_family = "wasm") {
            return self.git_excludes.clone();
        }
        let global =
            ancestor_ignores::global_excludes_file(self.workspace.home(), &self.command_env);
        GitExcludes::read(global.as_deref(), self.workspace.root()).map(Arc::new)
    }
}

/// `std::env::temp_dir` panics inside wasi components; there the host maps `/tmp`.
fn default_temp_dir() -> PathBuf {
    if cfg!(target_family = "wasm") {
        PathBuf::from("/tmp")
    } else {
        std::env::temp_dir()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_resolve_against_the_cwd_and_the_policy_decides() {
        let ws = Workspace::new("/ws", "/ws/sub")
            .unwrap()
            .with_home("/home/u");
        assert_eq!(ws.resolve("x").unwrap(), PathBuf::from("/ws/sub/x"));
        assert_eq!(ws.resolve("@../y").unwrap(), PathBuf::from("/ws/y"));
        assert_eq!(ws.resolve("~/n").unwrap(), PathBuf::from("/home/u/n"));
        assert_eq!(
            ws.resolve("../../etc/passwd").unwrap(),
            PathBuf::from("/etc/passwd")
        );
        assert!(
            ws.resolve_for("../../etc/passwd", PathAccess::Write)
                .is_err()
        );
        assert!(ws.resolve_for("/wsx/a", PathAccess::Write).is_err());
        assert!(ws.resolve_for("../z", PathAccess::Write).is_ok());
        let narrow = ws.with_policy(PathPolicy {
            scope: crate::policy::PathScope::Workspace,
            ..PathPolicy::default()
        });
        assert!(narrow.resolve("/etc/passwd").is_err());
        assert!(narrow.resolve("~/n").is_err());
    }
}
