//! The call envelope between a host and a built-in tool running as a component.
//!
//! A component sees only its WIT imports and its preopened directories, so everything else a
//! call depends on (the workspace, image support, the shell and the environment of `bash`,
//! where saved outputs go) travels with the call: the host sends
//! `{"arguments": <the model's arguments>, "context": <InvocationContext>}` as the call's
//! arguments text and the component rebuilds its [`ToolEnv`] from it. The envelope is
//! private to pi's own tool components; the model never sees it.

use crate::ToolError;
use crate::ancestor_ignores::{AncestorIgnores, GitExcludes};
use crate::env::{ShellConfig, ToolEnv, Workspace};
use crate::policy::PathPolicy;
use crate::process::ProcessRunner;
use crate::walk::shard::Shard;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::path::PathBuf;
use std::sync::Arc;

/// The arguments of one call plus the environment it runs in.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Invocation {
    pub arguments: Value,
    pub context: InvocationContext,
}

/// The facts a tool's [`ToolEnv`] is rebuilt from inside the component.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct InvocationContext {
    /// Workspace root (absolute host path; the component's preopened directory).
    pub root: PathBuf,
    /// Session cwd inside the root.
    pub cwd: PathBuf,
    /// What `~` expands to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub home: Option<PathBuf>,
    /// Where the tool may read and write besides the root (the host preopened the same).
    #[serde(default)]
    pub policy: PathPolicy,
    #[serde(default = "yes")]
    pub model_supports_images: bool,
    #[serde(default = "yes")]
    pub auto_resize_images: bool,
    /// `bash` only: shell executable (a host path).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shell: Option<String>,
    /// `bash` only: pi's `shellCommandPrefix`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command_prefix: Option<String>,
    /// `bash` only: the complete environment of the command.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub command_env: Vec<(String, String)>,
    /// `bash` only: where truncated outputs are saved (a host path the component can write).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub temp_dir: Option<PathBuf>,
    /// `grep` and `find` only: the ignore files between the workspace and its git repository
    /// root, which the component cannot read itself. They travel here rather than in the
    /// arguments because they describe where the call runs, not what the model asked for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ancestor_ignores: Option<AncestorIgnores>,
    /// `grep` and `find` only: git's exclude files outside the workspace (the user's global
    /// excludes, a worktree root's `info/exclude`), for the same reason.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub git_excludes: Option<GitExcludes>,
    /// `grep`/`find` only: this instance's part of a call the host split between instances.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shard: Option<Shard>,
}

fn yes() -> bool {
    true
}

impl InvocationContext {
    /// A context for a workspace whose root is the cwd, with pi's defaults.
    pub fn new(cwd: impl Into<PathBuf>) -> Self {
        let cwd = cwd.into();
        InvocationContext {
            root: cwd.clone(),
            cwd,
            home: None,
            policy: PathPolicy::default(),
            model_supports_images: true,
            auto_resize_images: true,
            shell: None,
            command_prefix: None,
            command_env: Vec::new(),
            temp_dir: None,
            ancestor_ignores: None,
            git_excludes: None,
            shard: None,
        }
    }

    /// The tool environment this context describes, running commands through `runner`.
    pub fn to_env(&self, runner: Option<Arc<dyn ProcessRunner>>) -> Result<ToolEnv, ToolError> {
        let mut workspace = Workspace::new(&self.root, &self.cwd)?.with_policy(self.policy.clone());
        if let Some(home) = &self.home {
            workspace = workspace.with_home(home);
        }
        let mut env = ToolEnv::new(workspace);
        env.runner = runner;
        env.model_supports_images = self.model_supports_images;
        env.auto_resize_images = self.auto_resize_images;
        env.command_env = self.command_env.clone();
        let default_shell = ShellConfig::default();
        env.shell = ShellConfig {
            path: self.shell.clone().unwrap_or(default_shell.path),
            command_prefix: self.command_prefix.clone(),
        };
        if let Some(dir) = &self.temp_dir {
            env.temp_dir = dir.clone();
        }
        env.ancestor_ignores = self.ancestor_ignores.clone().map(Arc::new);
        env.git_excludes = self.git_excludes.clone().map(Arc::new);
        env.shard = self.shard;
        Ok(env)
    }
}

impl Invocation {
    /// The envelope as the call's arguments text.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_else(|_| "{}".to_owned())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_and_defaults() {
        let mut context = InvocationContext::new("/ws/sub");
        context.root = "/ws".into();
        context.command_env = vec![("A".into(), "1".into())];
        context.git_excludes = Some(GitExcludes {
            global: Some("*.swp\n".into()),
            root_exclude: None,
        });
        let invocation = Invocation {
            arguments: serde_json::json!({"path": "x"}),
            context: context.clone(),
        };
        let back: Invocation = serde_json::from_str(&invocation.to_json()).unwrap();
        assert_eq!(back.context, context);
        let env = back.context.to_env(None).unwrap();
        assert_eq!(env.git_excludes(), context.git_excludes.map(Arc::new));
        let minimal: InvocationContext =
            serde_json::from_str(r#"{"root": "/w", "cwd": "/w"}"#).unwrap();
        assert!(minimal.model_supports_images && minimal.auto_resize_images);
        assert_eq!(minimal.git_excludes, None);
        let env = minimal.to_env(None).unwrap();
        assert!(env.resolve("/etc/passwd").is_ok());
        assert!(env.resolve_writable("/etc/passwd").is_err());
        let mut narrow = InvocationContext::new("/w");
        narrow.policy.scope = crate::PathScope::Workspace;
        let back: InvocationContext =
            serde_json::from_str(&serde_json::to_string(&narrow).unwrap()).unwrap();
        assert!(back.to_env(None).unwrap().resolve("/etc/passwd").is_err());
    }
}
