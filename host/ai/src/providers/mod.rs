//! The built-in wire-protocol adapters.

pub mod anthropic;
pub mod google;
pub mod openai_completions;
pub mod openai_responses;

mod lenient;

use crate::protocol::Protocol;
use crate::stream::{ApiProvider, HttpProvider};
use std::sync::Arc;

/// The adapter for a built-in `api` value, for decoding without HTTP (tests, replay).
pub fn protocol(api: &str) -> Option<Box<dyn Protocol>> {
    Some(match api {
        "anthropic-messages" => Box::new(anthropic::AnthropicMessages),
        "openai-completions" => Box::new(openai_completions::OpenAiCompletions),
        "openai-responses" => Box::new(openai_responses::OpenAiResponses),
        "google-generative-ai" => Box::new(google::GoogleGenerativeAi),
        _ => return None,
    })
}

pub(crate) fn builtin() -> Vec<(&'static str, Arc<dyn ApiProvider>)> {
    vec![
        (
            "anthropic-messages",
            Arc::new(HttpProvider(anthropic::AnthropicMessages)),
        ),
        (
            "openai-completions",
            Arc::new(HttpProvider(openai_completions::OpenAiCompletions)),
        ),
        (
            "openai-responses",
            Arc::new(HttpProvider(openai_responses::OpenAiResponses)),
        ),
        (
            "google-generative-ai",
            Arc::new(HttpProvider(google::GoogleGenerativeAi)),
        ),
    ]
}

/// Request headers in pi's precedence: the model's, then the adapter's (auth, version), then the
/// caller's explicit ones. A later header replaces an earlier one of the same name, compared
/// without case, because HTTP clients append rather than replace.
pub(crate) fn merge_headers(
    model: &crate::types::Model,
    adapter: Vec<(String, String)>,
    options: &crate::options::StreamOptions,
) -> Vec<(String, String)> {
    let model_headers = model.headers.iter().flatten();
    let explicit = options.headers.iter();
    let mut out: Vec<(String, String)> = Vec::new();
    let layers = model_headers
        .map(|(k, v)| (k.clone(), v.clone()))
        .chain(adapter)
        .chain(explicit.map(|(k, v)| (k.clone(), v.clone())));
    for (name, value) in layers {
        out.retain(|(existing, _)| !existing.eq_ignore_ascii_case(&name));
        out.push((name, value));
    }
    out
}
