//! `grep`: ripgrep's search in-process (the walk of [`crate::walk`], `grep-regex`, `grep-searcher`),
//! formatted the way pi formats ripgrep's matches.

use super::search::{Item, Items, Listing, finish_listing, relative_display};
use super::shard_part::{limit_arg, part_output, parts_of};
use super::{ABORTED, check_cancel};
use crate::args::{Args, as_count, no_details};
use crate::truncate::{GREP_MAX_LINE_LENGTH, truncate_line};
use crate::walk::shard::reports_entry;
use crate::walk::{self, DirSource, EntryKind, WalkConfig};
use crate::{BuiltinTool, ExecutionMode, Progress, ToolDefinition, ToolEnv, ToolError, ToolOutput};
use grep_regex::{RegexMatcher, RegexMatcherBuilder};
use grep_searcher::sinks::Lossy;
use grep_searcher::{BinaryDetection, Searcher, SearcherBuilder};
use ignore::overrides::OverrideBuilder;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

const DEFAULT_LIMIT: usize = 100;

pub struct GrepTool;

/// Search options after argument parsing.
struct Query {
    matcher: RegexMatcher,
    glob: Option<String>,
    context: usize,
    limit: usize,
}

/// The matches found in one file: `(line number, line text)`.
type FileHits = (PathBuf, Vec<(u64, String)>);

impl BuiltinTool for GrepTool {
    fn definition(&self) -> ToolDefinition {
        ToolDefinition {
            name: "grep".into(),
            label: "grep".into(),
            description: format!(
                "Search file contents for a pattern and return the matching lines with their file \
                 paths and line numbers. Respects .gitignore. Output stops at {DEFAULT_LIMIT} matches \
                 or 50KB, whichever comes first; lines longer than {GREP_MAX_LINE_LENGTH} characters \
                 are cut."
            ),
            parameters: json!({
                "type": "object",
                "properties": {
                    "pattern": { "type": "string", "description": "Regular expression (or literal text with literal=true) to search for" },
                    "path": { "type": "string", "description": "Directory or file to search (default: the working directory)" },
                    "glob": { "type": "string", "description": "Only search files matching this glob, e.g. '*.rs' or '**/*.test.ts'" },
                    "ignoreCase": { "type": "boolean", "description": "Match case-insensitively (default: false)" },
                    "literal": { "type": "boolean", "description": "Treat pattern as plain text, not a regex (default: false)" },
                    "context": { "type": "number", "description": "Lines of context to show before and after each match (default: 0)" },
                    "limit": { "type": "number", "description": "Maximum number of matches to return (default: 100)" }
                },
                "required": ["pattern"]
            }),
            prompt_snippet: "Search file contents for patterns (respects .gitignore)".into(),
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
        let args = Args::new("grep", &args)?;
        let pattern = args.string("pattern")?;
        let user_path = args
            .opt_string("path")?
            .filter(|p| !p.is_empty())
            .unwrap_or(".");
        let search = env.resolve(user_path)?;
        let matcher = RegexMatcherBuilder::new()
            .case_insensitive(args.opt_bool("ignoreCase")?.unwrap_or(false))
            .fixed_strings(args.opt_bool("literal")?.unwrap_or(false))
            .line_terminator(Some(b'\n'))
            .build(pattern)
            .map_err(|e| ToolError::new(e.to_string()))?;
        let query = Query {
            matcher,
            glob: args.opt_string("glob")?.map(str::to_string),
            context: args.opt_number("context")?.map_or(0, as_count),
            limit: args
                .opt_number("limit")?
                .map_or(DEFAULT_LIMIT, as_count)
                .max(1),
        };
        check_cancel(cancel)?;
        let meta = std::fs::metadata(&search)
            .map_err(|_| ToolError::new(format!("Path not found: {}", search.display())))?;
        let mut hits = run_search(env, &search, meta.is_dir(), &query, cancel)?;
        check_cancel(cancel)?;
        hits.sort_by(|a, b| a.0.cmp(&b.0));
        keep_first(&mut hits, query.limit);
        let mut items = Items::default();
        let source = env.dir_source();
        let mut files = Vec::with_capacity(hits.len());
        for (path, file_hits) in &hits {
            let shown = if meta.is_dir() {
                relative_display(&search, path)
            } else {
                path.file_name()
                    .map_or_else(String::new, |n| n.to_string_lossy().into_owned())
            };
            let block = Block {
                source: &*source,
                path,
                shown: &shown,
                context: query.context,
            };
            block.format(file_hits, &mut items);
            files.push(PartFile::new(path, items.take()));
        }
        let part = Part { files };
        if env.shard.is_some() {
            return part_output(part);
        }
        Ok(finish(vec![part], query.limit))
    }
}

/// The matches a call (or one shard of it) found, formatted, in path order.
#[derive(Serialize, Deserialize)]
struct Part {
    files: Vec<PartFile>,
}

/// One file's matches: an item per match (its line and its context lines). Matches past the
/// part's 50 KB are only measured; they travel packed as `[lines * 2 + cut, bytes]` pairs in
/// `counted` (a search may count hundreds of thousands, one JSON object each would dominate
/// the merge).
#[derive(Serialize, Deserialize)]
struct PartFile {
    path: String,
    items: Vec<Item>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    counted: Vec<usize>,
}

impl PartFile {
    fn new(path: &Path, all: Vec<Item>) -> Self {
        let mut items = Vec::new();
        let mut counted = Vec::new();
        for item in all {
            if item.lines.is_empty() {
                counted.extend([
                    item.extra_lines * 2 + usize::from(item.cut),
                    item.extra_bytes,
                ]);
            } else {
                items.push(item);
            }
        }
        PartFile {
            path: path.to_string_lossy().into_owned(),
            items,
            counted,
        }
    }

