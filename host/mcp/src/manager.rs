//! The servers of a run: connected in the background, their tools and states.
//!
//! SKELETON: the public API pi-app and pi-cli build on. The bodies are placeholders the
//! client work replaces; the signatures are the contract.

use crate::spec::{Exposure, ServerSpec};
use pi_agent::{AgentTool, BoxFuture, ToolError, ToolOutput, ToolUpdateFn};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::watch;
use tokio_util::sync::CancellationToken;

/// What every server of a run shares.
#[derive(Debug, Clone, Default)]
pub struct ManagerOptions {
    /// Where `mcp.log`, `mcp-pins.json` and `mcp-auth.json` live.
    pub agent_dir: PathBuf,
    /// The Landlock sandbox stdio servers run under (`tools.sandbox`), `None` when off.
    pub sandbox: Option<pi_ext_host::sandbox::ShellSandbox>,
}

/// Where a server is in its life.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ServerState {
    Connecting,
    Connected,
    /// Could not start or connect, or the connection was lost: why.
    Failed(String),
    /// An HTTP server that answered 401 and has no usable token.
    NeedsAuth,
}

impl ServerState {
    /// pi 1.6's names in `pi mcp list --json` (`connecting`, `connected`, `failed`, `needs-auth`).
    pub fn as_str(&self) -> &'static str {
        match self {
            ServerState::Connecting => "connecting",
            ServerState::Connected => "connected",
            ServerState::Failed(_) => "failed",
            ServerState::NeedsAuth => "needs-auth",
        }
    }
}

/// One server as the faces show it.
#[derive(Debug, Clone)]
pub struct ServerStatus {
    pub name: String,
    pub state: ServerState,
    /// Tools the server offers (withheld ones included).
    pub tools: usize,
    pub resources: bool,
    /// The server's `instructions` from its initialize answer.
    pub instructions: Option<String>,
    /// Tools whose definitions changed since they were pinned (withheld until trusted).
    pub changed_tools: Vec<String>,
}

/// Tool annotations as the server declares them (MCP `ToolAnnotations`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ToolAnnotations {
    pub title: Option<String>,
    pub read_only_hint: Option<bool>,
    pub destructive_hint: Option<bool>,
    pub idempotent_hint: Option<bool>,
    pub open_world_hint: Option<bool>,
}

/// Whether a tool's definition is the one pinned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PinState {
    /// Seen before, unchanged (or first seen now, and pinned).
    Pinned,
    /// Changed since it was pinned: withheld until `pi mcp trust <server>`.
    Changed,
}

/// A tool of a connected server, callable as an agent tool (`mcp__<server>__<tool>`).
pub struct McpTool {
    name: String,
    server: String,
    tool: String,
    description: String,
    parameters: pi_ai::Schema,
    annotations: ToolAnnotations,
    exposure: Exposure,
    pin: PinState,
}

impl McpTool {
    /// The server's name in `mcp.json`.
    pub fn server(&self) -> &str {
        &self.server
    }
    /// The tool's name on its server.
    pub fn remote_name(&self) -> &str {
        &self.tool
    }
    pub fn annotations(&self) -> &ToolAnnotations {
        &self.annotations
    }
    pub fn exposure(&self) -> Exposure {
        self.exposure
    }
    pub fn pin(&self) -> PinState {
        self.pin
    }
}

impl AgentTool for McpTool {
    fn name(&self) -> &str {
        &self.name
    }
    fn description(&self) -> &str {
        &self.description
    }
    fn parameters(&self) -> &pi_ai::Schema {
        &self.parameters
    }
    fn execute<'a>(
        &'a self,
        _call_id: &'a str,
        _args: serde_json::Value,
        _cancel: CancellationToken,
        _on_update: ToolUpdateFn,
    ) -> BoxFuture<'a, Result<ToolOutput, ToolError>> {
        Box::pin(async { Err(ToolError::new("MCP client not built yet")) })
    }
}

struct Inner {
    changes: watch::Sender<u64>,
}

/// The servers of a run. Cheap to clone.
#[derive(Clone)]
pub struct McpManager {
    inner: Arc<Inner>,
}

impl McpManager {
    /// Starts connecting every server in the background (on the current tokio runtime) and
    /// returns at once.
    pub fn start(servers: Vec<ServerSpec>, options: ManagerOptions) -> Self {
        let _ = (servers, options);
        McpManager {
            inner: Arc::new(Inner {
                changes: watch::channel(0).0,
            }),
        }
    }

    /// No servers (`--no-mcp`, or none configured).
    pub fn empty() -> Self {
        Self::start(Vec::new(), ManagerOptions::default())
    }

    /// Every configured server, in configuration order.
    pub fn servers(&self) -> Vec<ServerStatus> {
        Vec::new()
    }

    /// The spec of the server `name`.
    pub fn spec(&self, name: &str) -> Option<ServerSpec> {
        let _ = name;
        None
    }

    /// The tools of every connected server (withheld ones included, see [`McpTool::pin`]).
    pub fn tools(&self) -> Vec<Arc<McpTool>> {
        Vec::new()
    }

    /// `list_mcp_resources`, `list_mcp_resource_templates` and `read_mcp_resource`, when a
    /// connected server has resources.
    pub fn resource_tools(&self) -> Vec<Arc<dyn AgentTool>> {
        Vec::new()
    }

    /// Counts up whenever a server's state or tools change.
    pub fn changes(&self) -> watch::Receiver<u64> {
        self.inner.changes.subscribe()
    }

    /// Waits until each of `servers` left `Connecting`, at most `timeout`; whether all did.
    pub async fn wait_ready(&self, servers: &[String], timeout: Duration) -> bool {
        let _ = (servers, timeout);
        true
    }

    /// Accepts the server's current tool definitions as its pinned ones.
    pub fn trust(&self, server: &str) -> Result<usize, String> {
        let _ = server;
        Ok(0)
    }

    /// Stops every server (stdio: close stdin, then SIGTERM, then SIGKILL to its group).
    pub async fn shutdown(&self) {}
}
