// The body of the `v010-tool` and `v020-tool` test components (each `include!`s it after
// generating its bindings from its own WIT snapshot and naming its `VERSION`): one tool,
// `legacy`, whose calls reach each import of that version.

use bindings::exports::pi::extension::tool_guest::Guest;
use bindings::pi::extension::types::{
    ContentBlock, ExecutionMode, ToolCall, ToolDefinition, ToolResult,
};
use bindings::pi::extension::{directory, host, process};

struct Legacy;

fn text(text: String) -> ToolResult {
    ToolResult {
        content: vec![ContentBlock::Text(text)],
        details: None,
        is_error: false,
    }
}

/// The value of `"op"` in the call's JSON arguments (`{"op":"list"}`), without a JSON parser:
/// the component depends on nothing but the bindings.
fn op(arguments: &str) -> &str {
    arguments
        .split('"')
        .skip_while(|part| *part != "op")
        .nth(2)
        .unwrap_or("echo")
}

fn list() -> Result<String, String> {
    use bindings::wasi::filesystem::types::{DescriptorFlags, OpenFlags, PathFlags};
    let (preopen, _) = bindings::wasi::filesystem::preopens::get_directories()
        .into_iter()
        .find(|(_, path)| path == ".")
        .ok_or("the workspace is not preopened")?;
    // `directory` lists what the component opened itself with read access.
    let dir = preopen
        .open_at(
            PathFlags::empty(),
            ".",
            OpenFlags::DIRECTORY,
            DescriptorFlags::READ,
        )
        .map_err(|e| format!("open: {e:?}"))?;
    let entries = directory::entries(&dir).map_err(|e| format!("entries: {e:?}"))?;
    let mut names: Vec<String> = entries
        .into_iter()
        .map(|e| String::from_utf8_lossy(&e.name).into_owned())
        .collect();
    names.sort();
    Ok(names.join(","))
}

fn spawn() -> Result<String, String> {
    let child = process::spawn(&process::SpawnOptions {
        program: "true".into(),
        args: vec![],
        cwd: None,
        env: vec![],
        timeout_ms: Some(5000),
        merge_stderr: false,
    })?;
    Ok(format!("exit {:?}", child.wait().code))
}

impl Guest for Legacy {
    fn describe() -> Vec<ToolDefinition> {
        vec![ToolDefinition {
            name: "legacy".into(),
            label: "Legacy".into(),
            description: format!("A tool built against pi:extension@{VERSION}."),
            parameters_schema: r#"{"type":"object","properties":{"op":{"type":"string"}}}"#.into(),
            prompt_snippet: None,
            prompt_guidelines: vec![],
            execution_mode: ExecutionMode::Parallel,
        }]
    }

    fn execute(call: ToolCall) -> Result<ToolResult, String> {
        match op(&call.arguments) {
            "echo" => {
                host::log(host::LogLevel::Info, "legacy echo");
                host::progress(&text("echoing".into()));
                Ok(text(format!("{VERSION} says: {}", call.arguments)))
            }
            "cwd" => Ok(text(host::cwd())),
            "list" => list().map(text),
            "spawn" => spawn().map(text),
            other => Err(format!("unknown op {other}")),
        }
    }
}

#[allow(unsafe_code)]
mod export {
    use super::Legacy;
    crate::bindings::export!(Legacy with_types_in crate::bindings);
}
