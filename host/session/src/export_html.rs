//! HTML export of a session (`pi --export in.jsonl [out.html]`, RPC `export_html`): one
//! self-contained page, no scripts at all. Every piece of session text is HTML-escaped, and a
//! Content-Security-Policy forbids scripts, so nothing stored in a session can run in a browser.

use crate::messages::{AgentMessage, HostMessage};
use crate::session::file;
use crate::session::{EntryKind, SessionEntry, SessionError, SessionHeader, tree};
use pi_ai::{AssistantBlock, Message, UserBlock, UserContent};
use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// Errors of the export.
#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    #[error("{0}")]
    Session(#[from] SessionError),
    #[error("Cannot write {path}: {source}")]
    Write {
        path: PathBuf,
        source: std::io::Error,
    },
}

/// Exports `input` to `output` (default: `pi-session-<name>.html` in the current directory)
/// and returns the path written.
pub fn export_file(input: &Path, output: Option<&Path>) -> Result<PathBuf, ExportError> {
    let loaded = file::load(input)?;
    let entries: Vec<&SessionEntry> = loaded.entries.iter().collect();
    let html = render_entries(&loaded.header, &entries);
    let output = match output {
        Some(path) => path.to_path_buf(),
        None => default_output(input),
    };
    crate::paths::write_atomic(&output, html.as_bytes()).map_err(|source| ExportError::Write {
        path: output.clone(),
        source,
    })?;
    Ok(output)
}

/// `pi-session-<file stem>.html`.
pub fn default_output(input: &Path) -> PathBuf {
    let stem = input
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "session".into());
    PathBuf::from(format!("pi-session-{stem}.html"))
}

/// The page for the branch ending at the last entry.
pub fn render_entries(header: &SessionHeader, entries: &[&SessionEntry]) -> String {
    let index: HashMap<String, usize> = entries
        .iter()
        .enumerate()
        .map(|(i, e)| (e.id.clone(), i))
        .collect();
    let leaf = entries.last().map(|e| e.id.as_str());
    let branch: Vec<&SessionEntry> = tree::branch(entries, &index, leaf)
        .into_iter()
        .copied()
        .collect();
    let name = entries.iter().rev().find_map(|e| match &e.kind {
        EntryKind::SessionInfo { name } => name.clone(),
        _ => None,
    });
    let mut body = String::new();
    for entry in branch {
        render_entry(&mut body, entry);
    }
    let title = name.unwrap_or_else(|| format!("Session {}", header.id));
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; \
         style-src 'unsafe-inline'; img-src data:\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>{title}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n\
         <header><h1>{title}</h1><p class=\"meta\">id {id} · {cwd} · {time}</p></header>\n\
         <main>\n{body}</main>\n</body>\n</html>\n",
        title = escape(&title),
        id = escape(&header.id),
        cwd = escape(&header.cwd),
        time = escape(&header.timestamp),
    )
}

const STYLE: &str = "body{font:14px/1.5 system-ui,sans-serif;max-width:60rem;margin:0 auto;\
padding:1rem;background:#111;color:#ddd}h1{font-size:1.3rem}.meta{color:#888}\
.entry{border-left:3px solid #444;margin:.8rem 0;padding:.3rem .8rem}\
.user{border-color:#4a8}.assistant{border-color:#48c}.toolResult{border-color:#a84}\
.error{border-color:#c44}.note{color:#999;font-style:italic}.role{font-weight:bold;color:#aaa}\
pre{white-space:pre-wrap;word-break:break-word;margin:.3rem 0;font:13px/1.4 monospace}\
.thinking{color:#999}img{max-width:100%}";

fn render_entry(out: &mut String, entry: &SessionEntry) {
    match &entry.kind {
        EntryKind::Message(message) => render_message(out, message),
        EntryKind::ModelChange { provider, model_id } => {
            note(out, &format!("Model: {provider}/{model_id}"))
        }
        EntryKind::ThinkingLevelChange { thinking_level } => {
            note(out, &format!("Thinking level: {thinking_level}"))
        }
        EntryKind::Compaction(c) => block(out, "compaction", "Compaction summary", &c.summary),
        EntryKind::BranchSummary(b) => block(out, "branchSummary", "Branch summary", &b.summary),
        EntryKind::CustomMessage(m) if m.display => {
            let text = content_text(&m.content);
            block(out, "custom", &m.custom_type, &text);
        }
        EntryKind::SessionInfo { name: Some(name) } => note(out, &format!("Session name: {name}")),
        _ => {}
    }
}

fn render_message(out: &mut String, message: &AgentMessage) {
    match message {
        AgentMessage::Llm(llm) => render_model_message(out, llm),
        AgentMessage::Host(host) => render_host_message(out, host),
    }
}

