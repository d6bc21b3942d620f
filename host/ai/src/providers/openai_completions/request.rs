//! The Chat Completions request body: typed wire values that borrow from the context and are
//! serialised straight into the request buffer.

use super::compat::ResolvedCompat;
use crate::options::StreamOptions;
use crate::providers::{Display, Joined, Seq, joined_is_empty, result_texts};
use crate::types::{
    AssistantBlock, AssistantMessage, Context, ImageContent, MaxTokensField, Message, Model,
    StopReason, ThinkingFormat, ThinkingLevel, Tool, ToolResultMessage, UserBlock, UserContent,
};
use serde::Serialize;
use serde::ser::{SerializeMap, Serializer};
use serde_json::Value;

/// Output limit when the caller gives none: the model's, capped like pi does.
const DEFAULT_MAX_TOKENS_CAP: u64 = 32_000;

/// Reasoning fields a completions server may stream; a thinking block remembers which one it
/// came from (as its signature) so it can be sent back the same way.
pub(crate) const REASONING_FIELDS: [&str; 3] = ["reasoning_content", "reasoning", "reasoning_text"];

/// What a tool message says when its result was only images.
const IMAGES_ONLY: &str = "(see attached image)";

/// The request body, in the order its fields are sent. At most one of the reasoning fields
/// at the end is set, as the server's thinking format asks.
#[derive(Serialize)]
pub(crate) struct Body<'a> {
    model: &'a str,
    messages: Messages<'a>,
    #[serde(skip_serializing_if = "<[Tool]>::is_empty", serialize_with = "tools")]
    tools: &'a [Tool],
    stream: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    stream_options: Option<IncludeUsage>,
    #[serde(skip_serializing_if = "Option::is_none")]
    store: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    max_tokens: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    max_completion_tokens: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    temperature: Option<f64>,
    #[serde(flatten)]
    reasoning: Reasoning,
}

#[derive(Serialize)]
struct IncludeUsage {
    include_usage: bool,
}

/// How reasoning is asked for, by thinking format.
#[derive(Serialize, Default)]
struct Reasoning {
    #[serde(skip_serializing_if = "Option::is_none")]
    reasoning_effort: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    reasoning: Option<Effort>,
    #[serde(skip_serializing_if = "Option::is_none")]
    thinking: Option<ThinkingSwitch>,
    #[serde(skip_serializing_if = "Option::is_none")]
    enable_thinking: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    chat_template_kwargs: Option<EnableThinking>,
}

#[derive(Serialize)]
struct Effort {
    effort: &'static str,
}

#[derive(Serialize)]
struct ThinkingSwitch {
    r#type: &'static str,
}

#[derive(Serialize)]
struct EnableThinking {
    enable_thinking: bool,
}

pub(crate) fn build_body<'a>(
    model: &'a Model,
    context: &'a Context,
    options: &StreamOptions,
    compat: &'a ResolvedCompat,
) -> Body<'a> {
    let max_tokens = Some(
        options
            .max_tokens
            .unwrap_or_else(|| model.max_tokens.min(DEFAULT_MAX_TOKENS_CAP)),
    )
    .filter(|n| *n > 0);
    let (max_tokens, max_completion_tokens) = match compat.max_tokens_field {
        MaxTokensField::MaxTokens => (max_tokens, None),
        MaxTokensField::MaxCompletionTokens => (None, max_tokens),
    };
    let reasoning = if model.reasoning && compat.supports_reasoning_effort {
        reasoning(compat, options.reasoning_level())
    } else {
        Reasoning::default()
    };
    Body {
        model: &model.id,
        messages: Messages::new(model, context, compat),
        tools: &context.tools,
        stream: true,
        stream_options: compat.supports_usage_in_streaming.then_some(IncludeUsage {
            include_usage: true,
        }),
        store: compat.supports_store.then_some(false),
        max_tokens,
        max_completion_tokens,
        temperature: options.temperature,
        reasoning,
    }
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

