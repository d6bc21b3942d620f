//! pi context → Anthropic Messages request body: typed wire values that borrow from the
//! context and are serialised straight into the request buffer.

use crate::options::StreamOptions;
use crate::providers::{EmptyObject, Seq};
use crate::types::{
    AssistantBlock, AssistantMessage, Context, Message, Model, StopReason, Tool, ToolResultMessage,
    UserBlock, UserContent,
};
use serde::Serialize;
use serde::ser::{SerializeMap, Serializer};
use serde_json::Value;
use std::sync::Arc;

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

/// The first system block of a request made with a Claude Pro/Max OAuth token.
pub(super) const OAUTH_IDENTITY: &str = "You are Claude Code, Anthropic's official CLI for Claude.";

/// The request body, in the order its fields are sent.
#[derive(Serialize)]
pub(super) struct Body<'a> {
    model: &'a str,
    max_tokens: u64,
    stream: bool,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    system: Vec<SystemBlock<'a>>,
    messages: Messages<'a>,
    #[serde(skip_serializing_if = "Tools::is_empty")]
    tools: Tools<'a>,
    #[serde(skip_serializing_if = "Option::is_none")]
    thinking: Option<ThinkingConfig>,
    #[serde(skip_serializing_if = "Option::is_none")]
    temperature: Option<f64>,
}

#[derive(Serialize)]
struct SystemBlock<'a> {
    r#type: &'static str,
    text: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    cache_control: Option<Ephemeral>,
}

/// `{"type": "ephemeral"}`: a prompt-cache breakpoint.
struct Ephemeral;

impl Serialize for Ephemeral {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(1))?;
        map.serialize_entry("type", "ephemeral")?;
        map.end()
    }
}

#[derive(Serialize)]
struct ThinkingConfig {
    r#type: &'static str,
    budget_tokens: u64,
}

pub(super) fn build_body<'a>(
    model: &'a Model,
    context: &'a Context,
    options: &StreamOptions,
    oauth: bool,
) -> Body<'a> {
    let limits = limits(model, options);
    let mut system = Vec::new();
    if oauth {
        system.push(SystemBlock {
            r#type: "text",
            text: OAUTH_IDENTITY,
            cache_control: None,
        });
    }
    if let Some(prompt) = context.system_prompt.as_deref().filter(|s| !s.is_empty()) {
        system.push(SystemBlock {
            r#type: "text",
            text: prompt,
            cache_control: Some(Ephemeral),
        });
    }
    let thinking = limits.thinking_budget.map(|budget| ThinkingConfig {
        r#type: "enabled",
        budget_tokens: budget,
    });
    Body {
        model: &model.id,
        max_tokens: limits.max_tokens,
        stream: true,
        system,
        messages: Messages::new(&context.messages, oauth),
        tools: Tools {
            tools: &context.tools,
            oauth,
        },
        // Anthropic rejects a temperature together with extended thinking.
        temperature: options.temperature.filter(|_| thinking.is_none()),
        thinking,
    }
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

/// The tool definitions; a subscription token's are named as Claude Code names them.
struct Tools<'a> {
    tools: &'a [Tool],
    oauth: bool,
}

impl Tools<'_> {
    fn is_empty(&self) -> bool {
        self.tools.is_empty()
    }
}

impl Serialize for Tools<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        #[derive(Serialize)]
        struct Definition<'a> {
            name: &'a str,
            description: &'a str,
            input_schema: &'a Value,
        }
        serializer.collect_seq(self.tools.iter().map(|tool| Definition {
            name: tool_name(&tool.name, self.oauth),
            description: &tool.description,
            input_schema: tool.parameters.value(),
        }))
    }
}

fn tool_name(name: &str, oauth: bool) -> &str {
    if oauth { claude_code_name(name) } else { name }
}

