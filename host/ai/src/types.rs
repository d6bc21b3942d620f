//! The model-call layer's data types. Field names follow pi's JSON (camelCase) because these
//! structures are persisted verbatim in session files and must stay readable by pi.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;
use std::sync::Arc;

/// Milliseconds since the Unix epoch, as pi stores timestamps.
pub fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as i64)
        .unwrap_or(0)
}

/// A text block.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TextContent {
    pub text: String,
    /// OpenAI Responses message id (or a JSON `{v:1,id,phase}` record) so the text can be replayed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text_signature: Option<String>,
}

/// A thinking (reasoning) block.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ThinkingContent {
    pub thinking: String,
    /// Provider signature needed to replay the thinking (Anthropic signature, OpenAI encrypted
    /// reasoning item, Gemini thought signature). For redacted thinking: the opaque payload.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thinking_signature: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub redacted: Option<bool>,
}

/// An image, base64-encoded.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ImageContent {
    pub data: String,
    pub mime_type: String,
}

/// A tool call requested by the model.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolCall {
    pub id: String,
    pub name: String,
    /// Parsed JSON arguments (an object; `{}` when the model sent nothing).
    pub arguments: Value,
    /// Gemini's signature on a function call part.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thought_signature: Option<String>,
}

/// Blocks allowed in user messages and tool results.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "camelCase")]
pub enum UserBlock {
    Text(TextContent),
    Image(ImageContent),
}

/// Blocks allowed in assistant messages.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "camelCase")]
pub enum AssistantBlock {
    Text(TextContent),
    Thinking(ThinkingContent),
    ToolCall(ToolCall),
}

/// User content: pi accepts a plain string or a list of blocks.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum UserContent {
    Text(String),
    Blocks(Vec<UserBlock>),
}

impl UserContent {
    /// The content as blocks (a plain string becomes one text block).
    pub fn to_blocks(&self) -> Vec<UserBlock> {
        match self {
            UserContent::Text(text) => vec![UserBlock::Text(TextContent {
                text: text.clone(),
                text_signature: None,
            })],
            UserContent::Blocks(blocks) => blocks.clone(),
        }
    }

    /// The text as the user wrote it: text blocks joined with nothing between them, images
    /// left out.
    pub fn text(&self) -> String {
        match self {
            UserContent::Text(text) => text.clone(),
            UserContent::Blocks(blocks) => blocks
                .iter()
                .filter_map(|block| match block {
                    UserBlock::Text(t) => Some(t.text.as_str()),
                    UserBlock::Image(_) => None,
                })
                .collect(),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct UserMessage {
    pub content: UserContent,
    #[serde(default)]
    pub timestamp: i64,
}

impl UserMessage {
    pub fn text(text: impl Into<String>) -> Self {
        UserMessage {
            content: UserContent::Text(text.into()),
            timestamp: now_ms(),
        }
    }
}

/// Why the model stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum StopReason {
    #[default]
    Stop,
    Length,
    ToolUse,
    Error,
    Aborted,
    /// pi 1.x: the provider returned a handle to fetch the answer later (`deferred`); the run
    /// ends as after `stop`.
    Deferred,
}

/// Cost in dollars, per usage category.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Cost {
    #[serde(default)]
    pub input: f64,
    #[serde(default)]
    pub output: f64,
    #[serde(default)]
    pub cache_read: f64,
    #[serde(default)]
    pub cache_write: f64,
    #[serde(default)]
    pub total: f64,
}

/// Token usage of one response. `input` excludes cache reads and writes (pi's convention).
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Usage {
    #[serde(default)]
    pub input: u64,
    #[serde(default)]
    pub output: u64,
    #[serde(default)]
    pub cache_read: u64,
    #[serde(default)]
    pub cache_write: u64,
    #[serde(default)]
    pub total_tokens: u64,
    #[serde(default)]
    pub cost: Cost,
    /// Reasoning tokens, a subset of `output`, when the provider reports them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reasoning: Option<u64>,
}

impl Usage {
    /// Tokens of the context this response saw: `totalTokens`, else the sum of the parts.
    pub fn context_tokens(&self) -> u64 {
        if self.total_tokens > 0 {
            self.total_tokens
        } else {
            self.parts_total()
        }
    }