fn reasoning(compat: &ResolvedCompat, level: Option<ThinkingLevel>) -> Reasoning {
    let on = level.is_some();
    match (&compat.thinking_format, level) {
        (ThinkingFormat::Openai, Some(level)) => Reasoning {
            reasoning_effort: Some(effort(level)),
            ..Reasoning::default()
        },
        (ThinkingFormat::Openrouter, Some(level)) => Reasoning {
            reasoning: Some(Effort {
                effort: match effort(level) {
                    "xhigh" => "high",
                    w => w,
                },
            }),
            ..Reasoning::default()
        },
        (ThinkingFormat::Deepseek | ThinkingFormat::Zai, _) => Reasoning {
            thinking: Some(ThinkingSwitch {
                r#type: if on { "enabled" } else { "disabled" },
            }),
            ..Reasoning::default()
        },
        (ThinkingFormat::Qwen, _) => Reasoning {
            enable_thinking: Some(on),
            ..Reasoning::default()
        },
        (ThinkingFormat::ChatTemplate, _) => Reasoning {
            chat_template_kwargs: Some(EnableThinking {
                enable_thinking: on,
            }),
            ..Reasoning::default()
        },
        _ => Reasoning::default(),
    }
}

fn tools<S: Serializer>(tools: &&[Tool], serializer: S) -> Result<S::Ok, S::Error> {
    #[derive(Serialize)]
    struct Function<'a> {
        name: &'a str,
        description: &'a str,
        parameters: &'a Value,
        /// `constrainedSampling`, when the tool says.
        #[serde(skip_serializing_if = "Option::is_none")]
        strict: Option<bool>,
    }
    #[derive(Serialize)]
    struct Definition<'a> {
        r#type: &'static str,
        function: Function<'a>,
    }
    serializer.collect_seq(tools.iter().map(|t| Definition {
        r#type: "function",
        function: Function {
            name: &t.name,
            description: &t.description,
            parameters: t.parameters.value(),
            strict: t.constrained_sampling,
        },
    }))
}

/// One wire message and what it is made from.
enum Item<'a> {
    /// `{role, content: text}`: the system prompt, a plain user text, a filler turn.
    Plain(&'static str, &'a str),
    UserParts(&'a [UserBlock]),
    Assistant(&'a AssistantMessage),
    Tool(&'a ToolResultMessage),
    /// Images from a run of tool results, which cannot sit inside tool messages.
    Images(Vec<&'a ImageContent>),
}

/// The history as wire messages.
struct Messages<'a> {
    items: Vec<Item<'a>>,
    images: bool,
    compat: &'a ResolvedCompat,
}

impl<'a> Messages<'a> {
    fn new(model: &Model, context: &'a Context, compat: &'a ResolvedCompat) -> Self {
        let images = model.supports_images();
        let mut items = Vec::new();
        if let Some(prompt) = context.system_prompt.as_deref().filter(|p| !p.is_empty()) {
            let role = if model.reasoning && compat.supports_developer_role {
                "developer"
            } else {
                "system"
            };
            items.push(Item::Plain(role, prompt));
        }
        // Images from tool results wait until the run of tool messages ends: servers require
        // the tool messages to follow their assistant message without anything in between.
        let mut pending: Vec<&ImageContent> = Vec::new();
        let mut last_was_tool = false;
        for message in context.messages.iter().map(|m| &**m) {
            if !matches!(message, Message::ToolResult(_)) && !pending.is_empty() {
                items.push(Item::Images(std::mem::take(&mut pending)));
            }
            match message {
                Message::User(user) => {
                    if last_was_tool && compat.requires_assistant_after_tool_result {
                        items.push(Item::Plain(
                            "assistant",
                            "I have processed the tool results.",
                        ));
                    }
                    match &user.content {
                        UserContent::Text(text) => items.push(Item::Plain("user", text)),
                        UserContent::Blocks(blocks)
                            if user_parts(blocks, images).next().is_some() =>
                        {
                            items.push(Item::UserParts(blocks));
                        }
                        UserContent::Blocks(_) => {}
                    }
                }
                Message::Assistant(assistant) => {
                    if AssistantParts::of(assistant, compat).is_some() {
                        items.push(Item::Assistant(assistant));
                    }
                }
                Message::ToolResult(result) => {
                    items.push(Item::Tool(result));
                    if images {
                        pending.extend(result.content.iter().filter_map(|b| match b {
                            UserBlock::Image(image) => Some(image),
                            UserBlock::Text(_) => None,
                        }));
                    }
                }
            }
            last_was_tool = matches!(message, Message::ToolResult(_));
        }
        if !pending.is_empty() {
            items.push(Item::Images(pending));
        }
        Messages {
            items,
            images,
            compat,
        }
    }
}

impl Serialize for Messages<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.items.iter().map(|item| Wire {
            item,
            images: self.images,
            compat: self.compat,
        }))
    }
}

