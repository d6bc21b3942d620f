//! The Responses request body.

use super::split_call_id;
use crate::options::StreamOptions;
use crate::providers::openai_completions::effort;
use crate::types::{
    AssistantBlock, AssistantMessage, Context, Message, Model, StopReason, Tool, ToolResultMessage,
    UserBlock, UserContent,
};
use serde_json::{Map, Value, json};

const DEFAULT_MAX_TOKENS_CAP: u64 = 32_000;

pub(crate) fn build_body(model: &Model, context: &Context, options: &StreamOptions) -> Value {
    let mut body = Map::new();
    body.insert("model".into(), json!(model.id));
    body.insert("input".into(), Value::Array(input(model, context)));
    if !context.tools.is_empty() {
        body.insert("tools".into(), tools(&context.tools));
    }
    body.insert("stream".into(), json!(true));
    body.insert("store".into(), json!(false));
    let max_tokens = options
        .max_tokens
        .unwrap_or_else(|| model.max_tokens.min(DEFAULT_MAX_TOKENS_CAP));
    if max_tokens > 0 {
        body.insert("max_output_tokens".into(), json!(max_tokens));
    }
    if let Some(t) = options.temperature {
        body.insert("temperature".into(), json!(t));
    }
    if let Some(level) = options.reasoning_level().filter(|_| model.reasoning) {
        body.insert(
            "reasoning".into(),
            json!({"effort": effort(level), "summary": "auto"}),
        );
        // With `store: false` the reasoning can only be replayed from its encrypted form.
        body.insert("include".into(), json!(["reasoning.encrypted_content"]));
    }
    if let Some(session) = options.session_id.as_deref().filter(|s| !s.is_empty()) {
        body.insert("prompt_cache_key".into(), json!(session));
    }
    Value::Object(body)
}

fn tools(tools: &[Tool]) -> Value {
    tools
        .iter()
        .map(|t| {
            // Responses makes function tools strict unless told otherwise, and strict mode
            // rejects ordinary JSON schemas (optional properties).
            json!({
                "type": "function",
                "name": t.name,
                "description": t.description,
                "parameters": t.parameters,
                "strict": false,
            })
        })
        .collect()
}

fn input(model: &Model, context: &Context) -> Vec<Value> {
    let mut out = Vec::new();
    if let Some(prompt) = context.system_prompt.as_deref().filter(|p| !p.is_empty()) {
        let role = if model.reasoning {
            "developer"
        } else {
            "system"
        };
        out.push(json!({"role": role, "content": prompt}));
    }
    let mut pending_images: Vec<Value> = Vec::new();
    for message in &context.messages {
        if !matches!(message, Message::ToolResult(_)) {
            flush_images(&mut out, &mut pending_images);
        }
        match message {
            Message::User(user) => {
                if let Some(m) = user_message(model, &user.content) {
                    out.push(m);
                }
            }
            Message::Assistant(assistant) => assistant_items(model, assistant, &mut out),
            Message::ToolResult(result) => {
                out.push(tool_output(result));
                if model.supports_images() {
                    pending_images.extend(result.content.iter().filter_map(image_part));
                }
            }
        }
    }
    flush_images(&mut out, &mut pending_images);
    out
}

fn flush_images(out: &mut Vec<Value>, images: &mut Vec<Value>) {
    if images.is_empty() {
        return;
    }
    let mut content =
        vec![json!({"type": "input_text", "text": "Attached image(s) from tool result:"})];
    content.append(images);
    out.push(json!({"role": "user", "content": content}));
}

fn image_part(block: &UserBlock) -> Option<Value> {
    match block {
        UserBlock::Image(image) => Some(json!({
            "type": "input_image",
            "detail": "auto",
            "image_url": format!("data:{};base64,{}", image.mime_type, image.data),
        })),
        UserBlock::Text(_) => None,
    }
}

fn user_message(model: &Model, content: &UserContent) -> Option<Value> {
    let parts: Vec<Value> = content
        .to_blocks()
        .iter()
        .filter_map(|block| match block {
            UserBlock::Text(t) => Some(json!({"type": "input_text", "text": t.text})),
            UserBlock::Image(_) if model.supports_images() => image_part(block),
            UserBlock::Image(_) => None,
        })
        .collect();
    (!parts.is_empty()).then(|| json!({"role": "user", "content": parts}))
}

