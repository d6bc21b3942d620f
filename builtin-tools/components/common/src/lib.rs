//! The body shared by pi's built-in tool components.
//!
//! Each component wraps one [`BuiltinTool`] of `pi-builtin-tools`: it unpacks the call
//! envelope ([`Invocation`]) the host sends, rebuilds the tool's environment from it, runs
//! the tool with progress going to `host.progress`, and turns the outcome into a WIT result
//! (a tool failure is a result with `is-error`, its details kept).

mod dirs;
mod runner;

pub use dirs::WasiDirs;
pub use runner::HostRunner;

use pi_builtin_tools::{
    Block, BuiltinTool, ExecutionMode, Invocation, InvocationContext, ProcessRunner, ToolError,
    ToolOutput,
};
use pi_guest_sdk::{ContentBlock, Image, ToolCall, ToolDefinition, ToolResult, host};
use serde_json::Value;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

/// The tool's definition in WIT form.
pub fn describe(tool: &dyn BuiltinTool) -> Vec<ToolDefinition> {
    let def = tool.definition();
    vec![ToolDefinition {
        name: def.name,
        label: def.label,
        description: def.description,
        parameters_schema: def.parameters.to_string(),
        prompt_snippet: Some(def.prompt_snippet).filter(|s| !s.is_empty()),
        prompt_guidelines: def.prompt_guidelines,
        execution_mode: match def.execution_mode {
            ExecutionMode::Parallel => pi_guest_sdk::ExecutionMode::Parallel,
            ExecutionMode::Sequential => pi_guest_sdk::ExecutionMode::Sequential,
        },
    }]
}

/// Runs one call of `tool`; `runner` is the process runner (only `bash` has one).
pub fn execute(
    tool: &dyn BuiltinTool,
    call: ToolCall,
    runner: Option<Arc<dyn ProcessRunner>>,
) -> Result<ToolResult, String> {
    let invocation = unpack(&call.arguments)?;
    let mut env = match invocation.context.to_env(runner) {
        Ok(env) => env,
        Err(e) => return Ok(failure(e)),
    };
    env.dirs = Some(Arc::new(WasiDirs));
    let args = tool.prepare_arguments(invocation.arguments);
    // Aborts reach the component through `host.aborted()` (bash's runner polls it) and the
    // host's interrupt; nothing in here sets this flag.
    let cancel = AtomicBool::new(false);
    let mut progress = |update: ToolOutput| host::progress(&success(update));
    Ok(match tool.execute(args, &env, &mut progress, &cancel) {
        Ok(output) => success(output),
        Err(error) => failure(error),
    })
}

/// The envelope; a bare arguments object (a host that sends none) runs in `host.cwd()`.
fn unpack(text: &str) -> Result<Invocation, String> {
    let value: Value =
        serde_json::from_str(text).map_err(|e| format!("invalid call arguments: {e}"))?;
    if value.get("context").is_some() && value.get("arguments").is_some() {
        return serde_json::from_value(value).map_err(|e| format!("invalid call envelope: {e}"));
    }
    Ok(Invocation {
        arguments: value,
        context: InvocationContext::new(host::cwd()),
    })
}

fn blocks(content: Vec<Block>) -> Vec<ContentBlock> {
    content
        .into_iter()
        .map(|block| match block {
            Block::Text { text } => ContentBlock::Text(text),
            Block::Image { data, mime_type } => ContentBlock::Image(Image { data, mime_type }),
        })
        .collect()
}

fn success(output: ToolOutput) -> ToolResult {
    ToolResult {
        content: blocks(output.content),
        details: Some(output.details.to_string()),
        is_error: false,
    }
}

fn failure(error: ToolError) -> ToolResult {
    ToolResult {
        content: vec![ContentBlock::Text(error.message)],
        details: Some(error.details.to_string()),
        is_error: true,
    }
}

/// Exports a tool component wrapping one `BuiltinTool` value; `bash` passes a runner.
#[macro_export]
macro_rules! export_builtin {
    ($tool:expr) => {
        $crate::export_builtin!($tool, None);
    };
    ($tool:expr, $runner:expr) => {
        struct BuiltinComponent;
        impl pi_guest_sdk::Tool for BuiltinComponent {
            fn describe() -> ::std::vec::Vec<pi_guest_sdk::ToolDefinition> {
                $crate::describe(&$tool)
            }
            fn execute(
                call: pi_guest_sdk::ToolCall,
            ) -> ::std::result::Result<pi_guest_sdk::ToolResult, ::std::string::String> {
                $crate::execute(&$tool, call, $runner)
            }
        }
        pi_guest_sdk::export_tool!(BuiltinComponent);
    };
}
