//! pi context → Gemini `GenerateContentRequest` body: typed wire values that borrow from the
//! context and are serialised straight into the request buffer.

use super::is_generated_tool_call_id;
use crate::options::StreamOptions;
use crate::providers::{Display, Joined, Seq, result_texts};
use crate::types::{
    AssistantBlock, AssistantMessage, Context, Message, Model, StopReason, Tool, ToolResultMessage,
    UserBlock, UserContent,
};
use serde::Serialize;
use serde::ser::{SerializeMap, Serializer};
use serde_json::Value;
use std::collections::HashSet;
use std::sync::Arc;

/// The request body, in the order its fields are sent.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct Body<'a> {
    contents: Contents<'a>,
    #[serde(skip_serializing_if = "Option::is_none")]
    system_instruction: Option<SystemInstruction<'a>>,
    #[serde(skip_serializing_if = "<[Tool]>::is_empty", serialize_with = "tools")]
    tools: &'a [Tool],
    generation_config: GenerationConfig,
}

/// `{"parts": [{"text": prompt}]}`.
struct SystemInstruction<'a>(&'a str);

impl Serialize for SystemInstruction<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(1))?;
        map.serialize_entry("parts", &[Part::Text(self.0)])?;
        map.end()
    }
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct GenerationConfig {
    max_output_tokens: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    temperature: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    thinking_config: Option<ThinkingConfig>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ThinkingConfig {
    include_thoughts: bool,
    thinking_budget: u64,
}

pub(super) fn build_body<'a>(
    model: &Model,
    context: &'a Context,
    options: &StreamOptions,
) -> Body<'a> {
    let thinking_config = options
        .reasoning_level()
        .filter(|_| model.reasoning)
        .map(|level| ThinkingConfig {
            include_thoughts: true,
            thinking_budget: level.budget_tokens(),
        });
    Body {
        contents: Contents::new(&context.messages),
        system_instruction: context
            .system_prompt
            .as_deref()
            .filter(|s| !s.is_empty())
            .map(SystemInstruction),
        tools: &context.tools,
        generation_config: GenerationConfig {
            max_output_tokens: options.max_tokens.unwrap_or(model.max_tokens),
            temperature: options.temperature,
            thinking_config,
        },
    }
}

/// `[{"functionDeclarations": [...]}]`.
fn tools<S: Serializer>(tools: &&[Tool], serializer: S) -> Result<S::Ok, S::Error> {
    #[derive(Serialize)]
    #[serde(rename_all = "camelCase")]
    struct Declaration<'a> {
        name: &'a str,
        description: &'a str,
        parameters_json_schema: &'a Value,
    }
    struct Declarations<'a>(&'a [Tool]);
    impl Serialize for Declarations<'_> {
        fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
            let declarations = Seq(|| {
                self.0.iter().map(|tool| Declaration {
                    name: &tool.name,
                    description: &tool.description,
                    parameters_json_schema: tool.parameters.value(),
                })
            });
            let mut map = serializer.serialize_map(Some(1))?;
            map.serialize_entry("functionDeclarations", &declarations)?;
            map.end()
        }
    }
    serializer.collect_seq([Declarations(tools)])
}

