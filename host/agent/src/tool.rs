//! The Runtime's tool interface: what the model sees (name, description, schema) plus what only
//! the host needs (label, argument preparation, execution mode, the execute function).

use pi_ai::{TextContent, Tool, UserBlock};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use tokio_util::sync::CancellationToken;

/// A boxed, sendable future (keeps [`AgentTool`] dyn-compatible).
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// Receives partial results while a tool runs; each becomes a `tool_execution_update` event.
pub type ToolUpdateFn = Arc<dyn Fn(ToolOutput) + Send + Sync>;

/// How a tool may be scheduled next to the other calls of the same assistant message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ExecutionMode {
    /// May run at the same time as other calls of the batch (pi's default).
    #[default]
    Parallel,
    /// Forces the whole batch to run one call after another.
    Sequential,
}

/// A tool's result (pi's `AgentToolResult`): content for the model, details for the UI/session.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolOutput {
    pub content: Vec<UserBlock>,
    #[serde(default)]
    pub details: Value,
    /// The result as data for programs rather than the model (pi 1.6's `structuredContent`:
    /// `bash`'s output, exit code and wall time; `read`'s text). Not sent to the model. Boxed:
    /// most results have none, and every tool event carries an output.
    #[serde(
        default,
        rename = "structuredContent",
        skip_serializing_if = "Option::is_none"
    )]
    pub structured_content: Option<Box<Value>>,
}

impl ToolOutput {
    /// One text block, empty details (`{}`).
    pub fn text(text: impl Into<String>) -> Self {
        ToolOutput {
            content: vec![UserBlock::Text(TextContent {
                text: text.into(),
                text_signature: None,
            })],
            details: Value::Object(Default::default()),
            structured_content: None,
        }
    }

    pub fn with_details(mut self, details: Value) -> Self {
        self.details = details;
        self
    }
}

/// A tool failure. It never escapes the loop: it becomes an `isError` result whose text is the
/// message and whose details are `details` (pi's `{}` when there are none).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{message}")]
pub struct ToolError {
    pub message: String,
    /// What the failing call still reports for the UI and the session (e.g. `bash`'s
    /// `truncation` and `fullOutputPath` when a command with a huge output exits non-zero).
    pub details: Option<Value>,
    /// The failing call's [`ToolOutput::structured_content`] (`bash` exiting non-zero).
    pub structured_content: Option<Box<Value>>,
    /// Images the failure still shows (an MCP server's error result with a screenshot), after
    /// the message. Boxed: most failures have none, and every result type carries this one.
    pub images: Option<Box<Vec<pi_ai::ImageContent>>>,
}

impl ToolError {
    pub fn new(message: impl Into<String>) -> Self {
        ToolError {
            message: message.into(),
            details: None,
            structured_content: None,
            images: None,
        }
    }

    /// The same failure carrying `details` into the error result.
    pub fn with_details(mut self, details: Value) -> Self {
        self.details = Some(details);
        self
    }

    /// The error result's output: the message as text, the details or `{}`.
    pub fn into_output(self) -> ToolOutput {
        let mut output = ToolOutput::text(self.message);
        if let Some(details) = self.details {
            output.details = details;
        }
        output.structured_content = self.structured_content;
        output.content.extend(
            self.images
                .into_iter()
                .flat_map(|images| *images)
                .map(UserBlock::Image),
        );
        output
    }
}

impl From<String> for ToolError {
    fn from(message: String) -> Self {
        ToolError::new(message)
    }
}

impl From<&str> for ToolError {
    fn from(message: &str) -> Self {
        ToolError::new(message)
    }
}

/// A tool the Runtime can run.
pub trait AgentTool: Send + Sync {
    /// The name the model calls.
    fn name(&self) -> &str;

    /// The name shown in the UI (default: the name).
    fn label(&self) -> &str {
        self.name()
    }

    fn description(&self) -> &str;

    /// JSON Schema of the arguments object.
    fn parameters(&self) -> &pi_ai::Schema;

    /// Rewrites arguments before validation (compatibility shims for old call shapes).
    fn prepare_arguments(&self, args: Value) -> Value {
        args
    }

    fn execution_mode(&self) -> ExecutionMode {
        ExecutionMode::Parallel
    }

    /// pi 1.x's `constrainedSampling` (see [`Tool::constrained_sampling`]); a tool that wraps
    /// another passes it on.
    fn constrained_sampling(&self) -> Option<bool> {
        None
    }

    /// Runs the tool. `cancel` fires on abort; `on_update` streams partial results.
    fn execute<'a>(
        &'a self,
        call_id: &'a str,
        args: Value,
        cancel: CancellationToken,
        on_update: ToolUpdateFn,
    ) -> BoxFuture<'a, Result<ToolOutput, ToolError>>;
}

/// The model-facing definition of a tool.
pub fn to_llm_tool(tool: &dyn AgentTool) -> Tool {
    Tool {
        name: tool.name().to_owned(),
        description: tool.description().to_owned(),
        parameters: tool.parameters().clone(),
        constrained_sampling: tool.constrained_sampling(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Strict(pi_ai::Schema);

    impl AgentTool for Strict {
        fn name(&self) -> &str {
            "strict"
        }
        fn description(&self) -> &str {
            "A tool whose arguments must match its schema"
        }
        fn parameters(&self) -> &pi_ai::Schema {
            &self.0
        }
        fn constrained_sampling(&self) -> Option<bool> {
            Some(true)
        }
        fn execute<'a>(
            &'a self,
            _call_id: &'a str,
            _args: Value,
            _cancel: CancellationToken,
            _on_update: ToolUpdateFn,
        ) -> BoxFuture<'a, Result<ToolOutput, ToolError>> {
            Box::pin(async { Err(ToolError::new("never called")) })
        }
    }

    #[test]
    fn the_model_facing_definition_carries_constrained_sampling() {
        let tool = Strict(serde_json::json!({"type": "object"}).into());
        let definition = to_llm_tool(&tool);
        assert_eq!(definition.constrained_sampling, Some(true));
        assert_eq!(
            serde_json::to_value(&definition).unwrap()["constrainedSampling"],
            serde_json::json!(true)
        );
    }
}
