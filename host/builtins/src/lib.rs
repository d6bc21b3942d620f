//! pi's seven built-in tools (`read`, `bash`, `edit`, `write`, `grep`, `find`, `ls`) as
//! WebAssembly components of the `tool` world, embedded in the binary and run by the extension
//! host (pi-ext-host) under the least grant each needs, built from the path policy
//! ([`ToolContext::policy`]):
//!
//! | tools | grant |
//! |---|---|
//! | `read`, `grep`, `find`, `ls` | read-only: the policy's read roots (`/` unless `tools.pathScope` is `workspace`) |
//! | `edit`, `write` | read-write: the workspace and the writable roots (`/` under `anywhere`), except the approval rules files ([`ToolContext::protected_files`]) |
//! | `bash` | workspace read-write, `process` (in the Landlock sandbox when one is set), the temp dir saved outputs go to |
//!
//! [`TOOLS`] is the one table of what the host knows of each tool.
//!
//! Start-up costs nothing: definitions come from `pi-builtin-tools` (pure data), and a tool's
//! component is compiled (or loaded from pi-ext-host's disk cache) on that tool's first call.
//!
//! ```text
//! let host = pi_ext_host::ExtensionHost::new(cache_dir)?;
//! let ctx = pi_builtins::ToolContext::new(&host, cwd);
//! let tools = pi_builtins::select(&ctx, &pi_builtins::DEFAULT_ENABLED);
//! ```

mod adapter;
mod context;
mod locks;
mod shard;
mod structured;

/// The component bytes, one static per tool (`READ`, `BASH`, …), built by `build.rs`.
pub mod components {
    include!(concat!(env!("OUT_DIR"), "/components.rs"));
}

pub use adapter::BuiltinComponentTool;
pub use context::{ToolContext, own_temp_dir};
pub use pi_builtin_tools::{ExecutionMode, PathPolicy, PathScope, ShellConfig, ToolDefinition};
pub use pi_ext_api::ToolDescription;

use pi_agent::AgentTool;
use pi_builtin_tools::PathAccess;
use pi_ext_host::{FsAccess, Grant, Preopen};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

/// What a built-in tool's component may touch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    /// The policy's read roots, read-only.
    Read,
    /// The policy's write roots, read-write.
    Write,
    /// The workspace read-write, processes, and the temp dir saved outputs go to.
    Shell,
}

/// What the host knows of one built-in tool.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BuiltinTool {
    pub name: &'static str,
    pub access: Access,
    /// Calls are serialised per file path (pi queues edits to one file).
    pub mutates_files: bool,
    /// A call may be shared out between several instances of the component (`shard`).
    pub shards: bool,
    /// Enabled when no `--tools` list is given.
    pub default_enabled: bool,
}

const fn tool(name: &'static str, access: Access, shards: bool, default: bool) -> BuiltinTool {
    BuiltinTool {
        name,
        access,
        mutates_files: matches!(access, Access::Write),
        shards,
        default_enabled: default,
    }
}

/// The seven built-in tools, in pi's order.
pub const TOOLS: [BuiltinTool; 7] = [
    tool("read", Access::Read, false, true),
    tool("bash", Access::Shell, false, true),
    tool("edit", Access::Write, false, true),
    tool("write", Access::Write, false, true),
    tool("grep", Access::Read, true, false),
    tool("find", Access::Read, true, false),
    tool("ls", Access::Read, false, false),
];

/// The built-in tools' names in pi's order.
pub const TOOL_NAMES: [&str; 7] = {
    let mut names = [""; 7];
    let mut i = 0;
    while i < TOOLS.len() {
        names[i] = TOOLS[i].name;
        i += 1;
    }
    names
};

/// The tools pi enables when no `--tools` list is given.
pub const DEFAULT_ENABLED: [&str; 4] = {
    let mut names = [""; 4];
    let (mut i, mut n) = (0, 0);
    while i < TOOLS.len() {
        if TOOLS[i].default_enabled {
            names[n] = TOOLS[i].name;
            n += 1;
        }
        i += 1;
    }
    names
};

/// The table entry of `name`.
pub fn builtin(name: &str) -> Option<&'static BuiltinTool> {
    TOOLS.iter().find(|t| t.name == name)
}

/// Longest a built-in call may run: pi sets no limit (bash has its own `timeout` parameter),
/// so this only guards against a runaway component.
const CALL_TIMEOUT: Duration = Duration::from_secs(24 * 60 * 60);
/// Linear memory cap of a built-in call (whole files are read, images decoded).
const MEMORY_MIB: u64 = 2048;
/// How long an aborted `bash` may wind down (its process group is killed at once) so it
/// reports "Command aborted" with the output so far, as pi does.
const BASH_ABORT_GRACE: Duration = Duration::from_secs(2);

/// The definitions of all seven tools (name, label, description, schema, prompt snippet and
/// guidelines, execution mode), in pi's order. Computed once, without touching a component.
pub fn definitions() -> &'static [ToolDefinition] {
    static DEFINITIONS: OnceLock<Vec<ToolDefinition>> = OnceLock::new();
    DEFINITIONS.get_or_init(|| {
        pi_builtin_tools::builtin_tools()
            .iter()
            .map(|tool| tool.definition())
            .collect()
    })
}

