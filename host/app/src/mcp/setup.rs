//! What start-up decides about MCP: whether the run has servers (pi 1.6's rules for
//! `--no-mcp`, `-builtin:mcp` and `--no-extensions`), and what the App starts them with.

use super::{RESOURCE_TOOLS, TOOL_SEARCH, ToolFilter};
use pi_session::settings::SettingsManager;

/// The MCP servers of a run, resolved from `mcp.json` at start-up; the App starts them.
pub struct McpSetup {
    pub servers: Vec<pi_mcp::ServerSpec>,
    pub filter: ToolFilter,
    pub options: pi_mcp::ManagerOptions,
}

/// What the command line says about MCP.
#[derive(Debug, Clone, Copy)]
pub struct McpFlags<'a> {
    /// `--no-mcp`.
    pub no_mcp: bool,
    /// `--no-extensions`.
    pub no_extensions: bool,
    /// `-e` sources (`builtin:mcp` among them brings MCP back after `--no-extensions`).
    pub extensions: &'a [String],
}

/// Whether this run has MCP servers, as pi 1.6 decides: not with `--no-mcp`, nor when the
/// settings' `extensions` list disables the built-in (`-builtin:mcp`), nor with
/// `--no-extensions` unless `-e builtin:mcp` brings it back.
pub fn mcp_enabled(flags: McpFlags<'_>, settings: &SettingsManager) -> bool {
    let listed = |entry: &str| {
        settings
            .effective()
            .resource_list("extensions")
            .is_some_and(|list| list.iter().any(|e| e.trim() == entry))
    };
    let asked = flags.extensions.iter().any(|e| e.trim() == BUILTIN_MCP);
    !flags.no_mcp && !listed(&format!("-{BUILTIN_MCP}")) && (!flags.no_extensions || asked)
}

/// pi 1.6's name of its MCP extension in extension lists.
pub const BUILTIN_MCP: &str = "builtin:mcp";

/// Whether `--tools` names an MCP tool (`mcp__…`, patterns too) or one that comes with them.
pub(crate) fn is_mcp_tool(name: &str) -> bool {
    name.starts_with("mcp__") || name == TOOL_SEARCH || RESOURCE_TOOLS.contains(&name)
}
