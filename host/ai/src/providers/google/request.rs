//! pi context → Gemini `GenerateContentRequest` body.

use super::is_generated_tool_call_id;
use crate::options::StreamOptions;
use crate::types::{
    AssistantBlock, AssistantMessage, Context, Message, Model, StopReason, Tool, ToolResultMessage,
    UserBlock,
};
use serde_json::{Map, Value, json};
use std::collections::HashSet;

pub(super) fn build_body(model: &Model, context: &Context, options: &StreamOptions) -> Value {
    let mut body = Map::new();
    body.insert("contents".into(), Value::Array(contents(&context.messages)));
    if let Some(system) = context.system_prompt.as_deref().filter(|s| !s.is_empty()) {
        body.insert(
            "systemInstruction".into(),
            json!({"parts": [{"text": system}]}),
        );
    }
    if !context.tools.is_empty() {
        let declarations: Vec<Value> = context.tools.iter().map(declaration).collect();
        body.insert(
            "tools".into(),
            json!([{"functionDeclarations": declarations}]),
        );
    }
    body.insert("generationConfig".into(), generation_config(model, options));
    Value::Object(body)
}

fn generation_config(model: &Model, options: &StreamOptions) -> Value {
    let mut config = Map::new();
    config.insert(
        "maxOutputTokens".into(),
        json!(options.max_tokens.unwrap_or(model.max_tokens)),
    );
    if let Some(t) = options.temperature {
        config.insert("temperature".into(), json!(t));
    }
    if let Some(level) = options.reasoning_level().filter(|_| model.reasoning) {
        config.insert(
            "thinkingConfig".into(),
            json!({"includeThoughts": true, "thinkingBudget": level.budget_tokens()}),
        );
    }
    Value::Object(config)
}

fn declaration(tool: &Tool) -> Value {
    json!({
        "name": tool.name,
        "description": tool.description,
        "parametersJsonSchema": tool.parameters,
    })
}

/// Converts the history. Consecutive tool results become one user content. Ids this adapter
/// generated for calls Gemini sent without one are left out, on calls and results alike.
fn contents(history: &[Message]) -> Vec<Value> {
    let mut out = Vec::new();
    let mut generated: HashSet<&str> = HashSet::new();
    let mut i = 0;
    while i < history.len() {
        match &history[i] {
            Message::User(user) => {
                let parts: Vec<Value> = user
                    .content
                    .to_blocks()
                    .iter()
                    .filter_map(user_part)
                    .collect();
                if !parts.is_empty() {
                    out.push(json!({"role": "user", "parts": parts}));
                }
            }
            Message::Assistant(assistant) => {
                if let Some(content) = model_content(assistant, &mut generated) {
                    out.push(content);
                }
            }
            Message::ToolResult(_) => {
                let mut responses = Vec::new();
                let mut images = Vec::new();
                while let Some(Message::ToolResult(result)) = history.get(i) {
                    responses.push(function_response(result, &generated));
                    images.extend(result.content.iter().filter_map(|b| match b {
                        UserBlock::Image(_) => user_part(b),
                        UserBlock::Text(_) => None,
                    }));
                    i += 1;
                }
                // Images cannot sit inside a functionResponse here; they follow the responses.
                responses.extend(images);
                out.push(json!({"role": "user", "parts": responses}));
                continue;
            }
        }
        i += 1;
    }
    out
}

fn user_part(block: &UserBlock) -> Option<Value> {
    match block {
        UserBlock::Text(t) if t.text.is_empty() => None,
        UserBlock::Text(t) => Some(json!({"text": t.text})),
        UserBlock::Image(img) => Some(json!({
            "inlineData": {"mimeType": img.mime_type, "data": img.data},
        })),
    }
}

fn model_content<'a>(
    message: &'a AssistantMessage,
    generated: &mut HashSet<&'a str>,
) -> Option<Value> {
    // A failed or aborted turn may hold half a tool call; it must not be replayed.
    if matches!(message.stop_reason, StopReason::Error | StopReason::Aborted) {
        return None;
    }
    let mut parts = Vec::new();
    for block in &message.content {
        match block {
            AssistantBlock::Text(t) => {
                if t.text.is_empty() && t.text_signature.is_none() {
                    continue;
                }
                let mut part = json!({"text": t.text});
                if let Some(sig) = &t.text_signature {
                    part["thoughtSignature"] = json!(sig);
                }
                parts.push(part);
            }
            AssistantBlock::Thinking(t) => {
                // Gemini only takes thoughts back with the signature it issued.
                if let Some(sig) = t
                    .thinking_signature
                    .as_deref()
                    .filter(|_| t.redacted != Some(true))
                {
                    parts.push(
                        json!({"text": t.thinking, "thought": true, "thoughtSignature": sig}),
                    );
                }
            }
            AssistantBlock::ToolCall(call) => {
                let mut function_call = json!({"name": call.name, "args": call.arguments});
                if is_generated_tool_call_id(&call.id, &call.name, message.response_id.as_deref()) {
                    generated.insert(call.id.as_str());
                } else {
                    function_call["id"] = json!(call.id);
                }
                let mut part = json!({"functionCall": function_call});
                if let Some(sig) = &call.thought_signature {
                    part["thoughtSignature"] = json!(sig);
                }
                parts.push(part);
            }
        }
    }
    if parts.is_empty() {
        return None;
    }
    Some(json!({"role": "model", "parts": parts}))
}

