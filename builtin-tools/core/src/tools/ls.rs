//! `ls`: one directory's entries, sorted case-insensitively, directories marked with `/`.

use super::check_cancel;
use super::search::finish_listing;
use crate::args::{Args, as_count, no_details, schema};
use crate::{BuiltinTool, ExecutionMode, Progress, ToolDefinition, ToolEnv, ToolError, ToolOutput};
use serde_json::Value;
use std::sync::atomic::AtomicBool;

const DEFAULT_LIMIT: usize = 500;

pub struct LsTool;

impl BuiltinTool for LsTool {
    fn definition(&self) -> ToolDefinition {
        ToolDefinition {
            name: "ls".into(),
            label: "ls".into(),
            description: format!(
                "List the entries of a directory, sorted by name, including dotfiles; directories \
                 end with '/'. Output stops at {DEFAULT_LIMIT} entries or 50KB, whichever comes first."
            ),
            parameters: schema(
                &[
                    (
                        "path",
                        "string",
                        "Directory to list (default: the working directory)",
                    ),
                    (
                        "limit",
                        "number",
                        "Maximum number of entries (default: 500)",
                    ),
                ],
                &[],
            ),
            prompt_snippet: "List directory contents".into(),
            prompt_guidelines: Vec::new(),
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
        let args = Args::new("ls", &args)?;
        let user_path = args
            .opt_string("path")?
            .filter(|p| !p.is_empty())
            .unwrap_or(".");
        let limit = args.opt_number("limit")?.map_or(DEFAULT_LIMIT, as_count);
        let dir = env.resolve(user_path)?;
        check_cancel(cancel)?;
        let meta = std::fs::metadata(&dir)
            .map_err(|_| ToolError::new(format!("Path not found: {}", dir.display())))?;
        if !meta.is_dir() {
            return Err(ToolError::new(format!(
                "Not a directory: {}",
                dir.display()
            )));
        }
        let reader = std::fs::read_dir(&dir)
            .map_err(|e| ToolError::new(format!("Cannot read directory: {e}")))?;
        let mut names: Vec<String> = reader
            .filter_map(Result::ok)
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        names.sort_by_cached_key(|n| (n.to_lowercase(), n.clone()));
        let mut entries = Vec::new();
        let mut limit_reached = false;
        for name in names {
            if entries.len() >= limit {
                limit_reached = true;
                break;
            }
            check_cancel(cancel)?;
            // Entries that cannot be stat'ed (e.g. dangling symlinks) are skipped, as in pi.
            let Ok(meta) = std::fs::metadata(dir.join(&name)) else {
                continue;
            };
            entries.push(if meta.is_dir() {
                format!("{name}/")
            } else {
                name
            });
        }
        if entries.is_empty() {
            return Ok(ToolOutput::text("(empty directory)", no_details()));
        }
        let notice = limit_reached.then(|| {
            (
                format!(
                    "{limit} entries limit reached. Use limit={} for more",
                    limit * 2
                ),
                "entryLimitReached",
                limit,
            )
        });
        let (text, details) = finish_listing(entries.into(), notice, None);
        Ok(ToolOutput::text(text, details))
    }
}