struct Wire<'a> {
    item: &'a Item<'a>,
    images: bool,
    compat: &'a ResolvedCompat,
}

impl Serialize for Wire<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        match self.item {
            Item::Plain(role, content) => {
                map.serialize_entry("role", role)?;
                map.serialize_entry("content", content)?;
            }
            Item::UserParts(blocks) => {
                map.serialize_entry("role", "user")?;
                map.serialize_entry("content", &Seq(|| user_parts(blocks, self.images)))?;
            }
            Item::Assistant(message) => {
                if let Some(parts) = AssistantParts::of(message, self.compat) {
                    parts.serialize_into(&mut map)?;
                }
            }
            Item::Tool(result) => {
                map.serialize_entry("role", "tool")?;
                map.serialize_entry("tool_call_id", &result.tool_call_id)?;
                if joined_is_empty(result_texts(result)) {
                    map.serialize_entry("content", IMAGES_ONLY)?;
                } else {
                    let text = Joined {
                        pieces: || result_texts(result),
                        separator: "\n",
                    };
                    map.serialize_entry("content", &Display(&text))?;
                }
                if self.compat.requires_tool_result_name {
                    map.serialize_entry("name", &result.tool_name)?;
                }
            }
            Item::Images(images) => {
                map.serialize_entry("role", "user")?;
                let parts = Seq(|| {
                    std::iter::once(Part::Text("Attached image(s) from tool result:"))
                        .chain(images.iter().map(|image| Part::Image(image)))
                });
                map.serialize_entry("content", &parts)?;
            }
        }
        map.end()
    }
}

/// A content part of a user message.
enum Part<'a> {
    Text(&'a str),
    Image(&'a ImageContent),
}

impl Serialize for Part<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(2))?;
        match self {
            Part::Text(text) => {
                map.serialize_entry("type", "text")?;
                map.serialize_entry("text", text)?;
            }
            Part::Image(image) => {
                map.serialize_entry("type", "image_url")?;
                map.serialize_entry("image_url", &ImageUrl(image))?;
            }
        }
        map.end()
    }
}

/// `{"url": "data:{mime};base64,{data}"}`, written without building the URL.
struct ImageUrl<'a>(&'a ImageContent);

impl Serialize for ImageUrl<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let url = format_args!("data:{};base64,{}", self.0.mime_type, self.0.data);
        let mut map = serializer.serialize_map(Some(1))?;
        map.serialize_entry("url", &Display(&url))?;
        map.end()
    }
}

/// A user message's parts; images only for models that take them.
fn user_parts(blocks: &[UserBlock], images: bool) -> impl Iterator<Item = Part<'_>> {
    blocks.iter().filter_map(move |block| match block {
        UserBlock::Text(t) => Some(Part::Text(&t.text)),
        UserBlock::Image(image) if images => Some(Part::Image(image)),
        UserBlock::Image(_) => None,
    })
}

/// What an assistant turn sends: its text, its thinking (in a reasoning field or as text) and
/// its tool calls.
struct AssistantParts<'a> {
    message: &'a AssistantMessage,
    /// The reasoning field the thinking goes in; `None` when it is not sent that way.
    thinking_field: Option<&'static str>,
    thinking_as_text: bool,
}

impl<'a> AssistantParts<'a> {
    /// `None` when the turn sends nothing: a failed or aborted turn (it may hold half a tool
    /// call; servers reject those), or one with neither text nor tool calls.
    fn of(message: &'a AssistantMessage, compat: &ResolvedCompat) -> Option<Self> {
        if matches!(message.stop_reason, StopReason::Error | StopReason::Aborted) {
            return None;
        }
        let has_thinking = thinking(message).next().is_some();
        let thinking_as_text = has_thinking && compat.requires_thinking_as_text;
        let thinking_field = if has_thinking && !thinking_as_text {
            signed_field(message).or(match compat.thinking_format {
                ThinkingFormat::Deepseek => Some("reasoning_content"),
                _ => None,
            })
        } else {
            None
        };
        let parts = AssistantParts {
            message,
            thinking_field,
            thinking_as_text,
        };
        let calls = message
            .content
            .iter()
            .any(|b| matches!(b, AssistantBlock::ToolCall(_)));
        (calls || !parts.text_is_empty()).then_some(parts)
    }

    fn text_is_empty(&self) -> bool {
        !self.thinking_as_text && texts(self.message).all(str::is_empty)
    }

