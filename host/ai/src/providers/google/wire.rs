//! The parts of a Gemini `GenerateContentResponse` chunk that the decoder reads, borrowed from
//! the data line.

use crate::providers::lenient::{Arr, Bool, First, Obj, Str, U64, present};
use serde::Deserialize;
use serde::de::IgnoredAny;
use serde_json::value::RawValue;

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct Chunk<'a> {
    /// Present (even as `null`) on an in-stream error; its text is read from the line again.
    #[serde(default, deserialize_with = "present")]
    pub error: Option<IgnoredAny>,
    #[serde(default, borrow)]
    pub response_id: Str<'a>,
    #[serde(default, borrow)]
    pub model_version: Str<'a>,
    /// Present (whatever its value) when the chunk reports usage.
    #[serde(default, deserialize_with = "present")]
    pub usage_metadata: Option<Obj<UsageMetadata>>,
    #[serde(default, borrow)]
    pub prompt_feedback: Obj<PromptFeedback<'a>>,
    /// Only candidate 0 is read; the others are skipped unparsed.
    #[serde(default, borrow)]
    pub candidates: First<Obj<Candidate<'a>>>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct UsageMetadata {
    #[serde(default)]
    pub prompt_token_count: U64,
    #[serde(default)]
    pub cached_content_token_count: U64,
    #[serde(default)]
    pub candidates_token_count: U64,
    #[serde(default)]
    pub thoughts_token_count: U64,
    #[serde(default)]
    pub total_token_count: U64,
}

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct PromptFeedback<'a> {
    #[serde(default, borrow)]
    pub block_reason: Str<'a>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct Candidate<'a> {
    #[serde(default, borrow)]
    pub content: Obj<Content<'a>>,
    #[serde(default, borrow)]
    pub finish_reason: Str<'a>,
    #[serde(default, borrow)]
    pub finish_message: Str<'a>,
}

#[derive(Debug, Default, Deserialize)]
pub(super) struct Content<'a> {
    #[serde(default, borrow)]
    pub parts: Arr<Obj<Part<'a>>>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct Part<'a> {
    #[serde(default, borrow)]
    pub text: Str<'a>,
    #[serde(default)]
    pub thought: Bool,
    #[serde(default, borrow)]
    pub thought_signature: Str<'a>,
    /// Present (whatever its value) when the part is a function call.
    #[serde(default, borrow, deserialize_with = "present")]
    pub function_call: Option<Obj<FunctionCall<'a>>>,
}

#[derive(Debug, Default, Deserialize)]
pub(super) struct FunctionCall<'a> {
    #[serde(default, borrow)]
    pub name: Str<'a>,
    #[serde(default, borrow)]
    pub id: Str<'a>,
    /// Kept as the provider's text: never built as a `Value` nor re-serialized.
    #[serde(default)]
    pub args: Option<Box<RawValue>>,
}
