//! The Responses request body: typed wire values that borrow from the context and are
//! serialised straight into the request buffer. An assistant turn becomes several input items
//! (reasoning, message, function call), written as the turn is read.

use super::split_call_id;
use crate::options::StreamOptions;
use crate::providers::openai_completions::effort;
use crate::providers::{Display, Joined, Seq, joined_is_empty, result_texts};
use crate::types::{
    AssistantBlock, AssistantMessage, Context, ImageContent, Message, Model, StopReason, Tool,
    ToolResultMessage, UserBlock, UserContent,
};
use serde::Serialize;
use serde::ser::{SerializeMap, Serializer};
use serde_json::Value;

const DEFAULT_MAX_TOKENS_CAP: u64 = 32_000;

/// What a function call output says when its result was only images.
const IMAGES_ONLY: &str = "(see attached image)";

/// The request body: the model, the input and the tools, then the settings in the order they
/// are sent (kept as a list so the ChatGPT backend's variant can take some out and add its own
/// without changing the order of the rest).
pub(crate) struct Body<'a> {
    model: &'a str,
    input: Input<'a>,
    tools: &'a [Tool],
    settings: Vec<(&'static str, Setting<'a>)>,
}

/// One of the body's trailing fields.
pub(crate) enum Setting<'a> {
    Bool(bool),
    Number(u64),
    Temperature(f64),
    Text(&'a str),
    Reasoning(&'static str),
    IncludeEncryptedReasoning,
}

impl Serialize for Setting<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        #[derive(Serialize)]
        struct Reasoning {
            effort: &'static str,
            summary: &'static str,
        }
        match self {
            Setting::Bool(b) => serializer.serialize_bool(*b),
            Setting::Number(n) => serializer.serialize_u64(*n),
            Setting::Temperature(t) => serializer.serialize_f64(*t),
            Setting::Text(text) => serializer.serialize_str(text),
            Setting::Reasoning(effort) => Reasoning {
                effort,
                summary: "auto",
            }
            .serialize(serializer),
            // With `store: false` the reasoning can only be replayed from its encrypted form.
            Setting::IncludeEncryptedReasoning => {
                serializer.collect_seq(["reasoning.encrypted_content"])
            }
        }
    }
}

impl<'a> Body<'a> {
    /// Leaves the system prompt out of the input (the ChatGPT backend takes it elsewhere).
    pub(crate) fn without_system_prompt(&mut self) {
        self.input.system = None;
    }

    /// Takes a setting out; the last one takes its place, as a map's swap-removal does (the
    /// order the ChatGPT backend has always been sent).
    pub(crate) fn remove(&mut self, key: &str) {
        if let Some(at) = self.settings.iter().position(|(k, _)| *k == key) {
            self.settings.swap_remove(at);
        }
    }

    pub(crate) fn push(&mut self, key: &'static str, setting: Setting<'a>) {
        self.settings.push((key, setting));
    }
}

impl Serialize for Body<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("model", self.model)?;
        map.serialize_entry("input", &self.input)?;
        if !self.tools.is_empty() {
            map.serialize_entry("tools", &Tools(self.tools))?;
        }
        for (key, setting) in &self.settings {
            map.serialize_entry(key, setting)?;
        }
        map.end()
    }
}

pub(crate) fn build_body<'a>(
    model: &'a Model,
    context: &'a Context,
    options: &'a StreamOptions,
) -> Body<'a> {
    let mut settings = vec![
        ("stream", Setting::Bool(true)),
        ("store", Setting::Bool(false)),
    ];
    let max_tokens = options
        .max_tokens
        .unwrap_or_else(|| model.max_tokens.min(DEFAULT_MAX_TOKENS_CAP));
    if max_tokens > 0 {
        settings.push(("max_output_tokens", Setting::Number(max_tokens)));
    }
    if let Some(t) = options.temperature {
        settings.push(("temperature", Setting::Temperature(t)));
    }
    if let Some(level) = options.reasoning_level().filter(|_| model.reasoning) {
        settings.push(("reasoning", Setting::Reasoning(effort(level))));
        settings.push(("include", Setting::IncludeEncryptedReasoning));
    }
    if let Some(session) = options.session_id.as_deref().filter(|s| !s.is_empty()) {
        settings.push(("prompt_cache_key", Setting::Text(session)));
    }
    Body {
        model: &model.id,
        input: Input::new(model, context),
        tools: &context.tools,
        settings,
    }
}

struct Tools<'a>(&'a [Tool]);