/// Item ids and reasoning items are only valid for the model that produced them; from another
/// model they are left out and only the visible content is sent.
fn assistant_items(model: &Model, message: &AssistantMessage, out: &mut Vec<Value>) {
    if matches!(message.stop_reason, StopReason::Error | StopReason::Aborted) {
        return;
    }
    let same_model = message.provider == model.provider && message.model == model.id;
    for block in &message.content {
        match block {
            AssistantBlock::Thinking(t) if same_model => {
                if let Some(item) = t.thinking_signature.as_deref().and_then(reasoning_item) {
                    out.push(item);
                }
            }
            AssistantBlock::Thinking(_) => {}
            AssistantBlock::Text(t) if !t.text.is_empty() => {
                let mut item = json!({
                    "type": "message",
                    "role": "assistant",
                    "content": [{"type": "output_text", "text": t.text, "annotations": []}],
                    "status": "completed",
                });
                if let Some(id) = t
                    .text_signature
                    .as_deref()
                    .and_then(message_id)
                    .filter(|_| same_model)
                {
                    item["id"] = json!(id);
                }
                out.push(item);
            }
            AssistantBlock::Text(_) => {}
            AssistantBlock::ToolCall(call) => {
                let (call_id, item_id) = split_call_id(&call.id);
                let mut item = json!({
                    "type": "function_call",
                    "call_id": call_id,
                    "name": call.name,
                    "arguments": call.arguments.to_string(),
                });
                if let Some(item_id) = item_id.filter(|_| same_model) {
                    item["id"] = json!(item_id);
                }
                out.push(item);
            }
        }
    }
}

/// A reasoning item stored whole as the thinking signature.
fn reasoning_item(signature: &str) -> Option<Value> {
    let item: Value = serde_json::from_str(signature).ok()?;
    (item.get("type").and_then(Value::as_str) == Some("reasoning")).then_some(item)
}

/// The message id in a text signature: a bare id, or pi's `{"v":1,"id":…}` record.
fn message_id(signature: &str) -> Option<String> {
    let id = if signature.trim_start().starts_with('{') {
        let record: Value = serde_json::from_str(signature).ok()?;
        record.get("id")?.as_str()?.to_owned()
    } else {
        signature.to_owned()
    };
    id.starts_with("msg").then_some(id)
}