fn render_model_message(out: &mut String, message: &Message) {
    match message {
        Message::User(user) => {
            let _ = write!(
                out,
                "<section class=\"entry user\"><div class=\"role\">User</div>"
            );
            user_content(out, &user.content);
            out.push_str("</section>\n");
        }
        Message::Assistant(assistant) => {
            let class = match &assistant.error_message {
                Some(_) => "entry assistant error",
                None => "entry assistant",
            };
            let _ = write!(
                out,
                "<section class=\"{class}\"><div class=\"role\">Assistant · {}</div>",
                escape(&format!("{}/{}", assistant.provider, assistant.model))
            );
            for part in &assistant.content {
                match part {
                    AssistantBlock::Text(t) => pre(out, "", &t.text),
                    AssistantBlock::Thinking(t) => pre(out, "thinking", &t.thinking),
                    AssistantBlock::ToolCall(call) => {
                        pre(out, "tool", &format!("→ {}({})", call.name, call.arguments))
                    }
                }
            }
            if let Some(error) = &assistant.error_message {
                pre(out, "", &format!("Error: {error}"));
            }
            out.push_str("</section>\n");
        }
        Message::ToolResult(result) => {
            let class = if result.is_error {
                "entry toolResult error"
            } else {
                "entry toolResult"
            };
            let _ = write!(
                out,
                "<section class=\"{class}\"><div class=\"role\">Tool result · {}</div>",
                escape(&result.tool_name)
            );
            blocks(out, &result.content);
            out.push_str("</section>\n");
        }
    }
}

/// The coding agent's roles; the recorded system prompt is not a chat message and roles this
/// version does not know are not drawn.
fn render_host_message(out: &mut String, message: &HostMessage) {
    match message {
        HostMessage::BashExecution(bash) => {
            block(out, "bash", &format!("$ {}", bash.command), &bash.output)
        }
        HostMessage::Custom(custom) if custom.display => block(
            out,
            "custom",
            &custom.custom_type,
            &content_text(&custom.content),
        ),
        HostMessage::BranchSummary(b) => block(out, "branchSummary", "Branch summary", &b.summary),
        HostMessage::CompactionSummary(c) => {
            block(out, "compaction", "Compaction summary", &c.summary)
        }
        _ => {}
    }
}

fn user_content(out: &mut String, content: &UserContent) {
    match content {
        UserContent::Text(text) => pre(out, "", text),
        UserContent::Blocks(list) => blocks(out, list),
    }
}

fn blocks(out: &mut String, list: &[UserBlock]) {
    for part in list {
        match part {
            UserBlock::Text(t) => pre(out, "", &t.text),
            UserBlock::Image(image) => image_tag(out, &image.mime_type, &image.data),
        }
    }
}

/// An inline image, only for known image types and base64 data (anything else could break out
/// of the attribute).
fn image_tag(out: &mut String, mime: &str, data: &str) {
    let known = matches!(
        mime,
        "image/png" | "image/jpeg" | "image/gif" | "image/webp"
    );
    let clean = data
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'/' | b'='));
    if known && clean {
        let _ = write!(out, "<img alt=\"image\" src=\"data:{mime};base64,{data}\">");
    } else {
        pre(out, "note", "(image omitted)");
    }
}

fn content_text(content: &UserContent) -> String {
    match content {
        UserContent::Text(text) => text.clone(),
        UserContent::Blocks(list) => list
            .iter()
            .filter_map(|b| match b {
                UserBlock::Text(t) => Some(t.text.as_str()),
                UserBlock::Image(_) => None,
            })
            .collect::<Vec<_>>()
            .join("\n"),
    }
}

fn pre(out: &mut String, class: &str, text: &str) {
    let _ = write!(out, "<pre class=\"{class}\">{}</pre>", escape(text));
}

fn note(out: &mut String, text: &str) {
    let _ = writeln!(out, "<p class=\"entry note\">{}</p>", escape(text));
}

fn block(out: &mut String, class: &str, title: &str, text: &str) {
    let _ = write!(
        out,
        "<section class=\"entry {class}\"><div class=\"role\">{}</div>",
        escape(title)
    );
    pre(out, "", text);
    out.push_str("</section>\n");
}

/// Escapes text for HTML element content and quoted attribute values.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_markup() {
        assert_eq!(
            escape("<script>alert('x')</script>&\""),
            "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;&amp;&quot;"
        );
    }

    #[test]
    fn rejects_non_base64_image_data() {
        let mut out = String::new();
        image_tag(&mut out, "image/png", "AAA\"><script>x</script>");
        assert!(!out.contains("<script"));
        let mut out = String::new();
        image_tag(&mut out, "text/html", "AAAA");
        assert!(!out.contains("<img"));
    }
}