/// One content and the history it is made from. Consecutive tool results become one user
/// content; each result notes whether its call's id was one this adapter generated (for calls
/// Gemini sent without one), which is left out on calls and results alike.
enum Turn<'a> {
    User(&'a UserContent),
    Model(&'a AssistantMessage),
    Results(Vec<(&'a ToolResultMessage, bool)>),
}

/// The history as contents.
struct Contents<'a>(Vec<Turn<'a>>);

impl<'a> Contents<'a> {
    fn new(history: &'a [Arc<Message>]) -> Self {
        let mut turns = Vec::new();
        let mut generated: HashSet<&str> = HashSet::new();
        let mut i = 0;
        while i < history.len() {
            match &*history[i] {
                Message::User(user) => {
                    if user_parts(&user.content).next().is_some() {
                        turns.push(Turn::User(&user.content));
                    }
                }
                Message::Assistant(assistant) => {
                    // A failed or aborted turn may hold half a tool call; it must not be
                    // replayed.
                    let replayed = !matches!(
                        assistant.stop_reason,
                        StopReason::Error | StopReason::Aborted
                    );
                    if replayed && model_parts(assistant).next().is_some() {
                        generated.extend(generated_ids(assistant));
                        turns.push(Turn::Model(assistant));
                    }
                }
                Message::ToolResult(_) => {
                    let mut results = Vec::new();
                    while let Some(Message::ToolResult(result)) = history.get(i).map(|m| &**m) {
                        results.push((result, generated.contains(result.tool_call_id.as_str())));
                        i += 1;
                    }
                    turns.push(Turn::Results(results));
                    continue;
                }
            }
            i += 1;
        }
        Contents(turns)
    }
}

fn generated_ids(message: &AssistantMessage) -> impl Iterator<Item = &str> {
    message.content.iter().filter_map(|block| match block {
        AssistantBlock::ToolCall(call)
            if is_generated_tool_call_id(&call.id, &call.name, message.response_id.as_deref()) =>
        {
            Some(call.id.as_str())
        }
        _ => None,
    })
}

impl Serialize for Contents<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.0.iter())
    }
}

impl Serialize for Turn<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(2))?;
        match self {
            Turn::User(content) => {
                map.serialize_entry("role", "user")?;
                map.serialize_entry("parts", &Seq(|| user_parts(content)))?;
            }
            Turn::Model(message) => {
                map.serialize_entry("role", "model")?;
                map.serialize_entry("parts", &Seq(|| model_parts(message)))?;
            }
            Turn::Results(results) => {
                map.serialize_entry("role", "user")?;
                // Images cannot sit inside a functionResponse here; they follow the responses.
                let parts = Seq(|| {
                    let responses = results
                        .iter()
                        .map(|(result, generated)| Part::Response(result, *generated));
                    let images = results
                        .iter()
                        .flat_map(|(result, _)| result.content.iter())
                        .filter_map(|block| match block {
                            UserBlock::Image(img) => Some(Part::Image(&img.mime_type, &img.data)),
                            UserBlock::Text(_) => None,
                        });
                    responses.chain(images)
                });
                map.serialize_entry("parts", &parts)?;
            }
        }
        map.end()
    }
}

/// One part of a content.
enum Part<'a> {
    Text(&'a str),
    Image(&'a str, &'a str),
    /// A model text, with the signature Gemini gave it.
    SignedText(&'a str, Option<&'a str>),
    Thought(&'a str, &'a str),
    Call(&'a crate::types::ToolCall, bool),
    /// A tool result; `true` when its call's id was generated here.
    Response(&'a ToolResultMessage, bool),
}

impl Serialize for Part<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        match *self {
            Part::Text(text) => map.serialize_entry("text", text)?,
            Part::Image(mime_type, data) => {
                #[derive(Serialize)]
                #[serde(rename_all = "camelCase")]
                struct InlineData<'a> {
                    mime_type: &'a str,
                    data: &'a str,
                }
                map.serialize_entry("inlineData", &InlineData { mime_type, data })?;
            }
            Part::SignedText(text, signature) => {
                map.serialize_entry("text", text)?;
                if let Some(sig) = signature {
                    map.serialize_entry("thoughtSignature", sig)?;
                }
            }
            Part::Thought(thinking, signature) => {
                map.serialize_entry("text", thinking)?;
                map.serialize_entry("thought", &true)?;
                map.serialize_entry("thoughtSignature", signature)?;
            }
            Part::Call(call, generated) => {
                map.serialize_entry("functionCall", &FunctionCall(call, generated))?;
                if let Some(sig) = &call.thought_signature {
                    map.serialize_entry("thoughtSignature", sig)?;
                }
            }
            Part::Response(result, generated) => {
                map.serialize_entry("functionResponse", &FunctionResponse(result, generated))?;
            }
        }
        map.end()
    }
}

/// `{name, args, id?}`; a generated id is not sent.
struct FunctionCall<'a>(&'a crate::types::ToolCall, bool);

impl Serialize for FunctionCall<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("name", &self.0.name)?;
        map.serialize_entry("args", &self.0.arguments)?;
        if !self.1 {
            map.serialize_entry("id", &self.0.id)?;
        }
        map.end()
    }
}

