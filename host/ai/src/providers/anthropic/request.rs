//! pi context → Anthropic Messages request body.

use crate::options::StreamOptions;
use crate::types::{
    AssistantBlock, AssistantMessage, Context, Message, Model, StopReason, Tool, ToolResultMessage,
    UserBlock,
};
use serde_json::{Map, Value, json};

/// Anthropic keeps this much room for the answer when the thinking budget would eat the whole
/// output limit.
const MIN_ANSWER_TOKENS: u64 = 1024;

/// Claude Code's tool names. A subscription token's requests name tools the way Claude Code
/// does, so pi's tools whose names match one case-insensitively are sent in this casing (and
/// named back by the decoder).
const CLAUDE_CODE_TOOLS: [&str; 17] = [
    "Read",
    "Write",
    "Edit",
    "Bash",
    "Grep",
    "Glob",
    "AskUserQuestion",
    "EnterPlanMode",
    "ExitPlanMode",
    "KillShell",
    "NotebookEdit",
    "Skill",
    "Task",
    "TaskOutput",
    "TodoWrite",
    "WebFetch",
    "WebSearch",
];

/// `name` in Claude Code's casing when it is one of Claude Code's tools.
pub(super) fn claude_code_name(name: &str) -> &str {
    CLAUDE_CODE_TOOLS
        .into_iter()
        .find(|cc| cc.eq_ignore_ascii_case(name))
        .unwrap_or(name)
}

/// Renames the tool definitions and the history's tool calls to Claude Code's casing.
fn use_claude_code_names(body: &mut Map<String, Value>) {
    let rename = |item: &mut Value| {
        if let Some(Value::String(name)) = item.get_mut("name") {
            *name = claude_code_name(name).to_owned();
        }
    };
    if let Some(Value::Array(tools)) = body.get_mut("tools") {
        tools.iter_mut().for_each(rename);
    }
    if let Some(Value::Array(messages)) = body.get_mut("messages") {
        for message in messages {
            if let Some(Value::Array(blocks)) = message.get_mut("content") {
                blocks
                    .iter_mut()
                    .filter(|b| b.get("type").and_then(Value::as_str) == Some("tool_use"))
                    .for_each(rename);
            }
        }
    }
}

/// The first system block of a request made with a Claude Pro/Max OAuth token.
pub(super) const OAUTH_IDENTITY: &str = "You are Claude Code, Anthropic's official CLI for Claude.";

pub(super) fn build_body(
    model: &Model,
    context: &Context,
    options: &StreamOptions,
    oauth: bool,
) -> Value {
    let mut body = Map::new();
    body.insert("model".into(), json!(model.id));
    let limits = limits(model, options);
    body.insert("max_tokens".into(), json!(limits.max_tokens));
    body.insert("stream".into(), json!(true));
    let mut system = Vec::new();
    if oauth {
        system.push(json!({"type": "text", "text": OAUTH_IDENTITY}));
    }
    if let Some(prompt) = context.system_prompt.as_deref().filter(|s| !s.is_empty()) {
        system
            .push(json!({"type": "text", "text": prompt, "cache_control": {"type": "ephemeral"}}));
    }
    if !system.is_empty() {
        body.insert("system".into(), Value::Array(system));
    }
    body.insert("messages".into(), Value::Array(messages(&context.messages)));
    if !context.tools.is_empty() {
        body.insert("tools".into(), context.tools.iter().map(tool).collect());
    }
    match limits.thinking_budget {
        Some(budget) => {
            body.insert(
                "thinking".into(),
                json!({"type": "enabled", "budget_tokens": budget}),
            );
        }
        None => {
            // Anthropic rejects a temperature together with extended thinking.
            if let Some(t) = options.temperature {
                body.insert("temperature".into(), json!(t));
            }
        }
    }
    if oauth {
        use_claude_code_names(&mut body);
    }
    Value::Object(body)
}

#[derive(Debug, PartialEq, Eq)]
struct Limits {
    max_tokens: u64,
    thinking_budget: Option<u64>,
}

