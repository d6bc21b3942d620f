//! `bash`: run one shell command through the environment's
//! [`ProcessRunner`](crate::ProcessRunner), stream output as progress, keep the tail, save the
//! full output to a temp file when it is truncated.

use crate::args::{Args, no_details};
use crate::process::{ProcessExit, SpawnRequest};
use crate::truncate::{
    DEFAULT_MAX_BYTES, DEFAULT_MAX_LINES, TruncatedBy, Truncation, format_size, truncate_tail,
};
use crate::{BuiltinTool, ExecutionMode, Progress, ToolDefinition, ToolEnv, ToolError, ToolOutput};
use serde_json::{Value, json};
use std::fs::File;
use std::io::Write;
use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

/// Largest timeout pi accepts (Node's timer limit), in seconds.
const MAX_TIMEOUT_SECS: f64 = 2_147_483.647;
/// Minimum spacing of progress updates.
const PROGRESS_INTERVAL: Duration = Duration::from_millis(100);
/// Bytes of output kept in memory; enough for a 50 KB tail whatever the chunking.
const TAIL_KEEP_BYTES: usize = DEFAULT_MAX_BYTES * 2;

pub struct BashTool;

impl BuiltinTool for BashTool {
    fn definition(&self) -> ToolDefinition {
        ToolDefinition {
            name: "bash".into(),
            label: "bash".into(),
            description: format!(
                "Run a bash command in the current working directory and return its combined \
                 stdout and stderr. Only the last {DEFAULT_MAX_LINES} lines or {}KB of output are \
                 returned; when output is cut, the full output is saved to a temporary file. An \
                 optional timeout in seconds can be given.",
                DEFAULT_MAX_BYTES / 1024
            ),
            parameters: json!({
                "type": "object",
                "properties": {
                    "command": { "type": "string", "description": "Bash command to run" },
                    "timeout": { "type": "number", "description": "Timeout in seconds (optional; no timeout by default)" }
                },
                "required": ["command"]
            }),
            prompt_snippet: "Execute bash commands (ls, grep, find, etc.)".into(),
            prompt_guidelines: vec![
                "The PI_* environment variables describe the current model and session; inspect them with bash when needed.".into(),
            ],
            execution_mode: ExecutionMode::Parallel,
        }
    }

    fn execute(
        &self,
        args: Value,
        env: &ToolEnv,
        progress: Progress<'_>,
        cancel: &AtomicBool,
    ) -> Result<ToolOutput, ToolError> {
        let args = Args::new("bash", &args)?;
        let command = args.string("command")?;
        let timeout = parse_timeout(args.opt_number("timeout")?)?;
        let runner = env.runner.as_ref().ok_or_else(|| {
            ToolError::new("bash is not available: this host provides no process runner")
        })?;
        super::check_cancel(cancel)?;
        let script = match &env.shell.command_prefix {
            Some(prefix) => format!("{prefix}\n{command}"),
            None => command.to_string(),
        };
        let request = SpawnRequest {
            program: env.shell.path.clone(),
            args: vec!["-c".into(), script],
            cwd: env.workspace.cwd().to_path_buf(),
            env: env.command_env.clone(),
            timeout: timeout.map(Duration::from_secs_f64),
        };
        let mut sink = OutputSink::new(env.temp_dir.clone());
        let mut last_progress: Option<Instant> = None;
        let exit = runner.run(
            &request,
            &mut |chunk| {
                sink.push(chunk);
                if last_progress.is_none_or(|t| t.elapsed() >= PROGRESS_INTERVAL) {
                    last_progress = Some(Instant::now());
                    let (text, details) = sink.render();
                    progress(ToolOutput::text(text, details));
                }
            },
            cancel,
        );
        let exit = exit.map_err(|e| ToolError::new(e.to_string()))?;
        sink.finish();
        finish(exit, &sink, timeout)
    }
}

fn parse_timeout(value: Option<f64>) -> Result<Option<f64>, ToolError> {
    match value {
        None => Ok(None),
        Some(t) if t.is_finite() && t > 0.0 && t <= MAX_TIMEOUT_SECS => Ok(Some(t)),
        Some(_) => Err(ToolError::new(format!(
            "Invalid timeout: must be a positive number of seconds, at most {MAX_TIMEOUT_SECS}"
        ))),
    }
}

fn finish(
    exit: ProcessExit,
    sink: &OutputSink,
    timeout: Option<f64>,
) -> Result<ToolOutput, ToolError> {
    let (text, details) = sink.render();
    // Abort and timeout append to the output without the "(no output)" placeholder; a failed
    // exit appends to the text as the model would have seen it.
    let interrupted = |status: String| {
        let body = if sink.total_bytes == 0 {
            String::new()
        } else {
            format!("{text}\n\n")
        };
        ToolError::with_details(format!("{body}{status}"), details.clone())
    };
    match exit {
        // pi treats a signal-terminated shell (exit code null) like success.
        ProcessExit::Exited(Some(0) | None) => Ok(ToolOutput::text(text, details)),
        ProcessExit::Exited(Some(code)) => Err(ToolError::with_details(
            format!("{text}\n\nCommand exited with code {code}"),
            details,
        )),
        ProcessExit::Aborted => Err(interrupted("Command aborted".into())),
        ProcessExit::TimedOut => {
            let secs = timeout.map(format_seconds).unwrap_or_default();
            Err(interrupted(format!(
                "Command timed out after {secs} seconds"
            )))
        }
    }
}

