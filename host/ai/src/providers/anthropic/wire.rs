//! The parts of Anthropic's stream events that the decoder reads, borrowed from the data line.

use crate::providers::lenient::{Obj, Str, U64};
use serde::Deserialize;
use serde_json::value::RawValue;

/// One `data:` payload. Fields belong to different event types; absent ones stay empty. The
/// parts of rare events are boxed to keep the struct small for the frequent deltas.
#[derive(Debug, Deserialize)]
pub(super) struct Event<'a> {
    #[serde(rename = "type", default, borrow)]
    pub kind: Str<'a>,
    #[serde(default)]
    pub index: U64,
    #[serde(default, borrow)]
    pub message: Obj<Box<Message<'a>>>,
    #[serde(default, borrow)]
    pub content_block: Obj<Box<Block<'a>>>,
    #[serde(default, borrow)]
    pub delta: Obj<Delta<'a>>,
    #[serde(default)]
    pub usage: Obj<Box<Usage>>,
}

#[derive(Debug, Default, Deserialize)]
pub(super) struct Message<'a> {
    #[serde(default, borrow)]
    pub id: Str<'a>,
    #[serde(default, borrow)]
    pub model: Str<'a>,
    #[serde(default)]
    pub usage: Obj<Usage>,
}

#[derive(Debug, Default, Deserialize)]
pub(super) struct Block<'a> {
    #[serde(rename = "type", default, borrow)]
    pub kind: Str<'a>,
    #[serde(default, borrow)]
    pub text: Str<'a>,
    #[serde(default, borrow)]
    pub thinking: Str<'a>,
    #[serde(default, borrow)]
    pub signature: Str<'a>,
    #[serde(default, borrow)]
    pub data: Str<'a>,
    #[serde(default, borrow)]
    pub id: Str<'a>,
    #[serde(default, borrow)]
    pub name: Str<'a>,
    /// Kept as the provider's text: never built as a `Value` nor re-serialized.
    #[serde(default)]
    pub input: Option<Box<RawValue>>,
}

#[derive(Debug, Default, Deserialize)]
pub(super) struct Delta<'a> {
    #[serde(rename = "type", default, borrow)]
    pub kind: Str<'a>,
    #[serde(default, borrow)]
    pub text: Str<'a>,
    #[serde(default, borrow)]
    pub thinking: Str<'a>,
    #[serde(default, borrow)]
    pub signature: Str<'a>,
    #[serde(default, borrow)]
    pub partial_json: Str<'a>,
    #[serde(default, borrow)]
    pub stop_reason: Str<'a>,
    #[serde(default, borrow)]
    pub stop_details: Obj<StopDetails<'a>>,
}

#[derive(Debug, Default, Deserialize)]
pub(super) struct StopDetails<'a> {
    #[serde(default, borrow)]
    pub explanation: Str<'a>,
}

#[derive(Debug, Default, Deserialize)]
pub(super) struct Usage {
    #[serde(default)]
    pub input_tokens: U64,
    #[serde(default)]
    pub output_tokens: U64,
    #[serde(default)]
    pub cache_read_input_tokens: U64,
    #[serde(default)]
    pub cache_creation_input_tokens: U64,
    #[serde(default)]
    pub output_tokens_details: Obj<UsageDetails>,
}

#[derive(Debug, Default, Deserialize)]
pub(super) struct UsageDetails {
    #[serde(default)]
    pub thinking_tokens: U64,
}
