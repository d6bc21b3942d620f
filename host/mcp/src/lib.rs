//! MCP servers as tool sources, as pi 1.6 configures them (`mcp.json`): the configuration,
//! the client (stdio and streamable HTTP, through rmcp), tool naming and exposure, and the
//! definitions pinned the first time a server's tools are seen.
//!
//! pi-app starts an [`McpManager`] with the run's [`ServerSpec`]s; servers connect in the
//! background and their tools become [`McpTool`]s, which the session offers to the model by
//! their [`Exposure`].

mod client;
pub mod config;
pub mod credentials;
mod http;
pub mod log;
mod manager;
pub mod naming;
pub mod oauth;
pub mod output;
pub mod pins;
mod resources;
mod spec;
mod stdio;
mod tool;

pub use client::{CLIENT_NAME, SUPPORTED_PROTOCOL_VERSIONS, offered_protocol_version};
pub use http::{AuthProvider, BearerSource};
pub use manager::{
    ChangedDefinition, ManagerOptions, McpManager, McpTool, PinState, ServerState, ServerStatus,
    ToolAnnotations,
};
pub use output::READ_MCP_RESOURCE_TOOL;
pub use resources::{LIST_MCP_RESOURCE_TEMPLATES_TOOL, LIST_MCP_RESOURCES_TOOL};
pub use spec::{AuthSpec, Exposure, ServerSpec, TransportSpec, glob_matches};
