//! `write`: create or overwrite a whole file, creating parent directories.

use super::{check_cancel, fs_error};
use crate::args::{Args, no_details, schema};
use crate::{BuiltinTool, ExecutionMode, Progress, ToolDefinition, ToolEnv, ToolError, ToolOutput};
use serde_json::Value;
use std::sync::atomic::AtomicBool;

pub struct WriteTool;

impl BuiltinTool for WriteTool {
    fn definition(&self) -> ToolDefinition {
        ToolDefinition {
            name: "write".into(),
            label: "write".into(),
            description: "Write content to a file. A missing file is created, an existing one is \
                          replaced, and missing parent directories are created."
                .into(),
            parameters: schema(
                &[
                    (
                        "path",
                        "string",
                        "File to write, relative to the working directory or absolute",
                    ),
                    ("content", "string", "The complete new content of the file"),
                ],
                &["path", "content"],
            ),
            prompt_snippet: "Create or overwrite files".into(),
            prompt_guidelines: vec![
                "Use write only to create new files or to rewrite a file completely.".into(),
            ],
            execution_mode: ExecutionMode::Parallel,
        }
    }

    fn execute(
        &self,
        args: Value,
        env: &ToolEnv,
        _progress: Progress<'_>,
        cancel: &AtomicBool,
    ) -> Result<ToolOutput, ToolError> {
        let args = Args::new("write", &args)?;
        let user_path = args.string("path")?;
        let content = args.string("content")?;
        let path = env.resolve_writable(user_path)?;
        check_cancel(cancel)?;
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(|e| fs_error("mkdir", parent, &e))?;
        }
        check_cancel(cancel)?;
        std::fs::write(&path, content).map_err(|e| fs_error("open", &path, &e))?;
        // pi reports the JavaScript string length (UTF-16 code units), not the byte count.
        let length = content.encode_utf16().count();
        Ok(ToolOutput::text(
            format!("Successfully wrote {length} bytes to {user_path}"),
            no_details(),
        ))
    }
}