    /// `input + output + cache_read + cache_write`, saturating: the counts come from servers.
    pub fn parts_total(&self) -> u64 {
        self.input
            .saturating_add(self.output)
            .saturating_add(self.cache_read)
            .saturating_add(self.cache_write)
    }

    /// Fills `cost` from the model's per-million rates and `total_tokens` when missing.
    pub fn apply_cost(&mut self, rates: &ModelCost) {
        let per = |rate: f64, tokens: u64| rate / 1_000_000.0 * tokens as f64;
        self.cost.input = per(rates.input, self.input);
        self.cost.output = per(rates.output, self.output);
        self.cost.cache_read = per(rates.cache_read, self.cache_read);
        self.cost.cache_write = per(rates.cache_write, self.cache_write);
        self.cost.total =
            self.cost.input + self.cost.output + self.cost.cache_read + self.cost.cache_write;
        if self.total_tokens == 0 {
            self.total_tokens = self.parts_total();
        }
    }
}

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AssistantMessage {
    pub content: Vec<AssistantBlock>,
    pub api: String,
    pub provider: String,
    pub model: String,
    /// The model that actually answered (e.g. a router's concrete choice).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub response_model: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub response_id: Option<String>,
    #[serde(default)]
    pub usage: Usage,
    pub stop_reason: StopReason,
    /// The provider's own stop reason string (`end_turn`, `tool_calls`, `MAX_TOKENS`, …).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub raw_stop_reason: Option<String>,
    /// A refusal the provider reported apart from the text (OpenAI).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refusal: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error_message: Option<String>,
    #[serde(default)]
    pub timestamp: i64,
    /// Milliseconds from the request to the response's end (pi 1.6), measured by the agent
    /// loop on a monotonic clock; absent in older files and for replies not streamed here.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration_ms: Option<u64>,
    /// The thinking level the agent loop asked for (pi 1.6); absent in older files, and read
    /// as absent when it names a level this version does not know.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "lenient_level"
    )]
    pub thinking_level: Option<ThinkingLevel>,
    /// pi 1.x: what the provider reported about the request besides the answer; kept as read
    /// (boxed: most replies have none, and every event carries a message).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub diagnostics: Option<Box<Value>>,
    /// pi 1.x: the handle of a deferred answer (stop reason `deferred`); kept as read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deferred: Option<Box<Value>>,
    /// pi 1.x: the model marked the end of its turn.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub end_turn: Option<bool>,
}

/// A thinking level, or `None` for any other value: a stored reply stays readable whatever
/// a newer pi recorded there.
fn lenient_level<'de, D: serde::Deserializer<'de>>(
    d: D,
) -> Result<Option<ThinkingLevel>, D::Error> {
    let value = Value::deserialize(d)?;
    Ok(serde_json::from_value(value).ok())
}

impl AssistantMessage {
    /// An empty message for `model`, stamped now.
    pub fn empty_for(model: &Model) -> Self {
        AssistantMessage {
            api: model.api.clone(),
            provider: model.provider.clone(),
            model: model.id.clone(),
            timestamp: now_ms(),
            ..Default::default()
        }
    }

    /// All text blocks joined, as a user would read the answer.
    pub fn text(&self) -> String {
        let mut out = String::new();
        for block in &self.content {
            if let AssistantBlock::Text(t) = block {
                out.push_str(&t.text);
            }
        }
        out
    }

    pub fn tool_calls(&self) -> impl Iterator<Item = &ToolCall> {
        self.content.iter().filter_map(|b| match b {
            AssistantBlock::ToolCall(call) => Some(call),
            _ => None,
        })
    }
}

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolResultMessage {
    pub tool_call_id: String,
    pub tool_name: String,
    #[serde(default)]
    pub content: Vec<UserBlock>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub details: Option<Value>,
    #[serde(default)]
    pub is_error: bool,
    #[serde(default)]
    pub timestamp: i64,
    /// Milliseconds the tool ran (pi 1.6), on a monotonic clock; absent in older files and
    /// for calls answered without running.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration_ms: Option<u64>,
}

