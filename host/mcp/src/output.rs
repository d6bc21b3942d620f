//! MCP tool results as agent tool output, as pi 1.6 converts them
//! (`pi-mcp/dist/protocol/content.js`, `output-limit.js`, `extensions/mcp/tools.js`): text and
//! images pass through, resource links and embedded resources become text (images stay images,
//! binary blobs are saved to temp files), and model-facing text over 20 KB is cut in the middle
//! with the full text saved to a temp file. The input is the result's wire JSON.

use base64::Engine as _;
use pi_agent::{ToolError, ToolOutput};
use pi_ai::{ImageContent, TextContent, UserBlock};
use pi_builtin_tools::truncate::format_size;
use serde_json::{Value, json};
use std::path::PathBuf;

/// Model-facing text of an MCP result beyond this is cut in the middle.
pub const MCP_OUTPUT_MAX_BYTES: usize = 20 * 1024;

/// The tool reading resources, named in resource links when the server has resources.
pub const READ_MCP_RESOURCE_TOOL: &str = "read_mcp_resource";

fn text(text: impl Into<String>) -> UserBlock {
    UserBlock::Text(TextContent {
        text: text.into(),
        text_signature: None,
    })
}

fn str_of<'a>(value: &'a Value, key: &str) -> Option<&'a str> {
    value.get(key).and_then(Value::as_str)
}

/// Writes `data` to a new private temp file `pi-mcp-<random><extension>` and returns its path.
pub fn save_to_temp_file(data: &[u8], extension: &str) -> std::io::Result<PathBuf> {
    use std::io::Write;
    let mut file = tempfile::Builder::new()
        .prefix("pi-mcp-")
        .suffix(extension)
        .tempfile()?;
    file.write_all(data)?;
    let (_, path) = file.keep().map_err(|e| e.error)?;
    Ok(path)
}

/// Blobs of these types are shown as text.
fn is_text_mime_type(mime: Option<&str>) -> bool {
    let Some(mime) = mime else { return false };
    let kind = mime
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase();
    kind.starts_with("text/")
        || kind == "application/json"
        || kind.ends_with("+json")
        || kind.ends_with("+xml")
}

/// The extension of a saved binary resource: the one its URI ends in, else `.bin`.
fn extension_of(uri: &str) -> String {
    let path = uri.split(['?', '#']).next().unwrap_or(uri);
    let last = path.rsplit('/').next().unwrap_or(path);
    match last.rfind('.') {
        Some(dot)
            if (2..=9).contains(&(last.len() - dot))
                && last[dot + 1..].chars().all(|c| c.is_ascii_alphanumeric()) =>
        {
            last[dot..].to_owned()
        }
        _ => ".bin".to_owned(),
    }
}

/// The model-facing blocks of one content block of `server`'s result.
pub fn block_to_content(server: &str, block: &Value, readable_resources: bool) -> Vec<UserBlock> {
    match str_of(block, "type").unwrap_or("") {
        "text" => vec![text(str_of(block, "text").unwrap_or(""))],
        "image" => vec![UserBlock::Image(ImageContent {
            data: str_of(block, "data").unwrap_or("").to_owned(),
            mime_type: str_of(block, "mimeType").unwrap_or("").to_owned(),
        })],
        "audio" => vec![text(format!(
            "[audio {} omitted]",
            str_of(block, "mimeType").unwrap_or("")
        ))],
        "resource_link" => vec![text(resource_link_text(server, block, readable_resources))],
        "resource" => embedded_resource(block.get("resource").unwrap_or(&Value::Null)),
        other => vec![text(format!("[unsupported MCP content {other}]"))],
    }
}

fn resource_link_text(server: &str, block: &Value, readable_resources: bool) -> String {
    let uri = str_of(block, "uri").unwrap_or("");
    let title = str_of(block, "title")
        .or(str_of(block, "name"))
        .unwrap_or("");
    let mut details = Vec::new();
    if let Some(mime) = str_of(block, "mimeType").filter(|m| !m.is_empty()) {
        details.push(mime.to_owned());
    }
    if let Some(size) = block.get("size").and_then(Value::as_u64) {
        details.push(format_size(usize::try_from(size).unwrap_or(usize::MAX)));
    }
    let details = if details.is_empty() {
        String::new()
    } else {
        format!(" ({})", details.join(", "))
    };
    let description = str_of(block, "description")
        .filter(|d| !d.is_empty())
        .map(|d| format!(": {d}"))
        .unwrap_or_default();
    let read = if readable_resources {
        format!(". Read it with {READ_MCP_RESOURCE_TOOL} (server \"{server}\")")
    } else {
        String::new()
    };
    format!("[Resource {uri} \"{title}\"{details}{description}{read}]")
}

