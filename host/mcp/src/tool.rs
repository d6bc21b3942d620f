//! A server's tool as an agent tool: its definition as pi 1.6 declares it and the call
//! (`tools/call` with a progress token; the server's timeout, restarted by each progress
//! notification; cancellation sent as `notifications/cancelled`; never retried).

use crate::client::ProgressRoutes;
use crate::output::convert_result;
use crate::spec::Exposure;
use pi_agent::{AgentTool, BoxFuture, ToolError, ToolOutput, ToolUpdateFn};
use rmcp::model::{
    CallToolRequest, CallToolRequestParams, CancelledNotificationParam, ClientRequest, ServerResult,
};
use rmcp::service::{Peer, PeerRequestOptions, RoleClient, ServiceError};
use serde_json::Value;
use std::sync::Arc;
use std::time::Duration;
use tokio_util::sync::CancellationToken;

/// Tool annotations as the server declares them (MCP `ToolAnnotations`); `title` is the
/// tool's own `title` when it has one, else its annotations' (as pi 1.6 picks it).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ToolAnnotations {
    pub title: Option<String>,
    pub read_only_hint: Option<bool>,
    pub destructive_hint: Option<bool>,
    pub idempotent_hint: Option<bool>,
    pub open_world_hint: Option<bool>,
}

impl ToolAnnotations {
    /// From a tool's wire `annotations`.
    pub fn from_wire(annotations: Option<&Value>) -> Self {
        let Some(a) = annotations else {
            return Self::default();
        };
        let hint = |key: &str| a.get(key).and_then(Value::as_bool);
        ToolAnnotations {
            title: a.get("title").and_then(Value::as_str).map(str::to_owned),
            read_only_hint: hint("readOnlyHint"),
            destructive_hint: hint("destructiveHint"),
            idempotent_hint: hint("idempotentHint"),
            open_world_hint: hint("openWorldHint"),
        }
    }
}

/// Whether a tool's definition is the one pinned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PinState {
    /// Seen before, unchanged (or first seen now, and pinned).
    Pinned,
    /// Changed since it was pinned: withheld until `pi mcp trust <server>`.
    Changed,
}

/// What the tools of one connection share.
pub struct ServerLink {
    pub server: String,
    pub peer: Peer<RoleClient>,
    pub progress: Arc<ProgressRoutes>,
    pub timeout: Duration,
    /// Whether the server has resources (resource links then name `read_mcp_resource`).
    pub has_resources: bool,
}

/// A tool of a connected server, callable as an agent tool (`mcp__<server>__<tool>`).
pub struct McpTool {
    pub(crate) name: String,
    pub(crate) tool: String,
    pub(crate) description: String,
    pub(crate) parameters: pi_ai::Schema,
    pub(crate) annotations: ToolAnnotations,
    pub(crate) exposure: Exposure,
    pub(crate) pin: PinState,
    pub(crate) link: Arc<ServerLink>,
}

impl McpTool {
    /// The tool from its wire definition (`tools/list`), named `name`.
    pub(crate) fn from_wire(
        name: String,
        wire: &Value,
        exposure: Exposure,
        pin: PinState,
        link: Arc<ServerLink>,
    ) -> Self {
        let tool = wire
            .get("name")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_owned();
        let mut annotations = ToolAnnotations::from_wire(wire.get("annotations"));
        // The tool's title, else its annotations' (pi's order).
        if let Some(title) = wire.get("title").and_then(Value::as_str) {
            annotations.title = Some(title.to_owned());
        }
        let title = annotations.title.as_deref();
        let description = match wire
            .get("description")
            .and_then(Value::as_str)
            .map(str::trim)
        {
            Some(d) if !d.is_empty() => d.to_owned(),
            _ => title
                .map(str::to_owned)
                .unwrap_or_else(|| format!("MCP tool {tool} from server {}", link.server)),
        };
        McpTool {
            name,
            tool,
            description,
            parameters: pi_ai::Schema::from(input_schema(wire.get("inputSchema"))),
            annotations,
            exposure,
            pin,
            link,
        }
    }

    /// The same tool with another pin state (after `trust`).
    pub(crate) fn with_pin(&self, pin: PinState) -> McpTool {
        self.with_state(pin, self.exposure)
    }