/// The definition of one built-in tool.
pub fn definition(name: &str) -> Option<&'static ToolDefinition> {
    definitions().iter().find(|d| d.name == name)
}

/// The host's description of one built-in tool (what the system prompt and the agent see).
pub fn description(name: &str) -> Option<ToolDescription> {
    let def = definition(name)?;
    Some(ToolDescription {
        name: def.name.clone(),
        label: def.label.clone(),
        description: def.description.clone(),
        parameters: def.parameters.clone().into(),
        prompt_snippet: Some(def.prompt_snippet.clone()).filter(|s| !s.is_empty()),
        prompt_guidelines: def.prompt_guidelines.clone(),
        sequential: def.execution_mode == ExecutionMode::Sequential,
    })
}

/// The component of a built-in tool.
pub fn component_bytes(name: &str) -> Option<&'static [u8]> {
    embedded(name).map(|(bytes, _)| bytes)
}

/// The component of a built-in tool as a source for pi-ext-host, with its build-time digest.
pub fn component_source(name: &str) -> Option<pi_ext_host::ComponentSource> {
    let (bytes, sha256) = embedded(name)?;
    Some(pi_ext_host::ComponentSource::Embedded {
        name: format!("<built-in {name} component>"),
        bytes,
        sha256,
    })
}

fn embedded(name: &str) -> Option<(&'static [u8], &'static str)> {
    use components::*;
    Some(match name {
        "read" => (READ, READ_SHA256),
        "bash" => (BASH, BASH_SHA256),
        "edit" => (EDIT, EDIT_SHA256),
        "write" => (WRITE, WRITE_SHA256),
        "grep" => (GREP, GREP_SHA256),
        "find" => (FIND, FIND_SHA256),
        "ls" => (LS, LS_SHA256),
        _ => return None,
    })
}

/// The least grant `name` needs in `ctx`'s workspace under its path policy.
pub fn grant(name: &str, ctx: &ToolContext) -> Option<Grant> {
    let mut grant = Grant::new(ctx.cwd());
    grant.limits.timeout = CALL_TIMEOUT;
    grant.limits.memory_mib = MEMORY_MIB;
    // `images.autoResize: false` reaches the model only if the host does not fit the images
    // the tool left as they were.
    grant.limits.fit_images = ctx.auto_resize_images;
    let preopens = |access: PathAccess, fs: FsAccess| {
        let policy = ctx.policy();
        let roots = policy.roots(ctx.cwd(), access);
        roots
            .into_iter()
            .filter(|dir| dir.as_path() != ctx.cwd())
            .map(|path| Preopen { path, access: fs })
            .collect()
    };
    match builtin(name)?.access {
        Access::Read => {
            grant.filesystem = FsAccess::Read;
            grant.preopens = preopens(PathAccess::Read, FsAccess::Read);
        }
        Access::Write => {
            grant.filesystem = FsAccess::Write;
            grant.preopens = preopens(PathAccess::Write, FsAccess::Write);
            // Only pi writes the project's approval rules (a tool must not grant itself any).
            grant.protected = ctx.protected_files.clone();
        }
        Access::Shell => {
            grant.filesystem = FsAccess::Write;
            grant.process = true;
            grant.temp_dir = Some(ctx.temp_dir.clone());
            grant.sandbox = ctx.sandbox.clone().map(|mut sandbox| {
                sandbox.writable = shell_writable(ctx);
                sandbox
            });
            grant.limits.abort_grace = BASH_ABORT_GRACE;
        }
    }
    Some(grant)
}

/// Where sandboxed `workspace-write` commands may write: the workspace, the writable roots
/// (pi's temp dir among them) and the system temp dir (commands make temp files there).
fn shell_writable(ctx: &ToolContext) -> Vec<std::path::PathBuf> {
    let mut dirs = vec![ctx.cwd().to_path_buf()];
    dirs.extend(ctx.policy().writable_roots);
    let system = std::env::temp_dir();
    if !dirs.contains(&system) {
        dirs.push(system);
    }
    dirs
}

/// One built-in tool for `ctx`; `None` for an unknown name. Nothing is compiled until its
/// first call.
pub fn builtin_tool(ctx: &ToolContext, name: &str) -> Option<Arc<dyn AgentTool>> {
    BuiltinComponentTool::new(ctx, name).map(|tool| Arc::new(tool) as Arc<dyn AgentTool>)
}

/// All seven built-in tools for `ctx`, in pi's order.
pub fn builtin_tools(ctx: &ToolContext) -> Vec<Arc<dyn AgentTool>> {
    select(ctx, &TOOL_NAMES)
}

/// The named built-in tools for `ctx` (e.g. [`DEFAULT_ENABLED`] or a `--tools` list), in the
/// order given; unknown names are skipped.
pub fn select(ctx: &ToolContext, names: &[&str]) -> Vec<Arc<dyn AgentTool>> {
    names
        .iter()
        .filter_map(|name| builtin_tool(ctx, name))
        .collect()
}
