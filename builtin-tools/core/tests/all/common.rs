use pi_builtin_tools::{PathPolicy, ToolEnv, ToolError, ToolOutput, Workspace, builtin_tool};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use tempfile::TempDir;

/// A temp workspace (root = cwd) with a separate temp dir for bash's saved outputs.
pub struct Ws {
    // Kept so the directories live as long as the workspace.
    #[allow(dead_code)]
    pub dir: TempDir,
    #[allow(dead_code)]
    pub tmp: TempDir,
    pub env: ToolEnv,
}

impl Ws {
    pub fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let tmp = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let env = ToolEnv::native(Workspace::at(&root).unwrap()).with_temp_dir(tmp.path());
        Ws { dir, tmp, env }
    }

    /// A workspace at `rel` inside a temp dir (`dir`), so tests can put files above it.
    #[allow(dead_code)]
    pub fn nested(rel: &str) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let tmp = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap().join(rel);
        std::fs::create_dir_all(&root).unwrap();
        let env = ToolEnv::native(Workspace::at(&root).unwrap()).with_temp_dir(tmp.path());
        Ws { dir, tmp, env }
    }

    /// Makes `home` the user's home for the lookup of git's global excludes (and for `~`),
    /// without the process's `XDG_CONFIG_HOME`, `GIT_CONFIG_*` or system git config.
    #[allow(dead_code)]
    pub fn set_git_home(&mut self, home: &Path) {
        self.env.workspace = self.env.workspace.clone().with_home(home);
        self.env.command_env = crate::git::isolated_env(&self.env.command_env, home);
    }

    /// The tools' path policy; the temp dir stays writable, as the host keeps it.
    #[allow(dead_code)]
    pub fn set_policy(&mut self, mut policy: PathPolicy) {
        policy.writable_roots.push(self.tmp.path().to_path_buf());
        self.env.workspace = self.env.workspace.clone().with_policy(policy);
    }

    /// What `~` expands to in tool paths.
    #[allow(dead_code)]
    pub fn set_home(&mut self, home: &Path) {
        self.env.workspace = self.env.workspace.clone().with_home(home);
    }

    pub fn root(&self) -> PathBuf {
        self.env.workspace.root().to_path_buf()
    }

    pub fn path(&self, rel: &str) -> PathBuf {
        self.root().join(rel)
    }

    pub fn write(&self, rel: &str, content: impl AsRef<[u8]>) -> PathBuf {
        let path = self.path(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, content).unwrap();
        path
    }

    pub fn read(&self, rel: &str) -> String {
        std::fs::read_to_string(self.path(rel)).unwrap()
    }

    pub fn run(&self, name: &str, args: Value) -> Result<ToolOutput, ToolError> {
        let cancel = AtomicBool::new(false);
        self.run_with(name, args, &mut |_| {}, &cancel)
    }

    pub fn run_with(
        &self,
        name: &str,
        args: Value,
        progress: &mut dyn FnMut(ToolOutput),
        cancel: &AtomicBool,
    ) -> Result<ToolOutput, ToolError> {
        let tool = builtin_tool(name).unwrap();
        let args = tool.prepare_arguments(args);
        tool.execute(args, &self.env, progress, cancel)
    }

    /// Runs a tool that must succeed and returns its text.
    pub fn ok(&self, name: &str, args: Value) -> String {
        match self.run(name, args) {
            Ok(out) => out.joined_text(),
            Err(e) => panic!("{name} failed: {}", e.message),
        }
    }

    /// Runs a tool that must fail and returns its error message.
    pub fn err(&self, name: &str, args: Value) -> String {
        match self.run(name, args) {
            Ok(out) => panic!("{name} unexpectedly succeeded: {}", out.joined_text()),
            Err(e) => e.message,
        }
    }
}

pub fn lines(n: usize, prefix: &str) -> String {
    (1..=n).map(|i| format!("{prefix}{i}\n")).collect()
}

pub fn exists(path: &Path) -> bool {
    path.exists()
}
