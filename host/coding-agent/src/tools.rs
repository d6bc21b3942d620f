//! The built-in tools of a `pi` run: WebAssembly components embedded in the binary
//! (`pi-builtin-tools-embed`), run by the extension host under the least grant each needs, in
//! the session's working directory. A tool's component is compiled on its first call and kept
//! in `<agentDir>/cache/components`, so start-up compiles nothing.

use crate::settings::SettingsManager;
use pi_agent::AgentTool;
use pi_builtin_tools::ToolDefinition;
use pi_builtin_tools_embed::ToolContext;
use std::path::Path;
use std::sync::Arc;

/// The definitions of the named built-ins, in the given order (unknown names are skipped).
pub fn definitions(names: &[String]) -> Vec<ToolDefinition> {
    names
        .iter()
        .filter_map(|n| pi_builtin_tools_embed::definition(n))
        .cloned()
        .collect()
}

/// Where the compiled components of the built-in tools are cached.
pub fn cache_dir(agent_dir: &Path) -> std::path::PathBuf {
    agent_dir.join("cache").join("components")
}

/// The named built-ins working in `cwd`. `command_env` is added to the environment of `bash`
/// commands (pi's `PI_*` session variables).
pub fn tools(
    names: &[String],
    cwd: &Path,
    agent_dir: &Path,
    command_env: Vec<(String, String)>,
    settings: &SettingsManager,
) -> Result<Vec<Arc<dyn AgentTool>>, String> {
    let host = pi_wasm::ExtensionHost::new(cache_dir(agent_dir))
        .map_err(|e| format!("cannot start the tool host: {e}"))?;
    let mut ctx = ToolContext::new(&host, cwd);
    ctx.command_env.extend(command_env);
    ctx.auto_resize_images = settings.images_auto_resize();
    if let Some(shell) = settings.shell_path() {
        ctx.shell.path = crate::paths::expand_tilde(&shell)
            .to_string_lossy()
            .into_owned();
    }
    ctx.shell.command_prefix = settings.shell_command_prefix();
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    Ok(pi_builtin_tools_embed::select(&ctx, &names))
}
