//! The MCP side of `pi mcp serve`: the tools listed from their descriptions (name,
//! description, input schema), a `tools/call` run as the agent runs one (arguments prepared
//! and validated, then executed), its output mapped to MCP content (text, images, structured
//! content) with tool failures as `isError` results, partial results as progress
//! notifications when the client asks for them, and the client's `notifications/cancelled`
//! aborting the call.

use pi_agent::{AgentTool, ToolError, ToolOutput, ToolUpdateFn, validate_tool_arguments};
use pi_ai::UserBlock;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    JsonObject, ListToolsResult, PaginatedRequestParams, ProgressNotificationParam,
    ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler, ServiceExt};
use serde_json::Value;
use std::path::Path;
use std::sync::Arc;

/// The served tools and what the client is told about them.
pub(super) struct ToolServer {
    tools: Vec<Arc<dyn AgentTool>>,
    listed: Vec<Tool>,
    instructions: String,
}

/// What the server says it is (the `instructions` of its `initialize` answer).
pub(super) fn instructions(builtin: bool, cwd: &Path) -> String {
    let builtins = if builtin {
        " and pi's built-in tools (read, bash, edit, write, grep, find, ls) under its path \
         policy and tools.sandbox"
    } else {
        ""
    };
    format!(
        "pi's tools served over MCP, working in {}: the tools of the extension packages \
         installed for pi (WebAssembly components, each call run in its sandbox with only \
         what its user granted the package){builtins}. A path or action a tool was not \
         granted is refused in an error result.",
        cwd.display()
    )
}

impl ToolServer {
    pub(super) fn new(tools: Vec<Arc<dyn AgentTool>>, instructions: String) -> Self {
        let listed = tools
            .iter()
            .map(|tool| listed_tool(tool.as_ref()))
            .collect();
        ToolServer {
            tools,
            listed,
            instructions,
        }
    }

    /// Serves on stdin/stdout until the client closes stdin.
    pub(super) async fn run(self) -> Result<(), String> {
        let running = match self.serve(rmcp::transport::io::stdio()).await {
            Ok(running) => running,
            // stdin closed before `initialize`: the client went away, nothing failed.
            Err(rmcp::service::ServerInitializeError::ConnectionClosed(when)) => {
                tracing::info!("pi mcp serve: the client went away ({when})");
                return Ok(());
            }
            Err(error) => return Err(format!("MCP session did not start: {error}")),
        };
        let reason = running
            .waiting()
            .await
            .map_err(|error| format!("MCP session failed: {error}"))?;
        tracing::info!("pi mcp serve: the client went away ({reason:?})");
        Ok(())
    }

    /// Runs `tool` on `arguments` as the agent does: prepared, validated, executed; `None`
    /// when the client cancelled the call first.
    async fn call(
        &self,
        tool: &dyn AgentTool,
        id: &str,
        arguments: Value,
        (cancel, progress): (tokio_util::sync::CancellationToken, ToolUpdateFn),
    ) -> Option<CallToolResult> {
        let args = tool.prepare_arguments(arguments);
        let args = match validate_tool_arguments(tool.name(), tool.parameters().value(), &args) {
            Ok(args) => args,
            Err(message) => return Some(failed(ToolError::new(message))),
        };
        let run = tool.execute(id, args, cancel.clone(), progress);
        tokio::select! {
            result = run => Some(match result {
                Ok(output) => succeeded(output),
                Err(error) => failed(error),
            }),
            () = cancel.cancelled() => None,
        }
    }
}

impl ServerHandler for ToolServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("pi", env!("CARGO_PKG_VERSION")))
            .with_instructions(self.instructions.clone())
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        Ok(ListToolsResult::with_all_items(self.listed.clone()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let Some(tool) = self.tools.iter().find(|t| t.name() == request.name) else {
            return Err(McpError::invalid_params(
                format!("Unknown tool: {}", request.name),
                None,
            ));
        };
        let arguments = Value::Object(request.arguments.unwrap_or_default());
        let id = format!("mcp-{}", context.id);
        tracing::debug!("pi mcp serve: calling {} ({id})", request.name);
        let progress = progress_updates(&context);
        match self
            .call(
                tool.as_ref(),
                &id,
                arguments,
                (context.ct.clone(), progress),
            )
            .await
        {
            Some(result) => Ok(result.into()),
            None => {
                tracing::info!("pi mcp serve: {} cancelled by the client", request.name);
                Err(McpError::internal_error("Cancelled by the client", None))
            }
        }
    }
}