fn format_seconds(secs: f64) -> String {
    if secs.fract() == 0.0 {
        format!("{}", secs as u64)
    } else {
        format!("{secs}")
    }
}

/// Collects command output: a bounded in-memory tail, total counts, and a temp file with the
/// complete output once the output outgrows the limits.
struct OutputSink {
    temp_dir: PathBuf,
    tail: Vec<u8>,
    total_bytes: usize,
    total_newlines: usize,
    ends_with_newline: bool,
    /// Byte length of the unfinished line and of the last finished one.
    current_line_len: usize,
    previous_line_len: usize,
    file: Option<(PathBuf, File)>,
    file_error: bool,
}

impl OutputSink {
    fn new(temp_dir: PathBuf) -> Self {
        OutputSink {
            temp_dir,
            tail: Vec::new(),
            total_bytes: 0,
            total_newlines: 0,
            ends_with_newline: false,
            current_line_len: 0,
            previous_line_len: 0,
            file: None,
            file_error: false,
        }
    }

    fn push(&mut self, chunk: &[u8]) {
        if chunk.is_empty() {
            return;
        }
        self.total_bytes += chunk.len();
        self.total_newlines += chunk.iter().filter(|&&b| b == b'\n').count();
        self.ends_with_newline = chunk.last() == Some(&b'\n');
        self.track_line_lengths(chunk);
        let over_limits =
            self.total_bytes > DEFAULT_MAX_BYTES || self.total_lines() > DEFAULT_MAX_LINES;
        if over_limits && self.file.is_none() && !self.file_error {
            // Until now every byte is still in `tail` (it holds more than the byte limit).
            self.open_file();
        }
        if let Some((_, file)) = &mut self.file
            && file.write_all(chunk).is_err()
        {
            self.file_error = true;
        }
        self.tail.extend_from_slice(chunk);
        if self.tail.len() > TAIL_KEEP_BYTES * 2 {
            let cut = self.tail.len() - TAIL_KEEP_BYTES;
            self.tail.drain(..cut);
        }
    }

    fn track_line_lengths(&mut self, chunk: &[u8]) {
        for piece in chunk.split_inclusive(|&b| b == b'\n') {
            if piece.last() == Some(&b'\n') {
                self.previous_line_len = self.current_line_len + piece.len() - 1;
                self.current_line_len = 0;
            } else {
                self.current_line_len += piece.len();
            }
        }
    }

    /// Byte length of the last line as pi counts lines.
    fn last_line_len(&self) -> usize {
        if self.ends_with_newline {
            self.previous_line_len
        } else {
            self.current_line_len
        }
    }

    fn open_file(&mut self) {
        let name = format!("pi-bash-{:016x}.log", fastrand::u64(..));
        let path = self.temp_dir.join(name);
        match File::create(&path) {
            Ok(mut file) => {
                if file.write_all(&self.tail).is_err() {
                    self.file_error = true;
                }
                self.file = Some((path, file));
            }
            Err(err) => {
                tracing::warn!(path = %path.display(), %err, "could not save the full bash output");
                self.file_error = true;
            }
        }
    }

    fn finish(&mut self) {
        if let Some((_, file)) = &mut self.file {
            let _ = file.flush();
        }
    }

    /// Lines as pi counts them: a trailing newline does not start another line.
    fn total_lines(&self) -> usize {
        if self.total_bytes == 0 {
            0
        } else {
            self.total_newlines + usize::from(!self.ends_with_newline)
        }
    }

    /// The text the model sees now and the details (`truncation`, `fullOutputPath`).
    fn render(&self) -> (String, Value) {
        if self.total_bytes == 0 {
            return ("(no output)".into(), no_details());
        }
        let text = String::from_utf8_lossy(&self.tail);
        let mut truncation = truncate_tail(&text, DEFAULT_MAX_LINES, DEFAULT_MAX_BYTES);
        truncation.total_lines = self.total_lines();
        truncation.total_bytes = self.total_bytes;
        if self.tail.len() < self.total_bytes && !truncation.truncated {
            truncation.truncated = true;
            truncation.truncated_by = Some(TruncatedBy::Bytes);
        }
        if !truncation.truncated {
            return (truncation.content, no_details());
        }
        let full_path = self.file.as_ref().map(|(p, _)| p.display().to_string());
        let footer = footer(&truncation, full_path.as_deref(), self.last_line_len());
        let mut details = json!({ "truncation": truncation });
        if let (Some(p), Some(map)) = (&full_path, details.as_object_mut()) {
            map.insert("fullOutputPath".into(), json!(p));
        }
        (format!("{}\n\n{footer}", truncation.content), details)
    }
}

fn footer(t: &Truncation, full_path: Option<&str>, last_line_len: usize) -> String {
    let where_ = full_path.map_or_else(
        || "Full output could not be saved".to_string(),
        |p| format!("Full output: {p}"),
    );
    let total = t.total_lines;
    let first = total + 1 - t.output_lines.min(total);
    if t.last_line_partial {
        return format!(
            "[Showing last {} of line {total} (line is {}). {where_}]",
            format_size(t.output_bytes),
            format_size(last_line_len)
        );
    }
    match t.truncated_by {
        Some(TruncatedBy::Lines) => format!("[Showing lines {first}-{total} of {total}. {where_}]"),
        _ => format!(
            "[Showing lines {first}-{total} of {total} ({} limit). {where_}]",
            format_size(DEFAULT_MAX_BYTES)
        ),
    }
}