/// One wire message and the history it comes from. Consecutive tool results become one user
/// message, as Anthropic wants all results of one assistant turn together.
#[derive(Clone, Copy)]
enum Turn<'a> {
    User(&'a UserContent),
    Assistant(&'a AssistantMessage),
    Results(&'a [Arc<Message>]),
}

/// The history as wire messages. The last user message carries a cache breakpoint on its last
/// block, so the whole history up to it can be read from the prompt cache next turn.
struct Messages<'a> {
    turns: Vec<Turn<'a>>,
    last_user: Option<usize>,
    oauth: bool,
}

impl<'a> Messages<'a> {
    fn new(history: &'a [Arc<Message>], oauth: bool) -> Self {
        let mut turns = Vec::new();
        let mut i = 0;
        while i < history.len() {
            match &*history[i] {
                Message::User(user) if user_blocks(&user.content).next().is_some() => {
                    turns.push(Turn::User(&user.content));
                }
                Message::User(_) => {}
                Message::Assistant(assistant) if assistant_blocks(assistant).next().is_some() => {
                    turns.push(Turn::Assistant(assistant));
                }
                Message::Assistant(_) => {}
                Message::ToolResult(_) => {
                    let start = i;
                    while let Some(Message::ToolResult(_)) = history.get(i).map(|m| &**m) {
                        i += 1;
                    }
                    turns.push(Turn::Results(&history[start..i]));
                    continue;
                }
            }
            i += 1;
        }
        let last_user = turns
            .iter()
            .rposition(|t| matches!(t, Turn::User(_) | Turn::Results(_)));
        Messages {
            turns,
            last_user,
            oauth,
        }
    }
}

impl Serialize for Messages<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.turns.iter().enumerate().map(|(i, turn)| WireMessage {
            turn: *turn,
            cache_last: self.last_user == Some(i),
            oauth: self.oauth,
        }))
    }
}

struct WireMessage<'a> {
    turn: Turn<'a>,
    /// Put the cache breakpoint on the last block.
    cache_last: bool,
    oauth: bool,
}

impl Serialize for WireMessage<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(2))?;
        let cache = self.cache_last;
        match self.turn {
            Turn::User(content) => {
                map.serialize_entry("role", "user")?;
                let count = user_blocks(content).count();
                let blocks = Seq(|| {
                    user_blocks(content)
                        .enumerate()
                        .map(move |(i, block)| Cached(block, cache && i + 1 == count))
                });
                map.serialize_entry("content", &blocks)?;
            }
            Turn::Assistant(message) => {
                map.serialize_entry("role", "assistant")?;
                let oauth = self.oauth;
                let blocks =
                    Seq(|| assistant_blocks(message).map(move |block| AssistantWire(block, oauth)));
                map.serialize_entry("content", &blocks)?;
            }
            Turn::Results(results) => {
                map.serialize_entry("role", "user")?;
                let count = results.len();
                let blocks = Seq(|| {
                    results
                        .iter()
                        .enumerate()
                        .filter_map(move |(i, m)| match &**m {
                            Message::ToolResult(result) => {
                                Some(ResultWire(result, cache && i + 1 == count))
                            }
                            _ => None,
                        })
                });
                map.serialize_entry("content", &blocks)?;
            }
        }
        map.end()
    }
}

/// A user or tool-result block as Anthropic takes it, borrowed from either content form.
#[derive(Clone, Copy)]
enum UserPart<'a> {
    Text(&'a str),
    Image { mime_type: &'a str, data: &'a str },
}

/// A user message's blocks; empty text is dropped (Anthropic rejects it).
fn user_blocks(content: &UserContent) -> impl Iterator<Item = UserPart<'_>> {
    let (text, blocks) = match content {
        UserContent::Text(text) => (Some(text.as_str()), &[][..]),
        UserContent::Blocks(blocks) => (None, blocks.as_slice()),
    };
    text.map(UserPart::Text)
        .into_iter()
        .chain(blocks.iter().map(user_part))
        .filter(|part| !matches!(part, UserPart::Text(t) if t.trim().is_empty()))
}

fn user_part(block: &UserBlock) -> UserPart<'_> {
    match block {
        UserBlock::Text(t) => UserPart::Text(&t.text),
        UserBlock::Image(img) => UserPart::Image {
            mime_type: &img.mime_type,
            data: &img.data,
        },
    }
}

/// A user part, with the cache breakpoint when it is the history's last.
struct Cached<'a>(UserPart<'a>, bool);

impl Serialize for Cached<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        #[derive(Serialize)]
        struct Source<'a> {
            r#type: &'static str,
            media_type: &'a str,
            data: &'a str,
        }
        let mut map = serializer.serialize_map(None)?;
        match self.0 {
            UserPart::Text(text) => {
                map.serialize_entry("type", "text")?;
                map.serialize_entry("text", text)?;
            }
            UserPart::Image { mime_type, data } => {
                map.serialize_entry("type", "image")?;
                let source = Source {
                    r#type: "base64",
                    media_type: mime_type,
                    data,
                };
                map.serialize_entry("source", &source)?;
            }
        }
        if self.1 {
            map.serialize_entry("cache_control", &Ephemeral)?;
        }
        map.end()
    }
}