/// The output limit and thinking budget. The budget counts against `max_tokens`, so the limit
/// grows by the budget (up to the model's cap) and the budget shrinks if it would leave no room.
fn limits(model: &Model, options: &StreamOptions) -> Limits {
    let base = options.max_tokens.unwrap_or(model.max_tokens);
    let Some(level) = options.reasoning_level().filter(|_| model.reasoning) else {
        return Limits {
            max_tokens: base,
            thinking_budget: None,
        };
    };
    let mut budget = level.budget_tokens();
    let max_tokens = base.saturating_add(budget).min(model.max_tokens);
    if max_tokens <= budget {
        budget = max_tokens.saturating_sub(MIN_ANSWER_TOKENS);
    }
    Limits {
        max_tokens,
        thinking_budget: Some(budget),
    }
}

fn tool(tool: &Tool) -> Value {
    json!({
        "name": tool.name,
        "description": tool.description,
        "input_schema": tool.parameters,
    })
}

/// Converts the history. Consecutive tool results become one user message, as Anthropic wants
/// all results of one assistant turn together.
fn messages(history: &[Message]) -> Vec<Value> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < history.len() {
        match &history[i] {
            Message::User(user) => {
                let blocks: Vec<Value> = user
                    .content
                    .to_blocks()
                    .iter()
                    .filter_map(user_block)
                    .collect();
                if !blocks.is_empty() {
                    out.push(json!({"role": "user", "content": blocks}));
                }
            }
            Message::Assistant(assistant) => {
                if let Some(message) = assistant_message(assistant) {
                    out.push(message);
                }
            }
            Message::ToolResult(_) => {
                let mut results = Vec::new();
                while let Some(Message::ToolResult(result)) = history.get(i) {
                    results.push(tool_result(result));
                    i += 1;
                }
                out.push(json!({"role": "user", "content": results}));
                continue;
            }
        }
        i += 1;
    }
    mark_last_user_message(&mut out);
    out
}

/// Puts a cache breakpoint on the last block of the last user message, so the whole history
/// up to it can be read from the prompt cache next turn.
fn mark_last_user_message(messages: &mut [Value]) {
    let last_user = messages
        .iter_mut()
        .rev()
        .find(|m| m.get("role").and_then(Value::as_str) == Some("user"));
    let Some(last_block) = last_user
        .and_then(|m| m.get_mut("content"))
        .and_then(Value::as_array_mut)
        .and_then(|blocks| blocks.last_mut())
        .and_then(Value::as_object_mut)
    else {
        return;
    };
    last_block.insert("cache_control".into(), json!({"type": "ephemeral"}));
}

/// A user or tool-result block; empty text is dropped (Anthropic rejects it).
fn user_block(block: &UserBlock) -> Option<Value> {
    match block {
        UserBlock::Text(t) if t.text.trim().is_empty() => None,
        UserBlock::Text(t) => Some(json!({"type": "text", "text": t.text})),
        UserBlock::Image(img) => Some(json!({
            "type": "image",
            "source": {"type": "base64", "media_type": img.mime_type, "data": img.data},
        })),
    }
}

fn assistant_message(message: &AssistantMessage) -> Option<Value> {
    // A failed or aborted turn may hold half a tool call; it must not be replayed.
    if matches!(message.stop_reason, StopReason::Error | StopReason::Aborted) {
        return None;
    }
    let blocks: Vec<Value> = message.content.iter().filter_map(assistant_block).collect();
    if blocks.is_empty() {
        return None;
    }
    Some(json!({"role": "assistant", "content": blocks}))
}

fn assistant_block(block: &AssistantBlock) -> Option<Value> {
    match block {
        AssistantBlock::Text(t) if t.text.trim().is_empty() => None,
        AssistantBlock::Text(t) => Some(json!({"type": "text", "text": t.text})),
        AssistantBlock::Thinking(t) => {
            let signature = t.thinking_signature.as_deref().filter(|s| !s.is_empty())?;
            if t.redacted == Some(true) {
                Some(json!({"type": "redacted_thinking", "data": signature}))
            } else {
                // Anthropic only accepts thinking back with the signature it issued.
                Some(json!({"type": "thinking", "thinking": t.thinking, "signature": signature}))
            }
        }
        AssistantBlock::ToolCall(call) => {
            let input = match &call.arguments {
                Value::Object(_) => call.arguments.clone(),
                _ => json!({}),
            };
            Some(json!({"type": "tool_use", "id": call.id, "name": call.name, "input": input}))
        }
    }
}

