//! The Chat Completions request body.

use super::compat::ResolvedCompat;
use crate::options::StreamOptions;
use crate::types::{
    AssistantBlock, AssistantMessage, Context, MaxTokensField, Message, Model, StopReason,
    ThinkingFormat, ThinkingLevel, Tool, ToolResultMessage, UserBlock, UserContent,
};
use serde_json::{Map, Value, json};

/// Output limit when the caller gives none: the model's, capped like pi does.
const DEFAULT_MAX_TOKENS_CAP: u64 = 32_000;

/// Reasoning fields a completions server may stream; a thinking block remembers which one it
/// came from (as its signature) so it can be sent back the same way.
pub(crate) const REASONING_FIELDS: [&str; 3] = ["reasoning_content", "reasoning", "reasoning_text"];

pub(crate) fn build_body(
    model: &Model,
    context: &Context,
    options: &StreamOptions,
    compat: &ResolvedCompat,
) -> Value {
    let mut body = Map::new();
    body.insert("model".into(), json!(model.id));
    body.insert(
        "messages".into(),
        Value::Array(messages(model, context, compat)),
    );
    if !context.tools.is_empty() {
        body.insert("tools".into(), tools(&context.tools));
    }
    body.insert("stream".into(), json!(true));
    if compat.supports_usage_in_streaming {
        body.insert("stream_options".into(), json!({"include_usage": true}));
    }
    if compat.supports_store {
        body.insert("store".into(), json!(false));
    }
    let max_tokens = options
        .max_tokens
        .unwrap_or_else(|| model.max_tokens.min(DEFAULT_MAX_TOKENS_CAP));
    if max_tokens > 0 {
        let field = match compat.max_tokens_field {
            MaxTokensField::MaxTokens => "max_tokens",
            MaxTokensField::MaxCompletionTokens => "max_completion_tokens",
        };
        body.insert(field.into(), json!(max_tokens));
    }
    if let Some(t) = options.temperature {
        body.insert("temperature".into(), json!(t));
    }
    if model.reasoning && compat.supports_reasoning_effort {
        add_reasoning(&mut body, compat, options.reasoning_level());
    }
    Value::Object(body)
}

/// The effort word OpenAI-style APIs take for a level (`max` has no own word).
pub(crate) fn effort(level: ThinkingLevel) -> &'static str {
    match level {
        ThinkingLevel::Off => "none",
        ThinkingLevel::Minimal => "minimal",
        ThinkingLevel::Low => "low",
        ThinkingLevel::Medium => "medium",
        ThinkingLevel::High => "high",
        ThinkingLevel::Xhigh | ThinkingLevel::Max => "xhigh",
    }
}

fn add_reasoning(
    body: &mut Map<String, Value>,
    compat: &ResolvedCompat,
    level: Option<ThinkingLevel>,
) {
    let on = level.is_some();
    match (&compat.thinking_format, level) {
        (ThinkingFormat::Openai, Some(level)) => {
            body.insert("reasoning_effort".into(), json!(effort(level)));
        }
        (ThinkingFormat::Openrouter, Some(level)) => {
            let word = match effort(level) {
                "xhigh" => "high",
                w => w,
            };
            body.insert("reasoning".into(), json!({"effort": word}));
        }
        (ThinkingFormat::Deepseek | ThinkingFormat::Zai, _) => {
            let kind = if on { "enabled" } else { "disabled" };
            body.insert("thinking".into(), json!({"type": kind}));
        }
        (ThinkingFormat::Qwen, _) => {
            body.insert("enable_thinking".into(), json!(on));
        }
        (ThinkingFormat::ChatTemplate, _) => {
            body.insert(
                "chat_template_kwargs".into(),
                json!({"enable_thinking": on}),
            );
        }
        _ => {}
    }
}

fn tools(tools: &[Tool]) -> Value {
    tools
        .iter()
        .map(|t| {
            json!({
                "type": "function",
                "function": {"name": t.name, "description": t.description, "parameters": t.parameters},
            })
        })
        .collect()
}