impl ToolResultMessage {
    /// The text blocks joined with newlines (images left out).
    pub fn text(&self) -> String {
        let parts: Vec<&str> = self
            .content
            .iter()
            .filter_map(|b| match b {
                UserBlock::Text(t) => Some(t.text.as_str()),
                UserBlock::Image(_) => None,
            })
            .collect();
        parts.join("\n")
    }
}

/// A message the model-call layer understands.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "role", rename_all = "camelCase")]
pub enum Message {
    User(UserMessage),
    /// Boxed: a reply's metadata (model, usage, stop reason) makes it three times the size of
    /// the other roles, and a long history holds one message of each role per turn.
    Assistant(Box<AssistantMessage>),
    ToolResult(ToolResultMessage),
}

impl From<AssistantMessage> for Message {
    fn from(message: AssistantMessage) -> Self {
        Message::Assistant(Box::new(message))
    }
}

/// A tool as the model sees it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Tool {
    pub name: String,
    pub description: String,
    /// JSON Schema of the arguments object.
    pub parameters: crate::Schema,
    /// pi 1.x's `constrainedSampling`: `true` asks the protocols that can for arguments
    /// decoded to match `parameters` exactly (OpenAI's `strict`), `false` turns that off where
    /// a protocol would otherwise turn it on; `None` leaves each protocol's default. Grammar
    /// constraints are not carried.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub constrained_sampling: Option<bool>,
}

/// What one model request is about.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Context {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub system_prompt: Option<String>,
    /// Shared with the agent's history: a request borrows the messages the session holds
    /// instead of copying them.
    pub messages: Vec<Arc<Message>>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tools: Vec<Tool>,
}

/// Input modalities a model accepts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Modality {
    Text,
    Image,
}

/// Dollars per million tokens.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ModelCost {
    #[serde(default)]
    pub input: f64,
    #[serde(default)]
    pub output: f64,
    #[serde(default)]
    pub cache_read: f64,
    #[serde(default)]
    pub cache_write: f64,
}

/// How `max_tokens` is written in Chat Completions requests.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MaxTokensField {
    MaxCompletionTokens,
    MaxTokens,
}

/// How reasoning is requested from an OpenAI-compatible server.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ThinkingFormat {
    /// `reasoning_effort` (OpenAI, Groq, xAI…).
    Openai,
    /// `reasoning: {effort}` (OpenRouter).
    Openrouter,
    /// `thinking: {type: enabled|disabled}` (DeepSeek, z.ai).
    Deepseek,
    Zai,
    /// `enable_thinking: bool` (Qwen / DashScope).
    Qwen,
    /// `chat_template_kwargs: {enable_thinking}` (vLLM, SGLang).
    ChatTemplate,
    #[serde(other)]
    Other,
}

/// Per-model switches for servers that speak a protocol with differences. Every field is
/// optional: `None` means "detect from provider and base URL".
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Compat {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub supports_store: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub supports_developer_role: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub supports_reasoning_effort: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub supports_usage_in_streaming: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_tokens_field: Option<MaxTokensField>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub requires_tool_result_name: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub requires_assistant_after_tool_result: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub requires_thinking_as_text: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thinking_format: Option<ThinkingFormat>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub supports_strict_mode: Option<bool>,
    /// Unknown keys from models.json are kept so a file round-trips.
    #[serde(flatten)]
    pub extra: BTreeMap<String, Value>,
}

/// A model and how to reach it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Model {
    pub id: String,
    pub name: String,
    /// Wire protocol: `anthropic-messages`, `openai-completions`, `openai-responses`,
    /// `google-generative-ai`, or one registered by an extension.
    pub api: String,
    pub provider: String,
    pub base_url: String,
    #[serde(default)]
    pub reasoning: bool,
    pub input: Vec<Modality>,
    #[serde(default)]
    pub cost: ModelCost,
    pub context_window: u64,
    pub max_tokens: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub headers: Option<BTreeMap<String, String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub compat: Option<Compat>,
}

impl Model {
    pub fn supports_images(&self) -> bool {
        self.input.contains(&Modality::Image)
    }
}