impl Serialize for Tools<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        // Responses makes function tools strict unless told otherwise, and strict mode rejects
        // ordinary JSON schemas (optional properties): strict only when the tool asks for it
        // (`constrainedSampling`).
        #[derive(Serialize)]
        struct Definition<'a> {
            r#type: &'static str,
            name: &'a str,
            description: &'a str,
            parameters: &'a Value,
            strict: bool,
        }
        serializer.collect_seq(self.0.iter().map(|t| Definition {
            r#type: "function",
            name: &t.name,
            description: &t.description,
            parameters: t.parameters.value(),
            strict: t.constrained_sampling.unwrap_or(false),
        }))
    }
}

/// What the input items are made from, in order.
enum Item<'a> {
    User(&'a UserContent),
    Assistant(&'a AssistantMessage),
    ToolOutput(&'a ToolResultMessage),
    /// Images from a run of tool results, which cannot sit inside function call outputs.
    Images(Vec<&'a ImageContent>),
}

/// The system prompt and the history as input items.
struct Input<'a> {
    system: Option<(&'static str, &'a str)>,
    items: Vec<Item<'a>>,
    model: &'a Model,
}

impl<'a> Input<'a> {
    fn new(model: &'a Model, context: &'a Context) -> Self {
        let images = model.supports_images();
        let system = context
            .system_prompt
            .as_deref()
            .filter(|p| !p.is_empty())
            .map(|prompt| {
                let role = if model.reasoning {
                    "developer"
                } else {
                    "system"
                };
                (role, prompt)
            });
        let mut items = Vec::new();
        let mut pending: Vec<&ImageContent> = Vec::new();
        for message in context.messages.iter().map(|m| &**m) {
            if !matches!(message, Message::ToolResult(_)) && !pending.is_empty() {
                items.push(Item::Images(std::mem::take(&mut pending)));
            }
            match message {
                Message::User(user) => {
                    if user_parts(&user.content, images).next().is_some() {
                        items.push(Item::User(&user.content));
                    }
                }
                Message::Assistant(assistant) => {
                    if !matches!(
                        assistant.stop_reason,
                        StopReason::Error | StopReason::Aborted
                    ) {
                        items.push(Item::Assistant(assistant));
                    }
                }
                Message::ToolResult(result) => {
                    items.push(Item::ToolOutput(result));
                    if images {
                        pending.extend(result.content.iter().filter_map(|b| match b {
                            UserBlock::Image(image) => Some(image),
                            UserBlock::Text(_) => None,
                        }));
                    }
                }
            }
        }
        if !pending.is_empty() {
            items.push(Item::Images(pending));
        }
        Input {
            system,
            items,
            model,
        }
    }
}

impl Serialize for Input<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let images = self.model.supports_images();
        let system = self.system.map(|(role, prompt)| Wire::System(role, prompt));
        let history = self
            .items
            .iter()
            .flat_map(|item| -> Box<dyn Iterator<Item = Wire<'_>>> {
                match item {
                    Item::User(content) => Box::new(std::iter::once(Wire::User(content, images))),
                    Item::Assistant(message) => Box::new(assistant_items(self.model, message)),
                    Item::ToolOutput(result) => Box::new(std::iter::once(Wire::ToolOutput(result))),
                    Item::Images(images) => Box::new(std::iter::once(Wire::Images(images))),
                }
            });
        serializer.collect_seq(system.into_iter().chain(history))
    }
}

/// One input item on the wire.
enum Wire<'a> {
    System(&'static str, &'a str),
    User(&'a UserContent, bool),
    /// A reasoning item, parsed from its signature only while it is written.
    Reasoning(Value),
    Text {
        text: &'a str,
        id: Option<String>,
    },
    Call {
        call_id: &'a str,
        name: &'a str,
        arguments: &'a Value,
        id: Option<&'a str>,
    },
    ToolOutput(&'a ToolResultMessage),
    Images(&'a [&'a ImageContent]),
}