/// `{name, response: {output|error: text}, id?}`; a generated id is not sent.
struct FunctionResponse<'a>(&'a ToolResultMessage, bool);

impl Serialize for FunctionResponse<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        struct Response<'a>(&'a ToolResultMessage);
        impl Serialize for Response<'_> {
            fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                let key = if self.0.is_error { "error" } else { "output" };
                let text = Joined {
                    pieces: || result_texts(self.0),
                    separator: "\n",
                };
                let mut map = serializer.serialize_map(Some(1))?;
                map.serialize_entry(key, &Display(&text))?;
                map.end()
            }
        }
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("name", &self.0.tool_name)?;
        map.serialize_entry("response", &Response(self.0))?;
        if !self.1 {
            map.serialize_entry("id", &self.0.tool_call_id)?;
        }
        map.end()
    }
}

/// A user message's parts; empty text is left out.
fn user_parts(content: &UserContent) -> impl Iterator<Item = Part<'_>> {
    let (text, blocks) = match content {
        UserContent::Text(text) => (Some(text.as_str()), &[][..]),
        UserContent::Blocks(blocks) => (None, blocks.as_slice()),
    };
    text.map(Part::Text)
        .into_iter()
        .chain(blocks.iter().map(|block| match block {
            UserBlock::Text(t) => Part::Text(&t.text),
            UserBlock::Image(img) => Part::Image(&img.mime_type, &img.data),
        }))
        .filter(|part| !matches!(part, Part::Text("")))
}

/// A model turn's parts.
fn model_parts(message: &AssistantMessage) -> impl Iterator<Item = Part<'_>> {
    let response_id = message.response_id.as_deref();
    message.content.iter().filter_map(move |block| match block {
        AssistantBlock::Text(t) if t.text.is_empty() && t.text_signature.is_none() => None,
        AssistantBlock::Text(t) => Some(Part::SignedText(&t.text, t.text_signature.as_deref())),
        // Gemini only takes thoughts back with the signature it issued.
        AssistantBlock::Thinking(t) => t
            .thinking_signature
            .as_deref()
            .filter(|_| t.redacted != Some(true))
            .map(|sig| Part::Thought(&t.thinking, sig)),
        AssistantBlock::ToolCall(call) => Some(Part::Call(
            call,
            is_generated_tool_call_id(&call.id, &call.name, response_id),
        )),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn body_of(model: &Model, context: &Context, options: &StreamOptions) -> Value {
        serde_json::to_value(build_body(model, context, options)).unwrap()
    }
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
            duration_ms: None,
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
                Message::from(assistant),
                result(&generated, "A", false),
                result("call_2", "missing", true),
            ]
            .into_iter()
            .map(std::sync::Arc::new)
            .collect(),
            tools: vec![Tool {
                name: "read".into(),
                description: "Read a file".into(),
                parameters: json!({"type": "object"}).into(),
                constrained_sampling: None,
            }],
        }
    }

    #[test]
    fn full_context_body() {
        let body = body_of(&model(), &context(), &StreamOptions::default());
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
        let body = body_of(&model(), &Context::default(), &on);
        assert_eq!(
            body["generationConfig"],
            json!({"maxOutputTokens": 1000, "temperature": 0.3,
                   "thinkingConfig": {"includeThoughts": true, "thinkingBudget": 2048}})
        );
        let off = StreamOptions {
            reasoning: Some(ThinkingLevel::Off),
            ..Default::default()
        };
        let body = body_of(&model(), &Context::default(), &off);
        assert!(body["generationConfig"].get("thinkingConfig").is_none());
        let mut plain = model();
        plain.reasoning = false;
        let body = body_of(&plain, &Context::default(), &on);
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
                Message::from(failed),
            ]
            .into_iter()
            .map(std::sync::Arc::new)
            .collect(),
            ..Default::default()
        };
        let body = body_of(&model(), &ctx, &StreamOptions::default());
        assert_eq!(
            body["contents"],
            json!([{"role": "user", "parts": [{"text": "hi"}]}])
        );
    }
}