fn embedded_resource(resource: &Value) -> Vec<UserBlock> {
    if let Some(body) = str_of(resource, "text") {
        return vec![text(body)];
    }
    let uri = str_of(resource, "uri").unwrap_or("");
    let mime = str_of(resource, "mimeType");
    let blob = str_of(resource, "blob").unwrap_or("");
    if mime.is_some_and(|m| m.starts_with("image/")) {
        return vec![UserBlock::Image(ImageContent {
            data: blob.to_owned(),
            mime_type: mime.unwrap_or("").to_owned(),
        })];
    }
    let data = base64::engine::general_purpose::STANDARD
        .decode(blob)
        .unwrap_or_default();
    if is_text_mime_type(mime) {
        return vec![text(String::from_utf8_lossy(&data).into_owned())];
    }
    let kind = format!(
        "{}, {}",
        mime.unwrap_or("unknown type"),
        format_size(data.len())
    );
    match save_to_temp_file(&data, &extension_of(uri)) {
        Ok(path) => vec![text(format!(
            "[Binary resource {uri} ({kind}) saved to {}]",
            path.display()
        ))],
        Err(error) => vec![text(format!(
            "[Binary resource {uri} ({kind}) could not be saved: {error}]"
        ))],
    }
}

/// Text cut in the middle: head and tail, half the limit each, at character boundaries.
#[derive(Debug, PartialEq)]
pub struct Truncation {
    pub content: String,
    pub total_bytes: usize,
    pub total_lines: usize,
}

/// `None` when `text` fits in `max_bytes`; else its start and end around `…N chars truncated…`.
pub fn truncate_middle(text: &str, max_bytes: usize) -> Option<Truncation> {
    if text.len() <= max_bytes {
        return None;
    }
    let mut head_end = max_bytes / 2;
    while head_end > 0 && !text.is_char_boundary(head_end) {
        head_end -= 1;
    }
    let mut tail_start = text.len() - (max_bytes - max_bytes / 2);
    while tail_start < text.len() && !text.is_char_boundary(tail_start) {
        tail_start += 1;
    }
    let removed = text[head_end..tail_start].chars().count();
    // A final newline ends the last line instead of starting another.
    let total_lines = text.split('\n').count() - usize::from(text.ends_with('\n'));
    Some(Truncation {
        content: format!(
            "{}…{removed} chars truncated…{}",
            &text[..head_end],
            &text[tail_start..]
        ),
        total_bytes: text.len(),
        total_lines,
    })
}

/// Keeps model-facing text within [`MCP_OUTPUT_MAX_BYTES`]: longer text becomes one block in
/// Codex's truncation format naming the file with the full text, followed by the images.
pub fn limit_content(content: Vec<UserBlock>) -> (Vec<UserBlock>, Option<PathBuf>) {
    let combined = content
        .iter()
        .filter_map(|block| match block {
            UserBlock::Text(t) => Some(t.text.as_str()),
            UserBlock::Image(_) => None,
        })
        .collect::<Vec<_>>()
        .join("\n");
    let Some(truncation) = truncate_middle(&combined, MCP_OUTPUT_MAX_BYTES) else {
        return (content, None);
    };
    let (where_, path) = match save_to_temp_file(combined.as_bytes(), ".txt") {
        Ok(path) => (
            format!(
                "\n\n[Full output: {} (read it with offset/limit)]",
                path.display()
            ),
            Some(path),
        ),
        Err(error) => (
            format!("\n\n[Could not save the full output: {error}]"),
            None,
        ),
    };
    let tokens = truncation.total_bytes.div_ceil(4);
    let mut limited = vec![text(format!(
        "Warning: truncated output (original token count: {tokens})\nTotal output lines: {}\n\n{}{where_}",
        truncation.total_lines, truncation.content
    ))];
    limited.extend(
        content
            .into_iter()
            .filter(|b| matches!(b, UserBlock::Image(_))),
    );
    (limited, path)
}

/// A `tools/call` result (wire JSON) as the tool's output; `isError` results become a
/// [`ToolError`] carrying the same content, details and structured result.
pub fn convert_result(
    server: &str,
    tool: &str,
    mut result: Value,
    readable_resources: bool,
) -> Result<ToolOutput, ToolError> {
    let blocks = result
        .get("content")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let mut converted: Vec<UserBlock> = blocks
        .iter()
        .flat_map(|block| block_to_content(server, block, readable_resources))
        .collect();
    // Servers should, but do not always, mirror structured results as text.
    if converted.is_empty()
        && let Some(structured) = result.get("structuredContent")
    {
        converted.push(text(
            serde_json::to_string_pretty(structured).unwrap_or_default(),
        ));
    }
    let is_error = result
        .get("isError")
        .and_then(Value::as_bool)
        .unwrap_or(false);
    let all_text: String = converted
        .iter()
        .filter_map(|b| match b {
            UserBlock::Text(t) => Some(t.text.as_str()),
            UserBlock::Image(_) => None,
        })
        .collect();
    if is_error && all_text.is_empty() {
        converted.push(text(format!("MCP tool {server}/{tool} returned an error")));
    }
    let (content, full_output_path) = limit_content(converted);
    let mut details = json!({"server": server, "tool": tool});
    if let Some(path) = full_output_path {
        details["fullOutputPath"] = json!(path.display().to_string());
    }
    if let Some(object) = result.as_object_mut() {
        object.remove("_meta");
    }
    let output = ToolOutput {
        content,
        details,
        structured_content: Some(Box::new(result)),
    };
    if is_error {
        return Err(error_with_output(output));
    }
    Ok(output)
}

