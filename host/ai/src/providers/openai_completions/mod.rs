//! The `openai-completions` adapter: OpenAI Chat Completions and the many servers that copy it
//! (OpenRouter, DeepSeek, Groq, Mistral, xAI, llama.cpp, vLLM, Ollama…). Their differences are
//! resolved once per request in [`compat`].

pub mod compat;
mod decode;
mod request;
mod wire;

use crate::options::StreamOptions;
use crate::protocol::{Decoder, HttpRequest, Protocol};
use crate::types::{Context, Model};

pub use compat::{ResolvedCompat, detect_compat};
pub(crate) use request::effort;

pub struct OpenAiCompletions;

impl Protocol for OpenAiCompletions {
    fn api(&self) -> &'static str {
        "openai-completions"
    }

    fn build_request(
        &self,
        model: &Model,
        context: &Context,
        options: &StreamOptions,
        api_key: Option<&str>,
    ) -> Result<HttpRequest, String> {
        Ok(HttpRequest {
            url: super::endpoint(&model.base_url, "chat/completions"),
            headers: bearer_headers(model, options, api_key),
            body: super::body(model, context, options, |model, context, options, out| {
                let compat = detect_compat(model);
                serde_json::to_writer(out, &request::build_body(model, context, options, &compat))
            })?,
        })
    }

    fn decoder(&self, _model: &Model) -> Box<dyn Decoder> {
        Box::new(decode::CompletionsDecoder::default())
    }

    /// Responses-style ids (`{call_id}|{item_id}`) keep only their call id.
    fn normalize_tool_call_id(&self, id: &str) -> String {
        super::sanitize_tool_call_id(id.split('|').next().unwrap_or(id))
    }
}

/// Model headers, then the bearer key (when there is one: local servers have none), then the
/// per-request headers.
pub(crate) fn bearer_headers(
    model: &Model,
    options: &StreamOptions,
    api_key: Option<&str>,
) -> Vec<(String, String)> {
    let own = api_key
        .filter(|k| !k.is_empty())
        .map(|key| ("authorization".to_owned(), format!("Bearer {key}")));
    super::request_headers(model, own.into_iter().collect(), options)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_sanitized_and_capped() {
        let p = OpenAiCompletions;
        assert_eq!(p.normalize_tool_call_id("call_abc-1"), "call_abc-1");
        assert_eq!(p.normalize_tool_call_id("toolu.01 x"), "toolu_01_x");
        assert_eq!(p.normalize_tool_call_id("call_1|fc_1"), "call_1");
        assert_eq!(p.normalize_tool_call_id(&"a".repeat(80)).len(), 64);
    }

    #[test]
    fn headers_model_then_key_then_options() {
        let mut m = compat::tests::model("openai", "https://api.openai.com/v1/");
        m.headers = Some([("x-org".to_owned(), "o".to_owned())].into());
        let mut options = StreamOptions::default();
        options.headers.insert("X-Org".into(), "explicit".into());
        let context = Context::default();
        let r = OpenAiCompletions
            .build_request(&m, &context, &options, Some("sk-1"))
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(r.url, "https://api.openai.com/v1/chat/completions");
        assert_eq!(
            r.headers,
            vec![
                ("authorization".to_owned(), "Bearer sk-1".to_owned()),
                ("X-Org".to_owned(), "explicit".to_owned()),
            ]
        );
    }

    #[test]
    fn no_key_no_authorization_header() {
        let m = compat::tests::model("llama", "http://127.0.0.1:8080/v1");
        let r = OpenAiCompletions
            .build_request(&m, &Context::default(), &StreamOptions::default(), None)
            .unwrap_or_else(|e| panic!("{e}"));
        assert!(r.headers.is_empty());
    }

    #[test]
    fn endpoint_strips_trailing_slash() {
        assert_eq!(
            crate::providers::endpoint("https://api.openai.com/v1/", "chat/completions"),
            "https://api.openai.com/v1/chat/completions"
        );
    }
}
