//! The parts of a Chat Completions stream chunk that the decoder reads, borrowed from the data
//! line.

use crate::providers::lenient::{Arr, Obj, Str, U64, present};
use serde::Deserialize;
use serde::de::IgnoredAny;

#[derive(Debug, Deserialize)]
pub(super) struct Chunk<'a> {
    /// A non-null `error` ends the stream; its text is read from the line again.
    #[serde(default)]
    pub error: Option<IgnoredAny>,
    #[serde(default, borrow)]
    pub id: Str<'a>,
    #[serde(default, borrow)]
    pub model: Str<'a>,
    #[serde(default)]
    pub usage: Obj<Box<Usage>>,
    #[serde(default, borrow)]
    pub choices: Arr<Obj<Choice<'a>>>,
}

#[derive(Debug, Default, Deserialize)]
pub(super) struct Choice<'a> {
    /// Outer `None`: no `index` key at all; inner: its value when it is a count.
    #[serde(default, deserialize_with = "present")]
    pub index: Option<U64>,
    #[serde(default)]
    pub usage: Obj<Box<Usage>>,
    #[serde(default, borrow)]
    pub delta: Obj<Delta<'a>>,
    #[serde(default, borrow)]
    pub finish_reason: Str<'a>,
}

/// The reasoning fields are those of `REASONING_FIELDS`, in its order.
#[derive(Debug, Default, Deserialize)]
pub(super) struct Delta<'a> {
    #[serde(default, borrow)]
    pub reasoning_content: Str<'a>,
    #[serde(default, borrow)]
    pub reasoning: Str<'a>,
    #[serde(default, borrow)]
    pub reasoning_text: Str<'a>,
    #[serde(default, borrow)]
    pub content: Str<'a>,
    #[serde(default, borrow)]
    pub refusal: Str<'a>,
    #[serde(default, borrow)]
    pub tool_calls: Arr<Obj<ToolCall<'a>>>,
}

impl Delta<'_> {
    /// The reasoning fields with their names, in `REASONING_FIELDS` order.
    pub fn reasoning_fields(&self) -> [(&'static str, &Str<'_>); 3] {
        [
            ("reasoning_content", &self.reasoning_content),
            ("reasoning", &self.reasoning),
            ("reasoning_text", &self.reasoning_text),
        ]
    }
}

#[derive(Debug, Default, Deserialize)]
pub(super) struct ToolCall<'a> {
    #[serde(default)]
    pub index: U64,
    #[serde(default, borrow)]
    pub id: Str<'a>,
    #[serde(default, borrow)]
    pub function: Obj<Function<'a>>,
}

#[derive(Debug, Default, Deserialize)]
pub(super) struct Function<'a> {
    #[serde(default, borrow)]
    pub name: Str<'a>,
    #[serde(default, borrow)]
    pub arguments: Str<'a>,
}

#[derive(Debug, Default, Deserialize)]
pub(super) struct Usage {
    #[serde(default)]
    pub prompt_tokens: U64,
    #[serde(default)]
    pub completion_tokens: U64,
    #[serde(default)]
    pub total_tokens: U64,
    #[serde(default)]
    pub prompt_tokens_details: Obj<PromptDetails>,
    #[serde(default)]
    pub completion_tokens_details: Obj<CompletionDetails>,
}

#[derive(Debug, Default, Deserialize)]
pub(super) struct PromptDetails {
    #[serde(default)]
    pub cached_tokens: U64,
    #[serde(default)]
    pub cache_write_tokens: U64,
}

#[derive(Debug, Default, Deserialize)]
pub(super) struct CompletionDetails {
    #[serde(default)]
    pub reasoning_tokens: U64,
}