fn messages(model: &Model, context: &Context, compat: &ResolvedCompat) -> Vec<Value> {
    let mut out = Vec::new();
    if let Some(prompt) = context.system_prompt.as_deref().filter(|p| !p.is_empty()) {
        let role = if model.reasoning && compat.supports_developer_role {
            "developer"
        } else {
            "system"
        };
        out.push(json!({"role": role, "content": prompt}));
    }
    // Images from tool results wait until the run of tool messages ends: servers require the
    // tool messages to follow their assistant message without anything in between.
    let mut pending_images: Vec<Value> = Vec::new();
    let mut last_was_tool = false;
    for message in &context.messages {
        if !matches!(message, Message::ToolResult(_)) {
            flush_images(&mut out, &mut pending_images);
        }
        match message {
            Message::User(user) => {
                if last_was_tool && compat.requires_assistant_after_tool_result {
                    out.push(json!({"role": "assistant", "content": "I have processed the tool results."}));
                }
                if let Some(m) = user_message(model, &user.content) {
                    out.push(m);
                }
            }
            Message::Assistant(assistant) => {
                if let Some(m) = assistant_message(assistant, compat) {
                    out.push(m);
                }
            }
            Message::ToolResult(result) => {
                out.push(tool_message(result, compat));
                if model.supports_images() {
                    pending_images.extend(result.content.iter().filter_map(image_part));
                }
            }
        }
        last_was_tool = matches!(message, Message::ToolResult(_));
    }
    flush_images(&mut out, &mut pending_images);
    out
}

fn flush_images(out: &mut Vec<Value>, images: &mut Vec<Value>) {
    if images.is_empty() {
        return;
    }
    let mut content = vec![json!({"type": "text", "text": "Attached image(s) from tool result:"})];
    content.append(images);
    out.push(json!({"role": "user", "content": content}));
}

fn image_part(block: &UserBlock) -> Option<Value> {
    match block {
        UserBlock::Image(image) => Some(json!({
            "type": "image_url",
            "image_url": {"url": format!("data:{};base64,{}", image.mime_type, image.data)},
        })),
        UserBlock::Text(_) => None,
    }
}

fn user_message(model: &Model, content: &UserContent) -> Option<Value> {
    let parts: Vec<Value> = match content {
        UserContent::Text(text) => return Some(json!({"role": "user", "content": text})),
        UserContent::Blocks(blocks) => blocks
            .iter()
            .filter_map(|block| match block {
                UserBlock::Text(t) => Some(json!({"type": "text", "text": t.text})),
                UserBlock::Image(_) if model.supports_images() => image_part(block),
                UserBlock::Image(_) => None,
            })
            .collect(),
    };
    (!parts.is_empty()).then(|| json!({"role": "user", "content": parts}))
}

fn assistant_message(message: &AssistantMessage, compat: &ResolvedCompat) -> Option<Value> {
    // A failed or aborted turn may hold half a tool call; servers reject those.
    if matches!(message.stop_reason, StopReason::Error | StopReason::Aborted) {
        return None;
    }
    let mut text = String::new();
    let mut thinking: Vec<&str> = Vec::new();
    let mut thinking_field: Option<&str> = None;
    let mut calls = Vec::new();
    for block in &message.content {
        match block {
            AssistantBlock::Text(t) => text.push_str(&t.text),
            AssistantBlock::Thinking(t) if t.redacted != Some(true) && !t.thinking.is_empty() => {
                thinking.push(&t.thinking);
                if thinking_field.is_none() {
                    thinking_field = t
                        .thinking_signature
                        .as_deref()
                        .and_then(|s| REASONING_FIELDS.iter().copied().find(|f| *f == s));
                }
            }
            AssistantBlock::Thinking(_) => {}
            AssistantBlock::ToolCall(call) => calls.push(json!({
                "id": call.id,
                "type": "function",
                "function": {"name": call.name, "arguments": call.arguments.to_string()},
            })),
        }
    }
    let mut out = Map::new();
    out.insert("role".into(), json!("assistant"));
    if !thinking.is_empty() {
        if compat.requires_thinking_as_text {
            let as_text: Vec<String> = thinking
                .iter()
                .map(|t| format!("<thinking>\n{t}\n</thinking>"))
                .collect();
            let joined = as_text.join("\n");
            text = if text.is_empty() {
                joined
            } else {
                format!("{joined}\n{text}")
            };
        } else {
            let field = thinking_field.or(match compat.thinking_format {
                ThinkingFormat::Deepseek => Some("reasoning_content"),
                _ => None,
            });
            if let Some(field) = field {
                out.insert(field.into(), json!(thinking.join("\n")));
            }
        }
    }
    if text.is_empty() && calls.is_empty() {
        return None;
    }
    out.insert(
        "content".into(),
        if text.is_empty() {
            Value::Null
        } else {
            json!(text)
        },
    );
    if !calls.is_empty() {
        out.insert("tool_calls".into(), Value::Array(calls));
    }
    Some(Value::Object(out))
}