    fn serialize_into<M: SerializeMap>(&self, map: &mut M) -> Result<(), M::Error> {
        map.serialize_entry("role", "assistant")?;
        if let Some(field) = self.thinking_field {
            let joined = Joined {
                pieces: || thinking(self.message),
                separator: "\n",
            };
            map.serialize_entry(field, &Display(&joined))?;
        }
        if self.text_is_empty() {
            map.serialize_entry("content", &())?;
        } else {
            map.serialize_entry("content", &Display(&Content(self)))?;
        }
        let calls = || {
            self.message.content.iter().filter_map(|b| match b {
                AssistantBlock::ToolCall(call) => Some(Call(call)),
                _ => None,
            })
        };
        if calls().next().is_some() {
            map.serialize_entry("tool_calls", &Seq(calls))?;
        }
        Ok(())
    }
}

/// The texts of an assistant turn, concatenated; with thinking as text, the thinking first in
/// `<thinking>` tags.
struct Content<'a>(&'a AssistantParts<'a>);

impl std::fmt::Display for Content<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let message = self.0.message;
        if self.0.thinking_as_text {
            for (i, t) in thinking(message).enumerate() {
                if i > 0 {
                    f.write_str("\n")?;
                }
                write!(f, "<thinking>\n{t}\n</thinking>")?;
            }
            if texts(message).any(|t| !t.is_empty()) {
                f.write_str("\n")?;
            }
        }
        texts(message).try_for_each(|t| f.write_str(t))
    }
}

fn texts(message: &AssistantMessage) -> impl Iterator<Item = &str> {
    message.content.iter().filter_map(|b| match b {
        AssistantBlock::Text(t) => Some(t.text.as_str()),
        _ => None,
    })
}

/// The thinking that is replayed: not redacted, not empty.
fn thinking(message: &AssistantMessage) -> impl Iterator<Item = &str> {
    message.content.iter().filter_map(|b| match b {
        AssistantBlock::Thinking(t) if t.redacted != Some(true) && !t.thinking.is_empty() => {
            Some(t.thinking.as_str())
        }
        _ => None,
    })
}

/// The reasoning field the first replayed thinking block that names one came from.
fn signed_field(message: &AssistantMessage) -> Option<&'static str> {
    message.content.iter().find_map(|b| match b {
        AssistantBlock::Thinking(t) if t.redacted != Some(true) && !t.thinking.is_empty() => t
            .thinking_signature
            .as_deref()
            .and_then(|s| REASONING_FIELDS.iter().copied().find(|f| *f == s)),
        _ => None,
    })
}

/// A tool call: `{id, type, function: {name, arguments}}`, the arguments as JSON text.
struct Call<'a>(&'a crate::types::ToolCall);

impl Serialize for Call<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        struct Function<'a>(&'a crate::types::ToolCall);
        impl Serialize for Function<'_> {
            fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                let mut map = serializer.serialize_map(Some(2))?;
                map.serialize_entry("name", &self.0.name)?;
                map.serialize_entry("arguments", &Display(&self.0.arguments))?;
                map.end()
            }
        }
        let mut map = serializer.serialize_map(Some(3))?;
        map.serialize_entry("id", &self.0.id)?;
        map.serialize_entry("type", "function")?;
        map.serialize_entry("function", &Function(self.0))?;
        map.end()
    }
}

#[cfg(test)]
mod tests {
    use super::super::compat::detect_compat;
    use super::super::compat::tests::model;
    use super::*;
    use crate::types::{ImageContent, TextContent, ThinkingContent, ToolCall, UserMessage};
    use serde_json::json;

    fn body(model: &Model, context: &Context, options: &StreamOptions) -> Value {
        serde_json::to_value(build_body(model, context, options, &detect_compat(model))).unwrap()
    }

    fn ctx(messages: Vec<Message>) -> Context {
        Context {
            system_prompt: Some("be brief".into()),
            messages: messages.into_iter().map(std::sync::Arc::new).collect(),
            tools: vec![Tool {
                name: "read".into(),
                description: "Read a file".into(),
                parameters: json!({"type": "object", "properties": {"path": {"type": "string"}}})
                    .into(),
                constrained_sampling: None,
            }],
        }
    }

    fn tool_turn() -> Vec<Message> {
        vec![
            Message::User(UserMessage::text("read a")),
            Message::from(AssistantMessage {
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
                duration_ms: None,
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
        let failed = Message::from(AssistantMessage {
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
