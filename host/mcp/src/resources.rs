//! The resource tools pi 1.6 (and Codex, opencode) offer for servers with resources:
//! `list_mcp_resources`, `list_mcp_resource_templates` and `read_mcp_resource`, with the
//! shapes of pi's `extensions/mcp/resources.js`. Listings are JSON (`{server?, resources:
//! [{server, ...resource}], nextCursor?, errors?}`); MCP App resources (`ui://`,
//! `profile=mcp-app`) are left out; read resources become text and images for the model.

use crate::output::{READ_MCP_RESOURCE_TOOL, block_to_content, limit_content};
use crate::tool::ServerLink;
use pi_agent::{AgentTool, BoxFuture, ToolError, ToolOutput, ToolUpdateFn};
use pi_ai::{TextContent, UserBlock};
use rmcp::model::{PaginatedRequestParams, ReadResourceRequestParams};
use serde_json::{Map, Value, json};
use std::future::Future;
use std::sync::Arc;
use tokio_util::sync::CancellationToken;

pub const LIST_MCP_RESOURCES_TOOL: &str = "list_mcp_resources";
pub const LIST_MCP_RESOURCE_TEMPLATES_TOOL: &str = "list_mcp_resource_templates";

/// The connected servers with resources, at call time.
pub trait ResourceServers: Send + Sync {
    fn resource_servers(&self) -> Vec<Arc<ServerLink>>;
}

#[derive(Clone, Copy, PartialEq)]
enum Kind {
    Resources,
    Templates,
    Read,
}

/// One of the three tools.
pub struct ResourceTool {
    kind: Kind,
    parameters: pi_ai::Schema,
    servers: Arc<dyn ResourceServers>,
}

/// The three tools over `servers`.
pub fn resource_tools(servers: Arc<dyn ResourceServers>) -> Vec<Arc<dyn AgentTool>> {
    let string = |description: &str| json!({"type": "string", "description": description});
    let list = json!({
        "type": "object",
        "properties": {
            "server": string("MCP server name. Omit to list every server with resources."),
            "cursor": string("Opaque cursor from a previous call with the same server; omit for the first page."),
        },
        "additionalProperties": false,
    });
    let read = json!({
        "type": "object",
        "properties": {
            "server": string("MCP server name exactly as configured. Must match the 'server' field returned by list_mcp_resources."),
            "uri": string("Resource URI to read. Must be one of the URIs returned by list_mcp_resources."),
        },
        "required": ["server", "uri"],
        "additionalProperties": false,
    });
    [
        (Kind::Resources, list.clone()),
        (Kind::Templates, list),
        (Kind::Read, read),
    ]
    .into_iter()
    .map(|(kind, parameters)| {
        Arc::new(ResourceTool {
            kind,
            parameters: pi_ai::Schema::from(parameters),
            servers: servers.clone(),
        }) as Arc<dyn AgentTool>
    })
    .collect()
}

/// A string argument, trimmed; `None` when absent or blank.
fn string_argument(args: &Value, key: &str) -> Result<Option<String>, ToolError> {
    match args.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.trim().to_owned()).filter(|s| !s.is_empty())),
        Some(_) => Err(ToolError::new(format!("{key} must be a string"))),
    }
}

fn is_mcp_app(item: &Value) -> bool {
    let uri = item
        .get("uri")
        .or(item.get("uriTemplate"))
        .and_then(Value::as_str)
        .unwrap_or("");
    let mime = item.get("mimeType").and_then(Value::as_str).unwrap_or("");
    let mime = mime.to_ascii_lowercase().replace([' ', '"'], "");
    uri.starts_with("ui://") || mime.contains(";profile=mcp-app")
}

/// A listed item without `_meta` and icons, tagged with its server (first).
fn listed(server: &str, item: &Value) -> Value {
    let mut out = Map::new();
    out.insert("server".into(), json!(server));
    if let Some(fields) = item.as_object() {
        for (key, value) in fields {
            if key != "_meta" && key != "icons" {
                out.insert(key.clone(), value.clone());
            }
        }
    }
    Value::Object(out)
}

