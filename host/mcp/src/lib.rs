//! MCP servers as tool sources, as pi 1.6 configures them (`mcp.json`): the configuration,
//! the client (stdio and streamable HTTP), tool naming and exposure, and the definitions
//! pinned the first time a server's tools are seen.
//!
//! pi-app starts an [`McpManager`] with the run's [`ServerSpec`]s; servers connect in the
//! background and their tools become [`McpTool`]s, which the session offers to the model by
//! their [`Exposure`].

pub mod config;
pub mod credentials;
mod manager;
pub mod naming;
mod spec;

pub use manager::{
    ManagerOptions, McpManager, McpTool, PinState, ServerState, ServerStatus, ToolAnnotations,
};
pub use spec::{AuthSpec, Exposure, ServerSpec, TransportSpec};
