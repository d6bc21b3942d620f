//! Output limits shared by the tools (pi's `truncate.ts` semantics): keep the head or the
//! tail of a text within a line count and a byte count, whichever is reached first.

use serde::Serialize;

pub const DEFAULT_MAX_LINES: usize = 2000;
pub const DEFAULT_MAX_BYTES: usize = 50 * 1024;
pub const GREP_MAX_LINE_LENGTH: usize = 500;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum TruncatedBy {
    Lines,
    Bytes,
}

/// What was kept and why (serialised as pi's `TruncationResult` in tool details).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Truncation {
    pub content: String,
    pub truncated: bool,
    pub truncated_by: Option<TruncatedBy>,
    pub total_lines: usize,
    pub total_bytes: usize,
    pub output_lines: usize,
    pub output_bytes: usize,
    pub last_line_partial: bool,
    pub first_line_exceeds_limit: bool,
    pub max_lines: usize,
    pub max_bytes: usize,
}

/// Splits into lines; a single trailing newline does not start another line.
fn split_lines(content: &str) -> Vec<&str> {
    let body = content.strip_suffix('\n').unwrap_or(content);
    body.split('\n').collect()
}

fn untruncated(content: &str, lines: usize, max_lines: usize, max_bytes: usize) -> Truncation {
    Truncation {
        content: content.to_string(),
        truncated: false,
        truncated_by: None,
        total_lines: lines,
        total_bytes: content.len(),
        output_lines: lines,
        output_bytes: content.len(),
        last_line_partial: false,
        first_line_exceeds_limit: false,
        max_lines,
        max_bytes,
    }
}

/// Keeps the first complete lines that fit both limits. When the first line alone is larger
/// than `max_bytes` nothing is kept and `first_line_exceeds_limit` is set.
pub fn truncate_head(content: &str, max_lines: usize, max_bytes: usize) -> Truncation {
    let lines = split_lines(content);
    let total_lines = lines.len();
    if total_lines <= max_lines && content.len() <= max_bytes {
        return untruncated(content, total_lines, max_lines, max_bytes);
    }
    let mut result = untruncated("", 0, max_lines, max_bytes);
    result.total_lines = total_lines;
    result.total_bytes = content.len();
    result.truncated = true;
    if lines.first().is_some_and(|l| l.len() > max_bytes) {
        result.truncated_by = Some(TruncatedBy::Bytes);
        result.first_line_exceeds_limit = true;
        return result;
    }
    let mut bytes = 0usize;
    let mut kept = 0usize;
    let mut by = TruncatedBy::Lines;
    for (i, line) in lines.iter().enumerate() {
        if i >= max_lines {
            break;
        }
        let cost = line.len() + usize::from(i > 0);
        if bytes + cost > max_bytes {
            by = TruncatedBy::Bytes;
            break;
        }
        bytes += cost;
        kept += 1;
    }
    result.content = lines[..kept].join("\n");
    result.output_lines = kept;
    result.output_bytes = result.content.len();
    result.truncated_by = Some(by);
    result
}

/// Keeps the last complete lines that fit both limits. When the last line alone is larger
/// than `max_bytes`, its UTF-8-safe tail is kept and `last_line_partial` is set.
pub fn truncate_tail(content: &str, max_lines: usize, max_bytes: usize) -> Truncation {
    let lines = split_lines(content);
    let total_lines = lines.len();
    if total_lines <= max_lines && content.len() <= max_bytes {
        return untruncated(content, total_lines, max_lines, max_bytes);
    }
    let mut result = untruncated("", 0, max_lines, max_bytes);
    result.total_lines = total_lines;
    result.total_bytes = content.len();
    result.truncated = true;
    let mut bytes = 0usize;
    let mut kept = 0usize;
    let mut by = TruncatedBy::Lines;
    for (i, line) in lines.iter().rev().enumerate() {
        if i >= max_lines {
            break;
        }
        let cost = line.len() + usize::from(i > 0);
        if bytes + cost > max_bytes {
            by = TruncatedBy::Bytes;
            break;
        }
        bytes += cost;
        kept += 1;
    }
    if kept == 0 {
        let last = lines.last().copied().unwrap_or("");
        result.content = utf8_tail(last, max_bytes).to_string();
        result.output_lines = 1;
        result.last_line_partial = true;
    } else {
        result.content = lines[total_lines - kept..].join("\n");
        result.output_lines = kept;
    }
    result.output_bytes = result.content.len();
    result.truncated_by = Some(by);
    result
}

/// The longest suffix of `s` that is at most `max_bytes` long and starts on a char boundary.
pub fn utf8_tail(s: &str, max_bytes: usize) -> &str {
    if s.len() <= max_bytes {
        return s;
    }
    let mut start = s.len() - max_bytes;
    while !s.is_char_boundary(start) {
        start += 1;
    }
    &s[start..]
}

/// The longest prefix of `s` that is at most `max_bytes` long and ends on a char boundary.
pub fn utf8_head(s: &str, max_bytes: usize) -> &str {
    if s.len() <= max_bytes {
        return s;
    }
    let mut end = max_bytes;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    &s[..end]
}

/// pi's `formatSize`: `512B`, `1.5KB`, `2.0MB`.
pub fn format_size(bytes: usize) -> String {
    if bytes < 1024 {
        format!("{bytes}B")
    } else if bytes < 1024 * 1024 {
        format!("{:.1}KB", bytes as f64 / 1024.0)
    } else {
        format!("{:.1}MB", bytes as f64 / (1024.0 * 1024.0))
    }
}

/// Cuts a line to `max_chars` characters, marking the cut (pi's `truncateLine`).
/// Returns the text and whether it was cut.
pub fn truncate_line(line: &str, max_chars: usize) -> (String, bool) {
    match line.char_indices().nth(max_chars) {
        None => (line.to_string(), false),
        Some((cut, _)) => (format!("{}... [truncated]", &line[..cut]), true),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_format_like_pi() {
        assert_eq!(format_size(1023), "1023B");
        assert_eq!(format_size(51200), "50.0KB");
        assert_eq!(format_size(3 * 1024 * 1024 / 2), "1.5MB");
    }

    #[test]
    fn tails_respect_char_boundaries() {
        assert_eq!(utf8_tail("aé", 1), "");
        assert_eq!(utf8_tail("aé", 2), "é");
        assert_eq!(utf8_head("éa", 1), "");
    }
}