fn tool_output(result: &ToolResultMessage) -> Value {
    let text = result.text();
    let output = if text.is_empty() {
        "(see attached image)".to_owned()
    } else {
        text
    };
    let (call_id, _) = split_call_id(&result.tool_call_id);
    json!({"type": "function_call_output", "call_id": call_id, "output": output})
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::providers::openai_completions::compat::tests::model as base_model;
    use crate::types::{
        ImageContent, TextContent, ThinkingContent, ThinkingLevel, ToolCall, UserMessage,
    };

    fn model() -> Model {
        let mut m = base_model("openai", "https://api.openai.com/v1");
        m.api = "openai-responses".into();
        m
    }

    fn assistant(provider: &str, model_id: &str) -> AssistantMessage {
        let reasoning =
            json!({"type": "reasoning", "id": "rs_1", "summary": [], "encrypted_content": "enc"});
        AssistantMessage {
            provider: provider.into(),
            model: model_id.into(),
            content: vec![
                AssistantBlock::Thinking(ThinkingContent {
                    thinking: "hm".into(),
                    thinking_signature: Some(reasoning.to_string()),
                    redacted: None,
                }),
                AssistantBlock::Text(TextContent {
                    text: "Reading.".into(),
                    text_signature: Some("msg_1".into()),
                }),
                AssistantBlock::ToolCall(ToolCall {
                    id: "call_1|fc_1".into(),
                    name: "read".into(),
                    arguments: json!({"path": "a"}),
                    thought_signature: None,
                }),
            ],
            stop_reason: StopReason::ToolUse,
            ..Default::default()
        }
    }

    fn context(messages: Vec<Message>) -> Context {
        Context {
            system_prompt: Some("be brief".into()),
            messages,
            tools: vec![Tool {
                name: "read".into(),
                description: "Read".into(),
                parameters: json!({"type": "object"}).into(),
            }],
        }
    }

    fn tool_result() -> Message {
        Message::ToolResult(ToolResultMessage {
            tool_call_id: "call_1|fc_1".into(),
            tool_name: "read".into(),
            content: vec![UserBlock::Text(TextContent {
                text: "hello".into(),
                text_signature: None,
            })],
            details: None,
            is_error: false,
            timestamp: 0,
        })
    }

    #[test]
    fn body_basics() {
        let options = StreamOptions {
            session_id: Some("s1".into()),
            ..Default::default()
        };
        let b = build_body(
            &model(),
            &context(vec![Message::User(UserMessage::text("hi"))]),
            &options,
        );
        assert_eq!(
            b["input"][0],
            json!({"role": "developer", "content": "be brief"})
        );
        assert_eq!(
            b["input"][1],
            json!({"role": "user", "content": [{"type": "input_text", "text": "hi"}]})
        );
        assert_eq!(b["tools"][0]["name"], json!("read"));
        assert_eq!(b["tools"][0]["type"], json!("function"));
        assert_eq!(
            (b["stream"].clone(), b["store"].clone()),
            (json!(true), json!(false))
        );
        assert_eq!(b["max_output_tokens"], json!(16_000));
        assert_eq!(b["prompt_cache_key"], json!("s1"));
        assert!(b.get("reasoning").is_none() && b.get("include").is_none());
    }

    #[test]
    fn system_role_for_non_reasoning_models_and_images() {
        let mut m = model();
        m.reasoning = false;
        let user = Message::User(UserMessage {
            content: UserContent::Blocks(vec![UserBlock::Image(ImageContent {
                data: "QUJD".into(),
                mime_type: "image/jpeg".into(),
            })]),
            timestamp: 0,
        });
        let b = build_body(&m, &context(vec![user]), &StreamOptions::default());
        assert_eq!(b["input"][0]["role"], json!("system"));
        assert_eq!(
            b["input"][1]["content"][0]["image_url"],
            json!("data:image/jpeg;base64,QUJD")
        );
    }

    #[test]
    fn reasoning_request() {
        let options = StreamOptions {
            reasoning: Some(ThinkingLevel::Medium),
            ..Default::default()
        };
        let b = build_body(&model(), &context(vec![]), &options);
        assert_eq!(
            b["reasoning"],
            json!({"effort": "medium", "summary": "auto"})
        );
        assert_eq!(b["include"], json!(["reasoning.encrypted_content"]));
    }

    #[test]
    fn same_model_history_replays_items() {
        let history = vec![
            Message::User(UserMessage::text("read a")),
            Message::Assistant(assistant("openai", "m")),
            tool_result(),
        ];
        let b = build_body(&model(), &context(history), &StreamOptions::default());
        let input = b["input"].as_array().cloned().unwrap_or_default();
        assert_eq!(
            input[2],
            json!({"type": "reasoning", "id": "rs_1", "summary": [], "encrypted_content": "enc"})
        );
        assert_eq!(input[3]["id"], json!("msg_1"));
        assert_eq!(input[3]["content"][0]["text"], json!("Reading."));
        assert_eq!(
            input[4],
            json!({"type": "function_call", "call_id": "call_1", "id": "fc_1", "name": "read", "arguments": "{\"path\":\"a\"}"})
        );
        assert_eq!(
            input[5],
            json!({"type": "function_call_output", "call_id": "call_1", "output": "hello"})
        );
    }

    #[test]
    fn other_model_history_drops_reasoning_and_item_ids() {
        let history = vec![
            Message::Assistant(assistant("openai", "other")),
            tool_result(),
        ];
        let b = build_body(&model(), &context(history), &StreamOptions::default());
        let input = b["input"].as_array().cloned().unwrap_or_default();
        assert_eq!(input.len(), 4, "system, message, function_call, output");
        assert_eq!(input[1]["type"], json!("message"));
        assert!(input[1].get("id").is_none());
        assert!(input[2].get("id").is_none());
        assert_eq!(input[2]["call_id"], json!("call_1"));
    }

    #[test]
    fn headers_order_and_key() {
        use crate::protocol::Protocol;
        let mut m = model();
        m.headers = Some([("X-Team".to_owned(), "a".to_owned())].into());
        let mut options = StreamOptions::default();
        options
            .headers
            .insert("Authorization".into(), "Bearer override".into());
        let p = super::super::OpenAiResponses;
        let r = p
            .build_request(&m, &context(vec![]), &options, Some("k"))
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(r.url, "https://api.openai.com/v1/responses");
        assert_eq!(
            r.headers,
            vec![
                ("X-Team".to_owned(), "a".to_owned()),
                ("Authorization".to_owned(), "Bearer override".to_owned())
            ]
        );
        let r = p
            .build_request(&m, &context(vec![]), &StreamOptions::default(), None)
            .unwrap_or_else(|e| panic!("{e}"));
        assert!(
            r.headers
                .iter()
                .all(|(n, _)| !n.eq_ignore_ascii_case("authorization"))
        );
    }
}