impl Serialize for Wire<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        if let Wire::Reasoning(item) = self {
            return item.serialize(serializer);
        }
        let mut map = serializer.serialize_map(None)?;
        match self {
            Wire::System(role, prompt) => {
                map.serialize_entry("role", role)?;
                map.serialize_entry("content", prompt)?;
            }
            Wire::User(content, images) => {
                map.serialize_entry("role", "user")?;
                map.serialize_entry("content", &Seq(|| user_parts(content, *images)))?;
            }
            Wire::Reasoning(_) => {}
            Wire::Text { text, id } => {
                #[derive(Serialize)]
                struct OutputText<'a> {
                    r#type: &'static str,
                    text: &'a str,
                    annotations: [(); 0],
                }
                map.serialize_entry("type", "message")?;
                map.serialize_entry("role", "assistant")?;
                let content = [OutputText {
                    r#type: "output_text",
                    text,
                    annotations: [],
                }];
                map.serialize_entry("content", &content)?;
                map.serialize_entry("status", "completed")?;
                if let Some(id) = id {
                    map.serialize_entry("id", id)?;
                }
            }
            Wire::Call {
                call_id,
                name,
                arguments,
                id,
            } => {
                map.serialize_entry("type", "function_call")?;
                map.serialize_entry("call_id", call_id)?;
                map.serialize_entry("name", name)?;
                map.serialize_entry("arguments", &Display(*arguments))?;
                if let Some(id) = id {
                    map.serialize_entry("id", id)?;
                }
            }
            Wire::ToolOutput(result) => {
                map.serialize_entry("type", "function_call_output")?;
                map.serialize_entry("call_id", split_call_id(&result.tool_call_id).0)?;
                if joined_is_empty(result_texts(result)) {
                    map.serialize_entry("output", IMAGES_ONLY)?;
                } else {
                    let text = Joined {
                        pieces: || result_texts(result),
                        separator: "\n",
                    };
                    map.serialize_entry("output", &Display(&text))?;
                }
            }
            Wire::Images(images) => {
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
        let mut map = serializer.serialize_map(None)?;
        match self {
            Part::Text(text) => {
                map.serialize_entry("type", "input_text")?;
                map.serialize_entry("text", text)?;
            }
            Part::Image(image) => {
                let url = format_args!("data:{};base64,{}", image.mime_type, image.data);
                map.serialize_entry("type", "input_image")?;
                map.serialize_entry("detail", "auto")?;
                map.serialize_entry("image_url", &Display(&url))?;
            }
        }
        map.end()
    }
}

/// A user message's parts; images only for models that take them.
fn user_parts(content: &UserContent, images: bool) -> impl Iterator<Item = Part<'_>> {
    let (text, blocks) = match content {
        UserContent::Text(text) => (Some(text.as_str()), &[][..]),
        UserContent::Blocks(blocks) => (None, blocks.as_slice()),
    };
    text.map(Part::Text)
        .into_iter()
        .chain(blocks.iter().filter_map(move |block| match block {
            UserBlock::Text(t) => Some(Part::Text(&t.text)),
            UserBlock::Image(image) if images => Some(Part::Image(image)),
            UserBlock::Image(_) => None,
        }))
}

/// The items of an assistant turn. Item ids and reasoning items are only valid for the model
/// that produced them; from another model they are left out and only the visible content is
/// sent.
fn assistant_items<'a>(
    model: &Model,
    message: &'a AssistantMessage,
) -> impl Iterator<Item = Wire<'a>> + use<'a> {
    let same_model = message.provider == model.provider && message.model == model.id;
    message.content.iter().filter_map(move |block| match block {
        AssistantBlock::Thinking(t) if same_model => t
            .thinking_signature
            .as_deref()
            .and_then(reasoning_item)
            .map(Wire::Reasoning),
        AssistantBlock::Thinking(_) => None,
        AssistantBlock::Text(t) if !t.text.is_empty() => Some(Wire::Text {
            text: &t.text,
            id: t
                .text_signature
                .as_deref()
                .and_then(message_id)
                .filter(|_| same_model),
        }),
        AssistantBlock::Text(_) => None,
        AssistantBlock::ToolCall(call) => {
            let (call_id, item_id) = split_call_id(&call.id);
            Some(Wire::Call {
                call_id,
                name: &call.name,
                arguments: &call.arguments,
                id: item_id.filter(|_| same_model),
            })
        }
    })
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

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn body_of(model: &Model, context: &Context, options: &StreamOptions) -> Value {
        serde_json::to_value(build_body(model, context, options)).unwrap()
    }
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
            messages: messages.into_iter().map(std::sync::Arc::new).collect(),
            tools: vec![Tool {
                name: "read".into(),
                description: "Read".into(),
                parameters: json!({"type": "object"}).into(),
                constrained_sampling: None,
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
            duration_ms: None,
        })
    }

    #[test]
    fn body_basics() {
        let options = StreamOptions {
            session_id: Some("s1".into()),
            ..Default::default()
        };
        let b = body_of(
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
        let b = body_of(&m, &context(vec![user]), &StreamOptions::default());
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
        let b = body_of(&model(), &context(vec![]), &options);
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
            Message::from(assistant("openai", "m")),
            tool_result(),
        ];
        let b = body_of(&model(), &context(history), &StreamOptions::default());
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
        let history = vec![Message::from(assistant("openai", "other")), tool_result()];
        let b = body_of(&model(), &context(history), &StreamOptions::default());
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