/// A [`ToolError`] whose message is the output's text and which keeps its details.
fn error_with_output(output: ToolOutput) -> ToolError {
    let message = output
        .content
        .iter()
        .filter_map(|b| match b {
            UserBlock::Text(t) => Some(t.text.as_str()),
            UserBlock::Image(_) => None,
        })
        .collect::<Vec<_>>()
        .join("\n");
    let mut error = ToolError::new(message).with_details(output.details);
    error.structured_content = output.structured_content;
    let images: Vec<_> = output
        .content
        .into_iter()
        .filter_map(|b| match b {
            UserBlock::Image(image) => Some(image),
            UserBlock::Text(_) => None,
        })
        .collect();
    error.images = (!images.is_empty()).then(|| Box::new(images));
    error
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_text_is_kept() {
        assert_eq!(truncate_middle("hello", 10), None);
        let (content, path) = limit_content(vec![text("small")]);
        assert_eq!(content, vec![text("small")]);
        assert!(path.is_none());
    }

    #[test]
    fn long_text_is_cut_in_the_middle_at_char_boundaries() {
        let body = format!("{}\n{}", "é".repeat(8), "z".repeat(10));
        let cut = truncate_middle(&body, 10).unwrap();
        // Head: 5 bytes rounded down to a boundary (two é), tail: the last 5 bytes.
        assert_eq!(
            cut.content,
            format!("éé…{} chars truncated…zzzzz", 6 + 1 + 5)
        );
        assert_eq!(cut.total_bytes, 27);
        assert_eq!(cut.total_lines, 2);
        assert_eq!(truncate_middle("ab\ncd\n", 2).unwrap().total_lines, 2);
    }

    #[test]
    fn over_20_kb_the_full_text_goes_to_a_temp_file() {
        let long = "line of output\n".repeat(3000);
        let image = UserBlock::Image(ImageContent {
            data: "AAAA".into(),
            mime_type: "image/png".into(),
        });
        let (content, path) = limit_content(vec![text(long.clone()), image.clone()]);
        let path = path.expect("saved");
        assert_eq!(std::fs::read_to_string(&path).unwrap(), long);
        let UserBlock::Text(first) = &content[0] else {
            panic!("text first")
        };
        assert!(first.text.starts_with(&format!(
            "Warning: truncated output (original token count: {})\nTotal output lines: 3000\n\n",
            long.len().div_ceil(4)
        )));
        assert!(first.text.contains("chars truncated…"));
        assert!(first.text.ends_with(&format!(
            "[Full output: {} (read it with offset/limit)]",
            path.display()
        )));
        assert!(first.text.len() < MCP_OUTPUT_MAX_BYTES + 300);
        assert_eq!(content[1], image);
        std::fs::remove_file(path).unwrap();
    }

    #[test]
    fn blocks_map_as_pi_maps_them() {
        let link = json!({"type": "resource_link", "uri": "test://a", "name": "a", "mimeType": "text/plain", "size": 2048, "description": "d"});
        assert_eq!(
            block_to_content("srv", &link, true),
            vec![text(
                "[Resource test://a \"a\" (text/plain, 2.0KB): d. Read it with read_mcp_resource (server \"srv\")]"
            )]
        );
        let embedded = json!({"type": "resource", "resource": {"uri": "x", "text": "body"}});
        assert_eq!(
            block_to_content("srv", &embedded, false),
            vec![text("body")]
        );
        let blob = json!({"type": "resource", "resource": {"uri": "x", "mimeType": "application/json", "blob": "e30="}});
        assert_eq!(block_to_content("srv", &blob, false), vec![text("{}")]);
        let result = json!({"content": [], "isError": true});
        let error = convert_result("srv", "t", result, false).unwrap_err();
        assert_eq!(error.message, "MCP tool srv/t returned an error");
        // An error with a screenshot keeps it, after the text.
        let shot = json!({"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"});
        let result =
            json!({"content": [{"type": "text", "text": "failed"}, shot], "isError": true});
        let output = convert_result("srv", "t", result, false)
            .unwrap_err()
            .into_output();
        assert_eq!(output.content.len(), 2);
        assert_eq!(output.content[0], text("failed"));
        assert!(matches!(&output.content[1], UserBlock::Image(i) if i.mime_type == "image/png"));
        let structured = json!({"content": [], "structuredContent": {"a": 1}});
        let output = convert_result("srv", "t", structured, false).unwrap();
        assert_eq!(output.content, vec![text("{\n  \"a\": 1\n}")]);
        assert_eq!(output.details, json!({"server": "srv", "tool": "t"}));
        assert_eq!(extension_of("file:///a/b.png"), ".png");
        assert_eq!(extension_of("test://static/resource/1"), ".bin");
    }
}