    /// The same tool with another exposure (`/mcp` changed the server's).
    pub(crate) fn with_exposure(&self, exposure: Exposure) -> McpTool {
        self.with_state(self.pin, exposure)
    }

    fn with_state(&self, pin: PinState, exposure: Exposure) -> McpTool {
        McpTool {
            name: self.name.clone(),
            tool: self.tool.clone(),
            description: self.description.clone(),
            parameters: self.parameters.clone(),
            annotations: self.annotations.clone(),
            exposure,
            pin,
            link: self.link.clone(),
        }
    }

    /// The server's name in `mcp.json`.
    pub fn server(&self) -> &str {
        &self.link.server
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

    async fn call(
        &self,
        args: Value,
        cancel: CancellationToken,
        on_update: ToolUpdateFn,
    ) -> Result<ToolOutput, ToolError> {
        let link = &self.link;
        let arguments = match args {
            Value::Object(map) => map,
            Value::Null => Default::default(),
            _ => return Err(ToolError::new("MCP tool arguments must be an object")),
        };
        let params = CallToolRequestParams::new(self.tool.clone()).with_arguments(arguments);
        let request = ClientRequest::CallToolRequest(CallToolRequest::new(params));
        let options = PeerRequestOptions::with_timeout(link.timeout).reset_timeout_on_progress();
        let handle = link
            .peer
            .send_cancellable_request(request, options)
            .await
            .map_err(|e| self.failure(e))?;
        let token = handle.progress_token.clone();
        let id = handle.id.clone();
        link.progress
            .insert(token.clone(), self.tool.clone(), on_update);
        let result = tokio::select! {
            result = handle.await_response() => result,
            () = cancel.cancelled() => {
                link.progress.remove(&token);
                // Told in the background: the call returns at once.
                let peer = link.peer.clone();
                tokio::spawn(async move {
                    let reason = Some("The user cancelled the tool call".to_owned());
                    let _ = peer.notify_cancelled(CancelledNotificationParam::new(Some(id), reason)).await;
                });
                return Err(ToolError::new(format!("MCP tool {}/{} was cancelled", link.server, self.tool)));
            }
        };
        link.progress.remove(&token);
        match result {
            Ok(ServerResult::CallToolResult(result)) => {
                let wire = serde_json::to_value(&result)
                    .map_err(|e| ToolError::new(format!("unreadable MCP result: {e}")))?;
                convert_result(&link.server, &self.tool, wire, link.has_resources)
            }
            Ok(_) => Err(ToolError::new(format!(
                "MCP server {} answered tools/call with something else than a tool result",
                link.server
            ))),
            Err(error) => Err(self.failure(error)),
        }
    }

    fn failure(&self, error: ServiceError) -> ToolError {
        let server = &self.link.server;
        let tool = &self.tool;
        ToolError::new(match error {
            ServiceError::Timeout { timeout } => format!(
                "MCP tool {server}/{tool} timed out after {} ms",
                timeout.as_millis()
            ),
            ServiceError::McpError(e) => format!("MCP tool {server}/{tool} failed: {}", e.message),
            ServiceError::TransportClosed => {
                format!("MCP server {server} closed the connection during {tool}")
            }
            other => format!("MCP tool {server}/{tool} failed: {other}"),
        })
    }
}

/// pi's `normalizeMcpInputSchema`: an object schema, with `properties` when it has none.
fn input_schema(schema: Option<&Value>) -> Value {
    let mut schema = match schema {
        Some(Value::Object(map)) => map.clone(),
        _ => Default::default(),
    };
    schema
        .entry("type")
        .or_insert_with(|| Value::from("object"));
    schema
        .entry("properties")
        .or_insert_with(|| Value::Object(Default::default()));
    Value::Object(schema)
}

impl AgentTool for McpTool {
    fn name(&self) -> &str {
        &self.name
    }
    fn label(&self) -> &str {
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
        args: Value,
        cancel: CancellationToken,
        on_update: ToolUpdateFn,
    ) -> BoxFuture<'a, Result<ToolOutput, ToolError>> {
        Box::pin(self.call(args, cancel, on_update))
    }
}