    /// The file's items in order (shown ones first: the budget only ever runs out).
    fn into_items(self) -> impl Iterator<Item = Item> {
        let counted = self.counted.chunks_exact(2).map(|pair| Item {
            lines: Vec::new(),
            extra_lines: pair.first().copied().unwrap_or(0) / 2,
            extra_bytes: pair.get(1).copied().unwrap_or(0),
            cut: pair.first().copied().unwrap_or(0) % 2 == 1,
        });
        self.items.into_iter().chain(counted.collect::<Vec<_>>())
    }
}

/// Merges the parts of a sharded call (run by `shard::merge_shards`).
pub(crate) fn merge(args: &Value, parts: Vec<Value>) -> Result<ToolOutput, ToolError> {
    let limit = limit_arg("grep", args, DEFAULT_LIMIT)?.max(1);
    Ok(finish(parts_of::<Part>(parts)?, limit))
}

/// The result: the first `limit` matches of all parts in path order, cut to 50 KB, with
/// pi's notices.
fn finish(parts: Vec<Part>, limit: usize) -> ToolOutput {
    let mut files: Vec<PartFile> = parts.into_iter().flat_map(|p| p.files).collect();
    files.sort_by(|a, b| Path::new(&a.path).cmp(Path::new(&b.path)));
    let mut found = 0;
    let mut lines_cut = false;
    let mut listing = Listing::default();
    for item in files.into_iter().flat_map(PartFile::into_items).take(limit) {
        found += 1;
        lines_cut |= item.cut;
        listing.push_item(item);
    }
    if found == 0 {
        return ToolOutput::text("No matches found", no_details());
    }
    let notice = (found >= limit).then(|| {
        (
            format!(
                "{limit} matches limit reached. Use limit={} for more, or refine pattern",
                limit * 2
            ),
            "matchLimitReached",
            limit,
        )
    });
    let extra = lines_cut.then(|| {
        (
            format!(
                "Some lines truncated to {GREP_MAX_LINE_LENGTH} chars. Use read tool to see full lines"
            ),
            "linesTruncated",
            json!(true),
        )
    });
    let (text, details) = finish_listing(listing, notice, extra);
    ToolOutput::text(text, details)
}

/// Walks like `rg --hidden` (ignore files respected, hidden files searched, binary files
/// skipped) and stops once `limit` matches are collected.
fn run_search(
    env: &ToolEnv,
    search: &Path,
    is_dir: bool,
    query: &Query,
    cancel: &AtomicBool,
) -> Result<Vec<FileHits>, ToolError> {
    let overrides = match &query.glob {
        Some(glob) => {
            let mut overrides = OverrideBuilder::new(search);
            overrides
                .add(glob)
                .map_err(|e| ToolError::new(e.to_string()))?;
            Some(
                overrides
                    .build()
                    .map_err(|e| ToolError::new(e.to_string()))?,
            )
        }
        None => None,
    };
    let ancestors = env.ancestor_ignores();
    let git_excludes = env.git_excludes();
    let config = WalkConfig {
        tool_file: ".rgignore",
        // The host sends the ancestors only from inside a repository, whose root layer then
        // marks the walk as inside one.
        require_git: true,
        skip_git_dir: false,
        overrides,
        ancestors: ancestors.as_deref(),
        workspace_root: env.workspace.root(),
        git_excludes: git_excludes.as_deref(),
        cwd: env.workspace.cwd(),
        shard: env.shard,
    };
    let mut searcher = SearcherBuilder::new()
        .line_number(true)
        .binary_detection(if is_dir {
            BinaryDetection::quit(0)
        } else {
            BinaryDetection::convert(0)
        })
        .build();
    let source = env.dir_source();
    let mut results: Vec<FileHits> = Vec::new();
    let mut found = 0;
    let mut aborted = false;
    walk::walk(&*source, search, is_dir, &config, &mut |entry| {
        if cancel.load(Ordering::Relaxed) {
            aborted = true;
            return ControlFlow::Break(());
        }
        if entry.kind != EntryKind::File || !reports_entry(env.shard, search, entry) {
            return ControlFlow::Continue(());
        }
        let hits = match entry.read(&*source) {
            Ok(bytes) => search_bytes(&mut searcher, &query.matcher, &bytes, query.limit - found),
            Err(err) => {
                tracing::debug!(path = %entry.path.display(), %err, "grep skipped a file");
                Vec::new()
            }
        };
        if !hits.is_empty() {
            found += hits.len();
            results.push((entry.path.to_path_buf(), hits));
        }
        if found >= query.limit {
            return ControlFlow::Break(());
        }
        ControlFlow::Continue(())
    });
    if aborted {
        return Err(ToolError::new(ABORTED));
    }
    Ok(results)
}

/// Collects up to `wanted` matches of a file's contents.
fn search_bytes(
    searcher: &mut Searcher,
    matcher: &RegexMatcher,
    bytes: &[u8],
    wanted: usize,
) -> Vec<(u64, String)> {
    let mut hits = Vec::new();
    let sink = Lossy(|line_number, line| {
        hits.push((line_number, line.trim_end_matches(['\n', '\r']).to_string()));
        Ok(hits.len() < wanted)
    });
    if let Err(err) = searcher.search_slice(matcher, bytes, sink) {
        tracing::debug!(%err, "grep stopped searching a file");
    }
    hits
}

/// Keeps the first `limit` matches in path order (parallel workers may overshoot).
fn keep_first(hits: &mut Vec<FileHits>, limit: usize) {
    let mut kept = 0;
    let mut files = 0;
    for (_, file_hits) in hits.iter_mut() {
        if kept >= limit {
            break;
        }
        file_hits.truncate(limit - kept);
        kept += file_hits.len();
        files += 1;
    }
    hits.truncate(files);
}

/// One file's matches as pi prints them: `path:N: text` for a match and `path-N- text` for a
/// context line, a separate block per match.
struct Block<'a> {
    source: &'a dyn DirSource,
    path: &'a Path,
    shown: &'a str,
    context: usize,
}

