//! The built-in wire-protocol adapters.

pub mod anthropic;
pub mod azure;
mod body;
pub mod copilot;
pub mod google;
pub mod openai_codex;
pub mod openai_completions;
pub mod openai_responses;

mod lenient;

pub(crate) use body::{Display, EmptyObject, Joined, Seq, body, joined_is_empty, result_texts};

use crate::protocol::Protocol;

/// The adapter for a built-in `api` value, for decoding without HTTP (tests, replay).
pub fn protocol(api: &str) -> Option<Box<dyn Protocol>> {
    Some(match api {
        "anthropic-messages" => Box::new(anthropic::AnthropicMessages),
        "openai-completions" => Box::new(openai_completions::OpenAiCompletions),
        "openai-responses" => Box::new(openai_responses::OpenAiResponses),
        "openai-codex-responses" => Box::new(openai_codex::OpenAiCodexResponses),
        "google-generative-ai" => Box::new(google::GoogleGenerativeAi),
        "azure-openai-responses" => Box::new(azure::AzureOpenAiResponses),
        _ => return None,
    })
}

/// Request headers in pi's precedence: the model's, then the adapter's (auth, version), then the
/// caller's explicit ones.
pub(crate) fn request_headers(
    model: &crate::types::Model,
    adapter: Vec<(String, String)>,
    options: &crate::options::StreamOptions,
) -> Vec<(String, String)> {
    let owned = |(k, v): (&String, &String)| (k.clone(), v.clone());
    crate::auth::merge_header_layers(
        model
            .headers
            .iter()
            .flatten()
            .map(owned)
            .chain(adapter)
            .chain(options.headers.iter().map(owned)),
    )
}

/// A short, char-boundary-safe excerpt of a bad payload for error messages (120 characters).
pub(crate) fn excerpt(text: &str) -> String {
    const MAX: usize = 120;
    match text.char_indices().nth(MAX) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text.to_owned(),
    }
}

/// `{base_url}/{path}`, tolerating a trailing slash on the base.
pub(crate) fn endpoint(base_url: &str, path: &str) -> String {
    format!("{}/{path}", base_url.trim_end_matches('/'))
}

/// Tool-call ids as OpenAI and Anthropic accept them: `[a-zA-Z0-9_-]`, at most 64 characters,
/// never empty.
pub(crate) fn sanitize_tool_call_id(id: &str) -> String {
    let mut out: String = id
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .take(64)
        .collect();
    if out.is_empty() {
        out.push('_');
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn excerpt_cuts_on_char_boundary() {
        let long = "é".repeat(300);
        assert_eq!(super::excerpt(&long).chars().count(), 121);
        assert_eq!(super::excerpt("short"), "short");
    }
}
