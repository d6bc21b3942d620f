//! `read`: a text file window (offset/limit, head-truncated) or an image attachment.

use super::image::{ImageKind, load_image};
use super::{check_cancel, fs_error};
use crate::args::{Args, as_count, no_details, schema};
use crate::truncate::{
    DEFAULT_MAX_BYTES, DEFAULT_MAX_LINES, TruncatedBy, format_size, truncate_head,
};
use crate::{BuiltinTool, ExecutionMode, Progress, ToolDefinition, ToolEnv, ToolError, ToolOutput};
use serde_json::{Value, json};
use std::sync::atomic::AtomicBool;

/// How many leading bytes are inspected to tell binary from text.
const BINARY_SNIFF_BYTES: usize = 8192;

pub struct ReadTool;

impl BuiltinTool for ReadTool {
    fn definition(&self) -> ToolDefinition {
        ToolDefinition {
            name: "read".into(),
            label: "read".into(),
            description: format!(
                "Read a file. Works for text files and for images (jpg, png, gif, webp, bmp), which \
                 are returned as attachments. Text output stops after {DEFAULT_MAX_LINES} lines or \
                 {}KB, whichever comes first; read long files in parts with offset/limit.",
                DEFAULT_MAX_BYTES / 1024
            ),
            parameters: schema(
                &[
                    (
                        "path",
                        "string",
                        "File to read, relative to the working directory or absolute",
                    ),
                    ("offset", "number", "First line to read (1-based)"),
                    ("limit", "number", "Maximum number of lines to read"),
                ],
                &["path"],
            ),
            prompt_snippet: "Read file contents".into(),
            prompt_guidelines: vec!["Use read to look at files instead of cat or sed.".into()],
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
        let args = Args::new("read", &args)?;
        let user_path = args.string("path")?;
        let offset = args.opt_number("offset")?;
        let limit = args.opt_number("limit")?.map(as_count);
        let path = env.resolve(user_path)?;
        check_cancel(cancel)?;
        let bytes = std::fs::read(&path).map_err(|e| fs_error("open", &path, &e))?;
        check_cancel(cancel)?;
        if let Some(kind) = ImageKind::sniff(&bytes) {
            return Ok(image_output(&bytes, kind, env));
        }
        if bytes[..bytes.len().min(BINARY_SNIFF_BYTES)].contains(&0) {
            return Err(ToolError::new(format!(
                "Cannot read {user_path}: it is a binary file. read supports text files and \
                 images (jpg, png, gif, webp, bmp)."
            )));
        }
        let text = String::from_utf8_lossy(&bytes);
        read_text(&text, user_path, offset, limit)
    }
}

fn image_output(bytes: &[u8], kind: ImageKind, env: &ToolEnv) -> ToolOutput {
    let loaded = load_image(bytes, kind, env.auto_resize_images);
    let mut note = format!("Read image file [{}]", loaded.mime_type);
    for hint in &loaded.hints {
        note.push('\n');
        note.push_str(hint);
    }
    if !env.model_supports_images {
        note.push_str(
            "\n[Current model does not support images. The image will be omitted from this request.]",
        );
    }
    let mut content = vec![crate::Block::text(note)];
    if let Some(data) = loaded.data {
        content.push(crate::Block::Image {
            data,
            mime_type: loaded.mime_type,
        });
    }
    ToolOutput {
        content,
        details: no_details(),
    }
}

/// Selects the requested window of lines and applies pi's head truncation and hints.
///
/// The lines are the text split at every `\n`, as pi splits them: a final newline leaves an
/// empty last line, so a window reaching the end returns the file's bytes as they are (its
/// final newline, `\r\n` endings) and the file's line count includes that empty line.
pub(crate) fn read_text(
    text: &str,
    user_path: &str,
    offset: Option<f64>,
    limit: Option<usize>,
) -> Result<ToolOutput, ToolError> {
    let lines: Vec<&str> = text.split('\n').collect();
    let total = lines.len();
    let start = offset.map(|o| as_count(o).saturating_sub(1)).unwrap_or(0);
    if start >= total {
        let shown = offset.map(format_number).unwrap_or_default();
        return Err(ToolError::new(format!(
            "Offset {shown} is beyond end of file ({total} lines total)"
        )));
    }
    let end = limit.map_or(total, |l| (start + l).min(total));
    let selected = lines[start..end].join("\n");
    let truncation = truncate_head(&selected, DEFAULT_MAX_LINES, DEFAULT_MAX_BYTES);
    let first = start + 1;
    let limit_str = format_size(DEFAULT_MAX_BYTES);
    let text = if truncation.first_line_exceeds_limit {
        let size = format_size(lines[start].len());
        format!(
            "[Line {first} is {size}, exceeds {limit_str} limit. Use bash: sed -n '{first}p' {user_path} | head -c {DEFAULT_MAX_BYTES}]"
        )
    } else if truncation.truncated {
        let last = start + truncation.output_lines;
        let next = last + 1;
        let why = match truncation.truncated_by {
            Some(TruncatedBy::Bytes) => format!(" ({limit_str} limit)"),
            _ => String::new(),
        };
        format!(
            "{}\n\n[Showing lines {first}-{last} of {total}{why}. Use offset={next} to continue.]",
            truncation.content
        )
    } else if end < total {
        format!(
            "{}\n\n[{} more lines in file. Use offset={} to continue.]",
            truncation.content,
            total - end,
            end + 1
        )
    } else {
        truncation.content.clone()
    };
    let details = if truncation.truncated {
        json!({ "truncation": truncation })
    } else {
        no_details()
    };
    Ok(ToolOutput::text(text, details))
}

/// Renders a JS number the way template strings do (`5`, not `5.0`).
fn format_number(n: f64) -> String {
    if n.fract() == 0.0 && n.abs() < 1e15 {
        format!("{}", n as i64)
    } else {
        format!("{n}")
    }
}

#[cfg(test)]
mod tests {
    use super::read_text;

    fn read(text: &str, offset: Option<f64>, limit: Option<usize>) -> String {
        match read_text(text, "f.txt", offset, limit) {
            Ok(out) => out.joined_text(),
            Err(e) => panic!("read failed: {}", e.message),
        }
    }

    #[test]
    fn a_final_newline_is_kept() {
        let text = "alpha\nbeta\ngamma\n";
        assert_eq!(read(text, None, None).as_bytes(), text.as_bytes());
        assert_eq!(read(text, Some(2.0), None), "beta\ngamma\n");
    }

    #[test]
    fn crlf_endings_are_kept() {
        let text = "alpha\r\nbeta\r\ngamma\r\n";
        assert_eq!(read(text, None, None).as_bytes(), text.as_bytes());
        assert_eq!(read(text, Some(3.0), None), "gamma\r\n");
    }

    #[test]
    fn no_final_newline_adds_none() {
        let text = "alpha\nbeta\ngamma";
        assert_eq!(read(text, None, None).as_bytes(), text.as_bytes());
        assert_eq!(read(text, Some(3.0), None), "gamma");
    }

    #[test]
    fn the_line_after_a_final_newline_counts() {
        let text = "alpha\nbeta\ngamma\n";
        assert_eq!(
            read(text, None, Some(2)),
            "alpha\nbeta\n\n[2 more lines in file. Use offset=3 to continue.]"
        );
        assert_eq!(read(text, Some(4.0), None), "");
        let err = read_text(text, "f.txt", Some(5.0), None)
            .err()
            .map(|e| e.message);
        assert_eq!(
            err.as_deref(),
            Some("Offset 5 is beyond end of file (4 lines total)")
        );
    }
}