async fn timed<T>(
    link: &ServerLink,
    work: impl Future<Output = Result<T, rmcp::ServiceError>>,
) -> Result<T, String> {
    match tokio::time::timeout(link.timeout, work).await {
        Ok(Ok(value)) => Ok(value),
        Ok(Err(error)) => Err(error.to_string()),
        Err(_) => Err(format!("timed out after {} ms", link.timeout.as_millis())),
    }
}

impl ResourceTool {
    fn name_str(&self) -> &'static str {
        match self.kind {
            Kind::Resources => LIST_MCP_RESOURCES_TOOL,
            Kind::Templates => LIST_MCP_RESOURCE_TEMPLATES_TOOL,
            Kind::Read => READ_MCP_RESOURCE_TOOL,
        }
    }

    fn key(&self) -> &'static str {
        if self.kind == Kind::Templates {
            "resourceTemplates"
        } else {
            "resources"
        }
    }

    fn find(&self, name: &str) -> Result<Arc<ServerLink>, ToolError> {
        let servers = self.servers.resource_servers();
        if let Some(link) = servers.iter().find(|l| l.server == name) {
            return Ok(link.clone());
        }
        let available: Vec<&str> = servers.iter().map(|l| l.server.as_str()).collect();
        let hint = if available.is_empty() {
            String::new()
        } else {
            format!(". Servers with resources: {}", available.join(", "))
        };
        Err(ToolError::new(format!(
            "MCP server \"{name}\" has no resources{hint}"
        )))
    }

    /// One page of a server's listing, as wire JSON.
    async fn page(&self, link: &ServerLink, cursor: Option<String>) -> Result<Value, String> {
        let params = Some(PaginatedRequestParams::default().with_cursor(cursor));
        let value = match self.kind {
            Kind::Templates => {
                serde_json::to_value(timed(link, link.peer.list_resource_templates(params)).await?)
            }
            _ => serde_json::to_value(timed(link, link.peer.list_resources(params)).await?),
        };
        value.map_err(|e| e.to_string())
    }

    /// Every page of a server's listing: its items.
    async fn all(&self, link: &ServerLink) -> Result<Vec<Value>, String> {
        let mut items = Vec::new();
        let mut cursor = None;
        loop {
            let page = self.page(link, cursor).await?;
            if let Some(list) = page.get(self.key()).and_then(Value::as_array) {
                items.extend(list.iter().cloned());
            }
            cursor = page
                .get("nextCursor")
                .and_then(Value::as_str)
                .map(str::to_owned);
            if cursor.is_none() {
                return Ok(items);
            }
        }
    }

    async fn list(&self, args: &Value) -> Result<Value, ToolError> {
        let key = self.key();
        let cursor = string_argument(args, "cursor")?;
        if let Some(name) = string_argument(args, "server")? {
            let link = self.find(&name)?;
            let page = self.page(&link, cursor).await.map_err(ToolError::new)?;
            let items: Vec<Value> = page
                .get(key)
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter(|item| !is_mcp_app(item))
                .map(|item| listed(&name, item))
                .collect();
            let mut payload = json!({"server": name, key: items});
            if let Some(next) = page.get("nextCursor").filter(|c| c.is_string()) {
                payload["nextCursor"] = next.clone();
            }
            return Ok(payload);
        }
        if cursor.is_some() {
            return Err(ToolError::new(
                "cursor can only be used when a server is specified",
            ));
        }
        let mut servers = self.servers.resource_servers();
        servers.sort_by(|a, b| a.server.cmp(&b.server));
        let results = futures::future::join_all(servers.iter().map(|l| self.all(l))).await;
        let mut items = Vec::new();
        let mut errors = Vec::new();
        for (link, result) in servers.iter().zip(results) {
            match result {
                Ok(list) => items.extend(
                    list.iter()
                        .filter(|i| !is_mcp_app(i))
                        .map(|i| listed(&link.server, i)),
                ),
                Err(error) => errors.push(json!({"server": link.server, "error": error})),
            }
        }
        let mut payload = json!({ key: items });
        if !errors.is_empty() {
            payload["errors"] = Value::Array(errors);
        }
        Ok(payload)
    }

    fn json_result(&self, server: Option<&str>, payload: Value) -> ToolOutput {
        let text = UserBlock::Text(TextContent {
            text: payload.to_string(),
            text_signature: None,
        });
        let (content, full) = limit_content(vec![text]);
        let mut details = json!({"server": server.unwrap_or(""), "tool": self.name_str()});
        if let Some(path) = full {
            details["fullOutputPath"] = json!(path.display().to_string());
        }
        ToolOutput {
            content,
            details,
            structured_content: Some(Box::new(payload)),
        }
    }

    async fn read(&self, args: &Value) -> Result<ToolOutput, ToolError> {
        let name = string_argument(args, "server")?.ok_or("server must be provided")?;
        let uri = string_argument(args, "uri")?.ok_or("uri must be provided")?;
        let link = self.find(&name)?;
        let result = timed(
            &link,
            link.peer
                .read_resource(ReadResourceRequestParams::new(uri.clone())),
        )
        .await
        .map_err(ToolError::new)?;
        let wire = serde_json::to_value(&result).map_err(|e| ToolError::new(e.to_string()))?;
        let contents: Vec<Value> = wire
            .get("contents")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        let mut blocks = Vec::new();
        for item in &contents {
            if contents.len() > 1 {
                let label = item.get("uri").and_then(Value::as_str).unwrap_or("");
                blocks.push(UserBlock::Text(TextContent {
                    text: format!("{label}:"),
                    text_signature: None,
                }));
            }
            let block = json!({"type": "resource", "resource": item});
            blocks.extend(block_to_content(&name, &block, false));
        }
        if blocks.is_empty() {
            blocks.push(UserBlock::Text(TextContent {
                text: format!("Resource {uri} is empty."),
                text_signature: None,
            }));
        }
        let (content, full) = limit_content(blocks);
        let mut details = json!({"server": name, "tool": READ_MCP_RESOURCE_TOOL});
        if let Some(path) = full {
            details["fullOutputPath"] = json!(path.display().to_string());
        }
        let contents: Vec<Value> = contents
            .into_iter()
            .map(|mut c| {
                if let Some(map) = c.as_object_mut() {
                    map.remove("_meta");
                }
                c
            })
            .collect();
        Ok(ToolOutput {
            content,
            details,
            structured_content: Some(Box::new(
                json!({"server": name, "uri": uri, "contents": contents}),
            )),
        })
    }
}

