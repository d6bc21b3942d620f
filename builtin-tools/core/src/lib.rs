//! Logic of pi's seven built-in tools (`read`, `write`, `edit`, `bash`, `grep`, `find`, `ls`).
//!
//! The crate is host-independent: everything outside pure computation goes through
//! [`ToolEnv`] (a workspace with its path policy, a [`ProcessRunner`] for `bash`, a temp
//! directory). The same code runs natively (tests, benches) and inside a `wasm32-wasip2`
//! component, where `std::fs` works against preopened directories and the process runner is
//! provided by the host.

pub mod ancestor_ignores;
mod args;
mod env;
pub mod invocation;
mod paths;
pub mod policy;
mod process;
pub mod tools;
pub mod truncate;
pub mod walk;

#[cfg(all(unix, feature = "native"))]
mod native;

pub use env::{ShellConfig, ToolEnv, Workspace};
pub use invocation::{Invocation, InvocationContext};
#[cfg(all(unix, feature = "native"))]
pub use native::NativeRunner;
pub use policy::{PathAccess, PathPolicy, PathScope};
pub use process::{ProcessError, ProcessExit, ProcessRunner, SpawnRequest};

use serde::Serialize;
use serde_json::Value;
use std::sync::atomic::AtomicBool;

/// How the agent loop may schedule a tool (pi's `executionMode`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ExecutionMode {
    Parallel,
    Sequential,
}

/// Everything the host needs to offer a tool to the model and list it in the system prompt.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolDefinition {
    pub name: String,
    pub label: String,
    pub description: String,
    /// JSON schema of the arguments object.
    pub parameters: Value,
    pub prompt_snippet: String,
    pub prompt_guidelines: Vec<String>,
    pub execution_mode: ExecutionMode,
}

/// One block of a tool result, in pi's JSON shape.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "camelCase")]
pub enum Block {
    Text {
        text: String,
    },
    Image {
        /// Base64 without a data-URL prefix.
        data: String,
        #[serde(rename = "mimeType")]
        mime_type: String,
    },
}

impl Block {
    pub fn text(text: impl Into<String>) -> Self {
        Block::Text { text: text.into() }
    }

    /// The text of a text block, `None` for images.
    pub fn as_text(&self) -> Option<&str> {
        match self {
            Block::Text { text } => Some(text),
            Block::Image { .. } => None,
        }
    }
}

/// A successful (or partial, when sent as progress) tool result.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ToolOutput {
    pub content: Vec<Block>,
    /// Tool-specific details for the UI (`{}` when there are none).
    pub details: Value,
}

impl ToolOutput {
    pub fn text(text: impl Into<String>, details: Value) -> Self {
        ToolOutput {
            content: vec![Block::text(text)],
            details,
        }
    }

    /// All text blocks joined by newlines (tests and logs).
    pub fn joined_text(&self) -> String {
        let texts: Vec<&str> = self.content.iter().filter_map(Block::as_text).collect();
        texts.join("\n")
    }
}

/// A failed tool call: the message is what the model sees (pi's thrown `Error.message`).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{message}")]
pub struct ToolError {
    pub message: String,
    /// Details kept for the UI even on failure (e.g. bash's full output path).
    pub details: Value,
}

impl ToolError {
    pub fn new(message: impl Into<String>) -> Self {
        ToolError {
            message: message.into(),
            details: Value::Object(Default::default()),
        }
    }

    pub fn with_details(message: impl Into<String>, details: Value) -> Self {
        ToolError {
            message: message.into(),
            details,
        }
    }
}

/// Receives partial results while a tool runs (pi's `onUpdate`).
pub type Progress<'a> = &'a mut dyn FnMut(ToolOutput);

/// The common interface of the built-in tools.
pub trait BuiltinTool: Send + Sync {
    fn definition(&self) -> ToolDefinition;

    /// Compatibility shim applied before schema validation (pi's `prepareArguments`).
    fn prepare_arguments(&self, args: Value) -> Value {
        args
    }

    /// Runs the tool. `cancel` is polled; once it is set the tool stops as soon as it can.
    fn execute(
        &self,
        args: Value,
        env: &ToolEnv,
        progress: Progress<'_>,
        cancel: &AtomicBool,
    ) -> Result<ToolOutput, ToolError>;
}

/// The seven built-ins in pi's order.
pub fn builtin_tools() -> Vec<Box<dyn BuiltinTool>> {
    vec![
        Box::new(tools::read::ReadTool),
        Box::new(tools::bash::BashTool),
        Box::new(tools::edit::EditTool),
        Box::new(tools::write::WriteTool),
        Box::new(tools::grep::GrepTool),
        Box::new(tools::find::FindTool),
        Box::new(tools::ls::LsTool),
    ]
}

/// Looks a built-in up by its tool name.
pub fn builtin_tool(name: &str) -> Option<Box<dyn BuiltinTool>> {
    builtin_tools()
        .into_iter()
        .find(|tool| tool.definition().name == name)
}

/// Names of the tools pi enables when no `--tools` list is given.
pub const DEFAULT_ACTIVE_TOOLS: [&str; 4] = ["read", "bash", "edit", "write"];