/// The blocks of an assistant turn that are replayed. A failed or aborted turn may hold half a
/// tool call; none of it is.
fn assistant_blocks(message: &AssistantMessage) -> impl Iterator<Item = &AssistantBlock> {
    let replayed = !matches!(message.stop_reason, StopReason::Error | StopReason::Aborted);
    message
        .content
        .iter()
        .filter(move |block| replayed && is_replayed(block))
}

fn is_replayed(block: &AssistantBlock) -> bool {
    match block {
        AssistantBlock::Text(t) => !t.text.trim().is_empty(),
        // Anthropic only accepts thinking back with the signature it issued.
        AssistantBlock::Thinking(t) => t
            .thinking_signature
            .as_deref()
            .is_some_and(|s| !s.is_empty()),
        AssistantBlock::ToolCall(_) => true,
    }
}

struct AssistantWire<'a>(&'a AssistantBlock, bool);

impl Serialize for AssistantWire<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        match self.0 {
            AssistantBlock::Text(t) => {
                map.serialize_entry("type", "text")?;
                map.serialize_entry("text", &t.text)?;
            }
            AssistantBlock::Thinking(t) => {
                let signature = t.thinking_signature.as_deref().unwrap_or_default();
                if t.redacted == Some(true) {
                    map.serialize_entry("type", "redacted_thinking")?;
                    map.serialize_entry("data", signature)?;
                } else {
                    map.serialize_entry("type", "thinking")?;
                    map.serialize_entry("thinking", &t.thinking)?;
                    map.serialize_entry("signature", signature)?;
                }
            }
            AssistantBlock::ToolCall(call) => {
                map.serialize_entry("type", "tool_use")?;
                map.serialize_entry("id", &call.id)?;
                map.serialize_entry("name", tool_name(&call.name, self.1))?;
                match &call.arguments {
                    Value::Object(_) => map.serialize_entry("input", &call.arguments)?,
                    _ => map.serialize_entry("input", &EmptyObject)?,
                }
            }
        }
        map.end()
    }
}

/// A tool result block, with the cache breakpoint when it is the history's last.
struct ResultWire<'a>(&'a ToolResultMessage, bool);

impl Serialize for ResultWire<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let result = self.0;
        let parts = || {
            result
                .content
                .iter()
                .map(user_part)
                .filter(|part| !matches!(part, UserPart::Text(t) if t.trim().is_empty()))
                .map(|part| Cached(part, false))
        };
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("type", "tool_result")?;
        map.serialize_entry("tool_use_id", &result.tool_call_id)?;
        map.serialize_entry("is_error", &result.is_error)?;
        if parts().next().is_some() {
            map.serialize_entry("content", &Seq(parts))?;
        }
        if self.1 {
            map.serialize_entry("cache_control", &Ephemeral)?;
        }
        map.end()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::{
        ImageContent, TextContent, ThinkingContent, ThinkingLevel, ToolCall, UserContent,
        UserMessage,
    };
    use serde_json::json;

    fn model() -> Model {
        super::super::tests::model()
    }

    fn body_of(model: &Model, context: &Context, options: &StreamOptions, oauth: bool) -> Value {
        serde_json::to_value(build_body(model, context, options, oauth)).unwrap()
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
            duration_ms: None,
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
                Message::from(assistant()),
                result("toolu_1", "fn a() {}", false),
                result("toolu_2", "no such file", true),
            ]
            .into_iter()
            .map(std::sync::Arc::new)
            .collect(),
            tools: vec![Tool {
                name: "read".into(),
                description: "Read a file".into(),
                parameters: json!({"type": "object", "properties": {"path": {"type": "string"}}})
                    .into(),
                constrained_sampling: None,
            }],
        }
    }

    #[test]
    fn full_context_body() {
        let body = body_of(&model(), &context(), &StreamOptions::default(), false);
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
                Message::from(failed),
            ]
            .into_iter()
            .map(std::sync::Arc::new)
            .collect(),
            ..Default::default()
        };
        let body = body_of(&model(), &ctx, &StreamOptions::default(), false);
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
        let body = body_of(&model(), &Context::default(), &options, false);
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
        let body = body_of(&model(), &Context::default(), &options, false);
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
        let body = body_of(&m, &Context::default(), &options, false);
        assert!(body.get("thinking").is_none());
        assert_eq!(body["max_tokens"], json!(64000));
        assert_eq!(body["temperature"], json!(0.2));
    }
}