impl AgentTool for ResourceTool {
    fn name(&self) -> &str {
        self.name_str()
    }
    fn description(&self) -> &str {
        match self.kind {
            Kind::Resources => {
                "Lists resources provided by MCP servers. Resources allow servers to share data that provides context to language models, such as files, database schemas, or application-specific information. Prefer resources over web search when possible."
            }
            Kind::Templates => {
                "Lists resource templates provided by MCP servers. Parameterized resource templates allow servers to share data that takes parameters and provides context to language models, such as files, database schemas, or application-specific information. Prefer resource templates over web search when possible."
            }
            Kind::Read => {
                "Read a specific resource from an MCP server given the server name and resource URI."
            }
        }
    }
    fn parameters(&self) -> &pi_ai::Schema {
        &self.parameters
    }
    fn execute<'a>(
        &'a self,
        _call_id: &'a str,
        args: Value,
        cancel: CancellationToken,
        _on_update: ToolUpdateFn,
    ) -> BoxFuture<'a, Result<ToolOutput, ToolError>> {
        Box::pin(async move {
            let work = async {
                if self.kind == Kind::Read {
                    return self.read(&args).await;
                }
                let payload = self.list(&args).await?;
                let server = string_argument(&args, "server")?;
                Ok(self.json_result(server.as_deref(), payload))
            };
            tokio::select! {
                result = work => result,
                () = cancel.cancelled() => Err(ToolError::new(format!("{} was cancelled", self.name_str()))),
            }
        })
    }
}
