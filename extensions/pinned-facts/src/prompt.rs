//! The request the summarising model gets: the earlier summary, the pinned facts (so that it
//! does not repeat them), the conversation to summarise as `role: text` lines, and what the
//! user asked of the summary. Tool output is cut per result so that one large `read` cannot
//! crowd the conversation out of the model's context.

use pi_guest_sdk::{AssistantBlock, ContentBlock, LlmContext, Message};

/// Characters of one tool result the model is shown.
const TOOL_RESULT_CHARS: usize = 2_000;

/// What the model is asked to be.
const SYSTEM_PROMPT: &str = "You write the summary of a coding session for the coding agent \
that will continue it from your summary alone. Be concise and concrete: the user's goal, what \
was done (files, commands, decisions and why), what is in progress, and what comes next. Keep \
names, paths and numbers exact. Plain Markdown without headings. A list of pinned facts is kept \
verbatim next to your summary: do not repeat them.";

/// The parts of one compaction the model needs.
pub struct Request<'a> {
    pub previous: &'a str,
    pub facts: &'a [String],
    pub messages: &'a [Message],
    pub focus: &'a str,
}

/// The model's context for `request`: one user message.
pub fn context(request: &Request<'_>) -> LlmContext {
    let mut text = String::new();
    if !request.previous.is_empty() {
        section(&mut text, "previous-summary", request.previous);
    }
    if !request.facts.is_empty() {
        let facts: Vec<String> = request.facts.iter().map(|f| format!("- {f}")).collect();
        section(&mut text, "pinned-facts", &facts.join("\n"));
    }
    section(&mut text, "conversation", &transcript(request.messages));
    text.push_str(
        "Write the summary of the conversation, folding in the previous summary if there is one.",
    );
    if !request.focus.is_empty() {
        text.push_str("\nThe user asks the summary to focus on: ");
        text.push_str(request.focus);
    }
    LlmContext {
        system_prompt: Some(SYSTEM_PROMPT.into()),
        messages: vec![Message::User(vec![ContentBlock::Text(text)])],
        tools: vec![],
    }
}

fn section(out: &mut String, tag: &str, body: &str) {
    out.push_str(&format!("<{tag}>\n{body}\n</{tag}>\n\n"));
}

/// Every message as `role: text`, one a line; tool calls with their arguments.
fn transcript(messages: &[Message]) -> String {
    messages
        .iter()
        .map(|m| match m {
            Message::User(blocks) => format!("user: {}", blocks_text(blocks)),
            Message::Assistant(a) => {
                let parts: Vec<String> = a
                    .content
                    .iter()
                    .filter_map(|b| match b {
                        AssistantBlock::Text(t) => Some(t.clone()),
                        AssistantBlock::ToolCall(c) => {
                            Some(format!("[called {}({})]", c.name, c.arguments))
                        }
                        AssistantBlock::Thinking(_) => None,
                    })
                    .collect();
                format!("assistant: {}", parts.join(" "))
            }
            Message::ToolResult(r) => {
                let text = blocks_text(&r.content);
                let cut: String = text.chars().take(TOOL_RESULT_CHARS).collect();
                let more = if cut.len() < text.len() { " […]" } else { "" };
                let failed = if r.is_error { " (failed)" } else { "" };
                format!("tool {}{failed}: {cut}{more}", r.tool_name)
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The text blocks of a message, joined; images are named, not described.
pub fn blocks_text(blocks: &[ContentBlock]) -> String {
    blocks
        .iter()
        .map(|b| match b {
            ContentBlock::Text(t) => t.clone(),
            ContentBlock::Image(_) => "[image]".to_owned(),
        })
        .collect::<Vec<_>>()
        .join(" ")
}