impl Block<'_> {
    fn format(&self, hits: &[(u64, String)], out: &mut Items) {
        let file_lines = if self.context > 0 {
            read_lines(self.source, self.path)
        } else {
            Vec::new()
        };
        for (line_number, text) in hits {
            out.start();
            let n = *line_number as usize;
            if file_lines.is_empty() {
                self.line(':', n, text, out);
                continue;
            }
            let first = n.saturating_sub(self.context).max(1);
            let last = (n + self.context).min(file_lines.len());
            for current in first..=last {
                if current == n {
                    self.line(':', n, text, out);
                } else {
                    let text = file_lines.get(current - 1).map_or("", String::as_str);
                    self.line('-', current, text, out);
                }
            }
        }
    }

    fn line(&self, sep: char, n: usize, text: &str, out: &mut Items) {
        let cut = text
            .chars()
            .filter(|&c| c != '\r')
            .nth(GREP_MAX_LINE_LENGTH)
            .is_some();
        if !out.wants_text() {
            // Past the byte limit only the size matters.
            let len = if cut {
                let end = text
                    .char_indices()
                    .nth(GREP_MAX_LINE_LENGTH)
                    .map_or(text.len(), |(i, _)| i);
                end + "... [truncated]".len()
            } else {
                text.len()
            };
            out.count(self.shown.len() + len + 3 + n.to_string().len(), cut);
            return;
        }
        let (text, _) = truncate_line(&text.replace('\r', ""), GREP_MAX_LINE_LENGTH);
        out.push(format!("{}{sep}{n}{sep} {text}", self.shown), cut);
    }
}

fn read_lines(source: &dyn DirSource, path: &Path) -> Vec<String> {
    match source.read(path) {
        Ok(bytes) => String::from_utf8_lossy(&bytes)
            .replace("\r\n", "\n")
            .replace('\r', "\n")
            .split('\n')
            .map(str::to_string)
            .collect(),
        Err(_) => Vec::new(),
    }
}