fn tool_result(result: &ToolResultMessage) -> Value {
    let content: Vec<Value> = result.content.iter().filter_map(user_block).collect();
    let mut block = json!({
        "type": "tool_result",
        "tool_use_id": result.tool_call_id,
        "is_error": result.is_error,
    });
    if !content.is_empty() {
        block["content"] = Value::Array(content);
    }
    block
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::{
        ImageContent, TextContent, ThinkingContent, ThinkingLevel, ToolCall, UserContent,
        UserMessage,
    };

    fn model() -> Model {
        super::super::tests::model()
    }

    fn text(t: &str) -> TextContent {
        TextContent {
            text: t.into(),
            text_signature: None,
        }
    }

    fn image() -> ImageContent {
        ImageContent {
            data: "aGVsbG8=".into(),
            mime_type: "image/png".into(),
        }
    }

    fn result(id: &str, out: &str, is_error: bool) -> Message {
        Message::ToolResult(ToolResultMessage {
            tool_call_id: id.into(),
            tool_name: "read".into(),
            content: vec![UserBlock::Text(text(out))],
            details: None,
            is_error,
            timestamp: 0,
        })
    }

    fn assistant() -> AssistantMessage {
        AssistantMessage {
            content: vec![
                AssistantBlock::Thinking(ThinkingContent {
                    thinking: "let me look".into(),
                    thinking_signature: Some("sig-1".into()),
                    redacted: None,
                }),
                AssistantBlock::Thinking(ThinkingContent {
                    thinking: String::new(),
                    thinking_signature: Some("opaque".into()),
                    redacted: Some(true),
                }),
                AssistantBlock::Thinking(ThinkingContent {
                    thinking: "unsigned".into(),
                    thinking_signature: None,
                    redacted: None,
                }),
                AssistantBlock::Text(text("Reading both.")),
                AssistantBlock::Text(text("")),
                AssistantBlock::ToolCall(ToolCall {
                    id: "toolu_1".into(),
                    name: "read".into(),
                    arguments: json!({"path": "a.rs"}),
                    thought_signature: None,
                }),
                AssistantBlock::ToolCall(ToolCall {
                    id: "toolu_2".into(),
                    name: "read".into(),
                    arguments: json!({"path": "b.rs"}),
                    thought_signature: None,
                }),
            ],
            stop_reason: StopReason::ToolUse,
            ..Default::default()
        }
    }

    fn context() -> Context {
        Context {
            system_prompt: Some("You are pi.".into()),
            messages: vec![
                Message::User(UserMessage {
                    content: UserContent::Blocks(vec![
                        UserBlock::Text(text("What is in these?")),
                        UserBlock::Image(image()),
                    ]),
                    timestamp: 0,
                }),
                Message::Assistant(assistant()),
                result("toolu_1", "fn a() {}", false),
                result("toolu_2", "no such file", true),
            ],
            tools: vec![Tool {
                name: "read".into(),
                description: "Read a file".into(),
                parameters: json!({"type": "object", "properties": {"path": {"type": "string"}}})
                    .into(),
            }],
        }
    }

    #[test]
    fn full_context_body() {
        let body = build_body(&model(), &context(), &StreamOptions::default(), false);
        let expected = json!({
            "model": "claude-test",
            "max_tokens": 64000,
            "stream": true,
            "system": [{"type": "text", "text": "You are pi.", "cache_control": {"type": "ephemeral"}}],
            "messages": [
                {"role": "user", "content": [
                    {"type": "text", "text": "What is in these?"},
                    {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "aGVsbG8="}},
                ]},
                {"role": "assistant", "content": [
                    {"type": "thinking", "thinking": "let me look", "signature": "sig-1"},
                    {"type": "redacted_thinking", "data": "opaque"},
                    {"type": "text", "text": "Reading both."},
                    {"type": "tool_use", "id": "toolu_1", "name": "read", "input": {"path": "a.rs"}},
                    {"type": "tool_use", "id": "toolu_2", "name": "read", "input": {"path": "b.rs"}},
                ]},
                {"role": "user", "content": [
                    {"type": "tool_result", "tool_use_id": "toolu_1", "is_error": false,
                     "content": [{"type": "text", "text": "fn a() {}"}]},
                    {"type": "tool_result", "tool_use_id": "toolu_2", "is_error": true,
                     "content": [{"type": "text", "text": "no such file"}],
                     "cache_control": {"type": "ephemeral"}},
                ]},
            ],
            "tools": [{"name": "read", "description": "Read a file",
                       "input_schema": {"type": "object", "properties": {"path": {"type": "string"}}}}],
        });
        assert_eq!(body, expected);
    }

    #[test]
    fn failed_assistant_turns_are_skipped() {
        let mut failed = assistant();
        failed.stop_reason = StopReason::Error;
        let ctx = Context {
            messages: vec![
                Message::User(UserMessage::text("hi")),
                Message::Assistant(failed),
            ],
            ..Default::default()
        };
        let body = build_body(&model(), &ctx, &StreamOptions::default(), false);
        let messages = body["messages"].as_array().unwrap();
        assert_eq!(messages.len(), 1);
        assert_eq!(
            messages[0]["content"][0]["cache_control"],
            json!({"type": "ephemeral"})
        );
    }

    #[test]
    fn thinking_off_keeps_temperature_and_base_limit() {
        let options = StreamOptions {
            max_tokens: Some(4000),
            temperature: Some(0.5),
            reasoning: Some(ThinkingLevel::Off),
            ..Default::default()
        };
        let body = build_body(&model(), &Context::default(), &options, false);
        assert_eq!(body["max_tokens"], json!(4000));
        assert_eq!(body["temperature"], json!(0.5));
        assert!(body.get("thinking").is_none());
    }

    #[test]
    fn thinking_adds_budget_and_drops_temperature() {
        let options = StreamOptions {
            max_tokens: Some(4000),
            temperature: Some(0.5),
            reasoning: Some(ThinkingLevel::Medium),
            ..Default::default()
        };
        let body = build_body(&model(), &Context::default(), &options, false);
        assert_eq!(body["max_tokens"], json!(4000 + 8192));
        assert_eq!(
            body["thinking"],
            json!({"type": "enabled", "budget_tokens": 8192})
        );
        assert!(body.get("temperature").is_none());
    }

    #[test]
    fn thinking_budget_is_capped_by_model_limit() {
        let mut m = model();
        m.max_tokens = 10_000;
        let high = StreamOptions {
            reasoning: Some(ThinkingLevel::High),
            ..Default::default()
        };
        // 10 000 + 16 384 capped at 10 000, which is below the budget: budget = 10 000 - 1024.
        assert_eq!(
            limits(&m, &high),
            Limits {
                max_tokens: 10_000,
                thinking_budget: Some(8_976)
            }
        );
        m.max_tokens = 20_000;
        let low = StreamOptions {
            max_tokens: Some(16_000),
            reasoning: Some(ThinkingLevel::Low),
            ..Default::default()
        };
        assert_eq!(
            limits(&m, &low),
            Limits {
                max_tokens: 18_048,
                thinking_budget: Some(2048)
            }
        );
    }

    #[test]
    fn no_thinking_for_models_without_reasoning() {
        let mut m = model();
        m.reasoning = false;
        let options = StreamOptions {
            reasoning: Some(ThinkingLevel::High),
            temperature: Some(0.2),
            ..Default::default()
        };
        let body = build_body(&m, &Context::default(), &options, false);
        assert!(body.get("thinking").is_none());
        assert_eq!(body["max_tokens"], json!(64000));
        assert_eq!(body["temperature"], json!(0.2));
    }
}