/// Requested reasoning effort.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ThinkingLevel {
    Off,
    Minimal,
    Low,
    Medium,
    High,
    Xhigh,
    Max,
}

impl ThinkingLevel {
    pub const ALL: [ThinkingLevel; 7] = [
        ThinkingLevel::Off,
        ThinkingLevel::Minimal,
        ThinkingLevel::Low,
        ThinkingLevel::Medium,
        ThinkingLevel::High,
        ThinkingLevel::Xhigh,
        ThinkingLevel::Max,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            ThinkingLevel::Off => "off",
            ThinkingLevel::Minimal => "minimal",
            ThinkingLevel::Low => "low",
            ThinkingLevel::Medium => "medium",
            ThinkingLevel::High => "high",
            ThinkingLevel::Xhigh => "xhigh",
            ThinkingLevel::Max => "max",
        }
    }

    pub fn parse(text: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|l| l.as_str() == text)
    }

    /// Token budget for providers that take one (pi's defaults; xhigh/max count as high).
    pub fn budget_tokens(self) -> u64 {
        match self {
            ThinkingLevel::Off => 0,
            ThinkingLevel::Minimal => 1024,
            ThinkingLevel::Low => 2048,
            ThinkingLevel::Medium => 8192,
            ThinkingLevel::High | ThinkingLevel::Xhigh | ThinkingLevel::Max => 16384,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text_block(text: &str) -> UserBlock {
        UserBlock::Text(TextContent {
            text: text.into(),
            text_signature: None,
        })
    }

    #[test]
    fn user_text_joins_text_blocks_and_skips_images() {
        let image = UserBlock::Image(ImageContent {
            data: "AAAA".into(),
            mime_type: "image/png".into(),
        });
        let blocks = UserContent::Blocks(vec![text_block("look "), image, text_block("here")]);
        assert_eq!(blocks.text(), "look here");
        assert_eq!(UserContent::Text("plain".into()).text(), "plain");
        assert_eq!(UserContent::Blocks(vec![]).text(), "");
    }

    #[test]
    fn assistant_duration_and_thinking_level_are_written_and_optional() {
        let message = AssistantMessage {
            duration_ms: Some(1500),
            thinking_level: Some(ThinkingLevel::High),
            ..AssistantMessage::default()
        };
        let value = serde_json::to_value(&message).unwrap();
        assert_eq!(value["durationMs"], 1500);
        assert_eq!(value["thinkingLevel"], "high");
        let back: AssistantMessage = serde_json::from_value(value).unwrap();
        assert_eq!(back, message);
        // A pi 0.73 reply: neither field, and none written back.
        let old: AssistantMessage = serde_json::from_value(serde_json::json!({
            "content": [], "api": "a", "provider": "p", "model": "m", "stopReason": "stop"
        }))
        .unwrap();
        assert_eq!((old.duration_ms, old.thinking_level), (None, None));
        let future: AssistantMessage = serde_json::from_value(serde_json::json!({
            "content": [], "api": "a", "provider": "p", "model": "m", "stopReason": "stop",
            "thinkingLevel": "ultra"
        }))
        .unwrap();
        assert_eq!(future.thinking_level, None);
        let written = serde_json::to_value(&old).unwrap();
        assert!(written.get("durationMs").is_none() && written.get("thinkingLevel").is_none());
    }

    #[test]
    fn tool_result_duration_is_written_and_optional() {
        let result = ToolResultMessage {
            tool_call_id: "c1".into(),
            duration_ms: Some(7),
            ..ToolResultMessage::default()
        };
        let value = serde_json::to_value(&result).unwrap();
        assert_eq!(value["durationMs"], 7);
        assert_eq!(
            serde_json::from_value::<ToolResultMessage>(value).unwrap(),
            result
        );
        let old: ToolResultMessage = serde_json::from_value(serde_json::json!({
            "toolCallId": "c1", "toolName": "read", "content": [], "isError": false
        }))
        .unwrap();
        assert_eq!(old.duration_ms, None);
        assert!(
            serde_json::to_value(&old)
                .unwrap()
                .get("durationMs")
                .is_none()
        );
    }
}
