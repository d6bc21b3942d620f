//! A tool that spawns host processes through the `process` interface.

use pi_guest_sdk::process::{Output, ReadResult, SpawnOptions, spawn};
use pi_guest_sdk::{ExecutionMode, Tool, ToolCall, ToolDefinition, ToolResult, host, text};
use serde_json::Value;

struct Spawner;

impl Tool for Spawner {
    fn describe() -> Vec<ToolDefinition> {
        vec![ToolDefinition {
            name: "run".into(),
            label: "Run".into(),
            description: "Runs a program.".into(),
            parameters_schema: r#"{"type":"object","properties":{"program":{"type":"string"}}}"#
                .into(),
            prompt_snippet: None,
            prompt_guidelines: vec![],
            execution_mode: ExecutionMode::Sequential,
        }]
    }

    fn execute(call: ToolCall) -> Result<ToolResult, String> {
        let args: Value = serde_json::from_str(&call.arguments).map_err(|e| e.to_string())?;
        let program = args["program"].as_str().unwrap_or("echo").to_owned();
        let list = args["args"].as_array().cloned().unwrap_or_default();
        let child = spawn(&SpawnOptions {
            program,
            args: list
                .iter()
                .filter_map(|a| a.as_str().map(str::to_owned))
                .collect(),
            cwd: None,
            env: vec![],
            timeout_ms: args["timeout_ms"].as_u64(),
            merge_stderr: args["merge_stderr"].as_bool().unwrap_or(false),
        })?;
        // All output in arrival order, and what came as `stderr` on its own.
        let mut out = Vec::new();
        let mut err = Vec::new();
        loop {
            match child.read(50) {
                ReadResult::Output(Output::Stdout(b)) => {
                    host::progress(&text(&String::from_utf8_lossy(&b)));
                    out.extend_from_slice(&b);
                }
                ReadResult::Output(Output::Stderr(b)) => {
                    host::progress(&text(&String::from_utf8_lossy(&b)));
                    out.extend_from_slice(&b);
                    err.extend_from_slice(&b);
                }
                ReadResult::Pending => {}
                ReadResult::Closed => break,
            }
        }
        let status = child.wait();
        Ok(text(&format!(
            "{}stderr={:?} exit={:?} timed_out={}",
            String::from_utf8_lossy(&out),
            String::from_utf8_lossy(&err),
            status.code,
            status.timed_out
        )))
    }
}

pi_guest_sdk::export_tool!(Spawner);