fn function_response(result: &ToolResultMessage, generated: &HashSet<&str>) -> Value {
    let text = result.text();
    let response = if result.is_error {
        json!({"error": text})
    } else {
        json!({"output": text})
    };
    let mut body = json!({"name": result.tool_name, "response": response});
    if !generated.contains(result.tool_call_id.as_str()) {
        body["id"] = json!(result.tool_call_id);
    }
    json!({"functionResponse": body})
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

    fn context() -> Context {
        let generated = super::super::generated_tool_call_id("read", Some("resp_1"), 1);
        let assistant = AssistantMessage {
            content: vec![
                AssistantBlock::Thinking(ThinkingContent {
                    thinking: "plan".into(),
                    thinking_signature: Some("ts".into()),
                    redacted: None,
                }),
                AssistantBlock::Thinking(ThinkingContent {
                    thinking: "unsigned".into(),
                    thinking_signature: None,
                    redacted: None,
                }),
                AssistantBlock::Text(text("Reading.")),
                AssistantBlock::ToolCall(ToolCall {
                    id: generated.clone(),
                    name: "read".into(),
                    arguments: json!({"path": "a"}),
                    thought_signature: Some("fs".into()),
                }),
                AssistantBlock::ToolCall(ToolCall {
                    id: "call_2".into(),
                    name: "read".into(),
                    arguments: json!({"path": "b"}),
                    thought_signature: None,
                }),
            ],
            response_id: Some("resp_1".into()),
            stop_reason: StopReason::ToolUse,
            ..Default::default()
        };
        Context {
            system_prompt: Some("You are pi.".into()),
            messages: vec![
                Message::User(UserMessage {
                    content: UserContent::Blocks(vec![
                        UserBlock::Text(text("Look")),
                        UserBlock::Image(ImageContent {
                            data: "aGk=".into(),
                            mime_type: "image/jpeg".into(),
                        }),
                    ]),
                    timestamp: 0,
                }),
                Message::Assistant(assistant),
                result(&generated, "A", false),
                result("call_2", "missing", true),
            ],
            tools: vec![Tool {
                name: "read".into(),
                description: "Read a file".into(),
                parameters: json!({"type": "object"}).into(),
            }],
        }
    }

    #[test]
    fn full_context_body() {
        let body = build_body(&model(), &context(), &StreamOptions::default());
        let expected = json!({
            "contents": [
                {"role": "user", "parts": [
                    {"text": "Look"},
                    {"inlineData": {"mimeType": "image/jpeg", "data": "aGk="}},
                ]},
                {"role": "model", "parts": [
                    {"text": "plan", "thought": true, "thoughtSignature": "ts"},
                    {"text": "Reading."},
                    {"functionCall": {"name": "read", "args": {"path": "a"}}, "thoughtSignature": "fs"},
                    {"functionCall": {"name": "read", "args": {"path": "b"}, "id": "call_2"}},
                ]},
                {"role": "user", "parts": [
                    {"functionResponse": {"name": "read", "response": {"output": "A"}}},
                    {"functionResponse": {"name": "read", "response": {"error": "missing"}, "id": "call_2"}},
                ]},
            ],
            "systemInstruction": {"parts": [{"text": "You are pi."}]},
            "tools": [{"functionDeclarations": [
                {"name": "read", "description": "Read a file", "parametersJsonSchema": {"type": "object"}},
            ]}],
            "generationConfig": {"maxOutputTokens": 65536},
        });
        assert_eq!(body, expected);
    }

    #[test]
    fn thinking_config_only_when_reasoning() {
        let on = StreamOptions {
            max_tokens: Some(1000),
            temperature: Some(0.3),
            reasoning: Some(ThinkingLevel::Low),
            ..Default::default()
        };
        let body = build_body(&model(), &Context::default(), &on);
        assert_eq!(
            body["generationConfig"],
            json!({"maxOutputTokens": 1000, "temperature": 0.3,
                   "thinkingConfig": {"includeThoughts": true, "thinkingBudget": 2048}})
        );
        let off = StreamOptions {
            reasoning: Some(ThinkingLevel::Off),
            ..Default::default()
        };
        let body = build_body(&model(), &Context::default(), &off);
        assert!(body["generationConfig"].get("thinkingConfig").is_none());
        let mut plain = model();
        plain.reasoning = false;
        let body = build_body(&plain, &Context::default(), &on);
        assert!(body["generationConfig"].get("thinkingConfig").is_none());
    }

    #[test]
    fn failed_turns_are_skipped() {
        let mut failed = AssistantMessage {
            content: vec![AssistantBlock::Text(text("half"))],
            ..Default::default()
        };
        failed.stop_reason = StopReason::Aborted;
        let ctx = Context {
            messages: vec![
                Message::User(UserMessage::text("hi")),
                Message::Assistant(failed),
            ],
            ..Default::default()
        };
        let body = build_body(&model(), &ctx, &StreamOptions::default());
        assert_eq!(
            body["contents"],
            json!([{"role": "user", "parts": [{"text": "hi"}]}])
        );
    }
}
