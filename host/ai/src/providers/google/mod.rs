//! The `google-generative-ai` adapter: the Gemini API's `streamGenerateContent` with SSE.
//!
//! `request` turns pi's context into the native body, `decode` turns the chunk stream back into
//! builder calls. This file holds what ties them to HTTP and the tool-call id scheme.

mod decode;
mod request;
mod wire;

use crate::options::StreamOptions;
use crate::protocol::{Decoder, HttpRequest, Protocol};
use crate::types::{Context, Model};

pub use decode::GoogleDecoder;

pub struct GoogleGenerativeAi;

impl Protocol for GoogleGenerativeAi {
    fn api(&self) -> &'static str {
        "google-generative-ai"
    }

    fn build_request(
        &self,
        model: &Model,
        context: &Context,
        options: &StreamOptions,
        api_key: Option<&str>,
    ) -> Result<HttpRequest, String> {
        let mut own = Vec::new();
        if let Some(key) = api_key.filter(|k| !k.is_empty()) {
            own.push(("x-goog-api-key".to_owned(), key.to_owned()));
        }
        Ok(HttpRequest {
            url: super::endpoint(
                &model.base_url,
                &format!("models/{}:streamGenerateContent?alt=sse", model.id),
            ),
            headers: super::request_headers(model, own, options),
            body: super::body(model, context, options, |model, context, options, out| {
                serde_json::to_writer(out, &request::build_body(model, context, options))
            })?,
        })
    }

    fn decoder(&self, _model: &Model) -> Box<dyn Decoder> {
        Box::new(GoogleDecoder::default())
    }
}

/// The id given to the `n`-th (from 1) function call of a response that carried none (Gemini
/// 2.x never sends one). pi needs an id to pair the call with its result; the response id makes
/// it unique across turns, and a run is deterministic for the same stream.
pub fn generated_tool_call_id(name: &str, response_id: Option<&str>, n: usize) -> String {
    match response_id {
        Some(rid) => format!("{name}_{rid}_{n}"),
        None => format!("{name}_{n}"),
    }
}

/// Whether `id` is one [`generated_tool_call_id`] made for a call named `name` in the response
/// `response_id`: `{name}_{response_id}_{digits}` (or `{name}_{digits}` without a response id).
/// Such ids are not Gemini's, so they are not sent back.
pub fn is_generated_tool_call_id(id: &str, name: &str, response_id: Option<&str>) -> bool {
    let Some(rest) = id.strip_prefix(name).and_then(|r| r.strip_prefix('_')) else {
        return false;
    };
    let counter = match response_id {
        Some(rid) => rest.strip_prefix(rid).and_then(|r| r.strip_prefix('_')),
        None => Some(rest),
    };
    counter.is_some_and(|c| !c.is_empty() && c.bytes().all(|b| b.is_ascii_digit()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::Modality;
    use std::collections::BTreeMap;

    pub(super) fn model() -> Model {
        Model {
            id: "gemini-test".into(),
            name: "Gemini test".into(),
            api: "google-generative-ai".into(),
            provider: "google".into(),
            base_url: "https://generativelanguage.googleapis.com/v1beta/".into(),
            reasoning: true,
            input: vec![Modality::Text, Modality::Image],
            cost: Default::default(),
            context_window: 1_000_000,
            max_tokens: 65_536,
            headers: None,
            compat: None,
        }
    }

    fn header<'a>(req: &'a HttpRequest, name: &str) -> Option<&'a str> {
        let mut found = req
            .headers
            .iter()
            .filter(|(k, _)| k.eq_ignore_ascii_case(name));
        let first = found.next().map(|(_, v)| v.as_str());
        assert!(found.next().is_none(), "header {name} sent twice");
        first
    }

    #[test]
    fn url_and_key_header() {
        let req = GoogleGenerativeAi
            .build_request(
                &model(),
                &Context::default(),
                &StreamOptions::default(),
                Some("k1"),
            )
            .unwrap();
        assert_eq!(
            req.url,
            "https://generativelanguage.googleapis.com/v1beta/models/gemini-test:streamGenerateContent?alt=sse"
        );
        assert_eq!(header(&req, "x-goog-api-key"), Some("k1"));
    }

    #[test]
    fn no_key_sends_no_auth_header() {
        let req = GoogleGenerativeAi
            .build_request(
                &model(),
                &Context::default(),
                &StreamOptions::default(),
                None,
            )
            .unwrap();
        assert_eq!(header(&req, "x-goog-api-key"), None);
    }

    #[test]
    fn explicit_headers_win() {
        let mut m = model();
        m.headers = Some(BTreeMap::from([
            ("x-goog-api-key".to_owned(), "model-key".to_owned()),
            ("x-extra".to_owned(), "model".to_owned()),
        ]));
        let mut options = StreamOptions::default();
        options
            .headers
            .insert("X-Goog-Api-Key".into(), "explicit".into());
        let req = GoogleGenerativeAi
            .build_request(&m, &Context::default(), &options, Some("k1"))
            .unwrap();
        assert_eq!(header(&req, "x-goog-api-key"), Some("explicit"));
        assert_eq!(header(&req, "x-extra"), Some("model"));
    }

    #[test]
    fn generated_ids_are_recognised() {
        let id = generated_tool_call_id("read", Some("resp_1"), 2);
        assert!(is_generated_tool_call_id(&id, "read", Some("resp_1")));
        assert!(!is_generated_tool_call_id(&id, "read", Some("resp_2")));
        assert!(!is_generated_tool_call_id(&id, "write", Some("resp_1")));
        assert!(is_generated_tool_call_id("read_3", "read", None));
        assert!(!is_generated_tool_call_id("read_", "read", None));
        assert!(!is_generated_tool_call_id(
            "call_3091305",
            "get_weather",
            None
        ));
    }
}
