//! The `openai-responses` adapter: OpenAI's Responses API (also served by xAI and the ChatGPT
//! codex backend). Output arrives as items (reasoning, message, function_call) built from
//! `response.output_item.*` events and their deltas.

mod decode;
mod request;
mod wire;

pub(crate) use request::{Body as ResponsesBody, Setting, build_body as request_body};

use crate::options::StreamOptions;
use crate::protocol::{Decoder, HttpRequest, Protocol};
use crate::providers::openai_completions::bearer_headers;
use crate::providers::{endpoint, sanitize_tool_call_id as sanitize_id};
use crate::types::{Context, Model};

pub struct OpenAiResponses;

impl Protocol for OpenAiResponses {
    fn api(&self) -> &'static str {
        "openai-responses"
    }

    fn build_request(
        &self,
        model: &Model,
        context: &Context,
        options: &StreamOptions,
        api_key: Option<&str>,
    ) -> Result<HttpRequest, String> {
        Ok(HttpRequest {
            url: endpoint(&model.base_url, "responses"),
            headers: bearer_headers(model, options, api_key),
            body: super::body(model, context, options, |model, context, options, out| {
                serde_json::to_writer(out, &request::build_body(model, context, options))
            })?,
        })
    }

    fn decoder(&self, _model: &Model) -> Box<dyn Decoder> {
        Box::new(decode::ResponsesDecoder::default())
    }

    /// Tool-call ids here are `{call_id}|{item_id}`; each half is made acceptable on its own,
    /// and an item id must start with `fc`.
    fn normalize_tool_call_id(&self, id: &str) -> String {
        match id.split_once('|') {
            Some((call, item)) => {
                let item = sanitize_id(item);
                let item = if item.starts_with("fc") {
                    item
                } else {
                    sanitize_id(&format!("fc_{item}"))
                };
                format!("{}|{item}", sanitize_id(call))
            }
            None => sanitize_id(id),
        }
    }
}

/// Splits a tool-call id into the call id and the item id, when it has one.
pub(crate) fn split_call_id(id: &str) -> (&str, Option<&str>) {
    match id.split_once('|') {
        Some((call, item)) if !item.is_empty() => (call, Some(item)),
        Some((call, _)) => (call, None),
        None => (id, None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_keep_their_two_halves() {
        let p = OpenAiResponses;
        assert_eq!(p.normalize_tool_call_id("call_1|fc_2"), "call_1|fc_2");
        assert_eq!(
            p.normalize_tool_call_id("call.1|item 2"),
            "call_1|fc_item_2"
        );
        assert_eq!(p.normalize_tool_call_id("toolu_01"), "toolu_01");
        let long = p.normalize_tool_call_id(&format!("{}|fc_{}", "a".repeat(70), "b".repeat(70)));
        let (call, item) = split_call_id(&long);
        assert_eq!(call.len(), 64);
        assert_eq!(item.map(str::len), Some(64));
    }
}
