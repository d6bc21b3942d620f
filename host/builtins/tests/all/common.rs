//! `Ws` of the shared suite, backed by the components: each call goes through
//! `pi_builtins::builtin_tool` (an `AgentTool`) on a tokio runtime, so the suite
//! exercises the public API the agent uses.

use pi_ai::UserBlock;
use pi_builtin_tools::{Block, ToolError, ToolOutput};
use pi_builtins::{PathPolicy, ToolContext, builtin_tool};
use pi_ext_host::ExtensionHost;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;
use tempfile::TempDir;
use tokio_util::sync::CancellationToken;

/// One host for the whole test binary; its cache persists across runs, so only the first run
/// compiles the components.
pub fn host() -> &'static ExtensionHost {
    static HOST: OnceLock<ExtensionHost> = OnceLock::new();
    HOST.get_or_init(|| {
        let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("builtin-tools-cache");
        ExtensionHost::new(dir).unwrap()
    })
}

pub fn runtime() -> &'static tokio::runtime::Runtime {
    static RT: OnceLock<tokio::runtime::Runtime> = OnceLock::new();
    RT.get_or_init(|| {
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap()
    })
}

/// The settings the shared suite changes between calls.
pub struct Settings {
    pub model_supports_images: bool,
}

/// A temp workspace (root = cwd) with a separate temp dir for bash's saved outputs.
pub struct Ws {
    #[allow(dead_code)]
    pub dir: TempDir,
    #[allow(dead_code)]
    pub tmp: TempDir,
    pub env: Settings,
    pub ctx: ToolContext,
}

impl Ws {
    pub fn new() -> Self {
        Self::nested("")
    }

    /// A workspace at `rel` inside a temp dir (`dir`), so tests can put files above it.
    pub fn nested(rel: &str) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let tmp = tempfile::tempdir().unwrap();
        let mut root = dir.path().canonicalize().unwrap();
        if !rel.is_empty() {
            root.push(rel);
            std::fs::create_dir_all(&root).unwrap();
        }
        let mut ctx = ToolContext::new(host(), &root);
        ctx.temp_dir = tmp.path().canonicalize().unwrap();
        Ws {
            dir,
            tmp,
            env: Settings {
                model_supports_images: true,
            },
            ctx,
        }
    }

    /// Makes `home` the user's home for the lookup of git's global excludes (and for `~`),
    /// without the process's `XDG_CONFIG_HOME`, `GIT_CONFIG_*` or system git config.
    #[allow(dead_code)]
    pub fn set_git_home(&mut self, home: &Path) {
        self.ctx.home = Some(home.to_path_buf());
        let env = crate::git::isolated_env(&self.ctx.command_env, home);
        self.ctx.command_env = env;
    }

    /// The tools' path policy (the context keeps its temp dir writable).
    #[allow(dead_code)]
    pub fn set_policy(&mut self, policy: PathPolicy) {
        self.ctx.paths = policy;
    }

    /// What `~` expands to in tool paths.
    #[allow(dead_code)]
    pub fn set_home(&mut self, home: &Path) {
        self.ctx.home = Some(home.to_path_buf());
    }

    pub fn root(&self) -> PathBuf {
        self.ctx.cwd().to_path_buf()
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

    #[allow(dead_code)]
    pub fn read(&self, rel: &str) -> String {
        std::fs::read_to_string(self.path(rel)).unwrap()
    }

    pub fn run(&self, name: &str, args: Value) -> Result<ToolOutput, ToolError> {
        let cancel = AtomicBool::new(false);
        self.run_with(name, args, &mut |_| {}, &cancel)
    }

    /// Runs one call through the component; progress updates are replayed to `progress`
    /// once the call ended, `cancel` is forwarded to the call's cancellation token.
    pub fn run_with(
        &self,
        name: &str,
        args: Value,
        progress: &mut dyn FnMut(ToolOutput),
        cancel: &AtomicBool,
    ) -> Result<ToolOutput, ToolError> {
        self.ctx
            .model_supports_images
            .store(self.env.model_supports_images, Ordering::Relaxed);
        let tool = builtin_tool(&self.ctx, name).unwrap();
        let args = tool.prepare_arguments(args);
        let updates = Arc::new(Mutex::new(Vec::new()));
        let sink = updates.clone();
        let result = runtime().block_on(async {
            let token = CancellationToken::new();
            let call = tool.execute(
                "call-1",
                args,
                token.clone(),
                Arc::new(move |u| sink.lock().unwrap().push(u)),
            );
            tokio::pin!(call);
            loop {
                tokio::select! {
                    result = &mut call => break result,
                    _ = tokio::time::sleep(Duration::from_millis(10)) => {
                        if cancel.load(Ordering::SeqCst) {
                            token.cancel();
                        }
                    }
                }
            }
        });
        for update in updates.lock().unwrap().drain(..) {
            progress(convert(update));
        }
        result.map(convert).map_err(|e| {
            let details = e
                .details
                .unwrap_or_else(|| Value::Object(Default::default()));
            ToolError::with_details(e.message, details)
        })
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

fn convert(output: pi_agent::ToolOutput) -> ToolOutput {
    ToolOutput {
        content: output
            .content
            .into_iter()
            .map(|block| match block {
                UserBlock::Text(t) => Block::Text { text: t.text },
                UserBlock::Image(i) => Block::Image {
                    data: i.data,
                    mime_type: i.mime_type,
                },
            })
            .collect(),
        details: output.details,
    }
}

#[allow(dead_code)]
pub fn lines(n: usize, prefix: &str) -> String {
    (1..=n).map(|i| format!("{prefix}{i}\n")).collect()
}

#[allow(dead_code)]
pub fn exists(path: &Path) -> bool {
    path.exists()
}