/// Where a call's partial results go: when the client asked for progress (a `progressToken`),
/// each becomes a `notifications/progress` whose message is the update's last line, sent in
/// order by one task per call (it ends when the call drops the sender).
fn progress_updates(context: &RequestContext<RoleServer>) -> ToolUpdateFn {
    let Some(token) = context.meta.get_progress_token() else {
        return Arc::new(|_| {});
    };
    let (sender, mut updates) = tokio::sync::mpsc::unbounded_channel::<String>();
    let peer = context.peer.clone();
    tokio::spawn(async move {
        let mut count = 0u32;
        while let Some(message) = updates.recv().await {
            count += 1;
            let param = ProgressNotificationParam::new(token.clone(), f64::from(count))
                .with_message(message);
            if peer.notify_progress(param).await.is_err() {
                break;
            }
        }
    });
    Arc::new(move |update: ToolOutput| {
        let _ = sender.send(last_line(&update.content));
    })
}

/// The last non-empty line of an update's text, at most [`PROGRESS_CHARS`] characters of it.
fn last_line(blocks: &[UserBlock]) -> String {
    let text = blocks
        .iter()
        .rev()
        .find_map(|block| match block {
            UserBlock::Text(text) => Some(text.text.as_str()),
            UserBlock::Image(_) => None,
        })
        .unwrap_or("");
    let line = text
        .lines()
        .rev()
        .find(|line| !line.trim().is_empty())
        .unwrap_or("");
    let skip = line.chars().count().saturating_sub(PROGRESS_CHARS);
    line.chars().skip(skip).collect()
}

/// How much of a partial result's last line a progress notification carries.
const PROGRESS_CHARS: usize = 200;

/// A tool as `tools/list` shows it: its name, description and arguments' schema; its label
/// as the title when it has its own.
fn listed_tool(tool: &dyn AgentTool) -> Tool {
    let schema: JsonObject = match tool.parameters().value() {
        Value::Object(object) => object.clone(),
        // MCP needs an object schema; a tool without one takes an empty object.
        _ => serde_json::Map::from_iter([("type".to_owned(), Value::from("object"))]),
    };
    let listed = Tool::new(
        tool.name().to_owned(),
        tool.description().to_owned(),
        Arc::new(schema),
    );
    if tool.label() != tool.name() {
        listed.with_title(tool.label())
    } else {
        listed
    }
}

/// A tool's output as MCP content.
fn content(blocks: Vec<UserBlock>) -> Vec<ContentBlock> {
    blocks
        .into_iter()
        .map(|block| match block {
            UserBlock::Text(text) => ContentBlock::text(text.text),
            UserBlock::Image(image) => ContentBlock::image(image.data, image.mime_type),
        })
        .collect()
}

fn succeeded(output: ToolOutput) -> CallToolResult {
    let mut result = CallToolResult::success(content(output.content));
    result.structured_content = structured(output.structured_content);
    result
}

/// MCP's `structuredContent` is an object; anything else (`read`'s text) is already in the
/// content and left out (rmcp would repeat it as one more text block).
fn structured(value: Option<Box<Value>>) -> Option<Value> {
    value.map(|value| *value).filter(Value::is_object)
}

/// A failed call: its message (and structured content) in an `isError` result.
fn failed(error: ToolError) -> CallToolResult {
    let output = error.into_output();
    let mut result = CallToolResult::error(content(output.content));
    result.structured_content = structured(output.structured_content);
    result
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use pi_ai::{ImageContent, TextContent};

    #[test]
    fn text_and_images_map_to_mcp_content_and_errors_set_is_error() {
        let output = ToolOutput {
            content: vec![
                UserBlock::Text(TextContent {
                    text: "hello".into(),
                    text_signature: None,
                }),
                UserBlock::Image(ImageContent {
                    data: "aGk=".into(),
                    mime_type: "image/png".into(),
                }),
            ],
            details: Value::Null,
            structured_content: Some(Box::new(serde_json::json!({"exitCode": 0}))),
        };
        let result = serde_json::to_value(succeeded(output)).unwrap();
        assert_eq!(result["content"][0]["type"], "text");
        assert_eq!(result["content"][0]["text"], "hello");
        assert_eq!(result["content"][1]["type"], "image");
        assert_eq!(result["content"][1]["mimeType"], "image/png");
        assert_eq!(result["structuredContent"]["exitCode"], 0);
        assert_eq!(result["isError"], false);

        let result = serde_json::to_value(failed(ToolError::new("refused"))).unwrap();
        assert_eq!(result["isError"], true);
        assert_eq!(result["content"][0]["text"], "refused");

        // `read`'s structured content is its text: not an object, so only the content has it.
        let output = ToolOutput {
            structured_content: Some(Box::new(Value::from("hello"))),
            ..ToolOutput::text("hello")
        };
        let result = serde_json::to_value(succeeded(output)).unwrap();
        assert!(result.get("structuredContent").is_none(), "{result}");
        assert_eq!(result["content"].as_array().unwrap().len(), 1);
    }
}
