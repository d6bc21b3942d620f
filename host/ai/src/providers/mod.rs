//! The built-in wire-protocol adapters.

pub mod anthropic;
pub mod google;
pub mod openai_completions;
pub mod openai_responses;

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