fn tool_message(result: &ToolResultMessage, compat: &ResolvedCompat) -> Value {
    let text = result.text();
    let content = if text.is_empty() {
        "(see attached image)".to_owned()
    } else {
        text
    };
    let mut out = json!({"role": "tool", "tool_call_id": result.tool_call_id, "content": content});
    if compat.requires_tool_result_name {
        out["name"] = json!(result.tool_name);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::compat::detect_compat;
    use super::super::compat::tests::model;
    use super::*;
    use crate::types::{ImageContent, TextContent, ThinkingContent, ToolCall, UserMessage};

    fn body(model: &Model, context: &Context, options: &StreamOptions) -> Value {
        build_body(model, context, options, &detect_compat(model))
    }

    fn ctx(messages: Vec<Message>) -> Context {
        Context {
            system_prompt: Some("be brief".into()),
            messages,
            tools: vec![Tool {
                name: "read".into(),
                description: "Read a file".into(),
                parameters: json!({"type": "object", "properties": {"path": {"type": "string"}}})
                    .into(),
            }],
        }
    }

    fn tool_turn() -> Vec<Message> {
        vec![
            Message::User(UserMessage::text("read a")),
            Message::Assistant(AssistantMessage {
                content: vec![
                    AssistantBlock::Thinking(ThinkingContent {
                        thinking: "I should read".into(),
                        thinking_signature: Some("reasoning_content".into()),
                        redacted: None,
                    }),
                    AssistantBlock::Text(TextContent {
                        text: "Reading.".into(),
                        text_signature: None,
                    }),
                    AssistantBlock::ToolCall(ToolCall {
                        id: "call_1".into(),
                        name: "read".into(),
                        arguments: json!({"path": "a"}),
                        thought_signature: None,
                    }),
                ],
                stop_reason: StopReason::ToolUse,
                ..Default::default()
            }),
            Message::ToolResult(ToolResultMessage {
                tool_call_id: "call_1".into(),
                tool_name: "read".into(),
                content: vec![
                    UserBlock::Text(TextContent {
                        text: "hello".into(),
                        text_signature: None,
                    }),
                    UserBlock::Image(ImageContent {
                        data: "QUJD".into(),
                        mime_type: "image/png".into(),
                    }),
                ],
                details: None,
                is_error: false,
                timestamp: 0,
            }),
            Message::User(UserMessage::text("thanks")),
        ]
    }

    #[test]
    fn openai_body_uses_developer_role_store_and_max_completion_tokens() {
        let m = model("openai", "https://api.openai.com/v1");
        let b = body(
            &m,
            &ctx(vec![Message::User(UserMessage::text("hi"))]),
            &StreamOptions::default(),
        );
        assert_eq!(
            b["messages"][0],
            json!({"role": "developer", "content": "be brief"})
        );
        assert_eq!(b["messages"][1], json!({"role": "user", "content": "hi"}));
        assert_eq!(b["store"], json!(false));
        assert_eq!(b["stream"], json!(true));
        assert_eq!(b["stream_options"], json!({"include_usage": true}));
        assert_eq!(b["max_completion_tokens"], json!(16_000));
        assert!(b.get("max_tokens").is_none());
        assert_eq!(b["tools"][0]["function"]["name"], json!("read"));
        assert_eq!(b["tools"][0]["type"], json!("function"));
        assert!(
            b.get("reasoning_effort").is_none(),
            "no reasoning requested"
        );
    }

    #[test]
    fn non_reasoning_openai_model_uses_system_role() {
        let mut m = model("openai", "https://api.openai.com/v1");
        m.reasoning = false;
        let b = body(&m, &ctx(vec![]), &StreamOptions::default());
        assert_eq!(b["messages"][0]["role"], json!("system"));
    }

    #[test]
    fn local_server_body_is_conservative() {
        let m = model("llama", "http://127.0.0.1:8080/v1");
        let options = StreamOptions {
            max_tokens: Some(500),
            reasoning: Some(ThinkingLevel::High),
            ..Default::default()
        };
        let b = body(&m, &ctx(vec![]), &options);
        assert_eq!(b["messages"][0]["role"], json!("system"));
        assert_eq!(b["max_tokens"], json!(500));
        assert!(b.get("store").is_none());
        assert!(b.get("reasoning_effort").is_none());
    }

    #[test]
    fn images_become_data_urls_and_are_dropped_for_text_models() {
        let user = Message::User(UserMessage {
            content: UserContent::Blocks(vec![
                UserBlock::Text(TextContent {
                    text: "look".into(),
                    text_signature: None,
                }),
                UserBlock::Image(ImageContent {
                    data: "QUJD".into(),
                    mime_type: "image/png".into(),
                }),
            ]),
            timestamp: 0,
        });
        let mut m = model("openai", "https://api.openai.com/v1");
        let b = body(&m, &ctx(vec![user.clone()]), &StreamOptions::default());
        assert_eq!(
            b["messages"][1]["content"][1]["image_url"]["url"],
            json!("data:image/png;base64,QUJD")
        );
        m.input = vec![crate::types::Modality::Text];
        let b = body(&m, &ctx(vec![user]), &StreamOptions::default());
        assert_eq!(
            b["messages"][1]["content"],
            json!([{"type": "text", "text": "look"}])
        );
    }

    #[test]
    fn assistant_tool_calls_and_tool_results() {
        let m = model("openai", "https://api.openai.com/v1");
        let b = body(&m, &ctx(tool_turn()), &StreamOptions::default());
        let msgs = b["messages"].as_array().cloned().unwrap_or_default();
        let assistant = &msgs[2];
        assert_eq!(assistant["content"], json!("Reading."));
        assert_eq!(
            assistant["reasoning_content"],
            json!("I should read"),
            "replayed in its own field"
        );
        assert_eq!(
            assistant["tool_calls"],
            json!([{"id": "call_1", "type": "function", "function": {"name": "read", "arguments": "{\"path\":\"a\"}"}}])
        );
        assert_eq!(
            msgs[3],
            json!({"role": "tool", "tool_call_id": "call_1", "content": "hello"})
        );
        assert_eq!(
            msgs[4]["role"],
            json!("user"),
            "tool images follow the tool messages"
        );
        assert_eq!(msgs[4]["content"][1]["type"], json!("image_url"));
        assert_eq!(msgs[5], json!({"role": "user", "content": "thanks"}));
    }

    #[test]
    fn mistral_names_tool_results_and_sends_thinking_as_text() {
        let m = model("mistral", "https://api.mistral.ai/v1");
        let b = body(&m, &ctx(tool_turn()), &StreamOptions::default());
        let assistant = &b["messages"][2];
        assert_eq!(
            assistant["content"],
            json!("<thinking>\nI should read\n</thinking>\nReading.")
        );
        assert!(assistant.get("reasoning_content").is_none());
        assert_eq!(b["messages"][3]["name"], json!("read"));
        assert_eq!(b["max_tokens"], json!(16_000));
    }

    #[test]
    fn failed_assistant_turns_are_skipped() {
        let m = model("openai", "https://api.openai.com/v1");
        let failed = Message::Assistant(AssistantMessage {
            content: vec![AssistantBlock::Text(TextContent {
                text: "partial".into(),
                text_signature: None,
            })],
            stop_reason: StopReason::Error,
            ..Default::default()
        });
        let b = body(
            &m,
            &ctx(vec![Message::User(UserMessage::text("hi")), failed]),
            &StreamOptions::default(),
        );
        assert_eq!(b["messages"].as_array().map(Vec::len), Some(2));
    }

    #[test]
    fn reasoning_per_thinking_format() {
        let on = StreamOptions {
            reasoning: Some(ThinkingLevel::High),
            ..Default::default()
        };
        let off = StreamOptions {
            reasoning: Some(ThinkingLevel::Off),
            ..Default::default()
        };
        let openai = model("openai", "https://api.openai.com/v1");
        assert_eq!(
            body(&openai, &ctx(vec![]), &on)["reasoning_effort"],
            json!("high")
        );
        assert!(
            body(&openai, &ctx(vec![]), &off)
                .get("reasoning_effort")
                .is_none()
        );
        let router = model("openrouter", "https://openrouter.ai/api/v1");
        assert_eq!(
            body(&router, &ctx(vec![]), &on)["reasoning"],
            json!({"effort": "high"})
        );
        let deepseek = model("deepseek", "https://api.deepseek.com");
        assert_eq!(
            body(&deepseek, &ctx(vec![]), &on)["thinking"],
            json!({"type": "enabled"})
        );
        assert_eq!(
            body(&deepseek, &ctx(vec![]), &off)["thinking"],
            json!({"type": "disabled"})
        );
        let qwen = model(
            "qwen-token-plan",
            "https://x.aliyuncs.com/compatible-mode/v1",
        );
        assert_eq!(
            body(&qwen, &ctx(vec![]), &on)["enable_thinking"],
            json!(true)
        );
        let mut vllm = model("vllm", "http://localhost:8000/v1");
        vllm.compat = Some(crate::types::Compat {
            thinking_format: Some(ThinkingFormat::ChatTemplate),
            ..Default::default()
        });
        assert_eq!(
            body(&vllm, &ctx(vec![]), &off)["chat_template_kwargs"],
            json!({"enable_thinking": false})
        );
        let mut plain = model("openai", "https://api.openai.com/v1");
        plain.reasoning = false;
        assert!(
            body(&plain, &ctx(vec![]), &on)
                .get("reasoning_effort")
                .is_none()
        );
    }
}
