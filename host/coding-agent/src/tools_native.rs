//! The built-in tools (`pi-builtin-tools`) run natively in the host process, as
//! `pi_agent::AgentTool`s. The WebAssembly build of the same tools is not merged yet; until it
//! is, this is how `pi` gets real tools. Paths are not confined (pi's tools may touch any file
//! the user can), so the workspace root is `/`.

use pi_agent::{AgentTool, BoxFuture, ExecutionMode, ToolError, ToolOutput, ToolUpdateFn};
use pi_ai::{ImageContent, TextContent, UserBlock};
use pi_builtin_tools::{Block, BuiltinTool, ToolDefinition, ToolEnv, Workspace};
use serde_json::Value;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use tokio_util::sync::CancellationToken;

/// Serialises `edit`/`write` calls on the same file (pi's per-file mutation queue).
#[derive(Default)]
struct FileLocks(Mutex<HashMap<PathBuf, Arc<tokio::sync::Mutex<()>>>>);

impl FileLocks {
    fn for_path(&self, path: PathBuf) -> Arc<tokio::sync::Mutex<()>> {
        let mut map = self.0.lock().unwrap_or_else(|p| p.into_inner());
        Arc::clone(map.entry(path).or_default())
    }
}

/// One built-in tool with its environment.
pub struct NativeTool {
    tool: Arc<dyn BuiltinTool>,
    definition: ToolDefinition,
    env: Arc<ToolEnv>,
    locks: Arc<FileLocks>,
}

/// The definitions of the named built-ins, in the given order (unknown names are skipped).
pub fn definitions(names: &[String]) -> Vec<ToolDefinition> {
    names
        .iter()
        .filter_map(|n| pi_builtin_tools::builtin_tool(n))
        .map(|t| t.definition())
        .collect()
}

/// The named built-ins working in `cwd`. `command_env` is added to the environment of `bash`
/// commands (pi's `PI_*` session variables).
pub fn tools(
    names: &[String],
    cwd: &Path,
    command_env: Vec<(String, String)>,
    settings: &crate::settings::SettingsManager,
) -> Result<Vec<Arc<dyn AgentTool>>, String> {
    let workspace = Workspace::new("/", cwd).map_err(|e| e.message)?;
    let mut env = ToolEnv::native(workspace);
    env.command_env.extend(command_env);
    env.auto_resize_images = settings.images_auto_resize();
    if let Some(shell) = settings.shell_path() {
        env.shell.path = crate::paths::expand_tilde(&shell)
            .to_string_lossy()
            .into_owned();
    }
    env.shell.command_prefix = settings.shell_command_prefix();
    let env = Arc::new(env);
    let locks = Arc::new(FileLocks::default());
    Ok(names
        .iter()
        .filter_map(|n| pi_builtin_tools::builtin_tool(n))
        .map(|tool| {
            let tool: Arc<dyn BuiltinTool> = Arc::from(tool);
            Arc::new(NativeTool {
                definition: tool.definition(),
                tool,
                env: Arc::clone(&env),
                locks: Arc::clone(&locks),
            }) as Arc<dyn AgentTool>
        })
        .collect())
}

fn to_agent_output(output: pi_builtin_tools::ToolOutput) -> ToolOutput {
    ToolOutput {
        content: output
            .content
            .into_iter()
            .map(|block| match block {
                Block::Text { text } => UserBlock::Text(TextContent {
                    text,
                    text_signature: None,
                }),
                Block::Image { data, mime_type } => {
                    UserBlock::Image(ImageContent { data, mime_type })
                }
            })
            .collect(),
        details: output.details,
    }
}

impl AgentTool for NativeTool {
    fn name(&self) -> &str {
        &self.definition.name
    }

    fn label(&self) -> &str {
        &self.definition.label
    }

    fn description(&self) -> &str {
        &self.definition.description
    }

    fn parameters(&self) -> &Value {
        &self.definition.parameters
    }

    fn prepare_arguments(&self, args: Value) -> Value {
        self.tool.prepare_arguments(args)
    }

    fn execution_mode(&self) -> ExecutionMode {
        match self.definition.execution_mode {
            pi_builtin_tools::ExecutionMode::Parallel => ExecutionMode::Parallel,
            pi_builtin_tools::ExecutionMode::Sequential => ExecutionMode::Sequential,
        }
    }

    fn execute<'a>(
        &'a self,
        _call_id: &'a str,
        args: Value,
        cancel: CancellationToken,
        on_update: ToolUpdateFn,
    ) -> BoxFuture<'a, Result<ToolOutput, ToolError>> {
        Box::pin(async move {
            let mutates = matches!(self.definition.name.as_str(), "edit" | "write");
            let file_lock = match args.get("path").and_then(Value::as_str) {
                Some(path) if mutates => {
                    self.env.resolve(path).ok().map(|p| self.locks.for_path(p))
                }
                _ => None,
            };
            let _guard = match &file_lock {
                Some(lock) => Some(lock.lock().await),
                None => None,
            };
            let stop = Arc::new(AtomicBool::new(false));
            let watcher = {
                let stop = Arc::clone(&stop);
                let cancel = cancel.clone();
                tokio::spawn(async move {
                    cancel.cancelled().await;
                    stop.store(true, Ordering::SeqCst);
                })
            };
            let tool = Arc::clone(&self.tool);
            let env = Arc::clone(&self.env);
            let result = tokio::task::spawn_blocking(move || {
                let mut progress = |partial| on_update(to_agent_output(partial));
                tool.execute(args, &env, &mut progress, &stop)
            })
            .await;
            watcher.abort();
            match result {
                Ok(Ok(output)) => Ok(to_agent_output(output)),
                Ok(Err(error)) => Err(ToolError::new(error.message)),
                Err(join) => Err(ToolError::new(format!("tool failed: {join}"))),
            }
        })
    }
}
