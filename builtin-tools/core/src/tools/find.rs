//! `find`: fd's glob search in-process (the walk of [`crate::walk`] plus `globset`).

use super::search::{finish_listing, relative_display};
use super::shard_part::{limit_arg, part_output, parts_of};
use super::{ABORTED, check_cancel};
use crate::args::{Args, as_count, no_details};
use crate::walk::shard::reports_entry as reports;
use crate::walk::{self, EntryKind, WalkConfig};
use crate::{BuiltinTool, ExecutionMode, Progress, ToolDefinition, ToolEnv, ToolError, ToolOutput};
use globset::{GlobBuilder, GlobMatcher};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use std::ffi::OsStr;
use std::ops::ControlFlow;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};

const DEFAULT_LIMIT: usize = 1000;

pub struct FindTool;

impl BuiltinTool for FindTool {
    fn definition(&self) -> ToolDefinition {
        ToolDefinition {
            name: "find".into(),
            label: "find".into(),
            description: format!(
                "Find files by glob pattern. Returns the matching paths relative to the search \
                 directory. Respects .gitignore. Output stops at {DEFAULT_LIMIT} results or 50KB, \
                 whichever comes first."
            ),
            parameters: json!({
                "type": "object",
                "properties": {
                    "pattern": { "type": "string", "description": "Glob to match, e.g. '*.rs', '**/*.json' or 'src/**/*.test.ts'" },
                    "path": { "type": "string", "description": "Directory to search in (default: the working directory)" },
                    "limit": { "type": "number", "description": "Maximum number of results (default: 1000)" }
                },
                "required": ["pattern"]
            }),
            prompt_snippet: "Find files by glob pattern (respects .gitignore)".into(),
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
        let args = Args::new("find", &args)?;
        let pattern = args.string("pattern")?;
        let user_path = args
            .opt_string("path")?
            .filter(|p| !p.is_empty())
            .unwrap_or(".");
        let limit = args.opt_number("limit")?.map_or(DEFAULT_LIMIT, as_count);
        let dir = env.resolve(user_path)?;
        let glob = PathGlob::new(pattern)?;
        check_cancel(cancel)?;
        let meta = std::fs::metadata(&dir)
            .map_err(|_| ToolError::new(format!("Path not found: {}", dir.display())))?;
        if !meta.is_dir() {
            return Err(ToolError::new(format!(
                "Not a directory: {}",
                dir.display()
            )));
        }
        let found = walk(env, &dir, &glob, limit, cancel)?;
        if env.shard.is_some() {
            return part_output(Part { paths: found });
        }
        Ok(finish(vec![Part { paths: found }], limit))
    }
}

/// The paths a call (or one shard of it) found, as shown (relative, `/` after directories).
#[derive(Serialize, Deserialize)]
struct Part {
    paths: Vec<String>,
}

/// Merges the parts of a sharded call (run by `shard::merge_shards`).
pub(crate) fn merge(args: &Value, parts: Vec<Value>) -> Result<ToolOutput, ToolError> {
    let limit = limit_arg("find", args, DEFAULT_LIMIT)?;
    Ok(finish(parts_of::<Part>(parts)?, limit))
}

/// The result: the first `limit` paths of all parts in sorted order, cut to 50 KB, with pi's
/// notices.
fn finish(parts: Vec<Part>, limit: usize) -> ToolOutput {
    let mut found: Vec<String> = parts.into_iter().flat_map(|p| p.paths).collect();
    if found.is_empty() {
        return ToolOutput::text("No files found matching pattern", no_details());
    }
    found.sort();
    found.truncate(limit);
    let notice = (found.len() >= limit).then(|| {
        (
            format!(
                "{limit} results limit reached. Use limit={} for more, or refine pattern",
                limit * 2
            ),
            "resultLimitReached",
            limit,
        )
    });
    let (text, details) = finish_listing(found.into(), notice, None);
    ToolOutput::text(text, details)
}

/// fd's `--glob` matching: on the file name, or (pattern with `/`) on the full path with a
/// `**/` prefix. Smart case: an all-lowercase pattern matches case-insensitively.
struct PathGlob {
    matcher: GlobMatcher,
    full_path: bool,
}

impl PathGlob {
    fn new(pattern: &str) -> Result<Self, ToolError> {
        let full_path = pattern.contains('/');
        let anchored = pattern.starts_with('/') || pattern.starts_with("**/") || pattern == "**";
        let text = if full_path && !anchored {
            format!("**/{pattern}")
        } else {
            pattern.to_string()
        };
        let glob = GlobBuilder::new(&text)
            .literal_separator(true)
            .case_insensitive(!pattern.chars().any(char::is_uppercase))
            .build()
            .map_err(|e| ToolError::new(format!("Invalid glob pattern '{pattern}': {e}")))?;
        Ok(PathGlob {
            matcher: glob.compile_matcher(),
            full_path,
        })
    }

    /// Whether the entry at `path`, named `name`, matches.
    fn is_match(&self, path: &Path, name: &OsStr) -> bool {
        if self.full_path {
            self.matcher.is_match(path)
        } else {
            self.matcher.is_match(name)
        }
    }
}

/// Walks like `fd --hidden` (hidden entries included, .gitignore honoured even outside a git
/// repository, `.git` itself skipped), collecting up to `limit` relative paths.
fn walk(
    env: &ToolEnv,
    dir: &Path,
    glob: &PathGlob,
    limit: usize,
    cancel: &AtomicBool,
) -> Result<Vec<String>, ToolError> {
    let ancestors = env.ancestor_ignores();
    let git_excludes = env.git_excludes();
    let config = WalkConfig {
        tool_file: ".fdignore",
        require_git: false,
        skip_git_dir: true,
        overrides: None,
        ancestors: ancestors.as_deref(),
        workspace_root: env.workspace.root(),
        git_excludes: git_excludes.as_deref(),
        cwd: env.workspace.cwd(),
        shard: env.shard,
    };
    let mut results = Vec::new();
    let mut aborted = false;
    walk::walk(&*env.dir_source(), dir, true, &config, &mut |entry| {
        if cancel.load(Ordering::Relaxed) {
            aborted = true;
            return ControlFlow::Break(());
        }
        if entry.depth == 0
            || !glob.is_match(entry.path, entry.name)
            || !reports(env.shard, dir, entry)
        {
            return ControlFlow::Continue(());
        }
        if results.len() >= limit {
            return ControlFlow::Break(());
        }
        let mut shown = relative_display(dir, entry.path);
        if entry.kind == EntryKind::Dir {
            shown.push('/');
        }
        results.push(shown);
        ControlFlow::Continue(())
    });
    if aborted {
        return Err(ToolError::new(ABORTED));
    }
    Ok(results)
}
